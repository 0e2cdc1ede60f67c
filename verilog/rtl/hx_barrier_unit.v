// hx_barrier_unit: the per-node barrier synchronisation device (the Fujitsu
// seed's FIG. 4 unit); docs/microarchitecture.md, "Barrier unit", and
// docs/registers.md for its configuration port.
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
// The unit re-arms at its release: the next arrival starts a new episode.
//
// Fault detection (docs/reliability.md, "Detection"): with CB = 32 the
// sender puts the packet's CRC-32C in the tail flit's sideband and the
// receiver checks it at every tail (CRC); in data mode the receiver checks
// each message's length against its expected-message word (SEQ); and a
// counter of cycles in WAIT without progress raises TIMEOUT when it
// reaches the WATCHDOG register (0: off).
//
// Software control (docs/registers.md, "Software control"): ABORT returns
// the unit to IDLE from any state (finishing a half-sent packet: drain;
// discarding the rest of a half-received one: rx_skip); WATCHDOG and the
// interrupt registers (IRQ_STATUS, IRQ_ENABLE; the irq output) are
// writable in every state; an arrival the unit cannot take in its cycle
// (a CTRL or ABORT write, a table read, a drain) is held (arr_q); table
// words read back while no episode runs; a table word's high half commits
// only onto the staged low half of the same word (wlo_a, wlo_v).
//
// Configuration (op, mode, rank, gates, tables) is written through an APB
// completer port; nothing is read from a file. The tables sit in
// synchronous RAMs read one word per cycle per RAM, each an hx_mem_1r1w
// (docs/rtl.md, "Memories"; none is read asynchronously). Every read address is
// computed from the NEXT state (what cur, the route index and the item index
// will be after the edge), so the word the engines need during a cycle is on
// the RAM's output register during that cycle: the cycle timing is that of
// docs/microarchitecture.md, with no cycle added. A write to the word being
// read is bypassed into the output (the word read is the new one).
//
// The per-gate receive state (count, combined value) is a RAM too, in
// two copies written alike (the gate check and the count each read one), and
// beside it one valid flip-flop per gate: an entry whose bit is 0 reads as
// empty (count 0, the op's identity). The release clears every bit at
// once, so no count outlives its episode, whatever gates the next
// episodes use (docs/microarchitecture.md, "Receive state"). A tail is counted by a
// read-modify-write over two cycles (read at the pop, write one cycle
// later); the pending write is forwarded to the gate check, so a received
// signal still counts for the check from the cycle after its pop.
//
// The event registers (ev_*), has_rank and rank are for the testbench's
// monitor, which reads them hierarchically (docs/rtl.md, "Monitor
// protocol"): they are not ports, and synthesis removes them.
`timescale 1ns / 1ps
module hx_barrier_unit #(
    parameter integer FW   = 64,   // flit data width
    parameter integer B    = 2,    // ejection FIFO depth; credits of the injection channel
    parameter integer AB   = 1,    // node address bits
    parameter integer RB   = 1,    // rank bits
    parameter integer MAXG = 1,    // gate capacity (1..62): gate RAM depth MAXG + 2
    parameter integer NRT  = 1,    // route RAM depth (>= 1)
    parameter integer DATA = 0,    // 1: data engine present (docs/transfers.md)
    parameter integer NIL  = 1,    // data engine: item-list RAM depth (>= 1)
    parameter integer NBANK = 1,   // receive banks: 2 runs back-to-back loops (docs/microarchitecture.md, "Iterations")
    // The grid, for the route-address check (docs/registers.md): NDIM
    // dimensions of sizes K0..K5; NDIM = 0 checks only that the address
    // fits in AB bits.
    parameter integer NDIM = 0,
    parameter integer K0   = 0,
    parameter integer K1   = 0,
    parameter integer K2   = 0,
    parameter integer K3   = 0,
    parameter integer K4   = 0,
    parameter integer K5   = 0,
    // Check-code sideband bits of a flit (docs/reliability.md,
    // "Detection"): 0 (none) or 32 (the packet's CRC-32C in its tail
    // flit), polynomial CRC_POLY (the generator passes hw.PacketCode).
    parameter integer CB   = 0,
    parameter [31:0]  CRC_POLY = 32'h1EDC6F41,
    // A channel of hx_barrier_node (docs/microarchitecture.md, "Channels
    // and communicators"): EXT = 1 gives the injection credit counter and
    // the ejection FIFO to the node, which shares them between its
    // channels, and reads the same ports differently (see the port list).
    // CHB: the head's and the route word's channel bits (0: none).
    parameter integer EXT  = 0,
    parameter integer CHB  = 0,
    // unit_pipeline (docs/microarchitecture.md, "Unit pipeline"): 1 gives
    // both ALUs operands from flip-flops only. The receive fold takes a
    // cycle more (the RAM's word is registered, p2, and folded and written
    // in the next cycle), and the gate check reads gate cur+1's entry and
    // acc's operand from registers loaded in the cycle before (c_*), with
    // no forward: a signal counts for the check from the third cycle
    // after its pop instead of the first, and no check is made in the
    // cycle after cur moves (an arrival or a pass). 0: the unit of before
    // the key.
    parameter integer UP   = 0
) (
    input                clk,
    input                rst,          // synchronous, active high
    // CPU side (driven on the falling edge)
    input                arrive,       // arrival at the barrier point, this cycle
    input  [63:0]        operand,      // value contributed at arrival
    output               released,     // episode complete (level, from cycle t+1 on);
                                       // "release" is a Verilog keyword
    output [63:0]        result,       // acc: the reduced value once released is 1
    // injection channel (to exchanger port 0). EXT = 1: inj_valid is the
    // request (a flit to send this cycle; inj_flit is it, its head bit 0
    // in the middle of a packet) and inj_credit the node's grant (the port
    // is this channel's and has a credit): the flit leaves iff both are 1.
    output               inj_valid,
    output [FW+CB+1:0]   inj_flit,     // {head, tail, crc[CB-1:0], data[FW-1:0]}
    input                inj_credit,   // credit returned by the exchanger's input FIFO
    // ejection channel (from exchanger port 0). EXT = 1: ej_valid/ej_flit
    // are the node FIFO's front flit when it is for this channel, and
    // ej_credit pops it (1 whenever ej_valid and the channel hosts a rank:
    // a flit for a channel without one is the node's NORANK).
    input                ej_valid,
    input  [FW+CB+1:0]   ej_flit,
    output               ej_credit,    // ejection FIFO popped (credit to exchanger)
    // configuration port (APB, docs/registers.md)
    input                psel,
    input                penable,
    input                pwrite,
    input  [31:0]        paddr,
    input  [31:0]        pwdata,
    output [31:0]        prdata,
    output               pready,
    output               pslverr,
    // interrupt (docs/registers.md, "Interrupt"): |(IRQ_STATUS & IRQ_ENABLE),
    // a flip-flop
    output               irq
);
    localparam W     = FW + 2 + CB;
    // Payload flits of a value packet: ceil(64/FW) (none for a barrier).
    localparam NPAYM = (64 + FW - 1) / FW;
    localparam FIW   = (NPAYM < 2) ? 1 : $clog2(NPAYM + 1);
    localparam [FIW-1:0] FZERO = 0;
    localparam [FIW-1:0] FONE  = 1;
    localparam [FIW-1:0] FPAY  = NPAYM[FIW-1:0];
    localparam integer GDEP = MAXG + 2;                       // gate RAM depth
    localparam integer GW   = $clog2(GDEP);                   // its index width (GDEP >= 3)
    localparam integer RTW  = (NRT < 2) ? 1 : $clog2(NRT);
    localparam integer ILW  = (NIL < 2) ? 1 : $clog2(NIL);
    localparam integer XW   = 8 + 64;                         // receive RAM word {count, value}
    // Receive RAM: one bank of GDEP entries, or in a loop (NBANK = 2) two
    // banks of 2^GW entries, addressed {bank, gate}.
    localparam integer LOOP = (NBANK > 1) ? 1 : 0;
    localparam integer XAW  = GW + LOOP;                      // its index width
    localparam integer XDEP = (LOOP != 0) ? 2 * (1 << GW) : GDEP;
    localparam [5:0] MAXG6  = MAXG[5:0];
    // Address fields: coordinate k in BKk bits at SHk (as hx_switch).
    localparam BK0 = (NDIM < 1) ? 0 : (K0 <= 2) ? 1 : $clog2(K0);
    localparam BK1 = (NDIM < 2) ? 0 : (K1 <= 2) ? 1 : $clog2(K1);
    localparam BK2 = (NDIM < 3) ? 0 : (K2 <= 2) ? 1 : $clog2(K2);
    localparam BK3 = (NDIM < 4) ? 0 : (K3 <= 2) ? 1 : $clog2(K3);
    localparam BK4 = (NDIM < 5) ? 0 : (K4 <= 2) ? 1 : $clog2(K4);
    localparam BK5 = (NDIM < 6) ? 0 : (K5 <= 2) ? 1 : $clog2(K5);
    localparam SH1 = BK0;
    localparam SH2 = BK0 + BK1;
    localparam SH3 = BK0 + BK1 + BK2;
    localparam SH4 = BK0 + BK1 + BK2 + BK3;
    localparam SH5 = BK0 + BK1 + BK2 + BK3 + BK4;
    localparam integer RWW = CHB + RB + AB;                   // route RAM word

    // ------------------------------------------------------------------
    // Configuration registers (docs/registers.md)
    // ------------------------------------------------------------------
    reg          en;          // CTRL.EN: the unit hosts a rank
    reg  [2:0]   op;          // CTRL.OP
    reg          dmode;       // CTRL.DMODE
    reg  [5:0]   ng;          // CTRL.G
    reg  [RB-1:0] myrank;     // RANK
    reg  [12:0]  itemf;       // ITEMF
    reg  [31:0]  wlo;         // staging register: low half of a table word
    reg  [27:0]  wlo_a;       // ... the word's address (paddr[30:3])
    reg          wlo_v;       // ... holds a low half not yet committed
    reg  [1:0]   ipend;       // IRQ_STATUS: 0 release, 1 error (write 1 to clear)
    reg  [1:0]   ien;         // IRQ_ENABLE
    reg          irq_q;
    reg          drain;       // aborted mid-packet: sending the rest of the packet
    reg          rx_skip;     // aborted with a packet open: discarding its remaining flits
    reg          arr_q;       // an arrival held (docs/registers.md, "Arrivals and writes")
    reg  [63:0]  opd_q;       // ... and its operand
    reg  [7:0]   err_code;    // 0: no error
    reg  [5:0]   err_gate;
    reg  [RB-1:0] err_src;
    reg  [31:0]  wdog;        // WATCHDOG: cycles without progress before TIMEOUT (0: off)

    // ------------------------------------------------------------------
    // Episode state
    // ------------------------------------------------------------------
    reg  [5:0]     cur;        // 0: not arrived; else the last gate passed
    reg  [63:0]    acc;
    reg  [15:0]    ri;         // route index within out[cur]
    reg  [FIW-1:0] fi;         // flit index within the packet (0 = head)
    reg  [15:0]    cw_start;   // gate word of cur: its first route ...
    reg  [15:0]    cw_count;   // ... and its route count
    reg  [XDEP-1:0] xv;        // receive entry {bank, g} belongs to its iteration
    reg            it;         // loop: the receive bank of this iteration (0 outside a loop)

    wire [5:0] gend    = ng + 6'd1;                          // end gate G+1
    wire       failed  = (err_code != 8'd0);
    wire       waiting = en && !failed && (cur != 6'd0) && (cur != gend);   // 1 <= cur <= G
    wire       rearm   = en && !failed && ((cur == 6'd0) || (cur == gend));
    reg  [5:0] gnext;                                      // cur + 1, a register of its own (below)
    // opx = dmode ? 0 : op (data mode carries no value) and the op's
    // identity bit, flip-flops written with op and dmode (CTRL), so that
    // the ALUs' operands and op take no decode.
    reg  [2:0] opx;
    reg        idb;
    wire [63:0] ident  = {64{idb}};
    wire [FIW-1:0] npay = (opx == 3'd0) ? FZERO : FPAY;      // payload flits of a packet

    // ------------------------------------------------------------------
    // APB decode
    // ------------------------------------------------------------------
    wire        busy    = waiting || drain ||    // (or finishing a packet in ERROR)
                          (en && failed && fi != FZERO && cur != 6'd0 && cur != gend);
    wire        acc_ph  = psel && penable;
    wire        wr      = acc_ph && pwrite;
    wire [2:0]  region  = paddr[30:28];
    wire [24:0] widx    = paddr[27:3];     // table word index (64-bit words)
    wire [25:0] hidx    = paddr[27:2];     // 32-bit index (item list, control registers)
    wire        hi      = paddr[2];
    wire        is_ctrl = region == 3'd0;
    wire        r_ctrl  = is_ctrl && hidx == 26'd2;
    wire        r_rank  = is_ctrl && hidx == 26'd3;
    wire        r_itemf = is_ctrl && hidx == 26'd4;
    wire        r_wdog  = is_ctrl && hidx == 26'd7;
    wire        r_abort = is_ctrl && hidx == 26'd8;
    wire        r_ist   = is_ctrl && hidx == 26'd9;
    wire        r_ien   = is_ctrl && hidx == 26'd10;
    // ltx < ltc for a constant ltc, as logic and not a carry chain (the
    // table reads' decode blocks an arrival in its cycle: docs/area.md,
    // "The unit's clock"): ltx is below ltc iff at the highest bit where
    // they differ ltc has the 1. (Names of their own: the function's
    // locals must not hide a name of an enclosing scope, VARHIDDEN.)
    function lt_k;
        input [25:0] ltx;
        input [31:0] ltc;
        integer      lti;
        reg          lteq, ltlt;
        begin
            lteq = 1'b1;
            ltlt = 1'b0;
            for (lti = 31; lti >= 0; lti = lti - 1) begin
                if (lteq && ltc[lti] && (lti > 25 || !ltx[lti % 26]))
                    ltlt = 1'b1;
                lteq = lteq && (ltc[lti] == (lti > 25 ? 1'b0 : ltx[lti % 26]));
            end
            lt_k = ltlt;
        end
    endfunction
    wire        in_g    = region == 3'd1 && lt_k({1'b0, widx}, GDEP);
    wire        in_r    = region == 3'd2 && lt_k({1'b0, widx}, NRT);
    wire        in_dr   = DATA != 0 && region == 3'd3 && lt_k({1'b0, widx}, NRT);
    wire        in_e    = DATA != 0 && region == 3'd4 && lt_k({1'b0, widx}, GDEP);
    wire        in_il   = DATA != 0 && region == 3'd5 && lt_k(hidx, NIL);
    wire        ok_ctrl = !pwdata[4] || DATA != 0;
    wire        ok_g    = pwdata[13:8] <= MAXG6;
    wire        ok_if   = pwdata[12:0] != 13'd0 && pwdata[12:0] <= 13'd4096;
    // A route word's address (the staged low half) must name a node of the
    // grid: no bits above AB, every coordinate below its dimension's size.
    /* verilator lint_off UNUSED */
    wire [63:0] wa64    = {32'd0, wlo} >> SH1;
    wire [63:0] wa64_2  = {32'd0, wlo} >> SH2;
    wire [63:0] wa64_3  = {32'd0, wlo} >> SH3;
    wire [63:0] wa64_4  = {32'd0, wlo} >> SH4;
    wire [63:0] wa64_5  = {32'd0, wlo} >> SH5;
    /* verilator lint_on UNUSED */
    wire        ok_addr = ((wlo >> AB) == 32'd0) &&
                          (NDIM < 1 || {32'd0, wlo} % (64'd1 << BK0) < {32'd0, K0[31:0]}) &&
                          (NDIM < 2 || wa64 % (64'd1 << BK1) < {32'd0, K1[31:0]}) &&
                          (NDIM < 3 || wa64_2 % (64'd1 << BK2) < {32'd0, K2[31:0]}) &&
                          (NDIM < 4 || wa64_3 % (64'd1 << BK3) < {32'd0, K3[31:0]}) &&
                          (NDIM < 5 || wa64_4 % (64'd1 << BK4) < {32'd0, K4[31:0]}) &&
                          (NDIM < 6 || wa64_5 % (64'd1 << BK5) < {32'd0, K5[31:0]});
    // A high half commits only onto the low half of the same word.
    wire        lo_ok   = wlo_v && wlo_a == paddr[30:3];
    wire        in_w    = in_g || in_r || in_dr || in_e;       // 64-bit table words
    // WATCHDOG, ABORT and the interrupt registers are taken in any state;
    // the rest only when the unit sends no packet (busy: WAIT, a drain, or
    // finishing a packet in ERROR).
    wire        w_any   = r_wdog || r_abort || r_ist || r_ien;
    wire        w_ok    = w_any || (!busy && (
                          (r_ctrl && ok_ctrl && ok_g) || r_rank ||
                          (r_itemf && DATA != 0 && ok_if) ||
                          (in_w && (!hi || lo_ok) && (!in_r || !hi || ok_addr)) || in_il));
    wire        do_wr   = wr && w_ok;
    wire        w_abort = do_wr && r_abort;
    wire        w_ist   = do_wr && r_ist;
    wire        w_ien   = do_wr && r_ien;
    wire        w_ctrl  = do_wr && r_ctrl;
    wire        w_lo    = do_wr && !hi && (in_g || in_r || in_dr || in_e);
    wire        w_g     = do_wr && hi && in_g;     // gate word commit
    wire        w_r     = do_wr && hi && in_r;
    wire        w_dr    = do_wr && hi && in_dr;
    wire        w_il    = do_wr && in_il;
    /* verilator lint_off UNUSED */
    wire [63:0] wword   = {pwdata, wlo};   // a gate word uses bits 63..48 and 40..0
    /* verilator lint_on UNUSED */

    // Table readback (docs/registers.md, "Readback"): served when the unit
    // neither waits, finishes nor drains a packet. The setup cycle takes the
    // RAMs' read ports (the word is on their outputs in the access cycle);
    // an arrival in either cycle is held to the cycle after the access.
    wire        in_tab   = in_g || in_r || in_dr || in_e || in_il;
    // A data-mode head popped in the cycle reads the expected-message RAM
    // (SEQ): a read of that RAM's words is then refused.
    wire        e_hd;
    wire        rd_setup = psel && !penable && !pwrite && in_tab && !busy && !(in_e && e_hd);
    reg         rd_q;                  // the access cycle of a served table read
    wire [63:0] tab_rd;                // the word read (g_tab below)
    wire [31:0] tab_half = (hi && !in_il) ? tab_rd[63:32] : tab_rd[31:0];   // an item-list word is 32 bits

    wire [1:0]  state   = failed ? 2'd3 : (cur == 6'd0) ? 2'd0 : (cur == gend) ? 2'd2 : 2'd1;
    wire [31:0] caps    = {8'd0, FW[7:0], 7'd0, (DATA != 0), 2'd0, MAXG6};
    /* verilator lint_off UNUSED */
    wire [RB+31:0] rank_x = {32'd0, myrank};
    wire [RB+31:0] esrc_x = {32'd0, err_src};
    /* verilator lint_on UNUSED */
    reg  [31:0] rd_data;
    always @(*) begin
        rd_data = 32'd0;
        if (is_ctrl)
            case (hidx)
                26'd0: rd_data = 32'h48584255;   // "HXBU"
                26'd1: rd_data = caps;
                26'd2: rd_data = {18'd0, ng, 3'd0, dmode, op, en};
                26'd3: rd_data = rank_x[31:0];
                26'd4: rd_data = {19'd0, itemf};
                26'd5: rd_data = {8'd0, rx_skip, drain, err_gate, err_code, cur, state};
                26'd6: rd_data = esrc_x[31:0];
                26'd7: rd_data = wdog;
                26'd9: rd_data = {30'd0, ipend};
                26'd10: rd_data = {30'd0, ien};
                default: rd_data = 32'd0;
            endcase
        else if (rd_q)
            rd_data = tab_half;
    end
    assign prdata  = (acc_ph && !pwrite) ? rd_data : 32'd0;
    assign pready  = 1'b1;
    assign pslverr = acc_ph && (pwrite ? !w_ok : !(is_ctrl && hidx < 26'd11) && !(in_tab && rd_q));

    // ------------------------------------------------------------------
    // Gate
    // ------------------------------------------------------------------
    // gw: the gate RAM's output = gate word cur+1 (word 1 while idle or
    // released): {first source, self, need, route count, first route}.
    /* verilator lint_off UNUSED */
    wire [63:0] gw;                // bits 47..41 unused
    /* verilator lint_on UNUSED */
    wire [7:0]  need_n = gw[39:32];
    wire        self_n = gw[40];
    wire [7:0]  cnt_n;             // received count of gate cur+1 (forwarded)
    wire        send_done = (ri == cw_count);
    // An arrival the unit cannot take in its cycle (a CTRL or ABORT write
    // in it, or the unit draining) is held (arr_q) and taken in the first
    // cycle it can be.
    wire        arr_in    = arrive || arr_q;
    wire        arr_blk   = w_ctrl || w_abort || drain || rd_setup || rd_q;
    wire        do_arrive = rearm && arr_in && !arr_blk;
    wire [63:0] opd_in    = arr_q ? opd_q : operand;
    // An ABORT write wins over the gate check of its cycle.
    // UP = 1: no check in the cycle after cur moved (c_mv: the check's
    // registers hold the entry of the gate before).
    reg         c_mv;
    wire        c_ok      = UP == 0 || !c_mv;
    wire        chk       = waiting && send_done && !w_abort && c_ok;
    wire        do_pass   = chk && (cnt_n == need_n);
    wire        over_chk  = waiting && !w_abort && c_ok && (cnt_n > need_n);
    wire        rel_now   = (do_pass && gnext == gend) || (do_arrive && ng == 6'd0);
    // acc_n = self ? op(acc, val_n) : val_n, where val_n is op(g_val, g_fwd)
    // (the gate's entry and the value counted in this cycle, below): one
    // three-operand op, so no ALU feeds another in the cycle.
    // With UP = 1 the op of two operands from registers: acc's operand
    // (c_a) and the entry (c_val), loaded in the cycle before.
    wire [63:0] g_val, g_fwd;
    wire [63:0] acc_n;
    /* verilator lint_off UNUSED */
    reg  [63:0] c_a, c_val;        // (UP = 0: unused)
    /* verilator lint_on UNUSED */
    reg  [7:0]  c_cnt;
    generate
        if (UP != 0) begin : g_alu_up
            hx_alu alu_gate (.op(opx), .a(c_a), .b(c_val), .y(acc_n));
            wire _unused_fwd = &{1'b0, g_fwd};
        end else begin : g_alu_fwd
            hx_alu3 alu_gate (.op(opx), .a(self_n ? acc : ident), .b(g_val), .c(g_fwd), .y(acc_n));
        end
    endgenerate

    // Next cur, and from it the gate word the next cycle needs.
    wire [5:0] cur_nx = (w_ctrl || w_abort) ? 6'd0 : do_arrive ? 6'd1 : do_pass ? gnext : cur;
    wire [5:0] gend_nx = w_ctrl ? pwdata[13:8] + 6'd1 : gend;
    /* verilator lint_off UNUSED */
    wire [5:0] ga_nx  = (cur_nx == 6'd0 || cur_nx == gend_nx) ? 6'd1 : cur_nx + 6'd1;
    /* verilator lint_on UNUSED */

    // ------------------------------------------------------------------
    // Send
    // ------------------------------------------------------------------
    wire inj_ok;
    wire is_head_tx = (fi == FZERO);
    // In ERROR a unit sends only to finish the packet it began: a half
    // packet would hold its switch path, shared with others, for good.
    wire finishing  = en && failed && !is_head_tx && (cur != 6'd0) && (cur != gend);
    // After an ABORT write mid-packet (drain) the unit sends the rest of
    // that packet the same way.
    wire do_send    = (waiting || finishing || drain) && !send_done && inj_ok;   // = req_tx && inj_ok
    wire          d_tail;          // data mode: last flit of the route's last item
    wire [FW-1:0] d_tx;            // data mode: payload flit (ItemWord)
    wire is_tail_tx = dmode ? d_tail : (fi == npay);

    wire req_tx     = (waiting || finishing || drain) && !send_done;
    // EXT = 1: the node's grant replaces the counter (then unused: synthesis
    // removes it).
    wire cr_ok;
    hx_credit #(.B(B)) inj_cr (
        .clk(clk), .rst(rst), .take(EXT == 0 && do_send), .give(EXT == 0 && inj_credit), .ok(cr_ok)
    );
    assign inj_ok = (EXT != 0) ? inj_credit : cr_ok;

    // Route RAM output: route (cur, ri) = {destination channel (CHB bits),
    // destination rank, address}.
    wire [RWW-1:0] rw;
    wire [15:0] ri_nx   = (do_arrive || do_pass) ? 16'd0 : (do_send && is_tail_tx) ? ri + 16'd1 : ri;
    wire [15:0] rs_nx   = (do_arrive || do_pass) ? gw[15:0] : cw_start;
    /* verilator lint_off UNUSED */
    wire [15:0] ra_nx16 = rs_nx + ri_nx;
    /* verilator lint_on UNUSED */

    // Head data, LSB first: dst address, own rank, gate cur+1, and in a
    // loop the iteration bit (the sender's bank).
    // Payload flit p = fi-1 carries acc bits [p*FW, p*FW+FW).
    wire [FIW-1:0] ptx    = fi - FONE;
    /* verilator lint_off UNUSED */
    wire [FW+63:0] hdr_b  = {{(FW+57-AB-RB){1'b0}}, it, gnext, myrank, rw[AB-1:0]};
    wire [FW+63:0] hdr_x;
    generate
        if (CHB != 0) begin : g_hdr_ch   // the destination's channel above the iteration bit
            assign hdr_x = hdr_b | ({{(FW+64-CHB){1'b0}}, rw[RB+AB +: CHB]} << (AB + RB + 7));
        end else begin : g_hdr
            assign hdr_x = hdr_b;
        end
    endgenerate
    wire [FW+63:0] acc_x  = {{FW{1'b0}}, acc} >> (ptx * FW);
    /* verilator lint_on UNUSED */
    wire [FW-1:0]  tx_data = is_head_tx ? hdr_x[FW-1:0] : dmode ? d_tx : acc_x[FW-1:0];

    // Check code (docs/reliability.md, "Detection"): a 32-bit CRC,
    // polynomial CRC_POLY (initial 0, no reflection, no final XOR), over
    // every flit of the packet in order, each flit's wire word {head,
    // tail, data[FW-1:0]} most significant bit first (the control bits
    // covered); the tail carries it in its CB sideband bits.
    function [31:0] crcf;
        input [31:0]   c;
        input [FW+1:0] d;
        reg   [31:0]   x;
        integer        bi;
        begin
            x = c;
            for (bi = FW + 1; bi >= 0; bi = bi - 1)
                x = {x[30:0], 1'b0} ^ ((x[31] ^ d[bi]) ? CRC_POLY : 32'd0);
            crcf = x;
        end
    endfunction

    // The code is linear in {c, d}: bit j is the XOR of the bits that row
    // j of CRC_MAT selects, a constant computed from crcf, so synthesis
    // builds a balanced XOR tree (crcf's loop would be a chain FW+2 deep).
    localparam integer CIN = 32 + FW + 2;      // {c, d}
    function [32*CIN-1:0] crc_mat;
        /* verilator lint_off UNUSED */
        input integer unused;                  // a constant function takes an input
        /* verilator lint_on UNUSED */
        integer            b, j;
        reg [31:0]         col;
        reg [32*CIN-1:0]   m;
        begin
            m = {(32*CIN){1'b0}};
            for (b = 0; b < CIN; b = b + 1) begin
                if (b >= FW + 2)
                    col = crcf(32'd1 << (b - FW - 2), {(FW+2){1'b0}});
                else
                    col = crcf(32'd0, {{(FW+1){1'b0}}, 1'b1} << b);
                for (j = 0; j < 32; j = j + 1)
                    m[j*CIN + b] = col[j];
            end
            crc_mat = m;
        end
    endfunction
    localparam [32*CIN-1:0] CRC_MAT = crc_mat(0);

    reg  [31:0] s_crc;             // code of the packet being sent, flits so far
    wire [31:0] s_crc_n;           // with this flit (g_crc below)
    wire [CIN-1:0] s_crc_in = {is_head_tx ? 32'd0 : s_crc, is_head_tx, is_tail_tx, tx_data};

    assign inj_valid = (EXT != 0) ? req_tx : do_send;
    generate
        if (CB != 0) begin : g_tx_crc
            assign inj_flit = {is_head_tx, is_tail_tx, is_tail_tx ? s_crc_n[CB-1:0] : {CB{1'b0}}, tx_data};
        end else begin : g_tx_nocrc
            assign inj_flit = {is_head_tx, is_tail_tx, tx_data};
            wire _unused_ok = &{1'b0, s_crc_n};
        end
    endgenerate

    // ------------------------------------------------------------------
    // Receive
    // ------------------------------------------------------------------
    wire [W-1:0] ej_front;
    wire         ej_ready;
    // EXT = 1: the node holds the FIFO and shows its front (then this one
    // stays empty: synthesis removes it).
    wire [W-1:0] f_front;
    wire         f_ready;
    hx_fifo #(.W(W), .B(B)) ej_fifo (
        .clk(clk), .rst(rst),
        .push(EXT == 0 && ej_valid), .din(ej_flit),
        .pop(EXT == 0 && f_ready), .dout(f_front), .nempty(f_ready)
    );
    assign ej_front  = (EXT != 0) ? ej_flit : f_front;
    assign ej_ready  = (EXT != 0) ? ej_valid && en : f_ready;
    assign ej_credit = ej_ready;     // always pop a ready flit

    reg  [RB-1:0]  rx_src;           // latched from the head flit
    reg  [5:0]     rx_gate;
    reg  [63:0]    rx_val;           // chunks received so far
    reg  [FIW-1:0] rx_idx;           // payload flits received so far
    reg            rx_open;          // a head was popped, its tail not yet
    reg            rx_bank;          // loop: the head's iteration bit

    wire          rx_head  = ej_front[W-1];
    wire          rx_tail  = ej_front[W-2];
    wire [FW-1:0] rx_d     = ej_front[FW-1:0];
    // The check code, recomputed over the flits popped (from 0 at a head).
    reg  [31:0]   r_crc;
    wire [31:0]   r_crc_n;
    wire [CIN-1:0] r_crc_in = {rx_head ? 32'd0 : r_crc, rx_head, rx_tail, rx_d};
    genvar gc;
    generate
        for (gc = 0; gc < 32; gc = gc + 1) begin : g_crc
            assign s_crc_n[gc] = ^(s_crc_in & CRC_MAT[gc*CIN +: CIN]);
            assign r_crc_n[gc] = ^(r_crc_in & CRC_MAT[gc*CIN +: CIN]);
        end
    endgenerate
    wire          crc_bad;         // a tail whose code differs
    generate
        if (CB != 0) begin : g_rx_crc
            assign crc_bad = rx_tail && (ej_front[FW +: CB] != r_crc_n[CB-1:0]);
        end else begin : g_rx_nocrc
            assign crc_bad = 1'b0;
        end
    endgenerate
    wire [RB-1:0] pkt_src  = rx_head ? rx_d[AB +: RB] : rx_src;
    wire [5:0]    pkt_gate = rx_head ? rx_d[AB+RB +: 6] : rx_gate;
    /* verilator lint_off UNUSED */
    wire [FW+63:0] rx_dx   = {64'd0, rx_d};
    /* verilator lint_on UNUSED */
    wire          pkt_bank = (LOOP == 0) ? 1'b0 : rx_head ? rx_dx[AB+RB+6] : rx_bank;
    /* verilator lint_off UNUSED */
    wire [FW+63:0] rx_x    = {64'd0, rx_d} << (rx_idx * FW);
    /* verilator lint_on UNUSED */
    wire [63:0]   pkt_val  = rx_head ? 64'd0 : (rx_val | rx_x[63:0]);

    // Errors at the pop (docs/registers.md, "Status and errors"); the
    // first one is kept.
    // After an ABORT write with a packet open (rx_skip) the rest of that
    // packet, up to its tail, is popped and discarded: no count, no error.
    wire pop      = ej_ready && !rx_skip;
    assign e_hd   = DATA != 0 && pop && en && dmode && rx_head;
    wire g_range  = pkt_gate >= 6'd2 && pkt_gate <= gend;
    wire e_norank = pop && !en;
    wire e_badg   = pop && en && rx_head && !g_range;
    wire e_short  = pop && en && dmode && rx_head && rx_tail;
    wire [FIW-1:0] npay_got = rx_head ? FZERO : rx_idx + FONE;
    wire e_flits  = pop && en && !dmode &&
                    ((rx_head && rx_open) || (!rx_head && !rx_open) ||
                     (rx_tail && npay_got != npay) || (!rx_tail && !rx_head && npay_got == npay) ||
                     (rx_head && !rx_tail && npay == FZERO));
    // Fault detection (docs/reliability.md, "Detection"). Value mode: a
    // tail with a bad check code is not counted (CRC after BADGATE and
    // FLITS, before OVER). Data mode: the message's length against the
    // expected-message word (SEQ) and the check code are looked at after
    // BADGATE, SHORT and OVER, and do not stop the count.
    wire e_crc_v  = pop && en && !dmode && crc_bad;
    wire seq_bad;                  // data mode: SEQ (g_data)
    wire e_seq    = pop && en && dmode && seq_bad;
    wire e_crc_d  = pop && en && dmode && crc_bad;
    wire tail_ok  = pop && en && rx_tail && g_range && !e_badg && !e_short && !e_flits && !e_crc_v;
    wire e_over   = tail_ok && waiting && pkt_gate <= cur_nx && pkt_bank == it;   // the other bank: the next iteration
    wire count_it = tail_ok && !e_over && !failed && !w_abort;
    wire e_pop1   = e_norank || e_badg || e_short || e_flits || e_crc_v || e_over;
    wire e_dsel   = !e_pop1 && (e_seq || e_crc_d);   // SEQ or data CRC wins: the message's gate, source
    wire e_pop    = e_pop1 || e_seq || e_crc_d;
    // Watchdog: idle counts the cycles without progress before this one.
    reg  [31:0] idle;
    wire [15:0] gsrc   = gw[63:48];    // gate cur+1's first source (gate word)
    /* verilator lint_off UNUSED */
    wire [RB+15:0] gsrc_x = {{RB{1'b0}}, gsrc};
    /* verilator lint_on UNUSED */
    wire progress = do_arrive || do_pass || do_send || ej_ready || over_chk;
    wire e_tmo    = waiting && !progress && wdog != 32'd0 && {1'b0, idle} + 33'd1 >= {1'b0, wdog};
    wire [7:0] e_code = e_norank ? 8'd2 : e_badg ? 8'd1 : e_short ? 8'd3 : e_flits ? 8'd4 :
                        e_crc_v ? 8'd6 : e_over ? 8'd5 : e_seq ? 8'd7 : e_crc_d ? 8'd6 :
                        over_chk ? 8'd5 : e_tmo ? 8'd8 : 8'd0;
    wire [5:0] e_gate = e_dsel ? pkt_gate : e_pop ? ((rx_head || rx_open) ? pkt_gate : 6'd0) : gnext;
    wire [RB-1:0] e_src = e_dsel ? pkt_src : e_pop ? ((rx_head || rx_open) ? pkt_src : {RB{1'b0}}) :
                          (!over_chk && e_tmo) ? gsrc_x[RB-1:0] : {RB{1'b0}};
    wire err_now  = !failed && !w_abort && (e_pop || over_chk || e_tmo);

    // Receive RAM: two reads per cycle (gate check at ga_nx, count at the
    // popped tail's gate), one write (the count, one cycle after the pop;
    // or a clear by a gate-word write). Two copies, each an hx_mem_1r1w
    // with one read port (xmem_a for the check, xmem_b for the count),
    // written alike (docs/rtl.md, "Memories", says why not one).
    wire [XW-1:0] xa_q, xb_q;
    reg  [XW-1:0] xw_q;
    reg           xa_byp, xb_byp;
    reg           p1_v;              // a tail popped last cycle is being counted
    reg  [5:0]    p1_g;
    reg           p1_b;              // its bank
    reg  [63:0]   p1_val;
    // UP = 1: the fold's second stage (the tail popped two cycles ago): its
    // entry's word as read (p2_ent, p2_cnt), folded and written in this
    // cycle.
    reg           p2_v;
    reg  [XAW-1:0] p2_a;
    reg           p2_b;
    reg  [63:0]   p2_val, p2_ent;
    reg  [7:0]    p2_cnt;
    // Entry {bank, gate} as an XAW-bit index (the bank bit only in a loop;
    // the gate's bits above GW are 0 for every gate the RAM holds).
    /* verilator lint_off UNUSED */
    function [XAW-1:0] xidx;
        input bk;
        input [5:0] g;
        reg [GW:0] x;
        begin
            x = {bk, g[GW-1:0]};
            xidx = x[XAW-1:0];
        end
    endfunction
    /* verilator lint_on UNUSED */
    wire [XAW-1:0] p1_a = xidx(p1_b, p1_g);
    wire [7:0]    xa_c = xa_byp ? xw_q[71:64] : xa_q[71:64];   // count of gate cur+1's entry
    wire [7:0]    xb_c = xb_byp ? xw_q[71:64] : xb_q[71:64];   // count of gate p1_g's entry
    // The valid bits of the entries the two ports read, registered with the
    // read from the flip-flops' next value (below): as the RAM outputs, they
    // hold the writes up to the last edge.
    reg           xa_ok;                          // xv[the entry xa_q was read for]
    reg           xb_ok;                          // xv[p1_a]
    wire [7:0]    xb_cnt = xb_ok ? xb_c : 8'd0;
    // An entry's value is the op's identity while its valid bit is 0 (the
    // bypass and the valid bit select between registers before the RAM's
    // output arrives: one multiplexer after it).
    wire [63:0]   rx_comb;
    wire [63:0]   xb_alt = (xb_ok && xb_byp) ? xw_q[63:0] : ident;
    wire [63:0]   xb_val = (xb_ok && !xb_byp) ? xb_q[63:0] : xb_alt;
    // The writer: the fold of p1 (UP = 0) or of p2 (UP = 1).
    wire          wr_v  = (UP != 0) ? p2_v : p1_v;
    wire [XAW-1:0] wr_a = (UP != 0) ? p2_a : p1_a;
    wire          wr_b  = (UP != 0) ? p2_b : p1_b;
    wire [63:0]   rcv_a = (UP != 0) ? p2_ent : xb_val;
    wire [63:0]   rcv_b = (UP != 0) ? p2_val : p1_val;
    wire [7:0]    rcv_c = (UP != 0) ? p2_cnt : xb_cnt;
    hx_alu alu_recv (.op(opx), .a(rcv_a), .b(rcv_b), .y(rx_comb));
    wire [XW-1:0] x_new = {rcv_c + 8'd1, rx_comb};
    wire          x_we  = wr_v || w_g;
    wire [XAW-1:0] x_wa = wr_v ? wr_a : xidx(1'b0, widx[5:0]);
    // A gate-word write clears its entry by its valid bits (below): the
    // word it writes is never read.
    wire [XW-1:0] x_wd  = x_new;
    // The bank the next cycle's gate check reads: it flips with a release.
    wire          it_nx = (LOOP != 0 && rel_now) ? !it : it;
    wire [XAW-1:0] xa_ra = xidx(it_nx, ga_nx);
    wire [XAW-1:0] xb_ra = xidx(pkt_bank, pkt_gate);
    hx_mem_1r1w #(.W(XW), .D(XDEP), .AW(XAW)) xmem_a (
        .clk(clk), .we(x_we), .wa(x_wa), .wd(x_wd), .re(1'b1), .ra(xa_ra), .rd(xa_q)
    );
    hx_mem_1r1w #(.W(XW), .D(XDEP), .AW(XAW)) xmem_b (
        .clk(clk), .we(x_we), .wa(x_wa), .wd(x_wd), .re(1'b1), .ra(xb_ra), .rd(xb_q)
    );
    always @(posedge clk) begin
        xa_byp <= x_we && x_wa == xa_ra;
        xb_byp <= x_we && x_wa == xb_ra;
        xw_q   <= x_wd;
    end
    // Valid bits: a count written sets its entry's bit, a gate-word write
    // (when the port is free) clears the gate's bits, and a release clears
    // every bit of the bank of the iteration it ends (outside a loop: all),
    // winning over a count of that bank written in the same edge (that
    // count belongs to the iteration the release ends); a count of the
    // other bank, the next iteration's, is kept.
    wire [XDEP-1:0] xv_one = {{(XDEP-1){1'b0}}, 1'b1};
    wire [XDEP-1:0] xv_rel;          // the entries a release clears
    generate
        if (LOOP != 0) begin : g_xv2
            localparam integer H = 1 << GW;
            assign xv_rel = it ? {{H{1'b1}}, {H{1'b0}}} : {{H{1'b0}}, {H{1'b1}}};
        end else begin : g_xv1
            assign xv_rel = {XDEP{1'b1}};
        end
    endgenerate
    // An ABORT write clears every bit, and drops the count in flight.
    wire          wr_keep = wr_v && !(rel_now && wr_b == it) && !w_abort;
    wire [XDEP-1:0] xv_clr = (rel_now ? xv_rel : {XDEP{1'b0}}) | (w_abort ? {XDEP{1'b1}} : {XDEP{1'b0}}) |
                             ((w_g && !wr_v) ? (xv_one << xidx(1'b0, widx[5:0])) | (xv_one << xidx(1'b1, widx[5:0])) : {XDEP{1'b0}});
    wire [XDEP-1:0] xv_set = wr_keep ? xv_one << wr_a : {XDEP{1'b0}};
    wire [XDEP-1:0] xv_nx = (xv & ~xv_clr) | xv_set;
    always @(posedge clk) begin
        if (rst) begin
            xv    <= {XDEP{1'b0}};
            xa_ok <= 1'b0;
            xb_ok <= 1'b0;
        end else begin
            xv    <= xv_nx;
            xa_ok <= xv_nx[xa_ra];
            xb_ok <= xv_nx[xb_ra];   // xb_ra is p1_a in the next cycle
        end
    end
    // Gate cur+1's receive state: the count in flight this cycle (p1)
    // first, then the RAM; entries of another iteration read as empty.
    // UP = 1: no forward; the check reads the RAM (and its bypass) only.
    wire          fwd   = UP == 0 && p1_v && p1_g == gnext && p1_b == it;
    wire [7:0]    xa_cnt = xa_ok ? xa_c : 8'd0;
    assign cnt_n = (UP != 0) ? c_cnt : fwd ? x_new[71:64] : xa_cnt;
    // Its value, as two operands of the gate's ALU (which folds them with
    // acc), so that the receive ALU does not feed it: the entry (g_val)
    // and the value counted in this cycle (g_fwd). With fwd, xa and xb are
    // one entry (read at {it, gnext} = p1_a, bypassed by the same write), so
    // x_new's value is op(g_val, p1_val).
    wire [63:0]   xa_alt = (xa_ok && xa_byp) ? xw_q[63:0] : ident;
    assign g_val = (xa_ok && !xa_byp) ? xa_q[63:0] : xa_alt;
    assign g_fwd = fwd ? p1_val : ident;
    // UP = 1: the check's registers take the entry on xmem_a's output
    // (xa_rq: the entry read, gate cur+1 of this cycle) with the write of
    // this edge, and acc's operand, for the check of the next cycle (when
    // cur does not move in this one: c_mv). p2 takes p1's entry with the
    // write of this edge (the fold of the tail before, same entry).
    reg  [XAW-1:0] xa_rq;
    wire          c_fw  = wr_v && wr_a == xa_rq;
    wire          p2_fw = p2_v && p2_a == p1_a;
    always @(posedge clk) begin
        if (rst) begin
            c_mv   <= 1'b0;
            c_cnt  <= 8'd0;
            c_val  <= 64'd0;
            c_a    <= 64'd0;
            xa_rq  <= {XAW{1'b0}};
            p2_v   <= 1'b0;
            p2_a   <= {XAW{1'b0}};
            p2_b   <= 1'b0;
            p2_val <= 64'd0;
            p2_ent <= 64'd0;
            p2_cnt <= 8'd0;
        end else begin
            c_mv   <= do_arrive || do_pass || w_ctrl || w_abort;
            c_cnt  <= c_fw ? x_new[71:64] : xa_cnt;
            c_val  <= c_fw ? x_new[63:0] : g_val;
            c_a    <= self_n ? acc : ident;
            xa_rq  <= xa_ra;
            p2_v   <= p1_v && !(rel_now && p1_b == it) && !w_abort;
            p2_a   <= p1_a;
            p2_b   <= p1_b;
            p2_val <= p1_val;
            p2_ent <= p2_fw ? x_new[63:0] : xb_val;
            p2_cnt <= p2_fw ? x_new[71:64] : xb_cnt;
        end
    end

    // ------------------------------------------------------------------
    // Gate and route RAMs
    // ------------------------------------------------------------------
    // Bits 63..48 and 40..0 of the word (47..41 are not stored).
    wire [56:0]      g_q;
    reg  [56:0]      g_wq;
    wire [56:0]      g_wd = {wword[63:48], wword[40:0]};
    reg              g_byp;
    wire [GW-1:0]    g_wa = widx[GW-1:0];
    wire [GW-1:0]    g_ra = rd_setup ? widx[GW-1:0] : ga_nx[GW-1:0];
    hx_mem_1r1w #(.W(57), .D(GDEP), .AW(GW)) gmem (
        .clk(clk), .we(w_g), .wa(g_wa), .wd(g_wd), .re(1'b1), .ra(g_ra), .rd(g_q)
    );
    always @(posedge clk) begin
        g_byp <= w_g && g_wa == g_ra;
        g_wq  <= g_wd;
    end
    wire [56:0] g_o = g_byp ? g_wq : g_q;
    assign gw = {g_o[56:41], 7'd0, g_o[40:0]};

    wire [RWW-1:0]   r_q;
    reg  [RWW-1:0]   r_wq;
    reg              r_byp;
    wire [RTW-1:0]   r_wa = widx[RTW-1:0];
    wire [RTW-1:0]   r_ra = rd_setup ? widx[RTW-1:0] : ra_nx16[RTW-1:0];
    wire [RWW-1:0]   r_wd;
    generate
        if (CHB != 0) begin : g_rwd_ch   // the channel in bits 63..56 of the word
            assign r_wd = {pwdata[24 +: CHB], pwdata[RB-1:0], wlo[AB-1:0]};
        end else begin : g_rwd
            assign r_wd = {pwdata[RB-1:0], wlo[AB-1:0]};
        end
    endgenerate
    hx_mem_1r1w #(.W(RWW), .D(NRT), .AW(RTW)) rmem (
        .clk(clk), .we(w_r), .wa(r_wa), .wd(r_wd), .re(1'b1), .ra(r_ra), .rd(r_q)
    );
    always @(posedge clk) begin
        r_byp <= w_r && r_wa == r_ra;
        r_wq  <= r_wd;
    end
    assign rw = r_byp ? r_wq : r_q;
    // Readback of gate and route words (the fields the RAMs hold).
    wire [31:0] rt_hi;
    generate
        if (CHB != 0) begin : g_rrd_ch
            assign rt_hi = ({{(32-CHB){1'b0}}, rw[RB+AB +: CHB]} << 24) | {{(32-RB){1'b0}}, rw[AB +: RB]};
        end else begin : g_rrd
            assign rt_hi = {{(32-RB){1'b0}}, rw[AB +: RB]};
        end
    endgenerate
    assign tab_rd = in_g ? gw : in_r ? {rt_hi, {{(32-AB){1'b0}}, rw[AB-1:0]}} : tab_rd_d;

    // ------------------------------------------------------------------
    // Transfer engine (DATA = 1, docs/transfers.md)
    // ------------------------------------------------------------------
    wire [63:0] d_sum_n;   // checksum of the message including the popped flit
    wire [63:0] tab_rd_d;  // readback of a data-engine table word
`ifndef SYNTHESIS
    // The simulation-only payload check is on unless a testbench that
    // injects faults turns it off (hierarchically, at time 0).
    /* verilator lint_off UNUSED */
    reg pchk = 1'b1;
    /* verilator lint_on UNUSED */
`endif

    // ItemWord: x ^ rotl(x, 13) ^ rotl(x, 21) ^ rotl(x, 32), where x is
    // (an item-list word OR the flit index) XOR 64'h9e3779b97f4a7c15.
    function [63:0] item_word;
        input [63:0] w;
        reg   [63:0] x;
        begin
            x = w ^ 64'h9e3779b97f4a7c15;
            item_word = x ^ {x[50:0], x[63:51]} ^ {x[42:0], x[63:43]} ^ {x[31:0], x[63:32]};
        end
    endfunction

    generate
        if (DATA != 0) begin : g_data
            // Data route RAM (same address as the route RAM) and item-list RAM.
            wire [63:0]    d_q;
            reg  [63:0]    d_wq;
            reg            d_byp;
            hx_mem_1r1w #(.W(64), .D(NRT), .AW(RTW)) dmem (
                .clk(clk), .we(w_dr), .wa(r_wa), .wd(wword), .re(1'b1), .ra(r_ra), .rd(d_q)
            );
            always @(posedge clk) begin
                d_byp <= w_dr && r_wa == r_ra;
                d_wq  <= wword;
            end
            /* verilator lint_off UNUSED */
            wire [63:0] drw = d_byp ? d_wq : d_q;   // route (cur, ri): {dst, count, first}

            // Send: item sk of the route, flit sj of the item (reset at the head).
            reg  [23:0]  sk;
            reg  [11:0]  sj;
            wire [12:0]  jlast = itemf - 13'd1;
            wire         s_jl  = {1'b0, sj} == jlast;
            wire [23:0]  sk_nx = !do_send ? sk : is_head_tx ? 24'd0 : s_jl ? sk + 24'd1 : sk;
            wire [23:0]  il_a  = drw[23:0] + sk_nx;
            /* verilator lint_on UNUSED */

            wire [31:0]    il_q;
            reg  [31:0]    il_wq;
            reg            il_byp;
            wire [ILW-1:0] il_wa = hidx[ILW-1:0];
            wire [ILW-1:0] il_ra = rd_setup ? hidx[ILW-1:0] : il_a[ILW-1:0];
            hx_mem_1r1w #(.W(32), .D(NIL), .AW(ILW)) ilmem (
                .clk(clk), .we(w_il), .wa(il_wa), .wd(pwdata), .re(1'b1), .ra(il_ra), .rd(il_q)
            );
            always @(posedge clk) begin
                il_byp <= w_il && il_wa == il_ra;
                il_wq  <= pwdata;
            end
            wire [31:0]    ilw    = il_byp ? il_wq : il_q;    // item sk of the route
            wire [63:0]    s_word = item_word({ilw, 20'd0, sj});
            /* verilator lint_off UNUSED */
            wire [FW+63:0] s_x    = {{FW{1'b0}}, s_word};
            /* verilator lint_on UNUSED */
            assign d_tx   = s_x[FW-1:0];
            assign d_tail = !is_head_tx && s_jl && (sk + 24'd1 == drw[47:24]);


            always @(posedge clk) begin
                if (rst) begin
                    sk <= 24'd0;
                    sj <= 12'd0;
                end else if (do_send) begin
                    if (is_head_tx) begin
                        sk <= 24'd0;
                        sj <= 12'd0;
                    end else if (s_jl) begin
                        sk <= sk + 24'd1;
                        sj <= 12'd0;
                    end else begin
                        sj <= sj + 12'd1;
                    end
                end
            end

            // Receive: the message checksum.
            reg  [63:0]  rsum;
            /* verilator lint_off UNUSED */
            wire [FW+63:0] rd_x = {64'd0, rx_d};
            /* verilator lint_on UNUSED */
            assign d_sum_n = {rsum[62:0], rsum[63]} ^ rd_x[63:0];
            always @(posedge clk) begin
                if (rst)
                    rsum <= 64'd0;
                else if (pop)
                    rsum <= rx_head ? 64'd0 : d_sum_n;
            end

            // Expected-message words (region 4): {source, item count,
            // first item}. The length check (SEQ, docs/reliability.md)
            // uses the source and the count; the first item only the
            // simulation-only payload check below. The RAM is read at the
            // pop of a data-mode head (its gate), the word is on the
            // output in the next cycle (sq_ld), or in a table read's
            // setup cycle (which a head's pop refuses: rd_setup).
            wire          w_e   = do_wr && hi && in_e;
            wire [GW-1:0] e_wa  = widx[GW-1:0];
            wire [GW-1:0] e_ra  = e_hd ? pkt_gate[GW-1:0] : widx[GW-1:0];
            wire [63:0]   e_q;
            reg  [63:0]   e_wq;
            reg           e_byp;
            hx_mem_1r1w #(.W(64), .D(GDEP), .AW(GW)) emem (
                .clk(clk), .we(w_e), .wa(e_wa), .wd(wword), .re(e_hd || (rd_setup && in_e)), .ra(e_ra), .rd(e_q)
            );
            always @(posedge clk) begin
                e_byp <= w_e && e_wa == e_ra;
                e_wq  <= wword;
            end
            wire [63:0]  ew     = e_byp ? e_wq : e_q;   // expected word of the last head popped (or read)
            assign tab_rd_d = in_dr ? drw : in_e ? ew : {32'd0, ilw};
            /* verilator lint_off UNUSED */
            wire [RB+15:0] src_x = {16'd0, pkt_src};
            /* verilator lint_on UNUSED */

            // SEQ: the message being received has sq_rem items to come,
            // sq_j flits of the current one received; sq_skip: not checked
            // (a head for a gate outside the table, or a head that is a
            // tail). A head whose gate expects no message, or another
            // source, expects nothing: its first payload flit is SEQ.
            // sq_ld: the head was popped last cycle, its expected word is
            // on the RAM's output now: sq_rem_e takes the count from it
            // (the head's source, rx_src, against the word's).
            reg          sq_skip;
            reg  [23:0]  sq_rem;
            reg  [11:0]  sq_j;
            reg          sq_ld;
            /* verilator lint_off UNUSED */
            wire [RB+15:0] rsrc_x = {16'd0, rx_src};
            /* verilator lint_on UNUSED */
            wire [23:0]  sq_rem_e = !sq_ld ? sq_rem : (ew[63:48] == rsrc_x[15:0]) ? ew[47:24] : 24'd0;
            wire         sq_chk  = g_range && !rx_tail;
            wire         sq_jl   = {1'b0, sq_j} + 13'd1 == itemf;
            assign seq_bad = rx_head ? rx_open :
                             (!rx_open || (!sq_skip && (sq_rem_e == 24'd0 ||
                                           (rx_tail && (sq_rem_e != 24'd1 || !sq_jl)))));
            always @(posedge clk) begin
                if (rst) begin
                    sq_skip <= 1'b0;
                    sq_rem  <= 24'd0;
                    sq_j    <= 12'd0;
                    sq_ld   <= 1'b0;
                end else begin
                    sq_ld  <= e_hd && sq_chk;
                    sq_rem <= sq_rem_e;
                    if (pop && en && dmode) begin
                        if (rx_head) begin
                            sq_skip <= !sq_chk;
                            sq_rem  <= 24'd0;
                            sq_j    <= 12'd0;
                        end else if (!sq_skip && sq_rem_e != 24'd0) begin
                            if (sq_jl) begin
                                sq_rem <= sq_rem_e - 24'd1;
                                sq_j   <= 12'd0;
                            end else begin
                                sq_j   <= sq_j + 12'd1;
                            end
                        end
                    end
                end
            end

`ifndef SYNTHESIS
            // Simulation-only payload check (docs/transfers.md): the
            // expected-message words, the item list, and the receive
            // position rp (item-list index), rend, rj. Off (pchk = 0) in a
            // testbench that injects faults: there the model's trace,
            // with its SEQ and CRC errors, is the check.
            // The check reads the tables at any index in the cycle it needs
            // them: it keeps copies of the item list and the expected
            // words (simulation only; the RAMs' ports are the engines').
            reg  [31:0]  il_sim [0:NIL-1];
            reg  [63:0]  e_sim [0:GDEP-1];
            always @(posedge clk) begin
                if (w_il)
                    il_sim[il_wa] <= pwdata;
                if (w_e)
                    e_sim[e_wa] <= wword;
            end
            wire [63:0]  grx    = e_sim[pkt_gate[GW-1:0]];
            reg  [23:0]  rp;
            reg  [24:0]  rend;
            reg  [11:0]  rj;
            reg          rbusy;
            wire [31:0]  r_ilw  = il_sim[rp[ILW-1:0]];
            wire [63:0]  r_word = item_word({r_ilw, 20'd0, rj});
            /* verilator lint_off UNUSED */
            wire [FW+63:0] r_x  = {{FW{1'b0}}, r_word};
            wire [FW-1:0]  r_exp = r_x[FW-1:0];
            /* verilator lint_on UNUSED */
            wire         r_jl   = {1'b0, rj} == jlast;
            wire         r_last = r_jl && ({1'b0, rp} + 25'd1 == rend);
            always @(posedge clk) begin
                if (rst) begin
                    rp <= 24'd0; rend <= 25'd0; rj <= 12'd0; rbusy <= 1'b0;
                end else if (w_abort) begin
                    rbusy <= 1'b0;
                end else if (pop && en && dmode) begin
                    if (rx_head) begin
                        rp    <= grx[23:0];
                        rend  <= {1'b0, grx[23:0]} + {1'b0, grx[47:24]};
                        rj    <= 12'd0;
                        rbusy <= !rx_tail && g_range;   // a BADGATE message is not checked
                    end else begin
                        if (r_jl) begin
                            rp <= rp + 24'd1;
                            rj <= 12'd0;
                        end else begin
                            rj <= rj + 12'd1;
                        end
                        if (rx_tail)
                            rbusy <= 1'b0;
                    end
                end
            end
            /* verilator lint_off CMPCONST */
            always @(posedge clk) begin
                if (pchk && !rst && pop && en && dmode && rx_head && !rx_tail && g_range) begin
                    if (rbusy)
                        $fatal(1, "%m: rank %0d: head from rank %0d for gate %0d while the message from rank %0d for gate %0d lacks its tail",
                               myrank, pkt_src, pkt_gate, rx_src, rx_gate);
                    if (grx[47:24] == 24'd0)
                        $fatal(1, "%m: rank %0d gate %0d: message from rank %0d, the gate expects none",
                               myrank, pkt_gate, pkt_src);
                    if (grx[63:48] != src_x[15:0])
                        $fatal(1, "%m: rank %0d gate %0d: message from rank %0d, expected rank %0d",
                               myrank, pkt_gate, pkt_src, grx[63:48]);
                end
                if (pchk && !rst && pop && en && dmode && !rx_head && rbusy) begin
                    if ({1'b0, rp} >= rend)
                        $fatal(1, "%m: rank %0d gate %0d from rank %0d: payload flit past the expected items (tail late or missing)",
                               myrank, rx_gate, rx_src);
                    if (rx_d !== r_exp)
                        $fatal(1, "%m: rank %0d gate %0d from rank %0d: item %0d (origin rank %0d) flit %0d is %h, expected %h",
                               myrank, rx_gate, rx_src, r_ilw[15:0], r_ilw[31:16], rj, rx_d, r_exp);
                    if (rx_tail && !r_last)
                        $fatal(1, "%m: rank %0d gate %0d from rank %0d: message ended early at item %0d flit %0d (items or flits missing)",
                               myrank, rx_gate, rx_src, r_ilw[15:0], rj);
                end
            end
            /* verilator lint_on CMPCONST */
`endif
        end else begin : g_value
            assign d_tx    = {FW{1'b0}};
            assign d_tail  = 1'b0;
            assign d_sum_n = 64'd0;
            assign seq_bad = 1'b0;
            assign tab_rd_d = 64'd0;
            wire _unused_ok = &{1'b0, w_dr, w_il, itemf};
        end
    endgenerate

    // Flit index after the edge: 0 at a head to send.
    wire [FIW-1:0] fi_nx = (do_arrive || do_pass) ? FZERO :
                           !do_send ? fi :
                           is_tail_tx ? FZERO :
                           (!dmode || is_head_tx) ? fi + FONE : fi;   // data mode: fi = 1 from the head to the tail

    // Interrupt (docs/registers.md): pending bits set by the edge that ends
    // the cycle of a release or a recorded error, cleared by a write of 1
    // (an event of the write's own cycle wins); irq is registered from the
    // pending and enable bits as that edge leaves them.
    wire [1:0] iset     = {err_now && !w_ctrl, rel_now};
    wire [1:0] ipend_nx = (ipend & ~(w_ist ? pwdata[1:0] : 2'd0)) | iset;
    wire [1:0] ien_nx   = w_ien ? pwdata[1:0] : ien;
    assign irq = irq_q;

    // ------------------------------------------------------------------
    // Registers
    // ------------------------------------------------------------------
    always @(posedge clk) begin
        if (rst) begin
            en       <= 1'b0;
            op       <= 3'd0;
            dmode    <= 1'b0;
            opx      <= 3'd0;
            idb      <= 1'b0;
            ng       <= 6'd0;
            myrank   <= {RB{1'b0}};
            itemf    <= 13'd1;
            wlo      <= 32'd0;
            wlo_a    <= 28'd0;
            wlo_v    <= 1'b0;
            rd_q     <= 1'b0;
            ipend    <= 2'd0;
            ien      <= 2'd0;
            irq_q    <= 1'b0;
            drain    <= 1'b0;
            rx_skip  <= 1'b0;
            arr_q    <= 1'b0;
            opd_q    <= 64'd0;
            err_code <= 8'd0;
            err_gate <= 6'd0;
            err_src  <= {RB{1'b0}};
            wdog     <= 32'd0;
            idle     <= 32'd0;
            s_crc    <= 32'd0;
            r_crc    <= 32'd0;
            cur      <= 6'd0;
            gnext    <= 6'd1;
            acc      <= 64'd0;
            ri       <= 16'd0;
            fi       <= FZERO;
            cw_start <= 16'd0;
            cw_count <= 16'd0;
            rx_src   <= {RB{1'b0}};
            rx_gate  <= 6'd0;
            rx_val   <= 64'd0;
            rx_idx   <= FZERO;
            rx_open  <= 1'b0;
            rx_bank  <= 1'b0;
            it       <= 1'b0;
            p1_v     <= 1'b0;
            p1_g     <= 6'd0;
            p1_b     <= 1'b0;
            p1_val   <= 64'd0;
        end else begin
            // configuration
            if (w_lo) begin
                wlo   <= pwdata;
                wlo_a <= paddr[30:3];
            end
            // staged: from a low half to the high half that commits it
            if (w_lo)
                wlo_v <= 1'b1;
            else if (do_wr && hi && in_w)
                wlo_v <= 1'b0;
            if (w_ien)
                ien <= pwdata[1:0];
            rd_q <= rd_setup;
            ipend <= ipend_nx;
            irq_q <= |(ipend_nx & ien_nx);
            // abort: the rest of a half-sent packet, of a half-received one
            if (w_abort)
                drain <= fi_nx != FZERO;
            else if (do_send && is_tail_tx)
                drain <= 1'b0;
            if (w_abort)
                rx_skip <= ej_ready ? !rx_tail && (rx_head || rx_open || rx_skip) : (rx_open || rx_skip);
            else if (ej_ready && rx_tail)
                rx_skip <= 1'b0;
            // a held arrival
            if (!arr_q && arrive)
                opd_q <= operand;
            arr_q <= arr_in && arr_blk;
            if (w_ctrl) begin
                en    <= pwdata[0];
                op    <= pwdata[3:1];
                dmode <= pwdata[4];
                opx   <= pwdata[4] ? 3'd0 : pwdata[3:1];
                idb   <= !pwdata[4] && (pwdata[3:1] == 3'd3 || pwdata[3:1] == 3'd4);
                ng    <= pwdata[13:8];
            end
            if (do_wr && r_rank)
                myrank <= pwdata[RB-1:0];
            if (do_wr && r_itemf)
                itemf <= pwdata[12:0];
            if (do_wr && r_wdog)
                wdog <= pwdata;
            // watchdog: cycles in WAIT without progress
            if (progress || !waiting)
                idle <= 32'd0;
            else if (idle != 32'hffffffff)
                idle <= idle + 32'd1;
            // check codes
            if (do_send)
                s_crc <= s_crc_n;
            if (pop)
                r_crc <= r_crc_n;
            // errors: the first is kept until CTRL is written
            if (w_ctrl || w_abort) begin
                err_code <= 8'd0;
                err_gate <= 6'd0;
                err_src  <= {RB{1'b0}};
            end else if (err_now) begin
                err_code <= e_code;
                err_gate <= e_gate;
                err_src  <= e_src;
            end
            // gate; gnext is cur + 1 from its own flip-flops, so that the
            // gate's forward (fwd) and the head's gate take no adder
            cur   <= cur_nx;
            gnext <= cur_nx + 6'd1;
            if (do_arrive) begin
                acc      <= (opx == 3'd0) ? 64'd0 : opd_in;
                cw_start <= gw[15:0];
                cw_count <= gw[31:16];
            end else if (do_pass) begin
                acc      <= acc_n;
                cw_start <= gw[15:0];
                cw_count <= gw[31:16];
            end
            // send (never in a cycle with do_arrive or do_pass)
            ri <= ri_nx;
            fi <= fi_nx;
            // receive
            if (pop) begin
                if (rx_head) begin
                    rx_src  <= pkt_src;
                    rx_gate <= pkt_gate;
                    rx_bank <= pkt_bank;
                    rx_val  <= 64'd0;
                    rx_idx  <= FZERO;
                end else begin
                    rx_val  <= pkt_val;
                    rx_idx  <= rx_idx + FONE;
                end
                rx_open <= !rx_tail && !w_abort;   // an ABORT closes it (rx_skip takes over)
            end else if (w_abort) begin
                rx_open <= 1'b0;
            end
            // A count of the bank the release clears is not written; one of
            // the other bank (a loop's next iteration) is.
            p1_v   <= count_it && !(rel_now && pkt_bank == it);   // (count_it is 0 with w_abort)
            p1_g   <= pkt_gate;
            p1_b   <= pkt_bank;
            p1_val <= pkt_val;
            it     <= it_nx;
        end
    end

    // ------------------------------------------------------------------
    // Monitor (read hierarchically by the testbench; not ports)
    // ------------------------------------------------------------------
    // Event registers: set by the edge that ends the event's cycle. Only
    // the testbench reads them (lint: unused in the module itself).
    /* verilator lint_off UNUSED */
    reg           ev_arrive, ev_gate, ev_release, ev_send, ev_recv, ev_error;
    reg  [RB-1:0] ev_send_to, ev_recv_from, ev_err_src;
    reg  [5:0]    ev_send_gate, ev_recv_gate, ev_err_gate;
    reg  [63:0]   ev_recv_value;
    reg  [7:0]    ev_err_code;
    /* verilator lint_on UNUSED */
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
            ev_error      <= 1'b0;
            ev_err_code   <= 8'd0;
            ev_err_gate   <= 6'd0;
            ev_err_src    <= {RB{1'b0}};
        end else begin
            ev_arrive     <= do_arrive;
            ev_gate       <= do_pass && (gnext != gend);
            // With G = 0 gate 1 is the end gate: arrival releases at once.
            ev_release    <= rel_now;
            ev_send       <= do_send && is_head_tx;
            ev_send_to    <= rw[AB +: RB];
            ev_send_gate  <= gnext;
            ev_recv       <= count_it;
            ev_recv_from  <= pkt_src;
            ev_recv_gate  <= pkt_gate;
            ev_recv_value <= dmode ? d_sum_n : pkt_val;
            ev_error      <= err_now && !w_ctrl;   // (err_now is 0 with w_abort)
            ev_err_code   <= e_code;
            ev_err_gate   <= e_gate;
            ev_err_src    <= e_src;
        end
    end
    // cur and acc are written by the same edge as the gate events, so during
    // the cycle after the event they hold the event's gate and value.
    wire [5:0]    ev_gnum  = cur;
    wire [63:0]   ev_value = acc;
    wire          has_rank = en;
    wire [RB-1:0] rank     = myrank;

    assign released = en && !failed && (cur == gend);
    assign result   = acc;

    // Address bits the decode does not use.
    wire _unused_ok = &{1'b0, paddr[31], paddr[1:0], ev_gnum, ev_value, has_rank, rank,
                        1'b0};

`ifndef SYNTHESIS
    initial begin
        if (FW < AB + RB + 6)
            $fatal(1, "%m: FW = %0d cannot hold the %0d-bit head (AB %0d + RB %0d + 6)",
                   FW, AB + RB + 6, AB, RB);
        if (CB != 0 && CB != 32)
            $fatal(1, "%m: CB = %0d (allowed 0 or 32 check-code bits)", CB);
        if (MAXG < 1 || MAXG > 62)
            $fatal(1, "%m: MAXG = %0d (allowed 1..62)", MAXG);
        if (NRT < 1 || NIL < 1)
            $fatal(1, "%m: NRT = %0d, NIL = %0d (each at least 1)", NRT, NIL);
        if (DATA != 0 && RB > 16)
            $fatal(1, "%m: RB = %0d, a data unit has 16-bit rank fields", RB);
        if (NBANK != 1 && NBANK != 2)
            $fatal(1, "%m: NBANK = %0d (allowed 1, or 2 for a loop)", NBANK);
        if (EXT != 0 && (DATA != 0 || CHB > 3 || (CHB != 0 && (RB > 24 || FW < AB + RB + 7 + CHB))))
            $fatal(1, "%m: EXT = 1 needs DATA = 0, CHB <= 3, RB <= 24 and FW >= %0d (the head's channel), FW = %0d", AB + RB + 7 + CHB, FW);
        if (UP != 0 && UP != 1)
            $fatal(1, "%m: UP = %0d (allowed 0 or 1)", UP);
        if (NBANK == 2 && (DATA != 0 || FW < AB + RB + 7))
            $fatal(1, "%m: NBANK = 2 needs DATA = 0 and FW >= %0d (the head's iteration bit), FW = %0d", AB + RB + 7, FW);
    end
`endif
endmodule
