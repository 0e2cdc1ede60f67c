// node_apb_tb: hx_barrier_node's configuration port and ejection
// demultiplexer on their own (docs/registers.md, "Channels"; docs/rtl.md,
// hx_barrier_node). Three channels: the node's ID and CAPS, a channel's
// registers at paddr[26:24]; a write to a channel in WAIT is refused
// (pslverr, nothing written) while another channel of the node takes its
// write in the same state; a channel past NCH and a bad node register are
// refused; a head for the waiting channel 0 is counted there (it releases)
// and one for channel 2 (no rank) is popped with NORANK in the node's
// register, which a NSTATUS write clears. Prints "node_apb_tb: PASS" or
// stops with $fatal.
`timescale 1ns / 1ps
module node_apb_tb;
    localparam FW = 32, AB = 2, RB = 2, NCH = 3;
    localparam W  = FW + 2;

    reg clk = 1'b0;
    reg rst = 1'b1;
    always #5 clk = ~clk;

    reg             psel = 1'b0, penable = 1'b0, pwrite = 1'b0;
    reg  [31:0]     paddr = 32'd0, pwdata = 32'd0;
    wire [31:0]     prdata;
    wire            pready, pslverr, irq;
    reg  [NCH-1:0]  arrive = {NCH{1'b0}};
    wire [NCH-1:0]  released;
    /* verilator lint_off UNUSED */
    wire [NCH*64-1:0] result;
    wire [W-1:0]    inj_flit;
    /* verilator lint_on UNUSED */
    wire            inj_valid, ej_credit;
    reg             ej_valid = 1'b0;
    reg  [W-1:0]    ej_flit = {W{1'b0}};
    hx_barrier_node #(.NCH(NCH), .FW(FW), .B(2), .AB(AB), .RB(RB), .MAXG(2), .NRT(2)) dut (
        .clk(clk), .rst(rst), .arrive(arrive), .operand({NCH*64{1'b0}}),
        .released(released), .result(result),
        .inj_valid(inj_valid), .inj_flit(inj_flit), .inj_credit(1'b0),
        .ej_valid(ej_valid), .ej_flit(ej_flit), .ej_credit(ej_credit),
        .psel(psel), .penable(penable), .pwrite(pwrite), .paddr(paddr),
        .pwdata(pwdata), .prdata(prdata), .pready(pready), .pslverr(pslverr),
        .irq(irq)
    );

    // xfer: one transfer, driven on falling edges; returns at the edge that
    // ends the access cycle with the values sampled there.
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
                $fatal(1, "node_apb_tb: pready not 1 in the access cycle");
            @(negedge clk);
            psel <= 1'b0; penable <= 1'b0;
        end
    endtask
    task expect_rd;
        input [31:0] addr;
        input [31:0] v;
        input        e;
        begin
            xfer(1'b0, addr, 32'd0);
            if (err !== e || rd !== v)
                $fatal(1, "node_apb_tb: read %h: %h pslverr %b, expected %h pslverr %b", addr, rd, err, v, e);
        end
    endtask
    task expect_wr;
        input [31:0] addr;
        input [31:0] v;
        input        e;
        begin
            xfer(1'b1, addr, v);
            if (err !== e)
                $fatal(1, "node_apb_tb: write %h <- %h: pslverr %b, expected %b", addr, v, err, e);
        end
    endtask
    // flit: a one-flit barrier packet for channel ch, gate g, from rank s
    task flit;
        input [2:0] ch;
        input [5:0] g;
        input [1:0] s;
        begin
            @(negedge clk);
            ej_valid <= 1'b1;
            ej_flit  <= {1'b1, 1'b1, 32'd0 | (ch << (AB + RB + 7)) | (g << (AB + RB)) | (s << AB)};
            @(negedge clk);
            ej_valid <= 1'b0;
            repeat (3) @(negedge clk);
        end
    endtask

    initial begin
        repeat (3) @(posedge clk);
        rst <= 1'b0;
        expect_rd(32'h7000_0000, 32'h4858424e, 1'b0);       // node ID
        expect_rd(32'h7000_0004, NCH, 1'b0);                // node CAPS
        expect_rd(32'h0100_0000, 32'h48584255, 1'b0);       // channel 1 ID
        expect_rd(32'h0300_0000, 32'd0, 1'b1);              // no channel 3
        expect_wr(32'h0300_0008, 32'h101, 1'b1);
        expect_wr(32'h7000_0000, 32'd1, 1'b1);              // node ID is RO
        // channel 0: G = 1, the end gate 2 needs one signal (never sent)
        expect_wr(32'h0000_0008, 32'h101, 1'b0);
        expect_wr(32'h0000_000C, 32'd0, 1'b0);              // RANK 0
        expect_wr(32'h1000_0008, 32'd0, 1'b0);              // gate 1: no routes
        expect_wr(32'h1000_000C, 32'd0, 1'b0);
        expect_wr(32'h1000_0010, 32'd0, 1'b0);
        expect_wr(32'h1000_0014, 32'd1, 1'b0);              // need = 1
        @(negedge clk) arrive <= 3'b001;
        @(negedge clk) arrive <= 3'b000;
        expect_rd(32'h0000_0014, 32'h5, 1'b0);              // WAIT, cur 1
        expect_wr(32'h0000_0008, 32'h001, 1'b1);            // busy: refused
        expect_rd(32'h0000_0008, 32'h101, 1'b0);            // unchanged
        expect_rd(32'h0000_0014, 32'h5, 1'b0);
        // channel 1 takes its writes meanwhile: G = 0, then arrives
        expect_wr(32'h0100_0008, 32'h001, 1'b0);
        expect_rd(32'h0100_0008, 32'h001, 1'b0);
        expect_wr(32'h0000_001C, 32'd0, 1'b0);              // WATCHDOG: taken in WAIT
        expect_wr(32'h0100_0028, 32'd1, 1'b0);              // channel 1: irq on release
        @(negedge clk) arrive <= 3'b010;
        @(negedge clk) arrive <= 3'b000;
        if (released !== 3'b010)
            $fatal(1, "node_apb_tb: released %b after channel 1's arrival, expected 010", released);
        if (irq !== 1'b1)
            $fatal(1, "node_apb_tb: no irq after channel 1's release");
        expect_rd(32'h0000_0024, 32'd0, 1'b0);              // channel 0: nothing pending
        expect_wr(32'h0100_0024, 32'd1, 1'b0);
        if (irq !== 1'b0)
            $fatal(1, "node_apb_tb: irq after clearing channel 1's IRQ_STATUS");
        // ejection: a head for channel 0 gate 2 releases it; one for
        // channel 2 (no rank) is the node's NORANK
        flit(3'd0, 6'd2, 2'd1);
        if (released !== 3'b011)
            $fatal(1, "node_apb_tb: released %b after channel 0's signal, expected 011", released);
        expect_rd(32'h7000_0008, 32'd0, 1'b0);
        flit(3'd2, 6'd2, 2'd3);
        expect_rd(32'h7000_0008, {10'd0, 6'd2, 8'd2, 8'd0}, 1'b0);   // NORANK, gate 2
        expect_rd(32'h7000_000C, 32'd3, 1'b0);                        // from rank 3
        expect_rd(32'h0200_0014, 32'd0, 1'b0);                        // channel 2: no error of its own
        expect_wr(32'h7000_0008, 32'd0, 1'b0);
        expect_rd(32'h7000_0008, 32'd0, 1'b0);
        if (inj_valid !== 1'b0)
            $fatal(1, "node_apb_tb: a flit injected without a route");
        $display("node_apb_tb: PASS");
        $finish;
    end
    wire _unused_ok = &{1'b0, ej_credit, 1'b0};
endmodule
