package testbench

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/hxbar/hxbar/hw"
	"github.com/hxbar/hxbar/sim/experiments"
)

// torusData is a data collective on a torus (docs/transfers.md): collective,
// algo, items (0: the default), order and item_flits on torusSystem's
// system of dims and wrap.
func torusData(t *testing.T, name string, dims []int, wrap []bool, coll hw.Collective, algo hw.Algorithm, items int, order string, flits int, change func(*hw.System)) hw.System {
	t.Helper()
	return torusSystem(t, name, dims, wrap, func(s *hw.System) {
		s.Op, s.Collective, s.Algo = "barrier", coll, algo
		s.Items, s.Order, s.ItemFlits, s.ItemPlace = items, order, flits, nil
		if change != nil {
			change(s)
		}
	})
}

// TestTorusDataCosim co-simulates the data collectives the hyper-crossbar
// RTL runs (all-gather by recursive doubling near-last and near-first, in
// step orders, the general all-gather, the binomial broadcast) on the torus
// tiles, cycle for cycle with the model and every payload flit checked: a
// ring of 8, a 4x4 torus, a 3x3 mesh (9 ranks: the general all-gather and a
// broadcast) and two mixed-wrap grids (4x4 ring by line; 4x3x2, a
// broadcast). Multi-flit packets from both VCs
// of a wire interleave at flit granularity here, which barriers (one-flit
// packets) never do; one-flit buffers and link latency 2 make them wait.
func TestTorusDataCosim(t *testing.T) {
	needTools(t, Icarus)
	mesh := []bool{false, false}
	cases := []hw.System{
		torusData(t, "ring8-ag-bfly-F2", []int{8}, nil, "allgather", "butterfly", 0, "", 2, nil),
		torusData(t, "ring8-ag-nearfirst-F3-B1", []int{8}, nil, "allgather", "butterfly-near-first", 0, "", 3,
			func(s *hw.System) { s.BufferDepth = 1 }),
		torusData(t, "torus4x4-ag-bfly-F3", []int{4, 4}, nil, "allgather", "butterfly", 0, "", 3, nil),
		torusData(t, "torus4x4-ag-nearfirst-F3-L2", []int{4, 4}, nil, "allgather", "butterfly-near-first", 0, "", 3,
			func(s *hw.System) { s.LinkLatency = 2 }),
		torusData(t, "torus4x4-ag4-OMOM-F2-fw32", []int{4, 4}, nil, "allgather", "butterfly", 4, "OMOM", 2,
			func(s *hw.System) { s.FlitWidth = 32 }),
		torusData(t, "mesh3x3-ag-general-F2-B1", []int{3, 3}, mesh, "allgather", "butterfly", 0, "", 2,
			func(s *hw.System) { s.BufferDepth = 1 }),
		torusData(t, "mesh3x3-bcast-F5", []int{3, 3}, mesh, "broadcast", "butterfly", 0, "", 5, nil),
		torusData(t, "mixed4x4-ag-nearfirst-F1", []int{4, 4}, []bool{true, false}, "allgather", "butterfly-near-first", 0, "", 1, nil),
		torusData(t, "mixed4x3x2-bcast-F2", []int{4, 3, 2}, []bool{true, false, true}, "broadcast", "butterfly", 0, "", 2, nil),
	}
	for _, sys := range cases {
		t.Run(sys.Name, func(t *testing.T) {
			dir := t.TempDir()
			s, _ := generate(t, dir, sys)
			if s.Data == nil {
				t.Fatalf("%s: not a data system", sys.Name)
			}
			rep, err := Cosim(ctxFor(t, 5*time.Minute), dir, Icarus)
			if err != nil {
				t.Fatalf("cosim: %v", err)
			}
			if !rep.OK() {
				t.Fatalf("cosim: %s", rep.Summary())
			}
			if n := strings.Count(strings.Join(rep.Model, "\n"), " recv "); n == 0 {
				t.Fatal("no recv event in the trace")
			}
		})
	}
}

// TestTorusDoublingCosim co-simulates the rows of docs/experiments.md's
// near-last versus near-first table that the document says were
// co-simulated (experiments.Cosimulated), both orders, with the systems
// the table measures (experiments.Doubling): the RTL runs them cycle for
// cycle as the model, and the model's cycles are the table's.
func TestTorusDoublingCosim(t *testing.T) {
	needTools(t, Icarus)
	for _, row := range experiments.Cosimulated {
		n, ok := experiments.NetworkOf(row.Network)
		if !ok || n.Topology != hw.TopoTorus {
			t.Fatalf("co-simulated row %q: not a torus of the comparison", row.Network)
		}
		for _, algo := range []hw.Algorithm{hw.AlgoButterfly, hw.AlgoButterflyNearFirst} {
			sys := experiments.Doubling(n, row.Flits, algo)
			short, _, _ := strings.Cut(n.Label, " (")
			sys.Name = fmt.Sprintf("%s-%s-F%d", strings.ReplaceAll(short, " ", ""), algo, row.Flits)
			t.Run(sys.Name, func(t *testing.T) {
				t.Parallel()
				want, err := experiments.Measure(sys)
				if err != nil {
					t.Fatal(err)
				}
				dir := t.TempDir()
				generate(t, dir, sys)
				rep, err := Cosim(ctxFor(t, 5*time.Minute), dir, Icarus)
				if err != nil {
					t.Fatalf("cosim: %v", err)
				}
				if !rep.OK() {
					t.Fatalf("cosim: %s", rep.Summary())
				}
				if rep.Cycles != want.Cycles {
					t.Fatalf("co-simulated %d cycles, the table's run %d", rep.Cycles, want.Cycles)
				}
			})
		}
	}
}

// TestTorusFaultsCosim injects faults into torus channels (docs/
// reliability.md) and requires the RTL to match the model, error events
// included, cycle for cycle: a payload bit flipped on a ring's VC0 and on
// the VC1 past a 4x4 torus's dateline (the destination's CRC catches
// both), a data bit of a near-first all-gather flipped on a mixed-wrap
// grid's mesh line (CRC), the only credit of a mesh output lost (the
// watchdog's TIMEOUT), a stuck rank, a barrier's one-flit packet dropped
// (its credit given back: with one-flit buffers the channel would stall
// without it) and a ring channel dead from cycle 20 (all
// TIMEOUT). A fault whose flits turn illegal at a router (a dropped head
// leaves its payload orphaned) co-simulates too: the router drops them and
// counts them in DROPS, as the model does.
func TestTorusFaultsCosim(t *testing.T) {
	needTools(t, Icarus)
	fault := func(watchdog int64, faults ...string) func(*hw.System) {
		return func(s *hw.System) { s.Watchdog, s.Faults = watchdog, faults }
	}
	cases := []struct {
		sys  hw.System
		code string // the model's first error
	}{
		{torusData(t, "ring8-ag-flip-vc0", []int{8}, nil, "allgather", "butterfly", 0, "", 2,
			fault(200, "flip:n0.d0+.vc0@first:40")), "CRC"},
		{torusSystem(t, "torus4x4-sum-flip-vc1", []int{4, 4}, nil, func(s *hw.System) {
			s.Op = hw.OpSum
			fault(300, "flip:n3.d0+.vc1@first:5")(s)
		}), "CRC"},
		{torusData(t, "mixed4x4-ag-nearfirst-flip-line", []int{4, 4}, []bool{true, false}, "allgather", "butterfly-near-first", 0, "", 2,
			fault(300, "flip:n12.d1-.vc0@first:33")), "CRC"},
		{torusSystem(t, "mesh3x3-creditdrop-B1", []int{3, 3}, []bool{false, false}, func(s *hw.System) {
			s.BufferDepth = 1
			fault(300, "creditdrop:n4.d0+.vc0@first")(s)
		}), "TIMEOUT"},
		{torusSystem(t, "mixed4x4-stuck", []int{4, 4}, []bool{true, false}, fault(300, "stuck:5")), "TIMEOUT"},
		{torusSystem(t, "ring8-drop-B1", []int{8}, nil, func(s *hw.System) {
			s.BufferDepth = 1
			fault(200, "drop:n2.d0+.vc0@first")(s)
		}), "TIMEOUT"},
		{torusSystem(t, "ring8-dead", []int{8}, nil, fault(200, "dead:n5.d0-.vc0@20")), "TIMEOUT"},
	}
	for _, c := range cases {
		t.Run(c.sys.Name, func(t *testing.T) {
			dir := t.TempDir()
			generate(t, dir, c.sys)
			rep, err := Cosim(ctxFor(t, 5*time.Minute), dir, Icarus)
			if err != nil {
				t.Fatalf("cosim: %v", err)
			}
			if !rep.OK() {
				t.Fatalf("cosim: %s", rep.Summary())
			}
			if len(rep.Errors) == 0 || rep.Errors[0].Code != c.code {
				t.Fatalf("model errors %v, want %s first", rep.Errors, c.code)
			}
		})
	}
	t.Run("orphans-dropped", func(t *testing.T) {
		// A dropped head leaves its payload orphaned at the next router,
		// which drops it and counts it (DROPS), in the RTL as in the model.
		sys := torusData(t, "ring8-ag-drop", []int{8}, nil, "allgather", "butterfly", 0, "", 2,
			fault(200, "drop:n0.d0+.vc0@first"))
		s, _, _, err := RunModel(sys)
		if err != nil {
			t.Fatal(err)
		}
		if len(s.Net.DropLog()) == 0 {
			t.Fatal("no router met an illegal flit: the case tests nothing")
		}
		dir := t.TempDir()
		generate(t, dir, sys)
		rep, err := Cosim(ctxFor(t, 5*time.Minute), dir, Icarus)
		if err != nil || !rep.OK() {
			t.Fatalf("cosim: %v %v", err, rep)
		}
		if !strings.Contains(rep.Run.Output, "DROPS ") {
			t.Fatal("the testbench printed no DROPS line")
		}
	})
}
