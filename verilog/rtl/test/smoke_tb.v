// smoke_tb: drives a smoke-test top (TB_TOP: line_top or grid2_top) with one
// scenario and prints the trace of docs/microarchitecture.md ("Trace") in
// canonical order from one monitor.
//
// Scenario macros (all optional, set with iverilog -D):
//   TB_TOP                           top module (default line_top)
//   TB_K, TB_L, TB_B, TB_FW, TB_OP   system parameters
//   TB_NGV, TB_NWV                   per-node G / body words, 32 bits per node
//   TB_ARR                           arrival cycle of rank n at [32n +: 32]
//   TB_OPS                           operand of rank n at [64n +: 64]
//   TB_DATA, TB_IF, TB_NDWV          data mode (line_top only), flits per item,
//                                    data table words of node n at [32n +: 32]
//   TB_MAXC                          cycle limit
`timescale 1ns / 1ps
`ifndef TB_TOP
`define TB_TOP line_top
`endif
`ifndef TB_K
`define TB_K 2
`endif
`ifndef TB_L
`define TB_L 1
`endif
`ifndef TB_B
`define TB_B 2
`endif
`ifndef TB_FW
`define TB_FW 64
`endif
`ifndef TB_OP
`define TB_OP 0
`endif
`ifndef TB_NGV
`define TB_NGV {4{32'd1}}
`endif
`ifndef TB_NWV
`define TB_NWV {4{32'd4}}
`endif
`ifndef TB_ARR
`define TB_ARR 64'h00000003_00000000
`endif
`ifndef TB_OPS
`define TB_OPS 128'h0
`endif
`ifdef TB_DATA
`ifndef TB_IF
`define TB_IF 1
`endif
`ifndef TB_NDWV
`define TB_NDWV {4{32'd1}}
`endif
`endif
`ifndef TB_MAXC
`define TB_MAXC 1000
`endif

module smoke_tb;
    localparam K  = `TB_K;
    localparam AB = (K <= 2) ? 1 : $clog2(K);
    localparam RB = AB;
    localparam [32*K-1:0] ARR = `TB_ARR;
    localparam [64*K-1:0] OPS = `TB_OPS;

    reg            clk = 1'b0;
    reg            rst = 1'b1;
    reg  [K-1:0]   arrive = {K{1'b0}};
    reg  [63:0]    cyc = 64'd0;

    wire [K-1:0]    released, has_rank;
    wire [K*64-1:0] result;
    wire [K*RB-1:0] rank;
    wire [K-1:0]    ev_arrive, ev_gate, ev_release, ev_send, ev_recv;
    wire [K*6-1:0]  ev_gnum, ev_send_gate, ev_recv_gate;
    wire [K*64-1:0] ev_value, ev_recv_value;
    wire [K*RB-1:0] ev_send_to, ev_recv_from;

    `TB_TOP #(.K(K), .L(`TB_L), .B(`TB_B), .FW(`TB_FW), .OP(`TB_OP),
               .NGV(`TB_NGV), .NWV(`TB_NWV), .AB(AB), .RB(RB)
`ifdef TB_DATA
               , .DATA(`TB_DATA), .IF(`TB_IF), .NDWV(`TB_NDWV)
`endif
               ) dut (
        .clk(clk), .rst(rst), .arrive(arrive), .operand(OPS),
        .released(released), .result(result), .has_rank(has_rank), .rank(rank),
        .ev_arrive(ev_arrive), .ev_gate(ev_gate), .ev_release(ev_release),
        .ev_gnum(ev_gnum), .ev_value(ev_value),
        .ev_send(ev_send), .ev_send_to(ev_send_to), .ev_send_gate(ev_send_gate),
        .ev_recv(ev_recv), .ev_recv_from(ev_recv_from), .ev_recv_gate(ev_recv_gate),
        .ev_recv_value(ev_recv_value)
    );

    always #5 clk = ~clk;

`ifdef TB_VCD
    initial begin
        $dumpfile(`TB_VCD);
        $dumpvars(0, smoke_tb);
    end
`endif

    // Reset is sampled high by three edges; the cycle after the last reset
    // edge is cycle 0 (cyc reads 0 during it).
    initial begin
        repeat (3) @(posedge clk);
        rst <= 1'b0;
    end

    always @(posedge clk) begin
        if (rst)
            cyc <= 64'd0;
        else
            cyc <= cyc + 64'd1;
    end

    // CPU inputs change on the falling edge: arrive is high during the
    // arrival cycle only.
    integer a;
    always @(negedge clk) begin
        for (a = 0; a < K; a = a + 1)
            arrive[a] <= !rst && (cyc == {32'd0, ARR[32*a +: 32]});
    end

    // Monitor. Event registers written by the edge that ends cycle t hold
    // during cycle t+1; this block samples them at the edge that ends cycle
    // t+1 (cyc = t+1) and prints cycle t. Nodes in id order, kinds in the
    // canonical order arrive, gate, release, send, recv.
    integer n, done_for;
    initial done_for = 0;
    always @(posedge clk) begin
        if (!rst) begin
            for (n = 0; n < K; n = n + 1) begin
                if (ev_arrive[n])
                    $display("%0d n%0d arrive rank=%0d value=%016h", cyc - 1, n,
                             rank[RB*n +: RB], ev_value[64*n +: 64]);
                if (ev_gate[n])
                    $display("%0d n%0d gate g=%0d value=%016h", cyc - 1, n,
                             ev_gnum[6*n +: 6], ev_value[64*n +: 64]);
                if (ev_release[n])
                    $display("%0d n%0d release rank=%0d value=%016h", cyc - 1, n,
                             rank[RB*n +: RB], ev_value[64*n +: 64]);
                if (ev_send[n])
                    $display("%0d n%0d send to=%0d gate=%0d", cyc - 1, n,
                             ev_send_to[RB*n +: RB], ev_send_gate[6*n +: 6]);
                if (ev_recv[n])
                    $display("%0d n%0d recv from=%0d gate=%0d value=%016h", cyc - 1, n,
                             ev_recv_from[RB*n +: RB], ev_recv_gate[6*n +: 6],
                             ev_recv_value[64*n +: 64]);
            end
            // Stop a few cycles after every rank has released, so that a
            // stray late event would still be printed.
            if ((released | ~has_rank) == {K{1'b1}})
                done_for = done_for + 1;
            if (done_for == 3)
                $finish;
            if (cyc >= `TB_MAXC)
                $fatal(1, "smoke_tb: no release after %0d cycles", cyc);
        end
    end
endmodule
