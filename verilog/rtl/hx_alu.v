// hx_alu: the 64-bit reduction operator of the barrier unit.
//
// OP codes equal the Go model's barrierunit.Op values, so the generator can
// pass the enum straight through:
//   0 barrier (result always 0, no payload), 1 sum (wrapping add),
//   2 max (unsigned), 3 min (unsigned), 4 and, 5 or, 6 xor.
`timescale 1ns / 1ps
module hx_alu #(
    parameter integer OP = 0
) (
    input  [63:0] a,
    input  [63:0] b,
    output [63:0] y
);
    generate
        if (OP == 1) begin : g_sum
            assign y = a + b;
        end else if (OP == 2) begin : g_max
            assign y = (a > b) ? a : b;
        end else if (OP == 3) begin : g_min
            assign y = (a < b) ? a : b;
        end else if (OP == 4) begin : g_and
            assign y = a & b;
        end else if (OP == 5) begin : g_or
            assign y = a | b;
        end else if (OP == 6) begin : g_xor
            assign y = a ^ b;
        end else begin : g_barrier
            // A barrier carries no value: everything it produces is 0.
            assign y = 64'd0;
            wire _unused_ok = &{1'b0, a, b};
        end
    endgenerate

`ifndef SYNTHESIS
    initial begin
        if (OP < 0 || OP > 6)
            $fatal(1, "%m: OP = %0d is not one of 0..6 (barrier, sum, max, min, and, or, xor)", OP);
    end
`endif
endmodule
