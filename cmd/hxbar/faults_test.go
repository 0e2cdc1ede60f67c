package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestCheckChannels(t *testing.T) {
	code, out, errs := hx(t, "check", "--dims", "4,4", "--channels", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var chs []struct {
		Name string `json:"name"`
		Kind string `json:"kind"`
	}
	if err := json.Unmarshal([]byte(out), &chs); err != nil || len(chs) != 96 {
		t.Fatalf("%d channels, %v", len(chs), err)
	}
	code, out, _ = hx(t, "check", "--dims", "4,4", "--channels")
	if code != 0 || !strings.Contains(out, "n15.d1.down") || !strings.Contains(out, "n3.inject") {
		t.Fatalf("table: exit %d\n%s", code, out)
	}
}

func TestFaultsCampaignJSON(t *testing.T) {
	code, out, errs := hx(t, "faults", "--dims", "4,4", "--op", "sum", "--campaign", "8", "--seed", "2", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal([]byte(out), &m); err != nil {
		t.Fatal(err)
	}
	var keys []string
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	if want := []string{"by_count", "by_kind", "detected", "fault_free_cycles", "injected", "recovered", "reported", "runs", "seed", "silent", "system"}; !slices.Equal(keys, want) {
		t.Fatalf("keys %v, want %v", keys, want)
	}
	if string(m["system"]) != `"hyperxbar-4x4-butterfly-sum"` || string(m["seed"]) != "2" {
		t.Errorf("system %s, seed %s: not the campaign's", m["system"], m["seed"])
	}
	for _, bad := range [][]string{
		{"faults", "--kinds", "flip,melt"},
		{"faults", "--kinds", "flip,flip"},
		{"faults", "--kinds", "flip,"},
		{"faults", "--fault", ""},
		{"faults", "--fault", "stuck:1"},
		{"faults", "--campaign", "0"},
		{"faults", "--per-run", "0"},
		{"faults", "--per-run", "5"},
		{"faults", "--per-run", "3-2"},
		{"faults", "--per-run", "1,1"},
		{"faults", "--per-run", "two"},
	} {
		if code, _, _ := hx(t, bad...); code != 2 {
			t.Errorf("%v: exit %d, want 2", bad, code)
		}
	}
}

// TestFaultsCampaignLegend: the table of hxbar faults is followed by a
// legend with a line for every column of its header, and says when a
// missing watchdog keeps lost signals from being detected.
func TestFaultsCampaignLegend(t *testing.T) {
	for _, wd := range []string{"0", "200"} {
		code, out, errs := hx(t, "faults", "--campaign", "6", "--per-run", "1,2", "--watchdog", wd)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errs)
		}
		lines := strings.Split(out, "\n")
		legend := map[string]bool{}
		header := ""
		for i, l := range lines {
			if header == "" && strings.Contains(l, "KIND") {
				header = l
			}
			if strings.HasPrefix(l, "legend ") {
				for _, e := range lines[i+1:] {
					if name, _, ok := strings.Cut(strings.TrimPrefix(e, "  "), "  "); ok && strings.HasPrefix(e, "  ") {
						legend[strings.TrimSpace(name)] = true
					}
				}
			}
		}
		var cols []string
		for _, c := range strings.Split(header, "│") {
			if c = strings.TrimSpace(c); c != "" {
				cols = append(cols, strings.ToLower(c))
			}
		}
		if len(cols) < 10 {
			t.Fatalf("header %q: %d columns", header, len(cols))
		}
		for _, c := range append(cols, "faults per run") {
			if !legend[c] {
				t.Errorf("no legend line for column %q:\n%s", c, out)
			}
		}
		if note := strings.Contains(out, "no watchdog: a lost signal hangs the run"); note != (wd == "0") {
			t.Errorf("--watchdog %s: the no-watchdog note shown: %v", wd, note)
		}
	}
}

func TestFaultFlags(t *testing.T) {
	code, _, errs := hx(t, "sim", "--fault", "drop:n5.d1.dwn@4")
	if code != 2 || !strings.Contains(errs, "did you mean n5.d1.down") {
		t.Errorf("unknown channel: exit %d: %s", code, errs)
	}
	// An empty --fault after another would drop it silently; a fault twice
	// would cancel itself.
	code, _, errs = hx(t, "sim", "--fault", "drop:n0.inject@4", "--fault", "")
	if code != 2 || !strings.Contains(errs, "drop:n0.inject@4") {
		t.Errorf("empty --fault after another: exit %d: %s", code, errs)
	}
	// --runs lists the runs in the table: with JSON it was ignored (and
	// every run kept in memory for nothing).
	code, _, errs = hx(t, "faults", "--campaign", "2", "--runs", "--format", "json")
	if code != 2 || !strings.Contains(errs, "--runs does not apply to faults --format json") {
		t.Errorf("faults --runs --format json: exit %d: %s", code, errs)
	}
	code, _, errs = hx(t, "sim", "--fault", "flip:n8.inject@4:7", "--fault", "flip:n8.inject@4:7")
	if code != 2 || !strings.Contains(errs, "faults[1]") {
		t.Errorf("a fault twice: exit %d: %s", code, errs)
	}
	code, _, errs = hx(t, "sim", "--fault", "dead:n0.d1.up@0", "--max-cycles", "2000")
	if code != 1 {
		t.Errorf("dead channel: exit %d: %s", code, errs)
	}
	code, out, errs := hx(t, "sim", "--fault", "dead:n0.d1.up@0", "--avoid", "n0.d1.up", "--format", "json")
	if code != 0 || !strings.Contains(out, `"complete": true`) {
		t.Errorf("dead channel avoided: exit %d: %s", code, errs)
	}
	// The RTL commands: faults and the watchdog for gen and cosim (the
	// testbench injects them), not for synth; --avoid and --link-retry
	// for all three (TestGenCosimAvoid, TestCosimFaultsWithRetry); a
	// watchdog past the 32-bit register for none.
	if code, _, errs := hx(t, "synth", "--fault", "stuck:1"); code != 2 || !strings.Contains(errs, "--fault does not apply to synth") {
		t.Errorf("synth --fault: exit %d: %s", code, errs)
	}
	cfg := filepath.Join(t.TempDir(), "f.yaml")
	if err := os.WriteFile(cfg, []byte("faults: [\"stuck:1\"]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, errs := hx(t, "synth", "--config", cfg); code != 2 || !strings.Contains(errs, "do not apply to synth") {
		t.Errorf("synth --config with faults: exit %d: %s", code, errs)
	}
	for _, args := range [][]string{{"gen", "--out", t.TempDir()}, {"cosim"}, {"synth"}} {
		cmd := args[0]
		if code, _, errs := hx(t, append(args, "--watchdog", "4294967296")...); code != 2 || !strings.Contains(errs, "invalid watchdog: 4294967296") {
			t.Errorf("%s --watchdog 2^32: exit %d: %s", cmd, code, errs)
		}
	}
	// A stuck rank without a watchdog hangs the model: nothing to compare.
	if code, _, errs := hx(t, "gen", "--out", t.TempDir(), "--fault", "stuck:1", "--max-cycles", "2000"); code != 1 || !strings.Contains(errs, "does not complete") {
		t.Errorf("gen --fault stuck:1 without a watchdog: exit %d: %s", code, errs)
	}
	if code, out, errs := hx(t, "gen", "--out", t.TempDir(), "--fault", "stuck:1", "--watchdog", "60"); code != 0 {
		t.Errorf("gen --fault stuck:1 --watchdog 60: exit %d: %s%s", code, out, errs)
	}
	if code, _, _ := hx(t, "traffic", "--fault", "stuck:1"); code != 2 {
		t.Errorf("traffic --fault: exit %d", code)
	}
	code, out, errs = hx(t, "check", "--dims", "4,4", "--avoid", "n5.d0.up", "--format", "json")
	if code != 0 || !strings.Contains(out, `"avoided":["n5.d0.up"]`) {
		t.Errorf("check --avoid: exit %d: %s%s", code, out, errs)
	}
}

// TestCosimFault: hxbar cosim --fault compares the model and the RTL with
// the fault injected, error events included; a match is exit 0 and names
// the first error both raised.
func TestCosimFault(t *testing.T) {
	needIcarus(t)
	t.Parallel()
	code, out, errs := hx(t, "cosim", "--watchdog", "50", "--fault", "dead:n5.d1.down@10")
	if code != 0 || !strings.Contains(out, "RTL matches the model, cycle-exact") ||
		!strings.Contains(out, "error events included (first: TIMEOUT") {
		t.Errorf("cosim --fault dead: exit %d: %s%s", code, out, errs)
	}
	code, out, errs = hx(t, "cosim", "--op", "sum", "--fault", "flip:n5.d1.up@14:3")
	if code != 0 || !strings.Contains(out, "error events included (first: CRC") {
		t.Errorf("cosim --fault flip: exit %d: %s%s", code, out, errs)
	}
}

// TestFaultsNamesTheSystem: the campaign's first line names the system
// run (--name, or the name from what runs), and a multi-episode run is
// not described as its base system's barrier.
func TestFaultsNamesTheSystem(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--name", "mine"}, `fault campaign: 2 runs of system "mine" on a 4x4 hyper-crossbar, butterfly barrier,`},
		{[]string{"--config", "../../examples/episodes-4x4.yaml", "--name", ""}, `fault campaign: 2 runs of system "hyperxbar-4x4-butterfly-barrier-3ep" on a 4x4 hyper-crossbar, 3 episodes,`},
	} {
		code, out, errs := hx(t, append([]string{"faults", "--campaign", "2"}, c.args...)...)
		if code != 0 || !strings.HasPrefix(out, c.want) {
			t.Errorf("faults %v: exit %d %s, first line %.120q; want %q", c.args, code, errs, out, c.want)
		}
	}
}

// TestFaultsCampaignJSONHasEveryFigure: each kind's JSON has every cost
// key the table has a column for, null where the table shows "-" and a
// number where it shows one, 0 included: a recovery that cost no cycle
// (creditdrop) is 0.0, not a missing key.
func TestFaultsCampaignJSONHasEveryFigure(t *testing.T) {
	code, out, errs := hx(t, "faults", "--campaign", "6", "--kinds", "creditdrop,dead,flip", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var res struct {
		ByKind map[string]map[string]json.RawMessage `json:"by_kind"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	for kind, c := range res.ByKind {
		for _, k := range []string{"rerouted", "reroute_extra_cycles", "recover_extra_cycles", "detect_latency_mean", "detect_latency_max"} {
			if _, ok := c[k]; !ok {
				t.Errorf("%s: no %s key", kind, k)
			}
		}
		if (kind == "dead") != (string(c["rerouted"]) != "null") {
			t.Errorf("%s: rerouted %s (a count for dead only)", kind, c["rerouted"])
		}
		if (string(c["recovered"]) != "0") != (string(c["recover_extra_cycles"]) != "null") {
			t.Errorf("%s: recovered %s, recover_extra_cycles %s", kind, c["recovered"], c["recover_extra_cycles"])
		}
	}
	if c := res.ByKind["creditdrop"]; string(c["recovered"]) == "0" || string(c["recover_extra_cycles"]) != "0" {
		t.Errorf("creditdrop: recovered %s, recover_extra_cycles %s, want 0 extra cycles", c["recovered"], c["recover_extra_cycles"])
	}
}
