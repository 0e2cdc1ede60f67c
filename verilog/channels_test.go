package verilog

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/hxbar/hxbar/hw"
)

// TestGenerateChannels: a run of communicators is built of hx_barrier_node
// instances, a gate table per node and channel whose route words name the
// destination's channel (bits 63..56) and rank within its communicator,
// and a CPU slot per node and channel on hx_top.
func TestGenerateChannels(t *testing.T) {
	sys, err := hw.Load(filepath.Join("..", "examples", "rows-cols-4x4.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	s := build(t, sys, nil)
	m, files, err := Render(s.Design)
	if err != nil {
		t.Fatal(err)
	}
	if m.Channels != 2 {
		t.Errorf("manifest Channels = %d, want 2", m.Channels)
	}
	byName := map[string]string{}
	for _, f := range files {
		byName[f.Name] = string(f.Data)
	}
	top := byName[TopFile]
	for _, want := range []string{"hx_tile #(.NCH(2)", "input  [31:0]         arrive", "arrive[30 +: 2]", ".NBANK(2)"} {
		if !strings.Contains(top, want) {
			t.Errorf("hx_top.v lacks %q", want)
		}
	}
	if strings.Contains(top, "hx_tile #(.MAXG") {
		t.Errorf("hx_top.v has a tile of one hx_barrier_unit (NCH = 0) in a run of communicators")
	}
	plan, err := ChannelPlan(s.Design)
	if err != nil {
		t.Fatal(err)
	}
	// Node 5 (coordinates 1, 1): rank 1 of row 1 on channel 0, rank 1 of
	// column 1 on channel 1; every route of a row goes to a node of the
	// same row, on the channel the row has there.
	for c, want := range []Slot{{Comm: 1, Rank: 1, Base: 4}, {Comm: 5, Rank: 1, Base: 20}} {
		if got := plan.Slots[5][c]; got != want {
			t.Errorf("node 5 channel %d hosts %+v, want %+v", c, got, want)
		}
	}
	for n := range plan.Slots {
		for c, sl := range plan.Slots[n] {
			if _, ok := byName[ChannelGateTableFile(n, c)]; !ok {
				t.Errorf("no %s", ChannelGateTableFile(n, c))
			}
			im, err := plan.Image(n, c)
			if err != nil {
				t.Fatal(err)
			}
			if im.Rank != uint32(sl.Rank) {
				t.Errorf("node %d channel %d: RANK %d, want %d (the rank within the communicator)", n, c, im.Rank, sl.Rank)
			}
			cm := plan.Comms[sl.Comm]
			for _, w := range im.Routes {
				dst := int(w >> 32 & (1<<24 - 1))
				if ch := int(w >> RouteChanShift); ch != cm.Channel[dst] {
					t.Errorf("node %d channel %d: route to rank %d names channel %d, the rank has channel %d", n, c, dst, ch, cm.Channel[dst])
				}
				if a := w & 0xffffffff; a != uint64(s.Design.Topo.Addr(sys.RankNode(cm.Ranks[dst]))) {
					t.Errorf("node %d channel %d: route to rank %d at address %#x", n, c, dst, a)
				}
			}
		}
	}
	// Channel 1's writes carry the channel in paddr[26:24].
	p, err := plan.Program(5)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[uint32]bool{}
	for _, w := range p {
		seen[w.Addr>>ChanSelShift&7] = true
	}
	if !seen[0] || !seen[1] || len(seen) != 2 {
		t.Errorf("node 5's program writes channels %v, want 0 and 1", seen)
	}
}
