package verilog

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"

	"github.com/hxbar/hxbar/design"
	"github.com/hxbar/hxbar/hw"
	"github.com/hxbar/hxbar/noc"
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
	var kk [MaxDims]int
	copy(kk[:], t.Dims)

	var b bytes.Buffer
	p := func(format string, a ...any) { fmt.Fprintf(&b, format, a...) }

	comment(&b, "// ", hdr)
	comment(&b, "// ", []string{
		fmt.Sprintf("hx_top: the whole system, %d nodes (node n: hx_tile tile<n>, its barrier unit,", N),
		"its exchanger, switch n, and their channels) and the crossbars (switches " + fmt.Sprintf("%d..%d", N, t.Switches-1) + ",",
		"dimension by dimension, line by line, as noc.Topology numbers them), wired as",
		"docs/rtl.md \"Top-level wiring (for the generator)\" prescribes. Nothing is read",
		"from a file: software writes every table through the configuration ports",
		"(docs/registers.md).",
		"",
		"Ports: one entry per node in node id order (node n at bit n, or at [n*w +: w]",
		"for a w-bit field); N = `HX_NODES (hx_params.vh). cfg_* is each node's APB port,",
		"its tile's: paddr[31] = 0 its barrier unit, 1 its exchanger (switch n, at",
		"paddr[15:0]); fab_* is the fabric's APB port, the crossbars': fab_paddr[31:16]",
		"selects the crossbar, fab_paddr[15:0] is its register address (an exchanger's",
		"number is refused: pslverr). No debug pins: a testbench monitors the units'",
		"event registers hierarchically (tile<n>.g_unit.bu.ev_*, in a run of",
		"communicators tile<n>.g_node.bu.ch[c].u.ev_*).",
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
		p("    localparam integer LR   = %d;   // link-level retry: replay buffer entries per link direction (hx_link)\n", sys.LinkRetry)
		p("    localparam integer CW   = %d;   // link check code bits (hw.LinkCode)\n", hw.LinkCode.Width)
		p("    localparam [CW-1:0] CPOLY = %d'h%04X;   // its polynomial\n", hw.LinkCode.Width, hw.LinkCode.Poly)
		p("    localparam integer KW   = %d;   // link ACK and credit word code bits (hw.CountCode)\n", hw.CountCode.Width)
		p("    localparam [KW-1:0] KPOLY = %d'h%02X;   // its polynomial\n", hw.CountCode.Width, hw.CountCode.Poly)
	}
	for k := 0; k < MaxDims; k++ {
		p("    localparam integer K%d   = %d;\n", k, kk[k])
	}
	// The routing exception CAM of every switch (avoided channels only: a
	// design without them is the same text as before).
	cam := ""
	if E := CAMEntries(s.Design); E > 0 {
		p("    localparam integer E    = %d;   // routing exception entries of every switch (avoid: %s)\n", E, strings.Join(sys.Avoid, ", "))
		cam = ", .E(E)"
	}
	// The switch pipeline (switch_pipeline 1; a design without it is the
	// same text as before). cam carries every switch parameter beyond the
	// common ones, to the crossbars and to the tiles' exchangers.
	if sys.SwitchPipeline == 1 {
		p("    localparam integer SP   = 1;   // switch_pipeline: every switch registers its requests\n")
		cam += ", .SP(SP)"
	}
	p("\n")

	// Wires: every crossbar's port vectors, every tile's link ports.
	p("    // Crossbar port vectors: port p at [p] / [p*W +: W].\n")
	for sw := t.Nodes; sw < t.Switches; sw++ {
		k := t.XbarDim(sw)
		P := t.Ports(sw)
		p("    // switch %d: crossbar of dimension %d, line %d, %d ports\n", sw, k, sw-t.XbarBase[k], P)
		p("    wire [%d:0] sw%d_in_valid, sw%d_in_credit, sw%d_out_valid, sw%d_out_credit;\n", P-1, sw, sw, sw, sw)
		p("    wire [%d*W-1:0] sw%d_in_flit, sw%d_out_flit;\n", P, sw, sw)
	}
	p("\n    // Tile link ports: dimension k at [k] / [k*W +: W].\n")
	for n := 0; n < N; n++ {
		p("    wire [NDIM-1:0]   n%d_up_valid, n%d_up_credit, n%d_down_valid, n%d_down_credit;\n", n, n, n, n)
		p("    wire [NDIM*W-1:0] n%d_up_flit, n%d_down_flit;\n", n, n)
	}
	fabricDecode(p, t)
	for n := 0; n < N; n++ {
		tile(p, s, n, caps[n], plan, cam)
	}
	for sw := t.Nodes; sw < t.Switches; sw++ {
		k := t.XbarDim(sw)
		p("\n    // ---- switch %d: crossbar of dimension %d, line %d\n", sw, k, sw-t.XbarBase[k])
		p("    hx_switch #(.P(%d), .FW(FW), .B(B), .MODE(1), .NDIM(NDIM), .K0(K0), .K1(K1), .K2(K2), .K3(K3),\n", t.Ports(sw))
		p("                .K4(K4), .K5(K5),\n")
		p("                .XDIM(%d), .CB(CB)%s) sw%d (\n", k, cam, sw)
		switchPorts(p, sw, t.Nodes)
	}
	p("endmodule\n")
	return b.Bytes()
}

// fabricDecode writes the fabric port's decode: crossbar s answers when
// fab_paddr[31:16] == s; any other switch number, an exchanger's included
// (its tile's port owns it), selects nothing and the access ends with
// pslverr.
func fabricDecode(p func(string, ...any), t *noc.Topology) {
	X := t.Switches - t.Nodes
	p("\n    // ---- fabric configuration port: crossbar s at fab_paddr[31:16] == s; an\n")
	p("    // exchanger is its tile's (node port, paddr[31] = 1): the fabric port never\n")
	p("    // reaches it, and any switch number but a crossbar's is refused (pslverr).\n")
	p("    wire [%d:0] fab_sel = {", X-1)
	for sw := t.Switches - 1; sw >= t.Nodes; sw-- {
		sep := ", "
		if sw == t.Nodes {
			sep = ""
		}
		p("fab_paddr[31:16] == 16'd%d%s", sw, sep)
	}
	p("};   // bit s - %d: crossbar s\n", t.Nodes)
	p("    wire [%d:0] fab_err_v;\n", X-1)
	p("    /* verilator lint_off UNUSED */\n")
	p("    wire [%d:0] fab_rdy_v;   // every switch answers in its access cycle (pready = 1)\n", X-1)
	p("    /* verilator lint_on UNUSED */\n")
	p("    wire [%d:0] fab_rd_v;\n", 32*X-1)
	p("    reg  [31:0] fab_rd;\n")
	p("    integer fs;\n")
	p("    always @(*) begin\n")
	p("        fab_rd = 32'd0;\n")
	p("        for (fs = 0; fs < %d; fs = fs + 1)\n", X)
	p("            fab_rd = fab_rd | (fab_sel[fs] ? fab_rd_v[fs*32 +: 32] : 32'd0);\n")
	p("    end\n")
	p("    assign fab_prdata  = fab_rd;\n")
	p("    assign fab_pready  = 1'b1;\n")
	p("    assign fab_pslverr = fab_psel && fab_penable && (fab_sel == %d'd0 || |(fab_sel & fab_err_v));\n", X)
}

// tile writes node n's hx_tile instance tile<n> and the wiring of its link
// ports to the crossbars' ports.
func tile(p func(string, ...any), s *design.Episode, n int, c unitCap, plan *Channels, cam string) {
	t := s.Topo
	sys := &s.Sys
	desc := "no rank"
	if c.rank >= 0 {
		desc = fmt.Sprintf("rank %d", c.rank)
	}
	if plan != nil {
		desc = plan.describe(n)
	}
	p("\n    // ---- node %d %s, address %#x: %s\n", n, coords(t, n), t.Addr(n), desc)
	loop := ""
	if sys.Looping() || plan != nil && plan.Looping() {
		loop = ", .NBANK(2)" // two receive banks: a back-to-back loop (docs/microarchitecture.md, "Iterations")
	}
	retry := ""
	if sys.LinkRetry > 0 {
		retry = ", .LR(LR), .CW(CW), .CPOLY(CPOLY), .KW(KW), .KPOLY(KPOLY)"
	}
	if sys.UnitPipeline == 1 {
		retry += ", .UP(1)" // unit_pipeline: no forward into the gate check (a design without it is the same text as before)
	}
	if plan != nil {
		K := plan.K
		p("    hx_tile #(.NCH(%d), .MAXG(%d), .NRT(%d)%s,\n", K, c.maxG, c.nrt, loop)
	} else {
		dataP := 0
		if c.data {
			dataP = 1
		}
		p("    hx_tile #(.MAXG(%d), .NRT(%d), .DATA(%d), .NIL(%d)%s,\n", c.maxG, c.nrt, dataP, c.nil_, loop)
	}
	p("              .FW(FW), .CB(CB), .CRC_POLY(CRC_POLY), .B(B), .AB(AB), .RB(RB),\n")
	p("              .NDIM(NDIM), .K0(K0), .K1(K1), .K2(K2), .K3(K3), .K4(K4), .K5(K5)%s, .L(L)%s) %s (\n", cam, retry, TilePath(n))
	p("        .clk(clk), .rst(rst),\n")
	if plan != nil {
		K := plan.K
		p("        .arrive(arrive[%d +: %d]), .operand(operand[%d +: %d]),\n", n*K, K, 64*n*K, 64*K)
		p("        .released(released[%d +: %d]), .result(result[%d +: %d]),\n", n*K, K, 64*n*K, 64*K)
	} else {
		p("        .arrive(arrive[%d]), .operand(operand[%d +: 64]),\n", n, 64*n)
		p("        .released(released[%d]), .result(result[%d +: 64]),\n", n, 64*n)
	}
	p("        .psel(cfg_psel[%d]), .penable(cfg_penable[%d]), .pwrite(cfg_pwrite[%d]),\n", n, n, n)
	p("        .paddr(cfg_paddr[%d +: 32]), .pwdata(cfg_pwdata[%d +: 32]), .prdata(cfg_prdata[%d +: 32]),\n", 32*n, 32*n, 32*n)
	p("        .pready(cfg_pready[%d]), .pslverr(cfg_pslverr[%d]), .irq(irq[%d]),\n", n, n, n)
	p("        .up_valid(n%d_up_valid), .up_flit(n%d_up_flit), .up_credit(n%d_up_credit),\n", n, n, n)
	p("        .down_valid(n%d_down_valid), .down_flit(n%d_down_flit), .down_credit(n%d_down_credit)\n", n, n, n)
	p("    );\n")
	for k := 0; k < t.NumDims(); k++ {
		x, j := t.Crossbar(n, k)
		p("    // link %d: tile %d (exchanger port %d) <-> switch %d (dimension-%d crossbar) port %d\n", k, n, k+1, x, k, j)
		p("    assign sw%d_in_valid[%d] = n%d_up_valid[%d];\n", x, j, n, k)
		p("    assign sw%d_in_flit[%s] = n%d_up_flit[%s];\n", x, slot(j), n, slot(k))
		p("    assign n%d_up_credit[%d] = sw%d_in_credit[%d];\n", n, k, x, j)
		p("    assign n%d_down_valid[%d] = sw%d_out_valid[%d];\n", n, k, x, j)
		p("    assign n%d_down_flit[%s] = sw%d_out_flit[%s];\n", n, slot(k), x, slot(j))
		p("    assign sw%d_out_credit[%d] = n%d_down_credit[%d];\n", x, j, n, k)
	}
}

// switchPorts writes the port list of crossbar sw, reached by the fabric
// port (fab_sel bit sw - nodes).
func switchPorts(p func(string, ...any), sw, nodes int) {
	p("        .clk(clk), .rst(rst),\n")
	p("        .in_valid(sw%d_in_valid), .in_flit(sw%d_in_flit), .in_credit(sw%d_in_credit),\n", sw, sw, sw)
	p("        .out_valid(sw%d_out_valid), .out_flit(sw%d_out_flit), .out_credit(sw%d_out_credit),\n", sw, sw, sw)
	x := sw - nodes
	p("        .psel(fab_psel && fab_sel[%d]), .penable(fab_penable), .pwrite(fab_pwrite),\n", x)
	p("        .paddr(fab_paddr[15:0]), .pwdata(fab_pwdata), .prdata(fab_rd_v[%d +: 32]),\n", 32*x)
	p("        .pready(fab_rdy_v[%d]), .pslverr(fab_err_v[%d])\n", x, x)
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

// Hierarchical paths under hx_top (docs/rtl.md, "Hierarchy"), for a
// testbench that probes or injects into the design.

// TilePath is node n's hx_tile instance.
func TilePath(n int) string { return "tile" + strconv.Itoa(n) }

// UnitPath is node n's barrier unit: its hx_barrier_unit, or with
// channels (a run of communicators, UsesChannels) its hx_barrier_node,
// channel c's unit then at UnitPath(n, true) + ".ch[c].u".
func UnitPath(n int, channels bool) string {
	if channels {
		return TilePath(n) + ".g_node.bu"
	}
	return TilePath(n) + ".g_unit.bu"
}

// SwitchPath is switch sw's hx_switch instance: node sw's exchanger in its
// tile for sw < nodes, else the crossbar sw.
func SwitchPath(nodes, sw int) string {
	if sw < nodes {
		return TilePath(sw) + ".sw"
	}
	return "sw" + strconv.Itoa(sw)
}

// Link paths: the hx_link instances of node n's channels (each holds the
// hx_chan ch, and with link-level retry the hx_link_tx g_rt.tx and
// hx_link_rx g_rt.rx).
func InjectPath(n int) string { return TilePath(n) + ".inj" }

// EjectPath is node n's ejection link.
func EjectPath(n int) string { return TilePath(n) + ".ej" }

// UpPath is node n's link to its dimension-k crossbar.
func UpPath(n, k int) string { return fmt.Sprintf("%s.g_dim[%d].up", TilePath(n), k) }

// DownPath is node n's link from its dimension-k crossbar.
func DownPath(n, k int) string { return fmt.Sprintf("%s.g_dim[%d].down", TilePath(n), k) }
