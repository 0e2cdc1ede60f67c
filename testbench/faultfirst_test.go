package testbench

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hxbar/hxbar/hw"
	"github.com/hxbar/hxbar/sim"
	"github.com/hxbar/hxbar/verilog"
)

// A fault aimed with @first reaches the RTL at the cycle the model's run
// hit it (Resolved), the co-simulation agrees, and system.yaml keeps the
// spec as given; a design whose @first is not resolved is refused.
func TestFaultFirstCosim(t *testing.T) {
	sys := hw.Default()
	sys.Op = hw.OpSum
	sys.Watchdog = 100
	sys.Faults = []string{"flip:n4.d0.up@first:3", "drop:n5.d1.down@first"}
	if err := sys.Validate(); err != nil {
		t.Fatal(err)
	}
	s, err := sim.Build(sys, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := faultInjection(s.Design); err == nil || !strings.Contains(err.Error(), "faults[0]") || !strings.Contains(err.Error(), "@first") {
		t.Errorf("unresolved @first: %v", err)
	}
	if _, _, err := Trace(s); err != nil {
		t.Fatal(err)
	}
	inj, err := faultInjection(Resolved(s))
	if err != nil {
		t.Fatal(err)
	}
	// The model hits the misrouting flip in cycle 50 (sim's TestFaultEffects).
	for _, want := range []string{"// flip:n4.d0.up@50:3: tile4.g_dim[0].up", "if (run && cyc == 64'd50) dut.tile4.g_dim[0].up.ch.fi_mask[3] = 1'b1;"} {
		if !strings.Contains(inj.drive, want) {
			t.Errorf("tb.v lacks %q:\n%s", want, inj.drive)
		}
	}
	if s.Sys.Faults[0] != "flip:n4.d0.up@first:3" {
		t.Errorf("Resolved changed the run's system: %q", s.Sys.Faults)
	}

	needTools(t, Icarus)
	dir := t.TempDir()
	rep, err := CosimSystem(ctxFor(t, 5*time.Minute), dir, sys, Icarus)
	if err != nil {
		t.Fatalf("cosim: %v\n%v", err, rep)
	}
	if len(rep.Errors) == 0 || rep.Errors[0].Code != "CRC" {
		t.Errorf("the compared run has errors %+v, want the flip's CRC first", rep.Errors)
	}
	b, err := os.ReadFile(filepath.Join(dir, verilog.SystemFile))
	if err != nil || !strings.Contains(string(b), "flip:n4.d0.up@first:3") {
		t.Errorf("system.yaml does not keep the spec as given (%v)", err)
	}
}

// TestFaultFirstNeverHit: a fault aimed with @first at a channel no flit
// crosses (the ejection port of a node without a rank) never fires: the
// testbench injects nothing and prints no DROPS, and the co-simulation
// passes (it reported "no DROPS line" as a difference from the model).
func TestFaultFirstNeverHit(t *testing.T) {
	needTools(t, Icarus)
	t.Parallel()
	sys := hw.Default()
	sys.Name, sys.Dims, sys.Ranks, sys.Watchdog = "first-never-hit", []int{3, 3}, 4, 300
	sys.Faults = []string{"flip:n5.eject@first:3"}
	rep, err := CosimSystem(ctxFor(t, 5*time.Minute), t.TempDir(), sys, Icarus)
	if err != nil {
		t.Fatalf("cosim: %v", err)
	}
	if len(rep.Errors) != 0 {
		t.Errorf("errors %+v: the fault never fires", rep.Errors)
	}
}
