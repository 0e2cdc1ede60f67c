package testbench

import (
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/hxbar/hxbar/hw"
	"github.com/hxbar/hxbar/sim"
)

// TestSpeed measures simulated cycles per second of the Go model, Icarus and
// Verilator on one long scenario of the 64-node 8x8 system (sum, arrivals
// spread over 2000 cycles), as reported in docs/cosim.md. It is long, so it
// runs only with HXBAR_SPEED=1:
//
//	HXBAR_SPEED=1 go test -run TestSpeed -v ./testbench/
func TestSpeed(t *testing.T) {
	if os.Getenv("HXBAR_SPEED") == "" {
		t.Skip("set HXBAR_SPEED=1 to measure (several minutes)")
	}
	needTools(t, Icarus)
	sys := system(t, "speed-8x8-sum", []int{8, 8}, 0, "butterfly", "sum", 1, 4, 64)
	sys.Seed, sys.Skew = 1, 2000
	// HXBAR_SPEED_DIR keeps the two directories (and their builds) between
	// runs: the 64-node Verilator build takes minutes.
	base := os.Getenv("HXBAR_SPEED_DIR")
	if base == "" {
		base = t.TempDir()
	}
	dir := filepath.Join(base, "speed")
	generate(t, dir, sys)

	// Go model: best of several runs, with and without the trace.
	model := func(sys hw.System, trace bool) (int64, time.Duration) {
		best := time.Duration(1 << 62)
		var cycles int64
		for i := 0; i < 20; i++ {
			s, err := sim.Build(sys, nil)
			if err != nil {
				t.Fatal(err)
			}
			var opt sim.Options
			if trace {
				opt.Trace = io.Discard
			}
			start := time.Now()
			res, err := s.Run(opt)
			d := time.Since(start)
			if err != nil {
				t.Fatal(err)
			}
			cycles, best = res.Cycles, min(best, d)
		}
		return cycles, best
	}
	cycles, goRun := model(sys, false)
	_, goTrace := model(sys, true)
	rate := func(d time.Duration) float64 { return float64(cycles) / d.Seconds() }
	t.Logf("scenario: 8x8, 64 ranks, butterfly sum, skew 2000: %d cycles", cycles)
	t.Logf("Go model:  run %v (%.3g cycles/s), with trace %v (%.3g cycles/s)", goRun, rate(goRun), goTrace, rate(goTrace))

	// Startup cost of a simulator: the same design with every rank arriving
	// at once (a short run), to separate the per-cycle rate.
	short := sys
	short.Skew = 0
	shortDir := filepath.Join(base, "short")
	generate(t, shortDir, short)
	_, _, shortRes, err := RunModel(short)
	if err != nil {
		t.Fatal(err)
	}
	// The Go model skips cycles in which nothing can change; the short run
	// has work in nearly every cycle.
	sc, sd := model(short, false)
	t.Logf("Go model, short run (every rank at cycle 0, %d cycles, busy nearly every cycle): %v (%.3g cycles/s)", sc, sd, float64(sc)/sd.Seconds())

	for _, simulator := range []string{Icarus, Verilator} {
		if simulator == Verilator {
			needTools(t, Verilator)
		}
		rep, err := Cosim(ctxFor(t, 30*time.Minute), dir, simulator)
		if err != nil {
			t.Fatalf("%s: %v", simulator, err)
		}
		srep, err := Cosim(ctxFor(t, 30*time.Minute), shortDir, simulator)
		if err != nil {
			t.Fatalf("%s short: %v", simulator, err)
		}
		run := rep.SimTime
		marginal := float64(cycles-shortRes.Cycles) / (run - srep.SimTime).Seconds()
		t.Logf("%-9s build %v; run %v = %.3g cycles/s (short run of %d cycles %v; per cycle beyond startup %.3g cycles/s); Go model faster by %.0fx (%.0fx with trace)",
			simulator, rep.Run.CompileTime.Round(time.Millisecond), run.Round(time.Millisecond), rate(run),
			shortRes.Cycles, srep.SimTime.Round(time.Millisecond), marginal, run.Seconds()/goRun.Seconds(), run.Seconds()/goTrace.Seconds())
	}
}
