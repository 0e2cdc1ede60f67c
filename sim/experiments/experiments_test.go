package experiments

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hxbar/hxbar/collective"
)

var results *Results

func collect(t *testing.T) *Results {
	t.Helper()
	if results == nil {
		r, err := Collect(Default())
		if err != nil {
			t.Fatal(err)
		}
		results = r
	}
	return results
}

// TestFiguresToReach checks the figures on the runs the document
// reports: the six orders rank as the seed says and are within 5 % of its
// ratios at 256 flits per item; near-last moves at least 2x fewer
// flit-hops than near-first on the 16-node ring and finishes sooner, at
// every item size; the line, the mesh and the mixed wrap move the ring's
// and the torus's flit-hops, the line in fewer cycles than the ring; on
// the hyper-crossbar the two orders tie.
func TestFiguresToReach(t *testing.T) {
	r := collect(t)
	fo := last(r.Opt.OrderFlits)
	bySeed := slices.Clone(collective.SeedOrders)
	slices.SortFunc(bySeed, func(a, b string) int { return SeedCost[a] - SeedCost[b] })
	if got := r.OrdersByCycles(fo); !slices.Equal(got, bySeed) {
		t.Errorf("orders by cycles %v, the seed's %v", got, bySeed)
	}
	if d := r.OrderDeviation(fo); d > 0.05 {
		t.Errorf("largest deviation from the seed's ratios %.1f %%", 100*d)
	}
	for _, f := range r.Opt.DoubleFlits {
		ring := Ring16
		if h, c := r.HopRatio(ring, f), r.CycleRatio(ring, f); h < 2 || c <= 1 {
			t.Errorf("ring, %d flits/item: near-first / near-last flit-hops %.2f, cycles %.2f", f, h, c)
		}
		// A line moves the ring's flit-hops, a mesh and the mixed wrap
		// the torus's, but without the ring's ties the line is faster.
		for _, pr := range [][2]string{{Line16, Ring16}, {Mesh4x4, Torus4x4}, {Mixed4x4, Torus4x4}} {
			a, b := r.Double[pr[0]][f], r.Double[pr[1]][f]
			if a[0].FlitHops != b[0].FlitHops || a[1].FlitHops != b[1].FlitHops {
				t.Errorf("%s, %d flits/item: flit-hops %d/%d, %s's %d/%d", pr[0], f, a[0].FlitHops, a[1].FlitHops, pr[1], b[0].FlitHops, b[1].FlitHops)
			}
		}
		if l, g := r.Double[Line16][f], r.Double[Ring16][f]; l[0].Cycles >= g[0].Cycles || l[1].Cycles >= g[1].Cycles {
			t.Errorf("%d flits/item: the line takes %d/%d cycles, the ring %d/%d", f, l[0].Cycles, l[1].Cycles, g[0].Cycles, g[1].Cycles)
		}
		for _, n := range []string{HyperX16, HyperX4x4} {
			if h := r.HopRatio(n, f); h != 1 {
				t.Errorf("%s, %d flits/item: hop ratio %.2f, want 1", n, f, h)
			}
		}
	}
	if d := r.WideDeviation(); d > 0.05 {
		t.Errorf("64 nodes, 8 items: largest deviation from the seed's cost ratios %.1f %%", 100*d)
	}
	for i := 1; i < len(r.Wide); i++ {
		for j := 0; j < i; j++ {
			a, b := r.Wide[i], r.Wide[j]
			if (a.Cost < b.Cost) != (a.Run.Cycles < b.Run.Cycles) && a.Cost != b.Cost {
				t.Errorf("64 nodes: %s costs %d and takes %d cycles, %s costs %d and takes %d", a.Order, a.Cost, a.Run.Cycles, b.Order, b.Cost, b.Run.Cycles)
			}
		}
	}
	for _, m := range r.Opt.RingSizes {
		pr := r.Rings[m]
		got := float64(pr[1].FlitHops) / float64(pr[0].FlitHops)
		if want := RingHopRatio(m); got > want || got < 0.9*want {
			t.Errorf("ring %d: hop ratio %.3f, the analysis gives %.3f (head flits keep it a little below)", m, got, want)
		}
	}
	for _, c := range r.Cases {
		if r.Duplex[c]["half"].Cycles < r.Duplex[c]["full"].Cycles {
			t.Errorf("%s: half duplex faster than full", c)
		}
	}
}

// TestDocInStep keeps docs/experiments.md equal to what the experiments
// measure now: run `make experiments` after changing the model.
func TestDocInStep(t *testing.T) {
	r := collect(t)
	var b strings.Builder
	plots := make([]string, len(plotFiles))
	for i, f := range plotFiles {
		plots[i] = "img/" + f
	}
	r.Markdown(&b, plots)
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "experiments.md"))
	if err != nil {
		t.Fatal(err)
	}
	if string(doc) != b.String() {
		t.Fatal("docs/experiments.md is not what the model measures now: run make experiments")
	}
	for _, f := range plotFiles {
		if _, err := os.Stat(filepath.Join("..", "..", "docs", "img", f)); err != nil {
			t.Error(err)
		}
	}
}

// TestPlots draws the plots into a temporary directory.
func TestPlots(t *testing.T) {
	r := collect(t)
	dir := t.TempDir()
	files, err := r.Plots(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		data, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil || !strings.Contains(string(data), "<svg") || !strings.HasPrefix(string(data), "<?xml version=\"1.0\"?>\n"+svgMarker) {
			t.Errorf("%s: %v", f, err)
		}
	}
}
