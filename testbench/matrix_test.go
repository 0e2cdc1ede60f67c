package testbench

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/hxbar/hxbar/barrierunit"
	"github.com/hxbar/hxbar/hw"
	"github.com/hxbar/hxbar/sim"
)

// matrixDesigns are the systems of the co-simulation matrix. Each is one
// compiled design (dims, ranks, placement, algo, op, L, B, FW); the seeds
// vary the arrivals and operands, which only change the data files.
func matrixDesigns(t testing.TB) []hw.System {
	d := []hw.System{
		system(t, "m01-line2-bfly-barrier", []int{2}, 2, "butterfly", "barrier", 1, 2, 64),
		system(t, "m02-line4-r3-nearfirst-sum-B1-fw16", []int{4}, 3, "butterfly-near-first", "sum", 1, 1, 16),
		system(t, "m03-2x2-diss-max-L3-fw32", []int{2, 2}, 4, "dissemination", "max", 3, 2, 32),
		system(t, "m04-line8-r5-bfly-xor-B1", []int{8}, 5, "butterfly", "xor", 1, 1, 64),
		system(t, "m05-3x3-r6-nearfirst-min-L3-B1-fw16", []int{3, 3}, 6, "butterfly-near-first", "min", 3, 1, 16),
		system(t, "m06-line8-r7-diss-or-L2-fw32", []int{8}, 7, "dissemination", "or", 2, 4, 32),
		system(t, "m07-2x4-bfly-and-fw16", []int{2, 4}, 8, "butterfly", "and", 1, 2, 16),
		system(t, "m08-4x4-r12-diss-barrier-L3-B1", []int{4, 4}, 12, "dissemination", "barrier", 3, 1, 64),
		system(t, "m09-line12-nearfirst-sum-L2-B1", []int{12}, 12, "butterfly-near-first", "sum", 2, 1, 64),
		system(t, "m10-line16-bfly-sum-fw32", []int{16}, 16, "butterfly", "sum", 1, 4, 32),
		system(t, "m11-2x8-nearfirst-max-L2-B1", []int{2, 8}, 16, "butterfly-near-first", "max", 2, 1, 64),
		system(t, "m12-4x4-bfly-min-fw16", []int{4, 4}, 16, "butterfly", "min", 1, 2, 16),
		system(t, "m13-8x8-bfly-sum", []int{8, 8}, 64, "butterfly", "sum", 1, 4, 64),
		system(t, "m14-4x4x4-nearfirst-xor-L3-B1-fw32", []int{4, 4, 4}, 64, "butterfly-near-first", "xor", 3, 1, 32),
	}
	// Ranks placed off the identity: rank r on a scattered node.
	p := system(t, "m15-3x3-r6-placed-diss-and-L2", []int{3, 3}, 6, "dissemination", "and", 2, 2, 64)
	p.Placement = []int{8, 4, 0, 2, 6, 7}
	if err := p.Validate(); err != nil {
		t.Fatal(err)
	}
	return append(d, p)
}

// matrixSkews are the arrival skews the seeds cycle through: all at once,
// nearly at once, spread, widely spread.
var matrixSkews = []int{0, 3, 17, 60}

// TestCosimMatrix co-simulates every design of matrixDesigns under Icarus
// and requires every run to match the model cycle for cycle: make test
// runs 4 seeds per design (one per skew of matrixSkews) and 1 for the two
// 64-node designs, 54 runs; make bench (HXBAR_FULL_MATRIX) 20 seeds each,
// 300 runs. Each design is compiled once (the later seeds reuse the
// build: only system.yaml and the data files change); designs run two at a
// time.
func TestCosimMatrix(t *testing.T) {
	needTools(t, Icarus)
	t.Parallel()
	seeds := len(matrixSkews) // make test: every skew once (TestCosimRandom draws more designs)
	if fullMatrix() {
		seeds = 20
	}
	if testing.Short() {
		seeds = 2
	}
	designs := matrixDesigns(t)
	checkMatrixCoverage(t, designs)
	// The two 64-node designs run one seed in make test: their runs are dominated by the
	// configuration phase (every node's port and the fabric write every
	// table through APB before cycle 0, ~300 cycles of all 64 units'
	// decode logic switching), which the seeds do not vary.
	var small, big []hw.System
	for _, d := range designs {
		if d.NumRanks() >= 64 {
			big = append(big, d)
		} else {
			small = append(small, d)
		}
	}
	seedOf := func(i, k int) uint64 { return uint64(1000*(i+1) + k) }
	runMatrix(t, "matrix", small, seeds, matrixSkews, seedOf, nil)
	bigSeeds := 1     // make test: one seed (the 4x4x4 design's four took 6 minutes)
	if fullMatrix() { // make bench: as many as the small designs
		bigSeeds = seeds
	}
	runMatrix(t, "matrix-64", big, bigSeeds, matrixSkews, func(i, k int) uint64 { return seedOf(i+len(small), k) }, nil)
}

// runMatrix co-simulates every design for seeds seeds (seed seedOf(design,
// k), skew skews[k] round robin), the designs in parallel, each compiled
// once (later seeds only change system.yaml and the data files), and
// requires every run to match the model cycle for cycle; check, when set,
// looks further at each run's system and report.
func runMatrix(t *testing.T, label string, designs []hw.System, seeds int, skews []int, seedOf func(i, k int) uint64, check func(t *testing.T, s *sim.System, rep *Report)) {
	var mu sync.Mutex
	runs, events := 0, 0
	start := time.Now()
	t.Cleanup(func() {
		t.Logf("%s: %d designs, %d co-simulations (%d events) in %v", label, len(designs), runs, events, time.Since(start).Round(time.Millisecond))
	})
	for i, sys := range designs {
		t.Run(sys.Name, func(t *testing.T) {
			t.Parallel()
			dir := filepath.Join(t.TempDir(), sys.Name)
			begin := time.Now()
			for k := 0; k < seeds; k++ {
				sys := sys
				sys.Seed = seedOf(i, k)
				sys.Skew = skews[k%len(skews)]
				s, _ := generate(t, dir, sys)
				rep, err := Cosim(ctxFor(t, 5*time.Minute), dir, Icarus)
				var mm *MismatchError
				if errors.As(err, &mm) {
					t.Fatalf("seed %d skew %d: %s", sys.Seed, sys.Skew, rep.String())
				}
				if err != nil {
					t.Fatalf("seed %d skew %d: %v", sys.Seed, sys.Skew, err)
				}
				if !rep.OK() || len(rep.Run.Verdicts) != 1 {
					t.Fatalf("seed %d: report not OK without an error: %s", sys.Seed, rep.String())
				}
				if rep.Run.Compiled != (k == 0) {
					t.Errorf("seed %d: compiled = %v, want a build only for the first seed", sys.Seed, rep.Run.Compiled)
				}
				if check != nil {
					check(t, s, rep)
				}
				mu.Lock()
				runs++
				events += rep.Events
				mu.Unlock()
			}
			t.Logf("%d seeds in %v", seeds, time.Since(begin).Round(time.Millisecond))
		})
	}
}

// checkMatrixCoverage requires what the matrix promises: rank counts
// 2..8, 12, 16 on 1-D and 2-D systems, two 64-node systems (8x8, 4x4x4),
// every algorithm, every op (dissemination only with idempotent ops), link
// latency 3, buffer depth 1, flit widths 16, 32 and 64.
func checkMatrixCoverage(t *testing.T, designs []hw.System) {
	ranks := map[int]bool{}
	dims := map[int]bool{}
	algos, ops := map[hw.Algorithm]bool{}, map[hw.OpName]bool{}
	fws := map[int]bool{}
	var l3, b1, big8x8, big444 bool
	for _, s := range designs {
		ranks[s.NumRanks()] = true
		dims[len(s.Dims)] = true
		algos[s.Algo], ops[s.Op] = true, true
		fws[s.FlitWidth] = true
		l3 = l3 || s.LinkLatency == 3
		b1 = b1 || s.BufferDepth == 1
		big8x8 = big8x8 || slices.Equal(s.Dims, []int{8, 8})
		big444 = big444 || slices.Equal(s.Dims, []int{4, 4, 4})
		if s.Algo == "dissemination" {
			op, err := barrierunit.ParseOp(string(s.Op))
			if err != nil || !op.Idempotent() {
				t.Errorf("%s: dissemination with op %s", s.Name, s.Op)
			}
		}
	}
	var missing []string
	for _, r := range []int{2, 3, 4, 5, 6, 7, 8, 12, 16, 64} {
		if !ranks[r] {
			missing = append(missing, fmt.Sprintf("%d ranks", r))
		}
	}
	for _, a := range hw.Algorithms {
		if !algos[a] {
			missing = append(missing, "algo "+string(a))
		}
	}
	for _, o := range hw.Ops {
		if !ops[o] {
			missing = append(missing, "op "+string(o))
		}
	}
	for _, w := range []int{16, 32, 64} {
		if !fws[w] {
			missing = append(missing, fmt.Sprintf("flit width %d", w))
		}
	}
	if !dims[1] || !dims[2] || !dims[3] || !l3 || !b1 || !big8x8 || !big444 {
		missing = append(missing, "1-D, 2-D, 3-D, link latency 3, buffer depth 1, 8x8 and 4x4x4")
	}
	if len(missing) > 0 {
		t.Fatalf("the matrix lacks: %v", missing)
	}
}

// TestCosimTailThenHead is the first scenario of the matrix in which the RTL
// and the model disagreed. In cycle 29 the exchanger of node 3 sends the tail
// of rank 1's packet on its output 0 while rank 2's head waits at input 1 for
// that output. docs/microarchitecture.md ("Switch") decides each output from
// the state at the start of the cycle: the output is owned in cycle 29, so
// the head is granted in cycle 30 (the RTL: recv at node 3 in cycle 37). A
// model that frees the output and grants it again within cycle 29 sends two
// flits on one channel in one cycle and delivers in cycle 36.
func TestCosimTailThenHead(t *testing.T) {
	needTools(t, Icarus)
	sys := system(t, "tail-then-head", []int{2, 2}, 4, "dissemination", "max", 3, 2, 32)
	sys.Seed, sys.Skew = 3006, 17
	dir := t.TempDir()
	generate(t, dir, sys)
	rep, err := Cosim(ctxFor(t, 5*time.Minute), dir, Icarus)
	var mm *MismatchError
	if errors.As(err, &mm) {
		t.Fatal(rep)
	}
	if err != nil {
		t.Fatal(err)
	}
}
