package testbench

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hxbar/hxbar/hw"
)

// randomDesignsInTest is the sample of random designs plain 'go test'
// co-simulates ('make cosim-random N=...' runs more).
const randomDesignsInTest = 30

// TestCosimRandom co-simulates the random designs of seeds 1..30 under
// Icarus (docs/testing.md, "Random co-simulation"): every one must match
// the model cycle for cycle. A failure is shrunk and printed with its
// seed and its system file.
func TestCosimRandom(t *testing.T) {
	needTools(t, Icarus)
	t.Parallel()
	n := randomDesignsInTest
	if testing.Short() {
		n = 6
	}
	var mu sync.Mutex
	var features randomFeatures
	t.Cleanup(func() { t.Logf("%d random designs: %s", n, features.String()) })
	var next atomic.Uint64 // the seeds, taken in turn by whichever worker is free
	for w := 0; w < 2; w++ {
		t.Run(fmt.Sprintf("worker%d", w), func(t *testing.T) {
			t.Parallel()
			for seed := next.Add(1); seed <= uint64(n); seed = next.Add(1) {
				sys, err := RandomDesign(seed)
				if err != nil {
					t.Fatal(err)
				}
				mu.Lock()
				features.add(sys)
				mu.Unlock()
				if msg := cosimRandom(t, sys); msg != "" {
					small := Shrink(sys, func(c hw.System) bool { return cosimRandom(t, c) != "" }, 40)
					t.Errorf("random design %d: %s\nreproduce: go run ./tools/cosimrand -seed %d -n 1\nshrunk system:\n%s", seed, msg, seed, systemYAML(t, small))
				}
			}
		})
	}
}

// cosimRandom co-simulates sys and returns "" when the RTL matches the
// model, else the first difference (or the run's error).
func cosimRandom(t *testing.T, sys hw.System) string {
	dir := filepath.Join(t.TempDir(), sys.Name)
	rep, err := CosimSystem(ctxFor(t, 5*time.Minute), dir, sys, Icarus)
	if mm, ok := errors.AsType[*MismatchError](err); ok {
		return mm.Report.Summary()
	}
	if err != nil {
		return err.Error()
	}
	if !rep.OK() {
		return rep.Summary()
	}
	return ""
}

func systemYAML(t *testing.T, sys hw.System) string {
	b, err := sys.YAML()
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestRandomDesignsCover: the generator reaches what it promises (docs/
// testing.md): over 200 seeds, multi-episode runs whose gate counts
// change, every op and collective, faults of every kind, 2 and 3 faults
// in one run, retry, a watchdog, avoided channels, both check-code widths,
// 1-3 dimensions, partial rank sets and placements; and a seed always
// draws the same design.
func TestRandomDesignsCover(t *testing.T) {
	var f randomFeatures
	for seed := uint64(1000); seed < 1200; seed++ {
		sys, err := RandomDesign(seed)
		if err != nil {
			t.Fatal(err)
		}
		again, _ := RandomDesign(seed)
		if a, b := systemYAML(t, sys), systemYAML(t, again); a != b {
			t.Fatalf("seed %d draws two designs:\n%s\n%s", seed, a, b)
		}
		if err := sys.Validate(); err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		f.add(sys)
	}
	if miss := f.missing(); len(miss) > 0 {
		t.Errorf("200 random designs never drew: %s (%s)", strings.Join(miss, ", "), f.String())
	}
}

// TestShrinkKeepsTheFailure: Shrink walks down to a design that still
// fails and from which no step fails: with a failure that needs a drop
// fault and two episodes, it removes every other fault, the avoided
// channels, the retry and the extra episodes, and lowers the latency.
func TestShrinkKeepsTheFailure(t *testing.T) {
	var sys hw.System
	for seed := uint64(1); ; seed++ {
		s, err := RandomDesign(seed)
		if err != nil {
			t.Fatal(err)
		}
		if len(s.Episodes) >= 3 && hasFault(s, hw.FaultDrop) && len(s.Faults) >= 2 {
			sys = s
			break
		}
		if seed > 5000 {
			t.Fatal("no random design with 3 episodes and 2 faults, one a drop, in 5000 seeds")
		}
	}
	sys.LinkLatency, sys.Avoid = 3, []string{"n0.d0.up"}
	fails := func(c hw.System) bool { return hasFault(c, hw.FaultDrop) && c.NumEpisodes() >= 2 }
	small := Shrink(sys, fails, 200)
	if !fails(small) {
		t.Fatalf("the shrunk design does not fail: %+v", small)
	}
	if len(small.Faults) != 1 || small.NumEpisodes() != 2 || small.LinkLatency != 1 || len(small.Avoid) != 0 || small.Skew != 0 {
		t.Errorf("shrunk to faults %v, %d episodes, L %d, avoid %v, skew %d: want one drop, 2 episodes, L 1, no avoid, skew 0",
			small.Faults, small.NumEpisodes(), small.LinkLatency, small.Avoid, small.Skew)
	}
	for _, c := range shrinkSteps(small) {
		if c.Validate() == nil && fails(c) {
			t.Errorf("a further step still fails: %v, %d episodes", c.Faults, c.NumEpisodes())
		}
	}
	n := 0
	if Shrink(sys, func(hw.System) bool { n++; return false }, 5).Name != sys.Name || n > 5 {
		t.Errorf("Shrink called fails %d times with a budget of 5", n)
	}
}

func hasFault(s hw.System, kind string) bool {
	for _, spec := range s.Faults {
		if f, err := hw.ParseFault(spec); err == nil && f.Kind == kind {
			return true
		}
	}
	return false
}
