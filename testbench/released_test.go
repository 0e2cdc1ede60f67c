package testbench

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hxbar/hxbar/hw"
)

// TestReleasedRisesWithItsEvent: a unit whose released output rises one
// gate early (while it still waits at its last gate) changes no event of
// the trace in a run's last episode; tb.v's released check must fail it,
// and pass the unmutated unit.
func TestReleasedRisesWithItsEvent(t *testing.T) {
	needTools(t, Icarus)
	t.Parallel()
	ctx := ctxFor(t, 5*time.Minute)
	sys := hw.Default()
	sys.Dims = []int{2, 2}
	dir := filepath.Join(t.TempDir(), "d")
	generate(t, dir, sys)
	if rep, err := Cosim(ctx, dir, Icarus); err != nil || !rep.OK() {
		t.Fatalf("unmutated: %v", err)
	}
	path := filepath.Join(dir, "hx_barrier_unit.v")
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	from := "assign released = en && !failed && (cur == gend);"
	to := "assign released = en && !failed && (cur == gend || (cur != 6'd0 && cur == ng));"
	if bytes.Count(src, []byte(from)) != 1 {
		t.Fatalf("%q not found once in hx_barrier_unit.v", from)
	}
	if err := os.WriteFile(path, bytes.Replace(src, []byte(from), []byte(to), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := RunSimulator(ctx, dir, Icarus)
	if err != nil {
		t.Fatal(err)
	}
	if res.Passed() || !strings.Contains(res.Verdict(), "FAIL released") {
		t.Errorf("mutant: want the released FAIL, got %q (exit %d)", res.Verdict(), res.ExitCode)
	}
}
