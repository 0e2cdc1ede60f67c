package sim

import (
	"math/bits"
	"sync"
	"sync/atomic"

	"github.com/hxbar/hxbar/hw"
)

// spinner is the engine's way of sharing a phase among workers when a
// cycle lasts microseconds (traffic from a few dozen nodes up): the run's
// own goroutine is worker 0 and evaluates blocks too, and the helpers wait
// for the next phase spinning on one word before they park, so that a
// phase costs a store and a few compare-and-swaps rather than waking
// goroutines through channels (engine.parallel, several microseconds a
// phase). Blocks are claimed one at a time: a helper the system has
// descheduled leaves its share to the others instead of stalling the
// phase, unless it holds a claimed block.
type spinner struct {
	// claim is seq<<32 | next block<<16 | blocks: the phase's number (so
	// that a compare-and-swap on an old phase's word fails), the next
	// block to take and the phase's block count.
	claim atomic.Uint64
	_     [56]byte
	done  [hw.MaxWorkers]paddedCount // blocks each helper finished, ever
	// parked[w] is 1 while helper w sleeps (or is about to) on wakeup[w].
	parked [hw.MaxWorkers]paddedFlag
	wakeup []chan struct{}
	stop   atomic.Bool
	exited sync.WaitGroup
	seq    uint64
	expect uint64   // blocks the helpers and worker 0 finished, all phases
	mine   uint64   // of which worker 0's
	chunk  [2]int32 // elements per block in each range of the phase
	// perWorker is the blocks per worker a phase is cut into; minEls the
	// scheduled elements below which a phase runs on worker 0 alone.
	perWorker, minEls int32
	started           bool
}

type paddedCount struct {
	n atomic.Uint64
	_ [56]byte
}

type paddedFlag struct {
	v atomic.Int32
	_ [60]byte
}

// spinIdle is how many times a helper looks for a phase before it parks:
// tens of microseconds, longer than the serial part of a traffic cycle.
const spinIdle = 1 << 14

// maxSpinBlocks bounds a phase's blocks (the claim word's 16-bit fields).
const maxSpinBlocks = 1<<16 - 1

// parallelSpin evaluates the elements of the two ranges scheduled for t
// on the workers, worker 0 being the caller.
func (e *engine) parallelSpin(t int64, ranges [2][2]int32) {
	s := e.sp
	var blocks, chunk, count [2]int32
	for i, r := range ranges {
		for wi := r[0] >> 6; r[0] < r[1] && wi <= (r[1]-1)>>6; wi++ {
			count[i] += int32(bits.OnesCount64(inRange(e.cur[wi], wi<<6, r[0], r[1])))
		}
	}
	if count[0]+count[1] < s.minEls {
		e.run(t, ranges[0][0], ranges[0][1], 0)
		e.run(t, ranges[1][0], ranges[1][1], 0)
		return
	}
	// A block per minEls/2 scheduled elements (each claim costs a line
	// moved between the cores), perWorker per worker at most.
	for i, r := range ranges {
		if count[i] == 0 {
			continue
		}
		nb := min(max(count[i]/max(s.minEls/2, 1), 1), int32(e.workers)*s.perWorker, maxSpinBlocks/2)
		chunk[i] = (r[1] - r[0] + nb - 1) / nb
		blocks[i] = (r[1] - r[0] + chunk[i] - 1) / chunk[i]
	}
	if !s.started {
		e.startHelpers()
	}
	total := uint64(blocks[0] + blocks[1])
	e.t, e.ranges, e.blocks, s.chunk = t, ranges, blocks, chunk
	s.seq++
	s.expect += total
	s.claim.Store(s.seq<<32 | total)
	for w := 1; w < e.workers; w++ {
		if s.parked[w].v.Load() != 0 && s.parked[w].v.Swap(0) == 1 {
			s.wakeup[w] <- struct{}{}
		}
	}
	s.mine += uint64(e.spinWork(0))
	for {
		sum := s.mine
		for w := 1; w < e.workers; w++ {
			sum += s.done[w].n.Load()
		}
		if sum == s.expect {
			return
		}
	}
}

// spinWork claims and evaluates blocks of the current phase as worker w
// until none is left, and returns how many it evaluated.
func (e *engine) spinWork(w int) int {
	s := e.sp
	n := 0
	for {
		v := s.claim.Load()
		next, total := int32(v>>16&0xffff), int32(v&0xffff)
		if next >= total {
			return n
		}
		if !s.claim.CompareAndSwap(v, v+1<<16) {
			continue
		}
		// The phase cannot end before this block is counted: its fields
		// are the ones published with v.
		r := int32(0)
		if next >= e.blocks[0] {
			r, next = 1, next-e.blocks[0]
		}
		lo := e.ranges[r][0] + next*s.chunk[r]
		e.run(e.t, lo, min(lo+s.chunk[r], e.ranges[r][1]), w)
		n++
		if w > 0 {
			s.done[w].n.Add(1)
		}
	}
}

func (e *engine) startHelpers() {
	s := e.sp
	e.wheels()
	s.started = true
	s.wakeup = make([]chan struct{}, e.workers)
	for w := 1; w < e.workers; w++ {
		s.wakeup[w] = make(chan struct{}, 1)
		s.exited.Add(1)
		go e.spinHelper(w)
	}
}

// spinHelper is helper w: it takes blocks of every phase it sees, spins
// spinIdle times on the claim word between phases, then parks until the
// next phase (or the run's end) wakes it.
func (e *engine) spinHelper(w int) {
	s := e.sp
	defer s.exited.Done()
	idle := 0
	for !s.stop.Load() {
		v := s.claim.Load()
		if v>>16&0xffff < v&0xffff {
			e.spinWork(w)
			idle = 0
			continue
		}
		if idle++; idle < spinIdle {
			continue
		}
		idle = 0
		// Park: announce it, then look again; a phase published before
		// the announcement was seen here, one published after it sends
		// a token (which must be taken if the flag was taken back too late).
		s.parked[w].v.Store(1)
		if v := s.claim.Load(); v>>16&0xffff < v&0xffff || s.stop.Load() {
			if s.parked[w].v.Swap(0) == 0 {
				<-s.wakeup[w]
			}
			continue
		}
		<-s.wakeup[w]
	}
}

// stopHelpers ends the helpers and waits for them.
func (e *engine) stopHelpers() {
	s := e.sp
	if !s.started {
		return
	}
	s.stop.Store(true)
	for w := 1; w < len(s.wakeup); w++ { // e.workers may be 1 by now (autoShare)
		if s.parked[w].v.Swap(0) == 1 {
			s.wakeup[w] <- struct{}{}
		}
	}
	s.exited.Wait()
	s.started = false
	s.stop.Store(false)
}
