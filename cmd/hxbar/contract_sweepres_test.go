package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hxbar/hxbar/internal/version"
)

// Issue 24: a sweep holds what it measures (error outcomes are rows), its
// rows and sweep.json record the hxbar version, --collect checks the
// shards' sweep.json, and the batch script takes no control character.

const faultSweep = "base: {skew: 0, watchdog: 200}\nvary:\n  faults: [[], ['stuck:5'], ['stuck:3']]\nmeasure: [cycles, latency]\n"

var _ = registerContract("sweep-results",
	contractCase{
		name: "sweep: points that time out are rows, exit 0", args: []string{"sweep", "$D/s.yaml", "--out", "$D/out"},
		setup: sweepSetup(map[string]string{"s.yaml": faultSweep}), exit: 0, owns: []string{"out"},
		stdout: []string{"3 points, 3 run", "2 points ended in a unit's error"},
		check: func(t *testing.T, d string) {
			b, err := os.ReadFile(filepath.Join(d, "out", "results.csv"))
			rows := strings.Split(strings.TrimSpace(string(b)), "\n")
			if err != nil || len(rows) != 4 || !strings.Contains(rows[2], ",false,TIMEOUT,") || !strings.Contains(rows[3], ",false,TIMEOUT,") {
				t.Errorf("results.csv: %v\n%s", err, b)
			}
		},
	},
	contractCase{
		name: "sweep: --tasks above the shard limit", args: []string{"sweep", "$D/s.yaml", "--out", "$D/out", "--slurm", "--tasks", "2000000", "--dry-run"},
		setup: sweepSetup(map[string]string{"s.yaml": sweepSpec}), exit: 2,
		stderr: []string{"invalid --tasks: 2000000 (allowed: 0 for the default, or 1..1000000, the shard limit)"},
	},
	contractCase{
		name: "sweep: --tasks above the points", args: []string{"sweep", "$D/s.yaml", "--out", "$D/out", "--slurm", "--tasks", "5", "--dry-run"},
		setup: sweepSetup(map[string]string{"s.yaml": sweepSpec}), exit: 2,
		stderr: []string{"invalid --tasks: 5 for 4 points (allowed: 1..4, at most one task a point)"},
	},
	contractCase{
		name: "sweep: a newline in the spec's name is refused by --slurm", args: []string{"sweep", "$D/a\nb.yaml", "--out", "$D/out", "--slurm", "--dry-run"},
		setup: sweepSetup(map[string]string{"a\nb.yaml": sweepSpec}), exit: 2,
		stderr: []string{`the spec's path`, `holds a control character (U+000A`},
	},
	contractCase{
		name: "sweep: --collect refuses shards: 0", args: []string{"sweep", "--collect", "$D/out"},
		setup: editedShardMeta(func(meta string) string { return strings.Replace(meta, `"shards": 1`, `"shards": 0`, 1) }),
		exit:  2, owns: []string{"out"}, stderr: []string{"shards/0/sweep.json: invalid shards: 0 (allowed: 1..1000000)"},
	},
	contractCase{
		name: "sweep: --collect refuses a hand-edited sweep.json with valid fields", args: []string{"sweep", "--collect", "$D/out"},
		setup: editedShardMeta(func(meta string) string { return " " + meta }), // same fields, other bytes
		exit:  2, owns: []string{"out"}, stderr: []string{"shard 0: ", "shards/0/sweep.json: missing, or not as hxbar-manifest.json records it"},
	},
	contractCase{
		name: "version prints the build's version", args: []string{"version"}, exit: 0,
		stdout: []string{"hxbar " + version.String() + "\n"},
	},
)

// sim --format json records the version that computed the result.
func TestSimJSONVersion(t *testing.T) {
	var o, e strings.Builder
	if code := run([]string{"sim", "--format", "json"}, &o, &e); code != 0 {
		t.Fatalf("sim: %d %s", code, e.String())
	}
	var res map[string]any
	if err := json.Unmarshal([]byte(o.String()), &res); err != nil || res["hxbar_version"] != version.String() {
		t.Errorf("hxbar_version: %v %v", err, res["hxbar_version"])
	}
}

// No refusal of hxbar sweep advises a --force it does not have.
func TestSweepRefusalsAdviseNoForce(t *testing.T) {
	d := t.TempDir()
	writeFiles(t, d, map[string]string{"s.yaml": sweepSpec, "notes.txt": "mine"})
	var o, e strings.Builder
	if code := run([]string{"sweep", filepath.Join(d, "s.yaml"), "--out", d}, &o, &e); code != 2 || !strings.Contains(e.String(), "not written by hxbar") {
		t.Fatalf("sweep into a user's directory: %d %s", code, e.String())
	}
	if strings.Contains(e.String(), "--force") {
		t.Errorf("advises --force: %s", e.String())
	}
	if code := run([]string{"sweep", "--force"}, &o, &e); code != 2 {
		t.Errorf("sweep has a --force flag now (exit %d): the advice may come back", code)
	}
}

var _ = registerContract("sweep-limits",
	contractCase{
		name: "sweep: --workers above the shared limit", args: []string{"sweep", "$D/s.yaml", "--out", "$D/out", "--workers", "1000001"},
		setup: sweepSetup(map[string]string{"s.yaml": sweepSpec}), exit: 2,
		stderr: []string{"invalid --workers: 1000001 (allowed: 0 for every core, or 1..1000000"},
	},
	contractCase{
		name: "sweep: a bad channel of a large point is refused before any runs", args: []string{"sweep", "$D/s.yaml", "--out", "$D/out"},
		setup: sweepSetup(map[string]string{"s.yaml": "base: {dims: [64, 64, 2]}\nvary:\n  avoid: [[n3.d1.down], [n3.d3.down]]\n"}), exit: 2,
		stderr: []string{`point 1 (avoid=["n3.d3.down"]): line 3: invalid avoid[0]: "n3.d3.down"`},
	},
)

// editedShardMeta is a setup that runs shard 0 of 1 of sweepSpec into
// $D/out and then rewrites its sweep.json with edit.
func editedShardMeta(edit func(meta string) string) func(t *testing.T, d string) {
	return func(t *testing.T, d string) {
		writeFiles(t, d, map[string]string{"s.yaml": sweepSpec})
		var o, e strings.Builder
		if code := run([]string{"sweep", filepath.Join(d, "s.yaml"), "--out", filepath.Join(d, "out"), "--shard", "0/1"}, &o, &e); code != 0 {
			t.Fatalf("shard 0: %d %s", code, e.String())
		}
		b, err := os.ReadFile(filepath.Join(d, "out", "shards", "0", "sweep.json"))
		if err != nil {
			t.Fatal(err)
		}
		writeFiles(t, d, map[string]string{"out/shards/0/sweep.json": edit(string(b))})
	}
}
