package testbench

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hxbar/hxbar/barrierunit"
	"github.com/hxbar/hxbar/hw"
	"github.com/hxbar/hxbar/noc"
	"github.com/hxbar/hxbar/sim"
)

// Illegal flits at a switch (docs/microarchitecture.md, "Illegal flits"),
// each made by one flipped bit on a 3x3 grid (a coordinate of 2 bits
// whose value 3 names no node) and co-simulated: the RTL's trace is the
// model's, the run ends with the destination's error (or its watchdog's
// TIMEOUT), and every switch's DROPS register, as the testbench prints it,
// is the model's.

// illegalRun is one directed run: the flip, the switch that must count
// it and the counts it must have there.
type illegalRun struct {
	name  string
	sys   hw.System
	sw    int
	check func(d noc.DropCounts) bool
	want  string
}

// illegalRuns finds, on the fault-free run of a 3x3 sum (every rank on
// its node, flit width 32: two payload flits a packet, watchdog 200), a
// head a node injects for a rank whose node has coordinate 0 of 1 or 2 (so
// that flipping one of its address bits makes it 3) and whose first
// payload flit crosses the injection channel in the next cycle, and flips:
// that address bit (an out-of-grid head), the head's head bit (its payload
// flits orphans), the first payload's head bit (a head inside the packet:
// the switch cuts the packet after its head, one payload flit short).
func illegalRuns(t *testing.T) []illegalRun { return illegalRunsOn(t, illegalBase(t, false)) }

// illegalBase is the 3x3 sum of illegalRuns on the hyper-crossbar, or on
// a 3x3 torus (its routers drop and cut as the switches do).
func illegalBase(t *testing.T, torus bool) hw.System {
	base := system(t, "ill-3x3-sum", []int{3, 3}, 9, "butterfly", "sum", 1, 2, 32)
	if torus {
		base = torusSystem(t, "ill-torus3x3-sum", []int{3, 3}, nil, func(s *hw.System) {
			s.Algo, s.Op, s.LinkLatency, s.BufferDepth, s.FlitWidth = "butterfly", "sum", 1, 2, 32
		})
	}
	base.Watchdog = 200
	return base
}

// illegalRunsOn is illegalRuns on the 3x3 system base.
func illegalRunsOn(t *testing.T, base hw.System) []illegalRun {
	cr, trace := crossings(t, base)
	evs, err := ParseTrace(trace)
	if err != nil {
		t.Fatal(err)
	}
	s0, err := sim.Build(base, nil)
	if err != nil {
		t.Fatal(err)
	}
	idx := noc.NewChannelIndex(s0.Fabric)
	crossed := map[[2]int64]bool{} // (channel, cycle) of payload flits
	for _, c := range cr {
		if !c.Head {
			crossed[[2]int64{int64(c.Channel), c.Cycle}] = true
		}
	}
	w := base.Wire()
	headBit := w.Bits() - 1
	for _, e := range evs {
		if e.Kind != barrierunit.EvSend {
			continue
		}
		v := int(e.Node)
		dst := s0.Design.NodeOf(int(e.Rank))
		c0 := dst % 3
		inj := fmt.Sprintf("n%d.inject", v)
		id, err := idx.Parse(inj)
		if err != nil {
			t.Fatal(err)
		}
		if c0 == 0 || !crossed[[2]int64{int64(id), e.Cycle + 1}] {
			continue
		}
		bit := 1 // coordinate 0 is 01: bit 1 makes it 11
		if c0 == 2 {
			bit = 0
		}
		mk := func(name, fault string, check func(noc.DropCounts) bool, want string) illegalRun {
			s := base
			s.Name = base.Name + "-" + name
			s.Faults = []string{fault}
			if err := s.Validate(); err != nil {
				t.Fatal(err)
			}
			return illegalRun{name: name, sys: s, sw: v, check: check, want: want}
		}
		return []illegalRun{
			mk("out-of-grid", fmt.Sprintf("flip:%s@%d:%d", inj, e.Cycle, bit),
				func(d noc.DropCounts) bool { return d == noc.DropCounts{OutOfGrid: 1, Flits: 3} }, "1 out-of-grid head, 3 flits"),
			mk("orphan", fmt.Sprintf("flip:%s@%d:%d", inj, e.Cycle, headBit),
				func(d noc.DropCounts) bool { return d == noc.DropCounts{Orphan: 3, Flits: 3} }, "3 orphans, 3 flits"),
			mk("head-in-packet", fmt.Sprintf("flip:%s@%d:%d", inj, e.Cycle+1, headBit),
				func(d noc.DropCounts) bool { return d.Cut == 1 }, "1 cut"),
		}
	}
	t.Fatal("no head on the 3x3 run whose address one flip takes out of the grid")
	return nil
}

// illegalModel runs r's model and checks its outcome: the switch counted
// what r wants, and the run ended with an error.
func illegalModel(t *testing.T, r illegalRun) {
	t.Helper()
	s, trace, res, err := RunModel(r.sys)
	if err != nil {
		t.Fatalf("%v: %v", r.sys.Faults, err)
	}
	if d := s.Net.Drops(r.sw); !r.check(d) {
		t.Fatalf("%v: switch %d counted %+v, want %s", r.sys.Faults, r.sw, d, r.want)
	}
	if len(res.Errors) == 0 {
		t.Fatalf("%v: the run ended without an error:\n%s", r.sys.Faults, trace)
	}
}

// TestIllegalFlitsCosim: the three directed runs co-simulate cycle-exactly
// under Icarus, DROPS registers included, on the hyper-crossbar's switches
// and on a torus's routers.
func TestIllegalFlitsCosim(t *testing.T) {
	needTools(t, Icarus)
	t.Parallel()
	runs := illegalRuns(t)
	for _, r := range illegalRunsOn(t, illegalBase(t, true)) {
		r.name = "torus-" + r.name
		runs = append(runs, r)
	}
	for _, r := range runs {
		t.Run(r.name, func(t *testing.T) {
			t.Parallel()
			illegalModel(t, r)
			dir := t.TempDir()
			generate(t, dir, r.sys)
			rep, err := Cosim(ctxFor(t, 5*time.Minute), dir, Icarus)
			if err != nil || !rep.OK() {
				t.Fatalf("%v: %v\n%v", r.sys.Faults, err, rep)
			}
			if !strings.Contains(rep.Run.Output, "DROPS ") {
				t.Fatalf("%v: the testbench printed no DROPS line", r.sys.Faults)
			}
			t.Logf("%v: %s; switch %d: %+v", r.sys.Faults, rep.Summary(), r.sw, rep.Run.Drops[r.sw])
		})
	}
}

// illegalMutants break the switch's illegal-flit logic (or the fault
// testbench's assertion switch); each must make its run fail the
// co-simulation: its trace, its verdict, or its DROPS registers.
var illegalMutants = []struct {
	name, file, old, new, run string
}{
	{"out-of-grid head not dropped", "hx_switch.v",
		"assign ev_dis[i]  = idle && (!hd || oog);", "assign ev_dis[i]  = idle && !hd;", "out-of-grid"},
	{"orphan not dropped", "hx_switch.v",
		"assign ev_dis[i]  = idle && (!hd || oog);", "assign ev_dis[i]  = idle && oog;", "orphan"},
	{"no cut", "hx_switch.v",
		"wire          cut   = own_hd;", "wire          cut   = 1'b0;", "head-in-packet"},
	{"out-of-grid heads not counted", "hx_switch.v",
		"n_oog  = n_oog  + {{(CW-1){1'b0}}, q_oog[dq]};", "n_oog  = n_oog;", "out-of-grid"},
	{"orphans not counted", "hx_switch.v",
		"n_orph = n_orph + {{(CW-1){1'b0}}, q_orph[dq]};", "n_orph = n_orph;", "orphan"},
	{"cuts not counted", "hx_switch.v",
		"q_cuto <= snd & cut_o;", "q_cuto <= {P{1'b0}};", "head-in-packet"},
	{"dropping ignores the tail", "hx_switch.v",
		"dv <= hd ? (oog && !tl) : (dv && !tl);", "dv <= hd ? oog : dv;", "out-of-grid"},
	{"assertions left on", "tb.v",
		"achk = 1'b0;", "achk = 1'b1;", "orphan"},
	// The torus router's copy (runs on the 3x3 torus, "torus-" names).
	{"router: out-of-grid head not dropped", "hx_router.v",
		"assign ev_dis[i]  = idle && (!hd || oog);", "assign ev_dis[i]  = idle && !hd;", "torus-out-of-grid"},
	{"router: orphan not dropped", "hx_router.v",
		"assign ev_dis[i]  = idle && (!hd || oog);", "assign ev_dis[i]  = idle && oog;", "torus-orphan"},
	{"router: no cut", "hx_router.v",
		"wire cut = |(own & fvalid & hd_f);", "wire cut = 1'b0;", "torus-head-in-packet"},
	{"router: out-of-grid heads not counted", "hx_drops.v",
		"n_oog  = n_oog  + {{(CW-1){1'b0}}, q_oog[dq]};", "n_oog  = n_oog;", "torus-out-of-grid"},
	{"router: cuts not counted", "hx_router.v",
		".ev_cuto(snd & cut_o)", ".ev_cuto({P{1'b0}})", "torus-head-in-packet"},
	{"router: dropping ignores the tail", "hx_router.v",
		"dv <= hd ? (oog && !tl) : (dv && !tl);", "dv <= hd ? oog : dv;", "torus-out-of-grid"},
	{"router: assertions left on", "tb.v",
		"achk = 1'b0;", "achk = 1'b1;", "torus-orphan"},
}

// TestIllegalFlitMutants: each mutant passes nothing it breaks.
func TestIllegalFlitMutants(t *testing.T) {
	needTools(t, Icarus)
	t.Parallel()
	runs := map[string]illegalRun{}
	for _, r := range illegalRuns(t) {
		runs[r.name] = r
	}
	for _, r := range illegalRunsOn(t, illegalBase(t, true)) {
		runs["torus-"+r.name] = r
	}
	for _, m := range illegalMutants {
		t.Run(strings.ReplaceAll(m.name, " ", "-"), func(t *testing.T) {
			t.Parallel()
			r := runs[m.run]
			dir := t.TempDir()
			generate(t, dir, r.sys)
			path := filepath.Join(dir, m.file)
			src, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Contains(src, []byte(m.old)) {
				t.Fatalf("%s no longer has %q: update the mutant", m.file, m.old)
			}
			if err := os.WriteFile(path, bytes.ReplaceAll(src, []byte(m.old), []byte(m.new)), 0o644); err != nil {
				t.Fatal(err)
			}
			run, err := RunSimulator(ctxFor(t, 5*time.Minute), dir, Icarus)
			if err != nil {
				t.Fatal(err)
			}
			s, trace, _, err := RunModel(r.sys)
			if err != nil {
				t.Fatal(err)
			}
			d := Compare(Lines(trace), run.Trace)
			dd := CompareDrops(s, run)
			if run.Passed() && d == nil && dd == "" {
				t.Fatalf("%v: the mutant %q passes", r.sys.Faults, m.name)
			}
			t.Logf("%v: mutant caught: %v / %s / %s", r.sys.Faults, d, dd, run.Verdict())
		})
	}
}
