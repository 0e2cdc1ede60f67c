package verilog

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hxbar/hxbar/barrierunit/regmap"
	"github.com/hxbar/hxbar/hw"
)

// apbOwnerTB drives hx_top of a 2-node line (exchangers 0 and 1, crossbar
// 2) through both APB ports, the node ports and the fabric port in the
// same cycles, and checks that every exchanger has one master, its tile's
// port (docs/registers.md, "Who reaches what"): the fabric port names an
// exchanger and is refused (pslverr, prdata 0, nothing written) while
// the node port's access to the same exchanger completes, and the fabric
// port still reaches the crossbar. Prints "apb_owner_tb: PASS".
func apbOwnerTB() string {
	x, e0, e1 := regmap.NodeExchanger, regmap.SwitchEntry, regmap.SwitchEntry+4
	var b strings.Builder
	p := func(f string, a ...any) { fmt.Fprintf(&b, f, a...) }
	p("`timescale 1ns / 1ps\nmodule apb_owner_tb;\n")
	p("    reg clk = 1'b0, rst = 1'b1;\n    always #5 clk = ~clk;\n")
	p("    reg  [1:0]  cfg_psel = 2'b00, cfg_penable = 2'b00, cfg_pwrite = 2'b00;\n")
	p("    reg  [63:0] cfg_paddr = 64'd0, cfg_pwdata = 64'd0;\n")
	p("    wire [63:0] cfg_prdata;\n    wire [1:0]  cfg_pready, cfg_pslverr;\n")
	p("    reg         fab_psel = 1'b0, fab_penable = 1'b0, fab_pwrite = 1'b0;\n")
	p("    reg  [31:0] fab_paddr = 32'd0, fab_pwdata = 32'd0;\n")
	p("    wire [31:0] fab_prdata;\n    wire        fab_pready, fab_pslverr;\n")
	p("    wire [1:0]  released;\n    wire [127:0] result;\n")
	p("    hx_top dut (.clk(clk), .rst(rst), .arrive(2'b00), .operand(128'd0), .released(released), .result(result),\n")
	p("        .cfg_psel(cfg_psel), .cfg_penable(cfg_penable), .cfg_pwrite(cfg_pwrite), .cfg_paddr(cfg_paddr), .cfg_pwdata(cfg_pwdata),\n")
	p("        .cfg_prdata(cfg_prdata), .cfg_pready(cfg_pready), .cfg_pslverr(cfg_pslverr),\n")
	p("        .fab_psel(fab_psel), .fab_penable(fab_penable), .fab_pwrite(fab_pwrite), .fab_paddr(fab_paddr), .fab_pwdata(fab_pwdata),\n")
	p("        .fab_prdata(fab_prdata), .fab_pready(fab_pready), .fab_pslverr(fab_pslverr));\n")
	// xfer: node port n (n = 2: none) and the fabric port (fsel) in the
	// same two cycles, setup then access; the access cycle's prdata and
	// pslverr are sampled before the edge that ends it.
	p("    reg [31:0] nrd, frd;\n    reg nerr, ferr;\n")
	p("    task xfer;\n        input [1:0] n; input nwr; input [31:0] na, nd;\n")
	p("        input fsel; input fwr; input [31:0] fa, fd;\n        begin\n")
	p("            @(negedge clk);\n")
	p("            if (n < 2) begin cfg_psel[n] = 1'b1; cfg_pwrite[n] = nwr; cfg_paddr[n*32 +: 32] = na; cfg_pwdata[n*32 +: 32] = nd; end\n")
	p("            fab_psel = fsel; fab_pwrite = fwr; fab_paddr = fa; fab_pwdata = fd;\n")
	p("            @(negedge clk);\n            if (n < 2) cfg_penable[n] = 1'b1;\n            fab_penable = fsel;\n")
	p("            #2;\n")
	p("            nrd = (n < 2) ? cfg_prdata[n*32 +: 32] : 32'd0; nerr = (n < 2) ? cfg_pslverr[n] : 1'b0;\n")
	p("            frd = fab_prdata; ferr = fab_pslverr;\n")
	p("            @(posedge clk); #1;\n")
	p("            cfg_psel = 2'b00; cfg_penable = 2'b00; fab_psel = 1'b0; fab_penable = 1'b0;\n")
	p("        end\n    endtask\n")
	p("    task expect;\n        input c; input [8*48-1:0] what;\n")
	p("        if (!c) begin $display(\"apb_owner_tb: FAIL %%0s (node %%h err %%b, fabric %%h err %%b)\", what, nrd, nerr, frd, ferr); $fatal(1, \"apb_owner_tb\"); end\n")
	p("    endtask\n")
	p("    reg [31:0] was;\n")
	p("    initial begin\n        repeat (3) @(posedge clk);\n        rst <= 1'b0;\n")
	// 1. The same cycle: node 0 writes its exchanger's entry 0, the fabric
	// names switch 0 and writes the other port into it.
	p("        xfer(0, 1, 32'h%08x, 32'd1, 1, 1, 32'h%08x, 32'd0);\n", x|e0, e0)
	p("        expect(!nerr, \"node 0 write of its exchanger refused\");\n")
	p("        expect(ferr, \"fabric write of exchanger 0 not refused\");\n")
	p("        xfer(0, 0, 32'h%08x, 0, 0, 0, 0, 0);\n", x|e0)
	p("        expect(!nerr && nrd == 32'd1, \"exchanger 0 entry 0 is not node 0's write\");\n")
	// 2. The fabric alone writes exchanger 1: refused, nothing written.
	p("        xfer(1, 0, 32'h%08x, 0, 0, 0, 0, 0);\n        was = nrd;\n", x|e1)
	p("        xfer(2, 0, 0, 0, 1, 1, 32'h%08x, ~was & 32'd1);\n", 1<<16|e1)
	p("        expect(ferr, \"fabric write of exchanger 1 not refused\");\n")
	p("        xfer(1, 0, 32'h%08x, 0, 0, 0, 0, 0);\n", x|e1)
	p("        expect(!nerr && nrd == was, \"the fabric wrote exchanger 1\");\n")
	// 3. The same cycle: node 0 reads its exchanger's ID, the fabric reads
	// switch 0's entry 1: the fabric gets no data of the node's read.
	p("        xfer(0, 0, 32'h%08x, 0, 1, 0, 32'h%08x, 0);\n", x|regmap.SwitchID, e1)
	p("        expect(!nerr && nrd != 32'd0, \"node 0 read of its exchanger's ID\");\n")
	p("        expect(ferr && frd == 32'd0, \"fabric read of exchanger 0 not refused\");\n")
	// 4. The fabric reaches the crossbar, switch 2, while node 0 writes
	// its exchanger.
	p("        xfer(0, 1, 32'h%08x, 32'd0, 1, 1, 32'h%08x, 32'd1);\n", x|e0, 2<<16|e1)
	p("        expect(!nerr && !ferr, \"node 0 and crossbar writes in the same cycle\");\n")
	p("        xfer(0, 0, 32'h%08x, 0, 1, 0, 32'h%08x, 0);\n", x|e0, 2<<16|e1)
	p("        expect(!nerr && nrd == 32'd0 && !ferr && frd == 32'd1, \"read back of both writes\");\n")
	p("        $display(\"apb_owner_tb: PASS\");\n        $finish;\n    end\nendmodule\n")
	return b.String()
}

// Every exchanger has one APB master, its tile's port (issue 22: the
// fabric port and the node port used to reach it through a plain mux, so
// a collision lost the fabric's write or returned it the node's read
// data). Icarus runs apbOwnerTB on the generated hx_top.
func TestExchangerHasOneMaster(t *testing.T) {
	t.Parallel()
	iv := needTool(t, "iverilog")
	vvp := needTool(t, "vvp")
	s := build(t, testSystem("line2", []int{2}, func(s *hw.System) { s.CRCBits = 0 }), nil)
	dir, m := generate(t, s)
	if err := os.WriteFile(filepath.Join(dir, "tb.v"), []byte(apbOwnerTB()), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := run(t, dir, 60*time.Second, iv, append([]string{"-g2005", "-Wall", "-o", "tb.vvp", "tb.v"}, m.Sources...)...)
	if err != nil || out != "" {
		t.Fatalf("iverilog (%v):\n%s", err, out)
	}
	got, err := run(t, dir, 60*time.Second, vvp, "-n", "tb.vvp")
	if err != nil || !strings.Contains(got, "apb_owner_tb: PASS") {
		t.Fatalf("vvp (%v):\n%s", err, got)
	}
}
