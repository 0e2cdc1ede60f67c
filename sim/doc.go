// Package sim assembles a system (network, barrier units, gate schedule)
// from a hw.System and runs it cycle by cycle with the semantics of
// docs/microarchitecture.md. The engine evaluates only the components that
// can change in a cycle (a timing wheel of wake-ups) and jumps over cycles in
// which nothing can change. It produces the event trace, statistics and,
// optionally, a VCD.
package sim
