// hx_barrier_node: a node's NCH barrier channels (docs/microarchitecture.md,
// "Channels and communicators"; docs/registers.md, "Channels"). Each
// channel is a whole hx_barrier_unit (EXT = 1: its gate table, receive
// banks, error register, watchdog and CPU interface of its own); the node
// holds what they share, the two ports of exchanger port 0:
//   injection - one credit counter; in every cycle the port goes to the
//               channel in the middle of a packet, else round robin to the
//               first requesting channel after rr (the channel that sent
//               the last head; reset NCH - 1, so channel 0 comes first);
//   ejection  - one FIFO of depth B; its front flit goes to the channel a
//               head names (bits AB + RB + 7 up, above the iteration bit),
//               latched for the packet's payload and tail (channel 0 when
//               no packet is open); a flit no channel takes (its channel
//               hosts no rank, or is past NCH) is popped by the node and
//               raises NORANK in the node's error register.
// Configuration: paddr[26:24] selects the channel whose registers (those of
// hx_barrier_unit, with those bits 0) an access reaches; region 7
// (0x7000_0000) holds the node's own registers. A write to a busy channel
// is refused (pslverr) as in the unit; the other channels take theirs.
//
// The node's event registers (ev_error, ev_err_*) are for the testbench's
// monitor, as the unit's (docs/rtl.md, "Monitor protocol").
`timescale 1ns / 1ps
module hx_barrier_node #(
    parameter integer NCH  = 2,    // channels, 1..8
    parameter integer FW   = 64,
    parameter integer B    = 2,
    parameter integer AB   = 1,
    parameter integer RB   = 1,
    parameter integer MAXG = 1,
    parameter integer NRT  = 1,
    parameter integer NBANK = 1,
    parameter integer NDIM = 0,
    parameter integer K0   = 0,
    parameter integer K1   = 0,
    parameter integer K2   = 0,
    parameter integer K3   = 0,
    parameter integer K4   = 0,
    parameter integer K5   = 0,
    parameter integer CB   = 0,
    parameter [31:0]  CRC_POLY = 32'h1EDC6F41,
    parameter integer UP   = 0     // unit_pipeline (hx_barrier_unit's UP)
) (
    input                clk,
    input                rst,
    // CPU side, one per channel (channel c at bit c / bits 64c +: 64)
    input  [NCH-1:0]     arrive,
    input  [NCH*64-1:0]  operand,
    output [NCH-1:0]     released,
    output [NCH*64-1:0]  result,
    // exchanger port 0
    output               inj_valid,
    output [FW+CB+1:0]   inj_flit,
    input                inj_credit,
    input                ej_valid,
    input  [FW+CB+1:0]   ej_flit,
    output               ej_credit,
    // configuration port (APB)
    input                psel,
    input                penable,
    input                pwrite,
    input  [31:0]        paddr,
    input  [31:0]        pwdata,
    output [31:0]        prdata,
    output               pready,
    output               pslverr,
    output               irq           // OR of the channels' irq (docs/registers.md)
);
    localparam integer W   = FW + 2 + CB;
    localparam integer CHB = (NCH > 1) ? $clog2(NCH) : 0;   // the head's channel bits (hw.Bits)
    localparam integer CW  = (NCH > 1) ? $clog2(NCH) : 1;   // a channel index

    // ------------------------------------------------------------------
    // Channels
    // ------------------------------------------------------------------
    wire [NCH-1:0]   c_req, c_go, c_ejv, c_pop, c_pslverr;
    wire [NCH*W-1:0] c_flit;
    wire [NCH*32-1:0] c_prdata;
    wire [NCH-1:0]   c_pready;
    wire [NCH-1:0]   c_irq;
    wire [NCH-1:0]   c_sel;
    wire [W-1:0]     front;
    wire [31:0]      c_paddr = {paddr[31:27], 3'd0, paddr[23:0]};
    // gc, jr: not c or j, names in hx_barrier_unit that Verilator -Wall
    // (VARHIDDEN) flags when this file is read before the unit.
    genvar gc;
    generate
        for (gc = 0; gc < NCH; gc = gc + 1) begin : ch
            hx_barrier_unit #(.FW(FW), .B(B), .AB(AB), .RB(RB), .MAXG(MAXG), .NRT(NRT),
                              .DATA(0), .NIL(1), .NBANK(NBANK), .NDIM(NDIM),
                              .K0(K0), .K1(K1), .K2(K2), .K3(K3), .K4(K4), .K5(K5), .CB(CB), .CRC_POLY(CRC_POLY),
                              .EXT(1), .CHB(CHB), .UP(UP)) u (
                .clk(clk), .rst(rst),
                .arrive(arrive[gc]), .operand(operand[64*gc +: 64]),
                .released(released[gc]), .result(result[64*gc +: 64]),
                .inj_valid(c_req[gc]), .inj_flit(c_flit[W*gc +: W]), .inj_credit(c_go[gc]),
                .ej_valid(c_ejv[gc]), .ej_flit(front), .ej_credit(c_pop[gc]),
                .psel(c_sel[gc]), .penable(penable), .pwrite(pwrite), .paddr(c_paddr),
                .pwdata(pwdata), .prdata(c_prdata[32*gc +: 32]), .pready(c_pready[gc]),
                .pslverr(c_pslverr[gc]), .irq(c_irq[gc])
            );
        end
    endgenerate

    // ------------------------------------------------------------------
    // Injection: one credit counter, the port to one channel a cycle
    // ------------------------------------------------------------------
    reg  [CW-1:0] rr;              // the channel that sent the last head
    wire          cr_ok;
    // The channel in the middle of a packet (at most one: a packet's flits
    // leave back to back), else the first requesting one after rr.
    reg  [CW-1:0] gsel;
    reg           gany;
    integer       k;
    /* verilator lint_off UNUSED */
    integer       jr;               // only its low CW bits name a channel
    /* verilator lint_on UNUSED */
    always @(*) begin
        gsel = rr;
        gany = 1'b0;
        for (k = 1; k <= NCH; k = k + 1) begin
            jr = ({{(32-CW){1'b0}}, rr} + k) % NCH;
            if (!gany && c_req[jr]) begin
                gsel = jr[CW-1:0];
                gany = 1'b1;
            end
        end
        for (k = 0; k < NCH; k = k + 1)
            if (c_req[k] && !c_flit[W*k + W - 1]) begin
                gsel = k[CW-1:0];
                gany = 1'b1;
            end
    end
    wire [NCH-1:0] gone = {{(NCH-1){1'b0}}, gany} << gsel;
    assign c_go = (cr_ok ? gone : {NCH{1'b0}});
    wire   send = gany && cr_ok;
    wire [W-1:0] g_flit = c_flit[W*gsel +: W];
    hx_credit #(.B(B)) inj_cr (
        .clk(clk), .rst(rst), .take(send), .give(inj_credit), .ok(cr_ok)
    );
    assign inj_valid = send;
    assign inj_flit  = g_flit;
    always @(posedge clk)
        if (rst)
            rr <= NCH[CW-1:0] - {{(CW-1){1'b0}}, 1'b1};
        else if (send && g_flit[W-1])
            rr <= gsel;

    // ------------------------------------------------------------------
    // Ejection: one FIFO, its front to the channel of the packet
    // ------------------------------------------------------------------
    wire ready;
    hx_fifo #(.W(W), .B(B)) ej_fifo (
        .clk(clk), .rst(rst),
        .push(ej_valid), .din(ej_flit),
        .pop(ready), .dout(front), .nempty(ready)
    );
    assign ej_credit = ready;      // every front flit is popped, by a channel or the node
    wire f_head = front[W-1];
    wire f_tail = front[W-2];
    /* verilator lint_off UNUSED */
    wire [FW+63:0] f_x = {64'd0, front[FW-1:0]};
    /* verilator lint_on UNUSED */
    reg  [CW-1:0] rxch;            // the channel of the packet being received ...
    reg           rxon;            // ... while one is open
    wire [7:0]    h_ch;            // the head's channel field
    generate
        if (CHB != 0) begin : g_hch
            assign h_ch = {{(8-CHB){1'b0}}, f_x[AB+RB+7 +: CHB]};
        end else begin : g_hch0
            assign h_ch = 8'd0;
        end
    endgenerate
    wire [7:0] tgt = f_head ? h_ch : rxon ? {{(8-CW){1'b0}}, rxch} : 8'd0;
    generate
        for (gc = 0; gc < NCH; gc = gc + 1) begin : ejv
            assign c_ejv[gc] = ready && tgt == gc;
        end
    endgenerate
    wire taken = |c_pop;            // a channel with a rank popped it
    always @(posedge clk)
        if (rst) begin
            rxch <= {CW{1'b0}};
            rxon <= 1'b0;
        end else if (taken) begin
            if (f_tail)
                rxon <= 1'b0;
            else if (f_head) begin
                rxch <= tgt[CW-1:0];
                rxon <= 1'b1;
            end
        end

    // Node error register: NORANK for a flit no channel takes; the first
    // is kept until reset or a write of NSTATUS.
    reg  [7:0]    err_code;
    reg  [5:0]    err_gate;
    reg  [RB-1:0] err_src;
    wire          nrk   = ready && !taken;
    wire [5:0]    h_gate = f_head ? front[AB+RB +: 6] : 6'd0;
    wire [RB-1:0] h_src  = f_head ? front[AB +: RB] : {RB{1'b0}};

    // ------------------------------------------------------------------
    // APB: paddr[26:24] the channel, region 7 the node
    // ------------------------------------------------------------------
    wire        acc_ph = psel && penable;
    wire        nreg   = paddr[30:28] == 3'd7;
    wire [2:0]  csel   = paddr[26:24];
    wire        cok    = !nreg && {29'd0, csel} < NCH;
    generate
        for (gc = 0; gc < NCH; gc = gc + 1) begin : sel
            assign c_sel[gc] = psel && cok && csel == gc;
        end
    endgenerate
    wire [25:0] nidx  = paddr[27:2];
    wire        n_st  = nreg && nidx == 26'd2 && paddr[26:24] == 3'd0;
    wire        n_ok  = nreg && paddr[26:24] == 3'd0 && nidx < 26'd4;
    wire        w_st  = acc_ph && pwrite && n_st;
    /* verilator lint_off UNUSED */
    wire [RB+31:0] esrc_x = {32'd0, err_src};
    /* verilator lint_on UNUSED */
    reg  [31:0] n_rd;
    always @(*) begin
        n_rd = 32'd0;
        case (nidx[1:0])
            2'd0: n_rd = 32'h4858424e;   // "HXBN"
            2'd1: n_rd = {24'd0, NCH[7:0]};
            2'd2: n_rd = {10'd0, err_gate, err_code, 8'd0};
            default: n_rd = esrc_x[31:0];
        endcase
    end
    wire [CW-1:0] cs = csel[CW-1:0];
    assign prdata  = !cok ? ((acc_ph && !pwrite && n_ok) ? n_rd : 32'd0) : c_prdata[32*cs +: 32];
    assign pready  = !cok || c_pready[cs];
    assign pslverr = cok ? c_pslverr[cs] : acc_ph && (pwrite ? !n_st : !n_ok);

    always @(posedge clk)
        if (rst || w_st) begin
            err_code <= 8'd0;
            err_gate <= 6'd0;
            err_src  <= {RB{1'b0}};
        end else if (nrk && err_code == 8'd0) begin
            err_code <= 8'd2;          // NORANK
            err_gate <= h_gate;
            err_src  <= h_src;
        end

    // Monitor (read hierarchically by the testbench; not ports).
    /* verilator lint_off UNUSED */
    reg           ev_error;
    reg  [7:0]    ev_err_code;
    reg  [5:0]    ev_err_gate;
    reg  [RB-1:0] ev_err_src;
    /* verilator lint_on UNUSED */
    always @(posedge clk)
        if (rst) begin
            ev_error    <= 1'b0;
            ev_err_code <= 8'd0;
            ev_err_gate <= 6'd0;
            ev_err_src  <= {RB{1'b0}};
        end else begin
            ev_error    <= nrk && err_code == 8'd0 && !w_st;
            ev_err_code <= 8'd2;
            ev_err_gate <= h_gate;
            ev_err_src  <= h_src;
        end

    assign irq = |c_irq;

    wire _unused_ok = &{1'b0, paddr[1:0], f_x, 1'b0};

`ifndef SYNTHESIS
    initial begin
        if (NCH < 1 || NCH > 8)
            $fatal(1, "%m: NCH = %0d (allowed 1..8)", NCH);
    end
`endif
endmodule
