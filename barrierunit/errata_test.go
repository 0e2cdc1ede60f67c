package barrierunit

import (
	"math/bits"
	"slices"
	"strings"
	"testing"

	"github.com/hxbar/hxbar/hw"
)

// seedFix selects which errata of the seed's flowcharts (FIG. 19-26,
// steps S11-S86; see docs/errata.md) to correct. The zero value is the
// flowchart as printed.
type seedFix struct {
	s68          bool // E1: S68 (R - RC + NV) mod R -> (R + RC - NV) mod R
	exponent     bool // E2: S63-S67 exponent G-GC -> (G-1)-GC for the intermediate gates
	extraRanks   bool // E3: S23-S26 run the butterfly on ranks 0..NB-1 only
	lastGate     bool // E4: S74/S75 RN < RC+1 -> RN = RC, and RN+NB < R
	firstGate    bool // E5: S84/S85 RN < RC+1 -> RN = RC
	nonPow2Self  bool // E6: the non-power-of-two branch sets S17's routes within ranks 0..NB-1
	boundLastGte bool // only S75's bound RN+NB < R, keeping S74's RN < RC+1 (to isolate the fan-out)
}

var allFixes = seedFix{s68: true, exponent: true, extraRanks: true, lastGate: true, firstGate: true, nonPow2Self: true}

// seedFlowchart transcribes the seed's network configuration process step
// by step. A route is (RC, GC) -> (destination, GC+1): the flowcharts' "gate
// of the gate number indicated by the calculation result" is a rank number
// (erratum E12).
func seedFlowchart(R int, fix seedFix) *Schedule {
	s := &Schedule{Ranks: R, Algo: "seed flowchart", Routes: make([]Route, 0, 2*R*(bits.Len(uint(R))+1))}
	add := func(rc, gc, dst int) {
		s.Routes = append(s.Routes, Route{FromRank: rc, FromGate: gc, ToRank: dst, ToGate: gc + 1, Distance: abs(rc - dst)})
	}
	// Gate connection destination setting process, FIG. 24. G is the gate
	// count the exponent uses.
	gateConnect := func(RC, GC, G int) {
		MV := RC % (1 << (G - GC + 1)) // S63
		NV := 1 << (G - GC)            // S65 / S67
		if MV < NV {                   // S64
			add(RC, GC, (R+RC+NV)%R) // S66
		} else if fix.s68 {
			add(RC, GC, (R+RC-NV)%R)
		} else {
			add(RC, GC, (R-RC+NV)%R) // S68 as printed
		}
	}
	if isPow2(R) { // S12
		G := bits.Len(uint(R)) - 1 // S13: S41, S42
		s.Gates = G
		for RC := 0; RC < R; RC++ { // S14-S16
			for GC := 1; GC <= G; GC++ {
				gateConnect(RC, GC, G)
			}
		}
		for RC := 0; RC < R; RC++ { // S17
			for GC := 1; GC <= G; GC++ {
				add(RC, GC, RC)
			}
		}
	} else {
		N := bits.Len(uint(R)) - 1 // S21: S51
		G := N + 2                 // S52, S53
		NB := 1 << N               // S22
		s.Gates = G
		ranks := R
		if fix.extraRanks {
			ranks = NB
		}
		for RC := 0; RC < R; RC++ { // S23-S26
			if RC < ranks {
				for GC := 2; GC <= G-1; GC++ { // the intermediate gates
					if fix.exponent {
						gateConnect(RC, GC, G-1)
					} else {
						gateConnect(RC, GC, G)
					}
				}
			}
			if fix.lastGate { // S72-S76 with RN = RC: the loop is a lookup
				if RC < NB && RC+NB < R {
					add(RC, G, RC+NB)
				}
				continue
			}
			for RN := 0; RN < NB; RN++ { // S25: S72-S76
				switch {
				case fix.boundLastGte:
					if RN < RC+1 && RN+NB < R {
						add(RC, G, RN+NB)
					}
				case RN < RC+1: // S74
					add(RC, G, RN+NB) // S75
				}
			}
		}
		for RC := 0; RC < R; RC++ { // S31, S32: S82-S86
			if fix.firstGate { // RN = RC: the loop is a lookup
				if RC >= NB {
					add(RC, 1, RC-NB)
				}
				continue
			}
			for RN := NB; RN < R; RN++ {
				if RN < RC+1 { // S84
					add(RC, 1, RN-NB) // S85
				}
			}
		}
		if fix.nonPow2Self { // the flowchart ends at S32 without S17
			for RC := 0; RC < NB; RC++ {
				for GC := 1; GC <= G; GC++ {
					add(RC, GC, RC)
				}
			}
		}
	}
	sortRoutes(s)
	return s
}

// sortRoutes puts routes in Generate's order: a counting sort by (from_gate,
// from_rank), then by to_rank within the (small) groups.
func sortRoutes(s *Schedule) {
	bucket := func(r *Route) int { return r.FromGate*s.Ranks + r.FromRank }
	start := make([]int, (s.Gates+2)*s.Ranks+1)
	for i := range s.Routes {
		start[bucket(&s.Routes[i])+1]++
	}
	for k := 1; k < len(start); k++ {
		start[k] += start[k-1]
	}
	out := make([]Route, len(s.Routes))
	for _, r := range s.Routes {
		b := bucket(&r)
		out[start[b]] = r
		start[b]++
	}
	for i := 1; i < len(out); i++ { // insertion sort: groups hold a few routes
		for j := i; j > 0 && routeKey(&out[j]) < routeKey(&out[j-1]); j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	s.Routes = out
}

// With every erratum corrected the flowchart is exactly Generate's
// butterfly, for every R from 2 to 1024 (R = 1 is a documented deviation:
// the flowchart gives no gate at all, Generate one gate with a self route).
func TestSeedFlowchartCorrectedIsButterfly(t *testing.T) {
	for R := 2; R <= 1024; R++ {
		got := seedFlowchart(R, allFixes)
		p, _ := newPlan(hw.AlgoButterfly, R) // Generate's routes, without a copy
		i, same := 0, got.Gates == p.g && len(got.Routes) == p.count()
		p.each(func(r Route) bool {
			same = same && got.Routes[i] == r
			i++
			return same
		})
		if !same {
			t.Fatalf("R=%d: corrected flowchart differs from Generate at route %d", R, i-1)
		}
	}
	if s := seedFlowchart(1, allFixes); s.Gates != 0 || len(s.Routes) != 0 {
		t.Fatalf("R=1: the flowchart gives %d gates, %d routes", s.Gates, len(s.Routes))
	}
}

func without(f func(*seedFix)) seedFix {
	x := allFixes
	f(&x)
	return x
}

// E1, S68: as printed, rank 3 of 4 routes gate 1 to itself, and rank 1
// never hears from rank 3.
func TestErratumS68(t *testing.T) {
	s := seedFlowchart(4, without(func(f *seedFix) { f.s68 = false }))
	if !slices.Contains(s.Routes, rt(3, 1, 3)) || slices.Contains(s.Routes, rt(3, 1, 1)) {
		t.Fatalf("S68 as printed: expected the self route 3 -> 3 at gate 1 instead of 3 -> 1: %v", s.Routes)
	}
	expectReport(t, "S68 as printed, R=4", Verify(s, OpBarrier), false, KindEarlyRelease, 0, 3,
		"rank 0 released without having heard from rank 3")
	// The same for every power of two from 4 up: some rank never hears from another.
	for R := 4; R <= 1024; R *= 2 {
		if rep := Verify(seedFlowchart(R, without(func(f *seedFix) { f.s68 = false })), OpBarrier); rep.OK {
			t.Errorf("S68 as printed, R=%d: %v", R, rep)
		}
	}
	// R = 2 escapes: (2 - 1 + 1) mod 2 = 0 is the right partner by chance.
	if rep := Verify(seedFlowchart(2, without(func(f *seedFix) { f.s68 = false })), OpSum); !rep.OK {
		t.Errorf("S68 as printed, R=2: %v", rep)
	}
}

// E2, S63-S67: with the exponent G-GC the non-power-of-two case pairs over
// distance 4 at gate 2 of R = 5, sending rank 0's value to rank 4.
func TestErratumIntermediateExponent(t *testing.T) {
	s := seedFlowchart(5, without(func(f *seedFix) { f.exponent = false }))
	for _, want := range []Route{rt(0, 2, 4), rt(1, 2, 0), rt(2, 2, 1), rt(3, 2, 2), rt(0, 3, 2), rt(1, 3, 3)} {
		if !slices.Contains(s.Routes, want) {
			t.Fatalf("exponent as printed, R=5: no route %v in %v", want, s.Routes)
		}
	}
	// Rank 1 takes rank 2's value at gate 2 and rank 3's at gate 3, and
	// never hears from ranks 0 and 4 (rank 0's value went to rank 4, whose
	// gates 3 and 4 pass it to nobody).
	expectReport(t, "exponent as printed, R=5", Verify(s, OpBarrier), false, KindEarlyRelease, 1, 0,
		"rank 1 released without having heard from rank 0")
	for R := 3; R <= 300; R++ {
		if isPow2(R) {
			continue
		}
		if rep := Verify(seedFlowchart(R, without(func(f *seedFix) { f.exponent = false })), OpBarrier); rep.OK {
			t.Errorf("exponent as printed, R=%d: %v", R, rep)
		}
	}
}

// E3, S23-S26 over every rank: the extra ranks also run the butterfly's
// intermediate gates. Their values there are empty, so results stay right,
// but the schedule sends packets the text says are never sent (FIG. 18:
// ge2, ge3, ge4 take no part) over long routes near the end.
func TestErratumExtraRanksInButterfly(t *testing.T) {
	s := seedFlowchart(5, without(func(f *seedFix) { f.extraRanks = false }))
	if !slices.Contains(s.Routes, rt(4, 2, 1)) || !slices.Contains(s.Routes, rt(4, 3, 0)) {
		t.Fatalf("all ranks in S23, R=5: expected routes 4 -> 1 at gate 2 and 4 -> 0 at gate 3: %v", s.Routes)
	}
	for _, op := range []Op{OpBarrier, OpSum} {
		if rep := Verify(s, op); !rep.OK {
			t.Errorf("all ranks in S23, R=5, %s: %v", op, rep)
		}
	}
	for R := 3; R <= 100; R++ {
		if isPow2(R) {
			continue
		}
		bad := seedFlowchart(R, without(func(f *seedFix) { f.extraRanks = false }))
		nb := 1 << (bits.Len(uint(R)) - 1)
		if extra := len(bad.Routes) - len(mustGenerate(t, hw.AlgoButterfly, R).Routes); extra != (R-nb)*(bad.Gates-2) {
			t.Errorf("R=%d: %d extra routes, want %d", R, extra, (R-nb)*(bad.Gates-2))
		}
	}
}

// E4, S74/S75: as printed, rank RC's last gate connects to ranks NB..NB+RC,
// past R; bounded by R, the fan-out still makes an extra rank receive the
// result from several ranks.
func TestErratumLastGate(t *testing.T) {
	s := seedFlowchart(5, without(func(f *seedFix) { f.lastGate = false }))
	if !slices.Contains(s.Routes, rt(1, 4, 5)) {
		t.Fatalf("S75 as printed, R=5: expected rank 1 -> rank 5: %v", s.Routes)
	}
	rep := Verify(s, OpBarrier)
	if rep.Kind != KindInvalid || !strings.Contains(rep.Message, ".to_rank: 5 (allowed: 0..4)") {
		t.Errorf("S75 as printed, R=5: %v", rep)
	}
	s = seedFlowchart(6, without(func(f *seedFix) { f.lastGate, f.boundLastGte = false, true }))
	// Rank 4's end gate takes the full result from each of ranks 0..3 (and
	// empty values from ranks 4 and 5, which also run S75).
	if !slices.Contains(s.Routes, rt(3, 4, 4)) || !slices.Contains(s.Routes, rt(4, 4, 4)) || !slices.Contains(s.Routes, rt(5, 4, 4)) {
		t.Fatalf("S74 as printed, bounded, R=6: expected 3 -> 4, 4 -> 4 and 5 -> 4 at gate 4: %v", s.Routes)
	}
	expectReport(t, "S74 as printed, bounded, R=6", Verify(s, OpSum), false, KindDoubleCount, 4, 0,
		"rank 4 counts the operand of rank 0 4 times (sum needs each operand exactly once)")
	// An idempotent op does not mind the copies: wasted packets, right results.
	if rep := Verify(s, OpMax); !rep.OK {
		t.Errorf("S74 as printed, bounded, R=6, max: %v", rep)
	}
}

// E5, S84/S85: as printed, extra rank NB+j's first gate connects to ranks
// 0..j, so its operand enters the butterfly j+1 times.
func TestErratumFirstGate(t *testing.T) {
	s := seedFlowchart(6, without(func(f *seedFix) { f.firstGate = false }))
	if !slices.Contains(s.Routes, rt(5, 1, 0)) || !slices.Contains(s.Routes, rt(5, 1, 1)) {
		t.Fatalf("S85 as printed, R=6: expected 5 -> 0 and 5 -> 1: %v", s.Routes)
	}
	expectReport(t, "S85 as printed, R=6", Verify(s, OpSum), false, KindDoubleCount, 0, 5,
		"rank 0 counts the operand of rank 5 twice (sum needs each operand exactly once)")
	if rep := Verify(s, OpBarrier); !rep.OK {
		t.Errorf("S85 as printed, R=6, barrier: %v", rep)
	}
	// R = 5 has one extra rank: the fan-out has nowhere to go.
	if rep := Verify(seedFlowchart(5, without(func(f *seedFix) { f.firstGate = false })), OpSum); !rep.OK {
		t.Errorf("S85 as printed, R=5: %v", rep)
	}
}

// E6: the non-power-of-two branch ends at S32 without S17's routes within
// a node: a correct barrier, but no rank carries its own value forward.
func TestErratumNonPow2SelfRoutes(t *testing.T) {
	s := seedFlowchart(5, without(func(f *seedFix) { f.nonPow2Self = false }))
	for _, r := range s.Routes {
		if r.FromRank == r.ToRank {
			t.Fatalf("no self routes expected: %v", r)
		}
	}
	if rep := Verify(s, OpBarrier); !rep.OK {
		t.Errorf("no self routes, R=5, barrier: %v", rep)
	}
	expectReport(t, "no self routes, R=5, sum", Verify(s, OpSum), false, KindMissingOperand, 0, 0,
		"rank 0's result lacks the operand of rank 0")
}

// The printed flowchart, all errata at once, for the seed's own example.
func TestSeedFlowchartAsPrinted(t *testing.T) {
	for R := 2; R <= 64; R++ {
		s := seedFlowchart(R, seedFix{})
		rep := Verify(s, OpSum)
		if R == 2 {
			if !rep.OK {
				t.Errorf("R=2: %v", rep)
			}
			continue
		}
		if rep.OK {
			t.Errorf("R=%d: the flowchart as printed passes: %v", R, rep)
		}
	}
}
