package noc

import (
	"fmt"

	"github.com/hxbar/hxbar/hw"
)

// Torus is a k-ary n-cube, or a mesh, or a mix of the two: one router per
// node (router id = node id, node coordinates as in the hyper-crossbar), a
// bidirectional link to each neighbour in every dimension, two virtual
// channels per link direction. A dimension that wraps (Wrap[k]) is a ring;
// one that does not is a mesh line: its ends have no link past them.
//
// Router ports: 0 is the local endpoint; for dimension k, port 1+4k is
// "+ VC0", 1+4k+1 "+ VC1", 1+4k+2 "- VC0", 1+4k+3 "- VC1". Output p > 0
// feeds input p of the neighbour in that direction; at the end of a mesh
// line the outputs that would leave the line are not connected (Neighbor
// returns -1, -1) and no route takes them. Routing is dimension order,
// minimal: on a ring the shortest direction (a tie, distance K/2, goes +)
// with a dateline; on a mesh line toward the destination, on VC0 only (a
// line has no cycle, so it needs no dateline): see Next.
type Torus struct {
	Dims     []int
	Wrap     []bool // per dimension: a ring (true) or a mesh line
	Nodes    int
	Stride   []int // Stride[k] = K0*...*K(k-1)
	Switches int   // = Nodes
	// dir[k][x*Kk+c]: the direction entry of dimension k for own coordinate
	// x and destination coordinate c: Pass (c == x), 0 (+) or 2 (-).
	dir [][]uint8
}

// NewTorus builds the torus for the given dimension sizes, every dimension
// a ring.
func NewTorus(dims []int) (*Torus, error) { return NewTorusWrap(dims, nil) }

// NewTorusWrap builds the torus for the given dimension sizes with the
// given wrap flag per dimension (nil or empty: every dimension wraps).
func NewTorusWrap(dims []int, wrap []bool) (*Torus, error) {
	if len(dims) < hw.MinDims || len(dims) > hw.MaxDims {
		return nil, fmt.Errorf("invalid dims: %v (allowed: %d to %d dimension sizes)", dims, hw.MinDims, hw.MaxDims)
	}
	if len(wrap) != 0 && len(wrap) != len(dims) {
		return nil, fmt.Errorf("invalid wrap: %v (allowed: %s)", wrap, hw.WrapAllowed)
	}
	t := &Torus{Dims: append([]int(nil), dims...), Nodes: 1}
	for k := range dims {
		t.Wrap = append(t.Wrap, len(wrap) == 0 || wrap[k])
	}
	for k, d := range dims {
		if d < hw.MinDimSize || d > hw.MaxDimSize {
			return nil, fmt.Errorf("invalid dims[%d]: %d (allowed: %d..%d)", k, d, hw.MinDimSize, hw.MaxDimSize)
		}
		t.Stride = append(t.Stride, t.Nodes)
		t.Nodes *= d
	}
	if t.Nodes > MaxFabricNodes {
		return nil, fmt.Errorf("invalid dims: %v is %d nodes (allowed: a torus of at most %d nodes)", dims, t.Nodes, MaxFabricNodes)
	}
	t.Switches = t.Nodes
	for k, d := range dims {
		tab := make([]uint8, d*d)
		for x := 0; x < d; x++ {
			for c := 0; c < d; c++ {
				switch plus := (c - x + d) % d; {
				case plus == 0:
					tab[x*d+c] = Pass
				case !t.Wrap[k] && c > x, t.Wrap[k] && 2*plus <= d: // mesh: toward c; ring: shortest, or a tie: +
					tab[x*d+c] = 0
				default:
					tab[x*d+c] = 2
				}
			}
		}
		t.dir = append(t.dir, tab)
	}
	return t, nil
}

// Name is hw.TopoTorus.
func (t *Torus) Name() hw.Topology { return hw.TopoTorus }

// NumNodes is the node count.
func (t *Torus) NumNodes() int { return t.Nodes }

// NumSwitches is the router count (= nodes).
func (t *Torus) NumSwitches() int { return t.Switches }

// Coord returns coordinate k of a node.
func (t *Torus) Coord(node, k int) int { return node / t.Stride[k] % t.Dims[k] }

// Ports is 1 + 4 per dimension.
func (t *Torus) Ports(sw int) int { return 1 + 4*len(t.Dims) }

// Attach: a node's endpoint is port 0 of its router.
func (t *Torus) Attach(node int) (sw, port int) { return node, 0 }

// IsChannel: every port but 0 drives a link, except the outputs that leave
// the end of a mesh line (they are not connected).
func (t *Torus) IsChannel(sw, p int) bool { return p != 0 && t.connected(sw, p) }

// connected reports whether output p > 0 of router x has a link: always on
// a ring; on a mesh line unless it leaves the line's end.
func (t *Torus) connected(x, p int) bool {
	k, r := (p-1)/4, (p-1)%4
	if t.Wrap[k] {
		return true
	}
	c := t.Coord(x, k)
	if r >= 2 {
		return c > 0
	}
	return c < t.Dims[k]-1
}

// step returns the neighbour of node x one step in dimension k, + or -.
func (t *Torus) step(x, k int, minus bool) int {
	c, d, s := t.Coord(x, k), t.Dims[k], t.Stride[k]
	if minus {
		return x + ((c+d-1)%d-c)*s
	}
	return x + ((c+1)%d-c)*s
}

// Neighbor: output p > 0 of router x feeds input p of the neighbour in the
// port's dimension and direction; port 0 is x's endpoint. An output leaving
// the end of a mesh line is not connected: (-1, -1).
func (t *Torus) Neighbor(sw, p int) (int, int) {
	if p == 0 {
		return -1, sw
	}
	if !t.connected(sw, p) {
		return -1, -1
	}
	k, r := (p-1)/4, (p-1)%4
	return t.step(sw, k, r >= 2), p
}

// Wire: the two VCs of one link direction share a wire, (x*n+k)*2+dir for
// router x's outputs in dimension k (dir 0 +, 1 -). With half duplex both
// directions of a link share it too: wire y*n+k for the link between y and
// its + neighbour (y's + outputs and that neighbour's - outputs). An output
// that is not connected has none (-1); the ids of the links a mesh line
// lacks are left unused.
func (t *Torus) Wire(sw, p int, half bool) int {
	if p == 0 || !t.connected(sw, p) {
		return -1
	}
	nd := len(t.Dims)
	k, minus := (p-1)/4, (p-1)%4 >= 2
	if !half {
		w := (sw*nd + k) * 2
		if minus {
			w++
		}
		return w
	}
	if minus {
		return t.step(sw, k, true)*nd + k
	}
	return sw*nd + k
}

// Wires is 2*Nodes*n (full duplex) or Nodes*n (half): the range of the
// wire ids, of which a mesh line's missing links leave some unused.
func (t *Torus) Wires(half bool) int {
	if half {
		return t.Nodes * len(t.Dims)
	}
	return 2 * t.Nodes * len(t.Dims)
}

// Addr packs a node's coordinates as hw.Flit's destination does:
// coordinate k at bits hw.CoordField*k.
func (t *Torus) Addr(node int) uint64 {
	var a uint64
	for k := range t.Dims {
		a |= uint64(t.Coord(node, k)) << (hw.CoordField * k)
	}
	return a
}

// dirPort is the VC0 port toward dst (0 at dst): the first dimension, from
// 0 up, whose coordinate differs, in the direction the dimension's table
// gives (the shortest on a ring, toward dst on a mesh line).
func (t *Torus) dirPort(sw, dst int) int {
	e, _ := t.dirAddr(t.Addr(sw), t.Addr(dst))
	return e
}

// dirAddr is dirPort on packed addresses; it also returns the router's
// own coordinate in the port's dimension.
func (t *Torus) dirAddr(own, dst uint64) (port, x int) {
	const m = 1<<hw.CoordField - 1
	for k, d := range t.Dims {
		x, c := int(own>>(hw.CoordField*k)&m), int(dst>>(hw.CoordField*k)&m)
		if e := t.dir[k][x*d+c]; e != Pass {
			return 1 + 4*k + int(e), x
		}
	}
	return 0, 0
}

// Plus reports whether the direction table of dimension k sends a router
// at coordinate x toward destination coordinate c the + way (else -, or
// nowhere when c == x): what hx_router's PLUS(k) register holds.
func (t *Torus) Plus(k, x, c int) bool { return t.dir[k][x*t.Dims[k]+c] == 0 }

// Table is router sw's routing table: entry dst is the VC0 port of the
// direction toward dst (0 local, 1+4k for +, 1+4k+2 for -). Next adds the
// VC bit.
func (t *Torus) Table(sw int) []uint8 {
	tab := make([]uint8, t.Nodes)
	for dst := range tab {
		tab[dst] = uint8(t.dirPort(sw, dst))
	}
	return tab
}

// Next routes by the table entry e and the dateline rule: the output is
// e+1 (VC1) when this hop crosses the dimension's wrap link (+ from
// coordinate K-1 to 0, - from 0 to K-1) or when the flit arrived on the
// same dimension and direction on VC1 (input port e+1); else e (VC0). On a
// mesh line no hop crosses a wrap link, so every hop takes VC0.
func (t *Torus) Next(sw, in, dst int) int {
	return t.NextAddr(in, t.Addr(sw), t.Addr(dst))
}

// NextAddr is Next for the router whose packed address (Addr) is own and a
// flit bound for the packed address dst: the cycle model's route.
func (t *Torus) NextAddr(in int, own, dst uint64) int {
	e, x := t.dirAddr(own, dst)
	if e == 0 {
		return 0
	}
	if in == e+1 {
		return e + 1
	}
	k := (e - 1) / 4
	if !t.Wrap[k] {
		return e
	}
	if (e-1)%4 == 0 && x == t.Dims[k]-1 || (e-1)%4 == 2 && x == 0 {
		return e + 1
	}
	return e
}

// DescribeOutput names an output, e.g. "router 5 dim 0 + VC1 -> router 6".
func (t *Torus) DescribeOutput(sw, p int) string {
	if p == 0 {
		return fmt.Sprintf("router %d local -> node %d (ejection)", sw, sw)
	}
	k, r := (p-1)/4, (p-1)%4
	sign := "+"
	if r >= 2 {
		sign = "-"
	}
	if !t.connected(sw, p) {
		return fmt.Sprintf("router %d dim %d %s VC%d (end of a mesh line: not connected)", sw, k, sign, r%2)
	}
	ns, _ := t.Neighbor(sw, p)
	return fmt.Sprintf("router %d dim %d %s VC%d -> router %d", sw, k, sign, r%2, ns)
}
