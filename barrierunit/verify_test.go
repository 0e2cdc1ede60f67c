package barrierunit

import (
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/hxbar/hxbar/hw"
)

func clone(s *Schedule) *Schedule {
	c := *s
	c.Routes = slices.Clone(s.Routes)
	return &c
}

func removeRoute(s *Schedule, r Route) *Schedule {
	c := clone(s)
	i := slices.Index(c.Routes, r)
	if i < 0 {
		panic(fmt.Sprintf("no route %v", r))
	}
	c.Routes = slices.Delete(c.Routes, i, i+1)
	return c
}

func addRoutes(s *Schedule, rs ...Route) *Schedule {
	c := clone(s)
	c.Routes = append(c.Routes, rs...)
	return c
}

func expectReport(t *testing.T, name string, rep Report, ok bool, kind string, rank, peer int, msg string) {
	t.Helper()
	if rep.OK != ok || rep.Kind != kind || rep.Rank != rank || rep.Peer != peer || rep.Message != msg {
		t.Errorf("%s:\n got %+v\nwant ok=%v kind=%q rank=%d peer=%d message=%q", name, rep, ok, kind, rank, peer, msg)
	}
}

// Mutations of the seed's R = 5 example: each must be refuted, for the
// right rank and reason, or accepted where it is harmless.
func TestVerifyMutations(t *testing.T) {
	s := mustGenerate(t, hw.AlgoButterfly, 5)

	// Without 4 -> 0 at gate 1 nobody but rank 4 ever hears from rank 4.
	m := removeRoute(s, rt(4, 1, 0))
	expectReport(t, "remove 4->0", Verify(m, OpBarrier), false, KindEarlyRelease, 0, 4,
		"rank 0 released without having heard from rank 4")
	expectReport(t, "remove 4->0, sum", Verify(m, OpSum), false, KindEarlyRelease, 0, 4,
		"rank 0 released without having heard from rank 4")

	// Without 0 -> 4 at gate 4, rank 4's end gate has nothing to wait for.
	m = removeRoute(s, rt(0, 4, 4))
	expectReport(t, "remove 0->4", Verify(m, OpBarrier), false, KindEarlyRelease, 4, 0,
		"rank 4 released without having heard from rank 0")

	// Without the exchange 1 -> 3 at gate 2, rank 3 misses ranks 1 (and 4,
	// which rank 0 holds) until gate 3 brings rank 2's half: 0 and 4, not 1.
	m = removeRoute(s, rt(1, 2, 3))
	expectReport(t, "remove 1->3", Verify(m, OpBarrier), false, KindEarlyRelease, 2, 1,
		"rank 2 released without having heard from rank 1")

	// A missing self route loses the rank's own value but not the order of
	// its gates: a correct barrier, a wrong sum.
	m = removeRoute(s, rt(2, 3, 2))
	expectReport(t, "remove self 2->2 at gate 3", Verify(m, OpBarrier), true, KindBarrier, -1, -1,
		"every rank is released, and only after every rank has arrived")
	expectReport(t, "remove self 2->2 at gate 3, sum", Verify(m, OpSum), false, KindMissingOperand, 2, 0,
		"rank 2's result lacks the operand of rank 0")

	// A duplicate route: harmless to a barrier and to max, but Check rejects
	// it; for sum rank 2 gets rank 0's half (ranks 0 and 4) twice.
	m = addRoutes(s, rt(0, 2, 2))
	dup := "invalid routes[26]: duplicate of routes[6] (rank 0 gate 2 -> rank 2 gate 3) (allowed: each route at most once)"
	expectReport(t, "duplicate 0->2", Verify(m, OpBarrier), false, KindInvalid, -1, -1, dup)
	expectReport(t, "duplicate 0->2, max", Verify(m, OpMax), false, KindInvalid, -1, -1, dup)
	expectReport(t, "duplicate 0->2, sum", Verify(m, OpSum), false, KindDoubleCount, 2, 0,
		"rank 2 counts the operand of rank 0 twice (sum needs each operand exactly once)")

	// Self routes on the extra rank: its operand reaches its end gate through
	// rank 0 as well.
	m = addRoutes(s, rt(4, 1, 4), rt(4, 2, 4), rt(4, 3, 4), rt(4, 4, 4))
	expectReport(t, "self routes on extra rank 4, sum", Verify(m, OpSum), false, KindDoubleCount, 4, 4,
		"rank 4 counts the operand of rank 4 twice (sum needs each operand exactly once)")
	expectReport(t, "self routes on extra rank 4, xor", Verify(m, OpXor), false, KindDoubleCount, 4, 4,
		"rank 4 counts the operand of rank 4 twice (xor needs each operand exactly once)")
	expectReport(t, "self routes on extra rank 4, max", Verify(m, OpMax), true, KindReduction, -1, -1,
		"every rank is released after every rank has arrived, with every operand in its result at least once (max is idempotent)")
	// One self route at the end gate alone carries the identity: harmless.
	m = addRoutes(s, rt(4, 4, 4))
	if rep := Verify(m, OpSum); !rep.OK {
		t.Errorf("a self route into the end gate of the extra rank carries nothing: %v", rep)
	}
	// So does a self route at gate 1 alone: rank 4's gate 2 value goes nowhere.
	m = addRoutes(s, rt(4, 1, 4))
	if rep := Verify(m, OpSum); !rep.OK {
		t.Errorf("a self route whose value goes nowhere is harmless: %v", rep)
	}

	// An extra route into rank 3's gate 4 from rank 0 doubles ranks 0, 1, 4.
	m = addRoutes(s, rt(0, 3, 3))
	m.Routes[len(m.Routes)-1].Distance = 3
	expectReport(t, "extra 0->3 at gate 3, sum", Verify(m, OpSum), false, KindDoubleCount, 3, 0,
		"rank 3 counts the operand of rank 0 twice (sum needs each operand exactly once)")
}

func TestVerifyCountsExactly(t *testing.T) {
	// Three copies of rank 0's value reach rank 1 (duplicates: Check would
	// reject them, but the semantic failure comes first).
	s := &Schedule{Ranks: 2, Gates: 1, Routes: []Route{rt(0, 1, 0), rt(1, 1, 0), rt(1, 1, 1), rt(0, 1, 1), rt(0, 1, 1), rt(0, 1, 1)}}
	expectReport(t, "three copies", Verify(s, OpSum), false, KindDoubleCount, 1, 0,
		"rank 1 counts the operand of rank 0 3 times (sum needs each operand exactly once)")
	expectReport(t, "three copies, or", Verify(s, OpOr), false, KindInvalid, -1, -1,
		"invalid routes[4]: duplicate of routes[3] (rank 0 gate 1 -> rank 1 gate 2) (allowed: each route at most once)")
	// A dissemination of 3 ranks counts rank 0's own operand twice.
	expectReport(t, "dissemination R=3 sum", Verify(mustGenerate(t, hw.AlgoDissemination, 3), OpSum), false, KindDoubleCount, 0, 0,
		"rank 0 counts the operand of rank 0 twice (sum needs each operand exactly once)")
	// Doubling at every gate: 2^5 copies.
	s = &Schedule{Ranks: 2, Gates: 5}
	for g := 1; g <= 5; g++ {
		s.Routes = append(s.Routes, rt(0, g, 0), rt(0, g, 1), rt(1, g, 0), rt(1, g, 1))
	}
	rep := Verify(s, OpSum)
	if !strings.Contains(rep.Message, "rank 0 counts the operand of rank 0 16 times") {
		t.Errorf("got %v", rep)
	}
	// Saturation: 62 doubling gates give 2^61 copies; no overflow, no panic.
	s = &Schedule{Ranks: 2, Gates: 62}
	for g := 1; g <= 62; g++ {
		s.Routes = append(s.Routes, rt(0, g, 0), rt(0, g, 1), rt(1, g, 0), rt(1, g, 1))
	}
	if rep := Verify(s, OpSum); !strings.Contains(rep.Message, fmt.Sprintf("%d times", uint64(1)<<61)) {
		t.Errorf("got %v", rep)
	}
	if times(math.MaxUint64) != "at least 18446744073709551615 times" {
		t.Error(times(math.MaxUint64))
	}
}

func TestVerifyDeadlock(t *testing.T) {
	// Two ranks whose end gates wait for each other (a route between end
	// gates is executable, though Check rejects it).
	s := mustGenerate(t, hw.AlgoButterfly, 2)
	m := addRoutes(s, Route{FromRank: 1, FromGate: 2, ToRank: 0, ToGate: 2, Distance: 1},
		Route{FromRank: 0, FromGate: 2, ToRank: 1, ToGate: 2, Distance: 1})
	rep := Verify(m, OpBarrier)
	expectReport(t, "end gates wait for each other", rep, false, KindDeadlock, 0, 1,
		"rank 0 is never released: gate 2 waits for a route from rank 1 gate 2 that can never pass (cycle: rank 1 gate 2 waits for rank 0 gate 2 waits for rank 1 gate 2)")
	if rep.Gate != 2 {
		t.Errorf("gate %d, want 2", rep.Gate)
	}
	// A route back a gate: rank 2's gate 2 waits for rank 3's gate 3, which
	// waits (through the exchange at gate 2) for rank 2's gate 2. Ranks 0
	// and 1 are released; rank 2 is the first that is not.
	s = mustGenerate(t, hw.AlgoButterfly, 4)
	m = addRoutes(s, Route{FromRank: 3, FromGate: 3, ToRank: 2, ToGate: 2, Distance: 1})
	expectReport(t, "route back a gate", Verify(m, OpSum), false, KindDeadlock, 2, 3,
		"rank 2 is never released: gate 2 waits for a route from rank 3 gate 3 that can never pass (cycle: rank 3 gate 3 waits for rank 2 gate 2 waits for rank 3 gate 3)")
	// The source of the blocking route need not be on the cycle: rank 0's
	// end gate waits for rank 1's end gate, which hangs on a cycle of ranks
	// 2 and 3.
	s = mustGenerate(t, hw.AlgoButterflyNearFirst, 4)
	m = addRoutes(s,
		Route{FromRank: 2, FromGate: 3, ToRank: 3, ToGate: 3, Distance: 1},
		Route{FromRank: 3, FromGate: 3, ToRank: 2, ToGate: 3, Distance: 1},
		Route{FromRank: 2, FromGate: 3, ToRank: 1, ToGate: 3, Distance: 1},
		Route{FromRank: 1, FromGate: 3, ToRank: 0, ToGate: 3, Distance: 1})
	expectReport(t, "waits on a cycle elsewhere", Verify(m, OpBarrier), false, KindDeadlock, 0, 1,
		"rank 0 is never released: gate 3 waits for a route from rank 1 gate 3 that can never pass (cycle: rank 2 gate 3 waits for rank 3 gate 3 waits for rank 2 gate 3)")
}

func TestVerifyInvalid(t *testing.T) {
	s := mustGenerate(t, hw.AlgoButterfly, 4)
	for _, c := range []struct {
		name string
		s    *Schedule
		op   Op
		msg  string
	}{
		{"nil", nil, OpBarrier, "invalid schedule: none given"},
		{"op", s, Op(42), `invalid op: "Op(42)" (allowed: barrier, sum, max, min, and, or, xor)`},
		{"rank out of range", addRoutes(s, rt(0, 1, 4)), OpSum, "invalid routes[16].to_rank: 4 (allowed: 0..3)"},
		{"skips a gate", addRoutes(s, Route{FromRank: 0, FromGate: 1, ToRank: 0, ToGate: 3}), OpBarrier, "invalid routes[16].to_gate: 3 (allowed: from_gate+1 = 2)"},
		{"into gate 1", addRoutes(s, Route{FromRank: 0, FromGate: 1, ToRank: 1, ToGate: 1, Distance: 1}), OpBarrier, "invalid routes[16].to_gate: 1 (allowed: from_gate+1 = 2)"},
		{"wrong distance", func() *Schedule { m := clone(s); m.Routes[3].Distance = 7; return m }(), OpBarrier,
			"invalid routes[3].distance: 7 (allowed: |from_rank - to_rank| = 2)"},
	} {
		rep := Verify(c.s, c.op)
		if rep.OK || rep.Kind != KindInvalid || rep.Message != c.msg {
			t.Errorf("%s: got %+v, want %q", c.name, rep, c.msg)
		}
	}
	big := &Schedule{Ranks: MaxRanks, Gates: 40}
	if rep := Verify(big, OpBarrier); rep.Kind != KindTooLarge {
		t.Errorf("huge schedule: %+v", rep)
	}
}

func TestReportJSON(t *testing.T) {
	rep := Verify(removeRoute(mustGenerate(t, hw.AlgoButterfly, 5), rt(4, 1, 0)), OpSum)
	b, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"ok":false,"kind":"early release","op":"sum","ranks":5,"gates":4,"rank":0,"peer":4,"gate":null,"message":"rank 0 released without having heard from rank 4"}`
	if string(b) != want {
		t.Fatalf("JSON\n got %s\nwant %s", b, want)
	}
	var back Report
	if err := json.Unmarshal(b, &back); err != nil || back != rep {
		t.Fatalf("round trip: %+v, %v", back, err)
	}
	if rep.String() != "early release: rank 0 released without having heard from rank 4" {
		t.Fatal(rep.String())
	}
}

// oracle is an independent, brute-force Verify for small schedules: count
// vectors per (rank, gate) instead of interned sets, a fixed point for
// which gates pass instead of a topological sort. It returns the expected
// kind, rank, peer and gate.
func oracle(s *Schedule, op Op) (kind string, rank, peer, gate int) {
	R, G := s.Ranks, s.Gates
	passed := make([][]bool, R)
	for r := range passed {
		passed[r] = make([]bool, G+2)
		passed[r][1] = true
	}
	into := func(r, h int) []Route {
		var in []Route
		for _, x := range s.Routes {
			if x.ToRank == r && x.ToGate == h {
				in = append(in, x)
			}
		}
		return in
	}
	for changed := true; changed; {
		changed = false
		for r := 0; r < R; r++ {
			for h := 2; h <= G+1; h++ {
				if passed[r][h] || !passed[r][h-1] {
					continue
				}
				ok := true
				for _, x := range into(r, h) {
					ok = ok && passed[x.FromRank][x.FromGate]
				}
				if ok {
					passed[r][h], changed = true, true
				}
			}
		}
	}
	type val struct {
		heard []bool
		count []uint64
	}
	memo := map[[2]int]val{}
	var eval func(r, h int) val
	eval = func(r, h int) val {
		if v, ok := memo[[2]int{r, h}]; ok {
			return v
		}
		v := val{make([]bool, R), make([]uint64, R)}
		if h == 1 {
			v.heard[r], v.count[r] = true, 1
		} else {
			prev := eval(r, h-1)
			copy(v.heard, prev.heard)
			for _, x := range into(r, h) {
				w := eval(x.FromRank, x.FromGate)
				for i := range R {
					v.heard[i] = v.heard[i] || w.heard[i]
					c := v.count[i] + w.count[i]
					if c < v.count[i] {
						c = math.MaxUint64
					}
					v.count[i] = c
				}
			}
		}
		memo[[2]int{r, h}] = v
		return v
	}
	for r := 0; r < R; r++ {
		if !passed[r][G+1] {
			h := 2
			for passed[r][h] {
				h++
			}
			for _, x := range into(r, h) {
				if !passed[x.FromRank][x.FromGate] {
					return KindDeadlock, r, x.FromRank, h
				}
			}
			panic("oracle: blocked gate without a blocked route")
		}
		v := eval(r, G+1)
		if i := slices.Index(v.heard, false); i >= 0 {
			return KindEarlyRelease, r, i, 0
		}
		if !op.HasPayload() {
			continue
		}
		if i := slices.Index(v.count, 0); i >= 0 {
			return KindMissingOperand, r, i, 0
		}
		if op.Idempotent() {
			continue
		}
		if i := slices.IndexFunc(v.count, func(c uint64) bool { return c > 1 }); i >= 0 {
			return KindDoubleCount, r, i, 0
		}
	}
	if s.Check() != nil {
		return KindInvalid, -1, -1, 0
	}
	if op == OpBarrier {
		return KindBarrier, -1, -1, 0
	}
	return KindReduction, -1, -1, 0
}

func compareWithOracle(t interface{ Fatalf(string, ...any) }, s *Schedule, op Op) Report {
	rep := Verify(s, op)
	kind, rank, peer, gate := oracle(s, op)
	if rep.Kind != kind || rep.Rank != rank || rep.Peer != peer || rep.Gate != gate ||
		rep.OK != (kind == KindBarrier || kind == KindReduction) {
		t.Fatalf("%s on %+v:\nVerify %+v\noracle kind=%q rank=%d peer=%d gate=%d", op, s, rep, kind, rank, peer, gate)
	}
	return rep
}

var testOps = []Op{OpBarrier, OpSum, OpMax, OpXor, OpMin, OpAnd, OpOr}

// Random schedules, executable but mostly nonsense: Verify must agree with
// the oracle on the verdict, the rank, the peer and the gate.
func TestVerifyRandomSchedulesAgainstOracle(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		R := rapid.IntRange(1, 9).Draw(t, "ranks")
		G := rapid.IntRange(0, 4).Draw(t, "gates")
		s := &Schedule{Ranks: R, Gates: G}
		if G > 0 {
			n := rapid.IntRange(0, 3*R*G).Draw(t, "routes")
			for range n {
				fg := rapid.IntRange(1, G).Draw(t, "from_gate")
				tg := fg + 1
				if rapid.IntRange(0, 9).Draw(t, "odd gate") == 0 {
					tg = rapid.IntRange(2, G+1).Draw(t, "to_gate")
					fg = rapid.IntRange(1, G+1).Draw(t, "from_gate2")
				}
				fr, tr := rapid.IntRange(0, R-1).Draw(t, "from_rank"), rapid.IntRange(0, R-1).Draw(t, "to_rank")
				s.Routes = append(s.Routes, Route{FromRank: fr, FromGate: fg, ToRank: tr, ToGate: tg, Distance: abs(fr - tr)})
			}
		}
		op := rapid.SampledFrom(testOps).Draw(t, "op")
		compareWithOracle(t, s, op)
	})
}

// mutate applies one random perturbation to a copy of s and describes it.
func mutate(t *rapid.T, s *Schedule) (*Schedule, string) {
	m := clone(s)
	R, G := s.Ranks, s.Gates
	i := rapid.IntRange(0, len(m.Routes)-1).Draw(t, "route")
	x := m.Routes[i]
	anyRank := rapid.IntRange(0, R-1)
	switch k := rapid.IntRange(0, 7).Draw(t, "mutation"); k {
	case 0:
		m.Routes = slices.Delete(m.Routes, i, i+1)
		return m, fmt.Sprintf("remove %v", x)
	case 1:
		m.Routes = append(m.Routes, x)
		return m, fmt.Sprintf("duplicate %v", x)
	case 2:
		to := anyRank.Draw(t, "to")
		m.Routes[i].ToRank, m.Routes[i].Distance = to, abs(x.FromRank-to)
		return m, fmt.Sprintf("redirect %v to rank %d", x, to)
	case 3:
		from := anyRank.Draw(t, "from")
		m.Routes[i].FromRank, m.Routes[i].Distance = from, abs(from-x.ToRank)
		return m, fmt.Sprintf("move the source of %v to rank %d", x, from)
	case 4:
		fg := rapid.IntRange(1, G).Draw(t, "gate")
		fr, tr := anyRank.Draw(t, "from"), anyRank.Draw(t, "to")
		m.Routes = append(m.Routes, rt(fr, fg, tr))
		return m, fmt.Sprintf("add %v", rt(fr, fg, tr))
	case 5:
		r := anyRank.Draw(t, "rank")
		fg := rapid.IntRange(1, G).Draw(t, "gate")
		m.Routes = append(m.Routes, rt(r, fg, r))
		return m, fmt.Sprintf("add self route %v", rt(r, fg, r))
	case 6:
		m.Routes[i].ToGate = rapid.IntRange(2, G+1).Draw(t, "to_gate")
		return m, fmt.Sprintf("retarget %v to gate %d", x, m.Routes[i].ToGate)
	default:
		m.Routes[i].Distance = rapid.IntRange(0, R).Draw(t, "distance")
		return m, fmt.Sprintf("set the distance of %v to %d", x, m.Routes[i].Distance)
	}
}

// Random perturbations of generated schedules are refuted by Check or
// Verify exactly when the oracle finds them wrong; those accepted are
// harmless, which Evaluate confirms on random operands.
func TestVerifyPerturbations(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		algo := rapid.SampledFrom(hw.Algorithms).Draw(t, "algo")
		R := rapid.IntRange(2, 24).Draw(t, "ranks")
		s := mustGenerate(t, algo, R)
		m, what := s, ""
		for k := rapid.IntRange(1, 3).Draw(t, "mutations"); k > 0; k-- {
			var w string
			m, w = mutate(t, m)
			what += w + "; "
		}
		op := rapid.SampledFrom(testOps).Draw(t, "op")
		if algo == hw.AlgoDissemination && !op.Idempotent() && !isPow2(R) {
			op = OpMax
		}
		rep := compareWithOracle(t, m, op)
		if !rep.OK {
			return
		}
		// Accepted: then it is a correct barrier/reduction in fact.
		ops := randOperands(rand.New(rand.NewPCG(uint64(R), 7)), R)
		res, err := Evaluate(m, op, ops)
		if err != nil {
			t.Fatalf("%s: Verify accepts, Evaluate fails: %v", what, err)
		}
		want := fold(op, ops)
		for r, v := range res {
			if v != want {
				t.Fatalf("%s %s R=%d %s: accepted, but rank %d releases %#x, not %#x", what, algo, R, op, r, v, want)
			}
		}
	})
}

// Removing any route between ranks of a butterfly loses information: the
// butterfly has no redundancy, so no such perturbation is harmless.
func TestVerifyButterflyHasNoRedundantRoute(t *testing.T) {
	for _, algo := range []hw.Algorithm{hw.AlgoButterfly, hw.AlgoButterflyNearFirst} {
		for _, R := range []int{2, 3, 5, 8, 12, 16} {
			s := mustGenerate(t, algo, R)
			for _, x := range s.Routes {
				m := removeRoute(s, x)
				barrier, sum := Verify(m, OpBarrier), Verify(m, OpSum)
				if x.FromRank != x.ToRank && barrier.OK {
					t.Errorf("%s R=%d: without %v still a correct barrier", algo, R, x)
				}
				// Every self route of a generated schedule carries a value.
				if sum.OK {
					t.Errorf("%s R=%d: without %v still a correct sum", algo, R, x)
				}
			}
		}
	}
}

func TestEvaluate(t *testing.T) {
	s := mustGenerate(t, hw.AlgoButterfly, 5)
	ops := []uint64{1, 20, 300, 4000, 50000}
	for _, c := range []struct {
		op   Op
		want uint64
	}{
		{OpSum, 54321}, {OpMax, 50000}, {OpMin, 1}, {OpOr, 1 | 20 | 300 | 4000 | 50000},
		{OpXor, 1 ^ 20 ^ 300 ^ 4000 ^ 50000}, {OpAnd, 0}, {OpBarrier, 0},
	} {
		res, err := Evaluate(s, c.op, ops)
		if err != nil {
			t.Fatal(err)
		}
		for r, v := range res {
			if v != c.want {
				t.Errorf("%s: rank %d gets %d, want %d", c.op, r, v, c.want)
			}
		}
	}
	// Dissemination of 3 ranks, sum: each rank counts one operand twice.
	res, _ := Evaluate(mustGenerate(t, hw.AlgoDissemination, 3), OpSum, []uint64{1, 10, 100})
	if !slices.Equal(res, []uint64{112, 121, 211}) {
		t.Errorf("dissemination R=3 sum: %v, want [112 121 211]", res)
	}
	// A user schedule in any route order.
	u := clone(s)
	slices.Reverse(u.Routes)
	if res, _ := Evaluate(u, OpSum, ops); res[4] != 54321 {
		t.Errorf("reversed routes: %v", res)
	}
	// Zero gates: each rank releases its operand.
	if res, err := Evaluate(&Schedule{Ranks: 2}, OpSum, []uint64{3, 4}); err != nil || !slices.Equal(res, []uint64{3, 4}) {
		t.Errorf("0 gates: %v %v", res, err)
	}
	if _, err := Evaluate(s, OpSum, ops[:4]); err == nil || err.Error() != "invalid operands: 4 values (allowed: one per rank, 5 values)" {
		t.Errorf("short operands: %v", err)
	}
	if _, err := Evaluate(s, Op(9), ops); err == nil || !strings.Contains(err.Error(), "invalid op") {
		t.Errorf("bad op: %v", err)
	}
	if _, err := Evaluate(addRoutes(s, rt(9, 1, 0)), OpSum, ops); err == nil || !strings.Contains(err.Error(), "from_rank") {
		t.Errorf("bad schedule: %v", err)
	}
}

// The interned rotation sets against plain bitsets: random unions and
// intersections of rotated intervals and strided sets, checking contents,
// canonical ids (equal sets, equal rsets), firstMissing and first.
func TestIsetsAgainstBitsets(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		R := rapid.IntRange(1, 70).Draw(t, "R")
		st := newIsets(R)
		type pair struct {
			x   rset
			ref []bool
		}
		var pool []pair
		add := func(x rset, ref []bool) {
			got := make([]bool, R)
			if x.id != 0 {
				v := st.bounds(x)
				for i := 0; i < len(v); i += 2 {
					if v[i] >= v[i+1] || (i > 0 && v[i] <= v[i-1]) || v[i+1] > uint32(R) {
						t.Fatalf("bounds %v not canonical", v)
					}
					for k := v[i]; k < v[i+1]; k++ {
						got[k] = true
					}
				}
			}
			if !slices.Equal(got, ref) {
				t.Fatalf("R=%d set %+v holds %v, want %v", R, x, got, ref)
			}
			for _, p := range pool {
				if slices.Equal(p.ref, ref) != (p.x == x) {
					t.Fatalf("R=%d: %+v and %+v: equal contents %v, equal rsets %v", R, p.x, x, slices.Equal(p.ref, ref), p.x == x)
				}
			}
			if want := slices.Index(ref, false); st.firstMissing(x) != want {
				t.Fatalf("firstMissing %d, want %d", st.firstMissing(x), want)
			}
			if want := slices.Index(ref, true); st.first(x) != want {
				t.Fatalf("first %d, want %d", st.first(x), want)
			}
			pool = append(pool, pair{x, ref})
		}
		add(rset{}, make([]bool, R))
		add(st.full, slices.Repeat([]bool{true}, R))
		for range rapid.IntRange(1, 40).Draw(t, "steps") {
			switch rapid.IntRange(0, 3).Draw(t, "kind") {
			case 0: // a cyclic run with a stride
				start, n := rapid.IntRange(0, R-1).Draw(t, "start"), rapid.IntRange(1, R).Draw(t, "n")
				stride := rapid.IntRange(1, R).Draw(t, "stride")
				ref := make([]bool, R)
				x := rset{}
				for k := range n {
					e := (start + k*stride) % R
					ref[e] = true
					x = st.union(x, st.singleton(e))
				}
				add(x, ref)
			case 1, 2:
				a, b := pool[rapid.IntRange(0, len(pool)-1).Draw(t, "a")], pool[rapid.IntRange(0, len(pool)-1).Draw(t, "b")]
				ref := make([]bool, R)
				var x rset
				if rapid.Bool().Draw(t, "union") {
					x = st.union(a.x, b.x)
					for i := range ref {
						ref[i] = a.ref[i] || b.ref[i]
					}
				} else {
					x = st.inter(a.x, b.x)
					for i := range ref {
						ref[i] = a.ref[i] && b.ref[i]
					}
				}
				add(x, ref)
			default: // bounds canonicalised directly
				lo := rapid.IntRange(0, R-1).Draw(t, "lo")
				hi := rapid.IntRange(lo+1, R).Draw(t, "hi")
				ref := make([]bool, R)
				for i := lo; i < hi; i++ {
					ref[i] = true
				}
				add(st.canon([]uint32{uint32(lo), uint32(hi)}), ref)
			}
		}
	})
}

func TestLeastRotation(t *testing.T) {
	for _, c := range []struct {
		v    []uint64
		want int
	}{
		{[]uint64{3}, 0}, {[]uint64{2, 1}, 1}, {[]uint64{1, 2, 1, 1}, 2}, {[]uint64{5, 5, 5}, 0}, {[]uint64{2, 1, 2, 1}, 1},
	} {
		if got := leastRotation(c.v); got != c.want {
			t.Errorf("leastRotation(%v) = %d, want %d", c.v, got, c.want)
		}
	}
	// Exhaustive over short sequences: the rotation found is the least.
	for n := 1; n <= 7; n++ {
		for code := 0; code < 1<<(2*n); code++ {
			v := make([]uint64, n)
			for i := range v {
				v[i] = uint64(code>>(2*i)) & 3
			}
			best := slices.Concat(v[0:], v[:0])
			for i := range n {
				if r := slices.Concat(v[i:], v[:i]); slices.Compare(r, best) < 0 {
					best = r
				}
			}
			i := leastRotation(v)
			if got := slices.Concat(v[i:], v[:i]); !slices.Equal(got, best) {
				t.Fatalf("leastRotation(%v) = %d", v, i)
			}
		}
	}
}

func ExampleVerify() {
	s, _ := Generate("butterfly", 6)
	fmt.Println(Verify(s, OpSum))
	d, _ := Generate("dissemination", 6)
	fmt.Println(Verify(d, OpMax))
	fmt.Println(Verify(d, OpSum))
	// Output:
	// correct reduction: every rank is released after every rank has arrived, with every operand in its result exactly once
	// correct reduction: every rank is released after every rank has arrived, with every operand in its result at least once (max is idempotent)
	// double count: rank 0 counts the operand of rank 0 twice (sum needs each operand exactly once)
}

func TestMain(m *testing.M) {
	// More cases than rapid's default 100 unless -rapid.checks says otherwise:
	// the oracle comparisons are cheap.
	flag.Parse()
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == "rapid.checks" })
	if !set && !testing.Short() {
		flag.Set("rapid.checks", "1000")
	}
	os.Exit(m.Run())
}

// permute relabels rank r as perm[r]: the same schedule, correct or not
// alike, without the block and stride structure of the generated ranks.
func permute(s *Schedule, perm []int) *Schedule {
	m := clone(s)
	for i := range m.Routes {
		r := &m.Routes[i]
		r.FromRank, r.ToRank = perm[r.FromRank], perm[r.ToRank]
		r.Distance = abs(r.FromRank - r.ToRank)
	}
	return m
}

func TestVerifyPermutedRanks(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, algo := range hw.Algorithms {
		for _, R := range []int{6, 100, 1000} {
			p := permute(mustGenerate(t, algo, R), rng.Perm(R))
			op := OpSum
			if algo == hw.AlgoDissemination {
				op = OpMax
			}
			if rep := Verify(p, op); !rep.OK {
				t.Errorf("%s R=%d with permuted ranks: %v", algo, R, rep)
			}
		}
	}
	// A dissemination over permuted ranks has a distinct, unstructured set
	// per rank; past the store's bound Verify says so rather than growing.
	old := maxArena
	maxArena = 1 << 12
	defer func() { maxArena = old }()
	p := permute(mustGenerate(t, hw.AlgoDissemination, 1000), rng.Perm(1000))
	if rep := Verify(p, OpMax); rep.OK || rep.Kind != KindTooLarge || !strings.Contains(rep.Message, "grew past the verifier's limit of 4096") {
		t.Errorf("bounded store: %+v", rep)
	}
}

// The deadlock example of docs/schedules.md is read by ReadExecutable and
// refuted as a deadlock; ReadSchedule, for runs, refuses it.
func TestReadExecutableReportsTheDocsDeadlock(t *testing.T) {
	doc, err := os.ReadFile("../docs/schedules.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, _ := strings.Cut(string(doc), "The deadlock example")
	_, rest, _ = strings.Cut(rest, "```json\n")
	block, _, ok := strings.Cut(rest, "```")
	if !ok {
		t.Fatal("no JSON block after \"The deadlock example\" in docs/schedules.md")
	}
	if _, err := ReadSchedule(strings.NewReader(block)); err == nil {
		t.Fatal("ReadSchedule accepted a schedule that fails Check")
	}
	s, err := ReadExecutable(strings.NewReader(block))
	if err != nil {
		t.Fatal(err)
	}
	rep := Verify(s, OpBarrier)
	want := "rank 0 is never released: gate 2 waits for a route from rank 1 gate 2 that can never pass (cycle: rank 1 gate 2 waits for rank 0 gate 2 waits for rank 1 gate 2)"
	if rep.OK || rep.Kind != KindDeadlock || rep.Message != want {
		t.Fatalf("got %s", rep)
	}
	if _, err := ReadExecutable(strings.NewReader(`{"ranks": 2, "gates": 1, "routes": [{"from_rank": 0, "from_gate": 1, "to_rank": 2, "to_gate": 2, "distance": 2}]}`)); err == nil {
		t.Fatal("ReadExecutable accepted a rank out of range")
	}
}

// TestReportJSONNoSentinels: a report names no rank, peer or gate with
// null, not -1 or 0 (issue 25: no sentinel numbers), and reads back.
func TestReportJSONNoSentinels(t *testing.T) {
	s, err := Generate(hw.AlgoButterfly, 6)
	if err != nil {
		t.Fatal(err)
	}
	ok := Verify(s, OpSum)
	var cut Route
	for _, r := range s.Routes {
		if r.FromRank != r.ToRank {
			cut = r
			break
		}
	}
	bad := Verify(removeRoute(s, cut), OpBarrier)
	if !ok.OK || bad.OK || bad.Rank < 0 {
		t.Fatalf("reports %+v, %+v", ok, bad)
	}
	for _, r := range []Report{ok, bad} {
		b, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		if r.OK && !strings.Contains(string(b), `"rank":null,"peer":null,"gate":null`) {
			t.Errorf("good schedule: %s, want rank, peer and gate null", b)
		}
		if strings.Contains(string(b), ":-1") {
			t.Errorf("%s: a sentinel -1", b)
		}
		var back Report
		if err := json.Unmarshal(b, &back); err != nil || back != r {
			t.Errorf("%+v read back as %+v (%v)", r, back, err)
		}
	}
}
