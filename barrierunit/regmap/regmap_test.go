package regmap_test

import (
	"fmt"
	"reflect"
	"testing"

	"pgregory.net/rapid"

	"github.com/hxbar/hxbar/barrierunit/regmap"
	"github.com/hxbar/hxbar/hw"
	"github.com/hxbar/hxbar/sim"
)

// unit is a tiny model of a unit's configuration port: registers, the
// staging register of the 64-bit table words, and the RAMs.
type unit struct {
	reg   map[uint32]uint32
	stage uint32
	ram   map[uint32]uint64 // 64-bit words by address of their low half
	items map[uint32]uint32
}

func newUnit() *unit {
	return &unit{reg: map[uint32]uint32{}, ram: map[uint32]uint64{}, items: map[uint32]uint32{}}
}

func (u *unit) apply(t interface{ Fatalf(string, ...any) }, p regmap.Program) {
	for _, w := range p {
		switch {
		case w.Addr == regmap.AddrCTRL || w.Addr == regmap.AddrRANK || w.Addr == regmap.AddrITEMF:
			u.reg[w.Addr] = w.Data
		case w.Addr >= regmap.BaseItems:
			u.items[w.Addr] = w.Data
		case w.Addr >= regmap.BaseGates && w.Addr%8 == 0:
			u.stage = w.Data
		case w.Addr >= regmap.BaseGates && w.Addr%8 == 4:
			u.ram[w.Addr-4] = uint64(w.Data)<<32 | uint64(u.stage)
		default:
			t.Fatalf("write to unmapped address %#x", w.Addr)
		}
	}
}

// check reports whether the unit is configured as im: its registers, and
// every word im defines.
func (u *unit) check(im *regmap.Image) error {
	if u.reg[regmap.AddrCTRL] != im.CTRL() || u.reg[regmap.AddrRANK] != im.Rank {
		return fmt.Errorf("CTRL %#x RANK %d, want %#x %d", u.reg[regmap.AddrCTRL], u.reg[regmap.AddrRANK], im.CTRL(), im.Rank)
	}
	if !im.EN {
		return nil
	}
	if im.DMode && u.reg[regmap.AddrITEMF] != im.ItemF {
		return fmt.Errorf("ITEMF %d, want %d", u.reg[regmap.AddrITEMF], im.ItemF)
	}
	word := func(base uint32, i int, want uint64) error {
		a := base + 8*uint32(i)
		if got, ok := u.ram[a]; !ok || got != want {
			return fmt.Errorf("word %#x = %#x (written %v), want %#x", a, got, ok, want)
		}
		return nil
	}
	for g := 1; g <= im.G+1; g++ {
		if err := word(regmap.BaseGates, g, im.Gates[g]); err != nil {
			return err
		}
	}
	for j, w := range im.Routes {
		if err := word(regmap.BaseRoutes, j, w); err != nil {
			return err
		}
	}
	if !im.DMode {
		return nil
	}
	for j, w := range im.DataRoutes {
		if err := word(regmap.BaseDataRoute, j, w); err != nil {
			return err
		}
	}
	for g := 2; g <= im.G+1; g++ {
		if err := word(regmap.BaseExpected, g, im.Expected[g]); err != nil {
			return err
		}
	}
	for n, w := range im.Items {
		if got, ok := u.items[regmap.BaseItems+4*uint32(n)]; !ok || got != w {
			return fmt.Errorf("item %d = %#x, want %#x", n, got, w)
		}
	}
	return nil
}

// genSystem draws a small system running a barrier (any op and algo) or a
// data collective.
func genSystem(t *rapid.T, label string) hw.System {
	s := hw.Default()
	s.Ranks = rapid.IntRange(1, 16).Draw(t, label+"ranks")
	switch rapid.IntRange(0, 2).Draw(t, label+"kind") {
	case 0:
		s.Algo = rapid.SampledFrom(hw.Algorithms).Draw(t, label+"algo")
		s.Op = rapid.SampledFrom(hw.Ops).Draw(t, label+"op")
		if s.Algo == hw.AlgoDissemination && (s.Op == hw.OpSum || s.Op == hw.OpXor) {
			s.Op = hw.OpMax
		}
	case 1:
		s.Collective, s.Algo = hw.CollAllGather, hw.AlgoButterfly
		s.ItemFlits = rapid.IntRange(1, 8).Draw(t, label+"flits")
	case 2:
		s.Collective, s.Algo = hw.CollBroadcast, hw.AlgoButterfly
		s.ItemFlits = rapid.IntRange(1, 8).Draw(t, label+"flits")
	}
	return s
}

func images(t interface{ Fatal(...any) }, s hw.System) []*regmap.Image {
	sys, err := sim.Build(s, nil)
	if err != nil {
		t.Fatal(err)
	}
	tabs := &regmap.Tables{Tab: sys.Table, Data: sys.DataTable, Op: sys.Op, Addr: make(regmap.RankAddr, sys.Table.Ranks)}
	for r, n := range sys.Units.NodeOf {
		tabs.Addr[r] = sys.Topo.Addr(int(n))
	}
	out := make([]*regmap.Image, sys.Topo.Nodes)
	rankOf := map[int]int{}
	for r, n := range sys.Units.NodeOf {
		rankOf[int(n)] = r
	}
	for n := range out {
		r, ok := rankOf[n]
		if !ok {
			r = -1
		}
		if out[n], err = regmap.NodeImage(tabs, r); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// TestProgramsReproduceImages: Full then any sequence of Diffs leaves every
// unit configured as the last image; Diff of identical contents is empty;
// Apply describes what the unit holds (Diff against it is empty).
func TestProgramsReproduceImages(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		first := genSystem(t, "e1.")
		ims := images(t, first)
		units := make([]*unit, len(ims))
		held := make([]*regmap.Image, len(ims))
		for n, im := range ims {
			units[n] = newUnit()
			p := regmap.Full(im)
			units[n].apply(t, p)
			if err := units[n].check(im); err != nil {
				t.Fatalf("node %d after Full: %v", n, err)
			}
			held[n] = regmap.Apply(nil, im)
			if d := regmap.Diff(held[n], im); len(d) != 0 {
				t.Fatalf("node %d: Diff(Apply(nil, x), x) = %v", n, d)
			}
			if d := regmap.Diff(im, im); len(d) != 0 {
				t.Fatalf("node %d: Diff(x, x) = %v", n, d)
			}
		}
		episodes := rapid.IntRange(1, 4).Draw(t, "episodes")
		for e := 2; e <= episodes+1; e++ {
			s := genSystem(t, fmt.Sprintf("e%d.", e))
			s.Ranks = first.Ranks
			next := images(t, s)
			var progs []regmap.Program
			for n, im := range next {
				p := regmap.Diff(held[n], im)
				progs = append(progs, p)
				units[n].apply(t, p)
				if err := units[n].check(im); err != nil {
					t.Fatalf("episode %d node %d after Diff: %v", e, n, err)
				}
				held[n] = regmap.Apply(held[n], im)
				if d := regmap.Diff(held[n], im); len(d) != 0 {
					t.Fatalf("episode %d node %d: Diff after Apply = %v", e, n, d)
				}
				if len(p)%2 != 0 && !im.DMode {
					// Without items every table write comes in pairs; only
					// control registers are single.
					ctrl := 0
					for _, w := range p {
						if w.Addr < regmap.BaseGates {
							ctrl++
						}
					}
					if (len(p)-ctrl)%2 != 0 {
						t.Fatalf("odd table writes: %v", p)
					}
				}
			}
			if c := regmap.Cycles(progs...); c%2 != 0 {
				t.Fatalf("Cycles = %d", c)
			}
		}
	})
}

// TestFullDecodesToTables: the initial program, decoded by the register
// map, gives back the gate table and the data table of every rank.
func TestFullDecodesToTables(t *testing.T) {
	for _, s := range []hw.System{
		func() hw.System { s := hw.Default(); s.Op = "sum"; return s }(),
		func() hw.System { s := hw.Default(); s.Ranks = 12; s.Algo = "dissemination"; s.Op = "max"; return s }(),
		func() hw.System { s := hw.Default(); s.Collective, s.Items, s.ItemFlits = "allgather", 4, 3; return s }(),
	} {
		sys, err := sim.Build(s, nil)
		if err != nil {
			t.Fatal(err)
		}
		ims := images(t, s)
		tab := sys.Table
		for r, n := range sys.Units.NodeOf {
			u := newUnit()
			u.apply(t, regmap.Full(ims[n]))
			ctrl := u.reg[regmap.AddrCTRL]
			G := int(ctrl >> regmap.CtrlGShift & 63)
			if ctrl&regmap.CtrlEN == 0 || G != tab.Gates || int(u.reg[regmap.AddrRANK]) != r ||
				ctrl>>regmap.CtrlOpShift&7 != uint32(sys.Op) || (ctrl&regmap.CtrlDMode != 0) != (sys.DataTable != nil) {
				t.Fatalf("%s rank %d: CTRL %#x RANK %d", s.Collective, r, ctrl, u.reg[regmap.AddrRANK])
			}
			st := tab.Stride()
			var dst []int32
			for g := 1; g <= G+1; g++ {
				w := u.ram[regmap.BaseGates+8*uint32(g)]
				self, need := w>>regmap.GateSelfBit&1 != 0, uint8(w>>regmap.GateNeedShift)
				cnt, start := int(w>>regmap.GateCountShift&0xffff), int(w&0xffff)
				if g >= 2 && (self != tab.Self[r*st+g] || need != tab.Need[r*st+g]) {
					t.Fatalf("rank %d gate %d: self %v need %d", r, g, self, need)
				}
				if cnt != int(tab.OutEnd[r*st+g]-tab.OutStart[r*st+g]) || start != len(dst) {
					t.Fatalf("rank %d gate %d: %d routes from %d", r, g, cnt, start)
				}
				for j := start; j < start+cnt; j++ {
					rw := u.ram[regmap.BaseRoutes+8*uint32(j)]
					d := int32(rw >> regmap.RouteRankShift)
					if uint64(uint32(rw)) != sys.Topo.Addr(int(sys.Units.NodeOf[d])) {
						t.Fatalf("rank %d route %d: address %#x", r, j, uint32(rw))
					}
					dst = append(dst, d)
				}
			}
			if want := tab.OutDst[tab.OutStart[r*st+1]:tab.OutEnd[r*st+G]]; !reflect.DeepEqual(dst, want) && len(want) > 0 {
				t.Fatalf("rank %d routes %v, want %v", r, dst, want)
			}
			if d := sys.DataTable; d != nil {
				if u.reg[regmap.AddrITEMF] != uint32(d.ItemFlits) {
					t.Fatalf("ITEMF %d", u.reg[regmap.AddrITEMF])
				}
				for j := range dst {
					i := int(tab.OutStart[r*st+1]) + j
					w := u.ram[regmap.BaseDataRoute+8*uint32(j)]
					cnt, first := int(w>>regmap.DataCountShift&regmap.DataField24), int(w&regmap.DataField24)
					for k := 0; k < cnt; k++ {
						iw := u.items[regmap.BaseItems+4*uint32(first+k)]
						item := d.Items[int(d.RouteItems[i])+k]
						if int32(iw&0xffff) != item || int32(iw>>regmap.ItemOriginPos) != d.Origin[item] {
							t.Fatalf("rank %d route %d item %d: word %#x", r, j, k, iw)
						}
					}
				}
				for g := 2; g <= G+1; g++ {
					w := u.ram[regmap.BaseExpected+8*uint32(g)]
					ri := d.RxRoute[r*st+g]
					if (ri < 0) != (w == 0) || ri >= 0 && int32(w>>regmap.DataRankShift) != d.RouteFrom[ri] {
						t.Fatalf("rank %d gate %d: expected word %#x, route %d", r, g, w, ri)
					}
				}
			}
		}
	}
}

func TestFabricProgram(t *testing.T) {
	p := regmap.FabricProgram([][]uint8{{0xff, 1}, {0, 1}})
	want := regmap.Program{{0x1000, 0xff}, {0x1004, 1}, {0x1_1000, 0}, {0x1_1004, 1}}
	if !reflect.DeepEqual(p, want) {
		t.Fatalf("FabricProgram = %v", p)
	}
	if regmap.Cycles() != 0 || regmap.Cycles(p, p[:1]) != 8 {
		t.Fatal("Cycles")
	}
}

func tablesOf(t *testing.T, s hw.System) (*regmap.Tables, []int) {
	sys, err := sim.Build(s, nil)
	if err != nil {
		t.Fatal(err)
	}
	tabs := &regmap.Tables{Tab: sys.Table, Data: sys.DataTable, Op: sys.Op, Addr: make(regmap.RankAddr, sys.Table.Ranks)}
	rankOf := make([]int, sys.Topo.Nodes)
	for n := range rankOf {
		rankOf[n] = -1
	}
	for r, n := range sys.Units.NodeOf {
		tabs.Addr[r] = sys.Topo.Addr(int(n))
		rankOf[n] = r
	}
	return tabs, rankOf
}

// TestConfig: Config's programs, replayed on every node, configure it as
// each episode's image; a node without a rank gets CTRL and RANK once;
// Cycles agrees with Programs; returning to earlier tables rewrites only
// what the episode between changed.
func TestConfig(t *testing.T) {
	a := hw.Default()
	a.Ranks, a.Op = 12, "sum"
	b := a
	b.Collective, b.Op, b.ItemFlits = "allgather", "barrier", 3
	c := a
	c.Algo, c.Op = "dissemination", "max"
	var cfg, cfg2 *regmap.Config
	var units []*unit
	for i, s := range []hw.System{a, b, a, c, c} {
		tabs, rankOf := tablesOf(t, s)
		if cfg == nil {
			cfg, cfg2 = &regmap.Config{RankOf: rankOf}, &regmap.Config{RankOf: rankOf}
			for range rankOf {
				units = append(units, newUnit())
			}
		}
		progs, err := cfg.Programs(tabs)
		if err != nil {
			t.Fatal(err)
		}
		cyc, err := cfg2.Cycles(tabs)
		if err != nil || cyc != regmap.Cycles(progs...) {
			t.Fatalf("episode %d: Cycles %d, %v; programs take %d", i+1, cyc, err, regmap.Cycles(progs...))
		}
		if i == 4 && cyc != 0 {
			t.Fatalf("same tables again: %d cycles", cyc)
		}
		if i > 0 && i < 4 && cyc == 0 {
			t.Fatalf("episode %d: new tables, no writes", i+1)
		}
		for n, p := range progs {
			units[n].apply(t, p)
			im, err := regmap.NodeImage(tabs, rankOf[n])
			if err != nil {
				t.Fatal(err)
			}
			if err := units[n].check(im); err != nil {
				t.Fatalf("episode %d node %d: %v", i+1, n, err)
			}
			if rankOf[n] < 0 && (i == 0 && !reflect.DeepEqual(p, regmap.Program{{regmap.AddrCTRL, 0}, {regmap.AddrRANK, 0}}) || i > 0 && len(p) != 0) {
				t.Fatalf("episode %d: node %d without a rank gets %v", i+1, n, p)
			}
		}
	}
}
