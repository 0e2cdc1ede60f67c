package barrierunit

import (
	"cmp"
	"fmt"
	"slices"
	"unsafe"

	"github.com/hxbar/hxbar/hw"
	"github.com/hxbar/hxbar/internal/bigmem"
	"github.com/hxbar/hxbar/internal/prefetch"
)

// Port is what a barrier unit needs from the network: the injection channel
// into its exchanger and the ejection FIFO out of it.
type Port interface {
	CanInject(node int, t int64) bool
	Inject(node int, f hw.Flit, t int64, w int)
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
	EvError // Gate: the error's gate, Rank: its source rank, Value: the code
)

// Error codes of a unit (docs/microarchitecture.md, "Error paths"; the
// STATUS register of docs/registers.md).
const (
	ErrBadGate uint8 = 1 // a head for a gate outside 2..G+1
	ErrNoRank  uint8 = 2 // a flit at a unit that hosts no rank
	ErrShort   uint8 = 3 // data mode: a head that is also a tail
	ErrFlits   uint8 = 4 // value mode: a packet of the wrong length
	ErrOver    uint8 = 5 // more signals into a gate than its need
	// Fault detection (docs/reliability.md, "Detection"):
	ErrCRC     uint8 = 6 // a packet whose check code does not match
	ErrSeq     uint8 = 7 // data mode: a message of the wrong length (a lost flit)
	ErrTimeout uint8 = 8 // no progress at a gate for the watchdog's cycles
)

// ErrName is the name of an error code: BADGATE, NORANK, SHORT, FLITS,
// OVER (code<n> for another).
func ErrName(code uint8) string {
	switch code {
	case ErrBadGate:
		return "BADGATE"
	case ErrNoRank:
		return "NORANK"
	case ErrShort:
		return "SHORT"
	case ErrFlits:
		return "FLITS"
	case ErrOver:
		return "OVER"
	case ErrCRC:
		return "CRC"
	case ErrSeq:
		return "SEQ"
	case ErrTimeout:
		return "TIMEOUT"
	}
	return fmt.Sprintf("code%d", code)
}

// UnitError is the error a unit recorded (the first it met; it stays in
// ERROR for the rest of the run).
type UnitError struct {
	Cycle int64
	Node  int32
	Rank  int32 // the rank the unit hosts, -1 for none
	Code  uint8
	Gate  uint8 // the gate the error concerns (0: none)
	From  int32 // the source rank of the packet (0: none; in a run of communicators, the base of the channel's)
	// NoFrom marks an error with a gate but no source: OVER found by the
	// gate check, which counts signals, not packets (From is 0).
	NoFrom bool
}

func (e UnitError) String() string {
	rank := "no rank"
	if e.Rank >= 0 {
		rank = fmt.Sprintf("rank %d", e.Rank)
	}
	return fmt.Sprintf("cycle %d: node %d (%s): %s%s", e.Cycle, e.Node, rank, ErrName(e.Code), e.Where())
}

// Where names the gate and the source rank the error concerns, as the
// message says them: " at gate G from rank R", " at gate G (found by the
// gate check: no source)" with NoFrom, "" for an error of no gate.
func (e UnitError) Where() string {
	switch {
	case e.Gate == 0:
		return ""
	case e.NoFrom:
		return fmt.Sprintf(" at gate %d (found by the gate check: no source)", e.Gate)
	}
	return fmt.Sprintf(" at gate %d from rank %d", e.Gate, e.From)
}

// Event is one trace event: see "Trace" in docs/microarchitecture.md.
type Event struct {
	Cycle int64
	Node  int32
	Kind  uint8
	Gate  uint8  // gate: passed gate; send/recv: gate delivered to; error: its gate
	Rank  int32  // arrive/gate/release: own rank; send: to rank; recv, error: from rank
	Value uint64 // arrive/gate/release/recv; error: the code
}

// Units is the cycle model of every barrier unit of a system. Ranks are
// hosted on nodes by NodeOf. The per-cycle state is kept as one small record
// per rank and one per (rank, gate), so that evaluating a unit touches a
// couple of cache lines rather than one per array.
type Units struct {
	Tab      *FlatTable
	Op       Op
	NodeOf   []int32 // rank -> node
	Arrive   []int64 // rank -> cycle the CPU arrives
	Operand  []uint64
	Release  []int64 // rank -> release cycle, -1 while waiting
	Result   []uint64
	Released int    // ranks released (summed by Collect)
	Packets  uint64 // packets injected (summed by Collect)
	Flits    uint64 // flits injected (summed by Collect)

	// Per-worker counters: a cycle's units may be evaluated by several
	// goroutines (worker w touches only stats[w]); Collect folds them in.
	stats [hw.MaxWorkers]workerStats

	payloadFlits int
	flitWidth    uint
	gates        int
	rank         []rankState
	gate         []gateState // (r, g) at r*(gates+2)+g
	// rxacc is the value received at (r, g) (same index as gate), read and
	// written only under an op with a payload: a barrier leaves it untouched.
	rxacc []uint64

	// Check, when set, makes the units compute and check the packets'
	// check code (docs/reliability.md, "Detection": CRC); Detect, the
	// data mode's message lengths (SEQ). A fault-free network can trip
	// neither, so sim sets them only for runs with faults.
	Check  *CheckCode
	Detect bool
	// Progress, when set (a watchdog), is each rank's last cycle of
	// progress: an arrival, a gate passed, a flit sent or popped.
	Progress []int64

	// Emit, when set, receives every event as it happens, with the
	// worker that evaluated the unit.
	Emit func(w int, e Event)

	// Data, when set, makes the units move items (docs/transfers.md):
	// each route's packet carries its items' flits instead of a value.
	Data *DataTable
	ds   []dataState
	// ItemsReceived counts items delivered to the units; DataErrors counts
	// received flits that were not what the schedule says, FirstDataError
	// describes the first (summed by Collect).
	ItemsReceived  uint64
	DataErrors     uint64
	FirstDataError string

	// Errors are the units' errors (docs/microarchitecture.md, "Error
	// paths"), by cycle then node (folded by Collect).
	Errors []UnitError
	// noRank[node]: the error code of a node that hosts no rank (SetNodes).
	noRank []uint8
	// ctrl, when set, holds the control registers of units that differ
	// from the system's (SetCtrl).
	ctrl []unitCtrl
	// PreStepBefore enables Eval's taking a gate step a cycle ahead for
	// steps in cycles below it (the run's max_cycles); 0 disables it.
	PreStepBefore int64

	// iterations > 1 makes the units run a loop (SetIterations); Looped
	// lists the ranks released in a loop iteration that is not their last
	// since the last Collect (the run schedules their next arrival).
	iterations uint32
	Looped     []int32

	// Channels (docs/microarchitecture.md, "Channels and communicators"):
	// with several communicators the ranks are the communicators' ranks
	// side by side (MergeTables). Chan is each rank's channel on its node,
	// which a head names above its iteration bit; Base the first rank of
	// its communicator (a head carries the sender's rank within it);
	// IterLimit its loop's iterations. All nil: one communicator.
	Chan      []uint8
	Base      []int32
	IterLimit []uint32

	// pipe, with the unit pipeline (SetPipeline), is each rank's last
	// counted tails and last move, which the gate check reads
	// (pipeline.go). nil: no pipeline.
	pipe []pipeState
}

// unitCtrl is a unit's CTRL register when it is not the system's.
type unitCtrl struct {
	set, off, data bool
	op             Op
	gates, npay    int
}

// dataState is one unit's transfer-engine registers (data mode only).
type dataState struct {
	sendItem int32  // item index within the current route
	sendJ    int32  // flit index within the item
	rxItem   int32  // index into Data.Items of the item being received
	rxEnd    int32  // one past the last item of the message being received
	rxJ      int32  // flit index within the item being received
	rxSum    uint64 // FoldWord checksum of the message's payload so far
	rxSkip   bool   // the message is not checked (its head raised an error, or was a tail)
}

type workerStats struct {
	looped         []int32
	released       int
	packets, flits uint64
	items, errs    uint64
	firstErr       string
	gateDone       []int64
	unitErrs       []UnitError
	_              [64]byte // keep workers off each other's cache line
}

// Collect folds the per-worker counters into Released, Packets and Flits.
func (u *Units) Collect() {
	for i := range u.stats {
		w := &u.stats[i]
		u.Released += w.released
		u.Packets += w.packets
		u.Flits += w.flits
		w.released, w.packets, w.flits = 0, 0, 0
		if len(w.looped) > 0 {
			u.Looped = append(u.Looped, w.looped...)
			w.looped = w.looped[:0]
		}
		if w.items|w.errs != 0 {
			u.ItemsReceived += w.items
			if w.errs != 0 && u.DataErrors == 0 {
				u.FirstDataError = w.firstErr
			}
			u.DataErrors += w.errs
			w.items, w.errs = 0, 0
		}
		if len(w.unitErrs) > 0 {
			u.Errors = append(u.Errors, w.unitErrs...)
			w.unitErrs = w.unitErrs[:0]
			slices.SortStableFunc(u.Errors, func(a, b UnitError) int {
				return cmp.Or(cmp.Compare(a.Cycle, b.Cycle), cmp.Compare(a.Node, b.Node))
			})
		}
	}
}

// SetNodes tells the units how many nodes the network has, so that a node
// without a rank can take the flits that reach it (and raise NORANK).
func (u *Units) SetNodes(nodes int) {
	u.noRank = make([]uint8, nodes)
}

// SetCtrl makes rank r's unit run with a control register other than the
// one the system's configuration writes (docs/registers.md, CTRL): en
// false (the unit hosts no rank: it never arrives and a flit raises
// NORANK), op, data (data mode; the units must have a data table) and
// gates (G, at most the table's). It models a fault or a wrong software
// write, for the tests of the error paths; the Verilog side gets the same
// CTRL value written.
func (u *Units) SetCtrl(r int, en bool, op Op, data bool, gates int) error {
	if r < 0 || r >= len(u.rank) {
		return fmt.Errorf("set ctrl: rank %d (allowed: 0..%d)", r, len(u.rank)-1)
	}
	if data && (u.Data == nil || op.HasPayload()) {
		return fmt.Errorf("set ctrl: data mode needs a data table and op barrier")
	}
	if gates < 0 || gates > u.gates {
		return fmt.Errorf("set ctrl: gates %d (allowed: 0..%d)", gates, u.gates)
	}
	if u.ctrl == nil {
		u.ctrl = make([]unitCtrl, len(u.rank))
	}
	c := unitCtrl{set: true, off: !en, data: data, op: op, gates: gates}
	if op.HasPayload() {
		c.npay = (64 + int(u.flitWidth) - 1) / int(u.flitWidth)
	}
	u.ctrl[r] = c
	if op.HasPayload() {
		id := op.Identity()
		for b := range u.banks() {
			ra := u.acc(r, b)
			for g := range ra {
				ra[g] = id
			}
		}
	}
	return nil
}

// rankState is one unit's registers (see docs/microarchitecture.md).
type rankState struct {
	acc      uint64
	rxVal    uint64 // value of the packet being received
	sendIdx  int32  // next route index into Tab.OutDst
	rxSrc    int32  // source rank of the packet being received
	node     int32
	cur      uint8 // last gate passed, 0 before arrival
	sendFlit uint8 // next flit of the current packet
	rxGate   uint8
	rxFlit   uint8
	rxOpen   bool  // a head was popped, its tail not yet
	err      uint8 // error code, 0: none (the unit is in ERROR otherwise)
	// pre is 1 + the parity of the cycle whose gate step an evaluation
	// already took (see Eval's end), 0 for none.
	pre uint8
	// rxBank is the receive bank of the packet being received (its head's
	// iteration bit; 0 outside a loop).
	rxBank uint8
	// iter counts the rank's releases in a loop (0 outside one): it runs
	// iteration iter+1, whose receive bank is iter&1.
	iter uint32
	// soft holds the software controls' state (softAbort, softDrain,
	// softSkip: docs/registers.md, "Software control"), 0 when none is
	// in use; ipend the interrupt's pending bits (IrqRelease, IrqError).
	soft  uint8
	ipend uint8
}

// The software controls' state of a unit (rankState.soft).
const (
	softAbort uint8 = 1 << iota // an ABORT write's access cycle is being evaluated
	softDrain                   // aborted mid-packet: sending the rest of it
	softSkip                    // aborted with a packet open: discarding the rest of it
)

// Interrupt pending bits (IRQ_STATUS, docs/registers.md).
const (
	IrqRelease uint8 = 1 << iota
	IrqError
)

// gateState is one gate's table entry and receive count: 8 bytes (a
// gate's first route is where the entry before ends, so it is not kept;
// the received value of an op with a payload is in Units.rxacc).
type gateState struct {
	outEnd int32 // one past the gate's last route; its first is the entry before's outEnd
	need   uint8
	// rxcnt is the received count per bank: bank 0 only, except in a loop
	// (SetIterations), whose iterations alternate between the two.
	rxcnt [2]uint8
	self  bool
}

// A gateState is 8 bytes, the size docs/performance.md's memory figures
// assume (the build fails otherwise).
const (
	_ = uint(8 - unsafe.Sizeof(gateState{}))
	_ = uint(unsafe.Sizeof(gateState{}) - 8)
)

// NewUnits builds the barrier units for a gate table.
func NewUnits(tab *FlatTable, op Op, flitWidth int, nodeOf []int32, arrive []int64, operand []uint64) *Units {
	R := tab.Ranks
	u := &Units{
		Tab: tab, Op: op, NodeOf: nodeOf, Arrive: arrive, Operand: operand,
		Release: make([]int64, R), Result: make([]uint64, R),
		flitWidth: uint(flitWidth), gates: tab.Gates,
	}
	u.rank = bigmem.Make[rankState](u, R)
	u.gate = bigmem.Make[gateState](u, R*tab.Stride())
	u.rxacc = bigmem.MakeSparse[uint64](u, R*tab.Stride())
	if op.HasPayload() {
		u.payloadFlits = (64 + flitWidth - 1) / flitWidth
	}
	for i := range u.stats {
		u.stats[i].gateDone = make([]int64, tab.Gates+2)
		for g := range u.stats[i].gateDone {
			u.stats[i].gateDone[g] = -1
		}
	}
	u.loadGates()
	for r := range u.Release {
		u.Release[r] = -1
		u.rank[r].node = nodeOf[r]
	}
	return u
}

// loadGates fills every (rank, gate) record from u.Tab: table entry, no
// signal received, and for an op with a payload its identity as received
// value (a barrier never reads rxacc, whose pages are then never touched).
func (u *Units) loadGates() {
	tab := u.Tab
	if u.Op.HasPayload() {
		id := u.Op.Identity()
		for i := range u.rxacc {
			u.rxacc[i] = id
		}
	}
	for i := range u.gate {
		if i > 0 && tab.OutStart[i] != tab.OutEnd[i-1] || i == 0 && tab.OutStart[0] != 0 {
			// Only a table built by hand can break it (buildFlat keeps it).
			panic(fmt.Sprintf("barrierunit: FlatTable entry %d: routes not stored in entry order (OutStart %d, the entry before ends at %d)", i, tab.OutStart[i], tab.OutEnd[max(i-1, 0)]))
		}
		u.gate[i] = gateState{outEnd: tab.OutEnd[i], need: tab.Need[i], self: tab.Self[i]}
	}
}

// NextEpisode re-arms the units for the next episode of a run
// (docs/microarchitecture.md, "Episodes"): every rank is released, and the
// configuration writes between the episodes load tab, op and d (d nil: a
// barrier; tab and d as BuildData returned them) and the ranks arrive at
// the absolute cycles arrive with operand. The network is untouched.
//
// A rank's unit stays RELEASED (it takes the next arrival) when its
// control register does not change; a new op, gate count or mode is a CTRL
// write, which returns it to IDLE (cur = 0). Either way its receive
// counts are 0 (cleared at its release) and its received values the
// identity of the new op.
func (u *Units) NextEpisode(tab *FlatTable, op Op, flitWidth int, d *DataTable, arrive []int64, operand []uint64) error {
	for r, rel := range u.Release {
		if rel < 0 {
			return fmt.Errorf("next episode: rank %d is not released", r)
		}
	}
	sameCtrl := tab.Gates == u.gates && op == u.Op && (d != nil) == (u.Data != nil)
	if tab != u.Tab || op != u.Op {
		if tab.Ranks != u.Tab.Ranks {
			return fmt.Errorf("next episode: %d ranks, the units have %d", tab.Ranks, u.Tab.Ranks)
		}
		u.Tab, u.Op, u.gates = tab, op, tab.Gates
		if n := tab.Ranks * tab.Stride(); n <= cap(u.gate) {
			u.gate, u.rxacc = u.gate[:n], u.rxacc[:n]
		} else {
			u.gate, u.rxacc = bigmem.Make[gateState](u, n), bigmem.MakeSparse[uint64](u, n)
		}
		u.loadGates()
	}
	u.payloadFlits = 0
	if op.HasPayload() {
		u.payloadFlits = (64 + flitWidth - 1) / flitWidth
	}
	u.flitWidth = uint(flitWidth)
	u.Data = nil
	if d != nil {
		if err := u.SetData(d); err != nil {
			return err
		}
	}
	for i := range u.stats {
		w := &u.stats[i]
		if len(w.gateDone) < tab.Gates+2 {
			w.gateDone = make([]int64, tab.Gates+2)
		}
		w.gateDone = w.gateDone[:tab.Gates+2]
		for g := range w.gateDone {
			w.gateDone[g] = -1
		}
	}
	u.Arrive, u.Operand = arrive, operand
	for r := range u.Release {
		u.Release[r], u.Result[r] = -1, 0
		if !sameCtrl {
			u.rank[r].cur = 0
		}
	}
	u.Released = 0
	u.ctrl = nil // the episode's configuration writes every unit's CTRL
	u.ItemsReceived, u.DataErrors, u.FirstDataError = 0, 0, ""
	return nil
}

// rearm clears a rank's received counts (gs) and values (ra) at its
// release: the unit takes the next episode's arrival and signals from a
// clean slate. Only an op with a payload reads the values.
func (u *Units) rearm(gs []gateState, ra []uint64, op Op, bank int) {
	for g := range gs {
		gs[g].rxcnt[bank] = 0
	}
	if op.HasPayload() {
		id := op.Identity()
		for g := range ra {
			ra[g] = id
		}
	}
}

// GateDone is the last cycle any rank passed gate g, or -1 while none has:
// step g-1 of a data schedule is done then. (Each worker records the cycle
// of its latest pass, and cycles only grow, so the maximum over the workers
// is the answer: nothing needs folding per cycle.)
func (u *Units) GateDone(g int) int64 {
	done := int64(-1)
	for i := range u.stats {
		done = max(done, u.stats[i].gateDone[g])
	}
	return done
}

// Gate returns the last gate rank r has passed (0 before it arrives; a
// unit still released from the previous episode has not arrived).
func (u *Units) Gate(r int) int {
	c := int(u.rank[r].cur)
	if c == u.GatesOf(r)+1 && u.Release[r] < 0 {
		return 0
	}
	return c
}

// Node is the node rank r's unit sits on (NodeOf[r] as NewUnits found it;
// NodeOf is then only where the packets for r go).
func (u *Units) Node(r int) int { return int(u.rank[r].node) }

// Received returns how many routes from other ranks have delivered to (r, g).
func (u *Units) Received(r, g int) int {
	return int(u.gate[r*(u.gates+2)+g].rxcnt[u.rank[r].iter&1])
}

// SendDone reports whether rank r has sent every packet of its current gate.
func (u *Units) SendDone(r int) bool {
	c := int(u.rank[r].cur)
	return c == 0 || c > u.GatesOf(r) || u.rank[r].sendIdx == u.gate[r*(u.gates+2)+c].outEnd
}

// Receiving returns the source rank and gate of the packet rank r is
// receiving: its head popped, its tail not yet (open false: none).
func (u *Units) Receiving(r int) (src int32, gate int, open bool) {
	rs := &u.rank[r]
	return rs.rxSrc, int(rs.rxGate), rs.rxOpen
}

// Sending returns the destination rank of the packet rank r is sending and
// the index of its next flit (meaningful while SendDone(r) is false).
func (u *Units) Sending(r int) (to, flit int) {
	rs := &u.rank[r]
	if int(rs.sendIdx) >= len(u.Tab.OutDst) {
		return -1, 0
	}
	flit = int(rs.sendFlit)
	if u.Data != nil && flit > 0 { // the head is sent: 1 + items sent * F + flit in the item
		ds := &u.ds[r]
		flit = 1 + int(ds.sendItem)*u.Data.ItemFlits + int(ds.sendJ)
	}
	return int(u.Tab.OutDst[rs.sendIdx]), flit
}

func (u *Units) emit(w int, e Event) {
	if u.Emit != nil {
		u.Emit(w, e)
	}
}

// Eval runs rank r's unit for cycle t (gate, send, receive: all read the
// state at the start of the cycle) and returns in how many cycles it has
// work again: 1 (t+1), 2 (t+2: it took the step of t+1 ahead, see
// PreStepBefore and docs/microarchitecture.md, "A gate step taken a cycle
// ahead") or 0 (none until a flit or its arrival wakes it).
// w is the evaluating worker (0..MaxWorkers-1); units of different ranks
// may be evaluated concurrently. The error paths are those of
// docs/microarchitecture.md, "Error paths".
func (u *Units) Eval(r int, t int64, p Port, w int) int {
	ws := &u.stats[w]
	G := u.gates // the table's gate count (the layout of gs)
	rs := &u.rank[r]
	gs := u.gate[r*(G+2) : (r+1)*(G+2)]
	b := rs.iter & 1 // the receive bank of the rank's iteration
	ra := u.acc(r, int(b))
	node := int(rs.node)
	op, data, npay, Gr := u.Op, u.Data != nil, u.payloadFlits, G
	if u.ctrl != nil {
		if m := &u.ctrl[r]; m.set {
			if m.off {
				e0 := rs.err
				more := u.evalOff(&rs.err, node, t, p, w)
				if e0 == 0 && rs.err != 0 {
					rs.ipend |= IrqError
				}
				if more {
					return 1
				}
				return 0
			}
			op, data, npay, Gr = m.op, m.data, m.npay, m.gates
		}
	}
	c := int(rs.cur)
	failed := rs.err != 0
	changed := false
	waiting := !failed && c >= 1 && c <= Gr
	// A unit sends while it waits, and in ERROR only to finish the packet
	// it is in the middle of: a half packet would hold its path through
	// the switches, shared with other channels and nodes, for good.
	finishing := failed && rs.sendFlit != 0 && c >= 1 && c <= Gr
	sending := (waiting || finishing) && rs.sendIdx < gs[c].outEnd
	// Software controls (docs/registers.md, "Software control"): ab, the
	// access cycle of an ABORT write; a drain sends the rest of the packet
	// the abort found half sent (cur is 0 by then).
	soft := rs.soft
	ab := soft&softAbort != 0
	if soft&softDrain != 0 {
		sending = true
	}
	// This cycle's gate step was taken ahead (pre): the state at the start
	// of the cycle is the one before it, which was not sending.
	pre := false
	if rs.pre != 0 {
		pre = int64(rs.pre-1) == t&1
		rs.pre = 0
		sending = sending && !pre
	}

	// 1. Gate (nothing in ERROR). The check reads gate c+1's count and
	// value as the unit pipeline lets it see them (rxSeen).
	released := false
	curNx := c
	var seenCnt uint8
	var seenVal uint64
	check := waiting && !pre && !ab && u.checks(r, t)
	if check {
		seenCnt, seenVal = u.rxSeen(r, t, gs, ra, op, c+1, b)
	}
	switch {
	case pre:
	case ab || soft&softDrain != 0:
		// No gate step in an ABORT's cycle; an arrival in it, or while
		// the unit drains, is held to the next cycle.
		if u.Arrive[r] == t {
			u.Arrive[r] = t + 1
		}
	case failed:
	case c == 0 || c == Gr+1: // idle, or released: re-armed for the next episode
		if u.Arrive[r] == t {
			rs.cur, curNx = 1, 1
			u.moved(r, t)
			ws.gateDone[1] = t
			rs.acc = 0 // barrier: no value (a previous episode may have left one)
			if op.HasPayload() {
				rs.acc = u.Operand[r]
			}
			rs.sendIdx, rs.sendFlit = gs[0].outEnd, 0 // gate 1's first route
			changed = true
			u.Release[r] = -1 // a loop's next iteration: waiting again
			u.emit(w, Event{Cycle: t, Node: int32(node), Kind: EvArrive, Gate: 1, Rank: int32(r), Value: rs.acc})
			if Gr == 0 { // gate 1 is the end gate: released by the same edge
				released = true
				rs.ipend |= IrqRelease
				u.Release[r], u.Result[r] = t, rs.acc
				u.releaseLooped(r, rs, ws)
				u.emit(w, Event{Cycle: t, Node: int32(node), Kind: EvRelease, Gate: 1, Rank: int32(r), Value: rs.acc})
			}
		}
	case !check:
	case !sending && seenCnt == gs[c+1].need:
		g := c + 1
		u.moved(r, t)
		passGateValue(rs, gs, seenVal, op, g)
		curNx = g
		ws.gateDone[g] = max(ws.gateDone[g], t) // a step taken ahead may have set t+1
		changed = true
		if g == Gr+1 {
			released = true
			rs.ipend |= IrqRelease
			u.Release[r], u.Result[r] = t, rs.acc
			u.releaseLooped(r, rs, ws)
			u.emit(w, Event{Cycle: t, Node: int32(node), Kind: EvRelease, Gate: uint8(g), Rank: int32(r), Value: rs.acc})
		} else {
			u.emit(w, Event{Cycle: t, Node: int32(node), Kind: EvGate, Gate: uint8(g), Rank: int32(r), Value: rs.acc})
		}
	}
	// The gate check finds more signals than the gate needs: OVER.
	var e UnitError
	if check && seenCnt > gs[c+1].need {
		e = UnitError{Code: ErrOver, Gate: uint8(c + 1), NoFrom: true}
	}

	// 2. Send (state at the start of the cycle: gate c, its pending routes).
	if sending && data {
		if p.CanInject(node, t) {
			u.sendData(r, c, rs, node, t, p, w)
			changed = true
		}
	} else if sending && p.CanInject(node, t) {
		dst := u.Tab.OutDst[rs.sendIdx]
		k := rs.sendFlit
		var f hw.Flit
		if k == 0 {
			// The head's first bit above the header is its iteration bit
			// (a loop's receive bank; 0 outside one).
			f = hw.Flit{Dst: u.NodeOf[dst], Src: int32(r), Gate: uint8(c + 1), Flags: hw.FlitHead, Data: uint64(b)}
			if u.Chan != nil { // the rank within its communicator, and the destination's channel
				f.Src -= u.Base[r]
				f.Data |= uint64(u.Chan[dst]) << 1
			}
			ws.packets++
			u.emit(w, Event{Cycle: t, Node: int32(node), Kind: EvSend, Gate: uint8(c + 1), Rank: dst})
		} else {
			f = hw.Flit{Dst: u.NodeOf[dst], Data: rs.acc >> ((uint(k) - 1) * u.flitWidth)}
			if u.flitWidth < 64 {
				f.Data &= 1<<u.flitWidth - 1
			}
		}
		ws.flits++
		if int(k) == npay {
			f.SetTail(true)
			rs.sendIdx++
			rs.sendFlit = 0
			rs.soft &^= softDrain
		} else {
			rs.sendFlit++
		}
		if u.Check != nil {
			u.Check.Send(rs, &f) // after the marks: the code covers them
		}
		p.Inject(node, f, t, w)
		changed = true
	}

	// 3. Receive: one flit per cycle, always popped (also in ERROR).
	rx := rxCtx{gates: Gr, curNx: curNx, waiting: waiting, failed: failed}
	var rxo rxObs // what an ABORT in this cycle needs of the receive part
	rxo.open, rxo.skip = rs.rxOpen, soft&softSkip != 0
	if rxo.skip {
		if f, ok := p.RxFront(node, t); ok {
			p.RxPop(node, t) // discarded: the rest of a packet open at an abort
			changed = true
			rxo.popped, rxo.head, rxo.tail = true, f.Head(), f.Tail()
			if rxo.tail {
				rs.soft &^= softSkip
			}
		}
	} else if f, ok := p.RxFront(node, t); ok && data {
		p.RxPop(node, t)
		changed = true
		u.recvData(r, gs, rs, f, node, t, w, &rx)
	} else if ok {
		p.RxPop(node, t)
		changed = true
		head, tail := f.Head(), f.Tail()
		rxo.popped, rxo.head, rxo.tail = true, head, tail
		gate, src := rs.rxGate, rs.rxSrc
		if head {
			gate, src = f.Gate, f.Src
			if u.Base != nil {
				src += u.Base[r]
			}
		}
		got := 0 // payload flits of the packet, this one included
		if !head {
			got = int(rs.rxFlit) + 1
		}
		code := uint8(0)
		inRange := gate >= 2 && int(gate) <= Gr+1
		switch {
		case head && !inRange:
			code = ErrBadGate
		case head && rs.rxOpen, !head && !rs.rxOpen, tail && got != npay,
			!tail && !head && got == npay, head && !tail && npay == 0:
			code = ErrFlits
		}
		if u.Check != nil {
			if u.Check.Recv(rs, &f) && code == 0 && !failed {
				code = ErrCRC
			}
		}
		tailOK := tail && inRange && code == 0
		rb := rs.rxBank
		if head {
			rb = u.bankOf(&f)
		}
		if tailOK && waiting && rb == uint8(b) && int(gate) <= curNx {
			code = ErrOver // a tail for a gate passed (or passing now)
		}
		if code != 0 {
			e = UnitError{Code: code}
			if head || rs.rxOpen {
				e.Gate, e.From = gate, src
			}
		}
		if head {
			rs.rxSrc, rs.rxGate, rs.rxVal, rs.rxFlit, rs.rxBank = src, f.Gate, 0, 0, rb
		} else {
			rs.rxVal |= f.Data << (uint(rs.rxFlit) * u.flitWidth)
			rs.rxFlit++
		}
		rs.rxOpen = !tail
		if tailOK && code == 0 && !failed && !ab {
			gs[gate].rxcnt[rb]++
			if op.HasPayload() {
				rx := ra
				if rb != uint8(b) {
					rx = u.acc(r, int(rb))
				}
				u.counted(r, t, gate, rb, rx[gate])
				rx[gate] = op.Apply(rx[gate], rs.rxVal)
			} else {
				u.counted(r, t, gate, rb, 0)
			}
			u.emit(w, Event{Cycle: t, Node: int32(node), Kind: EvRecv, Gate: gate, Rank: src, Value: rs.rxVal})
		}
	}
	if rx.err.Code != 0 {
		e = rx.err
	}
	if e.Code != 0 && !failed && !ab {
		e.Cycle, e.Node, e.Rank = t, int32(node), int32(r)
		if u.Base != nil && (e.Gate == 0 || e.NoFrom) {
			// No source: the register's 0 is rank 0 of the channel's
			// communicator, in run ranks its base (as the RTL's monitor
			// reads it), which also names the channel that raised it.
			e.From = u.Base[r]
		}
		u.raise(w, &rs.err, e)
		rs.ipend |= IrqError
		changed = true
	}
	if ab {
		u.abortEdge(r, rs, gs, op, rxo)
		changed = true
	}
	if released {
		// After the receive part: a count received in this cycle into the
		// bank of the iteration that ends is cleared too.
		u.rearm(gs, ra, op, int(b))
		u.pipeClear(r, b)
	}
	if changed && u.Progress != nil {
		u.Progress[r] = t
	}
	// Work in t+1 is a flit to pop, a send or a gate that can pass; the
	// rank's arrival is woken by the run. What changed in this cycle is
	// in the state read below, so a unit that only changed (a flit sent,
	// popped, a gate passed) is not evaluated again for nothing.
	if p.RxPending(node, t+1) {
		return 1
	}
	c = int(rs.cur)
	if rs.err != 0 && rs.sendFlit != 0 && c >= 1 && c <= Gr || rs.soft&softDrain != 0 {
		return 1 // in ERROR or aborted, finishing the packet it began
	}
	if rs.err != 0 || c < 1 || c > Gr {
		return 0
	}
	// Still sending (blocked on a credit), or the next gate can pass (or
	// has too many signals).
	g := c + 1
	switch {
	case rs.sendIdx < gs[c].outEnd:
		return 1
	case gs[g].rxcnt[b] < gs[g].need:
		return 0
	case gs[g].rxcnt[b] > gs[g].need || g > Gr || t+1 >= u.PreStepBefore || data || u.ctrl != nil || u.pipe != nil:
		return 1 // (with the unit pipeline, a count of this cycle is seen in t+2: no step ahead)
	}
	// Only gate g's step is left for t+1 (no flit ready, nothing to
	// send, and nothing else changes the unit's state by then): take it
	// now, stamped t+1, and come back at t+2. A flit that still reaches
	// the unit for t+1 evaluates it then, with pre set.
	passGate(rs, gs, ra, op, g)
	ws.gateDone[g] = max(ws.gateDone[g], t+1)
	u.emit(w, Event{Cycle: t + 1, Node: int32(node), Kind: EvGate, Gate: uint8(g), Rank: int32(r), Value: rs.acc})
	if u.Progress != nil {
		u.Progress[r] = t + 1
	}
	rs.pre = 1 + uint8((t+1)&1)
	return 2
}

// passGate moves a unit (rs, its gate records gs and received values ra)
// through gate g: the carried value takes in what g received (under op),
// and the send pointer goes to g's first route.
func passGate(rs *rankState, gs []gateState, ra []uint64, op Op, g int) {
	var v uint64
	if op.HasPayload() {
		v = ra[g]
	}
	passGateValue(rs, gs, v, op, g)
}

// passGateValue is passGate with v as the value g received.
func passGateValue(rs *rankState, gs []gateState, v uint64, op Op, g int) {
	if op.HasPayload() {
		if gs[g].self {
			v = op.Apply(rs.acc, v)
		}
		rs.acc = v
	}
	rs.cur = uint8(g)
	rs.sendIdx = gs[g-1].outEnd // gate g's first route
	rs.sendFlit = 0
}

// rxCtx is what the receive part of a data unit needs of the cycle's gate
// part, and the error it finds.
type rxCtx struct {
	gates, curNx    int
	waiting, failed bool
	err             UnitError
}

// raise records error e of a unit whose error register is errp.
func (u *Units) raise(w int, errp *uint8, e UnitError) {
	*errp = e.Code
	ws := &u.stats[w]
	ws.unitErrs = append(ws.unitErrs, e)
	u.emit(w, Event{Cycle: e.Cycle, Node: e.Node, Kind: EvError, Gate: e.Gate, Rank: e.From, Value: uint64(e.Code)})
}

// Timeout raises TIMEOUT for rank r in cycle t (the watchdog, run by sim
// after the units of cycle t): the gate it waits at and the first rank
// whose signal is missing (from). A unit already in ERROR, not waiting or
// released raises nothing; Timeout reports whether it raised.
func (u *Units) Timeout(r int, t int64, from int32) bool {
	rs := &u.rank[r]
	c := int(rs.cur)
	if rs.err != 0 || c < 1 || c > u.GatesOf(r) || u.Release[r] >= 0 {
		return false
	}
	u.raise(0, &rs.err, UnitError{Cycle: t, Node: rs.node, Rank: int32(r), Code: ErrTimeout, Gate: uint8(c + 1), From: from})
	rs.ipend |= IrqError
	return true
}

// Waiting reports whether rank r is between its arrival and its release
// with no error (what the watchdog watches).
func (u *Units) Waiting(r int) bool {
	rs := &u.rank[r]
	c := int(rs.cur)
	return rs.err == 0 && c >= 1 && c <= u.GatesOf(r) && u.Release[r] < 0
}

// EvalNoRank runs the unit of a node that hosts no rank (SetNodes) in
// cycle t: it pops every flit that reaches it, the first one raising
// NORANK. It reports whether it has work in t+1.
func (u *Units) EvalNoRank(node int, t int64, p Port, w int) bool {
	return u.evalOff(&u.noRank[node], node, t, p, w)
}

// evalOff is a unit with CTRL.EN = 0: it only pops. The first flit raises
// NORANK with its gate and source when it is a head (the unit's receive
// registers hold no open packet: it never took one).
func (u *Units) evalOff(errp *uint8, node int, t int64, p Port, w int) bool {
	f, ok := p.RxFront(node, t)
	if !ok {
		return p.RxPending(node, t+1)
	}
	p.RxPop(node, t)
	if *errp == 0 {
		e := UnitError{Cycle: t, Node: int32(node), Rank: -1, Code: ErrNoRank}
		if f.Head() {
			e.Gate, e.From = f.Gate, f.Src
		}
		u.raise(w, errp, e)
	}
	return true
}

// Prefetch asks for the lines rank r's evaluation will touch, in the
// engine's prefetch stages (noc.Network.PrefetchSwitch): 0: its record;
// 1: the records of its current and next gate and its next route entry;
// 2: the destination of the packet it sends. It returns, from stage 2 on,
// the node that packet goes to (-1: none), for the network's part. Only
// rank r's evaluation writes what it reads.
func (u *Units) Prefetch(r int, stage int) int32 {
	if !prefetch.Enabled {
		return -1
	}
	rs := &u.rank[r]
	if stage == 0 {
		prefetch.Lines(unsafe.Pointer(rs), unsafe.Sizeof(rankState{}), 2)
		return -1
	}
	c := int(rs.cur)
	if c > u.gates {
		return -1
	}
	i := r*(u.gates+2) + c
	if stage == 1 {
		prefetch.Lines(unsafe.Pointer(&u.gate[i]), 2*unsafe.Sizeof(gateState{}), 2)
		// The route entry stage 2 reads: an array of 4 bytes per route,
		// read at random (its load was 8 % of the million-rank run's CPU
		// time before it was asked for here).
		if j := int(rs.sendIdx); j < len(u.Tab.OutDst) {
			prefetch.T0(unsafe.Pointer(&u.Tab.OutDst[j]))
		}
		return -1
	}
	if c == 0 || rs.sendIdx >= u.gate[i].outEnd || int(rs.sendIdx) >= len(u.Tab.OutDst) {
		return -1
	}
	dst := u.Tab.OutDst[rs.sendIdx]
	if stage == 2 {
		prefetch.T0(unsafe.Pointer(&u.NodeOf[dst]))
		return -1
	}
	return u.NodeOf[dst]
}

// SetIterations makes the units run a loop of n iterations of their one
// schedule (docs/microarchitecture.md, "Iterations"); n <= 1 is a single
// run. In a loop each unit keeps two banks of receive state: iteration i
// counts in bank (i-1)&1, a head carries its sender's bank as its first
// bit above the header, and a release clears only the bank of the
// iteration that ends, so that the next iteration's signals, which may
// come before it, are kept. A release that is not a rank's last is listed
// in Looped (Collect), and counts in Released only at the last iteration.
// Call it before the run, after NewUnits.
func (u *Units) SetIterations(n int) {
	u.iterations = uint32(max(n, 1))
	if n <= 1 {
		return
	}
	u.rxacc = bigmem.MakeSparse[uint64](u, 2*len(u.rank)*u.Tab.Stride())
	if u.Op.HasPayload() {
		id := u.Op.Identity()
		for i := range u.rxacc {
			u.rxacc[i] = id
		}
	}
}

// Iteration is the loop iteration rank r runs, or ran last when released
// (1-based; 1 outside a loop).
func (u *Units) Iteration(r int) int {
	rs := &u.rank[r]
	i := int(rs.iter) + 1
	if c := int(rs.cur); i > 1 && (c == 0 || c == u.GatesOf(r)+1) {
		i-- // released, not yet arrived again
	}
	return i
}

// banks is the number of receive banks: 2 in a loop, else 1.
func (u *Units) banks() int {
	if u.iterations > 1 {
		return 2
	}
	return 1
}

// acc is rank r's received values of bank b.
func (u *Units) acc(r, b int) []uint64 {
	st := u.gates + 2
	i := r * st
	if u.iterations > 1 {
		i = (2*r + b) * st
	}
	return u.rxacc[i : i+st]
}

// bankOf is the receive bank a head flit names: its iteration bit in a
// loop, else 0.
func (u *Units) bankOf(f *hw.Flit) uint8 {
	if u.iterations > 1 {
		return uint8(f.Data & 1)
	}
	return 0
}

// releaseLooped counts rank r's release: in a loop the rank moves to its
// next iteration's bank, and a release before the last iteration is
// listed for the run to schedule the next arrival.
func (u *Units) releaseLooped(r int, rs *rankState, ws *workerStats) {
	if u.iterations <= 1 {
		ws.released++
		return
	}
	limit := u.iterations
	if u.IterLimit != nil {
		limit = u.IterLimit[r]
	}
	if limit <= 1 {
		ws.released++
		return
	}
	rs.iter++
	if rs.iter >= limit {
		ws.released++
		return
	}
	ws.looped = append(ws.looped, int32(r))
}

// SendPending reports whether rank r's unit has a flit to send in cycle t
// (the state at the start of t, as Eval's send part reads it), and whether
// that flit continues a packet already begun (a node's channels share its
// injection port packet by packet: docs/microarchitecture.md, "Channels
// and communicators").
func (u *Units) SendPending(r int, t int64) (pending, midPacket bool) {
	rs := &u.rank[r]
	Gr := u.gates
	if u.ctrl != nil {
		if m := &u.ctrl[r]; m.set {
			if m.off {
				return false, false
			}
			Gr = m.gates
		}
	}
	c := int(rs.cur)
	if rs.err != 0 && rs.sendFlit == 0 || c < 1 || c > Gr || rs.pre != 0 && int64(rs.pre-1) == t&1 {
		return false, false // in ERROR only a packet begun is finished
	}
	if rs.sendIdx >= u.gate[r*(u.gates+2)+c].outEnd {
		return false, false
	}
	return true, rs.sendFlit != 0
}

// RaiseAt records error code on node's unit in cycle t, for a flit no
// channel of the node takes (a head naming a channel the node does not
// have): the node's error register, like NORANK's.
func (u *Units) RaiseAt(node int, t int64, f hw.Flit, code uint8, w int) {
	if u.noRank[node] != 0 {
		return // the node's register holds its first error
	}
	e := UnitError{Cycle: t, Node: int32(node), Rank: -1, Code: code}
	if f.Head() {
		e.Gate, e.From = f.Gate, f.Src
	}
	u.raise(w, &u.noRank[node], e)
}

// GatesOf is rank r's gate count G: its CTRL register's when SetCtrl set
// one (a communicator's own tables), else the table's.
func (u *Units) GatesOf(r int) int {
	if u.ctrl != nil && u.ctrl[r].set {
		return u.ctrl[r].gates
	}
	return u.gates
}
