package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/hxbar/hxbar/internal/budget"
	"github.com/hxbar/hxbar/internal/gendir"
	"github.com/hxbar/hxbar/internal/inputfile"
	"github.com/hxbar/hxbar/internal/outfile"
	"github.com/hxbar/hxbar/sweep"
)

// hxbar sweep: a design-space sweep (docs/sweeps.md). Four modes:
//
//	hxbar sweep SPEC.yaml --out DIR [--workers N] [--shard i/N]   run (a shard of) the points
//	hxbar sweep SPEC.yaml --out DIR --slurm [--tasks N] ...        write DIR/sweep.sbatch, submit it
//	hxbar sweep --collect DIR                                      merge DIR/shards/* into DIR
//	hxbar sweep --plot x=KEY,y=FIELD[,series=KEY][,logx][,logy] DIR
//	                                                               draw DIR/plot.svg
func runSweep(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("sweep", stderr)
	fs.forms = []string{
		"SPEC.yaml --out DIR [flags]                          run the sweep SPEC.yaml describes (docs/sweeps.md) into DIR",
		"--collect DIR                                        merge the shards run into DIR/shards",
		"--plot x=KEY,y=FIELD[,series=KEY][,logx][,logy] DIR  plot the results in DIR",
	}
	out := fs.String("out", "", "write the results into `DIR`: a new or empty directory, or one hxbar sweep wrote (it resumes: points already there are skipped)")
	workers := fs.Int("workers", 0, "points run at once (`N`; 0: GOMAXPROCS, every core)")
	shard := fs.String("shard", "", "run only shard `i/N`: the points p with p % N == i, into DIR/shards/i")
	slurm := fs.Bool("slurm", false, "write DIR/"+sweep.SbatchName+", a SLURM array job of --tasks shards, and submit it with sbatch")
	tasks := fs.Int("tasks", 0, "array tasks of --slurm (`N`; 0: the number of points, at most 64)")
	partition := fs.String("partition", "", "SLURM partition of --slurm (`P`; default: the cluster's default)")
	timeLimit := fs.String("time", "", "SLURM time limit of each task of --slurm (`T`, e.g. 30 or 1:00:00; default: the partition's)")
	dryRun := fs.Bool("dry-run", false, "with --slurm: write the script and print the sbatch command, do not submit")
	collect := fs.Bool("collect", false, "merge the shards of the sweep directory given as the argument into its results.csv and results.jsonl")
	plotSpec := fs.String("plot", "", "draw `x=KEY,y=FIELD[,series=KEY][,logx][,logy]` from the results of the sweep directory given as the argument")
	plotOut := fs.String("plot-out", "", "with --plot: write the plot to `FILE`, SVG, PNG or PDF by its extension (.svg, .png, .pdf; default: DIR/plot.svg)")
	format := fs.String("format", "table", "output format: table or json")
	limit := bindBudget(fs.FlagSet)
	if err := parseFlags(fs, args, 1); err != nil {
		return err
	}
	if err := checkFormat(*format); err != nil {
		return err
	}
	runOnly := []string{"out", "workers", "shard", "slurm", "tasks", "partition", "time", "dry-run", "max-memory"}
	slurmOnly := []string{"tasks", "partition", "time", "dry-run"}
	switch {
	case *plotSpec != "":
		if err := refuseFlags(fs.FlagSet, "sweep --plot", notApplicable{append(runOnly, "collect"), "--plot draws the results of a sweep directory"}); err != nil {
			return err
		}
		if len(fs.args) != 1 {
			return usagef("--plot needs the sweep directory: hxbar sweep --plot x=KEY,y=FIELD[,series=KEY][,logx][,logy] DIR")
		}
		return sweepPlot(fs.args[0], *plotSpec, *plotOut, *format, stdout, stderr)
	case *collect:
		if err := refuseFlags(fs.FlagSet, "sweep --collect", notApplicable{append(runOnly, "plot-out"), "--collect merges the shards already run"}); err != nil {
			return err
		}
		if len(fs.args) != 1 {
			return usagef("--collect needs the sweep directory: hxbar sweep --collect DIR")
		}
		return sweepCollect(fs.args[0], *format, stdout)
	}
	if err := checkSweepRunFlags(fs, *slurm, slurmOnly); err != nil {
		return err
	}
	return sweepRun(fs.args, sweepRunFlags{out: *out, workers: *workers, shard: *shard, slurm: *slurm, tasks: *tasks,
		partition: *partition, timeLimit: *timeLimit, dryRun: *dryRun, format: *format}, limit, stdout, stderr)
}

// sweepRunFlags are the flags of a sweep run (not --plot, not --collect).
type sweepRunFlags struct {
	out, shard, partition, timeLimit, format string
	workers, tasks                           int
	slurm, dryRun                            bool
}

// sweepRun runs the sweep of the spec in args (one path) into f.out, or
// one shard of it, or writes and submits its SLURM array job.
func sweepRun(args []string, f sweepRunFlags, limit func() (budget.Limit, error), stdout, stderr io.Writer) error {
	if len(args) != 1 {
		return usagef("the sweep spec is missing: hxbar sweep SPEC.yaml --out DIR (docs/sweeps.md)")
	}
	if f.out == "" {
		return usagef("--out DIR is missing: the directory of the results (allowed: a new or empty directory, or one hxbar sweep wrote)")
	}
	if f.workers < 0 || f.workers > sweep.MaxShards {
		return usagef("invalid --workers: %d (allowed: 0 for every core, or 1..%d, the limit --tasks and --shard share)", f.workers, sweep.MaxShards)
	}
	specPath := args[0]
	var shardI, shardN int
	if f.shard != "" {
		var err error
		if shardI, shardN, err = parseShard(f.shard); err != nil {
			return err
		}
	}
	if f.tasks < 0 || f.tasks > sweep.MaxShards {
		return usagef("invalid --tasks: %d (allowed: 0 for the default, or 1..%d, the shard limit)", f.tasks, sweep.MaxShards)
	}
	spec, err := loadSweepSpec(specPath, f.out)
	if err != nil {
		return err
	}
	if f.slurm {
		return sweepSlurm(spec, specPath, f.out, f.tasks, f.partition, f.timeLimit, f.workers, f.dryRun, f.format, stdout)
	}
	if err := checkSweepBudget(limit, spec, shardI, shardN, f.workers); err != nil {
		return err
	}
	dir := f.out
	if shardN > 0 {
		var err error
		if dir, err = sweep.ShardDir(dir, shardI); err != nil {
			return usageError{noForce(err)}
		}
	}
	start := time.Now()
	prog := newProgress(stderr, start)
	sum, err := sweep.Run(spec, dir, sweep.Options{Workers: f.workers, Shard: shardI, Shards: shardN, Progress: prog.update})
	prog.finish()
	if err != nil {
		return usageError{noForce(err)}
	}
	return reportSweep(stdout, sum, spec, specPath, shardI, shardN, f.workers, f.format, time.Since(start))
}

// loadSweepSpec reads and checks the spec at specPath, refusing a spec
// that is one of the files the sweep writes into out.
func loadSweepSpec(specPath, out string) (*sweep.Spec, error) {
	for _, n := range []string{sweep.CSVName, sweep.JSONLName, sweep.LogName, sweep.MetaName, sweep.SbatchName, gendir.ManifestName} {
		if o := filepath.Join(out, n); sameFile(o, specPath) {
			return nil, usagef("the spec %s is %s, a file of --out %s (allowed: a spec outside the files the sweep writes)", specPath, n, out)
		}
	}
	spec, err := sweep.Load(specPath)
	if err != nil {
		return nil, usageError{noForce(err)}
	}
	if err := spec.CheckSize(); err != nil {
		return nil, usageError{fmt.Errorf("%s: %w", specPath, err)}
	}
	if err := spec.CheckAll(); err != nil {
		return nil, usageError{noForce(err)}
	}
	return spec, nil
}

// checkSweepRunFlags refuses, for a sweep run, the flags of --plot and,
// with or without --slurm, those that apply only to the other.
func checkSweepRunFlags(fs *flagSet, slurm bool, slurmOnly []string) error {
	if err := refuseFlags(fs.FlagSet, "a sweep run", notApplicable{[]string{"plot-out"}, "it applies to --plot"}); err != nil {
		return err
	}
	if !slurm {
		if err := refuseFlags(fs.FlagSet, "a sweep run without --slurm", notApplicable{slurmOnly, "it applies to --slurm"}); err != nil {
			return err
		}
	} else if err := refuseFlags(fs.FlagSet, "sweep --slurm", notApplicable{[]string{"shard"}, "the array job gives each task its shard"}); err != nil {
		return err
	} else if err := refuseFlags(fs.FlagSet, "sweep --slurm", notApplicable{[]string{"max-memory"}, "each task has the budget of its node"}); err != nil {
		return err
	}
	return nil
}

// reportSweep prints a sweep run's summary (table or JSON); points that
// did not complete or failed make it a failure.
func reportSweep(stdout io.Writer, sum *sweep.Summary, spec *sweep.Spec, specPath string, shardI, shardN, workers int, format string, wall time.Duration) error {
	if format == "json" {
		failed := make([]string, len(sum.Failed))
		for i, e := range sum.Failed {
			failed[i] = e.Error()
		}
		if err := encodeIndented(stdout, map[string]any{
			"dir": sum.Dir, "points": sum.Points, "ran": sum.Ran, "skipped": sum.Skipped,
			"incomplete": sum.Incomplete, "errors": sum.Errors, "failed": failed, "wall_s": wall.Seconds(),
			"results": []string{filepath.Join(sum.Dir, sweep.CSVName), filepath.Join(sum.Dir, sweep.JSONLName)},
		}); err != nil {
			return err
		}
	} else {
		what := fmt.Sprintf("%d points", sum.Points)
		if shardN > 0 {
			what = fmt.Sprintf("shard %d/%d: %d of %d points", shardI, shardN, sum.Points, len(spec.Points))
		}
		fmt.Fprintf(stdout, "sweep %s: %s, %d run, %d already done (skipped), %.2f s on %d worker(s)\n",
			specPath, what, sum.Ran, sum.Skipped, wall.Seconds(), workerCount(workers))
		if sum.Errors > 0 {
			fmt.Fprintf(stdout, "%d points ended in a unit's error (a result: see the error column)\n", sum.Errors)
		}
		fmt.Fprintf(stdout, "results: %s, %s\n", filepath.Join(sum.Dir, sweep.CSVName), filepath.Join(sum.Dir, sweep.JSONLName))
	}
	var problems []string
	if sum.Incomplete > 0 {
		problems = append(problems, fmt.Sprintf("%d points did not complete: stopped at max_cycles, or where nothing could happen any more (complete=false in the results)", sum.Incomplete))
	}
	for _, e := range sum.Failed {
		problems = append(problems, e.Error())
	}
	if len(problems) > 0 {
		return failure{strings.Join(problems, "; ")}
	}
	return nil
}

func workerCount(w int) int {
	if w > 0 {
		return w
	}
	return runtimeProcs()
}

// parseShard reads --shard i/N.
func parseShard(s string) (int, int, error) {
	a, b, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(a)
	n, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil || n < 1 || i < 0 || i >= n || n > sweep.MaxShards {
		return 0, 0, usagef("invalid --shard: %q (allowed: i/N with 0 <= i < N <= %d, e.g. 0/4)", s, sweep.MaxShards)
	}
	return i, n, nil
}

// sweepSlurm writes DIR/sweep.sbatch and submits it (not with dryRun).
func sweepSlurm(spec *sweep.Spec, specPath, out string, tasks int, partition, timeLimit string, workers int, dryRun bool, format string, stdout io.Writer) error {
	if tasks == 0 {
		tasks = min(max(len(spec.Points), 1), 64)
	}
	if tasks > len(spec.Points) {
		// Task i runs the points p with p % tasks == i: the others would
		// run none, and --collect would wait for every one of them.
		return usagef("invalid --tasks: %d for %d points (allowed: 1..%d, at most one task a point)", tasks, len(spec.Points), len(spec.Points))
	}
	exe, err := os.Executable()
	if err == nil {
		exe, err = filepath.EvalSymlinks(exe)
	}
	if err != nil {
		return fmt.Errorf("the path of this hxbar binary: %w", err)
	}
	specAbs, err := filepath.Abs(specPath)
	if err != nil {
		return err
	}
	job := &sweep.Slurm{Hxbar: exe, Spec: specAbs, Dir: out, Tasks: tasks, Partition: partition, Time: timeLimit,
		JobName: "hxbar-sweep-" + strings.TrimSuffix(filepath.Base(specPath), filepath.Ext(specPath))}
	if err := job.Check(); err != nil { // before anything is written: --partition and --time too
		return usageError{noForce(err)}
	}
	// The path is checked before EnsureDir makes the directory: a refused
	// --out leaves nothing behind.
	dir, _, err := gendir.Resolve(out)
	if err != nil {
		return usageError{noForce(err)}
	}
	if strings.ContainsAny(dir, " \t\n%\"'\\") {
		return usagef("--out %s: a SLURM #SBATCH --output line cannot hold blanks, quotes, backslashes or %%: choose a plain path", dir)
	}
	if err := sweep.EnsureDir(out); err != nil {
		return usageError{noForce(err)}
	}
	job.Dir, job.Workers = dir, workers
	if err := job.Check(); err != nil {
		return usageError{noForce(err)}
	}
	// SLURM writes the tasks' logs, and the tasks their shards, in these:
	// a symlink would send them wherever it points.
	for _, d := range []string{sweep.LogsDir, sweep.ShardsDir} {
		p := filepath.Join(dir, d)
		if st, err := os.Lstat(p); err == nil && !st.IsDir() {
			return usagef("%s: a symlink or not a directory, not followed (allowed: a directory of its own, or none: it is made)", p)
		}
	}
	if _, err := gendir.Write(dir, []gendir.File{{Name: sweep.SbatchName, Data: []byte(job.Script()), Mode: 0o755, Part: "slurm"}},
		gendir.Options{Tool: sweep.Tool, Parts: []string{"slurm"}}); err != nil {
		return usageError{noForce(err)}
	}
	for _, d := range []string{sweep.LogsDir, sweep.ShardsDir} {
		if err := os.Mkdir(filepath.Join(dir, d), 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
			return err
		}
	}
	script := filepath.Join(dir, sweep.SbatchName)
	cmd := []string{"sbatch", "--parsable", script}
	jobID := ""
	if !dryRun {
		c := exec.Command(cmd[0], cmd[1:]...)
		var errb bytes.Buffer
		c.Stderr = &errb
		o, err := c.Output()
		if errors.Is(err, exec.ErrNotFound) {
			return fmt.Errorf("sbatch not found in PATH: SLURM's client is needed to submit (the script is written: %s; --dry-run only writes it)", script)
		}
		if err != nil {
			return failure{fmt.Sprintf("%s: %v: %s", strings.Join(cmd, " "), err, strings.TrimSpace(errb.String()))}
		}
		jobID, _, _ = strings.Cut(strings.TrimSpace(string(o)), ";")
	}
	collectCmd := fmt.Sprintf("%s sweep --collect %s", exe, dir)
	if format == "json" {
		return encodeIndented(stdout, map[string]any{"script": script, "tasks": tasks, "points": len(spec.Points),
			"submitted": !dryRun, "job_id": jobID, "sbatch": strings.Join(cmd, " "), "collect": collectCmd})
	}
	fmt.Fprintf(stdout, "wrote %s: an array job of %d tasks over %d points\n", script, tasks, len(spec.Points))
	if dryRun {
		fmt.Fprintf(stdout, "not submitted (--dry-run); submit with: %s\n", strings.Join(cmd, " "))
	} else {
		fmt.Fprintf(stdout, "submitted: job %s\n", jobID)
	}
	fmt.Fprintf(stdout, "when every task is done: %s\n", collectCmd)
	return nil
}

func sweepCollect(dir, format string, stdout io.Writer) error {
	sum, err := sweep.Collect(dir)
	if err != nil {
		if ie, ok := errors.AsType[*sweep.IncompleteError](err); ok {
			return failure{ie.Error()}
		}
		return usageError{noForce(err)}
	}
	if format == "json" {
		return encodeIndented(stdout, map[string]any{"dir": sum.Dir, "shards": sum.Shards, "points": sum.Points,
			"results": []string{filepath.Join(sum.Dir, sweep.CSVName), filepath.Join(sum.Dir, sweep.JSONLName)}})
	}
	fmt.Fprintf(stdout, "collected %d points from %d shards: %s, %s\n", sum.Points, sum.Shards,
		filepath.Join(sum.Dir, sweep.CSVName), filepath.Join(sum.Dir, sweep.JSONLName))
	return nil
}

// checkPlotOut returns the format of --plot-out FILE (by its extension)
// after refusing a FILE that is an input of the plot, that the writer would
// refuse, or that exists and is not a plot hxbar sweep wrote.
func checkPlotOut(plotOut, dir string) (string, error) {
	if sameFile(plotOut, filepath.Join(dir, sweep.JSONLName)) || sameFile(plotOut, filepath.Join(dir, sweep.CSVName)) {
		return "", usagef("--plot-out %s is an input of the plot (allowed: a new file, or a plot hxbar sweep wrote)", plotOut)
	}
	// The writer's checks come first: a FIFO or device is refused
	// before it is read, a symlink or hard link before it is written.
	if err := outfile.Check(plotOut); err != nil {
		return "", usagef("--plot-out %v", err)
	}
	format, err := plotOutFormat(plotOut)
	if err != nil {
		return "", err
	}
	if _, err := os.Lstat(plotOut); err == nil {
		head, rerr := inputfile.ReadHead(plotOut, 200)
		if rerr != nil || !isPlotHead(head) {
			return "", usagef("--plot-out %s exists and is not a plot hxbar sweep wrote (allowed: a new file, or one it wrote); refusing to overwrite it", plotOut)
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return "", usageError{noForce(err)}
	}
	return format, nil
}

func sweepPlot(dir, spec, plotOut, format string, stdout, stderr io.Writer) error {
	ps, err := sweep.ParsePlotSpec(spec)
	if err != nil {
		return usagef("invalid --plot: %v", err)
	}
	real, exists, err := gendir.Resolve(dir)
	if err != nil {
		return usageError{noForce(err)}
	}
	if exists {
		err = gendir.CheckOwned(real, sweep.JSONLName)
	}
	if _, notOwned := errors.AsType[*gendir.NotOwnedError](err); !exists || notOwned {
		return usagef("%s: no %s written by hxbar sweep (allowed: the --out DIR of a finished sweep, or a collected one)", dir, sweep.JSONLName)
	} else if err != nil {
		return usageError{err} // a file hxbar wrote no such: over the cap, a bad manifest
	}
	data, err := inputfile.Read(filepath.Join(real, sweep.JSONLName))
	if err != nil {
		return usageError{noForce(err)}
	}
	plotFormat := "svg"
	if plotOut != "" {
		if plotFormat, err = checkPlotOut(plotOut, real); err != nil {
			return err
		}
	}
	title := fmt.Sprintf("%s: %s vs %s", filepath.Base(real), ps.Y, ps.X)
	plot, omitted, err := sweep.PlotOmitting(data, ps, title, plotFormat)
	if err != nil {
		return usagef("--plot %s: %v", spec, err)
	}
	if omitted.Total() > 0 {
		fmt.Fprintf(stderr, "hxbar sweep: %s\n", omitted)
	}
	if plot, err = markPlot(plotFormat, plot); err != nil {
		return err
	}
	target := filepath.Join(real, "plot.svg")
	if plotOut == "" {
		if _, err := gendir.Write(real, []gendir.File{{Name: "plot.svg", Data: plot, Part: "plot"}}, gendir.Options{Tool: sweep.Tool, Parts: []string{"plot"}}); err != nil {
			return usageError{noForce(err)}
		}
	} else {
		target = plotOut
		if err := outfile.WriteFile(plotOut, plot, 0o644); err != nil {
			return usageError{noForce(err)}
		}
	}
	if format == "json" {
		return encodeIndented(stdout, map[string]any{"plot": target, "rows": omitted.Rows, "omitted": omitted.Total()})
	}
	fmt.Fprintf(stdout, "wrote %s\n", target)
	return nil
}

// noForce drops the --force advice of gendir's refusals: hxbar sweep has
// no --force (a sweep directory is never written over a user's files).
func noForce(err error) error {
	re, ok := errors.AsType[*gendir.RefusedError](err)
	if !ok {
		return err
	}
	r := *re
	r.Reason = strings.ReplaceAll(r.Reason, " (even with --force)", "")
	if i := strings.Index(r.Reason, ", or --force"); i >= 0 {
		r.Reason = r.Reason[:i]
	} else if i := strings.Index(r.Reason, "--force"); i >= 0 {
		r.Reason = strings.TrimRight(r.Reason[:i], ":; ") + ": move it away, or name a new directory"
	}
	return &r
}
