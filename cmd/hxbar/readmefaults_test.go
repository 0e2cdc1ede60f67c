package main

import (
	"os"
	"strings"
	"testing"
)

// TestReadmeFaultsHit runs every README command line that injects a fault
// (sim, or a cosim's system run by sim) and requires each fault to hit:
// no fault line of the table says it hit nothing.
func TestReadmeFaultsHit(t *testing.T) {
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, line := range strings.Split(string(b), "\n") {
		cmd, _, _ := strings.Cut(line, "#")
		args := strings.Fields(cmd)
		if len(args) < 3 || args[0] != "hxbar" || (args[1] != "sim" && args[1] != "cosim") || !strings.Contains(cmd, "--fault ") {
			continue
		}
		n++
		args = append([]string{"sim"}, args[2:]...)
		for i := 0; i+1 < len(args); i++ {
			if args[i] == "--format" {
				args = append(args[:i], args[i+2:]...) // the table says what each fault did
			}
		}
		code, out, errs := hx(t, args...)
		if code == 2 {
			t.Errorf("%s: exit 2: %s", line, errs)
			continue
		}
		faults := 0
		for _, l := range strings.Split(out, "\n") {
			if !strings.Contains(l, "│ fault ") {
				continue
			}
			faults++
			if strings.Contains(l, "hit nothing") {
				t.Errorf("%s: a fault hit nothing:\n%s", line, l)
			}
		}
		if want := strings.Count(cmd, "--fault "); faults != want {
			t.Errorf("%s: %d fault lines in the table, want %d:\n%s", line, faults, want, out)
		}
	}
	if n < 3 {
		t.Fatalf("%d README lines with --fault: the test reads the wrong lines", n)
	}
}

// A fault aimed with @first through the CLI: the table line and the
// JSON say what it did; a bad CYCLE is bad usage naming the entry and
// the forms.
func TestSimFaultFirstCLI(t *testing.T) {
	code, out, errs := hx(t, "sim", "--op", "sum", "--fault", "flip:n4.d0.up@first:3")
	if code != 1 || !strings.Contains(out, "misrouted from node 6 to node 14; detected by CRC at node 14, cycle 56") {
		t.Errorf("table: exit %d: %s%s", code, out, errs)
	}
	code, out, _ = hx(t, "sim", "--op", "sum", "--link-retry", "4", "--fault", "drop:n5.d1.down@first", "--format", "json")
	for _, want := range []string{`"spec": "drop:n5.d1.down@first"`, `"hit": true`, `"replays": 1`, `"replay_cycles": 4`, `"detected_by": null`, `"src_rank": 13`} {
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("json: exit %d: lacks %s:\n%s", code, want, out)
		}
	}
	code, _, errs = hx(t, "sim", "--fault", "drop:n5.d1.down@frist")
	if code != 2 || !strings.Contains(errs, "faults[0]") || !strings.Contains(errs, `"frist" is not a number 0..max_cycles-1, or first`) {
		t.Errorf("bad cycle: exit %d: %s", code, errs)
	}
}
