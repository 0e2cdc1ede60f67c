// hx_link: one direction of a link as the tiles and the top level build it:
// an hx_chan named ch, and with link-level retry (LR > 0, docs/
// reliability.md, "Link-level retry") the hx_link_tx g_rt.tx before it and
// the hx_link_rx g_rt.rx after it. Its ports are those of a plain channel
// in either case: the flit an output sends (in_*), the flit pushed into
// the downstream FIFO (out_*), the downstream's pop (crd_in) and the credit
// pulse to the output's counter (crd_out). With retry, ch carries the
// link's wire {chk[CW-1:0], seq, flit} (the flit in its low bits) and the
// receiver's credit word {chk[KW-1:0], pops}, and the ACK word {chk[KW-1:0],
// count} returns beside it; the link
// takes max(L, 2) cycles (its check reads a register).
//
// The generated testbench injects faults into ch (fi_mask, fi_kill,
// fi_ckill) and g_rt.rx (fi_ackflip) hierarchically (docs/cosim.md).
`timescale 1ns / 1ps
module hx_link #(
    parameter integer W  = 8,    // flit width (FW+2+CB)
    parameter integer L  = 1,    // link latency without retry, >= 1
    parameter integer LR = 0,    // replay buffer entries; 0: no link-level retry
    parameter integer B  = 2,    // downstream FIFO depth (retry only)
    parameter integer CW = 16,   // link check code bits (retry only; hw.LinkCode)
    parameter [CW-1:0] CPOLY = 16'h5935,  // its polynomial (retry only)
    parameter integer KW = 5,    // ACK and credit word code bits (retry only; hw.CountCode)
    parameter [KW-1:0] KPOLY = 5'h15      // its polynomial (retry only)
) (
    input          clk,
    input          rst,          // synchronous, active high
    input          in_valid,
    input  [W-1:0] in_flit,
    output         out_valid,
    output [W-1:0] out_flit,
    input          crd_in,       // downstream FIFO popped
    output         crd_out       // credit to the output's counter
);
    localparam integer LS = $clog2((LR > B ? LR : B) + 1);   // link sequence number bits
    localparam integer CWID = (LR > 0) ? W + LS + CW : W;   // ch's width: the wire
    localparam integer CC = (LR > 0) ? LS + KW : 1;         // ch's credit path: word or pulse
    localparam integer LL = (LR > 0 && L < 2) ? 2 : L;      // ch's latency

    wire            c_iv, c_ov;
    wire [CWID-1:0] c_if, c_of;
    wire [CC-1:0]   c_ci, c_co;
    hx_chan #(.W(CWID), .L(LL), .C(CC)) ch (
        .clk(clk), .rst(rst),
        .in_valid(c_iv), .in_flit(c_if),
        .out_valid(c_ov), .out_flit(c_of),
        .crd_in(c_ci), .crd_out(c_co)
    );
    generate
        if (LR == 0) begin : g_plain
            assign c_iv = in_valid;
            assign c_if = in_flit;
            assign out_valid = c_ov;
            assign out_flit = c_of;
            assign c_ci = crd_in;
            assign crd_out = c_co;
        end else begin : g_rt
            wire [LS+KW-1:0] ack;
            hx_link_tx #(.W(W), .L(LL), .R(LR), .B(B), .CW(CW), .CPOLY(CPOLY), .KW(KW), .KPOLY(KPOLY)) tx (
                .clk(clk), .rst(rst), .in_valid(in_valid), .in_flit(in_flit),
                .out_valid(c_iv), .out_flit(c_if), .ack(ack),
                .crd_in(c_co), .crd_out(crd_out)
            );
            hx_link_rx #(.W(W), .L(LL), .R(LR), .B(B), .CW(CW), .CPOLY(CPOLY), .KW(KW), .KPOLY(KPOLY)) rx (
                .clk(clk), .rst(rst), .in_valid(c_ov), .in_flit(c_of),
                .out_valid(out_valid), .out_flit(out_flit), .ack(ack),
                .pop(crd_in), .crd(c_ci)
            );
        end
    endgenerate
endmodule
