package testbench

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hxbar/hxbar/verilog"
)

// lengthCase is a table file with one word too many (appended after its
// last word) or one too few (its last word removed), the checksum
// recomputed over the words after it or left as it was.
type lengthCase struct {
	file         string
	extra, resum bool
}

func (c lengthCase) String() string {
	what := "one word missing"
	if c.extra {
		what = "one extra word"
	}
	if c.resum {
		what += ", checksum recomputed"
	}
	return c.file + ": " + what
}

// lengthCases are the four cases for each file.
func lengthCases(files ...string) []lengthCase {
	var out []lengthCase
	for _, f := range files {
		for _, extra := range []bool{true, false} {
			for _, resum := range []bool{false, true} {
				out = append(out, lengthCase{f, extra, resum})
			}
		}
	}
	return out
}

// damageLength applies c to its file in dir and returns a function that
// restores the file, and the message the RTL and the Go check must give
// ("<file>: <n> words, more words than count + 2 = <count+2>").
func damageLength(t *testing.T, dir string, c lengthCase) (restore func(), want string) {
	t.Helper()
	path := filepath.Join(dir, c.file)
	_, body, err := verilog.ReadTable(path)
	if err != nil {
		t.Fatalf("%s before the damage: %v", c, err)
	}
	restore = saveFile(t, path)
	data, _ := os.ReadFile(path)
	n := len(body) + 2
	if c.extra {
		data = append(data, "0000000000000001 // one word too many\n"...)
		want = fmt.Sprintf("%s: %d words, more words than count + 2 = %d", c.file, n+1, n)
	} else {
		lines := strings.SplitAfter(string(data), "\n")
		data = []byte(strings.Join(lines[:len(lines)-2], "")) // the last element is "" after the final newline
		want = fmt.Sprintf("%s: %d words, fewer words than count + 2 = %d", c.file, n-1, n)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if c.resum {
		if err := verilog.RewriteTable(path, func([]uint64) {}); err != nil {
			t.Fatal(err)
		}
	}
	return restore, want
}

// checkLengthRefused requires both checks to refuse the damaged table in
// dir: Cosim's Go-side check before any simulation (an error naming the
// file, the count and the words found, no report), and the RTL's own
// check at time 0 when the simulator runs the directory anyway (no
// verdict, non-zero exit, the simulator's message naming the file).
func checkLengthRefused(t *testing.T, dir, simulator string, c lengthCase) {
	t.Helper()
	restore, want := damageLength(t, dir, c)
	defer restore()
	goWant := strings.TrimPrefix(want, c.file+": ") // the Go message has the line of an extra word in between
	ctx := ctxFor(t, 5*time.Minute)
	rep, err := Cosim(ctx, dir, simulator)
	var te *verilog.TableError
	var mm *MismatchError
	switch {
	case err == nil:
		t.Errorf("%s: Cosim passed: %s", c, rep.Summary())
	case errors.As(err, &mm) || rep != nil:
		t.Errorf("%s: Cosim ran the simulator: %v", c, err)
	case !errors.As(err, &te) || filepath.Base(te.File) != c.file || !strings.Contains(te.Problem, goWant) || strings.Contains(err.Error(), "\n"):
		t.Errorf("%s: Cosim error %q, want one line naming %s with %q", c, err, c.file, goWant)
	}
	res, err := RunSimulator(ctx, dir, simulator)
	if err != nil {
		t.Fatalf("%s: %v", c, err)
	}
	if res.Passed() || len(res.Verdicts) != 0 || res.ExitCode == 0 || len(res.Trace) != 0 {
		t.Errorf("%s: the RTL did not stop at time 0: passed %v, verdicts %q, exit %d, %d trace lines",
			c, res.Passed(), res.Verdicts, res.ExitCode, len(res.Trace))
	}
	if p := res.Problem(); !strings.Contains(p, want) {
		t.Errorf("%s: the RTL's message lacks %q: %s", c, want, p)
	} else {
		t.Logf("%s: %s", c, firstLine(p))
	}
	if simulator == Icarus && c.extra && len(res.Warnings) != 0 {
		// The RTL counts the words before $readmemh: Icarus never sees the
		// file as too long.
		t.Errorf("%s: Icarus warned: %q", c, res.Warnings)
	}
}

// TestTableLengthRefused appends a word to, or removes the last word of, a
// gate, a routing and a data table, with the checksum recomputed and
// without: each of the 12 files must be refused by Cosim before it runs
// Icarus, and by the RTL under Icarus, by name (docs/tables.md: a table
// holds exactly count + 2 words); so must a word with a digit that is not
// hex.
func TestTableLengthRefused(t *testing.T) {
	needTools(t, Icarus)
	t.Parallel()
	sys := dataSystem(t, "tablen", []int{4}, 4, "allgather", 2, "OM", "butterfly", 2, 2, 1, 32)
	dir := t.TempDir()
	s, _ := generate(t, dir, sys)
	ctx := ctxFor(t, 10*time.Minute)
	if rep, err := Cosim(ctx, dir, Icarus); err != nil || !rep.OK() {
		t.Fatalf("pristine: %v", err)
	}
	cases := lengthCases(verilog.GateTableFile(1), verilog.RouteTableFile(s.Topo.Switches-1), verilog.DataTableFile(3))
	for _, c := range cases {
		checkLengthRefused(t, dir, Icarus, c)
	}
	// A word with a digit that is not hex, length unchanged: Icarus would
	// read it in part (printing an ERROR line and passing when the part
	// read is the same number); both checks refuse it.
	gt := filepath.Join(dir, verilog.GateTableFile(2))
	restoreGT := saveFile(t, gt)
	data, _ := os.ReadFile(gt)
	k := strings.LastIndex(string(data), " // body[")
	data[k-2] = 'g'
	os.WriteFile(gt, data, 0o644)
	_, err := Cosim(ctx, dir, Icarus)
	if err == nil || !strings.Contains(err.Error(), "gt_n2.hex: line ") || !strings.Contains(err.Error(), "is not 16 hex digits") {
		t.Errorf("bad digit: Cosim: %v", err)
	}
	if res, err := RunIcarus(ctx, dir); err != nil || res.Passed() || !strings.Contains(res.Problem(), "gt_n2.hex: word ") ||
		!strings.Contains(res.Problem(), "(the header is word 0) is not 16 hex digits") {
		t.Errorf("bad digit: the RTL: %v %v", err, res.Problem())
	}
	restoreGT()
	if rep, err := Cosim(ctx, dir, Icarus); err != nil || !rep.OK() {
		t.Fatalf("restored: %v", err)
	}

	// A simulator warning fails the run even with a PASS: expected.hex
	// with a word after its end marker passes the testbench's own checks,
	// and Icarus only warns that $readmemh found too many words.
	exp := filepath.Join(dir, ExpectedFile)
	restore := saveFile(t, exp)
	f, err := os.OpenFile(exp, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(f, "%048x // one word too many\n", 0)
	f.Close()
	res, err := RunIcarus(ctx, dir)
	restore()
	if err != nil {
		t.Fatal(err)
	}
	if res.Passed() || len(res.Warnings) == 0 || !strings.Contains(res.Problem(), "but the simulator warned: WARNING: ") ||
		!strings.Contains(res.Problem(), ExpectedFile) {
		t.Errorf("a $readmemh warning with PASS: passed %v, verdicts %q, warnings %q, problem %q", res.Passed(), res.Verdicts, res.Warnings, res.Problem())
	} else {
		t.Logf("expected.hex with an extra word: %s", res.Problem())
	}
}

// The simulators' warnings are picked out of a run's output: a PASS with
// any of them is not a pass, and Problem quotes the first in one line.
func TestRunWarnings(t *testing.T) {
	for _, c := range []struct {
		out  string
		want string // "" for a clean pass
	}{
		{"0 n0 arrive rank=0 value=0000000000000000\nPASS 1 events 1 cycles\n", ""},
		{"VCD info: dumpfile hx.vcd opened for output.\nPASS 1 events 1 cycles\n", ""},
		{"WARNING: hx_switch.v:90: $readmemh(rt_s4.hex): Too many words in the file for the requested range [0:5].\nPASS 1 events 1 cycles\n",
			"PASS 1 events 1 cycles, but the simulator warned: WARNING: hx_switch.v:90: $readmemh(rt_s4.hex): Too many words in the file for the requested range [0:5]."},
		{"WARNING: tb.v:1: $readmemh(expected.hex): Not enough words in the file for the requested range [0:9].\n" +
			"ERROR: hx_barrier_unit.v:3: $readmemh: Unable to open gt_n9.hex for reading.\nPASS 1 events 1 cycles\n",
			"PASS 1 events 1 cycles, but the simulator warned: WARNING: tb.v:1: $readmemh(expected.hex): Not enough words in the file for the requested range [0:9]. (and 1 more warning)"},
		{"%Warning: gt_n0.hex:7: $readmem file ended early\nPASS 1 events 1 cycles\n- tb.v:300: Verilog $finish\n",
			"PASS 1 events 1 cycles, but the simulator warned: %Warning: gt_n0.hex:7: $readmem file ended early"},
	} {
		res := &RunResult{Output: c.out}
		parseOutput(res)
		if got := res.Problem(); got != c.want || res.Passed() != (c.want == "") {
			t.Errorf("output %q:\nproblem %q (passed %v)\nwant    %q", c.out, got, res.Passed(), c.want)
		}
	}
}
