package verilog

import (
	"bytes"
	"fmt"

	"github.com/hxbar/hxbar/hw"
	"github.com/hxbar/hxbar/sim"
)

// topFile writes hx_top.v: every instance spelled out, wired as docs/rtl.md
// "Top-level wiring (for the generator)" prescribes. gate[n] is node n's gate
// table body (it gives the unit's NG and NWORDS), data[n] its data table
// body (NDW; nil for a barrier: the units keep DATA = 0).
func topFile(s *sim.System, hdr []string, gate [][]uint64, data [][]uint64) []byte {
	sys := &s.Sys
	t := s.Topo
	N := t.Nodes
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
		"\"Top-level wiring (for the generator)\" prescribes. Gate tables gt_n<node>.hex and",
		"routing tables rt_s<switch>.hex are read from the simulator's working directory.",
		"",
		"Ports: one entry per node in node id order (node n at bit n, or at [n*w +: w]",
		"for a w-bit field); N = `HX_NODES, RB = `HX_RB (hx_params.vh). The ev_* outputs",
		"are the barrier units' event registers: set during cycle t+1 for an event of",
		"cycle t (docs/rtl.md, \"Monitor protocol\"). A node without a rank has",
		"has_rank = 0 and never raises an event.",
		"",
	})
	p("`timescale 1ns / 1ps\n")
	p("module hx_top (\n")
	p("    input                 clk,\n")
	p("    input                 rst,        // synchronous, active high\n")
	p("    input  %-14s arrive,     // bit n: node n's CPU arrives this cycle (node id order)\n", rng(N))
	p("    input  %-14s operand,    // node n at [n*64 +: 64]\n", rng(N*64))
	p("    output %-14s released,\n", rng(N))
	p("    output %-14s result,\n", rng(N*64))
	p("    output %-14s has_rank,\n", rng(N))
	p("    output %-14s rank,\n", rng(N*RB))
	p("    output %-14s ev_arrive, ev_gate, ev_release, ev_send, ev_recv,\n", rng(N))
	p("    output %-14s ev_gnum, ev_send_gate, ev_recv_gate,\n", rng(N*hw.GateBits))
	p("    output %-14s ev_value, ev_recv_value,\n", rng(N*64))
	p("    output %-14s ev_send_to, ev_recv_from\n", rng(N*RB))
	p(");\n")
	p("    localparam integer FW   = %d;   // flit data width\n", sys.FlitWidth)
	p("    localparam integer W    = FW + 2;   // flit: {head, tail, data[FW-1:0]}\n")
	p("    localparam integer B    = %d;   // buffer depth (every FIFO, every credit counter)\n", sys.BufferDepth)
	p("    localparam integer L    = %d;   // network link latency\n", sys.LinkLatency)
	p("    localparam integer OP   = %d;   // reduction op: %s\n", int(s.Op), s.Op)
	p("    localparam integer AB   = %d;   // node address bits\n", sys.AddrBits())
	p("    localparam integer RB   = %d;   // rank bits\n", RB)
	p("    localparam integer NDIM = %d;   // dimensions\n", nd)
	for k := 0; k < 4; k++ {
		p("    localparam integer K%d   = %d;\n", k, k4[k])
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

	for n := 0; n < N; n++ {
		g := gate[n]
		ng, nwords := 0, len(g)
		desc := "no rank"
		if g[0]>>gtValid&1 != 0 {
			ng = int(g[0] >> gtGatesPos & 63)
			desc = fmt.Sprintf("rank %d", uint32(g[0]))
		}
		p("\n    // ---- node %d %s, address %#x: %s\n", n, coords(t, n), t.Addr(n), desc)
		p("    hx_barrier_unit #(.FW(FW), .B(B), .OP(OP), .AB(AB), .RB(RB), .NG(%d), .NWORDS(%d),\n", ng, nwords)
		if data != nil {
			p("                      .TABLE(\"%s\"),\n", GateTableFile(n))
			p("                      .DATA(1), .IF(%d), .NDW(%d), .DTABLE(\"%s\")) bu%d (\n", s.DataTable.ItemFlits, len(data[n]), DataTableFile(n), n)
		} else {
			p("                      .TABLE(\"%s\")) bu%d (\n", GateTableFile(n), n)
		}
		p("        .clk(clk), .rst(rst),\n")
		p("        .arrive(arrive[%d]), .operand(operand[%d +: 64]),\n", n, 64*n)
		p("        .released(released[%d]), .result(result[%d +: 64]),\n", n, 64*n)
		p("        .inj_valid(n%d_inj_valid), .inj_flit(n%d_inj_flit), .inj_credit(n%d_inj_credit),\n", n, n, n)
		p("        .ej_valid(n%d_ej_valid), .ej_flit(n%d_ej_flit), .ej_credit(n%d_ej_credit),\n", n, n, n)
		p("        .has_rank(has_rank[%d]), .rank(rank[%d +: RB]),\n", n, RB*n)
		p("        .ev_arrive(ev_arrive[%d]), .ev_gate(ev_gate[%d]), .ev_release(ev_release[%d]),\n", n, n, n)
		const gb = hw.GateBits // the unit's gate registers
		p("        .ev_gnum(ev_gnum[%d +: %d]), .ev_value(ev_value[%d +: 64]),\n", gb*n, gb, 64*n)
		p("        .ev_send(ev_send[%d]), .ev_send_to(ev_send_to[%d +: RB]), .ev_send_gate(ev_send_gate[%d +: %d]),\n", n, RB*n, gb*n, gb)
		p("        .ev_recv(ev_recv[%d]), .ev_recv_from(ev_recv_from[%d +: RB]), .ev_recv_gate(ev_recv_gate[%d +: %d]),\n", n, RB*n, gb*n, gb)
		p("        .ev_recv_value(ev_recv_value[%d +: 64])\n", 64*n)
		p("    );\n")
		p("    hx_switch #(.P(%d), .FW(FW), .B(B), .MODE(0), .NDIM(NDIM), .K0(K0), .K1(K1), .K2(K2), .K3(K3),\n", t.Ports(n))
		p("                .TABLE(\"%s\")) sw%d (\n", RouteTableFile(n), n)
		switchPorts(p, n)
		p("    // injection: unit -> exchanger port 0; ejection: exchanger port 0 -> unit (L = 1)\n")
		p("    hx_chan #(.W(W), .L(1)) inj%d (\n", n)
		p("        .clk(clk), .rst(rst),\n")
		p("        .in_valid(n%d_inj_valid), .in_flit(n%d_inj_flit),\n", n, n)
		p("        .out_valid(sw%d_in_valid[0]), .out_flit(sw%d_in_flit[0 +: W]),\n", n, n)
		p("        .crd_in(sw%d_in_credit[0]), .crd_out(n%d_inj_credit)\n", n, n)
		p("    );\n")
		p("    hx_chan #(.W(W), .L(1)) ej%d (\n", n)
		p("        .clk(clk), .rst(rst),\n")
		p("        .in_valid(sw%d_out_valid[0]), .in_flit(sw%d_out_flit[0 +: W]),\n", n, n)
		p("        .out_valid(n%d_ej_valid), .out_flit(n%d_ej_flit),\n", n, n)
		p("        .crd_in(n%d_ej_credit), .crd_out(sw%d_out_credit[0])\n", n, n)
		p("    );\n")
		for k := 0; k < nd; k++ {
			x, j := t.Crossbar(n, k)
			e := k + 1
			p("    // exchanger port %d <-> switch %d (dimension-%d crossbar) port %d, latency L\n", e, x, k, j)
			p("    hx_chan #(.W(W), .L(L)) up%d_%d (\n", n, k)
			p("        .clk(clk), .rst(rst),\n")
			p("        .in_valid(sw%d_out_valid[%d]), .in_flit(sw%d_out_flit[%s]),\n", n, e, n, slot(e))
			p("        .out_valid(sw%d_in_valid[%d]), .out_flit(sw%d_in_flit[%s]),\n", x, j, x, slot(j))
			p("        .crd_in(sw%d_in_credit[%d]), .crd_out(sw%d_out_credit[%d])\n", x, j, n, e)
			p("    );\n")
			p("    hx_chan #(.W(W), .L(L)) down%d_%d (\n", n, k)
			p("        .clk(clk), .rst(rst),\n")
			p("        .in_valid(sw%d_out_valid[%d]), .in_flit(sw%d_out_flit[%s]),\n", x, j, x, slot(j))
			p("        .out_valid(sw%d_in_valid[%d]), .out_flit(sw%d_in_flit[%s]),\n", n, e, n, slot(e))
			p("        .crd_in(sw%d_in_credit[%d]), .crd_out(sw%d_out_credit[%d])\n", n, e, x, j)
			p("    );\n")
		}
	}

	for sw := t.Nodes; sw < t.Switches; sw++ {
		k := t.XbarDim(sw)
		p("\n    // ---- switch %d: crossbar of dimension %d, line %d\n", sw, k, sw-t.XbarBase[k])
		p("    hx_switch #(.P(%d), .FW(FW), .B(B), .MODE(1), .NDIM(NDIM), .K0(K0), .K1(K1), .K2(K2), .K3(K3),\n", t.Ports(sw))
		p("                .XDIM(%d), .TABLE(\"%s\")) sw%d (\n", k, RouteTableFile(sw), sw)
		switchPorts(p, sw)
	}
	p("endmodule\n")
	return b.Bytes()
}

// switchPorts writes the port list of switch instance sw.
func switchPorts(p func(string, ...any), sw int) {
	p("        .clk(clk), .rst(rst),\n")
	p("        .in_valid(sw%d_in_valid), .in_flit(sw%d_in_flit), .in_credit(sw%d_in_credit),\n", sw, sw, sw)
	p("        .out_valid(sw%d_out_valid), .out_flit(sw%d_out_flit), .out_credit(sw%d_out_credit)\n", sw, sw, sw)
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
