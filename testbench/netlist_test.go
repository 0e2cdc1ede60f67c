package testbench

import (
	"errors"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hxbar/hxbar/hw"
	"github.com/hxbar/hxbar/verilog"
	"github.com/hxbar/hxbar/verilog/synth"
)

func TestNetlistPath(t *testing.T) {
	for _, c := range []struct{ rtl, net string }{
		{"tile3.g_unit.bu", `tile3.\g_unit.bu `},
		{"tile0.g_node.bu.ch[1].u", `tile0.\g_node.bu .\ch[1].u `},
		{"tile2.g_dim[1].up", `tile2.\g_dim[1].up `},
		{"sw17.g_out[2].credit", `sw17.\g_out[2].credit `},
		{"tile5.sw", "tile5.sw"},
	} {
		if got := NetlistPath(c.rtl); got != c.net {
			t.Errorf("NetlistPath(%q) = %q, want %q", c.rtl, got, c.net)
		}
	}
}

// TestNetlistTBSameTestbench: the netlist's testbench is tb.v with only the
// monitor's hierarchical paths respelled, for a unit per node and for
// barrier channels (hx_barrier_node, a unit per channel).
func TestNetlistTBSameTestbench(t *testing.T) {
	one := hw.Default()
	ch := hw.Default()
	ch.Dims, ch.Ranks, ch.Channels = []int{2, 2}, 0, 2
	ch.Communicators = []hw.Communicator{{Name: "world", Ranks: []int{0, 1, 2, 3}}, {Name: "rows", Split: "dim:0"}}
	if err := ch.Validate(); err != nil {
		t.Fatal(err)
	}
	for _, sys := range []hw.System{one, ch} {
		dir := t.TempDir()
		s, _ := generate(t, dir, sys)
		tb, err := os.ReadFile(join(dir, TBFile))
		if err != nil {
			t.Fatal(err)
		}
		if len(sys.Communicators) > 0 != verilog.UsesChannels(s.Design) {
			t.Fatalf("%s: channels %v, want them with communicators", sys.Title(), verilog.UsesChannels(s.Design))
		}
		ntb, err := netlistTB(s.Design, tb)
		if err != nil {
			t.Fatal(err)
		}
		a, b := strings.Split(string(tb), "\n"), strings.Split(string(ntb), "\n")
		if len(a) != len(b) {
			t.Fatalf("%s: %d lines, tb.v has %d", sys.Title(), len(b), len(a))
		}
		changed := 0
		for i := range a {
			if a[i] == b[i] {
				continue
			}
			changed++
			if !strings.HasPrefix(strings.TrimSpace(a[i]), "assign ") || !strings.Contains(b[i], `\`) {
				t.Errorf("%s: line %d changed beyond a monitor path:\n  tb.v:    %s\n  netlist: %s", sys.Title(), i+1, a[i], b[i])
			}
		}
		// has_rank, rank and 16 event signals per unit; with channels a
		// node's own 3 error signals too.
		want := 18 * s.Topo.Nodes
		if verilog.UsesChannels(s.Design) {
			want = 18*s.Topo.Nodes*sys.ChannelCount() + 3*s.Topo.Nodes
		}
		if changed != want {
			t.Errorf("%s: %d monitor lines respelled, want %d", sys.Title(), changed, want)
		}
	}
}

func needYosys(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath(synth.Yosys); err != nil {
		if os.Getenv("CI") == "" {
			t.Skipf("yosys not installed (%s, or make deps); set CI=1 to make this a failure", installYosys)
		}
		t.Fatal("yosys not installed and CI is set")
	}
}

// TestCosimNetlist co-simulates the Yosys netlist of a small data
// collective (a 2x2 all-gather) against the model, cycle for cycle; then
// swaps one gate of its netlist (the AND that makes a unit's do_send, for
// an OR) and requires the co-simulation to fail. Minutes: skipped with
// -short. TestCosimNetlistDefault runs the default 4x4's netlist.
func TestCosimNetlist(t *testing.T) {
	needTools(t, Icarus)
	needYosys(t)
	if testing.Short() {
		t.Skip("gate-level co-simulation takes minutes")
	}
	t.Parallel()
	ag := hw.Default()
	ag.Name, ag.Dims, ag.Ranks, ag.Collective = "net-allgather-2x2", []int{2, 2}, 0, hw.CollAllGather
	if err := ag.Validate(); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	rep := cosimNetlist(t, dir, ag)
	if rep.Netlist.Reused {
		t.Fatalf("%s: the first run reused a netlist", ag.Title())
	}
	mutateNetlist(t, rep.Netlist.File)
	rep, err := CosimWith(ctxFor(t, time.Hour), dir, Icarus, Options{Netlist: true})
	var mm *MismatchError
	if !errors.As(err, &mm) || !rep.Netlist.Reused {
		t.Fatalf("%s with one gate of the netlist swapped: err %v, want a mismatch on the reused (edited) netlist", ag.Title(), err)
	}
	t.Logf("mutated netlist: %s", rep.Summary())
}

// TestCosimNetlistDefault co-simulates the netlist of the default design
// (the 4x4 butterfly barrier, the design 'hxbar cosim --netlist' builds
// without flags) against the model: issue 22 asks it of make test. About
// 3 minutes of CPU, most of it Yosys; skipped with -short.
func TestCosimNetlistDefault(t *testing.T) {
	needTools(t, Icarus)
	needYosys(t)
	if testing.Short() {
		t.Skip("gate-level co-simulation takes minutes")
	}
	t.Parallel()
	cosimNetlist(t, t.TempDir(), hw.Default())
}

// cosimNetlist generates sys into dir and co-simulates its netlist; the
// netlist must match the model.
func cosimNetlist(t *testing.T, dir string, sys hw.System) *Report {
	t.Helper()
	generate(t, dir, sys)
	rep, err := CosimWith(ctxFor(t, time.Hour), dir, Icarus, Options{Netlist: true})
	if err != nil {
		t.Fatalf("%s: %v", sys.Title(), err)
	}
	if !rep.OK() || rep.Netlist == nil || rep.Netlist.Cells == 0 || !strings.HasPrefix(rep.Summary(), "Netlist matches the model") {
		t.Fatalf("%s: %s", sys.Title(), rep)
	}
	t.Logf("%s: %s; synthesis %s, simulation %s (compile %s)", sys.Title(), rep.Summary(),
		rep.Netlist.SynthTime.Round(time.Second), rep.SimTime.Round(time.Second), rep.Run.CompileTime.Round(time.Second))
	return rep
}

// sendAnd is the gate that makes a barrier unit's do_send in the netlist
// (a flit leaves this cycle: the credit counter's ok AND a flit to send).
var sendAnd = regexp.MustCompile(`(?m)^(\s*assign do_send = \S+) & (.+;)$`)

// mutateNetlist swaps the AND that makes the barrier unit's do_send for an
// OR (a unit that sends without a credit or a flit). (The AND driving the
// released output is no good: the testbench reads released only at an
// episode boundary and at the end, so in a one-episode run a unit that
// raises it early passes.)
func mutateNetlist(t *testing.T, path string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	src := string(data)
	start := strings.Index(src, "hx_barrier_unit (")
	if start < 0 {
		t.Fatal("no hx_barrier_unit module in the netlist")
	}
	loc := sendAnd.FindStringSubmatchIndex(src[start:])
	if loc == nil {
		t.Fatal("no 'assign do_send = a & b;' in the netlist's hx_barrier_unit: update the mutation")
	}
	m := src[start+loc[0] : start+loc[1]]
	mut := sendAnd.ReplaceAllString(m, "$1 | $2")
	src = src[:start+loc[0]] + mut + src[start+loc[1]:]
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("netlist mutated: %q -> %q", strings.TrimSpace(m), strings.TrimSpace(mut))
}

// TestCosimNetlistFaultsRefused: a design that injects faults is refused
// with ErrNetlistFaults before any synthesis.
func TestCosimNetlistFaultsRefused(t *testing.T) {
	sys := hw.Default()
	sys.Dims, sys.Ranks = []int{2, 2}, 0
	sys.Faults = []string{"stuck:1"}
	sys.Watchdog = 200
	if err := sys.Validate(); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	generate(t, dir, sys)
	_, err := CosimWith(ctxFor(t, time.Minute), dir, Icarus, Options{Netlist: true})
	if !errors.Is(err, ErrNetlistFaults) {
		t.Fatalf("err %v, want ErrNetlistFaults", err)
	}
	if exists(join(dir, NetlistDir)) {
		t.Errorf("%s written for a refused run", NetlistDir)
	}
}

// netlistMatrix are the designs of TestCosimNetlistMatrix (the default
// 4x4 barrier is TestCosimNetlistDefault's, in make test): episodes (the example's sum, all-gather and max on the
// 4x4), every reduction op in
// episodes of one design, link-level retry at latency 2, routing around an
// avoided channel, a loop (two receive banks) and communicators on barrier
// channels (hx_barrier_node).
func netlistMatrix(t *testing.T) []hw.System {
	ep, err := hw.Load("../examples/episodes-4x4.yaml")
	if err != nil {
		t.Fatal(err)
	}
	mk := func(name string, dims []int, set func(*hw.System)) hw.System {
		s := hw.Default()
		s.Name, s.Dims, s.Ranks = name, dims, 0
		set(&s)
		if err := s.Validate(); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return s
	}
	opEp := func(op hw.OpName, algo hw.Algorithm) hw.Episode { return hw.Episode{Op: &op, Algo: &algo} }
	return []hw.System{
		ep,
		mk("net-ops-2x4", []int{2, 4}, func(s *hw.System) {
			s.Episodes = []hw.Episode{opEp(hw.OpSum, hw.AlgoButterfly), opEp(hw.OpMax, hw.AlgoDissemination),
				opEp(hw.OpMin, hw.AlgoButterflyNearFirst), opEp(hw.OpAnd, hw.AlgoDissemination),
				opEp(hw.OpOr, hw.AlgoButterfly), opEp(hw.OpXor, hw.AlgoButterfly)}
		}),
		mk("net-retry-2x2-L2", []int{2, 2}, func(s *hw.System) { s.LinkRetry, s.LinkLatency, s.Op = 4, 2, hw.OpSum }),
		mk("net-avoid-2x4", []int{2, 4}, func(s *hw.System) { s.Avoid, s.Op = []string{"n1.d0.up"}, hw.OpMax }),
		mk("net-loop-2x2", []int{2, 2}, func(s *hw.System) { s.Iterations, s.Compute, s.Jitter = 4, 2, 3 }),
		mk("net-channels-2x2", []int{2, 2}, func(s *hw.System) {
			s.Channels = 2
			s.Communicators = []hw.Communicator{{Name: "world", Ranks: []int{0, 1, 2, 3}}, {Name: "rows", Split: "dim:0"}}
		}),
	}
}

// TestCosimNetlistMatrix co-simulates the netlists of netlistMatrix
// against the model (make bench: HXBAR_FULL_MATRIX; about 20 minutes of
// CPU, most of it the 4x4 episodes and the six-op 2x4).
func TestCosimNetlistMatrix(t *testing.T) {
	if !fullMatrix() {
		t.Skip("make bench only (HXBAR_FULL_MATRIX): about 20 minutes")
	}
	needTools(t, Icarus)
	needYosys(t)
	t.Parallel()
	for _, sys := range netlistMatrix(t) {
		t.Run(sys.Title(), func(t *testing.T) {
			dir := t.TempDir()
			generate(t, dir, sys)
			rep, err := CosimWith(ctxFor(t, time.Hour), dir, Icarus, Options{Netlist: true})
			if err != nil {
				t.Fatalf("%v", err)
			}
			t.Logf("%s; synthesis %s, compile %s, simulation %s", rep.Summary(),
				rep.Netlist.SynthTime.Round(time.Second), rep.Run.CompileTime.Round(time.Second), rep.SimTime.Round(time.Second))
		})
	}
}

// TestNetlistMatrixDesigns: every design of the bench's netlist matrix is
// valid, runs in the model and generates (make test checks what make
// bench will simulate).
func TestNetlistMatrixDesigns(t *testing.T) {
	for _, sys := range netlistMatrix(t) {
		generate(t, t.TempDir(), sys)
	}
}
