package noc

import (
	"fmt"
	"io"
	"math/bits"

	"github.com/hxbar/hxbar/hw"
)

// Config holds the timing parameters of a network.
type Config struct {
	BufferDepth int  // flits per input FIFO
	LinkLatency int  // cycles on exchanger <-> crossbar channels
	HalfDuplex  bool // exchanger/crossbar port pairs share one wire
}

// slot is one FIFO entry. ready: first cycle the downstream sees the flit;
// free: first cycle the upstream may write the slot again (credit returned).
type slot struct {
	f     hw.Flit
	ready int64
	free  int64
}

// Network is the cycle model of every switch and channel of a topology.
// FIFO ids: switch input port p of switch s is portBase[s]+p; the ejection
// FIFO of node n (in its endpoint) is rxBase+n.
//
// Elements, as the engine schedules them: switch s is element s; the
// endpoint of node n is element Switches+n.
type Network struct {
	T   *Topology
	cfg Config
	B   uint32

	portBase []int32 // len Switches+1
	rxBase   int32

	lat    []uint8  // latency of the channel feeding each FIFO
	pushes []uint32 // per FIFO
	pops   []uint32 // per FIFO
	slots  []slot   // FIFO f owns slots[f*B : f*B+B]

	owner   []int8  // per switch output port: owning input or -1
	rr      []uint8 // per switch output port
	inOwned []int8  // per switch input port: output it owns, or -1
	down    []int32 // per switch output port: downstream FIFO
	wake    []int32 // per switch output port: element to wake
	wire    []int32 // per switch output port: half-duplex wire or -1
	netOut  []bool  // per switch output port: drives an exchanger <-> crossbar channel
	used    []int64 // per wire: last cycle a flit crossed it

	// Route tables, shared by all switches with the same content: the model
	// reads the very tables Topology generates for the Verilog writer.
	coords []uint8   // node*dims + k
	exSub  [][]uint8 // [k][x*Kk + c]: exchanger entry for own coord x, dest coord c
	xbTab  [][]uint8 // [k][c]: crossbar entry

	// Wake asks the engine to evaluate element e in cycle at.
	Wake func(e int32, at int64)

	FlitHops uint64 // flits moved over exchanger <-> crossbar channels
}

// NewNetwork builds the network state for a topology.
func NewNetwork(t *Topology, cfg Config) (*Network, error) {
	if cfg.BufferDepth < 1 || cfg.BufferDepth > hw.MaxBufferDepth {
		return nil, fmt.Errorf("invalid buffer_depth: %d (allowed: 1..%d)", cfg.BufferDepth, hw.MaxBufferDepth)
	}
	if cfg.LinkLatency < 1 || cfg.LinkLatency > hw.MaxLinkLatency {
		return nil, fmt.Errorf("invalid link_latency: %d (allowed: 1..%d)", cfg.LinkLatency, hw.MaxLinkLatency)
	}
	n := &Network{T: t, cfg: cfg, B: uint32(cfg.BufferDepth), Wake: func(int32, int64) {}}
	nd := t.NumDims()
	n.portBase = make([]int32, t.Switches+1)
	p := 0
	for s := 0; s < t.Switches; s++ {
		n.portBase[s] = int32(p)
		p += t.Ports(s)
	}
	n.portBase[t.Switches] = int32(p)
	n.rxBase = int32(p)
	nfifo := p + t.Nodes
	n.lat = make([]uint8, nfifo)
	n.pushes = make([]uint32, nfifo)
	n.pops = make([]uint32, nfifo)
	n.slots = make([]slot, nfifo*cfg.BufferDepth)
	n.owner = make([]int8, p)
	n.rr = make([]uint8, p)
	n.inOwned = make([]int8, p)
	n.down = make([]int32, p)
	n.wake = make([]int32, p)
	n.wire = make([]int32, p)
	n.netOut = make([]bool, p)
	for i := range n.owner {
		n.owner[i], n.inOwned[i], n.wire[i] = -1, -1, -1
	}
	for s := 0; s < t.Switches; s++ {
		for q := 0; q < t.Ports(s); q++ {
			o := n.portBase[s] + int32(q)
			ns, np := t.Neighbor(s, q)
			if ns < 0 { // exchanger port 0: ejection into the endpoint
				n.down[o] = n.rxBase + int32(np)
				n.wake[o] = int32(t.Switches + np)
				n.lat[n.rxBase+int32(np)] = 1
				n.lat[o] = 1 // injection FIFO (exchanger port 0 input)
				continue
			}
			n.down[o] = n.portBase[ns] + int32(np)
			n.netOut[o] = true
			n.wake[o] = int32(ns)
			n.lat[n.down[o]] = uint8(cfg.LinkLatency)
			if cfg.HalfDuplex {
				node, k := s, q-1
				if t.IsCrossbar(s) {
					node, k = ns, np-1
				}
				n.wire[o] = int32(node*nd + k)
			}
		}
	}
	if cfg.HalfDuplex {
		n.used = make([]int64, t.Nodes*nd)
		for i := range n.used {
			n.used[i] = -1
		}
	}
	n.coords = make([]uint8, t.Nodes*nd)
	for v := 0; v < t.Nodes; v++ {
		for k := 0; k < nd; k++ {
			n.coords[v*nd+k] = uint8(t.Coord(v, k))
		}
	}
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

// Elements is the number of schedulable elements (switches + endpoints).
func (n *Network) Elements() int { return n.T.Switches + n.T.Nodes }

// route computes the output port of switch sw for a destination node.
func (n *Network) route(sw int, dst int32) int {
	t := n.T
	nd := len(t.Dims)
	dc := n.coords[int(dst)*nd : int(dst)*nd+nd]
	if sw >= t.Nodes {
		k := t.XbarDim(sw)
		return int(n.xbTab[k][dc[k]])
	}
	own := n.coords[sw*nd : sw*nd+nd]
	for k := 0; k < nd; k++ {
		d := t.Dims[k]
		if e := n.exSub[k][int(own[k])*d+int(dc[k])]; e != Pass {
			return int(e)
		}
	}
	return 0
}

func (n *Network) front(f int32) *slot {
	return &n.slots[uint32(f)*n.B+n.pops[f]%n.B]
}

// canPush reports whether FIFO f has a credit for its upstream in cycle t.
func (n *Network) canPush(f int32, t int64) bool {
	return n.pushes[f]-n.pops[f] < n.B && n.slots[uint32(f)*n.B+n.pushes[f]%n.B].free <= t
}

func (n *Network) push(f int32, fl hw.Flit, t int64) int64 {
	s := &n.slots[uint32(f)*n.B+n.pushes[f]%n.B]
	s.f = fl
	s.ready = t + int64(n.lat[f])
	n.pushes[f]++
	return s.ready
}

func (n *Network) pop(f int32, t int64) {
	n.front(f).free = t + int64(n.lat[f])
	n.pops[f]++
}

// canSend reports whether switch output o may send in cycle t.
func (n *Network) canSend(o int32, t int64) bool {
	if !n.canPush(n.down[o], t) {
		return false
	}
	return n.used == nil || n.wire[o] < 0 || n.used[n.wire[o]] != t
}

// send moves the front flit of input FIFO in to output o in cycle t.
func (n *Network) send(in, o int32, t int64) hw.Flit {
	fl := n.front(in).f
	n.pop(in, t)
	d := n.down[o]
	ready := n.push(d, fl, t)
	if n.wire[o] >= 0 {
		n.used[n.wire[o]] = t
	}
	if n.netOut[o] {
		n.FlitHops++
	}
	n.Wake(n.wake[o], ready)
	return fl
}

// EvalSwitch runs switch sw for cycle t, as docs/microarchitecture.md
// specifies, and reports whether it has work in cycle t+1.
func (n *Network) EvalSwitch(sw int, t int64) bool {
	base := n.portBase[sw]
	P := int(n.portBase[sw+1] - base)
	var reqs [hw.MaxDimSize]uint64
	var touched uint64
	for i := 0; i < P; i++ {
		in := base + int32(i)
		if n.pushes[in] == n.pops[in] {
			continue
		}
		s := n.front(in)
		if s.ready > t {
			continue
		}
		if s.f.Head {
			o := n.route(sw, s.f.Dst)
			reqs[o] |= 1 << uint(i)
			touched |= 1 << uint(o)
			continue
		}
		o := base + int32(n.inOwned[in])
		if n.canSend(o, t) {
			if fl := n.send(in, o, t); fl.Tail {
				n.owner[o], n.inOwned[in] = -1, -1
			}
		}
	}
	for touched != 0 {
		oi := bits.TrailingZeros64(touched)
		touched &= touched - 1
		o := base + int32(oi)
		if n.owner[o] >= 0 || !n.canSend(o, t) {
			continue
		}
		m := reqs[oi]
		r := uint(n.rr[o])
		// First requester at or after rr[o], wrapping around.
		hi := m >> r << r
		var g int
		if hi != 0 {
			g = bits.TrailingZeros64(hi)
		} else {
			g = bits.TrailingZeros64(m)
		}
		in := base + int32(g)
		n.rr[o] = uint8((g + 1) % P)
		if fl := n.send(in, o, t); !fl.Tail {
			n.owner[o], n.inOwned[in] = int8(g), int8(oi)
		}
	}
	for i := 0; i < P; i++ {
		in := base + int32(i)
		if n.pushes[in] != n.pops[in] && n.front(in).ready <= t+1 {
			return true
		}
	}
	return false
}

// CanInject reports whether node's endpoint may send a flit in cycle t.
func (n *Network) CanInject(node int, t int64) bool {
	return n.canPush(n.portBase[node], t)
}

// Inject sends a flit from node's endpoint into its exchanger in cycle t.
func (n *Network) Inject(node int, fl hw.Flit, t int64) {
	ready := n.push(n.portBase[node], fl, t)
	n.Wake(int32(node), ready)
}

// RxFront returns the ready front flit of node's ejection FIFO in cycle t.
func (n *Network) RxFront(node int, t int64) (hw.Flit, bool) {
	f := n.rxBase + int32(node)
	if n.pushes[f] == n.pops[f] {
		return hw.Flit{}, false
	}
	s := n.front(f)
	if s.ready > t {
		return hw.Flit{}, false
	}
	return s.f, true
}

// RxPop pops node's ejection FIFO in cycle t (credit back to the exchanger).
func (n *Network) RxPop(node int, t int64) { n.pop(n.rxBase+int32(node), t) }

// RxPending reports whether node's ejection FIFO holds a flit ready by cycle t.
func (n *Network) RxPending(node int, t int64) bool {
	f := n.rxBase + int32(node)
	return n.pushes[f] != n.pops[f] && n.front(f).ready <= t
}

// ChannelLoad returns, for every network channel (exchanger <-> crossbar),
// the number of flits it carried: keyed as "exN.dK->" (toward the crossbar)
// and "->exN.dK" (toward the exchanger), in a deterministic order.
func (n *Network) ChannelLoad() []Load {
	t := n.T
	var out []Load
	for v := 0; v < t.Nodes; v++ {
		for k := range t.Dims {
			xs, xp := t.Crossbar(v, k)
			up := n.portBase[xs] + int32(xp) // FIFO fed by exchanger v port k+1
			dn := n.portBase[v] + int32(k+1) // FIFO fed by the crossbar
			out = append(out, Load{Node: v, Dim: k, Up: n.pushes[up], Down: n.pushes[dn]})
		}
	}
	return out
}

// Load is the flit count of the two channels between an exchanger port and
// its crossbar port.
type Load struct {
	Node, Dim int
	Up, Down  uint32 // toward the crossbar, toward the exchanger
}

// Dump writes every non-empty FIFO and owned output (debugging aid).
func (n *Network) Dump(w io.Writer) {
	for s := 0; s < n.T.Switches; s++ {
		for p := n.portBase[s]; p < n.portBase[s+1]; p++ {
			fmt.Fprintf(w, "sw %d port %d: fifo %d/%d owner %d inOwned %d rr %d down %d\n", s, p-n.portBase[s], n.pushes[p]-n.pops[p], n.B, n.owner[p], n.inOwned[p], n.rr[p], n.down[p])
		}
	}
	for v := 0; v < n.T.Nodes; v++ {
		f := n.rxBase + int32(v)
		fmt.Fprintf(w, "rx %d: %d\n", v, n.pushes[f]-n.pops[f])
	}
}
