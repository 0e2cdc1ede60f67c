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

	"github.com/hxbar/hxbar/barrierunit/regmap"
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

// hangGuard is the least time a tool run may take before it counts as hung.
const hangGuard = 10 * time.Minute

// run runs a tool in dir and returns its combined output. The timeout is a
// guard against a hung tool, not a speed limit: the lint subtests run in
// parallel, and on a loaded 2-core machine Verilator's lint of the 64-node
// design took 143 s (killed by the old 120 s guard), so every call gets at
// least hangGuard.
func run(t *testing.T, dir string, timeout time.Duration, name string, args ...string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), max(timeout, hangGuard))
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
		// Avoided channels: every switch gets the routing exception CAM
		// (E = 12 for n5.d0.up of a 4x4, the fullest case).
		testSystem("grid4x4-avoid-n5.d0.up", []int{4, 4}, func(s *hw.System) { s.Avoid = []string{"n5.d0.up"} }),
		dataTestSystem("data-grid3x5-ag-avoid-F2", []int{3, 5}, 15, "allgather", 0, 2, func(s *hw.System) { s.Avoid = []string{"n7.d1.down"}; s.FlitWidth = 32 }),
		// Tori: hx_rtile and hx_router (a ring; a mixed grid whose mesh
		// line leaves router ports unconnected).
		testSystem("ring8-torus", []int{8}, func(s *hw.System) { s.Topology = hw.TopoTorus }),
		testSystem("line3-torus-retry", []int{3}, func(s *hw.System) {
			s.Topology, s.Wrap, s.LinkRetry = hw.TopoTorus, []bool{false}, s.BufferDepth
		}),
		testSystem("torus4x3-avoid", []int{4, 3}, func(s *hw.System) {
			s.Topology, s.Wrap, s.Avoid = hw.TopoTorus, []bool{true, false}, []string{"n1.d0+.vc0"}
		}),
		testSystem("torus4x3x2-mixed-sum", []int{4, 3, 2}, func(s *hw.System) {
			s.Topology, s.Wrap, s.Op, s.BufferDepth = hw.TopoTorus, []bool{true, false, true}, "sum", 1
		}),
		// Communicators: hx_barrier_node with 2 channels (Verilator 5.006
		// flagged the node's genvar c and integer j as hidden by the unit's
		// names there, not with 3).
		testSystem("grid4x4-rows-cols-ch2", []int{4, 4}, func(s *hw.System) {
			it := 3
			s.Channels = 2
			s.Communicators = []hw.Communicator{{Name: "rows", Split: "dim:0", Iterations: &it}, {Name: "cols", Split: "dim:1"}}
		}),
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

// verilatorLintInBench are the lint systems whose Verilator lint (half a
// minute each, a third of the test) make test leaves to make bench
// (HXBAR_FULL_MATRIX): their modules are linted by Verilator at other
// sizes here (cube2-max, ring8-torus, torus4x3-avoid) and these designs
// by Icarus -Wall in make test.
var verilatorLintInBench = map[string]bool{"cube4-64": true, "torus4x3x2-mixed-sum": true}

func TestVerilatorLint(t *testing.T) {
	t.Parallel()
	vl := needTool(t, "verilator")
	inBench := 0
	for _, sys := range lintSystems() {
		if verilatorLintInBench[sys.Name] {
			inBench++
		}
	}
	if inBench != len(verilatorLintInBench) {
		t.Fatalf("%d of the %d names of verilatorLintInBench are lint systems", inBench, len(verilatorLintInBench))
	}
	for _, sys := range lintSystems() {
		t.Run(sys.Name, func(t *testing.T) {
			if verilatorLintInBench[sys.Name] && os.Getenv("HXBAR_FULL_MATRIX") == "" {
				t.Skip("make bench runs it (HXBAR_FULL_MATRIX): a 64-node or 3-D torus design, half a minute of Verilator")
			}
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
		testSystem("grid2x2-avoid-fw16", []int{2, 2}, func(s *hw.System) { s.FlitWidth = 16; s.Avoid = []string{"n0.d0.up"} }),
		// hx_rtile, hx_router: a mesh line of 2 (its routers' outer ports
		// unconnected; a 3x2 torus with a mesh line synthesizes clean too,
		// in about 4 minutes).
		testSystem("mesh2-torus-fw16", []int{2}, func(s *hw.System) {
			s.Topology, s.Wrap, s.FlitWidth = hw.TopoTorus, []bool{false}, 16
		}),
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

// tinyTB is a hand testbench for a generated hx_top: after reset it writes
// every node's configuration program (regmap.Full of the node's image) and
// the fabric's (every switch's routing table) through the APB ports, all
// ports in parallel, 2 cycles a write; the cycle after the last access is
// cycle 0. Then it drives every rank's arrival and operand (from the
// system's scenario) and prints the trace with the monitor of docs/rtl.md,
// reading the units' event registers hierarchically, until every rank has
// released.
func tinyTB(t *testing.T, s *sim.System) string {
	t.Helper()
	N := s.Topo.Nodes
	rankOf := make([]int, N)
	for n := range rankOf {
		rankOf[n] = -1
	}
	for r, n := range s.Units.NodeOf {
		rankOf[n] = r
	}
	cfg := &regmap.Config{RankOf: rankOf}
	progs, err := cfg.Programs(&regmap.Tables{Tab: s.Table, Data: s.DataTable, Op: s.Op, Addr: s.RankAddrs()})
	if err != nil {
		t.Fatal(err)
	}
	var rts [][]uint8
	for sw := 0; sw < s.Topo.Switches; sw++ {
		body, err := RouteTableBody(s.Design, sw)
		if err != nil {
			t.Fatal(err)
		}
		rt, err := DecodeRouteTable(body)
		if err != nil {
			t.Fatal(err)
		}
		rts = append(rts, rt)
	}
	// Each node's port loads its exchanger (the tile's), the fabric port
	// the crossbars.
	for n := range progs {
		progs[n] = append(progs[n], regmap.ExchangerProgram(rts[n])...)
	}
	xbars := make([][]uint8, len(rts))
	copy(xbars[s.Topo.Nodes:], rts[s.Topo.Nodes:])
	fab := regmap.FabricProgram(xbars)
	steps := len(fab)
	for _, pr := range progs {
		steps = max(steps, len(pr))
	}

	var b strings.Builder
	p := func(f string, a ...any) { fmt.Fprintf(&b, f, a...) }
	p("`timescale 1ns / 1ps\n`include \"hx_params.vh\"\nmodule tb;\n")
	p("    localparam N = `HX_NODES;\n    localparam RB = `HX_RB;\n")
	p("    reg clk = 1'b0, rst = 1'b1, run = 1'b0;\n    reg [N-1:0] arrive = {N{1'b0}};\n    reg [N*64-1:0] operand = {N*64{1'b0}};\n    reg [63:0] cyc = 64'd0;\n")
	p("    reg [N-1:0] cfg_psel = {N{1'b0}}, cfg_penable = {N{1'b0}};\n    reg [N*32-1:0] cfg_paddr = {N*32{1'b0}}, cfg_pwdata = {N*32{1'b0}};\n")
	p("    reg fab_psel = 1'b0, fab_penable = 1'b0;\n    reg [31:0] fab_paddr = 32'd0, fab_pwdata = 32'd0;\n")
	p("    wire [N*32-1:0] cfg_prdata;\n    wire [N-1:0] cfg_pready, cfg_pslverr;\n    wire [31:0] fab_prdata;\n    wire fab_pready, fab_pslverr;\n")
	p("    wire [N-1:0] released, has_rank, ev_arrive, ev_gate, ev_release, ev_send, ev_recv;\n")
	p("    wire [N*64-1:0] result, ev_value, ev_recv_value;\n    wire [N*RB-1:0] rank, ev_send_to, ev_recv_from;\n")
	p("    wire [N*6-1:0] ev_gnum, ev_send_gate, ev_recv_gate;\n")
	p("    hx_top dut (.clk(clk), .rst(rst), .arrive(arrive), .operand(operand), .released(released), .result(result),\n")
	p("        .cfg_psel(cfg_psel), .cfg_penable(cfg_penable), .cfg_pwrite(cfg_psel), .cfg_paddr(cfg_paddr), .cfg_pwdata(cfg_pwdata),\n")
	p("        .cfg_prdata(cfg_prdata), .cfg_pready(cfg_pready), .cfg_pslverr(cfg_pslverr),\n")
	p("        .fab_psel(fab_psel), .fab_penable(fab_penable), .fab_pwrite(fab_psel), .fab_paddr(fab_paddr), .fab_pwdata(fab_pwdata),\n")
	p("        .fab_prdata(fab_prdata), .fab_pready(fab_pready), .fab_pslverr(fab_pslverr));\n")
	for n := 0; n < N; n++ {
		u := "dut." + UnitPath(n, false) + "."
		p("    assign has_rank[%d] = %shas_rank; assign rank[%d*RB +: RB] = %srank;\n", n, u, n, u)
		for _, e := range []string{"ev_arrive", "ev_gate", "ev_release", "ev_send", "ev_recv"} {
			p("    assign %s[%d] = %s%s;\n", e, n, u, e)
		}
		for _, e := range []string{"ev_gnum", "ev_send_gate", "ev_recv_gate"} {
			p("    assign %s[%d*6 +: 6] = %s%s;\n", e, n, u, e)
		}
		for _, e := range []string{"ev_value", "ev_recv_value"} {
			p("    assign %s[%d*64 +: 64] = %s%s;\n", e, n, u, e)
		}
		for _, e := range []string{"ev_send_to", "ev_recv_from"} {
			p("    assign %s[%d*RB +: RB] = %s%s;\n", e, n, u, e)
		}
	}
	p("    always #5 clk = ~clk;\n")
	p("    integer t;\n")
	p("    initial begin\n")
	arrivals := s.Arrivals(1)
	for r, n := range s.Units.NodeOf {
		p("        operand[%d +: 64] = 64'h%016x;\n", 64*int(n), arrivals[r].Operand)
	}
	p("        repeat (3) @(posedge clk);\n        rst <= 1'b0;\n")
	// configuration: write k of every port, setup then access
	var last int64
	for _, a := range arrivals {
		last = max(last, a.Cycle)
	}
	for k := 0; k < steps; k++ {
		for ph := 0; ph < 2; ph++ {
			p("        @(negedge clk);\n")
			for n, pr := range progs {
				if k < len(pr) {
					p("        cfg_psel[%d] <= 1'b1; cfg_penable[%d] <= 1'b%d; cfg_paddr[%d +: 32] <= 32'h%08x; cfg_pwdata[%d +: 32] <= 32'h%08x;\n",
						n, n, ph, 32*n, pr[k].Addr, 32*n, pr[k].Data)
				} else if ph == 0 {
					p("        cfg_psel[%d] <= 1'b0; cfg_penable[%d] <= 1'b0;\n", n, n)
				}
			}
			if k < len(fab) {
				p("        fab_psel <= 1'b1; fab_penable <= 1'b%d; fab_paddr <= 32'h%08x; fab_pwdata <= 32'h%08x;\n", ph, fab[k].Addr, fab[k].Data)
			} else if ph == 0 {
				p("        fab_psel <= 1'b0; fab_penable <= 1'b0;\n")
			}
		}
	}
	p("        @(negedge clk);\n        cfg_psel <= {N{1'b0}}; cfg_penable <= {N{1'b0}}; fab_psel <= 1'b0; fab_penable <= 1'b0;\n")
	p("        run = 1'b1;   // this cycle is cycle 0\n")
	p("        for (t = 0; t <= %d; t = t + 1) begin\n", last+1)
	for r, n := range s.Units.NodeOf {
		p("            arrive[%d] <= t == %d;\n", n, arrivals[r].Cycle)
	}
	p("            @(negedge clk);\n        end\n    end\n")
	p("    always @(posedge clk) cyc <= run ? cyc + 64'd1 : 64'd0;\n")
	p("    always @(posedge clk) if (!rst && (|cfg_pslverr || fab_pslverr)) $fatal(1, \"tb: a configuration write was refused\");\n")
	p("    integer n, done = 0;\n")
	p("    always @(posedge clk) if (run && cyc != 64'd0) begin\n")
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
			if err := os.WriteFile(filepath.Join(dir, "tb.v"), []byte(tinyTB(t, s)), 0o644); err != nil {
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

			want := modelTraceWithResults(t, sys)
			if got != want {
				t.Errorf("RTL trace differs from the model\nRTL:\n%s\nmodel:\n%s", got, want)
			}
			if !strings.Contains(got, "release") {
				t.Errorf("no release in the trace:\n%s", got)
			}
		})
	}
}

// modelTraceWithResults is the model's trace of sys followed by one
// "result n<node> <value>" line per node in node order: what the plain
// testbenches of these tests print.
func modelTraceWithResults(t *testing.T, sys hw.System) string {
	t.Helper()
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
	return want.String()
}
