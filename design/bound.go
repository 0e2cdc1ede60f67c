package design

import (
	"fmt"

	"github.com/hxbar/hxbar/collective"
	"github.com/hxbar/hxbar/hw"
)

// A run that cannot finish within max_cycles is refused before it starts:
// a data collective of large items can need millions of cycles, and a
// model running for twenty minutes only to stop at max_cycles helps nobody.
// The bound is sound (TestLowerBoundIsSound: no complete run takes fewer
// cycles), so no run that would finish is refused.

// Bound is a lower bound on Result.Cycles of a complete run, with the
// reason in words.
type Bound struct {
	Cycles int64
	How    string
}

// BoundError refuses a run whose lower bound on cycles exceeds max_cycles.
// It is bad input (the system cannot do what it is asked within its own
// limit), and unwraps to a *hw.FieldError naming max_cycles.
type BoundError struct {
	MaxCycles int64
	Bound     Bound
}

func (e *BoundError) Error() string { return e.Unwrap().Error() }

func (e *BoundError) Unwrap() error {
	return &hw.FieldError{Field: "max_cycles", Value: e.MaxCycles,
		Allowed: fmt.Sprintf("at least %d, a lower bound on this run's cycles: %s", e.Bound.Cycles, e.Bound.How)}
}

// LowerBound bounds the cycles of a complete run (the last release + 1):
//
//   - every rank is released at or after its arrival, so one more than
//     the last arrival cycle;
//   - a data collective's messages are packets of 1 head flit + items x
//     item_flits flits, and every node has one injection and one ejection
//     channel, each moving at most a flit a cycle: a rank receiving F flits
//     needs F cycles, and a rank sending F flits, which starts no earlier
//     than its arrival, needs its arrival + F (its last flit is received,
//     and its receiver released, no earlier than it is sent).
//
// cs is nil for a barrier. arrive is every rank's arrival cycle.
func LowerBound(sys *hw.System, cs *collective.Schedule, arrive []int64) Bound {
	b := Bound{Cycles: 1, How: "a run takes at least one cycle"}
	for r, a := range arrive {
		if a+1 > b.Cycles {
			b = Bound{a + 1, fmt.Sprintf("rank %d arrives at cycle %d and is released no earlier", r, a)}
		}
	}
	if cs == nil {
		return b
	}
	R := len(arrive)
	recv, send := make([]int64, R), make([]int64, R)
	recvMsgs, sendMsgs := make([]int, R), make([]int, R)
	F := int64(sys.ItemFlits)
	for _, st := range cs.Steps {
		for _, t := range st.Transfers {
			if t.Src < 0 || t.Src >= R || t.Dst < 0 || t.Dst >= R || t.Src == t.Dst {
				continue // the verifier refuses these; no bound from them
			}
			flits := 1 + int64(len(t.Items))*F
			recv[t.Dst] += flits
			recvMsgs[t.Dst]++
			send[t.Src] += flits
			sendMsgs[t.Src]++
		}
	}
	for r := range R {
		if recv[r] > b.Cycles {
			b = Bound{recv[r], fmt.Sprintf("rank %d receives %d flits (%d messages, each 1 head flit + items x %d flits) through its one ejection channel, at most 1 flit a cycle",
				r, recv[r], recvMsgs[r], F)}
		}
		if c := arrive[r] + send[r]; c > b.Cycles {
			b = Bound{c, fmt.Sprintf("rank %d arrives at cycle %d, then sends %d flits (%d messages, each 1 head flit + items x %d flits) through its one injection channel, at most 1 flit a cycle",
				r, arrive[r], send[r], sendMsgs[r], F)}
		}
	}
	return b
}
