package testbench

import (
	"errors"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/hxbar/hxbar/barrierunit"
	"github.com/hxbar/hxbar/hw"
)

// TestCosimLoops co-simulates back-to-back loops (docs/microarchitecture.md,
// "Iterations") under Icarus: compute 0 (the most overlap), compute and
// jitter, reductions in their own banks, a check code with link retry,
// and a signal lost in iteration 2 that the watchdogs report. The
// 24-node dissemination loop is the one whose signals of iteration i+1
// reach units still waiting in iteration i (counted as "early" below):
// without the second bank its RTL and model both go wrong, so it must
// have some.
func TestCosimLoops(t *testing.T) {
	needTools(t, Icarus)
	t.Parallel()
	loop := func(name string, dims []int, algo hw.Algorithm, op hw.OpName, it, compute, jitter int, edit func(*hw.System)) hw.System {
		s := hw.Default()
		s.Name, s.Dims, s.Algo, s.Op = name, dims, algo, op
		s.Iterations, s.Compute, s.Jitter, s.Skew, s.Seed = it, compute, jitter, 20, 5
		if edit != nil {
			edit(&s)
		}
		return s
	}
	cases := []struct {
		sys       hw.System
		wantEarly bool
	}{
		{loop("bfly-4x4-sum-c0", []int{4, 4}, hw.AlgoButterfly, hw.OpSum, 6, 0, 0, nil), false},
		{loop("diss-2x3x4-early", []int{2, 3, 4}, hw.AlgoDissemination, hw.OpMax, 8, 0, 0, nil), true},
		{loop("diss-3x5-jitter", []int{3, 5}, hw.AlgoDissemination, hw.OpMin, 5, 3, 9, nil), false},
		{loop("near-6-crc-retry", []int{6}, hw.AlgoButterflyNearFirst, hw.OpXor, 5, 0, 4, func(s *hw.System) {
			s.CRCBits, s.LinkRetry, s.LinkLatency = hw.PacketCodeBits, 6, 2
		}), false},
		{loop("bfly-4x4-drop-it2", []int{4, 4}, hw.AlgoButterfly, hw.OpBarrier, 4, 0, 0, func(s *hw.System) {
			// Node 1's first head of iteration 2 (sent in cycle 27 of the
			// fault-free run, TestLoopWatchdog's case) is lost.
			s.Skew, s.Seed, s.Watchdog, s.Faults = 5, 1, 300, []string{"drop:n1.inject@27"}
		}), false},
	}
	if testing.Short() {
		cases = cases[1:2]
	}
	for _, c := range cases {
		t.Run(c.sys.Name, func(t *testing.T) {
			t.Parallel()
			dir := filepath.Join(t.TempDir(), c.sys.Name)
			generate(t, dir, c.sys)
			rep, err := Cosim(ctxFor(t, 5*time.Minute), dir, Icarus)
			if mm, ok := errors.AsType[*MismatchError](err); ok {
				t.Fatalf("%s", mm.Report.Summary())
			}
			if err != nil {
				t.Fatal(err)
			}
			early, releases := earlySignals(t, rep.Model, c.sys)
			timeouts := 0
			for _, l := range rep.Model {
				if e, err := ParseEvent(l); err == nil && e.Kind == barrierunit.EvError {
					timeouts++
				}
			}
			switch {
			case len(c.sys.Faults) > 0 && timeouts == 0:
				t.Errorf("the lost signal raised no error in the model's trace")
			case len(c.sys.Faults) == 0 && releases != c.sys.NumRanks()*c.sys.Iterations:
				t.Errorf("%d releases in the trace, want %d ranks x %d iterations", releases, c.sys.NumRanks(), c.sys.Iterations)
			}
			if c.wantEarly && early == 0 {
				t.Errorf("no signal of a later iteration reached a unit still waiting: the case does not test the second bank")
			}
			t.Logf("%d events, %d cycles, %d early signals", rep.Events, rep.Cycles, early)
		})
	}
}

// earlySignals counts, in a loop's trace, the signals received by a unit
// still waiting in an earlier iteration than their sender's, and the
// releases.
func earlySignals(t *testing.T, trace []string, sys hw.System) (early, releases int) {
	t.Helper()
	arrived := make([]int, sys.NumRanks())  // iterations each rank has arrived at
	released := make([]int, sys.NumRanks()) // and been released from
	for _, l := range trace {
		e, err := ParseEvent(l)
		if err != nil {
			continue
		}
		switch e.Kind {
		case barrierunit.EvArrive:
			arrived[e.Rank]++
		case barrierunit.EvRelease:
			released[e.Rank]++
			releases++
		case barrierunit.EvRecv:
			r := int(e.Node) // one rank per node, rank r on node r
			if arrived[r] > released[r] && arrived[e.Rank] > arrived[r] {
				early++
			}
		}
	}
	if releases == 0 {
		t.Fatalf("no release in the trace:\n%v", fmt.Sprint(trace[:min(len(trace), 10)]))
	}
	return early, releases
}
