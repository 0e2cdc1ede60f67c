// hx_rtile: one node of a torus, a mesh or a mix of the two (noc.Torus;
// docs/rtl.md, "The torus tile"): the node's barrier unit (g_unit.bu:
// hx_barrier_unit, the block name hx_tile gives it), its router (rt:
// hx_router, its coordinates and directions written through the APB port),
// the injection and ejection
// channels between them (inj, ej: hx_link, latency 1) and, per router
// output p > 0, the channel it drives (g_out[p-1].up: hx_link, latency L);
// every hx_link with link-level retry when LR > 0 (docs/reliability.md,
// "Link-level retry": one link layer per VC channel, as in the model).
// The tile adds no cycle: a system of tiles runs cycle for cycle as the Go
// model (docs/microarchitecture.md, "Torus router").
//
// Link ports, router port p = j+1 at bit [j] / [j*W +: W], j = 0..4*NDIM-1
// (W = FW+2+CB; port 1+4k + {0, 1, 2, 3}: dimension k, + VC0, + VC1, -
// VC0, - VC1): up_* is what the tile's channel of output p delivers (wire
// up_valid/up_flit to the down_valid/down_flit of the neighbour in that
// direction, whose down_credit drives up_credit); down_* goes straight into
// router input p (no channel on this side: the upstream tile's up channel
// is the link). The ports of the outputs that leave the end of a mesh line
// are left open by the integrator (up_credit and down_valid tied to 0).
//
// APB (docs/registers.md): paddr[31] = 0 the unit; paddr[31] = 1 the
// router's registers at paddr[15:0] (ADDR, PLUS(k): "Torus router"; bits
// 30..16 ignored, as hx_tile's exchanger ignores them).
`timescale 1ns / 1ps
module hx_rtile #(
    parameter integer MAXG = 1,    // gate capacity (1..62)
    parameter integer NRT  = 1,    // route RAM depth (>= 1)
    parameter integer DATA = 0,    // 1: data engine present
    parameter integer NIL  = 1,    // data engine: item-list RAM depth
    parameter integer NBANK = 1,   // receive banks: 2 runs back-to-back loops
    parameter integer FW   = 64,   // flit data width
    parameter integer CB   = 0,    // check-code sideband bits of a flit (0 or 32)
    parameter [31:0]  CRC_POLY = 32'h1EDC6F41,
    parameter integer B    = 2,    // buffer depth (every FIFO, every credit counter)
    parameter integer AB   = 1,    // node address bits
    parameter integer RB   = 1,    // rank bits
    parameter integer NDIM = 1,    // dimensions (1..6)
    parameter integer K0   = 2,    // dimension sizes (unused ones: 0)
    parameter integer K1   = 0,
    parameter integer K2   = 0,
    parameter integer K3   = 0,
    parameter integer K4   = 0,
    parameter integer K5   = 0,
    parameter integer WRAP = 63,   // bit k: dimension k is a ring (1) or a mesh line (0)
    parameter integer L    = 1,    // link latency between routers
    parameter integer LR   = 0,    // link-level retry: replay buffer entries; 0: none
    parameter integer CW   = 16,   // link check code bits (hw.LinkCode; LR > 0 only)
    parameter [CW-1:0] CPOLY = 16'h5935,  // its polynomial
    parameter integer KW   = 5,    // link ACK and credit word code bits (hw.CountCode; LR > 0 only)
    parameter [KW-1:0] KPOLY = 5'h15      // its polynomial
) (
    input                              clk,
    input                              rst,        // synchronous, active high
    input                              arrive,
    input  [63:0]                      operand,
    output                             released,
    output [63:0]                      result,
    input                              psel,
    input                              penable,
    input                              pwrite,
    input  [31:0]                      paddr,
    input  [31:0]                      pwdata,
    output [31:0]                      prdata,
    output                             pready,
    output                             pslverr,
    output                             irq,
    output [4*NDIM-1:0]                up_valid,
    output [4*NDIM*(FW+CB+2)-1:0]      up_flit,
    input  [4*NDIM-1:0]                up_credit,
    input  [4*NDIM-1:0]                down_valid,
    input  [4*NDIM*(FW+CB+2)-1:0]      down_flit,
    output [4*NDIM-1:0]                down_credit
);
    localparam integer W = FW + 2 + CB;
    localparam integer P = 1 + 4 * NDIM;  // router ports

    // ---- APB: paddr[31] = 0 the unit; 1 the router
    wire        usel = psel && !paddr[31];
    wire        rsel = psel && paddr[31];
    wire [31:0] u_rd, r_rd;
    wire        u_rdy, u_err, r_rdy, r_err;
    assign prdata  = paddr[31] ? r_rd : u_rd;
    assign pready  = paddr[31] ? r_rdy : u_rdy;
    assign pslverr = paddr[31] ? r_err : u_err;

    // ---- the unit
    wire         inj_valid, inj_credit, ej_valid, ej_credit;
    wire [W-1:0] inj_flit, ej_flit;
    generate
        if (1) begin : g_unit
            hx_barrier_unit #(.FW(FW), .B(B), .AB(AB), .RB(RB), .MAXG(MAXG), .NRT(NRT), .DATA(DATA), .NIL(NIL),
                              .NDIM(NDIM), .K0(K0), .K1(K1), .K2(K2), .K3(K3), .K4(K4), .K5(K5), .CB(CB), .CRC_POLY(CRC_POLY),
                              .NBANK(NBANK)) bu (
                .clk(clk), .rst(rst),
                .arrive(arrive), .operand(operand), .released(released), .result(result),
                .inj_valid(inj_valid), .inj_flit(inj_flit), .inj_credit(inj_credit),
                .ej_valid(ej_valid), .ej_flit(ej_flit), .ej_credit(ej_credit),
                .psel(usel), .penable(penable), .pwrite(pwrite), .paddr(paddr), .pwdata(pwdata),
                .prdata(u_rd), .pready(u_rdy), .pslverr(u_err), .irq(irq)
            );
        end
    endgenerate

    // ---- the router: port 0 local, port p > 0 a link direction and VC
    wire [P-1:0]   r_in_valid, r_in_credit, r_out_valid, r_out_credit;
    wire [P*W-1:0] r_in_flit, r_out_flit;
    hx_router #(.FW(FW), .B(B), .CB(CB), .NDIM(NDIM), .K0(K0), .K1(K1), .K2(K2), .K3(K3), .K4(K4), .K5(K5),
                .WRAP(WRAP)) rt (
        .clk(clk), .rst(rst),
        .in_valid(r_in_valid), .in_flit(r_in_flit), .in_credit(r_in_credit),
        .out_valid(r_out_valid), .out_flit(r_out_flit), .out_credit(r_out_credit),
        .psel(rsel), .penable(penable), .pwrite(pwrite), .paddr(paddr[15:0]),
        .pwdata(pwdata), .prdata(r_rd), .pready(r_rdy), .pslverr(r_err)
    );
    hx_link #(.W(W), .L(1), .LR(LR), .B(B), .CW(CW), .CPOLY(CPOLY), .KW(KW), .KPOLY(KPOLY)) inj (
        .clk(clk), .rst(rst),
        .in_valid(inj_valid), .in_flit(inj_flit),
        .out_valid(r_in_valid[0]), .out_flit(r_in_flit[0 +: W]),
        .crd_in(r_in_credit[0]), .crd_out(inj_credit)
    );
    hx_link #(.W(W), .L(1), .LR(LR), .B(B), .CW(CW), .CPOLY(CPOLY), .KW(KW), .KPOLY(KPOLY)) ej (
        .clk(clk), .rst(rst),
        .in_valid(r_out_valid[0]), .in_flit(r_out_flit[0 +: W]),
        .out_valid(ej_valid), .out_flit(ej_flit),
        .crd_in(ej_credit), .crd_out(r_out_credit[0])
    );
    genvar gj;
    generate
        for (gj = 0; gj < 4 * NDIM; gj = gj + 1) begin : g_out
            hx_link #(.W(W), .L(L), .LR(LR), .B(B), .CW(CW), .CPOLY(CPOLY), .KW(KW), .KPOLY(KPOLY)) up (
                .clk(clk), .rst(rst),
                .in_valid(r_out_valid[gj+1]), .in_flit(r_out_flit[(gj+1)*W +: W]),
                .out_valid(up_valid[gj]), .out_flit(up_flit[gj*W +: W]),
                .crd_in(up_credit[gj]), .crd_out(r_out_credit[gj+1])
            );
        end
    endgenerate
    assign r_in_valid[P-1:1]    = down_valid;
    assign r_in_flit[P*W-1:W]   = down_flit;
    assign down_credit          = r_in_credit[P-1:1];
endmodule
