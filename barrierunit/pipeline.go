package barrierunit

// The unit pipeline (hw.System.UnitPipeline, docs/microarchitecture.md,
// "Unit pipeline"; RTL: hx_barrier_unit's UP = 1). The RTL counts a tail
// popped in cycle t by a read-modify-write of its gate's receive entry in
// cycle t+1; without the pipeline the gate check of t+1 takes that count
// (and its value) by a forward, with it the check reads the entry as the
// receive RAM holds it at the start of the cycle, so the tail counts for
// the check from t+2. The model counts a tail in its pop cycle, as
// before, and keeps each rank's last counted tail: the check of the cycle
// after it sees the gate's count one less and its value as it was before
// the fold.

// pipeTail is a rank's last counted tail: the cycle of its pop, its gate
// and bank, and the gate's received value before the tail was folded in.
type pipeTail struct {
	cycle int64
	prev  uint64
	gate  uint8
	bank  uint8
}

// SetPipeline turns the unit pipeline on (or off) for every unit. Call it
// before the run, after NewUnits.
func (u *Units) SetPipeline(on bool) {
	if !on {
		u.pipe = nil
		return
	}
	u.pipe = make([]pipeTail, len(u.rank))
	for i := range u.pipe {
		u.pipe[i].cycle = -1
	}
}

// Pipeline reports whether the units run with the unit pipeline.
func (u *Units) Pipeline() bool { return u.pipe != nil }

// counted records a tail of rank r counted in cycle t into gate g of bank
// b, whose received value was prev before the fold.
func (u *Units) counted(r int, t int64, g, b uint8, prev uint64) {
	if u.pipe != nil {
		u.pipe[r] = pipeTail{cycle: t, prev: prev, gate: g, bank: b}
	}
}

// pipeClear forgets rank r's last counted tail when it is of bank b: a
// release (or an abort) cleared the bank's counts, that tail's with them.
func (u *Units) pipeClear(r int, b uint32) {
	if u.pipe != nil && uint32(u.pipe[r].bank) == b {
		u.pipe[r].cycle = -1
	}
}

// rxSeen is gate g's received count and value in bank b as rank r's gate
// check of cycle t sees them: the state at the start of t, less a tail
// counted in t-1 under the unit pipeline. (The value is that of an op with
// a payload; ra is bank b's values.)
func (u *Units) rxSeen(r int, t int64, gs []gateState, ra []uint64, op Op, g int, b uint32) (uint8, uint64) {
	cnt := gs[g].rxcnt[b]
	var val uint64
	if op.HasPayload() {
		val = ra[g]
	}
	if u.pipe != nil {
		if p := &u.pipe[r]; p.cycle == t-1 && int(p.gate) == g && uint32(p.bank) == b {
			cnt--
			val = p.prev
		}
	}
	return cnt, val
}
