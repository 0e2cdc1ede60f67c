package verilog

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hxbar/hxbar/barrierunit"
	"github.com/hxbar/hxbar/design"
	"github.com/hxbar/hxbar/hw"
	"github.com/hxbar/hxbar/sim"
)

// dataTestSystem is a data collective for the generator tests (items 0:
// the collective's default).
func dataTestSystem(name string, dims []int, ranks int, coll hw.Collective, items, flits int, mod func(*hw.System)) hw.System {
	return testSystem(name, dims, func(s *hw.System) {
		s.Ranks, s.Collective, s.Items, s.ItemFlits = ranks, coll, items, flits
		if mod != nil {
			mod(s)
		}
	})
}

func dataSystems() []hw.System {
	return []hw.System{
		dataTestSystem("ag-line4", []int{4}, 4, "allgather", 0, 2, nil),
		dataTestSystem("ag-grid4x4-items4-OMOM", []int{4, 4}, 16, "allgather", 4, 3, func(s *hw.System) { s.Order = "OMOM" }),
		dataTestSystem("ag-grid4x4-r12-general", []int{4, 4}, 12, "allgather", 3, 1, nil),
		dataTestSystem("bcast-cube2-root3", []int{2, 2, 2}, 8, "broadcast", 0, 5, func(s *hw.System) { s.ItemPlace = []int{3} }),
		dataTestSystem("ag-grid3x3-placed", []int{3, 3}, 4, "allgather", 0, 1, func(s *hw.System) {
			s.Placement = []int{8, 0, 4, 2}
			s.Algo = "butterfly-near-first"
		}),
	}
}

// checkDataGolden decodes every data table and compares it with the model's
// DataTable: each route of the gate table carries the model route's items
// (with their origins), each gate expects the model's one message.
func checkDataGolden(t *testing.T, s *sim.System, dir string, m *Manifest) {
	t.Helper()
	tab, d := s.Table, s.DataTable
	if !m.Data || len(m.DataTables) != s.Topo.Nodes || m.ItemFlits != d.ItemFlits || m.Items != len(d.Origin) {
		t.Fatalf("manifest: data %v, %d data tables, F %d, items %d", m.Data, len(m.DataTables), m.ItemFlits, m.Items)
	}
	rankOf := map[int]int{}
	for r, n := range s.Units.NodeOf {
		rankOf[int(n)] = r
	}
	items := func(list []int32) []DataItem {
		out := make([]DataItem, len(list))
		for i, it := range list {
			out[i] = DataItem{Origin: int(d.Origin[it]), Item: int(it)}
		}
		return out
	}
	st := tab.Stride()
	for n := 0; n < s.Topo.Nodes; n++ {
		_, gb, err := ReadTable(filepath.Join(dir, GateTableFile(n)))
		if err != nil {
			t.Fatal(err)
		}
		gt, err := DecodeGateTable(gb)
		if err != nil {
			t.Fatal(err)
		}
		magic, body, err := ReadTable(filepath.Join(dir, m.DataTables[n]))
		if err != nil || magic != MagicData {
			t.Fatalf("node %d: %q %v", n, magic, err)
		}
		dt, err := DecodeDataTable(body, gt)
		if err != nil {
			t.Fatalf("node %d: %v", n, err)
		}
		r, has := rankOf[n]
		if !has {
			if dt.Rank != -1 {
				t.Errorf("node %d hosts no rank, its data table is %x", n, body)
			}
			continue
		}
		if dt.ItemFlits != d.ItemFlits {
			t.Errorf("node %d: F = %d, model %d", n, dt.ItemFlits, d.ItemFlits)
		}
		j := 0
		for g := 1; g <= tab.Gates+1; g++ {
			for i := tab.OutStart[r*st+g]; i < tab.OutEnd[r*st+g]; i++ {
				want := items(d.Items[d.RouteItems[i]:d.RouteItems[i+1]])
				if got := dt.RouteItems(j); !slices.Equal(got, want) || dt.Routes[j].Rank != int(tab.OutDst[i]) {
					t.Errorf("node %d rank %d route %d: to %d items %v, model to %d items %v", n, r, j, dt.Routes[j].Rank, got, tab.OutDst[i], want)
				}
				j++
			}
		}
		for g := 2; g <= tab.Gates+1; g++ {
			ri := d.RxRoute[r*st+g]
			var want []DataItem
			from := 0
			if ri >= 0 {
				want = items(d.Items[d.RouteItems[ri]:d.RouteItems[ri+1]])
				from = int(d.RouteFrom[ri])
			}
			if got := dt.GateItems(g); !slices.Equal(got, want) || dt.Gates[g].Rank != from {
				t.Errorf("node %d rank %d gate %d: from %d items %v, model from %d items %v", n, r, g, dt.Gates[g].Rank, got, from, want)
			}
		}
	}
}

func TestGenerateData(t *testing.T) {
	for _, sys := range dataSystems() {
		t.Run(sys.Name, func(t *testing.T) {
			s := build(t, sys, nil)
			if s.Data == nil {
				t.Fatal("not a data system")
			}
			dir, m := generate(t, s)
			checkGolden(t, s, dir, m)
			checkManifest(t, s, dir, m)
			checkDataGolden(t, s, dir, m)
			top, _ := os.ReadFile(filepath.Join(dir, TopFile))
			for n := 0; n < s.Topo.Nodes; n++ {
				body, err := DataTableBody(s.Design, n)
				if err != nil {
					t.Fatal(err)
				}
				// The RAM depths: gates (MAXG), routes (NRT), item-list
				// words (NIL), from the tables (1 for a node without a rank).
				gate, err := GateTableBody(s.Design, n)
				if err != nil {
					t.Fatal(err)
				}
				maxg, nrt, nil_ := 1, 1, 1
				gt, err := DecodeGateTable(gate)
				if err != nil {
					t.Fatal(err)
				}
				if gt.Rank >= 0 {
					dt, err := DecodeDataTable(body, gt)
					if err != nil {
						t.Fatal(err)
					}
					maxg, nrt, nil_ = max(1, gt.Gates), max(1, len(gt.Routes)), max(1, len(dt.Items))
				}
				inst := fmt.Sprintf("hx_tile #(.MAXG(%d), .NRT(%d), .DATA(1), .NIL(%d),\n              .FW(FW), .CB(CB), .CRC_POLY(CRC_POLY), .B(B), .AB(AB), .RB(RB),\n              .NDIM(NDIM), .K0(K0), .K1(K1), .K2(K2), .K3(K3), .K4(K4), .K5(K5), .L(L)) tile%d (", maxg, nrt, nil_, n)
				if !bytes.Contains(top, []byte(inst)) {
					t.Errorf("hx_top.v lacks %q", inst)
				}
			}
			params, _ := os.ReadFile(filepath.Join(dir, ParamsFile))
			for _, d := range []string{"`define HX_DATA    1 ", fmt.Sprintf("`define HX_IF      %d ", sys.ItemFlits),
				fmt.Sprintf("`define HX_ITEMS   %d ", sys.NumItems())} {
				if !strings.Contains(string(params), d) {
					t.Errorf("hx_params.vh lacks %q:\n%s", d, params)
				}
			}
		})
	}
	// A barrier keeps DATA = 0: no data tables, every unit without a data engine.
	s := build(t, goldenSystems()[0], nil)
	dir, m := generate(t, s)
	top, _ := os.ReadFile(filepath.Join(dir, TopFile))
	params, _ := os.ReadFile(filepath.Join(dir, ParamsFile))
	if m.Data || m.DataTables != nil || !bytes.Contains(top, []byte(".DATA(0)")) || bytes.Contains(top, []byte(".DATA(1)")) || !bytes.Contains(params, []byte("`define HX_DATA    0 ")) {
		t.Errorf("barrier system: manifest data %v %v, top has DATA(1) %v", m.Data, m.DataTables, bytes.Contains(top, []byte(".DATA(1)")))
	}
	if _, err := DataTableBody(s.Design, 0); err == nil {
		t.Error("DataTableBody of a barrier system accepted")
	}
}

func TestGenerateDataDeterministic(t *testing.T) {
	sys := dataSystems()[1]
	a, ma := generate(t, build(t, sys, nil))
	b, _ := generate(t, build(t, sys, nil))
	for _, f := range ma.Files {
		x, _ := os.ReadFile(filepath.Join(a, f))
		y, _ := os.ReadFile(filepath.Join(b, f))
		if !bytes.Equal(x, y) {
			t.Errorf("%s differs between two runs", f)
		}
	}
}

func TestGenerateDataRefuses(t *testing.T) {
	base := build(t, dataSystems()[0], nil)
	var fe *hw.FieldError
	for _, c := range []struct {
		name, field, text string
		mod               func(s *design.Episode)
	}{
		{"fattree", "topology", `topology: "fattree" (allowed: hyperxbar or torus`, func(s *design.Episode) { s.Sys.Topology = "fattree" }},
		{"op", "op", "allowed: barrier with collective allgather", func(s *design.Episode) { s.Op = barrierunit.OpSum }},
		{"item_flits", "item_flits", "1..4096", func(s *design.Episode) {
			d := *s.DataTable
			d.ItemFlits = 5000
			s.DataTable = &d
		}},
	} {
		s := breakable(base.Design)
		c.mod(s)
		err := check(s)
		if !errors.As(err, &fe) || fe.Field != c.field || !strings.Contains(err.Error(), c.text) {
			t.Errorf("%s: err = %v", c.name, err)
		}
	}
	for name, mod := range map[string]func(s *design.Episode){
		"no data table": func(s *design.Episode) { s.DataTable = nil },
		"no schedule":   func(s *design.Episode) { s.Data = nil },
		"barrier":       func(s *design.Episode) { s.Sys.Collective = "barrier" },
		"short rx": func(s *design.Episode) {
			d := *s.DataTable
			d.RxRoute = d.RxRoute[1:]
			s.DataTable = &d
		},
		"short items": func(s *design.Episode) {
			d := *s.DataTable
			d.Items = d.Items[1:]
			s.DataTable = &d
		},
	} {
		s := breakable(base.Design)
		mod(s)
		if err := check(s); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

func TestDecodeDataTableErrors(t *testing.T) {
	s := build(t, dataSystems()[0], nil)
	gb, err := GateTableBody(s.Design, 1)
	if err != nil {
		t.Fatal(err)
	}
	gt, err := DecodeGateTable(gb)
	if err != nil {
		t.Fatal(err)
	}
	good, err := DataTableBody(s.Design, 1)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := DecodeDataTable(good, gt); err != nil {
		t.Fatalf("good table: %v", err)
	}
	NR, G := len(gt.Routes), gt.Gates
	for name, edit := range map[string]func(b []uint64) []uint64{
		"F = 0":           func(b []uint64) []uint64 { b[0] &= 0xffffffff; return b },
		"L wrong":         func(b []uint64) []uint64 { b[0]++; return b },
		"short":           func(b []uint64) []uint64 { return b[:NR] },
		"route rank":      func(b []uint64) []uint64 { b[1] ^= 1 << 49; return b },
		"route count 0":   func(b []uint64) []uint64 { b[1] &^= dtField24 << dtCountShift; return b },
		"route past list": func(b []uint64) []uint64 { b[1] += 100; return b },
		"gate no message": func(b []uint64) []uint64 { b[1+NR] = 0; return b },
		"gate low bits":   func(b []uint64) []uint64 { b[1+NR+G] |= 1; return b },
	} {
		if _, err := DecodeDataTable(edit(slices.Clone(good)), gt); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	if _, err := DecodeDataTable([]uint64{0}, &GateTable{Rank: -1}); err != nil {
		t.Errorf("empty table: %v", err)
	}
	if _, err := DecodeDataTable([]uint64{1}, &GateTable{Rank: -1}); err == nil {
		t.Error("non-zero table without a rank accepted")
	}
}

// GateItems returns the items gate g expects (none for a gate without a
// message).
func (t *DataTable) GateItems(g int) []DataItem {
	m := t.Gates[g]
	return t.Items[m.First : m.First+m.Count]
}
