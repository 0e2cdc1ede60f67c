// hx_drops: the DROPS register of a torus router (docs/registers.md,
// "Torus router"; hx_switch keeps the same logic inline): 7..0 out-of-grid
// heads, 15..8 orphan flits, 23..16 cut packets, 31..24 flits dropped,
// each saturating at 255. clr (a write, any value) clears them at the
// edge ending its access cycle; the events of that cycle count from 0.
//
// Off the arbitration path: the edge ending cycle t only registers the
// events of cycle t (q_*, one flip-flop per event bit); the counters (d_*)
// add them at the next edge. The value read (drops) is the counters plus
// the registered events, saturated: at the end of cycle t it counts every
// event of cycles 0..t, as if the edge ending t had added them.
`timescale 1ns / 1ps
module hx_drops #(
    parameter integer P = 2          // inputs (and outputs) of the router
) (
    input          clk,
    input          rst,
    input          clr,
    input  [P-1:0] ev_oog,           // input i dropped an out-of-grid head
    input  [P-1:0] ev_orph,          // input i dropped an orphan flit
    input  [P-1:0] ev_dis,           // input i dropped a flit
    input  [P-1:0] ev_cuti,          // input i's out-of-grid packet was ended by a head
    input  [P-1:0] ev_cuto,          // output o sent a cut tail
    output [31:0]  drops
);
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
            q_cuto <= ev_cuto;
        end
    end
    // Events of a cycle: at most P per counter (2P cuts), in CW bits.
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
    function [7:0] sat;        // c + n, at most 255
        input [7:0]    c;
        input [CW-1:0] n;
        reg   [CW+8:0] v;
        begin
            v   = {{(CW+1){1'b0}}, c} + {9'd0, n};
            sat = (v > 255) ? 8'hFF : v[7:0];
        end
    endfunction
    reg [7:0] d_oog, d_orph, d_cut, d_fl;    // the events up to the cycle before the last
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
