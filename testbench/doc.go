// Package testbench checks the generated RTL against the Go model, cycle for
// cycle.
//
// Generate writes, beside a directory made by verilog.Generate (the RTL
// library, hx_top.v, the tables, hx_params.vh, system.yaml), a self-checking
// Verilog testbench and its data:
//
//   - tb.v: module hx_tb. It resets the design, drives each CPU's arrive and
//     operand in the arrival cycle (inputs change on the falling edge), and
//     from one monitor block prints every event of the previous cycle in the
//     canonical order of docs/microarchitecture.md ("Trace"), in exactly the
//     text sim.AppendEvent writes. Each event is checked against the next
//     expected one; the run ends with exactly one line "PASS <events> events
//     <cycles> cycles" or "FAIL <what>" (then $fatal).
//   - scenario.hex: per node, whether its rank arrives, the arrival cycle and
//     the operand ($readmemh, 128-bit words).
//   - expected.hex: the model's trace, one 192-bit word per event, with a
//     header (event count, checksum, watchdog limit) that tb.v verifies at
//     time 0.
//   - run.sh and Makefile: run it without Go (Icarus Verilog or Verilator),
//     after checking tb.v, scenario.hex, expected.hex and system.yaml
//     against the hashes of hxbar-manifest.json.
//   - hx_sources.f: the sources to compile, one a line.
//
// The word formats are in docs/cosim.md. RunIcarus and RunSimulator compile
// (reusing an up-to-date build) and run the testbench in a directory, and
// collect the trace it printed and its verdict. Compare finds the first line
// where two traces differ. Cosim does the whole check for a directory: the
// model is run on DIR/system.yaml, the testbench in DIR as it stands (the RTL
// and the tables there are the design under test, possibly edited by hand),
// and the two traces are compared.
//
// The simulators compile the files hx_sources.f lists (the RTL library,
// hx_top.v, tb.v) and no other .v file of the directory, so a user's own
// Verilog beside the design is never compiled in; a hand-written or edited
// design is checked the same way as a generated one. The package uses the
// verilog package only for the names of its files (the library, hx_top.v,
// PartDesign); Generate writes through internal/gendir, which never
// overwrites a file the directory's manifest does not own.
package testbench
