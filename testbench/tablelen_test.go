package testbench

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hxbar/hxbar/verilog"
)

// configCase is config.hex damaged in one way, and what tb.v's FAIL line
// must say after "FAIL config.hex: ".
type configCase struct {
	what string
	edit func(w []word) []word // all words: header, checksum, writes, end
	sum  bool                  // recompute the checksum after the edit
	want string
}

// configCases are the ways config.hex can be wrong: truncated, a word too
// many, bad magic, version, checksum, counts, an end marker that is not
// one, writes out of order or out of range.
func configCases(nodes int) []configCase {
	last := func(w []word) int { return len(w) - 1 }
	return []configCase{
		{"end marker removed (truncated)", func(w []word) []word { return w[:last(w)] }, false, "words, fewer than the"},
		{"last write removed, checksum recomputed", func(w []word) []word { return append(w[:last(w)-1], w[last(w)]) }, true, "words, fewer than the"},
		{"a word after the end marker", func(w []word) []word { return append(w, word{0, 1}) }, false, "words, more than the"},
		{"a write added before the end marker, checksum recomputed", func(w []word) []word {
			return append(w[:last(w)], w[last(w)-1], w[last(w)])
		}, true, "words, more than the"},
		{"bad magic", func(w []word) []word { w[0][0] ^= 1 << 32; return w }, false, "bad magic 48584347"},
		{"format version 2", func(w []word) []word { w[0][0] += 1; return w }, false, "format version 2"},
		{"header counts one write less", func(w []word) []word { w[0][1]--; return w }, false, "tb.v was generated for"},
		{"header counts 2 episodes", func(w []word) []word { w[0][1] += 1 << 32; return w }, false, "2 episodes and"},
		{"a write's data changed, checksum not", func(w []word) []word { w[3][1] ^= 1; return w }, false, "checksum"},
		{"end marker damaged, checksum recomputed", func(w []word) []word { w[last(w)][0] ^= 1 << 32; return w }, true, "no end marker"},
		{"two writes of different ports swapped, checksum recomputed", func(w []word) []word {
			for i := 2; i+1 < last(w); i++ {
				if w[i][0]>>32 != w[i+1][0]>>32 {
					w[i], w[i+1] = w[i+1], w[i]
					break
				}
			}
			return w
		}, true, "out of range or out of order"},
		{"a write of node 0 for port N, checksum recomputed", func(w []word) []word {
			w[2][0] = w[2][0]&^(0xffff<<32) | uint64(nodes)<<32
			return w
		}, true, "out of range or out of order"},
		{"a write of episode 2, checksum recomputed", func(w []word) []word {
			w[last(w)-1][0] = w[last(w)-1][0]&^(0xffff<<48) | 2<<48
			return w
		}, true, "out of range or out of order"},
	}
}

// damageConfig applies c to config.hex in dir and returns a function that
// restores it.
func damageConfig(t *testing.T, dir string, c configCase) (restore func()) {
	t.Helper()
	path := filepath.Join(dir, ConfigFile)
	restore = saveFile(t, path)
	ep, writes := readConfig(t, dir)
	data := configFile("damaged", ep, writes)
	var w []word
	for _, line := range strings.Split(string(data), "\n") {
		if f := strings.Fields(line); len(f) > 0 && !strings.HasPrefix(f[0], "//") {
			var x word
			fmt.Sscanf(f[0][:16], "%x", &x[0])
			fmt.Sscanf(f[0][16:], "%x", &x[1])
			w = append(w, x)
		}
	}
	w = c.edit(w)
	if c.sum {
		var sum word
		for _, x := range w[2:] {
			sum = rotlXor(sum, x, 2)
		}
		w[1] = sum
	}
	var b strings.Builder
	for _, x := range w {
		fmt.Fprintf(&b, "%016x%016x\n", x[0], x[1])
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return restore
}

// checkConfigRefused requires tb.v to stop at time 0 on config.hex damaged
// by c: one FAIL line naming config.hex with c.want, a non-zero exit, no
// trace, no simulator warning.
func checkConfigRefused(t *testing.T, ctx context.Context, dir, simulator string, c configCase) {
	t.Helper()
	restore := damageConfig(t, dir, c)
	defer restore()
	res, err := RunSimulator(ctx, dir, simulator)
	if err != nil {
		t.Fatalf("%s: %v", c.what, err)
	}
	if res.Passed() || len(res.Verdicts) != 1 || res.ExitCode == 0 || len(res.Trace) != 0 {
		t.Errorf("%s: tb.v did not stop at time 0: passed %v, verdicts %q, exit %d, %d trace lines",
			c.what, res.Passed(), res.Verdicts, res.ExitCode, len(res.Trace))
	}
	if p := res.Problem(); !strings.Contains(res.Verdict(), "FAIL "+ConfigFile+": ") || !strings.Contains(res.Verdict(), c.want) {
		t.Errorf("%s: want a FAIL line naming %s with %q: %s", c.what, ConfigFile, c.want, p)
	} else {
		t.Logf("%s: %s", c.what, firstLine(p))
	}
	for _, w := range res.Warnings {
		// Verilator reports the $fatal itself as "%Error: tb.v:<n>: Verilog $stop".
		if !(simulator == Verilator && strings.HasSuffix(w, "Verilog $stop")) {
			t.Errorf("%s: %s warned: %q", c.what, simulator, w)
		}
	}
}

// TestConfigFileRefused damages config.hex, the configuration program the
// RTL takes its tables from, in every way configCases lists, plus a digit
// that is not hex and a missing file: tb.v refuses each at time 0 with one
// FAIL line naming config.hex (Cosim reports it as a mismatch). The table
// files are the readable record of the program and the RTL reads none of
// them: an edited one is refused by Cosim before any simulation, by name,
// while the simulator alone still passes.
func TestConfigFileRefused(t *testing.T) {
	needTools(t, Icarus)
	t.Parallel()
	sys := dataSystem(t, "tablen", []int{4}, 4, "allgather", 2, "OM", "butterfly", 2, 2, 1, 32)
	dir := t.TempDir()
	s, _ := generate(t, dir, sys)
	ctx := ctxFor(t, 10*time.Minute)
	if rep, err := Cosim(ctx, dir, Icarus); err != nil || !rep.OK() {
		t.Fatalf("pristine: %v", err)
	}
	for _, c := range configCases(s.Topo.Nodes) {
		checkConfigRefused(t, ctx, dir, Icarus, c)
	}
	// Through Cosim: a mismatch naming the file.
	c := configCases(s.Topo.Nodes)[2]
	restore := damageConfig(t, dir, c)
	rep, err := Cosim(ctx, dir, Icarus)
	restore()
	var mm *MismatchError
	if !errors.As(err, &mm) || !strings.Contains(rep.Problem(), "FAIL "+ConfigFile+": ") || !strings.Contains(err.Error(), ConfigFile) {
		t.Errorf("%s: Cosim: %v", c.what, err)
	}

	// A word with a digit that is not hex, length unchanged: Icarus would
	// read it in part; tb.v counts the words first and refuses it.
	path := filepath.Join(dir, ConfigFile)
	restore = saveFile(t, path)
	data, _ := os.ReadFile(path)
	k := strings.LastIndex(string(data), " // end: ")
	data[k-2] = 'g'
	os.WriteFile(path, data, 0o644)
	if res, err := RunIcarus(ctx, dir); err != nil || res.Passed() || !strings.Contains(res.Verdict(), "FAIL "+ConfigFile+": word ") ||
		!strings.Contains(res.Verdict(), "(the header is word 0) is not 32 hex digits") {
		t.Errorf("bad digit: tb.v: %v %v", err, res.Problem())
	}
	// No config.hex at all.
	os.Remove(path)
	if res, err := RunIcarus(ctx, dir); err != nil || res.Passed() || !strings.Contains(res.Verdict(), "FAIL "+ConfigFile+": missing or unreadable") {
		t.Errorf("missing: tb.v: %v %v", err, res.Problem())
	}
	restore()

	// A testbench that never starts cycle 0 (tb.v edited so that the end
	// of the configuration phase never sets run) dies on the
	// configuration watchdog with a FAIL line instead of hanging.
	tb := filepath.Join(dir, TBFile)
	restoreTB := saveFile(t, tb)
	src, _ := os.ReadFile(tb)
	if strings.Count(string(src), "run = 1'b1;") != 1 {
		t.Fatalf("tb.v: the line that starts cycle 0 is not unique")
	}
	os.WriteFile(tb, []byte(strings.Replace(string(src), "run = 1'b1;", "run = 1'b0;", 1)), 0o644)
	res, err := RunIcarus(ctx, dir)
	restoreTB()
	if err != nil || res.Passed() || res.ExitCode == 0 || !strings.HasPrefix(res.Verdict(), "FAIL watchdog: cycle 0 has not begun ") {
		t.Errorf("cycle 0 never begins: %v %s", err, res.Problem())
	} else {
		t.Logf("cycle 0 never begins: %s", res.Verdict())
	}

	// Edited tables: refused by Cosim before the simulator runs (they
	// would not change the run), by name, pointing at config.hex; the
	// simulator alone passes, as it reads no table.
	for _, file := range []string{verilog.GateTableFile(1), verilog.RouteTableFile(s.Topo.Switches - 1), verilog.DataTableFile(3)} {
		tp := filepath.Join(dir, file)
		restore := saveFile(t, tp)
		if err := verilog.RewriteTable(tp, func(b []uint64) { b[len(b)-1] ^= 1 }); err != nil {
			t.Fatal(err)
		}
		rep, err := Cosim(ctx, dir, Icarus)
		var de *DirError
		if !errors.As(err, &de) || rep != nil || de.File != file || !strings.Contains(err.Error(), ConfigFile) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s edited: Cosim %v (report %v), want one line naming %s and %s", file, err, rep != nil, file, ConfigFile)
		}
		if res, err := RunIcarus(ctx, dir); err != nil || !res.Passed() {
			t.Errorf("%s edited: the simulator alone: %v %s", file, err, res.Problem())
		}
		restore()
	}
	if rep, err := Cosim(ctx, dir, Icarus); err != nil || !rep.OK() {
		t.Fatalf("restored: %v", err)
	}

	// A simulator warning fails the run even with a PASS: expected.hex
	// with a word after its end marker passes the testbench's own checks,
	// and Icarus only warns that $readmemh found too many words.
	exp := filepath.Join(dir, ExpectedFile)
	restore = saveFile(t, exp)
	f, err := os.OpenFile(exp, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(f, "%048x // one word too many\n", 0)
	f.Close()
	res, err = RunIcarus(ctx, dir)
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
