package testbench

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/hxbar/hxbar/hw"
)

// torusSystem is the default system on a torus of dims with the given wrap
// (nil: every dimension a ring), every node a rank.
func torusSystem(t *testing.T, name string, dims []int, wrap []bool, change func(*hw.System)) hw.System {
	t.Helper()
	s := hw.Default()
	s.Name, s.Topology, s.Dims, s.Wrap = name, hw.TopoTorus, dims, wrap
	s.Ranks, s.Placement = 0, nil
	if change != nil {
		change(&s)
	}
	if err := s.Validate(); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return s
}

// TestTorusCosim co-simulates the torus router (hx_router in hx_rtile) with
// the model, cycle for cycle, on a ring, a torus, a mesh and a mixed-wrap
// grid, and under contention: dissemination with one-flit buffers (the
// two VCs of a link direction compete for its wire) and a sum with
// back-to-back iterations and jitter (two packets continuing on the two
// VCs of one wire: the lower input goes first).
func TestTorusCosim(t *testing.T) {
	needTools(t, Icarus)
	cases := []struct {
		name   string
		dims   []int
		wrap   []bool
		change func(*hw.System)
	}{
		{"ring8", []int{8}, nil, nil},
		{"torus4x4", []int{4, 4}, nil, nil},
		{"mesh3x3", []int{3, 3}, []bool{false, false}, nil},
		{"mixed4x3x2", []int{4, 3, 2}, []bool{true, false, true}, func(s *hw.System) { s.LinkLatency = 2 }},
		{"torus4x4-diss-b1", []int{4, 4}, nil, func(s *hw.System) { s.Algo, s.BufferDepth = hw.AlgoDissemination, 1 }},
		{"torus4x4-sum-iter", []int{4, 4}, nil, func(s *hw.System) {
			s.Op, s.BufferDepth, s.Iterations, s.Jitter = hw.OpSum, 1, 4, 9
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			sys := torusSystem(t, c.name, c.dims, c.wrap, c.change)
			dir := t.TempDir()
			generate(t, dir, sys)
			top, err := os.ReadFile(join(dir, "hx_top.v"))
			if err != nil {
				t.Fatal(err)
			}
			if n := strings.Count(string(top), "hx_rtile #"); n != sys.Nodes() {
				t.Fatalf("hx_top.v has %d hx_rtile instances, the torus has %d nodes", n, sys.Nodes())
			}
			rep, err := Cosim(ctxFor(t, 5*time.Minute), dir, Icarus)
			if err != nil {
				t.Fatalf("cosim: %v", err)
			}
			if !rep.OK() {
				t.Fatalf("cosim: %s", rep.Summary())
			}
		})
	}
}
