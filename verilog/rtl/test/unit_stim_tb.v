// unit_stim_tb: one hx_barrier_unit (FW = 32, AB = 2, RB = 2, B = 2,
// MAXG = 2, NRT = 2; UP, the unit pipeline, 0 unless given: iverilog -P
// unit_stim_tb.UP=1) driven cycle by cycle from a stimulus file, for the
// co-simulation of the software controls against the Go model
// (verilog's TestSoftControlsCosim). Each line of stim.txt is one cycle's
// inputs, in hex, driven on the falling edge of that cycle:
//   psel penable pwrite paddr pwdata arrive operand inj_credit ej_valid ej_flit
// The first line is the number of cycles. Output, one line per happening:
//   E <cycle> <kind> <gate> <value>   an event (0 arrive, 1 gate, 2 release,
//                                     3 send, 4 recv, 5 error: value = code)
//   F <cycle> <head> <tail> <data>    a flit injected
//   I <cycle> <irq>                   irq's level from this cycle on
//   S <cycle>                         a refused transfer (pslverr)
// and "END" after the last cycle.
`timescale 1ns / 1ps
module unit_stim_tb #(parameter UP = 0);
    localparam FW = 32, AB = 2, RB = 2;
    localparam W  = FW + 2;

    reg clk = 1'b0;
    reg rst = 1'b1;
    always #5 clk = ~clk;

    reg             psel = 1'b0, penable = 1'b0, pwrite = 1'b0;
    reg  [31:0]     paddr = 32'd0, pwdata = 32'd0;
    /* verilator lint_off UNUSED */
    wire [31:0]     prdata;
    wire            pready;
    /* verilator lint_on UNUSED */
    wire            pslverr;
    reg             arrive = 1'b0;
    reg  [63:0]     operand = 64'd0;
    wire            released, irq;
    wire [63:0]     result;
    wire [W-1:0]    inj_flit;
    wire            inj_valid, ej_credit;
    reg             inj_credit = 1'b0;
    reg             ej_valid = 1'b0;
    reg  [W-1:0]    ej_flit = {W{1'b0}};
    hx_barrier_unit #(.FW(FW), .B(2), .AB(AB), .RB(RB), .MAXG(2), .NRT(2), .UP(UP)) dut (
        .clk(clk), .rst(rst), .arrive(arrive), .operand(operand),
        .released(released), .result(result),
        .inj_valid(inj_valid), .inj_flit(inj_flit), .inj_credit(inj_credit),
        .ej_valid(ej_valid), .ej_flit(ej_flit), .ej_credit(ej_credit),
        .psel(psel), .penable(penable), .pwrite(pwrite), .paddr(paddr),
        .pwdata(pwdata), .prdata(prdata), .pready(pready), .pslverr(pslverr),
        .irq(irq)
    );

    integer fd, n, cyc, rc;
    reg [31:0] a_psel, a_pen, a_pwr, a_addr, a_data, a_arr, a_cr, a_ejv;
    reg [63:0] a_opd;
    reg [63:0] a_flit;
    reg        irq_d;
    initial begin
        fd = $fopen("stim.txt", "r");
        if (fd == 0) $fatal(1, "unit_stim_tb: no stim.txt");
        rc = $fscanf(fd, "%h\n", n);
        irq_d = 1'b0;
        repeat (3) @(posedge clk);
        rst <= 1'b0;
        for (cyc = 0; cyc < n; cyc = cyc + 1) begin
            // cycle cyc begins at this rising edge; at its falling edge
            // the ev_* registers hold the events of cycle cyc-1
            @(posedge clk);
            @(negedge clk);
            if (dut.ev_arrive)  $display("E %0d 0 %0d %0h", cyc - 1, 1, dut.ev_value);
            if (dut.ev_gate)    $display("E %0d 1 %0d %0h", cyc - 1, dut.ev_gnum, dut.ev_value);
            if (dut.ev_release) $display("E %0d 2 %0d %0h", cyc - 1, dut.ev_gnum, dut.ev_value);
            if (dut.ev_send)    $display("E %0d 3 %0d %0h", cyc - 1, dut.ev_send_gate, dut.ev_send_to);
            if (dut.ev_recv)    $display("E %0d 4 %0d %0h", cyc - 1, dut.ev_recv_gate, dut.ev_recv_value);
            if (dut.ev_error)   $display("E %0d 5 %0d %0h", cyc - 1, dut.ev_err_gate, dut.ev_err_code);
            if (irq !== irq_d) begin
                $display("I %0d %0d", cyc, irq);
                irq_d = irq;
            end
            rc = $fscanf(fd, "%h %h %h %h %h %h %h %h %h %h\n",
                         a_psel, a_pen, a_pwr, a_addr, a_data, a_arr, a_opd, a_cr, a_ejv, a_flit);
            if (rc != 10) $fatal(1, "unit_stim_tb: stim.txt line %0d: %0d fields", cyc + 2, rc);
            psel <= a_psel[0]; penable <= a_pen[0]; pwrite <= a_pwr[0];
            paddr <= a_addr; pwdata <= a_data;
            arrive <= a_arr[0]; operand <= a_opd;
            inj_credit <= a_cr[0]; ej_valid <= a_ejv[0]; ej_flit <= a_flit[W-1:0];
            #1;
            if (inj_valid)
                $display("F %0d %0d %0d %0h", cyc, inj_flit[W-1], inj_flit[W-2], inj_flit[FW-1:0]);
            if (psel && penable && pslverr)
                $display("S %0d", cyc);
        end
        $display("END");
        $finish;
    end
    wire _unused_ok = &{1'b0, ej_credit, released, result, 1'b0};
endmodule
