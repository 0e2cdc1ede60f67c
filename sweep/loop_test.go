package sweep

import (
	"testing"

	"github.com/hxbar/hxbar/hw"
	"github.com/hxbar/hxbar/sim"
)

// TestMeasureLoop: a loop's figures reach the sweep from sim's one
// definition; a run without a loop counts its episodes, and an
// incomplete loop has no period.
func TestMeasureLoop(t *testing.T) {
	run := func(sys hw.System) Measures {
		s, err := sim.Build(sys, nil)
		if err != nil {
			t.Fatal(err)
		}
		res, _ := s.Run(sim.Options{})
		return Measure(res)
	}
	sys := hw.Default()
	sys.Dims, sys.Skew, sys.Iterations, sys.Compute = []int{4, 4}, 0, 20, 5
	m := run(sys)
	if m.Iterations != 20 || m.AvgPeriod == nil || m.AvgLatency == nil {
		t.Fatalf("loop: %+v", m)
	}
	// Butterfly at skew 0: every iteration takes the latency, the next
	// starts 1 + compute cycles after the release, and the period runs
	// to the cycle after the last release: (N*(lat+6) - 5) / N.
	lat := float64(*m.Latency)
	if *m.AvgLatency != lat || *m.AvgPeriod != lat+1+5-5.0/20 {
		t.Errorf("avg_latency %v, avg_period %v, latency %v", *m.AvgLatency, *m.AvgPeriod, lat)
	}
	sys.Iterations, sys.Repeat, sys.Compute = 1, 3, 0
	if m := run(sys); m.Iterations != 3 || m.Episodes != 3 {
		t.Errorf("3 episodes: iterations %d, episodes %d", m.Iterations, m.Episodes)
	}
	sys.Repeat, sys.Iterations, sys.MaxCycles = 1, 20, 100
	if m := run(sys); m.Complete || m.AvgPeriod != nil || m.Iterations < 2 {
		t.Errorf("a loop stopped by max_cycles: complete %v, avg_period %v, iterations %d", m.Complete, m.AvgPeriod, m.Iterations)
	}
}
