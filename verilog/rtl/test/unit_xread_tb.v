// unit_xread_tb: a read of an expected-message word in the cycle a
// data-mode head pops (docs/registers.md, "Readback"). The receive part
// reads the expected-message RAM's one port at the pop of a data-mode
// head (the length check, SEQ), so a table read whose setup cycle is
// that cycle is refused: pslverr 1, prdata 0. A read one cycle before or
// after it is served with the word as written, and so is a read of
// another table (a data route) in the pop's cycle.
//
// The pop's cycle is not assumed: each trial resets the unit, writes the
// expected words of gates 2 and 3 and a data route, starts a read of gate
// 3's word (or of the route) and ejects a head for gate 2 at one of six
// offsets around the read, and records the cycle the head popped
// (ej_credit). The trial whose pop lands in the expected word's setup
// cycle must be refused, the others served. The bench stops with $fatal
// unless the collision was landed once and the reads one cycle before and
// after it were each made. Prints "unit_xread_tb: PASS".
`timescale 1ns / 1ps
module unit_xread_tb;
    localparam FW = 32, AB = 2, RB = 2;
    localparam W  = FW + 2;
    localparam [31:0] XW2 = 32'h0100_0003;   // gate 2's expected word, low half
    localparam [31:0] XW3 = 32'h0200_0005;   // gate 3's expected word, low half
    localparam [31:0] RW1 = 32'h0300_0002;   // data route 1, low half

    reg clk = 1'b0;
    reg rst = 1'b1;
    always #5 clk = ~clk;

    reg             psel = 1'b0, penable = 1'b0, pwrite = 1'b0;
    reg  [31:0]     paddr = 32'd0, pwdata = 32'd0;
    wire [31:0]     prdata;
    wire            pready, pslverr;
    reg             arrive = 1'b0;
    reg  [63:0]     operand = 64'd0;
    wire            released, irq;
    wire [63:0]     result;
    wire [W-1:0]    inj_flit;
    wire            inj_valid, ej_credit;
    reg             inj_credit = 1'b0;
    reg             ej_valid = 1'b0;
    reg  [W-1:0]    ej_flit = {W{1'b0}};
    hx_barrier_unit #(.FW(FW), .B(2), .AB(AB), .RB(RB), .MAXG(3), .NRT(2), .DATA(1), .NIL(4)) dut (
        .clk(clk), .rst(rst), .arrive(arrive), .operand(operand),
        .released(released), .result(result),
        .inj_valid(inj_valid), .inj_flit(inj_flit), .inj_credit(inj_credit),
        .ej_valid(ej_valid), .ej_flit(ej_flit), .ej_credit(ej_credit),
        .psel(psel), .penable(penable), .pwrite(pwrite), .paddr(paddr),
        .pwdata(pwdata), .prdata(prdata), .pready(pready), .pslverr(pslverr),
        .irq(irq)
    );

    // cycle counter: cyc is cycle t during cycle t (incremented at its end).
    // Monitors, sampled at the end of each cycle: the cycle the last flit
    // popped, the last read's setup cycle.
    integer cyc = 0, pop_at = -1, setup_at = -1;
    always @(posedge clk) begin
        if (ej_credit) pop_at = cyc;
        if (psel && !penable && !pwrite) setup_at = cyc;
        cyc <= cyc + 1;
    end

    reg [31:0] rd;
    reg        err;
    task xfer;
        input        wr;
        input [31:0] addr;
        input [31:0] data;
        begin
            @(negedge clk);
            psel <= 1'b1; penable <= 1'b0; pwrite <= wr; paddr <= addr; pwdata <= data;
            @(negedge clk);
            penable <= 1'b1;
            @(posedge clk);
            rd = prdata; err = pslverr;
            if (pready !== 1'b1)
                $fatal(1, "unit_xread_tb: pready not 1 in the access cycle");
            @(negedge clk);
            psel <= 1'b0; penable <= 1'b0;
        end
    endtask
    task expect_wr;
        input [31:0] addr;
        input [31:0] v;
        begin
            xfer(1'b1, addr, v);
            if (err !== 1'b0)
                $fatal(1, "unit_xread_tb: write %h <- %h refused (cycle %0d)", addr, v, cyc);
        end
    endtask
    // eject_at: a head flit for gate g from rank s, ej_valid for one cycle
    // starting d negedges from now.
    task eject_at;
        input integer d;
        input [5:0]   g;
        input [1:0]   s;
        begin
            repeat (d) @(negedge clk);
            ej_valid <= 1'b1;
            ej_flit  <= {1'b1, 1'b0, 32'd0 | (g << (AB + RB)) | (s << AB)};
            @(negedge clk);
            ej_valid <= 1'b0;
        end
    endtask
    // setup: reset, then a data-mode unit (EN, DMODE, G = 2) with the
    // expected words of gates 2 and 3 written (high halves: item counts).
    task setup;
        begin
            @(negedge clk) rst <= 1'b1;
            repeat (2) @(negedge clk);
            rst <= 1'b0;
            expect_wr(32'h0000_0008, 32'h0000_0211);     // CTRL: G 2, DMODE, EN
            expect_wr(32'h0000_000C, 32'h0000_0000);     // RANK 0
            expect_wr(32'h0000_0010, 32'h0000_0001);     // ITEMF 1
            expect_wr(32'h4000_0010, XW2);               // gate 2
            expect_wr(32'h4000_0014, 32'h0001_0000);
            expect_wr(32'h4000_0018, XW3);               // gate 3
            expect_wr(32'h4000_001C, 32'h0002_0000);
            expect_wr(32'h3000_0008, RW1);               // data route 1
            expect_wr(32'h3000_000C, 32'h0001_0000);
        end
    endtask

    integer d, hit, before, after;
    reg     xm;            // the read is of an expected-message word
    reg [31:0] addr, want;
    initial begin
        #100000;
        $fatal(1, "unit_xread_tb: timed out in cycle %0d", cyc);
    end

    initial begin
        hit = 0; before = 0; after = 0;
        for (d = 0; d < 12; d = d + 1) begin
            xm   = d < 6;
            addr = xm ? 32'h4000_0018 : 32'h3000_0008;
            want = xm ? XW3 : RW1;
            setup;
            pop_at = -1;
            // the read sets up 3 negedges from now, the head is ejected
            // d mod 6 negedges from now
            fork
                begin
                    repeat (2) @(negedge clk);
                    xfer(1'b0, addr, 32'd0);
                end
                eject_at(d % 6, 6'd2, 2'd1);
            join
            repeat (4) @(negedge clk);
            if (pop_at < 0)
                $fatal(1, "unit_xread_tb: offset %0d: the head never popped", d);
            if (xm && pop_at == setup_at) begin
                hit = hit + 1;
                if (err !== 1'b1 || rd !== 32'd0)
                    $fatal(1, "unit_xread_tb: expected word read in the cycle a head popped (%0d): %h pslverr %b, expected 0 pslverr 1",
                           pop_at, rd, err);
            end else begin
                if (xm && pop_at == setup_at - 1) before = before + 1;
                if (xm && pop_at == setup_at + 1) after = after + 1;
                if (err !== 1'b0 || rd !== want)
                    $fatal(1, "unit_xread_tb: read of %h set up in cycle %0d, head popped in %0d: %h pslverr %b, expected %h pslverr 0",
                           addr, setup_at, pop_at, rd, err, want);
            end
        end
        if (hit != 1 || before != 1 || after != 1)
            $fatal(1, "unit_xread_tb: offsets cover %0d collisions, %0d pops a cycle before, %0d after the setup (want 1 each)",
                   hit, before, after);
        $display("unit_xread_tb: PASS");
        $finish;
    end
    wire _unused_ok = &{1'b0, released, result, inj_valid, inj_flit, irq, 1'b0};
endmodule
