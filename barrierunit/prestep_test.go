package barrierunit

import (
	"cmp"
	"slices"
	"testing"

	"pgregory.net/rapid"

	"github.com/hxbar/hxbar/hw"
)

// delayNet is a Port that delivers every injected flit to its node after a
// delay fixed by the flit and a seed (1..spread cycles), one flit a cycle per
// node in order of arrival; with dup > 0 it delivers one packet in dup
// twice (a gate then gets more signals than it needs: OVER).
type delayNet struct {
	seed   uint64
	dup    uint64
	spread uint64      // at least 1
	rx     [][]delayed // per node, in order of ready cycle
}

type delayed struct {
	f     hw.Flit
	ready int64
}

func (d *delayNet) hash(f hw.Flit, t int64, k uint64) uint64 {
	h := d.seed ^ uint64(f.Src)*0x9e3779b97f4a7c15 ^ uint64(f.Dst)*0xbf58476d1ce4e5b9 ^ uint64(t)*0x94d049bb133111eb ^ k
	h ^= h >> 31
	h *= 0xd6e8feb86d2b5ab5
	return h ^ h>>29
}

func (d *delayNet) CanInject(int, int64) bool { return true }

func (d *delayNet) Inject(_ int, f hw.Flit, t int64, _ int) {
	n := 1
	if d.dup > 0 && d.hash(f, t, 7)%d.dup == 0 {
		n = 2
	}
	for k := range n {
		q := &d.rx[f.Dst]
		ready := t + 1 + int64(d.hash(f, t, uint64(k))%d.spread)
		if m := len(*q); m > 0 {
			ready = max(ready, (*q)[m-1].ready+1)
		}
		*q = append(*q, delayed{f, ready})
	}
}

func (d *delayNet) RxFront(node int, t int64) (hw.Flit, bool) {
	if q := d.rx[node]; len(q) > 0 && q[0].ready <= t {
		return q[0].f, true
	}
	return hw.Flit{}, false
}

func (d *delayNet) RxPop(node int, _ int64) { d.rx[node] = d.rx[node][1:] }

func (d *delayNet) RxPending(node int, t int64) bool {
	_, ok := d.RxFront(node, t)
	return ok
}

// preStepCase is one run of TestPreStepMatchesItsCycle: R ranks (one a
// node) of algo and op arriving at arrive, over a delayNet of seed, dup
// and spread, for cycles cycles.
type preStepCase struct {
	R      int
	algo   hw.Algorithm
	op     Op
	seed   uint64
	dup    uint64
	spread uint64
	arrive []int64
	cycles int64
}

// check runs c twice, with and without steps taken ahead, and calls
// fatalf where the two differ. It returns how many steps were taken ahead and
// how many evaluations met a step taken ahead in its own cycle (a flit
// that reached the unit in t+1 after the step).
func (c preStepCase) check(fatalf func(string, ...any)) (preSteps, flagged int) {
	R := c.R
	operand := make([]uint64, R)
	nodeOf := make([]int32, R)
	for r := range R {
		operand[r] = uint64(r + 1)
		nodeOf[r] = int32(r)
	}
	tab, err := GenerateFlat(c.algo, R)
	if err != nil {
		fatalf("%v", err)
	}
	run := func(ahead bool) (*Units, []Event) {
		u := NewUnits(tab, c.op, 64, nodeOf, slices.Clone(c.arrive), operand)
		var ev []Event
		u.Emit = func(_ int, e Event) { ev = append(ev, e) }
		p := &delayNet{seed: c.seed, dup: c.dup, spread: c.spread, rx: make([][]delayed, R)}
		due := make([]int64, R) // next cycle a unit asked for (ahead only)
		for r := range due {
			due[r] = -1
		}
		if ahead {
			u.PreStepBefore = c.cycles
		}
		for t := int64(0); t < c.cycles; t++ {
			for r := range R {
				if ahead && due[r] != t && c.arrive[r] != t && !p.RxPending(r, t) {
					continue
				}
				if ahead && u.rank[r].pre != 0 && int64(u.rank[r].pre-1) == t&1 {
					flagged++
				}
				d := u.Eval(r, t, p, 0)
				switch {
				case !ahead && d == 2:
					fatalf("rank %d cycle %d: a step taken ahead without PreStepBefore", r, t)
				case d != 0:
					due[r] = t + int64(d)
				}
				if d == 2 {
					preSteps++
				}
			}
			u.Collect()
		}
		slices.SortStableFunc(ev, func(a, b Event) int {
			return cmp.Or(cmp.Compare(a.Cycle, b.Cycle), cmp.Compare(a.Node, b.Node), cmp.Compare(a.Kind, b.Kind))
		})
		return u, ev
	}
	ref, want := run(false)
	got, have := run(true)
	if !slices.Equal(have, want) {
		for i := range min(len(have), len(want)) {
			if have[i] != want[i] {
				fatalf("event %d: %+v, want %+v", i, have[i], want[i])
			}
		}
		fatalf("%d events, want %d", len(have), len(want))
	}
	if !slices.Equal(got.Errors, ref.Errors) || !slices.Equal(got.Release, ref.Release) || !slices.Equal(got.Result, ref.Result) {
		fatalf("errors %v releases %v results %v, want %v %v %v", got.Errors, got.Release, got.Result, ref.Errors, ref.Release, ref.Result)
	}
	for g := 1; g <= tab.Gates+1; g++ {
		if a, b := got.GateDone(g), ref.GateDone(g); a != b {
			fatalf("gate %d done at %d, want %d", g, a, b)
		}
	}
	for r := range R {
		if a, b := got.Gate(r), ref.Gate(r); a != b {
			fatalf("rank %d at gate %d after cycle %d, want %d", r, a, c.cycles-1, b)
		}
	}
	return preSteps, flagged
}

// TestPreStepMatchesItsCycle: units that take a gate step a cycle ahead
// (PreStepBefore) and are evaluated only when they asked to be, or when a
// flit is ready for them, write the events (each with its cycle), errors,
// releases and gate done cycles of units evaluated in every cycle without
// it: the behaviour of docs/microarchitecture.md, "In cycle t". All ranks
// are on one worker, evaluated in rank order.
//
// Both paths of "A gate step taken a cycle ahead" are constructed, not
// left to the property seed: every arrival of 3 and 4 ranks in cycles
// 0..3, under every algorithm, with 1-cycle delays, takes steps ahead,
// and some flit sent in t by a rank evaluated after its destination
// reaches that destination in t+1, the cycle of the step it took ahead
// (evaluated with the step marked as taken). The random part adds 2..12
// ranks, delays of 1..4 cycles, packets delivered twice (OVER) and runs of
// 3..200 cycles that stop before the barrier ends, as at max_cycles.
func TestPreStepMatchesItsCycle(t *testing.T) {
	var preSteps, flagged int // steps taken ahead, and evaluations in their cycle
	for _, c := range constructedCases() {
		p, f := c.check(func(format string, a ...any) {
			t.Fatalf("%+v: "+format, append([]any{c}, a...)...)
		})
		preSteps += p
		flagged += f
	}
	if preSteps == 0 || flagged == 0 {
		t.Fatalf("constructed: %d steps taken ahead, %d evaluations in their cycle: the test proves nothing", preSteps, flagged)
	}
	t.Logf("constructed: %d steps taken ahead, %d evaluations in their cycle", preSteps, flagged)

	preSteps, flagged = 0, 0
	rapid.Check(t, func(rt *rapid.T) {
		R := rapid.IntRange(2, 12).Draw(rt, "ranks")
		c := preStepCase{
			R:      R,
			algo:   rapid.SampledFrom(hw.Algorithms).Draw(rt, "algo"),
			op:     rapid.SampledFrom([]Op{OpBarrier, OpSum}).Draw(rt, "op"),
			seed:   rapid.Uint64().Draw(rt, "seed"),
			dup:    rapid.SampledFrom([]uint64{0, 2, 5}).Draw(rt, "dup"),
			spread: rapid.SampledFrom([]uint64{1, 2, 4}).Draw(rt, "spread"),
			arrive: rapid.SliceOfN(rapid.Int64Range(0, 6), R, R).Draw(rt, "arrive"),
			// Some runs stop before every rank is released (max_cycles).
			cycles: rapid.Int64Range(3, 200).Draw(rt, "cycles"),
		}
		p, f := c.check(rt.Fatalf)
		preSteps += p
		flagged += f
	})
	t.Logf("random: %d steps taken ahead, %d evaluations in their cycle", preSteps, flagged)
}

// constructedCases lists the constructed cases of
// TestPreStepMatchesItsCycle, all with 1-cycle delays, every algorithm,
// barrier and sum, with and without packets delivered twice: 3 and 4
// ranks arriving in every combination of cycles 0..3, run to the end and
// stopped after 3..10 cycles (max_cycles: no step is taken ahead into a
// cycle the run does not simulate), and 5 to 12 ranks of which one
// arrives 1..7 cycles after the others (a unit then finds the gate after
// its step ahead already complete).
func constructedCases() []preStepCase {
	type run struct {
		arrive []int64
		cycles int64
	}
	var runs []run
	for R := 3; R <= 4; R++ {
		for k := range 1 << (2 * R) {
			arrive := make([]int64, R)
			for r := range R {
				arrive[r] = int64(k >> (2 * r) & 3)
			}
			runs = append(runs, run{arrive, 60}, run{arrive, 3 + int64(k%8)})
		}
	}
	for R := 5; R <= 12; R++ {
		for late := range R {
			for d := int64(1); d <= 7; d++ {
				arrive := make([]int64, R)
				arrive[late] = d
				runs = append(runs, run{arrive, 60})
			}
		}
	}
	var cs []preStepCase
	for _, x := range runs {
		for _, algo := range hw.Algorithms {
			for _, op := range []Op{OpBarrier, OpSum} {
				for _, dup := range []uint64{0, 2} {
					cs = append(cs, preStepCase{R: len(x.arrive), algo: algo, op: op, dup: dup, spread: 1, arrive: x.arrive, cycles: x.cycles})
				}
			}
		}
	}
	return cs
}

// TestPreStepOverInItsCycle: a flit that reaches a unit in the cycle of a
// gate step it took ahead (pushed after the unit looked) does not move
// the OVER check of the next gate forward: rank 0 of four passes gate 2 in
// cycle 4 and finds gate 3's extra signals in cycle 5, with or without
// the step taken in cycle 3.
func TestPreStepOverInItsCycle(t *testing.T) {
	tab, err := GenerateFlat(hw.AlgoButterfly, 4)
	if err != nil {
		t.Fatal(err)
	}
	if tab.Gates != 2 {
		t.Fatalf("%d gates", tab.Gates)
	}
	var from2, from3 int32 = -1, -1 // the ranks signalling rank 0's gates 2 and 3
	st := tab.Stride()
	for r := range 4 {
		for g := 1; g <= 2; g++ {
			for i := tab.OutStart[r*st+g]; i < tab.OutEnd[r*st+g]; i++ {
				if tab.OutDst[i] == 0 && g == 1 {
					from2 = int32(r)
				} else if tab.OutDst[i] == 0 {
					from3 = int32(r)
				}
			}
		}
	}
	sig := func(src int32, gate uint8) hw.Flit {
		return hw.Flit{Src: src, Gate: gate, Flags: hw.FlitHead | hw.FlitTail}
	}
	run := func(ahead bool) []UnitError {
		u := NewUnits(tab, OpBarrier, 64, []int32{0, 1, 2, 3}, []int64{0, 0, 0, 0}, make([]uint64, 4))
		if ahead {
			u.PreStepBefore = 100
		}
		// Gate 3's signal twice (one too many), gate 2's in cycle 3.
		p := &fakePort{rx: map[int64]hw.Flit{1: sig(from3, 3), 2: sig(from3, 3), 3: sig(from2, 2)}}
		due := int64(-1)
		for c := int64(0); c < 12; c++ {
			if c == 4 {
				// Pushed in cycle 3 after rank 0 was evaluated: a third
				// signal for gate 3, ready in cycle 4.
				p.rx[4] = sig(from3, 3)
			}
			if ahead && c != 0 && c != due && !p.RxPending(0, c) {
				continue
			}
			d := u.Eval(0, c, p, 0)
			if d != 0 {
				due = c + int64(d)
			}
			if ahead && c == 3 && d != 2 {
				t.Fatalf("cycle 3: Eval returned %d, not a step taken ahead (2)", d)
			}
			u.Collect()
		}
		if ahead && u.rank[0].cur < 2 {
			t.Fatal("rank 0 never passed gate 2")
		}
		return u.Errors
	}
	want := run(false)
	if len(want) != 1 || want[0].Code != ErrOver || want[0].Cycle != 5 || want[0].Gate != 3 {
		t.Fatalf("without a step ahead: errors %+v, want OVER at gate 3 in cycle 5", want)
	}
	if got := run(true); !slices.Equal(got, want) {
		t.Fatalf("with a step ahead: errors %+v, want %+v", got, want)
	}
}
