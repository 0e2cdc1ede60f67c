package sim

// wheelSize bounds how far ahead a wake-up may be scheduled; it exceeds the
// largest link latency.
const wheelSize = 128

// engine is the timing wheel shared by the barrier and traffic runs.
// Elements are dense integer ids; class 0 (exchangers, endpoints) and class 1
// (crossbars) are kept apart so that in half-duplex mode the side with
// priority in a cycle is evaluated first (even cycles: class 0).
type engine struct {
	buckets [2][wheelSize][]int32
	class1  int32 // elements >= class1 and < class1End are class 1
	class1E int32
	last    []int64 // last cycle each element was evaluated
	lastW   []int64 // last cycle each element was scheduled for (dedupe)
	queued  int
	eval    func(e int32, t int64) bool
}

func newEngine(elements int, class1, class1End int32, eval func(int32, int64) bool) *engine {
	e := &engine{class1: class1, class1E: class1End, eval: eval,
		last: make([]int64, elements), lastW: make([]int64, elements)}
	for i := range e.last {
		e.last[i], e.lastW[i] = -1, -1
	}
	return e
}

func (e *engine) wake(el int32, at int64) {
	if e.lastW[el] == at {
		return
	}
	e.lastW[el] = at
	c := 0
	if el >= e.class1 && el < e.class1E {
		c = 1
	}
	b := &e.buckets[c][at%wheelSize]
	*b = append(*b, el)
	e.queued++
}

// step evaluates every element scheduled for cycle t.
func (e *engine) step(t int64) {
	first := int(t & 1)
	for _, c := range [2]int{first, 1 - first} {
		b := &e.buckets[c][t%wheelSize]
		// Elements woken for t+1 land in another bucket, so b does not grow
		// while it is walked.
		for _, el := range *b {
			e.queued--
			if e.last[el] == t {
				continue
			}
			e.last[el] = t
			if e.eval(el, t) {
				e.wake(el, t+1)
			}
		}
		*b = (*b)[:0]
	}
}
