package verilog

import (
	"bytes"
	"fmt"
	"sync"

	"github.com/hxbar/hxbar/barrierunit/regmap"
	"github.com/hxbar/hxbar/design"
	"github.com/hxbar/hxbar/hw"
	"github.com/hxbar/hxbar/noc"
)

// Torus RTL (docs/rtl.md, "The torus tile"): one hx_rtile per node, its
// hx_router routing by the node's coordinates and directions (written
// through the node's APB port: RouterProgram), tiles wired neighbour to
// neighbour. It builds barrier, reduction and data collective episodes on
// up to MaxDims dimensions, full duplex, with faults (illegal flits
// dropped and counted by the routers as by the switches), avoided
// links (directions reversed in the routers' PLUS registers), link-level
// retry and barrier channels, without communicators or the switch and
// unit pipelines; Check refuses the rest with one line naming the limit.

// Torus returns d's torus (or mesh) when d runs on one, else nil.
func Torus(d *design.Design) *noc.Torus {
	if d == nil {
		return nil
	}
	t, _ := d.Fabric.(*noc.Torus)
	return t
}

// grids caches the coordinate grid of a torus design by its dimensions.
var grids sync.Map // string -> *noc.Topology

// Grid is the coordinate grid of d's nodes: its hyper-crossbar, or for
// another network a hyper-crossbar of the same dimensions, whose node
// numbering, coordinates and packed addresses (Addr, what the units' route
// words and the head flits hold) the torus shares. Only its Nodes, Dims,
// Coord and Addr are meant for a torus: its switches are not the torus's.
func Grid(d *design.Design) *noc.Topology {
	if d.Topo != nil {
		return d.Topo
	}
	key := fmt.Sprint(d.Sys.Dims)
	if t, ok := grids.Load(key); ok {
		return t.(*noc.Topology)
	}
	t, err := noc.NewTopology(d.Sys.Dims)
	if err != nil {
		return nil // cannot happen: the system was validated with these dims
	}
	grids.Store(key, t)
	return t
}

// RouterOutPath is output p of node n's torus router (hx_router's g_out
// block: its owner, round-robin pointer and credit counter).
func RouterOutPath(n, p int) string { return fmt.Sprintf("%s.rt.g_out[%d]", TilePath(n), p) }

// RouterPath is node n's torus router (hx_rtile's rt: an hx_router).
func RouterPath(n int) string { return TilePath(n) + ".rt" }

// RouterLinkPath is the channel output p > 0 of node n's torus router
// drives (hx_rtile's g_out[p-1].up: an hx_link).
func RouterLinkPath(n, p int) string { return fmt.Sprintf("%s.g_out[%d].up", TilePath(n), p-1) }

// RouterProgram is node n's router configuration on a torus design d
// (regmap.RouterProgram; nil on another network): its packed address and,
// per dimension, the direction of every destination coordinate, the
// model's direction table (noc.Torus.Plus) inverted where the ring is
// routed around an avoided link (noc.Avoid.TorusReversed). The node's
// port writes it in the configuration before cycle 0.
func RouterProgram(d *design.Design, n int) regmap.Program {
	tor := Torus(d)
	if tor == nil {
		return nil
	}
	plus := make([]uint64, len(tor.Dims))
	for k, K := range tor.Dims {
		x := tor.Coord(n, k)
		for c := range K {
			p := c != x && tor.Plus(k, x, c)
			if d.Avoid != nil && d.Avoid.TorusReversed(n, k, c) {
				p = !p
			}
			if p {
				plus[k] |= 1 << c
			}
		}
	}
	return regmap.RouterProgram(uint32(design.TorusAddr(tor, n)), tor.Dims, plus)
}

// checkTorus is check's part for a torus: what the torus RTL of this stage
// does not build is refused, one field at a time.
func checkTorus(s *design.Episode) error {
	sys := &s.Sys
	limit := func(field string, v any, allowed string) error {
		return fieldErr(field, v, allowed+" for the torus RTL (hxbar sim runs it in the model)")
	}
	switch {
	case len(sys.Dims) > MaxDims:
		return limit("dims", fmt.Sprint(sys.Dims), fmt.Sprintf("1 to %d dimensions", MaxDims))
	case sys.SwitchPipeline != 0:
		return limit("switch_pipeline", sys.SwitchPipeline, "0")
	case sys.UnitPipeline != 0:
		return limit("unit_pipeline", sys.UnitPipeline, "0")
	case sys.HasCommunicators():
		return limit("communicators", len(sys.Communicators), "none")
	case Torus(s.Design) == nil:
		return fmt.Errorf("system %q: topology torus, but the design's network is not a torus", sys.Title())
	}
	return nil
}

// torusTopFile writes hx_top.v for a torus: tile<n> is node n's hx_rtile;
// output p of node n's router drives, through the tile's channel, input p
// of its neighbour in that direction (noc.Torus.Neighbor); the ports of
// outputs leaving a mesh line are tied off. The fabric port has no
// completer (each router is configured through its node's port): an
// access ends with pslverr.
func torusTopFile(s *design.Episode, hdr []string, caps []unitCap) []byte {
	sys := &s.Sys
	tor := Torus(s.Design)
	g := Grid(s.Design)
	N := tor.Nodes
	nd := len(tor.Dims)
	var kk [MaxDims]int
	copy(kk[:], tor.Dims)
	wrap := 0
	for k, w := range tor.Wrap {
		if w {
			wrap |= 1 << k
		}
	}
	var b bytes.Buffer
	p := func(format string, a ...any) { fmt.Fprintf(&b, format, a...) }
	comment(&b, "// ", hdr)
	comment(&b, "// ", []string{
		fmt.Sprintf("hx_top: the whole system, %d nodes of a %s (node n: hx_rtile tile<n>, its barrier", N, torusName(tor)),
		"unit, its router and the channels its router drives), tiles wired neighbour to",
		"neighbour as noc.Torus numbers them: output p of node n's router feeds input p of",
		"the neighbour in port p's dimension and direction (docs/rtl.md, \"The torus tile\").",
		"Ports as for the hyper-crossbar: cfg_* is each node's APB port, paddr[31] = 0 its",
		"unit, paddr[31] = 1 its router (ADDR, PLUS(k): software writes the routing,",
		"docs/registers.md \"Torus router\"); the fabric port has no completer (pslverr).",
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
	p("    input  %-14s cfg_psel, cfg_penable, cfg_pwrite,\n", rng(N))
	p("    input  %-14s cfg_paddr, cfg_pwdata,   // node n at [n*32 +: 32]\n", rng(N*32))
	p("    output %-14s cfg_prdata,\n", rng(N*32))
	p("    output %-14s cfg_pready, cfg_pslverr,\n", rng(N))
	p("    output %-14s irq,\n", rng(N))
	p("    // fabric configuration port (APB): no completer on a torus\n")
	p("    /* verilator lint_off UNUSED */\n")
	p("    input                 fab_psel, fab_penable, fab_pwrite,\n")
	p("    input  [31:0]         fab_paddr, fab_pwdata,\n")
	p("    /* verilator lint_on UNUSED */\n")
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
	p("    localparam integer RB   = %d;   // rank bits\n", sys.RankBits())
	p("    localparam integer NDIM = %d;   // dimensions\n", nd)
	p("    localparam integer NL   = %d;   // link ports per tile (4 per dimension: + VC0, + VC1, - VC0, - VC1)\n", 4*nd)
	p("    localparam integer WRAP = %d;   // bit k: dimension k is a ring (1) or a mesh line (0)\n", wrap)
	if sys.LinkRetry > 0 {
		p("    localparam integer LR   = %d;   // link-level retry: replay buffer entries per VC channel (hx_link)\n", sys.LinkRetry)
		p("    localparam integer CW   = %d;   // link check code bits (hw.LinkCode)\n", hw.LinkCode.Width)
		p("    localparam [CW-1:0] CPOLY = %d'h%04X;   // its polynomial\n", hw.LinkCode.Width, hw.LinkCode.Poly)
		p("    localparam integer KW   = %d;   // link ACK and credit word code bits (hw.CountCode)\n", hw.CountCode.Width)
		p("    localparam [KW-1:0] KPOLY = %d'h%02X;   // its polynomial\n", hw.CountCode.Width, hw.CountCode.Poly)
	}
	for k := 0; k < MaxDims; k++ {
		p("    localparam integer K%d   = %d;\n", k, kk[k])
	}
	p("\n    assign fab_prdata  = 32'd0;\n")
	p("    assign fab_pready  = 1'b1;\n")
	p("    assign fab_pslverr = fab_psel && fab_penable;\n\n")
	p("    // One clock leaf per tile, a buffer of clk that synthesis merges: Icarus\n")
	p("    // elaborates one net clocking every flip-flop of every tile in time\n")
	p("    // quadratic in their number (13 minutes for 216 tiles, 3 with leaves).\n")
	p("    wire [%d:0] tile_clk = {%d{clk}};\n\n", N-1, N)
	p("    // Tile link ports: router port j+1 at [j] / [j*W +: W]. The ports of the\n")
	p("    // outputs leaving a mesh line are not read.\n")
	p("    /* verilator lint_off UNUSED */\n")
	for n := 0; n < N; n++ {
		p("    wire [NL-1:0]   n%d_up_valid, n%d_up_credit, n%d_down_valid, n%d_down_credit;\n", n, n, n, n)
		p("    wire [NL*W-1:0] n%d_up_flit, n%d_down_flit;\n", n, n)
	}
	p("    /* verilator lint_on UNUSED */\n")
	for n := 0; n < N; n++ {
		torusTile(p, s, g, tor, n, caps[n])
	}
	p("endmodule\n")
	return b.Bytes()
}

// torusTile writes node n's hx_rtile instance and the wiring of its link
// ports: its down ports from the upstream neighbours' up ports.
func torusTile(p func(string, ...any), s *design.Episode, g *noc.Topology, tor *noc.Torus, n int, c unitCap) {
	desc := "no rank"
	if c.rank >= 0 {
		desc = fmt.Sprintf("rank %d", c.rank)
	}
	p("\n    // ---- node %d %s, address %#x: %s\n", n, coords(g, n), g.Addr(n), desc)
	extra := ""
	if s.Sys.Looping() {
		extra = ", .NBANK(2)"
	}
	dataP := 0
	if c.data {
		dataP = 1
	}
	if s.Sys.LinkRetry > 0 {
		extra += ", .LR(LR), .CW(CW), .CPOLY(CPOLY), .KW(KW), .KPOLY(KPOLY)" // link-level retry on every hx_link of the tile
	}
	p("    hx_rtile #(.MAXG(%d), .NRT(%d), .DATA(%d), .NIL(%d)%s,\n", c.maxG, c.nrt, dataP, c.nil_, extra)
	p("              .FW(FW), .CB(CB), .CRC_POLY(CRC_POLY), .B(B), .AB(AB), .RB(RB),\n")
	p("              .NDIM(NDIM), .K0(K0), .K1(K1), .K2(K2), .K3(K3), .K4(K4), .K5(K5), .WRAP(WRAP), .L(L)) %s (\n", TilePath(n))
	p("        .clk(tile_clk[%d]), .rst(rst),\n", n)
	p("        .arrive(arrive[%d]), .operand(operand[%d +: 64]),\n", n, 64*n)
	p("        .released(released[%d]), .result(result[%d +: 64]),\n", n, 64*n)
	p("        .psel(cfg_psel[%d]), .penable(cfg_penable[%d]), .pwrite(cfg_pwrite[%d]),\n", n, n, n)
	p("        .paddr(cfg_paddr[%d +: 32]), .pwdata(cfg_pwdata[%d +: 32]), .prdata(cfg_prdata[%d +: 32]),\n", 32*n, 32*n, 32*n)
	p("        .pready(cfg_pready[%d]), .pslverr(cfg_pslverr[%d]), .irq(irq[%d]),\n", n, n, n)
	p("        .up_valid(n%d_up_valid), .up_flit(n%d_up_flit), .up_credit(n%d_up_credit),\n", n, n, n)
	p("        .down_valid(n%d_down_valid), .down_flit(n%d_down_flit), .down_credit(n%d_down_credit)\n", n, n, n)
	p("    );\n")
	// Input q of node n is fed by output q of the neighbour one step the
	// other way; an output leaving a mesh line feeds nothing.
	for q := 1; q < tor.Ports(n); q++ {
		j := q - 1
		if !tor.IsChannel(n, q) {
			p("    // %s\n", tor.DescribeOutput(n, q))
			p("    assign n%d_up_credit[%d] = 1'b0;\n", n, j)
		}
		up := upstream(tor, n, q)
		if up < 0 {
			p("    assign n%d_down_valid[%d] = 1'b0;   // input %d: no neighbour feeds it (end of a mesh line)\n", n, j, q)
			p("    assign n%d_down_flit[%s] = {W{1'b0}};\n", n, slot(j))
			continue
		}
		p("    // %s\n", tor.DescribeOutput(up, q))
		p("    assign n%d_down_valid[%d] = n%d_up_valid[%d];\n", n, j, up, j)
		p("    assign n%d_down_flit[%s] = n%d_up_flit[%s];\n", n, slot(j), up, slot(j))
		p("    assign n%d_up_credit[%d] = n%d_down_credit[%d];\n", up, j, n, j)
	}
}

// upstream is the node whose output q feeds input q of node n: its
// neighbour one step against q's direction; -1 at the end of a mesh line.
func upstream(tor *noc.Torus, n, q int) int {
	k, minus := (q-1)/4, (q-1)%4 >= 2
	c, d, st := tor.Coord(n, k), tor.Dims[k], tor.Stride[k]
	from := c - 1 // q goes +: fed from coordinate c-1
	if minus {
		from = c + 1
	}
	switch {
	case from >= 0 && from < d:
	case !tor.Wrap[k]:
		return -1
	default:
		from = (from + d) % d
	}
	return n + (from-c)*st
}

// torusName is "ring of 8", "4x4 torus", "3x3 mesh" or "4x3x2 torus (wrap
// true,false,true)".
func torusName(t *noc.Torus) string {
	ring, mesh := true, true
	for _, w := range t.Wrap {
		ring = ring && w
		mesh = mesh && !w
	}
	d := dimsString(t.Dims)
	switch {
	case ring && len(t.Dims) == 1:
		return fmt.Sprintf("ring of %d", t.Dims[0])
	case ring:
		return d + " torus"
	case mesh:
		return d + " mesh"
	}
	return fmt.Sprintf("%s torus (wrap %v)", d, t.Wrap)
}
