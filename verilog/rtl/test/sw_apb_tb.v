// sw_apb_tb: the configuration port of hx_switch on its own
// (docs/registers.md, "Switch"; docs/rtl.md, hx_switch). Two switches: an
// exchanger of a 2-D system with K0 = 2, K1 = 3 (P = 3, 5 entries) and a
// 4-port crossbar. It checks ID and CAPS, the reset values of the entries,
// that a write takes effect at the edge that ends its access cycle (and not
// in the setup cycle), read back, every kind of refused transfer (pslverr,
// nothing written), that paddr bits 1..0 and 31..16 are ignored, and that
// the routes follow the written tables (a head flit leaves by the port the
// new entry names). Prints "sw_apb_tb: PASS" or stops with $fatal.
`timescale 1ns / 1ps
module sw_apb_tb;
    localparam FW = 16;
    localparam W  = FW + 2;

    reg clk = 1'b0;
    reg rst = 1'b1;
    always #5 clk = ~clk;

    // APB requester, shared by both switches (psel per switch)
    reg        psel_x = 1'b0, psel_c = 1'b0, penable = 1'b0, pwrite = 1'b0;
    reg [15:0] paddr = 16'd0;
    reg [31:0] pwdata = 32'd0;
    wire [31:0] prdata_x, prdata_c;
    wire        pready_x, pready_c, pslverr_x, pslverr_c;

    // exchanger: inputs driven by the test, outputs observed; every sent flit
    // returns its credit at once (the downstream buffer never fills)
    reg  [2:0]     x_in_valid = 3'd0;
    reg  [3*W-1:0] x_in_flit  = {3*W{1'b0}};
    wire [2:0]     x_in_credit, x_out_valid;
    wire [3*W-1:0] x_out_flit;
    hx_switch #(.P(3), .FW(FW), .B(2), .MODE(0), .NDIM(2), .K0(2), .K1(3)) xchg (
        .clk(clk), .rst(rst),
        .in_valid(x_in_valid), .in_flit(x_in_flit), .in_credit(x_in_credit),
        .out_valid(x_out_valid), .out_flit(x_out_flit), .out_credit(x_out_valid),
        .psel(psel_x), .penable(penable), .pwrite(pwrite), .paddr(paddr),
        .pwdata(pwdata), .prdata(prdata_x), .pready(pready_x), .pslverr(pslverr_x)
    );

    // crossbar of dimension 0, K0 = 4
    reg  [3:0]     c_in_valid = 4'd0;
    reg  [4*W-1:0] c_in_flit  = {4*W{1'b0}};
    wire [3:0]     c_in_credit, c_out_valid;
    wire [4*W-1:0] c_out_flit;
    hx_switch #(.P(4), .FW(FW), .B(2), .MODE(1), .NDIM(1), .K0(4), .XDIM(0)) xbar (
        .clk(clk), .rst(rst),
        .in_valid(c_in_valid), .in_flit(c_in_flit), .in_credit(c_in_credit),
        .out_valid(c_out_valid), .out_flit(c_out_flit), .out_credit(c_out_valid),
        .psel(psel_c), .penable(penable), .pwrite(pwrite), .paddr(paddr),
        .pwdata(pwdata), .prdata(prdata_c), .pready(pready_c), .pslverr(pslverr_c)
    );

    // xfer: one transfer to switch sw (0 exchanger, 1 crossbar), driven on
    // falling edges; returns at the edge that ends the access cycle with the
    // values sampled there.
    reg [31:0] rd;
    reg        err;
    task xfer;
        input        sw;
        input        wr;
        input [15:0] addr;
        input [31:0] data;
        begin
            @(negedge clk);
            psel_x <= !sw; psel_c <= sw; penable <= 1'b0; pwrite <= wr;
            paddr <= addr; pwdata <= data;
            @(negedge clk);
            // setup cycle seen: nothing is written yet, no error
            if ((sw ? pslverr_c : pslverr_x) !== 1'b0)
                $fatal(1, "sw_apb_tb: pslverr in the setup cycle");
            penable <= 1'b1;
            @(posedge clk);
            rd  = sw ? prdata_c : prdata_x;
            err = sw ? pslverr_c : pslverr_x;
            if ((sw ? pready_c : pready_x) !== 1'b1)
                $fatal(1, "sw_apb_tb: pready not 1 in the access cycle");
        end
    endtask
    task idle;
        begin
            @(negedge clk);
            psel_x <= 1'b0; psel_c <= 1'b0; penable <= 1'b0;
        end
    endtask
    task expect_rd;   // a read that must be accepted and return v
        input        sw;
        input [15:0] addr;
        input [31:0] v;
        begin
            xfer(sw, 1'b0, addr, 32'd0);
            if (err !== 1'b0 || rd !== v)
                $fatal(1, "sw_apb_tb: switch %0d read %h: %h pslverr %b, expected %h pslverr 0",
                       sw, addr, rd, err, v);
        end
    endtask
    task expect_wr;   // a write with the given pslverr
        input        sw;
        input [15:0] addr;
        input [31:0] v;
        input        e;
        begin
            xfer(sw, 1'b1, addr, v);
            if (err !== e)
                $fatal(1, "sw_apb_tb: switch %0d write %h to %h: pslverr %b, expected %b",
                       sw, v, addr, err, e);
        end
    endtask
    task expect_rd_err;   // a read that must be refused
        input        sw;
        input [15:0] addr;
        begin
            xfer(sw, 1'b0, addr, 32'd0);
            if (err !== 1'b1)
                $fatal(1, "sw_apb_tb: switch %0d read %h accepted (%h), expected pslverr", sw, addr, rd);
        end
    endtask

    // head flit on an input, for one cycle; the route shows on out_valid in
    // the next cycle (the FIFO is registered, the output sends at once).
    task head_x;   // exchanger input i, destination address a (c0 | c1 << 1)
        input integer i;
        input [2:0]   a;
        input [2:0]   want;   // expected out_valid, one-hot
        begin
            @(negedge clk);
            x_in_valid <= 3'd1 << i;
            x_in_flit  <= {3{2'b11, {(FW-3){1'b0}}, a}};
            @(negedge clk);
            x_in_valid <= 3'd0;
            if (x_out_valid !== want)
                $fatal(1, "sw_apb_tb: exchanger head to %0d on input %0d: out_valid %b, expected %b",
                       a, i, x_out_valid, want);
        end
    endtask
    task head_c;   // crossbar input i, destination coordinate a
        input integer i;
        input [1:0]   a;
        input [3:0]   want;
        begin
            @(negedge clk);
            c_in_valid <= 4'd1 << i;
            c_in_flit  <= {4{2'b11, {(FW-2){1'b0}}, a}};
            @(negedge clk);
            c_in_valid <= 4'd0;
            if (c_out_valid !== want)
                $fatal(1, "sw_apb_tb: crossbar head to %0d on input %0d: out_valid %b, expected %b",
                       a, i, c_out_valid, want);
        end
    endtask

    integer e;
    initial begin
        repeat (2) @(posedge clk);
        rst <= 1'b0;

        // ID, CAPS: {crossbar, TSIZE, P}
        expect_rd(0, 16'h0000, 32'h48585357);
        expect_rd(0, 16'h0004, 32'h00000503);
        expect_rd(1, 16'h0000, 32'h48585357);
        expect_rd(1, 16'h0004, 32'h01000404);
        // Reset values: PASS in the exchanger, identity in the crossbar.
        for (e = 0; e < 5; e = e + 1)
            expect_rd(0, 16'h1000 + 4 * e, 32'hFF);
        for (e = 0; e < 4; e = e + 1)
            expect_rd(1, 16'h1000 + 4 * e, e);
        // With all PASS every head goes to the local port 0.
        idle;
        head_x(1, 3'b101, 3'b001);

        // A write takes effect at the edge that ends its access cycle.
        xfer(0, 1'b1, 16'h1004, 32'h1);       // entry 1 = port 1
        if (xchg.g_tab[1].ent !== 8'hFF)
            $fatal(1, "sw_apb_tb: entry written before the end of the access cycle");
        if (err !== 1'b0)
            $fatal(1, "sw_apb_tb: write of entry 1 refused");
        @(negedge clk);
        if (xchg.g_tab[1].ent !== 8'h01)
            $fatal(1, "sw_apb_tb: entry not written by the edge ending the access cycle");
        expect_rd(0, 16'h1004, 32'h1);
        // paddr bits 1..0 are ignored: 0x100B is entry 2
        expect_wr(0, 16'h100B, 32'h2, 1'b0);
        expect_rd(0, 16'h1008, 32'h2);
        expect_rd(0, 16'h100A, 32'h2);
        // PASS is a value an exchanger entry may hold
        expect_wr(0, 16'h100C, 32'hFF, 1'b0);
        expect_wr(0, 16'h1010, 32'h0, 1'b0);

        // Refused transfers: nothing written.
        expect_wr(0, 16'h0000, 32'h0, 1'b1);          // ID is read-only
        expect_wr(0, 16'h0004, 32'h0, 1'b1);          // CAPS is read-only
        expect_wr(0, 16'h1014, 32'h0, 1'b1);          // entry 5: past TSIZE = 5
        expect_rd_err(0, 16'h1014);
        expect_wr(0, 16'h0008, 32'h0, 1'b1);          // unmapped
        expect_rd_err(0, 16'h0008);
        expect_rd_err(0, 16'h0FFC);
        expect_wr(0, 16'h1004, 32'h3, 1'b1);          // port 3 of a 3-port switch
        expect_wr(0, 16'h1004, 32'h1FF, 1'b1);        // not PASS: bits 31..8 set
        expect_wr(0, 16'h1004, 32'h80000000, 1'b1);
        expect_rd(0, 16'h1004, 32'h1);                // unchanged
        expect_wr(1, 16'h1000, 32'hFF, 1'b1);         // no PASS in a crossbar
        expect_wr(1, 16'h1000, 32'h4, 1'b1);          // port 4 of a 4-port crossbar
        expect_wr(1, 16'h1010, 32'h0, 1'b1);          // entry 4: past TSIZE = 4
        expect_rd(1, 16'h1000, 32'h0);                // unchanged
        // A setup cycle alone (no access cycle) writes nothing.
        @(negedge clk);
        psel_x <= 1'b1; penable <= 1'b0; pwrite <= 1'b1; paddr <= 16'h1000; pwdata <= 32'h2;
        @(negedge clk);
        psel_x <= 1'b0;
        if (xchg.g_tab[0].ent !== 8'hFF)
            $fatal(1, "sw_apb_tb: a setup cycle wrote entry 0");

        // Routes follow the table: entries [PASS, 1, 2, PASS, 0].
        // dst (c0, c1) = (1, x): entry 1 = port 1
        idle;
        head_x(0, 3'b011, 3'b010);
        // dst (0, 0): entry 0 PASS, entry 2 + 0 = 2 -> port 2
        head_x(0, 3'b000, 3'b100);
        // dst (0, 1): PASS, entry 3 PASS -> local port 0
        head_x(2, 3'b010, 3'b001);
        // dst (0, 2): PASS, entry 4 = port 0
        head_x(1, 3'b100, 3'b001);

        // Crossbar: a permutation, entry c = 3 - c.
        for (e = 0; e < 4; e = e + 1)
            expect_wr(1, 16'h1000 + 4 * e, 3 - e, 1'b0);
        for (e = 0; e < 4; e = e + 1)
            expect_rd(1, 16'h1000 + 4 * e, 3 - e);
        idle;
        head_c(0, 2'd0, 4'b1000);
        head_c(3, 2'd2, 4'b0010);
        head_c(1, 2'd3, 4'b0001);

        // Reset restores PASS / identity.
        @(negedge clk);
        rst <= 1'b1;
        @(negedge clk);
        rst <= 1'b0;
        expect_rd(0, 16'h1004, 32'hFF);
        expect_rd(1, 16'h1000, 32'h0);
        idle;
        $display("sw_apb_tb: PASS");
        $finish;
    end
endmodule
