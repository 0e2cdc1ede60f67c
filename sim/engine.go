package sim

import (
	"math/bits"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/hxbar/hxbar/hw"
	"github.com/hxbar/hxbar/noc"
)

// maxWheel bounds how far ahead a wake-up may be scheduled. The furthest
// is a flit's arrival: a switch or endpoint sending in cycle t wakes the
// receiver for cycle t + link latency (noc.Network.send), at most
// t + hw.MaxLinkLatency, and that must land in a slot other than t's, which
// is being walked. The wheel exceeds the largest link latency plus one (a
// cycle of margin) and is a power of two, so that t % size is a mask. An
// engine's wheel has wheelFor(L) slots for its link latency L: the
// smallest power of two above L + 1, so that a small-latency system does
// not keep (and sweep) 128 bitmaps of all its elements.
const maxWheel = 128

// Compile-time checks of maxWheel: each expression overflows uint, and the
// build fails, if its condition is broken.
const (
	_ = uint(maxWheel - (hw.MaxLinkLatency + 2)) // maxWheel > hw.MaxLinkLatency + 1
	_ = -uint(maxWheel & (maxWheel - 1))         // maxWheel is a power of two
	// maxWheel > 3*hw.MaxRetryLatency + 1: with link-level
	// retry a flit resent once arrives 3L cycles after it was first sent.
	_ = uint(maxWheel - (3*hw.MaxRetryLatency + 2))
)

// wheelFor is the wheel size for link latency L: the smallest power of two
// of at least L + 2 (at least 4), at most maxWheel.
func wheelFor(L int) int {
	w := 4
	for w < L+2 && w < maxWheel {
		w *= 2
	}
	return w
}

// parallelElements is the system size from which a cycle's evaluations are
// shared among worker goroutines; below it the synchronisation costs more
// than it saves.
const parallelElements = 1 << 17

// prefetchElements is the system size from which the barrier run asks
// for the lines of the elements ahead (engine.prefetch): below it the
// state stays in the caches. The 8x8x16x16 barrier (16,384 ranks, about
// 40,000 elements, 70 MB: beyond the L2) takes 1.32-1.43 CPU us per
// rank-gate with it, 1.81-2.04 without; the 8^4 one (10,240 elements)
// gains nothing.
const prefetchElements = 1 << 14

// blockWords is the unit of work a worker takes: 64 bitmap words, 4096
// elements (tests use smaller blocks to make workers interleave).
const blockWords = 64

// engine is the timing wheel shared by the barrier and traffic runs.
// Elements are dense integer ids. Each worker has its own wheel, whose
// slots are bitmaps of the elements it woke for that cycle: waking is a
// plain bit set in the worker's own memory (duplicates are free; no
// locked instruction, no line shared between cores). A cycle merges the
// workers' slots into one bitmap (cur) and walks its elements in id order,
// so memory is swept in order rather than at random.
//
// Elements in [class1, class1End) (the crossbars) form class 1, the rest
// class 0. In half-duplex mode the side with priority in a cycle must be
// evaluated first: class 0 in even cycles, class 1 in odd cycles. Within a
// class the order does not matter (docs/microarchitecture.md, "Why order
// does not matter"), which is what lets several workers share a class.
type engine struct {
	wheel   [][][]uint64 // [worker][cycle mod size]: the elements the worker woke
	busy    [][]bool     // [worker][cycle mod size]: the worker set a bit there
	cur     []uint64     // the elements of the cycle being walked (read only while it is)
	words   int          // bitmap words
	mask    int64        // wheel size - 1
	class1  int32
	class1E int32
	n       int32
	workers int
	block   int32 // bitmap words per unit of work
	// alternate walks the elements in descending id order in odd cycles
	// (single worker only): half-duplex torus and fat-tree wires go to the
	// lower switch id in even cycles and to the higher one in odd cycles.
	alternate bool
	// eval evaluates element e in cycle t as worker w and returns in how
	// many cycles it has work again (0: none: something else wakes it).
	eval func(e int32, t int64, w int) int
	// prefetch, when set, is called for the elements of a cycle ahead of
	// their evaluation (pfStages times each, stage 0 furthest ahead: see
	// run), to bring their state into the caches.
	prefetch func(e int32, stage int, t int64)
	// list holds, per worker, the elements of the bitmap words it walks
	// with prefetching (runPrefetch).
	list [][]int32

	// parallel phase state
	next   atomic.Int64 // next block to take, over both ranges
	ranges [2][2]int32  // the phase's element ranges [lo, hi)
	blocks [2]int32     // blocks in each range
	t      int64
	start  []chan struct{}
	done   sync.WaitGroup
	// sp, when set, shares phases the spinning way (parallelSpin) instead.
	sp *spinner
}

func newEngine(elements, linkLatency int, class1, class1End int32, eval func(int32, int64, int) int) *engine {
	e := &engine{class1: class1, class1E: class1End, n: int32(elements), eval: eval, workers: 1, block: blockWords,
		list: make([][]int32, hw.MaxWorkers)}
	e.mask = int64(wheelFor(linkLatency) - 1)
	e.words = (elements + 63) / 64
	e.cur = make([]uint64, e.words)
	if elements >= parallelElements {
		e.workers = min(runtime.GOMAXPROCS(0), hw.MaxWorkers)
	}
	e.wheels()
	return e
}

// wheels gives every worker its wheel (the count may have been raised
// since the last call); called where no worker runs.
func (e *engine) wheels() {
	for len(e.wheel) < e.workers {
		w := make([][]uint64, e.mask+1)
		for i := range w {
			w[i] = make([]uint64, e.words)
		}
		e.wheel = append(e.wheel, w)
		// A line of its own (the flags are read at every wake): another
		// worker's flags next to them would bounce between the cores.
		e.busy = append(e.busy, make([]bool, max(e.mask+1, 64))[:e.mask+1])
	}
}

// newFabricEngine builds the engine for a network's elements (switches,
// then endpoints). The hyper-crossbar's exchangers (ids below the node
// count) and crossbars are its two classes; another fabric has one class,
// and with half duplex (where two switches may want one wire in a cycle)
// runs on one worker alternating the walk order, so the lower switch id
// wins a contended wire in even cycles and the higher one in odd cycles.
func newFabricEngine(f noc.Fabric, half bool, linkLatency, elements int, eval func(int32, int64, int) int) *engine {
	S := int32(f.NumSwitches())
	if _, ok := f.(*noc.Topology); ok {
		return newEngine(elements, linkLatency, int32(f.NumNodes()), S, eval)
	}
	e := newEngine(elements, linkLatency, S, S, eval)
	if half {
		e.workers, e.alternate = 1, true
	}
	return e
}

// wake schedules element el for cycle at, as worker w (the run loops,
// between cycles, are worker 0).
func (e *engine) wake(w int, el int32, at int64) {
	s := at & e.mask
	e.wheel[w][s][el>>6] |= 1 << (el & 63)
	if b := e.busy[w]; !b[s] {
		b[s] = true
	}
}

// pending reports whether any cycle has elements scheduled.
func (e *engine) pending() bool {
	for _, b := range e.busy {
		for _, x := range b {
			if x {
				return true
			}
		}
	}
	return false
}

// step evaluates every element scheduled for cycle t.
func (e *engine) step(t int64) {
	s := t & e.mask
	// Merge the workers' slots for t into cur, clearing them. Wakes made
	// while cur is walked are for later cycles.
	merged := false
	for w, b := range e.busy {
		if !b[s] {
			continue
		}
		b[s] = false
		src := e.wheel[w][s]
		if merged {
			for i, x := range src {
				e.cur[i] |= x
			}
		} else {
			copy(e.cur, src)
			merged = true
		}
		clear(src)
	}
	if !merged {
		return
	}
	if t&1 == 0 {
		e.phase(t, 0, e.class1, e.class1E, e.n)
		e.phase(t, e.class1, e.class1E, 0, 0)
	} else {
		e.phase(t, e.class1, e.class1E, 0, 0)
		e.phase(t, 0, e.class1, e.class1E, e.n)
	}
}

// phase evaluates the elements of [lo1, hi1) and [lo2, hi2) scheduled for t.
func (e *engine) phase(t int64, lo1, hi1, lo2, hi2 int32) {
	if e.alternate && t&1 == 1 {
		e.runDown(t, lo1, hi1)
		e.runDown(t, lo2, hi2)
		return
	}
	if e.workers == 1 {
		e.run(t, lo1, hi1, 0)
		e.run(t, lo2, hi2, 0)
		return
	}
	if e.sp != nil {
		e.parallelSpin(t, [2][2]int32{{lo1, hi1}, {lo2, hi2}})
		return
	}
	e.parallel(t, [2][2]int32{{lo1, hi1}, {lo2, hi2}})
}

// parallel evaluates the elements of two ranges of one class scheduled for
// t on the workers, in one round: the ranges' blocks are taken from one
// counter, so that a worker done with the first range goes on with the
// second instead of waiting for the other at a barrier between them.
func (e *engine) parallel(t int64, ranges [2][2]int32) {
	var blocks [2]int32
	for i, r := range ranges {
		if r[0] < r[1] {
			words := (r[1]-1)>>6 - r[0]>>6 + 1
			blocks[i] = (words + e.block - 1) / e.block
		}
	}
	if blocks[0]+blocks[1] == 0 {
		return
	}
	if e.start == nil {
		e.wheels()
		e.start = make([]chan struct{}, e.workers)
		for w := range e.start {
			e.start[w] = make(chan struct{})
			go e.worker(w)
		}
	}
	e.t, e.ranges, e.blocks = t, ranges, blocks
	e.next.Store(0)
	e.done.Add(e.workers)
	for _, c := range e.start {
		c <- struct{}{}
	}
	e.done.Wait()
}

func (e *engine) worker(w int) {
	for range e.start[w] {
		for {
			b := int32(e.next.Add(1) - 1)
			r := 0
			if b >= e.blocks[0] {
				r, b = 1, b-e.blocks[0]
				if b >= e.blocks[1] {
					break
				}
			}
			lo0, hi0 := e.ranges[r][0], e.ranges[r][1]
			wlo := lo0>>6 + b*e.block
			lo := max(lo0, wlo<<6)
			hi := min(hi0, (wlo+e.block)<<6)
			e.run(e.t, lo, hi, w)
		}
		e.done.Done()
	}
}

// close stops the workers.
func (e *engine) close() {
	if e.sp != nil {
		e.stopHelpers()
	}
	for _, c := range e.start {
		close(c)
	}
	e.start = nil
}

// inRange keeps the bits of a bitmap word (elements base..base+63) that
// stand for elements in [lo, hi).
func inRange(word uint64, base, lo, hi int32) uint64 {
	if base < lo {
		word &^= uint64(1)<<(lo-base) - 1
	}
	if base+64 > hi {
		word &= uint64(1)<<(hi-base) - 1
	}
	return word
}

// runDown is run in descending id order, for a single worker.
func (e *engine) runDown(t int64, lo, hi int32) {
	if lo >= hi {
		return
	}
	bm := e.cur
	for wi := (hi - 1) >> 6; wi >= lo>>6; wi-- {
		base := wi << 6
		word := inRange(bm[wi], base, lo, hi)
		for word != 0 {
			b := 63 - bits.LeadingZeros64(word)
			word &^= 1 << b
			el := base + int32(b)
			if d := e.eval(el, t, 0); d != 0 {
				e.wake(0, el, t+int64(d))
			}
		}
	}
}

// Prefetching (engine.prefetch): stage j of an element is asked for when
// the walk is (pfStages-j)*pfDist elements before it, so each stage finds
// the lines the previous one asked for in the caches and can read them to
// find the next lines (a switch's occupied inputs, their front flits, the
// output each flit is routed to, the FIFO downstream of it).
const (
	pfStages = 4
	pfDist   = 2
)

// run evaluates the elements of [lo, hi) scheduled for cycle t, as worker w.
// cur is only read while a cycle is walked: workers may share a word at
// the range ends, each keeping its own bits (inRange).
func (e *engine) run(t int64, lo, hi int32, w int) {
	if lo >= hi {
		return
	}
	if e.prefetch != nil {
		e.runPrefetch(t, lo, hi, w)
		return
	}
	bm := e.cur
	for wi := lo >> 6; wi <= (hi-1)>>6; wi++ {
		word := bm[wi]
		if word == 0 {
			continue
		}
		base := wi << 6
		for word = inRange(word, base, lo, hi); word != 0; word &= word - 1 {
			el := base + int32(bits.TrailingZeros64(word))
			if d := e.eval(el, t, w); d != 0 {
				e.wake(w, el, t+int64(d))
			}
		}
	}
}

// runPrefetch is run with the prefetch stages: the same evaluations in the
// same order. The scheduled elements of up to e.block bitmap words at a
// time are listed first, so that each stage reads its element from the
// list instead of walking the bitmap again.
func (e *engine) runPrefetch(t int64, lo, hi int32, w int) {
	bm := e.cur
	if len(e.list[w]) < int(e.block)*64 {
		e.list[w] = make([]int32, e.block*64)
	}
	list := e.list[w]
	for wlo := lo >> 6; wlo <= (hi-1)>>6; wlo += e.block {
		n := 0
		for wi := wlo; wi <= min(wlo+e.block-1, (hi-1)>>6); wi++ {
			word := bm[wi]
			if word == 0 {
				continue
			}
			base := wi << 6
			for word = inRange(word, base, lo, hi); word != 0; word &= word - 1 {
				list[n] = base + int32(bits.TrailingZeros64(word))
				n++
			}
		}
		for j := range pfStages {
			for k := range min(n, (pfStages-j)*pfDist) {
				e.prefetch(list[k], j, t)
			}
		}
		for i, el := range list[:n] {
			for j := range pfStages {
				if k := i + (pfStages-j)*pfDist; k < n {
					e.prefetch(list[k], j, t)
				}
			}
			if d := e.eval(el, t, w); d != 0 {
				e.wake(w, el, t+int64(d))
			}
		}
	}
}
