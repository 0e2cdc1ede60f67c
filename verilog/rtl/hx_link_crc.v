// hx_link_crc: the link layer's per-flit check code (docs/reliability.md,
// "Link-level retry"): CRC-8, polynomial x^8 + x^2 + x + 1 (0x07), initial
// value 0, no final XOR, the N bits of d fed most significant first.
// Combinational (an XOR tree); every single-bit error of d or of the code,
// every double-bit error and every burst of up to 8 bits is detected.
`timescale 1ns / 1ps
module hx_link_crc #(
    parameter integer N = 8      // bits covered
) (
    input  [N-1:0] d,
    output [7:0]   c
);
    reg [7:0] r;
    integer i;
    always @(*) begin
        r = 8'h00;
        for (i = N - 1; i >= 0; i = i - 1)
            r = {r[6:0], 1'b0} ^ ((r[7] ^ d[i]) ? 8'h07 : 8'h00);
    end
    assign c = r;
endmodule
