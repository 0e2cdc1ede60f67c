package noc

import (
	"fmt"
	"math"
	"math/bits"
	"sync/atomic"
	"unsafe"

	"github.com/hxbar/hxbar/hw"
	"github.com/hxbar/hxbar/internal/bigmem"
	"github.com/hxbar/hxbar/internal/prefetch"
)

// Config holds the timing parameters of a network.
type Config struct {
	BufferDepth int  // flits per input FIFO
	LinkLatency int  // cycles on exchanger <-> crossbar channels
	HalfDuplex  bool // exchanger/crossbar port pairs share one wire
	// Retry: link-level retry wraps every channel (docs/reliability.md,
	// "Link-level retry"); a channel then takes RetryLatency cycles.
	Retry bool
	// SwitchPipeline (switch_pipeline 1): every switch registers its
	// requests, so a head flit requests from the second cycle it is at the
	// front of an input owning no output (docs/microarchitecture.md,
	// "Switch pipeline"; hx_switch.v, SP).
	SwitchPipeline bool
}

// RetryLatency is the latency of a channel of latency l with link-level
// retry: at least 2, so that the receiver's check reads a register (a
// 1-cycle link gets one stage: docs/reliability.md).
func RetryLatency(l int) int { return max(l, 2) }

// slot is one FIFO entry: 16 bytes, so that a FIFO of depth 4 is one cache
// line. when says, in one 32-bit cycle relative to Network.epoch (atomic:
// the downstream writes it at a pop, the upstream at a push, each reads
// the other's store):
//
//   - below heldMin: the slot is empty and free from that cycle on (the
//     credit returned with the link latency);
//   - heldOff + c, for c within the relative range: the slot holds a flit,
//     which its reader sees from cycle c on (ready);
//   - deadRel: a dead channel swallowed the flit meant for it; it is never
//     free again and holds no flit.
//
// So the upstream's credit check is when <= t (a held slot's value is above
// any current cycle), the downstream's "holds a flit" is held, and a FIFO
// holds the flits of the held slots from its head on. Keeping the mark in
// the slot means a push touches only the lines it writes.
type slot struct {
	when int32
	body flitBody
}

// flitBody is a flit packed into 12 bytes (hw.Flit is 32): the payload
// (Data) is kept apart, in Network.data, for the flits that carry one, and
// a head flit on a fabric with coordinate addresses keeps its packed
// destination, from which its node id follows (Network.dstNode), and a
// tail's check code is kept apart too, in Network.codes (bodyCode).
// packFlit and unpackFlit convert; a switch moves bodies without
// unpacking them.
type flitBody struct {
	dstLo uint32 // bodyAddr: the destination's packed address, bits 0..31; else its node id
	srcLo uint16 // Src, bits 0..15
	srcHi uint8  // Src, bits 16..23 (ranks and nodes are below 2^24)
	dstHi uint8  // bodyAddr: the packed address, bits 32..39
	gate  uint8
	flags uint8 // hw.FlitHead | hw.FlitTail | bodyNoNode | bodyCode | bodyAddr | bodyData
	_     [2]uint8
}

// flitBody.flags bits beside the flit's own head and tail marks.
const (
	// bodyNoNode: a head flit whose address names no node (hw.NoNode; a
	// flipped bit): dstLo, dstHi hold the address as the wire carries it,
	// with bodyAddr, and the next switch drops it (illegal.go).
	bodyNoNode uint8 = 1 << 4
	bodyCode   uint8 = 1 << 5 // the flit's CRC is in Network.codes at the slot's index (CRC != 0)
	bodyAddr   uint8 = 1 << 6 // dstLo, dstHi: the packed destination (a head flit on a fabric with addresses)
	bodyData   uint8 = 1 << 7 // the flit's Data is in Network.data at the slot's index (Data != 0)
	flitMarks        = hw.FlitHead | hw.FlitTail
)

// maxSrc bounds a flit's Src, which a body keeps in 24 bits.
const maxSrc = 1 << 24

// fifoState is everything the model keeps per FIFO besides its slots. Only
// the FIFO's reader (its switch, or its endpoint) touches it: a push writes
// the slot and the occupancy word only, so the upstream never reads or
// writes this line. It is 8 bytes, so that the records of a 17-port
// router's inputs take 2-3 lines.
type fifoState struct {
	popped uint32 // flits ever read
	head   uint8  // ring index of the front slot
	lat    uint8  // latency of the channel feeding it (the credit's return)
	// rt caches the output the front flit (a head) is routed to, plus 1
	// (0: not known), when the engine's prefetch routed it ahead of the
	// evaluation; the pop that takes the flit clears it.
	rt uint8
	_  uint8
}

// outState is the per-output-port state, in one record per port so that a
// switch's evaluation reads a few adjacent cache lines. For switch ports the
// same index is also the input port: inOwned belongs to the input side.
//
// It is 16 bytes, four to a cache line and none across two: the
// shared-wire id, whether the output is a network channel and whether a
// fault is armed on it, which only a shared-wire check, the statistics and
// a network with faults read, are kept apart (Network.wire,
// Network.netBits, Network.faultBits), and the flits it has sent are its
// downstream FIFO's push count (sentBy).
type outState struct {
	// nextFree caches slot.when of the slot the next flit goes to, read
	// when the output asks for credit: only the upstream ever marks a slot
	// held, so a cached free cycle <= t stays true and the remote slot is
	// read again only when it said no.
	nextFree int32
	down     int32 // downstream FIFO
	// dst is the element to wake when a flit is sent, times 64, plus the
	// downstream FIFO's input port within that switch (0 for an ejection
	// FIFO), whose occupancy bit the push sets (wakeEl, portIn).
	dst     uint32
	owner   int8  // input owning this output, or -1
	inOwned int8  // output the input with this index owns, or -1
	rr      uint8 // round-robin pointer
	sendIdx uint8 // credit ring index of the next flit
}

// wakeEl is the element output oi wakes when it sends.
func (oi *outState) wakeEl() int32 { return int32(oi.dst >> 6) }

// portIn is the input port (of switch wakeEl) output oi feeds.
func (oi *outState) portIn() uint32 { return oi.dst & 63 }

// maxElements bounds a network's elements, so that outState.dst holds an
// element id beside a port.
const maxElements = 1 << 26

// Compile-time ties: an outState is 16 bytes, a slot 16 (a 12-byte flit
// body and a relative cycle) and a FIFO record 8, the sizes the memory
// figures of docs/performance.md assume; a port fits outState.dst's 6 bits.
const (
	_ = uint(16 - unsafe.Sizeof(outState{}))
	_ = uint(unsafe.Sizeof(outState{}) - 16)
	_ = uint(16 - unsafe.Sizeof(slot{}))
	_ = uint(unsafe.Sizeof(slot{}) - 16)
	_ = uint(8 - unsafe.Sizeof(fifoState{}))
	_ = uint(unsafe.Sizeof(fifoState{}) - 8)
	_ = uint(64 - MaxSwitchPorts)
)

// takenRel marks an output's cached free cycle (outState.nextFree) as not
// free: the slot holds a flit, or did when last read; taken is the mark of
// an absolute cycle (link-level retry's channel held by a dead link).
// deadRel marks a slot whose flit a dead channel swallowed (swallow): its
// credit never returns, and it holds no flit.
const (
	taken    = math.MaxInt64
	takenRel = math.MaxInt32
	deadRel  = math.MaxInt32 - 1
)

// Relative cycles (slot.when) are cycle - Network.epoch. Rebase moves the
// epoch to the current cycle once it is rebaseAfter behind, clamping
// cycles of the past at relFloor: a past cycle is only ever compared with
// the current one or a later one, to which any past cycle compares the
// same. Future cycles in slots lie at most hw.MaxLinkLatency plus the retry
// horizon ahead (far below 2^28). So a free cycle lies in
// [-2^28, 2^28 + 2^20) and a held slot's heldOff + ready in
// [2^30 - 2^28, 2^30 + 2^28 + 2^20): apart at heldMin, below deadRel, and
// above any current cycle.
const (
	rebaseAfter = 1 << 28
	relFloor    = -1 << 28
	heldOff     = 1 << 30
	heldMin     = 1 << 29
)

// Network is the cycle model of every switch and channel of a topology.
// FIFO ids: switch input port p of switch s is portBase[s]+p; the ejection
// FIFO of node n (in its endpoint) is rxBase+n.
//
// Elements, as the engine schedules them: switch s is element s; the
// endpoint of node n is element Switches+n.
type Network struct {
	T   *Topology // the hyper-crossbar, or nil for another fabric
	F   Fabric    // the fabric (T when it is the hyper-crossbar)
	cfg Config
	// epLat, netLat: the latency of an endpoint's channels and of a
	// channel between switches (latOf).
	epLat, netLat int64
	B             uint32

	switches, nodes int
	// gen routes every head flit through the fabric's routing function;
	// nil for the hyper-crossbar, whose route reads the tables below, and
	// for the torus, whose route is tor.NextAddr on packed addresses.
	gen Fabric
	tor *Torus

	portBase []int32 // len Switches+1
	rxBase   int32

	fifo  []fifoState // per FIFO
	occ   []uint64    // per switch: bit p set when input FIFO p is non-empty
	slots []slot      // FIFO f owns slots[f*B : f*B+B]
	// data holds, per slot, the payload of a flit that has one (bodyData):
	// a barrier's flits have none, so its pages are only faulted in by
	// runs that carry data.
	data []uint64
	// codes holds, per slot, the check code of a flit that has one
	// (bodyCode); nil until KeepCodes, so fault-free runs pay nothing.
	codes []uint32
	out   []outState // per output: switch ports, then one injection output per node

	used []int64 // per wire: last cycle a flit crossed it
	// wire is each output's shared wire (-1: none), when a shared-wire
	// check reads used (half duplex); nil otherwise.
	wire []int32
	// netBits has bit o set when output o drives a network channel
	// (switch to switch), for FlitHops and BusiestOutput.
	netBits []uint64
	// localWire, when not nil, replaces used for a fabric whose shared
	// wires each join outputs of one switch (the torus in full duplex: the
	// two VCs of a link direction): localWire[p] is the set of ports whose
	// outputs share port p's wire (p's own bit included), and EvalSwitch
	// keeps the ports that sent this cycle in a local mask. A switch is
	// evaluated once per cycle, so that mask is the wire's whole use in
	// the cycle, and no shared array (a cache miss per hop) is needed.
	localWire []uint64

	// Route tables, shared by all switches with the same content: the model
	// reads the very tables Topology generates for the Verilog writer.
	addr []uint64 // per node: its packed coordinates (hw.Flit's DstAddr); nil for the fat tree
	// stride[k] is the node-id step of coordinate k (with addr): a node is
	// the sum of its coordinates times their strides (dstNode).
	stride []int32
	exSub  [][]uint8 // [k][x*Kk + c]: exchanger entry for own coord x, dest coord c
	xbTab  [][]uint8 // [k][c]: crossbar entry

	// exc, when set, are the routing exceptions of Avoid, per switch
	// (avoid.go, avoidfabric.go).
	exc []map[int32]uint8

	// faults, when set, holds the armed faults (faults.go); only outputs
	// with their bit set in faultBits look at it.
	faults *faultState
	// faultBits has bit o set when a fault is armed on output o (or every
	// crossing is recorded); nil until SetFaults or Record.
	faultBits []uint64
	// drops counts, per switch, the illegal flits its inputs met, and
	// discarding[f] says switch input FIFO f is dropping the rest of a
	// packet whose head named no node (illegal.go); nil without faults,
	// where no flit is illegal.
	drops      []DropCounts
	discarding []bool

	// Wake asks the engine to evaluate element e in cycle at; w is the
	// worker asking (EvalSwitch's and Inject's w).
	Wake func(w int, e int32, at int64)

	// epoch is the cycle the slots' relative cycles count from, and
	// rebaseAfter how far the current cycle may run ahead of it (Rebase).
	epoch       int64
	rebaseAfter int64

	// lastPop, with Config.SwitchPipeline, is the last cycle each FIFO was
	// popped or its front head cut (-1: never); nil otherwise. Only the
	// FIFO's reader writes and reads it.
	lastPop []int64

	// serial: one goroutine evaluates the network (SetSerial), so the
	// push and the pop store and set bits without locked instructions.
	serial bool
}

// SetSerial says whether one goroutine alone evaluates the network from
// now on (true) or several may share a cycle (false, the default). A
// serial network marks slots and occupancy bits with plain stores: on
// x86 an atomic store or bit set is a locked instruction, four or five a
// hop: about 8 % of a 16x16 traffic cycle at 0.1 (docs/performance.md).
// Results are the same either way; only a network that several workers
// evaluate needs the atomic ones.
func (n *Network) SetSerial(serial bool) { n.serial = serial }

// NewNetwork builds the network state for a hyper-crossbar.
func NewNetwork(t *Topology, cfg Config) (*Network, error) {
	n, err := newNetwork(t, cfg)
	if err != nil {
		return nil, err
	}
	n.T = t
	nd := t.NumDims()
	n.addr, n.stride = packedAddrs(t.Dims), strides(t.Dims)
	// Exchanger entries of dimension k depend only on the exchanger's own
	// coordinate k, so one sub-table per (k, x) covers every exchanger; it is
	// cut from the generated table of a representative node.
	n.exSub = make([][]uint8, nd)
	n.xbTab = make([][]uint8, nd)
	for k, d := range t.Dims {
		n.exSub[k] = make([]uint8, 0, d*d)
		for x := 0; x < d; x++ {
			tab := t.ExchangerTable(x * t.Stride[k])
			n.exSub[k] = append(n.exSub[k], tab[t.Off[k]:t.Off[k]+d]...)
		}
		n.xbTab[k] = t.CrossbarTable(t.XbarBase[k])
	}
	return n, nil
}

// NewFabricNetwork builds the network state for any fabric. A *Topology
// gets NewNetwork's table-driven route; other fabrics route every head flit
// through Fabric.Next.
func NewFabricNetwork(f Fabric, cfg Config) (*Network, error) {
	if t, ok := f.(*Topology); ok {
		return NewNetwork(t, cfg)
	}
	n, err := newNetwork(f, cfg)
	if err != nil {
		return nil, err
	}
	if tor, ok := f.(*Torus); ok {
		n.tor = tor
		n.addr, n.stride = packedAddrs(tor.Dims), strides(tor.Dims)
		if !cfg.HalfDuplex {
			// Ports 1+4k+{0,1} (+ VC0, VC1) share a wire, as do 1+4k+{2,3}.
			n.localWire = make([]uint64, tor.Ports(0))
			for p := 1; p < len(n.localWire); p++ {
				n.localWire[p] = 3 << (1 + (p-1)&^1)
			}
		}
		return n, nil
	}
	n.gen = f
	return n, nil
}

// strides returns the node-id step of each coordinate: node ids count the
// coordinates up like an odometer, dimension 0 fastest.
func strides(dims []int) []int32 {
	st := make([]int32, len(dims))
	v := int32(1)
	for k, d := range dims {
		st[k] = v
		v *= int32(d)
	}
	return st
}

// packedAddrs returns every node's packed coordinates (hw.Flit's DstAddr),
// counting them up like an odometer.
func packedAddrs(dims []int) []uint64 {
	nodes := 1
	for _, d := range dims {
		nodes *= d
	}
	a := make([]uint64, nodes)
	var c [hw.MaxDims]int
	var cur uint64
	for v := range a {
		a[v] = cur
		for k, d := range dims {
			if c[k]++; c[k] < d {
				cur += 1 << (hw.CoordField * k)
				break
			}
			cur -= uint64(d-1) << (hw.CoordField * k)
			c[k] = 0
		}
	}
	return a
}

// newNetwork builds the switches, FIFOs, channels and wires of a fabric.
func newNetwork(f Fabric, cfg Config) (*Network, error) {
	if cfg.BufferDepth < 1 || cfg.BufferDepth > hw.MaxBufferDepth {
		return nil, fmt.Errorf("invalid buffer_depth: %d (allowed: 1..%d)", cfg.BufferDepth, hw.MaxBufferDepth)
	}
	if cfg.LinkLatency < 1 || cfg.LinkLatency > hw.MaxLinkLatency {
		return nil, fmt.Errorf("invalid link_latency: %d (allowed: 1..%d)", cfg.LinkLatency, hw.MaxLinkLatency)
	}
	S, N := f.NumSwitches(), f.NumNodes()
	if S+N >= maxElements {
		return nil, fmt.Errorf("network of %d switches and %d nodes: too many elements for the cycle model (allowed: fewer than %d in all)", S, N, maxElements)
	}
	n := &Network{F: f, cfg: cfg, B: uint32(cfg.BufferDepth), switches: S, nodes: N, Wake: func(int, int32, int64) {}, rebaseAfter: rebaseAfter}
	n.epLat, n.netLat = 1, int64(cfg.LinkLatency)
	if cfg.Retry {
		n.epLat, n.netLat = int64(RetryLatency(1)), int64(RetryLatency(cfg.LinkLatency))
	}
	n.portBase = make([]int32, S+1)
	p := 0
	for s := 0; s < S; s++ {
		n.portBase[s] = int32(p)
		if P := f.Ports(s); P > MaxSwitchPorts {
			return nil, fmt.Errorf("switch %d has %d ports (allowed: at most %d in the cycle model)", s, P, MaxSwitchPorts)
		}
		p += f.Ports(s)
	}
	n.portBase[S] = int32(p)
	n.rxBase = int32(p)
	nfifo := p + N
	n.fifo = bigmem.Make[fifoState](n, nfifo)

	if cfg.SwitchPipeline {
		n.lastPop = make([]int64, nfifo)
		for i := range n.lastPop {
			n.lastPop[i] = -1
		}
	}
	n.occ = make([]uint64, S)
	n.slots = bigmem.Make[slot](n, nfifo*cfg.BufferDepth)
	n.data = bigmem.MakeSparse[uint64](n, nfifo*cfg.BufferDepth)
	nout := p + N
	n.out = bigmem.Make[outState](n, nout)
	for i := range n.out {
		n.out[i].owner, n.out[i].inOwned = -1, -1
	}
	n.netBits = make([]uint64, (nout+63)/64)
	// A torus in full duplex checks its shared wires within a switch
	// (localWire, set by NewFabricNetwork): no per-wire array.
	_, tor := f.(*Torus)
	wires := f.Wires(cfg.HalfDuplex)
	if tor && !cfg.HalfDuplex {
		wires = 0
	}
	if wires > 0 {
		n.wire = make([]int32, nout)
		for i := range n.wire {
			n.wire[i] = -1
		}
	}
	for s := 0; s < S; s++ {
		for q := 0; q < f.Ports(s); q++ {
			o := n.portBase[s] + int32(q)
			ns, np := f.Neighbor(s, q)
			if ns < 0 && np < 0 { // not connected: no route takes it
				n.out[o].down = -1
				continue
			}
			if ns < 0 { // endpoint port: ejection into node np's endpoint
				n.out[o].down = n.rxBase + int32(np)
				n.out[p+np].down = o // the endpoint's injection output feeds this port's input
				n.out[p+np].dst = uint32(s)<<6 | uint32(q)
				n.out[o].dst = uint32(S+np) << 6
				n.fifo[n.rxBase+int32(np)].lat = uint8(n.latOf(o, n.rxBase+int32(np)))
				n.fifo[o].lat = uint8(n.latOf(int32(p+np), o)) // injection FIFO
				continue
			}
			n.out[o].down = n.portBase[ns] + int32(np)
			if f.IsChannel(s, q) {
				n.netBits[o/64] |= 1 << (o % 64)
			}
			n.out[o].dst = uint32(ns)<<6 | uint32(np)
			n.fifo[n.out[o].down].lat = uint8(n.latOf(o, n.out[o].down))
			if n.wire != nil {
				n.wire[o] = int32(f.Wire(s, q, cfg.HalfDuplex))
			}
		}
	}
	if wires > 0 {
		n.used = make([]int64, wires)
		for i := range n.used {
			n.used[i] = -1
		}
	}
	return n, nil
}

// Elements is the number of schedulable elements (switches + endpoints).
func (n *Network) Elements() int { return n.switches + n.nodes }

// route computes the output port of switch sw for the head flit b at the
// front of input port in.
func (n *Network) route(sw, in int, b *flitBody) int {
	if n.exc != nil {
		if m := n.exc[sw]; m != nil {
			if p, ok := m[n.dstNode(b)]; ok {
				return int(p)
			}
		}
	}
	if n.gen != nil {
		return n.gen.Next(sw, in, int(n.dstNode(b)))
	}
	dst := b.addr()
	if n.tor != nil {
		return n.tor.NextAddr(in, n.addr[sw], dst)
	}
	const m = 1<<hw.CoordField - 1
	t := n.T
	if sw >= t.Nodes {
		k := t.XbarDim(sw)
		return int(n.xbTab[k][dst>>(hw.CoordField*k)&m])
	}
	own := n.addr[sw]
	for k, d := range t.Dims {
		x, c := int(own>>(hw.CoordField*k)&m), int(dst>>(hw.CoordField*k)&m)
		if e := n.exSub[k][x*d+c]; e != Pass {
			return int(e)
		}
	}
	return 0
}

// addr is a body's packed destination address (0 without bodyAddr).
func (b *flitBody) addr() uint64 { return uint64(b.dstHi)<<32 | uint64(b.dstLo) }

// dstNode is a body's destination node id.
func (n *Network) dstNode(b *flitBody) int32 {
	if b.flags&bodyAddr == 0 {
		return int32(b.dstLo)
	}
	const m = 1<<hw.CoordField - 1
	a := b.addr()
	var v int32
	for k := len(n.stride) - 1; k >= 0; k-- {
		v += int32(a>>(hw.CoordField*k)&m) * n.stride[k]
	}
	return v
}

// packFlit packs fl into a body and the payload the body's bodyData flag
// says it carries. A head flit on a fabric with addresses keeps its packed
// destination (whose node is its Dst: Inject and the fault flipper keep
// them in step); any other flit keeps its Dst, and has no address.
func (n *Network) packFlit(fl *hw.Flit) (b flitBody, data uint64, code uint32) {
	b.flags = fl.Flags & flitMarks
	if fl.Head() && (n.addr != nil || fl.Dst == hw.NoNode) {
		a := fl.DstAddr()
		b.dstLo, b.dstHi = uint32(a), uint8(a>>32)
		b.flags |= bodyAddr
		if fl.Dst == hw.NoNode {
			b.flags |= bodyNoNode
		}
	} else {
		b.dstLo = uint32(fl.Dst)
	}
	b.srcLo, b.srcHi = uint16(fl.Src), uint8(uint32(fl.Src)>>16)
	b.gate = fl.Gate
	if fl.Data != 0 {
		b.flags |= bodyData
	}
	if fl.CRC != 0 {
		b.flags |= bodyCode
	}
	return b, fl.Data, fl.CRC
}

// KeepCodes makes the network carry flits' check codes (hw.Flit.CRC):
// a run whose units compute them calls it before the first cycle.
func (n *Network) KeepCodes() {
	if n.codes == nil {
		n.codes = make([]uint32, len(n.slots))
	}
}

// unpackFlit is the flit in slot i.
func (n *Network) unpackFlit(i uint32) hw.Flit {
	b := &n.slots[i].body
	var data uint64
	if b.flags&bodyData != 0 {
		data = n.data[i]
	}
	var code uint32
	if b.flags&bodyCode != 0 {
		code = n.codes[i]
	}
	return n.unpackBody(b, data, code)
}

// unpackBody is the flit of body b with payload data and check code.
func (n *Network) unpackBody(b *flitBody, data uint64, code uint32) hw.Flit {
	fl := hw.Flit{Dst: n.dstNode(b), Src: int32(uint32(b.srcLo) | uint32(b.srcHi)<<16),
		Gate: b.gate, CRC: code, Flags: b.flags & flitMarks, Data: data}
	if b.flags&bodyAddr != 0 {
		fl.SetDstAddr(b.addr())
		if b.flags&bodyNoNode != 0 {
			fl.Dst = hw.NoNode
		}
	}
	return fl
}

// frontIdx is the slot index of FIFO f's front.
func (n *Network) frontIdx(f int32) uint32 {
	return uint32(f)*n.B + uint32(n.fifo[f].head)
}

func (n *Network) front(f int32) *slot { return &n.slots[n.frontIdx(f)] }

// held reports whether slot s holds a flit (as the FIFO's reader sees it:
// the push publishes the flit with this store).
func held(s *slot) bool {
	w := atomic.LoadInt32(&s.when)
	return w >= heldMin && w != deadRel
}

// readyBy reports whether held slot s's flit is seen by cycle tRel
// (relative). Its reader reads when without an atomic load: it saw the
// slot held (or its occupancy bit, set after the mark) before.
func readyBy(s *slot, tRel int32) bool { return s.when <= tRel+heldOff }

// pushes is the number of flits ever pushed into FIFO f: those popped and
// those it holds (the held slots from its head on). Between cycles only
// (statistics and tests).
func (n *Network) pushes(f int32) uint32 {
	q := &n.fifo[f]
	k := q.popped
	for i := uint32(0); i < n.B; i++ {
		if !held(&n.slots[uint32(f)*n.B+(uint32(q.head)+i)%n.B]) {
			break
		}
		k++
	}
	return k
}

// latOf is the latency of the channel output o drives into FIFO d: 1 for
// an endpoint's injection and ejection channels, the link latency for a
// channel between switches (with link-level retry, RetryLatency of
// those). newNetwork sets fifoState.lat (the reader's
// copy, for the pop) from it; the push uses it so as not to read the
// downstream's record.
func (n *Network) latOf(o, d int32) int64 {
	if o >= n.rxBase || d >= n.rxBase {
		return n.epLat
	}
	return n.netLat
}

// hasCredit reports whether output o may send a flit in cycle t: the slot
// its next flit goes to (the output's ring index, advanced once per flit
// like the downstream FIFO's write pointer) was freed by cycle t. This is
// the RTL's credit counter with its return latency.
func (n *Network) hasCredit(o int32, t int64) bool {
	oi := &n.out[o]
	tRel := n.rel(t)
	if oi.nextFree <= tRel {
		return true
	}
	oi.nextFree = atomic.LoadInt32(&n.slots[uint32(oi.down)*n.B+uint32(oi.sendIdx)].when)
	return oi.nextFree <= tRel
}

// push sends a flit from output o into its FIFO f of switch sw (sw < 0: an
// ejection FIFO) in cycle t (with link-level retry, the cycle it crosses
// the wire for good: t is only used for the cycle the flit is ready). The
// output's credit-ring index is also the
// FIFO slot the flit goes to: both advance once per flit.
//
// Concurrency (several workers share a cycle): only the upstream writes
// the slot's flit and marks it held; only the downstream frees it and
// writes the FIFO record. The held mark (with the ready cycle) is stored
// atomically after the flit, so a reader that sees it sees the flit; the
// occupancy bit is set after the mark. The push never touches the FIFO's
// record: the channel latency is the output's (latOf) and the port is in
// the output's record (outState.dst). data is the flit's payload, kept
// when b says it has one (bodyData).
func (n *Network) push(o, f int32, sw int32, b flitBody, data uint64, code uint32, t int64) int64 {
	oi := &n.out[o]
	i := uint32(oi.sendIdx)
	if i+1 == n.B {
		oi.sendIdx = 0
	} else {
		oi.sendIdx = uint8(i + 1)
	}
	si := uint32(f)*n.B + i
	s := &n.slots[si]
	s.body = b
	if b.flags&bodyData != 0 {
		n.data[si] = data
	}
	if b.flags&bodyCode != 0 {
		n.codes[si] = code // KeepCodes was called: only then do flits carry one
	}
	ready := t + n.latOf(o, f)
	if n.serial {
		s.when = n.rel(ready) + heldOff
	} else {
		atomic.StoreInt32(&s.when, n.rel(ready)+heldOff)
	}
	// The next slot's free cycle is read when the output next asks for
	// credit (hasCredit), not here: that line is the engine's prefetch's
	// (prefetchDown) by then, while here it would be a miss per hop. The
	// value is the same: until this output writes that slot, only its
	// reader can change it, and only from takenRel.
	oi.nextFree = takenRel
	if sw >= 0 {
		if n.serial {
			n.occ[sw] |= 1 << oi.portIn()
		} else {
			atomic.OrUint64(&n.occ[sw], 1<<oi.portIn())
		}
	}
	return ready
}

// pop removes the front flit of FIFO f of switch sw in cycle t and returns
// its credit to the upstream, visible from cycle t + L.
func (n *Network) pop(f int32, sw int32, t int64) {
	q := &n.fifo[f]
	if n.faults == nil || !n.creditPop(f, t) {
		if n.serial {
			n.front(f).when = n.rel(t + int64(q.lat))
		} else {
			atomic.StoreInt32(&n.front(f).when, n.rel(t+int64(q.lat)))
		}
	}
	if h := uint32(q.head) + 1; h == n.B {
		q.head = 0
	} else {
		q.head = uint8(h)
	}
	q.popped++
	q.rt = 0
	if n.lastPop != nil {
		n.lastPop[f] = t
	}
	if sw < 0 {
		return
	}
	next := n.front(f)
	if held(next) {
		return
	}
	bit := uint64(1) << uint32(f-n.portBase[sw])
	if n.serial {
		n.occ[sw] &^= bit
		return
	}
	// Empty: clear the bit, then look again, since a concurrent push may
	// have marked the slot taken (and set the bit) between the test and
	// the clear.
	atomic.AndUint64(&n.occ[sw], ^bit)
	if held(next) {
		atomic.OrUint64(&n.occ[sw], bit)
	}
}

// canSend reports whether output o, port p of its switch, may send in
// cycle t; sent is the set of the switch's ports that sent in cycle t.
func (n *Network) canSend(o int32, p int, sent uint64, t int64) bool {
	if !n.hasCredit(o, t) {
		return false
	}
	if n.localWire != nil {
		return sent&n.localWire[p] == 0
	}
	return n.used == nil || n.wire[o] < 0 || n.used[n.wire[o]] != t
}

// send moves the front flit of input FIFO in to output o in cycle t and
// reports whether it was a tail. The flit moves packed: only an output with
// a fault armed unpacks it.
//
// cut sends the front head's cut tail instead (illegal.go): the head stays.
func (n *Network) send(sw, in, o int32, t int64, w int, cut bool) (tail bool) {
	fi := n.frontIdx(in)
	b := n.slots[fi].body
	var data uint64
	if b.flags&bodyData != 0 {
		data = n.data[fi]
	}
	var code uint32
	if b.flags&bodyCode != 0 {
		code = n.codes[fi]
	}
	if cut {
		b, data, code = n.cutTail(&b, data, code)
	} else {
		// The pop frees the slot from t+L on: its body stays as it is in t.
		n.pop(in, sw, t)
	}
	// The switch sends what its input held: a fault on the wire changes
	// what the next switch receives, never whether this one's packet ended
	// (hx_switch.v flips and drops after its output register).
	tail = b.flags&hw.FlitTail != 0
	var delay int64
	if n.faults != nil && n.isFault(o) {
		fl := n.unpackBody(&b, data, code)
		var gone bool
		if fl, gone, delay = n.faultySend(o, fl, t); gone {
			return tail
		}
		b, data, code = n.packFlit(&fl)
	}
	d := n.out[o].down
	wake := n.out[o].wakeEl()
	dsw := wake
	if d >= n.rxBase {
		dsw = -1
	}
	ready := n.push(o, d, dsw, b, data, code, t+delay)
	if n.used != nil && n.wire[o] >= 0 {
		n.used[n.wire[o]] = t
	}
	n.Wake(w, wake, ready)
	return tail
}

// EvalSwitch runs switch sw for cycle t, as docs/microarchitecture.md
// specifies, and reports whether it has work in cycle t+1; w is the
// evaluating worker (0..hw.MaxWorkers-1), passed on to Wake.
func (n *Network) EvalSwitch(sw int, t int64, w int) bool {
	base := n.portBase[sw]
	P := int(n.portBase[sw+1] - base)
	// reqs[o]: the inputs whose head flit requests output port o. Port
	// numbers are below P <= MaxSwitchPorts (newNetwork checks every switch).
	var reqs [MaxSwitchPorts]uint64
	var touched uint64
	// held: outputs owned at the start of the cycle. Such an output does not
	// grant in this cycle even if its owner sends the tail now (the RTL
	// decides from the registered owner).
	var held uint64
	var sent uint64 // ports that sent in this cycle (localWire)
	sw32 := int32(sw)
	tRel := n.rel(t)
	for occ := atomic.LoadUint64(&n.occ[sw]); occ != 0; occ &= occ - 1 {
		i := bits.TrailingZeros64(occ)
		in := base + int32(i)
		s := n.front(in)
		if !readyBy(s, tRel) {
			continue
		}
		// Without faults no flit is illegal (a head never at the front of
		// an input that owns an output, a payload flit never at one that
		// owns none), so only a network with faults screens its inputs
		// (illegal.go; the input's record is another cache line).
		if n.faults != nil {
			switch n.screen(sw, in, s, t) {
			case flitGone:
				continue
			case flitCut:
				op := int(n.out[in].inOwned)
				o := base + int32(op)
				held |= 1 << uint(op)
				if n.canSend(o, op, sent, t) {
					sent |= 1 << uint(op)
					n.cut(sw32, in, o, t, w)
				}
				continue
			}
		}
		// A head flit requests its route; with the switch pipeline, only
		// from its second cycle at the front (waiting).
		if s.body.flags&hw.FlitHead != 0 {
			if n.lastPop != nil && n.waiting(in, s, t) {
				continue
			}
			var o int
			if rt := n.fifo[in].rt; rt != 0 {
				o = int(rt) - 1
			} else {
				o = n.route(sw, i, &s.body)
			}
			reqs[o] |= 1 << uint(i)
			touched |= 1 << uint(o)
			continue
		}
		op := int(n.out[in].inOwned)
		if op < 0 {
			continue // a payload flit of no packet: screen drops it (faults only)
		}
		o := base + int32(op)
		held |= 1 << uint(op)
		if n.canSend(o, op, sent, t) {
			sent |= 1 << uint(op)
			if n.send(sw32, in, o, t, w, false) {
				n.out[o].owner, n.out[in].inOwned = -1, -1
			}
		}
	}
	for touched != 0 {
		oi := bits.TrailingZeros64(touched)
		touched &= touched - 1
		o := base + int32(oi)
		if held&(1<<uint(oi)) != 0 || n.out[o].owner >= 0 || !n.canSend(o, oi, sent, t) {
			continue
		}
		sent |= 1 << uint(oi)
		m := reqs[oi]
		r := uint(n.out[o].rr)
		// First requester at or after rr[o], wrapping around.
		hi := m >> r << r
		var g int
		if hi != 0 {
			g = bits.TrailingZeros64(hi)
		} else {
			g = bits.TrailingZeros64(m)
		}
		in := base + int32(g)
		n.out[o].rr = uint8((g + 1) % P)
		if !n.send(sw32, in, o, t, w, false) {
			n.out[o].owner, n.out[in].inOwned = int8(g), int8(oi)
		}
	}
	for occ := atomic.LoadUint64(&n.occ[sw]); occ != 0; occ &= occ - 1 {
		if readyBy(n.front(base+int32(bits.TrailingZeros64(occ))), tRel+1) {
			return true
		}
	}
	return false
}

// waiting reports, with the switch pipeline, whether the head s at the
// front of input in owning no output may not request in cycle t yet: the
// request of cycle t is the one registered in cycle t-1 (hx_switch.v,
// rqq), so s requests only if it was at the front in cycle t-1 already
// (ready by then, and the input neither popped nor cut then: a cut in t-1
// leaves the input owning its output in t-1).
func (n *Network) waiting(in int32, s *slot, t int64) bool {
	return !readyBy(s, n.rel(t)-1) || n.lastPop[in] == t-1
}

// CanInject reports whether node's endpoint may send a flit in cycle t.
func (n *Network) CanInject(node int, t int64) bool {
	return n.hasCredit(n.rxBase+int32(node), t)
}

// Inject sends a flit from node's endpoint into its attach switch (the
// exchanger for the hyper-crossbar) in cycle t, as worker w.
func (n *Network) Inject(node int, fl hw.Flit, t int64, w int) {
	if fl.Head() && n.addr != nil && fl.Dst != hw.NoNode {
		fl.SetDstAddr(n.addr[fl.Dst])
	}
	o := n.rxBase + int32(node)
	var delay int64
	if n.faults != nil && n.isFault(o) {
		var gone bool
		if fl, gone, delay = n.faultySend(o, fl, t); gone {
			return
		}
	}
	sw := n.out[o].wakeEl()
	b, data, code := n.packFlit(&fl)
	ready := n.push(o, n.out[o].down, sw, b, data, code, t+delay)
	n.Wake(w, sw, ready)
}

// RxFront returns the ready front flit of node's ejection FIFO in cycle t.
func (n *Network) RxFront(node int, t int64) (hw.Flit, bool) {
	i := n.frontIdx(n.rxBase + int32(node))
	if s := &n.slots[i]; !held(s) || !readyBy(s, n.rel(t)) {
		return hw.Flit{}, false
	}
	return n.unpackFlit(i), true
}

// RxTake is RxFront and RxPop in one, for a reader that needs only the
// flit's head and tail marks and its payload (Data): ok is false when no
// flit is ready in cycle t, and then nothing is popped.
func (n *Network) RxTake(node int, t int64) (head, tail bool, data uint64, ok bool) {
	f := n.rxBase + int32(node)
	i := n.frontIdx(f)
	s := &n.slots[i]
	if !held(s) || !readyBy(s, n.rel(t)) {
		return false, false, 0, false
	}
	fl := s.body.flags
	if fl&bodyData != 0 {
		data = n.data[i]
	}
	n.pop(f, -1, t)
	return fl&hw.FlitHead != 0, fl&hw.FlitTail != 0, data, true
}

// RxPop pops node's ejection FIFO in cycle t (credit back to the exchanger).
func (n *Network) RxPop(node int, t int64) { n.pop(n.rxBase+int32(node), -1, t) }

// RxPending reports whether node's ejection FIFO holds a flit ready by cycle t.
func (n *Network) RxPending(node int, t int64) bool {
	s := n.front(n.rxBase + int32(node))
	return held(s) && readyBy(s, n.rel(t))
}

// Epoch is the cycle the slots' relative cycles count from (Rebase moves
// it): a run past 2^28 cycles has moved it.
func (n *Network) Epoch() int64 { return n.epoch }

// rel is cycle t relative to the epoch (Rebase keeps it within int32).
func (n *Network) rel(t int64) int32 { return int32(t - n.epoch) }

// Rebase must be called before the evaluations of every cycle t the
// network is run in (the engine's drivers do): once t is rebaseAfter
// cycles past the epoch, it moves the epoch to t and the slots' relative
// cycles with it. It runs once per 2^28 cycles (a quarter of a billion),
// or after a jump over idle cycles that long.
func (n *Network) Rebase(t int64) {
	d := t - n.epoch
	if d < n.rebaseAfter {
		return
	}
	shift := func(r int32) int32 { return int32(max(int64(r)-d, relFloor)) }
	for i := range n.slots {
		switch s := &n.slots[i]; {
		case s.when < heldMin:
			s.when = shift(s.when)
		case s.when != deadRel:
			s.when = shift(s.when-heldOff) + heldOff
		}
	}
	for i := range n.out {
		// A cached held mark stays above every current cycle, and is read
		// again before it is believed free.
		if o := &n.out[i]; o.nextFree < heldMin {
			o.nextFree = shift(o.nextFree)
		}
	}
	n.epoch = t
}

// FlitHops is the number of flits moved over network channels (switch to
// switch: exchanger <-> crossbar for the hyper-crossbar).
func (n *Network) FlitHops() uint64 {
	var h uint64
	for o := int32(0); o < n.rxBase; o++ {
		if n.isNet(o) {
			h += uint64(n.sentBy(o))
		}
	}
	return h
}

// sentBy is the number of flits output o has sent: its downstream FIFO's
// push count (the FIFO has no other writer; a flit a fault loses is not
// pushed, and was never counted as sent).
func (n *Network) sentBy(o int32) uint32 {
	oi := &n.out[o]
	d := oi.down
	if d < 0 {
		return 0
	}
	if d < n.rxBase && n.occ[oi.wakeEl()]&(1<<oi.portIn()) == 0 {
		// Empty (between cycles the occupancy bit is exact): no need to
		// look at its slots, which would make the statistics a sweep of
		// every slot of the network.
		return n.fifo[d].popped
	}
	return n.pushes(d)
}

// isNet reports whether output o drives a network channel.
func (n *Network) isNet(o int32) bool { return n.netBits[o/64]&(1<<(o%64)) != 0 }

// isFault reports whether a fault is armed on output o (n.faults set).
func (n *Network) isFault(o int32) bool { return n.faultBits[o/64]&(1<<(o%64)) != 0 }

// BusiestChannel returns the network channel that carried the most flits:
// the node and dimension of its exchanger port, whether it points toward
// the crossbar (up) or back to the exchanger, and its flit count.
// For another fabric it returns zeros: see BusiestOutput.
func (n *Network) BusiestChannel() (node, dim int, up bool, flits uint32) {
	t := n.T
	if t == nil {
		return
	}
	for v := 0; v < t.Nodes; v++ {
		for k := range t.Dims {
			if f := n.sentBy(n.portBase[v] + int32(k+1)); f > flits {
				node, dim, up, flits = v, k, true, f
			}
			xs, xp := t.Crossbar(v, k)
			if f := n.sentBy(n.portBase[xs] + int32(xp)); f > flits {
				node, dim, up, flits = v, k, false, f
			}
		}
	}
	return
}

// BusiestOutput returns the network channel (switch output; for a torus one
// virtual channel) that carried the most flits: the first in (switch, port)
// order among equals; (-1, -1, 0) when no channel carried a flit.
func (n *Network) BusiestOutput() (sw, port int, flits uint32) {
	sw, port = -1, -1
	for s := 0; s < n.switches; s++ {
		for o := n.portBase[s]; o < n.portBase[s+1]; o++ {
			if f := n.sentBy(o); n.isNet(o) && f > flits {
				sw, port, flits = s, int(o-n.portBase[s]), f
			}
		}
	}
	return
}

// OutputFlits is the number of flits output port of switch sw has sent.
func (n *Network) OutputFlits(sw, port int) uint32 {
	return n.sentBy(n.portBase[sw] + int32(port))
}

// DescribeOutput names output port of switch sw, as the fabric does.
func (n *Network) DescribeOutput(sw, port int) string { return n.F.DescribeOutput(sw, port) }

// PrefetchSwitch asks for the lines switch sw's evaluation will touch,
// in stages (the engine's prefetch: stage 0 is asked for first, furthest
// ahead, and each later stage reads what the previous one brought in):
// 0: its occupancy word, FIFO records and own address; 1: its inputs'
// front slots;
// 2: the output records their head flits are routed to (the route is
// kept in the FIFO record for the evaluation: fifoState.rt); 3: the slot and
// occupancy word downstream of those outputs. It changes
// nothing else: the reads are of the switch's own state (only its evaluation
// pops its FIFOs) and of front slots whose occupancy bit is set (written
// before the bit was published).
func (n *Network) PrefetchSwitch(sw int, stage int) {
	if !prefetch.Enabled {
		return
	}
	base := n.portBase[sw]
	if stage == 0 {
		prefetch.T0(unsafe.Pointer(&n.occ[sw]))
		if sw < len(n.addr) { // a router's or exchanger's own address, read by route
			prefetch.T0(unsafe.Pointer(&n.addr[sw]))
		}
		P := uintptr(n.portBase[sw+1] - base)
		prefetch.Lines(unsafe.Pointer(&n.fifo[base]), P*unsafe.Sizeof(fifoState{}), 8)
		return
	}
	for occ := atomic.LoadUint64(&n.occ[sw]); occ != 0; occ &= occ - 1 {
		i := bits.TrailingZeros64(occ)
		in := base + int32(i)
		s := n.front(in)
		if stage == 1 {
			n.prefetchFront(in)
			continue
		}
		if s.body.flags&hw.FlitHead == 0 || n.gen != nil || n.faults != nil {
			continue
		}
		q := &n.fifo[in]
		if q.rt == 0 {
			q.rt = uint8(n.route(sw, i, &s.body) + 1)
		}
		oi := &n.out[base+int32(q.rt)-1]
		if stage == 2 {
			prefetch.Lines(unsafe.Pointer(oi), unsafe.Sizeof(outState{}), 2)
			continue
		}
		n.prefetchDown(oi)
	}
}

// prefetchFront asks for the lines a pop of FIFO f touches: its front slot
// (which it frees) and the slot after it (whose taken mark tells whether
// the FIFO is now empty).
func (n *Network) prefetchFront(f int32) {
	q := &n.fifo[f]
	base := uint32(f) * n.B
	s := unsafe.Pointer(&n.slots[base+uint32(q.head)])
	prefetch.W(s)
	nx := uint32(q.head) + 1
	if nx == n.B {
		nx = 0
	}
	if x := unsafe.Pointer(&n.slots[base+nx]); uintptr(x)/prefetch.Line != uintptr(s)/prefetch.Line {
		prefetch.T0(x)
	}
}

// prefetchDown asks for the lines a flit sent on output oi writes.
func (n *Network) prefetchDown(oi *outState) {
	d := oi.down
	if d < 0 {
		return
	}
	// Every one of these lines is written by the push (the occupancy word
	// by a locked OR): asked for in exclusive state.
	// A slot is 16 bytes at a multiple of 16: one line.
	prefetch.W(unsafe.Pointer(&n.slots[uint32(d)*n.B+uint32(oi.sendIdx)]))
	if d < n.rxBase {
		prefetch.W(unsafe.Pointer(&n.occ[oi.wakeEl()]))
	}
}

// PrefetchEndpoint is PrefetchSwitch for node's endpoint: 0: its ejection
// FIFO record and injection output; 1: its front ejection slot; 2: the
// slot and occupancy word its next flit goes to; 3 with
// dst >= 0: the packed address of node dst (a head flit's destination).
func (n *Network) PrefetchEndpoint(node int, stage int, dst int32) {
	if !prefetch.Enabled {
		return
	}
	f := n.rxBase + int32(node)
	switch stage {
	case 0:
		prefetch.T0(unsafe.Pointer(&n.fifo[f]))
		prefetch.Lines(unsafe.Pointer(&n.out[f]), unsafe.Sizeof(outState{}), 2)
	case 1:
		n.prefetchFront(f)
	case 2:
		n.prefetchDown(&n.out[f])
	case 3:
		if dst >= 0 && n.addr != nil {
			prefetch.T0(unsafe.Pointer(&n.addr[dst]))
		}
	}
}
