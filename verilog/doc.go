// Package verilog turns a design (design.Design) into a directory
// that Verilog simulators and synthesis tools read: the RTL library
// (verilog/rtl/*.v, embedded in the binary), a generated top level hx_top.v
// that instantiates the whole hyper-crossbar, one gate table per node and one
// routing table per switch as $readmemh files, the defines a testbench
// includes (hx_params.vh) and the system file it was made from (system.yaml).
//
// The generator writes exactly the tables the model runs: the routing table
// of switch sw is s.Topo.Table(sw) and the gate table of a node is the rank's
// slice of s.Table, encoded as docs/tables.md specifies. Nothing is
// recomputed, so the RTL and the Go model cannot disagree about the
// configuration. The wiring of hx_top.v is the recipe of docs/rtl.md,
// "Top-level wiring (for the generator)"; the files written are listed in
// docs/rtl.md, "Generated directory".
//
// Render returns the files in memory; Generate writes them through
// internal/gendir, which records them in the directory's manifest
// (hxbar-manifest.json) and never overwrites or removes a file it does not
// own (docs/rtl.md, "Generated directory").
//
// Output is deterministic: the same system gives byte-identical files (no
// timestamps, everything written in id order). Systems the RTL cannot build
// (half duplex, more than 62 gates, a route list index past 16 bits, ...)
// are refused with an error naming the field.
//
// The table helpers (ReadTable, ParseTable, WriteTable, RewriteTable,
// RewriteTableWords, Checksum, DecodeGateTable) read and write the .hex format
// in Go, for tests that compare the tables with the model or damage them on
// purpose to check that the RTL notices. CheckTableLength and
// CheckTableFiles check only that a file holds exactly count + 2 words,
// which co-simulation requires of every table before a simulator runs.
package verilog
