package barrierunit

import (
	"fmt"
	"math/bits"

	"github.com/hxbar/hxbar/hw"
)

// Message is one data transfer of a schedule: rank From sends Items (item
// ids, in this order) to rank To when it is at gate Gate; they are
// delivered to gate Gate+1 of To.
type Message struct {
	From, To, Gate int
	Items          []int32
}

// DataTable is what a barrier unit needs, beyond its FlatTable, to move
// data: the items each route carries and the message each gate expects. It
// is built with the FlatTable by BuildData; route index i is the index into
// FlatTable.OutDst.
type DataTable struct {
	ItemFlits int     // F: payload flits per item
	Origin    []int32 // item -> rank it starts on (the "source node" of its flits)
	// Items of route i: Items[RouteItems[i]:RouteItems[i+1]].
	RouteItems []int32
	Items      []int32
	// RxRoute[(r, g)]: the route delivering to gate g of rank r, or -1.
	// A data schedule delivers at most one message to a gate.
	RxRoute []int32
	// RouteFrom[i]: the sending rank of route i.
	RouteFrom []int32
}

// ItemWord is the 64-bit content of flit j of item `item`, which starts on
// rank origin: the sender generates it and the receiver checks it, so every
// payload flit of a data schedule is checked end to end. A flit of width FW
// carries the low FW bits (zero-extended when FW > 64).
//
// The low 16 bits (the narrowest flit) are an affine function of each of
// origin, item and j with an invertible linear part, and also of the item
// when origin = item (the all-gather's placement): for fixed other inputs,
// distinct values of any one of them (below 2^16) give distinct low 16 bits.
// The constant keeps item 0 of rank 0 from being all zeros.
func ItemWord(origin, item, j int) uint64 {
	x := (uint64(origin)<<48 | uint64(item&0xffff)<<32 | uint64(uint32(j))) ^ itemWordConst
	return x ^ bits.RotateLeft64(x, 13) ^ bits.RotateLeft64(x, 21) ^ bits.RotateLeft64(x, 32)
}

// itemWordConst is the golden-ratio constant 2^64/phi.
const itemWordConst = 0x9e3779b97f4a7c15

// FoldWord folds one payload word into a message checksum, the value of a
// data recv event: c = rotl(c, 1) XOR w, starting from 0 (the table
// checksum of docs/tables.md).
func FoldWord(c, w uint64) uint64 { return bits.RotateLeft64(c, 1) ^ w }

// BuildData compiles data messages into the gate tables of ranks ranks and
// gates gates and the matching DataTable. Gate g of every rank passes once
// its messages of gate g are sent and the one message into gate g+1 (if
// any) has arrived; the tables hold no self routes (a data unit carries no
// reduction value). origin[i] is the rank item i starts on.
func BuildData(ranks, gates, itemFlits int, origin []int32, msgs []Message) (*FlatTable, *DataTable, error) {
	if itemFlits < 1 || itemFlits > hw.MaxItemFlits {
		return nil, nil, fmt.Errorf("invalid item_flits: %d (allowed: 1..%d)", itemFlits, hw.MaxItemFlits)
	}
	if ranks < 1 || ranks > hw.MaxDataRanks {
		return nil, nil, fmt.Errorf("invalid ranks: %d (allowed: 1..%d for a data schedule)", ranks, hw.MaxDataRanks)
	}
	if gates < 0 || gates > hw.MaxGates {
		return nil, nil, fmt.Errorf("invalid data schedule: %d steps (allowed: 0..%d)", gates, hw.MaxGates)
	}
	if len(origin) < 1 || len(origin) > hw.MaxItems {
		return nil, nil, fmt.Errorf("invalid data schedule: %d items (allowed: 1..%d)", len(origin), hw.MaxItems)
	}
	for i, o := range origin {
		if o < 0 || int(o) >= ranks {
			return nil, nil, fmt.Errorf("invalid item %d: starts on rank %d (allowed: 0..%d)", i, o, ranks-1)
		}
	}
	st := gates + 2
	into := make([]int32, ranks*st) // message index + 1 delivering to (r, g)
	for i, m := range msgs {
		if len(m.Items) == 0 {
			return nil, nil, fmt.Errorf("message %d (rank %d -> %d, gate %d): no items", i, m.From, m.To, m.Gate)
		}
		for _, it := range m.Items {
			if it < 0 || int(it) >= len(origin) {
				return nil, nil, fmt.Errorf("message %d: item %d (allowed: 0..%d)", i, it, len(origin)-1)
			}
		}
		if m.From == m.To {
			return nil, nil, fmt.Errorf("message %d: rank %d sends to itself", i, m.From)
		}
		if m.To < 0 || m.To >= ranks || m.Gate < 1 || m.Gate > gates {
			continue // buildFlat names it
		}
		k := m.To*st + m.Gate + 1
		if into[k] != 0 {
			return nil, nil, fmt.Errorf("message %d: rank %d gate %d already receives message %d (a data gate takes one message)", i, m.To, m.Gate+1, into[k]-1)
		}
		into[k] = int32(i + 1)
	}
	tab, err := buildFlat(ranks, gates, func(yield func(Route) bool) {
		for _, m := range msgs {
			if !yield(Route{FromRank: m.From, FromGate: m.Gate, ToRank: m.To, ToGate: m.Gate + 1}) {
				return
			}
		}
	})
	if err != nil {
		return nil, nil, err
	}
	// buildFlat keeps message order within a (rank, gate): route i of the
	// table is the n-th message of its (From, Gate) group, so walk the
	// messages in that order to lay out their items.
	d := &DataTable{ItemFlits: itemFlits, Origin: origin,
		RouteItems: make([]int32, len(tab.OutDst)+1), RouteFrom: make([]int32, len(tab.OutDst)),
		RxRoute: make([]int32, ranks*st)}
	next := make([]int32, ranks*st)
	copy(next, tab.OutStart)
	route := make([]int32, len(msgs))
	for i, m := range msgs {
		k := m.From*st + m.Gate
		route[i] = next[k]
		next[k]++
	}
	count := make([]int32, len(tab.OutDst))
	for i, m := range msgs {
		count[route[i]] = int32(len(m.Items))
	}
	for i, c := range count {
		d.RouteItems[i+1] = d.RouteItems[i] + c
	}
	d.Items = make([]int32, d.RouteItems[len(count)])
	for i := range d.RxRoute {
		d.RxRoute[i] = -1
	}
	for i, m := range msgs {
		ri := route[i]
		copy(d.Items[d.RouteItems[ri]:], m.Items)
		d.RouteFrom[ri] = int32(m.From)
		d.RxRoute[m.To*st+m.Gate+1] = ri
	}
	return tab, d, nil
}

// SetData switches the units to data mode (docs/transfers.md): the table
// must be the FlatTable BuildData returned with d, and the op barrier.
func (u *Units) SetData(d *DataTable) error {
	if u.Op.HasPayload() {
		return fmt.Errorf("invalid op: %s (allowed: barrier, when the units move data)", u.Op)
	}
	if len(d.RouteItems) != len(u.Tab.OutDst)+1 || len(d.RxRoute) != u.Tab.Ranks*u.Tab.Stride() {
		return fmt.Errorf("data table does not match the gate table")
	}
	u.Data = d
	u.ds = make([]dataState, u.Tab.Ranks)
	return nil
}

// payload is the flit data of ItemWord cut to the flit width.
func (u *Units) payload(item int32, j int32) uint64 {
	w := ItemWord(int(u.Data.Origin[item]), int(item), int(j))
	if u.flitWidth < 64 {
		w &= 1<<u.flitWidth - 1
	}
	return w
}

// sendData sends the next flit of route rs.sendIdx of rank r at gate c: the
// head, then F flits per item of the route, the last one the tail.
func (u *Units) sendData(r, c int, rs *rankState, node int, t int64, p Port, w int) {
	ws := &u.stats[w]
	d := u.Data
	ds := &u.ds[r]
	ri := rs.sendIdx
	dst := u.Tab.OutDst[ri]
	var f hw.Flit
	if rs.sendFlit == 0 {
		f = hw.Flit{Dst: u.NodeOf[dst], Src: int32(r), Gate: uint8(c + 1), Flags: hw.FlitHead}
		ds.sendItem, ds.sendJ = 0, 0
		rs.sendFlit = 1
		ws.packets++
		u.emit(w, Event{Cycle: t, Node: int32(node), Kind: EvSend, Gate: uint8(c + 1), Rank: dst})
	} else {
		k := d.RouteItems[ri] + ds.sendItem
		f = hw.Flit{Dst: u.NodeOf[dst], Data: u.payload(d.Items[k], ds.sendJ)}
		if ds.sendJ++; int(ds.sendJ) == d.ItemFlits {
			ds.sendJ = 0
			if ds.sendItem++; k+1 == d.RouteItems[ri+1] {
				f.SetTail(true)
				rs.sendIdx++
				rs.sendFlit = 0
			}
		}
	}
	if u.Check != nil {
		u.Check.Send(rs, &f)
	}
	ws.flits++
	p.Inject(node, f, t, w)
}

// recvData takes one flit off rank r's ejection FIFO: a head names the
// gate, whose one expected message gives the items to check the payload
// flits against; the tail counts the message at its gate. The hardware
// errors (BADGATE, SHORT, OVER: docs/microarchitecture.md, "Error paths")
// go to rx.err; the payload checks (the RTL's simulation-only checks) to
// DataErrors, as before.
func (u *Units) recvData(r int, gs []gateState, rs *rankState, f hw.Flit, node int, t int64, w int, rx *rxCtx) {
	ws := &u.stats[w]
	d := u.Data
	ds := &u.ds[r]
	wasOpen := rs.rxOpen
	rs.rxOpen = !f.Tail()
	if u.Detect {
		u.checkData(rs, ds, &f, wasOpen, rx)
	}
	if f.Head() {
		g := int(f.Gate)
		inRange := g >= 2 && g <= rx.gates+1
		switch {
		case !inRange:
			rx.err = UnitError{Code: ErrBadGate, Gate: f.Gate, From: f.Src}
		case f.Tail():
			rx.err = UnitError{Code: ErrShort, Gate: f.Gate, From: f.Src}
		}
		// The payload checks look at a message whose head is not a tail,
		// for a gate of the table; another is not checked.
		checked := inRange && !f.Tail()
		if checked && ds.rxItem < ds.rxEnd {
			u.dataError(w, fmt.Sprintf("rank %d gate %d from rank %d: a head flit (from rank %d) before the tail", r, rs.rxGate, rs.rxSrc, f.Src))
		}
		rs.rxSrc, rs.rxGate = f.Src, f.Gate
		ds.rxSum, ds.rxJ, ds.rxItem, ds.rxEnd, ds.rxSkip = 0, 0, 0, 0, !checked
		if !checked {
			return
		}
		ri := d.RxRoute[r*(u.gates+2)+g]
		switch {
		case ri < 0:
			u.dataError(w, fmt.Sprintf("rank %d received a message from rank %d for gate %d, which expects none", r, f.Src, g))
		case d.RouteFrom[ri] != f.Src:
			u.dataError(w, fmt.Sprintf("rank %d gate %d received a message from rank %d, expected rank %d", r, g, f.Src, d.RouteFrom[ri]))
		default:
			ds.rxItem, ds.rxEnd = d.RouteItems[ri], d.RouteItems[ri+1]
		}
		return
	}
	switch {
	case ds.rxSkip:
	case ds.rxItem < ds.rxEnd:
		item := d.Items[ds.rxItem]
		if want := u.payload(item, ds.rxJ); f.Data != want {
			u.dataError(w, fmt.Sprintf("rank %d gate %d from rank %d: item %d flit %d is %#x, expected %#x", r, rs.rxGate, rs.rxSrc, item, ds.rxJ, f.Data, want))
		}
		if ds.rxJ++; int(ds.rxJ) == d.ItemFlits {
			ds.rxJ = 0
			ds.rxItem++
			ws.items++
		}
	default:
		u.dataError(w, fmt.Sprintf("rank %d gate %d from rank %d: payload flit past the expected items", r, rs.rxGate, rs.rxSrc))
	}
	ds.rxSum = FoldWord(ds.rxSum, f.Data)
	if !f.Tail() {
		return
	}
	if !ds.rxSkip && (ds.rxItem != ds.rxEnd || ds.rxJ != 0) {
		u.dataError(w, fmt.Sprintf("rank %d gate %d from rank %d: message ended early", r, rs.rxGate, rs.rxSrc))
	}
	g := int(rs.rxGate)
	if g < 2 || g > rx.gates+1 {
		return // the head raised BADGATE
	}
	if rx.waiting && g <= rx.curNx {
		rx.err = UnitError{Code: ErrOver}
		if wasOpen {
			rx.err.Gate, rx.err.From = rs.rxGate, rs.rxSrc
		}
		return
	}
	if rx.failed {
		return
	}
	gs[g].rxcnt[0]++ // data mode runs no loop: bank 0
	u.counted(r, t, uint8(g), 0, 0)
	u.emit(w, Event{Cycle: t, Node: int32(node), Kind: EvRecv, Gate: rs.rxGate, Rank: rs.rxSrc, Value: ds.rxSum})
}
func (u *Units) dataError(w int, msg string) {
	ws := &u.stats[w]
	if ws.errs == 0 {
		ws.firstErr = msg
	}
	ws.errs++
}

// checkData is the data mode's fault detection (docs/reliability.md,
// "Detection"), run before the flit is taken: the check code (CRC at a
// tail whose code does not match) and the message length from the item
// list (SEQ: a head while a message is open, a payload flit of no message
// or past the expected items, a tail before the last expected flit). It
// looks at messages the payload checks look at (a head of a gate of the
// table, not a tail); the first error of the cycle wins, as for the others.
func (u *Units) checkData(rs *rankState, ds *dataState, f *hw.Flit, wasOpen bool, rx *rxCtx) {
	bad := u.Check != nil && u.Check.Recv(rs, f)
	var code uint8
	switch {
	case f.Head() && wasOpen:
		code = ErrSeq
	case f.Head():
	case !wasOpen:
		code = ErrSeq
	case ds.rxSkip:
	case ds.rxItem >= ds.rxEnd:
		code = ErrSeq // past the expected items
	case f.Tail() && (ds.rxItem+1 != ds.rxEnd || int(ds.rxJ)+1 != u.Data.ItemFlits):
		code = ErrSeq // the message ends early
	}
	if code == 0 && bad {
		code = ErrCRC
	}
	if code != 0 && rx.err.Code == 0 && !rx.failed {
		rx.err = UnitError{Code: code, Gate: rs.rxGate, From: rs.rxSrc}
		if f.Head() {
			rx.err.Gate, rx.err.From = f.Gate, f.Src
		}
	}
}
