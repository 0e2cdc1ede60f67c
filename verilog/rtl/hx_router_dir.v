// hx_router_dir: one dimension's direction register of hx_router
// (docs/registers.md, "Torus router"). PLUS holds, per destination
// coordinate c of a dimension of size K (unused dimension: K = 0), the
// direction of the hop toward it: bit c set, + (else -). The generator
// writes the model's direction table (noc.Torus.Plus: the shortest way
// round a ring, a tie of K/2 going +, toward the destination on a mesh
// line; inverted where the ring is routed around an avoided link). The
// register is two APB words: bits 31..0 (we_lo) and 63..32 (we_hi); bits
// c >= K are not stored and read 0. From the router's own coordinate own
// (its ADDR register's field): vc1[0], vc1[1] say the + and the - hop from
// here cross the ring's wrap link (never on a mesh line).
`timescale 1ns / 1ps
module hx_router_dir #(
    parameter integer NS   = 2,    // values a coordinate field can take (2^BW >= K)
    parameter integer BW   = 1,    // coordinate field bits
    parameter integer K    = 2,
    parameter integer RING = 1
) (
    input           clk,
    input           rst,           // synchronous, active high: every hop -
    input           we_lo,         // write bits 31..0 of PLUS with wdata
    input           we_hi,         // write bits 63..32
    input  [31:0]   wdata,
    input  [BW-1:0] own,           // the router's coordinate in this dimension
    output [NS-1:0] plus,          // bit c: destination coordinate c goes +
    output [1:0]    vc1,
    output [63:0]   rd             // PLUS as read (bits >= K: 0)
);
    localparam integer KK = (K < 1) ? 1 : K;
    reg  [KK-1:0] pl;
    wire [63:0]   cur;
    generate
        if (KK < 64) begin : g_pad
            assign cur = {{(64-KK){1'b0}}, pl};
        end else begin : g_full
            assign cur = pl;
        end
        if (NS > KK) begin : g_ns
            assign plus = {{(NS-KK){1'b0}}, pl};   // coordinates >= K: out of the grid
        end else begin : g_nk
            assign plus = pl[NS-1:0];
        end
    endgenerate
    /* verilator lint_off UNUSED */
    wire [63:0] nxt = {we_hi ? wdata : cur[63:32], we_lo ? wdata : cur[31:0]};
    /* verilator lint_on UNUSED */
    always @(posedge clk) begin
        if (rst)
            pl <= {KK{1'b0}};
        else if (we_lo || we_hi)
            pl <= nxt[KK-1:0];
    end
    wire [31:0] own32 = {{(32-BW){1'b0}}, own};
    assign vc1[0] = (RING != 0) && (own32 == KK - 1);
    assign vc1[1] = (RING != 0) && (own32 == 0);
    assign rd = cur;
endmodule
