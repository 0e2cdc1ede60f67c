package testbench

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hxbar/hxbar/barrierunit"
	"github.com/hxbar/hxbar/hw"
	"github.com/hxbar/hxbar/sim"
)

// TestCosimChannels co-simulates runs of communicators
// (docs/microarchitecture.md, "Channels and communicators") under Icarus,
// cycle for cycle against the model: the rows and columns of a 4x4 looping
// at once (examples/rows-cols-4x4.yaml, the columns summing), two
// disjoint jobs on one channel, world beside its rows with jitter on three
// channels (one unused on every node), and a stuck rank in one of two
// jobs, whose channels' watchdogs report it while the other job
// completes, and a head whose channel field a flip turns into a channel
// no node uses (the node's own NORANK), and dead links holding a channel
// after its last gate (TIMEOUT with no source: the channel's base). With
// HXBAR_FULL_MATRIX the rows
// and columns run under Verilator as well.
func TestCosimChannels(t *testing.T) {
	needTools(t, Icarus)
	t.Parallel()
	ex, err := hw.Load(filepath.Join("..", "examples", "rows-cols-4x4.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	ip := func(v int) *int { return &v }
	op := func(v hw.OpName) *hw.OpName { return &v }
	al := func(v hw.Algorithm) *hw.Algorithm { return &v }
	span := func(lo, hi int) []int {
		var r []int
		for i := lo; i < hi; i++ {
			r = append(r, i)
		}
		return r
	}
	comms := func(name string, k int, cs ...hw.Communicator) hw.System {
		s := hw.Default()
		s.Name, s.Dims, s.Channels, s.Communicators, s.Skew, s.Seed = name, []int{4, 4}, k, cs, 10, 3
		return s
	}
	jobs := func(name string, edit func(*hw.System)) hw.System {
		s := comms(name, 1,
			hw.Communicator{Name: "a", Ranks: span(0, 8), Op: op(hw.OpMax), Iterations: ip(4)},
			hw.Communicator{Name: "b", Ranks: span(8, 16), Algo: al(hw.AlgoDissemination), Iterations: ip(6), Compute: ip(3)})
		if edit != nil {
			edit(&s)
		}
		return s
	}
	worldRows := func(name string, k, it int) hw.System {
		return comms(name, k,
			hw.Communicator{Name: "world", Ranks: span(0, 16), Iterations: ip(it), Jitter: ip(7)},
			hw.Communicator{Name: "rows", Split: "dim:0", Op: op(hw.OpSum), Iterations: ip(it), Compute: ip(2), Jitter: ip(5)})
	}
	// A flip in cycle 8 (the first flit there, a head of world rank 13) of
	// the head's channel field (bit AB + RB + 8 = 16: channel 0
	// becomes 2, which no node uses) at node 5's ejection: the node's own
	// NORANK, then the watchdogs of the ranks waiting for the lost signal.
	norank := worldRows("world-rows-norank", 3, 2)
	norank.Watchdog, norank.Faults = 200, []string{"flip:n5.eject@8:16"}
	// A flip of the head mark (bit FW + CB + 1 = 65, no check code) of the first flit at
	// node 9, a rank of job b (base 8): a flit with no packet open, FLITS
	// with no gate and no source, which the RTL's monitor prints as rank 0
	// of the channel's communicator, run rank 8 (the model printed 0).
	headless := jobs("two-jobs-headless", func(s *hw.System) {
		s.Watchdog, s.CRCBits, s.Faults = 200, 0, []string{"flip:n9.eject@first:65"}
	})
	ms, err := sim.Build(headless, nil)
	if err != nil {
		t.Fatal(err)
	}
	ms.Run(sim.Options{})                 // ends with unit errors: the fault's effect
	headless.Faults = ms.ResolvedFaults() // the testbench injects by cycle
	// Dead links hold the 5-rank column c1.0 (base 10) at node 0 after
	// its last gate, sending its last packet (the gate after the last,
	// no route in): the watchdog's TIMEOUT names source 0 of the channel,
	// run rank 10 (the model named 0; cosimrand seed 67 with channels).
	u64 := func(v uint64) *uint64 { return &v }
	nosrc := hw.Default()
	nosrc.Name, nosrc.Dims, nosrc.Skew, nosrc.Seed = "two-splits-timeout-nosource", []int{2, 5}, 6, 1164031072
	nosrc.LinkLatency, nosrc.BufferDepth, nosrc.CRCBits, nosrc.Watchdog, nosrc.MaxCycles = 3, 5, 0, 365, 200_000
	nosrc.Faults, nosrc.Avoid = []string{"dead:n1.d1.down@109", "dead:n5.d1.up@66"}, []string{"n9.d0.up"}
	nosrc.Channels = 2
	nosrc.Communicators = []hw.Communicator{
		{Name: "c0", Split: "dim:0", Op: op(hw.OpAnd), Iterations: ip(6), Skew: ip(22), Seed: u64(624418)},
		{Name: "c1", Split: "dim:1", Op: op(hw.OpOr), Iterations: ip(5), Skew: ip(11)},
	}
	cases := []struct {
		sys      hw.System
		stuck    bool
		norank   bool
		headless bool
		nosource bool
	}{
		{sys: ex},
		{sys: jobs("two-jobs", nil)},
		{sys: worldRows("world-rows-jitter", 3, 5)},
		{sys: jobs("two-jobs-stuck", func(s *hw.System) { s.Watchdog, s.Faults = 200, []string{"stuck:3"} }), stuck: true},
		{sys: norank, norank: true},
		{sys: headless, headless: true},
		{sys: nosrc, nosource: true},
	}
	if testing.Short() {
		cases = cases[:1]
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
			top, err := os.ReadFile(filepath.Join(dir, "hx_top.v"))
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(top), "hx_tile #(.NCH(") {
				t.Errorf("hx_top.v has no hx_barrier_node: the run of communicators was not built of channels")
			}
			releases, timeouts, noranks, flits, nosources := 0, 0, 0, 0, 0
			for _, l := range rep.Model {
				e, err := ParseEvent(l)
				if err != nil {
					continue
				}
				switch {
				case e.Kind == barrierunit.EvRelease:
					releases++
				case e.Kind == barrierunit.EvError && e.Value == uint64(barrierunit.ErrTimeout):
					timeouts++
					if e.Node == 0 && e.Gate == 5 && e.Rank == 10 {
						nosources++
					}
				case e.Kind == barrierunit.EvError && e.Value == uint64(barrierunit.ErrNoRank) && e.Node == 5:
					noranks++
				case e.Kind == barrierunit.EvError && e.Value == uint64(barrierunit.ErrFlits) && e.Node == 9 && e.Gate == 0 && e.Rank == 8:
					flits++
				}
			}
			cs, err := c.sys.Comms()
			if err != nil {
				t.Fatal(err)
			}
			want := 0
			for _, cm := range cs {
				want += len(cm.Ranks) * cm.Sys.IterationCount()
			}
			switch {
			case c.nosource && nosources != 1:
				t.Errorf("%d TIMEOUTs at node 0, gate 5 from run rank 10 in the model's trace, want 1", nosources)
			case c.nosource:
			case c.norank && (noranks != 1 || timeouts == 0):
				t.Errorf("%d NORANK errors at node 5 and %d TIMEOUTs in the model's trace, want 1 and some", noranks, timeouts)
			case c.norank:
			case c.headless && flits != 1:
				t.Errorf("%d FLITS errors with no gate from run rank 8 at node 9 in the model's trace, want 1", flits)
			case c.headless:
			case c.stuck && timeouts == 0:
				t.Errorf("the stuck rank raised no TIMEOUT in the model's trace")
			case c.stuck && releases < 8*6:
				t.Errorf("%d releases: job b (8 ranks, 6 iterations) did not complete beside the stuck job", releases)
			case !c.stuck && releases != want:
				t.Errorf("%d releases in the trace, want %d", releases, want)
			}
			t.Logf("%d events, %d cycles, %d releases, %d timeouts", rep.Events, rep.Cycles, releases, timeouts)
			// Verilator reads the channels' event registers inside the
			// node's generate blocks too (minutes to build: the full matrix).
			if fullMatrix() && c.sys.Name == ex.Name {
				needTools(t, Verilator)
				if _, err := Cosim(ctxFor(t, 15*time.Minute), dir, Verilator); err != nil {
					t.Fatalf("verilator: %v", err)
				}
			}
		})
	}
}
