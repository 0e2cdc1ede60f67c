// Package regmap is the configuration port of docs/registers.md in Go: the
// register map of a barrier unit and of a switch, the encoding of every
// table word, and the configuration programs (lists of 32-bit APB writes)
// that load a unit's tables before cycle 0 (Full) and rewrite what changes
// between two episodes (Diff), with the cycles they take (Cycles).
//
// It is the single source of the table word encodings: the Verilog
// generator's .hex bodies (package verilog) are built from GateWords and
// DataWords, so a table file and a program can never disagree. It imports
// hw and barrierunit only; sim and verilog import it.
package regmap

import (
	"fmt"

	"github.com/hxbar/hxbar/barrierunit"
	"github.com/hxbar/hxbar/hw"
)

// Barrier unit register addresses (docs/registers.md, "Barrier unit").
const (
	AddrID     = 0x0000_0000
	AddrCAPS   = 0x0000_0004
	AddrCTRL   = 0x0000_0008
	AddrRANK   = 0x0000_000C
	AddrITEMF  = 0x0000_0010
	AddrSTATUS = 0x0000_0014
	AddrERRSRC = 0x0000_0018
	// AddrWATCHDOG: cycles a unit in WAIT may go without progress before
	// it raises TIMEOUT (0: off; docs/reliability.md, "Detection").
	AddrWATCHDOG = 0x0000_001C
	// Software control (docs/registers.md, "Software control"), taken in
	// every state: ABORT (a write aborts the episode), IRQ_STATUS (write 1
	// to clear), IRQ_ENABLE. No configuration program writes them.
	AddrABORT     = 0x0000_0020
	AddrIRQStatus = 0x0000_0024
	AddrIRQEnable = 0x0000_0028

	// Table regions: 64-bit word i at base + 8i (low half at +0, high half
	// at +4), item-list word n (32 bits) at BaseItems + 4n.
	BaseGates     = 0x1000_0000
	BaseRoutes    = 0x2000_0000
	BaseDataRoute = 0x3000_0000
	BaseExpected  = 0x4000_0000
	BaseItems     = 0x5000_0000

	// IDUnit, IDSwitch and IDRouter are the ID registers' values
	// ("HXBU", "HXSW", "HXRT").
	IDUnit   = 0x48584255
	IDSwitch = 0x48585357
	IDRouter = 0x48585254
)

// CTRL fields.
const (
	CtrlEN      = 1 << 0
	CtrlOpShift = 1 // bits 3..1
	CtrlDMode   = 1 << 4
	CtrlGShift  = 8 // bits 13..8
)

// Switch registers: routing-table entry e at SwitchEntry + 4e of a switch;
// on hx_top's fabric port, switch s's address a is s<<16 | a; on node n's
// port, the node's exchanger (switch n) is at NodeExchanger | a.
const (
	SwitchID    = 0x0000
	SwitchCAPS  = 0x0004
	SwitchEntry = 0x1000

	// Routing exceptions (a switch built with E > 0): EXC reads E; entry
	// x's address word is at SwitchExcept + 8x, its control word
	// (ExceptValid | port) at SwitchExcept + 8x + 4.
	SwitchEXC    = 0x0008
	SwitchExcept = 0x2000
	ExceptValid  = 1 << 8
	MaxExcept    = 1024 // entries the region 0x2000..0x3FFF holds

	// DROPS (every switch): the illegal-flit counters, 7..0 out-of-grid
	// heads, 15..8 orphans, 23..16 cuts, 31..24 flits dropped (noc.
	// DropCounts.Register); a write clears them.
	SwitchDROPS = 0x000C

	NodeExchanger = 0x8000_0000
)

// Torus router registers (hx_router, at NodeExchanger | a on its node's
// port; docs/registers.md, "Torus router"): ADDR the router's own packed
// address; PLUS(k), the direction of every destination coordinate of
// dimension k (bit c: +), in two words at RouterPlus + 8k (bits 31..0)
// and + 4 (bits 63..32).
const (
	RouterID   = 0x0000
	RouterCAPS = 0x0004
	RouterAddr = 0x0008
	RouterPlus = 0x1000
)

// RouterProgram is the part of a torus node's initial program that
// configures its router through the node's port: ADDR, then each
// dimension's PLUS (its upper word only for a dimension of more than 32).
func RouterProgram(addr uint32, dims []int, plus []uint64) Program {
	p := Program{{NodeExchanger | RouterAddr, addr}}
	for k, m := range plus {
		a := NodeExchanger | RouterPlus + 8*uint32(k)
		p = append(p, Write{a, uint32(m)})
		if dims[k] > 32 {
			p = append(p, Write{a + 4, uint32(m >> 32)})
		}
	}
	return p
}

// Gate-table word fields (docs/tables.md, "Gate table"; registers.md).
const (
	GateSelfBit    = 40 // bit 40
	GateNeedShift  = 32 // bits 39..32
	GateCountShift = 16 // bits 31..16
	// GateSrcShift: bits 63..48, the gate's first source (the lowest rank
	// with a route into it), written when the watchdog is on: the source
	// TIMEOUT names (docs/registers.md).
	GateSrcShift   = 48
	RouteRankShift = 32 // route word: bits 63..32 rank, 31..0 address
)

// Data-table word fields (docs/transfers.md, "Data table file").
const (
	DataRankShift  = 48 // bits 63..48
	DataCountShift = 24 // bits 47..24
	DataField24    = 1<<24 - 1
	ItemOriginPos  = 16 // item-list word (32 bits): 31..16 origin, 15..0 item
	// MaxItemList bounds the item-list words of one unit (24-bit index).
	MaxItemList = 1<<24 - 1
)

// Write is one APB write: a 32-bit word to a byte address. It costs 2
// cycles (setup and access).
type Write struct {
	Addr uint32 `json:"addr"`
	Data uint32 `json:"data"`
}

// Program is a configuration program: writes in order, on one port.
type Program []Write

// Cycles is the bus cycles the programs take when their ports work in
// parallel: 2 per write of the longest (0 for none).
func Cycles(programs ...Program) int64 {
	n := 0
	for _, p := range programs {
		n = max(n, len(p))
	}
	return 2 * int64(n)
}

// Image is one barrier unit's configuration: its control registers and
// table words (docs/registers.md). Gates is indexed by gate 1..G+1 and
// Expected by gate 2..G+1 (lower entries unused); Routes, DataRoutes and
// Items from 0. The data regions are empty unless DMode.
//
// An Image is also what a unit holds after programs were written to it
// (Apply): then a region may be longer than G needs (words an earlier
// episode wrote stay in the RAM), and ITEMF may be known outside data mode.
type Image struct {
	EN    bool
	Op    barrierunit.Op
	DMode bool
	G     int
	Rank  uint32
	ItemF uint32 // flits per item (data mode)
	// Watchdog is the WATCHDOG register (0: off; then it is not written).
	Watchdog uint32

	Gates      []uint64
	Routes     []uint64
	DataRoutes []uint64
	Expected   []uint64
	Items      []uint32

	// itemFSet: ITEMF holds a written value (an image of a data episode,
	// or a unit that ran one).
	itemFSet bool
}

// CTRL is the value of the CTRL register.
func (im *Image) CTRL() uint32 {
	var v uint32
	if im.EN {
		v |= CtrlEN
	}
	v |= uint32(im.Op) << CtrlOpShift
	if im.DMode {
		v |= CtrlDMode
	}
	return v | uint32(im.G)<<CtrlGShift
}

// RankAddr is what a unit needs to know of the network: the packed address
// of every rank's node (docs/microarchitecture.md, "Topology").
type RankAddr []uint64

// ExchangerProgram is the part of a node's initial program that writes its
// exchanger's routing table through the node's port: entry e at
// NodeExchanger | SwitchEntry+4e.
func ExchangerProgram(table []uint8) Program {
	p := make(Program, 0, len(table))
	for e, v := range table {
		p = append(p, Write{NodeExchanger | SwitchEntry + 4*uint32(e), uint32(v)})
	}
	return p
}

// Exception is one routing exception of a switch: a head flit whose
// destination address is Addr leaves by Port (docs/reliability.md,
// "Routing around a dead channel").
type Exception struct {
	Addr uint32
	Port uint8
}

// ExceptionProgram writes a switch's exceptions into its entries 0, 1, ...
// at base | SwitchExcept + 8x: the address word, then the control word
// with ExceptValid (the entry is valid only once its address is written).
// base is NodeExchanger on a node's port, s<<16 on the fabric port.
func ExceptionProgram(base uint32, ex []Exception) Program {
	p := make(Program, 0, 2*len(ex))
	for x, e := range ex {
		a := base | SwitchExcept + 8*uint32(x)
		p = append(p, Write{a, e.Addr}, Write{a + 4, ExceptValid | uint32(e.Port)})
	}
	return p
}

// Tables are the tables of one episode: the gate tables, the data table
// (nil for a barrier), the op, and where the ranks are.
type Tables struct {
	Tab  *barrierunit.FlatTable
	Data *barrierunit.DataTable
	Op   barrierunit.Op
	Addr RankAddr // rank -> address of its node
	// Watchdog is the units' WATCHDOG value (0: off). When on, every gate
	// word also carries the gate's first source (GateSrcShift).
	Watchdog uint32
}

// NodeImage is the image of the unit hosting rank r (r < 0: a node
// without a rank, EN = 0 and empty tables).
func NodeImage(t *Tables, r int) (*Image, error) {
	if r < 0 {
		return &Image{}, nil
	}
	gates, routes, err := GateWords(t.Tab, r, t.Addr)
	if err != nil {
		return nil, err
	}
	im := &Image{EN: true, Op: t.Op, G: t.Tab.Gates, Rank: uint32(r), Gates: gates, Routes: routes, Watchdog: t.Watchdog}
	if t.Watchdog != 0 {
		for g, src := range FirstSources(t.Tab, r) {
			if src > 1<<(64-GateSrcShift)-1 {
				return nil, fieldErr("watchdog", t.Watchdog, fmt.Sprintf("0 (off) for %d ranks: the gate word's first-source field has %d bits", t.Tab.Ranks, 64-GateSrcShift))
			}
			if g >= 2 && src >= 0 {
				gates[g] |= uint64(src) << GateSrcShift
			}
		}
	}
	if t.Data != nil {
		im.DMode, im.ItemF, im.itemFSet = true, uint32(t.Data.ItemFlits), true
		if im.DataRoutes, im.Expected, im.Items, err = DataWords(t.Tab, t.Data, r); err != nil {
			return nil, err
		}
	}
	return im, nil
}

// FirstSources returns, for every gate g = 0..G+1 of rank r, the lowest
// rank with a route into (r, g), or -1 when none has: the source a unit's
// TIMEOUT names for the gate it waits at (docs/reliability.md,
// "Detection").
func FirstSources(tab *barrierunit.FlatTable, r int) []int {
	st := tab.Stride()
	out := make([]int, tab.Gates+2)
	for g := range out {
		out[g] = -1
	}
	for src := 0; src < tab.Ranks; src++ {
		for g := 1; g <= tab.Gates; g++ {
			for i := tab.OutStart[src*st+g]; i < tab.OutEnd[src*st+g]; i++ {
				if int(tab.OutDst[i]) == r && out[g+1] < 0 {
					out[g+1] = src
				}
			}
		}
	}
	return out
}

func fieldErr(field string, value any, allowed string) error {
	return &hw.FieldError{Field: field, Value: value, Allowed: allowed}
}

// GateWords encodes rank r's gate table: gates[g] for g = 1..G+1 (gates[0]
// unused, 0) and its route words. The route lists of gates 1..G follow
// each other in gate order, each in schedule order (the order of
// tab.OutDst); an empty list gets the running index as its start
// (docs/tables.md). addr[d] is the address of rank d's node. Errors name
// what does not fit the RTL's fields.
func GateWords(tab *barrierunit.FlatTable, r int, addr RankAddr) (gates, routes []uint64, err error) {
	G := tab.Gates
	st := tab.Stride()
	base := r * st
	nr := 0
	for g := 1; g <= G+1; g++ {
		nr += int(tab.OutEnd[base+g] - tab.OutStart[base+g])
	}
	gates = make([]uint64, G+2)
	routes = make([]uint64, 0, max(nr, 0))
	for g := 1; g <= G+1; g++ {
		lo, hi := int(tab.OutStart[base+g]), int(tab.OutEnd[base+g])
		cnt := hi - lo
		start := len(routes)
		if cnt < 0 || lo < 0 || hi > len(tab.OutDst) {
			return nil, nil, fmt.Errorf("invalid schedule: rank %d gate %d: route list %d..%d outside the %d routes", r, g, lo, hi, len(tab.OutDst))
		}
		if g == G+1 && cnt != 0 {
			return nil, nil, fmt.Errorf("invalid schedule: rank %d: %d routes leave the end gate %d (allowed: none)", r, cnt, g)
		}
		if cnt > hw.MaxRouteIndex || start > hw.MaxRouteIndex {
			return nil, nil, fieldErr("routes", fmt.Sprintf("rank %d gate %d: %d routes from route index %d", r, g, cnt, start),
				fmt.Sprintf("route count and route list index 0..%d per rank (16-bit fields of the RTL gate table)", hw.MaxRouteIndex))
		}
		var self bool
		var need uint64
		if g >= 2 {
			self = tab.Self[base+g]
			need = uint64(tab.Need[base+g])
		} else if tab.Self[base+g] || tab.Need[base+g] != 0 {
			return nil, nil, fmt.Errorf("invalid schedule: rank %d: routes arrive at gate 1 (allowed: none, gate 1 is the arrival gate)", r)
		}
		if need > hw.MaxNeed {
			return nil, nil, fieldErr("routes", fmt.Sprintf("rank %d gate %d: %d routes arrive", r, g, need), fmt.Sprintf("0..%d per gate (8-bit RTL receive counter)", hw.MaxNeed))
		}
		w := need<<GateNeedShift | uint64(cnt)<<GateCountShift | uint64(start)
		if self {
			w |= 1 << GateSelfBit
		}
		gates[g] = w
		for _, d := range tab.OutDst[lo:hi] {
			if d < 0 || int(d) >= len(addr) {
				return nil, nil, fmt.Errorf("invalid schedule: rank %d gate %d: route to rank %d (allowed: 0..%d)", r, g, d, len(addr)-1)
			}
			routes = append(routes, uint64(uint32(d))<<RouteRankShift|addr[d])
		}
	}
	return gates, routes, nil
}

// DataWords encodes rank r's data table (docs/transfers.md): a word per
// route (in the gate table's route order), expected[g] per gate g = 2..G+1
// (0: no message; entries 0 and 1 unused) and the item list, one 32-bit
// word per item (origin << 16 | item), the routes' items route by route,
// then the expected items gate by gate.
func DataWords(tab *barrierunit.FlatTable, d *barrierunit.DataTable, r int) (routes, expected []uint64, items []uint32, err error) {
	G := tab.Gates
	st := tab.Stride()
	base := r * st
	expected = make([]uint64, G+2)
	addItems := func(its []int32) (int, error) {
		first := len(items)
		for _, it := range its {
			if it < 0 || int(it) >= len(d.Origin) {
				return 0, fmt.Errorf("invalid data table: item %d (allowed: 0..%d)", it, len(d.Origin)-1)
			}
			items = append(items, uint32(uint16(d.Origin[it]))<<ItemOriginPos|uint32(uint16(it)))
		}
		if len(items) > MaxItemList {
			return 0, fieldErr("items", fmt.Sprintf("rank %d: %d item-list words", r, len(items)),
				fmt.Sprintf("at most %d per rank (24-bit item index of the RTL data table)", MaxItemList))
		}
		return first, nil
	}
	msg := func(rank int32, its []int32) (uint64, error) {
		first, err := addItems(its)
		if err != nil {
			return 0, err
		}
		return uint64(uint16(rank))<<DataRankShift | uint64(len(its))<<DataCountShift | uint64(first), nil
	}
	for g := 1; g <= G+1; g++ {
		for i := tab.OutStart[base+g]; i < tab.OutEnd[base+g]; i++ {
			its := d.Items[d.RouteItems[i]:d.RouteItems[i+1]]
			if len(its) == 0 {
				return nil, nil, nil, fmt.Errorf("invalid data table: rank %d gate %d: route %d to rank %d carries no item", r, g, i, tab.OutDst[i])
			}
			w, err := msg(tab.OutDst[i], its)
			if err != nil {
				return nil, nil, nil, err
			}
			routes = append(routes, w)
		}
	}
	for g := 2; g <= G+1; g++ {
		ri := d.RxRoute[base+g]
		need := tab.Need[base+g]
		if ri < 0 {
			if need != 0 {
				return nil, nil, nil, fmt.Errorf("invalid data table: rank %d gate %d needs %d messages and expects none", r, g, need)
			}
			continue
		}
		if need != 1 {
			return nil, nil, nil, fmt.Errorf("invalid data table: rank %d gate %d expects one message, its need is %d", r, g, need)
		}
		w, err := msg(d.RouteFrom[ri], d.Items[d.RouteItems[ri]:d.RouteItems[ri+1]])
		if err != nil {
			return nil, nil, nil, err
		}
		expected[g] = w
	}
	return routes, expected, items, nil
}

// appendWord appends the two writes of 64-bit table word w at addr: the
// low half at +0 (staged), then the high half at +4 (writes the RAM).
func appendWord(p Program, addr uint32, w uint64) Program {
	return append(p, Write{addr, uint32(w)}, Write{addr + 4, uint32(w >> 32)})
}

// Full is the initial program of a unit (docs/registers.md, "Configuration
// programs"): CTRL, RANK, ITEMF (data mode only), WATCHDOG (when on), then every word of its
// tables, region by region in ascending index.
func Full(im *Image) Program {
	p := Program{{AddrCTRL, im.CTRL()}, {AddrRANK, im.Rank}}
	if im.DMode {
		p = append(p, Write{AddrITEMF, im.ItemF})
	}
	if im.Watchdog != 0 {
		p = append(p, Write{AddrWATCHDOG, im.Watchdog})
	}
	return diffWords(p, nil, im)
}

// Diff is the program that turns a unit holding prev (the image it was
// loaded with, or Apply's result after later programs) into one configured
// as next: the control registers whose value changes (CTRL, RANK, then
// ITEMF in data mode, then WATCHDOG), then every table word of next that differs from the
// word the unit holds, or that it has never been written: a 64-bit word as
// two writes, an item-list word as one, in the order gates, routes, data
// routes, expected messages, items, each in ascending index. Words past
// next's tables are not written. Diff(x, x) is empty.
func Diff(prev, next *Image) Program {
	var p Program
	if prev.CTRL() != next.CTRL() {
		p = append(p, Write{AddrCTRL, next.CTRL()})
	}
	if prev.Rank != next.Rank {
		p = append(p, Write{AddrRANK, next.Rank})
	}
	if next.DMode && (!prev.itemFSet || prev.ItemF != next.ItemF) {
		p = append(p, Write{AddrITEMF, next.ItemF})
	}
	if prev.Watchdog != next.Watchdog {
		p = append(p, Write{AddrWATCHDOG, next.Watchdog})
	}
	return diffWords(p, prev, next)
}

// gateRange and expectedRange are the index ranges [lo, hi) of a region's words an image
// defines: gates 1..G+1, expected 2..G+1 (data mode), others all.
func gateRange(im *Image) (int, int)     { return 1, im.G + 2 }
func expectedRange(im *Image) (int, int) { return 2, im.G + 2 }

func diffRegion(p Program, base uint32, lo, hi int, old, cur []uint64) Program {
	for i := lo; i < hi; i++ {
		if i < len(old) && old[i] == cur[i] {
			continue
		}
		p = appendWord(p, base+8*uint32(i), cur[i])
	}
	return p
}

// diffWords appends the table writes of next against prev (nil: none
// written yet).
func diffWords(p Program, prev, next *Image) Program {
	var old Image
	if prev != nil {
		old = *prev
	}
	if !next.EN {
		return p
	}
	lo, hi := gateRange(next)
	p = diffRegion(p, BaseGates, lo, hi, old.Gates, next.Gates)
	p = diffRegion(p, BaseRoutes, 0, len(next.Routes), old.Routes, next.Routes)
	if !next.DMode {
		return p
	}
	p = diffRegion(p, BaseDataRoute, 0, len(next.DataRoutes), old.DataRoutes, next.DataRoutes)
	lo, hi = expectedRange(next)
	p = diffRegion(p, BaseExpected, lo, hi, old.Expected, next.Expected)
	for n, w := range next.Items {
		if n < len(old.Items) && old.Items[n] == w {
			continue
		}
		p = append(p, Write{BaseItems + 4*uint32(n), w})
	}
	return p
}

// overlay returns old with cur's words [lo, hi) written over it.
func overlay[T uint64 | uint32](old, cur []T, lo, hi int) []T {
	out := make([]T, max(len(old), hi))
	copy(out, old)
	copy(out[lo:hi], cur[lo:hi])
	return out
}

// Apply is what a unit holds after Diff(prev, next) (or Full(next), for a
// nil prev) was written to it: next's registers and words, and prev's words
// past next's tables (a RAM keeps them).
func Apply(prev, next *Image) *Image {
	var old Image
	if prev != nil {
		old = *prev
	}
	out := *next
	out.itemFSet = old.itemFSet || next.DMode
	if !next.DMode && old.itemFSet {
		out.ItemF = old.ItemF
	}
	if !next.EN {
		out.Gates, out.Routes, out.DataRoutes, out.Expected, out.Items = old.Gates, old.Routes, old.DataRoutes, old.Expected, old.Items
		return &out
	}
	lo, hi := gateRange(next)
	out.Gates = overlay(old.Gates, next.Gates, lo, hi)
	out.Routes = overlay(old.Routes, next.Routes, 0, len(next.Routes))
	out.DataRoutes, out.Expected, out.Items = old.DataRoutes, old.Expected, old.Items
	if next.DMode {
		out.DataRoutes = overlay(old.DataRoutes, next.DataRoutes, 0, len(next.DataRoutes))
		lo, hi = expectedRange(next)
		out.Expected = overlay(old.Expected, next.Expected, lo, hi)
		out.Items = overlay(old.Items, next.Items, 0, len(next.Items))
	}
	return &out
}

// FabricProgram is the initial program of the fabric port: every entry of
// every switch's routing table (tables[s][e] at s<<16 | SwitchEntry+4e),
// switch by switch (a nil table: none, e.g. an exchanger its node's port
// writes; see ExchangerProgram).
func FabricProgram(tables [][]uint8) Program {
	var p Program
	for s, t := range tables {
		for e, v := range t {
			p = append(p, Write{uint32(s)<<16 | SwitchEntry + 4*uint32(e), uint32(v)})
		}
	}
	return p
}

// Config follows every unit of a system through the episodes of a run and
// makes each episode's programs: the first call of Programs (or Cycles)
// gives every node's Full program, each later call the Diff of what the
// node's unit holds (every word written since, not just the previous
// episode's) and the episode's image. The RTL testbench replays the
// programs; the model counts their cycles (docs/microarchitecture.md,
// "Episodes"). Nodes are numbered as in the network; RankOf[n] is the rank
// node n hosts, or -1.
type Config struct {
	RankOf []int
	held   []*Image // by node; nil before the first episode
}

// step computes every node's program for tables t, hands it to each, and
// records what the units hold afterwards.
func (c *Config) step(t *Tables, each func(node int, p Program)) error {
	first := c.held == nil
	if first {
		c.held = make([]*Image, len(c.RankOf))
	}
	for n, r := range c.RankOf {
		im, err := NodeImage(t, r)
		if err != nil {
			return fmt.Errorf("node %d: %w", n, err)
		}
		var p Program
		if first {
			p = Full(im)
		} else {
			p = Diff(c.held[n], im)
		}
		each(n, p)
		c.held[n] = Apply(c.held[n], im)
	}
	return nil
}

// Programs returns every node's program for the next episode, whose tables
// are t.
func (c *Config) Programs(t *Tables) ([]Program, error) {
	out := make([]Program, len(c.RankOf))
	err := c.step(t, func(n int, p Program) { out[n] = p })
	return out, err
}

// Cycles is Cycles(Programs(t)...) without keeping the programs.
func (c *Config) Cycles(t *Tables) (int64, error) {
	longest := 0
	err := c.step(t, func(_ int, p Program) { longest = max(longest, len(p)) })
	return 2 * int64(longest), err
}
