package formal

import (
	"os"
	"path/filepath"
	"testing"
)

// The lines yosys-abc 0.23's bmc3 and print_stats print (copied from
// runs of make formal); the runner's verdicts are read from them.
const (
	abcCex   = "Output 0 of miter \"hx_formal\" was asserted in frame 57. Time =    29.17 sec\n"
	abcClean = "\x1b[1;37mhx_formal                     :\x1b[0m i/o =    4/    2  lat =  496  and =   2945  lev = 33\n" +
		"No output asserted in 86 frames. Resource limit reached (conf limit 0). Time =   393.83 sec\n"
)

func TestParseABC(t *testing.T) {
	if f, ok := assertedFrame([]byte(abcCex)); !ok || f != 57 {
		t.Errorf("assertedFrame(cex) = %d, %v; want 57, true", f, ok)
	}
	if _, ok := assertedFrame([]byte(abcClean)); ok {
		t.Error("assertedFrame found a counterexample in a clean run")
	}
	if n, ok := checkedFrames([]byte(abcClean)); !ok || n != 86 {
		t.Errorf("checkedFrames(clean) = %d, %v; want 86, true", n, ok)
	}
	if _, ok := checkedFrames([]byte(abcCex)); ok {
		t.Error("checkedFrames read a depth from a counterexample")
	}
	if l, a := stats([]byte(abcClean)); l != 496 || a != 2945 {
		t.Errorf("stats = %d latches, %d ands; want 496, 2945", l, a)
	}
}

// TestFailedAssert names the check of the failing output from the map
// write_aiger -miter writes (outputs in port order).
func TestFailedAssert(t *testing.T) {
	dir := t.TempDir()
	aim := "input 0 0 clk\ninput 1 0 arr\noutput 0 0 refused\noutput 1 0 early\nlatch 0 0 init\n"
	if err := os.WriteFile(filepath.Join(dir, MapFile), []byte(aim), 0o644); err != nil {
		t.Fatal(err)
	}
	for out, want := range map[string]string{
		"Output 1 of miter \"hx_formal\" was asserted in frame 3.": checks["early"],
		"Output 0 of miter \"hx_formal\" was asserted in frame 3.": checks["refused"],
	} {
		if got := failedAssert([]byte(out), dir); got != want {
			t.Errorf("%s: got %q, want %q", out, got, want)
		}
	}
}
