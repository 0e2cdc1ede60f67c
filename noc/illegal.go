package noc

import "github.com/hxbar/hxbar/hw"

// Illegal flits at a switch input (docs/microarchitecture.md, "Illegal
// flits"; hx_switch.v does the same, cycle for cycle). Only faults make
// them, so only a network with faults looks (Network.faults != nil).

// DropCounts counts the illegal flits one switch met. The switch's DROPS
// register (docs/registers.md, "Switch") holds each count saturated at 255.
type DropCounts struct {
	// OutOfGrid: head flits whose address names no node, dropped.
	OutOfGrid uint32 `json:"out_of_grid"`
	// Orphan: payload and tail flits at an input with no packet open,
	// dropped.
	Orphan uint32 `json:"orphan"`
	// Cut: head flits at an input whose packet was open: the switch ended
	// that packet (a cut tail sent on the output it held, or the dropping
	// of an out-of-grid packet stopped).
	Cut uint32 `json:"cut"`
	// Flits: every flit dropped (out-of-grid heads, the rest of their
	// packets, orphans).
	Flits uint32 `json:"flits"`
}

// Any reports whether the switch met an illegal flit.
func (d DropCounts) Any() bool { return d != DropCounts{} }

// Register is the value of the switch's DROPS register: 7..0 OutOfGrid,
// 15..8 Orphan, 23..16 Cut, 31..24 Flits, each saturated at 255.
func (d DropCounts) Register() uint32 {
	sat := func(v uint32) uint32 { return min(v, 255) }
	return sat(d.OutOfGrid) | sat(d.Orphan)<<8 | sat(d.Cut)<<16 | sat(d.Flits)<<24
}

// Drops returns switch sw's counts (zero in a network without faults).
func (n *Network) Drops(sw int) DropCounts {
	if n.drops == nil {
		return DropCounts{}
	}
	return n.drops[sw]
}

// DropChange is a switch's counts after an illegal flit in Cycle.
type DropChange struct {
	Cycle  int64
	Switch int
	Counts DropCounts
}

// DropLog lists every change of a switch's counts, in the order the
// switches made them (by cycle; within a cycle, any order).
func (n *Network) DropLog() []DropChange {
	if n.faults == nil {
		return nil
	}
	return n.faults.dropLog
}

// DropsAt returns switch sw's counts at the end of cycle t.
func (n *Network) DropsAt(sw int, t int64) DropCounts {
	var d DropCounts
	for _, c := range n.DropLog() {
		if c.Switch == sw && c.Cycle <= t {
			d = c.Counts
		}
	}
	return d
}

// logDrop records switch sw's counts after a change in cycle t. Drops are
// rare: the fault state's lock serializes the workers.
func (n *Network) logDrop(sw int, t int64) {
	st := n.faults
	st.mu.Lock()
	st.dropLog = append(st.dropLog, DropChange{Cycle: t, Switch: sw, Counts: n.drops[sw]})
	st.mu.Unlock()
}

// armIllegal makes the state of the illegal-flit screen (with the fault
// state: only faults make illegal flits).
func (n *Network) armIllegal() {
	n.drops = make([]DropCounts, n.switches)
	n.discarding = make([]bool, n.rxBase)
}

// What screen found at an input.
const (
	flitLegal = iota // handle the flit as usual
	flitGone         // dropped (popped, its credit returned)
	flitCut          // a head at an input that owns an output: cut its packet
)

// screen looks at the ready front flit s of switch sw's input FIFO in in
// cycle t and drops it when it must be dropped:
//
//   - a head while the input is dropping an out-of-grid packet ends the
//     dropping (Cut) and is then screened as any head;
//   - a head whose address names no node is dropped (OutOfGrid), and so
//     is the rest of its packet, up to its tail;
//   - a payload or tail flit at an input that owns no output is dropped:
//     the rest of an out-of-grid packet, or an orphan (Orphan);
//   - a head at an input that owns an output: flitCut (the caller cuts).
//
// Only switch sw's evaluation touches its counts and its inputs' state.
func (n *Network) screen(sw int, in int32, s *slot, t int64) int {
	owns := n.out[in].inOwned >= 0
	tail := s.body.flags&hw.FlitTail != 0
	d := &n.drops[sw]
	if s.body.flags&hw.FlitHead != 0 {
		if owns {
			return flitCut
		}
		if n.discarding[in] {
			n.discarding[in] = false
			d.Cut++
			if s.body.flags&bodyNoNode == 0 {
				n.logDrop(sw, t)
				return flitLegal
			}
		}
		if s.body.flags&bodyNoNode == 0 {
			return flitLegal
		}
		d.OutOfGrid++
		n.discarding[in] = !tail
	} else {
		if owns {
			return flitLegal
		}
		if n.discarding[in] {
			n.discarding[in] = !tail
		} else {
			d.Orphan++
		}
	}
	d.Flits++
	n.logDrop(sw, t)
	n.pop(in, int32(sw), t)
	return flitGone
}

// cut ends the packet input in holds on output o in cycle t: the output
// sends the cut tail of the input's front head (which stays), and neither
// holds the other from cycle t+1 on.
func (n *Network) cut(sw, in, o int32, t int64, w int) {
	n.drops[sw].Cut++
	n.logDrop(int(sw), t)
	n.out[o].owner, n.out[in].inOwned = -1, -1
	if n.lastPop != nil {
		n.lastPop[in] = t // the head requests from t+2 (waiting)
	}
	n.send(sw, in, o, t, w, true)
}

// SetCutTail sets how a head becomes the cut tail a switch sends to end
// an open packet: the head's wire bits with the head bit 0 and the tail
// bit 1 (hw.Wire.CutTail; the RTL only changes the two marks), so its
// data is the head's header. Without it (a network without a wire
// format), a cut tail is a tail flit whose data and check code are 0.
func (n *Network) SetCutTail(f func(fl *hw.Flit)) { n.faultState().cutTail = f }

// cutTail is the cut tail of head body b (payload data, check code).
func (n *Network) cutTail(b *flitBody, data uint64, code uint32) (flitBody, uint64, uint32) {
	f := n.faults.cutTail
	if f == nil {
		return flitBody{flags: hw.FlitTail}, 0, 0
	}
	fl := n.unpackBody(b, data, code)
	f(&fl)
	return n.packFlit(&fl)
}
