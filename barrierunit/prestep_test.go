package barrierunit

import (
	"cmp"
	"slices"
	"testing"

	"pgregory.net/rapid"

	"github.com/hxbar/hxbar/hw"
)

// delayNet is a Port that delivers every injected flit to its node after a
// delay fixed by the flit and a seed (1..4 cycles), one flit a cycle per
// node in order of arrival; with dup > 0 it delivers one packet in dup
// twice (a gate then gets more signals than it needs: OVER).
type delayNet struct {
	seed uint64
	dup  uint64
	rx   [][]delayed // per node, in order of ready cycle
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
		ready := t + 1 + int64(d.hash(f, t, uint64(k))%4)
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

// TestPreStepMatchesItsCycle: units that take a gate step a cycle ahead
// (PreStepBefore) and are evaluated only when they asked to be, or when a
// flit is ready for them, write the events (each with its cycle), errors,
// releases and gate done cycles of units evaluated in every cycle without
// it: the behaviour of docs/microarchitecture.md, "In cycle t". The
// network delays packets by 1..4 cycles and, in some runs, delivers some
// twice (OVER), so flits also reach units in the cycle of a step taken
// ahead; all ranks are on one worker, evaluated in rank order. Runs of
// 3..200 cycles also stop before the barrier ends, as at max_cycles.
func TestPreStepMatchesItsCycle(t *testing.T) {
	var preSteps, flagged int // steps taken ahead, and evaluations in their cycle
	rapid.Check(t, func(rt *rapid.T) {
		R := rapid.IntRange(2, 12).Draw(rt, "ranks")
		algo := rapid.SampledFrom(hw.Algorithms).Draw(rt, "algo")
		op := rapid.SampledFrom([]Op{OpBarrier, OpSum}).Draw(rt, "op")
		seed := rapid.Uint64().Draw(rt, "seed")
		dup := rapid.SampledFrom([]uint64{0, 2, 5}).Draw(rt, "dup")
		arrive := make([]int64, R)
		operand := make([]uint64, R)
		nodeOf := make([]int32, R)
		for r := range arrive {
			arrive[r] = int64(rapid.IntRange(0, 6).Draw(rt, "arrive"))
			operand[r] = uint64(r + 1)
			nodeOf[r] = int32(r)
		}
		s, err := Generate(algo, R)
		if err != nil {
			rt.Fatal(err)
		}
		tab, err := Flatten(s)
		if err != nil {
			rt.Fatal(err)
		}
		// Some runs stop before every rank is released (max_cycles).
		cycles := int64(rapid.IntRange(3, 200).Draw(rt, "cycles"))
		run := func(ahead bool) (*Units, []Event) {
			u := NewUnits(tab, op, 64, nodeOf, slices.Clone(arrive), operand)
			var ev []Event
			u.Emit = func(_ int, e Event) { ev = append(ev, e) }
			p := &delayNet{seed: seed, dup: dup, rx: make([][]delayed, R)}
			due := make([]int64, R) // next cycle a unit asked for (ahead only)
			for r := range due {
				due[r] = -1
			}
			if ahead {
				u.PreStepBefore = cycles
			}
			for c := int64(0); c < cycles; c++ {
				for r := range R {
					if ahead && due[r] != c && arrive[r] != c && !p.RxPending(r, c) {
						continue
					}
					if ahead && u.rank[r].pre != 0 && int64(u.rank[r].pre-1) == c&1 {
						flagged++
					}
					d := u.Eval(r, c, p, 0)
					switch {
					case !ahead && d == 2:
						rt.Fatalf("rank %d cycle %d: a step taken ahead without PreStepBefore", r, c)
					case d != 0:
						due[r] = c + int64(d)
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
					rt.Fatalf("event %d: %+v, want %+v", i, have[i], want[i])
				}
			}
			rt.Fatalf("%d events, want %d", len(have), len(want))
		}
		if !slices.Equal(got.Errors, ref.Errors) || !slices.Equal(got.Release, ref.Release) || !slices.Equal(got.Result, ref.Result) {
			rt.Fatalf("errors %v releases %v results %v, want %v %v %v", got.Errors, got.Release, got.Result, ref.Errors, ref.Release, ref.Result)
		}
		for g := 1; g <= tab.Gates+1; g++ {
			if a, b := got.GateDone(g), ref.GateDone(g); a != b {
				rt.Fatalf("gate %d done at %d, want %d", g, a, b)
			}
		}
		for r := range R {
			if a, b := got.Gate(r), ref.Gate(r); a != b {
				rt.Fatalf("rank %d at gate %d after cycle %d, want %d", r, a, cycles-1, b)
			}
		}
	})
	// The runs must have taken steps ahead, and met flits in their cycles.
	if preSteps == 0 || flagged == 0 {
		t.Fatalf("%d steps taken ahead, %d evaluations in their cycle: the test proves nothing", preSteps, flagged)
	}
	t.Logf("%d steps taken ahead, %d evaluations in their cycle", preSteps, flagged)
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
