// hx_mem_1r1w: the one memory of the library (docs/rtl.md, "Memories").
// Every table, FIFO and replay buffer of the RTL stores its words here: an
// integrator who wants an SRAM macro, a register file or a vendor block
// RAM replaces the body of this one module, keeping its ports and the
// contract below, and every memory of the design follows.
//
// D words of W bits, one write port and one synchronous read port, both
// on the rising edge of clk:
//   write: when we = 1, the edge stores wd at word wa (wa < D);
//   read:  when re = 1, the edge reads word ra, and rd shows it during the
//          whole next cycle (read latency 1: a read issued in cycle t is
//          on rd in cycle t+1).
// Undefined, and never relied on by the library (the users bypass or
// ignore it; a test swaps in a variant that returns garbage in each case):
//   - rd in a cycle after an edge that had re = 0 (the output need not hold);
//   - rd after an edge that read the word the same edge wrote (we = 1 and
//     wa = ra): old word, new word or neither;
//   - rd of a word never written (no reset: contents are unknown after
//     power-up) or of an address ra >= D.
// No reset, no byte enables, no output register beyond the read itself.
//
// This body is the behavioural model: it registers the read address (as
// an SRAM latches it) and reads the array during the next cycle, so the
// read's multiplexer comes after the clock edge and the address path
// ends at a few address flip-flops. Yosys 0.23 infers a $mem_v2 read
// asynchronously from that address register (hxbar synth counts its
// bits); latching the data instead (q <= mem[ra]) meets the contract as
// well and gives a $mem_v2 with a synchronous read port, which block-RAM
// mapping wants, at the price of a wide register after the read
// multiplexer (docs/area.md, "Memories behind hx_mem_1r1w").
`timescale 1ns / 1ps
module hx_mem_1r1w #(
    parameter integer W  = 8,   // word width, >= 1
    parameter integer D  = 2,   // depth in words, >= 1
    parameter integer AW = 1    // address width: max(1, ceil(log2 D))
) (
    input           clk,
    input           we,
    input  [AW-1:0] wa,
    input  [W-1:0]  wd,
    input           re,
    input  [AW-1:0] ra,
    output [W-1:0]  rd
);
    reg [W-1:0]  mem [0:D-1];
    reg [AW-1:0] ra_q;

    // The edge latches the read address, as an SRAM does; the word is
    // read from it during the next cycle. (A read of the word the edge
    // wrote thus gives the new word, one of the contract's choices.)
    always @(posedge clk) begin
        if (we)
            mem[wa] <= wd;
        if (re)
            ra_q <= ra;
    end
    assign rd = mem[ra_q];

`ifndef SYNTHESIS
    initial begin
        if (W < 1 || D < 1 || AW < 1 || (D > 1 && (1 << AW) < D))
            $fatal(1, "%m: W = %0d, D = %0d, AW = %0d (W, D >= 1; 2^AW >= D)", W, D, AW);
    end
`endif
endmodule
