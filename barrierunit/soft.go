package barrierunit

import "fmt"

// Software control of a unit (docs/registers.md, "Software control"): the
// ABORT register and the interrupt's pending bits, as the RTL has them.

// rxObs is what the receive part of a cycle did, for an ABORT in that
// cycle: the packet state before it and the flit it popped.
type rxObs struct {
	open, skip         bool // a packet was open, or being discarded, at the start of the cycle
	popped, head, tail bool // a flit was popped, its head and tail marks
}

// Abort models an ABORT write to rank r's unit whose access cycle is t.
// Call it before Eval(r, t), and evaluate the unit in cycle t (a unit with
// a pending abort has work). In cycle t the unit takes no gate step, raises
// no error and counts no tail (a tail popped in it is dropped); an arrival
// in t is held to t+1. The edge that ends t returns the unit to IDLE (cur
// 0, no error, not released), clears its receive counts of every bank; a
// packet it was in the middle of sending is finished (the unit drains it,
// holding arrivals until the tail is sent), and the rest of a packet it
// was in the middle of receiving (its head popped, its tail not) is popped
// and discarded. A packet whose head comes after the abort is a packet of
// the unit's next episode. Only value and barrier units are modelled (not
// data mode), and without a gate step taken ahead (PreStepBefore 0).
func (u *Units) Abort(r int, t int64) error {
	if r < 0 || r >= len(u.rank) {
		return fmt.Errorf("abort: rank %d (allowed: 0..%d)", r, len(u.rank)-1)
	}
	if u.Data != nil {
		return fmt.Errorf("abort: rank %d: the model aborts value and barrier units, not data mode", r)
	}
	if u.PreStepBefore > 0 {
		return fmt.Errorf("abort: PreStepBefore is %d (allowed: 0, no gate step taken ahead, with aborts)", u.PreStepBefore)
	}
	u.rank[r].soft |= softAbort
	return nil
}

// abortEdge is the edge that ends an ABORT write's access cycle (Abort):
// op is the unit's op, rxo what the cycle's receive part did.
func (u *Units) abortEdge(r int, rs *rankState, gs []gateState, op Op, rxo rxObs) {
	skip := rxo.open || rxo.skip
	if rxo.popped {
		skip = !rxo.tail && (rxo.head || rxo.open || rxo.skip)
	}
	rs.soft = 0
	if rs.sendFlit != 0 {
		rs.soft |= softDrain
	}
	if skip {
		rs.soft |= softSkip
	}
	rs.cur, rs.err, rs.rxOpen = 0, 0, false
	u.Release[r] = -1
	for b := range u.banks() {
		u.rearm(gs, u.acc(r, b), op, b)
		u.pipeClear(r, uint32(b))
	}
}

// Draining reports whether rank r's unit, after an abort, still sends the
// rest of a packet (STATUS bit 22) or discards the rest of one it was
// receiving (bit 23).
func (u *Units) Draining(r int) (sending, discarding bool) {
	s := u.rank[r].soft
	return s&softDrain != 0, s&softSkip != 0
}

// IrqPending is rank r's unit's IRQ_STATUS: IrqRelease set by each
// release, IrqError by the error it records (the first until it is
// cleared by a CTRL or ABORT write).
func (u *Units) IrqPending(r int) uint8 { return u.rank[r].ipend }

// ClearIrq is a write of bits to IRQ_STATUS (write 1 to clear) whose
// access cycle is t: call it before Eval(r, t), so that an event of cycle
// t sets its bit again (the event wins, as in the RTL).
func (u *Units) ClearIrq(r int, bits uint8) {
	u.rank[r].ipend &^= bits
}
