// rt_apb_tb: the configuration port of hx_router on its own
// (docs/registers.md, "Torus router"). A router of a 4x3 grid, dimension
// 0 a ring, dimension 1 a mesh line (P = 9, 4 address bits). It checks ID
// and CAPS, the reset values, that a write takes effect at the edge that
// ends its access cycle (and not in the setup cycle), read back, every
// kind of refused transfer (pslverr, nothing written), that paddr bits
// 1..0 are ignored, and that the routes follow the written ADDR and PLUS
// registers: the direction, the dimension order, the wrap link's VC1 and
// the local port. Prints "rt_apb_tb: PASS" or stops with $fatal.
`timescale 1ns / 1ps
module rt_apb_tb;
    localparam FW = 16;
    localparam W  = FW + 2;
    localparam P  = 9;

    reg clk = 1'b0;
    reg rst = 1'b1;
    always #5 clk = ~clk;

    reg        psel = 1'b0, penable = 1'b0, pwrite = 1'b0;
    reg [15:0] paddr = 16'd0;
    reg [31:0] pwdata = 32'd0;
    wire [31:0] prdata;
    wire        pready, pslverr;

    // inputs driven by the test, outputs observed; every sent flit returns
    // its credit at once
    reg  [P-1:0]   in_valid = {P{1'b0}};
    reg  [P*W-1:0] in_flit  = {P*W{1'b0}};
    wire [P-1:0]   in_credit, out_valid;
    wire [P*W-1:0] out_flit;
    hx_router #(.FW(FW), .B(2), .NDIM(2), .K0(4), .K1(3), .WRAP(1)) rt (
        .clk(clk), .rst(rst),
        .in_valid(in_valid), .in_flit(in_flit), .in_credit(in_credit),
        .out_valid(out_valid), .out_flit(out_flit), .out_credit(out_valid),
        .psel(psel), .penable(penable), .pwrite(pwrite), .paddr(paddr),
        .pwdata(pwdata), .prdata(prdata), .pready(pready), .pslverr(pslverr)
    );

    localparam [15:0] A_ID = 16'h0000, A_CAPS = 16'h0004, A_ADDR = 16'h0008;
    localparam [15:0] A_PL0 = 16'h1000, A_PL0H = 16'h1004, A_PL1 = 16'h1008, A_PL1H = 16'h100C;

    // xfer: one transfer driven on falling edges; returns at the edge that
    // ends the access cycle with the values sampled there. In the setup
    // cycle nothing may be written yet: ADDR must still read old_addr.
    reg [31:0] rd;
    reg        err;
    task xfer;
        input        wr;
        input [15:0] addr;
        input [31:0] data;
        reg   [3:0]  before;
        begin
            @(negedge clk);
            psel <= 1'b1; penable <= 1'b0; pwrite <= wr; paddr <= addr; pwdata <= data;
            before = rt.r_addr;
            @(negedge clk);
            if (pslverr !== 1'b0)
                $fatal(1, "rt_apb_tb: pslverr in the setup cycle");
            if (rt.r_addr !== before)
                $fatal(1, "rt_apb_tb: ADDR changed in the setup cycle");
            penable <= 1'b1;
            @(posedge clk);
            rd  = prdata;
            err = pslverr;
            if (pready !== 1'b1)
                $fatal(1, "rt_apb_tb: pready not 1 in the access cycle");
            @(negedge clk);
            psel <= 1'b0; penable <= 1'b0;
        end
    endtask
    task expect_rd;
        input [15:0] addr;
        input [31:0] v;
        begin
            xfer(1'b0, addr, 32'd0);
            if (err !== 1'b0 || rd !== v)
                $fatal(1, "rt_apb_tb: read %h: %h pslverr %b, expected %h pslverr 0", addr, rd, err, v);
        end
    endtask
    task expect_wr;
        input [15:0] addr;
        input [31:0] v;
        input        e;
        begin
            xfer(1'b1, addr, v);
            if (err !== e)
                $fatal(1, "rt_apb_tb: write %h to %h: pslverr %b, expected %b", v, addr, err, e);
        end
    endtask
    task expect_rd_err;
        input [15:0] addr;
        begin
            xfer(1'b0, addr, 32'd0);
            if (err !== 1'b1)
                $fatal(1, "rt_apb_tb: read %h accepted (%h), expected pslverr", addr, rd);
        end
    endtask

    // head: a one-flit packet on input i to address a (c0 | c1 << 2); it
    // leaves, in the next cycle, by output want.
    task head;
        input integer i;
        input [3:0]   a;
        input integer want;
        begin
            @(negedge clk);
            in_valid <= {{(P-1){1'b0}}, 1'b1} << i;
            in_flit  <= {P{2'b11, {(FW-4){1'b0}}, a}};
            @(negedge clk);
            in_valid <= {P{1'b0}};
            if (out_valid !== ({{(P-1){1'b0}}, 1'b1} << want))
                $fatal(1, "rt_apb_tb: head to (%0d,%0d) on input %0d: out_valid %b, expected output %0d",
                       a[1:0], a[3:2], i, out_valid, want);
        end
    endtask

    initial begin
        repeat (3) @(negedge clk);
        rst <= 1'b0;

        expect_rd(A_ID, 32'h48585254);
        expect_rd(A_CAPS, 32'h00010209);          // WRAP 01, NDIM 2, P 9
        expect_rd(A_ADDR, 32'd0);                 // reset values
        expect_rd(A_PL0, 32'd0);
        expect_rd(A_PL0H, 32'd0);
        expect_rd(A_PL1, 32'd0);

        // ADDR (1, 2); paddr bits 1..0 ignored
        expect_wr(A_ADDR, 32'h9, 1'b0);
        expect_rd(A_ADDR, 32'h9);
        expect_rd(A_ADDR | 16'h3, 32'h9);
        // refused, nothing written
        expect_wr(A_ADDR, 32'hD, 1'b1);           // coordinate 1 = 3 >= K1
        expect_wr(A_ADDR, 32'h19, 1'b1);          // a bit above the address
        expect_wr(A_ID, 32'h0, 1'b1);             // read only
        expect_wr(A_CAPS, 32'h0, 1'b1);
        expect_rd(A_ADDR, 32'h9);
        expect_rd(16'h000C, 32'd0);                // DROPS: nothing dropped
        expect_rd_err(16'h0010);                  // unmapped
        expect_rd_err(16'h1010);                  // PLUS(2): NDIM = 2
        expect_wr(16'h1010, 32'h1, 1'b1);
        expect_rd_err(16'h0FFC);
        expect_rd_err(16'h2000);
        expect_wr(A_PL0, 32'h10, 1'b1);           // c = 4 >= K0
        expect_wr(A_PL0H, 32'h1, 1'b1);           // bits 63..32 of a dimension of 4
        expect_wr(A_PL1, 32'h8, 1'b1);            // c = 3 >= K1
        expect_wr(A_PL0, 32'h5, 1'b0);            // the upper word leaves the lower one
        expect_wr(A_PL0H, 32'h0, 1'b0);
        expect_rd(A_PL0, 32'h5);
        expect_rd(A_PL0H, 32'h0);
        expect_wr(A_PL0, 32'h0, 1'b0);
        expect_rd(A_PL0, 32'd0);
        expect_rd(A_PL1, 32'd0);

        // Routes from (1, 2). Dimension 0 first: with PLUS(0) = 0 every
        // hop goes - (output 3: - VC0); with bit 3 set, + (output 1).
        head(0, 4'hB, 3);                         // to (3, 2)
        expect_wr(A_PL0, 32'h8, 1'b0);
        expect_rd(A_PL0, 32'h8);
        head(0, 4'hB, 1);
        head(0, 4'h3, 1);                         // to (3, 0): dimension 0 before 1
        // Dimension 1 (mesh line): - (output 7), then + when PLUS(1) bit 0 is set.
        head(0, 4'h1, 7);                         // to (1, 0)
        expect_wr(A_PL1, 32'h1, 1'b0);
        head(0, 4'h1, 5);
        head(0, 4'h9, 0);                         // to (1, 2): here
        // ADDR (3, 2): the + hop to coordinate 0 crosses the wrap link (VC1,
        // output 2); the - hop from 0 would too.
        expect_wr(A_ADDR, 32'hB, 1'b0);
        expect_wr(A_PL0, 32'h1, 1'b0);
        head(0, 4'h8, 2);                         // to (0, 2)
        head(0, 4'hB, 0);                         // to (3, 2): here now
        expect_wr(A_ADDR, 32'h8, 1'b0);           // (0, 2)
        expect_wr(A_PL0, 32'h0, 1'b0);
        head(0, 4'hB, 4);                         // to (3, 2): - from 0, VC1
        // A reset clears the registers.
        @(negedge clk);
        rst <= 1'b1;
        @(negedge clk);
        rst <= 1'b0;
        expect_rd(A_ADDR, 32'd0);
        expect_rd(A_PL0, 32'd0);
        expect_rd(A_PL1, 32'd0);
        $display("rt_apb_tb: PASS");
        $finish;
    end
endmodule
