package sim

import (
	"slices"
	"testing"

	"github.com/hxbar/hxbar/hw"
	"github.com/hxbar/hxbar/noc"
)

// TestChannelLoad: the recorded flits add up to flit_hops, per channel to
// the channel's counter, whatever the bucket width became; the columns
// cover the run.
func TestChannelLoad(t *testing.T) {
	allgather := hw.Default()
	allgather.Collective, allgather.Items, allgather.ItemFlits, allgather.Skew = hw.CollAllGather, 4, 64, 0
	torus := hw.Default()
	torus.Topology, torus.Dims = "torus", []int{4, 4}
	repeat := hw.Default()
	repeat.Repeat, repeat.Skew = 5, 300
	for name, sys := range map[string]hw.System{"default": hw.Default(), "allgather": allgather, "torus": torus, "repeat": repeat} {
		t.Run(name, func(t *testing.T) {
			s, err := Build(sys, nil)
			if err != nil {
				t.Fatal(err)
			}
			var load ChannelLoad
			res, err := s.Run(Options{Load: &load})
			if err != nil {
				t.Fatal(err)
			}
			if len(load.Rows) == 0 || load.PerRow != 1 || load.Cycles != res.Cycles {
				t.Fatalf("rows %d, per row %d, cycles %d (run %d)", len(load.Rows), load.PerRow, load.Cycles, res.Cycles)
			}
			cols := int((res.Cycles + load.Bucket - 1) / load.Bucket)
			if cols > MaxLoadBuckets || load.Bucket > 1 && cols <= MaxLoadBuckets/2 {
				t.Errorf("%d cycles in %d buckets of %d", res.Cycles, cols, load.Bucket)
			}
			var sum uint64
			for i, row := range load.Flits {
				if len(row) != cols {
					t.Fatalf("row %s has %d columns, want %d", load.Rows[i], len(row), cols)
				}
				for _, f := range row {
					sum += uint64(f)
				}
			}
			if sum != res.Network.FlitHops {
				t.Errorf("recorded %d flits, flit_hops %d", sum, res.Network.FlitHops)
			}
			if name == "allgather" && len(load.Rows) != 64 {
				t.Errorf("4x4 hyper-crossbar: %d rows, want 64", len(load.Rows))
			}
		})
	}
}

// TestChannelLoadRows: a network of more than MaxLoadRows channels groups
// them.
func TestChannelLoadRows(t *testing.T) {
	sys := hw.Default()
	sys.Dims, sys.Ranks = []int{16, 16}, 0
	s, err := Build(sys, nil)
	if err != nil {
		t.Fatal(err)
	}
	var load ChannelLoad
	if _, err := s.Run(Options{Load: &load}); err != nil {
		t.Fatal(err)
	}
	if load.PerRow != 4 || len(load.Rows) != 256 || load.Rows[0] != "n0.d0.up .. n0.d1.down" {
		t.Errorf("per row %d, %d rows, first %q", load.PerRow, len(load.Rows), load.Rows[0])
	}
}

// TestChannelLoadNamesAreChannelNames: a load row names its channel as
// the statistics' busiest channel, --fault and --avoid do (every row
// parses as a channel name, the busiest is one of them), on each topology.
func TestChannelLoadNamesAreChannelNames(t *testing.T) {
	for _, c := range []struct {
		topo hw.Topology
		dims []int
	}{{hw.TopoHyperXbar, []int{4, 4}}, {hw.TopoTorus, []int{4, 4}}, {hw.TopoFatTree, []int{2, 2, 2}}} {
		sys := hw.Default()
		sys.Topology, sys.Dims = c.topo, c.dims
		s, err := Build(sys, nil)
		if err != nil {
			t.Fatal(err)
		}
		var load ChannelLoad
		res, err := s.Run(Options{Load: &load})
		if err != nil {
			t.Fatal(err)
		}
		idx := noc.NewChannelIndex(s.Fabric)
		for _, r := range load.Rows {
			if _, err := idx.Parse(r); err != nil {
				t.Fatalf("%s: row %q is not a channel name: %v", c.topo, r, err)
			}
		}
		if !slices.Contains(load.Rows, res.Network.Busiest) {
			t.Errorf("%s: busiest channel %q is no row's name (rows %q ...)", c.topo, res.Network.Busiest, load.Rows[:2])
		}
	}
}
