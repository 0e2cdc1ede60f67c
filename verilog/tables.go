package verilog

import (
	"fmt"
	"slices"

	"github.com/hxbar/hxbar/barrierunit/regmap"
	"github.com/hxbar/hxbar/design"
	"github.com/hxbar/hxbar/hw"
)

// Gate table field positions (docs/tables.md, "Gate table").
const (
	gtValid     = 63 // body[0]
	gtGatesPos  = 32 // body[0] bits 37..32
	gtSelf      = 40 // body[g]
	gtNeedPos   = 32 // body[g] bits 39..32
	gtCountPos  = 16 // body[g] bits 31..16
	gtRankShift = 32 // route word bits 63..32
)

// GateRoute is one route of a gate table: the destination rank and the
// packed address of its node.
type GateRoute struct {
	Rank int
	Addr uint64
}

// GateTable is a decoded gate table (docs/tables.md). The per-gate slices
// are indexed by gate g = 0..G+1; entry 0 is unused (always zero).
type GateTable struct {
	Rank   int // own rank, -1 for a node without a rank
	Gates  int // G
	Self   []bool
	Need   []int
	Start  []int // index in Routes of the first route of out[g]
	Count  []int // routes in out[g]
	Routes []GateRoute
}

// Out returns the routes of out[g].
func (t *GateTable) Out(g int) []GateRoute {
	if g < 1 || g >= len(t.Start) {
		return nil
	}
	return t.Routes[t.Start[g] : t.Start[g]+t.Count[g]]
}

// DecodeGateTable decodes the body of a gate table and checks it as the RTL
// does (reserved bits zero, gate 1 without self and need, no routes out of
// the end gate, every route list inside the route words, count of words
// consistent). It does not know RB and AB, so rank and address widths are
// not checked.
func DecodeGateTable(body []uint64) (*GateTable, error) {
	if len(body) < 1 {
		return nil, fmt.Errorf("gate table: empty body (allowed: 1 word for a node without a rank, 1+(G+1)+NR words otherwise)")
	}
	w := body[0]
	if w>>gtValid&1 == 0 {
		if w != 0 || len(body) != 1 {
			return nil, fmt.Errorf("gate table: a table without a rank must be the single body word 0 (body[0] = %016x, %d words)", w, len(body))
		}
		return &GateTable{Rank: -1}, nil
	}
	if w>>38&(1<<25-1) != 0 {
		return nil, fmt.Errorf("gate table: body[0] = %016x: reserved bits 62..38 not zero", w)
	}
	G := int(w >> gtGatesPos & 63)
	if G > hw.MaxGates {
		return nil, fmt.Errorf("gate table: G = %d (allowed: 0..%d)", G, hw.MaxGates)
	}
	nr := len(body) - G - 2
	if nr < 0 {
		return nil, fmt.Errorf("gate table: %d body words cannot hold %d gate words", len(body), G+1)
	}
	t := &GateTable{
		Rank: int(uint32(w)), Gates: G,
		Self: make([]bool, G+2), Need: make([]int, G+2),
		Start: make([]int, G+2), Count: make([]int, G+2),
		Routes: make([]GateRoute, nr),
	}
	for g := 1; g <= G+1; g++ {
		w := body[g]
		if w>>41 != 0 {
			return nil, fmt.Errorf("gate table: gate %d: body[%d] = %016x: reserved bits 63..41 not zero", g, g, w)
		}
		t.Self[g] = w>>gtSelf&1 != 0
		t.Need[g] = int(w >> gtNeedPos & 0xff)
		t.Count[g] = int(w >> gtCountPos & 0xffff)
		t.Start[g] = int(w & 0xffff)
		if t.Start[g]+t.Count[g] > nr {
			return nil, fmt.Errorf("gate table: gate %d: routes %d..%d past the %d route words", g, t.Start[g], t.Start[g]+t.Count[g]-1, nr)
		}
		if g == 1 && (t.Self[g] || t.Need[g] != 0) {
			return nil, fmt.Errorf("gate table: gate 1 (arrival) must have self = 0 and need = 0")
		}
		if g == G+1 && t.Count[g] != 0 {
			return nil, fmt.Errorf("gate table: the end gate %d must have no routes out", g)
		}
	}
	for j := range t.Routes {
		w := body[G+2+j]
		t.Routes[j] = GateRoute{Rank: int(w >> gtRankShift), Addr: w & 0xffffffff}
	}
	return t, nil
}

// DecodeRouteTable decodes the body of a routing table: one 8-bit entry per
// word, bits 63..8 zero.
func DecodeRouteTable(body []uint64) ([]uint8, error) {
	t := make([]uint8, len(body))
	for i, w := range body {
		if w>>8 != 0 {
			return nil, fmt.Errorf("routing table: body[%d] = %016x: bits 63..8 not zero", i, w)
		}
		t[i] = uint8(w)
	}
	return t, nil
}

// RouteTableBody is the body of the routing table file of switch sw:
// s.Topo.Table(sw), one entry per word.
func RouteTableBody(s *design.Design, sw int) ([]uint64, error) {
	if s == nil || s.Topo == nil {
		return nil, fmt.Errorf("routing table: no topology")
	}
	if sw < 0 || sw >= s.Topo.Switches {
		return nil, fmt.Errorf("routing table: switch %d (allowed: 0..%d)", sw, s.Topo.Switches-1)
	}
	t := s.Topo.Tables()[sw] // the cached set: read only
	body := make([]uint64, len(t))
	for i, e := range t {
		body[i] = uint64(e)
	}
	return body, nil
}

// Exceptions are the routing exceptions of every switch of s
// (s.Avoid.Except, nil without avoided channels) as the switches' CAM
// entries hold them: per switch, ordered by destination node, each with
// the destination's packed address and the output port.
func Exceptions(s *design.Design) [][]regmap.Exception {
	if s == nil || s.Avoid == nil || s.Topo == nil {
		return nil
	}
	out := make([][]regmap.Exception, len(s.Avoid.Except))
	for sw, m := range s.Avoid.Except {
		dsts := make([]int, 0, len(m))
		for d := range m {
			dsts = append(dsts, int(d))
		}
		slices.Sort(dsts)
		for _, d := range dsts {
			out[sw] = append(out[sw], regmap.Exception{Addr: uint32(s.Topo.Addr(d)), Port: m[int32(d)]})
		}
	}
	return out
}

// CAMEntries is the size E of every switch's routing exception CAM: the
// most exceptions of one switch (noc.Avoid.MaxEntries), 0 without avoided
// channels (no CAM, the RTL of a design without --avoid) and on a torus
// (its routers' reversals are bits of their PLUS registers: RouterProgram).
func CAMEntries(s *design.Design) int {
	if s == nil || s.Avoid == nil || s.Topo == nil {
		return 0
	}
	return s.Avoid.MaxEntries
}

// ExceptionTableBody is the body of switch sw's exception table file
// (rx_s<sw>.hex, docs/tables.md): entry x in word x, bit 40 valid (1),
// 39..32 the port, 31..0 the destination address: the two words the
// configuration writes, control word above address word.
func ExceptionTableBody(ex []regmap.Exception) []uint64 {
	body := make([]uint64, len(ex))
	for x, e := range ex {
		body[x] = uint64(regmap.ExceptValid|uint32(e.Port))<<32 | uint64(e.Addr)
	}
	return body
}

// GateTableBody is the body of the gate table file of node: the slice of
// episode 1's gate tables for the rank s places there, or the single word
// 0 when the node hosts no rank.
func GateTableBody(d *design.Design, node int) ([]uint64, error) {
	if d == nil {
		return nil, fmt.Errorf("no system")
	}
	s := d.Episode(1)
	if err := checkShape(s); err != nil {
		return nil, err
	}
	if nodes := s.Fabric.NumNodes(); node < 0 || node >= nodes {
		return nil, fmt.Errorf("gate table: node %d (allowed: 0..%d)", node, nodes-1)
	}
	if r := s.RankOf(node); r >= 0 {
		return gateBody(s, r)
	}
	return []uint64{0}, nil
}

// gateBody encodes rank r's gate table file body: the identity word, the
// gate words 1..G+1 and the route words of regmap.GateWords (the encoding
// the configuration programs write).
func gateBody(s *design.Episode, r int) ([]uint64, error) {
	gates, routes, err := regmap.GateWords(s.Table, r, s.RankAddrs())
	if err != nil {
		return nil, err
	}
	G := s.Table.Gates
	body := make([]uint64, 0, 1+G+1+len(routes))
	body = append(body, 1<<gtValid|uint64(G)<<gtGatesPos|uint64(uint32(r)))
	body = append(body, gates[1:]...)
	return append(body, routes...), nil
}

// checkShape checks that the parts of s the generator reads are present and
// consistent with each other (they are, for a design from design.New).
func checkShape(s *design.Episode) error {
	switch {
	case s == nil:
		return fmt.Errorf("no system")
	case s.Design == nil:
		return fmt.Errorf("system %q: no design (rank placement)", s.Sys.Title())
	case s.Fabric == nil || s.Topo == nil && Torus(s.Design) == nil:
		return fmt.Errorf("system %q: no topology", s.Sys.Title())
	case s.Table == nil:
		return fmt.Errorf("system %q: no gate tables", s.Sys.Title())
	}
	tab := s.Table
	n := tab.Ranks * tab.Stride()
	if tab.Ranks < 1 || tab.Gates < 0 || len(tab.Self) != n || len(tab.Need) != n || len(tab.OutStart) != n || len(tab.OutEnd) != n {
		return fmt.Errorf("system %q: malformed gate tables (%d ranks, %d gates)", s.Sys.Title(), tab.Ranks, tab.Gates)
	}
	if s.Ranks() != tab.Ranks {
		return fmt.Errorf("system %q: %d ranks placed, the gate tables have %d", s.Sys.Title(), s.Ranks(), tab.Ranks)
	}
	used := make(map[int32]int, tab.Ranks)
	for r, nd := range s.Placement() {
		if nodes := s.Fabric.NumNodes(); nd < 0 || int(nd) >= nodes {
			return fieldErr(fmt.Sprintf("placement[%d]", r), nd, fmt.Sprintf("0..%d", nodes-1))
		}
		if prev, dup := used[nd]; dup {
			return fieldErr(fmt.Sprintf("placement[%d]", r), nd, fmt.Sprintf("a node not already used (rank %d is on node %d)", prev, nd))
		}
		used[nd] = r
	}
	return nil
}
