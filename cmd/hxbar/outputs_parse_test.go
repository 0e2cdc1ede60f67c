package main

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hxbar/hxbar/internal/xmlcheck"
)

// TestOutputsParse: every SVG any command writes (sim --plot timelines and
// their density view, --plot-load load maps, sweep plots, the experiments'
// plots) parses as strict XML, and every JSON it writes or prints (sim,
// traffic, faults, schedule, verify, collective, check, sweep and version
// --format json; --trace-format chrome; sweep results.jsonl; the manifests
// and schedules of gen and sweep) parses as JSON: each opens in its
// standard tool. synth --format json (a minute of Yosys) is parsed by
// TestSynth*; the committed files by TestCommittedFilesParse (package
// docs); the area plots by TestPlotsParse in tools/area.
func TestOutputsParse(t *testing.T) {
	d := t.TempDir()
	writeFiles(t, d, map[string]string{"s.yaml": sweepSpec})
	// A sweep directory whose name XML must escape in the plot's title.
	sw := filepath.Join(d, `o&<"x'>`)
	p := func(name string) string { return filepath.Join(d, name) }
	pics := func(tag string, args ...string) []string {
		return append([]string{"sim", "--format", "json", "--plot", p(tag + "-t.svg"), "--plot-load", p(tag + "-l.svg"),
			"--trace-format", "chrome", "--trace", p(tag + "-t.json")}, args...)
	}
	runs := []struct {
		args []string
		exit int
		json bool // stdout is one JSON document
	}{
		{pics("default"), 0, true},
		{pics("episodes", "--repeat", "3", "--op", "sum"), 0, true},
		{pics("allgather", "--collective", "allgather", "--items", "4", "--item-flits", "4"), 0, true},
		{pics("broadcast", "--collective", "broadcast", "--topology", "fattree", "--dims", "2,2,2"), 0, true},
		{pics("density", "--dims", "16,16"), 0, true},
		{pics("torus", "--topology", "torus", "--dims", "4,4,4", "--wrap", "1,0,1"), 0, true},
		{pics("stuck", "--fault", "stuck:7", "--watchdog", "200"), 1, true},
		{pics("flip", "--op", "sum", "--fault", "flip:n4.d0.up@20:3", "--link-retry", "4"), 0, true},
		{[]string{"traffic", "--format", "json", "--cycles", "400", "--dims", "4,4"}, 0, true},
		{[]string{"faults", "--format", "json", "--campaign", "6"}, 0, true},
		{[]string{"schedule", "--format", "json", "--ranks", "5"}, 0, true},
		{[]string{"collective", "--format", "json"}, 0, true},
		{[]string{"collective", "--format", "json", "--compare"}, 0, true},
		{[]string{"check", "--format", "json", "--dims", "4,4"}, 0, true},
		{[]string{"version", "--format", "json"}, 0, true},
		{[]string{"gen", "--out", p("gen"), "--collective", "allgather", "--items", "4"}, 0, false},
		{[]string{"sweep", p("s.yaml"), "--out", sw, "--format", "json"}, 0, true},
		{[]string{"sweep", "--plot", "x=order,y=cycles,series=item_flits", sw, "--format", "json"}, 0, true},
		{[]string{"sweep", "--plot", "x=item_flits,y=latency", sw, "--plot-out", p("sweep.svg")}, 0, false},
		{[]string{"experiments", "--doc", p("experiments.md"), "--img", p("img")}, 0, false},
	}
	// schedule's JSON is verify's input.
	_, sched, _ := hx(t, "schedule", "--format", "json", "--ranks", "6")
	writeFiles(t, d, map[string]string{"sched.json": sched})
	runs = append(runs, struct {
		args []string
		exit int
		json bool
	}{[]string{"verify", "--format", "json", p("sched.json")}, 0, true})
	if err := os.Mkdir(p("img"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, r := range runs {
		code, stdout, stderr := hx(t, r.args...)
		if code != r.exit {
			t.Fatalf("hxbar %s: exit %d, want %d: %s", strings.Join(r.args, " "), code, r.exit, stderr)
		}
		if r.json && !json.Valid([]byte(stdout)) {
			t.Errorf("hxbar %s: stdout is not JSON: %v\n%.300s", strings.Join(r.args, " "), json.Unmarshal([]byte(stdout), new(any)), stdout)
		}
	}
	n := checkTree(t, d)
	// 8 runs x 2 pictures, sweep's plot.svg and sweep.svg, 5 experiments.
	if n < 8*2+2+5 {
		t.Errorf("parsed %d SVG files, want at least %d", n, 8*2+2+5)
	}
}

// checkTree parses every .svg, .json and .jsonl file under dir and returns
// the number of SVG files.
func checkTree(t *testing.T, dir string) int {
	t.Helper()
	svgs := 0
	err := filepath.WalkDir(dir, func(path string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		switch filepath.Ext(path) {
		case ".svg":
			svgs++
			if err := xmlcheck.Strict(b); err != nil {
				t.Errorf("%s: not XML: %v", rel, err)
			}
		case ".json":
			if !json.Valid(b) {
				t.Errorf("%s: not JSON: %v", rel, json.Unmarshal(b, new(any)))
			}
		case ".jsonl":
			for i, l := range bytes.Split(bytes.TrimSuffix(b, []byte("\n")), []byte("\n")) {
				if !json.Valid(l) {
					t.Errorf("%s: line %d is not JSON: %v", rel, i+1, json.Unmarshal(l, new(any)))
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return svgs
}
