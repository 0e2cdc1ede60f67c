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
    wire [63:0] sum = a + b;
    wire        agt = a > b;
    assign y = (op == 3'd1) ? sum :
               (op == 3'd2) ? (agt ? a : b) :
               (op == 3'd3) ? (agt ? b : a) :
               (op == 3'd4) ? (a & b) :
               (op == 3'd5) ? (a | b) :
               (op == 3'd6) ? (a ^ b) : 64'd0;
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
    wire [63:0] cs_s = a ^ b ^ c;                    // carry-save: sum bits
    /* verilator lint_off UNUSED */
    wire [63:0] cs_k = (a & b) | (a & c) | (b & c);  // ... and carries (bit 63's leaves the word)
    /* verilator lint_on UNUSED */
    wire [63:0] sum  = cs_s + {cs_k[62:0], 1'b0};
    wire        ab   = a > b;
    wire        ac   = a > c;
    wire        bc   = b > c;
    wire [63:0] mx   = ab ? (ac ? a : c) : (bc ? b : c);
    wire [63:0] mn   = ab ? (bc ? c : b) : (ac ? c : a);
    assign y = (op == 3'd1) ? sum :
               (op == 3'd2) ? mx :
               (op == 3'd3) ? mn :
               (op == 3'd4) ? (a & b & c) :
               (op == 3'd5) ? (a | b | c) :
               (op == 3'd6) ? (a ^ b ^ c) : 64'd0;
endmodule
/* verilator lint_on DECLFILENAME */
