// unit_read_tb: readback of a data unit's tables (docs/registers.md,
// "Readback"): data routes, expected messages and item-list words read
// back as written, gate and route words too; reads are refused while the
// unit waits. Prints "unit_read_tb: PASS" or stops with $fatal.
`timescale 1ns / 1ps
module unit_read_tb;
    localparam FW = 32, AB = 2, RB = 2;
    localparam W  = FW + 2;

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
    hx_barrier_unit #(.FW(FW), .B(2), .AB(AB), .RB(RB), .MAXG(2), .NRT(2), .DATA(1), .NIL(4)) dut (
        .clk(clk), .rst(rst), .arrive(arrive), .operand(operand),
        .released(released), .result(result),
        .inj_valid(inj_valid), .inj_flit(inj_flit), .inj_credit(inj_credit),
        .ej_valid(ej_valid), .ej_flit(ej_flit), .ej_credit(ej_credit),
        .psel(psel), .penable(penable), .pwrite(pwrite), .paddr(paddr),
        .pwdata(pwdata), .prdata(prdata), .pready(pready), .pslverr(pslverr),
        .irq(irq)
    );

    // cycle counter: cyc is cycle t during cycle t (incremented at its end)
    integer cyc = 0;
    always @(posedge clk) cyc <= cyc + 1;
    // monitors: the cycle irq went high last, flits injected
    integer irq_up = -1, nsent = 0, arr_at = -1;
    reg     irq_d = 1'b0;
    reg     last_tail = 1'b0;
    always @(posedge clk) begin
        irq_d <= irq;
        if (irq && !irq_d) irq_up = cyc;
        if (inj_valid) begin nsent = nsent + 1; last_tail = inj_flit[W-2]; end
        if (dut.ev_arrive) arr_at = cyc - 1;     // the event's cycle
    end

    reg [31:0] rd;
    reg        err;
    // xfer: one transfer; arr = 1 pulses arrive in its access cycle.
    task xfer_a;
        input        wr;
        input [31:0] addr;
        input [31:0] data;
        input        arr;
        begin
            @(negedge clk);
            psel <= 1'b1; penable <= 1'b0; pwrite <= wr; paddr <= addr; pwdata <= data;
            @(negedge clk);
            penable <= 1'b1;
            arrive  <= arr;
            @(posedge clk);
            rd = prdata; err = pslverr;
            if (pready !== 1'b1)
                $fatal(1, "unit_read_tb: pready not 1 in the access cycle");
            @(negedge clk);
            psel <= 1'b0; penable <= 1'b0; arrive <= 1'b0;
        end
    endtask
    task xfer;
        input        wr;
        input [31:0] addr;
        input [31:0] data;
        xfer_a(wr, addr, data, 1'b0);
    endtask
    task expect_rd;
        input [31:0] addr;
        input [31:0] v;
        input        e;
        begin
            xfer(1'b0, addr, 32'd0);
            if (err !== e || rd !== v)
                $fatal(1, "unit_read_tb: read %h: %h pslverr %b, expected %h pslverr %b (cycle %0d)", addr, rd, err, v, e, cyc);
        end
    endtask
    task expect_wr;
        input [31:0] addr;
        input [31:0] v;
        input        e;
        begin
            xfer(1'b1, addr, v);
            if (err !== e)
                $fatal(1, "unit_read_tb: write %h <- %h: pslverr %b, expected %b (cycle %0d)", addr, v, err, e, cyc);
        end
    endtask
    task pulse_arrive;
        begin
            @(negedge clk) arrive <= 1'b1;
            @(negedge clk) arrive <= 1'b0;
        end
    endtask
    // eject: one flit {head, tail, data} into the ejection FIFO
    task eject;
        input       h;
        input       t;
        input [FW-1:0] d;
        begin
            @(negedge clk);
            ej_valid <= 1'b1;
            ej_flit  <= {h, t, d};
            @(negedge clk);
            ej_valid <= 1'b0;
            repeat (2) @(negedge clk);
        end
    endtask
    // sig: a one-flit barrier packet for gate g from rank s
    task sig;
        input [5:0] g;
        input [1:0] s;
        eject(1'b1, 1'b1, 32'd0 | (g << (AB + RB)) | (s << AB));
    endtask
    task expect_status;
        input [31:0] v;
        expect_rd(32'h0000_0014, v, 1'b0);
    endtask
    // gate word i <- {hi, lo}
    task gate_word;
        input [5:0]  i;
        input [31:0] hi;
        input [31:0] lo;
        begin
            expect_wr(32'h1000_0000 + 8 * i, lo, 1'b0);
            expect_wr(32'h1000_0004 + 8 * i, hi, 1'b0);
        end
    endtask

    initial begin
        #20000;
        $fatal(1, "unit_read_tb: timed out in cycle %0d", cyc);
    end

    initial begin
        repeat (3) @(posedge clk);
        rst <= 1'b0;
        expect_wr(32'h3000_0008, 32'h0300_0002, 1'b0);      // data route 1
        expect_wr(32'h3000_000C, 32'h0001_0000, 1'b0);
        expect_wr(32'h4000_0010, 32'h0100_0003, 1'b0);      // expected message, gate 2
        expect_wr(32'h4000_0014, 32'h0002_0000, 1'b0);
        expect_wr(32'h5000_0004, 32'h0002_0007, 1'b0);      // item-list word 1
        expect_wr(32'h5000_0008, 32'h0003_0009, 1'b0);      // item-list word 2
        expect_rd(32'h3000_0008, 32'h0300_0002, 1'b0);
        expect_rd(32'h3000_000C, 32'h0001_0000, 1'b0);
        expect_rd(32'h4000_0010, 32'h0100_0003, 1'b0);
        expect_rd(32'h4000_0014, 32'h0002_0000, 1'b0);
        expect_rd(32'h5000_0004, 32'h0002_0007, 1'b0);
        expect_rd(32'h5000_0008, 32'h0003_0009, 1'b0);
        expect_rd(32'h5000_0010, 32'd0, 1'b1);              // past NIL
        // barrier, G = 1, gate 2 needs one signal: the unit waits
        expect_wr(32'h0000_0008, 32'h101, 1'b0);
        gate_word(6'd1, 32'd0, 32'd0);
        gate_word(6'd2, 32'h0000_0001, 32'd0);
        expect_rd(32'h1000_0014, 32'h0000_0001, 1'b0);
        pulse_arrive;
        expect_status(32'h5);
        expect_rd(32'h5000_0004, 32'd0, 1'b1);              // refused in WAIT
        expect_rd(32'h3000_0008, 32'd0, 1'b1);
        expect_rd(32'h1000_0014, 32'd0, 1'b1);
        expect_wr(32'h0000_0020, 32'd0, 1'b0);              // ABORT: IDLE, reads again
        expect_rd(32'h5000_0008, 32'h0003_0009, 1'b0);
        $display("unit_read_tb: PASS");
        $finish;
    end
    wire _unused_ok = &{1'b0, ej_credit, 1'b0};
endmodule
