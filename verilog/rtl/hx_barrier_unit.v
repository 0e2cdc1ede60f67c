// hx_barrier_unit: the per-node barrier synchronisation device (the Fujitsu
// seed's FIG. 4 unit); docs/microarchitecture.md, "Barrier unit".
//
// It sits between the CPU (arrive/operand in, released/result out) and the
// node's exchanger port 0: it drives the injection channel (and owns its
// credit counter) and holds the ejection FIFO at the end of the ejection
// channel. In every cycle three independent parts run, all reading only the
// registers as they stand at the start of the cycle:
//   gate    - arrival, and passing gate cur+1 once gate cur's packets are all
//             sent and every route into gate cur+1 has delivered;
//   send    - one flit per cycle of the packets of out[cur], credit permitting;
//   receive - pop the ejection FIFO every cycle it is non-empty, assemble the
//             packet, count and combine it at its tail.
// The gate part and the send part never both write the send pointer in one
// cycle: a gate passes only when the pointer is at the end of its list, and
// then nothing is sent.
//
// The gate table is a $readmemh file of 64-bit words (docs/tables.md):
// word 0 = {"HXGT", count}, word 1 = checksum, body[0] = {valid, G, rank},
// body[g] (g = 1..G+1) = {self, need, route count, route start},
// body[G+2+j] = route j = {dst rank, dst address}.
//
// Event outputs (ev_*) are registers written by the edge that ends cycle t
// for an event "at cycle t": a monitor that samples them at the next rising
// edge (i.e. during cycle t+1) prints cycle t. See docs/rtl.md.
`timescale 1ns / 1ps
module hx_barrier_unit #(
    parameter integer FW     = 64,       // flit data width
    parameter integer B      = 2,        // ejection FIFO depth; credits of the injection channel
    parameter integer OP     = 0,        // 0 barrier, 1 sum, 2 max, 3 min, 4 and, 5 or, 6 xor
    parameter integer AB     = 1,        // node address bits
    parameter integer RB     = 1,        // rank bits
    parameter integer NG     = 1,        // gates G of the table (0 for a node without a rank)
    parameter integer NWORDS = 4,        // body words of the table (its count field)
    parameter         TABLE  = "gt.hex"  // gate table file
) (
    input                clk,
    input                rst,          // synchronous, active high
    // CPU side (driven on the falling edge)
    input                arrive,       // arrival at the barrier point, this cycle
    input  [63:0]        operand,      // value contributed at arrival
    output               released,     // barrier complete (level, from cycle t+1 on);
                                       // "release" is a Verilog keyword
    output [63:0]        result,       // acc: the reduced value once released is 1
    // injection channel (to exchanger port 0)
    output               inj_valid,
    output [FW+1:0]      inj_flit,
    input                inj_credit,   // credit returned by the exchanger's input FIFO
    // ejection channel (from exchanger port 0)
    input                ej_valid,
    input  [FW+1:0]      ej_flit,
    output               ej_credit,    // ejection FIFO popped (credit to exchanger)
    // identity, for the monitor
    output               has_rank,     // the table holds a rank
    output [RB-1:0]      rank,
    // events of the previous cycle (see header comment)
    output reg           ev_arrive,
    output reg           ev_gate,
    output reg           ev_release,
    output [5:0]         ev_gnum,      // gate number of ev_gate (= cur)
    output [63:0]        ev_value,     // value of ev_arrive/ev_gate/ev_release (= acc)
    output reg           ev_send,
    output reg [RB-1:0]  ev_send_to,
    output reg [5:0]     ev_send_gate,
    output reg           ev_recv,
    output reg [RB-1:0]  ev_recv_from,
    output reg [5:0]     ev_recv_gate,
    output reg [63:0]    ev_recv_value
);
    localparam W    = FW + 2;
    // Payload flits per packet: none for a barrier, ceil(64/FW) otherwise.
    localparam NPAY = (OP == 0) ? 0 : (64 + FW - 1) / FW;
    localparam FIW  = (NPAY < 2) ? 1 : $clog2(NPAY + 1);
    localparam [FIW-1:0] FLAST = NPAY[FIW-1:0];   // flit index of the tail
    localparam [FIW-1:0] FZERO = 0;
    localparam [FIW-1:0] FONE  = 1;
    localparam [63:0] IDENT = (OP == 3 || OP == 4) ? {64{1'b1}} : 64'd0;
    localparam integer GENDI = NG + 1;
    localparam [5:0]  GEND  = GENDI[5:0];  // end gate
    localparam RT0 = NG + 4;               // ROM index of route word 0
    localparam RAW = $clog2(NWORDS + 2);   // ROM index width
    localparam GW  = (NG < 1) ? 1 : $clog2(NG + 2);   // rx array index width

    // ------------------------------------------------------------------
    // Gate table ROM
    // ------------------------------------------------------------------
    reg [63:0] rom [0:NWORDS+1];

    initial begin : load
`ifndef SYNTHESIS
        reg [63:0] c, w;
        integer n, g, nrt;
`endif
        $readmemh(TABLE, rom);
`ifndef SYNTHESIS
        // Header and consistency check (docs/tables.md). A missing or short
        // file leaves X.
        if (^rom[0] === 1'bx)
            $fatal(1, "%0s: gate table missing or unreadable (header word is X)", TABLE);
        if (rom[0][63:32] !== 32'h48584754)
            $fatal(1, "%0s: bad magic %h, expected 48584754 (\"HXGT\")", TABLE, rom[0][63:32]);
        if (rom[0][31:0] !== NWORDS)
            $fatal(1, "%0s: %0d body words, this unit was built for NWORDS = %0d",
                   TABLE, rom[0][31:0], NWORDS);
        c = 64'd0;
        for (n = 0; n < NWORDS; n = n + 1) begin
            if (^rom[n+2] === 1'bx)
                $fatal(1, "%0s: body word %0d missing or not hex (file too short?)", TABLE, n);
            c = {c[62:0], c[63]} ^ rom[n+2];
        end
        if (^rom[1] === 1'bx || rom[1] !== c)
            $fatal(1, "%0s: checksum %h does not match the body (computed %h)", TABLE, rom[1], c);
        if (FW < AB + RB + 6)
            $fatal(1, "%m: FW = %0d cannot hold the %0d-bit head (AB %0d + RB %0d + 6)",
                   FW, AB + RB + 6, AB, RB);
        w = rom[2];
        if (!w[63]) begin
            if (w !== 64'd0 || NWORDS != 1 || NG != 0)
                $fatal(1, "%0s: a table without a rank must be the single body word 0 (NG = 0, NWORDS = 1)", TABLE);
        end else begin
            if (w[62:38] != 0)
                $fatal(1, "%0s: body[0] reserved bits 62..38 not zero", TABLE);
            if ({26'd0, w[37:32]} != NG || NG < 0 || NG > 62)
                $fatal(1, "%0s: G = %0d, this unit was built for NG = %0d (allowed 0..62)",
                       TABLE, w[37:32], NG);
            if (RB < 32 && (w[31:0] >> RB) != 0)
                $fatal(1, "%0s: rank %0d does not fit in RB = %0d bits", TABLE, w[31:0], RB);
            nrt = NWORDS - NG - 2;
            if (nrt < 0)
                $fatal(1, "%0s: %0d body words cannot hold %0d gate words", TABLE, NWORDS, NG + 1);
            for (g = 1; g <= NG + 1; g = g + 1) begin
                w = rom[g+2];
                if (w[63:41] != 0)
                    $fatal(1, "%0s: gate %0d: reserved bits 63..41 not zero", TABLE, g);
                if ({16'd0, w[15:0]} + {16'd0, w[31:16]} > nrt)
                    $fatal(1, "%0s: gate %0d: routes %0d..%0d past the %0d route words",
                           TABLE, g, w[15:0], w[15:0] + w[31:16] - 1, nrt);
                if (g == 1 && w[40:32] != 0)
                    $fatal(1, "%0s: gate 1 (arrival) must have self = 0 and need = 0", TABLE);
                if (g == NG + 1 && w[31:16] != 0)
                    $fatal(1, "%0s: the end gate %0d must have no routes out", TABLE, g);
            end
            for (n = 0; n < nrt; n = n + 1) begin
                w = rom[RT0+n];
                if ((RB < 32 && (w[63:32] >> RB) != 0) || (AB < 32 && (w[31:0] >> AB) != 0))
                    $fatal(1, "%0s: route %0d: rank %0d / address %h too wide (RB %0d, AB %0d)",
                           TABLE, n, w[63:32], w[31:0], RB, AB);
            end
        end
`endif
    end

    // Table words are wider than any one configuration uses (reserved bits,
    // 32-bit rank/address fields): unused bits are expected here.
    /* verilator lint_off UNUSED */
    wire [63:0]   body0    = rom[2];
    /* verilator lint_on UNUSED */
    wire          tvalid   = body0[63];
    wire [RB-1:0] myrank   = body0[RB-1:0];

    assign has_rank = tvalid;
    assign rank     = myrank;

    // ------------------------------------------------------------------
    // State
    // ------------------------------------------------------------------
    reg  [5:0]     cur;              // 0: not arrived; else last gate passed
    reg  [63:0]    acc;
    reg  [15:0]    ri;               // route index within out[cur]
    reg  [FIW-1:0] fi;               // flit index within the packet (0 = head)
    reg  [7:0]     rxcnt [0:NG+1];   // per gate h = 2..G+1 (0, 1 unused)
    reg  [63:0]    rxacc [0:NG+1];

    // Table words of gate cur (its routes) and gate cur+1 (what it needs).
    // Reads outside the table (cur = 0 or G+1) are only used under in_gate.
    // Index arithmetic is done in 32 bits and cut to the ROM index width.
    wire [5:0]  gnext   = cur + 6'd1;
    /* verilator lint_off UNUSED */
    wire [31:0] ix_cur  = {26'd0, cur} + 32'd2;
    wire [31:0] ix_nxt  = {26'd0, cur} + 32'd3;
    wire [63:0] gw_cur  = rom[ix_cur[RAW-1:0]];
    wire [63:0] gw_nxt  = rom[ix_nxt[RAW-1:0]];
    wire [15:0] rstart  = gw_cur[15:0];
    wire [15:0] rcount  = gw_cur[31:16];
    wire [7:0]  need_n  = gw_nxt[39:32];
    wire        self_n  = gw_nxt[40];
    wire [31:0] ix_rt   = RT0 + {16'd0, rstart} + {16'd0, ri};
    wire [63:0] rword   = rom[ix_rt[RAW-1:0]];   // current route {rank, addr}
    /* verilator lint_on UNUSED */
    wire [GW-1:0] gx_nxt = gnext[GW-1:0];

    // ------------------------------------------------------------------
    // Gate
    // ------------------------------------------------------------------
    wire in_gate   = tvalid && (cur != 6'd0) && (cur != GEND);   // 1 <= cur <= G
    wire send_done = (ri == rcount);
    wire do_arrive = tvalid && (cur == 6'd0) && arrive;
    wire do_pass   = in_gate && send_done && (rxcnt[gx_nxt] == need_n);
    wire [63:0] rx_n = rxacc[gx_nxt];
    wire [63:0] comb_n;
    hx_alu #(.OP(OP)) alu_gate (.a(acc), .b(rx_n), .y(comb_n));
    wire [63:0] acc_n = self_n ? comb_n : rx_n;

    // ------------------------------------------------------------------
    // Send
    // ------------------------------------------------------------------
    wire inj_ok;
    wire do_send = in_gate && !send_done && inj_ok;
    wire is_head_tx = (fi == FZERO);
    wire is_tail_tx = (fi == FLAST);

    hx_credit #(.B(B)) inj_cr (
        .clk(clk), .rst(rst), .take(do_send), .give(inj_credit), .ok(inj_ok)
    );

    // Head data, LSB first: dst address, own rank, gate cur+1.
    // Payload flit p = fi-1 carries acc bits [p*FW, p*FW+FW).
    // Both are built FW+64 bits wide (no zero-width replications for any
    // FW) and cut to FW bits.
    wire [FIW-1:0] ptx    = fi - FONE;
    /* verilator lint_off UNUSED */
    wire [FW+63:0] hdr_x  = {{(FW+58-AB-RB){1'b0}}, gnext, myrank, rword[AB-1:0]};
    wire [FW+63:0] acc_x  = {{FW{1'b0}}, acc} >> (ptx * FW);
    /* verilator lint_on UNUSED */
    wire [FW-1:0]  tx_data = is_head_tx ? hdr_x[FW-1:0] : acc_x[FW-1:0];

    assign inj_valid = do_send;
    assign inj_flit  = {is_head_tx, is_tail_tx, tx_data};

    // ------------------------------------------------------------------
    // Receive
    // ------------------------------------------------------------------
    wire [W-1:0] ej_front;
    wire         ej_ready;
    hx_fifo #(.W(W), .B(B)) ej_fifo (
        .clk(clk), .rst(rst),
        .push(ej_valid), .din(ej_flit),
        .pop(ej_ready), .dout(ej_front), .nempty(ej_ready)
    );
    assign ej_credit = ej_ready;     // always pop a ready flit

    reg  [RB-1:0]  rx_src;           // latched from the head flit
    reg  [5:0]     rx_gate;
    reg  [63:0]    rx_val;           // chunks received so far
    reg  [FIW-1:0] rx_idx;           // index of the next payload flit

    wire          rx_head  = ej_front[W-1];
    wire          rx_tail  = ej_front[W-2];
    wire [FW-1:0] rx_d     = ej_front[FW-1:0];
    wire [RB-1:0] pkt_src  = rx_head ? rx_d[AB +: RB] : rx_src;
    wire [5:0]    pkt_gate = rx_head ? rx_d[AB+RB +: 6] : rx_gate;
    /* verilator lint_off UNUSED */
    wire [FW+63:0] rx_x    = {64'd0, rx_d} << (rx_idx * FW);
    /* verilator lint_on UNUSED */
    wire [63:0]   pkt_val  = rx_head ? 64'd0 : (rx_val | rx_x[63:0]);
    wire [GW-1:0] gx_rx    = pkt_gate[GW-1:0];
    wire [63:0]   rxacc_g  = rxacc[gx_rx];
    wire [63:0]   rxacc_n;
    hx_alu #(.OP(OP)) alu_recv (.a(rxacc_g), .b(pkt_val), .y(rxacc_n));
    wire          rx_done  = ej_ready && rx_tail;

    // ------------------------------------------------------------------
    // Registers
    // ------------------------------------------------------------------
    integer h;
    always @(posedge clk) begin
        if (rst) begin
            cur     <= 6'd0;
            acc     <= 64'd0;
            ri      <= 16'd0;
            fi      <= FZERO;
            rx_src  <= {RB{1'b0}};
            rx_gate <= 6'd0;
            rx_val  <= 64'd0;
            rx_idx  <= FZERO;
            for (h = 0; h <= NG + 1; h = h + 1) begin
                rxcnt[h] <= 8'd0;
                rxacc[h] <= IDENT;
            end
        end else begin
            // gate (arrival and gate passing are exclusive: cur differs)
            if (do_arrive) begin
                cur <= 6'd1;
                acc <= (OP == 0) ? 64'd0 : operand;
                ri  <= 16'd0;
                fi  <= FZERO;
            end else if (do_pass) begin
                cur <= gnext;
                acc <= acc_n;
                ri  <= 16'd0;       // start of out[cur+1]
                fi  <= FZERO;
            end
            // send (never in a cycle with do_arrive or do_pass)
            if (do_send) begin
                if (is_tail_tx) begin
                    ri <= ri + 16'd1;
                    fi <= FZERO;
                end else begin
                    fi <= fi + FONE;
                end
            end
            // receive
            if (ej_ready) begin
                if (rx_head) begin
                    rx_src  <= pkt_src;
                    rx_gate <= pkt_gate;
                    rx_val  <= 64'd0;
                    rx_idx  <= FZERO;
                end else begin
                    rx_val  <= pkt_val;
                    rx_idx  <= rx_idx + FONE;
                end
                if (rx_tail) begin
                    rxcnt[gx_rx] <= rxcnt[gx_rx] + 8'd1;
                    rxacc[gx_rx] <= rxacc_n;
                end
            end
        end
    end

    // Event registers: set by the edge that ends the event's cycle.
    always @(posedge clk) begin
        if (rst) begin
            ev_arrive     <= 1'b0;
            ev_gate       <= 1'b0;
            ev_release    <= 1'b0;
            ev_send       <= 1'b0;
            ev_send_to    <= {RB{1'b0}};
            ev_send_gate  <= 6'd0;
            ev_recv       <= 1'b0;
            ev_recv_from  <= {RB{1'b0}};
            ev_recv_gate  <= 6'd0;
            ev_recv_value <= 64'd0;
        end else begin
            ev_arrive     <= do_arrive;
            ev_gate       <= do_pass && (gnext != GEND);
            // With G = 0 gate 1 is the end gate: arrival releases at once
            // (the Go model does the same; generated schedules have G >= 1).
            ev_release    <= (do_pass && (gnext == GEND)) || (do_arrive && NG == 0);
            ev_send       <= do_send && is_head_tx;
            ev_send_to    <= rword[32 +: RB];
            ev_send_gate  <= gnext;
            ev_recv       <= rx_done;
            ev_recv_from  <= pkt_src;
            ev_recv_gate  <= pkt_gate;
            ev_recv_value <= pkt_val;
        end
    end

    // cur and acc are written by the same edge as the gate events, so during
    // the cycle after the event they hold the event's gate and value.
    assign ev_gnum  = cur;
    assign ev_value = acc;
    assign released = tvalid && (cur == GEND);
    assign result   = acc;

`ifndef SYNTHESIS
    // (With G = 62 the upper bound is the 6-bit maximum: a constant compare.)
    /* verilator lint_off CMPCONST */
    always @(posedge clk) begin
        if (!rst && rx_done && (pkt_gate < 6'd2 || {26'd0, pkt_gate} > NG + 1))
            $fatal(1, "%m: received a packet for gate %0d, outside 2..%0d", pkt_gate, NG + 1);
        if (!rst && rx_done && !rx_head && rx_idx != FLAST - FONE)
            $fatal(1, "%m: packet tail after %0d payload flits, expected %0d", rx_idx + 1, NPAY);
    end
    /* verilator lint_on CMPCONST */
`endif
endmodule
