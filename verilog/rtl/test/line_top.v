// line_top: hand-written smoke-test system, a 1-D hyper-crossbar of K nodes
// (K = 2..4) on one line: K exchangers (2 ports), one crossbar (K ports),
// K barrier units, rank r on node r. It is wired exactly as docs/rtl.md
// prescribes for generated top levels, so it doubles as a reference for the
// generator.
//
// No table is in the source or read from a file: every unit is configured
// through its own APB port (cfg_*, node n at bit n / [32n +: 32]) and every
// switch through the fabric port (fab_*: fab_paddr[31:16] is the switch
// number, as the Go model numbers them: exchanger of node n = switch n, the
// crossbar = switch K; fab_paddr[15:0] the switch's address), as
// docs/registers.md gives them for hx_top. The smoke tests' loader
// (hx_tbl_load) writes the tables gt_n<n>.hex, rt_s<id>.hex and dt_n<n>.hex
// through them before cycle 0.
`timescale 1ns / 1ps
module line_top #(
    parameter integer K    = 2,           // nodes on the line, 2..4
    parameter integer L    = 1,           // network link latency
    parameter integer B    = 2,           // buffer depth
    parameter integer FW   = 64,          // flit data width
    parameter integer MAXG = 1,           // units: gate capacity, 1..62
    parameter integer NRT  = 1,           // units: route words capacity, >= 1
    parameter integer DATA = 0,           // 1: units with a data engine (docs/transfers.md)
    parameter integer NIL  = 1,           // units: item-list words capacity (data engine)
    parameter integer AB   = (K <= 2) ? 1 : $clog2(K),  // address bits (1-D: c0)
    parameter integer RB   = AB                         // rank bits (ranks = nodes here)
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
    localparam NSW = K + 1;    // switches: exchangers 0..K-1, crossbar K

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

    // Crossbar side of the line: port n faces node n.
    wire [K-1:0]   xb_in_valid, xb_in_credit, xb_out_valid, xb_out_credit;
    wire [K*W-1:0] xb_in_flit, xb_out_flit;

    hx_switch #(.P(K), .FW(FW), .B(B), .MODE(1), .NDIM(1), .K0(K), .XDIM(0)) xbar (
        .clk(clk), .rst(rst),
        .in_valid(xb_in_valid), .in_flit(xb_in_flit), .in_credit(xb_in_credit),
        .out_valid(xb_out_valid), .out_flit(xb_out_flit), .out_credit(xb_out_credit),
        .psel(fab_psel && fab_sel[K]), .penable(fab_penable), .pwrite(fab_pwrite),
        .paddr(fab_paddr[15:0]), .pwdata(fab_pwdata), .prdata(fab_rd_v[32*K +: 32]),
        .pready(fab_rdy_v[K]), .pslverr(fab_err_v[K])
    );

    genvar n;
    generate
        for (n = 0; n < K; n = n + 1) begin : node
            // exchanger ports: 0 = local, 1 = dimension-0 crossbar
            wire [1:0]   x_in_valid, x_in_credit, x_out_valid, x_out_credit;
            wire [2*W-1:0] x_in_flit, x_out_flit;

            hx_switch #(.P(2), .FW(FW), .B(B), .MODE(0), .NDIM(1), .K0(K)) xchg (
                .clk(clk), .rst(rst),
                .in_valid(x_in_valid), .in_flit(x_in_flit), .in_credit(x_in_credit),
                .out_valid(x_out_valid), .out_flit(x_out_flit), .out_credit(x_out_credit),
                .psel(fab_psel && fab_sel[n]), .penable(fab_penable), .pwrite(fab_pwrite),
                .paddr(fab_paddr[15:0]), .pwdata(fab_pwdata), .prdata(fab_rd_v[32*n +: 32]),
                .pready(fab_rdy_v[n]), .pslverr(fab_err_v[n])
            );

            // barrier unit <-> exchanger port 0: injection and ejection, L = 1
            wire         inj_valid, inj_credit, ej_valid, ej_credit;
            wire [W-1:0] inj_flit, ej_flit;
            /* verilator lint_off UNUSED */
            wire         irq;   // these smoke tops enable no interrupt
            /* verilator lint_on UNUSED */

            hx_barrier_unit #(.FW(FW), .B(B), .AB(AB), .RB(RB), .MAXG(MAXG), .NRT(NRT),
                              .DATA(DATA), .NIL(NIL)) bu (
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
            // exchanger port 1 <-> crossbar port n, latency L both ways
            hx_chan #(.W(W), .L(L)) up (
                .clk(clk), .rst(rst),
                .in_valid(x_out_valid[1]), .in_flit(x_out_flit[W +: W]),
                .out_valid(xb_in_valid[n]), .out_flit(xb_in_flit[W*n +: W]),
                .crd_in(xb_in_credit[n]), .crd_out(x_out_credit[1])
            );
            hx_chan #(.W(W), .L(L)) down (
                .clk(clk), .rst(rst),
                .in_valid(xb_out_valid[n]), .in_flit(xb_out_flit[W*n +: W]),
                .out_valid(x_in_valid[1]), .out_flit(x_in_flit[W +: W]),
                .crd_in(x_in_credit[1]), .crd_out(xb_out_credit[n])
            );
        end
    endgenerate
endmodule
