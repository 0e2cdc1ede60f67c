// unit_soft_tb: hx_barrier_unit's software controls on their own
// (docs/registers.md, "Software control"): 64-bit table words commit only
// onto the staged low half of the same word; table words read back; a
// WATCHDOG write while the unit waits takes effect (TIMEOUT at the new
// value) and the error sets irq, which IRQ_STATUS clears; ABORT in ERROR
// and in WAIT returns the unit to IDLE with its receive counts cleared,
// and a fresh episode then completes (irq on the release); an ABORT in the
// middle of a packet being sent finishes it (drain), holding an arrival
// until it is done; one in the middle of a packet being received discards
// the rest of it; an arrival in the access cycle of a CTRL write is held
// one cycle, with its operand. Prints "unit_soft_tb: PASS" or stops with
// $fatal.
`timescale 1ns / 1ps
module unit_soft_tb;
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
    hx_barrier_unit #(.FW(FW), .B(2), .AB(AB), .RB(RB), .MAXG(2), .NRT(2)) dut (
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
                $fatal(1, "unit_soft_tb: pready not 1 in the access cycle");
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
                $fatal(1, "unit_soft_tb: read %h: %h pslverr %b, expected %h pslverr %b (cycle %0d)", addr, rd, err, v, e, cyc);
        end
    endtask
    task expect_wr;
        input [31:0] addr;
        input [31:0] v;
        input        e;
        begin
            xfer(1'b1, addr, v);
            if (err !== e)
                $fatal(1, "unit_soft_tb: write %h <- %h: pslverr %b, expected %b (cycle %0d)", addr, v, err, e, cyc);
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

    // a bound: the scenario takes about 300 cycles
    initial begin
        #20000;
        $fatal(1, "unit_soft_tb: timed out in cycle %0d", cyc);
    end

    integer t0, n0;
    initial begin
        repeat (3) @(posedge clk);
        rst <= 1'b0;

        // --- atomic 64-bit words and readback
        expect_wr(32'h1000_000C, 32'd1, 1'b1);              // a high half, nothing staged
        gate_word(6'd1, 32'h0001_0100, 32'h0003_0001);
        expect_rd(32'h1000_0008, 32'h0003_0001, 1'b0);
        expect_rd(32'h1000_000C, 32'h0001_0100, 1'b0);      // first source 1, self
        expect_wr(32'h1000_0008, 32'h0000_0005, 1'b0);      // low half of word 1 ...
        expect_wr(32'h1000_0014, 32'd1, 1'b1);              // ... high half of word 2: refused
        expect_rd(32'h1000_0008, 32'h0003_0001, 1'b0);      // word 1 unchanged
        expect_wr(32'h1000_000C, 32'h0000_0100, 1'b0);      // its own high half commits
        expect_rd(32'h1000_0008, 32'h0000_0005, 1'b0);
        expect_rd(32'h1000_000C, 32'h0000_0100, 1'b0);
        expect_wr(32'h1000_000C, 32'h0001_0100, 1'b1);      // staging used: refused
        expect_wr(32'h2000_0008, 32'd3, 1'b0);              // route 1: address 3 ...
        expect_wr(32'h2000_000C, 32'd2, 1'b0);              // ... rank 2
        expect_rd(32'h2000_0008, 32'd3, 1'b0);
        expect_rd(32'h2000_000C, 32'd2, 1'b0);

        // --- unit: barrier, G = 1, gate 2 needs two signals, no routes
        expect_wr(32'h0000_0008, 32'h101, 1'b0);
        expect_wr(32'h0000_000C, 32'd0, 1'b0);
        gate_word(6'd1, 32'd0, 32'd0);
        gate_word(6'd2, 32'h0001_0002, 32'd0);              // need 2, first source 1
        expect_wr(32'h0000_0028, 32'd3, 1'b0);              // IRQ_ENABLE: release, error
        expect_rd(32'h0000_0028, 32'd3, 1'b0);

        // --- WATCHDOG written while waiting: TIMEOUT at the new value
        pulse_arrive;
        expect_status(32'h5);                               // WAIT, cur 1
        t0 = arr_at;
        expect_wr(32'h0000_0008, 32'h101, 1'b1);            // CTRL refused in WAIT
        expect_rd(32'h1000_0008, 32'd0, 1'b1);              // so is a table read
        expect_wr(32'h0000_001C, 32'd40, 1'b0);             // WATCHDOG taken
        expect_rd(32'h0000_001C, 32'd40, 1'b0);
        if (irq !== 1'b0) $fatal(1, "unit_soft_tb: irq before any event");
        wait (irq === 1'b1);
        @(posedge clk); @(negedge clk);
        if (irq_up != t0 + 41)
            $fatal(1, "unit_soft_tb: irq rose in cycle %0d, expected %0d (TIMEOUT in cycle arrival + WATCHDOG = %0d)", irq_up, t0 + 41, t0 + 40);
        expect_status({8'd0, 2'd0, 6'd2, 8'd8, 6'd1, 2'd3});  // ERROR TIMEOUT gate 2
        expect_rd(32'h0000_0018, 32'd1, 1'b0);              // source: gate 2's first
        expect_rd(32'h0000_0024, 32'd2, 1'b0);              // IRQ_STATUS: error
        expect_wr(32'h0000_0024, 32'd1, 1'b0);              // clearing release: no effect
        if (irq !== 1'b1) $fatal(1, "unit_soft_tb: irq cleared by the wrong bit");
        expect_wr(32'h0000_0024, 32'd2, 1'b0);
        if (irq !== 1'b0) $fatal(1, "unit_soft_tb: irq still high after IRQ_STATUS cleared");
        expect_wr(32'h0000_001C, 32'd0, 1'b0);              // watchdog off

        // --- ABORT in ERROR, then in WAIT; receive counts cleared
        expect_wr(32'h0000_0020, 32'd0, 1'b0);
        expect_status(32'h0);                               // IDLE, no error
        pulse_arrive;
        sig(6'd2, 2'd1);                                    // one of the two signals
        expect_status(32'h5);
        expect_wr(32'h0000_0020, 32'd0, 1'b0);              // ABORT in WAIT
        expect_status(32'h0);
        pulse_arrive;                                       // fresh episode
        sig(6'd2, 2'd1);
        if (released !== 1'b0) $fatal(1, "unit_soft_tb: released: the aborted episode's signal was counted");
        sig(6'd2, 2'd2);
        if (released !== 1'b1) $fatal(1, "unit_soft_tb: the fresh episode did not release");
        expect_status(32'hA);                               // RELEASED, cur 2
        if (irq !== 1'b1) $fatal(1, "unit_soft_tb: no irq at the release");
        expect_rd(32'h0000_0024, 32'd1, 1'b0);
        expect_wr(32'h0000_0024, 32'd3, 1'b0);
        if (irq !== 1'b0) $fatal(1, "unit_soft_tb: irq still high");
        expect_wr(32'h0000_0020, 32'd0, 1'b0);              // ABORT when released
        if (released !== 1'b0) $fatal(1, "unit_soft_tb: released after ABORT");

        // --- value mode (sum, 2 payload flits): ABORT mid-packet
        expect_wr(32'h0000_0008, 32'h103, 1'b0);            // EN, OP sum, G 1
        gate_word(6'd1, 32'h0001_0000, 32'h0001_0000);      // gate 1: one route (0)
        expect_wr(32'h2000_0000, 32'd1, 1'b0);              // route 0: address 1, rank 1
        expect_wr(32'h2000_0004, 32'd1, 1'b0);
        gate_word(6'd2, 32'h0001_0101, 32'd0);              // gate 2: need 1, self
        n0 = nsent;
        operand <= 64'h1234;
        pulse_arrive;
        repeat (4) @(negedge clk);
        if (nsent != n0 + 2 || inj_valid !== 1'b0)
            $fatal(1, "unit_soft_tb: %0d flits sent with 2 credits, expected 2", nsent - n0);
        expect_wr(32'h0000_0020, 32'd0, 1'b0);              // ABORT: the tail still to send
        expect_status({8'd0, 1'b0, 1'b1, 22'd0});           // IDLE, draining
        expect_wr(32'h0000_0008, 32'h103, 1'b1);            // refused while draining
        pulse_arrive;                                       // held
        @(negedge clk) inj_credit <= 1'b1;                  // a credit in cycle t0 ...
        t0 = cyc;                                           // ... the tail in t0+1, the arrival in t0+2
        @(negedge clk) inj_credit <= 1'b0;
        repeat (3) @(negedge clk);
        if (nsent != n0 + 3 || last_tail !== 1'b1)
            $fatal(1, "unit_soft_tb: after the credit %0d flits sent (tail %b), expected the tail as flit 3", nsent - n0, last_tail);
        if (arr_at != t0 + 2)
            $fatal(1, "unit_soft_tb: the held arrival was taken in cycle %0d, expected %0d (after the drain)", arr_at, t0 + 2);
        expect_status(32'h5);                               // WAIT again
        // a value packet for gate 2 half received when ABORT comes
        eject(1'b1, 1'b0, 32'd0 | (6'd2 << (AB + RB)) | (2'd1 << AB));
        expect_wr(32'h0000_0020, 32'd0, 1'b0);
        expect_status({8'd0, 1'b1, 1'b0, 22'd0});           // IDLE, discarding
        eject(1'b0, 1'b0, 32'h5);
        eject(1'b0, 1'b1, 32'h0);
        expect_status(32'h0);                               // no error, nothing open
        // ... and a head popped in the ABORT's own access cycle
        fork
            xfer(1'b1, 32'h0000_0020, 32'd0);
            begin
                @(negedge clk);                             // the setup cycle: pushed,
                ej_valid <= 1'b1;                           // popped in the access cycle
                ej_flit  <= {1'b1, 1'b0, 32'd0 | (6'd2 << (AB + RB)) | (2'd1 << AB)};
                @(negedge clk) ej_valid <= 1'b0;
            end
        join
        expect_status({8'd0, 1'b1, 1'b0, 22'd0});
        eject(1'b0, 1'b0, 32'h5);
        eject(1'b0, 1'b1, 32'h0);
        expect_status(32'h0);
        pulse_arrive;                                       // a whole packet now releases
        @(negedge clk) inj_credit <= 1'b1;                  // (credits for the unit's own packet)
        repeat (3) @(negedge clk);
        inj_credit <= 1'b0;
        eject(1'b1, 1'b0, 32'd0 | (6'd2 << (AB + RB)) | (2'd1 << AB));
        eject(1'b0, 1'b0, 32'h5);
        eject(1'b0, 1'b1, 32'h0);
        if (released !== 1'b1)
            $fatal(1, "unit_soft_tb: no release after the aborted packet (error code %h)", dut.err_code);
        expect_wr(32'h0000_0020, 32'd0, 1'b0);

        // --- an arrival in the access cycle of a CTRL write is held
        expect_wr(32'h0000_0024, 32'd3, 1'b0);
        operand <= 64'h77;
        @(negedge clk);
        fork
            xfer_a(1'b1, 32'h0000_0008, 32'h003, 1'b1);   // EN, OP sum, G 0
            begin
                @(negedge clk); @(negedge clk);            // the access cycle
                @(negedge clk) operand <= 64'h99;          // after the pulse
            end
        join
        if (err !== 1'b0) $fatal(1, "unit_soft_tb: CTRL write refused");
        t0 = cyc - 1;                                       // the access cycle
        repeat (2) @(negedge clk);
        if (arr_at != t0 + 1)
            $fatal(1, "unit_soft_tb: arrival of the CTRL write's cycle %0d taken in cycle %0d, expected %0d", t0, arr_at, t0 + 1);
        if (released !== 1'b1 || result !== 64'h77)
            $fatal(1, "unit_soft_tb: G = 0 arrival: released %b result %h, expected 1 and 77", released, result);

        // --- ERROR while finishing a packet: CTRL refused, ABORT drains
        expect_wr(32'h0000_0008, 32'h103, 1'b0);            // EN, OP sum, G 1 (no credits left)
        n0 = nsent;
        pulse_arrive;
        @(negedge clk) inj_credit <= 1'b1;                  // two credits: head and payload
        repeat (2) @(negedge clk);
        inj_credit <= 1'b0;
        repeat (3) @(negedge clk);
        if (nsent != n0 + 2)
            $fatal(1, "unit_soft_tb: %0d flits sent with 2 credits, expected 2", nsent - n0);
        sig(6'd9, 2'd1);                                    // BADGATE: ERROR mid-packet
        expect_status({8'd0, 2'd0, 6'd9, 8'd1, 6'd1, 2'd3});
        expect_wr(32'h0000_0008, 32'h103, 1'b1);            // refused while finishing
        expect_wr(32'h2000_0000, 32'd1, 1'b1);              // so is a route word
        expect_wr(32'h0000_0020, 32'd0, 1'b0);              // ABORT: IDLE, draining
        expect_status({8'd0, 1'b0, 1'b1, 22'd0});
        @(negedge clk) inj_credit <= 1'b1;
        @(negedge clk) inj_credit <= 1'b0;
        repeat (3) @(negedge clk);
        if (nsent != n0 + 3 || last_tail !== 1'b1)
            $fatal(1, "unit_soft_tb: the aborted packet's tail not sent (%0d flits)", nsent - n0);
        expect_status(32'h0);

        $display("unit_soft_tb: PASS");
        $finish;
    end
    wire _unused_ok = &{1'b0, ej_credit, 1'b0};
endmodule
