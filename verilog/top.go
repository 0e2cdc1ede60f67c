package verilog

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/hxbar/hxbar/design"
	"github.com/hxbar/hxbar/hw"
)

// topFile writes hx_top.v: every instance spelled out, wired as docs/rtl.md
// "Top-level wiring (for the generator)" prescribes. gate[n] is node n's gate
// table body (it gives the unit's NG and NWORDS), data[n] its data table
// body (NDW; nil for a barrier: the units keep DATA = 0).
func topFile(s *design.Episode, hdr []string, caps []unitCap, plan *Channels) []byte {
	sys := &s.Sys
	t := s.Topo
	N := t.Nodes
	NS := N // CPU slots: a node's channels side by side
	if plan != nil {
		NS = N * plan.K
	}
	RB := sys.RankBits()
	nd := t.NumDims()
	var k4 [4]int
	copy(k4[:], t.Dims)

	var b bytes.Buffer
	p := func(format string, a ...any) { fmt.Fprintf(&b, format, a...) }

	comment(&b, "// ", hdr)
	comment(&b, "// ", []string{
		fmt.Sprintf("hx_top: the whole system, %d nodes (node n: hx_barrier_unit bu<n> and", N),
		"exchanger sw<n>, switch n) and the crossbars (switches " + fmt.Sprintf("%d..%d", N, t.Switches-1) + ", dimension",
		"by dimension, line by line, as noc.Topology numbers them), wired as docs/rtl.md",
		"\"Top-level wiring (for the generator)\" prescribes. Nothing is read from a file:",
		"software writes every table through the configuration ports (docs/registers.md).",
		"",
		"Ports: one entry per node in node id order (node n at bit n, or at [n*w +: w]",
		"for a w-bit field); N = `HX_NODES (hx_params.vh). cfg_* is each node's APB port:",
		"paddr[31] = 0 its barrier unit, 1 its exchanger (switch n, at paddr[15:0]);",
		"fab_* is the fabric's APB port: fab_paddr[31:16] selects the switch, fab_paddr[15:0]",
		"is the switch's register address. No debug pins:",
		"a testbench monitors the units' event registers hierarchically (bu<n>.ev_*).",
		"",
	})
	p("`timescale 1ns / 1ps\n")
	p("module hx_top (\n")
	p("    input                 clk,\n")
	p("    input                 rst,        // synchronous, active high\n")
	if plan != nil {
		p("    // CPU side: one slot per node and channel, node n channel c at s = n*%d + c\n", plan.K)
		p("    input  %-14s arrive,     // bit s: slot s's CPU arrives this cycle\n", rng(NS))
		p("    input  %-14s operand,    // slot s at [s*64 +: 64]\n", rng(NS*64))
	} else {
		p("    input  %-14s arrive,     // bit n: node n's CPU arrives this cycle (node id order)\n", rng(N))
		p("    input  %-14s operand,    // node n at [n*64 +: 64]\n", rng(N*64))
	}
	p("    output %-14s released,\n", rng(NS))
	p("    output %-14s result,\n", rng(NS*64))
	p("    // per-node configuration ports (APB, docs/registers.md)\n")
	p("    input  %-14s cfg_psel, cfg_penable, cfg_pwrite,\n", rng(N))
	p("    input  %-14s cfg_paddr, cfg_pwdata,   // node n at [n*32 +: 32]\n", rng(N*32))
	p("    output %-14s cfg_prdata,\n", rng(N*32))
	p("    output %-14s cfg_pready, cfg_pslverr,\n", rng(N))
	p("    output %-14s irq,        // node n's unit (its channels' OR): docs/registers.md, \"Interrupt\"\n", rng(N))
	p("    // fabric configuration port (APB): the switches' routing tables\n")
	p("    input                 fab_psel, fab_penable, fab_pwrite,\n")
	p("    input  [31:0]         fab_paddr, fab_pwdata,\n")
	p("    output [31:0]         fab_prdata,\n")
	p("    output                fab_pready, fab_pslverr\n")
	p(");\n")
	p("    localparam integer FW   = %d;   // flit data width\n", sys.FlitWidth)
	p("    localparam integer CB   = %d;   // check-code sideband bits (crc_bits: 0 or %d)\n", sys.CRCBits, hw.PacketCodeBits)
	p("    localparam [31:0]  CRC_POLY = 32'h%08X;   // the packet code's polynomial (hw.PacketCode)\n", hw.PacketCode.Poly)
	p("    localparam integer W    = FW + 2 + CB;   // flit: {head, tail, crc[CB-1:0], data[FW-1:0]}\n")
	p("    localparam integer B    = %d;   // buffer depth (every FIFO, every credit counter)\n", sys.BufferDepth)
	p("    localparam integer L    = %d;   // network link latency\n", sys.LinkLatency)
	p("    localparam integer AB   = %d;   // node address bits\n", sys.AddrBits())
	p("    localparam integer RB   = %d;   // rank bits\n", RB)
	p("    localparam integer NDIM = %d;   // dimensions\n", nd)
	if sys.LinkRetry > 0 {
		p("    localparam integer LR   = %d;   // link-level retry: replay buffer entries per link direction\n", sys.LinkRetry)
		p("    localparam integer CW   = %d;   // link check code bits (hw.LinkCode)\n", hw.LinkCode.Width)
		p("    localparam [CW-1:0] CPOLY = %d'h%04X;   // its polynomial\n", hw.LinkCode.Width, hw.LinkCode.Poly)
		p("    localparam integer LS   = $clog2((LR > B ? LR : B) + 1);   // link sequence number bits\n")
		p("    localparam integer LW   = W + LS + CW;   // on the wire: {chk[CW-1:0], seq, flit}\n")
		p("    localparam integer LL   = (L < 2) ? 2 : L;   // a retrying link's latency (its check reads a register)\n")
	}
	for k := 0; k < 4; k++ {
		p("    localparam integer K%d   = %d;\n", k, k4[k])
	}
	// The routing exception CAM of every switch (avoided channels only: a
	// design without them is the same text as before).
	cam := ""
	if E := CAMEntries(s.Design); E > 0 {
		p("    localparam integer E    = %d;   // routing exception entries of every switch (avoid: %s)\n", E, strings.Join(sys.Avoid, ", "))
		cam = ", .E(E)"
	}
	p("\n")

	// Wires: every switch's port vectors, every node's unit channels.
	p("    // Switch port vectors: port p at [p] / [p*W +: W].\n")
	for sw := 0; sw < t.Switches; sw++ {
		P := t.Ports(sw)
		what := fmt.Sprintf("exchanger of node %d %s", sw, coords(t, sw))
		if t.IsCrossbar(sw) {
			k := t.XbarDim(sw)
			what = fmt.Sprintf("crossbar of dimension %d, line %d", k, sw-t.XbarBase[k])
		}
		p("    // switch %d: %s, %d ports\n", sw, what, P)
		p("    wire [%d:0] sw%d_in_valid, sw%d_in_credit, sw%d_out_valid, sw%d_out_credit;\n", P-1, sw, sw, sw, sw)
		p("    wire [%d*W-1:0] sw%d_in_flit, sw%d_out_flit;\n", P, sw, sw)
	}
	p("\n    // Barrier unit <-> injection / ejection channel.\n")
	for n := 0; n < N; n++ {
		p("    wire         n%d_inj_valid, n%d_inj_credit, n%d_ej_valid, n%d_ej_credit;\n", n, n, n, n)
		p("    wire [W-1:0] n%d_inj_flit, n%d_ej_flit;\n", n, n)
	}

	// The fabric port: switch s answers when fab_paddr[31:16] == s.
	p("\n    // ---- fabric configuration port: switch s at fab_paddr[31:16] == s\n")
	p("    wire [%d:0] fab_sel = {", t.Switches-1)
	for sw := t.Switches - 1; sw >= 0; sw-- {
		sep := ", "
		if sw == 0 {
			sep = ""
		}
		p("fab_paddr[31:16] == 16'd%d%s", sw, sep)
	}
	p("};\n")
	p("    wire [%d:0] fab_err_v;\n", t.Switches-1)
	p("    /* verilator lint_off UNUSED */\n")
	p("    wire [%d:0] fab_rdy_v;   // every switch answers in its access cycle (pready = 1)\n", t.Switches-1)
	p("    /* verilator lint_on UNUSED */\n")
	p("    wire [%d:0] fab_rd_v;\n", 32*t.Switches-1)
	p("    reg  [31:0] fab_rd;\n")
	p("    integer fs;\n")
	p("    always @(*) begin\n")
	p("        fab_rd = 32'd0;\n")
	p("        for (fs = 0; fs < %d; fs = fs + 1)\n", t.Switches)
	p("            fab_rd = fab_rd | (fab_sel[fs] ? fab_rd_v[fs*32 +: 32] : 32'd0);\n")
	p("    end\n")
	p("    assign fab_prdata  = fab_rd;\n")
	p("    assign fab_pready  = 1'b1;\n")
	p("    assign fab_pslverr = fab_psel && fab_penable && (fab_sel == %d'd0 || |(fab_sel & fab_err_v));\n", t.Switches)
	for n := 0; n < N; n++ {
		c := caps[n]
		desc := "no rank"
		if c.rank >= 0 {
			desc = fmt.Sprintf("rank %d", c.rank)
		}
		if plan != nil {
			desc = plan.describe(n)
		}
		p("\n    // ---- node %d %s, address %#x: %s\n", n, coords(t, n), t.Addr(n), desc)
		dataP := 0
		if c.data {
			dataP = 1
		}
		// Node n's port: paddr[31] = 0 the unit, 1 the node's exchanger.
		a31 := 32*n + 31
		p("    wire        n%d_usel = cfg_psel[%d] && !cfg_paddr[%d];   // node port: the unit\n", n, n, a31)
		p("    wire        n%d_xsel = cfg_psel[%d] && cfg_paddr[%d];    // node port: the exchanger\n", n, n, a31)
		p("    wire [31:0] n%d_urd;\n", n)
		p("    wire        n%d_urdy, n%d_uerr;\n", n, n)
		p("    assign cfg_prdata[%d +: 32] = cfg_paddr[%d] ? fab_rd_v[%d +: 32] : n%d_urd;\n", 32*n, a31, 32*n, n)
		p("    assign cfg_pslverr[%d] = cfg_paddr[%d] ? fab_err_v[%d] : n%d_uerr;\n", n, a31, n, n)
		p("    assign cfg_pready[%d] = cfg_paddr[%d] ? fab_rdy_v[%d] : n%d_urdy;\n", n, a31, n, n)
		loop := ""
		if s.Sys.Looping() || plan != nil && plan.Looping() {
			loop = ", .NBANK(2)" // two receive banks: a back-to-back loop (docs/microarchitecture.md, "Iterations")
		}
		if plan != nil {
			K := plan.K
			p("    hx_barrier_node #(.NCH(%d), .FW(FW), .B(B), .AB(AB), .RB(RB), .MAXG(%d), .NRT(%d),\n", K, c.maxG, c.nrt)
			p("                      .NDIM(NDIM), .K0(K0), .K1(K1), .K2(K2), .K3(K3), .CB(CB), .CRC_POLY(CRC_POLY)%s) bu%d (\n", loop, n)
			p("        .clk(clk), .rst(rst),\n")
			p("        .arrive(arrive[%d +: %d]), .operand(operand[%d +: %d]),\n", n*K, K, 64*n*K, 64*K)
			p("        .released(released[%d +: %d]), .result(result[%d +: %d]),\n", n*K, K, 64*n*K, 64*K)
		} else {
			p("    hx_barrier_unit #(.FW(FW), .B(B), .AB(AB), .RB(RB), .MAXG(%d), .NRT(%d), .DATA(%d), .NIL(%d),\n", c.maxG, c.nrt, dataP, c.nil_)
			p("                      .NDIM(NDIM), .K0(K0), .K1(K1), .K2(K2), .K3(K3), .CB(CB), .CRC_POLY(CRC_POLY)%s) bu%d (\n", loop, n)
			p("        .clk(clk), .rst(rst),\n")
			p("        .arrive(arrive[%d]), .operand(operand[%d +: 64]),\n", n, 64*n)
			p("        .released(released[%d]), .result(result[%d +: 64]),\n", n, 64*n)
		}
		p("        .inj_valid(n%d_inj_valid), .inj_flit(n%d_inj_flit), .inj_credit(n%d_inj_credit),\n", n, n, n)
		p("        .ej_valid(n%d_ej_valid), .ej_flit(n%d_ej_flit), .ej_credit(n%d_ej_credit),\n", n, n, n)
		p("        .psel(n%d_usel), .penable(cfg_penable[%d]), .pwrite(cfg_pwrite[%d]),\n", n, n, n)
		p("        .paddr(cfg_paddr[%d +: 32]), .pwdata(cfg_pwdata[%d +: 32]), .prdata(n%d_urd),\n", 32*n, 32*n, n)
		p("        .pready(n%d_urdy), .pslverr(n%d_uerr), .irq(irq[%d])\n", n, n, n)
		p("    );\n")
		p("    hx_switch #(.P(%d), .FW(FW), .B(B), .MODE(0), .NDIM(NDIM), .K0(K0), .K1(K1), .K2(K2), .K3(K3), .CB(CB)%s) sw%d (\n", t.Ports(n), cam, n)
		switchPorts(p, n, true)
		p("    // injection: unit -> exchanger port 0; ejection: exchanger port 0 -> unit (L = 1)\n")
		channel(p, sys.LinkRetry, fmt.Sprintf("inj%d", n), "1",
			fmt.Sprintf("n%d_inj_valid", n), fmt.Sprintf("n%d_inj_flit", n),
			fmt.Sprintf("sw%d_in_valid[0]", n), fmt.Sprintf("sw%d_in_flit[0 +: W]", n),
			fmt.Sprintf("sw%d_in_credit[0]", n), fmt.Sprintf("n%d_inj_credit", n))
		channel(p, sys.LinkRetry, fmt.Sprintf("ej%d", n), "1",
			fmt.Sprintf("sw%d_out_valid[0]", n), fmt.Sprintf("sw%d_out_flit[0 +: W]", n),
			fmt.Sprintf("n%d_ej_valid", n), fmt.Sprintf("n%d_ej_flit", n),
			fmt.Sprintf("n%d_ej_credit", n), fmt.Sprintf("sw%d_out_credit[0]", n))
		for k := 0; k < nd; k++ {
			x, j := t.Crossbar(n, k)
			e := k + 1
			p("    // exchanger port %d <-> switch %d (dimension-%d crossbar) port %d, latency L\n", e, x, k, j)
			channel(p, sys.LinkRetry, fmt.Sprintf("up%d_%d", n, k), "L",
				fmt.Sprintf("sw%d_out_valid[%d]", n, e), fmt.Sprintf("sw%d_out_flit[%s]", n, slot(e)),
				fmt.Sprintf("sw%d_in_valid[%d]", x, j), fmt.Sprintf("sw%d_in_flit[%s]", x, slot(j)),
				fmt.Sprintf("sw%d_in_credit[%d]", x, j), fmt.Sprintf("sw%d_out_credit[%d]", n, e))
			channel(p, sys.LinkRetry, fmt.Sprintf("down%d_%d", n, k), "L",
				fmt.Sprintf("sw%d_out_valid[%d]", x, j), fmt.Sprintf("sw%d_out_flit[%s]", x, slot(j)),
				fmt.Sprintf("sw%d_in_valid[%d]", n, e), fmt.Sprintf("sw%d_in_flit[%s]", n, slot(e)),
				fmt.Sprintf("sw%d_in_credit[%d]", n, e), fmt.Sprintf("sw%d_out_credit[%d]", x, j))
		}
	}

	for sw := t.Nodes; sw < t.Switches; sw++ {
		k := t.XbarDim(sw)
		p("\n    // ---- switch %d: crossbar of dimension %d, line %d\n", sw, k, sw-t.XbarBase[k])
		p("    hx_switch #(.P(%d), .FW(FW), .B(B), .MODE(1), .NDIM(NDIM), .K0(K0), .K1(K1), .K2(K2), .K3(K3),\n", t.Ports(sw))
		p("                .XDIM(%d), .CB(CB)%s) sw%d (\n", k, cam, sw)
		switchPorts(p, sw, false)
	}
	p("endmodule\n")
	return b.Bytes()
}

// channel writes one link direction: the hx_chan instance name (latency
// lat, "1" or "L") from the output (inV, inF) to the downstream FIFO (outV,
// outF), with the credit from crdIn (the FIFO's pop) to crdOut (the
// output's counter). With link-level retry (R > 0, docs/reliability.md)
// hx_link_tx name_tx and hx_link_rx name_rx wrap it, so that the wire, the
// hx_chan's in_valid / in_flit where a testbench injects faults, carries
// {chk, seq, flit}, its credit path the receiver's credit word, and the
// ACK word returns beside it; the channel takes max(lat, 2) cycles (2 for
// "1", LL for "L").
func channel(p func(string, ...any), R int, name, lat, inV, inF, outV, outF, crdIn, crdOut string) {
	if R == 0 {
		p("    hx_chan #(.W(W), .L(%s)) %s (\n", lat, name)
		p("        .clk(clk), .rst(rst),\n")
		p("        .in_valid(%s), .in_flit(%s),\n", inV, inF)
		p("        .out_valid(%s), .out_flit(%s),\n", outV, outF)
		p("        .crd_in(%s), .crd_out(%s)\n", crdIn, crdOut)
		p("    );\n")
		return
	}
	if lat == "1" {
		lat = "2"
	} else {
		lat = "LL"
	}
	p("    wire          %s_tv, %s_rv;\n", name, name)
	p("    wire [LW-1:0] %s_tf, %s_rf;\n", name, name)
	p("    wire [LS:0]   %s_ack, %s_cw, %s_cr;\n", name, name, name)
	p("    hx_link_tx #(.W(W), .L(%s), .R(LR), .B(B), .CW(CW), .CPOLY(CPOLY)) %s_tx (\n", lat, name)
	p("        .clk(clk), .rst(rst), .in_valid(%s), .in_flit(%s),\n", inV, inF)
	p("        .out_valid(%s_tv), .out_flit(%s_tf), .ack(%s_ack),\n", name, name, name)
	p("        .crd_in(%s_cr), .crd_out(%s)\n", name, crdOut)
	p("    );\n")
	p("    hx_chan #(.W(LW), .L(%s), .C(LS + 1)) %s (\n", lat, name)
	p("        .clk(clk), .rst(rst),\n")
	p("        .in_valid(%s_tv), .in_flit(%s_tf),\n", name, name)
	p("        .out_valid(%s_rv), .out_flit(%s_rf),\n", name, name)
	p("        .crd_in(%s_cw), .crd_out(%s_cr)\n", name, name)
	p("    );\n")
	p("    hx_link_rx #(.W(W), .L(%s), .R(LR), .B(B), .CW(CW), .CPOLY(CPOLY)) %s_rx (\n", lat, name)
	p("        .clk(clk), .rst(rst), .in_valid(%s_rv), .in_flit(%s_rf),\n", name, name)
	p("        .out_valid(%s), .out_flit(%s), .ack(%s_ack),\n", outV, outF, name)
	p("        .pop(%s), .crd(%s_cw)\n", crdIn, name)
	p("    );\n")
}

// switchPorts writes the port list of switch instance sw. An exchanger
// (node) takes its configuration from its node's port when that port
// selects it (paddr[31] = 1), else from the fabric port.
func switchPorts(p func(string, ...any), sw int, node bool) {
	p("        .clk(clk), .rst(rst),\n")
	p("        .in_valid(sw%d_in_valid), .in_flit(sw%d_in_flit), .in_credit(sw%d_in_credit),\n", sw, sw, sw)
	p("        .out_valid(sw%d_out_valid), .out_flit(sw%d_out_flit), .out_credit(sw%d_out_credit),\n", sw, sw, sw)
	if node {
		x := fmt.Sprintf("n%d_xsel", sw)
		p("        .psel(%s || (fab_psel && fab_sel[%d])), .penable(%s ? cfg_penable[%d] : fab_penable),\n", x, sw, x, sw)
		p("        .pwrite(%s ? cfg_pwrite[%d] : fab_pwrite), .paddr(%s ? cfg_paddr[%d +: 16] : fab_paddr[15:0]),\n", x, sw, x, 32*sw)
		p("        .pwdata(%s ? cfg_pwdata[%d +: 32] : fab_pwdata), .prdata(fab_rd_v[%d +: 32]),\n", x, 32*sw, 32*sw)
	} else {
		p("        .psel(fab_psel && fab_sel[%d]), .penable(fab_penable), .pwrite(fab_pwrite),\n", sw)
		p("        .paddr(fab_paddr[15:0]), .pwdata(fab_pwdata), .prdata(fab_rd_v[%d +: 32]),\n", 32*sw)
	}
	p("        .pready(fab_rdy_v[%d]), .pslverr(fab_err_v[%d])\n", sw, sw)
	p("    );\n")
}

// rng is a vector range "[w-1:0]".
func rng(w int) string { return fmt.Sprintf("[%d:0]", w-1) }

// slot is the part-select of port p in a flit vector.
func slot(p int) string {
	if p == 0 {
		return "0 +: W"
	}
	if p == 1 {
		return "W +: W"
	}
	return fmt.Sprintf("%d*W +: W", p)
}
