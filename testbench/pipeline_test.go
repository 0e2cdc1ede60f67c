package testbench

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/hxbar/hxbar/hw"
	"github.com/hxbar/hxbar/noc"
	"github.com/hxbar/hxbar/sim"
)

// The switch pipeline (switch_pipeline 1, docs/microarchitecture.md,
// "Switch pipeline"): every switch registers its requests, so a head
// requests from its second cycle at the front of its input. The designs
// below co-simulate with the key on: barriers and reductions (tight
// credits: buffer depth 1, link latency 3), data collectives, link-level
// retry (with faults it recovers from) and avoided channels.

// pipelined returns sys with the switch pipeline on, named apart.
func pipelined(t testing.TB, sys hw.System) hw.System {
	t.Helper()
	sys.Name += "-sp1"
	sys.SwitchPipeline = 1
	if err := sys.Validate(); err != nil {
		t.Fatalf("%s: %v", sys.Name, err)
	}
	return sys
}

// pipelineDesigns: a few designs of the matrix, of the data matrix and of
// the avoid runs, one with link-level retry and recovered faults, all with
// the switch pipeline on.
func pipelineDesigns(t testing.TB) []hw.System {
	m := matrixDesigns(t)
	d := dataDesigns(t)
	pick := func(list []hw.System, prefix string) hw.System {
		for _, s := range list {
			if strings.HasPrefix(s.Name, prefix) {
				return s
			}
		}
		t.Fatalf("no design %s", prefix)
		return hw.System{}
	}
	retry := system(t, "p-4x4-sum-retry", []int{4, 4}, 16, "butterfly", "sum", 1, 2, 64)
	retry.LinkRetry = 2
	retryFaults := retry
	retryFaults.Name += "-faults"
	retryFaults.Faults = []string{"drop:n2.d1.down@9", "flip:n1.d0.up@7:3"}
	out := []hw.System{
		pick(m, "m03-"), pick(m, "m08-"), pick(m, "m11-"), pick(m, "m12-"),
		pick(d, "d03-"), pick(d, "d06-"), pick(d, "d09-"),
		retry, retryFaults,
		avoidWorkload(t, []int{4, 4}, 0, "n5.d0.up", 1),
		avoidWorkload(t, []int{4, 4}, 2, "n10.d1.down", 2),
	}
	for i := range out {
		out[i] = pipelined(t, out[i])
	}
	return out
}

// TestCosimSwitchPipeline co-simulates the pipelined designs under Icarus
// (two seeds each) and requires every run to match the model cycle for
// cycle.
func TestCosimSwitchPipeline(t *testing.T) {
	needTools(t, Icarus)
	t.Parallel()
	runMatrix(t, "switch-pipeline", pipelineDesigns(t), 2, []int{0, 17},
		func(i, k int) uint64 { return uint64(7000 + 10*i + k) }, nil)
}

// TestCosimSwitchPipelineCut: a switch cuts a packet when a head comes
// to an input whose packet is still open; with the pipeline the head then
// requests two cycles after the cut (in the cut's cycle its input still
// owned the output). The runs: on the pipelined 3x3 sum (3-flit packets,
// watchdog 200), a tail flit dropped on a channel that carries another
// packet next, so the next head cuts the open packet and then goes on,
// a legal head; and the flipped head bit of a payload flit (illegalRuns'
// head-in-packet). Each co-simulated, DROPS registers included.
func TestCosimSwitchPipelineCut(t *testing.T) {
	needTools(t, Icarus)
	t.Parallel()
	var runs []hw.System
	for _, r := range illegalRuns(t) {
		if r.name == "head-in-packet" {
			runs = append(runs, pipelined(t, r.sys))
		}
	}
	runs = append(runs, tailDrops(t, 2)...)
	if len(runs) != 3 {
		t.Fatalf("%d runs, want 3", len(runs))
	}
	for _, sys := range runs {
		t.Run(strings.Join(sys.Faults, ","), func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			generate(t, dir, sys)
			rep, err := Cosim(ctxFor(t, 5*time.Minute), dir, Icarus)
			if err != nil || !rep.OK() {
				t.Fatalf("%v: %v\n%v", sys.Faults, err, rep)
			}
			t.Logf("%v: %s", sys.Faults, rep.Summary())
		})
	}
}

// tailDrops returns n pipelined 3x3 sums, each with one tail flit dropped
// on a channel whose next flit is a head, where the model cuts a packet
// and the cut head is not dropped after it (no out-of-grid head).
func tailDrops(t *testing.T, n int) []hw.System {
	base := pipelined(t, system(t, "cut-3x3-sum", []int{3, 3}, 9, "butterfly", "sum", 1, 2, 32))
	base.Watchdog = 200
	cr, _ := crossings(t, base)
	s0, err := sim.Build(base, nil)
	if err != nil {
		t.Fatal(err)
	}
	idx := noc.NewChannelIndex(s0.Fabric)
	last := map[int32]noc.Crossing{} // the channel's crossing before
	var out []hw.System
	for _, c := range cr {
		a, seen := last[c.Channel]
		last[c.Channel] = c
		if !seen || !c.Head || a.Head {
			continue
		}
		sys := base
		sys.Faults = []string{fmt.Sprintf("drop:%s@%d", idx.Name(int(c.Channel)), a.Cycle)}
		if err := sys.Validate(); err != nil {
			t.Fatal(err)
		}
		s, _, _, err := RunModel(sys)
		if err != nil {
			t.Fatalf("%v: %v", sys.Faults, err)
		}
		var d noc.DropCounts
		for sw := 0; sw < s.Fabric.NumSwitches(); sw++ {
			x := s.Net.Drops(sw)
			d.Cut += x.Cut
			d.OutOfGrid += x.OutOfGrid
		}
		if d.Cut > 0 && d.OutOfGrid == 0 {
			out = append(out, sys)
			if len(out) == n {
				break
			}
		}
	}
	return out
}

// TestSwitchPipelineCosts: the model with the key on takes longer than
// without on every pipelined design (each head spends a cycle more per
// switch). No simulator.
func TestSwitchPipelineCosts(t *testing.T) {
	for _, sys := range pipelineDesigns(t) {
		if len(sys.Faults) > 0 {
			continue
		}
		off := sys
		off.SwitchPipeline = 0
		on := modelCycles(t, sys)
		if base := modelCycles(t, off); on <= base {
			t.Errorf("%s: %d cycles with the switch pipeline, %d without: the key changes nothing", sys.Name, on, base)
		}
	}
}

// modelCycles is the cycle the model's run of sys ends.
func modelCycles(t *testing.T, sys hw.System) int64 {
	t.Helper()
	_, _, res, err := RunModel(sys)
	if err != nil {
		t.Fatalf("%s: %v", sys.Name, err)
	}
	return res.Cycles
}
