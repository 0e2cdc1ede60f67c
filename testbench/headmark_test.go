package testbench

import (
	"bytes"
	"testing"
	"time"

	"github.com/hxbar/hxbar/hw"
)

// TestCosimHeadMarkOnPayload: a flipped head mark turns a payload flit
// into a head whose header is its data; the unit it reaches raises
// BADGATE naming the source rank the data holds (14 of 9 ranks here).
// Model and RTL must agree on that error cycle for cycle. Found by the
// review of issue 20: the testbench refused the model's trace ("source
// rank out of range"), so `hxbar cosim --dims 3,3 --collective allgather
// --watchdog 300 --fault flip:n4.d0.up@51:97` could not be co-simulated.
func TestCosimHeadMarkOnPayload(t *testing.T) {
	needTools(t, Icarus)
	for _, f := range []string{"flip:n4.d0.up@51:97", "flip:n4.d0.up@54:97"} {
		sys := hw.Default()
		sys.Dims, sys.Collective, sys.Watchdog = []int{3, 3}, "allgather", 300
		sys.Faults = []string{f}
		if err := sys.Validate(); err != nil {
			t.Fatal(err)
		}
		dir := t.TempDir()
		_, trace := generate(t, dir, sys)
		if !bytes.Contains(trace, []byte("BADGATE")) {
			t.Fatalf("%s: the model raises no BADGATE; the case tests nothing", f)
		}
		run, err := RunSimulator(ctxFor(t, 5*time.Minute), dir, Icarus)
		if err != nil {
			t.Fatal(err)
		}
		if d := Compare(Lines(trace), run.Trace); d != nil || !run.Passed() {
			t.Errorf("%s: RTL differs from the model: %v", f, d)
		}
	}
}
