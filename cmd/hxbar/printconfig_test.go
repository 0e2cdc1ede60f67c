package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// printConfigCases are command lines of sim and a line each of their
// --print-config output must hold (proof that the flags were applied).
var printConfigCases = []struct {
	args []string
	want string
}{
	{nil, "dims: [4, 4]\n"},
	{[]string{"--dims", "8,8", "--skew", "50", "--algo", "dissemination", "--seed", "9"}, "algo: dissemination\n"},
	{[]string{"--collective", "allgather", "--items", "4", "--item-flits", "2", "--order", "OOMM"}, "order: \"OOMM\"\n"},
	{[]string{"--config", "../../examples/episodes-4x4.yaml", "--seed", "7"}, "seed: 7\n"},
	{[]string{"--topology", "torus", "--dims", "4,4", "--wrap", "1,0"}, "wrap: [true, false]\n"},
	{[]string{"--placement", "0,5,10,15", "--op", "sum", "--link-latency", "2", "--buffer-depth", "8"}, "placement: [0, 5, 10, 15]\n"},
	{[]string{"--fault", "stuck:7", "--watchdog", "500", "--name", "my-run"}, "name: \"my-run\"\n"},
	{[]string{"--dims", "4,4", "--crc-bits", "0", "--link-retry", "8", "--duplex", "half", "--repeat", "3"}, "repeat: 3\n"},
}

// TestPrintConfigRoundTrip: for each command line, --print-config writes a
// system file that --config reads back to the same text, and to the same
// run: sim --format json of the file equals that of the command line.
func TestPrintConfigRoundTrip(t *testing.T) {
	d := t.TempDir()
	def := ""
	for i, c := range printConfigCases {
		code, y1, e := hx(t, append([]string{"sim", "--print-config"}, c.args...)...)
		if code != 0 || e != "" || !strings.Contains(y1, "\n"+c.want) {
			t.Fatalf("sim %v --print-config: exit %d, stderr %q, want a line %q in:\n%s", c.args, code, e, c.want, y1)
		}
		if i == 0 {
			def = y1
		} else if y1 == def {
			t.Errorf("sim %v --print-config: the default system", c.args)
		}
		f := filepath.Join(d, "c.yaml")
		if err := os.WriteFile(f, []byte(y1), 0o644); err != nil {
			t.Fatal(err)
		}
		if code, y2, e := hx(t, "sim", "--config", f, "--print-config"); code != 0 || y2 != y1 {
			t.Errorf("sim %v: --config of its --print-config prints another system (exit %d, %s):\n%s\nwant:\n%s", c.args, code, e, y2, y1)
		}
		c1, j1, _ := hx(t, append([]string{"sim", "--format", "json"}, c.args...)...)
		c2, j2, _ := hx(t, "sim", "--config", f, "--format", "json")
		if c1 != c2 || j1 != j2 || !strings.Contains(j1, `"cycles"`) {
			t.Errorf("sim %v: exit %d, the run of its --print-config: exit %d, JSON equal: %v", c.args, c1, c2, j1 == j2)
		}
	}
}

// TestPrintConfigCommands: gen, cosim, traffic and faults print the same
// system as sim for the same flags, run nothing and write nothing; gen's
// system.yaml ends with that text and cosim --dir prints it back.
func TestPrintConfigCommands(t *testing.T) {
	d := t.TempDir()
	flags := []string{"--dims", "8,8", "--seed", "3", "--link-latency", "2"}
	_, want, _ := hx(t, append([]string{"sim", "--print-config"}, flags...)...)
	for _, cmd := range []string{"gen", "cosim", "traffic", "faults"} {
		code, got, e := hx(t, append([]string{cmd, "--print-config"}, flags...)...)
		if code != 0 || e != "" || got != want {
			t.Errorf("%s --print-config: exit %d, stderr %q, output equal to sim's: %v\n%s", cmd, code, e, got == want, got)
		}
	}
	out := filepath.Join(d, "gen")
	if code, _, e := hx(t, append([]string{"gen", "--out", out, "--print-config"}, flags...)...); code != 0 || e != "" {
		t.Fatalf("gen --out --print-config: exit %d: %s", code, e)
	}
	if code, _, e := hx(t, append([]string{"sim", "--print-config", "--trace", filepath.Join(d, "t.json")}, flags...)...); code != 0 || e != "" {
		t.Fatalf("sim --trace --print-config: exit %d: %s", code, e)
	}
	if ents, _ := os.ReadDir(d); len(ents) != 0 {
		t.Fatalf("--print-config wrote %v", ents)
	}
	if code, _, e := hx(t, append([]string{"gen", "--out", out}, flags...)...); code != 0 {
		t.Fatalf("gen: exit %d: %s", code, e)
	}
	sys, err := os.ReadFile(filepath.Join(out, "system.yaml"))
	if err != nil || !strings.HasSuffix(string(sys), want) {
		t.Errorf("gen's system.yaml does not end with --print-config's text: %v\n%s", err, sys)
	}
	if code, got, e := hx(t, "cosim", "--dir", out, "--print-config"); code != 0 || got != want {
		t.Errorf("cosim --dir --print-config: exit %d, %s\n%s", code, e, got)
	}
	if code, _, e := hx(t, "traffic", "--print-config", "--skew", "5"); code != 2 || !strings.Contains(e, "--skew does not apply to traffic") {
		t.Errorf("traffic --skew --print-config: exit %d, %s", code, e)
	}
}

// TestSimNameIsTheRunsName: the table's first line names a multi-episode
// run as --print-config, the pictures and the traces do (the whole run,
// -Nep), not by the last episode's system.
func TestSimNameIsTheRunsName(t *testing.T) {
	for _, args := range [][]string{
		{"--repeat", "3", "--op", "sum"},
		{"--config", "../../examples/episodes-4x4.yaml", "--name", ""},
	} {
		_, y, _ := hx(t, append([]string{"sim", "--print-config"}, args...)...)
		name, _, _ := strings.Cut(strings.TrimPrefix(y, "# hxbar system "), "\n")
		_, out, _ := hx(t, append([]string{"sim"}, args...)...)
		if !strings.HasSuffix(name, `ep"`) || !strings.HasPrefix(out, "system "+name+": ") {
			t.Errorf("sim %v: --print-config names %s, the table %.60q", args, name, out)
		}
	}
}

// TestScheduleFileNamesTheRun: a run of --schedule FILE is named by the
// file's algorithm (a dissemination schedule is not called butterfly),
// and --config of its system with --schedule again runs the same.
func TestScheduleFileNamesTheRun(t *testing.T) {
	d := t.TempDir()
	_, sched, _ := hx(t, "schedule", "--ranks", "16", "--algo", "dissemination", "--format", "json")
	f := filepath.Join(d, "d16.json")
	writeFiles(t, d, map[string]string{"d16.json": sched})
	_, out, _ := hx(t, "sim", "--schedule", f)
	if !strings.HasPrefix(out, `system "hyperxbar-4x4-dissemination-barrier": `) {
		t.Errorf("sim --schedule (dissemination): %.80q", out)
	}
	_, y, _ := hx(t, "sim", "--algo", "dissemination", "--print-config")
	writeFiles(t, d, map[string]string{"c.yaml": y})
	_, j1, _ := hx(t, "sim", "--schedule", f, "--format", "json")
	_, j2, _ := hx(t, "sim", "--config", filepath.Join(d, "c.yaml"), "--schedule", f, "--format", "json")
	if j1 != j2 || !strings.Contains(y, "\nalgo: dissemination\n") {
		t.Errorf("--config of --print-config runs another schedule (JSON equal: %v):\n%.300s", j1 == j2, y)
	}
}

// TestPrintConfigRefusesScheduleFiles: a system file has no key for a
// schedule, so --print-config of a run whose schedule comes from a file
// (--schedule on sim, gen and cosim; the schedule a cosim --dir records)
// is refused in one line naming the file, rather than printing a system
// that --config would run with another schedule; a directory without a
// recorded schedule still prints its system.
func TestPrintConfigRefusesScheduleFiles(t *testing.T) {
	d := t.TempDir()
	_, sched, _ := hx(t, "schedule", "--ranks", "16", "--algo", "dissemination", "--format", "json")
	writeFiles(t, d, map[string]string{"s.json": sched})
	f := filepath.Join(d, "s.json")
	for _, cmd := range []string{"sim", "gen", "cosim"} {
		code, out, e := hx(t, cmd, "--schedule", f, "--print-config")
		if code != 2 || out != "" || strings.Count(e, "\n") != 1 ||
			!strings.Contains(e, "--print-config cannot carry the schedule "+f) {
			t.Errorf("%s --schedule --print-config: exit %d, stdout %.40q, stderr %q", cmd, code, out, e)
		}
	}
	dir := filepath.Join(d, "gen")
	if code, _, e := hx(t, "gen", "--schedule", f, "--out", dir); code != 0 {
		t.Fatalf("gen --schedule: exit %d: %s", code, e)
	}
	code, out, e := hx(t, "cosim", "--dir", dir, "--print-config")
	if code != 2 || out != "" || !strings.Contains(e, "cannot carry the schedule "+filepath.Join(dir, "schedule.json")) {
		t.Errorf("cosim --dir (recorded schedule) --print-config: exit %d, stdout %.40q, stderr %q", code, out, e)
	}
	plain := filepath.Join(d, "plain")
	if code, _, e := hx(t, "gen", "--algo", "dissemination", "--out", plain); code != 0 {
		t.Fatalf("gen: exit %d: %s", code, e)
	}
	code, y, e := hx(t, "cosim", "--dir", plain, "--print-config")
	writeFiles(t, d, map[string]string{"c.yaml": y})
	_, j1, _ := hx(t, "sim", "--algo", "dissemination", "--format", "json")
	_, j2, _ := hx(t, "sim", "--config", filepath.Join(d, "c.yaml"), "--format", "json")
	if code != 0 || j1 != j2 || !strings.Contains(j1, `"latency"`) {
		t.Errorf("cosim --dir (no recorded schedule) --print-config: exit %d (%s), the run of it equal: %v", code, e, j1 == j2)
	}
}
