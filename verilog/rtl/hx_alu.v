// hx_alu: the 64-bit reduction operator of the barrier unit, selected at
// run time by the unit's CTRL.OP register (docs/registers.md).
//
// OP codes equal the Go model's barrierunit.Op values:
//   0 barrier (result always 0, no payload), 1 sum (wrapping add),
//   2 max (unsigned), 3 min (unsigned), 4 and, 5 or, 6 xor; 7 gives 0.
`timescale 1ns / 1ps
module hx_alu (
    input  [2:0]  op,
    input  [63:0] a,
    input  [63:0] b,
    output [63:0] y
);
    // A 64-bit add in two 32-bit carry chains side by side (carry select:
    // the high half for both carries, chosen by the low half's), a compare
    // in four 16-bit ones: a fraction of one 64-bit carry on the iCE40.
    function [63:0] add64;
        input [63:0] p, q;
        reg [32:0] lo;
        /* verilator lint_off UNUSED */
        reg [32:0] h1;
        /* verilator lint_on UNUSED */
        reg [31:0] h0;
        begin
            lo = {1'b0, p[31:0]} + {1'b0, q[31:0]};
            h0 = p[63:32] + q[63:32];
            h1 = {p[63:32], 1'b1} + {q[63:32], 1'b1};   // bits 32..1: p + q + 1
            add64 = {lo[32] ? h1[32:1] : h0, lo[31:0]};
        end
    endfunction
    // p > q from four 16-bit compares side by side, the highest unequal
    // quarter deciding.
    function gt64;
        input [63:0] p, q;
        reg [3:0] g;
        reg [3:1] e;
        begin
            g = {p[63:48] > q[63:48], p[47:32] > q[47:32], p[31:16] > q[31:16], p[15:0] > q[15:0]};
            e = {p[63:48] == q[63:48], p[47:32] == q[47:32], p[31:16] == q[31:16]};
            gt64 = g[3] || (e[3] && (g[2] || (e[2] && (g[1] || (e[1] && g[0])))));
        end
    endfunction
    wire [63:0] sum = add64(a, b);
    wire        agt = gt64(a, b);
    // One AND-OR over the op's decode, no priority chain behind the adder
    // or the compare: max and min select a or b by one line each.
    wire        sa  = (op == 3'd2 && agt) || (op == 3'd3 && !agt);
    wire        sb  = (op == 3'd2 && !agt) || (op == 3'd3 && agt);
    assign y = ({64{sa}} & a) | ({64{sb}} & b) | ({64{op == 3'd1}} & sum) |
               ({64{op == 3'd4}} & (a & b)) | ({64{op == 3'd5}} & (a | b)) | ({64{op == 3'd6}} & (a ^ b));
endmodule

// hx_alu3: the same operator over three operands, y = op(op(a, b), c), in
// one carry chain instead of two in series (the gate pass of
// hx_barrier_unit folds acc, the gate's received value and a value counted
// in the pass cycle at once; docs/area.md, "The unit's clock"). Every op is
// associative and commutative, so the order does not matter: sum adds the
// three by a carry-save stage (sum and carry bits, one LUT) and one adder;
// max and min compare the three pairs side by side and select; and, or,
// xor take the three bits at once. (In this file, not one of its own, so
// that every source list naming hx_alu.v has it.)
/* verilator lint_off DECLFILENAME */
module hx_alu3 (
    input  [2:0]  op,
    input  [63:0] a,
    input  [63:0] b,
    input  [63:0] c,
    output [63:0] y
);
    // A 64-bit add in two 32-bit carry chains side by side (carry select:
    // the high half for both carries, chosen by the low half's), a compare
    // in four 16-bit ones: a fraction of one 64-bit carry on the iCE40.
    function [63:0] add64;
        input [63:0] p, q;
        reg [32:0] lo;
        /* verilator lint_off UNUSED */
        reg [32:0] h1;
        /* verilator lint_on UNUSED */
        reg [31:0] h0;
        begin
            lo = {1'b0, p[31:0]} + {1'b0, q[31:0]};
            h0 = p[63:32] + q[63:32];
            h1 = {p[63:32], 1'b1} + {q[63:32], 1'b1};   // bits 32..1: p + q + 1
            add64 = {lo[32] ? h1[32:1] : h0, lo[31:0]};
        end
    endfunction
    // p > q from four 16-bit compares side by side, the highest unequal
    // quarter deciding.
    function gt64;
        input [63:0] p, q;
        reg [3:0] g;
        reg [3:1] e;
        begin
            g = {p[63:48] > q[63:48], p[47:32] > q[47:32], p[31:16] > q[31:16], p[15:0] > q[15:0]};
            e = {p[63:48] == q[63:48], p[47:32] == q[47:32], p[31:16] == q[31:16]};
            gt64 = g[3] || (e[3] && (g[2] || (e[2] && (g[1] || (e[1] && g[0])))));
        end
    endfunction
    wire [63:0] cs_s = a ^ b ^ c;                    // carry-save: sum bits
    /* verilator lint_off UNUSED */
    wire [63:0] cs_k = (a & b) | (a & c) | (b & c);  // ... and carries (bit 63's leaves the word)
    /* verilator lint_on UNUSED */
    wire [63:0] sum  = add64(cs_s, {cs_k[62:0], 1'b0});
    wire        ab   = gt64(a, b);
    wire        ac   = gt64(a, c);
    wire        bc   = gt64(b, c);
    // max = ab ? (ac ? a : c) : (bc ? b : c),
    // min = ab ? (bc ? c : b) : (ac ? c : a): one select line per operand.
    wire        mxa  = ab && ac,   mxb = !ab && bc;
    wire        mna  = !ab && !ac, mnb = ab && !bc;
    wire        sa   = (op == 3'd2 && mxa) || (op == 3'd3 && mna);
    wire        sb   = (op == 3'd2 && mxb) || (op == 3'd3 && mnb);
    wire        sc   = (op == 3'd2 && !mxa && !mxb) || (op == 3'd3 && !mna && !mnb);
    // One AND-OR over the op's decode, no priority chain behind the adder
    // or the compares.
    assign y = ({64{sa}} & a) | ({64{sb}} & b) | ({64{sc}} & c) | ({64{op == 3'd1}} & sum) |
               ({64{op == 3'd4}} & (a & b & c)) | ({64{op == 3'd5}} & (a | b | c)) |
               ({64{op == 3'd6}} & (a ^ b ^ c));
endmodule
/* verilator lint_on DECLFILENAME */
