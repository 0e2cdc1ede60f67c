package noc

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
