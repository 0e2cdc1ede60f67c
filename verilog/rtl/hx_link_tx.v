// hx_link_tx: sending side of link-level retry (docs/reliability.md,
// "Link-level retry"), between an output (switch out_* or unit inj_*) and
// the hx_chan of the link direction.
//
// Go-back-N. Every flit the output sends is appended to a replay buffer of R
// entries with the link's next sequence number (SB bits); the wire carries
// {chk[CW-1:0], seq[SB-1:0], flit[W-1:0]}, chk the CW-bit CRC of {seq,
// flit} (hx_link_crc, polynomial CPOLY: hw.LinkCode). With nothing to resend the flit goes onto the wire in the
// cycle the output sends it (cut-through: no cycle added); otherwise the
// buffer is sent in order, one entry per cycle, and a new flit waits behind.
//
// The receiver (hx_link_rx) acknowledges each flit it accepts; the ACK of a
// flit put on the wire in cycle c reaches this side in cycle c + 2L - 1
// (the link's L - 1 stages each way plus the receiver's ACK register).
// hist remembers which cycles sent a flit; a flit whose ACK is due and
// absent was lost or damaged (the NAK is the missing ACK): every flit sent
// since is void (the receiver discards it: wrong sequence number), and the
// buffer is resent from that flit in the next cycle. An ACK frees the oldest
// entry.
//
// Credits are untouched: the output's credit counter counts the downstream
// FIFO as before. R >= B suffices: a flit's ACK never comes after its
// credit, so the buffer never holds more flits than the output has credits
// (a simulation check below).
`timescale 1ns / 1ps
module hx_link_tx #(
    parameter integer W = 8,     // flit width (FW+2, or more with sideband)
    parameter integer L = 1,     // link latency, >= 1
    parameter integer R = 4,     // replay buffer entries, >= the downstream FIFO depth
    parameter integer CW = 16,   // check code bits (hw.LinkCodeBits)
    parameter [CW-1:0] CPOLY = 16'h5935   // its polynomial (hw.LinkCode)
) (
    input                           clk,
    input                           rst,        // synchronous, active high
    // from the output
    input                           in_valid,
    input  [W-1:0]                  in_flit,
    // onto the wire (hx_chan in_valid / in_flit)
    output                          out_valid,
    output [W+$clog2(R+1)+CW-1:0]   out_flit,
    // from the receiver, L cycles after it accepted a flit
    input                           ack
);
    localparam integer SB = $clog2(R + 1);      // sequence number bits: 2^SB > R
    localparam integer EW = W + SB;             // entry: {seq, flit}
    localparam integer PW = (R <= 2) ? 1 : $clog2(R);
    localparam integer HL = 2 * L - 1;          // ACK due HL cycles after the send cycle
    localparam integer LASTI = R - 1;
    localparam [PW-1:0] LAST  = LASTI[PW-1:0];
    localparam [PW-1:0] PZERO = 0;
    localparam [PW-1:0] PONE  = 1;
    localparam [SB-1:0] ZERO  = 0;
    localparam [SB-1:0] ONE   = 1;

    reg [EW-1:0] mem [0:R-1];
    reg [PW-1:0] ap, sp, tp;     // oldest unacknowledged, next to send, next free
    reg [SB-1:0] tseq;           // sequence number of the next new flit
    reg [SB-1:0] occ;            // entries held (ap .. tp)
    reg [SB-1:0] bl;             // entries still to send (sp .. tp)
    reg [HL-1:0] hist;           // hist[j]: a flit was sent j+1 cycles ago

    wire          backlog = (bl != ZERO);
    wire          send    = backlog || in_valid;
    wire [EW-1:0] ent     = backlog ? mem[sp] : {tseq, in_flit};
    wire          due     = hist[HL-1];
    wire          okack   = due && ack;
    wire          nak     = due && !ack;
    wire [CW-1:0] chk;
    wire [HL-1:0] hnext;         // hist shifted by one cycle, this cycle's send in

    hx_link_crc #(.N(EW), .CW(CW), .POLY(CPOLY)) crc (.d(ent), .c(chk));

    generate
        if (HL == 1) begin : g_h1
            assign hnext = send;
        end else begin : g_hn
            assign hnext = {hist[HL-2:0], send};
        end
    endgenerate

    assign out_valid = send;
    assign out_flit  = {chk, ent};

    always @(posedge clk) begin
        if (rst) begin
            ap   <= PZERO;
            sp   <= PZERO;
            tp   <= PZERO;
            tseq <= ZERO;
            occ  <= ZERO;
            bl   <= ZERO;
            hist <= {HL{1'b0}};
        end else begin
            if (in_valid) begin
                tp   <= (tp == LAST) ? PZERO : tp + PONE;
                tseq <= tseq + ONE;
            end
            if (okack)
                ap <= (ap == LAST) ? PZERO : ap + PONE;
            occ <= occ + (in_valid ? ONE : ZERO) - (okack ? ONE : ZERO);
            if (nak) begin
                // Go back to the oldest unacknowledged flit; what was sent
                // since (this cycle's send included) is void.
                sp   <= ap;
                bl   <= occ + (in_valid ? ONE : ZERO);
                hist <= {HL{1'b0}};
            end else begin
                if (send)
                    sp <= (sp == LAST) ? PZERO : sp + PONE;
                bl   <= bl + (in_valid ? ONE : ZERO) - (send ? ONE : ZERO);
                hist <= hnext;
            end
        end
        if (in_valid)
            mem[tp] <= {tseq, in_flit};
    end

`ifndef SYNTHESIS
    localparam [SB-1:0] FULL = R[SB-1:0];
    always @(posedge clk) begin
        if (!rst) begin
            if (in_valid && !okack && occ == FULL)
                $fatal(1, "%m: replay buffer overflow (R below the credits of the output)");
            if (ack && !due)
                $fatal(1, "%m: ACK without a flit due");
        end
    end
`endif
endmodule
