// hx_router: the router of one node of a torus, a mesh or a mix of the two
// (noc.Torus; docs/microarchitecture.md, "Torus router"). Ports: 0 is the
// local endpoint; for dimension k, port 1+4k is "+ VC0", 1+4k+1 "+ VC1",
// 1+4k+2 "- VC0", 1+4k+3 "- VC1". Output p > 0 feeds input p of the
// neighbour in that direction (the generator wires it); at the end of a
// mesh line the outputs that would leave the line are left unconnected
// (their credits never return) and no route takes them.
//
// The switching is hx_switch's, port for port: per input a B-deep FIFO
// (hx_fifo), per output an owner, a round-robin pointer and a credit
// counter (hx_credit), one flit per output and cycle. Two things differ:
//
// - Routing is by coordinates, not tables, and configured through the APB
//   port (docs/registers.md, "Torus router"): ADDR holds the router's own
//   packed address (its coordinates, packed as a head's destination), and
//   PLUS(k) per dimension the direction of every destination coordinate
//   (hx_router_dir), both written by the node's configuration program
//   before cycle 0; the dimension sizes and wrap flags are parameters, so
//   every router of a network is the same module. Dimension order,
//   minimal: the first dimension, from 0 up, whose coordinate differs, in
//   the direction PLUS(k) gives (the generator writes the model's table:
//   the shortest way round a ring, a tie of K/2 going +, toward the
//   destination on a mesh line, the other way round where a ring is routed
//   around an avoided link); VC1 when the hop crosses the ring's wrap link
//   (+ from K-1 to 0, - from 0 to K-1) or the flit arrived on VC1 of that
//   dimension and direction (the dateline), else VC0 (noc.Torus.NextAddr;
//   with avoided links the avoided torus's Next).
// - The two VCs of a link direction (outputs 1+4k+{0,1}, and 1+4k+{2,3})
//   share one wire: at most one of them sends in a cycle. An output that
//   continues a packet goes before any grant; two continuing ones, the one
//   whose input has the lower number; two grants, VC0 (the lower output).
//   Each VC keeps its own channel here (hx_link per VC in hx_rtile), which
//   moves the same flits in the same cycles as one shared wire carrying a
//   VC bit would.
//
// Illegal flits (docs/microarchitecture.md, "Illegal flits"; only faults
// make them), as hx_switch: an input owning no output drops a head whose
// address names no node (and the rest of its packet, up to its tail) and
// any payload or tail flit; an input owning an output whose front is a
// head ends its packet with a cut tail (that head with the marks {0, 1})
// on that output, a continuing send for the shared wire. DROPS (0x000C,
// hx_drops) counts them; the simulation-only assertions (achk) stop a
// fault-free testbench that meets one. Flit: {head, tail,
// crc[CB-1:0], data[FW-1:0]}, the destination address in data[AB-1:0]
// packed as hx_switch reads it (coordinate k in BKk bits, dimension 0 in
// the LSBs).
`timescale 1ns / 1ps
module hx_router #(
    parameter integer FW    = 64,        // flit data width
    parameter integer B     = 2,         // input FIFO depth = initial output credits
    parameter integer CB    = 0,         // check-code sideband bits of a flit (0 or 32)
    parameter integer NDIM  = 1,         // dimensions, 1..6
    parameter integer K0    = 2,         // dimension sizes (unused ones: 0)
    parameter integer K1    = 0,
    parameter integer K2    = 0,
    parameter integer K3    = 0,
    parameter integer K4    = 0,
    parameter integer K5    = 0,
    parameter integer WRAP  = 63,        // bit k: dimension k is a ring (1) or a mesh line (0)
    parameter integer P     = 1 + 4 * NDIM  // ports (fixed by NDIM)
) (
    input                 clk,
    input                 rst,         // synchronous, active high
    input  [P-1:0]        in_valid,    // push into input FIFO p
    input  [P*(FW+CB+2)-1:0] in_flit,
    output [P-1:0]        in_credit,   // input FIFO p popped (credit to upstream)
    output [P-1:0]        out_valid,   // a flit is sent on output p
    output [P*(FW+CB+2)-1:0] out_flit,
    input  [P-1:0]        out_credit,  // credit returned to output p
    // APB configuration port (docs/registers.md, "Torus router")
    input                 psel,
    input                 penable,
    input                 pwrite,
    input  [15:0]         paddr,       // byte address; bits 1..0 ignored
    input  [31:0]         pwdata,
    output [31:0]         prdata,
    output                pready,
    output                pslverr
);
    localparam W  = FW + 2 + CB;
    localparam IW = $clog2(P);                  // width of a port number (P >= 5)
    localparam integer NT = 1 << IW;            // leaves of the output multiplexer tree

    localparam BK0 = (K0 <= 2) ? 1 : $clog2(K0);
    localparam BK1 = (NDIM < 2) ? 0 : (K1 <= 2) ? 1 : $clog2(K1);
    localparam BK2 = (NDIM < 3) ? 0 : (K2 <= 2) ? 1 : $clog2(K2);
    localparam BK3 = (NDIM < 4) ? 0 : (K3 <= 2) ? 1 : $clog2(K3);
    localparam BK4 = (NDIM < 5) ? 0 : (K4 <= 2) ? 1 : $clog2(K4);
    localparam BK5 = (NDIM < 6) ? 0 : (K5 <= 2) ? 1 : $clog2(K5);
    localparam SH1 = BK0;
    localparam SH2 = BK0 + BK1;
    localparam SH3 = BK0 + BK1 + BK2;
    localparam SH4 = BK0 + BK1 + BK2 + BK3;
    localparam SH5 = BK0 + BK1 + BK2 + BK3 + BK4;
    localparam AB  = BK0 + BK1 + BK2 + BK3 + BK4 + BK5;   // address bits

`ifndef SYNTHESIS
    // 1: stop the simulation on an illegal flit (a fault-free run has
    // none); a fault testbench writes 0 at time 0.
    reg achk = 1'b1;
    initial begin
        if (NDIM < 1 || NDIM > 6 || P != 1 + 4 * NDIM || FW < AB || AB > 32)
            $fatal(1, "%m: inconsistent parameters P=%0d NDIM=%0d FW=%0d AB=%0d (ADDR is one 32-bit word)", P, NDIM, FW, AB);
    end
`endif

    // ------------------------------------------------------------------
    // Configuration (docs/registers.md, "Torus router"): word aw =
    // paddr[15:2]. ID (word 0) and CAPS (1) read only; ADDR (2) the own
    // packed address; PLUS(k) at words 0x400 + 2k (bits 31..0) and
    // 0x401 + 2k (bits 63..32) for k < NDIM. A write takes effect at the
    // edge that ends its access cycle. Refused (pslverr, nothing written):
    // a read of an unmapped word; a write to one, to ID or CAPS, or of a
    // value the register cannot hold (an ADDR bit above the address, a
    // coordinate >= its dimension's size, a PLUS bit c >= K).
    // ------------------------------------------------------------------
    localparam [31:0] ID   = 32'h48585254;                  // "HXRT"
    localparam integer WRAPU = WRAP & ((1 << NDIM) - 1);
    localparam integer CAPSI = P + NDIM * 256 + WRAPU * 65536;
    localparam [31:0] CAPS = CAPSI;                         // {WRAP, NDIM, P}
    /* verilator lint_off UNUSED */
    wire [1:0]  pa_lo  = paddr[1:0];                        // ignored (32-bit registers)
    /* verilator lint_on UNUSED */
    wire [13:0] aw     = paddr[15:2];
    wire        access = psel && penable;
    wire        a_id   = (aw == 14'd0);
    wire        a_caps = (aw == 14'd1);
    wire        a_addr = (aw == 14'd2);
    wire        a_drop = (aw == 14'd3);                     // DROPS: read, or write (any value) to clear
    wire [2:0]  ak     = aw[3:1];                           // PLUS's dimension
    wire        a_pl   = (aw[13:4] == 10'h040) && ({29'd0, ak} < NDIM);
    // A value ADDR may hold: no bit above AB, every coordinate < K.
    wire [31:0] wa = pwdata;
    wire        addr_ok = ((wa >> AB) == 32'd0) &&
                          (((wa      ) & ((32'd1 << BK0) - 32'd1)) < K0) &&
                          (NDIM < 2 || ((wa >> SH1) & ((32'd1 << BK1) - 32'd1)) < K1) &&
                          (NDIM < 3 || ((wa >> SH2) & ((32'd1 << BK2) - 32'd1)) < K2) &&
                          (NDIM < 4 || ((wa >> SH3) & ((32'd1 << BK3) - 32'd1)) < K3) &&
                          (NDIM < 5 || ((wa >> SH4) & ((32'd1 << BK4) - 32'd1)) < K4) &&
                          (NDIM < 6 || ((wa >> SH5) & ((32'd1 << BK5) - 32'd1)) < K5);
    // A value PLUS(k) may hold: no bit c >= K (words 0x400 + 2k: bits
    // 31..0; 0x401 + 2k: bits 63..32).
    function pl_ok;
        input [31:0] v;
        input        hi;
        input integer kk;
        begin
            if (hi)
                pl_ok = (kk > 32) ? ((v >> (kk - 32)) == 32'd0) : (v == 32'd0);
            else
                pl_ok = (kk >= 32) || ((v >> kk) == 32'd0);
        end
    endfunction
    localparam integer KS0 = K0, KS1 = K1, KS2 = K2, KS3 = K3, KS4 = K4, KS5 = K5;
    wire [31:0] kk_sel = (ak == 3'd0) ? KS0 : (ak == 3'd1) ? KS1 : (ak == 3'd2) ? KS2 :
                         (ak == 3'd3) ? KS3 : (ak == 3'd4) ? KS4 : KS5;
    wire        v_ok   = a_addr ? addr_ok : pl_ok(pwdata, aw[0], kk_sel);
    wire        wr     = access && pwrite && (a_addr || a_pl) && v_ok;
    assign pslverr = access && (pwrite ? !((a_addr || a_pl) && v_ok || a_drop) :
                                         !(a_id || a_caps || a_addr || a_pl || a_drop));
    assign pready  = 1'b1;

    reg  [AB-1:0] r_addr;  // ADDR: the router's coordinates, packed
    always @(posedge clk) begin
        if (rst)
            r_addr <= {AB{1'b0}};
        else if (wr && a_addr)
            r_addr <= wa[AB-1:0];
    end
    wire [5:0] we_lo, we_hi;
    genvar wk;
    generate
        for (wk = 0; wk < 6; wk = wk + 1) begin : g_we
            assign we_lo[wk] = wr && a_pl && ak == wk && !aw[0];
            assign we_hi[wk] = wr && a_pl && ak == wk && aw[0];
        end
    endgenerate

    // ------------------------------------------------------------------
    // Direction of every destination coordinate, per dimension (one bit
    // per value a BKk-bit coordinate can take): dpk[c] the hop goes +
    // (else -), from PLUS(k); the dimension is done when the coordinate
    // equals the own one; dvk: the + (dvk[0]) and - (dvk[1]) hops from
    // here cross the wrap link (VC1).
    // ------------------------------------------------------------------
    localparam integer NS0 = 1 << BK0;
    localparam integer NS1 = 1 << ((BK1 < 1) ? 1 : BK1);
    localparam integer NS2 = 1 << ((BK2 < 1) ? 1 : BK2);
    localparam integer NS3 = 1 << ((BK3 < 1) ? 1 : BK3);
    localparam integer NS4 = 1 << ((BK4 < 1) ? 1 : BK4);
    localparam integer NS5 = 1 << ((BK5 < 1) ? 1 : BK5);
    localparam integer BW1 = (BK1 < 1) ? 1 : BK1;
    localparam integer BW2 = (BK2 < 1) ? 1 : BK2;
    localparam integer BW3 = (BK3 < 1) ? 1 : BK3;
    localparam integer BW4 = (BK4 < 1) ? 1 : BK4;
    localparam integer BW5 = (BK5 < 1) ? 1 : BK5;
    wire [31:0] own32 = {{(32-AB){1'b0}}, r_addr};
    wire [BK0-1:0] oc0 = own32[BK0-1:0];
    wire [BW1-1:0] oc1 = own32[SH1 +: BW1];
    wire [BW2-1:0] oc2 = own32[SH2 +: BW2];
    wire [BW3-1:0] oc3 = own32[SH3 +: BW3];
    wire [BW4-1:0] oc4 = own32[SH4 +: BW4];
    wire [BW5-1:0] oc5 = own32[SH5 +: BW5];
    wire [NS0-1:0] dp0;
    wire [NS1-1:0] dp1;
    wire [NS2-1:0] dp2;
    wire [NS3-1:0] dp3;
    wire [NS4-1:0] dp4;
    wire [NS5-1:0] dp5;
    wire [1:0]     dv0, dv1, dv2, dv3, dv4, dv5;
    wire [63:0]    rd0, rd1, rd2, rd3, rd4, rd5;
    hx_router_dir #(.NS(NS0), .BW(BK0), .K(K0), .RING((WRAP >> 0) & 1)) dir0 (.clk(clk), .rst(rst), .we_lo(we_lo[0]), .we_hi(we_hi[0]), .wdata(pwdata), .own(oc0), .plus(dp0), .vc1(dv0), .rd(rd0));
    hx_router_dir #(.NS(NS1), .BW(BW1), .K(K1), .RING((WRAP >> 1) & 1)) dir1 (.clk(clk), .rst(rst), .we_lo(we_lo[1]), .we_hi(we_hi[1]), .wdata(pwdata), .own(oc1), .plus(dp1), .vc1(dv1), .rd(rd1));
    hx_router_dir #(.NS(NS2), .BW(BW2), .K(K2), .RING((WRAP >> 2) & 1)) dir2 (.clk(clk), .rst(rst), .we_lo(we_lo[2]), .we_hi(we_hi[2]), .wdata(pwdata), .own(oc2), .plus(dp2), .vc1(dv2), .rd(rd2));
    hx_router_dir #(.NS(NS3), .BW(BW3), .K(K3), .RING((WRAP >> 3) & 1)) dir3 (.clk(clk), .rst(rst), .we_lo(we_lo[3]), .we_hi(we_hi[3]), .wdata(pwdata), .own(oc3), .plus(dp3), .vc1(dv3), .rd(rd3));
    hx_router_dir #(.NS(NS4), .BW(BW4), .K(K4), .RING((WRAP >> 4) & 1)) dir4 (.clk(clk), .rst(rst), .we_lo(we_lo[4]), .we_hi(we_hi[4]), .wdata(pwdata), .own(oc4), .plus(dp4), .vc1(dv4), .rd(rd4));
    hx_router_dir #(.NS(NS5), .BW(BW5), .K(K5), .RING((WRAP >> 5) & 1)) dir5 (.clk(clk), .rst(rst), .we_lo(we_lo[5]), .we_hi(we_hi[5]), .wdata(pwdata), .own(oc5), .plus(dp5), .vc1(dv5), .rd(rd5));
    wire [63:0] rd_pl = (ak == 3'd0) ? rd0 : (ak == 3'd1) ? rd1 : (ak == 3'd2) ? rd2 :
                        (ak == 3'd3) ? rd3 : (ak == 3'd4) ? rd4 : rd5;
    wire [31:0] drops;     // DROPS (hx_drops, below)
    assign prdata = a_id ? ID : a_caps ? CAPS : a_addr ? own32 : a_drop ? drops :
                    a_pl ? (aw[0] ? rd_pl[63:32] : rd_pl[31:0]) : 32'd0;

    // ------------------------------------------------------------------
    // Input FIFOs and route computation
    // ------------------------------------------------------------------
    wire [P*W-1:0] front;      // front flit of every input
    wire [P-1:0]   fvalid;     // front flit present (= ready, see hx_fifo)
    reg  [P-1:0]   pop;        // input popped this cycle
    wire [P*P-1:0] route;      // route(i) of the front flit, one-hot at [P*i +: P] (meaningful for heads)
    reg  [P-1:0]   in_own;     // input i owns an output
    wire [P-1:0]   legal;      // the front may request (not a head that names no node)
    // Illegal-flit events of the cycle, per input (ev_*) and per output
    // (cut_o), counted into DROPS.
    wire [P-1:0]   ev_oog, ev_orph, ev_dis, ev_cuti;
    wire [P-1:0]   cut_o;      // output o sends a cut tail

    assign in_credit = pop;

    genvar i;
    generate
        for (i = 0; i < P; i = i + 1) begin : g_in
            hx_fifo #(.W(W), .B(B)) fifo (
                .clk(clk), .rst(rst),
                .push(in_valid[i]), .din(in_flit[W*i +: W]),
                .pop(pop[i]),
                .dout(front[W*i +: W]), .nempty(fvalid[i])
            );

            // Destination coordinates of the front flit (heads only).
            wire [31:0] a  = {{(32-AB){1'b0}}, front[W*i +: AB]};
            wire [31:0] c0 = a & ((32'd1 << BK0) - 32'd1);
            wire [31:0] c1 = (a >> SH1) & ((32'd1 << BK1) - 32'd1);
            wire [31:0] c2 = (a >> SH2) & ((32'd1 << BK2) - 32'd1);
            wire [31:0] c3 = (a >> SH3) & ((32'd1 << BK3) - 32'd1);
            wire [31:0] c4 = (a >> SH4) & ((32'd1 << BK4) - 32'd1);
            wire [31:0] c5 = (a >> SH5) & ((32'd1 << BK5) - 32'd1);
            // Per dimension: done (s), + (pl).
            wire s0 = (c0[BK0-1:0] == oc0);
            wire s1 = (NDIM < 2) || (c1[BW1-1:0] == oc1);
            wire s2 = (NDIM < 3) || (c2[BW2-1:0] == oc2);
            wire s3 = (NDIM < 4) || (c3[BW3-1:0] == oc3);
            wire s4 = (NDIM < 5) || (c4[BW4-1:0] == oc4);
            wire s5 = (NDIM < 6) || (c5[BW5-1:0] == oc5);
            wire pl0 = dp0[c0[BK0-1:0]];
            wire pl1 = dp1[c1[((BK1 < 1) ? 1 : BK1)-1:0]];
            wire pl2 = dp2[c2[((BK2 < 1) ? 1 : BK2)-1:0]];
            wire pl3 = dp3[c3[((BK3 < 1) ? 1 : BK3)-1:0]];
            wire pl4 = dp4[c4[((BK4 < 1) ? 1 : BK4)-1:0]];
            wire pl5 = dp5[c5[((BK5 < 1) ? 1 : BK5)-1:0]];
            // The hop: the port e = 1 + 4k + 2m of the first dimension k
            // not done, m = 1 for -, plus 1 for VC1 (the wrap link, or
            // the dateline: a flit that arrived on VC1 of that dimension
            // and direction, input port e+1, stays on VC1); 0 when every
            // dimension is done (arrived).
            localparam integer IK = (i == 0) ? 0 : (i - 1) / 4;    // input i's dimension
            localparam integer IR = (i == 0) ? 0 : (i - 1) % 4;    // its direction and VC
            integer port;
            always @* begin
                if (!s0)
                    port = 1 + (pl0 ? 0 : 2) + ((dv0[!pl0] || (i != 0 && IK == 0 && IR == (pl0 ? 1 : 3))) ? 1 : 0);
                else if (!s1)
                    port = 5 + (pl1 ? 0 : 2) + ((dv1[!pl1] || (i != 0 && IK == 1 && IR == (pl1 ? 1 : 3))) ? 1 : 0);
                else if (!s2)
                    port = 9 + (pl2 ? 0 : 2) + ((dv2[!pl2] || (i != 0 && IK == 2 && IR == (pl2 ? 1 : 3))) ? 1 : 0);
                else if (!s3)
                    port = 13 + (pl3 ? 0 : 2) + ((dv3[!pl3] || (i != 0 && IK == 3 && IR == (pl3 ? 1 : 3))) ? 1 : 0);
                else if (!s4)
                    port = 17 + (pl4 ? 0 : 2) + ((dv4[!pl4] || (i != 0 && IK == 4 && IR == (pl4 ? 1 : 3))) ? 1 : 0);
                else if (!s5)
                    port = 21 + (pl5 ? 0 : 2) + ((dv5[!pl5] || (i != 0 && IK == 5 && IR == (pl5 ? 1 : 3))) ? 1 : 0);
                else
                    port = 0;
            end
            genvar ro;
            for (ro = 0; ro < P; ro = ro + 1) begin : g_r
                assign route[P*i + ro] = (port == ro);
            end

            // Illegal flits. hd, tl: the front's marks; oog: a head whose
            // address names no node. An input owning no output drops its
            // front when it is not a legal head (pop below); dv: it is
            // dropping the rest of an out-of-grid packet (up to its tail).
            wire hd  = front[W*i+W-1];
            wire tl  = front[W*i+W-2];
            wire oog = hd && (c0 >= K0 || (NDIM > 1 && c1 >= K1) ||
                              (NDIM > 2 && c2 >= K2) || (NDIM > 3 && c3 >= K3) ||
                              (NDIM > 4 && c4 >= K4) || (NDIM > 5 && c5 >= K5));
            wire idle = fvalid[i] && !in_own[i];
            reg  dv;
            always @(posedge clk) begin
                if (rst)
                    dv <= 1'b0;
                else if (idle)
                    dv <= hd ? (oog && !tl) : (dv && !tl);
            end
            assign legal[i]   = !oog;
            assign ev_dis[i]  = idle && (!hd || oog);
            assign ev_oog[i]  = idle && oog;
            assign ev_orph[i] = idle && !hd && !dv;
            assign ev_cuti[i] = idle && hd && dv;

`ifndef SYNTHESIS
            // Assertions of a fault-free run (a fault testbench clears
            // achk: there, the drops above are the behaviour checked).
            always @(posedge clk) begin
                if (achk && !rst && fvalid[i] && oog)
                    $fatal(1, "%m: head flit with address %h outside the %0d-D grid", a, NDIM);
                if (achk && !rst && idle && !hd)
                    $fatal(1, "%m: a payload or tail flit at an input with no packet open");
                if (achk && !rst && fvalid[i] && in_own[i] && hd)
                    $fatal(1, "%m: a head flit at an input whose packet is open");
            end
`endif
        end
    endgenerate

    // ------------------------------------------------------------------
    // Outputs: owner / round robin / credits, as hx_switch's
    // ------------------------------------------------------------------
    wire [P-1:0]    own_vv;    // output o is owned
    wire [P-1:0]    cont;      // output o continues a packet this cycle if its wire lets it
    wire [P-1:0]    gnt;       // output o grants this cycle if its wire lets it
    /* verilator lint_off UNUSED */
    wire [P*IW-1:0] sel;       // output o's selected input (the owner when owned; port 0's is not read)
    /* verilator lint_on UNUSED */
    wire [P-1:0]    blk;       // output o's wire is taken by the other VC this cycle
    wire [P-1:0]    snd;       // output o sends this cycle
    wire [P*P-1:0]  owns;      // owns[P*o + i]: input i owns output o (registers only)
    wire [P*P-1:0]  pops;      // pops[P*o + i]: output o pops input i this cycle
    wire [P-1:0]    hd_f, tl_f;
    integer oi, oo;
    always @* begin
        for (oi = 0; oi < P; oi = oi + 1) begin
            in_own[oi] = 1'b0;
            for (oo = 0; oo < P; oo = oo + 1)
                in_own[oi] = in_own[oi] | owns[P*oo + oi];
        end
    end

    // The wire shared by the two VCs of a link direction: outputs lo =
    // 1+2j (VC0) and hi = lo+1 (VC1). A continuing packet goes first (the
    // lower input of two), then a grant (VC0 before VC1).
    genvar pj;
    generate
        assign blk[0] = 1'b0;  // the ejection channel is its own
        for (pj = 0; pj < 2 * NDIM; pj = pj + 1) begin : g_wire
            localparam integer LO = 1 + 2 * pj;
            localparam integer HI = 2 + 2 * pj;
            wire lo_first = sel[IW*LO +: IW] < sel[IW*HI +: IW];
            assign blk[LO] = cont[HI] && (!own_vv[LO] || !lo_first);
            assign blk[HI] = cont[LO] && (!own_vv[HI] || lo_first) || (!own_vv[HI] && gnt[LO]);
        end
    endgenerate

    genvar o, fi;
    generate
        for (fi = 0; fi < P; fi = fi + 1) begin : g_mk
            assign hd_f[fi] = front[W*fi + W-1];
            assign tl_f[fi] = front[W*fi + W-2];
        end
        for (o = 0; o < P; o = o + 1) begin : g_out
            reg  [P-1:0] own;      // owner[o], one-hot; 0: none
            reg  [P-1:0] rrm;      // round robin: rrm[k] = (k >= rr)
            wire         own_v = |own;
            wire         ok;       // a credit

            hx_credit #(.B(B)) credit (
                .clk(clk), .rst(rst),
                .take(snd[o]), .give(out_credit[o]), .ok(ok)
            );
            wire go = ok && !blk[o];   // the output may send this cycle

            // Requesters: inputs owning no output whose front is a head
            // routed here.
            reg [P-1:0] req;
            integer j;
            always @* begin
                for (j = 0; j < P; j = j + 1)
                    req[j] = fvalid[j] && hd_f[j] && legal[j] && !in_own[j] && route[P*j + o];
            end

            // Round robin: the lowest requester at or above rr, else the
            // lowest requester (hx_switch).
            reg  [P-1:0]  hi;
            reg  [P-1:0]  goh;     // grant, one-hot (0: none)
            reg           shi, srq;
            integer k;
            always @* begin
                hi  = req & rrm;
                shi = 1'b0;
                srq = 1'b0;
                for (k = 0; k < P; k = k + 1) begin
                    goh[k] = (hi[k] && !shi) || (!(|hi) && req[k] && !srq);
                    shi    = shi || hi[k];
                    srq    = srq || req[k];
                end
            end
            wire gnt_v = |req;

            wire [P-1:0]  soh = own_v ? own : goh;
            reg  [IW-1:0] s;
            integer m;
            always @* begin
                s = {IW{1'b0}};
                for (m = 0; m < P; m = m + 1)
                    s = s | ({IW{soh[m]}} & m[IW-1:0]);
            end
            reg  [(2*NT-1)*W-1:0] mt;
            integer lv, lx, li;
            always @* begin
                for (lx = 0; lx < NT; lx = lx + 1) begin
                    li = (lx < P) ? lx : P - 1;
                    mt[W*lx +: W] = front[W*li +: W];
                end
                for (lv = 0; lv < IW; lv = lv + 1)
                    for (lx = 0; lx < (NT >> (lv + 1)); lx = lx + 1)
                        mt[W*(2*NT - ((2*NT) >> (lv + 1)) + lx) +: W] = s[lv] ?
                            mt[W*(2*NT - ((2*NT) >> lv) + 2*lx + 1) +: W] :
                            mt[W*(2*NT - ((2*NT) >> lv) + 2*lx) +: W];
            end
            wire [W-1:0] flit = mt[W*(2*NT-2) +: W];
            wire own_rdy = |(own & fvalid);
            // A head at the owner's front: the output sends its cut tail
            // instead (the head's bits, head mark 0, tail mark 1), the head
            // stays, and the output is free from the next cycle (the head
            // then requests as any other). For the shared wire a cut is a
            // continuing send.
            wire cut = |(own & fvalid & hd_f);

            assign own_vv[o] = own_v;
            assign sel[IW*o +: IW] = s;
            assign cont[o] = ok && own_v && own_rdy;
            assign gnt[o]  = ok && !own_v && gnt_v;
            assign snd[o]  = go && (own_v ? own_rdy : gnt_v);
            assign pops[P*o +: P] = {P{go}} & (own_v ? (own & fvalid & ~hd_f) : goh);
            assign owns[P*o +: P] = own;
            assign out_valid[o] = snd[o];
            assign out_flit[W*o +: W] = {flit[W-1] & !cut, flit[W-2] | cut, flit[W-3:0]};
            assign cut_o[o] = cut;

            reg  [P-1:0] rrn;
            reg          below;
            integer n;
            always @* begin
                below = 1'b0;
                for (n = 0; n < P; n = n + 1) begin
                    rrn[n] = below || goh[P-1];
                    below  = below || goh[n];
                end
            end

            // The owner after this cycle: owned, kept unless the tail or
            // a head (a cut) goes; free, the grant takes it unless its
            // flit is a tail.
            wire [P-1:0] own_n = own_v ? own & ~({P{go}} & fvalid & (tl_f | hd_f))
                                       : {P{go}} & goh & ~tl_f;
            always @(posedge clk) begin
                if (rst) begin
                    own <= {P{1'b0}};
                    rrm <= {P{1'b1}};
                end else begin
                    own <= own_n;
                    if (!own_v && snd[o])
                        rrm <= rrn;
                end
            end
        end
    endgenerate

    // Pop: an input is popped when the output that selected it sends a
    // flit of it (not a cut tail), or when it drops its front.
    integer pi, po;
    always @* begin
        for (pi = 0; pi < P; pi = pi + 1) begin
            pop[pi] = ev_dis[pi];
            for (po = 0; po < P; po = po + 1)
                pop[pi] = pop[pi] | pops[P*po + pi];
        end
    end

    hx_drops #(.P(P)) drop (
        .clk(clk), .rst(rst), .clr(access && pwrite && a_drop),
        .ev_oog(ev_oog), .ev_orph(ev_orph), .ev_dis(ev_dis), .ev_cuti(ev_cuti),
        .ev_cuto(snd & cut_o), .drops(drops)
    );
endmodule
