package verilog

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hxbar/hxbar/barrierunit/regmap"
	"github.com/hxbar/hxbar/design"
	"github.com/hxbar/hxbar/hw"
)

func torusTestSystem(name string, dims []int, wrap []bool, mod func(*hw.System)) hw.System {
	return testSystem(name, dims, func(s *hw.System) {
		s.Topology, s.Wrap = hw.TopoTorus, wrap
		if mod != nil {
			mod(s)
		}
	})
}

// TestTorusRefuses: what the torus RTL of this stage does not build is
// refused with the field named, and a torus it builds (a barrier, a data
// collective, faults, link-level retry, avoided links) is accepted.
func TestTorusRefuses(t *testing.T) {
	for _, c := range []struct {
		name string
		mod  func(*hw.System)
	}{
		{"ok", nil},
		{"data", func(s *hw.System) { s.Op, s.Collective = "barrier", "allgather" }},
		{"faults", func(s *hw.System) { s.Faults = []string{"flip:n0.d0+.vc0@first:40", "creditdrop:n5.d1-.vc0@9"} }},
		{"retry", func(s *hw.System) { s.LinkRetry = s.BufferDepth }},
		{"avoid", func(s *hw.System) { s.Avoid = []string{"n0.d0+.vc0"} }},
	} {
		ok := build(t, torusTestSystem(c.name, []int{4, 3}, []bool{true, false}, c.mod), nil)
		if err := Check(ok.Design); err != nil {
			t.Fatalf("4x3 torus %s refused: %v", c.name, err)
		}
	}
	tofu := build(t, torusTestSystem("tofu", []int{3, 2, 3, 2, 3, 2}, []bool{true, false, true, false, true, false}, nil), nil)
	if err := Check(tofu.Design); err != nil {
		t.Fatalf("6-D torus refused: %v", err)
	}
	var fe *hw.FieldError
	for _, c := range []struct {
		name, field, text string
		mod               func(*hw.System)
	}{
		{"pipeline", "switch_pipeline", "0 for the torus RTL", func(s *hw.System) { s.SwitchPipeline = 1 }},
		{"unitpipe", "unit_pipeline", "0 for the torus RTL", func(s *hw.System) { s.UnitPipeline = 1 }},
		{"half", "duplex", "full", func(s *hw.System) { s.Duplex = hw.DuplexHalf }},
	} {
		sys := torusTestSystem(c.name, []int{4, 3}, []bool{true, false}, c.mod)
		err := Check(build(t, sys, nil).Design)
		if !errors.As(err, &fe) || fe.Field != c.field || !strings.Contains(err.Error(), c.text) {
			t.Errorf("%s: err = %v", c.name, err)
		}
	}
}

// TestTorusTop: hx_top wires output p of every router to input p of its
// neighbour in p's direction, ties off the outputs leaving a mesh line and
// the inputs no neighbour feeds, and the units' route words hold the
// destinations' packed coordinates.
func TestTorusTop(t *testing.T) {
	for _, c := range []struct {
		dims []int
		wrap []bool
	}{{[]int{8}, nil}, {[]int{3, 3}, []bool{false, false}}, {[]int{4, 3, 2}, []bool{true, false, true}}} {
		sys := torusTestSystem("top", c.dims, c.wrap, nil)
		s := build(t, sys, nil)
		dir, _ := generate(t, s)
		b, err := os.ReadFile(filepath.Join(dir, TopFile))
		if err != nil {
			t.Fatal(err)
		}
		top := string(b)
		tor := Torus(s.Design)
		// Every mesh dimension k leaves 2 VCs at each end of each of its
		// lines unconnected, both ways.
		open := 0
		for k, d := range c.dims {
			if c.wrap != nil && !c.wrap[k] {
				open += 2 * 2 * tor.Nodes / d
			}
		}
		if n := strings.Count(top, "_up_credit[") - strings.Count(top, "_down_credit["); n != open {
			t.Errorf("%v: %d outputs tied off, want %d", c.dims, n, open)
		}
		if n := strings.Count(top, "'b0;   // input"); n != open {
			t.Errorf("%v: %d inputs tied off, want %d", c.dims, n, open)
		}
		for n := 0; n < tor.Nodes; n++ {
			for q := 1; q < tor.Ports(n); q++ {
				ns, np := tor.Neighbor(n, q)
				if ns < 0 {
					continue
				}
				want := fmt.Sprintf("assign n%d_down_valid[%d] = n%d_up_valid[%d];", ns, np-1, n, q-1)
				if !strings.Contains(top, want) {
					t.Fatalf("%v: no %q", c.dims, want)
				}
			}
		}
		// Each tile on its own clock leaf, one buffer from clk, and nothing
		// else on clk: Icarus elaborates one clock net shared by every
		// flip-flop in time quadratic in them (docs/rtl.md, hx_rtile).
		if want := fmt.Sprintf("wire [%d:0] tile_clk = {%d{clk}};", tor.Nodes-1, tor.Nodes); !strings.Contains(top, want) {
			t.Errorf("%v: no %q", c.dims, want)
		}
		for n := 0; n < tor.Nodes; n++ {
			if want := fmt.Sprintf(") %s (\n        .clk(tile_clk[%d]),", TilePath(n), n); !strings.Contains(top, want) {
				t.Errorf("%v: tile %d not on its clock leaf (no %q)", c.dims, n, want)
			}
		}
		if n := strings.Count(top, "(clk)"); n != 0 {
			t.Errorf("%v: %d instances on clk itself", c.dims, n)
		}
		g := Grid(s.Design)
		for r, a := range s.Design.RankAddrs() {
			if want := g.Addr(s.Design.NodeOf(r)); a != want {
				t.Errorf("%v: rank %d address %#x, want %#x", c.dims, r, a, want)
			}
		}
	}
}

// TestRtileLintStandalone: hx_rtile is a top of its own, as hx_tile is:
// clean under Verilator -Wall on a ring, a mesh grid, a 4-D torus with a
// check code, a mixed 3-D grid with a data engine and a Tofu-shaped 6-D
// grid (rings of 3, mesh lines of 2).
func TestRtileLintStandalone(t *testing.T) {
	t.Parallel()
	vl := needTool(t, "verilator")
	dir := t.TempDir()
	var files []string
	for _, name := range Library() {
		src, err := LibrarySource(name)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), src, 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, name)
	}
	for _, params := range []string{
		"",
		"-GK0=8 -GAB=3 -GL=2",
		"-GK0=8 -GAB=3 -GLR=4 -GB=4",
		"-GNDIM=2 -GK0=3 -GK1=3 -GAB=4 -GWRAP=0",
		"-GNDIM=4 -GK0=2 -GK1=2 -GK2=2 -GK3=2 -GAB=4 -GCB=32",
		"-GNDIM=3 -GK0=4 -GK1=3 -GK2=2 -GAB=5 -GWRAP=5 -GDATA=1 -GNIL=4 -GNBANK=2",
		"-GNDIM=6 -GK0=3 -GK1=2 -GK2=3 -GK3=2 -GK4=3 -GK5=2 -GAB=9 -GWRAP=21",
		"-GK0=64 -GAB=6",
	} {
		args := append([]string{"--lint-only", "-Wall", "--top-module", "hx_rtile"}, strings.Fields(params)...)
		out, err := run(t, dir, 120*time.Second, vl, append(args, files...)...)
		if err != nil || out != "" {
			t.Errorf("verilator --lint-only -Wall --top-module hx_rtile %s (%v):\n%s", params, err, out)
		}
	}
}

// TestRouterProgramRoutesAsModel: the router configuration each node's
// port writes (ADDR, PLUS(k)), read back as hx_router routes with it
// (the first differing dimension, + where PLUS(k) has the destination's
// bit, VC1 on the wrap link), sends every head from the local port by
// the port the model's NextAddr picks, on rings, mesh lines, a mixed
// grid, rings of 2 and the Tofu shape; with avoided links the PLUS bits
// differ from the model's direction table exactly where the ring is
// reversed. No simulator: it fails at once when RouterProgram is wrong.
func TestRouterProgramRoutesAsModel(t *testing.T) {
	shapes := []struct {
		dims []int
		wrap []bool
	}{
		{[]int{8}, nil}, {[]int{5}, []bool{false}}, {[]int{4, 4}, nil}, {[]int{3, 3}, []bool{false, false}},
		{[]int{4, 3, 2}, []bool{true, false, true}}, {[]int{2, 2}, nil},
		{[]int{3, 2, 3, 2, 3, 2}, []bool{true, false, true, false, true, false}},
	}
	for _, sh := range shapes {
		ep := build(t, torusTestSystem("prog", sh.dims, sh.wrap, nil), nil)
		tor := Torus(ep.Design)
		for n := range tor.Nodes {
			own, plus := decodeRouterProgram(t, RouterProgram(ep.Design, n), tor.Dims)
			if own != design.TorusAddr(tor, n) {
				t.Fatalf("%v node %d: ADDR %#x, want %#x", sh.dims, n, own, design.TorusAddr(tor, n))
			}
			for dst := range tor.Nodes {
				got := 0
				for k, K := range tor.Dims {
					x, c := tor.Coord(n, k), tor.Coord(dst, k)
					if x == c {
						continue
					}
					up := plus[k]>>c&1 == 1
					got = 1 + 4*k
					if !up {
						got += 2
					}
					if tor.Wrap[k] && (up && x == K-1 || !up && x == 0) {
						got++ // the wrap link: VC1
					}
					break
				}
				if want := tor.NextAddr(0, tor.Addr(n), tor.Addr(dst)); got != want {
					t.Fatalf("%v node %d to %d: the router's registers route to port %d, the model to %d", sh.dims, n, dst, got, want)
				}
			}
		}
	}
	ep := build(t, torusTestSystem("prog-avoid", []int{4, 3}, []bool{true, false}, func(s *hw.System) {
		s.Avoid = []string{"n1.d0+.vc0", "n10.d0-.vc1"}
	}), nil)
	tor, flipped := Torus(ep.Design), 0
	for n := range tor.Nodes {
		_, plus := decodeRouterProgram(t, RouterProgram(ep.Design, n), tor.Dims)
		for k, K := range tor.Dims {
			x := tor.Coord(n, k)
			for c := range K {
				if c == x {
					continue
				}
				rev := ep.Design.Avoid.TorusReversed(n, k, c)
				if (plus[k]>>c&1 == 1) != (tor.Plus(k, x, c) != rev) {
					t.Fatalf("node %d dim %d coordinate %d: PLUS bit %d, model + %v, reversed %v", n, k, c, plus[k]>>c&1, tor.Plus(k, x, c), rev)
				}
				if rev {
					flipped++
				}
			}
		}
	}
	if flipped == 0 {
		t.Fatal("no reversed bit: the avoided links change nothing, the case tests nothing")
	}
}

// decodeRouterProgram reads a router program back into ADDR and the PLUS
// masks, failing on a write outside the router's registers.
func decodeRouterProgram(t *testing.T, p regmap.Program, dims []int) (uint64, []uint64) {
	t.Helper()
	var own uint64
	plus := make([]uint64, len(dims))
	for _, w := range p {
		a := w.Addr &^ regmap.NodeExchanger
		switch {
		case w.Addr&regmap.NodeExchanger == 0:
			t.Fatalf("write %#x does not reach the router", w.Addr)
		case a == regmap.RouterAddr:
			own = uint64(w.Data)
		case a >= regmap.RouterPlus && a < regmap.RouterPlus+8*uint32(len(dims)):
			k, hi := (a-regmap.RouterPlus)/8, (a-regmap.RouterPlus)%8 == 4
			if hi {
				plus[k] |= uint64(w.Data) << 32
			} else {
				plus[k] |= uint64(w.Data)
			}
		default:
			t.Fatalf("write to router register %#x", a)
		}
	}
	return own, plus
}
