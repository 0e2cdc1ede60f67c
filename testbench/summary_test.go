package testbench

import (
	"strings"
	"testing"

	"github.com/hxbar/hxbar/sim"
)

// TestSummaryNamesIdleFaults: a co-simulation that matched but whose
// fault hit nothing says so (the run tested nothing of that fault); a
// fault that hit and a stuck rank (which hits no flit by design) are
// not named.
func TestSummaryNamesIdleFaults(t *testing.T) {
	r := &Report{Faults: []sim.FaultResult{
		{Spec: "flip:n0.d0+.vc1@first:0", Hits: 0, First: -1, Effect: "hit nothing: no flit crossed the channel in the whole run"},
		{Spec: "drop:n1.inject@3", Hits: 1, First: 3, Effect: "cycle 3: dropped a packet"},
		{Spec: "stuck:2", Effect: "rank 2 never arrives"},
	}}
	got := r.idleFaults()
	if want := "; fault flip:n0.d0+.vc1@first:0 hit nothing: no flit crossed the channel in the whole run"; got != want {
		t.Fatalf("idleFaults = %q, want %q", got, want)
	}
	r.Faults = r.Faults[1:]
	if got := r.idleFaults(); got != "" || strings.Contains(got, "stuck") {
		t.Fatalf("idleFaults = %q, want none", got)
	}
}
