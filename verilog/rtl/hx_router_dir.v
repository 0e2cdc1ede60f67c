// hx_router_dir: the direction constants of one dimension of hx_router.
//
// One dimension's direction constants for a router at
// coordinate C of a dimension of size K (unused dimension: K = 0). For
// every value c of an NS-entry coordinate field: plus[c] the hop goes +
// (mesh line: c > C; ring: the + distance (c - C) mod K is at most K/2),
// stay[c] c == C. vc1[0], vc1[1]: the + and the - hop from C cross the
// ring's wrap link (never on a mesh line). REV[c] inverts plus[c]: the
// ring sends destination coordinate c the other way round, away from an
// avoided link (noc.Avoid.TorusReversed; docs/reliability.md, "Torus").
`timescale 1ns / 1ps
module hx_router_dir #(
    parameter integer NS   = 2,
    parameter integer K    = 2,
    parameter integer C    = 0,
    parameter integer RING = 1,
    parameter [((K < 1) ? 1 : K)-1:0] REV = 0   // bit c: destination coordinate c goes the other way
) (
    output [NS-1:0] plus,
    output [NS-1:0] stay,
    output [1:0]    vc1
);
    localparam integer KK = (K < 1) ? 1 : K;
    genvar c;
    generate
        for (c = 0; c < NS; c = c + 1) begin : g_c
            localparam integer D = ((c % KK) - C + KK) % KK;   // + distance (c < K)
            localparam [0:0]   PL = (RING != 0) ? (2 * D <= KK) : (c > C);
            if (c < KK) begin : g_in
                assign plus[c] = PL ^ REV[c];
            end else begin : g_out
                assign plus[c] = PL;       // not a coordinate of this dimension
            end
            assign stay[c] = (c == C);
        end
    endgenerate
    assign vc1[0] = (RING != 0) && (C == KK - 1);
    assign vc1[1] = (RING != 0) && (C == 0);
endmodule
