package design_test

import (
	"errors"
	"go/build"
	"slices"
	"testing"

	"github.com/hxbar/hxbar/design"
	"github.com/hxbar/hxbar/hw"
	"github.com/hxbar/hxbar/noc"
)

func small() hw.System {
	sys := hw.Default()
	sys.Dims, sys.Ranks = []int{2, 2}, 0
	return sys
}

func TestNewValidates(t *testing.T) {
	sys := small()
	sys.Dims = []int{1}
	_, err := design.New(sys, nil, nil)
	if _, ok := errors.AsType[*hw.FieldError](err); !ok {
		t.Fatalf("dims [1]: want a *hw.FieldError, got %v", err)
	}
	sys = small()
	sys.Collective, sys.Items, sys.ItemFlits, sys.MaxCycles = hw.CollAllGather, 4, 64, 10
	_, err = design.New(sys, nil, nil)
	if _, ok := errors.AsType[*design.BoundError](err); !ok {
		t.Fatalf("max_cycles 10 for an all-gather: want a *design.BoundError, got %v", err)
	}
}

func TestNewHooks(t *testing.T) {
	refuse := errors.New("refused")
	var checked, fabric bool
	_, err := design.NewWith(small(), nil, nil, design.Options{
		Check:  func(*hw.System) error { checked = true; return refuse },
		Fabric: func(noc.Fabric) { fabric = true },
	})
	if !errors.Is(err, refuse) || !checked || fabric {
		t.Fatalf("refusing Check: err %v, checked %v, fabric built %v", err, checked, fabric)
	}
	var got noc.Fabric
	d, err := design.NewWith(small(), nil, nil, design.Options{Fabric: func(f noc.Fabric) { got = f }})
	if err != nil || got != d.Fabric {
		t.Fatalf("Fabric hook: err %v, got the design's fabric: %v", err, got == d.Fabric)
	}
}

func TestPlacementAndCopies(t *testing.T) {
	sys := small()
	sys.Ranks, sys.Placement = 3, []int{3, 0, 2}
	d, err := design.New(sys, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if d.Ranks() != 3 || d.NodeOf(0) != 3 || d.RankOf(3) != 0 || d.RankOf(1) != -1 {
		t.Fatalf("placement: ranks %d, node of 0 %d, rank of 3 %d, rank of 1 %d", d.Ranks(), d.NodeOf(0), d.RankOf(3), d.RankOf(1))
	}
	if got := d.RankOfNode(); !slices.Equal(got, []int{1, -1, 2, 0}) {
		t.Fatalf("RankOfNode = %v", got)
	}
	// The accessors return copies: writing them changes nothing.
	p := d.Placement()
	p[0] = 1
	a := d.Arrivals(1)
	a[0].Cycle = 1 << 40
	rn := d.RankOfNode()
	rn[1] = 5
	addr := d.RankAddrs()
	addr[0] = 99
	if d.NodeOf(0) != 3 || d.Arrivals(1)[0].Cycle == 1<<40 || d.RankOf(1) != -1 || d.RankAddrs()[0] != d.Topo.Addr(3) {
		t.Fatal("an accessor's slice writes through to the design")
	}
	if !slices.Equal(d.Arrivals(1), sys.Arrivals()) {
		t.Fatal("Arrivals(1) is not the system's arrivals")
	}
}

func TestEpisodes(t *testing.T) {
	sys := small()
	sum, bf := hw.OpName("sum"), hw.Algorithm("butterfly")
	sys.Repeat = 2
	sys.Episodes = []hw.Episode{{}, {Op: &sum}, {Algo: &bf}}
	d, err := design.New(sys, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if d.NumEpisodes() != 6 || d.NumEntries() != 3 {
		t.Fatalf("episodes %d, entries %d", d.NumEpisodes(), d.NumEntries())
	}
	// Entries with the same tables share them; episode k runs entry (k-1) mod 3.
	if d.Episode(1) != d.Episode(3) || d.Episode(1) == d.Episode(2) || d.Episode(2) != d.Episode(5) {
		t.Fatal("episodes do not share or repeat their entries' tables")
	}
	e := d.Episode(2)
	if e.Op.String() != "sum" || e.Sys.Op != "sum" || e.Design != d || e.Sys.Repeat != 1 || len(e.Sys.Episodes) != 0 {
		t.Fatalf("episode 2: op %v, sys op %q, design %v, repeat %d", e.Op, e.Sys.Op, e.Design == d, e.Sys.Repeat)
	}
	if e.Topo != d.Topo || e.Table.Ranks != 4 {
		t.Fatal("an episode does not read its design")
	}
	// A schedule file with an episodes list is refused.
	if _, err := design.New(sys, e.Sched, nil); err == nil {
		t.Fatal("a schedule with an episodes list accepted")
	}
}

// TestLayering holds the one-way imports: design imports none of its
// readers, and the Verilog generator does not import the cycle model.
func TestLayering(t *testing.T) {
	for pkg, banned := range map[string][]string{
		"design":  {"sim", "verilog", "testbench"},
		"verilog": {"sim", "testbench"},
	} {
		p, err := build.Import("github.com/hxbar/hxbar/"+pkg, "", 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range banned {
			if slices.Contains(p.Imports, "github.com/hxbar/hxbar/"+b) {
				t.Errorf("%s imports %s", pkg, b)
			}
		}
	}
}

func TestAvoid(t *testing.T) {
	sys := small()
	d, err := design.New(sys, nil, nil)
	if err != nil || d.Avoid != nil {
		t.Fatalf("no avoid list: avoid %v, err %v", d.Avoid, err)
	}
	sys.Avoid = []string{"n0.d1.up"}
	if d, err = design.New(sys, nil, nil); err != nil || d.Avoid == nil {
		t.Fatalf("avoid n0.d1.up: avoid %v, err %v", d.Avoid, err)
	}
	sys.Avoid = []string{"n0.d9.up"}
	_, err = design.New(sys, nil, nil)
	if fe, ok := errors.AsType[*hw.FieldError](err); !ok || fe.Field != "avoid[0]" {
		t.Fatalf("avoid n0.d9.up: want a field error on avoid[0], got %v", err)
	}
}

// TestBroadcastAlgo: a broadcast runs the binomial broadcast whatever the
// gate schedule, so an algo other than butterfly is refused (its message
// says butterfly is the one allowed) rather than ignored and written into
// the system's name (hyperxbar-4x4-dissemination-broadcast ran the same
// as ...-butterfly-broadcast).
func TestBroadcastAlgo(t *testing.T) {
	for _, a := range hw.Algorithms {
		sys := small()
		sys.Collective, sys.Algo = hw.CollBroadcast, a
		_, err := design.DataSchedule(&sys)
		fe, _ := errors.AsType[*hw.FieldError](err)
		if (a == hw.AlgoButterfly) != (err == nil) || err != nil && (fe == nil || fe.Field != "algo") {
			t.Errorf("broadcast with algo %s: %v", a, err)
		}
	}
}
