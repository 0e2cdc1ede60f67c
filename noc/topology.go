package noc

import (
	"fmt"

	"github.com/hxbar/hxbar/hw"
)

// Pass is the routing-table entry meaning "no move in this dimension here".
const Pass uint8 = 0xFF

// Topology is a hyper-crossbar: the grid, the switch numbering and the
// routing tables. Switches 0..Nodes-1 are the exchangers (switch id = node
// id); switches Nodes.. are the crossbars, dimension by dimension, line by
// line (see Crossbar).
type Topology struct {
	Dims      []int
	Nodes     int
	Stride    []int // Stride[k] = K0*...*K(k-1)
	Off       []int // exchanger table offset of dimension k
	CoordBits []int
	XbarBase  []int // switch id of the first crossbar of dimension k
	Switches  int
}

// NewTopology builds the hyper-crossbar for the given dimension sizes.
func NewTopology(dims []int) (*Topology, error) {
	if len(dims) < hw.MinDims || len(dims) > hw.MaxDims {
		return nil, fmt.Errorf("invalid dims: %v (allowed: %d to %d dimension sizes)", dims, hw.MinDims, hw.MaxDims)
	}
	t := &Topology{Dims: append([]int(nil), dims...), Nodes: 1}
	off := 0
	for k, d := range dims {
		if d < hw.MinDimSize || d > hw.MaxDimSize {
			return nil, fmt.Errorf("invalid dims[%d]: %d (allowed: %d..%d)", k, d, hw.MinDimSize, hw.MaxDimSize)
		}
		t.Stride = append(t.Stride, t.Nodes)
		t.Off = append(t.Off, off)
		t.CoordBits = append(t.CoordBits, hw.Bits(d))
		off += d
		t.Nodes *= d
	}
	sw := t.Nodes
	for _, d := range dims {
		t.XbarBase = append(t.XbarBase, sw)
		sw += t.Nodes / d
	}
	t.Switches = sw
	return t, nil
}

// NumDims is the number of dimensions.
func (t *Topology) NumDims() int { return len(t.Dims) }

// Coord returns coordinate k of a node.
func (t *Topology) Coord(node, k int) int { return node / t.Stride[k] % t.Dims[k] }

// Addr packs a node's coordinates into the address carried by head flits.
func (t *Topology) Addr(node int) uint64 {
	var a uint64
	shift := 0
	for k := range t.Dims {
		a |= uint64(t.Coord(node, k)) << shift
		shift += t.CoordBits[k]
	}
	return a
}

// FlitAddr packs a node's coordinates as hw.Flit's destination does:
// coordinate k at bits hw.CoordField*k.
func (t *Topology) FlitAddr(node int) uint64 {
	var a uint64
	for k := range t.Dims {
		a |= uint64(t.Coord(node, k)) << (hw.CoordField * k)
	}
	return a
}

// IsCrossbar reports whether a switch id is a crossbar.
func (t *Topology) IsCrossbar(sw int) bool { return sw >= t.Nodes }

// Ports is the number of ports of a switch.
func (t *Topology) Ports(sw int) int {
	if sw < t.Nodes {
		return len(t.Dims) + 1
	}
	return t.Dims[t.XbarDim(sw)]
}

// XbarDim is the dimension of a crossbar switch.
func (t *Topology) XbarDim(sw int) int {
	k := len(t.Dims) - 1
	for k > 0 && sw < t.XbarBase[k] {
		k--
	}
	return k
}

// Crossbar returns the switch id of the dimension-k crossbar on a node's line
// and the port of that crossbar the node is attached to.
func (t *Topology) Crossbar(node, k int) (sw, port int) {
	s := t.Stride[k]
	line := node%s + node/(s*t.Dims[k])*s
	return t.XbarBase[k] + line, t.Coord(node, k)
}

// XbarNode returns the node attached to port p of crossbar sw.
func (t *Topology) XbarNode(sw, p int) int {
	k := t.XbarDim(sw)
	line := sw - t.XbarBase[k]
	s := t.Stride[k]
	return line%s + line/s*s*t.Dims[k] + p*s
}

// ExchangerTable is the routing table of a node's exchanger: entry
// Off[k]+c is the output port for a destination with coordinate k equal to
// c, or Pass. Generated for dimension-order routing.
func (t *Topology) ExchangerTable(node int) []uint8 {
	tab := make([]uint8, 0, t.Off[len(t.Off)-1]+t.Dims[len(t.Dims)-1])
	for k, d := range t.Dims {
		x := t.Coord(node, k)
		for c := 0; c < d; c++ {
			if c == x {
				tab = append(tab, Pass)
			} else {
				tab = append(tab, uint8(k+1))
			}
		}
	}
	return tab
}

// CrossbarTable is the routing table of a crossbar: entry c is the output
// port for a destination whose coordinate in the crossbar's dimension is c.
func (t *Topology) CrossbarTable(sw int) []uint8 {
	d := t.Dims[t.XbarDim(sw)]
	tab := make([]uint8, d)
	for c := range tab {
		tab[c] = uint8(c)
	}
	return tab
}

// Table returns the routing table of any switch.
func (t *Topology) Table(sw int) []uint8 {
	if t.IsCrossbar(sw) {
		return t.CrossbarTable(sw)
	}
	return t.ExchangerTable(sw)
}

// Route applies a switch's routing table to a destination node, exactly as
// the RTL does: the exchanger takes the first dimension whose entry is not
// Pass (port 0 when all are), the crossbar indexes by the coordinate.
func (t *Topology) Route(sw int, table []uint8, dst int) int {
	if t.IsCrossbar(sw) {
		return int(table[t.Coord(dst, t.XbarDim(sw))])
	}
	for k := range t.Dims {
		if e := table[t.Off[k]+t.Coord(dst, k)]; e != Pass {
			return int(e)
		}
	}
	return 0
}

// Neighbor returns the switch and port at the far end of output port p of
// switch sw; for an exchanger's port 0 it returns (-1, node): the endpoint.
func (t *Topology) Neighbor(sw, p int) (int, int) {
	if !t.IsCrossbar(sw) {
		if p == 0 {
			return -1, sw
		}
		return t.Crossbar(sw, p-1)
	}
	return t.XbarNode(sw, p), t.XbarDim(sw) + 1
}
