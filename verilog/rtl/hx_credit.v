// hx_credit: the upstream credit counter of one channel.
//
// Reset to B (the downstream FIFO is empty). A flit may be sent in cycle t
// only while the counter, as it reads during cycle t, is non-zero; sending
// costs one credit and a credit returned by the channel (the downstream pop,
// delayed by L-1 registers in hx_chan) is added by the same edge:
//   credits <= credits - sent + returned.
// "ok" is therefore a function of the register only, never of this cycle's
// return, which is what makes the credit round trip exactly 2L cycles.
`timescale 1ns / 1ps
module hx_credit #(
    parameter integer B = 2          // downstream FIFO depth, 1..64
) (
    input  clk,
    input  rst,              // synchronous, active high
    input  take,             // a flit is sent this cycle (only when ok)
    input  give,             // a credit arrives from the channel this cycle
    output ok                // at least one credit
);
    localparam CW = $clog2(B + 1);
    localparam [CW-1:0] FULL = B[CW-1:0];
    localparam [CW-1:0] ONE  = 1;
    localparam [CW-1:0] ZERO = 0;

    reg [CW-1:0] cnt;

    assign ok = (cnt != ZERO);

    always @(posedge clk) begin
        if (rst)
            cnt <= FULL;
        else
            cnt <= cnt - (take ? ONE : ZERO) + (give ? ONE : ZERO);
    end

`ifndef SYNTHESIS
    always @(posedge clk) begin
        if (!rst) begin
            if (take && !ok)
                $fatal(1, "%m: flit sent without a credit");
            if (give && !take && cnt == FULL)
                $fatal(1, "%m: credit returned beyond the buffer depth");
        end
    end
`endif
endmodule
