// hx_chan: one direction of a link, upstream output -> downstream FIFO,
// together with the credit return path of the same channel.
//
// Latency L (>= 1): a flit sent in cycle t is pushed into the downstream FIFO
// by the edge that ends cycle t+L-1, so the downstream sees it from cycle
// t+L on; a pop in cycle t reaches the upstream counter at the edge that ends
// cycle t+L-1, so the credit counts from cycle t+L on. Both paths are
// therefore L-1 registers long; L = 1 is plain wiring (the FIFO write and
// the counter update are the Lth stage).
`timescale 1ns / 1ps
module hx_chan #(
    parameter integer W = 8,   // flit width (FW+2)
    parameter integer L = 1    // link latency in cycles, >= 1
) (
    input          clk,
    input          rst,          // synchronous, active high
    // forward path: upstream output -> downstream FIFO push
    input          in_valid,
    input  [W-1:0] in_flit,
    output         out_valid,
    output [W-1:0] out_flit,
    // backward path: downstream pop -> upstream credit counter
    input          crd_in,
    output         crd_out
);
    generate
        if (L == 1) begin : g_wire
            assign out_valid = in_valid;
            assign out_flit  = in_flit;
            assign crd_out   = crd_in;
            // No state at L = 1; keep the clock and reset ports for a uniform
            // interface.
            wire _unused_ok = &{1'b0, clk, rst};
        end else begin : g_pipe
            localparam D = L - 1;   // pipeline stages
            reg [D-1:0]   vld;      // vld[0] is the stage written first
            reg [D-1:0]   crd;
            reg [W*D-1:0] dat;      // stage s at dat[W*s +: W]
            integer s;

            assign out_valid = vld[D-1];
            assign out_flit  = dat[W*(D-1) +: W];
            assign crd_out   = crd[D-1];

            always @(posedge clk) begin
                if (rst) begin
                    vld <= {D{1'b0}};
                    crd <= {D{1'b0}};
                end else begin
                    vld[0] <= in_valid;
                    crd[0] <= crd_in;
                    for (s = 1; s < D; s = s + 1) begin
                        vld[s] <= vld[s-1];
                        crd[s] <= crd[s-1];
                    end
                end
                // Data needs no reset: it is qualified by vld.
                dat[0 +: W] <= in_flit;
                for (s = 1; s < D; s = s + 1)
                    dat[W*s +: W] <= dat[W*(s-1) +: W];
            end
        end
    endgenerate
endmodule
