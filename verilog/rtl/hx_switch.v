// hx_switch: the P-port wormhole switch used both as a node's exchanger
// (MODE 0) and as a dimension crossbar (MODE 1); docs/microarchitecture.md,
// "Switch".
//
// Per input: a B-deep FIFO (hx_fifo). Per output: owner (input holding the
// output for the rest of a packet, or none), a round-robin pointer and the
// credit counter of the channel the output drives (hx_credit). Everything an
// output decides in cycle t depends only on registers (FIFO fronts, owner,
// rr, credits), so the outputs are independent and the order in which the Go
// model evaluates them is irrelevant.
//
// Port vectors are flattened: port p uses bits [p*W +: W] of a flit bus,
// W = FW+2, flit = {head, tail, data[FW-1:0]}.
//
// The routing table is a $readmemh file of 64-bit words (docs/tables.md):
// word 0 = {"HXRT", count}, word 1 = checksum, then one word per 8-bit entry.
`timescale 1ns / 1ps
module hx_switch #(
    parameter integer P     = 2,         // ports (exchanger: NDIM+1; crossbar: K[XDIM])
    parameter integer FW    = 64,        // flit data width
    parameter integer B     = 2,         // input FIFO depth = initial output credits
    parameter integer MODE  = 0,         // 0 = exchanger, 1 = crossbar
    parameter integer NDIM  = 1,         // dimensions of the hyper-crossbar, 1..4
    parameter integer K0    = 2,         // dimension sizes (unused ones: 0)
    parameter integer K1    = 0,
    parameter integer K2    = 0,
    parameter integer K3    = 0,
    parameter integer XDIM  = 0,         // crossbar only: its dimension
    parameter         TABLE = "rt.hex"   // routing table file
) (
    input                 clk,
    input                 rst,         // synchronous, active high
    // input side, from the upstream channels
    input  [P-1:0]        in_valid,    // push into input FIFO p
    input  [P*(FW+2)-1:0] in_flit,
    output [P-1:0]        in_credit,   // input FIFO p popped (credit to upstream)
    // output side, to the downstream channels
    output [P-1:0]        out_valid,   // a flit is sent on output p
    output [P*(FW+2)-1:0] out_flit,
    input  [P-1:0]        out_credit   // credit returned to output p
);
    localparam W  = FW + 2;
    localparam IW = (P <= 2) ? 1 : $clog2(P);   // width of a port number
    localparam integer  PLASTI = P - 1;
    localparam [IW-1:0] PLAST  = PLASTI[IW-1:0];
    localparam [IW-1:0] IONE   = 1;

    // Address layout: coordinate k occupies BKk bits at SHk, dimension 0 in
    // the LSBs; BKk = max(1, ceil(log2 Kk)), 0 for unused dimensions.
    localparam BK0 = (K0 <= 2) ? 1 : $clog2(K0);
    localparam BK1 = (NDIM < 2) ? 0 : (K1 <= 2) ? 1 : $clog2(K1);
    localparam BK2 = (NDIM < 3) ? 0 : (K2 <= 2) ? 1 : $clog2(K2);
    localparam BK3 = (NDIM < 4) ? 0 : (K3 <= 2) ? 1 : $clog2(K3);
    localparam SH1 = BK0;
    localparam SH2 = BK0 + BK1;
    localparam SH3 = BK0 + BK1 + BK2;
    localparam AB  = BK0 + BK1 + BK2 + BK3;      // address bits

    // Exchanger table: dimension k's entries start at OFFk.
    localparam KU1 = (NDIM < 2) ? 0 : K1;
    localparam KU2 = (NDIM < 3) ? 0 : K2;
    localparam KU3 = (NDIM < 4) ? 0 : K3;
    localparam OFF1 = K0;
    localparam OFF2 = K0 + KU1;
    localparam OFF3 = K0 + KU1 + KU2;
    localparam KX = (XDIM == 0) ? K0 : (XDIM == 1) ? K1 : (XDIM == 2) ? K2 : K3;
    localparam TSIZE = (MODE == 0) ? (K0 + KU1 + KU2 + KU3) : KX;
    localparam [7:0] PASS = 8'hFF;

    // ------------------------------------------------------------------
    // Routing table ROM
    // ------------------------------------------------------------------
    reg  [63:0] rom [0:TSIZE+1];
    wire [8*TSIZE-1:0] tab;    // entry e at tab[8*e +: 8]

    genvar e;
    generate
        for (e = 0; e < TSIZE; e = e + 1) begin : g_tab
            assign tab[8*e +: 8] = rom[e+2][7:0];
        end
    endgenerate

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
        reg [63:0] c;
        integer n, fd, nf;
        reg ok;
        // Word count first: a longer file must not reach $readmemh.
        fd = $fopen(TABLE, "r");
        if (fd == 0)
            $fatal(1, "%0s: routing table missing or unreadable (cannot open it)", TABLE);
        nf = file_words(fd);
        $fclose(fd);
        if (nf < 0)
            $fatal(1, "%0s: word %0d (the header is word 0) is not 16 hex digits", TABLE, -1 - nf);
        if (nf > TSIZE + 2)
            $fatal(1, "%0s: %0d words, more words than count + 2 = %0d (count %0d)",
                   TABLE, nf, TSIZE + 2, TSIZE);
`endif
        $readmemh(TABLE, rom);
`ifndef SYNTHESIS
        // Header check (docs/tables.md). A missing or short file leaves X.
        if (^rom[0] === 1'bx)
            $fatal(1, "%0s: routing table missing or unreadable (header word is X)", TABLE);
        if (rom[0][63:32] !== 32'h48585254)
            $fatal(1, "%0s: bad magic %h, expected 48585254 (\"HXRT\")", TABLE, rom[0][63:32]);
        if (rom[0][31:0] !== TSIZE)
            $fatal(1, "%0s: %0d table entries, this switch (MODE %0d) needs %0d",
                   TABLE, rom[0][31:0], MODE, TSIZE);
        if (nf < TSIZE + 2)
            $fatal(1, "%0s: %0d words, fewer words than count + 2 = %0d (count %0d, file too short)",
                   TABLE, nf, TSIZE + 2, TSIZE);
        c = 64'd0;
        for (n = 0; n < TSIZE; n = n + 1) begin
            if (^rom[n+2] === 1'bx)
                $fatal(1, "%0s: entry %0d is X (not a hex word)", TABLE, n);
            c = {c[62:0], c[63]} ^ rom[n+2];
        end
        if (^rom[1] === 1'bx || rom[1] !== c)
            $fatal(1, "%0s: checksum %h does not match the body (computed %h)", TABLE, rom[1], c);
        for (n = 0; n < TSIZE; n = n + 1) begin
            ok = (rom[n+2][63:8] == 56'd0) &&
                 (({24'd0, rom[n+2][7:0]} < P) || (MODE == 0 && rom[n+2][7:0] == PASS));
            if (!ok)
                $fatal(1, "%0s: entry %0d = %h is not a port 0..%0d%0s", TABLE, n, rom[n+2],
                       P - 1, (MODE == 0) ? " or ff (PASS)" : "");
        end
        if (NDIM < 1 || NDIM > 4 || (MODE == 0 && P != NDIM + 1) ||
            (MODE == 1 && (XDIM >= NDIM || P != KX)) || FW < AB)
            $fatal(1, "%m: inconsistent parameters P=%0d MODE=%0d NDIM=%0d XDIM=%0d FW=%0d",
                   P, MODE, NDIM, XDIM, FW);
`endif
    end

    // ------------------------------------------------------------------
    // Input FIFOs and route computation
    // ------------------------------------------------------------------
    wire [P*W-1:0] front;      // front flit of every input
    wire [P-1:0]   fvalid;     // front flit present (= ready, see hx_fifo)
    reg  [P-1:0]   pop;        // input popped this cycle
    wire [P*8-1:0] route;      // route(i) of the front flit (meaningful for heads)

    assign in_credit = pop;

    genvar i;
    generate
        for (i = 0; i < P; i = i + 1) begin : g_in
            hx_fifo #(.W(W), .B(B)) fifo (
                .clk(clk), .rst(rst),
                .push(in_valid[i]), .din(in_flit[W*i +: W]),
                .pop(pop[i]),
                .dout(front[W*i +: W]), .nempty(fvalid[i])
            );

            // Destination coordinates of the front flit (head flits only; for
            // payload flits the value is computed but never used).
            wire [31:0] a  = {{(32-AB){1'b0}}, front[W*i +: AB]};
            wire [31:0] c0 = a & ((32'd1 << BK0) - 32'd1);
            wire [31:0] c1 = (a >> SH1) & ((32'd1 << BK1) - 32'd1);
            wire [31:0] c2 = (a >> SH2) & ((32'd1 << BK2) - 32'd1);
            wire [31:0] c3 = (a >> SH3) & ((32'd1 << BK3) - 32'd1);
            wire [31:0] cx = (XDIM == 0) ? c0 : (XDIM == 1) ? c1 : (XDIM == 2) ? c2 : c3;
            // Table indices; an index past the table reads as PASS.
            wire [31:0] x0 = c0;
            wire [31:0] x1 = OFF1 + c1;
            wire [31:0] x2 = OFF2 + c2;
            wire [31:0] x3 = OFF3 + c3;
            wire [7:0]  e0 = (x0 < TSIZE) ? tab[8*x0 +: 8] : PASS;
            wire [7:0]  e1 = (x1 < TSIZE) ? tab[8*x1 +: 8] : PASS;
            wire [7:0]  e2 = (x2 < TSIZE) ? tab[8*x2 +: 8] : PASS;
            wire [7:0]  e3 = (x3 < TSIZE) ? tab[8*x3 +: 8] : PASS;
            wire [7:0]  ex = (cx < TSIZE) ? tab[8*cx +: 8] : PASS;
            reg  [7:0]  r;

            // Exchanger: the first dimension (0, 1, ...) whose entry is not
            // PASS decides; all PASS means "arrived": local port 0.
            // Crossbar: the entry of the coordinate in its own dimension.
            always @* begin
                if (MODE == 1)
                    r = ex;
                else if (e0 != PASS)
                    r = e0;
                else if (NDIM > 1 && e1 != PASS)
                    r = e1;
                else if (NDIM > 2 && e2 != PASS)
                    r = e2;
                else if (NDIM > 3 && e3 != PASS)
                    r = e3;
                else
                    r = 8'd0;
            end
            assign route[8*i +: 8] = r;

`ifndef SYNTHESIS
            // A head flit must name an existing node.
            always @(posedge clk) begin
                if (!rst && fvalid[i] && front[W*i+W-1] &&
                    (c0 >= K0 || (NDIM > 1 && c1 >= K1) ||
                     (NDIM > 2 && c2 >= K2) || (NDIM > 3 && c3 >= K3)))
                    $fatal(1, "%m: head flit with address %h outside the %0d-D grid",
                           a, NDIM);
            end
`endif
        end
    endgenerate

    // ------------------------------------------------------------------
    // Outputs: owner / round robin / credits
    // ------------------------------------------------------------------
    wire [P*P-1:0]  sel;       // sel[P*o + i]: output o selects input i (one-hot)
    wire [P-1:0]    snd;       // output o sends this cycle

    genvar o;
    generate
        for (o = 0; o < P; o = o + 1) begin : g_out
            reg          own_v;    // owner[o] != none
            reg [IW-1:0] own;      // owner[o]
            reg [IW-1:0] rr;       // round-robin pointer
            wire         cr_ok;    // the channel has a credit

            hx_credit #(.B(B)) credit (
                .clk(clk), .rst(rst),
                .take(snd[o]), .give(out_credit[o]), .ok(cr_ok)
            );

            // Requesters: inputs whose front is a head flit routed here.
            // (An input with a head at its front owns no output, so a head
            // can never be sent to two outputs in one cycle.)
            reg [P-1:0] req;
            integer j;
            always @* begin
                for (j = 0; j < P; j = j + 1)
                    req[j] = fvalid[j] && front[W*j+W-1] && (route[8*j +: 8] == o);
            end

            // Round robin: first requester in the order rr, rr+1, ..., P-1,
            // 0, ..., rr-1, i.e. the lowest requester at or above rr if there
            // is one, else the lowest requester. Written without a runtime
            // index (no req[rr + k]): a mask, a priority chain giving the
            // grant one-hot, and an AND-OR encoder.
            reg          gnt_v;
            reg [IW-1:0] gnt;
            reg [P-1:0]  hi;       // requesters at or above rr
            reg [P-1:0]  cand;     // hi if any, else req
            reg [P-1:0]  goh;      // grant, one-hot (0: none)
            reg          seen;
            integer k;
            always @* begin
                for (k = 0; k < P; k = k + 1)
                    hi[k] = req[k] && (k[IW-1:0] >= rr);
                cand  = (|hi) ? hi : req;
                seen  = 1'b0;
                gnt   = {IW{1'b0}};
                for (k = 0; k < P; k = k + 1) begin
                    goh[k] = cand[k] && !seen;
                    seen   = seen || cand[k];
                    gnt    = gnt | ({IW{goh[k]}} & k[IW-1:0]);
                end
                gnt_v = seen;
            end

            // Selected input s, decoded once to one-hot; the flit, its tail
            // bit and the owner's ready are AND-OR selections over the inputs
            // (no front[W*s +: W]: Yosys makes a shifter of that).
            wire [IW-1:0] s = own_v ? own : gnt;
            reg  [P-1:0]  soh;     // soh[i] = (s == i), exactly one bit set
            reg  [W-1:0]  flit;
            reg           own_rdy; // fvalid[own]
            integer m;
            always @* begin
                flit    = {W{1'b0}};
                own_rdy = 1'b0;
                for (m = 0; m < P; m = m + 1) begin
                    soh[m]  = (s == m[IW-1:0]);
                    flit    = flit | ({W{soh[m]}} & front[W*m +: W]);
                    own_rdy = own_rdy | (soh[m] & fvalid[m]);
                end
            end
            wire          tail  = flit[W-2];
            // Owned: the owner's next flit goes as soon as it is ready
            // (s = own when owned). Free: a grant needs a requester; both
            // need a credit, and with no credit nothing changes (rr included).
            assign snd[o] = cr_ok && (own_v ? own_rdy : gnt_v);
            assign sel[P*o +: P] = soh;
            assign out_valid[o] = snd[o];
            assign out_flit[W*o +: W] = flit;

            always @(posedge clk) begin
                if (rst) begin
                    own_v <= 1'b0;
                    own   <= {IW{1'b0}};
                    rr    <= {IW{1'b0}};
                end else if (!own_v) begin
                    if (snd[o]) begin
                        rr    <= (gnt == PLAST) ? {IW{1'b0}} : gnt + IONE;
                        own   <= gnt;
                        own_v <= !tail;     // a 1-flit packet keeps no owner
                    end
                end else if (snd[o] && tail) begin
                    own_v <= 1'b0;          // ownership ends with the tail
                end
            end
        end
    endgenerate

    // Pop: an input is popped when the output that selected it sends. At most
    // one output selects a given input in a cycle (see req above).
    integer pi, po;
    always @* begin
        for (pi = 0; pi < P; pi = pi + 1) begin
            pop[pi] = 1'b0;
            for (po = 0; po < P; po = po + 1)
                pop[pi] = pop[pi] | (snd[po] & sel[P*po + pi]);
        end
    end
endmodule
