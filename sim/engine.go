package sim

import "math/bits"

// wheelSize bounds how far ahead a wake-up may be scheduled; it exceeds the
// largest link latency plus one.
const wheelSize = 128

// engine is the timing wheel shared by the barrier and traffic runs.
// Elements are dense integer ids. Each wheel slot is a bitmap of the elements
// to evaluate in that cycle: waking is a bit set (duplicates are free), and
// a cycle walks its elements in id order, so memory is swept in order rather
// than at random.
//
// Elements in [class1, class1End) (the crossbars) form class 1, the rest
// class 0. In half-duplex mode the side with priority in a cycle must be
// evaluated first: class 0 in even cycles, class 1 in odd cycles.
type engine struct {
	slots   [wheelSize][]uint64
	class1  int32
	class1E int32
	n       int32
	queued  int // set bits over all slots
	eval    func(e int32, t int64) bool
}

func newEngine(elements int, class1, class1End int32, eval func(int32, int64) bool) *engine {
	e := &engine{class1: class1, class1E: class1End, n: int32(elements), eval: eval}
	words := (elements + 63) / 64
	for i := range e.slots {
		e.slots[i] = make([]uint64, words)
	}
	return e
}

func (e *engine) wake(el int32, at int64) {
	w := &e.slots[at%wheelSize][el>>6]
	if m := uint64(1) << (el & 63); *w&m == 0 {
		*w |= m
		e.queued++
	}
}

// step evaluates every element scheduled for cycle t.
func (e *engine) step(t int64) {
	if t&1 == 0 {
		e.run(t, 0, e.class1)
		e.run(t, e.class1E, e.n)
		e.run(t, e.class1, e.class1E)
	} else {
		e.run(t, e.class1, e.class1E)
		e.run(t, 0, e.class1)
		e.run(t, e.class1E, e.n)
	}
}

// run evaluates the elements of [lo, hi) scheduled for cycle t. Elements
// woken for later cycles land in other slots, so the bitmap walked here only
// loses bits.
func (e *engine) run(t int64, lo, hi int32) {
	if lo >= hi {
		return
	}
	bm := e.slots[t%wheelSize]
	for wi := lo >> 6; wi <= (hi-1)>>6; wi++ {
		w := bm[wi]
		if w == 0 {
			continue
		}
		base := wi << 6
		if base < lo {
			w &^= uint64(1)<<(lo-base) - 1
		}
		if end := base + 64; end > hi {
			w &= uint64(1)<<(hi-base) - 1
		}
		bm[wi] &^= w
		for ; w != 0; w &= w - 1 {
			el := base + int32(bits.TrailingZeros64(w))
			e.queued--
			if e.eval(el, t) {
				e.wake(el, t+1)
			}
		}
	}
}
