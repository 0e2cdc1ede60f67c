// line_top: hand-written smoke-test system, a 1-D hyper-crossbar of K nodes
// (K = 2..4) on one line: K exchangers (2 ports), one crossbar (K ports),
// K barrier units, rank r on node r. It is wired exactly as docs/rtl.md
// prescribes for generated top levels, so it doubles as a reference for the
// generator.
//
// Table files are read from the simulator's working directory and named
// after the Go model's switch ids (exchanger of node n = switch n, the
// crossbar = switch K):
//   gt_n<n>.hex  gate table of the barrier unit on node n
//   rt_s<n>.hex  routing table of the exchanger of node n
//   rt_s<K>.hex  routing table of the crossbar
//   dt_n<n>.hex  data table of the barrier unit on node n (DATA = 1 only)
`timescale 1ns / 1ps
module line_top #(
    parameter integer K   = 2,            // nodes on the line, 2..4
    parameter integer L   = 1,            // network link latency
    parameter integer B   = 2,            // buffer depth
    parameter integer FW  = 64,           // flit data width
    parameter integer OP  = 0,            // reduction op (hx_alu codes)
    parameter [127:0] NGV = {4{32'd1}},  // G of node n at [32n +: 32]
    parameter [127:0] NWV = {4{32'd4}},  // body words of node n at [32n +: 32]
    parameter integer DATA = 0,           // 1: data mode, data tables dt_n<n>.hex
    parameter integer IF  = 1,            // data mode: flits per item
    parameter [127:0] NDWV = {4{32'd1}}, // data mode: data table words of node n at [32n +: 32]
    parameter integer AB  = (K <= 2) ? 1 : $clog2(K),  // address bits (1-D: c0)
    parameter integer RB  = AB                         // rank bits (ranks = nodes here)
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
    localparam W  = FW + 2;

    localparam XT = (K == 2) ? "rt_s2.hex" : (K == 3) ? "rt_s3.hex" : "rt_s4.hex";

    // Crossbar side of the line: port n faces node n.
    wire [K-1:0]   xb_in_valid, xb_in_credit, xb_out_valid, xb_out_credit;
    wire [K*W-1:0] xb_in_flit, xb_out_flit;

    hx_switch #(.P(K), .FW(FW), .B(B), .MODE(1), .NDIM(1), .K0(K), .XDIM(0),
                .TABLE(XT)) xbar (
        .clk(clk), .rst(rst),
        .in_valid(xb_in_valid), .in_flit(xb_in_flit), .in_credit(xb_in_credit),
        .out_valid(xb_out_valid), .out_flit(xb_out_flit), .out_credit(xb_out_credit)
    );

    genvar n;
    generate
        for (n = 0; n < K; n = n + 1) begin : node
            localparam GT = (n == 0) ? "gt_n0.hex" : (n == 1) ? "gt_n1.hex" :
                            (n == 2) ? "gt_n2.hex" : "gt_n3.hex";
            localparam DT = (n == 0) ? "dt_n0.hex" : (n == 1) ? "dt_n1.hex" :
                            (n == 2) ? "dt_n2.hex" : "dt_n3.hex";
            localparam RT = (n == 0) ? "rt_s0.hex" : (n == 1) ? "rt_s1.hex" :
                            (n == 2) ? "rt_s2.hex" : "rt_s3.hex";

            // exchanger ports: 0 = local, 1 = dimension-0 crossbar
            wire [1:0]   x_in_valid, x_in_credit, x_out_valid, x_out_credit;
            wire [2*W-1:0] x_in_flit, x_out_flit;

            hx_switch #(.P(2), .FW(FW), .B(B), .MODE(0), .NDIM(1), .K0(K),
                        .TABLE(RT)) xchg (
                .clk(clk), .rst(rst),
                .in_valid(x_in_valid), .in_flit(x_in_flit), .in_credit(x_in_credit),
                .out_valid(x_out_valid), .out_flit(x_out_flit), .out_credit(x_out_credit)
            );

            // barrier unit <-> exchanger port 0: injection and ejection, L = 1
            wire         inj_valid, inj_credit, ej_valid, ej_credit;
            wire [W-1:0] inj_flit, ej_flit;

            hx_barrier_unit #(.FW(FW), .B(B), .OP(OP), .AB(AB), .RB(RB),
                              .NG(NGV[32*n +: 32]), .NWORDS(NWV[32*n +: 32]),
                              .TABLE(GT), .DATA(DATA), .IF(IF),
                              .NDW(NDWV[32*n +: 32]), .DTABLE(DT)) bu (
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
