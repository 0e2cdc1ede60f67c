package main

import (
	"bytes"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Issue 13: hxbar sweep under the CLI contract: spec errors name the point
// and the key (exit 2), flags of another mode are refused by name, a
// directory hxbar did not write is left alone, points stopped by max_cycles
// and shards not yet run are problems found (exit 1).

const sweepSpec = "base: {collective: allgather, items: 4, skew: 0}\nvary:\n  order: [OOMM, MMOO]\n  item_flits: [1, 2]\nmeasure: [cycles, latency]\n"

func sweepSetup(files map[string]string) func(t *testing.T, d string) {
	return func(t *testing.T, d string) { writeFiles(t, d, files) }
}

var _ = registerContract("sweep",
	contractCase{
		name: "sweep runs and writes the results", args: []string{"sweep", "$D/s.yaml", "--out", "$D/out", "--workers", "2"},
		setup: sweepSetup(map[string]string{"s.yaml": sweepSpec}), exit: 0, owns: []string{"out"},
		stdout: []string{"4 points, 4 run, 0 already done"},
		check: func(t *testing.T, d string) {
			b, err := os.ReadFile(filepath.Join(d, "out", "results.csv"))
			if err != nil || !strings.HasPrefix(string(b), "point,order,item_flits,cycles,latency,complete,error,wall_ms,hash,hxbar_version\n0,OOMM,1,") {
				t.Errorf("results.csv: %v %q", err, b)
			}
		},
	},
	contractCase{
		name: "sweep: a bad value names the point and the key", args: []string{"sweep", "$D/s.yaml", "--out", "$D/out"},
		setup: sweepSetup(map[string]string{"s.yaml": "vary:\n  skew: [0, 4]\n  duplex: [full, quarter]\n"}), exit: 2,
		stderr: []string{`s.yaml: point 1 (skew=0, duplex=quarter): line 3: invalid duplex: "quarter" (allowed: full, half)`},
	},
	contractCase{
		name: "sweep: the model refuses a point before any runs", args: []string{"sweep", "$D/s.yaml", "--out", "$D/out"},
		setup: sweepSetup(map[string]string{"s.yaml": "base: {collective: allgather, items: 16}\nvary:\n  order: ['', OOMM]\n"}), exit: 2,
		stderr: []string{`s.yaml: point 1 (order=OOMM): line 3: invalid order: "OOMM" (allowed: "" when items = ranks`},
	},
	contractCase{
		name: "sweep: unknown measure lists the fields", args: []string{"sweep", "$D/s.yaml", "--out", "$D/out"},
		setup: sweepSetup(map[string]string{"s.yaml": "measure: [cycle]\n"}), exit: 2,
		stderr: []string{`line 1: measure: unknown field "cycle" (allowed: cycles, ranks,`},
	},
	contractCase{
		name: "sweep: --tasks without --slurm", args: []string{"sweep", "$D/s.yaml", "--out", "$D/out", "--tasks", "4"},
		setup: sweepSetup(map[string]string{"s.yaml": sweepSpec}), exit: 2,
		stderr: []string{"--tasks does not apply to a sweep run without --slurm (it applies to --slurm)"},
	},
	contractCase{
		name: "sweep: --shard with --slurm", args: []string{"sweep", "$D/s.yaml", "--out", "$D/out", "--slurm", "--shard", "0/2"},
		setup: sweepSetup(map[string]string{"s.yaml": sweepSpec}), exit: 2,
		stderr: []string{"--shard does not apply to sweep --slurm"},
	},
	contractCase{
		name: "sweep: --workers with --collect", args: []string{"sweep", "--collect", "$D/out", "--workers", "2"}, exit: 2,
		stderr: []string{"--workers does not apply to sweep --collect"},
	},
	contractCase{
		name: "sweep: bad --shard", args: []string{"sweep", "$D/s.yaml", "--out", "$D/out", "--shard", "4/4"},
		setup: sweepSetup(map[string]string{"s.yaml": sweepSpec}), exit: 2,
		stderr: []string{`invalid --shard: "4/4" (allowed: i/N with 0 <= i < N`},
	},
	contractCase{
		name: "sweep: a directory hxbar did not write is left alone", args: []string{"sweep", "$D/s.yaml", "--out", "$D"},
		setup: sweepSetup(map[string]string{"s.yaml": sweepSpec, "notes.txt": "mine"}), exit: 2,
		stderr: []string{"not written by hxbar"},
	},
	contractCase{
		name: "sweep: the spec as an output", args: []string{"sweep", "$D/results.csv", "--out", "$D"},
		setup: sweepSetup(map[string]string{"results.csv": sweepSpec}), exit: 2,
		stderr: []string{"is results.csv, a file of --out"},
	},
	contractCase{
		name: "sweep: points stopped by max_cycles are a problem found", args: []string{"sweep", "$D/s.yaml", "--out", "$D/out"},
		setup: sweepSetup(map[string]string{"s.yaml": "base: {skew: 0}\nvary:\n  max_cycles: [2, 100000]\n"}), exit: 1,
		owns: []string{"out"}, stderr: []string{"1 points did not complete: stopped at max_cycles"},
	},
	contractCase{
		name: "sweep: collect with a shard not run", args: []string{"sweep", "--collect", "$D/out"},
		setup: func(t *testing.T, d string) {
			writeFiles(t, d, map[string]string{"s.yaml": sweepSpec})
			var o, e strings.Builder
			if code := run([]string{"sweep", filepath.Join(d, "s.yaml"), "--out", filepath.Join(d, "out"), "--shard", "0/2"}, &o, &e); code != 0 {
				t.Fatalf("shard 0: %d %s", code, e.String())
			}
		},
		exit: 1, owns: []string{"out"}, stderr: []string{"shards 1 of 0..1 are missing"},
	},
	contractCase{
		name: "sweep: --slurm --dry-run writes the array job", args: []string{"sweep", "$D/s.yaml", "--out", "$D/out", "--slurm", "--tasks", "3", "--time", "10", "--dry-run"},
		setup: sweepSetup(map[string]string{"s.yaml": sweepSpec}), exit: 0, owns: []string{"out"},
		stdout: []string{"an array job of 3 tasks over 4 points", "not submitted (--dry-run)"},
		check: func(t *testing.T, d string) {
			b, err := os.ReadFile(filepath.Join(d, "out", "sweep.sbatch"))
			if err != nil || !strings.Contains(string(b), "#SBATCH --array=0-2\n") || !strings.Contains(string(b), "--shard \"$SLURM_ARRAY_TASK_ID/3\"") {
				t.Errorf("sweep.sbatch: %v\n%s", err, b)
			}
		},
	},
	contractCase{
		name: "sweep: --slurm refuses an --out with a blank before making it", args: []string{"sweep", "$D/s.yaml", "--out", "$D/o ut", "--slurm", "--dry-run"},
		setup: sweepSetup(map[string]string{"s.yaml": sweepSpec}), exit: 2,
		stderr: []string{"ut: a SLURM #SBATCH --output line cannot hold blanks"},
	},
	contractCase{
		name: "sweep --slurm: a symlinked DIR/logs is refused, not written through", args: []string{"sweep", "$D/s.yaml", "--out", "$D/out", "--slurm", "--dry-run"},
		setup: func(t *testing.T, d string) {
			writeFiles(t, d, map[string]string{"s.yaml": sweepSpec, "elsewhere/keep": ""})
			var o, e strings.Builder
			if code := run([]string{"sweep", filepath.Join(d, "s.yaml"), "--out", filepath.Join(d, "out"), "--slurm", "--dry-run"}, &o, &e); code != 0 {
				t.Fatalf("first --slurm: exit %d: %s", code, e.String())
			}
			os.Remove(filepath.Join(d, "out", "logs"))
			os.Remove(filepath.Join(d, "out", "sweep.sbatch"))
			if err := os.Symlink(filepath.Join(d, "elsewhere"), filepath.Join(d, "out", "logs")); err != nil {
				t.Fatal(err)
			}
		},
		exit:   2,
		stderr: []string{"out/logs: a symlink or not a directory, not followed"},
	},
	contractCase{
		name: "sweep: bad --time", args: []string{"sweep", "$D/s.yaml", "--out", "$D/out", "--slurm", "--time", "1h"},
		setup: sweepSetup(map[string]string{"s.yaml": sweepSpec}), exit: 2,
		stderr: []string{`invalid --time: "1h" (allowed: a SLURM time limit`},
	},
	contractCase{
		name: "sweep: --plot-out over a user's file", args: []string{"sweep", "--plot", "x=order,y=cycles", "$D/out", "--plot-out", "$D/mine.svg"},
		setup: func(t *testing.T, d string) {
			writeFiles(t, d, map[string]string{"s.yaml": sweepSpec, "mine.svg": "<svg/>"})
			var o, e strings.Builder
			if code := run([]string{"sweep", filepath.Join(d, "s.yaml"), "--out", filepath.Join(d, "out")}, &o, &e); code != 0 {
				t.Fatalf("sweep: %d %s", code, e.String())
			}
		},
		exit: 2, stderr: []string{"exists and is not a plot hxbar sweep wrote"},
	},
	contractCase{
		name: "sweep: --plot-out by extension: PNG", args: []string{"sweep", "--plot", "x=order,y=cycles", "$D/out", "--plot-out", "$D/p.PNG"},
		setup: sweptInto("out"), exit: 0, owns: []string{"p.PNG"}, stdout: []string{"wrote $D/p.PNG"},
		check: func(t *testing.T, d string) {
			b, err := os.ReadFile(filepath.Join(d, "p.PNG"))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := png.Decode(bytes.NewReader(b)); err != nil || !isPlotHead(b[:200]) {
				t.Errorf("p.PNG: not a marked PNG: %v\n%q", err, b[:min(len(b), 200)])
			}
		},
	},
	contractCase{
		name: "sweep: --plot-out by extension: PDF", args: []string{"sweep", "--plot", "x=order,y=cycles", "$D/out", "--plot-out", "$D/p.pdf"},
		setup: sweptInto("out"), exit: 0, owns: []string{"p.pdf"},
		check: func(t *testing.T, d string) {
			b, err := os.ReadFile(filepath.Join(d, "p.pdf"))
			if err != nil {
				t.Fatal(err)
			}
			if !isPlotHead(b[:200]) {
				t.Errorf("p.pdf: no mark in %q", b[:200])
			}
			checkPDFOffsets(t, b)
		},
	},
	contractCase{
		name: "sweep: --plot-out replaces its own PNG", args: []string{"sweep", "--plot", "x=order,y=latency", "$D/out", "--plot-out", "$D/p.png"},
		setup: then(sweptInto("out"), func(t *testing.T, d string) {
			ranCLI(t, d, "sweep", "--plot", "x=order,y=cycles", "$D/out", "--plot-out", "$D/p.png")
		}),
		exit: 0, owns: []string{"p.png"},
	},
	contractCase{
		name: "sweep: --plot-out replaces a plot with the old marker", args: []string{"sweep", "--plot", "x=order,y=cycles", "$D/out", "--plot-out", "$D/old.svg"},
		setup: then(sweptInto("out"), files("old.svg", "<?xml version=\"1.0\"?>\n"+oldPlotMarker+"<svg/>\n")),
		exit:  0, owns: []string{"old.svg"},
		check: func(t *testing.T, d string) {
			b, err := os.ReadFile(filepath.Join(d, "old.svg"))
			if err != nil || !strings.HasPrefix(string(b), "<?xml version=\"1.0\"?>\n"+plotMarker) || strings.Contains(string(b), oldPlotMarker) {
				t.Errorf("old.svg: %v\n%.300s", err, b)
			}
		},
	},
	contractCase{
		name: "sweep: --plot-out refuses another extension", args: []string{"sweep", "--plot", "x=order,y=cycles", "$D/out", "--plot-out", "$D/p.jpg"},
		setup: sweptInto("out"), exit: 2, stderr: []string{"--plot-out $D/p.jpg: extension .jpg (allowed: .svg, .png, .pdf)"},
	},
	contractCase{
		name: "sweep: --plot-out refuses no extension", args: []string{"sweep", "--plot", "x=order,y=cycles", "$D/out", "--plot-out", "$D/plot"},
		setup: sweptInto("out"), exit: 2, stderr: []string{"--plot-out $D/plot: no extension (allowed: .svg, .png, .pdf)"},
	},
	contractCase{
		name: "sweep: --plot logx,logy", args: []string{"sweep", "--plot", "x=item_flits,y=cycles,series=order,logx,logy", "$D/out", "--plot-out", "$D/p.svg"},
		setup: sweptInto("out"), exit: 0, owns: []string{"p.svg"},
	},
	contractCase{
		name: "sweep: --plot logx of a nominal x", args: []string{"sweep", "--plot", "x=order,y=cycles,logx", "$D/out"},
		setup: sweptInto("out"), exit: 2, stderr: []string{"--plot x=order,y=cycles,logx: logx: x=order is not numeric (allowed: logx with a numeric x)"},
	},
	contractCase{
		name: "sweep: --plot logx of a zero", args: []string{"sweep", "--plot", "x=point,y=cycles,logx", "$D/out"},
		setup: sweptInto("out"), exit: 2, stderr: []string{"logx: x=point has the value 0 (allowed: values > 0 on a log axis)"},
	},
	contractCase{
		name: "sweep: --plot unknown part", args: []string{"sweep", "--plot", "x=order,y=cycles,logz", "$D/out"},
		setup: sweptInto("out"), exit: 2, stderr: []string{`invalid --plot: "logz" is not NAME=COLUMN, logx or logy (allowed: x=KEY,y=FIELD[,series=KEY][,logx][,logy])`},
	},
	contractCase{
		name: "sweep: --plot draws DIR/plot.svg", args: []string{"sweep", "--plot", "x=order,y=cycles,series=item_flits", "$D/out"},
		setup: func(t *testing.T, d string) {
			writeFiles(t, d, map[string]string{"s.yaml": sweepSpec})
			var o, e strings.Builder
			if code := run([]string{"sweep", filepath.Join(d, "s.yaml"), "--out", filepath.Join(d, "out")}, &o, &e); code != 0 {
				t.Fatalf("sweep: %d %s", code, e.String())
			}
		},
		exit: 0, owns: []string{"out"}, stdout: []string{"plot.svg"},
		check: func(t *testing.T, d string) {
			b, err := os.ReadFile(filepath.Join(d, "out", "plot.svg"))
			if err != nil || !strings.HasPrefix(string(b), "<?xml version=\"1.0\"?>\n"+plotMarker) || strings.Count(string(b), plotMarker) != 1 {
				t.Errorf("plot.svg: %v\n%.300s", err, b)
			}
		},
	},
)
