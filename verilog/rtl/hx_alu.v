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
