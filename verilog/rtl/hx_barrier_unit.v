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
// With DATA = 1 the unit moves data instead of a value (docs/transfers.md):
// a route's packet is its head and IF flits per item of the route's item
// list, each flit ItemWord(origin, item, j); the receiver checks every
// payload flit against the message its data table says the gate expects and
// stops the simulation on any difference; the recv event's value is the
// rotate-xor checksum of the message's payload. The data table DTABLE is a
// second $readmemh file (magic "HXDT", NDW body words): body[0] = {IF, L},
// body[1+j] = route j = {dst rank, item count, first item},
// body[1+NR+g-2] = gate g's expected message = {src rank, item count, first
// item}, body[1+NR+G+n] = item-list word n = {origin, item, 32'b0}.
// With DATA = 0 (the default) none of this exists and the unit is the
// barrier unit above.
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
    parameter         TABLE  = "gt.hex", // gate table file
    parameter integer DATA   = 0,        // 1: data mode (docs/transfers.md; OP must be 0)
    parameter integer IF     = 1,        // data mode: flits per item, 1..4096
    parameter integer NDW    = 1,        // data mode: body words of the data table
    parameter         DTABLE = "dt.hex"  // data mode: data table file
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

`ifndef SYNTHESIS
    // Words in the $readmemh file open as fd, read to its end: the tokens
    // separated by white space outside // and /* */ comments (IEEE 1364-2005
    // 17.2.9). $readmemh itself only warns (Icarus) or aborts (Verilator) on
    // a file longer than the memory and leaves missing words alone, so the
    // table check counts them (docs/tables.md: exactly count + 2 words). A
    // word that is not exactly 16 hex digits (which Icarus reads in part,
    // with an error message, or as X) gives -1 - its index (0: the header).
    function integer file_words;
        input integer fd;
        integer ch, nx, n, len, bad;
        reg [1:0] st;   // 0 words and white space, 1 in a // comment, 2 in a /* */ comment
        reg hex;        // every character of the current word is a hex digit
        reg wc;         // ch is a character of a word
        begin
            n = 0; len = 0; bad = -1; st = 2'd0; hex = 1'b1;
            ch = (fd == 0) ? -1 : $fgetc(fd);   // no file: no words
            nx = (fd == 0) ? -1 : $fgetc(fd);
            while (ch != -1) begin
                wc = st == 2'd0 && !(ch == 47 && (nx == 47 || nx == 42)) &&  // not "//", "/*"
                     !(ch == 32 || (ch >= 9 && ch <= 13));                   // not white space
                if (wc) begin
                    if (len == 0)
                        n = n + 1;
                    len = len + 1;
                    if (!((ch >= 48 && ch <= 57) || (ch >= 65 && ch <= 70) || (ch >= 97 && ch <= 102)))
                        hex = 1'b0;
                end else begin
                    if (len != 0 && (len != 16 || !hex) && bad < 0)
                        bad = n - 1;
                    len = 0; hex = 1'b1;
                    if (st == 2'd1) begin
                        if (ch == 10) st = 2'd0;                     // '\n'
                    end else if (st == 2'd2) begin
                        if (ch == 42 && nx == 47) begin              // "*/"
                            st = 2'd0; ch = nx; nx = $fgetc(fd);
                        end
                    end else if (ch == 47) begin                     // "//", "/*"
                        st = (nx == 47) ? 2'd1 : 2'd2; ch = nx; nx = $fgetc(fd);
                    end
                end
                ch = nx;
                nx = $fgetc(fd);
            end
            if (len != 0 && (len != 16 || !hex) && bad < 0)
                bad = n - 1;
            file_words = (bad >= 0) ? -1 - bad : n;
        end
    endfunction
`endif

    initial begin : load
`ifndef SYNTHESIS
        reg [63:0] c, w;
        integer n, g, nrt, fd, nf;
        // Word count first: a longer file must not reach $readmemh.
        fd = $fopen(TABLE, "r");
        if (fd == 0)
            $fatal(1, "%0s: gate table missing or unreadable (cannot open it)", TABLE);
        nf = file_words(fd);
        $fclose(fd);
        if (nf < 0)
            $fatal(1, "%0s: word %0d (the header is word 0) is not 16 hex digits", TABLE, -1 - nf);
        if (nf > NWORDS + 2)
            $fatal(1, "%0s: %0d words, more words than count + 2 = %0d (count %0d)",
                   TABLE, nf, NWORDS + 2, NWORDS);
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
        if (nf < NWORDS + 2)
            $fatal(1, "%0s: %0d words, fewer words than count + 2 = %0d (count %0d, file too short)",
                   TABLE, nf, NWORDS + 2, NWORDS);
        c = 64'd0;
        for (n = 0; n < NWORDS; n = n + 1) begin
            if (^rom[n+2] === 1'bx)
                $fatal(1, "%0s: body word %0d is X (not a hex word)", TABLE, n);
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
    // Data mode: the tail is the last flit of the route's last item.
    wire          d_tail;
    wire [FW-1:0] d_tx;            // data mode: payload flit (ItemWord)
    wire is_tail_tx = (DATA != 0) ? d_tail : (fi == FLAST);

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
    wire [FW-1:0]  tx_data = is_head_tx ? hdr_x[FW-1:0] :
                             (DATA != 0) ? d_tx : acc_x[FW-1:0];

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
    // Transfer engine (DATA = 1, docs/transfers.md)
    // ------------------------------------------------------------------
    wire [63:0] d_sum_n;   // checksum of the message including the popped flit

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
            localparam integer NR   = NWORDS - NG - 2;   // route words of the gate table
            localparam integer DRAW = $clog2(NDW + 2);   // data ROM index width
            localparam integer JW   = (IF < 2) ? 1 : $clog2(IF);
            localparam integer IFM1 = IF - 1;
            localparam [JW-1:0] JLAST = IFM1[JW-1:0];   // flit index of an item's last flit
            localparam integer GX0  = NR + 1;            // ROM index of gate g's word is GX0 + g
            localparam integer IL0  = NR + NG + 3;       // ROM index of item-list word 0

            // Data table ROM: word 0 header, 1 checksum, body from 2.
            reg [63:0] drom [0:NDW+1];
`ifndef SYNTHESIS
            // The load checks compare with the gate table: read it again
            // here, since the order of the two initial blocks is undefined.
            reg [63:0] grom [0:NWORDS+1];
`endif

            initial begin : dload
`ifndef SYNTHESIS
                reg [63:0] c, w;
                reg        gok;
                integer n, g, nl, fd, nf, ngf;
                // Word count first: a longer file must not reach $readmemh.
                fd = $fopen(DTABLE, "r");
                if (fd == 0)
                    $fatal(1, "%0s: data table missing or unreadable (cannot open it)", DTABLE);
                nf = file_words(fd);
                $fclose(fd);
                if (nf < 0)
                    $fatal(1, "%0s: word %0d (the header is word 0) is not 16 hex digits", DTABLE, -1 - nf);
                if (nf > NDW + 2)
                    $fatal(1, "%0s: %0d words, more words than count + 2 = %0d (count %0d)",
                           DTABLE, nf, NDW + 2, NDW);
                // The gate table's own block reports a gate table of the
                // wrong length; here it is only not read (nor compared).
                fd = $fopen(TABLE, "r");
                ngf = file_words(fd);
                if (fd != 0)
                    $fclose(fd);
`endif
                $readmemh(DTABLE, drom);
`ifndef SYNTHESIS
                if (ngf == NWORDS + 2)
                    $readmemh(TABLE, grom);
                if (^drom[0] === 1'bx)
                    $fatal(1, "%0s: data table missing or unreadable (header word is X)", DTABLE);
                if (drom[0][63:32] !== 32'h48584454)
                    $fatal(1, "%0s: bad magic %h, expected 48584454 (\"HXDT\")", DTABLE, drom[0][63:32]);
                if (drom[0][31:0] !== NDW)
                    $fatal(1, "%0s: %0d body words, this unit was built for NDW = %0d",
                           DTABLE, drom[0][31:0], NDW);
                if (nf < NDW + 2)
                    $fatal(1, "%0s: %0d words, fewer words than count + 2 = %0d (count %0d, file too short)",
                           DTABLE, nf, NDW + 2, NDW);
                c = 64'd0;
                for (n = 0; n < NDW; n = n + 1) begin
                    if (^drom[n+2] === 1'bx)
                        $fatal(1, "%0s: body word %0d is X (not a hex word)", DTABLE, n);
                    c = {c[62:0], c[63]} ^ drom[n+2];
                end
                if (^drom[1] === 1'bx || drom[1] !== c)
                    $fatal(1, "%0s: checksum %h does not match the body (computed %h)", DTABLE, drom[1], c);
                if (OP != 0)
                    $fatal(1, "%m: DATA = 1 needs OP = 0 (barrier), not %0d", OP);
                if (IF < 1 || IF > 4096)
                    $fatal(1, "%m: IF = %0d flits per item (allowed 1..4096)", IF);
                if (RB > 16)
                    $fatal(1, "%m: RB = %0d, a data unit has 16-bit rank fields", RB);
                // A gate table that fails its own checks is reported by the
                // gate table's load block: no cross-checks against it here.
                c = 64'd0;
                for (n = 0; n < NWORDS; n = n + 1)
                    c = {c[62:0], c[63]} ^ grom[n+2];
                gok = ngf == NWORDS + 2 && grom[0] === {32'h48584754, NWORDS[31:0]} && grom[1] === c;
                w = drom[2];
                if (!gok) begin
                    // nothing to compare with
                end else if (grom[2][63] !== 1'b1) begin
                    if (w !== 64'd0 || NDW != 1)
                        $fatal(1, "%0s: a node without a rank must have the single data body word 0 (NDW = 1)", DTABLE);
                end else begin
                    nl = NDW - 1 - NR - NG;
                    if (w[63:32] != IF)
                        $fatal(1, "%0s: F = %0d flits per item, this unit was built for IF = %0d", DTABLE, w[63:32], IF);
                    if (nl < 0 || w[31:0] != nl || nl > 24'hffffff)
                        $fatal(1, "%0s: L = %0d item-list words, NDW = %0d holds 1 + %0d routes + %0d gates + %0d",
                               DTABLE, w[31:0], NDW, NR, NG, nl);
                    for (n = 0; n < NR; n = n + 1) begin
                        w = drom[3+n];
                        if ({16'd0, w[63:48]} != grom[RT0+n][63:32])
                            $fatal(1, "%0s: route %0d: destination rank %0d, the gate table's route goes to rank %0d",
                                   DTABLE, n, w[63:48], grom[RT0+n][63:32]);
                        if (w[47:24] == 0 || {8'd0, w[23:0]} + {8'd0, w[47:24]} > nl)
                            $fatal(1, "%0s: route %0d: %0d items from item-list word %0d (allowed: 1 or more, inside the %0d words)",
                                   DTABLE, n, w[47:24], w[23:0], nl);
                    end
                    for (g = 2; g <= NG + 1; g = g + 1) begin
                        w = drom[GX0+g];
                        if (w[47:24] == 0) begin
                            if (w != 0 || grom[g+2][39:32] != 0)
                                $fatal(1, "%0s: gate %0d expects no message: its word must be 0 and the gate table's need 0 (need %0d)",
                                       DTABLE, g, grom[g+2][39:32]);
                        end else begin
                            if (grom[g+2][39:32] != 1)
                                $fatal(1, "%0s: gate %0d expects a message, the gate table's need is %0d (must be 1)",
                                       DTABLE, g, grom[g+2][39:32]);
                            if ({8'd0, w[23:0]} + {8'd0, w[47:24]} > nl)
                                $fatal(1, "%0s: gate %0d: %0d items from item-list word %0d, past the %0d words",
                                       DTABLE, g, w[47:24], w[23:0], nl);
                            if ((w[63:48] >> RB) != 0)
                                $fatal(1, "%0s: gate %0d: source rank %0d does not fit in RB = %0d bits", DTABLE, g, w[63:48], RB);
                        end
                    end
                    for (n = 0; n < nl; n = n + 1)
                        if (drom[IL0+n][31:0] != 32'd0)
                            $fatal(1, "%0s: item-list word %0d: bits 31..0 not zero", DTABLE, n);
                end
`endif
            end

            // Send: item sk of the route, flit sj of the item (reset at the head).
            reg [23:0]   sk;
            reg [JW-1:0] sj;
            /* verilator lint_off UNUSED */
            wire [31:0]    ix_dr  = 32'd3 + {16'd0, rstart} + {16'd0, ri};
            wire [63:0]    drw    = drom[ix_dr[DRAW-1:0]];       // route {dst, count, first}
            wire [31:0]    ix_si  = IL0 + {8'd0, drw[23:0]} + {8'd0, sk};
            wire [63:0]    s_word = item_word(drom[ix_si[DRAW-1:0]] | {{(64-JW){1'b0}}, sj});
            wire [FW+63:0] s_x    = {{FW{1'b0}}, s_word};
            /* verilator lint_on UNUSED */
            assign d_tx   = s_x[FW-1:0];
            assign d_tail = !is_head_tx && (sj == JLAST) && (sk + 24'd1 == drw[47:24]);

            always @(posedge clk) begin
                if (rst) begin
                    sk <= 24'd0;
                    sj <= {JW{1'b0}};
                end else if (do_send) begin
                    if (is_head_tx) begin
                        sk <= 24'd0;
                        sj <= {JW{1'b0}};
                    end else if (sj == JLAST) begin
                        sk <= sk + 24'd1;
                        sj <= {JW{1'b0}};
                    end else begin
                        sj <= sj + {{(JW-1){1'b0}}, 1'b1};
                    end
                end
            end

            // Receive: item-list index rp of the item being received, one
            // past the message's last rend, flit rj, checksum rsum.
            reg [23:0]   rp;
            reg [24:0]   rend;
            reg [JW-1:0] rj;
            reg [63:0]   rsum;
            reg          rbusy;   // between a head and its tail
            /* verilator lint_off UNUSED */
            wire [31:0]    ix_rg  = GX0 + {26'd0, pkt_gate};
            wire [63:0]    grx    = drom[ix_rg[DRAW-1:0]];      // gate {src, count, first}
            wire [31:0]    ix_ri  = IL0 + {8'd0, rp};
            wire [63:0]    r_ilw  = drom[ix_ri[DRAW-1:0]];
            wire [63:0]    r_word = item_word(r_ilw | {{(64-JW){1'b0}}, rj});
            wire [FW+63:0] r_x    = {{FW{1'b0}}, r_word};
            wire [FW+63:0] rd_x   = {64'd0, rx_d};
            wire [RB+15:0] src_x  = {16'd0, pkt_src};
            /* verilator lint_on UNUSED */
            wire [FW-1:0]  r_exp  = r_x[FW-1:0];
            wire [15:0]    src16  = src_x[15:0];
            wire           r_last = (rj == JLAST) && ({1'b0, rp} + 25'd1 == rend);
            assign d_sum_n = {rsum[62:0], rsum[63]} ^ rd_x[63:0];

            always @(posedge clk) begin
                if (rst) begin
                    rp    <= 24'd0;
                    rend  <= 25'd0;
                    rj    <= {JW{1'b0}};
                    rsum  <= 64'd0;
                    rbusy <= 1'b0;
                end else if (ej_ready) begin
                    if (rx_head) begin
                        rp    <= grx[23:0];
                        rend  <= {1'b0, grx[23:0]} + {1'b0, grx[47:24]};
                        rj    <= {JW{1'b0}};
                        rsum  <= 64'd0;
                        rbusy <= 1'b1;
                    end else begin
                        rsum <= d_sum_n;
                        if (rj == JLAST) begin
                            rp <= rp + 24'd1;
                            rj <= {JW{1'b0}};
                        end else begin
                            rj <= rj + {{(JW-1){1'b0}}, 1'b1};
                        end
                        if (rx_tail)
                            rbusy <= 1'b0;
                    end
                end
            end

`ifndef SYNTHESIS
            // Every received flit is checked against the data table.
            /* verilator lint_off CMPCONST */
            always @(posedge clk) begin
                if (!rst && ej_ready && rx_head) begin
                    if (rbusy)
                        $fatal(1, "%m: rank %0d: head from rank %0d for gate %0d while the message from rank %0d for gate %0d lacks its tail",
                               myrank, pkt_src, pkt_gate, rx_src, rx_gate);
                    if (pkt_gate < 6'd2 || {26'd0, pkt_gate} > NG + 1)
                        $fatal(1, "%m: rank %0d: message from rank %0d for gate %0d, outside 2..%0d",
                               myrank, pkt_src, pkt_gate, NG + 1);
                    if (grx[47:24] == 24'd0)
                        $fatal(1, "%m: rank %0d gate %0d: message from rank %0d, the gate expects none",
                               myrank, pkt_gate, pkt_src);
                    if (grx[63:48] != src16)
                        $fatal(1, "%m: rank %0d gate %0d: message from rank %0d, expected rank %0d",
                               myrank, pkt_gate, pkt_src, grx[63:48]);
                    if (rx_tail)
                        $fatal(1, "%m: rank %0d gate %0d from rank %0d: message ended early (a head-only packet, items missing)",
                               myrank, pkt_gate, pkt_src);
                end
                if (!rst && ej_ready && !rx_head) begin
                    if ({1'b0, rp} >= rend)
                        $fatal(1, "%m: rank %0d gate %0d from rank %0d: payload flit past the expected items (tail late or missing)",
                               myrank, rx_gate, rx_src);
                    if (rx_d !== r_exp)
                        $fatal(1, "%m: rank %0d gate %0d from rank %0d: item %0d (origin rank %0d) flit %0d is %h, expected %h",
                               myrank, rx_gate, rx_src, r_ilw[47:32], r_ilw[63:48], rj, rx_d, r_exp);
                    if (rx_tail && !r_last)
                        $fatal(1, "%m: rank %0d gate %0d from rank %0d: message ended early at item %0d flit %0d (items or flits missing)",
                               myrank, rx_gate, rx_src, r_ilw[47:32], rj);
                end
            end
            /* verilator lint_on CMPCONST */
`endif
        end else begin : g_barrier
            assign d_tx    = {FW{1'b0}};
            assign d_tail  = 1'b0;
            assign d_sum_n = 64'd0;
        end
    endgenerate

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
                end else if (DATA == 0 || is_head_tx) begin
                    fi <= fi + FONE;    // data mode: fi = 1 from the head to the tail
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
            ev_recv_value <= (DATA != 0) ? d_sum_n : pkt_val;
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
        if (DATA == 0 && !rst && rx_done && !rx_head && rx_idx != FLAST - FONE)
            $fatal(1, "%m: packet tail after %0d payload flits, expected %0d", rx_idx + 1, NPAY);
    end
    /* verilator lint_on CMPCONST */
`endif
endmodule
