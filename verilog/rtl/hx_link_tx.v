// hx_link_tx: sending side of link-level retry (docs/reliability.md,
// "Link-level retry"), between an output (switch out_* or unit inj_*) and
// the hx_chan of the link direction.
//
// Go-back-N with a cumulative ACK. Every flit the output sends is appended
// to a replay buffer of R entries with the link's next sequence number (SB
// bits); the wire carries {chk[CW-1:0], seq[SB-1:0], flit[W-1:0]}, chk the
// CW-bit CRC of {seq, flit} (hx_link_crc, polynomial CPOLY: hw.LinkCode).
// With nothing to resend the flit goes onto the wire in the cycle the output sends it (cut-through: no cycle
// added); otherwise the buffer is sent in order, one entry per cycle, and a
// new flit waits behind.
//
// The receiver (hx_link_rx) returns, every cycle, an ACK word {chk,
// count}: the number of flits it has accepted, mod 2^SB, and chk its
// KW-bit CRC (polynomial KPOLY: hw.CountCode, every error of up to 3 bits
// in the word detected). The word the sender reads in cycle d counts the flits the
// receiver accepted up to cycle d - L, i.e. every flit put on the wire up
// to cycle d - (2L - 1): hist remembers which cycles sent a flit, need
// counts the flits due so far. In a cycle whose word is undamaged, the
// word frees the entries it counts, and a count short of need means a due
// flit was lost or damaged: every flit sent since is void (the receiver
// discards it: wrong sequence number) and the buffer is resent from the
// first unaccepted flit in the next cycle. A damaged word is
// ignored: the next undamaged one says the same and more, so a lost or
// damaged ACK costs nothing unless a flit was lost too, whose resend it
// defers by a cycle. A word is damaged when its code does not match its
// count, or (ACK) it names more flits than the buffer holds.
//
// Credits pass through here (crd_in, the receiver's credit word {chk,
// pops}, its cumulative pop count with the same code, as the channel
// returns it; crd_out, one credit per cycle
// to the output's hx_credit): a damaged word is ignored and the next one
// repairs it, so no credit is lost for good. A credit given to the output
// also frees the entry of its flit (it was popped downstream), whatever
// became of its ACK. So the output's credits never exceed the buffer's
// free entries (its counter starts at min(R, B): B in a system, where
// R >= B), and a full buffer stops the output in hardware: it has no
// credit. The overflow check below is an assertion of that.
`timescale 1ns / 1ps
module hx_link_tx #(
    parameter integer W = 8,     // flit width (FW+2, or more with sideband)
    parameter integer L = 2,     // channel latency, >= 2 (docs/reliability.md)
    parameter integer R = 4,     // replay buffer entries, >= B in a system
    parameter integer B = 4,     // downstream FIFO depth
    parameter integer CW = 16,   // check code bits (hw.LinkCodeBits)
    parameter [CW-1:0] CPOLY = 16'h5935,  // its polynomial (hw.LinkCode)
    parameter integer KW = 5,    // ACK and credit word code bits (hw.CountCodeBits)
    parameter [KW-1:0] KPOLY = 5'h15      // its polynomial (hw.CountCode)
) (
    input                                   clk,
    input                                   rst,        // synchronous, active high
    // from the output
    input                                   in_valid,
    input  [W-1:0]                          in_flit,
    // onto the wire (hx_chan in_valid / in_flit)
    output                                  out_valid,
    output [W+$clog2((R > B ? R : B)+1)+CW-1:0] out_flit,
    // from the receiver: the ACK word {chk, count}, L cycles after it
    input  [$clog2((R > B ? R : B)+1)+KW-1:0] ack,
    // from the channel's credit path: the credit word {chk, pops}
    input  [$clog2((R > B ? R : B)+1)+KW-1:0] crd_in,
    // to the output's credit counter (hx_credit give)
    output                                  crd_out
);
    localparam integer SB = $clog2((R > B ? R : B) + 1);   // 2^SB > R, B
    localparam integer EW = W + SB;             // entry: {seq, flit}
    localparam integer PW = (R <= 2) ? 1 : $clog2(R);
    localparam integer HL = 2 * L - 1;          // ACK due HL cycles after the send cycle
    localparam [SB:0]    RR    = R[SB:0];
    localparam [SB-1:0]  ZERO  = 0;
    localparam [SB-1:0]  ONE   = 1;
    localparam [PW-1:0]  PZERO = 0;
    localparam [SB+PW:0] RS    = R[SB+PW:0];

    reg [PW-1:0] ap, sp, tp;     // oldest unacknowledged, next to send, next free
    reg [SB-1:0] aseq;           // sequence number of the entry at ap
    reg [SB-1:0] tseq;           // sequence number of the next new flit
    reg [SB-1:0] occ;            // entries held (ap .. tp)
    reg [SB-1:0] bl;             // entries still to send (sp .. tp)
    reg [SB-1:0] need;           // flits due so far (sequence number past the last)
    reg [SB-1:0] gcnt;           // credits given to the output (pop count)
    reg [SB-1:0] clast;          // the last undamaged credit word's count
    reg [HL-1:0] hist;           // hist[j]: a flit was sent j+1 cycles ago

    // (p + n) mod R for a buffer pointer p and a count n <= R.
    function [PW-1:0] adv(input [PW-1:0] p, input [SB-1:0] n);
        reg [SB+PW:0] s;
        begin
            s = {{SB+1{1'b0}}, p} + {{PW+1{1'b0}}, n};
            if (s >= RS)
                s = s - RS;
            adv = s[PW-1:0];
        end
    endfunction

    wire          backlog = (bl != ZERO);
    wire          send    = backlog || in_valid;
    wire [EW-1:0] rent;          // the buffer's entry at sp (below)
    wire [EW-1:0] ent     = backlog ? rent : {tseq, in_flit};
    wire          due     = hist[HL-1];
    wire [SB-1:0] nneed   = need + (due ? ONE : ZERO);
    // The ACK word: undamaged when its code matches and it names held flits.
    wire [KW-1:0] akc;           // the code of its count (below)
    wire [SB-1:0] aw      = ack[SB-1:0];
    wire [SB-1:0] ka      = aw - aseq;
    wire          aok     = akc == ack[SB +: KW] && ka <= occ;
    wire          nak     = aok && aw != nneed;
    // The credit word, and the credit given this cycle.
    wire [KW-1:0] ckc;           // the code of its count (below)
    wire [SB-1:0] cw      = crd_in[SB-1:0];
    wire [SB-1:0] cur     = ckc == crd_in[SB +: KW] ? cw : clast;
    wire          give    = (cur != gcnt);
    wire [SB-1:0] kc      = gcnt + ONE - aseq;  // entries the credit given frees
    wire [SB-1:0] kav     = aok ? ka : ZERO;
    wire [SB-1:0] kcv     = (give && kc <= occ) ? kc : ZERO;
    wire [SB-1:0] k       = (kcv > kav) ? kcv : kav;   // entries freed
    wire [SB-1:0] occn    = occ + (in_valid ? ONE : ZERO) - k;
    wire [CW-1:0] chk;
    wire [HL-1:0] hnext;         // hist shifted by one cycle, this cycle's send in

    // The replay buffer: hx_mem_1r1w (synchronous read, docs/rtl.md,
    // "Memories"). The entry the next cycle may resend (at the send
    // pointer the edge leaves, sp_nx) is read by this cycle's edge; a flit
    // stored by the same edge into that entry is bypassed (byp, wq).
    wire [PW-1:0] sp_nx   = nak ? adv(ap, k) : send ? adv(sp, ONE) : sp;
    wire [EW-1:0] rd;
    reg  [EW-1:0] wq;
    reg           byp;
    hx_mem_1r1w #(.W(EW), .D(R), .AW(PW)) m (
        .clk(clk), .we(in_valid), .wa(tp), .wd({tseq, in_flit}), .re(1'b1), .ra(sp_nx), .rd(rd)
    );
    assign rent = byp ? wq : rd;

    hx_link_crc #(.N(EW), .CW(CW), .POLY(CPOLY)) crc (.d(ent), .c(chk));
    hx_link_crc #(.N(SB), .CW(KW), .POLY(KPOLY)) acrc (.d(aw), .c(akc));
    hx_link_crc #(.N(SB), .CW(KW), .POLY(KPOLY)) ccrc (.d(cw), .c(ckc));

    generate
        if (HL == 1) begin : g_h1
            assign hnext = send;
        end else begin : g_hn
            assign hnext = {hist[HL-2:0], send};
        end
    endgenerate

    assign out_valid = send;
    assign out_flit  = {chk, ent};
    assign crd_out   = give;

    always @(posedge clk) begin
        if (rst) begin
            ap    <= PZERO;
            sp    <= PZERO;
            tp    <= PZERO;
            aseq  <= ZERO;
            tseq  <= ZERO;
            occ   <= ZERO;
            bl    <= ZERO;
            need  <= ZERO;
            gcnt  <= ZERO;
            clast <= ZERO;
            hist  <= {HL{1'b0}};
            byp   <= 1'b0;
        end else begin
            byp   <= in_valid && tp == sp_nx;
            sp    <= sp_nx;
            if (in_valid) begin
                tp   <= adv(tp, ONE);
                tseq <= tseq + ONE;
            end
            ap    <= adv(ap, k);
            aseq  <= aseq + k;
            occ   <= occn;
            gcnt  <= gcnt + (give ? ONE : ZERO);
            clast <= cur;
            if (nak) begin
                // Go back to the first flit the receiver lacks; what was
                // sent since (this cycle's send included) is void.
                bl   <= occn;
                need <= aw;
                hist <= {HL{1'b0}};
            end else begin
                bl   <= bl + (in_valid ? ONE : ZERO) - (send ? ONE : ZERO);
                need <= nneed;
                hist <= hnext;
            end
        end
        if (in_valid)
            wq <= {tseq, in_flit};
    end

`ifndef SYNTHESIS
    // Assertion only: the output has no credit while the buffer is full.
    always @(posedge clk) begin
        if (!rst) begin
            if (in_valid && {1'b0, occ} - {1'b0, k} == RR)
                $fatal(1, "%m: replay buffer overflow (the output sent without room)");
        end
    end
`endif
endmodule
