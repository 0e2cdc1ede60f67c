package sim_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/hxbar/hxbar/barrierunit"
	"github.com/hxbar/hxbar/hw"
	"github.com/hxbar/hxbar/sim"
)

// loopTrace is every rank's arrivals and releases, in order, with their
// cycles and values.
type loopTrace struct {
	arrive, release [][]barrierunit.Event
	sends           []barrierunit.Event
}

func runLoop(t *testing.T, sys hw.System) (*sim.Result, loopTrace) {
	t.Helper()
	s, err := sim.Build(sys, nil)
	if err != nil {
		t.Fatalf("build: %v", err)
	}
	R := sys.NumRanks()
	tr := loopTrace{arrive: make([][]barrierunit.Event, R), release: make([][]barrierunit.Event, R)}
	res, err := s.Run(sim.Options{Events: func(evs []barrierunit.Event) {
		for _, e := range evs {
			switch e.Kind {
			case barrierunit.EvArrive:
				tr.arrive[e.Rank] = append(tr.arrive[e.Rank], e)
			case barrierunit.EvRelease:
				tr.release[e.Rank] = append(tr.release[e.Rank], e)
			case barrierunit.EvSend:
				tr.sends = append(tr.sends, e)
			}
		}
	}})
	if res == nil {
		t.Fatalf("run: %v", err)
	}
	return res, tr // an incomplete run's error is in res
}

// TestLoopProperties draws loops (sizes, algos, ops, compute, jitter,
// skew, seeds) and checks what a barrier in a loop promises: every rank
// runs every iteration; no rank leaves iteration i before every rank has
// arrived at i; a reduction's result in i is the op over every rank's
// operand of i; each next arrival is the release + 1 + compute + the
// rank's jitter; and the loop's figures agree with the events.
func TestLoopProperties(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 1))
	runs := 60
	if testing.Short() {
		runs = 25
	}
	dimsChoices := [][]int{{2}, {3}, {5}, {4, 4}, {3, 5}, {8, 8}, {2, 3, 4}}
	ops := []hw.OpName{hw.OpBarrier, hw.OpSum, hw.OpMax, hw.OpXor}
	for i := range runs {
		sys := hw.Default()
		sys.Dims = dimsChoices[rng.IntN(len(dimsChoices))]
		sys.Ranks = 0
		sys.Algo = hw.Algorithms[rng.IntN(len(hw.Algorithms))]
		sys.Op = ops[rng.IntN(len(ops))]
		if sys.Algo == hw.AlgoDissemination && (sys.Op == hw.OpSum || sys.Op == hw.OpXor) {
			sys.Op = hw.OpMax
		}
		sys.Iterations = 2 + rng.IntN(12)
		sys.Compute = []int{0, 0, 1, 5, 40}[rng.IntN(5)]
		sys.Jitter = []int{0, 0, 3, 30}[rng.IntN(4)]
		sys.Skew = rng.IntN(60)
		sys.Seed = rng.Uint64()
		name := fmt.Sprintf("%d:%v/%s/%s/it%d/c%d/j%d/s%d/seed%d", i, sys.Dims, sys.Algo, sys.Op, sys.Iterations, sys.Compute, sys.Jitter, sys.Skew, sys.Seed)
		t.Run(name, func(t *testing.T) {
			if err := sys.Validate(); err != nil {
				t.Skipf("not a valid draw: %v", err)
			}
			checkLoop(t, sys)
		})
	}
}

func checkLoop(t *testing.T, sys hw.System) {
	res, tr := runLoop(t, sys)
	R, N := sys.NumRanks(), sys.IterationCount()
	if !res.Complete {
		t.Fatalf("incomplete: %s", res.Stop)
	}
	op, _ := barrierunit.ParseOp(string(sys.Op))
	for r := range R {
		if len(tr.arrive[r]) != N || len(tr.release[r]) != N {
			t.Fatalf("rank %d: %d arrivals, %d releases, want %d each", r, len(tr.arrive[r]), len(tr.release[r]), N)
		}
	}
	c := res.Communicators[0]
	if len(c.Iterations) != N {
		t.Fatalf("%d iterations in the result, want %d", len(c.Iterations), N)
	}
	for i := range N {
		lastArr, firstArr, lastRel := int64(-1), int64(1<<62), int64(-1)
		want := op.Identity()
		for s := range R {
			a := tr.arrive[s][i]
			lastArr, firstArr = max(lastArr, a.Cycle), min(firstArr, a.Cycle)
			want = op.Apply(want, a.Value)
		}
		for r := range R {
			rel := tr.release[r][i]
			lastRel = max(lastRel, rel.Cycle)
			if R > 1 && rel.Cycle <= lastArr {
				t.Fatalf("iteration %d: rank %d released in cycle %d, but the last rank arrives in %d", i+1, r, rel.Cycle, lastArr)
			}
			if sys.Op != hw.OpBarrier && rel.Value != want {
				t.Fatalf("iteration %d: rank %d result %x, want %x", i+1, r, rel.Value, want)
			}
			if i+1 < N {
				jit, operand := sys.IterationDraw(r, i+2)
				next := tr.arrive[r][i+1]
				if wantAt := rel.Cycle + 1 + int64(sys.Compute) + jit; next.Cycle != wantAt {
					t.Fatalf("rank %d arrives at iteration %d in cycle %d, want release %d + 1 + compute %d + jitter %d = %d", r, i+2, next.Cycle, rel.Cycle, sys.Compute, jit, wantAt)
				}
				if sys.Op != hw.OpBarrier && next.Value != operand {
					t.Fatalf("rank %d operand at iteration %d: %x, want %x", r, i+2, next.Value, operand)
				}
			}
		}
		it := c.Iterations[i]
		if it.FirstArrival != firstArr || it.LastRelease == nil || *it.LastRelease != lastRel || *it.Latency != lastRel-lastArr {
			t.Fatalf("iteration %d: result %+v, events: first arrival %d, last arrival %d, last release %d", i+1, it, firstArr, lastArr, lastRel)
		}
	}
	if res.Cycles != *c.Iterations[N-1].LastRelease+1 {
		t.Fatalf("cycles %d, last release %d", res.Cycles, *c.Iterations[N-1].LastRelease)
	}
}

// TestLoopWatchdog: a signal lost in a later iteration of a loop is
// reported by the watchdog of every rank left waiting for it, as in a
// single run: no rank waits past the watchdog without an error, whatever
// iteration it is in. (The first version left a rank that had been
// released once out of the watchdog's scan: the random co-simulation
// found the RTL's TIMEOUT the model missed.)
func TestLoopWatchdog(t *testing.T) {
	for _, c := range []struct {
		dims []int
		algo hw.Algorithm
	}{{[]int{4, 4}, hw.AlgoButterfly}, {[]int{3, 3, 2}, hw.AlgoButterflyNearFirst}, {[]int{5}, hw.AlgoDissemination}} {
		sys := hw.Default()
		sys.Dims, sys.Algo, sys.Iterations, sys.Skew, sys.Watchdog = c.dims, c.algo, 4, 5, 300
		clean, ctr := runLoop(t, sys)
		if !clean.Complete {
			t.Fatalf("%v: the fault-free loop is incomplete", c.dims)
		}
		// Drop node 1's first head of iteration 2 on its injection channel.
		from, at := clean.Communicators[0].Iterations[1].FirstArrival, int64(-1)
		for _, e := range ctr.sends {
			if e.Node == 1 && e.Cycle >= from && at < 0 {
				at = e.Cycle
			}
		}
		sys.Faults = []string{fmt.Sprintf("drop:n1.inject@%d", at)}
		res, tr := runLoop(t, sys)
		if res.Complete || len(res.Errors) == 0 {
			t.Fatalf("%v: drop in iteration 2 at cycle %d: complete %v, %d errors", c.dims, at, res.Complete, len(res.Errors))
		}
		failed := map[int]bool{}
		for _, e := range res.Errors {
			failed[e.Rank] = true
		}
		end := res.Cycles
		for r := range sys.NumRanks() {
			if failed[r] || len(tr.release[r]) == len(tr.arrive[r]) {
				continue // in error, or released (waiting for its next arrival)
			}
			last := tr.arrive[r][len(tr.arrive[r])-1].Cycle
			if end-last > sys.Watchdog+1 {
				t.Errorf("%v: rank %d arrived at iteration %d in cycle %d and waits with no error until the run ends in cycle %d (watchdog %d)",
					c.dims, r, len(tr.arrive[r]), last, end, sys.Watchdog)
			}
		}
	}
}

// TestLoopAvgPeriod checks avg_period on loops whose every iteration takes
// the same number of cycles p (compute 0, skew 0, butterfly: every rank is
// released in the same cycle): the loop runs N iterations in N*p cycles,
// from iteration 1's first arrival to the cycle after iteration N's last
// release, the time osu_barrier's timer measures around its loop; so
// avg_period is p, whatever N is. (The first version divided last release
// - first arrival by N and reported p - 1/N: 1.8 for a one-rank loop of
// two-cycle iterations.)
func TestLoopAvgPeriod(t *testing.T) {
	for _, c := range []struct {
		dims  []int
		ranks int
		n     int
	}{{[]int{2}, 1, 5}, {[]int{4, 4}, 0, 3}, {[]int{8}, 0, 7}} {
		sys := hw.Default()
		sys.Dims, sys.Ranks, sys.Iterations, sys.Skew = c.dims, c.ranks, c.n, 0
		res, _ := runLoop(t, sys)
		if !res.Complete {
			t.Fatalf("%v: incomplete", c.dims)
		}
		cm := res.Communicators[0]
		its := cm.Iterations
		p := its[1].FirstArrival - its[0].FirstArrival
		for i := 1; i < len(its); i++ {
			if d := its[i].FirstArrival - its[i-1].FirstArrival; d != p {
				t.Fatalf("%v: iteration %d starts %d cycles after the one before, iteration 2 %d: not a periodic loop", c.dims, i+1, d, p)
			}
		}
		if cm.AvgPeriod == nil || *cm.AvgPeriod != float64(p) {
			t.Errorf("%v, %d iterations of %d cycles each: avg_period %v, want %d", c.dims, c.n, p, fmtPtr(cm.AvgPeriod), p)
		}
	}
}

func fmtPtr(p *float64) string {
	if p == nil {
		return "null"
	}
	return fmt.Sprint(*p)
}

// TestLoopCutLastArrival cuts a loop at every max_cycles and checks that
// no rank's arrive lies after the run (once it has arrived at iteration 1)
// or after its release (a next
// arrival was written at the release that scheduled it), and the headline
// last_arrival against the events: it is the last arrival of the
// latest iteration any rank has arrived at, and absent while some rank
// has not arrived there yet. (The first version kept the previous
// iteration's last arrival until every rank had been released into the
// next one: a loop cut in cycle 100 reported iteration 2's last arrival,
// 73, while iteration 3 had begun in cycle 96.)
func TestLoopCutLastArrival(t *testing.T) {
	sys := hw.Default()
	sys.Iterations, sys.Compute, sys.Jitter, sys.Op = 4, 3, 5, hw.OpSum
	full, tr := runLoop(t, sys)
	if !full.Complete {
		t.Fatal("the uncut loop is incomplete")
	}
	R := sys.NumRanks()
	for mc := int64(1); mc <= full.Cycles; mc++ {
		sys.MaxCycles = mc
		res, _ := runLoop(t, sys)
		// The latest iteration begun before the cut, and whether every
		// rank has arrived at it.
		latest, all, last := 0, false, int64(-1)
		for i := 1; i <= sys.Iterations; i++ {
			n, lastI := 0, int64(-1)
			for r := range R {
				if len(tr.arrive[r]) >= i && tr.arrive[r][i-1].Cycle < mc {
					n++
					lastI = max(lastI, tr.arrive[r][i-1].Cycle)
				}
			}
			if n > 0 {
				latest, all, last = i, n == R, lastI
			}
		}
		its := res.Communicators[0].Iterations
		if its == nil {
			t.Errorf("max_cycles %d: iterations is nil (JSON null), want a list", mc)
		}
		if len(its) != latest {
			t.Errorf("max_cycles %d: %d iterations listed, want %d (those some rank arrived at)", mc, len(its), latest)
		}
		for _, it := range its {
			if it.FirstArrival >= mc {
				t.Errorf("max_cycles %d: iteration %d's first arrival %d is after the run", mc, it.Iteration, it.FirstArrival)
			}
		}
		for _, n := range res.Nodes {
			// (A rank yet to arrive at iteration 1 shows its arrival to
			// come, as in a single run.)
			if n.Arrive != sim.Never && n.Arrive >= mc && tr.arrive[n.Rank][0].Cycle < mc {
				t.Errorf("max_cycles %d: rank %d's arrive %d is after the run", mc, n.Rank, n.Arrive)
			}
			if n.Release >= 0 && n.Arrive != sim.Never && n.Release < n.Arrive {
				t.Errorf("max_cycles %d: rank %d released in cycle %d, before its arrive %d", mc, n.Rank, n.Release, n.Arrive)
			}
		}
		got, ok := res.LastArrival()
		switch {
		case latest == 0 && ok:
			t.Errorf("max_cycles %d: no rank arrived, last_arrival %d", mc, got)
		case latest > 0 && all && (!ok || got != last):
			t.Errorf("max_cycles %d: every rank arrived at iteration %d, last in cycle %d; last_arrival %d (ok %v)", mc, latest, last, got, ok)
		case latest > 0 && !all && ok:
			t.Errorf("max_cycles %d: some rank has not arrived at iteration %d; last_arrival %d, want none", mc, latest, got)
		}
	}
}
