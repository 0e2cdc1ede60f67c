package barrierunit

import "github.com/hxbar/hxbar/hw"

// Port is what a barrier unit needs from the network: the injection channel
// into its exchanger and the ejection FIFO out of it.
type Port interface {
	CanInject(node int, t int64) bool
	Inject(node int, f hw.Flit, t int64)
	RxFront(node int, t int64) (hw.Flit, bool)
	RxPop(node int, t int64)
	RxPending(node int, t int64) bool
}

// Event kinds, in the canonical per-node order of the trace.
const (
	EvArrive uint8 = iota
	EvGate
	EvRelease
	EvSend
	EvRecv
)

// Event is one trace event: see "Trace" in docs/microarchitecture.md.
type Event struct {
	Cycle int64
	Node  int32
	Kind  uint8
	Gate  uint8  // gate: passed gate; send/recv: gate delivered to
	Rank  int32  // arrive/release: own rank; send: to rank; recv: from rank
	Value uint64 // arrive/gate/release/recv
}

// Units is the cycle model of every barrier unit of a system, stored as
// parallel arrays indexed by rank. Ranks are hosted on nodes by NodeOf.
type Units struct {
	Tab          *FlatTable
	Op           Op
	NodeOf       []int32 // rank -> node
	Arrive       []int64 // rank -> cycle the CPU arrives
	Operand      []uint64
	Release      []int64 // rank -> release cycle, -1 while waiting
	Result       []uint64
	Released     int
	Packets      uint64
	Flits        uint64
	payloadFlits int
	flitWidth    uint

	cur      []uint8
	acc      []uint64
	sendIdx  []int32 // next route index into Tab.OutDst
	sendFlit []uint8 // next flit of the current packet
	rxcnt    []uint8 // (r, g)
	rxacc    []uint64
	rxSrc    []int32
	rxGate   []uint8
	rxVal    []uint64
	rxFlit   []uint8

	// Emit, when set, receives every event as it happens.
	Emit func(Event)
}

// NewUnits builds the barrier units for a gate table.
func NewUnits(tab *FlatTable, op Op, flitWidth int, nodeOf []int32, arrive []int64, operand []uint64) *Units {
	R := tab.Ranks
	u := &Units{
		Tab: tab, Op: op, NodeOf: nodeOf, Arrive: arrive, Operand: operand,
		Release: make([]int64, R), Result: make([]uint64, R),
		flitWidth: uint(flitWidth),
		cur:       make([]uint8, R), acc: make([]uint64, R),
		sendIdx: make([]int32, R), sendFlit: make([]uint8, R),
		rxcnt: make([]uint8, R*tab.Stride()),
		rxSrc: make([]int32, R), rxGate: make([]uint8, R),
		rxVal: make([]uint64, R), rxFlit: make([]uint8, R),
	}
	if op.HasPayload() {
		u.payloadFlits = (64 + flitWidth - 1) / flitWidth
		u.rxacc = make([]uint64, R*tab.Stride())
		id := op.Identity()
		for i := range u.rxacc {
			u.rxacc[i] = id
		}
	}
	for r := range u.Release {
		u.Release[r] = -1
	}
	return u
}

// Gate returns the last gate rank r has passed (0 before it arrives).
func (u *Units) Gate(r int) int { return int(u.cur[r]) }

// Received returns how many routes from other ranks have delivered to (r, g).
func (u *Units) Received(r, g int) int { return int(u.rxcnt[r*u.Tab.Stride()+g]) }

// SendDone reports whether rank r has sent every packet of its current gate.
func (u *Units) SendDone(r int) bool {
	c := int(u.cur[r])
	return c == 0 || c > u.Tab.Gates || u.sendIdx[r] == u.Tab.OutEnd[r*u.Tab.Stride()+c]
}

func (u *Units) emit(e Event) {
	if u.Emit != nil {
		u.Emit(e)
	}
}

// Eval runs rank r's unit for cycle t (gate, send, receive: all read the
// state at the start of the cycle) and reports whether it has work in t+1.
func (u *Units) Eval(r int, t int64, p Port) bool {
	tab := u.Tab
	st := tab.Stride()
	G := tab.Gates
	node := int(u.NodeOf[r])
	c := int(u.cur[r])
	base := r * st
	changed := false
	sending := c >= 1 && c <= G && u.sendIdx[r] < tab.OutEnd[base+c]

	// 1. Gate.
	switch {
	case c == 0:
		if u.Arrive[r] == t {
			u.cur[r] = 1
			if u.Op.HasPayload() {
				u.acc[r] = u.Operand[r]
			}
			u.sendIdx[r] = tab.OutStart[base+1]
			changed = true
			u.emit(Event{Cycle: t, Node: int32(node), Kind: EvArrive, Gate: 1, Rank: int32(r), Value: u.acc[r]})
			if G == 0 { // gate 1 is the end gate: released by the same edge
				u.Release[r], u.Result[r] = t, u.acc[r]
				u.Released++
				u.emit(Event{Cycle: t, Node: int32(node), Kind: EvRelease, Gate: 1, Rank: int32(r), Value: u.acc[r]})
			}
		}
	case c <= G && !sending && int(u.rxcnt[base+c+1]) == int(tab.Need[base+c+1]):
		g := c + 1
		if u.Op.HasPayload() {
			v := u.rxacc[base+g]
			if tab.Self[base+g] {
				v = u.Op.Apply(u.acc[r], v)
			}
			u.acc[r] = v
		}
		u.cur[r] = uint8(g)
		u.sendIdx[r] = tab.OutStart[base+g]
		u.sendFlit[r] = 0
		changed = true
		if g == G+1 {
			u.Release[r], u.Result[r] = t, u.acc[r]
			u.Released++
			u.emit(Event{Cycle: t, Node: int32(node), Kind: EvRelease, Gate: uint8(g), Rank: int32(r), Value: u.acc[r]})
		} else {
			u.emit(Event{Cycle: t, Node: int32(node), Kind: EvGate, Gate: uint8(g), Value: u.acc[r]})
		}
	}

	// 2. Send (state at the start of the cycle: gate c, its pending routes).
	if sending && p.CanInject(node, t) {
		i := u.sendIdx[r]
		dst := tab.OutDst[i]
		k := u.sendFlit[r]
		var f hw.Flit
		if k == 0 {
			f = hw.Flit{Dst: u.NodeOf[dst], Src: int32(r), Gate: uint8(c + 1), Head: true}
			u.Packets++
			u.emit(Event{Cycle: t, Node: int32(node), Kind: EvSend, Gate: uint8(c + 1), Rank: dst})
		} else {
			f = hw.Flit{Dst: u.NodeOf[dst], Data: u.acc[r] >> ((uint(k) - 1) * u.flitWidth)}
			if u.flitWidth < 64 {
				f.Data &= 1<<u.flitWidth - 1
			}
		}
		u.Flits++
		if int(k) == u.payloadFlits {
			f.Tail = true
			u.sendIdx[r]++
			u.sendFlit[r] = 0
		} else {
			u.sendFlit[r]++
		}
		p.Inject(node, f, t)
		changed = true
	}

	// 3. Receive: one flit per cycle, always accepted.
	if f, ok := p.RxFront(node, t); ok {
		p.RxPop(node, t)
		changed = true
		if f.Head {
			u.rxSrc[r], u.rxGate[r], u.rxVal[r], u.rxFlit[r] = f.Src, f.Gate, 0, 0
		} else {
			u.rxVal[r] |= f.Data << (uint(u.rxFlit[r]) * u.flitWidth)
			u.rxFlit[r]++
		}
		if f.Tail {
			g := int(u.rxGate[r])
			u.rxcnt[base+g]++
			if u.Op.HasPayload() {
				u.rxacc[base+g] = u.Op.Apply(u.rxacc[base+g], u.rxVal[r])
			}
			u.emit(Event{Cycle: t, Node: int32(node), Kind: EvRecv, Gate: uint8(g), Rank: u.rxSrc[r], Value: u.rxVal[r]})
		}
	}
	if changed || p.RxPending(node, t+1) {
		return true
	}
	c = int(u.cur[r])
	if c < 1 || c > G {
		return false
	}
	// Still sending (blocked on a credit), or the next gate can pass.
	return !u.SendDone(r) || u.rxcnt[base+c+1] == tab.Need[base+c+1]
}
