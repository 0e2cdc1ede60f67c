package verilog

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hxbar/hxbar/hw"
	"github.com/hxbar/hxbar/sim"
)

// needTool returns the path of an external tool. When it is missing the
// test is skipped, except in CI (CI set), where it fails: the RTL checks
// must run there.
func needTool(t *testing.T, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("%s not found (CI is set, so the RTL checks must run; apt-get install -y iverilog verilator yosys)", name)
		}
		t.Skipf("%s not found (install iverilog, verilator and yosys to run this test)", name)
	}
	return p
}

// run runs a tool in dir and returns its combined output.
func run(t *testing.T, dir string, timeout time.Duration, name string, args ...string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &out
	start := time.Now()
	err := cmd.Run()
	t.Logf("%s %s: %.1fs", filepath.Base(name), strings.Join(args[:min(len(args), 3)], " "), time.Since(start).Seconds())
	return out.String(), err
}

// lintSystems are the systems whose generated design must be clean under
// Icarus and Verilator.
func lintSystems() []hw.System {
	return []hw.System{
		testSystem("grid4x4-barrier", []int{4, 4}, func(s *hw.System) { s.BufferDepth = 4 }),
		testSystem("grid2x3-sum-fw16", []int{2, 3}, func(s *hw.System) { s.Op = "sum"; s.FlitWidth = 16; s.LinkLatency = 3 }),
		testSystem("cube2-max", []int{2, 2, 2}, func(s *hw.System) { s.Op = "max"; s.BufferDepth = 1 }),
		testSystem("line8-r5", []int{8}, func(s *hw.System) { s.Ranks = 5; s.Op = "xor"; s.FlitWidth = 24 }),
		testSystem("cube4-64", []int{4, 4, 4}, nil),
		testSystem("hyper2x2x2x2-and", []int{2, 2, 2, 2}, func(s *hw.System) { s.Op = "and"; s.FlitWidth = 128; s.Algo = "dissemination" }),
		// Data collectives: DATA = 1 (docs/transfers.md), incl. nodes without a rank.
		dataTestSystem("data-grid4x4-ag4-F5-fw16", []int{4, 4}, 16, "allgather", 4, 5, func(s *hw.System) { s.FlitWidth = 16; s.BufferDepth = 1 }),
		dataTestSystem("data-line8-r5-ag-F1-fw128", []int{8}, 5, "allgather", 0, 1, func(s *hw.System) { s.FlitWidth = 128 }),
		dataTestSystem("data-cube2-bcast-F16", []int{2, 2, 2}, 8, "broadcast", 0, 16, func(s *hw.System) { s.LinkLatency = 3 }),
	}
}

func TestIcarusLint(t *testing.T) {
	t.Parallel()
	iv := needTool(t, "iverilog")
	for _, sys := range lintSystems() {
		t.Run(sys.Name, func(t *testing.T) {
			t.Parallel()
			dir, m := generate(t, build(t, sys, nil))
			out, err := run(t, dir, 60*time.Second, iv, append([]string{"-g2005", "-Wall", "-o", "hx_top.vvp"}, m.Sources...)...)
			if err != nil || out != "" {
				t.Errorf("iverilog -g2005 -Wall (%v):\n%s", err, out)
			}
		})
	}
}

func TestVerilatorLint(t *testing.T) {
	t.Parallel()
	vl := needTool(t, "verilator")
	for _, sys := range lintSystems() {
		t.Run(sys.Name, func(t *testing.T) {
			t.Parallel()
			dir, m := generate(t, build(t, sys, nil))
			out, err := run(t, dir, 120*time.Second, vl, append([]string{"--lint-only", "-Wall", "--top-module", TopModule}, m.Sources...)...)
			if err != nil || out != "" {
				t.Errorf("verilator --lint-only -Wall (%v):\n%s", err, out)
			}
		})
	}
}

// Synthesis is slow (minutes for 16 nodes), so only small systems: 2 nodes,
// and 3 nodes of which one has no rank, with a payload op.
func TestYosysSynth(t *testing.T) {
	t.Parallel()
	ys := needTool(t, "yosys")
	for _, sys := range []hw.System{
		testSystem("line2-barrier-fw16", []int{2}, func(s *hw.System) { s.FlitWidth = 16 }),
		testSystem("line3-r2-or-fw16", []int{3}, func(s *hw.System) { s.Ranks = 2; s.Op = "or"; s.FlitWidth = 16; s.LinkLatency = 2 }),
		dataTestSystem("data-line3-r2-ag-F3-fw16", []int{3}, 2, "allgather", 0, 3, func(s *hw.System) { s.FlitWidth = 16 }),
	} {
		t.Run(sys.Name, func(t *testing.T) {
			t.Parallel()
			dir, m := generate(t, build(t, sys, nil))
			script := fmt.Sprintf("read_verilog -defer %s; hierarchy -top %s; synth -top %s; check -assert",
				strings.Join(m.Sources, " "), TopModule, TopModule)
			out, err := run(t, dir, 120*time.Second, ys, "-q", "-l", "yosys.log", "-p", script)
			log, _ := os.ReadFile(filepath.Join(dir, "yosys.log"))
			if err != nil || strings.Contains(strings.ToLower(string(log)), "warning") {
				t.Errorf("yosys (%v):\n%s\n%s", err, out, grepLines(string(log), "arning", "rror"))
			}
		})
	}
}

func grepLines(s string, subs ...string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		for _, sub := range subs {
			if strings.Contains(l, sub) {
				out = append(out, l)
				break
			}
		}
	}
	return strings.Join(out, "\n")
}

// tinyTB is a hand testbench for a generated hx_top: it drives every rank's
// arrival and operand (from the system's scenario) and prints the trace with
// the monitor of docs/rtl.md, until every rank has released.
func tinyTB(s *sim.System) string {
	var b strings.Builder
	p := func(f string, a ...any) { fmt.Fprintf(&b, f, a...) }
	p("`timescale 1ns / 1ps\n`include \"hx_params.vh\"\nmodule tb;\n")
	p("    localparam N = `HX_NODES;\n    localparam RB = `HX_RB;\n")
	p("    reg clk = 1'b0, rst = 1'b1;\n    reg [N-1:0] arrive = {N{1'b0}};\n    reg [N*64-1:0] operand = {N*64{1'b0}};\n    reg [63:0] cyc = 64'd0;\n")
	p("    wire [N-1:0] released, has_rank, ev_arrive, ev_gate, ev_release, ev_send, ev_recv;\n")
	p("    wire [N*64-1:0] result, ev_value, ev_recv_value;\n    wire [N*RB-1:0] rank, ev_send_to, ev_recv_from;\n")
	p("    wire [N*6-1:0] ev_gnum, ev_send_gate, ev_recv_gate;\n")
	p("    hx_top dut (.clk(clk), .rst(rst), .arrive(arrive), .operand(operand), .released(released), .result(result),\n")
	p("        .has_rank(has_rank), .rank(rank), .ev_arrive(ev_arrive), .ev_gate(ev_gate), .ev_release(ev_release),\n")
	p("        .ev_send(ev_send), .ev_recv(ev_recv), .ev_gnum(ev_gnum), .ev_send_gate(ev_send_gate), .ev_recv_gate(ev_recv_gate),\n")
	p("        .ev_value(ev_value), .ev_recv_value(ev_recv_value), .ev_send_to(ev_send_to), .ev_recv_from(ev_recv_from));\n")
	p("    always #5 clk = ~clk;\n")
	p("    initial begin\n")
	for r, n := range s.Units.NodeOf {
		p("        operand[%d +: 64] = 64'h%016x;\n", 64*int(n), s.Arrivals[r].Operand)
	}
	p("        repeat (3) @(posedge clk);\n        rst <= 1'b0;\n    end\n")
	p("    always @(posedge clk) cyc <= rst ? 64'd0 : cyc + 64'd1;\n")
	p("    always @(negedge clk) begin\n")
	for r, n := range s.Units.NodeOf {
		p("        arrive[%d] <= !rst && cyc == 64'd%d;\n", n, s.Arrivals[r].Cycle)
	}
	p("    end\n")
	p("    integer n, done = 0;\n")
	p("    always @(posedge clk) if (!rst) begin\n")
	p("        for (n = 0; n < N; n = n + 1) begin\n")
	p("            if (ev_arrive[n]) $display(\"%%0d n%%0d arrive rank=%%0d value=%%016h\", cyc-1, n, rank[RB*n +: RB], ev_value[64*n +: 64]);\n")
	p("            if (ev_gate[n]) $display(\"%%0d n%%0d gate g=%%0d value=%%016h\", cyc-1, n, ev_gnum[6*n +: 6], ev_value[64*n +: 64]);\n")
	p("            if (ev_release[n]) $display(\"%%0d n%%0d release rank=%%0d value=%%016h\", cyc-1, n, rank[RB*n +: RB], ev_value[64*n +: 64]);\n")
	p("            if (ev_send[n]) $display(\"%%0d n%%0d send to=%%0d gate=%%0d\", cyc-1, n, ev_send_to[RB*n +: RB], ev_send_gate[6*n +: 6]);\n")
	p("            if (ev_recv[n]) $display(\"%%0d n%%0d recv from=%%0d gate=%%0d value=%%016h\", cyc-1, n, ev_recv_from[RB*n +: RB], ev_recv_gate[6*n +: 6], ev_recv_value[64*n +: 64]);\n")
	p("        end\n")
	p("        if ((released | ~has_rank) == {N{1'b1}}) done = done + 1;\n")
	p("        if (done == 3) begin\n")
	p("            for (n = 0; n < N; n = n + 1)\n")
	p("                if (has_rank[n]) $display(\"result n%%0d %%016h\", n, result[64*n +: 64]);\n")
	p("            $finish;\n        end\n")
	p("        if (cyc > 5000) $fatal(1, \"tb: no release after %%0d cycles\", cyc);\n")
	p("    end\nendmodule\n")
	return b.String()
}

// The generated top actually works: Icarus runs it with a tiny testbench and
// prints the model's trace, event for event, and the model's results.
func TestIcarusRunMatchesModel(t *testing.T) {
	t.Parallel()
	iv := needTool(t, "iverilog")
	vvp := needTool(t, "vvp")
	for _, sys := range []hw.System{
		testSystem("line2", []int{2}, func(s *hw.System) { s.Skew = 3 }),
		testSystem("line3-r2-sum-fw16", []int{3}, func(s *hw.System) {
			s.Ranks = 2
			s.Placement = []int{2, 0}
			s.Op = "sum"
			s.FlitWidth = 16
			s.LinkLatency = 3
			s.BufferDepth = 1
		}),
		testSystem("grid2x3-xor-r5", []int{2, 3}, func(s *hw.System) { s.Ranks = 5; s.Op = "xor"; s.FlitWidth = 24; s.LinkLatency = 2 }),
		testSystem("cube2-min-diss", []int{2, 2, 2}, func(s *hw.System) { s.Op = "min"; s.Algo = "dissemination" }),
		dataTestSystem("data-grid2x3-r5-ag-F2-fw24", []int{2, 3}, 5, "allgather", 0, 2, func(s *hw.System) { s.FlitWidth = 24; s.LinkLatency = 2; s.Skew = 7 }),
		dataTestSystem("data-line4-ag2-F4-B1", []int{4}, 4, "allgather", 2, 4, func(s *hw.System) { s.BufferDepth = 1 }),
	} {
		t.Run(sys.Name, func(t *testing.T) {
			t.Parallel()
			s := build(t, sys, nil)
			dir, m := generate(t, s)
			if err := os.WriteFile(filepath.Join(dir, "tb.v"), []byte(tinyTB(s)), 0o644); err != nil {
				t.Fatal(err)
			}
			out, err := run(t, dir, 60*time.Second, iv, append([]string{"-g2005", "-Wall", "-o", "tb.vvp", "tb.v"}, m.Sources...)...)
			if err != nil || out != "" {
				t.Fatalf("iverilog (%v):\n%s", err, out)
			}
			got, err := run(t, dir, 60*time.Second, vvp, "-n", "tb.vvp")
			if err != nil {
				t.Fatalf("vvp (%v):\n%s", err, got)
			}

			var want bytes.Buffer
			res, err := build(t, sys, nil).Run(sim.Options{Trace: &want})
			if err != nil {
				t.Fatal(err)
			}
			nodes := slices.Clone(res.Nodes)
			slices.SortFunc(nodes, func(a, b sim.NodeResult) int { return a.Node - b.Node })
			for _, nr := range nodes {
				var v uint64
				fmt.Sscan(nr.Result, &v)
				fmt.Fprintf(&want, "result n%d %016x\n", nr.Node, v)
			}
			if got != want.String() {
				t.Errorf("RTL trace differs from the model\nRTL:\n%s\nmodel:\n%s", got, want.String())
			}
			if !strings.Contains(got, "release") {
				t.Errorf("no release in the trace:\n%s", got)
			}
		})
	}
}
