package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/hxbar/hxbar/internal/xmlcheck"
)

// newcomer runs one README command line through the CLI and checks what
// every newcomer task's output must hold: the exit status, no sentinel
// number (MaxInt64, or -1 for "never"), and JSON on stdout when asked.
type newcomer struct {
	t *testing.T
}

// sentinel matches a number standing for "never" or "none": MaxInt64
// anywhere, or -1 as a JSON value.
var sentinel = regexp.MustCompile(`9223372036854775807|:\s*-1\s*[,}\]\n]`)

func (n newcomer) run(exit int, args ...string) (stdout, stderr string) {
	t := n.t
	t.Helper()
	code, stdout, stderr := hx(t, args...)
	if code != exit {
		t.Fatalf("hxbar %s: exit %d, want %d: %s", strings.Join(args, " "), code, exit, stderr)
	}
	for _, s := range []string{stdout, stderr} {
		if m := sentinel.FindString(s); m != "" {
			t.Errorf("hxbar %s: a sentinel number %q in the output:\n%.400s", strings.Join(args, " "), m, s)
		}
	}
	return stdout, stderr
}

// simJSON runs a `sim --format json` line and returns its result, which
// must have a latency.
func (n newcomer) simJSON(exit int, args ...string) map[string]any {
	t := n.t
	t.Helper()
	out, _ := n.run(exit, append(append([]string{}, args...), "--format", "json")...)
	var res map[string]any
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("hxbar %s: stdout is not JSON: %v", strings.Join(args, " "), err)
	}
	if _, ok := res["latency"]; !ok {
		t.Errorf("hxbar %s --format json: no latency key", strings.Join(args, " "))
	}
	return res
}

// named checks that a table run's first line names the system as run.
func (n newcomer) named(want string, args ...string) {
	n.t.Helper()
	out, _ := n.run(0, args...)
	if first, _, _ := strings.Cut(out, "\n"); !strings.HasPrefix(first, `system "`+want+`": `) {
		n.t.Errorf("hxbar %s: first line %q, want the system named %q", strings.Join(args, " "), first, want)
	}
}

// svg checks that path holds one strict XML document, an <svg>.
func (n newcomer) svg(path string) {
	n.t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		n.t.Fatal(err)
	}
	if err := xmlcheck.Strict(b); err != nil || !bytes.Contains(b, []byte("<svg")) {
		n.t.Errorf("%s: not a valid SVG (%v)", path, err)
	}
	if m := sentinel.Find(b); m != nil {
		n.t.Errorf("%s: a sentinel number %q", path, m)
	}
}

// TestNewcomerTasks runs the seven tasks of a newcomer's first hour (issue
// 25) with the README's commands, as a user would, and checks each
// output: valid SVG, a system name that matches the system run, latency in
// sim's JSON, a README fault example that hits, the library example
// printing a latency, no sentinel number anywhere. -short leaves out the
// slow parts: 65,536 ranks, co-simulation, Yosys and the Go build of the
// library example.
func TestNewcomerTasks(t *testing.T) {
	d := t.TempDir()
	p := func(name string) string { return filepath.Join(d, name) }

	t.Run("compare schedules on 8x8", func(t *testing.T) {
		n := newcomer{t}
		lat := map[string]float64{}
		for _, algo := range []string{"butterfly", "butterfly-near-first", "dissemination"} {
			n.named("hyperxbar-8x8-"+algo+"-barrier", "sim", "--dims", "8,8", "--algo", algo)
			res := n.simJSON(0, "sim", "--dims", "8,8", "--algo", algo)
			l, ok := res["latency"].(float64)
			if !ok || l <= 0 || res["ranks"] != float64(64) {
				t.Errorf("--algo %s: latency %v, ranks %v", algo, res["latency"], res["ranks"])
			}
			lat[algo] = l
		}
		if len(lat) != 3 {
			t.Errorf("latencies %v", lat)
		}
		n.simJSON(0, "sim", "--dims", "8,8", "--op", "sum", "--seed", "7")
	})

	t.Run("describe in YAML, generate, co-simulate, synthesize", func(t *testing.T) {
		n := newcomer{t}
		yml, _ := n.run(0, "sim", "--dims", "8,8", "--skew", "50", "--print-config")
		if !strings.HasPrefix(yml, `# hxbar system "hyperxbar-8x8-butterfly-barrier"`) {
			t.Errorf("--print-config: %.100s", yml)
		}
		writeFiles(t, d, map[string]string{"run.yaml": yml})
		a := n.simJSON(0, "sim", "--dims", "8,8", "--skew", "50")
		b := n.simJSON(0, "sim", "--config", p("run.yaml"))
		if a["cycles"] != b["cycles"] || a["latency"] != b["latency"] {
			t.Errorf("--config run.yaml: cycles %v latency %v, the flags' run %v %v", b["cycles"], b["latency"], a["cycles"], a["latency"])
		}
		rtl := p("rtl-4x4")
		n.run(0, "gen", "--out", rtl, "--op", "sum")
		sys, err := os.ReadFile(filepath.Join(rtl, "system.yaml"))
		// Unnamed, it is named from what runs (name: "" in the file).
		if err != nil || !bytes.Contains(sys, []byte("\n# configuration: hyperxbar-4x4-butterfly-sum\n")) {
			t.Errorf("gen's system.yaml (%v) does not name the system it generated:\n%.300s", err, sys)
		}
		if testing.Short() {
			return
		}
		if _, err := exec.LookPath("iverilog"); err == nil {
			n.run(0, "cosim", "--dir", rtl)
		}
		if _, err := exec.LookPath("yosys"); err == nil {
			out, _ := n.run(0, "synth", "--dims", "4", "--format", "json")
			if !json.Valid([]byte(out)) || !strings.Contains(out, `"label": "hx_switch[`) {
				t.Errorf("synth --format json: %.300s", out)
			}
		}
	})

	t.Run("sweep and plot", func(t *testing.T) {
		n := newcomer{t}
		writeFiles(t, d, map[string]string{"s.yaml": sweepSpec})
		n.run(0, "sweep", p("s.yaml"), "--out", p("sw"))
		n.run(0, "sweep", "--plot", "x=item_flits,y=cycles,series=order", p("sw"), "--plot-out", p("orders.svg"))
		n.svg(p("orders.svg"))
		n.run(0, "sweep", "--plot", "x=item_flits,y=cycles,series=order", p("sw"), "--plot-out", p("orders.png"))
		if b, err := os.ReadFile(p("orders.png")); err != nil || !bytes.HasPrefix(b, []byte("\x89PNG\r\n\x1a\n")) {
			t.Errorf("--plot-out orders.png: not a PNG (%v)", err)
		}
		csv, err := os.ReadFile(filepath.Join(p("sw"), "results.csv"))
		if err != nil || !bytes.Contains(csv, []byte("latency")) {
			t.Errorf("results.csv (%v) lacks latency:\n%s", err, csv)
		}
	})

	t.Run("scale to 65,536 ranks", func(t *testing.T) {
		if testing.Short() {
			t.Skip("65,536 ranks: seconds, not -short")
		}
		n := newcomer{t}
		res := n.simJSON(0, "sim", "--dims", "16,16,16,16")
		if res["ranks"] != float64(65536) || res["complete"] != true {
			t.Errorf("ranks %v, complete %v", res["ranks"], res["complete"])
		}
		yml, _ := n.run(0, "sim", "--dims", "16,16,16,16", "--print-config")
		if !strings.HasPrefix(yml, `# hxbar system "hyperxbar-16x16x16x16-butterfly-barrier"`) {
			t.Errorf("--print-config: %.100s", yml)
		}
	})

	t.Run("inject a fault", func(t *testing.T) {
		n := newcomer{t}
		// The README's `cosim --watchdog 50 --fault dead:n5.d1.down@10`,
		// on the model: the dead channel is met and the watchdog reports.
		res := n.simJSON(1, "sim", "--watchdog", "50", "--fault", "dead:n5.d1.down@10")
		faults, _ := res["faults"].([]any)
		if len(faults) != 1 {
			t.Fatalf("faults %v", res["faults"])
		}
		if f, _ := faults[0].(map[string]any); f["hits"] == float64(0) || f["first"] == nil {
			t.Errorf("dead:n5.d1.down@10 hits nothing: %v", f)
		}
		if errs, _ := res["errors"].([]any); len(errs) == 0 {
			t.Errorf("no unit error reported")
		}
		// The README's first fault line: the flip aimed with @first hits,
		// says what it did and is detected; the run stops at that error,
		// and the stuck rank's line says so.
		out, errs := n.run(1, "sim", "--op", "sum", "--fault", "flip:n4.d0.up@first:3", "--fault", "stuck:7")
		if strings.Contains(out, "hit no flit") || !strings.Contains(out, "flipped bit 3") || !strings.Contains(out, "detected by CRC") {
			t.Errorf("flip:n4.d0.up@first:3 does not say what it hit:\n%s", out)
		}
		if !strings.Contains(out, "rank 7 never arrives") || !strings.Contains(errs, "CRC") {
			t.Errorf("stuck:7: %s\n%s", out, errs)
		}
		// A campaign's JSON names the system it ran, as its table does.
		out, _ = n.run(0, "faults", "--dims", "4,4", "--op", "sum", "--campaign", "10", "--format", "json")
		var camp struct{ System string }
		if err := json.Unmarshal([]byte(out), &camp); err != nil || camp.System != "hyperxbar-4x4-butterfly-sum" {
			t.Errorf("faults --format json: system %q (%v)", camp.System, err)
		}
		// stuck:7 alone: nothing can happen once the others wait for it.
		if _, errs := n.run(1, "sim", "--op", "sum", "--fault", "stuck:7"); !strings.Contains(errs, "stuck: nothing can happen after cycle") {
			t.Errorf("stuck:7 alone: %s", errs)
		}
	})

	t.Run("use hxbar from Go", func(t *testing.T) {
		if testing.Short() {
			t.Skip("go run: a build, not -short")
		}
		goTool, err := exec.LookPath("go")
		if err != nil {
			t.Skip("no go on PATH")
		}
		cmd := exec.Command(goTool, "run", "./examples/library")
		cmd.Dir = filepath.Join("..", "..")
		out, err := cmd.CombinedOutput()
		if err != nil || !regexp.MustCompile(`^hyperxbar-8x8-butterfly-sum: 64 ranks, \d+ cycles, latency \d+ cycles\n$`).Match(out) {
			t.Errorf("go run ./examples/library: %v\n%s", err, out)
		}
	})

	t.Run("show the pictures", func(t *testing.T) {
		n := newcomer{t}
		n.run(0, "sim", "--plot", p("timeline.svg"), "--plot-load", p("load.svg"), "--trace-format", "chrome", "--trace", p("run.json"))
		n.svg(p("timeline.svg"))
		n.svg(p("load.svg"))
		b, err := os.ReadFile(p("run.json"))
		if err != nil || !json.Valid(b) {
			t.Errorf("--trace-format chrome: not JSON (%v)", err)
		}
		if m := sentinel.Find(b); m != nil {
			t.Errorf("run.json: a sentinel number %q", m)
		}
	})
}
