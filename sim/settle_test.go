package sim

import (
	"bytes"
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/hxbar/hxbar/hw"
	"github.com/hxbar/hxbar/noc"
)

// settleRun runs sys (with every crossing recorded when rec) and returns
// the result, the run's error, its trace, the cycle after the last
// change the trace and the crossings show (an event, a flit or credit
// sent, one landing), and the network's moves at the end.
func settleRun(t *testing.T, sys hw.System, exhaustive, rec bool) (*Result, error, string, int64, uint64) {
	t.Helper()
	s, err := Build(sys, nil)
	if err != nil {
		t.Fatal(err)
	}
	s.exhaustive = exhaustive
	var last int64
	if rec {
		s.Net.Record(func(c noc.Crossing) {
			last = max(last, c.Cycle+1, c.Cycle+int64(c.Lat))
		})
	}
	var tr bytes.Buffer
	res, err := s.Run(Options{Trace: &tr})
	for _, l := range strings.Split(strings.TrimSpace(tr.String()), "\n") {
		c, _ := strconv.ParseInt(strings.Fields(l)[0], 10, 64)
		last = max(last, c+1)
	}
	moves, _ := s.Net.Quiet(res.Cycles)
	return res, err, tr.String(), last, moves
}

// TestRunStopsWhenSettled: a flipped tail bit at an injection leaves a
// packet without a tail whose sender, in ERROR, never sends again: the
// switches on its path hold their outputs for good and the heads behind
// them are evaluated every cycle. The run still stops at the first cycle
// from which nothing can change: the cycle after the last event, flit or
// credit sent or landing (docs/microarchitecture.md, "Error paths"), far
// below max_cycles and whatever max_cycles is. The exhaustive engine run
// past that cycle has the same trace and no further move. Runs without an
// error keep their cycles (the exhaustive engine's).
func TestRunStopsWhenSettled(t *testing.T) {
	cases := []struct {
		dims  []int
		wd    int64
		fault string
	}{
		{[]int{4, 4}, 100, "flip:n8.inject@5:96"},
		{[]int{3, 3}, 50, "flip:n5.inject@15:96"},
		{[]int{3, 3}, 0, "flip:n5.inject@15:96"},
	}
	for _, c := range cases {
		sys := hw.Default()
		sys.Dims, sys.Ranks, sys.Op, sys.Watchdog, sys.Placement = c.dims, 0, hw.OpSum, c.wd, nil
		sys.Faults = []string{c.fault}
		if err := sys.Validate(); err != nil {
			t.Fatal(err)
		}
		var cycles int64
		for _, maxc := range []int64{1_000_000, 3_000_000} {
			sys.MaxCycles = maxc
			res, err, trace, last, moves := settleRun(t, sys, false, true)
			var ue *UnitError
			if !errors.As(err, &ue) {
				t.Fatalf("%v %s: error %v, want a *UnitError", c.dims, c.fault, err)
			}
			if res.Cycles != last || res.Cycles > 1000 {
				t.Fatalf("%v %s max_cycles %d: cycles %d, want %d (the cycle after the last change)", c.dims, c.fault, maxc, res.Cycles, last)
			}
			if cycles != 0 && res.Cycles != cycles {
				t.Errorf("%v %s: cycles %d with max_cycles %d, %d before", c.dims, c.fault, res.Cycles, maxc, cycles)
			}
			cycles = res.Cycles
			// Nothing changes past the stop: the reference engine, run
			// on, makes no other move and writes no other event.
			sys.MaxCycles = cycles + 200
			_, _, ref, _, refMoves := settleRun(t, sys, true, true)
			if ref != trace || refMoves != moves {
				t.Errorf("%v %s: past cycle %d the reference changed (moves %d, want %d; same trace %v)", c.dims, c.fault, cycles, refMoves, moves, ref == trace)
			}
		}
	}
	// Without an error, and with a fault link-level retry recovers from,
	// the cycles are the reference engine's.
	for _, f := range [][]string{nil, {"flip:n8.inject@5:96"}} {
		sys := hw.Default()
		sys.Op, sys.Watchdog, sys.Faults = hw.OpSum, 100, f
		if f != nil {
			sys.LinkRetry = sys.BufferDepth
		}
		res, err, trace, _, _ := settleRun(t, sys, false, false)
		ref, _, refTrace, _, _ := settleRun(t, sys, true, false)
		if err != nil || !res.Complete || res.Cycles != ref.Cycles || trace != refTrace {
			t.Errorf("faults %v: cycles %d (complete %v, %v), reference %d", f, res.Cycles, res.Complete, err, ref.Cycles)
		}
	}
}
