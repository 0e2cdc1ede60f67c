package formal

import (
	"os"
	"path/filepath"
	"slices"
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

// TestAssertions names the checks of the failing outputs from the map
// write_aiger writes (outputs in port order), in bmc3's one-output form
// and in its -a form, and picks the one a proof reports.
func TestAssertions(t *testing.T) {
	dir := t.TempDir()
	aim := "input 0 0 clk\ninput 1 0 arr\noutput 0 0 refused\noutput 1 0 early\noutput 2 0 late\n" +
		"output 3 0 moved\noutput 4 1 moved\noutput 5 2 moved\nlatch 0 0 init\n"
	if err := os.WriteFile(filepath.Join(dir, MapFile), []byte(aim), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "moved.txt"), []byte("\\dut.a.x\n\\dut.b.y\n\\dut.c.z\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		out, want string
		frame     int
		moved     []string
	}{
		{"Output 1 of miter \"hx_formal\" was asserted in frame 3.", checks["early"], 3, nil},
		{"Output 0 of miter \"hx_formal\" was asserted in frame 3.", checks["refused"], 3, nil},
		{"Output 2 of miter \"hx_formal\" was asserted in frame 9.", checks["late"], 9, nil},
		// -a: every output; a property before a moved register before late.
		{"Output   5 was asserted in frame 16 (solved   1 out of 6 outputs).\n" +
			"Output   2 was asserted in frame 17 (solved   2 out of 6 outputs).\n" +
			"Output   3 was asserted in frame 17 (solved   3 out of 6 outputs).\n", checks["moved"] + ": c.z", 16, []string{"a.x", "c.z"}},
		{"Output   5 was asserted in frame 16 (solved   1 out of 6 outputs).\n" +
			"Output   1 was asserted in frame 20 (solved   2 out of 6 outputs).\n", checks["early"], 20, []string{"c.z"}},
		// bmc3 -a pads the frame to two places.
		{"Output   1 was asserted in frame  5 (solved   1 out of 6 outputs).\n" +
			"Output   2 was asserted in frame 17 (solved   2 out of 6 outputs).\n", checks["early"], 5, nil},
		{"Output   3 was asserted in frame 17 (solved   1 out of 6 outputs).\n" +
			"Output   4 was asserted in frame 12 (solved   2 out of 6 outputs).\n", checks["moved"] + ": b.y", 12, []string{"a.x", "b.y"}},
	} {
		as := assertions([]byte(c.out), dir)
		if len(as) == 0 {
			t.Errorf("%q: no assertion read", c.out)
			continue
		}
		first, moved := worst(as)
		if first.what != c.want || first.frame != c.frame || !slices.Equal(moved, c.moved) {
			t.Errorf("%q: got %q in frame %d, moved %q; want %q in frame %d, moved %q", c.out, first.what, first.frame, moved, c.want, c.frame, c.moved)
		}
	}
	if as := assertions([]byte(abcClean), dir); len(as) != 0 {
		t.Errorf("a clean run gave assertions %v", as)
	}
}

func TestResultKinds(t *testing.T) {
	early := Result{Verdict: Counterexample, CexWhat: checks["early"]}
	moved := Result{Verdict: Counterexample, CexWhat: checks["moved"] + ": bu.xw_q", Moved: []string{"bu.xw_q"}}
	late := Result{Verdict: Counterexample, CexWhat: checks["late"]}
	proved := Result{Verdict: Proved}
	for _, c := range []struct {
		r            Result
		early, moved bool
	}{{early, true, false}, {moved, false, true}, {late, false, false}, {proved, false, false}, {Result{}, false, false}} {
		if c.r.ReleasedEarly() != c.early || c.r.LeftBoundary() != c.moved {
			t.Errorf("%+v: ReleasedEarly %v LeftBoundary %v, want %v %v", c.r, c.r.ReleasedEarly(), c.r.LeftBoundary(), c.early, c.moved)
		}
	}
}
