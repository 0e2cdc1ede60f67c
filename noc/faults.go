package noc

import (
	"fmt"
	"math"
	"sync"
	"sync/atomic"

	"github.com/hxbar/hxbar/hw"
)

// Link fault kinds (docs/reliability.md, "Injection").
const (
	LinkFlip uint8 = iota // one bit of the flit crossing the channel in Cycle inverted
	LinkDrop              // the flit crossing the channel in Cycle lost; its credit is kept
	LinkDead              // from Cycle on every flit is swallowed and its credit never returns
)

// LinkFault is a fault on one channel (Channel.ID).
type LinkFault struct {
	Kind    uint8
	Channel int
	Cycle   int64
	Bit     int // LinkFlip: the bit of the flit (Flip interprets it)
	// Hits counts the flits the fault acted on (a flip or drop whose
	// channel carried no flit in its cycle has 0).
	Hits int
	// First is the cycle of the first flit it acted on, -1 for none.
	First int64
}

// Crossing is one flit crossing one channel, as a recorder sees it.
type Crossing struct {
	Channel int32
	Cycle   int64
	Head    bool
}

// faultState is the slow path of a network with faults: only outputs with
// their bit set in Network.faultBits reach it, so a fault-free network pays
// one predictable branch (n.faults == nil) per flit.
type faultState struct {
	mu     sync.Mutex      // a big system's workers may share a cycle
	byOut  map[int32][]int // output -> indices into Faults
	Faults []LinkFault
	// flip applies bit of the flit's wire format to fl; false: the flipped
	// flit names no node and is lost (docs/reliability.md).
	flip func(fl *hw.Flit, bit int) bool
	// record, when set, is told every flit crossing (campaign dry runs).
	record func(Crossing)
	// retry: link-level retry is on (SetRetry); last[o] is the cycle the
	// last flit of output o crossed its wire for good (its final send), or
	// taken when a dead channel holds it forever (nil without retry).
	retry bool
	last  []int64
	// Retried counts the flits resent.
	Retried int
	// dropLog: every change of a switch's illegal-flit counts (illegal.go).
	dropLog []DropChange
	// cutTail makes a head the cut tail that ends its input's open packet
	// (SetCutTail).
	cutTail func(fl *hw.Flit)
}

// SetFaults arms link faults on the network (before the run). flip
// applies a flip's bit to a flit in the wire format of the system.
func (n *Network) SetFaults(fs []LinkFault, flip func(fl *hw.Flit, bit int) bool) error {
	st := n.faultState()
	st.flip = flip
	for _, f := range fs {
		if f.Channel < 0 || f.Channel >= len(n.out) {
			return fmt.Errorf("fault on channel %d: the network has channels 0..%d", f.Channel, len(n.out)-1)
		}
		f.Hits, f.First = 0, -1
		st.Faults = append(st.Faults, f)
		o := int32(f.Channel)
		st.byOut[o] = append(st.byOut[o], len(st.Faults)-1)
		n.faultBits[o/64] |= 1 << (o % 64)
	}
	return nil
}

// SetRetry turns link-level retry on (docs/reliability.md, "Link-level
// retry"; the RTL is hx_link_tx / hx_link_rx): go-back-N over each channel.
// A flit crosses the wire at the first cycle c >= its send cycle after the
// previous flit's final crossing; a flip or a drop at c voids it, and the
// sender learns it from the missing ACK in cycle c+2L-1 and resends it in
// c+2L (L the channel's latency), unharmed; the flits behind it follow one
// per cycle. It reaches the downstream FIFO L cycles after its final
// crossing. Credits are unchanged: the output sends while it has credits
// (the replay buffer, at least buffer_depth flits, never fills first), and
// a credit returns when the downstream pops the flit. A dead channel holds
// its first flit from its cycle on, and every flit behind it, with their
// credits.
func (n *Network) SetRetry() {
	st := n.faultState()
	st.retry = true
	st.last = make([]int64, len(n.out))
	for i := range st.last {
		st.last[i] = math.MinInt64 / 2
	}
}

// RetryHorizon is the furthest a flit's arrival can lie after its send
// cycle with link-level retry and the armed faults: the channel's latency
// L plus 2L per flip or drop armed on it (each voids at most one of the
// channel's final crossings, and an output sends at most one flit per
// cycle, so a queue behind a resend adds nothing). 0 without retry.
func (n *Network) RetryHorizon() int64 {
	st := n.faults
	if st == nil || !st.retry {
		return 0
	}
	var h int64
	for o, is := range st.byOut {
		k := int64(0)
		for _, i := range is {
			if st.Faults[i].Kind != LinkDead {
				k++
			}
		}
		lat := int64(n.fifo[n.out[o].down].lat)
		h = max(h, lat+2*lat*k)
	}
	return h
}

// Retried is the number of flits link-level retry resent.
func (n *Network) Retried() int {
	if n.faults == nil {
		return 0
	}
	return n.faults.Retried
}

// Record makes the network report every flit crossing every channel to
// rec (a dry run that finds which channels carry traffic when).
func (n *Network) Record(rec func(Crossing)) {
	st := n.faultState()
	st.record = rec
	for o := range n.out {
		n.faultBits[o/64] |= 1 << (o % 64)
	}
}

// LinkFaults returns the armed faults with their hit counts.
func (n *Network) LinkFaults() []LinkFault {
	if n.faults == nil {
		return nil
	}
	return n.faults.Faults
}

func (n *Network) faultState() *faultState {
	if n.faults == nil {
		n.faults = &faultState{byOut: map[int32][]int{}}
		n.faultBits = make([]uint64, (len(n.out)+63)/64)
		n.armIllegal()
	}
	return n.faults
}

// Fault outcomes of applyFault.
const (
	passFlit    = iota // send fl (possibly flipped) as usual
	dropFlit           // the flit is lost, the credit kept
	swallowFlit        // the flit is lost with its credit
	retryFlit          // the link caught the fault: the flit is resent
)

// applyFault runs the faults of output o on the flit it sends in cycle t.
func (n *Network) applyFault(o int32, fl *hw.Flit, t int64) int {
	st := n.faults
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.record != nil {
		st.record(Crossing{Channel: o, Cycle: t, Head: fl.Head()})
	}
	res := passFlit
	for _, i := range st.byOut[o] {
		f := &st.Faults[i]
		hit := false
		switch f.Kind {
		case LinkDead:
			if t >= f.Cycle {
				res, hit = swallowFlit, true
			}
		case LinkDrop:
			if t == f.Cycle && res == passFlit {
				res, hit = dropFlit, true
				if st.retry {
					res = retryFlit
				}
			}
		case LinkFlip:
			if t == f.Cycle && res == passFlit {
				hit = true
				switch {
				case st.retry:
					res = retryFlit
				case st.flip != nil && !st.flip(fl, f.Bit):
					res = dropFlit
				}
			}
		}
		if hit {
			if f.Hits == 0 {
				f.First = t
			}
			f.Hits++
		}
	}
	return res
}

// swallow spends output o's credit on a flit that never arrives: the
// credit-ring slot is taken and never freed (a dead channel).
func (n *Network) swallow(o int32) {
	oi := &n.out[o]
	i := uint32(oi.sendIdx)
	if i+1 == n.B {
		oi.sendIdx = 0
	} else {
		oi.sendIdx = uint8(i + 1)
	}
	atomic.StoreInt32(&n.slots[uint32(oi.down)*n.B+i].when, deadRel)
	oi.nextFree = atomic.LoadInt32(&n.slots[uint32(oi.down)*n.B+uint32(oi.sendIdx)].when)
}

// faultySend runs output o's faults on the flit it sends in cycle t and
// reports whether the flit is gone (lost, or swallowed with its credit).
// The half-duplex wire is used either way.
//
// It takes and returns the flit by value: a pointer would make every
// send's flit escape to the heap, faults or not.
//
// delay is how much later than t the flit crosses the wire for good (link
// -level retry: its ready cycle is t+delay+L), 0 otherwise.
//
//go:noinline
func (n *Network) faultySend(o int32, fl hw.Flit, t int64) (_ hw.Flit, gone bool, delay int64) {
	f := new(hw.Flit)
	*f = fl
	st := n.faults
	if st.retry {
		return n.retrySend(o, f, t)
	}
	switch n.applyFault(o, f, t) {
	case passFlit:
		return *f, false, 0
	case swallowFlit:
		n.swallow(o)
	}
	if n.used != nil && n.wire[o] >= 0 {
		n.used[n.wire[o]] = t
	}
	return *f, true, 0
}

// retrySend is faultySend with link-level retry (SetRetry): the go-back-N
// sender of hx_link_tx, one flit at a time. The flit goes onto the wire
// in cycle c, the first cycle from t after the previous flit's final
// crossing; a flip or drop there makes the receiver discard it, and the
// missing ACK (due in c+2L-1) resends it in c+2L. Crossings of flits the
// receiver discards anyway (sent behind a voided one before the resend)
// are not looked at: a fault there changes nothing.
func (n *Network) retrySend(o int32, f *hw.Flit, t int64) (_ hw.Flit, gone bool, delay int64) {
	st := n.faults
	if st.last[o] == taken { // behind a flit a dead channel holds
		n.swallow(o)
		return *f, true, 0
	}
	lat := int64(n.fifo[n.out[o].down].lat)
	c := max(t, st.last[o]+1)
	for {
		switch n.applyFault(o, f, c) {
		case passFlit:
			st.last[o] = c
			return *f, false, c - t
		case swallowFlit:
			st.last[o] = taken
			n.swallow(o)
			return *f, true, 0
		}
		st.Retried++
		c += 2 * lat
	}
}
