// hx_link_rx: receiving side of link-level retry (docs/reliability.md,
// "Link-level retry"), between the hx_chan of the link direction and the
// downstream FIFO (switch in_* or unit ej_*).
//
// A flit is accepted, i.e. pushed into the FIFO in the cycle it leaves the
// wire (no cycle added), when its check code matches and its sequence
// number is the next expected one; anything else (a damaged flit, a
// duplicate, or any flit after a lost or damaged one until its resend
// arrives) is discarded. The channel has at least one register stage
// (L >= 2: a link of latency 1 is instantiated with 2), so the check reads
// a register, never the sender's nets: flattening cannot prove it away.
//
// Every cycle the receiver returns an ACK word {chk, count}: the flits
// accepted so far including this cycle's, mod 2^SB, and chk its KW-bit
// CRC (hx_link_crc, polynomial KPOLY: hw.CountCode, every error of up to 3
// bits in the word detected). It goes back through L registers (this
// side's and the link's L - 1 stages), so the sender reads in cycle d the
// count as of cycle d - L. A cumulative count acknowledges duplicates too,
// and a damaged word is repaired by the next one. The credit word {chk,
// pops} (the downstream FIFO's pops so far including this cycle's, the
// same code) goes back on the channel's credit path.
`timescale 1ns / 1ps
module hx_link_rx #(
    parameter integer W = 8,     // flit width (as hx_link_tx)
    parameter integer L = 2,     // channel latency, >= 2
    parameter integer R = 4,     // replay buffer entries of the sender
    parameter integer B = 4,     // downstream FIFO depth
    parameter integer CW = 16,   // check code bits (as hx_link_tx)
    parameter [CW-1:0] CPOLY = 16'h5935,  // its polynomial (as hx_link_tx)
    parameter integer KW = 5,    // ACK and credit word code bits (as hx_link_tx)
    parameter [KW-1:0] KPOLY = 5'h15      // its polynomial (as hx_link_tx)
) (
    input                                   clk,
    input                                   rst,        // synchronous, active high
    // from the wire (hx_chan out_valid / out_flit)
    input                                   in_valid,
    input  [W+$clog2((R > B ? R : B)+1)+CW-1:0] in_flit,
    // to the downstream FIFO
    output                                  out_valid,
    output [W-1:0]                          out_flit,
    // to the sender: the ACK word
    output [$clog2((R > B ? R : B)+1)+KW-1:0] ack,
    // the downstream FIFO pops, and the credit word onto the channel
    input                                   pop,
    output [$clog2((R > B ? R : B)+1)+KW-1:0] crd
);
    localparam integer SB = $clog2((R > B ? R : B) + 1);
    localparam integer EW = W + SB;
    localparam integer AW = SB + KW;             // ACK word: {chk, count}
    localparam [SB-1:0] ZERO = 0;
    localparam [SB-1:0] ONE  = 1;

    reg  [SB-1:0]   eseq;        // sequence number expected next (flits accepted)
    reg  [SB-1:0]   pc;          // pops so far
    reg  [AW*L-1:0] aq;          // ACK words on their way back, aq[0 +: AW] written first
    wire [CW-1:0]   chk;
    wire            good;
    wire [SB-1:0]   an;          // accepted so far, this cycle's included
    wire [SB-1:0]   pn;          // pops so far, this cycle's included
    wire [KW-1:0]   akc;         // the code of an (ACK word)
    wire [KW-1:0]   pkc;         // the code of pn (credit word)
    wire [AW-1:0]   aword;
    wire [AW*L-1:0] aqn;         // aq shifted by one cycle, this cycle's word in

    hx_link_crc #(.N(EW), .CW(CW), .POLY(CPOLY)) crc (.d(in_flit[EW-1:0]), .c(chk));
    hx_link_crc #(.N(SB), .CW(KW), .POLY(KPOLY)) acrc (.d(an), .c(akc));
    hx_link_crc #(.N(SB), .CW(KW), .POLY(KPOLY)) pcrc (.d(pn), .c(pkc));

    assign good      = in_valid && chk == in_flit[EW +: CW] && in_flit[W +: SB] == eseq;
    assign an        = eseq + (good ? ONE : ZERO);
    assign pn        = pc + (pop ? ONE : ZERO);
    assign out_valid = good;
    assign out_flit  = in_flit[W-1:0];
    assign ack       = aq[AW*(L-1) +: AW];
    assign crd       = {pkc, pn};

    // Fault injection (simulation only, docs/reliability.md): the
    // testbench sets fi_ackflip at a falling edge to invert bit 0 of the
    // ACK word this side sends in that cycle (an ackflip).
`ifndef SYNTHESIS
    reg fi_ackflip = 1'b0;   // written by the testbench only
    assign aword = {akc, an} ^ {{AW-1{1'b0}}, fi_ackflip};
`else
    assign aword = {akc, an};
`endif

    generate
        if (L == 1) begin : g_a1
            assign aqn = aword;
        end else begin : g_an
            assign aqn = {aq[AW*(L-1)-1:0], aword};
        end
    endgenerate

    always @(posedge clk) begin
        if (rst) begin
            eseq <= ZERO;
            pc   <= ZERO;
            aq   <= {AW*L{1'b0}};
        end else begin
            eseq <= an;
            pc   <= pn;
            aq   <= aqn;
        end
    end
endmodule
