package noc

import (
	"fmt"

	"github.com/hxbar/hxbar/hw"
)

// MaxFatTreeArity bounds k: a switch has 2k ports and the model's switches
// have at most MaxSwitchPorts.
const MaxFatTreeArity = MaxSwitchPorts / 2

// FatTree is a k-ary n-tree: N = k^n nodes, n levels of k^(n-1) switches,
// level 0 the leaves. Switch id = l*k^(n-1) + w, w written as n-1 base-k
// digits w_0..w_{n-2}. Ports 0..k-1 go down, k..2k-1 up (the top level has
// only the k down ports). Up port k+j of (l, w) feeds down port w_l of
// (l+1, w with digit l replaced by j); leaf (0, w) down port i is the
// endpoint of node w*k+i.
type FatTree struct {
	Dims     []int // n copies of k
	K        int
	Levels   int   // n
	Nodes    int   // k^n
	PerLevel int   // k^(n-1)
	Switches int   // n*k^(n-1)
	pow      []int // pow[i] = k^i, i = 0..n
}

// NewFatTree builds the k-ary n-tree for dims = n copies of k.
func NewFatTree(dims []int) (*FatTree, error) {
	if len(dims) < hw.MinDims || len(dims) > hw.MaxDims {
		return nil, fmt.Errorf("invalid dims: %v (allowed: %d to %d levels, each of the same arity k)", dims, hw.MinDims, hw.MaxDims)
	}
	k := dims[0]
	if k < 2 || k > MaxFatTreeArity {
		return nil, fmt.Errorf("invalid dims[0]: %d (allowed: 2..%d, the arity k of a fat tree, whose switches have 2k ports)", k, MaxFatTreeArity)
	}
	for i, d := range dims {
		if d != k {
			return nil, fmt.Errorf("invalid dims[%d]: %d (allowed: %d, a fat tree's dims are all equal: a k-ary n-tree)", i, d, k)
		}
	}
	f := &FatTree{Dims: append([]int(nil), dims...), K: k, Levels: len(dims), pow: []int{1}}
	for i := 1; i <= len(dims); i++ {
		f.pow = append(f.pow, f.pow[i-1]*k)
	}
	f.Nodes, f.PerLevel = f.pow[len(dims)], f.pow[len(dims)-1]
	if f.Nodes > MaxFabricNodes {
		return nil, fmt.Errorf("invalid dims: %v is %d nodes (allowed: a fat tree of at most %d nodes)", dims, f.Nodes, MaxFabricNodes)
	}
	f.Switches = f.Levels * f.PerLevel
	return f, nil
}

// Name is hw.TopoFatTree.
func (f *FatTree) Name() hw.Topology { return hw.TopoFatTree }

// NumNodes is k^n.
func (f *FatTree) NumNodes() int { return f.Nodes }

// NumSwitches is n*k^(n-1).
func (f *FatTree) NumSwitches() int { return f.Switches }

// Level is the level l of switch sw (0: leaves).
func (f *FatTree) Level(sw int) int { return sw / f.PerLevel }

// Index is the position w of switch sw within its level.
func (f *FatTree) Index(sw int) int { return sw % f.PerLevel }

// Ports is 2k, or k at the top level.
func (f *FatTree) Ports(sw int) int {
	if f.Level(sw) == f.Levels-1 {
		return f.K
	}
	return 2 * f.K
}

// Attach: node v is down port v mod k of leaf v / k.
func (f *FatTree) Attach(node int) (sw, port int) { return node / f.K, node % f.K }

// IsChannel: every port but a leaf's down port joins two switches.
func (f *FatTree) IsChannel(sw, p int) bool { return f.Level(sw) > 0 || p >= f.K }

// digit returns base-k digit i of x.
func (f *FatTree) digit(x, i int) int { return x / f.pow[i] % f.K }

// Neighbor: up port k+j of (l, w) -> (l+1, w[l := j]) down port w_l;
// down port i of (l, w) -> (l-1, w[l-1 := i]) up port k + w_(l-1);
// a leaf's down port i -> node w*k+i.
func (f *FatTree) Neighbor(sw, p int) (int, int) {
	l, w := f.Level(sw), f.Index(sw)
	if p >= f.K {
		j := p - f.K
		d := f.digit(w, l)
		return (l+1)*f.PerLevel + w + (j-d)*f.pow[l], d
	}
	if l == 0 {
		return -1, w*f.K + p
	}
	d := f.digit(w, l-1)
	return (l-1)*f.PerLevel + w + (p-d)*f.pow[l-1], f.K + d
}

// Wire: with half duplex the two directions of a link share the wire of
// its lower end's up port, (lower switch)*k + j; with full duplex none.
func (f *FatTree) Wire(sw, p int, half bool) int {
	if !half || !f.IsChannel(sw, p) {
		return -1
	}
	if p >= f.K {
		return sw*f.K + p - f.K
	}
	ns, np := f.Neighbor(sw, p)
	return ns*f.K + np - f.K
}

// Wires is (n-1)*k^(n-1)*k with half duplex, else 0.
func (f *FatTree) Wires(half bool) int {
	if !half {
		return 0
	}
	return (f.Levels - 1) * f.PerLevel * f.K
}

// Next: at (l, w), if dst = a_0..a_(n-1) is below (w_i == a_(i+1) for all
// i >= l) go down on port a_l, else up on port k + a_l. The input port does
// not matter.
func (f *FatTree) Next(sw, in, dst int) int {
	l, w := f.Level(sw), f.Index(sw)
	a := f.digit(dst, l)
	if w/f.pow[l] == dst/f.pow[l+1] {
		return a
	}
	return f.K + a
}

// Table is switch sw's routing table: entry dst is the output port.
func (f *FatTree) Table(sw int) []uint8 {
	tab := make([]uint8, f.Nodes)
	for dst := range tab {
		tab[dst] = uint8(f.Next(sw, 0, dst))
	}
	return tab
}

// DescribeOutput names an output, e.g. "switch 5 (level 1, w 1) up 0 -> switch 9".
func (f *FatTree) DescribeOutput(sw, p int) string {
	l, w := f.Level(sw), f.Index(sw)
	ns, np := f.Neighbor(sw, p)
	switch {
	case ns < 0:
		return fmt.Sprintf("switch %d (level 0, w %d) down %d -> node %d (ejection)", sw, w, p, np)
	case p >= f.K:
		return fmt.Sprintf("switch %d (level %d, w %d) up %d -> switch %d", sw, l, w, p-f.K, ns)
	}
	return fmt.Sprintf("switch %d (level %d, w %d) down %d -> switch %d", sw, l, w, p, ns)
}
