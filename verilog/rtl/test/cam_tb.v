// cam_tb: the routing exception CAM of hx_switch (parameter E; docs/registers.md,
// "Switch"; docs/reliability.md, "Routing around a dead channel"). Two
// switches: an exchanger of a 2-D system with K0 = 2, K1 = 3 (P = 3, AB = 3,
// E = 3) and the dimension-0 crossbar of a 4x4 system (P = 4, AB = 4, E = 2).
// It checks EXC, the reset values, read back, every refused write (entry past
// E, an address with a bit at or above AB or a coordinate past its size, a
// control word with bits 31..9 set or a port >= P; nothing written), that a
// valid exception wins over the table, that an address differing from the
// entry's in any one bit misses it, that an invalid entry is ignored, that
// the lowest matching entry wins, and that reset clears the entries. Prints
// "cam_tb: PASS" or stops with $fatal.
`timescale 1ns / 1ps
module cam_tb;
    localparam FW = 16;
    localparam W  = FW + 2;

    reg clk = 1'b0;
    reg rst = 1'b1;
    always #5 clk = ~clk;

    reg        psel_x = 1'b0, psel_c = 1'b0, penable = 1'b0, pwrite = 1'b0;
    reg [15:0] paddr = 16'd0;
    reg [31:0] pwdata = 32'd0;
    wire [31:0] prdata_x, prdata_c;
    wire        pready_x, pready_c, pslverr_x, pslverr_c;

    reg  [2:0]     x_in_valid = 3'd0;
    reg  [3*W-1:0] x_in_flit  = {3*W{1'b0}};
    wire [2:0]     x_in_credit, x_out_valid;
    wire [3*W-1:0] x_out_flit;
    hx_switch #(.P(3), .FW(FW), .B(2), .MODE(0), .NDIM(2), .K0(2), .K1(3), .E(3)) xchg (
        .clk(clk), .rst(rst),
        .in_valid(x_in_valid), .in_flit(x_in_flit), .in_credit(x_in_credit),
        .out_valid(x_out_valid), .out_flit(x_out_flit), .out_credit(x_out_valid),
        .psel(psel_x), .penable(penable), .pwrite(pwrite), .paddr(paddr),
        .pwdata(pwdata), .prdata(prdata_x), .pready(pready_x), .pslverr(pslverr_x)
    );

    reg  [3:0]     c_in_valid = 4'd0;
    reg  [4*W-1:0] c_in_flit  = {4*W{1'b0}};
    wire [3:0]     c_in_credit, c_out_valid;
    wire [4*W-1:0] c_out_flit;
    hx_switch #(.P(4), .FW(FW), .B(2), .MODE(1), .NDIM(2), .K0(4), .K1(4), .XDIM(0), .E(2)) xbar (
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
                $fatal(1, "cam_tb: pslverr in the setup cycle");
            penable <= 1'b1;
            @(posedge clk);
            rd  = sw ? prdata_c : prdata_x;
            err = sw ? pslverr_c : pslverr_x;
            if ((sw ? pready_c : pready_x) !== 1'b1)
                $fatal(1, "cam_tb: pready not 1 in the access cycle");
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
                $fatal(1, "cam_tb: switch %0d read %h: %h pslverr %b, expected %h pslverr 0",
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
                $fatal(1, "cam_tb: switch %0d write %h to %h: pslverr %b, expected %b",
                       sw, v, addr, err, e);
        end
    endtask
    task expect_rd_err;   // a read that must be refused
        input        sw;
        input [15:0] addr;
        begin
            xfer(sw, 1'b0, addr, 32'd0);
            if (err !== 1'b1)
                $fatal(1, "cam_tb: switch %0d read %h accepted (%h), expected pslverr", sw, addr, rd);
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
                $fatal(1, "cam_tb: exchanger head to %0d on input %0d: out_valid %b, expected %b",
                       a, i, x_out_valid, want);
        end
    endtask
    task head_c;   // crossbar input i, destination address a (c0 | c1 << 2)
        input integer i;
        input [3:0]   a;
        input [3:0]   want;
        begin
            @(negedge clk);
            c_in_valid <= 4'd1 << i;
            c_in_flit  <= {4{2'b11, {(FW-4){1'b0}}, a}};
            @(negedge clk);
            c_in_valid <= 4'd0;
            if (c_out_valid !== want)
                $fatal(1, "cam_tb: crossbar head to %0d on input %0d: out_valid %b, expected %b",
                       a, i, c_out_valid, want);
        end
    endtask

    initial begin
        repeat (2) @(posedge clk);
        rst <= 1'b0;

        // EXC reads E; it is read-only.
        expect_rd(0, 16'h0008, 32'd3);
        expect_rd(1, 16'h0008, 32'd2);
        expect_wr(0, 16'h0008, 32'd0, 1'b1);
        // Reset: every word of every entry reads 0 (not valid).
        expect_rd(0, 16'h2000, 32'h0);
        expect_rd(0, 16'h2004, 32'h0);
        expect_rd(0, 16'h2010, 32'h0);
        expect_rd(0, 16'h2014, 32'h0);
        expect_rd(1, 16'h200C, 32'h0);
        // Entry 0 = {valid, address 5 = (1, 2), port 2}; read back.
        expect_wr(0, 16'h2000, 32'd5, 1'b0);
        expect_wr(0, 16'h2004, 32'h102, 1'b0);
        expect_rd(0, 16'h2000, 32'd5);
        expect_rd(0, 16'h2004, 32'h102);
        expect_rd(0, 16'h2006, 32'h102);            // paddr bits 1..0 ignored
        // Refused writes and reads: nothing written.
        expect_wr(0, 16'h2018, 32'd1, 1'b1);        // entry 3: past E = 3
        expect_wr(0, 16'h201C, 32'h101, 1'b1);
        expect_rd_err(0, 16'h2018);
        expect_rd_err(0, 16'h3FFC);
        expect_wr(0, 16'h2000, 32'd8, 1'b1);        // bit 3: at AB = 3
        expect_wr(0, 16'h2000, 32'h80000005, 1'b1);
        expect_wr(0, 16'h2000, 32'd6, 1'b1);        // c1 = 3: past K1 = 3
        expect_wr(0, 16'h2004, 32'h103, 1'b1);      // port 3 of a 3-port switch
        expect_wr(0, 16'h2004, 32'h302, 1'b1);      // bit 9 set
        expect_wr(0, 16'h2004, 32'h800000FF, 1'b1);
        expect_rd(0, 16'h2000, 32'd5);              // unchanged
        expect_rd(0, 16'h2004, 32'h102);
        expect_wr(1, 16'h2000, 32'd16, 1'b1);       // crossbar: bit 4 at AB = 4
        expect_wr(1, 16'h2004, 32'h104, 1'b1);      // port 4 of a 4-port crossbar
        expect_wr(1, 16'h2010, 32'd0, 1'b1);        // entry 2: past E = 2

        // The exchanger's table: all PASS (reset) but entry 1 (dimension 0,
        // coordinate 1) = port 1. Address 5 = (1, 2): table port 1,
        // exception port 2: the exception wins.
        expect_wr(0, 16'h1004, 32'd1, 1'b0);
        idle;
        head_x(0, 3'd5, 3'b100);
        head_x(2, 3'd5, 3'b100);
        // An address differing from the entry's in one bit misses it:
        // 4 = (0, 2) and 1 = (1, 0) by the table; 7 names no node.
        head_x(1, 3'd4, 3'b001);
        head_x(1, 3'd1, 3'b010);
        head_x(0, 3'd3, 3'b010);                    // (1, 1): bit 1 differs
        // Entry 1 = {valid, 5, port 0}: the lowest matching entry (0) wins.
        expect_wr(0, 16'h2008, 32'd5, 1'b0);
        expect_wr(0, 16'h200C, 32'h100, 1'b0);
        idle;
        head_x(1, 3'd5, 3'b100);
        // Entry 0 not valid: entry 1 decides (port 0).
        expect_wr(0, 16'h2004, 32'h002, 1'b0);
        expect_rd(0, 16'h2004, 32'h002);
        idle;
        head_x(1, 3'd5, 3'b001);
        // Entry 1 not valid either: the table again (port 1).
        expect_wr(0, 16'h200C, 32'h000, 1'b0);
        idle;
        head_x(0, 3'd5, 3'b010);
        // The last entry works: entry 2 = {valid, 2 = (0, 1), port 1}.
        expect_wr(0, 16'h2010, 32'd2, 1'b0);
        expect_wr(0, 16'h2014, 32'h101, 1'b0);
        idle;
        head_x(2, 3'd2, 3'b010);
        head_x(2, 3'd0, 3'b001);                    // (0, 0): PASS, PASS -> local

        // Crossbar (identity table): entry 1 = {valid, 14 = (2, 3), port 0}.
        expect_wr(1, 16'h2008, 32'd14, 1'b0);
        expect_wr(1, 16'h200C, 32'h100, 1'b0);
        expect_rd(1, 16'h2008, 32'd14);
        expect_rd(1, 16'h200C, 32'h100);
        idle;
        head_c(3, 4'd14, 4'b0001);
        head_c(3, 4'd2, 4'b0100);                   // (2, 0): table port 2
        head_c(0, 4'd6, 4'b0100);                   // (2, 1)
        head_c(1, 4'd10, 4'b0100);                  // (2, 2)
        head_c(2, 4'd15, 4'b1000);                  // (3, 3)
        head_c(2, 4'd12, 4'b0001);                  // (0, 3)

        // Reset clears the entries: the exchanger's table (PASS) decides.
        @(negedge clk);
        rst <= 1'b1;
        @(negedge clk);
        rst <= 1'b0;
        expect_rd(0, 16'h2014, 32'h0);
        expect_rd(0, 16'h2010, 32'h0);
        idle;
        head_x(2, 3'd2, 3'b001);
        head_c(3, 4'd14, 4'b0100);                  // (2, 3): the table's port 2
        $display("cam_tb: PASS");
        $finish;
    end
endmodule
