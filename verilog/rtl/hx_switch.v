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
// W = FW+2+CB, flit = {head, tail, crc[CB-1:0], data[FW-1:0]} (the switch
// never looks at the check-code sideband).
//
// The routing table is TSIZE 8-bit registers written through the APB
// completer port (docs/registers.md, "Switch"): ID at 0x0000, CAPS at
// 0x0004, entry e at 0x1000 + 4e. Reset sets every entry to PASS (exchanger)
// or to the identity e (crossbar, the table the generator always writes), so
// no entry is ever X; software writes the real table after reset.
//
// Routing exceptions (E > 0): a CAM of E entries {valid, dst_addr[AB-1:0],
// port}, entry x at 0x2000 + 8x (address word) and 0x2004 + 8x (control
// word: bit 8 valid, 7..0 port), EXC (0x0008) reads E. Every input compares
// its front head's address with every valid entry in the cycle it looks up
// the table; a hit (the lowest matching entry) wins over the table
// (docs/reliability.md, "Routing around a dead channel"). E = 0: no
// registers, no comparators, the register map and the routes of a switch
// without exceptions.
//
// Illegal flits (docs/microarchitecture.md, "Illegal flits"; only faults
// make them): an input owning no output drops a head whose address names
// no node (and the rest of its packet, up to its tail) and any payload or
// tail flit; an input owning an output whose front is a head ends its
// packet with a cut tail (that head with the marks {0, 1}) on that output. DROPS (0x000C)
// counts them; the simulation-only assertions (achk) stop a fault-free
// testbench that meets one.
`timescale 1ns / 1ps
module hx_switch #(
    parameter integer P     = 2,         // ports (exchanger: NDIM+1; crossbar: K[XDIM])
    parameter integer FW    = 64,        // flit data width
    parameter integer B     = 2,         // input FIFO depth = initial output credits
    parameter integer MODE  = 0,         // 0 = exchanger, 1 = crossbar
    parameter integer NDIM  = 1,         // dimensions of the hyper-crossbar, 1..6
    parameter integer K0    = 2,         // dimension sizes (unused ones: 0)
    parameter integer K1    = 0,
    parameter integer K2    = 0,
    parameter integer K3    = 0,
    parameter integer K4    = 0,
    parameter integer K5    = 0,
    parameter integer XDIM  = 0,         // crossbar only: its dimension
    parameter integer CB    = 0,         // check-code sideband bits of a flit (0 or 32)
    parameter integer E     = 0,         // routing exception entries (CAM), 0..1024; 0: none
    parameter integer SP    = 0          // switch_pipeline: 1 registers the requests (a head requests a cycle later)
) (
    input                 clk,
    input                 rst,         // synchronous, active high
    // input side, from the upstream channels
    input  [P-1:0]        in_valid,    // push into input FIFO p
    input  [P*(FW+CB+2)-1:0] in_flit,
    output [P-1:0]        in_credit,   // input FIFO p popped (credit to upstream)
    // output side, to the downstream channels
    output [P-1:0]        out_valid,   // a flit is sent on output p
    output [P*(FW+CB+2)-1:0] out_flit,
    input  [P-1:0]        out_credit,  // credit returned to output p
    // configuration port: APB completer (docs/registers.md, "Switch")
    input                 psel,
    input                 penable,
    input                 pwrite,
    input  [15:0]         paddr,       // byte address; bits 1..0 ignored
    input  [31:0]         pwdata,
    output [31:0]         prdata,
    output                pready,
    output                pslverr
);
    localparam W  = FW + 2 + CB;
    localparam IW = (P <= 2) ? 1 : $clog2(P);   // width of a port number
    localparam integer  NT = 1 << IW;                     // leaves of the output multiplexer tree

    // Address layout: coordinate k occupies BKk bits at SHk, dimension 0 in
    // the LSBs; BKk = max(1, ceil(log2 Kk)), 0 for unused dimensions.
    localparam BK0 = (K0 <= 2) ? 1 : $clog2(K0);
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
    localparam AB  = BK0 + BK1 + BK2 + BK3 + BK4 + BK5;   // address bits

    // Exchanger table: dimension k's entries start at OFFk.
    localparam KU1 = (NDIM < 2) ? 0 : K1;
    localparam KU2 = (NDIM < 3) ? 0 : K2;
    localparam KU3 = (NDIM < 4) ? 0 : K3;
    localparam KU4 = (NDIM < 5) ? 0 : K4;
    localparam KU5 = (NDIM < 6) ? 0 : K5;
    localparam OFF1 = K0;
    localparam OFF2 = K0 + KU1;
    localparam OFF3 = K0 + KU1 + KU2;
    localparam OFF4 = K0 + KU1 + KU2 + KU3;
    localparam OFF5 = K0 + KU1 + KU2 + KU3 + KU4;
    localparam KX = (XDIM == 0) ? K0 : (XDIM == 1) ? K1 : (XDIM == 2) ? K2 :
                    (XDIM == 3) ? K3 : (XDIM == 4) ? K4 : K5;
    localparam TSIZE = (MODE == 0) ? (K0 + KU1 + KU2 + KU3 + KU4 + KU5) : KX;
    localparam [7:0] PASS = 8'hFF;

    // ------------------------------------------------------------------
    // Routing table registers and the configuration port
    // ------------------------------------------------------------------
    localparam [31:0] ID   = 32'h48585357;                  // "HXSW"
    localparam integer CAPSI = (P % 256) + (TSIZE % 65536) * 256 + ((MODE == 1) ? 16777216 : 0);
    localparam [31:0] CAPS = CAPSI;                         // {crossbar, TSIZE, P}

    wire [8*TSIZE-1:0] tab;    // entry e at tab[8*e +: 8]

    // Decode: word address aw = paddr[15:2]; the entries start at word 0x400.
    /* verilator lint_off UNUSED */
    wire [1:0]  pa_lo  = paddr[1:0];                        // ignored (32-bit registers)
    /* verilator lint_on UNUSED */
    wire [13:0] aw     = paddr[15:2];
    // The entries are words 0x400..0x7FF (TSIZE <= 1024), the exceptions
    // words 0x800..0xFFF (E <= 1024): the index is the address's low bits
    // (no subtractor, no wide compare on the write path).
    wire [13:0] eix    = {4'd0, aw[9:0]};                   // entry index
    wire        a_id   = (aw == 14'd0);
    wire        a_caps = (aw == 14'd1);
    wire        a_drop = (aw == 14'd3);                     // DROPS: read, or write (any value) to clear
    wire        a_ent  = (aw[13:10] == 4'd1) && ({22'd0, aw[9:0]} < TSIZE);
    // A value a table entry may hold: a port, or PASS in an exchanger (the
    // whole word: bits 31..8 must be 0).
    wire        v_ok   = (pwdata[31:8] == 24'd0) &&
                         (({24'd0, pwdata[7:0]} < P) || (MODE == 0 && pwdata[7:0] == PASS));
    wire        access = psel && penable;
    wire        wr     = access && pwrite && a_ent && v_ok;
    // Exceptions (mapped only when E > 0): EXC at word 2; entry x at words
    // 0x800 + 2x (address) and 0x801 + 2x (control: bit 8 valid, 7..0 port).
    localparam integer EN = (E < 1) ? 1 : E;
    localparam [31:0]  EXC = E;
    wire [12:0] xix     = {3'd0, aw[10:1]};                   // exception entry index
    wire        a_xcaps = (E > 0) && (aw == 14'd2);
    wire        a_x     = (E > 0) && (aw[13:11] == 3'd1) && ({19'd0, xix} < EN);
    wire        x_ok;                                        // a value the addressed word may hold
    wire [31:0] x_rd;                                        // read data of the addressed word
    // Refused: a read of an unmapped address; a write to an unmapped
    // address, to ID, CAPS or EXC (read-only), or of a value no entry may
    // hold.
    assign pslverr = access && (pwrite ? !(a_ent && v_ok || a_x && x_ok || a_drop) :
                                         !(a_id || a_caps || a_ent || a_xcaps || a_x || a_drop));
    assign pready  = 1'b1;

    // A crossbar entry is always a port (< P): it is stored in IW bits (the
    // upper bits read as 0). An exchanger entry is stored in 8 bits (PASS).
    localparam EW = (MODE == 1) ? IW : 8;

    genvar e;
    generate
        for (e = 0; e < TSIZE; e = e + 1) begin : g_tab
            localparam integer  RSTI = (MODE == 0) ? 255 : e;
            localparam [EW-1:0] RSTV = RSTI[EW-1:0];
            localparam [13:0]   EIX  = e;
            reg [EW-1:0] ent;
            always @(posedge clk) begin
                if (rst)
                    ent <= RSTV;
                else if (wr && eix == EIX)
                    ent <= pwdata[EW-1:0];  // at the edge ending the access cycle
            end
            if (EW < 8) begin : narrow
                assign tab[8*e +: 8] = {{(8-EW){1'b0}}, ent};
            end else begin : full
                assign tab[8*e +: 8] = ent;
            end
        end
    endgenerate

    // Read data: ID, CAPS or entry eix (AND-OR over the entries), else 0.
    reg [7:0] rd_ent;
    integer q;
    always @* begin
        rd_ent = 8'd0;
        for (q = 0; q < TSIZE; q = q + 1)
            rd_ent = rd_ent | ({8{eix == q[13:0]}} & tab[8*q +: 8]);
    end
    wire [31:0] drops;         // DROPS (below)
    assign prdata = a_id ? ID : a_caps ? CAPS : a_ent ? {24'd0, rd_ent} :
                    a_xcaps ? EXC : a_x ? x_rd : a_drop ? drops : 32'd0;

`ifndef SYNTHESIS
    // 1: stop the simulation on an illegal flit (a fault-free run has
    // none); a fault testbench writes 0 at time 0.
    reg achk = 1'b1;
    initial begin
        // (P <= 255: an entry is an 8-bit port number, 0xFF is PASS.)
        if (NDIM < 1 || NDIM > 6 || (MODE == 0 && P != NDIM + 1) ||
            (MODE == 1 && (XDIM >= NDIM || P != KX)) || FW < AB || P > 255 || TSIZE > 1024 ||
            E < 0 || E > 1024 || SP < 0 || SP > 1)
            $fatal(1, "%m: inconsistent parameters P=%0d MODE=%0d NDIM=%0d XDIM=%0d FW=%0d E=%0d SP=%0d",
                   P, MODE, NDIM, XDIM, FW, E, SP);
    end
`endif

    // Route lookup sub-tables, decoded. Entry e's port one-hot (toh, 0 for
    // PASS) and its PASS bit (tps), decoded from the registers, so that an
    // input's lookup is a multiplexer of these bits (no compare after it).
    // Coordinate k (BKk bits, value c) reads entry OFFk + c, or PASS when
    // that index is past the table (only an address outside the grid, which
    // the simulation stops on, gets there). Sub-table k holds the entries
    // for every value of c: NSk = 2^max(1, BKk) words of P one-hot bits
    // (sok) and NSk PASS bits (spk), built by wiring (the constant index
    // folds).
    localparam BKX = (XDIM == 0) ? BK0 : (XDIM == 1) ? BK1 : (XDIM == 2) ? BK2 :
                     (XDIM == 3) ? BK3 : (XDIM == 4) ? BK4 : BK5;
    localparam integer SB0 = (BK0 < 1) ? 1 : BK0;
    localparam integer SB1 = (BK1 < 1) ? 1 : BK1;
    localparam integer SB2 = (BK2 < 1) ? 1 : BK2;
    localparam integer SB3 = (BK3 < 1) ? 1 : BK3;
    localparam integer SB4 = (BK4 < 1) ? 1 : BK4;
    localparam integer SB5 = (BK5 < 1) ? 1 : BK5;
    localparam integer SBX = (BKX < 1) ? 1 : BKX;
    localparam integer NS0 = 1 << SB0;
    localparam integer NS1 = 1 << SB1;
    localparam integer NS2 = 1 << SB2;
    localparam integer NS3 = 1 << SB3;
    localparam integer NS4 = 1 << SB4;
    localparam integer NS5 = 1 << SB5;
    localparam integer NSX = 1 << SBX;
    wire [P*TSIZE-1:0] toh;    // entry e's port, one-hot, at [P*e +: P] (0: PASS)
    wire [TSIZE-1:0]   tps;    // entry e is PASS
    wire [P*NS0-1:0] so0;
    wire [P*NS1-1:0] so1;
    wire [P*NS2-1:0] so2;
    wire [P*NS3-1:0] so3;
    wire [P*NS4-1:0] so4;
    wire [P*NS5-1:0] so5;
    wire [P*NSX-1:0] sox;
    wire [NS0-1:0]   sp0;
    wire [NS1-1:0]   sp1;
    wire [NS2-1:0]   sp2;
    wire [NS3-1:0]   sp3;
    wire [NS4-1:0]   sp4;
    wire [NS5-1:0]   sp5;

    genvar sj, sk;
    generate
        for (sj = 0; sj < TSIZE; sj = sj + 1) begin : g_dec
            for (sk = 0; sk < P; sk = sk + 1) begin : g_k
                assign toh[P*sj + sk] = (tab[8*sj +: 8] == sk);
            end
            assign tps[sj] = (tab[8*sj +: 8] == PASS);
        end
        for (sj = 0; sj < NS0; sj = sj + 1) begin : g_s0
            if (sj < TSIZE) begin : in_t
                assign so0[P*sj +: P] = toh[P*sj +: P];
                assign sp0[sj] = tps[sj];
            end else begin : past
                assign so0[P*sj +: P] = {P{1'b0}};
                assign sp0[sj] = 1'b1;
            end
        end
        for (sj = 0; sj < NS1; sj = sj + 1) begin : g_s1
            if (OFF1 + sj < TSIZE) begin : in_t
                assign so1[P*sj +: P] = toh[P*(OFF1+sj) +: P];
                assign sp1[sj] = tps[OFF1+sj];
            end else begin : past
                assign so1[P*sj +: P] = {P{1'b0}};
                assign sp1[sj] = 1'b1;
            end
        end
        for (sj = 0; sj < NS2; sj = sj + 1) begin : g_s2
            if (OFF2 + sj < TSIZE) begin : in_t
                assign so2[P*sj +: P] = toh[P*(OFF2+sj) +: P];
                assign sp2[sj] = tps[OFF2+sj];
            end else begin : past
                assign so2[P*sj +: P] = {P{1'b0}};
                assign sp2[sj] = 1'b1;
            end
        end
        for (sj = 0; sj < NS3; sj = sj + 1) begin : g_s3
            if (OFF3 + sj < TSIZE) begin : in_t
                assign so3[P*sj +: P] = toh[P*(OFF3+sj) +: P];
                assign sp3[sj] = tps[OFF3+sj];
            end else begin : past
                assign so3[P*sj +: P] = {P{1'b0}};
                assign sp3[sj] = 1'b1;
            end
        end
        for (sj = 0; sj < NS4; sj = sj + 1) begin : g_s4
            if (OFF4 + sj < TSIZE) begin : in_t
                assign so4[P*sj +: P] = toh[P*(OFF4+sj) +: P];
                assign sp4[sj] = tps[OFF4+sj];
            end else begin : past
                assign so4[P*sj +: P] = {P{1'b0}};
                assign sp4[sj] = 1'b1;
            end
        end
        for (sj = 0; sj < NS5; sj = sj + 1) begin : g_s5
            if (OFF5 + sj < TSIZE) begin : in_t
                assign so5[P*sj +: P] = toh[P*(OFF5+sj) +: P];
                assign sp5[sj] = tps[OFF5+sj];
            end else begin : past
                assign so5[P*sj +: P] = {P{1'b0}};
                assign sp5[sj] = 1'b1;
            end
        end
        for (sj = 0; sj < NSX; sj = sj + 1) begin : g_sx
            if (sj < TSIZE) begin : in_t
                assign sox[P*sj +: P] = toh[P*sj +: P];
            end else begin : past
                assign sox[P*sj +: P] = {P{1'b0}};
            end
        end
    endgenerate

    // ------------------------------------------------------------------
    // Input FIFOs and route computation
    // ------------------------------------------------------------------
    wire [P*W-1:0] front;      // front flit of every input
    wire [P-1:0]   fvalid;     // front flit present (= ready, see hx_fifo)
    reg  [P-1:0]   pop;        // input popped this cycle
    wire [P*P-1:0] route;      // route(i) of the front flit, one-hot at [P*i +: P] (meaningful for heads)
    wire [P-1:0]   xhit;       // the front's address matches a valid exception
    wire [P-1:0]   legal;      // the front may request (not a head that names no node)
    // Illegal-flit events of the cycle, per input (ev_*) and per output
    // (cut_o), counted into DROPS.
    wire [P-1:0]   ev_oog, ev_orph, ev_dis, ev_cuti;
    wire [P-1:0]   cut_o;      // output o sends a cut tail
    wire [P-1:0]   pq;         // SP = 1: input popped in the last cycle (registered pop)
    reg  [P-1:0]   in_own;     // input i owns an output
    wire [P*8-1:0] xport;      // the port of the lowest matching exception

    // ------------------------------------------------------------------
    // Routing exception CAM (E > 0)
    // ------------------------------------------------------------------
    genvar xe, xi;
    generate
        if (E > 0) begin : g_cam
            wire xhalf = aw[0];                // 0 address word, 1 control word
            wire wr_x  = access && pwrite && a_x && x_ok;
            reg  [EN-1:0]    cv;               // entry x valid at [x]
            reg  [EN*AB-1:0] ca;               // its destination address at [AB*x +: AB]
            reg  [EN*IW-1:0] cn;               // its port at [IW*x +: IW] (a port < P)
            wire [EN*8-1:0]  cp;               // the port in 8 bits at [8*x +: 8]
            // A value the addressed word may hold: an address word names a
            // node of the grid (no bit at or above AB, every coordinate
            // below its dimension's size); a control word has bits 31..9
            // zero and a port below P.
            wire [31:0] w0 = pwdata & ((32'd1 << BK0) - 32'd1);
            wire [31:0] w1 = (pwdata >> SH1) & ((32'd1 << BK1) - 32'd1);
            wire [31:0] w2 = (pwdata >> SH2) & ((32'd1 << BK2) - 32'd1);
            wire [31:0] w3 = (pwdata >> SH3) & ((32'd1 << BK3) - 32'd1);
            wire [31:0] w4 = (pwdata >> SH4) & ((32'd1 << BK4) - 32'd1);
            wire [31:0] w5 = (pwdata >> SH5) & ((32'd1 << BK5) - 32'd1);
            wire a_ok = ((pwdata >> AB) == 32'd0) && (w0 < K0) && (NDIM < 2 || w1 < K1) &&
                        (NDIM < 3 || w2 < K2) && (NDIM < 4 || w3 < K3) &&
                        (NDIM < 5 || w4 < K4) && (NDIM < 6 || w5 < K5);
            wire c_ok = (pwdata[31:9] == 23'd0) && ({24'd0, pwdata[7:0]} < P);
            assign x_ok = xhalf ? c_ok : a_ok;

            // The entries: one process for all of them (the loop runs only in
            // the cycle of a write; its index is a constant for synthesis,
            // so every entry gets its own write enable, as for the table).
            integer xw;
            always @(posedge clk) begin
                if (rst) begin
                    for (xw = 0; xw < EN; xw = xw + 1) begin
                        cv[xw]          <= 1'b0;
                        ca[AB*xw +: AB] <= {AB{1'b0}};
                        cn[IW*xw +: IW] <= {IW{1'b0}};
                    end
                end else if (wr_x) begin
                    for (xw = 0; xw < E; xw = xw + 1)
                        if (xix == xw[12:0]) begin
                            if (xhalf) begin
                                cv[xw]           <= pwdata[8];
                                cn[IW*xw +: IW]  <= pwdata[IW-1:0];
                            end else begin
                                ca[AB*xw +: AB]  <= pwdata[AB-1:0];
                            end
                        end
                end
            end
            for (xe = 0; xe < E; xe = xe + 1) begin : g_x
                if (IW < 8) begin : narrow
                    assign cp[8*xe +: 8] = {{(8-IW){1'b0}}, cn[IW*xe +: IW]};
                end else begin : full
                    assign cp[8*xe +: 8] = cn[IW*xe +: IW];
                end
            end

            // Read data: the addressed entry's word (AND-OR over the entries).
            reg [31:0] rd_x;
            integer xq;
            always @* begin
                rd_x = 32'd0;
                for (xq = 0; xq < E; xq = xq + 1)
                    rd_x = rd_x | ({32{xix == xq[12:0]}} &
                                   (xhalf ? {23'd0, cv[xq], cp[8*xq +: 8]}
                                          : {{(32-AB){1'b0}}, ca[AB*xq +: AB]}));
            end
            assign x_rd = rd_x;

            // Lookup, per input, in the cycle of the table's: the lowest
            // valid entry whose address equals the front flit's (all AB
            // bits) gives the port.
            for (xi = 0; xi < P; xi = xi + 1) begin : g_lk
                wire [AB-1:0] fa = front[W*xi +: AB];
                reg           h;
                reg  [7:0]    hp;
                integer       xk;
                always @* begin
                    h  = 1'b0;
                    hp = 8'd0;
                    for (xk = E - 1; xk >= 0; xk = xk - 1)
                        if (cv[xk] && ca[AB*xk +: AB] == fa) begin
                            h  = 1'b1;
                            hp = cp[8*xk +: 8];
                        end
                end
                assign xhit[xi] = h;
                assign xport[8*xi +: 8] = hp;
            end
        end else begin : g_nocam
            assign x_ok  = 1'b0;
            assign x_rd  = 32'd0;
            assign xhit  = {P{1'b0}};
            assign xport = {8*P{1'b0}};
        end
    endgenerate

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
            wire [31:0] c4 = (a >> SH4) & ((32'd1 << BK4) - 32'd1);
            wire [31:0] c5 = (a >> SH5) & ((32'd1 << BK5) - 32'd1);
            wire [SBX-1:0] cx = (XDIM == 0) ? c0[SBX-1:0] : (XDIM == 1) ? c1[SBX-1:0] :
                                (XDIM == 2) ? c2[SBX-1:0] : (XDIM == 3) ? c3[SBX-1:0] :
                                (XDIM == 4) ? c4[SBX-1:0] : c5[SBX-1:0];
            // Table entries of the coordinates, decoded: the sub-tables
            // above (an index past the table reads as PASS) indexed by the
            // coordinate, a multiplexer tree over a few P-bit words.
            wire [P-1:0] o0 = so0[P*c0[SB0-1:0] +: P];
            wire [P-1:0] o1 = so1[P*c1[SB1-1:0] +: P];
            wire [P-1:0] o2 = so2[P*c2[SB2-1:0] +: P];
            wire [P-1:0] o3 = so3[P*c3[SB3-1:0] +: P];
            wire [P-1:0] o4 = so4[P*c4[SB4-1:0] +: P];
            wire [P-1:0] o5 = so5[P*c5[SB5-1:0] +: P];
            wire [P-1:0] ox = sox[P*cx +: P];
            wire         p0 = sp0[c0[SB0-1:0]];
            wire         p1 = sp1[c1[SB1-1:0]];
            wire         p2 = sp2[c2[SB2-1:0]];
            wire         p3 = sp3[c3[SB3-1:0]];
            wire         p4 = sp4[c4[SB4-1:0]];
            wire         p5 = sp5[c5[SB5-1:0]];
            reg  [P-1:0] r;

            // Exchanger: the first dimension (0, 1, ...) whose entry is not
            // PASS decides; all PASS means "arrived": local port 0.
            // Crossbar: the entry of the coordinate in its own dimension (a
            // PASS there, past the table, routes nowhere).
            always @* begin
                if (MODE == 1)
                    r = ox;
                else if (!p0)
                    r = o0;
                else if (NDIM > 1 && !p1)
                    r = o1;
                else if (NDIM > 2 && !p2)
                    r = o2;
                else if (NDIM > 3 && !p3)
                    r = o3;
                else if (NDIM > 4 && !p4)
                    r = o4;
                else if (NDIM > 5 && !p5)
                    r = o5;
                else
                    r = {{(P-1){1'b0}}, 1'b1};
            end
            // A routing exception that matches the head's address wins.
            reg  [P-1:0] xr;       // its port, one-hot
            integer xo;
            always @* begin
                for (xo = 0; xo < P; xo = xo + 1)
                    xr[xo] = (xport[8*i +: 8] == xo[7:0]);
            end
            assign route[P*i +: P] = xhit[i] ? xr : r;

            // Illegal flits. hd, tl: the front's marks; oog: a head whose
            // address names no node. An input owning no output drops its
            // front when it is not a legal head (pop below); dv: it is
            // dropping the rest of an out-of-grid packet (up to its tail).
            wire hd  = front[W*i+W-1];
            wire tl  = front[W*i+W-2];
            wire oog = hd && (c0 >= K0 || (NDIM > 1 && c1 >= K1) ||
                              (NDIM > 2 && c2 >= K2) || (NDIM > 3 && c3 >= K3) ||
                              (NDIM > 4 && c4 >= K4) || (NDIM > 5 && c5 >= K5));
            wire idle = fvalid[i] && !in_own[i];
            reg  dv;
            always @(posedge clk) begin
                if (rst)
                    dv <= 1'b0;
                else if (idle)
                    dv <= hd ? (oog && !tl) : (dv && !tl);
            end
            assign legal[i]   = !oog;
            assign ev_dis[i]  = idle && (!hd || oog);
            assign ev_oog[i]  = idle && oog;
            assign ev_orph[i] = idle && !hd && !dv;
            assign ev_cuti[i] = idle && hd && dv;

`ifndef SYNTHESIS
            // Assertions of a fault-free run (a fault testbench clears
            // achk: there, the drops above are the behaviour checked).
            always @(posedge clk) begin
                if (achk && !rst && fvalid[i] && oog)
                    $fatal(1, "%m: head flit with address %h outside the %0d-D grid",
                           a, NDIM);
                if (achk && !rst && idle && !hd)
                    $fatal(1, "%m: a payload or tail flit at an input with no packet open");
                if (achk && !rst && fvalid[i] && in_own[i] && hd)
                    $fatal(1, "%m: a head flit at an input whose packet is open");
            end
`endif
        end
    endgenerate

    // ------------------------------------------------------------------
    // Outputs: owner / round robin / credits
    // ------------------------------------------------------------------
    // Every select below is one-hot and every multiplexer an AND-OR over
    // the inputs: the grant (goh) selects, pops and becomes the owner
    // without being encoded to a port number and decoded again.
    wire [P-1:0]    snd;       // output o sends this cycle
    wire [P*P-1:0]  owns;      // owns[P*o + i]: input i owns output o (registers only)
    wire [P*P-1:0]  pops;      // pops[P*o + i]: output o pops input i this cycle
    wire [P-1:0]    hd_f, tl_f;                     // the fronts' head and tail marks
    integer oi, oo;
    always @* begin
        for (oi = 0; oi < P; oi = oi + 1) begin
            in_own[oi] = 1'b0;
            for (oo = 0; oo < P; oo = oo + 1)
                in_own[oi] = in_own[oi] | owns[P*oo + oi];
        end
    end

    genvar o, fi;
    generate
        for (fi = 0; fi < P; fi = fi + 1) begin : g_mk
            assign hd_f[fi] = front[W*fi + W-1];
            assign tl_f[fi] = front[W*fi + W-2];
        end
        for (o = 0; o < P; o = o + 1) begin : g_out
            reg  [P-1:0] own;      // owner[o], one-hot; 0: none
            reg  [P-1:0] rrm;      // round robin: rrm[k] = (k >= rr)
            wire         own_v = |own;
            wire         cr_ok;    // the channel has a credit

            hx_credit #(.B(B)) credit (
                .clk(clk), .rst(rst),
                .take(snd[o]), .give(out_credit[o]), .ok(cr_ok)
            );

            // Requesters: inputs that own no output and whose front is a
            // head flit naming a node, routed here. An input that owns an
            // output forwards its payload and tail flits through it; a
            // head there cuts the packet (cut below), so a head is never
            // sent to two outputs in one cycle.
            //
            // SP = 1 (switch_pipeline): the requests of cycle t are those
            // computed in cycle t-1 (rqq, a register), less the inputs
            // popped in cycle t-1 (pq: their front is another flit now).
            // A head requests from the second cycle it is at the front of
            // an input owning no output; the route lookup ends at rqq,
            // the arbitration starts there.
            reg [P-1:0] rqc;       // the requests of the fronts of this cycle
            integer j;
            always @* begin
                for (j = 0; j < P; j = j + 1)
                    rqc[j] = fvalid[j] && hd_f[j] && legal[j] && !in_own[j] && route[P*j + o];
            end
            wire [P-1:0] req;
            if (SP == 1) begin : g_rq
                reg [P-1:0] rqq;
                always @(posedge clk) begin
                    if (rst)
                        rqq <= {P{1'b0}};
                    else
                        rqq <= rqc;
                end
                assign req = rqq & ~pq;
            end else begin : g_rc
                assign req = rqc & ~pq;    // pq = 0: the requests of this cycle
            end

            // Round robin: first requester in the order rr, rr+1, ..., P-1,
            // 0, ..., rr-1, i.e. the lowest requester at or above rr if there
            // is one, else the lowest requester: a mask (rrm, a register), a
            // priority chain giving the grant one-hot.
            reg [P-1:0]  hi;       // requesters at or above rr
            reg [P-1:0]  goh;      // grant, one-hot (0: none)
            reg          shi, srq;
            integer k;
            always @* begin
                hi  = req & rrm;
                shi = 1'b0;
                srq = 1'b0;
                for (k = 0; k < P; k = k + 1) begin
                    goh[k] = (hi[k] && !shi) || (!(|hi) && req[k] && !srq);
                    shi    = shi || hi[k];
                    srq    = srq || req[k];
                end
            end
            wire gnt_v = |req;

            // Selected input s: the owner when owned, else the grant, as a
            // port number (an AND-OR encoder of the one-hot select). The
            // flit is read by a binary multiplexer tree indexed by s (P-1
            // two-way multiplexers of W bits); s is always a port (< P),
            // and the leaves past P repeat input P-1, so those
            // multiplexers fold away. (No front[W*s +: W]: Yosys makes a
            // shifter of that; an AND-OR select over the one-hot select
            // costs about twice the cells.)
            wire [P-1:0]  soh = own_v ? own : goh;
            reg  [IW-1:0] s;
            integer m;
            always @* begin
                s = {IW{1'b0}};
                for (m = 0; m < P; m = m + 1)
                    s = s | ({IW{soh[m]}} & m[IW-1:0]);
            end
            // Level k of the tree holds NT >> k words of W bits, at word
            // offset 2*NT - (2*NT >> k) of mt; the root is word 2*NT - 2.
            reg  [(2*NT-1)*W-1:0] mt;
            integer lv, lx, li;
            always @* begin
                for (lx = 0; lx < NT; lx = lx + 1) begin
                    li = (lx < P) ? lx : P - 1;
                    mt[W*lx +: W] = front[W*li +: W];
                end
                for (lv = 0; lv < IW; lv = lv + 1)
                    for (lx = 0; lx < (NT >> (lv + 1)); lx = lx + 1)
                        mt[W*(2*NT - ((2*NT) >> (lv + 1)) + lx) +: W] = s[lv] ?
                            mt[W*(2*NT - ((2*NT) >> lv) + 2*lx + 1) +: W] :
                            mt[W*(2*NT - ((2*NT) >> lv) + 2*lx) +: W];
            end
            wire [W-1:0] flit = mt[W*(2*NT-2) +: W];
            // The owner's front, from registers and the fronts only: ready,
            // a head, a tail.
            wire own_rdy = |(own & fvalid);
            wire own_hd  = |(own & fvalid & hd_f);
            // A head at the owner's front: the output sends its cut tail
            // instead (the head's bits, head mark 0, tail mark 1: zeroing
            // the data too would cost about 300 cells a port), the head
            // stays, and the output is free from the next cycle (the head
            // then requests as any other).
            wire          cut   = own_hd;
            // Owned: the owner's next flit goes as soon as it is ready
            // (s = own when owned). Free: a grant needs a requester; both
            // need a credit, and with no credit nothing changes (rr included).
            assign snd[o] = cr_ok && (own_v ? own_rdy : gnt_v);
            // Popped: the owner's front when it is sent and not a head
            // (a cut keeps the head), the granted input's when free.
            assign pops[P*o +: P] = {P{cr_ok}} & (own_v ? (own & fvalid & ~hd_f) : goh);
            assign owns[P*o +: P] = own;
            assign out_valid[o] = snd[o];
            assign out_flit[W*o +: W] = {flit[W-1] & !cut, flit[W-2] | cut, flit[W-3:0]};
            assign cut_o[o] = cut;

            // rr after a grant: the input after it (rrm[k] = k > grant, all
            // ones after a grant to P-1).
            reg  [P-1:0] rrn;
            reg          below;
            integer n;
            always @* begin
                below = 1'b0;
                for (n = 0; n < P; n = n + 1) begin
                    rrn[n] = below || goh[P-1];
                    below  = below || goh[n];
                end
            end

            // The owner after this cycle, bit by bit (own and goh are
            // one-hot): owned, input k keeps it unless its tail or a head
            // (a cut) goes; free, the grant takes it unless its flit is a
            // tail (a 1-flit packet keeps no owner).
            wire [P-1:0] own_n = own_v ? own & ~({P{cr_ok}} & fvalid & (tl_f | hd_f))
                                       : {P{cr_ok}} & goh & ~tl_f;
            always @(posedge clk) begin
                if (rst) begin
                    own <= {P{1'b0}};
                    rrm <= {P{1'b1}};
                end else begin
                    own <= own_n;
                    if (!own_v && snd[o])
                        rrm <= rrn;
                end
            end
        end
    endgenerate

    // Pop: an input is popped when the output that selected it sends a
    // flit of it (not a cut tail), or when it drops its front. At most one
    // output selects a given input in a cycle (see req above), and an input
    // that drops owns no output.
    integer pi, po;
    always @* begin
        for (pi = 0; pi < P; pi = pi + 1) begin
            pop[pi] = ev_dis[pi];
            for (po = 0; po < P; po = po + 1)
                pop[pi] = pop[pi] | pops[P*po + pi];
        end
    end
    // SP = 1: the inputs popped in the last cycle (their requests of
    // that cycle were for the flit that left); SP = 0: none (a constant,
    // folded: the switch is the one-cycle decision, no flip-flop added).
    generate
        if (SP == 1) begin : g_pq
            reg [P-1:0] pq_r;
            always @(posedge clk) begin
                if (rst)
                    pq_r <= {P{1'b0}};
                else
                    pq_r <= pop;
            end
            assign pq = pq_r;
        end else begin : g_pq0
            assign pq = {P{1'b0}};
        end
    endgenerate

    // ------------------------------------------------------------------
    // DROPS (0x000C): 7..0 out-of-grid heads, 15..8 orphan flits, 23..16
    // cut packets, 31..24 flits dropped; each saturates at 255. A write
    // (any value) clears them at the edge ending its access cycle; the
    // events of that cycle count from 0.
    //
    // Off the arbitration path: the edge ending cycle t only registers the
    // events of cycle t (ev_q, one flip-flop per event bit); the counters
    // (d_*) add them at the next edge. The value read (drops) is the
    // counters plus the registered events, saturated: at the end of cycle
    // t it counts every event of cycles 0..t, as if the edge ending t had
    // added them (the adders are on the read path, from flip-flops only).
    // ------------------------------------------------------------------
    reg  [P-1:0] q_oog, q_orph, q_dis, q_cuti, q_cuto;   // the events of the last cycle
    always @(posedge clk) begin
        if (rst) begin
            q_oog <= {P{1'b0}}; q_orph <= {P{1'b0}}; q_dis <= {P{1'b0}};
            q_cuti <= {P{1'b0}}; q_cuto <= {P{1'b0}};
        end else begin
            q_oog  <= ev_oog;
            q_orph <= ev_orph;
            q_dis  <= ev_dis;
            q_cuti <= ev_cuti;
            q_cuto <= snd & cut_o;
        end
    end
    // Events of a cycle: at most P per counter (2P cuts: an input's and
    // an output's), in CW bits.
    localparam integer CW = $clog2(2 * P + 1);
    reg [CW-1:0] n_oog, n_orph, n_cut, n_fl;
    integer dq;
    always @* begin
        n_oog = {CW{1'b0}}; n_orph = {CW{1'b0}}; n_cut = {CW{1'b0}}; n_fl = {CW{1'b0}};
        for (dq = 0; dq < P; dq = dq + 1) begin
            n_oog  = n_oog  + {{(CW-1){1'b0}}, q_oog[dq]};
            n_orph = n_orph + {{(CW-1){1'b0}}, q_orph[dq]};
            n_fl   = n_fl   + {{(CW-1){1'b0}}, q_dis[dq]};
            n_cut  = n_cut  + {{(CW-1){1'b0}}, q_cuti[dq]} + {{(CW-1){1'b0}}, q_cuto[dq]};
        end
    end
    wire clr = access && pwrite && a_drop;
    function [7:0] sat;        // c + n, at most 255
        input [7:0]    c;
        input [CW-1:0] n;
        reg   [CW+8:0] v;
        begin
            v   = {{(CW+1){1'b0}}, c} + {9'd0, n};
            sat = (v > 255) ? 8'hFF : v[7:0];
        end
    endfunction
    reg [7:0] d_oog, d_orph, d_cut, d_fl;  // the events up to the cycle before the last
    wire [7:0] v_oog  = sat(d_oog, n_oog);   // ... and the last cycle's: the counts read
    wire [7:0] v_orph = sat(d_orph, n_orph);
    wire [7:0] v_cut  = sat(d_cut, n_cut);
    wire [7:0] v_fl   = sat(d_fl, n_fl);
    always @(posedge clk) begin
        if (rst || clr) begin
            d_oog <= 8'd0; d_orph <= 8'd0; d_cut <= 8'd0; d_fl <= 8'd0;
        end else begin
            d_oog  <= v_oog;
            d_orph <= v_orph;
            d_cut  <= v_cut;
            d_fl   <= v_fl;
        end
    end
    assign drops = {v_fl, v_cut, v_orph, v_oog};
endmodule
