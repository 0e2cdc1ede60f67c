// hx_fifo: the input buffer of every channel (switch inputs and the barrier
// unit's ejection buffer), B entries of W bits.
//
// Timing (docs/microarchitecture.md, "Channel"): a push at the edge that ends
// cycle t makes the entry visible at the front from cycle t+1 on; there is no
// write-through path, because the model's readyAt = t+L already counts the
// FIFO write as the last of the L stages. A pop in cycle t removes the front
// at the edge that ends cycle t.
//
// Push and pop may happen in the same cycle even when the FIFO is full: the
// credit protocol allows the upstream to use a credit whose slot is being
// freed by the same edge, so overflow is impossible by construction and
// push is deliberately not gated by "full" (a simulation check reports a
// protocol violation instead).
//
// The entries live in hx_mem_1r1w (synchronous read, docs/rtl.md,
// "Memories"): the front is read one cycle ahead and a push into the word
// that becomes the front is bypassed, so the front is still visible in
// the cycle after its push and the timing above is unchanged.
`timescale 1ns / 1ps
module hx_fifo #(
    parameter integer W = 8,   // entry width (flit: FW+2)
    parameter integer B = 2    // depth, 1..64
) (
    input          clk,
    input          rst,      // synchronous, active high
    input          push,
    input  [W-1:0] din,
    input          pop,      // only when nempty
    output [W-1:0] dout,     // front entry (undefined when empty)
    output         nempty    // front entry is valid ("ready")
);
    // Pointer width: at least one bit so that B = 1 still has a legal vector.
    localparam AW = (B <= 2) ? 1 : $clog2(B);
    localparam CW = $clog2(B + 1);
    localparam integer  LASTI = B - 1;
    localparam [AW-1:0] LAST = LASTI[AW-1:0];
    localparam [AW-1:0] PZERO = 0;
    localparam [AW-1:0] PONE = 1;
    localparam [CW-1:0] CONE = 1;
    localparam [CW-1:0] CZERO = 0;
    localparam [CW-1:0] CFULL = B[CW-1:0];

    reg [AW-1:0] rp, wp;
    reg [CW-1:0] cnt;

    // Storage: hx_mem_1r1w (synchronous read). The front of the next cycle
    // is read by this cycle's edge, at the read pointer the edge leaves
    // (rp_nx). An entry pushed by the same edge to that very word (the
    // FIFO empty, or its last entry popped) is bypassed: byp selects the
    // word pushed (wq) instead of the RAM's output.
    wire [AW-1:0] rp_nx = pop ? ((rp == LAST) ? PZERO : rp + PONE) : rp;
    wire [W-1:0]  rd;
    reg  [W-1:0]  wq;
    reg           byp;
    hx_mem_1r1w #(.W(W), .D(B), .AW(AW)) m (
        .clk(clk), .we(push), .wa(wp), .wd(din), .re(1'b1), .ra(rp_nx), .rd(rd)
    );

    assign dout   = byp ? wq : rd;
    assign nempty = (cnt != CZERO);

    always @(posedge clk) begin
        if (push)
            wq <= din;
        if (rst) begin
            rp  <= PZERO;
            wp  <= PZERO;
            cnt <= CZERO;
            byp <= 1'b0;
        end else begin
            if (push)
                wp <= (wp == LAST) ? PZERO : wp + PONE;
            rp  <= rp_nx;
            cnt <= cnt + (push ? CONE : CZERO) - (pop ? CONE : CZERO);
            byp <= push && wp == rp_nx;
        end
    end

`ifndef SYNTHESIS
    // Protocol checks: a credit-correct upstream never overflows the FIFO and
    // the consumer never pops an empty one.
    always @(posedge clk) begin
        if (!rst) begin
            if (pop && !nempty)
                $fatal(1, "%m: pop from an empty FIFO");
            if (push && !pop && cnt == CFULL)
                $fatal(1, "%m: push into a full FIFO (credit protocol violated)");
        end
    end
`endif
endmodule
