package verilog

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/hxbar/hxbar/hw"
)

// handSystem is one system of verilog/testdata/handtables: its tables were
// written by tables.py there, a second writer built from docs/tables.md,
// docs/transfers.md and docs/schedules.md without the Go code.
type handSystem struct {
	dir  string
	sys  hw.System
	data bool // a 2-rank all-gather of 2 items, F = 2
}

func handSystems() []handSystem {
	return []handSystem{
		{"bfly2", testSystem("bfly2", []int{2}, func(s *hw.System) { s.Ranks = 2 }), false},
		{"line4", testSystem("line4", []int{4}, func(s *hw.System) { s.Ranks, s.Op = 4, "sum" }), false},
		{"grid3x2-r4", testSystem("grid3x2-r4", []int{3, 2}, func(s *hw.System) { s.Ranks = 4 }), false},
		{"ag2-f2", dataTestSystem("ag2-f2", []int{2}, 2, "allgather", 0, 2, nil), true},
	}
}

// tableWords is a .hex file without its comments: the text of each word
// line, as written (16 hex digits), in order.
func tableWords(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var w []string
	for _, line := range strings.Split(string(b), "\n") {
		if i := strings.Index(line, "//"); i >= 0 {
			line = line[:i]
		}
		if line = strings.TrimSpace(line); line != "" {
			w = append(w, line)
		}
	}
	return w
}

// TestGenerateMatchesIndependentTables: for each hand system the generator
// writes the same set of .hex files as tables.py, each with the same word
// lines byte for byte (comments aside: the headers differ).
func TestGenerateMatchesIndependentTables(t *testing.T) {
	for _, h := range handSystems() {
		t.Run(h.dir, func(t *testing.T) {
			s := build(t, h.sys, nil)
			dir, m := generate(t, s)
			want := slices.Concat(m.GateTables, m.RouteTables, m.DataTables)
			hand, err := filepath.Glob(filepath.Join("testdata", "handtables", h.dir, "*.hex"))
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, p := range hand {
				names = append(names, filepath.Base(p))
			}
			slices.Sort(want)
			if !slices.Equal(names, want) {
				t.Fatalf("hand tables %v, generated %v", names, want)
			}
			for _, name := range names {
				hw, gw := tableWords(t, filepath.Join("testdata", "handtables", h.dir, name)), tableWords(t, filepath.Join(dir, name))
				if !slices.Equal(hw, gw) {
					t.Errorf("%s: generated words\n%s\nhand-written (tables.py)\n%s", name, strings.Join(gw, "\n"), strings.Join(hw, "\n"))
				}
			}
		})
	}
}

// TestHandTablesDecodeAsDocumented decodes every hand table with the
// package's decoders and compares each field with the value docs/tables.md
// and docs/microarchitecture.md give for the system, worked out here from
// the rules (not read from the model):
//   - routing tables: exchanger entry off_k + c is 0xFF when c is the
//     node's coordinate k, else port k+1; a crossbar of dimension k has Kk
//     entries T[c] = c; switches 0..N-1 are the exchangers, then the
//     crossbars dimension by dimension;
//   - gate tables: rank r on node r; a butterfly of R = 2^n has G = n and at
//     gate g exchanges with r XOR 2^(G-g), with a self route and need 1 at
//     gates 2..G+1; the all-gather of 2 ranks has one step, no self route,
//     need 1 at gate 2; a route's address packs the destination node's
//     coordinates in max(1, ceil(log2 Ki)) bits each; a node without a
//     rank has the single word 0;
//   - data tables: F = 2; route 0 carries item r (origin r) to rank 1-r;
//     gate 2 expects rank 1-r's item 1-r.
func TestHandTablesDecodeAsDocumented(t *testing.T) {
	for _, h := range handSystems() {
		t.Run(h.dir, func(t *testing.T) {
			dims := h.sys.Dims
			nodes := 1
			for _, d := range dims {
				nodes *= d
			}
			coord := func(n, k int) int {
				for j := 0; j < k; j++ {
					n /= dims[j]
				}
				return n % dims[k]
			}
			addr := func(n int) uint64 {
				var a uint64
				shift := 0
				for k, d := range dims {
					b := 1
					for 1<<b < d {
						b++
					}
					a |= uint64(coord(n, k)) << shift
					shift += b
				}
				return a
			}
			read := func(name, magic string) []uint64 {
				m, body, err := ReadTable(filepath.Join("testdata", "handtables", h.dir, name))
				if err != nil || m != magic {
					t.Fatalf("%s: magic %q, %v", name, m, err)
				}
				return body
			}
			// Routing tables.
			sw := nodes
			for n := 0; n < nodes; n++ {
				got, err := DecodeRouteTable(read(fmt.Sprintf("rt_s%d.hex", n), MagicRoute))
				if err != nil {
					t.Fatal(err)
				}
				var want []uint8
				for k, d := range dims {
					for c := 0; c < d; c++ {
						if c == coord(n, k) {
							want = append(want, 0xFF)
						} else {
							want = append(want, uint8(k+1))
						}
					}
				}
				if !slices.Equal(got, want) {
					t.Errorf("exchanger %d: entries %v, want %v", n, got, want)
				}
			}
			for k, d := range dims {
				for line := 0; line < nodes/d; line++ {
					got, err := DecodeRouteTable(read(fmt.Sprintf("rt_s%d.hex", sw), MagicRoute))
					if err != nil {
						t.Fatal(err)
					}
					if len(got) != d {
						t.Errorf("crossbar %d (dim %d line %d): %d entries, want %d", sw, k, line, len(got), d)
					}
					for c, e := range got {
						if int(e) != c {
							t.Errorf("crossbar %d: entry %d = %d", sw, c, e)
						}
					}
					sw++
				}
			}
			if _, err := os.Stat(filepath.Join("testdata", "handtables", h.dir, fmt.Sprintf("rt_s%d.hex", sw))); err == nil {
				t.Errorf("a routing table past the last switch %d", sw-1)
			}
			// Gate (and data) tables.
			R := h.sys.Ranks
			G := 0
			for 1<<G < R {
				G++
			}
			for n := 0; n < nodes; n++ {
				gt, err := DecodeGateTable(read(fmt.Sprintf("gt_n%d.hex", n), MagicGate))
				if err != nil {
					t.Fatal(err)
				}
				if n >= R {
					if gt.Rank != -1 {
						t.Errorf("node %d without a rank decodes as rank %d", n, gt.Rank)
					}
					continue
				}
				want := &GateTable{Rank: n, Gates: G, Self: make([]bool, G+2), Need: make([]int, G+2),
					Start: make([]int, G+2), Count: make([]int, G+2)}
				for g := 1; g <= G+1; g++ {
					want.Start[g] = len(want.Routes)
					if g <= G {
						p := n ^ 1<<(G-g)
						if h.data {
							p = 1 - n
						}
						want.Routes = append(want.Routes, GateRoute{Rank: p, Addr: addr(p)})
						want.Count[g] = 1
					}
					if g >= 2 {
						want.Need[g] = 1
						want.Self[g] = !h.data
					}
				}
				if !reflect.DeepEqual(gt, want) {
					t.Errorf("node %d: gate table\n %+v, want\n %+v", n, gt, want)
				}
				if !h.data {
					continue
				}
				dt, err := DecodeDataTable(read(fmt.Sprintf("dt_n%d.hex", n), MagicData), gt)
				if err != nil {
					t.Fatal(err)
				}
				p := 1 - n
				wd := &DataTable{Rank: n, ItemFlits: 2,
					Routes: []DataMessage{{Rank: p, Count: 1, First: 0}},
					Gates:  []DataMessage{{}, {}, {Rank: p, Count: 1, First: 1}},
					Items:  []DataItem{{Origin: n, Item: n}, {Origin: p, Item: p}}}
				if !reflect.DeepEqual(dt, wd) {
					t.Errorf("node %d: data table\n %+v, want\n %+v", n, dt, wd)
				}
			}
		})
	}
}
