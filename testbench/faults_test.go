package testbench

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hxbar/hxbar/barrierunit"
	"github.com/hxbar/hxbar/hw"
	"github.com/hxbar/hxbar/noc"
	"github.com/hxbar/hxbar/sim"
	"github.com/hxbar/hxbar/verilog"
)

// The RTL side of docs/reliability.md: faults injected by the generated
// testbench (tb.v forcing the channels) and detected by the units (CRC,
// SEQ, TIMEOUT, and the older error paths), co-simulated cycle for cycle
// against the model under Icarus, error events included.

// faultDesign is one system of the fault runs and the runs drawn on it.
type faultDesign struct {
	sys   hw.System
	kinds []string // one run per entry: flip, drop, dead, stuck
}

func faultDesigns(t testing.TB) []faultDesign {
	wd := func(s hw.System, w int64) hw.System {
		s.Watchdog = w
		s.Name += fmt.Sprintf("-wd%d", w)
		if err := s.Validate(); err != nil {
			t.Fatal(err)
		}
		return s
	}
	repeat := func(s hw.System, n int) hw.System {
		s.Repeat = n
		if err := s.Validate(); err != nil {
			t.Fatal(err)
		}
		return s
	}
	ag := func(s hw.System) hw.System {
		s.Collective, s.Items, s.ItemFlits = hw.CollAllGather, 2, 2
		if err := s.Validate(); err != nil {
			t.Fatal(err)
		}
		return s
	}
	return []faultDesign{
		{wd(system(t, "f-4x4-barrier", []int{4, 4}, 16, "butterfly", "barrier", 1, 2, 64), 150),
			[]string{"flip", "flip", "drop", "drop", "dead", "dead", "stuck"}},
		{system(t, "f-4x4-barrier", []int{4, 4}, 16, "butterfly", "barrier", 1, 2, 64),
			[]string{"flip", "flip"}},
		{wd(system(t, "f-4x4-sum", []int{4, 4}, 16, "butterfly", "sum", 1, 2, 64), 150),
			[]string{"flip", "flip", "drop", "dead", "stuck"}},
		{system(t, "f-4x4-sum", []int{4, 4}, 16, "butterfly", "sum", 1, 2, 64),
			[]string{"flip", "flip", "drop"}},
		{wd(system(t, "f-4x4-sum-L2-B1-fw32", []int{4, 4}, 16, "butterfly", "sum", 2, 1, 32), 150),
			[]string{"flip", "drop", "drop", "dead"}},
		{wd(ag(system(t, "f-4x4-allgather", []int{4, 4}, 16, "butterfly", "barrier", 1, 2, 64)), 150),
			[]string{"flip", "flip", "drop", "drop", "dead", "stuck"}},
		{ag(system(t, "f-4x4-allgather", []int{4, 4}, 16, "butterfly", "barrier", 1, 2, 64)),
			[]string{"flip", "drop"}},
		{wd(system(t, "f-2x3-barrier", []int{2, 3}, 6, "butterfly", "barrier", 1, 2, 64), 150),
			[]string{"flip", "drop", "dead", "stuck"}},
		{wd(system(t, "f-2x3-sum", []int{2, 3}, 6, "butterfly", "sum", 1, 2, 64), 150),
			[]string{"flip", "drop"}},
		{wd(system(t, "f-8x8-sum", []int{8, 8}, 64, "butterfly", "sum", 1, 2, 64), 150),
			[]string{"flip", "dead"}},
		// Two episodes, the faults in the second (after the tables are
		// rewritten between them): the cycle numbering across episodes.
		{wd(repeat(system(t, "f-4x4-sum-x2", []int{4, 4}, 16, "butterfly", "sum", 1, 2, 64), 2), 150),
			[]string{"flip", "drop", "dead"}},
	}
}

// faultRun is one drawn run: the system with its fault, the model's
// trace, and the model's errors.
type faultRun struct {
	name  string
	kind  string
	sys   hw.System
	s     *sim.System
	trace []byte
	errs  []sim.ErrorResult
}

// crossings runs sys fault-free and records every flit crossing.
func crossings(t testing.TB, sys hw.System) ([]noc.Crossing, []byte) {
	t.Helper()
	s, err := sim.Build(sys, nil)
	if err != nil {
		t.Fatal(err)
	}
	var cr []noc.Crossing
	s.Net.Record(func(c noc.Crossing) {
		if !c.Credit { // flits only; creditCrossings has the credits
			cr = append(cr, c)
		}
	})
	var tr bytes.Buffer
	if _, err := s.Run(sim.Options{Trace: &tr}); err != nil {
		t.Fatalf("%s: fault-free run: %v", sys.Name, err)
	}
	return cr, tr.Bytes()
}

// drawFault draws a fault of kind on a crossing of the fault-free run
// (so that it hits traffic), a flip's bit among those the RTL testbench
// injects, a stuck rank among the ranks.
func drawFault(rng *rand.Rand, sys *hw.System, names []string, cr []noc.Crossing, kind string) string {
	if kind == "stuck" {
		return fmt.Sprintf("stuck:%d", rng.IntN(sys.NumRanks()))
	}
	c := cr[rng.IntN(len(cr))]
	name := names[c.Channel]
	switch kind {
	case "flip":
		for {
			b := rng.IntN(sys.Wire().Bits()) // data, check code, tail, head
			if rtlFlipBit(sys, b) == "" {
				return fmt.Sprintf("flip:%s@%d:%d", name, c.Cycle, b)
			}
		}
	case "drop":
		return fmt.Sprintf("drop:%s@%d", name, c.Cycle)
	case "ackflip": // the ACK word of the crossing (sent as it arrives)
		return fmt.Sprintf("ackflip:%s@%d", name, c.Cycle+int64(c.Lat)-1)
	case "creditdrop": // cr holds credit returns (creditCrossings)
		return fmt.Sprintf("creditdrop:%s@%d", name, c.Cycle)
	}
	return fmt.Sprintf("dead:%s@%d", name, c.Cycle)
}

// runDrawnFault draws one fault of kind on base's traffic (drawFault)
// and runs the model with it (max_cycles 4000): the system, the model,
// its trace and result, and the run's error (a hang, a unit error).
func runDrawnFault(t *testing.T, base hw.System, rng *rand.Rand, names []string, cr []noc.Crossing, kind string) (hw.System, *sim.System, []byte, *sim.Result, error) {
	t.Helper()
	sys := base
	sys.Faults = []string{drawFault(rng, &sys, names, cr, kind)}
	sys.MaxCycles = 4000
	if err := sys.Validate(); err != nil {
		t.Fatal(err)
	}
	s, err := sim.Build(sys, nil)
	if err != nil {
		t.Fatal(err)
	}
	trace, res, err := Trace(s)
	return sys, s, trace, res, err
}

// drawRuns draws every design's runs with a seeded generator. A drawn
// fault whose model run cannot be compared (a hang without a watchdog,
// which the model reports at max_cycles with no error event) is drawn
// again; every kept run must show the fault's effect (checkOutcome).
func drawRuns(t *testing.T, seed uint64) []faultRun {
	rng := rand.New(rand.NewPCG(seed, 11))
	var runs []faultRun
	for _, d := range faultDesigns(t) {
		cr, ref := crossings(t, d.sys)
		if d.sys.Repeat > 1 {
			cr = cr[len(cr)/2:] // the later episodes
		}
		s0, err := sim.Build(d.sys, nil)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, c := range noc.Channels(s0.Fabric) {
			names = append(names, c.Name)
		}
		for i, kind := range d.kinds {
			var run *faultRun
			for try := 0; try < 20 && run == nil; try++ {
				sys, s, trace, res, err := runDrawnFault(t, d.sys, rng, names, cr, kind)
				if errors.As(err, new(*sim.StuckError)) {
					continue // a hang no unit reports: not comparable
				}
				if err != nil {
					t.Fatalf("%s %v: %v", sys.Name, sys.Faults, err)
				}
				if !checkOutcome(t, sys, kind, res, trace, ref) {
					continue
				}
				run = &faultRun{name: fmt.Sprintf("%s-%d-%s", d.sys.Name, i, kind), kind: kind, sys: sys, s: s, trace: trace, errs: res.Errors}
			}
			if run == nil {
				t.Fatalf("%s: no comparable %s fault in 20 draws", d.sys.Name, kind)
			}
			runs = append(runs, *run)
		}
	}
	return runs
}

// checkOutcome reports whether the model's run shows the fault's effect
// as docs/reliability.md says it must: the fault hit a flit (link
// faults), and the run raised an error of the expected class: TIMEOUT for
// a dead channel or a stuck rank; any detection for a drop; for a flip an
// error, or nothing at all only when the bit is a sideband bit (the
// check code rides on the tail only: on another flit it carries nothing)
// and the trace is the fault-free one.
func checkOutcome(t *testing.T, sys hw.System, kind string, res *sim.Result, trace, ref []byte) bool {
	t.Helper()
	if kind != "stuck" {
		if len(res.Faults) != 1 || res.Faults[0].Hits < 1 {
			t.Fatalf("%s %v: the fault hit no flit (faults %+v): the draw is not on traffic", sys.Name, sys.Faults, res.Faults)
		}
	}
	has := func(code uint8) bool {
		for _, e := range res.Errors {
			if e.Code == barrierunit.ErrName(code) {
				return true
			}
		}
		return false
	}
	switch kind {
	case "dead", "stuck":
		return has(barrierunit.ErrTimeout)
	case "drop":
		return len(res.Errors) > 0
	}
	if len(res.Errors) > 0 {
		return true
	}
	f, _ := hw.ParseFault(sys.Faults[0])
	if f.Bit >= sys.FlitWidth && bytes.Equal(trace, ref) {
		return true
	}
	t.Fatalf("%s %v: a flip changed the run without an error (silent):\n%s", sys.Name, sys.Faults, trace)
	return false
}

// TestFaultsCosim: 40 runs (38 in make test: the 8x8 design's two in make
// bench), each with one fault drawn (seeded) on the
// traffic of 11 designs (4x4, 2x3 and 8x8; barrier, sum, all-gather; with
// and without a watchdog; L = 1 and 2; one episode and two), every kind (flip, drop, dead,
// stuck): the model's run must show the fault's effect (an error of the
// fault's class), and Icarus must print the same trace, error events
// included, cycle for cycle.
func TestFaultsCosim(t *testing.T) {
	needTools(t, Icarus)
	t.Parallel()
	start := time.Now()
	runs := drawRuns(t, 2026)
	if !fullMatrix() {
		// make test: the 4x4 and 2x3 runs; the two 8x8 runs (a third of
		// the test's time) in make bench. The draw is the same either way.
		runs = slices.DeleteFunc(runs, func(r faultRun) bool { return len(r.sys.Dims) > 0 && r.sys.Dims[0] == 8 })
	}
	kinds := map[string]int{}
	codes := map[string]int{}
	for _, r := range runs {
		kinds[r.kind]++
		for _, e := range r.errs {
			codes[e.Code]++
		}
	}
	if len(runs) < 30 || kinds["flip"] == 0 || kinds["drop"] == 0 || kinds["dead"] == 0 || kinds["stuck"] == 0 {
		t.Fatalf("%d runs, by kind %v: want at least 30 covering every kind", len(runs), kinds)
	}
	for _, c := range []uint8{barrierunit.ErrCRC, barrierunit.ErrTimeout} {
		if codes[barrierunit.ErrName(c)] == 0 {
			t.Errorf("no run raised %s (codes %v)", barrierunit.ErrName(c), codes)
		}
	}
	var mu sync.Mutex
	passed := 0
	t.Cleanup(func() {
		t.Logf("%d of %d faulty runs co-simulated cycle-exactly (kinds %v, error codes %v) in %v", passed, len(runs), kinds, codes, time.Since(start).Round(time.Second))
	})
	for _, r := range runs {
		t.Run(r.name, func(t *testing.T) {
			t.Parallel()
			cosimFaultRun(t, r)
			mu.Lock()
			passed++
			mu.Unlock()
		})
	}
}

// cosimFaultRun generates the run's design and testbench and requires
// Icarus to reproduce the model's trace.
func cosimFaultRun(t *testing.T, r faultRun) {
	t.Helper()
	dir := t.TempDir()
	if _, err := verilog.Generate(dir, r.s.Design); err != nil {
		t.Fatal(err)
	}
	if err := Generate(dir, r.s.Design, r.trace); err != nil {
		t.Fatal(err)
	}
	run, err := RunSimulator(ctxFor(t, 5*time.Minute), dir, Icarus)
	if err != nil {
		t.Fatal(err)
	}
	if d := Compare(Lines(r.trace), run.Trace); d != nil || !run.Passed() {
		t.Fatalf("%v: RTL differs from the model: %v\n%s", r.sys.Faults, d, run.Output)
	}
}

// TestFaultInjectionText: the testbench of a system with faults drives
// them in the cycle and on the instance docs/reliability.md names, and a
// fault-free testbench has no injection at all.
func TestFaultInjectionText(t *testing.T) {
	sys := system(t, "inj", []int{4, 4}, 16, "butterfly", "sum", 2, 2, 64)
	sys.Watchdog = 40
	sys.Faults = []string{"flip:n1.d0.up@7:3", "drop:n2.d1.down@9", "dead:n3.inject@11", "stuck:5", "drop:n0.eject@4"}
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
	x, j := s.Topo.Crossbar(2, 1)
	for _, want := range []string{
		"if (run && cyc == 64'd7) dut.tile1.g_dim[0].up.ch.fi_mask[3] = 1'b1;",
		"if (run && cyc == 64'd8) dut.tile1.g_dim[0].up.ch.fi_mask[3] = 1'b0;",
		"if (run && cyc == 64'd9) dut.tile2.g_dim[1].down.ch.fi_kill = 1'b1;",
		"dut.tile2.g_dim[1].down.ch.fi_kill = 1'b0;",
		fmt.Sprintf("if (dut.tile2.g_dim[1].down.ch.fi_hit) dut.sw%d.g_out[%d].credit.cnt <= dut.sw%d.g_out[%d].credit.cnt + 1'b1;", x, j, x, j),
		"if (run && cyc == 64'd11) dut.tile3.inj.ch.fi_kill = 1'b1;",
		"if (dut.tile0.ej.ch.fi_hit) dut.tile0.sw.g_out[0].credit.cnt <= dut.tile0.sw.g_out[0].credit.cnt + 1'b1;",
		"stuck:5: rank 5 never arrives",
	} {
		if !strings.Contains(inj.drive, want) {
			t.Errorf("injection lacks %q:\n%s", want, inj.drive)
		}
	}
	if !strings.Contains(inj.module, "dut.tile15.g_unit.bu.pchk = 1'b0;") {
		t.Errorf("payload checks not turned off:\n%s", inj.module)
	}
	if !strings.Contains(inj.module, fmt.Sprintf("dut.sw%d.achk = 1'b0;", s.Topo.Switches-1)) || !strings.Contains(inj.module, "dut.tile0.sw.achk = 1'b0;") ||
		!strings.Contains(inj.module, fmt.Sprintf("$write(\" %%h\", dut.sw%d.drops);", s.Topo.Switches-1)) || inj.pass == "" {
		t.Errorf("switch assertions not turned off or DROPS not printed:\n%s", inj.module)
	}
	sys.Faults = nil
	s, err = sim.Build(sys, nil)
	if err != nil {
		t.Fatal(err)
	}
	if inj, err := faultInjection(s.Design); err != nil || inj != (injection{}) {
		t.Errorf("fault-free: %+v, %v", inj, err)
	}
	// An address bit of a dimension whose size is not a power of two is
	// injected (a coordinate past the grid is dropped by the next switch,
	// in the RTL as in the model), and so are the tail and head bits; the
	// bits of a wide flit the model does not keep are refused by name.
	odd := system(t, "odd", []int{2, 3}, 6, "butterfly", "barrier", 1, 2, 128)
	odd.Faults = []string{"flip:n0.d1.up@3:1", "flip:n0.d1.up@3:136", "flip:n0.d1.up@3:137"}
	if err := odd.Validate(); err != nil {
		t.Fatal(err)
	}
	so, err := sim.Build(odd, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := faultInjection(so.Design); err != nil {
		t.Errorf("odd flip: %v", err)
	}
	// Refused already by validation (hw: the model does not carry it).
	odd.Faults = []string{"flip:n0.d1.up@3:100"}
	if _, err := sim.Build(odd, nil); err == nil || !strings.Contains(err.Error(), "faults[0]") || !strings.Contains(err.Error(), "64..127") {
		t.Errorf("a data bit the model does not keep: %v", err)
	}
}

// faultMutants are changes of the RTL's detection that TestFaultMutants
// must catch: each is a text edit of an RTL file (hx_barrier_unit.v
// unless file says otherwise) in a generated directory, and the error
// code of a run that exposes it (or the run, by name).
var faultMutants = []struct {
	name, old, new string
	code           uint8
	file, run      string
}{
	{"crc check disabled",
		"assign crc_bad = rx_tail && (ej_front[FW +: CB] != r_crc_n[CB-1:0]);", "assign crc_bad = 1'b0;", barrierunit.ErrCRC, "", ""},
	{"watchdog compare one cycle late",
		"{1'b0, idle} + 33'd1 >= {1'b0, wdog}", "{1'b0, idle} >= {1'b0, wdog}", barrierunit.ErrTimeout, "", ""},
	{"watchdog compare one cycle early",
		"{1'b0, idle} + 33'd1 >= {1'b0, wdog}", "{1'b0, idle} + 33'd2 >= {1'b0, wdog}", barrierunit.ErrTimeout, "", ""},
	{"seq check disabled",
		"wire e_seq    = pop && en && dmode && seq_bad;", "wire e_seq    = 1'b0;", barrierunit.ErrSeq, "", ""},
	// The lost-tail rule of the switch: an input that owns an output
	// requests nothing (a drop of a tail on an L = 2, B = 1 design).
	{"switch input owning an output still requests",
		"&& legal[j] && !in_own[j] &&", "&& legal[j] &&", 0,
		"hx_switch.v", "f-4x4-sum-L2-B1-fw32-wd150-1-drop"},
	// The testbench's drop: without the credit given back, the sender of
	// a B = 1 channel has none left.
	{"drop keeps no credit",
		".fi_hit) dut.", ".fi_hit && 1'b0) dut.", 0,
		"tb.v", "f-4x4-sum-L2-B1-fw32-wd150-1-drop"},
}

// TestFaultMutants: for each mutant of the detection logic, a faulty run
// of TestFaultsCosim's draw whose model run raises the mutant's error
// code co-simulates cleanly with the RTL as generated and fails with the
// mutant: a disabled CRC check, a watchdog compare off by one either way,
// a disabled SEQ check, a switch whose owning inputs still request, and
// a testbench that does not give a dropped flit's credit back.
func TestFaultMutants(t *testing.T) {
	needTools(t, Icarus)
	t.Parallel()
	runs := drawRuns(t, 2026)
	for _, m := range faultMutants {
		t.Run(strings.ReplaceAll(m.name, " ", "-"), func(t *testing.T) {
			t.Parallel()
			var r *faultRun
			for i := range runs {
				if m.run != "" {
					if runs[i].name == m.run {
						r = &runs[i]
					}
					continue
				}
				if runs[i].s.Topo.Nodes > 16 {
					continue // a small design: quick
				}
				for _, e := range runs[i].errs {
					if e.Code == barrierunit.ErrName(m.code) && r == nil {
						r = &runs[i]
					}
				}
			}
			if r == nil {
				t.Fatalf("no drawn run for the mutant (code %s, run %q)", barrierunit.ErrName(m.code), m.run)
			}
			dir := t.TempDir()
			if _, err := verilog.Generate(dir, r.s.Design); err != nil {
				t.Fatal(err)
			}
			if err := Generate(dir, r.s.Design, r.trace); err != nil {
				t.Fatal(err)
			}
			ctx := ctxFor(t, 5*time.Minute)
			run, err := RunSimulator(ctx, dir, Icarus)
			if err != nil || !run.Passed() || Compare(Lines(r.trace), run.Trace) != nil {
				t.Fatalf("%s %v: pristine RTL: %v\n%s", r.name, r.sys.Faults, err, run.Output)
			}
			file := m.file
			if file == "" {
				file = "hx_barrier_unit.v"
			}
			path := filepath.Join(dir, file)
			src, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Contains(src, []byte(m.old)) {
				t.Fatalf("%s no longer has %q: update the mutant", file, m.old)
			}
			if err := os.WriteFile(path, bytes.Replace(src, []byte(m.old), []byte(m.new), 1), 0o644); err != nil {
				t.Fatal(err)
			}
			run, err = RunSimulator(ctx, dir, Icarus)
			if err != nil {
				t.Fatal(err)
			}
			if run.Passed() && Compare(Lines(r.trace), run.Trace) == nil {
				t.Fatalf("%s %v: the mutant %q passes", r.name, r.sys.Faults, m.name)
			}
			t.Logf("%s %v: mutant caught: %s", r.name, r.sys.Faults, run.Verdict())
		})
	}
}

// TestCosimErrorFinishesPacket: a unit that enters ERROR in the middle of
// a packet it sends finishes the packet (docs/microarchitecture.md,
// "Error paths"), in the RTL as in the model: the destination counts the
// whole packet, where a half packet would hold the path. Both runs are
// checked to meet the case: the failed unit is mid-packet at its error.
func TestCosimErrorFinishesPacket(t *testing.T) {
	needTools(t, Icarus)
	t.Parallel()
	for _, fault := range []string{"flip:n0.eject@36:13", "flip:n1.eject@33:13"} {
		t.Run(fault, func(t *testing.T) {
			t.Parallel()
			build := func(maxCycles int64) *sim.System {
				sys := hw.Default()
				sys.Op, sys.FlitWidth, sys.Skew, sys.Watchdog = "sum", 16, 30, 300
				sys.Faults, sys.MaxCycles = []string{fault}, maxCycles
				s, err := sim.Build(sys, nil)
				if err != nil {
					t.Fatal(err)
				}
				return s
			}
			s := build(4000)
			trace, res, err := Trace(s)
			if err != nil || len(res.Errors) == 0 {
				t.Fatalf("%v, errors %v: want a unit error", err, res.Errors)
			}
			e := res.Errors[0]
			at := build(e.Cycle + 1)
			at.Run(sim.Options{}) //nolint:errcheck // stopped at the error's cycle on purpose
			if _, flit := at.Units.Sending(int(e.Rank)); flit == 0 || at.Units.SendDone(int(e.Rank)) {
				t.Fatalf("rank %d is not in the middle of a packet at its error %+v: the case is not met", e.Rank, e)
			}
			cosimFaultRun(t, faultRun{name: fault, kind: "flip", sys: s.Sys, s: s, trace: trace, errs: res.Errors})
		})
	}
}
