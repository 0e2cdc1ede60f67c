// smoke_tb: drives a smoke-test top (TB_TOP: line_top or grid2_top) with one
// scenario and prints the trace of docs/microarchitecture.md ("Trace") in
// canonical order from one monitor.
//
// Reset (three edges), then hx_tbl_load writes every table through the
// top's APB ports; cycle 0 is the cycle after the last write's access cycle
// (cyc reads 0 during it). The monitor reads the units' event registers
// hierarchically (dut.node[n].bu.ev_*): the tops have no debug pins.
//
// Scenario macros (all optional, set with iverilog -D):
//   TB_TOP                           top module (default line_top)
//   TB_K, TB_L, TB_B, TB_FW, TB_OP   system parameters (TB_OP: CTRL.OP)
//   TB_NGV, TB_NWV                   per-node G / body words, 32 bits per node
//                                    (what the loader expects of the tables)
//   TB_MAXG, TB_NRT, TB_NIL          unit capacities (gates, route words,
//                                    item-list words)
//   TB_NSW                           switches (default K + 1, line_top; grid2_top: 8)
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
`ifndef TB_MAXG
`define TB_MAXG 1
`endif
`ifndef TB_NRT
`define TB_NRT 1
`endif
`ifndef TB_NIL
`define TB_NIL 1
`endif
`ifndef TB_ARR
`define TB_ARR 64'h00000003_00000000
`endif
`ifndef TB_OPS
`define TB_OPS 128'h0
`endif
`ifndef TB_IF
`define TB_IF 1
`endif
`ifndef TB_NDWV
`define TB_NDWV {4{32'd1}}
`endif
`ifndef TB_MAXC
`define TB_MAXC 1000
`endif

module smoke_tb;
    localparam K  = `TB_K;
    localparam AB = (K <= 2) ? 1 : $clog2(K);
    localparam RB = AB;
    localparam [32*K-1:0] ARR = `TB_ARR;
`ifdef TB_NSW
    localparam NSW = `TB_NSW;      // switches on the fabric port
`else
    localparam NSW = K + 1;        // line_top: K exchangers and the crossbar
`endif
`ifdef TB_DATA
    localparam DATA = `TB_DATA;
`else
    localparam DATA = 0;
`endif
    localparam [64*K-1:0] OPS = `TB_OPS;

    reg            clk = 1'b0;
    reg            rst = 1'b1;
    reg  [K-1:0]   arrive = {K{1'b0}};
    reg  [63:0]    cyc = 64'd0;

    wire [K-1:0]    released;
    wire [K*64-1:0] result;

    // configuration ports, driven by the loader
    wire            done;
    wire [K-1:0]    cfg_psel, cfg_penable, cfg_pwrite, cfg_pready, cfg_pslverr;
    wire [K*32-1:0] cfg_paddr, cfg_pwdata, cfg_prdata;
    wire            fab_psel, fab_penable, fab_pwrite, fab_pready, fab_pslverr;
    wire [31:0]     fab_paddr, fab_pwdata, fab_prdata;

    `TB_TOP #(.K(K), .L(`TB_L), .B(`TB_B), .FW(`TB_FW), .MAXG(`TB_MAXG), .NRT(`TB_NRT),
               .AB(AB), .RB(RB)
`ifdef TB_DATA
               , .DATA(`TB_DATA), .NIL(`TB_NIL)
`endif
               ) dut (
        .clk(clk), .rst(rst), .arrive(arrive), .operand(OPS),
        .released(released), .result(result),
        .cfg_psel(cfg_psel), .cfg_penable(cfg_penable), .cfg_pwrite(cfg_pwrite),
        .cfg_paddr(cfg_paddr), .cfg_pwdata(cfg_pwdata), .cfg_prdata(cfg_prdata),
        .cfg_pready(cfg_pready), .cfg_pslverr(cfg_pslverr),
        .fab_psel(fab_psel), .fab_penable(fab_penable), .fab_pwrite(fab_pwrite),
        .fab_paddr(fab_paddr), .fab_pwdata(fab_pwdata), .fab_prdata(fab_prdata),
        .fab_pready(fab_pready), .fab_pslverr(fab_pslverr)
    );

    hx_tbl_load #(.K(K), .NSW(NSW), .OP(`TB_OP), .DATA(DATA), .IF(`TB_IF), .FW(`TB_FW),
                  .AB(AB), .RB(RB), .NGV(`TB_NGV), .NWV(`TB_NWV), .NDWV(`TB_NDWV)) ld (
        .clk(clk), .rst(rst), .done(done),
        .cfg_psel(cfg_psel), .cfg_penable(cfg_penable), .cfg_pwrite(cfg_pwrite),
        .cfg_paddr(cfg_paddr), .cfg_pwdata(cfg_pwdata), .cfg_prdata(cfg_prdata),
        .cfg_pready(cfg_pready), .cfg_pslverr(cfg_pslverr),
        .fab_psel(fab_psel), .fab_penable(fab_penable), .fab_pwrite(fab_pwrite),
        .fab_paddr(fab_paddr), .fab_pwdata(fab_pwdata), .fab_prdata(fab_prdata),
        .fab_pready(fab_pready), .fab_pslverr(fab_pslverr)
    );

    // The monitor's view of the units: their event registers, rank and
    // has_rank, read hierarchically.
    wire [K-1:0]    has_rank;
    wire [K*RB-1:0] rank;
    wire [K-1:0]    ev_arrive, ev_gate, ev_release, ev_send, ev_recv, ev_error;
    wire [K*6-1:0]  ev_gnum, ev_send_gate, ev_recv_gate, ev_err_gate;
    wire [K*64-1:0] ev_value, ev_recv_value;
    wire [K*RB-1:0] ev_send_to, ev_recv_from, ev_err_src;
    wire [K*8-1:0]  ev_err_code;
    genvar gn;
    generate
        for (gn = 0; gn < K; gn = gn + 1) begin : mon
            assign has_rank[gn]                = dut.node[gn].bu.has_rank;
            assign rank[RB*gn +: RB]           = dut.node[gn].bu.rank;
            assign ev_arrive[gn]               = dut.node[gn].bu.ev_arrive;
            assign ev_gate[gn]                 = dut.node[gn].bu.ev_gate;
            assign ev_release[gn]              = dut.node[gn].bu.ev_release;
            assign ev_gnum[6*gn +: 6]          = dut.node[gn].bu.ev_gnum;
            assign ev_value[64*gn +: 64]       = dut.node[gn].bu.ev_value;
            assign ev_send[gn]                 = dut.node[gn].bu.ev_send;
            assign ev_send_to[RB*gn +: RB]     = dut.node[gn].bu.ev_send_to;
            assign ev_send_gate[6*gn +: 6]     = dut.node[gn].bu.ev_send_gate;
            assign ev_recv[gn]                 = dut.node[gn].bu.ev_recv;
            assign ev_recv_from[RB*gn +: RB]   = dut.node[gn].bu.ev_recv_from;
            assign ev_recv_gate[6*gn +: 6]     = dut.node[gn].bu.ev_recv_gate;
            assign ev_recv_value[64*gn +: 64]  = dut.node[gn].bu.ev_recv_value;
            assign ev_error[gn]                = dut.node[gn].bu.ev_error;
            assign ev_err_code[8*gn +: 8]      = dut.node[gn].bu.ev_err_code;
            assign ev_err_gate[6*gn +: 6]      = dut.node[gn].bu.ev_err_gate;
            assign ev_err_src[RB*gn +: RB]     = dut.node[gn].bu.ev_err_src;
        end
    endgenerate

    always #5 clk = ~clk;

`ifdef TB_VCD
    initial begin
        $dumpfile(`TB_VCD);
        $dumpvars(0, smoke_tb);
    end
`endif

    // Reset is sampled high by three edges; then the loader writes the
    // tables. Its done rises at the edge that ends the last access cycle, so
    // cyc reads 0 during the next cycle (cycle 0) and t during cycle t.
    initial begin
        repeat (3) @(posedge clk);
        rst <= 1'b0;
    end

    always @(posedge clk) begin
        if (rst || !done)
            cyc <= 64'd0;
        else
            cyc <= cyc + 64'd1;
    end

    // CPU inputs change on the falling edge: arrive is high during the
    // arrival cycle only.
    integer a;
    always @(negedge clk) begin
        for (a = 0; a < K; a = a + 1)
            arrive[a] <= !rst && done && (cyc == {32'd0, ARR[32*a +: 32]});
    end

    // Monitor. Event registers written by the edge that ends cycle t hold
    // during cycle t+1; this block samples them at the edge that ends cycle
    // t+1 (cyc = t+1) and prints cycle t. Nodes in id order, kinds in the
    // canonical order arrive, gate, release, send, recv, error. No event may
    // come before cycle 0 (during the configuration writes).
    integer n, done_for;
    initial done_for = 0;
    always @(posedge clk) begin
        if (!rst && (!done || cyc == 64'd0) &&
            |{ev_arrive, ev_gate, ev_release, ev_send, ev_recv, ev_error})
            $fatal(1, "smoke_tb: an event before cycle 0 (during configuration)");
        if (!rst && done && cyc != 64'd0) begin
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
                if (ev_error[n]) begin
                    // The code's name too, as the model writes it (sim.AppendEvent).
                    $write("%0d n%0d error code=%0d name=", cyc - 1, n, ev_err_code[8*n +: 8]);
                    case (ev_err_code[8*n +: 8])
                    8'd1: $write("BADGATE");
                    8'd2: $write("NORANK");
                    8'd3: $write("SHORT");
                    8'd4: $write("FLITS");
                    8'd5: $write("OVER");
                    8'd6: $write("CRC");
                    8'd7: $write("SEQ");
                    8'd8: $write("TIMEOUT");
                    default: $write("code%0d", ev_err_code[8*n +: 8]);
                    endcase
                    $display(" gate=%0d from=%0d", ev_err_gate[6*n +: 6], ev_err_src[RB*n +: RB]);
                end
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
