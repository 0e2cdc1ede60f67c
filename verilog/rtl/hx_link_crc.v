// hx_link_crc: the link layer's per-flit check code (docs/reliability.md,
// "Link-level retry"): a CW-bit CRC, polynomial POLY (normal notation,
// x^CW implicit), initial value 0, no final XOR, the N bits of d fed most
// significant first. The generator passes hw.LinkCode (CRC-16F/5, Koopman
// 0xac9a: Hamming distance 5 up to 241 bits of d, so every error of up to
// 4 bits of d or of the code and every burst of up to CW bits is detected
// on any link word the limits allow). Combinational (an XOR tree).
`timescale 1ns / 1ps
module hx_link_crc #(
    parameter integer N  = 8,              // bits covered
    parameter integer CW = 16,             // code bits
    parameter [CW-1:0] POLY = 16'h5935     // hw.LinkCode
) (
    input  [N-1:0]  d,
    output [CW-1:0] c
);
    reg [CW-1:0] r;
    integer i;
    always @(*) begin
        r = {CW{1'b0}};
        for (i = N - 1; i >= 0; i = i - 1)
            r = {r[CW-2:0], 1'b0} ^ ((r[CW-1] ^ d[i]) ? POLY : {CW{1'b0}});
    end
    assign c = r;
endmodule
