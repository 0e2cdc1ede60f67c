// hx_link_rx: receiving side of link-level retry (docs/reliability.md,
// "Link-level retry"), between the hx_chan of the link direction and the
// downstream FIFO (switch in_* or unit ej_*).
//
// A flit is accepted, i.e. pushed into the FIFO in the cycle it leaves the
// wire (no cycle added), when its check code matches and its sequence
// number is the next expected one; anything else (a damaged flit, or any
// flit after a lost or damaged one until its resend arrives) is discarded.
// Each accepted flit is acknowledged: the ACK goes back beside the credit
// return through L registers (this side's ACK register and the link's L - 1
// stages), so the sender sees it 2L - 1 cycles after it sent the flit.
// Credits are the downstream FIFO's pops, unchanged (hx_chan).
`timescale 1ns / 1ps
module hx_link_rx #(
    parameter integer W = 8,     // flit width (as hx_link_tx)
    parameter integer L = 1,     // link latency, >= 1
    parameter integer R = 4,     // replay buffer entries of the sender
    parameter integer CW = 16,   // check code bits (as hx_link_tx)
    parameter [CW-1:0] CPOLY = 16'h5935   // its polynomial (as hx_link_tx)
) (
    input                           clk,
    input                           rst,        // synchronous, active high
    // from the wire (hx_chan out_valid / out_flit)
    input                           in_valid,
    input  [W+$clog2(R+1)+CW-1:0]   in_flit,
    // to the downstream FIFO
    output                          out_valid,
    output [W-1:0]                  out_flit,
    // to the sender
    output                          ack
);
    localparam integer SB = $clog2(R + 1);
    localparam integer EW = W + SB;
    localparam [SB-1:0] ZERO = 0;
    localparam [SB-1:0] ONE  = 1;

    reg  [SB-1:0] eseq;          // sequence number expected next
    reg  [L-1:0]  aq;            // ACKs on their way back, aq[0] written first
    wire [CW-1:0] chk;
    wire [L-1:0]  anext;         // aq shifted by one cycle, this cycle's ACK in
    wire          good;

    hx_link_crc #(.N(EW), .CW(CW), .POLY(CPOLY)) crc (.d(in_flit[EW-1:0]), .c(chk));

    assign good      = in_valid && chk == in_flit[EW +: CW] && in_flit[W +: SB] == eseq;
    generate
        if (L == 1) begin : g_a1
            assign anext = good;
        end else begin : g_an
            assign anext = {aq[L-2:0], good};
        end
    endgenerate

    assign out_valid = good;
    assign out_flit  = in_flit[W-1:0];
    assign ack       = aq[L-1];

    always @(posedge clk) begin
        if (rst) begin
            eseq <= ZERO;
            aq   <= {L{1'b0}};
        end else begin
            if (good)
                eseq <= eseq + ONE;
            aq <= anext;
        end
    end
endmodule
