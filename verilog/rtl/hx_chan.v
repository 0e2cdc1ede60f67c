// hx_chan: one direction of a link, upstream output -> downstream FIFO,
// together with the credit return path of the same channel.
//
// Latency L (>= 1): a flit sent in cycle t is pushed into the downstream FIFO
// by the edge that ends cycle t+L-1, so the downstream sees it from cycle
// t+L on; a pop in cycle t reaches the upstream counter at the edge that ends
// cycle t+L-1, so the credit counts from cycle t+L on. Both paths are
// therefore L-1 registers long; L = 1 is plain wiring (the FIFO write and
// the counter update are the Lth stage). The credit path carries C bits:
// a pulse (C = 1), or with link-level retry the receiver's credit word
// {chk, pops} (hx_link_rx), read by hx_link_tx.
`timescale 1ns / 1ps
module hx_chan #(
    parameter integer W = 8,   // flit width (FW+2+CB)
    parameter integer L = 1,   // link latency in cycles, >= 1
    parameter integer C = 1    // credit path width: 1 (pulse) or a credit word
) (
    input          clk,
    input          rst,          // synchronous, active high
    // forward path: upstream output -> downstream FIFO push
    input          in_valid,
    input  [W-1:0] in_flit,
    output         out_valid,
    output [W-1:0] out_flit,
    // backward path: downstream pop -> upstream credit counter
    input  [C-1:0] crd_in,
    output [C-1:0] crd_out
);
    // Fault injection (simulation only, docs/reliability.md): the
    // generated testbench writes these hierarchically at a falling edge to
    // act on the flit the upstream sends in that cycle. fi_mask inverts
    // bits of the flit (a flip), fi_kill loses it (valid forced to 0: a
    // drop or a dead channel); fi_hit records, at the edge, that a flit
    // was lost, so that the testbench can give a dropped flit's credit
    // back to the sender. fi_ckill loses the credit returned in that cycle
    // (a creditdrop): a pulse is forced to 0, a credit word has its bit 0
    // inverted (its code fails: the sender ignores it). Synthesis sees
    // the plain channel.
    wire         v_in;
    wire [W-1:0] f_in;
    wire [C-1:0] c_in;
`ifndef SYNTHESIS
    reg  [W-1:0] fi_mask  = {W{1'b0}};
    reg          fi_kill  = 1'b0;
    reg          fi_ckill = 1'b0;
    /* verilator lint_off UNUSED */
    reg          fi_hit  = 1'b0;   // read by the testbench only
    /* verilator lint_on UNUSED */
    always @(posedge clk)
        fi_hit <= fi_kill && in_valid;
    assign v_in = in_valid && !fi_kill;
    assign f_in = in_flit ^ fi_mask;
    generate
        if (C == 1) begin : g_ck1
            assign c_in = crd_in & ~fi_ckill;
        end else begin : g_ckw
            assign c_in = crd_in ^ {{C-1{1'b0}}, fi_ckill};
        end
    endgenerate
`else
    assign v_in = in_valid;
    assign f_in = in_flit;
    assign c_in = crd_in;
`endif
    generate
        if (L == 1) begin : g_wire
            assign out_valid = v_in;
            assign out_flit  = f_in;
            assign crd_out   = c_in;
            // No state at L = 1; keep the clock and reset ports for a uniform
            // interface.
            wire _unused_ok = &{1'b0, clk, rst};
        end else begin : g_pipe
            localparam D = L - 1;   // pipeline stages
            reg [D-1:0]   vld;      // vld[0] is the stage written first
            reg [C*D-1:0] crd;      // stage s at crd[C*s +: C]
            reg [W*D-1:0] dat;      // stage s at dat[W*s +: W]
            integer s;

            assign out_valid = vld[D-1];
            assign out_flit  = dat[W*(D-1) +: W];
            assign crd_out   = crd[C*(D-1) +: C];

            always @(posedge clk) begin
                if (rst) begin
                    vld <= {D{1'b0}};
                    crd <= {C*D{1'b0}};
                end else begin
                    vld[0] <= v_in;
                    crd[0 +: C] <= c_in;
                    for (s = 1; s < D; s = s + 1) begin
                        vld[s] <= vld[s-1];
                        crd[C*s +: C] <= crd[C*(s-1) +: C];
                    end
                end
                // Data needs no reset: it is qualified by vld.
                dat[0 +: W] <= f_in;
                for (s = 1; s < D; s = s + 1)
                    dat[W*s +: W] <= dat[W*(s-1) +: W];
            end
        end
    endgenerate
endmodule
