package noc

import "github.com/hxbar/hxbar/hw"

// Quiet reports, between cycles, how many moves the network has ever
// made and whether nothing is in flight in cycle t. Moves counts each
// flit pushed into a FIFO once and each pop twice (a held slot more, then
// one less and popped one more), so any send, cut tail, drop or pop raises
// it. Settled says that every flit in a FIFO is ready by t and every
// popped slot's credit is back by t (a slot a dead channel or a lost
// credit took waits for a move, not for a cycle). The run loop uses it to
// stop a run in error whose network can no longer change (sim.System.Run);
// it reads every slot, so it is for that check only.
func (n *Network) Quiet(t int64) (moves uint64, settled bool) {
	tRel := n.rel(t)
	settled = true
	for f := range n.fifo {
		moves += 2 * uint64(n.fifo[f].popped)
	}
	for i := range n.slots {
		w := n.slots[i].when
		switch {
		case w == deadRel:
		case w >= heldMin:
			moves++
			if w-heldOff > tRel {
				settled = false
			}
		case w > tRel:
			settled = false
		}
	}
	return moves, settled
}

// HeadInFlight reports whether the head of a packet from src for gate,
// addressed to node dst, is in the network: in a FIFO, or on the wire
// into one (the model pushes a flit when it is sent). A head a fault
// changed so that it no longer says so is not found. It reads every
// slot: it is for explaining an error, not for the run.
func (n *Network) HeadInFlight(src int32, gate uint8, dst int) bool {
	for i := range n.slots {
		s := &n.slots[i]
		b := &s.body
		if !held(s) || b.flags&hw.FlitHead == 0 || b.flags&bodyNoNode != 0 || b.gate != gate ||
			int32(b.srcLo)|int32(b.srcHi)<<16 != src {
			continue
		}
		if b.flags&bodyAddr != 0 {
			if n.addr != nil && uint64(b.dstLo)|uint64(b.dstHi)<<32 == n.addr[dst] {
				return true
			}
		} else if int(b.dstLo) == dst {
			return true
		}
	}
	return false
}
