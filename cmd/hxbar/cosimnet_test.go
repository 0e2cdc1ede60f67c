package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestCosimNetlistRefused: --netlist with faults (flags, or a directory's
// system.yaml) and with Verilator is exit 2 and one line naming the flag;
// a bad --format too.
func TestCosimNetlistRefused(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	if code, _, errs := hx(t, "gen", "--out", dir, "--dims", "2,2", "--watchdog", "100", "--fault", "stuck:1"); code != 0 {
		t.Fatalf("gen: exit %d: %s", code, errs)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--netlist", "--dims", "2,2", "--watchdog", "100", "--fault", "stuck:1"}, "--netlist cannot inject faults (stuck:1)"},
		{[]string{"--netlist", "--dir", dir}, "--netlist cannot inject faults (stuck:1)"},
		{[]string{"--netlist", "--simulator", "verilator"}, `invalid --simulator: "verilator" with --netlist`},
		{[]string{"--format", "xml"}, "invalid --format"},
	} {
		code, out, errs := hx(t, append([]string{"cosim"}, c.args...)...)
		if code != 2 || out != "" || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, c.want) {
			t.Errorf("cosim %v: exit %d, stdout %q, stderr %q; want exit 2 and one line with %q", c.args, code, out, errs, c.want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "netlist")); err == nil {
		t.Errorf("a refused --netlist run wrote %s/netlist", dir)
	}
}

// TestCosimNetlistJSON: --format json says what was simulated; with
// --netlist (a 2-node line: seconds) the netlist's synthesis too.
func TestCosimNetlistJSON(t *testing.T) {
	needIcarus(t)
	var res map[string]any
	for _, netlist := range []bool{false, true} {
		args := []string{"cosim", "--dims", "2", "--format", "json"}
		if netlist {
			if _, err := exec.LookPath("yosys"); err != nil {
				if os.Getenv("CI") == "" {
					t.Skip("yosys not installed")
				}
				t.Fatal("yosys not installed and CI is set")
			}
			args = append(args, "--netlist")
		}
		code, out, errs := hx(t, args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s%s", args, code, out, errs)
		}
		res = nil
		if err := json.Unmarshal([]byte(out), &res); err != nil {
			t.Fatalf("%v: %v: %q", args, err, out)
		}
		if res["ok"] != true || res["netlist"] != netlist || res["simulator"] != "icarus" || res["events"] != float64(8) {
			t.Errorf("%v: %s", args, out)
		}
		if _, has := res["netlist_cells"]; has != netlist {
			t.Errorf("%v: netlist_cells present %v, want %v: %s", args, has, netlist, out)
		}
		if netlist && (res["netlist_cells"].(float64) <= 0 || res["synth_seconds"].(float64) <= 0 || !strings.HasPrefix(res["summary"].(string), "Netlist matches the model")) {
			t.Errorf("%v: %s", args, out)
		}
	}
}
