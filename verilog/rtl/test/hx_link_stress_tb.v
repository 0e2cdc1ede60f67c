// hx_link_stress_tb: a directed stress bench of link-level retry
// (docs/reliability.md, "Link-level retry"), self-checking, no model.
//
//   hx_credit -> hx_link_tx -> hx_chan -> hx_link_rx -> hx_fifo
//
// The output sends numbered flits (1, 2, ...) whenever it has a credit and
// a seeded coin says so; the downstream pops its FIFO at random. Faults at
// the cycles given by plusargs (each optional): +ackflip=C (the ACK word
// the receiver sends in C), +flip=C (bit 3 of the wire in C), +drop=C (the
// flit on the wire in C), +creditdrop=C (the credit word of C), and
// +ackflip2=C for a second ACK flip, +acks=K to flip the K ACK words from
// +ackflip on (a burst: the ACK path down for K cycles). Errors of several
// bits in the ACK and credit words (docs/reliability.md: every error of up
// to 3 bits in one is detected): +ackmask=M XORs M into the ACK word the
// receiver sends in cycle +ackflip (it reaches the sender L' cycles later,
// where the bench damages it; in place of the one-bit ackflip),
// +crdmask=M into the credit word of cycle +creditdrop (in place of
// the one-bit creditdrop); +ackevery=P and +crdevery=P repeat that
// damage every P cycles from there on, as +dropevery=P the drop (so that
// a damaged ACK word may be the one that carries a drop's NAK: +ackflip =
// +drop + L' - 1). Every flit pushed into the FIFO must
// be the next number (nothing lost, nothing twice, in order), the link's
// assertions (replay buffer overflow, send without credit, pop from empty)
// must hold, and delivery must go on to the end: flits are pushed in the
// last 1000 cycles, and at most R + B are sent and not delivered.
// TB_L is the link latency (a retrying channel takes max(TB_L, 2));
// TB_R < TB_B checks that a full replay buffer stops the output: its
// counter starts at min(R, B), as the link assumes, and a credit comes
// back only with its buffer entry freed. Prints "hx_link_stress_tb:
// PASS ..." or FAIL lines.
`timescale 1ns / 1ps
module hx_link_stress_tb;
    localparam integer W  = 18;
    localparam integer L  = `TB_L;
    localparam integer R  = `TB_R;
    localparam integer B  = `TB_B;
    localparam integer N  = `TB_N;
    localparam integer LE = (L < 2) ? 2 : L;
    localparam integer SB = $clog2((R > B ? R : B) + 1);
    localparam integer LW = W + SB + 16;   // + hw.LinkCodeBits (hx_link_tx CW)
`ifdef TB_KW
    localparam integer KW = `TB_KW;
`else
    localparam integer KW = 5;             // hw.CountCodeBits (hx_link_tx KW)
`endif
    localparam integer CWW = SB + KW;      // an ACK or credit word: {chk, count}

    reg clk = 1'b0, rst = 1'b1;
    always #5 clk = ~clk;

    reg           up_valid = 1'b0, pop = 1'b0;
    reg  [W-1:0]  up_flit = {W{1'b0}};
    wire          up_ok, crd_up, tx_valid, w_valid, push, fne;
    wire [CWW-1:0] ack, crd_w, crd_r;
    reg  [CWW-1:0] aval = {CWW{1'b0}}, cval = {CWW{1'b0}};   // words the bench damages
    wire [LW-1:0] tx_flit, w_flit;
    wire [W-1:0]  push_flit, fdout;
    reg  [LW-1:0] fv = {LW{1'b0}};   // the flipped flit the wire is forced to

    hx_credit #(.B(R < B ? R : B)) cr (.clk(clk), .rst(rst), .take(up_valid), .give(crd_up), .ok(up_ok));
    hx_link_tx #(.W(W), .L(LE), .R(R), .B(B)) tx (.clk(clk), .rst(rst), .in_valid(up_valid), .in_flit(up_flit),
        .out_valid(tx_valid), .out_flit(tx_flit), .ack(ack), .crd_in(crd_r), .crd_out(crd_up));
    hx_chan #(.W(LW), .L(LE), .C(CWW)) ch (.clk(clk), .rst(rst), .in_valid(tx_valid), .in_flit(tx_flit),
        .out_valid(w_valid), .out_flit(w_flit), .crd_in(crd_w), .crd_out(crd_r));
    hx_link_rx #(.W(W), .L(LE), .R(R), .B(B)) rx (.clk(clk), .rst(rst), .in_valid(w_valid), .in_flit(w_flit),
        .out_valid(push), .out_flit(push_flit), .ack(ack), .pop(pop), .crd(crd_w));
    hx_fifo #(.W(W), .B(B)) fifo (.clk(clk), .rst(rst), .push(push), .din(push_flit), .pop(pop),
        .dout(fdout), .nempty(fne));

    integer cyc, errs, sent, got, last, seed;

    // hit: cycle c is c0, or with a period p > 0 c0 + p, c0 + 2p, ...
    function hit(input integer c, input integer c0, input integer p);
        hit = c0 >= 0 && c >= c0 && (p > 0 ? (c - c0) % p == 0 : c == c0);
    endfunction
    integer c_ack, c_ack2, c_flip, c_drop, c_crd, n_ack, ackmask, crdmask, p_ack, p_crd, p_drop;
    initial begin
        if (!$value$plusargs("ackflip=%d", c_ack)) c_ack = -1;
        if (!$value$plusargs("ackflip2=%d", c_ack2)) c_ack2 = -1;
        if (!$value$plusargs("flip=%d", c_flip)) c_flip = -1;
        if (!$value$plusargs("drop=%d", c_drop)) c_drop = -1;
        if (!$value$plusargs("creditdrop=%d", c_crd)) c_crd = -1;
        if (!$value$plusargs("seed=%d", seed)) seed = 1;
        if (!$value$plusargs("acks=%d", n_ack)) n_ack = 1;
        if (!$value$plusargs("ackmask=%d", ackmask)) ackmask = 0;
        if (!$value$plusargs("crdmask=%d", crdmask)) crdmask = 0;
        if (!$value$plusargs("ackevery=%d", p_ack)) p_ack = 0;
        if (!$value$plusargs("crdevery=%d", p_crd)) p_crd = 0;
        if (!$value$plusargs("dropevery=%d", p_drop)) p_drop = 0;
        errs = 0; sent = 0; got = 0; last = -1;
        @(posedge clk); @(posedge clk);
        rst <= 1'b0;
        for (cyc = 0; cyc < N; cyc = cyc + 1) begin
            @(negedge clk);
            // The output: a flit when it has a credit, 3 cycles in 4.
            up_valid = up_ok && ($random(seed) & 3) != 0;
            if (up_valid) begin
                sent = sent + 1;
                up_flit = sent[W-1:0];
            end
            pop = fne && ($random(seed) & 1);
            release ch.in_valid;
            release ch.in_flit;
            release ack;
            release crd_w;
            if (ackmask == 0)
                rx.fi_ackflip = (c_ack >= 0 && cyc >= c_ack && cyc < c_ack + n_ack) || cyc == c_ack2;
            else if (hit(cyc - LE, c_ack, p_ack)) begin
                // The word sent in cycle - LE, as the sender reads it now.
                #1 aval = ack ^ ackmask[CWW-1:0];
                force ack = aval;
            end
            if (crdmask == 0)
                ch.fi_ckill   = (cyc == c_crd);
            else if (hit(cyc, c_crd, p_crd)) begin
                #1 cval = crd_w ^ crdmask[CWW-1:0];
                force crd_w = cval;
            end
            if (hit(cyc, c_drop, p_drop))
                force ch.in_valid = 1'b0;
            if (cyc == c_flip) begin
                #1 fv = tx_flit ^ {{LW-4{1'b0}}, 4'b1000};
                force ch.in_flit = fv;
            end
            @(posedge clk);
            if (push) begin
                if (push_flit !== got[W-1:0] + 1'b1) begin
                    errs = errs + 1;
                    if (errs <= 10)
                        $display("FAIL: cycle %0d: flit %0d pushed, want %0d", cyc, push_flit, got + 1);
                end
                got = got + 1;
                last = cyc;
            end
        end
        if (last < N - 1000) begin
            errs = errs + 1;
            $display("FAIL: the last flit was delivered in cycle %0d of %0d: delivery stopped", last, N);
        end
        if (sent - got > R + B) begin
            errs = errs + 1;
            $display("FAIL: %0d flits sent, %0d delivered", sent, got);
        end
        if (errs == 0)
            $display("hx_link_stress_tb: PASS L=%0d R=%0d B=%0d: %0d cycles, %0d flits sent, %0d delivered in order",
                     L, R, B, N, sent, got);
        else
            $display("hx_link_stress_tb: FAIL: %0d errors", errs);
        $finish;
    end
endmodule
