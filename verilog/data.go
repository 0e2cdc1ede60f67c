package verilog

import (
	"fmt"
	"strconv"

	"github.com/hxbar/hxbar/barrierunit"
	"github.com/hxbar/hxbar/barrierunit/regmap"
	"github.com/hxbar/hxbar/design"
	"github.com/hxbar/hxbar/hw"
)

// MagicData is the magic of a data table file (docs/transfers.md).
const MagicData = "HXDT"

// Fields of the RTL transfer engine's tables (docs/transfers.md, "Data
// table file"); the item list of one table holds at most
// regmap.MaxItemList words (24-bit index).
const (
	dtRankShift   = 48        // route / gate word: bits 63..48
	dtCountShift  = 24        // bits 47..24
	dtField24     = 1<<24 - 1 // count and first-item fields
	dtOriginShift = 48        // item-list word: origin bits 63..48
	dtItemShift   = 32        // item id bits 47..32
)

// DataTableFile is the name of node's data table file.
func DataTableFile(node int) string { return "dt_n" + strconv.Itoa(node) + ".hex" }

// DataItem is one entry of a data table's item list.
type DataItem struct{ Origin, Item int }

// DataMessage is a route's or a gate's entry of a data table: the other rank
// (destination of a route, expected source of a gate) and Count items from
// item-list index First. A gate that expects no message has Count 0.
type DataMessage struct{ Rank, Count, First int }

// DataTable is a decoded data table (docs/transfers.md): for a node without
// a rank only Rank = -1 is set.
type DataTable struct {
	Rank      int           // -1 for a node without a rank (as the gate table says)
	ItemFlits int           // F
	Routes    []DataMessage // route j of the gate table
	Gates     []DataMessage // index g = 0..G+1; 0 and 1 unused
	Items     []DataItem
}

// RouteItems returns the items route j carries.
func (t *DataTable) RouteItems(j int) []DataItem {
	m := t.Routes[j]
	return t.Items[m.First : m.First+m.Count]
}

// DecodeDataTable decodes the body of a data table against the node's
// decoded gate table and checks it as the RTL does at load: the layout,
// every route's destination equal to the gate table's, every count and
// first index inside the item list, a gate's word zero exactly when its
// need is 0 (and its need 1 otherwise), the low 32 bits of item-list words
// zero.
func DecodeDataTable(body []uint64, gt *GateTable) (*DataTable, error) {
	if gt == nil {
		return nil, fmt.Errorf("data table: no gate table")
	}
	if gt.Rank < 0 {
		if len(body) != 1 || body[0] != 0 {
			return nil, fmt.Errorf("data table: a node without a rank must have the single body word 0 (%d words)", len(body))
		}
		return &DataTable{Rank: -1}, nil
	}
	G, NR := gt.Gates, len(gt.Routes)
	if len(body) < 1+NR+G {
		return nil, fmt.Errorf("data table: %d body words cannot hold 1 + %d routes + %d gates", len(body), NR, G)
	}
	L := len(body) - 1 - NR - G
	t := &DataTable{Rank: gt.Rank, ItemFlits: int(body[0] >> 32), Routes: make([]DataMessage, NR),
		Gates: make([]DataMessage, G+2), Items: make([]DataItem, L)}
	if t.ItemFlits < 1 || t.ItemFlits > hw.MaxItemFlits {
		return nil, fmt.Errorf("data table: F = %d flits per item (allowed: 1..%d)", t.ItemFlits, hw.MaxItemFlits)
	}
	if int(uint32(body[0])) != L || L > regmap.MaxItemList {
		return nil, fmt.Errorf("data table: L = %d item-list words, the body holds %d (allowed: up to %d)", uint32(body[0]), L, regmap.MaxItemList)
	}
	msg := func(w uint64) DataMessage {
		return DataMessage{Rank: int(w >> dtRankShift), Count: int(w >> dtCountShift & dtField24), First: int(w & dtField24)}
	}
	for j := range t.Routes {
		m := msg(body[1+j])
		if m.Rank != gt.Routes[j].Rank {
			return nil, fmt.Errorf("data table: route %d: destination rank %d, the gate table's route goes to rank %d", j, m.Rank, gt.Routes[j].Rank)
		}
		if m.Count == 0 || m.First+m.Count > L {
			return nil, fmt.Errorf("data table: route %d: %d items from item-list word %d (allowed: 1 or more, inside the %d words)", j, m.Count, m.First, L)
		}
		t.Routes[j] = m
	}
	for g := 2; g <= G+1; g++ {
		w := body[1+NR+g-2]
		m := msg(w)
		switch {
		case m.Count == 0 && (w != 0 || gt.Need[g] != 0):
			return nil, fmt.Errorf("data table: gate %d expects no message: its word must be 0 and the gate table's need 0 (word %016x, need %d)", g, w, gt.Need[g])
		case m.Count != 0 && gt.Need[g] != 1:
			return nil, fmt.Errorf("data table: gate %d expects a message, the gate table's need is %d (must be 1)", g, gt.Need[g])
		case m.First+m.Count > L:
			return nil, fmt.Errorf("data table: gate %d: %d items from item-list word %d, past the %d words", g, m.Count, m.First, L)
		}
		t.Gates[g] = m
	}
	for n := range t.Items {
		w := body[1+NR+G+n]
		if uint32(w) != 0 {
			return nil, fmt.Errorf("data table: item-list word %d = %016x: bits 31..0 not zero", n, w)
		}
		t.Items[n] = DataItem{Origin: int(w >> dtOriginShift), Item: int(w >> dtItemShift & 0xffff)}
	}
	return t, nil
}

// DataTableBody is the body of the data table file of node
// (docs/transfers.md): for the rank d places there, its routes in the gate
// table's route order (gates 1..G, each in episode 1's gate table order),
// its gates' expected messages and the item list; the single word 0 for a
// node without a rank. d's episode 1 must run a data schedule.
func DataTableBody(d *design.Design, node int) ([]uint64, error) {
	if d == nil {
		return nil, fmt.Errorf("no system")
	}
	s := d.Episode(1)
	if err := checkShape(s); err != nil {
		return nil, err
	}
	if err := checkData(s); err != nil {
		return nil, err
	}
	if s.DataTable == nil {
		return nil, fmt.Errorf("system %q: not a data collective (no data table)", s.Sys.Title())
	}
	if g := Grid(s.Design); node < 0 || node >= g.Nodes {
		return nil, fmt.Errorf("data table: node %d (allowed: 0..%d)", node, g.Nodes-1)
	}
	if r := s.RankOf(node); r >= 0 {
		return dataBody(s, r)
	}
	return []uint64{0}, nil
}

// dataBody encodes rank r's data table file body: F and L, then the
// route, expected-message and item-list words of regmap.DataWords (the
// encoding the configuration programs write), an item-list word in the
// upper half of a 64-bit word.
func dataBody(s *design.Episode, r int) ([]uint64, error) {
	routes, expected, items, err := regmap.DataWords(s.Table, s.DataTable, r)
	if err != nil {
		return nil, err
	}
	G := s.Table.Gates
	body := make([]uint64, 0, 1+len(routes)+G+len(items))
	body = append(body, uint64(s.DataTable.ItemFlits)<<32|uint64(len(items)))
	body = append(body, routes...)
	body = append(body, expected[2:]...)
	for _, w := range items {
		body = append(body, uint64(w)<<32)
	}
	return body, nil
}

// checkData checks what the RTL transfer engine needs of a data system.
func checkData(s *design.Episode) error {
	sys := &s.Sys
	if s.Data == nil && s.DataTable == nil && !sys.IsData() {
		return nil
	}
	if s.Data == nil || s.DataTable == nil || !sys.IsData() {
		return fmt.Errorf("system %q: collective %q with a data schedule %v and a data table %v (a data system needs all three: use design.New)",
			sys.Title(), sys.Collective, s.Data != nil, s.DataTable != nil)
	}
	d, tab := s.DataTable, s.Table
	if s.Op != barrierunit.OpBarrier {
		return fieldErr("op", s.Op, "barrier with collective "+string(sys.Collective)+" (a data unit carries items, not a value)")
	}
	if n := tab.Ranks; n > hw.MaxDataRanks {
		return fieldErr("ranks", n, fmt.Sprintf("at most %d for a data collective in the RTL (16-bit rank fields of the data table)", hw.MaxDataRanks))
	}
	if f := d.ItemFlits; f < 1 || f > hw.MaxItemFlits {
		return fieldErr("item_flits", f, fmt.Sprintf("1..%d in the RTL (the transfer engine's flit counter)", hw.MaxItemFlits))
	}
	if n := len(d.Origin); n < 1 || n > hw.MaxItems {
		return fieldErr("items", n, fmt.Sprintf("1..%d in the RTL (16-bit item field)", hw.MaxItems))
	}
	if len(d.RouteItems) != len(tab.OutDst)+1 || len(d.RouteFrom) != len(tab.OutDst) || len(d.RxRoute) != tab.Ranks*tab.Stride() ||
		int(d.RouteItems[len(d.RouteItems)-1]) != len(d.Items) {
		return fmt.Errorf("system %q: the data table does not match the gate tables", sys.Title())
	}
	for i := 1; i < len(d.RouteItems); i++ {
		if d.RouteItems[i] < d.RouteItems[i-1] {
			return fmt.Errorf("system %q: malformed data table (route %d's items)", sys.Title(), i-1)
		}
	}
	for _, ri := range d.RxRoute {
		if ri < -1 || int(ri) >= len(tab.OutDst) {
			return fmt.Errorf("system %q: malformed data table (receive route %d)", sys.Title(), ri)
		}
	}
	return nil
}

// dataNotes describes a data table's words for the file's comments.
func dataNotes(s *design.Episode, node, rank int, body []uint64) (title, notes []string) {
	t := Grid(s.Design)
	if rank < 0 {
		return []string{fmt.Sprintf("data table of node %d %s: no rank", node, coords(t, node))}, []string{"no rank"}
	}
	G := s.Table.Gates
	L := int(uint32(body[0]))
	NR := len(body) - 1 - G - L
	title = []string{fmt.Sprintf("data table of node %d %s: rank %d of %d, %s: %d %s of %d %s, %d item-list %s",
		node, coords(t, node), rank, s.Table.Ranks, s.Sys.Collective, NR, plural(NR, "route", "routes"),
		s.DataTable.ItemFlits, plural(s.DataTable.ItemFlits, "flit", "flits"), L, plural(L, "word", "words"))}
	notes = make([]string, len(body))
	notes[0] = fmt.Sprintf("F=%d flits per item, L=%d item-list words", body[0]>>32, L)
	items := func(w uint64) string {
		n, first := int(w>>dtCountShift&dtField24), int(w&dtField24)
		return fmt.Sprintf("%d %s from item-list word %d", n, plural(n, "item", "items"), first)
	}
	for j := 0; j < NR; j++ {
		w := body[1+j]
		notes[1+j] = fmt.Sprintf("route %d: to rank %d, %s", j, w>>dtRankShift, items(w))
	}
	for g := 2; g <= G+1; g++ {
		w := body[1+NR+g-2]
		if w == 0 {
			notes[1+NR+g-2] = fmt.Sprintf("gate %d: expects no message", g)
		} else {
			notes[1+NR+g-2] = fmt.Sprintf("gate %d: expects rank %d, %s", g, w>>dtRankShift, items(w))
		}
	}
	for n := 0; n < L; n++ {
		w := body[1+NR+G+n]
		notes[1+NR+G+n] = fmt.Sprintf("item-list word %d: item %d, origin rank %d", n, w>>dtItemShift&0xffff, w>>dtOriginShift)
	}
	return title, notes
}
