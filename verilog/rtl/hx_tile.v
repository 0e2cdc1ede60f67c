// hx_tile: one node of a hyper-crossbar, as an SoC drops it in (docs/
// rtl.md, "The tile"): the node's barrier unit (g_unit.bu: hx_barrier_unit,
// or g_node.bu: hx_barrier_node with NCH barrier channels; two block names,
// as Verilator 5.006 resolves no hierarchical reference through a
// generate block whose name both branches share), its exchanger (sw:
// hx_switch, MODE 0, ports 0 local and k+1 to the dimension-k crossbar),
// the injection and ejection channels between them (inj, ej: hx_link,
// latency 1) and, per dimension k, the two directions of the link to the
// dimension-k crossbar (g_dim[k].up, g_dim[k].down: hx_link, latency L,
// with link-level retry when LR > 0). An integrator instantiates one tile
// per node and wires each tile's link ports to the crossbars' ports: the
// tile adds no cycle, a system of tiles runs cycle for cycle as the Go
// model (docs/microarchitecture.md).
//
// Link ports, dimension k at bit [k] / [k*W +: W] (W = FW+2+CB): up_* is
// what the tile sends to its dimension-k crossbar (up_valid/up_flit drive
// the crossbar's in_valid/in_flit of the node's port, up_credit takes its
// in_credit); down_* is what the crossbar sends to the tile (down_valid/
// down_flit take the crossbar's out_valid/out_flit, down_credit drives its
// out_credit). The channels sit inside the tile: the crossbar's ports are
// wired straight to the tile's, as hx_top does.
//
// APB (docs/registers.md): paddr[31] = 0 the unit, 1 the exchanger (its
// registers at paddr[15:0]); the exchanger has no other configuration
// port. pready and pslverr come from the selected one.
`timescale 1ns / 1ps
module hx_tile #(
    // the unit: hx_barrier_unit when NCH = 0, else hx_barrier_node with NCH
    // channels (1..8; its CPU side has NCH slots, channel c at [c])
    parameter integer NCH  = 0,
    parameter integer MAXG = 1,    // gate capacity (1..62)
    parameter integer NRT  = 1,    // route RAM depth (>= 1)
    parameter integer DATA = 0,    // 1: data engine present (NCH = 0 only)
    parameter integer NIL  = 1,    // data engine: item-list RAM depth (NCH = 0 only)
    parameter integer NBANK = 1,   // receive banks: 2 runs back-to-back loops
    // the system
    parameter integer FW   = 64,   // flit data width
    parameter integer CB   = 0,    // check-code sideband bits of a flit (0 or 32)
    parameter [31:0]  CRC_POLY = 32'h1EDC6F41,
    parameter integer B    = 2,    // buffer depth (every FIFO, every credit counter)
    parameter integer AB   = 1,    // node address bits
    parameter integer RB   = 1,    // rank bits
    parameter integer NDIM = 1,    // dimensions (1..6): link ports per tile
    parameter integer K0   = 2,    // dimension sizes (unused ones: 0)
    parameter integer K1   = 0,
    parameter integer K2   = 0,
    parameter integer K3   = 0,
    parameter integer K4   = 0,
    parameter integer K5   = 0,
    parameter integer E    = 0,    // routing exception entries of the exchanger (CAM)
    parameter integer SP   = 0,    // switch_pipeline: 1 registers the exchanger's requests
    parameter integer UP   = 0,    // unit_pipeline: 1 takes the forward out of the unit's gate check
    parameter integer L    = 1,    // link latency to the crossbars
    parameter integer LR   = 0,    // link-level retry: replay buffer entries; 0: none
    parameter integer CW   = 16,   // link check code bits (hw.LinkCode; LR > 0 only)
    parameter [CW-1:0] CPOLY = 16'h5935,  // its polynomial
    parameter integer KW   = 5,    // link ACK and credit word code bits (hw.CountCode; LR > 0 only)
    parameter [KW-1:0] KPOLY = 5'h15      // its polynomial
) (
    input                              clk,
    input                              rst,        // synchronous, active high
    // CPU side: one slot (NCH = 0) or NCH slots
    input  [(NCH > 0 ? NCH : 1)-1:0]    arrive,
    input  [(NCH > 0 ? NCH : 1)*64-1:0] operand,
    output [(NCH > 0 ? NCH : 1)-1:0]    released,
    output [(NCH > 0 ? NCH : 1)*64-1:0] result,
    // configuration (APB): paddr[31] = 0 the unit, 1 the exchanger
    input                              psel,
    input                              penable,
    input                              pwrite,
    input  [31:0]                      paddr,
    input  [31:0]                      pwdata,
    output [31:0]                      prdata,
    output                             pready,
    output                             pslverr,
    output                             irq,        // the unit's interrupt (a node: its channels' OR); docs/registers.md, "Interrupt"
    // link ports to the crossbars, dimension k at [k] / [k*(FW+CB+2) +: FW+CB+2]
    output [NDIM-1:0]                  up_valid,
    output [NDIM*(FW+CB+2)-1:0]        up_flit,
    input  [NDIM-1:0]                  up_credit,
    input  [NDIM-1:0]                  down_valid,
    input  [NDIM*(FW+CB+2)-1:0]        down_flit,
    output [NDIM-1:0]                  down_credit
);
    localparam integer W = FW + 2 + CB;   // flit: {head, tail, crc[CB-1:0], data[FW-1:0]}
    localparam integer P = NDIM + 1;      // exchanger ports

    // ---- APB: paddr[31] selects
    wire        usel = psel && !paddr[31];
    wire        xsel = psel && paddr[31];
    wire [31:0] u_rd, x_rd;
    wire        u_rdy, u_err, x_rdy, x_err;
    assign prdata  = paddr[31] ? x_rd : u_rd;
    assign pready  = paddr[31] ? x_rdy : u_rdy;
    assign pslverr = paddr[31] ? x_err : u_err;

    // ---- the unit
    wire         inj_valid, inj_credit, ej_valid, ej_credit;
    wire [W-1:0] inj_flit, ej_flit;
    generate
        if (NCH == 0) begin : g_unit
            hx_barrier_unit #(.FW(FW), .B(B), .AB(AB), .RB(RB), .MAXG(MAXG), .NRT(NRT), .DATA(DATA), .NIL(NIL),
                              .NDIM(NDIM), .K0(K0), .K1(K1), .K2(K2), .K3(K3), .K4(K4), .K5(K5), .CB(CB), .CRC_POLY(CRC_POLY),
                              .NBANK(NBANK), .UP(UP)) bu (
                .clk(clk), .rst(rst),
                .arrive(arrive), .operand(operand), .released(released), .result(result),
                .inj_valid(inj_valid), .inj_flit(inj_flit), .inj_credit(inj_credit),
                .ej_valid(ej_valid), .ej_flit(ej_flit), .ej_credit(ej_credit),
                .psel(usel), .penable(penable), .pwrite(pwrite), .paddr(paddr), .pwdata(pwdata),
                .prdata(u_rd), .pready(u_rdy), .pslverr(u_err), .irq(irq)
            );
        end else begin : g_node
            hx_barrier_node #(.NCH(NCH), .FW(FW), .B(B), .AB(AB), .RB(RB), .MAXG(MAXG), .NRT(NRT),
                              .NDIM(NDIM), .K0(K0), .K1(K1), .K2(K2), .K3(K3), .K4(K4), .K5(K5), .CB(CB), .CRC_POLY(CRC_POLY),
                              .NBANK(NBANK), .UP(UP)) bu (
                .clk(clk), .rst(rst),
                .arrive(arrive), .operand(operand), .released(released), .result(result),
                .inj_valid(inj_valid), .inj_flit(inj_flit), .inj_credit(inj_credit),
                .ej_valid(ej_valid), .ej_flit(ej_flit), .ej_credit(ej_credit),
                .psel(usel), .penable(penable), .pwrite(pwrite), .paddr(paddr), .pwdata(pwdata),
                .prdata(u_rd), .pready(u_rdy), .pslverr(u_err), .irq(irq)
            );
        end
    endgenerate

    // ---- the exchanger: port 0 local, port k+1 to the dimension-k crossbar
    wire [P-1:0]   x_in_valid, x_in_credit, x_out_valid, x_out_credit;
    wire [P*W-1:0] x_in_flit, x_out_flit;
    hx_switch #(.P(P), .FW(FW), .B(B), .MODE(0), .NDIM(NDIM), .K0(K0), .K1(K1), .K2(K2), .K3(K3), .K4(K4), .K5(K5),
                .CB(CB), .E(E), .SP(SP)) sw (
        .clk(clk), .rst(rst),
        .in_valid(x_in_valid), .in_flit(x_in_flit), .in_credit(x_in_credit),
        .out_valid(x_out_valid), .out_flit(x_out_flit), .out_credit(x_out_credit),
        .psel(xsel), .penable(penable), .pwrite(pwrite), .paddr(paddr[15:0]), .pwdata(pwdata),
        .prdata(x_rd), .pready(x_rdy), .pslverr(x_err)
    );

    // ---- injection: unit -> exchanger port 0; ejection: port 0 -> unit (latency 1)
    hx_link #(.W(W), .L(1), .LR(LR), .B(B), .CW(CW), .CPOLY(CPOLY), .KW(KW), .KPOLY(KPOLY)) inj (
        .clk(clk), .rst(rst),
        .in_valid(inj_valid), .in_flit(inj_flit),
        .out_valid(x_in_valid[0]), .out_flit(x_in_flit[0 +: W]),
        .crd_in(x_in_credit[0]), .crd_out(inj_credit)
    );
    hx_link #(.W(W), .L(1), .LR(LR), .B(B), .CW(CW), .CPOLY(CPOLY), .KW(KW), .KPOLY(KPOLY)) ej (
        .clk(clk), .rst(rst),
        .in_valid(x_out_valid[0]), .in_flit(x_out_flit[0 +: W]),
        .out_valid(ej_valid), .out_flit(ej_flit),
        .crd_in(ej_credit), .crd_out(x_out_credit[0])
    );

    // ---- exchanger port k+1 <-> the dimension-k crossbar (latency L)
    genvar k;
    generate
        for (k = 0; k < NDIM; k = k + 1) begin : g_dim
            hx_link #(.W(W), .L(L), .LR(LR), .B(B), .CW(CW), .CPOLY(CPOLY), .KW(KW), .KPOLY(KPOLY)) up (
                .clk(clk), .rst(rst),
                .in_valid(x_out_valid[k+1]), .in_flit(x_out_flit[(k+1)*W +: W]),
                .out_valid(up_valid[k]), .out_flit(up_flit[k*W +: W]),
                .crd_in(up_credit[k]), .crd_out(x_out_credit[k+1])
            );
            hx_link #(.W(W), .L(L), .LR(LR), .B(B), .CW(CW), .CPOLY(CPOLY), .KW(KW), .KPOLY(KPOLY)) down (
                .clk(clk), .rst(rst),
                .in_valid(down_valid[k]), .in_flit(down_flit[k*W +: W]),
                .out_valid(x_in_valid[k+1]), .out_flit(x_in_flit[(k+1)*W +: W]),
                .crd_in(x_in_credit[k+1]), .crd_out(down_credit[k])
            );
        end
    endgenerate
endmodule
