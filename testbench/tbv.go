package testbench

import (
	"fmt"
	"strings"

	"github.com/hxbar/hxbar/barrierunit"
	"github.com/hxbar/hxbar/hw"
	"github.com/hxbar/hxbar/verilog"
)

// The gate of an event is a byte of an expected.hex word; the monitor pads
// the units' GateBits-wide gate registers to it.
const _ = uint(8 - hw.GateBits)

// tbSource is tb.v. %[1]s is the header comment, %[2]d the number of
// expected events the testbench is built for, %[3]d drainCycles.
//
// The monitor follows docs/rtl.md, "Monitor protocol": the event registers
// written by the edge that ends cycle t hold during cycle t+1 and are sampled
// at the edge that ends cycle t+1, where cyc still reads t+1.
const tbSource = `%[1]s` + "`" + `timescale 1ns / 1ps
` + "`" + `include "hx_params.vh"

/* verilator lint_off DECLFILENAME */
module hx_tb;
/* verilator lint_on DECLFILENAME */
    localparam integer N     = ` + "`" + `HX_NODES;  // nodes (hx_params.vh)
    localparam integer NCH   = %[13]d;  // barrier channels per node (1: a unit per node)
    localparam integer NS    = N * NCH;  // CPU slots: node n channel c at n*NCH + c
    localparam integer RB    = ` + "`" + `HX_RB;     // rank bits (hx_params.vh)
    localparam integer NEV   = %[2]d;  // events in expected.hex (its header must agree)
    localparam integer NE    = %[4]d;  // episodes (scenario.hex and config.hex must agree)
    localparam integer NI    = %[12]d;  // loop iterations (1: no loop; a loop has one episode)
    localparam integer NG    = NE + NI - 1;  // node word groups of scenario.hex: episodes, then iterations 2..NI
    localparam integer NW    = %[5]d;  // configuration writes in config.hex
    localparam integer GB    = %[7]d;  // gate number bits (hw.GateBits; a byte in expected.hex)
    localparam integer DRAIN = %[3]d;  // cycles watched after the last event and release

    // ------------------------------------------------------------------
    // Design under test
    // ------------------------------------------------------------------
    reg             clk = 1'b0;
    reg             rst = 1'b1;
    reg  [NS-1:0]    arrive = {NS{1'b0}};
    reg  [NS*64-1:0] operand = {NS*64{1'b0}};
    reg  [63:0]     cyc = 64'd0;   // reads t during cycle t (0: first cycle after reset)

    wire [NS-1:0]    released;
    /* verilator lint_off UNUSED */
    wire [NS*64-1:0] result;       // = acc: checked as the release event's value
    wire [N*32-1:0] cfg_prdata;    // the testbench only writes
    wire [N-1:0]    cfg_pready;
    wire [31:0]     fab_prdata;
    wire            fab_pready;
    /* verilator lint_on UNUSED */
    wire [N-1:0]    cfg_pslverr;
    wire            fab_pslverr;
    wire [N-1:0]    irq;           // no IRQ_ENABLE is written: stays 0
    reg  [N-1:0]    cfg_psel = {N{1'b0}}, cfg_penable = {N{1'b0}};
    reg  [N*32-1:0] cfg_paddr = {N*32{1'b0}}, cfg_pwdata = {N*32{1'b0}};
    reg             fab_psel = 1'b0, fab_penable = 1'b0;
    reg  [31:0]     fab_paddr = 32'd0, fab_pwdata = 32'd0;

    hx_top dut (
        .clk(clk), .rst(rst), .arrive(arrive), .operand(operand),
        .released(released), .result(result),
        .cfg_psel(cfg_psel), .cfg_penable(cfg_penable), .cfg_pwrite(cfg_psel),
        .cfg_paddr(cfg_paddr), .cfg_pwdata(cfg_pwdata), .cfg_prdata(cfg_prdata),
        .cfg_pready(cfg_pready), .cfg_pslverr(cfg_pslverr),
        .fab_psel(fab_psel), .fab_penable(fab_penable), .fab_pwrite(fab_psel),
        .fab_paddr(fab_paddr), .fab_pwdata(fab_pwdata), .fab_prdata(fab_prdata),
        .fab_pready(fab_pready), .fab_pslverr(fab_pslverr), .irq(irq)
    );

    // The monitor's view of the units: their event registers, read
    // hierarchically (hx_top has no debug pins).
    wire [NS-1:0]    has_rank;
    wire [NS*RB-1:0] rank;
    wire [NS-1:0]    ev_arrive, ev_gate, ev_release, ev_send, ev_recv, ev_error;
    wire [NS*GB-1:0] ev_gnum, ev_send_gate, ev_recv_gate, ev_err_gate;
    wire [NS*64-1:0] ev_value, ev_recv_value;
    wire [NS*RB-1:0] ev_send_to, ev_recv_from, ev_err_src;
    wire [NS*8-1:0]  ev_err_code;
    // A node's own error register (hx_barrier_node: NORANK of a flit for a
    // channel without a rank); 0 with a unit per node.
    wire [N-1:0]    nev_error;
    wire [N*GB-1:0] nev_err_gate;
    wire [N*RB-1:0] nev_err_src;
%[6]s
    // The testbench uses blocking assignments for its own bookkeeping inside
    // clocked blocks (nothing in the design reads those variables).
    /* verilator lint_off BLKSEQ */
    always #5 clk = ~clk;

    // ------------------------------------------------------------------
    // Data files, checked at time 0 (docs/cosim.md)
    // ------------------------------------------------------------------
    reg [8*256-1:0] scen_file, exp_file, cfg_file;
    reg [127:0]     scen [0:NG*NS+2]; // header, checksum, group e slot a at 2+(e-1)*NS+a, end
    reg [191:0]     expm [0:NEV+3];   // header, checksum, limits, event 0..NEV-1, end
    reg [127:0]     cfgw [0:NW+2];    // header, checksum, write 0..NW-1, end
    reg [63:0]      limit;            // watchdog: last cycle that may be reported
    reg [8*160-1:0] msg;

    // die: the one FAIL line, then stop with exit status 1.
    task die;
        input [8*256-1:0] file;
        input [8*160-1:0] what;
        begin
            $display("FAIL %%0s: %%0s", file, what);
            $fatal(1, "%%0s: %%0s", file, what);
        end
    endtask

    // file_words counts the words of the $readmemh file open as fd, read to
    // its end: the tokens separated by white space outside // and /* */
    // comments (IEEE 1364-2005 17.2.9). $readmemh only warns (Icarus) or
    // aborts (Verilator) on a file longer than the memory and reads a word
    // with a digit that is not hex in part, so config.hex is counted first.
    // A word that is not exactly dg hex digits gives -1 - its index (0: the
    // header).
    function integer file_words;
        input integer fd, dg;
        integer ch, nx, n, len, bad;
        reg [1:0] st;   // 0 words and white space, 1 in a // comment, 2 in a /* */ comment
        reg hex;        // every character of the current word is a hex digit
        reg wc;         // ch is a character of a word
        begin
            n = 0; len = 0; bad = -1; st = 2'd0; hex = 1'b1;
            ch = $fgetc(fd);
            nx = $fgetc(fd);
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
                    if (len != 0 && (len != dg || !hex) && bad < 0)
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
            if (len != 0 && (len != dg || !hex) && bad < 0)
                bad = n - 1;
            file_words = (bad >= 0) ? -1 - bad : n;
        end
    endfunction

    integer i, fd, nf;
    reg [127:0] c128;
    reg [191:0] c192;
    initial begin : load
        scen_file = "scenario.hex";
        exp_file  = "expected.hex";
        cfg_file  = "config.hex";
        if ($value$plusargs("scenario=%%s", scen_file)) begin end
        if ($value$plusargs("expected=%%s", exp_file)) begin end
        if ($value$plusargs("config=%%s", cfg_file)) begin end
        if ($test$plusargs("vcd")) begin
            $dumpfile("hx.vcd");
            $dumpvars(0, hx_tb);
        end

        $readmemh(scen_file, scen);
        if (^scen[0] === 1'bx || scen[0] == 128'd0)
            die(scen_file, "missing, empty or unreadable (header word is X or 0)");
        if (scen[0][127:96] !== 32'h48585343)
            begin $sformat(msg, "bad magic %%h, expected 48585343 (HXSC)", scen[0][127:96]); die(scen_file, msg); end
        if (scen[0][95:64] !== 32'd2)
            begin $sformat(msg, "format version %%0d, this testbench reads version 2", scen[0][95:64]); die(scen_file, msg); end
        if (scen[0][63:32] !== NG || scen[0][31:0] !== NS)
            begin $sformat(msg, "%%0d episodes and iterations of %%0d nodes, tb.v was generated for %%0d of %%0d (regenerate)", scen[0][63:32], scen[0][31:0], NG, NS); die(scen_file, msg); end
        c128 = 128'd0;
        for (i = 2; i <= NG * NS + 2; i = i + 1) begin
            if (^scen[i] === 1'bx)
                begin $sformat(msg, "word %%0d missing or not hex (file truncated?)", i); die(scen_file, msg); end
            c128 = {c128[126:0], c128[127]} ^ scen[i];
        end
        if (scen[NG*NS+2][127:96] !== 32'h454e4421 || scen[NG*NS+2][63:32] !== NG || scen[NG*NS+2][31:0] !== NS)
            begin $sformat(msg, "no end marker after group %%0d node %%0d (file truncated, too long or for another design?)", NG, NS - 1); die(scen_file, msg); end
        if (scen[1] !== c128)
            begin $sformat(msg, "checksum %%h does not match the words (computed %%h)", scen[1], c128); die(scen_file, msg); end

        // config.hex: words counted before $readmemh reads them
        fd = $fopen(cfg_file, "r");
        if (fd == 0)
            die(cfg_file, "missing or unreadable (cannot open it)");
        nf = file_words(fd, 32);
        $fclose(fd);
        if (nf < 0)
            begin $sformat(msg, "word %%0d (the header is word 0) is not 32 hex digits", -1 - nf); die(cfg_file, msg); end
        if (nf > NW + 3)
            begin $sformat(msg, "%%0d words, more than the %%0d of %%0d writes (header, checksum, writes, end: a word after the end marker, or tb.v is stale)", nf, NW + 3, NW); die(cfg_file, msg); end
        if (nf < NW + 3)
            begin $sformat(msg, "%%0d words, fewer than the %%0d of %%0d writes (file truncated, or tb.v is stale)", nf, NW + 3, NW); die(cfg_file, msg); end
        $readmemh(cfg_file, cfgw);
        if (^cfgw[0] === 1'bx || cfgw[0] == 128'd0)
            die(cfg_file, "missing, empty or unreadable (header word is X or 0)");
        if (cfgw[0][127:96] !== 32'h48584346)
            begin $sformat(msg, "bad magic %%h, expected 48584346 (HXCF)", cfgw[0][127:96]); die(cfg_file, msg); end
        if (cfgw[0][95:64] !== 32'd1)
            begin $sformat(msg, "format version %%0d, this testbench reads version 1", cfgw[0][95:64]); die(cfg_file, msg); end
        if (cfgw[0][63:32] !== NE || cfgw[0][31:0] !== NW)
            begin $sformat(msg, "%%0d episodes and %%0d writes, tb.v was generated for %%0d and %%0d (regenerate)", cfgw[0][63:32], cfgw[0][31:0], NE, NW); die(cfg_file, msg); end
        c128 = 128'd0;
        for (i = 2; i <= NW + 2; i = i + 1) begin
            if (^cfgw[i] === 1'bx)
                begin $sformat(msg, "word %%0d missing or not hex (file truncated?)", i); die(cfg_file, msg); end
            c128 = {c128[126:0], c128[127]} ^ cfgw[i];
            if (i < NW + 2 && (cfgw[i][127:112] < 16'd1 || {16'd0, cfgw[i][127:112]} > NE || ({16'd0, cfgw[i][111:96]} >= N && cfgw[i][111:96] != 16'hffff) ||
                               (i > 2 && cfgw[i][127:96] < cfgw[i-1][127:96])))
                begin $sformat(msg, "word %%0d: episode %%0d port %%0d out of range or out of order", i, cfgw[i][127:112], cfgw[i][111:96]); die(cfg_file, msg); end
        end
        if (cfgw[NW+2][127:96] !== 32'h454e4421 || cfgw[NW+2][63:32] !== NE || cfgw[NW+2][31:0] !== NW)
            begin $sformat(msg, "no end marker after write %%0d (file truncated, too long or for another design?)", NW - 1); die(cfg_file, msg); end
        if (cfgw[1] !== c128)
            begin $sformat(msg, "checksum %%h does not match the words (computed %%h)", cfgw[1], c128); die(cfg_file, msg); end

        $readmemh(exp_file, expm);
        if (^expm[0] === 1'bx || expm[0] == 192'd0)
            die(exp_file, "missing, empty or unreadable (header word is X or 0)");
        if (expm[0][191:160] !== 32'h48584556)
            begin $sformat(msg, "bad magic %%h, expected 48584556 (HXEV)", expm[0][191:160]); die(exp_file, msg); end
        if (expm[0][159:128] !== 32'd1)
            begin $sformat(msg, "format version %%0d, this testbench reads version 1", expm[0][159:128]); die(exp_file, msg); end
        if (expm[0][127:96] !== N)
            begin $sformat(msg, "%%0d nodes, the design (hx_params.vh) has %%0d", expm[0][127:96], N); die(exp_file, msg); end
        if (expm[0][63:32] !== 32'd0 || expm[0][31:0] !== NEV)
            begin $sformat(msg, "%%0d events, tb.v was generated for %%0d (regenerate tb.v with the data files)", expm[0][63:0], NEV); die(exp_file, msg); end
        c192 = 192'd0;
        for (i = 2; i <= NEV + 3; i = i + 1) begin
            if (^expm[i] === 1'bx)
                begin $sformat(msg, "word %%0d missing or not hex (file truncated?)", i); die(exp_file, msg); end
            c192 = {c192[190:0], c192[191]} ^ expm[i];
        end
        if (expm[NEV+3][191:160] !== 32'h454e4421 || expm[NEV+3][63:32] !== 32'd0 || expm[NEV+3][31:0] !== NEV)
            begin $sformat(msg, "no end marker after event %%0d (file truncated or too long?)", NEV - 1); die(exp_file, msg); end
        if (expm[1] !== c192)
            begin $sformat(msg, "checksum %%h does not match the words (computed %%h)", expm[1], c192); die(exp_file, msg); end
        limit = {16'd0, expm[2][191:144]};
    end

    // ------------------------------------------------------------------
    // Clock, reset, configuration, cycle counter, CPU inputs
    // ------------------------------------------------------------------
    // Reset is sampled high by three edges. Then the configuration of
    // episode 1 is written through the ports; the cycle after its last
    // access cycle is cycle 0 (run goes to 1 at that cycle's falling edge).
    // rst changes by a non-blocking assignment at a rising edge (in an
    // always block, so that no simulator runs it as a blocking one).
    reg [1:0] rcnt = 2'd0;
    always @(posedge clk) begin
        rst  <= (rcnt < 2'd2);
        rcnt <= (rcnt == 2'd3) ? rcnt : rcnt + 2'd1;
    end

    reg run = 1'b0;    // cycle 0 has begun
    always @(posedge clk)
        cyc <= run ? cyc + 64'd1 : 64'd0;

    // Everything the testbench drives changes on the falling edge, from one
    // block in a fixed order: first the configuration ports (every port
    // replays its writes of the episode, 2 cycles a write, all ports in
    // parallel: docs/registers.md), then the CPU inputs (arrive[n] and the
    // operand during node n's arrival cycle only).
    localparam integer NP = N + 1;         // ports: node 0..N-1, the fabric N
    integer    p, a, wi;
    integer    ep;                         // current episode, 1..NE (0: before episode 1)
    reg        cfg_on = 1'b0;              // writing the configuration of episode ep
    reg        running = 1'b0;             // episode ep's CPUs may arrive
    reg [63:0] base;                       // episode ep's arrival offsets count from here
    reg [63:0] last_arr;                   // last arrival cycle of the episode
    reg [63:0] next_arr;                   // next arrival cycle (all ones: none)
    integer    wp [0:NP-1];                // next write of port p (index into cfgw)
    reg        ph [0:NP-1];                // 1: port p's setup cycle was driven
    reg        busy, all_rel;
    reg [NS-1:0]    arr_v;
    reg [NS*64-1:0] op_v;
    reg            driving = 1'b0;
    reg [15:0]     pnum;
    reg [31:0]     idx;
    // A loop (NI > 1): rank a's arrival at its next iteration comes the
    // delay of its group word (compute + jitter) after the first cycle its
    // released output reads 1 (docs/microarchitecture.md, "Iterations").
    integer        lp_k [0:NS-1];              // iteration slot a's rank runs (or ran last)
    reg [63:0]     lp_due [0:NS-1];            // its next arrival cycle, while lp_pend
    reg [NS-1:0]   lp_pend = {NS{1'b0}};
    reg [NS-1:0]   lp_prev = {NS{1'b0}};       // released at the last falling edge
    reg            arr_any;

    // next_write is port p's write after write w (index into cfgw - 2), or
    // NW: config.hex holds the writes sorted by episode, then port (checked
    // at time 0), so a port's writes of an episode are contiguous and this
    // costs one look, not a scan of the file.
    function integer next_write;
        input integer w, pp;
        begin
            pnum = (pp == N) ? 16'hffff : pp[15:0];
            if (w + 1 < NW && cfgw[w+3][127:112] == cfgw[w+2][127:112] && cfgw[w+3][111:96] == pnum)
                next_write = w + 1;
            else
                next_write = NW;
        end
    endfunction

    // arrivals sets next_arr: the first arrival of episode ep at or after cycle t.
    task arrivals;
        input [63:0] t;
        begin
            next_arr = ~64'd0;
            for (a = 0; a < NS; a = a + 1) begin
                idx = (ep - 1) * NS + a + 2;
                if (scen[idx][127] && base + {1'b0, scen[idx][126:64]} >= t && base + {1'b0, scen[idx][126:64]} < next_arr)
                    next_arr = base + {1'b0, scen[idx][126:64]};
            end
        end
    endtask

    initial begin
        ep = 0;
        for (a = 0; a < NS; a = a + 1)
            lp_k[a] = 1;
    end
    always @(negedge clk) begin
        if (!rst) begin
            // episode boundaries: start episode 1 after reset; episode ep+1
            // in the cycle after the last release of episode ep
            all_rel = (released | ~has_rank) == {NS{1'b1}};
            if (ep == 0 || (running && ep < NE && cyc > last_arr && all_rel)) begin
                ep = ep + 1;
                running = 1'b0;
                cfg_on = 1'b1;
                // every port's first write of the episode: one pass, backwards
                for (p = 0; p < NP; p = p + 1) begin
                    wp[p] = NW;
                    ph[p] = 1'b0;
                end
                for (wi = NW - 1; wi >= 0; wi = wi - 1)
                    if (cfgw[wi+2][127:112] == ep[15:0])
                        wp[(cfgw[wi+2][111:96] == 16'hffff) ? N : {16'd0, cfgw[wi+2][111:96]}] = wi;
            end
            // configuration writes
            if (cfg_on) begin
                busy = 1'b0;
                for (p = 0; p < NP; p = p + 1) begin
                    wi = wp[p];
                    if (wi < NW) begin
                        busy = 1'b1;
                        if (p == N) begin
                            fab_psel    <= 1'b1;
                            fab_penable <= ph[p];
                            fab_paddr   <= cfgw[wi+2][63:32];
                            fab_pwdata  <= cfgw[wi+2][31:0];
                        end else begin
                            cfg_psel[p]            <= 1'b1;
                            cfg_penable[p]         <= ph[p];
                            cfg_paddr[32*p +: 32]  <= cfgw[wi+2][63:32];
                            cfg_pwdata[32*p +: 32] <= cfgw[wi+2][31:0];
                        end
                        if (ph[p])
                            wp[p] = next_write(wi, p);
                        ph[p] = !ph[p];
                    end else if (p == N) begin
                        fab_psel    <= 1'b0;
                        fab_penable <= 1'b0;
                    end else begin
                        cfg_psel[p]    <= 1'b0;
                        cfg_penable[p] <= 1'b0;
                    end
                end
                if (!busy) begin
                    // this is the first cycle after the last access cycle
                    cfg_on = 1'b0;
                    running = 1'b1;
                    run = 1'b1;
                    base = (ep == 1) ? 64'd0 : cyc;
                    last_arr = 64'd0;
                    for (a = 0; a < NS; a = a + 1) begin
                        idx = (ep - 1) * NS + a + 2;
                        if (scen[idx][127] && base + {1'b0, scen[idx][126:64]} > last_arr)
                            last_arr = base + {1'b0, scen[idx][126:64]};
                    end
                    arrivals(base);
                end
            end
            // CPU inputs: the episode's arrivals, then a loop's next ones
            arr_v = {NS{1'b0}};
            op_v = {NS*64{1'b0}};
            arr_any = 1'b0;
            if (running && cyc == next_arr) begin
                for (a = 0; a < NS; a = a + 1) begin
                    idx = (ep - 1) * NS + a + 2;
                    if (scen[idx][127] && base + {1'b0, scen[idx][126:64]} == cyc) begin
                        arr_v[a] = 1'b1;
                        op_v[64*a +: 64] = scen[idx][63:0];
                    end
                end
                arr_any = 1'b1;
                arrivals(cyc + 64'd1);
            end
            if (NI > 1 && running) begin
                for (a = 0; a < NS; a = a + 1) begin
                    // a slot whose communicator runs fewer iterations has no word for the next
                    if (released[a] && !lp_prev[a] && lp_k[a] < NI && scen[lp_k[a] * NS + a + 2][127]) begin
                        lp_k[a] = lp_k[a] + 1;
                        idx = (lp_k[a] - 1) * NS + a + 2;
                        lp_due[a] = cyc + {1'b0, scen[idx][126:64]};
                        lp_pend[a] = 1'b1;
                    end
                    lp_prev[a] = released[a];
                    if (lp_pend[a] && cyc == lp_due[a]) begin
                        idx = (lp_k[a] - 1) * NS + a + 2;
                        arr_v[a] = 1'b1;
                        op_v[64*a +: 64] = scen[idx][63:0];
                        lp_pend[a] = 1'b0;
                        arr_any = 1'b1;
                    end
                end
            end
            if (arr_any) begin
                arrive  <= arr_v;
                operand <= op_v;
                driving = 1'b1;
            end else if (driving) begin
                arrive  <= {NS{1'b0}};
                operand <= {NS*64{1'b0}};
                driving = 1'b0;
            end
%[8]s        end
    end
%[9]s
    // Watchdog of the configuration phase before cycle 0: the writes of
    // episode 1 take 2 cycles each on the busiest port; a testbench that
    // has not started cycle 0 well after that never will.
    localparam [63:0] PREMAX = 2 * NW + 64;
    reg [63:0] pre = 64'd0;
    always @(posedge clk)
        if (!rst && !run) begin
            pre <= pre + 64'd1;
            if (pre > PREMAX) begin
                $display("FAIL watchdog: cycle 0 has not begun %%0d cycles after reset (the %%0d writes of %%0s take at most %%0d)", pre, NW, cfg_file, 2 * NW);
                $fatal(1, "hx_tb: watchdog");
            end
        end

    // A refused configuration write is a testbench or generator bug.
    always @(posedge clk)
        if (!rst && ((|cfg_pslverr) || fab_pslverr))
            begin $display("FAIL configuration: a write was refused (pslverr), node ports %%b, fabric %%b", cfg_pslverr, fab_pslverr); $fatal(1, "hx_tb: pslverr"); end
    // The configuration never enables an interrupt (docs/registers.md,
    // "Software control"): irq must stay 0.
    always @(posedge clk)
        if (!rst && (|irq) !== 1'b0)
            begin $display("FAIL irq: %%b with no IRQ_ENABLE written", irq); $fatal(1, "hx_tb: irq"); end
    // A released output rises only in the cycle its release event is
    // seen (both are registers written by the same edge): the trace alone
    // would not show a unit that raised released early in the run's last
    // episode, since nothing starts after it.
    reg [NS-1:0] rel_q = {NS{1'b0}};
    always @(posedge clk)
        if (rst)
            rel_q <= {NS{1'b0}};
        else begin
            if ((released & ~rel_q & ~ev_release) != {NS{1'b0}})
                begin $display("FAIL released: rank slots %%b rose with no release event", released & ~rel_q & ~ev_release); $fatal(1, "hx_tb: released"); end
            rel_q <= released;
        end

    // ------------------------------------------------------------------
    // Monitor: print the previous cycle's events in canonical order (node id,
    // then arrive, gate, release, send, recv) and check each against the next
    // expected event.
    // ------------------------------------------------------------------
    reg [63:0]  c;          // the cycle being reported
    reg [63:0]  last_c;     // cycle of the last matched event
    reg [31:0]  nn;
    integer     n, ch, sa, ei, drain, ctx;
    reg         failed, done;
    reg         errseen;    // an error event matched: the run ends without every release
    initial begin
        ei = 0; drain = 0; ctx = 3; failed = 1'b0; done = 1'b0; errseen = 1'b0; last_c = 64'd0;
        if ($value$plusargs("context=%%d", ctx)) begin end
    end

    // put writes the trace line of an event word (no newline).
    task put;
        input [191:0] w;
        begin
            case (w[111:104])
            8'd0: $write("%%0d n%%0d arrive rank=%%0d value=%%h", w[191:144], w[143:112], w[95:64], w[63:0]);
            8'd1: $write("%%0d n%%0d gate g=%%0d value=%%h", w[191:144], w[143:112], w[103:96], w[63:0]);
            8'd2: $write("%%0d n%%0d release rank=%%0d value=%%h", w[191:144], w[143:112], w[95:64], w[63:0]);
            8'd3: $write("%%0d n%%0d send to=%%0d gate=%%0d", w[191:144], w[143:112], w[95:64], w[103:96]);
            8'd4: $write("%%0d n%%0d recv from=%%0d gate=%%0d value=%%h", w[191:144], w[143:112], w[95:64], w[103:96], w[63:0]);
            8'd5: begin
                $write("%%0d n%%0d error code=%%0d name=", w[191:144], w[143:112], w[63:0]);
                case (w[63:0])
%[11]s                default: $write("code%%0d", w[63:0]);
                endcase
                $write(" gate=%%0d from=%%0d", w[103:96], w[95:64]);
            end
            default: $write("%%0d n%%0d kind%%0d gate=%%0d rank=%%0d value=%%h", w[191:144], w[143:112], w[111:104], w[103:96], w[95:64], w[63:0]);
            endcase
        end
    endtask

    // see prints the RTL's event and checks it against the next expected one.
    task see;
        input [191:0] got;
        begin
            put(got);
            $display("");
            if (!failed) begin
                if (ei >= NEV) begin
                    $write("FAIL event #%%0d: the RTL printed \"", ei);
                    put(got);
                    $display("\" after the model's last event (#%%0d)", NEV - 1);
                    failed = 1'b1;
                end else if (got !== expm[ei+3]) begin
                    $write("FAIL event #%%0d: the RTL printed \"", ei);
                    put(got);
                    $write("\", the model expects \"");
                    put(expm[ei+3]);
                    $display("\"");
                    failed = 1'b1;
                end else begin
                    ei = ei + 1;
                    if (got[111:104] == 8'd5)
                        errseen = 1'b1;
                    last_c = c;
                end
            end
        end
    endtask

    function [31:0] rk;     // a rank field, zero-extended to 32 bits
        input [RB-1:0] r;
        begin
            rk = 32'd0;
            rk[RB-1:0] = r;
        end
    endfunction

    // sbase: the run's first rank of the communicator slot a's channel
    // serves (its registers hold the rank within the communicator).
    function [31:0] sbase;
        input integer si;
        begin
            sbase = 32'd0;
            case (si)
%[14]s            default: sbase = 32'd0;
            endcase
        end
    endfunction

    always @(posedge clk) begin
        if (!rst && run && cyc != 64'd0 && !done) begin
            c = cyc - 64'd1;
            if (|{ev_arrive, ev_gate, ev_release, ev_send, ev_recv, ev_error, nev_error}) begin
                // node by node; within a node kind by kind, channel by channel
                for (n = 0; n < N; n = n + 1) begin
                    nn = n;
                    for (ch = 0; ch < NCH; ch = ch + 1) begin
                        sa = n * NCH + ch;
                        if (ev_arrive[sa])
                            see({c[47:0], nn, 8'd0, 8'd0, sbase(sa) + rk(rank[RB*sa +: RB]), ev_value[64*sa +: 64]});
                    end
                    for (ch = 0; ch < NCH; ch = ch + 1) begin
                        sa = n * NCH + ch;
                        if (ev_gate[sa])
                            see({c[47:0], nn, 8'd1, {(8-GB){1'b0}}, ev_gnum[GB*sa +: GB], 32'd0, ev_value[64*sa +: 64]});
                    end
                    for (ch = 0; ch < NCH; ch = ch + 1) begin
                        sa = n * NCH + ch;
                        if (ev_release[sa])
                            see({c[47:0], nn, 8'd2, 8'd0, sbase(sa) + rk(rank[RB*sa +: RB]), ev_value[64*sa +: 64]});
                    end
                    for (ch = 0; ch < NCH; ch = ch + 1) begin
                        sa = n * NCH + ch;
                        if (ev_send[sa])
                            see({c[47:0], nn, 8'd3, {(8-GB){1'b0}}, ev_send_gate[GB*sa +: GB], sbase(sa) + rk(ev_send_to[RB*sa +: RB]), 64'd0});
                    end
                    for (ch = 0; ch < NCH; ch = ch + 1) begin
                        sa = n * NCH + ch;
                        if (ev_recv[sa])
                            see({c[47:0], nn, 8'd4, {(8-GB){1'b0}}, ev_recv_gate[GB*sa +: GB], sbase(sa) + rk(ev_recv_from[RB*sa +: RB]), ev_recv_value[64*sa +: 64]});
                    end
                    for (ch = 0; ch < NCH; ch = ch + 1) begin
                        sa = n * NCH + ch;
                        if (ev_error[sa])
                            see({c[47:0], nn, 8'd5, {(8-GB){1'b0}}, ev_err_gate[GB*sa +: GB], sbase(sa) + rk(ev_err_src[RB*sa +: RB]), 56'd0, ev_err_code[8*sa +: 8]});
                    end
                    if (nev_error[n])
                        see({c[47:0], nn, 8'd5, {(8-GB){1'b0}}, nev_err_gate[GB*n +: GB], rk(nev_err_src[RB*n +: RB]), 56'd0, 8'd2});
                end
            end
            if (failed) begin
                // Keep printing the RTL's trace for a few cycles as context.
                if (ctx <= 0)
                    $fatal(1, "hx_tb: the RTL trace differs from the model (see the FAIL line)");
                ctx = ctx - 1;
            end else if (ei < NEV && {16'd0, expm[ei+3][191:144]} <= c) begin
                $write("FAIL event #%%0d: the model expects \"", ei);
                put(expm[ei+3]);
                $display("\", the RTL printed nothing more in cycle %%0d", c);
                failed = 1'b1;
                if (ctx <= 0)
                    $fatal(1, "hx_tb: the RTL trace differs from the model (see the FAIL line)");
            end else if (c >= limit) begin
                $display("FAIL watchdog: cycle limit %%0d reached, %%0d of %%0d events matched, %%0d of %%0d nodes with a rank not released",
                         limit, ei, NEV, count1(has_rank & ~released), count1(has_rank));
                $fatal(1, "hx_tb: watchdog");
            end else if (ei == NEV && ((released | ~has_rank) == {NS{1'b1}} || errseen)) begin
                drain = drain + 1;
                if (drain > DRAIN) begin
%[10]s                    $display("PASS %%0d events %%0d cycles", NEV, last_c + 64'd1);
                    done = 1'b1;
                    $finish;
                end
            end
        end
    end

    function integer count1;   // population count
        input [NS-1:0] v;
        integer k;
        begin
            count1 = 0;
            for (k = 0; k < NS; k = k + 1)
                count1 = count1 + {31'd0, v[k]};
        end
    endfunction
endmodule
`

// tbText renders tb.v for a system named name with nev expected events,
// ne episodes, ni loop iterations (1: no loop) and nw configuration writes; inj is the fault injection
// (faultInjection; zero: none).
func tbText(name string, nodes, nev, ne, ni, nw int, inj injection, plan *verilog.Channels) []byte {
	hdr := []string{
		"tb.v: self-checking testbench, generated by hxbar — do not edit.",
		"system: " + name + fmt.Sprintf(" (%d nodes, %d expected events)", nodes, nev),
		"",
		"Drives hx_top with the scenario in scenario.hex and checks every event the",
		"design reports against expected.hex (the Go model's trace); formats in",
		"docs/cosim.md. Prints the trace of docs/microarchitecture.md (\"Trace\") from",
		"one monitor, then exactly one line: \"PASS <events> events <cycles> cycles\"",
		"or \"FAIL <what>\" (followed by $fatal, exit status 1).",
		"",
		"Plusargs: +vcd (dump hx.vcd), +scenario=FILE, +expected=FILE (other data",
		"files), +context=N (cycles of RTL trace printed after a mismatch, default 3).",
		"Compile the files hx_sources.f lists (the RTL library, hx_top.v, this file),",
		"top module hx_tb: iverilog -c hx_sources.f, verilator -f hx_sources.f (see run.sh).",
		"",
	}
	var b strings.Builder
	for _, l := range hdr {
		if l == "" {
			b.WriteString("//\n")
		} else {
			b.WriteString("// " + l + "\n")
		}
	}
	var mon strings.Builder
	K := 1
	if plan != nil {
		K = plan.K
	}
	for a := 0; a < nodes*K; a++ {
		n, u := a, "dut."+verilog.UnitPath(a, false)+"."
		if plan != nil {
			n, u = a, fmt.Sprintf("dut.%s.ch[%d].u.", verilog.UnitPath(a/K, true), a%K)
		}
		fmt.Fprintf(&mon, "    assign has_rank[%d] = %shas_rank;\n", n, u)
		fmt.Fprintf(&mon, "    assign rank[%d*RB +: RB] = %srank;\n", n, u)
		for _, e := range []string{"ev_arrive", "ev_gate", "ev_release", "ev_send", "ev_recv", "ev_error"} {
			fmt.Fprintf(&mon, "    assign %s[%d] = %s%s;\n", e, n, u, e)
		}
		for _, e := range []string{"ev_gnum", "ev_send_gate", "ev_recv_gate", "ev_err_gate"} {
			fmt.Fprintf(&mon, "    assign %s[%d*GB +: GB] = %s%s;\n", e, n, u, e)
		}
		for _, e := range []string{"ev_value", "ev_recv_value"} {
			fmt.Fprintf(&mon, "    assign %s[%d*64 +: 64] = %s%s;\n", e, n, u, e)
		}
		for _, e := range []string{"ev_send_to", "ev_recv_from", "ev_err_src"} {
			fmt.Fprintf(&mon, "    assign %s[%d*RB +: RB] = %s%s;\n", e, n, u, e)
		}
		fmt.Fprintf(&mon, "    assign ev_err_code[%d*8 +: 8] = %sev_err_code;\n", n, u)
	}
	if plan == nil {
		mon.WriteString("    assign nev_error = {N{1'b0}};\n    assign nev_err_gate = {N*GB{1'b0}};\n    assign nev_err_src = {N*RB{1'b0}};\n")
	} else {
		for n := 0; n < nodes; n++ {
			fmt.Fprintf(&mon, "    assign nev_error[%d] = dut.%s.ev_error;\n", n, verilog.UnitPath(n, true))
			fmt.Fprintf(&mon, "    assign nev_err_gate[%d*GB +: GB] = dut.%s.ev_err_gate;\n", n, verilog.UnitPath(n, true))
			fmt.Fprintf(&mon, "    assign nev_err_src[%d*RB +: RB] = dut.%s.ev_err_src;\n", n, verilog.UnitPath(n, true))
		}
	}
	return []byte(fmt.Sprintf(tbSource, b.String(), nev, drainCycles, ne, nw, mon.String(), hw.GateBits, inj.drive, inj.module, inj.pass, errNameCase(), ni, K, slotBases(plan)))
}

// errNameCase is the body of tb.v's case that prints an error code's name,
// one item per code barrierunit.ErrName names, so the RTL's trace line is
// the model's (sim.AppendEvent).
func errNameCase() string {
	var b strings.Builder
	for c := 1; c < 256; c++ {
		if name := barrierunit.ErrName(uint8(c)); name != fmt.Sprintf("code%d", c) {
			fmt.Fprintf(&b, "                64'd%d: $write(\"%s\");\n", c, name)
		}
	}
	return b.String()
}
