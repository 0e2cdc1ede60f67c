package sim

import "math"

// settle tracks a run in error whose engine stays busy: a switch whose
// ready head waits for an output held for good (the packet's sender, a
// unit in ERROR, never sends the rest: docs/microarchitecture.md, "Error
// paths") is evaluated again every cycle and never moves. Each cycle the
// check runs it records the network's moves and the units' state; the
// run stops at the first cycle t that changed nothing after one that was
// recorded, with nothing in flight by t: cycle t and every later one
// would be the same (Run reports cycles = t).
type settle struct {
	at    int64 // the cycle recorded (-1: none)
	moves uint64
	units unitMark
}

// unitMark is what the units have done: a gate step, a release, an error
// or an injected flit changes it (a received flit is a network move).
type unitMark struct {
	released, errors int
	flits, gates     uint64
}

// frozen reports whether the run in error can change no more from cycle t
// on (settle). It is checked only after the last arrival, with a unit in
// ERROR, no event waiting for a later cycle and no watchdog deadline (a
// TIMEOUT is a change), so a run without an error never reads the network
// here.
func (s *System) frozen(t int64, arrived bool, st *settle) bool {
	u := s.Units
	if !arrived || len(u.Errors) == 0 || len(s.later) > 0 || s.wd.due(math.MaxInt64) != math.MaxInt64 {
		st.at = -1
		return false
	}
	moves, settled := s.Net.Quiet(t)
	units := unitMark{released: u.Released, errors: len(u.Errors), flits: u.Flits}
	for r := range s.Table.Ranks {
		units.gates += uint64(u.Gate(r))
	}
	same := st.at == t-1 && st.moves == moves && st.units == units
	st.at, st.moves, st.units = t, moves, units
	return same && settled
}
