package barrierunit

// The unit pipeline (hw.System.UnitPipeline, docs/microarchitecture.md,
// "Unit pipeline"; RTL: hx_barrier_unit's UP = 1). The RTL folds a tail
// popped in cycle t into its gate's receive entry in cycle t+2 (the
// entry's word is registered in t+1), and the gate check of a cycle reads
// gate cur+1's entry from registers loaded in the cycle before, with no
// forward: the check of cycle s sees the tails popped up to s-3, and
// none in the cycle after cur moved (an arrival or a pass: the registers
// then hold the entry of the gate before). The model counts a tail in its
// pop cycle, as before, and keeps each rank's last two counted tails and
// its last move: the check of cycle s does not see the tails counted in
// s-1 and s-2 (the gate's count less them, its value as it was before the
// first of them was folded in), and is not made when the rank moved in
// s-1.

// pipeTail is a counted tail: the cycle of its pop, its gate and bank,
// and the gate's received value before the tail was folded in.
type pipeTail struct {
	cycle int64
	prev  uint64
	gate  uint8
	bank  uint8
}

// pipeState is a rank's unit pipeline state: its last two counted tails
// (tail[0] the later) and the cycle it last moved.
type pipeState struct {
	tail  [2]pipeTail
	moved int64
}

// SetPipeline turns the unit pipeline on (or off) for every unit. Call it
// before the run, after NewUnits.
func (u *Units) SetPipeline(on bool) {
	if !on {
		u.pipe = nil
		return
	}
	u.pipe = make([]pipeState, len(u.rank))
	for i := range u.pipe {
		u.pipe[i] = pipeState{tail: [2]pipeTail{{cycle: -1}, {cycle: -1}}, moved: -1}
	}
}

// Pipeline reports whether the units run with the unit pipeline.
func (u *Units) Pipeline() bool { return u.pipe != nil }

// counted records a tail of rank r counted in cycle t into gate g of bank
// b, whose received value was prev before the fold.
func (u *Units) counted(r int, t int64, g, b uint8, prev uint64) {
	if u.pipe != nil {
		p := &u.pipe[r]
		p.tail[1] = p.tail[0]
		p.tail[0] = pipeTail{cycle: t, prev: prev, gate: g, bank: b}
	}
}

// moved records that rank r's cur moved in cycle t (an arrival or a pass).
func (u *Units) moved(r int, t int64) {
	if u.pipe != nil {
		u.pipe[r].moved = t
	}
}

// pipeClear forgets rank r's counted tails of bank b: a release (or an
// abort) cleared the bank's counts, theirs with them.
func (u *Units) pipeClear(r int, b uint32) {
	if u.pipe != nil {
		for i := range u.pipe[r].tail {
			if p := &u.pipe[r].tail[i]; uint32(p.bank) == b {
				p.cycle = -1
			}
		}
	}
}

// checks reports whether rank r's unit makes its gate check in cycle t:
// always, but under the unit pipeline in the cycle after a move.
func (u *Units) checks(r int, t int64) bool {
	return u.pipe == nil || u.pipe[r].moved != t-1
}

// rxSeen is gate g's received count and value in bank b as rank r's gate
// check of cycle t sees them: the state at the start of t, less the
// tails counted in t-1 and t-2 under the unit pipeline. (The value is
// that of an op with a payload; ra is bank b's values.)
func (u *Units) rxSeen(r int, t int64, gs []gateState, ra []uint64, op Op, g int, b uint32) (uint8, uint64) {
	cnt := gs[g].rxcnt[b]
	var val uint64
	if op.HasPayload() {
		val = ra[g]
	}
	if u.pipe != nil {
		// The later tail first: the earlier one's value before its fold
		// is the one seen when both are left out.
		for i := range u.pipe[r].tail {
			p := &u.pipe[r].tail[i]
			if (p.cycle == t-1 || p.cycle == t-2) && int(p.gate) == g && uint32(p.bank) == b {
				cnt--
				val = p.prev
			}
		}
	}
	return cnt, val
}
