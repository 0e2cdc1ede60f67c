package sim

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/hxbar/hxbar/barrierunit"
	"github.com/hxbar/hxbar/hw"
	"github.com/hxbar/hxbar/noc"
)

// TestTofuDExample: examples/tofu-d-fugaku.yaml's schedule (the near-last
// butterfly for 158,976 ranks, not a power of two) is proved a correct
// reduction by the verifier, its mesh/torus routing is proved minimal and
// deadlock-free dimension by dimension, and the gate tables the model runs
// (GenerateFlat, above 2^16 ranks) are the verified schedule's.
func TestTofuDExample(t *testing.T) {
	if testing.Short() {
		t.Skip("a 158,976-rank schedule")
	}
	sys, err := hw.Load(filepath.Join("..", "examples", "tofu-d-fugaku.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	R := sys.NumRanks()
	sched, err := barrierunit.Generate(sys.Algo, R)
	if err != nil {
		t.Fatal(err)
	}
	if rep := barrierunit.Verify(sched, barrierunit.OpSum); !rep.OK {
		t.Fatalf("the butterfly for %d ranks: %s", R, rep)
	}
	flat, err := barrierunit.Flatten(sched)
	if err != nil {
		t.Fatal(err)
	}
	direct, err := barrierunit.GenerateFlat(sys.Algo, R)
	if err != nil {
		t.Fatal(err)
	}
	if flat.Gates != direct.Gates || !slices.Equal(flat.OutDst, direct.OutDst) || !slices.Equal(flat.OutStart, direct.OutStart) ||
		!slices.Equal(flat.OutEnd, direct.OutEnd) || !slices.Equal(flat.Need, direct.Need) || !slices.Equal(flat.Self, direct.Self) {
		t.Fatalf("GenerateFlat's tables (%d gates, %d routes) differ from the verified schedule's (%d, %d)", direct.Gates, len(direct.OutDst), flat.Gates, len(flat.OutDst))
	}
	fab, err := noc.FabricOf(&sys)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := noc.CheckByDimension(fab.(*noc.Torus), 2000, sys.Seed)
	if err != nil || !rep.Minimal || !rep.Acyclic {
		t.Fatalf("routing: %+v %v", rep, err)
	}
}
