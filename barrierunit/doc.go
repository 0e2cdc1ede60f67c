// Package barrierunit holds the per-node barrier synchronisation unit of the
// Fujitsu seed (JP5644566B2): gate schedules and their generators, the
// verifier that proves a schedule by symbolic execution, the per-rank gate
// tables compiled from a schedule, and the 64-bit reduction ALU.
//
// A schedule has ranks 0..R-1, gates 1..G and the end gate G+1. A Route joins
// gate g of one rank to gate g+1 of the same or another rank. A rank passes
// gate 1 when it arrives, with its operand as value; it passes gate g+1 when
// it has passed gate g and every route arriving at gate g+1 has delivered;
// the value at gate g+1 is the op-combination of the values the arriving
// routes delivered (a route within the rank delivers the rank's own value,
// so a gate with no route from itself does not count it again; with no
// arriving route at all the value is the op's identity). The rank is
// released at the end gate G+1 with the value there.
//
// The pieces, in the order data flows through them:
//
//   - Generate (and Cached) build the schedules of the algorithms in
//     Algorithms; GenerateFlat builds their FlatTable directly.
//   - Schedule.Check and ReadSchedule validate a user's schedule.
//   - Verify proves a schedule correct for an Op, or names the first rank
//     for which it is not; Evaluate is the functional reference model.
//   - Compile and Flatten turn a schedule into the gate tables the units
//     (and the generated Verilog) read.
//
// docs/schedules.md describes the algorithms and the verifier's rules;
// docs/errata.md records the seed's flowchart errors and how this package
// avoids them.
package barrierunit
