// grid2_top: hand-written smoke-test system, a 2-D 2x2 hyper-crossbar:
// 4 exchangers (3 ports: local, dimension 0, dimension 1), 4 crossbars of 2
// ports (two lines per dimension) and 4 barrier units, rank r on node r.
// Node n has coordinates c0 = n % 2, c1 = n / 2 and address c0 | c1 << 1.
// Wired as docs/rtl.md prescribes for generated top levels.
//
// Table files (simulator working directory), named by the Go model's switch
// ids: exchangers 0..3, dimension-0 crossbars 4 (c1 = 0) and 5 (c1 = 1),
// dimension-1 crossbars 6 (c0 = 0) and 7 (c0 = 1):
//   gt_n<n>.hex  gate table of node n;  rt_s<id>.hex  routing table of switch id
`timescale 1ns / 1ps
module grid2_top #(
    parameter integer K   = 4,            // nodes; must be 4
    parameter integer L   = 1,            // network link latency
    parameter integer B   = 2,            // buffer depth
    parameter integer FW  = 64,           // flit data width
    parameter integer OP  = 0,            // reduction op (hx_alu codes)
    parameter [127:0] NGV = {4{32'd2}},  // G of node n at [32n +: 32]
    parameter [127:0] NWV = {4{32'd6}},  // body words of node n at [32n +: 32]
    parameter integer AB  = 2,            // address bits: 1 + 1
    parameter integer RB  = 2             // rank bits
) (
    input              clk,
    input              rst,
    input  [K-1:0]     arrive,
    input  [K*64-1:0]  operand,
    output [K-1:0]     released,
    output [K*64-1:0]  result,
    output [K-1:0]     has_rank,
    output [K*RB-1:0]  rank,
    output [K-1:0]     ev_arrive,
    output [K-1:0]     ev_gate,
    output [K-1:0]     ev_release,
    output [K*6-1:0]   ev_gnum,
    output [K*64-1:0]  ev_value,
    output [K-1:0]     ev_send,
    output [K*RB-1:0]  ev_send_to,
    output [K*6-1:0]   ev_send_gate,
    output [K-1:0]     ev_recv,
    output [K*RB-1:0]  ev_recv_from,
    output [K*6-1:0]   ev_recv_gate,
    output [K*64-1:0]  ev_recv_value
);
    localparam W = FW + 2;

    // Crossbar ports, 2 lines x 2 ports per dimension: line l, port j at
    // index 2*l + j. Dimension 0: line c1, port c0. Dimension 1: line c0,
    // port c1.
    wire [3:0]   d0_in_valid, d0_in_credit, d0_out_valid, d0_out_credit;
    wire [3:0]   d1_in_valid, d1_in_credit, d1_out_valid, d1_out_credit;
    wire [4*W-1:0] d0_in_flit, d0_out_flit, d1_in_flit, d1_out_flit;

    genvar l, n;
    generate
        for (l = 0; l < 2; l = l + 1) begin : line
            localparam T0 = (l == 0) ? "rt_s4.hex" : "rt_s5.hex";
            localparam T1 = (l == 0) ? "rt_s6.hex" : "rt_s7.hex";
            hx_switch #(.P(2), .FW(FW), .B(B), .MODE(1), .NDIM(2), .K0(2), .K1(2),
                        .XDIM(0), .TABLE(T0)) xb0 (
                .clk(clk), .rst(rst),
                .in_valid(d0_in_valid[2*l +: 2]), .in_flit(d0_in_flit[2*W*l +: 2*W]),
                .in_credit(d0_in_credit[2*l +: 2]),
                .out_valid(d0_out_valid[2*l +: 2]), .out_flit(d0_out_flit[2*W*l +: 2*W]),
                .out_credit(d0_out_credit[2*l +: 2])
            );
            hx_switch #(.P(2), .FW(FW), .B(B), .MODE(1), .NDIM(2), .K0(2), .K1(2),
                        .XDIM(1), .TABLE(T1)) xb1 (
                .clk(clk), .rst(rst),
                .in_valid(d1_in_valid[2*l +: 2]), .in_flit(d1_in_flit[2*W*l +: 2*W]),
                .in_credit(d1_in_credit[2*l +: 2]),
                .out_valid(d1_out_valid[2*l +: 2]), .out_flit(d1_out_flit[2*W*l +: 2*W]),
                .out_credit(d1_out_credit[2*l +: 2])
            );
        end

        for (n = 0; n < 4; n = n + 1) begin : node
            localparam GT = (n == 0) ? "gt_n0.hex" : (n == 1) ? "gt_n1.hex" :
                            (n == 2) ? "gt_n2.hex" : "gt_n3.hex";
            localparam RT = (n == 0) ? "rt_s0.hex" : (n == 1) ? "rt_s1.hex" :
                            (n == 2) ? "rt_s2.hex" : "rt_s3.hex";
            localparam C0 = n % 2;
            localparam C1 = n / 2;
            localparam X0 = 2 * C1 + C0;   // index of this node on its dim-0 crossbar
            localparam X1 = 2 * C0 + C1;   // index of this node on its dim-1 crossbar

            // exchanger ports: 0 = local, 1 = dimension 0, 2 = dimension 1
            wire [2:0]     x_in_valid, x_in_credit, x_out_valid, x_out_credit;
            wire [3*W-1:0] x_in_flit, x_out_flit;

            hx_switch #(.P(3), .FW(FW), .B(B), .MODE(0), .NDIM(2), .K0(2), .K1(2),
                        .TABLE(RT)) xchg (
                .clk(clk), .rst(rst),
                .in_valid(x_in_valid), .in_flit(x_in_flit), .in_credit(x_in_credit),
                .out_valid(x_out_valid), .out_flit(x_out_flit), .out_credit(x_out_credit)
            );

            wire         inj_valid, inj_credit, ej_valid, ej_credit;
            wire [W-1:0] inj_flit, ej_flit;

            hx_barrier_unit #(.FW(FW), .B(B), .OP(OP), .AB(AB), .RB(RB),
                              .NG(NGV[32*n +: 32]), .NWORDS(NWV[32*n +: 32]),
                              .TABLE(GT)) bu (
                .clk(clk), .rst(rst),
                .arrive(arrive[n]), .operand(operand[64*n +: 64]),
                .released(released[n]), .result(result[64*n +: 64]),
                .inj_valid(inj_valid), .inj_flit(inj_flit), .inj_credit(inj_credit),
                .ej_valid(ej_valid), .ej_flit(ej_flit), .ej_credit(ej_credit),
                .has_rank(has_rank[n]), .rank(rank[RB*n +: RB]),
                .ev_arrive(ev_arrive[n]), .ev_gate(ev_gate[n]), .ev_release(ev_release[n]),
                .ev_gnum(ev_gnum[6*n +: 6]), .ev_value(ev_value[64*n +: 64]),
                .ev_send(ev_send[n]), .ev_send_to(ev_send_to[RB*n +: RB]),
                .ev_send_gate(ev_send_gate[6*n +: 6]),
                .ev_recv(ev_recv[n]), .ev_recv_from(ev_recv_from[RB*n +: RB]),
                .ev_recv_gate(ev_recv_gate[6*n +: 6]), .ev_recv_value(ev_recv_value[64*n +: 64])
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
