package noc

import (
	"fmt"

	"github.com/hxbar/hxbar/hw"
)

// Torus is a k-ary n-cube: one router per node (router id = node id, node
// coordinates as in the hyper-crossbar), a bidirectional link to each
// neighbour in every dimension, two virtual channels per link direction.
//
// Router ports: 0 is the local endpoint; for dimension k, port 1+4k is
// "+ VC0", 1+4k+1 "+ VC1", 1+4k+2 "- VC0", 1+4k+3 "- VC1". Output p > 0
// feeds input p of the neighbour in that direction. Routing is dimension
// order, shortest direction (a tie, distance K/2, goes +), with a dateline
// per dimension: see Next.
type Torus struct {
	Dims     []int
	Nodes    int
	Stride   []int // Stride[k] = K0*...*K(k-1)
	Switches int   // = Nodes
	// dir[k][x*Kk+c]: the direction entry of dimension k for own coordinate
	// x and destination coordinate c: Pass (c == x), 0 (+) or 2 (-).
	dir [][]uint8
}

// NewTorus builds the torus for the given dimension sizes.
func NewTorus(dims []int) (*Torus, error) {
	if len(dims) < hw.MinDims || len(dims) > hw.MaxDims {
		return nil, fmt.Errorf("invalid dims: %v (allowed: %d to %d dimension sizes)", dims, hw.MinDims, hw.MaxDims)
	}
	t := &Torus{Dims: append([]int(nil), dims...), Nodes: 1}
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
	for _, d := range dims {
		tab := make([]uint8, d*d)
		for x := 0; x < d; x++ {
			for c := 0; c < d; c++ {
				switch plus := (c - x + d) % d; {
				case plus == 0:
					tab[x*d+c] = Pass
				case 2*plus <= d: // shortest, or a tie: +
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

// IsChannel: every port but 0 drives a link.
func (t *Torus) IsChannel(sw, p int) bool { return p != 0 }

// step returns the neighbour of node x one step in dimension k, + or -.
func (t *Torus) step(x, k int, minus bool) int {
	c, d, s := t.Coord(x, k), t.Dims[k], t.Stride[k]
	if minus {
		return x + ((c+d-1)%d-c)*s
	}
	return x + ((c+1)%d-c)*s
}

// Neighbor: output p > 0 of router x feeds input p of the neighbour in the
// port's dimension and direction; port 0 is x's endpoint.
func (t *Torus) Neighbor(sw, p int) (int, int) {
	if p == 0 {
		return -1, sw
	}
	k, r := (p-1)/4, (p-1)%4
	return t.step(sw, k, r >= 2), p
}

// Wire: the two VCs of one link direction share a wire, (x*n+k)*2+dir for
// router x's outputs in dimension k (dir 0 +, 1 -). With half duplex both
// directions of a link share it too: wire y*n+k for the link between y and
// its + neighbour (y's + outputs and that neighbour's - outputs).
func (t *Torus) Wire(sw, p int, half bool) int {
	if p == 0 {
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

// Wires is 2*Nodes*n (full duplex) or Nodes*n (half).
func (t *Torus) Wires(half bool) int {
	if half {
		return t.Nodes * len(t.Dims)
	}
	return 2 * t.Nodes * len(t.Dims)
}

// dirPort is the VC0 port toward dst (0 at dst): the first dimension, from
// 0 up, whose coordinate differs, in its shortest direction.
func (t *Torus) dirPort(sw, dst int) int {
	for k, d := range t.Dims {
		x, c := t.Coord(sw, k), t.Coord(dst, k)
		if e := t.dir[k][x*d+c]; e != Pass {
			return 1 + 4*k + int(e)
		}
	}
	return 0
}

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
// same dimension and direction on VC1 (input port e+1); else e (VC0).
func (t *Torus) Next(sw, in, dst int) int {
	e := t.dirPort(sw, dst)
	if e == 0 {
		return 0
	}
	if in == e+1 {
		return e + 1
	}
	k := (e - 1) / 4
	x := t.Coord(sw, k)
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
	ns, _ := t.Neighbor(sw, p)
	return fmt.Sprintf("router %d dim %d %s VC%d -> router %d", sw, k, sign, r%2, ns)
}
