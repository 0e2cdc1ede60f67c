// hx_link_tb: link-level retry on one link direction, checked against the Go
// model cycle by cycle (docs/reliability.md, "Link-level retry").
//
//   hx_credit (the output's counter) -> hx_link_tx -> hx_chan ch -> hx_link_rx
//   -> hx_fifo (the downstream input buffer)
//
// The stimulus file (+stim=FILE, written by noc's TestLinkRetryRTLVectors
// from a one-link run of noc.Network) has 8 hex words per cycle:
//   0 the output sends a flit          1 its flit (the model's k-th flit: k+1)
//   2 the downstream pops its FIFO     3 fault: 0 none, 1 flip, 2 drop,
//                                        3 dead from this cycle on, 4 ackflip
//                                        (the ACK word sent this cycle), 5
//                                        creditdrop (the credit word)
//   4 the flipped bit of ch.in_flit    5 the model pushes a flit into the FIFO
//   6 that flit                        7 the model's credit: the output may send
// Faults are injected as the system testbench does: by forcing the hx_chan
// instance's in_valid / in_flit in the fault's cycle (a flip forces the
// flit the sender drives, with the bit inverted; an ackflip sets the
// receiver's fi_ackflip, a creditdrop the channel's fi_ckill, for the
// cycle). TB_L is the link latency: a retrying link is instantiated with
// max(TB_L, 2) (docs/reliability.md). Every cycle the FIFO
// push, its flit and the credit counter's ok must equal the model's, and the
// library's own checks (pop from empty, send without credit, replay buffer
// overflow) stop the run. Prints "hx_link_tb: PASS ..." or FAIL lines.
`timescale 1ns / 1ps
module hx_link_tb;
    localparam integer W  = `TB_W;
    localparam integer L  = `TB_L;
    localparam integer R  = `TB_R;
    localparam integer B  = `TB_B;
    localparam integer N  = `TB_N;
    localparam integer LE = (L < 2) ? 2 : L;   // the channel's latency
    localparam integer SB = $clog2((R > B ? R : B) + 1);
    localparam integer LW = W + SB + 16;   // + hw.LinkCodeBits (hx_link_tx CW)
    localparam integer KW = 5;             // hw.CountCodeBits (hx_link_tx KW)

    reg clk = 1'b0, rst = 1'b1;
    always #5 clk = ~clk;

    reg  [31:0]   stim [0:8*N-1];
    reg           up_valid = 1'b0, pop = 1'b0;
    reg  [W-1:0]  up_flit = {W{1'b0}};
    reg  [LW-1:0] fv = {LW{1'b0}};   // the flipped flit the wire is forced to
    wire          up_ok, crd_up, tx_valid, w_valid, push, fne;
    wire [SB+KW-1:0] ack, crd_w, crd_r;
    wire [LW-1:0] tx_flit, w_flit;
    wire [W-1:0]  push_flit, fdout;

    hx_credit #(.B(B)) cr (.clk(clk), .rst(rst), .take(up_valid), .give(crd_up), .ok(up_ok));
    hx_link_tx #(.W(W), .L(LE), .R(R), .B(B)) tx (.clk(clk), .rst(rst), .in_valid(up_valid), .in_flit(up_flit),
        .out_valid(tx_valid), .out_flit(tx_flit), .ack(ack), .crd_in(crd_r), .crd_out(crd_up));
    hx_chan #(.W(LW), .L(LE), .C(SB + KW)) ch (.clk(clk), .rst(rst), .in_valid(tx_valid), .in_flit(tx_flit),
        .out_valid(w_valid), .out_flit(w_flit), .crd_in(crd_w), .crd_out(crd_r));
    hx_link_rx #(.W(W), .L(LE), .R(R), .B(B)) rx (.clk(clk), .rst(rst), .in_valid(w_valid), .in_flit(w_flit),
        .out_valid(push), .out_flit(push_flit), .ack(ack), .pop(pop), .crd(crd_w));
    hx_fifo #(.W(W), .B(B)) fifo (.clk(clk), .rst(rst), .push(push), .din(push_flit), .pop(pop),
        .dout(fdout), .nempty(fne));

    integer cyc, errs, pushes, k;
    reg dead;
    reg [8*256-1:0] fname;
    initial begin
        if (!$value$plusargs("stim=%s", fname)) begin
            $display("FAIL: no +stim=FILE");
            $finish;
        end
        $readmemh(fname, stim);
        errs = 0; pushes = 0; dead = 1'b0;
        // Reset over two edges; cycle 0 begins at the edge that samples rst = 0.
        @(posedge clk); @(posedge clk);
        rst <= 1'b0;
        for (cyc = 0; cyc < N; cyc = cyc + 1) begin
            @(negedge clk);
            k = 8 * cyc;
            up_valid = stim[k][0];
            up_flit  = stim[k+1][W-1:0];
            pop      = stim[k+2][0];
            if (!dead) begin
                release ch.in_valid;
                release ch.in_flit;
            end
            rx.fi_ackflip = 1'b0;
            ch.fi_ckill   = 1'b0;
            case (stim[k+3])
                32'd1: begin
                    // Icarus evaluates a forced expression once: force the
                    // value, after the sender's outputs have settled.
                    #1 fv = tx_flit ^ ({{LW-1{1'b0}}, 1'b1} << stim[k+4]);
                    force ch.in_flit = fv;
                end
                32'd2: force ch.in_valid = 1'b0;
                32'd3: begin
                    force ch.in_valid = 1'b0;
                    dead = 1'b1;
                end
                32'd4: rx.fi_ackflip = 1'b1;
                32'd5: ch.fi_ckill = 1'b1;
                default: ;
            endcase
            @(posedge clk);
            if (push !== stim[k+5][0] || (push && push_flit !== stim[k+6][W-1:0]) || up_ok !== stim[k+7][0]) begin
                errs = errs + 1;
                if (errs <= 10)
                    $display("FAIL: cycle %0d: push %b flit %h ok %b, model: push %b flit %h ok %b",
                             cyc, push, push_flit, up_ok, stim[k+5][0], stim[k+6][W-1:0], stim[k+7][0]);
            end
            if (push)
                pushes = pushes + 1;
        end
        if (errs == 0)
            $display("hx_link_tb: PASS L=%0d R=%0d B=%0d: %0d cycles, %0d flits delivered as the model", L, R, B, N, pushes);
        else
            $display("hx_link_tb: FAIL: %0d cycles differ", errs);
        $finish;
    end
endmodule
