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
// - Routing is by coordinates, not tables: the router's own coordinates
//   (C0..C5), the dimension sizes, the wrap flags and the reversals around
//   avoided links (REV0..REV5) are parameters, so there is no
//   configuration port. Dimension order, minimal: the first dimension,
//   from 0 up, whose coordinate differs, in the shortest direction on a
//   ring (a tie, distance K/2, goes +), toward the destination on a mesh
//   line, the other way round where REVk says so (a ring routed around an
//   avoided link); VC1 when the hop crosses the ring's wrap link (+ from
//   K-1 to 0, - from 0 to K-1) or the flit arrived on VC1 of that
//   dimension and direction (the dateline), else VC0 (noc.Torus.NextAddr;
//   with reversals the avoided torus's Next).
// - The two VCs of a link direction (outputs 1+4k+{0,1}, and 1+4k+{2,3})
//   share one wire: at most one of them sends in a cycle. An output that
//   continues a packet goes before any grant; two continuing ones, the one
//   whose input has the lower number; two grants, VC0 (the lower output).
//   Each VC keeps its own channel here (hx_link per VC in hx_rtile), which
//   moves the same flits in the same cycles as one shared wire carrying a
//   VC bit would.
//
// No illegal-flit handling (the simulation stops on a head at an input
// owning an output, a payload flit at one owning none, or an address
// outside the grid). Flit: {head, tail,
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
    parameter integer C0    = 0,         // the router's own coordinates
    parameter integer C1    = 0,
    parameter integer C2    = 0,
    parameter integer C3    = 0,
    parameter integer C4    = 0,
    parameter integer C5    = 0,
    // Avoided links (noc.Avoid.TorusReversed): bit c of REVk sends
    // destination coordinate c of dimension k the other way round.
    parameter [((K0 < 1) ? 1 : K0)-1:0] REV0 = 0,
    parameter [((K1 < 1) ? 1 : K1)-1:0] REV1 = 0,
    parameter [((K2 < 1) ? 1 : K2)-1:0] REV2 = 0,
    parameter [((K3 < 1) ? 1 : K3)-1:0] REV3 = 0,
    parameter [((K4 < 1) ? 1 : K4)-1:0] REV4 = 0,
    parameter [((K5 < 1) ? 1 : K5)-1:0] REV5 = 0,
    parameter integer P     = 1 + 4 * NDIM  // ports (fixed by NDIM)
) (
    input                 clk,
    input                 rst,         // synchronous, active high
    input  [P-1:0]        in_valid,    // push into input FIFO p
    input  [P*(FW+CB+2)-1:0] in_flit,
    output [P-1:0]        in_credit,   // input FIFO p popped (credit to upstream)
    output [P-1:0]        out_valid,   // a flit is sent on output p
    output [P*(FW+CB+2)-1:0] out_flit,
    input  [P-1:0]        out_credit   // credit returned to output p
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
    initial begin
        if (NDIM < 1 || NDIM > 6 || P != 1 + 4 * NDIM || FW < AB ||
            C0 >= K0 || (NDIM > 1 && C1 >= K1) || (NDIM > 2 && C2 >= K2) || (NDIM > 3 && C3 >= K3) ||
            (NDIM > 4 && C4 >= K4) || (NDIM > 5 && C5 >= K5))
            $fatal(1, "%m: inconsistent parameters P=%0d NDIM=%0d FW=%0d C=%0d,%0d,%0d,%0d,%0d,%0d",
                   P, NDIM, FW, C0, C1, C2, C3, C4, C5);
    end
`endif

    // ------------------------------------------------------------------
    // Direction of every destination coordinate, per dimension: constants
    // of the parameters (one bit per value a BKk-bit coordinate can take).
    // dpk[c]: the hop goes + (else -); dsk[c]: c is the own coordinate
    // (this dimension is done); dvk: the + (dvk[0]) and - (dvk[1]) hops
    // from here cross the wrap link (VC1).
    // ------------------------------------------------------------------
    localparam integer NS0 = 1 << BK0;
    localparam integer NS1 = 1 << ((BK1 < 1) ? 1 : BK1);
    localparam integer NS2 = 1 << ((BK2 < 1) ? 1 : BK2);
    localparam integer NS3 = 1 << ((BK3 < 1) ? 1 : BK3);
    localparam integer NS4 = 1 << ((BK4 < 1) ? 1 : BK4);
    localparam integer NS5 = 1 << ((BK5 < 1) ? 1 : BK5);
    wire [NS0-1:0] dp0, ds0;
    wire [NS1-1:0] dp1, ds1;
    wire [NS2-1:0] dp2, ds2;
    wire [NS3-1:0] dp3, ds3;
    wire [NS4-1:0] dp4, ds4;
    wire [NS5-1:0] dp5, ds5;
    wire [1:0]     dv0, dv1, dv2, dv3, dv4, dv5;
    hx_router_dir #(.NS(NS0), .K(K0), .C(C0), .RING((WRAP >> 0) & 1), .REV(REV0)) dir0 (.plus(dp0), .stay(ds0), .vc1(dv0));
    hx_router_dir #(.NS(NS1), .K(K1), .C(C1), .RING((WRAP >> 1) & 1), .REV(REV1)) dir1 (.plus(dp1), .stay(ds1), .vc1(dv1));
    hx_router_dir #(.NS(NS2), .K(K2), .C(C2), .RING((WRAP >> 2) & 1), .REV(REV2)) dir2 (.plus(dp2), .stay(ds2), .vc1(dv2));
    hx_router_dir #(.NS(NS3), .K(K3), .C(C3), .RING((WRAP >> 3) & 1), .REV(REV3)) dir3 (.plus(dp3), .stay(ds3), .vc1(dv3));
    hx_router_dir #(.NS(NS4), .K(K4), .C(C4), .RING((WRAP >> 4) & 1), .REV(REV4)) dir4 (.plus(dp4), .stay(ds4), .vc1(dv4));
    hx_router_dir #(.NS(NS5), .K(K5), .C(C5), .RING((WRAP >> 5) & 1), .REV(REV5)) dir5 (.plus(dp5), .stay(ds5), .vc1(dv5));

    // ------------------------------------------------------------------
    // Input FIFOs and route computation
    // ------------------------------------------------------------------
    wire [P*W-1:0] front;      // front flit of every input
    wire [P-1:0]   fvalid;     // front flit present (= ready, see hx_fifo)
    reg  [P-1:0]   pop;        // input popped this cycle
    wire [P*P-1:0] route;      // route(i) of the front flit, one-hot at [P*i +: P] (meaningful for heads)
    reg  [P-1:0]   in_own;     // input i owns an output

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
            wire s0 = ds0[c0[BK0-1:0]];
            wire s1 = (NDIM < 2) || ds1[c1[((BK1 < 1) ? 1 : BK1)-1:0]];
            wire s2 = (NDIM < 3) || ds2[c2[((BK2 < 1) ? 1 : BK2)-1:0]];
            wire s3 = (NDIM < 4) || ds3[c3[((BK3 < 1) ? 1 : BK3)-1:0]];
            wire s4 = (NDIM < 5) || ds4[c4[((BK4 < 1) ? 1 : BK4)-1:0]];
            wire s5 = (NDIM < 6) || ds5[c5[((BK5 < 1) ? 1 : BK5)-1:0]];
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

`ifndef SYNTHESIS
            wire hd  = front[W*i+W-1];
            wire oog = hd && (c0 >= K0 || (NDIM > 1 && c1 >= K1) ||
                              (NDIM > 2 && c2 >= K2) || (NDIM > 3 && c3 >= K3) ||
                              (NDIM > 4 && c4 >= K4) || (NDIM > 5 && c5 >= K5));
            always @(posedge clk) begin
                if (!rst && fvalid[i] && oog)
                    $fatal(1, "%m: head flit with address %h outside the %0d-D grid", a, NDIM);
                if (!rst && fvalid[i] && !in_own[i] && !hd)
                    $fatal(1, "%m: a payload or tail flit at an input with no packet open");
                if (!rst && fvalid[i] && in_own[i] && hd)
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
                    req[j] = fvalid[j] && hd_f[j] && !in_own[j] && route[P*j + o];
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

            assign own_vv[o] = own_v;
            assign sel[IW*o +: IW] = s;
            assign cont[o] = ok && own_v && own_rdy;
            assign gnt[o]  = ok && !own_v && gnt_v;
            assign snd[o]  = go && (own_v ? own_rdy : gnt_v);
            assign pops[P*o +: P] = {P{go}} & (own_v ? (own & fvalid) : goh);
            assign owns[P*o +: P] = own;
            assign out_valid[o] = snd[o];
            assign out_flit[W*o +: W] = flit;

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

            // The owner after this cycle: owned, kept unless the tail
            // goes; free, the grant takes it unless its flit is a tail.
            wire [P-1:0] own_n = own_v ? own & ~({P{go}} & fvalid & tl_f)
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

    // Pop: an input is popped when the output that selected it sends.
    integer pi, po;
    always @* begin
        for (pi = 0; pi < P; pi = pi + 1) begin
            pop[pi] = 1'b0;
            for (po = 0; po < P; po = po + 1)
                pop[pi] = pop[pi] | pops[P*po + pi];
        end
    end
endmodule
