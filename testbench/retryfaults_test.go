package testbench

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/hxbar/hxbar/hw"
	"github.com/hxbar/hxbar/noc"
	"github.com/hxbar/hxbar/sim"
)

// TestFaultsCosimWithRetry: faults on links with link-level retry
// (hx_link_tx / hx_link_rx around every channel), co-simulated under
// Icarus. Each flip and drop is drawn (seeded) on a crossing of the
// fault-free run, so it hits a flit; the model must resend it
// (Retried > 0), finish with no error and with every rank's result equal
// to the fault-free run's, and the RTL must print the model's trace cycle
// for cycle. A dead channel stays dead: the watchdog reports it, in both.
// At least one run must end later than the fault-free run (the resend
// costs cycles), so the comparison sees the retry's timing, not only its
// results.
func TestFaultsCosimWithRetry(t *testing.T) {
	needTools(t, Icarus)
	t.Parallel()
	type design struct {
		sys   hw.System
		kinds []string
	}
	retry := func(s hw.System, r int) hw.System {
		s.LinkRetry, s.Watchdog = r, 150
		s.Name += fmt.Sprintf("-lr%d", r)
		if err := s.Validate(); err != nil {
			t.Fatal(err)
		}
		return s
	}
	ag := system(t, "r-4x4-allgather", []int{4, 4}, 16, "butterfly", "barrier", 1, 2, 64)
	ag.Collective, ag.Items, ag.ItemFlits = hw.CollAllGather, 2, 2
	designs := []design{
		{retry(system(t, "r-4x4-barrier", []int{4, 4}, 16, "butterfly", "barrier", 1, 2, 64), 2), []string{"flip", "flip", "drop", "drop", "dead"}},
		{retry(system(t, "r-4x4-sum", []int{4, 4}, 16, "butterfly", "sum", 1, 2, 64), 4), []string{"flip", "flip", "drop", "drop"}},
		{retry(system(t, "r-4x4-sum-L2-B4", []int{4, 4}, 16, "butterfly", "sum", 2, 4, 64), 4), []string{"flip", "drop"}},
		{retry(ag, 2), []string{"flip", "drop", "drop"}},
	}
	rng := rand.New(rand.NewPCG(2026, 12))
	var runs []faultRun
	later := 0
	for _, d := range designs {
		cr, ref := crossings(t, d.sys)
		s0, _, refRes, err := RunModel(d.sys)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, c := range noc.Channels(s0.Fabric) {
			names = append(names, c.Name)
		}
		for i, kind := range sampleKinds(d.kinds) {
			sys, s, trace, res, err := runDrawnFault(t, d.sys, rng, names, cr, kind)
			if kind == "dead" {
				if err != nil || len(res.Errors) == 0 {
					t.Fatalf("%s %v: a dead channel with retry raised no error: %v", sys.Name, sys.Faults, err)
				}
			} else {
				if err != nil || len(res.Errors) > 0 || !res.Complete {
					t.Fatalf("%s %v: retry did not recover: %v %+v", sys.Name, sys.Faults, err, res.Errors)
				}
				if s.Net.Retried() == 0 {
					t.Fatalf("%s %v: no flit resent: the fault missed", sys.Name, sys.Faults)
				}
				for j, n := range res.Nodes {
					if n.Result != refRes.Nodes[j].Result {
						t.Fatalf("%s %v: rank %d result %s, fault-free %s", sys.Name, sys.Faults, n.Rank, n.Result, refRes.Nodes[j].Result)
					}
				}
				if res.Cycles > refRes.Cycles || !bytes.Equal(trace, ref) {
					later++
				}
			}
			runs = append(runs, faultRun{name: fmt.Sprintf("%s-%d-%s", sys.Name, i, kind), kind: kind, sys: sys, s: s, trace: trace, errs: res.Errors})
		}
	}
	if later == 0 {
		t.Fatal("no recovered run differs in time from the fault-free run: the comparison would not see the retry's timing")
	}
	for _, r := range runs {
		t.Run(r.name, func(t *testing.T) {
			t.Parallel()
			cosimFaultRun(t, r)
		})
	}
}

// TestFaultInjectionTextWithRetry: with link-level retry a drop gives no
// credit back (the resent copy uses it), and the rest of the injection is
// the no-retry one; without retry the credit line is there. No simulator.
func TestFaultInjectionTextWithRetry(t *testing.T) {
	sys := system(t, "inj-retry", []int{4, 4}, 16, "butterfly", "sum", 1, 2, 64)
	sys.Faults = []string{"drop:n2.d1.down@9", "flip:n1.d0.up@7:3"}
	for _, lr := range []int{0, 2} {
		sys.LinkRetry = lr
		if err := sys.Validate(); err != nil {
			t.Fatal(err)
		}
		s, err := sim.Build(sys, nil)
		if err != nil {
			t.Fatal(err)
		}
		inj, err := faultInjection(s.Design)
		if err != nil {
			t.Fatal(err)
		}
		credit := strings.Contains(inj.drive, "if (dut.tile2.g_dim[1].down.ch.fi_hit) dut.")
		if credit != (lr == 0) {
			t.Errorf("link_retry %d: credit given back %v, want %v:\n%s", lr, credit, lr == 0, inj.drive)
		}
		for _, want := range []string{"dut.tile2.g_dim[1].down.ch.fi_kill = 1'b1;", "dut.tile1.g_dim[0].up.ch.fi_mask[3] = 1'b1;"} {
			if !strings.Contains(inj.drive, want) {
				t.Errorf("link_retry %d: injection lacks %q:\n%s", lr, want, inj.drive)
			}
		}
	}
}

// TestScenarioStuckRank: a stuck rank's word in scenario.hex has no
// arrival (bit 127 clear, zero offset and operand); every other rank
// arrives. No simulator.
func TestScenarioStuckRank(t *testing.T) {
	sys := system(t, "stuck", []int{4, 4}, 16, "butterfly", "sum", 1, 2, 64)
	sys.Faults, sys.Watchdog = []string{"stuck:5"}, 60
	if err := sys.Validate(); err != nil {
		t.Fatal(err)
	}
	s, err := sim.Build(sys, nil)
	if err != nil {
		t.Fatal(err)
	}
	node := s.NodeOf(5)
	arrivals := 0
	for _, line := range strings.Split(string(scenarioFile(s.Design)), "\n") {
		w, _, _ := strings.Cut(line, " ")
		if len(w) != 32 || !strings.Contains(line, "episode 1, node ") {
			continue
		}
		if strings.Contains(line, fmt.Sprintf("episode 1, node %d:", node)) {
			if w != strings.Repeat("0", 32) {
				t.Errorf("stuck rank 5 (node %d): word %s, want no arrival", node, w)
			}
			continue
		}
		if w[0] != '8' {
			t.Errorf("a rank that is not stuck does not arrive: %s", line)
		}
		arrivals++
	}
	if arrivals != 15 {
		t.Errorf("%d ranks arrive, want 15", arrivals)
	}
}

// creditCrossings runs sys fault-free and records every credit returned
// (each downstream pop), as a creditdrop draws them.
func creditCrossings(t *testing.T, sys hw.System) []noc.Crossing {
	t.Helper()
	s, err := sim.Build(sys, nil)
	if err != nil {
		t.Fatal(err)
	}
	var cr []noc.Crossing
	s.Net.Record(func(c noc.Crossing) {
		if c.Credit {
			cr = append(cr, c)
		}
	})
	if _, err := s.Run(sim.Options{}); err != nil {
		t.Fatalf("%s: fault-free run: %v", sys.Name, err)
	}
	return cr
}

// TestReverseFaultsCosim: faults on the reverse path, co-simulated under
// Icarus (docs/reliability.md, "Link-level retry"). With link-level retry
// an ackflip (on the ACK word of a drawn crossing), a creditdrop (on a
// drawn credit return), and a drop whose NAK an ackflip defers (both on
// one crossing: the resend waits a cycle) all recover: the run completes
// with no error and every rank's result is the fault-free one. Without
// retry a creditdrop loses the credit for good: the run still completes
// with buffer_depth 2, or the watchdog reports the channel with 1. Each
// fault hits (Hits > 0), and Icarus prints the model's trace cycle for
// cycle.
func TestReverseFaultsCosim(t *testing.T) {
	needTools(t, Icarus)
	t.Parallel()
	mk := func(name string, lat, buf, lr int) hw.System {
		s := system(t, name, []int{4, 4}, 16, "butterfly", "sum", lat, buf, 64)
		s.LinkRetry, s.Watchdog = lr, 150
		if err := s.Validate(); err != nil {
			t.Fatal(err)
		}
		return s
	}
	designs := []struct {
		sys   hw.System
		kinds []string
	}{
		{mk("rv-L1-B2-R2", 1, 2, 2), []string{"ackflip", "creditdrop", "drop+ackflip", "drop+ackflip"}},
		{mk("rv-L2-B4-R4", 2, 4, 4), []string{"ackflip", "creditdrop", "drop+ackflip"}},
		{mk("rv-L3-B2-R3", 3, 2, 3), []string{"drop+ackflip"}},
		{mk("rv-noretry-L1-B2", 1, 2, 0), []string{"creditdrop"}},
		{mk("rv-noretry-L2-B1", 2, 1, 0), []string{"creditdrop"}},
	}
	rng := rand.New(rand.NewPCG(2026, 20))
	var runs []faultRun
	for _, d := range designs {
		flits, _ := crossings(t, d.sys)
		credits := creditCrossings(t, d.sys)
		s0, _, refRes, err := RunModel(d.sys)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, c := range noc.Channels(s0.Fabric) {
			names = append(names, c.Name)
		}
		for i, kind := range d.kinds {
			sys := d.sys
			switch kind {
			case "creditdrop":
				// On a channel that carries a flit later: the credit is
				// needed again.
				var used []noc.Crossing
				for _, c := range credits {
					if slices.ContainsFunc(flits, func(f noc.Crossing) bool { return f.Channel == c.Channel && f.Cycle > c.Cycle }) {
						used = append(used, c)
					}
				}
				sys.Faults = []string{drawFault(rng, &sys, names, used, kind)}
			case "drop+ackflip":
				c := flits[rng.IntN(len(flits))]
				one := []noc.Crossing{c}
				sys.Faults = []string{drawFault(rng, &sys, names, one, "drop"), drawFault(rng, &sys, names, one, "ackflip")}
			default:
				sys.Faults = []string{drawFault(rng, &sys, names, flits, kind)}
			}
			sys.MaxCycles = 4000
			if err := sys.Validate(); err != nil {
				t.Fatal(err)
			}
			s, err := sim.Build(sys, nil)
			if err != nil {
				t.Fatal(err)
			}
			trace, res, err := Trace(s)
			if err != nil {
				t.Fatalf("%s %v: %v", sys.Name, sys.Faults, err)
			}
			for _, f := range res.Faults {
				if f.Hits < 1 {
					t.Fatalf("%s %v: %s hit nothing: the draw is not on traffic", sys.Name, sys.Faults, f.Spec)
				}
			}
			lostForGood := sys.LinkRetry == 0 && sys.BufferDepth == 1
			switch {
			case lostForGood:
				if len(res.Errors) == 0 {
					t.Fatalf("%s %v: the only credit lost, no error reported", sys.Name, sys.Faults)
				}
			case len(res.Errors) > 0 || !res.Complete:
				t.Fatalf("%s %v: did not recover: %+v", sys.Name, sys.Faults, res.Errors)
			default:
				for j, n := range res.Nodes {
					if n.Result != refRes.Nodes[j].Result {
						t.Fatalf("%s %v: rank %d result %s, fault-free %s", sys.Name, sys.Faults, n.Rank, n.Result, refRes.Nodes[j].Result)
					}
				}
			}
			if kind == "drop+ackflip" && s.Net.Retried() == 0 {
				t.Fatalf("%s %v: no flit resent", sys.Name, sys.Faults)
			}
			runs = append(runs, faultRun{name: fmt.Sprintf("%s-%d-%s", sys.Name, i, kind), kind: kind, sys: sys, s: s, trace: trace, errs: res.Errors})
		}
	}
	for _, r := range runs {
		t.Run(r.name, func(t *testing.T) {
			t.Parallel()
			cosimFaultRun(t, r)
		})
	}
}

// sampleKinds is every fault kind of a design once in make test and the
// whole list (repeats drawn on other channels) with HXBAR_FULL_MATRIX.
func sampleKinds(kinds []string) []string {
	if fullMatrix() {
		return kinds
	}
	var once []string
	for _, k := range kinds {
		if !slices.Contains(once, k) {
			once = append(once, k)
		}
	}
	return once
}
