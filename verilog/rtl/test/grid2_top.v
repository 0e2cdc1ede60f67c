// grid2_top: hand-written smoke-test system, a 2-D 2x2 hyper-crossbar:
// 4 exchangers (3 ports: local, dimension 0, dimension 1), 4 crossbars of 2
// ports (two lines per dimension) and 4 barrier units, rank r on node r.
// Node n has coordinates c0 = n % 2, c1 = n / 2 and address c0 | c1 << 1.
// Wired as docs/rtl.md prescribes for generated top levels.
//
// Configuration ports as in line_top (docs/registers.md): cfg_* per unit,
// fab_* for the switches, fab_paddr[31:16] = the Go model's switch id:
// exchangers 0..3, dimension-0 crossbars 4 (c1 = 0) and 5 (c1 = 1),
// dimension-1 crossbars 6 (c0 = 0) and 7 (c0 = 1). The smoke tests' loader
// writes gt_n<n>.hex and rt_s<id>.hex through them before cycle 0.
`timescale 1ns / 1ps
module grid2_top #(
    parameter integer K    = 4,           // nodes; must be 4
    parameter integer L    = 1,           // network link latency
    parameter integer B    = 2,           // buffer depth
    parameter integer FW   = 64,          // flit data width
    parameter integer MAXG = 2,           // units: gate capacity, 1..62
    parameter integer NRT  = 2,           // units: route words capacity, >= 1
    parameter integer AB   = 2,           // address bits: 1 + 1
    parameter integer RB   = 2            // rank bits
) (
    input              clk,
    input              rst,
    input  [K-1:0]     arrive,
    input  [K*64-1:0]  operand,
    output [K-1:0]     released,
    output [K*64-1:0]  result,
    // one APB port per barrier unit: node n at bit n / [32n +: 32]
    input  [K-1:0]     cfg_psel,
    input  [K-1:0]     cfg_penable,
    input  [K-1:0]     cfg_pwrite,
    input  [K*32-1:0]  cfg_paddr,
    input  [K*32-1:0]  cfg_pwdata,
    output [K*32-1:0]  cfg_prdata,
    output [K-1:0]     cfg_pready,
    output [K-1:0]     cfg_pslverr,
    // the fabric port: fab_paddr[31:16] selects the switch
    input              fab_psel,
    input              fab_penable,
    input              fab_pwrite,
    input  [31:0]      fab_paddr,
    input  [31:0]      fab_pwdata,
    output [31:0]      fab_prdata,
    output             fab_pready,
    output             fab_pslverr
);
    localparam W   = FW + 2;
    localparam NSW = 8;

    // Fabric port: switch s answers when fab_paddr[31:16] == s; an access
    // that selects no switch is refused (pslverr).
    wire [NSW-1:0]    fab_sel, fab_err_v, fab_rdy_v;
    wire [NSW*32-1:0] fab_rd_v;
    reg  [31:0]       fab_rd;
    genvar s;
    generate
        for (s = 0; s < NSW; s = s + 1) begin : fsel
            localparam [15:0] SN = s;
            assign fab_sel[s] = (fab_paddr[31:16] == SN);
        end
    endgenerate
    integer fs;
    always @* begin
        fab_rd = 32'd0;
        for (fs = 0; fs < NSW; fs = fs + 1)
            fab_rd = fab_rd | ({32{fab_sel[fs]}} & fab_rd_v[32*fs +: 32]);
    end
    assign fab_prdata  = fab_rd;
    assign fab_pready  = &fab_rdy_v;
    assign fab_pslverr = fab_psel && fab_penable &&
                         (fab_sel == {NSW{1'b0}} || |(fab_sel & fab_err_v));

    // Crossbar ports, 2 lines x 2 ports per dimension: line l, port j at
    // index 2*l + j. Dimension 0: line c1, port c0. Dimension 1: line c0,
    // port c1.
    wire [3:0]   d0_in_valid, d0_in_credit, d0_out_valid, d0_out_credit;
    wire [3:0]   d1_in_valid, d1_in_credit, d1_out_valid, d1_out_credit;
    wire [4*W-1:0] d0_in_flit, d0_out_flit, d1_in_flit, d1_out_flit;

    genvar l, n;
    generate
        for (l = 0; l < 2; l = l + 1) begin : line
            localparam S0 = 4 + l;     // dimension-0 crossbar of line l
            localparam S1 = 6 + l;     // dimension-1 crossbar of line l
            hx_switch #(.P(2), .FW(FW), .B(B), .MODE(1), .NDIM(2), .K0(2), .K1(2),
                        .XDIM(0)) xb0 (
                .clk(clk), .rst(rst),
                .in_valid(d0_in_valid[2*l +: 2]), .in_flit(d0_in_flit[2*W*l +: 2*W]),
                .in_credit(d0_in_credit[2*l +: 2]),
                .out_valid(d0_out_valid[2*l +: 2]), .out_flit(d0_out_flit[2*W*l +: 2*W]),
                .out_credit(d0_out_credit[2*l +: 2]),
                .psel(fab_psel && fab_sel[S0]), .penable(fab_penable), .pwrite(fab_pwrite),
                .paddr(fab_paddr[15:0]), .pwdata(fab_pwdata), .prdata(fab_rd_v[32*S0 +: 32]),
                .pready(fab_rdy_v[S0]), .pslverr(fab_err_v[S0])
            );
            hx_switch #(.P(2), .FW(FW), .B(B), .MODE(1), .NDIM(2), .K0(2), .K1(2),
                        .XDIM(1)) xb1 (
                .clk(clk), .rst(rst),
                .in_valid(d1_in_valid[2*l +: 2]), .in_flit(d1_in_flit[2*W*l +: 2*W]),
                .in_credit(d1_in_credit[2*l +: 2]),
                .out_valid(d1_out_valid[2*l +: 2]), .out_flit(d1_out_flit[2*W*l +: 2*W]),
                .out_credit(d1_out_credit[2*l +: 2]),
                .psel(fab_psel && fab_sel[S1]), .penable(fab_penable), .pwrite(fab_pwrite),
                .paddr(fab_paddr[15:0]), .pwdata(fab_pwdata), .prdata(fab_rd_v[32*S1 +: 32]),
                .pready(fab_rdy_v[S1]), .pslverr(fab_err_v[S1])
            );
        end

        for (n = 0; n < 4; n = n + 1) begin : node
            localparam C0 = n % 2;
            localparam C1 = n / 2;
            localparam X0 = 2 * C1 + C0;   // index of this node on its dim-0 crossbar
            localparam X1 = 2 * C0 + C1;   // index of this node on its dim-1 crossbar

            // exchanger ports: 0 = local, 1 = dimension 0, 2 = dimension 1
            wire [2:0]     x_in_valid, x_in_credit, x_out_valid, x_out_credit;
            wire [3*W-1:0] x_in_flit, x_out_flit;

            hx_switch #(.P(3), .FW(FW), .B(B), .MODE(0), .NDIM(2), .K0(2), .K1(2)) xchg (
                .clk(clk), .rst(rst),
                .in_valid(x_in_valid), .in_flit(x_in_flit), .in_credit(x_in_credit),
                .out_valid(x_out_valid), .out_flit(x_out_flit), .out_credit(x_out_credit),
                .psel(fab_psel && fab_sel[n]), .penable(fab_penable), .pwrite(fab_pwrite),
                .paddr(fab_paddr[15:0]), .pwdata(fab_pwdata), .prdata(fab_rd_v[32*n +: 32]),
                .pready(fab_rdy_v[n]), .pslverr(fab_err_v[n])
            );

            wire         inj_valid, inj_credit, ej_valid, ej_credit;
            wire [W-1:0] inj_flit, ej_flit;
            /* verilator lint_off UNUSED */
            wire         irq;   // these smoke tops enable no interrupt
            /* verilator lint_on UNUSED */

            hx_barrier_unit #(.FW(FW), .B(B), .AB(AB), .RB(RB), .MAXG(MAXG), .NRT(NRT)) bu (
                .clk(clk), .rst(rst),
                .arrive(arrive[n]), .operand(operand[64*n +: 64]),
                .released(released[n]), .result(result[64*n +: 64]),
                .inj_valid(inj_valid), .inj_flit(inj_flit), .inj_credit(inj_credit),
                .ej_valid(ej_valid), .ej_flit(ej_flit), .ej_credit(ej_credit),
                .psel(cfg_psel[n]), .penable(cfg_penable[n]), .pwrite(cfg_pwrite[n]),
                .paddr(cfg_paddr[32*n +: 32]), .pwdata(cfg_pwdata[32*n +: 32]),
                .prdata(cfg_prdata[32*n +: 32]), .pready(cfg_pready[n]),
                .pslverr(cfg_pslverr[n]), .irq(irq)
            );

            // injection / ejection, L = 1
            hx_chan #(.W(W), .L(1)) inj (
                .clk(clk), .rst(rst),
                .in_valid(inj_valid), .in_flit(inj_flit),
                .out_valid(x_in_valid[0]), .out_flit(x_in_flit[0 +: W]),
                .crd_in(x_in_credit[0]), .crd_out(inj_credit)
            );
            hx_chan #(.W(W), .L(1)) ej (
                .clk(clk), .rst(rst),
                .in_valid(x_out_valid[0]), .in_flit(x_out_flit[0 +: W]),
                .out_valid(ej_valid), .out_flit(ej_flit),
                .crd_in(ej_credit), .crd_out(x_out_credit[0])
            );
            // exchanger port 1 <-> dimension-0 crossbar (line C1, port C0)
            hx_chan #(.W(W), .L(L)) up0 (
                .clk(clk), .rst(rst),
                .in_valid(x_out_valid[1]), .in_flit(x_out_flit[W +: W]),
                .out_valid(d0_in_valid[X0]), .out_flit(d0_in_flit[W*X0 +: W]),
                .crd_in(d0_in_credit[X0]), .crd_out(x_out_credit[1])
            );
            hx_chan #(.W(W), .L(L)) down0 (
                .clk(clk), .rst(rst),
                .in_valid(d0_out_valid[X0]), .in_flit(d0_out_flit[W*X0 +: W]),
                .out_valid(x_in_valid[1]), .out_flit(x_in_flit[W +: W]),
                .crd_in(x_in_credit[1]), .crd_out(d0_out_credit[X0])
            );
            // exchanger port 2 <-> dimension-1 crossbar (line C0, port C1)
            hx_chan #(.W(W), .L(L)) up1 (
                .clk(clk), .rst(rst),
                .in_valid(x_out_valid[2]), .in_flit(x_out_flit[2*W +: W]),
                .out_valid(d1_in_valid[X1]), .out_flit(d1_in_flit[W*X1 +: W]),
                .crd_in(d1_in_credit[X1]), .crd_out(x_out_credit[2])
            );
            hx_chan #(.W(W), .L(L)) down1 (
                .clk(clk), .rst(rst),
                .in_valid(d1_out_valid[X1]), .in_flit(d1_out_flit[W*X1 +: W]),
                .out_valid(x_in_valid[2]), .out_flit(x_in_flit[2*W +: W]),
                .crd_in(x_in_credit[2]), .crd_out(d1_out_credit[X1])
            );
        end
    endgenerate
endmodule
