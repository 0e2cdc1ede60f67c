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
	// LinkAckFlip: the ACK word the receiving link sends in Cycle is
	// damaged (link-level retry only): the sender ignores it.
	LinkAckFlip
	// LinkCreditDrop: the credit the downstream returns in Cycle (its pop)
	// is lost; with link-level retry its credit word is damaged and the
	// next one repairs it.
	LinkCreditDrop
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
	// AtFirst: the fault acts on the first flit (ACK word, credit) that
	// reaches it from cycle 0 on (hw.AtFirst); its first hit sets Cycle to
	// that cycle and clears AtFirst, so that from then on it is the fault
	// at that cycle (a resolved @first hits what @Cycle would).
	AtFirst bool
	// What the first hit of a flip, drop or dead fault acted on: the flit
	// as sent (Sent) and as it went on (Got: a flip's inverted bit), and
	// the head of its packet as the output sent it (Packet; Head() false
	// when the packet's head was not seen).
	Sent, Got, Packet hw.Flit
	// Replays counts the resends link-level retry made for the fault, and
	// ReplayCycles the cycles they delayed its flit (0 without retry).
	Replays      int
	ReplayCycles int64
}

// aim resolves an @first fault to cycle t, the first it can act in.
func (f *LinkFault) aim(t int64) {
	if f.AtFirst {
		f.Cycle, f.AtFirst = t, false
	}
}

// Crossing is one flit crossing one channel, or with Credit one credit
// returned on it (the downstream's pop), as a recorder sees it. Lat is the
// channel's latency (with link-level retry, RetryLatency of the link's).
type Crossing struct {
	Channel int32
	Cycle   int64
	Head    bool
	Credit  bool
	Lat     int32
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
	// heads: the last head each faulted output sent (the packet of the
	// flits that follow it: an output sends one packet's flits in order).
	heads map[int32]hw.Flit
	// dropLog: every change of a switch's illegal-flit counts (illegal.go).
	dropLog []DropChange
	// cutTail makes a head the cut tail that ends its input's open packet
	// (SetCutTail).
	cutTail func(fl *hw.Flit)
	// upOf maps a FIFO to the output feeding it, for the credit faults
	// and the recorder (nil when neither is armed); byDown lists the
	// credit drops per FIFO; acks the ACK flips per output (retry only).
	upOf   map[int32]int32
	byDown map[int32][]int
	acks   map[int32][]int
	// lastGive is, per FIFO with credit drops and retry, the cycle the
	// sender's link last gave its output a credit; lost counts, without
	// retry, the credits lost for good.
	lastGive map[int32]int64
	lost     map[int32]uint32
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
		o := int32(f.Channel)
		if f.Kind == LinkAckFlip && !st.retry {
			return fmt.Errorf("ackflip on channel %d: the ACK exists only with link-level retry (link_retry > 0)", f.Channel)
		}
		if n.out[o].down < 0 {
			return fmt.Errorf("fault on channel %d: the output drives no channel", f.Channel)
		}
		f.Hits, f.First = 0, -1
		st.Faults = append(st.Faults, f)
		i := len(st.Faults) - 1
		switch f.Kind {
		case LinkAckFlip:
			// The output takes the slow path, which counts the hits.
			st.acks[o] = append(st.acks[o], i)
			n.faultBits[o/64] |= 1 << (o % 64)
		case LinkCreditDrop:
			n.upIndex()
			d := n.out[o].down
			st.byDown[d] = append(st.byDown[d], i)
		default:
			st.byOut[o] = append(st.byOut[o], i)
			n.faultBits[o/64] |= 1 << (o % 64)
		}
	}
	return nil
}

// upIndex maps every FIFO to the output feeding it (the credit path's
// faults and the recorder find a pop's channel by it).
func (n *Network) upIndex() {
	st := n.faults
	if st.upOf != nil {
		return
	}
	st.upOf = map[int32]int32{}
	for o := range n.out {
		if d := n.out[o].down; d >= 0 {
			st.upOf[d] = int32(o)
		}
	}
}

// SetRetry turns link-level retry on (docs/reliability.md, "Link-level
// retry"; the RTL is hx_link_tx / hx_link_rx) on a network built with
// Config.Retry, before SetFaults: go-back-N over each channel, with a
// cumulative ACK. A flit crosses the wire at the first cycle c >= its send
// cycle after the previous flit's final crossing; a flip or a drop at c
// voids it, and the sender learns it from the ACK word it reads in cycle
// d, the first from c+2L-1 on that is undamaged (the receiver sent it in
// d-L; an ackflip there damages it), and resends it in d+1 (L the
// channel's latency), unharmed; the flits behind it follow one per cycle.
// It reaches the downstream FIFO L cycles after its final crossing. A
// damaged ACK word delays nothing else. Credits: a credit word damaged by
// a creditdrop in cycle u (read by the sender's link in u+L-1) is
// ignored; each credit is given to the output in the first cycle from
// pop+L-1 on whose word is undamaged, one per cycle (creditGive); the
// replay buffer, at least buffer_depth flits, never stops the output. A
// dead channel holds its first flit from its cycle on, and every flit
// behind it, with their credits.
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
// cycle, so a queue behind a resend adds nothing), plus one per ACK flip.
// 0 without retry.
func (n *Network) RetryHorizon() int64 {
	st := n.faults
	if st == nil || !st.retry {
		return 0
	}
	h := n.netLat
	for o, is := range st.byOut {
		k := int64(0)
		for _, i := range is {
			if st.Faults[i].Kind != LinkDead {
				k++
			}
		}
		lat := int64(n.fifo[n.out[o].down].lat)
		// Each ACK flip defers one resend by a cycle.
		h = max(h, lat+2*lat*k+int64(len(st.acks[o])))
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
	n.upIndex()
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
		n.faults = &faultState{byOut: map[int32][]int{}, byDown: map[int32][]int{}, acks: map[int32][]int{},
			lastGive: map[int32]int64{}, lost: map[int32]uint32{}, heads: map[int32]hw.Flit{}}
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

// applyFault runs the faults of output o on the flit it sends in cycle t;
// hit is the index of the fault that decided the outcome (-1: none).
func (n *Network) applyFault(o int32, fl *hw.Flit, t int64) (res, hit int) {
	st := n.faults
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.record != nil {
		st.record(Crossing{Channel: o, Cycle: t, Head: fl.Head(), Lat: int32(n.fifo[n.out[o].down].lat)})
	}
	if fl.Head() && len(st.byOut[o]) > 0 {
		st.heads[o] = *fl
	}
	res, hit = passFlit, -1
	for _, i := range st.byOut[o] {
		f := &st.Faults[i]
		sent := *fl
		acted := false
		switch f.Kind {
		case LinkDead:
			f.aim(t)
			if t >= f.Cycle {
				res, acted = swallowFlit, true
			}
		case LinkDrop:
			if res == passFlit {
				f.aim(t)
			}
			if t == f.Cycle && res == passFlit {
				res, acted = dropFlit, true
				if st.retry {
					res = retryFlit
				}
			}
		case LinkFlip:
			if res == passFlit {
				f.aim(t)
			}
			if t == f.Cycle && res == passFlit {
				acted = true
				switch {
				case st.retry:
					res = retryFlit
				case st.flip != nil && !st.flip(fl, f.Bit):
					res = dropFlit
				}
			}
		}
		if acted {
			if f.Hits == 0 {
				f.First = t
				f.Sent, f.Got, f.Packet = sent, *fl, st.heads[o]
			}
			f.Hits++
			hit = i
		}
	}
	return res, hit
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
	switch res, _ := n.applyFault(o, f, t); res {
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
// first undamaged ACK word from c+2L-1 on (nakCycle) resends it in the
// cycle after. Crossings of flits the receiver discards anyway (sent
// behind a voided one before the resend) are not looked at: a fault there
// changes nothing.
func (n *Network) retrySend(o int32, f *hw.Flit, t int64) (_ hw.Flit, gone bool, delay int64) {
	st := n.faults
	if st.last[o] == taken { // behind a flit a dead channel holds
		n.swallow(o)
		return *f, true, 0
	}
	lat := int64(n.fifo[n.out[o].down].lat)
	c := max(t, st.last[o]+1)
	for {
		res, hit := n.applyFault(o, f, c)
		switch res {
		case passFlit:
			st.last[o] = c
			n.ackFlipAt(o, c+lat-1) // the word that acknowledges it
			return *f, false, c - t
		case swallowFlit:
			st.last[o] = taken
			n.swallow(o)
			return *f, true, 0
		}
		st.Retried++
		next := n.nakCycle(o, c+2*lat-1, lat) + 1
		if hit >= 0 {
			st.Faults[hit].Replays++
			st.Faults[hit].ReplayCycles += next - c
		}
		c = next
	}
}

// nakCycle is the cycle from d on in which output o's link reads an
// undamaged ACK word (the receiver sent it L cycles before; an ackflip in
// that cycle damages it) and so learns of a loss.
func (n *Network) nakCycle(o int32, d, lat int64) int64 {
	for n.ackFlipAt(o, d-lat) {
		d++
	}
	return d
}

// ackFlipAt reports whether an ackflip damages the ACK word output o's
// receiving link sends in cycle u, and counts it as a hit: the word
// acknowledged a flit or would have told of a loss.
func (n *Network) ackFlipAt(o int32, u int64) bool {
	st := n.faults
	hit := false
	for _, i := range st.acks[o] {
		f := &st.Faults[i]
		f.aim(u)
		if f.Cycle == u {
			if f.Hits == 0 {
				f.First = u
			}
			f.Hits++
			hit = true
		}
	}
	return hit
}

// creditPop runs the credit path of FIFO f's channel for its pop in cycle
// t (Network.pop's slow path) and reports whether it stored the popped
// slot's free cycle itself. Without link-level retry a creditdrop loses
// the credit for good: the output runs with one credit fewer, i.e. each
// later credit frees the slot the lost one would have (the ring's oldest
// unfreed slot), and the popped slot waits, marked dead, for a later one.
// With retry the credit is given in creditGive.
func (n *Network) creditPop(f int32, t int64) bool {
	st := n.faults
	if st.upOf == nil {
		return false
	}
	o, ok := st.upOf[f]
	if !ok {
		return false
	}
	lat := int64(n.fifo[f].lat)
	st.mu.Lock() // a big system's workers may share a cycle
	defer st.mu.Unlock()
	if st.record != nil {
		st.record(Crossing{Channel: o, Cycle: t, Credit: true, Lat: int32(lat)})
	}
	is := st.byDown[f]
	if len(is) == 0 {
		return false
	}
	front := n.front(f)
	if st.retry {
		atomic.StoreInt32(&front.when, n.rel(n.creditGive(f, t, lat)+1))
		return true
	}
	drop := false
	for _, i := range is {
		fl := &st.Faults[i]
		fl.aim(t)
		if fl.Cycle == t {
			if fl.Hits == 0 {
				fl.First = t
			}
			fl.Hits++
			drop = true
		}
	}
	m := st.lost[f]
	switch {
	case drop:
		st.lost[f] = m + 1
		atomic.StoreInt32(&front.when, deadRel)
	case m > 0 && m < n.B:
		q := &n.fifo[f]
		s := (uint32(q.head) + n.B - m) % n.B
		atomic.StoreInt32(&n.slots[uint32(f)*n.B+s].when, n.rel(t+lat))
		atomic.StoreInt32(&front.when, deadRel)
	case m >= n.B: // every credit lost: the output never sends again
		atomic.StoreInt32(&front.when, deadRel)
	default:
		return false
	}
	return true
}

// creditGive is the cycle in which the sender's link gives the output the
// credit of FIFO f's pop in cycle t (link-level retry, hx_link_tx): the
// first cycle from t+L-1 on whose credit word (sent by the receiver L-1
// cycles before) is undamaged, and after the previous credit's, one
// credit per cycle.
func (n *Network) creditGive(f int32, t, lat int64) int64 {
	st := n.faults
	g := t + lat - 1
	for {
		hit := false
		for _, i := range st.byDown[f] {
			fl := &st.Faults[i]
			fl.aim(g - lat + 1)
			if fl.Cycle == g-lat+1 {
				if fl.Hits == 0 {
					fl.First = fl.Cycle
				}
				fl.Hits++
				hit = true
			}
		}
		if !hit {
			break
		}
		g++
	}
	if last, ok := st.lastGive[f]; ok && g <= last {
		g = last + 1
	}
	st.lastGive[f] = g
	return g
}
