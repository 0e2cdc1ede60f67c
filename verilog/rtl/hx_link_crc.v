// hx_link_crc: the link layer's per-flit check code (docs/reliability.md,
// "Link-level retry"): a CW-bit CRC, polynomial POLY (normal notation,
// x^CW implicit), initial value 0, no final XOR, the N bits of d fed most
// significant first. The generator passes hw.LinkCode (CRC-16F/5, Koopman
// 0xac9a: Hamming distance 5 up to 241 bits of d, so every error of up to
// 4 bits of d or of the code and every burst of up to CW bits is detected
// on any link word the limits allow). hx_link_tx and hx_link_rx also
// instantiate it for the ACK and credit words' code (N = SB, CW = KW = 5,
// POLY = KPOLY = 0x15: hw.CountCode, every error of up to 3 bits in a
// word detected).
//
// Combinational. The code is linear in d, so code bit j is the XOR of the
// bits of d that row(j) selects, a constant the elaboration computes by
// stepping the CRC; written as a reduction XOR it maps to a balanced tree
// (a bit-serial loop would leave synthesis a chain N deep).
`timescale 1ns / 1ps
module hx_link_crc #(
    parameter integer N  = 8,              // bits covered
    parameter integer CW = 16,             // code bits
    parameter [CW-1:0] POLY = 16'h5935     // hw.LinkCode
) (
    input  [N-1:0]  d,
    output [CW-1:0] c
);
    // row(j): bit i set when d[i] alone gives a code with bit j set. The
    // code of d[i] alone is the register after a 1 and then i 0s.
    function [N-1:0] row;
        /* verilator lint_off UNUSED */
        input integer j;               // below CW: its high bits are 0
        /* verilator lint_on UNUSED */
        integer       i;
        reg [CW-1:0]  r;
        reg [N-1:0]   m;
        begin
            r = POLY;
            for (i = 0; i < N; i = i + 1) begin
                m[i] = r[j];
                r = {r[CW-2:0], 1'b0} ^ (r[CW-1] ? POLY : {CW{1'b0}});
            end
            row = m;
        end
    endfunction

    genvar j;
    generate
        for (j = 0; j < CW; j = j + 1) begin : g_bit
            localparam [N-1:0] M = row(j);
            assign c[j] = ^(d & M);
        end
    endgenerate
endmodule
