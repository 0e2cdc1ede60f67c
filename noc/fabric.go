package noc

import (
	"fmt"

	"github.com/hxbar/hxbar/hw"
)

// MaxFabricNodes bounds the node count of a torus or fat tree: the cycle
// model's limit (sim.MaxModelNodes).
const MaxFabricNodes = 1 << 21

// MaxSwitchPorts is the most ports a switch of the cycle model may have (its
// per-switch port sets are 64-bit masks, and EvalSwitch keeps one request
// mask per output port). newNetwork refuses a fabric with a larger switch.
// Every fabric's switches fit: a hyper-crossbar crossbar has dims[k] <=
// hw.MaxDimSize ports and an exchanger hw.MaxDims+1, a fat-tree switch 2k
// (k <= MaxFatTreeArity), a torus router 4n+1 (two virtual channels per
// direction, n <= hw.MaxDims).
const MaxSwitchPorts = 64

// Compile-time ties: each constant expression below is negative, so the
// conversion to uint fails to compile, if a bound is broken.
const (
	_ = uint(64 - MaxSwitchPorts)                 // port sets are uint64 masks
	_ = uint(MaxSwitchPorts - hw.MaxDimSize)      // a crossbar of the largest dimension
	_ = uint(MaxSwitchPorts - (hw.MaxDims + 1))   // an exchanger
	_ = uint(MaxSwitchPorts - (4*hw.MaxDims + 1)) // a torus router
)

// Fabric is a network of switches joined by channels, as the cycle model
// (Network) and the routing proof (CheckFabric) see it. *Topology (the
// hyper-crossbar), *Torus and *FatTree implement it; docs/networks.md
// describes their port numbering and routing.
//
// Switch ids are 0..NumSwitches()-1, port ids of switch sw 0..Ports(sw)-1.
// Every port is an input and an output: output p of sw drives input np of
// switch ns, where (ns, np) = Neighbor(sw, p), or, when ns < 0, it is the
// ejection port of endpoint np, whose injection feeds input p of sw; when
// (ns, np) = (-1, -1) the output is not connected (the end of a torus's
// mesh line) and no route takes it.
type Fabric interface {
	// Name is the fabric's topology: hw.TopoHyperXbar, hw.TopoTorus or
	// hw.TopoFatTree.
	Name() hw.Topology
	NumNodes() int
	NumSwitches() int
	Ports(sw int) int
	// Neighbor is the far end of output p of switch sw: a switch and its
	// input port, or (-1, node) for a node's endpoint.
	Neighbor(sw, p int) (int, int)
	// Attach is the switch and port a node's endpoint is connected to.
	Attach(node int) (sw, port int)
	// IsChannel reports whether output p of sw is a network channel (switch
	// to switch, counted in flit-hops), not an endpoint link.
	IsChannel(sw, p int) bool
	// Wire is the physical wire output p of sw uses, or -1 when the output
	// has a wire of its own: outputs sharing a wire move at most one flit
	// per cycle between them (virtual channels; half duplex when half).
	Wire(sw, p int, half bool) int
	// Wires is the number of wire ids Wire returns (0: none shared).
	Wires(half bool) int
	// Table is the generated routing table of switch sw (the format is the
	// fabric's: see docs/networks.md).
	Table(sw int) []uint8
	// Next is the routing function: the output port of switch sw for a head
	// flit that arrived on input port in and is bound for node dst. It gives
	// what Table(sw) gives, plus the fabric's virtual-channel rule.
	Next(sw, in, dst int) int
	// DescribeOutput names output p of switch sw for reports.
	DescribeOutput(sw, p int) string
}

// NewFabric builds the network of a topology (one of hw.Topologies):
// hyperxbar (NewTopology), torus (NewTorus) or fattree (NewFatTree).
func NewFabric(topology hw.Topology, dims []int) (Fabric, error) {
	switch topology {
	case hw.TopoHyperXbar:
		return NewTopology(dims)
	case hw.TopoTorus:
		return NewTorus(dims)
	case hw.TopoFatTree:
		return NewFatTree(dims)
	}
	return nil, fmt.Errorf("invalid topology: %q (allowed: %s)", topology, hw.Join(hw.Topologies))
}

// FabricOf builds the network a system describes: NewFabric's, with the
// torus's wrap list.
func FabricOf(s *hw.System) (Fabric, error) {
	if s.Topology == hw.TopoTorus {
		return NewTorusWrap(s.Dims, s.Wrap)
	}
	if len(s.Wrap) > 0 {
		return nil, fmt.Errorf("invalid wrap: %v (allowed: [] with topology %s; wrap belongs to topology torus)", s.Wrap, s.Topology)
	}
	return NewFabric(s.Topology, s.Dims)
}

// Output is one output port of one switch.
type Output struct{ Switch, Port int }

// Walk follows the routing function from src's attach point to dst and
// returns every output taken, the last being dst's ejection port: the path
// crosses len(path)-1 network channels.
func Walk(f Fabric, src, dst int) ([]Output, error) {
	if src < 0 || src >= f.NumNodes() || dst < 0 || dst >= f.NumNodes() {
		return nil, fmt.Errorf("walk %d -> %d: nodes are 0..%d", src, dst, f.NumNodes()-1)
	}
	s, in := f.Attach(src)
	limit := f.NumSwitches() * MaxSwitchPorts
	var path []Output
	for {
		p := f.Next(s, in, dst)
		if p < 0 || p >= f.Ports(s) {
			return path, fmt.Errorf("switch %d: route to node %d gives port %d (allowed: 0..%d)", s, dst, p, f.Ports(s)-1)
		}
		path = append(path, Output{s, p})
		ns, np := f.Neighbor(s, p)
		if ns < 0 {
			if np != dst {
				return path, fmt.Errorf("path %d -> %d ends at node %d's endpoint (%s)", src, dst, np, f.DescribeOutput(s, p))
			}
			return path, nil
		}
		if len(path) > limit {
			return path, fmt.Errorf("path %d -> %d does not reach its destination within %d hops (routing loop)", src, dst, limit)
		}
		s, in = ns, np
	}
}

// Fabric methods of the hyper-crossbar.

// Name is hw.TopoHyperXbar.
func (t *Topology) Name() hw.Topology { return hw.TopoHyperXbar }

// NumNodes is the node count.
func (t *Topology) NumNodes() int { return t.Nodes }

// NumSwitches is the switch count (exchangers, then crossbars).
func (t *Topology) NumSwitches() int { return t.Switches }

// Attach: a node's endpoint is port 0 of its exchanger.
func (t *Topology) Attach(node int) (sw, port int) { return node, 0 }

// IsChannel: every port but an exchanger's port 0 drives a network channel.
func (t *Topology) IsChannel(sw, p int) bool { return t.IsCrossbar(sw) || p != 0 }

// Wire: with half duplex, an exchanger port k+1 and its crossbar port share
// wire node*NumDims()+k; with full duplex no output shares a wire.
func (t *Topology) Wire(sw, p int, half bool) int {
	if !half || !t.IsChannel(sw, p) {
		return -1
	}
	if t.IsCrossbar(sw) {
		ns, np := t.Neighbor(sw, p)
		return ns*len(t.Dims) + np - 1
	}
	return sw*len(t.Dims) + p - 1
}

// Wires is Nodes*NumDims() with half duplex, else 0.
func (t *Topology) Wires(half bool) int {
	if !half {
		return 0
	}
	return t.Nodes * len(t.Dims)
}

// Next is Route with the switch's generated table, computed from the
// coordinates (the input port does not matter).
func (t *Topology) Next(sw, in, dst int) int {
	if t.IsCrossbar(sw) {
		return t.Coord(dst, t.XbarDim(sw))
	}
	for k := range t.Dims {
		if t.Coord(dst, k) != t.Coord(sw, k) {
			return k + 1
		}
	}
	return 0
}

// DescribeOutput names an output, e.g. "exchanger 5 dim 1 -> crossbar 21 port 1".
func (t *Topology) DescribeOutput(sw, p int) string {
	ns, np := t.Neighbor(sw, p)
	switch {
	case ns < 0:
		return fmt.Sprintf("exchanger %d port 0 -> node %d (ejection)", sw, np)
	case t.IsCrossbar(sw):
		return fmt.Sprintf("crossbar %d (dim %d) port %d -> exchanger %d", sw, t.XbarDim(sw), p, ns)
	}
	return fmt.Sprintf("exchanger %d dim %d -> crossbar %d port %d", sw, p-1, ns, np)
}
