// hx_tbl_load: simulation-only table loader of the smoke tests. It reads a
// scenario's table files (docs/tables.md: rt_s<id>.hex, gt_n<n>.hex and, in
// data mode, dt_n<n>.hex) from the simulator's working directory with
// $readmemh, checks them (the checks the library modules made at time 0
// before they had a configuration port), and writes every table through the
// APB ports of a smoke-test top (docs/registers.md): first the routing table
// of every switch on the fabric port, then each node's unit on its own port
// (CTRL, RANK, ITEMF, gate words, routes, data routes, expected messages,
// item list). Any check that fails, and any refused transfer (pslverr),
// stops the simulation with $fatal(1, "<file>: <what is wrong>").
//
// Timing: the loader waits for rst = 0, drives the bus on falling edges
// (setup cycle, access cycle, the next setup right after), and raises done
// with a non-blocking assignment at the edge that ends the last access
// cycle. A testbench counter `cyc <= (rst || !done) ? 0 : cyc + 1` therefore
// reads 0 in the cycle after the last write (cycle 0) and counts from there.
//
// The expected sizes come from the scenario (NGV, NWV, NDWV: G, gate table
// body words and data table body words per node, 32 bits per node); the
// switches' sizes from their CAPS registers, the units' gate capacity from
// theirs.
`timescale 1ns / 1ps
module hx_tbl_load #(
    parameter integer K    = 2,              // nodes (units), node n on cfg port n
    parameter integer NSW  = 3,              // switches on the fabric port, numbered 0..NSW-1
    parameter integer OP   = 0,              // CTRL.OP of every unit
    parameter integer DATA = 0,              // 1: data mode (CTRL.DMODE, ITEMF, dt_n<n>.hex)
    parameter integer IF   = 1,              // data mode: flits per item the scenario expects
    parameter integer FW   = 64,             // flit data width
    parameter integer AB   = 1,              // address bits
    parameter integer RB   = 1,              // rank bits
    parameter [127:0] NGV  = {4{32'd1}},     // G of node n at [32n +: 32]
    parameter [127:0] NWV  = {4{32'd4}},     // gate table body words of node n
    parameter [127:0] NDWV = {4{32'd1}},     // data table body words of node n
    parameter integer MAXW = 4096            // largest table file, words
) (
    input                 clk,
    input                 rst,
    output reg            done,              // every table written (see above)
    // one APB requester per node (unit n: bit n, [32n +: 32])
    output reg [K-1:0]    cfg_psel,
    output reg [K-1:0]    cfg_penable,
    output reg [K-1:0]    cfg_pwrite,
    output reg [K*32-1:0] cfg_paddr,
    output reg [K*32-1:0] cfg_pwdata,
    input      [K*32-1:0] cfg_prdata,
    input      [K-1:0]    cfg_pready,
    input      [K-1:0]    cfg_pslverr,
    // the fabric port: paddr[31:16] = switch number, [15:0] its address
    output reg            fab_psel,
    output reg            fab_penable,
    output reg            fab_pwrite,
    output reg [31:0]     fab_paddr,
    output reg [31:0]     fab_pwdata,
    input      [31:0]     fab_prdata,
    input                 fab_pready,
    input                 fab_pslverr
);
    localparam [31:0] SW_ID = 32'h48585357;   // "HXSW"
    localparam [31:0] BU_ID = 32'h48584255;   // "HXBU"
    localparam [7:0]  PASS  = 8'hFF;

    initial begin
        done        = 1'b0;
        cfg_psel    = {K{1'b0}};
        cfg_penable = {K{1'b0}};
        cfg_pwrite  = {K{1'b0}};
        cfg_paddr   = {K*32{1'b0}};
        cfg_pwdata  = {K*32{1'b0}};
        fab_psel    = 1'b0;
        fab_penable = 1'b0;
        fab_pwrite  = 1'b0;
        fab_paddr   = 32'd0;
        fab_pwdata  = 32'd0;
    end

    // ------------------------------------------------------------------
    // Table files
    // ------------------------------------------------------------------

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

    reg [63:0] gm [0:MAXW-1];   // gate table or routing table file
    reg [63:0] dm [0:MAXW-1];   // data table file

    // read_table: read file fname (kind: "routing", "gate", "data") into gm
    // (which = 0) or dm (which = 1), with the header, word count, X and
    // checksum checks of docs/tables.md; magic is the expected magic, nw the
    // body word count the table must have. cmsg, when not empty, replaces
    // the count message (the switch's). Words past the file are left alone.
    reg [8*64-1:0] cmsg;
    task read_table;
        input [8*64-1:0] fname;
        input [8*8-1:0]  kind;
        input            which;
        input [31:0]     magic;
        input [8*8-1:0]  magic_s;
        input integer    nw;
        reg [63:0] c, hdr, w;
        integer fd, nf, n;
        begin
            // Word count first: a longer file must not reach $readmemh.
            fd = $fopen(fname, "r");
            if (fd == 0)
                $fatal(1, "%0s: %0s table missing or unreadable (cannot open it)", fname, kind);
            nf = file_words(fd);
            $fclose(fd);
            if (nf < 0)
                $fatal(1, "%0s: word %0d (the header is word 0) is not 16 hex digits", fname, -1 - nf);
            if (nf > nw + 2)
                $fatal(1, "%0s: %0d words, more words than count + 2 = %0d (count %0d)",
                       fname, nf, nw + 2, nw);
            if (nf == 0)
                $fatal(1, "%0s: %0s table missing or unreadable (no header word)", fname, kind);
            if (which == 1'b0)
                $readmemh(fname, gm, 0, nf - 1);
            else
                $readmemh(fname, dm, 0, nf - 1);
            hdr = (which == 1'b0) ? gm[0] : dm[0];
            if (^hdr === 1'bx)
                $fatal(1, "%0s: %0s table missing or unreadable (header word is X)", fname, kind);
            if (hdr[63:32] !== magic)
                $fatal(1, "%0s: bad magic %h, expected %h (\"%0s\")", fname, hdr[63:32], magic, magic_s);
            if (hdr[31:0] !== nw) begin
                if (cmsg != 0)
                    $fatal(1, "%0s: %0d table entries, %0s %0d", fname, hdr[31:0], cmsg, nw);
                else
                    $fatal(1, "%0s: %0d body words, the scenario expects %0d", fname, hdr[31:0], nw);
            end
            if (nf < nw + 2)
                $fatal(1, "%0s: %0d words, fewer words than count + 2 = %0d (count %0d, file too short)",
                       fname, nf, nw + 2, nw);
            c = 64'd0;
            for (n = 0; n < nw; n = n + 1) begin
                w = (which == 1'b0) ? gm[n+2] : dm[n+2];
                if (^w === 1'bx)
                    $fatal(1, "%0s: body word %0d is X (not a hex word)", fname, n);
                c = {c[62:0], c[63]} ^ w;
            end
            w = (which == 1'b0) ? gm[1] : dm[1];
            if (^w === 1'bx || w !== c)
                $fatal(1, "%0s: checksum %h does not match the body (computed %h)", fname, w, c);
        end
    endtask

    // ------------------------------------------------------------------
    // The bus
    // ------------------------------------------------------------------

    // xfer: one APB transfer on the fabric port (port < 0) or on node
    // port's cfg port: setup cycle, access cycle; returns at the edge that
    // ends the access cycle with prdata and pslverr as sampled there.
    task xfer;
        input integer port;
        input         wr;
        input [31:0]  addr;
        input [31:0]  data;
        output [31:0] rd;
        output        err;
        begin
            @(negedge clk);
            if (port < 0) begin
                cfg_psel <= {K{1'b0}}; cfg_penable <= {K{1'b0}};
                fab_psel <= 1'b1; fab_penable <= 1'b0; fab_pwrite <= wr;
                fab_paddr <= addr; fab_pwdata <= data;
            end else begin
                fab_psel <= 1'b0; fab_penable <= 1'b0;
                cfg_psel <= {K{1'b0}}; cfg_penable <= {K{1'b0}};
                cfg_psel[port] <= 1'b1; cfg_pwrite[port] <= wr;
                cfg_paddr[32*port +: 32] <= addr; cfg_pwdata[32*port +: 32] <= data;
            end
            @(negedge clk);
            if (port < 0)
                fab_penable <= 1'b1;
            else
                cfg_penable[port] <= 1'b1;
            @(posedge clk);
            if (port < 0) begin
                rd = fab_prdata; err = fab_pslverr;
                if (fab_pready !== 1'b1)
                    $fatal(1, "hx_tbl_load: fabric port: pready is %b in the access cycle", fab_pready);
            end else begin
                rd = cfg_prdata[32*port +: 32]; err = cfg_pslverr[port];
                if (cfg_pready[port] !== 1'b1)
                    $fatal(1, "hx_tbl_load: node %0d port: pready is %b in the access cycle", port, cfg_pready[port]);
            end
        end
    endtask

    // wr32: a write that must be accepted; what names the word for the message.
    reg [8*64-1:0] what;
    task wr32;
        input [8*64-1:0] fname;
        input integer    port;
        input [31:0]     addr;
        input [31:0]     data;
        reg [31:0] rd;
        reg        err;
        begin
            xfer(port, 1'b1, addr, data, rd, err);
            if (err !== 1'b0)
                $fatal(1, "%0s: %0s: write of %h to %h refused (pslverr)", fname, what, data, addr);
        end
    endtask

    // rd32: a read that must be accepted.
    task rd32;
        input integer port;
        input [31:0]  addr;
        output [31:0] rd;
        reg err;
        begin
            xfer(port, 1'b0, addr, 32'd0, rd, err);
            if (err !== 1'b0)
                $fatal(1, "hx_tbl_load: %0s port %0d: read of %h refused (pslverr)",
                       (port < 0) ? "fabric" : "node", port, addr);
        end
    endtask

    // ------------------------------------------------------------------
    // Switches: rt_s<s>.hex through the fabric port
    // ------------------------------------------------------------------
    task load_switch;
        input integer s;
        reg [8*64-1:0] fname;
        reg [31:0]     base, id, caps, rd;
        integer        p, tsize, mode, e;
        reg            ok;
        begin
            $sformat(fname, "rt_s%0d.hex", s);
            base = s << 16;
            rd32(-1, base, id);
            if (id !== SW_ID)
                $fatal(1, "hx_tbl_load: switch %0d: ID %h, expected %h (\"HXSW\")", s, id, SW_ID);
            rd32(-1, base | 32'h4, caps);
            p     = caps[7:0];
            tsize = caps[23:8];
            mode  = caps[24];
            $sformat(cmsg, "this switch (MODE %0d) needs", mode);
            read_table(fname, "routing", 1'b0, 32'h48585254, "HXRT", tsize);
            cmsg = 0;
            for (e = 0; e < tsize; e = e + 1) begin
                ok = (gm[e+2][63:8] == 56'd0) &&
                     (({24'd0, gm[e+2][7:0]} < p) || (mode == 0 && gm[e+2][7:0] == PASS));
                if (!ok)
                    $fatal(1, "%0s: entry %0d = %h is not a port 0..%0d%0s", fname, e, gm[e+2],
                           p - 1, (mode == 0) ? " or ff (PASS)" : "");
            end
            for (e = 0; e < tsize; e = e + 1) begin
                $sformat(what, "entry %0d", e);
                wr32(fname, -1, base | (32'h1000 + 4 * e), gm[e+2][31:0]);
            end
            // Read the table back (entries are readable registers).
            for (e = 0; e < tsize; e = e + 1) begin
                rd32(-1, base | (32'h1000 + 4 * e), rd);
                if (rd !== gm[e+2][31:0])
                    $fatal(1, "%0s: entry %0d reads back %h, written %h", fname, e, rd, gm[e+2][31:0]);
            end
        end
    endtask

    // ------------------------------------------------------------------
    // Barrier units: gt_n<n>.hex (and dt_n<n>.hex) through cfg port n
    // ------------------------------------------------------------------
    task load_unit;
        input integer n;
        reg [8*64-1:0] fname, dname;
        reg [63:0] w;
        reg [31:0] id, caps;
        integer ng, nw, ndw, nrt, nl, maxg, g, j, i, dx, gx, il;
        reg valid;
        begin
            $sformat(fname, "gt_n%0d.hex", n);
            $sformat(dname, "dt_n%0d.hex", n);
            ng  = NGV[32*n +: 32];
            nw  = NWV[32*n +: 32];
            ndw = NDWV[32*n +: 32];
            rd32(n, 32'h0, id);
            if (id !== BU_ID)
                $fatal(1, "hx_tbl_load: unit %0d: ID %h, expected %h (\"HXBU\")", n, id, BU_ID);
            rd32(n, 32'h4, caps);
            maxg = caps[5:0];
            if (DATA != 0 && caps[8] !== 1'b1)
                $fatal(1, "hx_tbl_load: unit %0d has no data engine (CAPS %h)", n, caps);

            // Gate table (docs/tables.md).
            read_table(fname, "gate", 1'b0, 32'h48584754, "HXGT", nw);
            if (FW < AB + RB + 6)
                $fatal(1, "%m: FW = %0d cannot hold the %0d-bit head (AB %0d + RB %0d + 6)",
                       FW, AB + RB + 6, AB, RB);
            w = gm[2];
            valid = w[63];
            nrt = 0;
            if (!valid) begin
                if (w !== 64'd0 || nw != 1 || ng != 0)
                    $fatal(1, "%0s: a table without a rank must be the single body word 0 (NG = 0, NWORDS = 1)", fname);
            end else begin
                if (w[62:38] != 0)
                    $fatal(1, "%0s: body[0] reserved bits 62..38 not zero", fname);
                if ({26'd0, w[37:32]} != ng || ng < 0 || ng > 62)
                    $fatal(1, "%0s: G = %0d, the scenario expects NG = %0d (allowed 0..62)",
                           fname, w[37:32], ng);
                if (ng > maxg)
                    $fatal(1, "%0s: G = %0d, unit %0d holds at most %0d gates (CAPS.MAXG)",
                           fname, ng, n, maxg);
                if (RB < 32 && (w[31:0] >> RB) != 0)
                    $fatal(1, "%0s: rank %0d does not fit in RB = %0d bits", fname, w[31:0], RB);
                nrt = nw - ng - 2;
                if (nrt < 0)
                    $fatal(1, "%0s: %0d body words cannot hold %0d gate words", fname, nw, ng + 1);
                for (g = 1; g <= ng + 1; g = g + 1) begin
                    w = gm[g+2];
                    if (w[63:41] != 0)
                        $fatal(1, "%0s: gate %0d: reserved bits 63..41 not zero", fname, g);
                    if ({16'd0, w[15:0]} + {16'd0, w[31:16]} > nrt)
                        $fatal(1, "%0s: gate %0d: routes %0d..%0d past the %0d route words",
                               fname, g, w[15:0], w[15:0] + w[31:16] - 1, nrt);
                    if (g == 1 && w[40:32] != 0)
                        $fatal(1, "%0s: gate 1 (arrival) must have self = 0 and need = 0", fname);
                    if (g == ng + 1 && w[31:16] != 0)
                        $fatal(1, "%0s: the end gate %0d must have no routes out", fname, g);
                end
                for (j = 0; j < nrt; j = j + 1) begin
                    w = gm[ng+4+j];
                    if ((RB < 32 && (w[63:32] >> RB) != 0) || (AB < 32 && (w[31:0] >> AB) != 0))
                        $fatal(1, "%0s: route %0d: rank %0d / address %h too wide (RB %0d, AB %0d)",
                               fname, j, w[63:32], w[31:0], RB, AB);
                end
            end

            // Data table (docs/transfers.md, "Data table file"): body[0] =
            // {F, L}, 1+j route j, 1+NR+g-2 gate g's expected message,
            // 1+NR+G+i item-list word i.
            nl = 0;
            dx = 3;                 // dm index of data route 0
            gx = 3 + nrt - 2;       // dm index of gate g's word: gx + g
            il = 3 + nrt + ng;      // dm index of item-list word 0
            if (DATA != 0) begin
                read_table(dname, "data", 1'b1, 32'h48584454, "HXDT", ndw);
                if (OP != 0)
                    $fatal(1, "%m: data mode needs OP = 0 (barrier), not %0d", OP);
                if (IF < 1 || IF > 4096)
                    $fatal(1, "%m: IF = %0d flits per item (allowed 1..4096)", IF);
                if (RB > 16)
                    $fatal(1, "%m: RB = %0d, a data unit has 16-bit rank fields", RB);
                w = dm[2];
                if (!valid) begin
                    if (w !== 64'd0 || ndw != 1)
                        $fatal(1, "%0s: a node without a rank must have the single data body word 0 (NDW = 1)", dname);
                end else begin
                    nl = ndw - 1 - nrt - ng;
                    if (w[63:32] != IF)
                        $fatal(1, "%0s: F = %0d flits per item, the scenario expects IF = %0d", dname, w[63:32], IF);
                    if (nl < 0 || w[31:0] != nl)
                        $fatal(1, "%0s: L = %0d item-list words, NDW = %0d holds 1 + %0d routes + %0d gates + %0d",
                               dname, w[31:0], ndw, nrt, ng, nl);
                    for (j = 0; j < nrt; j = j + 1) begin
                        w = dm[dx+j];
                        if (w[63:48] != gm[ng+4+j][63:32])
                            $fatal(1, "%0s: route %0d: destination rank %0d, the gate table's route goes to rank %0d",
                                   dname, j, w[63:48], gm[ng+4+j][63:32]);
                        if (w[47:24] == 0 || w[23:0] + w[47:24] > nl)
                            $fatal(1, "%0s: route %0d: %0d items from item-list word %0d (allowed: 1 or more, inside the %0d words)",
                                   dname, j, w[47:24], w[23:0], nl);
                    end
                    for (g = 2; g <= ng + 1; g = g + 1) begin
                        w = dm[gx+g];
                        if (w == 64'd0) begin
                            if (gm[g+2][39:32] != 0)
                                $fatal(1, "%0s: gate %0d expects no message: its word must be 0 and the gate table's need 0 (need %0d)",
                                       dname, g, gm[g+2][39:32]);
                        end else begin
                            if (gm[g+2][39:32] != 1)
                                $fatal(1, "%0s: gate %0d expects a message, the gate table's need is %0d (must be 1)",
                                       dname, g, gm[g+2][39:32]);
                            if (w[47:24] == 0 || w[23:0] + w[47:24] > nl)
                                $fatal(1, "%0s: gate %0d: %0d items from item-list word %0d, past the %0d words",
                                       dname, g, w[47:24], w[23:0], nl);
                            if (RB < 16 && (w[63:48] >> RB) != 0)
                                $fatal(1, "%0s: gate %0d: source rank %0d does not fit in RB = %0d bits", dname, g, w[63:48], RB);
                        end
                    end
                    for (i = 0; i < nl; i = i + 1)
                        if (dm[il+i][31:0] != 32'd0)
                            $fatal(1, "%0s: item-list word %0d: bits 31..0 not zero", dname, i);
                end
            end

            // Writes, in the order of docs/registers.md.
            w = gm[2];
            $sformat(what, "CTRL");
            wr32(fname, n, 32'h8, {18'd0, w[37:32], 3'd0, (DATA != 0) ? 1'b1 : 1'b0, OP[2:0], valid});
            $sformat(what, "RANK");
            wr32(fname, n, 32'hC, w[31:0]);
            if (DATA != 0 && valid) begin
                $sformat(what, "ITEMF");
                wr32(dname, n, 32'h10, dm[2][63:32]);
            end
            if (valid) begin
                for (g = 1; g <= ng + 1; g = g + 1) begin
                    $sformat(what, "gate word %0d", g);
                    wr32(fname, n, 32'h1000_0000 + 8 * g,     gm[g+2][31:0]);
                    wr32(fname, n, 32'h1000_0000 + 8 * g + 4, gm[g+2][63:32]);
                end
                for (j = 0; j < nrt; j = j + 1) begin
                    $sformat(what, "route %0d", j);
                    wr32(fname, n, 32'h2000_0000 + 8 * j,     gm[ng+4+j][31:0]);
                    wr32(fname, n, 32'h2000_0000 + 8 * j + 4, gm[ng+4+j][63:32]);
                end
                if (DATA != 0) begin
                    for (j = 0; j < nrt; j = j + 1) begin
                        $sformat(what, "data route %0d", j);
                        wr32(dname, n, 32'h3000_0000 + 8 * j,     dm[dx+j][31:0]);
                        wr32(dname, n, 32'h3000_0000 + 8 * j + 4, dm[dx+j][63:32]);
                    end
                    for (g = 2; g <= ng + 1; g = g + 1) begin
                        $sformat(what, "expected message of gate %0d", g);
                        wr32(dname, n, 32'h4000_0000 + 8 * g,     dm[gx+g][31:0]);
                        wr32(dname, n, 32'h4000_0000 + 8 * g + 4, dm[gx+g][63:32]);
                    end
                    for (i = 0; i < nl; i = i + 1) begin
                        $sformat(what, "item-list word %0d", i);
                        wr32(dname, n, 32'h5000_0000 + 4 * i, dm[il+i][63:32]);
                    end
                end
            end
        end
    endtask

    integer ls, ln;
    initial begin : run
        cmsg = 0;
        what = 0;
        @(negedge clk);
        while (rst)
            @(negedge clk);
        for (ls = 0; ls < NSW; ls = ls + 1)
            load_switch(ls);
        for (ln = 0; ln < K; ln = ln + 1)
            load_unit(ln);
        // At the edge that ends the last access cycle: cycle 0 follows.
        done <= 1'b1;
        @(negedge clk);
        fab_psel    <= 1'b0;
        fab_penable <= 1'b0;
        cfg_psel    <= {K{1'b0}};
        cfg_penable <= {K{1'b0}};
    end
endmodule
