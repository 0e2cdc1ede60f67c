// sw_drop_tb: illegal flits at hx_switch's inputs (docs/microarchitecture.md,
// "Illegal flits"; docs/registers.md, DROPS). An exchanger of a 2-D system
// with K0 = 2, K1 = 3 (address {c1[1:0], c0}: c1 = 3 names no node), every
// entry PASS (every legal head leaves by port 0). It checks that an
// out-of-grid head and the rest of its packet, and orphan payload and tail
// flits, are popped (a credit back for each) and never sent; that a head
// at an input whose packet is open makes the output send a cut tail
// (that head with the marks {0, 1}) and then the head; that DROPS counts each, reads through
// APB, saturates at 255 and clears on a write; and that the input goes on
// with the next head every time. The assertions (achk) are off: the
// behaviour is what is checked. Prints "sw_drop_tb: PASS" or stops with
// $fatal.
`timescale 1ns / 1ps
module sw_drop_tb;
    localparam FW = 16;
    localparam W  = FW + 2;

    reg clk = 1'b0;
    reg rst = 1'b1;
    always #5 clk = ~clk;

    reg        psel = 1'b0, penable = 1'b0, pwrite = 1'b0;
    reg [15:0] paddr = 16'd0;
    reg [31:0] pwdata = 32'd0;
    wire [31:0] prdata;
    wire        pready, pslverr;

    reg  [2:0]     in_valid = 3'd0;
    reg  [3*W-1:0] in_flit  = {3*W{1'b0}};
    wire [2:0]     in_credit, out_valid;
    wire [3*W-1:0] out_flit;
    hx_switch #(.P(3), .FW(FW), .B(2), .MODE(0), .NDIM(2), .K0(2), .K1(3)) sw (
        .clk(clk), .rst(rst),
        .in_valid(in_valid), .in_flit(in_flit), .in_credit(in_credit),
        .out_valid(out_valid), .out_flit(out_flit), .out_credit(out_valid),
        .psel(psel), .penable(penable), .pwrite(pwrite), .paddr(paddr),
        .pwdata(pwdata), .prdata(prdata), .pready(pready), .pslverr(pslverr)
    );
    initial sw.achk = 1'b0;

    // Credits returned per input, flits sent on port 0 (in order).
    integer cred [0:2];
    integer nsent = 0;
    reg [W-1:0] sent [0:63];
    integer k;
    initial for (k = 0; k < 3; k = k + 1) cred[k] = 0;
    always @(posedge clk) begin
        for (k = 0; k < 3; k = k + 1)
            if (!rst && in_credit[k]) cred[k] = cred[k] + 1;
        if (!rst && out_valid[0]) begin
            sent[nsent] = out_flit[0 +: W];
            nsent = nsent + 1;
        end
        if (!rst && out_valid[2:1] != 2'b00)
            $fatal(1, "sw_drop_tb: a flit left by port %b (every route is port 0)", out_valid);
    end

    // Flits: {head, tail, data}; a head's data is {.., c1[1:0], c0}.
    function [W-1:0] fl;
        input h, t;
        input [FW-1:0] d;
        fl = {h, t, d};
    endfunction
    localparam [FW-1:0] OOG  = 16'h0006;   // c0 = 0, c1 = 3: no node
    localparam [FW-1:0] NODE = 16'h0005;   // c0 = 1, c1 = 2

    // push: flit f into input i for one cycle, then one idle cycle (the
    // FIFO of depth 2 never fills: at most one flit waits).
    task push;
        input integer i;
        input [W-1:0] f;
        begin
            @(negedge clk);
            in_valid <= 3'd1 << i;
            in_flit  <= {3{f}};
            @(negedge clk);
            in_valid <= 3'd0;
        end
    endtask

    reg [31:0] rd;
    reg        err;
    task xfer;
        input        wr;
        input [31:0] data;
        begin
            @(negedge clk);
            psel <= 1'b1; penable <= 1'b0; pwrite <= wr; paddr <= 16'h000C; pwdata <= data;
            @(negedge clk);
            penable <= 1'b1;
            @(posedge clk);
            rd = prdata; err = pslverr;
            @(negedge clk);
            psel <= 1'b0; penable <= 1'b0;
        end
    endtask
    task expect_drops;
        input [31:0] v;
        begin
            repeat (3) @(negedge clk);
            xfer(1'b0, 32'd0);
            if (err !== 1'b0 || rd !== v)
                $fatal(1, "sw_drop_tb: DROPS reads %h (pslverr %b), expected %h", rd, err, v);
        end
    endtask
    task expect_sent;
        input integer n;
        input [W-1:0] f;
        begin
            if (nsent <= n || sent[n] !== f)
                $fatal(1, "sw_drop_tb: flit %0d sent on port 0 is %h (%0d sent), expected %h", n, sent[n], nsent, f);
        end
    endtask
    task expect_cred;
        input integer i, n;
        begin
            if (cred[i] !== n)
                $fatal(1, "sw_drop_tb: input %0d returned %0d credits, expected %0d", i, cred[i], n);
        end
    endtask

    integer j;
    initial begin
        repeat (2) @(posedge clk);
        rst <= 1'b0;
        expect_drops(32'h0);

        // An out-of-grid head, its payload and tail: dropped (3 credits
        // back, nothing sent); the next head goes.
        push(1, fl(1'b1, 1'b0, OOG));
        push(1, fl(1'b0, 1'b0, 16'h1111));
        push(1, fl(1'b0, 1'b1, 16'h2222));
        push(1, fl(1'b1, 1'b1, NODE));
        expect_drops(32'h03_00_00_01);
        expect_cred(1, 4);
        if (nsent !== 1) $fatal(1, "sw_drop_tb: %0d flits sent after an out-of-grid packet, expected 1", nsent);
        expect_sent(0, fl(1'b1, 1'b1, NODE));

        // Orphans: a payload and a tail flit with no packet open.
        push(2, fl(1'b0, 1'b0, 16'h3333));
        push(2, fl(1'b0, 1'b1, 16'h4444));
        push(2, fl(1'b1, 1'b1, NODE));
        expect_drops(32'h05_00_02_01);
        expect_cred(2, 3);
        expect_sent(1, fl(1'b1, 1'b1, NODE));

        // A head inside a packet: the cut tail, then the head's packet.
        push(0, fl(1'b1, 1'b0, NODE));
        push(0, fl(1'b0, 1'b0, 16'h5555));
        push(0, fl(1'b1, 1'b0, NODE));
        push(0, fl(1'b0, 1'b1, 16'h6666));
        expect_drops(32'h05_01_02_01);
        expect_cred(0, 4);
        expect_sent(2, fl(1'b1, 1'b0, NODE));
        expect_sent(3, fl(1'b0, 1'b0, 16'h5555));
        expect_sent(4, fl(1'b0, 1'b1, NODE));     // the cut tail: the head, marks {0, 1}
        expect_sent(5, fl(1'b1, 1'b0, NODE));
        expect_sent(6, fl(1'b0, 1'b1, 16'h6666));

        // An out-of-grid head whose tail was lost: the next head ends the
        // dropping (a cut) and goes.
        push(1, fl(1'b1, 1'b0, OOG));
        push(1, fl(1'b1, 1'b1, NODE));
        expect_drops(32'h06_02_02_02);
        expect_sent(7, fl(1'b1, 1'b1, NODE));

        // Timing: the edge that ends the cycle of a drop counts it. An
        // orphan pushed at edge e is at the front (and dropped) in the
        // cycle after e; DROPS (read as the fault testbench reads it,
        // hierarchically) counts it from the edge after that, not later.
        @(negedge clk);
        in_valid <= 3'd2;
        in_flit  <= {3{fl(1'b0, 1'b0, 16'h7777)}};
        @(negedge clk);                           // edge e passed: the orphan's cycle
        in_valid <= 3'd0;
        if (sw.drops !== 32'h06_02_02_02)
            $fatal(1, "sw_drop_tb: DROPS is %h in the orphan's cycle, expected 06020202", sw.drops);
        @(negedge clk);                           // the edge ending that cycle passed
        if (sw.drops !== 32'h07_02_03_02)
            $fatal(1, "sw_drop_tb: DROPS is %h after the orphan's cycle, expected 07020302", sw.drops);

        // A write clears DROPS (not refused); the counts start again.
        xfer(1'b1, 32'h0);
        if (err !== 1'b0) $fatal(1, "sw_drop_tb: the write of DROPS was refused");
        expect_drops(32'h0);
        // Saturation: 300 orphans count 255.
        for (j = 0; j < 300; j = j + 1)
            push(2, fl(1'b0, 1'b0, j[FW-1:0]));
        expect_drops(32'hFF_00_FF_00);
        expect_cred(2, 303);
        push(2, fl(1'b1, 1'b1, NODE));
        repeat (2) @(negedge clk);
        expect_sent(8, fl(1'b1, 1'b1, NODE));
        $display("sw_drop_tb: PASS");
        $finish;
    end
endmodule
