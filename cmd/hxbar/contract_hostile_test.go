package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Issue 24, items 7 and "Messages": the fuzz targets' seed cases through
// the command line. Faults that cancel are refused naming the first; a
// shard's sweep.json and a manifest are read strictly, the reason named;
// a tool's multi-line stderr is one line.

const dupFlip = `["flip:n0.d0.up@10:3", "flip:n0.d0.up@10:3"]`

// editShardMeta runs shard 0/1 of sweepSpec into d/out and replaces old
// with new in its sweep.json.
func editShardMeta(old, new string) func(t *testing.T, d string) {
	return func(t *testing.T, d string) {
		writeFiles(t, d, map[string]string{"s.yaml": sweepSpec})
		var o, e strings.Builder
		if code := run([]string{"sweep", filepath.Join(d, "s.yaml"), "--out", filepath.Join(d, "out"), "--shard", "0/1"}, &o, &e); code != 0 {
			t.Fatalf("shard 0: %d %s", code, e.String())
		}
		b, err := os.ReadFile(filepath.Join(d, "out", "shards", "0", "sweep.json"))
		if err != nil || !strings.Contains(string(b), old) {
			t.Fatalf("sweep.json lacks %q: %v\n%s", old, err, b)
		}
		writeFiles(t, d, map[string]string{"out/shards/0/sweep.json": strings.Replace(string(b), old, new, 1)})
	}
}

var _ = registerContract("hostile-inputs",
	contractCase{
		name: "sim: the same flip twice in a system file", args: []string{"sim", "--config", "$D/s.yaml"},
		setup: sweepSetup(map[string]string{"s.yaml": "faults: " + dupFlip + "\n"}), exit: 2,
		stderr: []string{"line 1: invalid faults[1]", "faults[0] is the same fault"},
	},
	contractCase{
		name: "sim: the same flip twice, spelled two ways", args: []string{"sim", "--fault", "flip:n0.d0.up@10:3", "--fault", "flip:n0.d0.up@010:3"},
		exit: 2, stderr: []string{"invalid faults[1]", "faults[0] is the same fault"},
	},
	contractCase{
		name: "sweep: the same flip twice in a varied faults list", args: []string{"sweep", "$D/s.yaml", "--out", "$D/out"},
		setup: sweepSetup(map[string]string{"s.yaml": "vary:\n  faults: [[], " + dupFlip + "]\n"}), exit: 2,
		stderr: []string{"point 1 (faults=", "invalid faults[1]", "faults[0] is the same fault"},
	},
	contractCase{
		name: "sweep: --collect refuses a sweep.json key given twice", args: []string{"sweep", "--collect", "$D/out"},
		setup: editShardMeta(`"shards": 1`, `"shards": 1, "shards": 1000000000000`), exit: 2, owns: []string{"out"},
		stderr: []string{`shards/0/sweep.json: invalid sweep.json JSON: duplicate key "shards"`},
	},
	contractCase{
		name: "sweep: --collect refuses points written 0x10", args: []string{"sweep", "--collect", "$D/out"},
		setup: editShardMeta(`"points": 4`, `"points": 0x10`), exit: 2, owns: []string{"out"},
		stderr: []string{`shards/0/sweep.json: invalid sweep.json JSON: invalid character 'x'`},
	},
	contractCase{
		name: "sweep: --collect refuses a column given twice", args: []string{"sweep", "--collect", "$D/out"},
		setup: editShardMeta(`"item_flits",`, `"order",`), exit: 2, owns: []string{"out"},
		stderr: []string{`shards/0/sweep.json: invalid columns: ["point" "order" "order"`, "each once"},
	},
	contractCase{
		name: "gen: a manifest with a key given twice is named", args: []string{"gen", "--out", "$D/rtl"},
		setup: func(t *testing.T, d string) {
			var o, e strings.Builder
			if code := run([]string{"gen", "--out", filepath.Join(d, "rtl")}, &o, &e); code != 0 {
				t.Fatalf("gen: %d %s", code, e.String())
			}
			p := filepath.Join(d, "rtl", "hxbar-manifest.json")
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			writeFiles(t, d, map[string]string{"rtl/hxbar-manifest.json": strings.Replace(string(b), `"format": 1,`, `"format": 1, "format": 1,`, 1)})
		},
		exit: 2, stderr: []string{`unreadable manifest (invalid hxbar-manifest.json JSON: duplicate key "format")`},
	},
	contractCase{
		name: "sweep --slurm: sbatch's multi-line stderr on one line", args: []string{"sweep", "$D/s.yaml", "--out", "$D/out", "--slurm"},
		setup: func(t *testing.T, d string) {
			writeFiles(t, d, map[string]string{"s.yaml": sweepSpec,
				"bin/sbatch": "#!/bin/sh\necho 'sbatch: error: Batch job submission failed' >&2\necho 'sbatch: error: Invalid partition' >&2\nexit 1\n"})
			if err := os.Chmod(filepath.Join(d, "bin", "sbatch"), 0o755); err != nil {
				t.Fatal(err)
			}
			t.Setenv("PATH", filepath.Join(d, "bin")+string(os.PathListSeparator)+os.Getenv("PATH"))
		},
		exit: 1, owns: []string{"out"},
		stderr: []string{"exit status 1: sbatch: error: Batch job submission failed | sbatch: error: Invalid partition"},
	},
)
