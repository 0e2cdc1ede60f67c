package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/hxbar/hxbar/barrierunit"
	"github.com/hxbar/hxbar/collective"
	"github.com/hxbar/hxbar/hw"
	"github.com/hxbar/hxbar/internal/gendir"
	"github.com/hxbar/hxbar/sim"
	"github.com/hxbar/hxbar/testbench"
	"github.com/hxbar/hxbar/verilog"
)

func runGen(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("gen", stderr)
	sys := bindSystem(fs.FlagSet)
	printCfg := bindPrintConfig(fs.FlagSet)
	out := fs.String("out", "", "write the Verilog and the testbench into `DIR`: a new (created) or empty directory, or one hxbar gen wrote (it has "+gendir.ManifestName+"); only the files that manifest lists, unedited, are replaced or removed")
	force := fs.Bool("force", false, "also write into a non-empty DIR that hxbar did not write, and overwrite files in DIR that its manifest does not list or that were edited since (a symlink is replaced, never written through); never a directory, never the filesystem root")
	schedFile := fs.String("schedule", "", "generate for the schedule in `FILE`: a gate schedule (JSON of 'hxbar schedule'), or with --collective a data schedule (JSON of 'hxbar collective'); it is copied into DIR")
	if err := parseFlags(fs, args, 0); err != nil {
		return err
	}
	if *out == "" && !*printCfg {
		return usagef("missing --out DIR: the directory to write the Verilog and the testbench into")
	}
	s, err := sys()
	if err != nil {
		return usageError{err}
	}
	if err := refuseFaults("gen", s); err != nil {
		return err
	}
	if *printCfg && *schedFile != "" {
		return refuseScheduleConfig(*schedFile)
	}
	sched, cs, err := schedulesFlag(fs.FlagSet, *schedFile, &s)
	if err != nil {
		return err
	}
	if *printCfg {
		return printConfig(stdout, s)
	}
	inputs := []string{*schedFile}
	if f := fs.Lookup("config"); f != nil {
		inputs = append(inputs, f.Value.String())
	}
	g, err := generateDirWith(*out, s, sched, cs, genOptions{force: *force, inputs: inputs})
	if err != nil {
		return explainUsage(fs.FlagSet, err)
	}
	m := g.manifest
	fmt.Fprintf(stdout, "wrote %s (system %q: %d nodes, %d ranks, %d switches):\n", *out, m.Name, m.Nodes, m.Ranks, m.Switches)
	fmt.Fprintf(stdout, "  RTL:        %s (top level, module %s), %s\n", verilog.TopFile, m.Top, strings.Join(m.Library, " "))
	fmt.Fprintf(stdout, "  tables:     %d gate tables gt_n<node>.hex, %d routing tables rt_s<switch>.hex", len(m.GateTables), len(m.RouteTables))
	if m.Data {
		fmt.Fprintf(stdout, ", %d data tables dt_n<node>.hex (%s: %d items of %d flits)", len(m.DataTables), s.Collective, m.Items, m.ItemFlits)
	}
	fmt.Fprintln(stdout)
	if len(m.ExceptTables) > 0 {
		fmt.Fprintf(stdout, "  avoid:      %s: routing exceptions in %d tables rx_s<switch>.hex, every switch's CAM E = %d entries\n", strings.Join(s.Avoid, ", "), len(m.ExceptTables), m.CAMEntries)
	}
	fmt.Fprintf(stdout, "  defines:    %s; reference system: %s\n", m.Params, m.System)
	fmt.Fprintf(stdout, "  testbench:  %s, %s, %s (%d events over %d cycles), %s, %s, %s (the sources to compile)\n",
		testbench.TBFile, testbench.ScenarioFile, testbench.ExpectedFile, g.events, g.cycles, testbench.RunScript, testbench.MakefileName, testbench.SourcesFile)
	fmt.Fprintf(stdout, "  manifest:   %s lists the %d files hxbar owns here; other files are left alone\n", gendir.ManifestName, len(g.written))
	if len(g.removed) > 0 {
		fmt.Fprintf(stdout, "  removed:    %d files of the previous design (%s)\n", len(g.removed), short(g.removed))
	}
	if len(g.replaced) > 0 {
		fmt.Fprintf(stdout, "  replaced:   %s (--force: not hxbar's, or edited)\n", short(g.replaced))
	}
	if len(g.left) > 0 {
		fmt.Fprintf(stdout, "  left alone: %s (generated earlier, edited since: no longer hxbar's)\n", short(g.left))
	}
	fmt.Fprintf(stdout, "run it: 'hxbar cosim --dir %s', or without Go: 'cd %s && make' (Icarus) / 'make verilator'\n", *out, *out)
	return nil
}

// generated is what generateDir wrote.
type generated struct {
	manifest *verilog.Manifest
	events   int
	cycles   int64

	written, removed, replaced, left []string // names in the directory (gendir.Result)
}

// genOptions are gen's options for writing the directory.
type genOptions struct {
	force  bool     // --force
	inputs []string // files the command read (--config, --schedule): replaced if they are in DIR
}

// Part of the recorded schedules in the directory's manifest.
const partSchedule = "schedule"

// generateDir writes a new design into a fresh directory (cosim's
// temporary one); see generateDirWith.
func generateDir(dir string, sys hw.System, sched *barrierunit.Schedule, cs *collective.Schedule) (*generated, error) {
	return generateDirWith(dir, sys, sched, cs, genOptions{})
}

// generateDirWith writes the design (verilog.Render), the user schedule it
// was generated for (schedule.json or data-schedule.json) and its
// testbench (testbench.Render), with the model's trace as the expected one,
// into dir in one gendir.Write: every file or none, and never a file that
// dir's manifest does not own (unless opts.force). Systems the RTL cannot
// build, and a directory it refuses, are usage errors; a model run that
// does not complete is a failure.
func generateDirWith(dir string, sys hw.System, sched *barrierunit.Schedule, cs *collective.Schedule, opts genOptions) (*generated, error) {
	s, err := sim.BuildWith(sys, sched, cs)
	if err != nil {
		return nil, usageError{err}
	}
	if err := verilog.Check(s.Design); err != nil {
		return nil, usageError{err}
	}
	trace, res, err := testbench.Trace(s)
	if err != nil {
		var stuck *sim.StuckError
		var unitErr *sim.UnitError
		if errors.As(err, &stuck) || errors.As(err, &unitErr) {
			return nil, failure{err.Error()}
		}
		return nil, usageError{err}
	}
	m, files, err := verilog.Render(s.Design)
	if err != nil {
		return nil, err
	}
	// A user schedule is part of the reference: cosim --dir reads it back.
	if sched != nil {
		f, err := recordSchedule(testbench.ScheduleFile, sched)
		if err != nil {
			return nil, err
		}
		files = append(files, f)
	}
	if cs != nil {
		f, err := recordSchedule(testbench.DataScheduleFile, cs)
		if err != nil {
			return nil, err
		}
		files = append(files, f)
	}
	tb, err := testbench.Render(testbench.Resolved(s), trace) // @first faults at the cycles the model hit them
	if err != nil {
		return nil, err
	}
	files = append(files, tb...)

	names := map[string]bool{}
	for _, f := range files {
		names[f.Name] = true
	}
	inputs := inputsIn(dir, opts.inputs, names)
	// A recorded schedule that this design does not write and that is not
	// hxbar's (edited, or the user's) would be read by cosim as the
	// reference of a design not generated for it.
	// (A directory without a manifest is refused by gendir.Write first,
	// unless --force.)
	_, merr := gendir.ReadManifest(dir)
	for _, rec := range []string{testbench.ScheduleFile, testbench.DataScheduleFile} {
		p := filepath.Join(dir, rec)
		if _, err := os.Lstat(p); err != nil || names[rec] || merr != nil && !opts.force {
			continue
		}
		if !gendir.Owns(dir, rec) {
			return nil, usagef("%s is not hxbar's (edited since, or the user's) and 'hxbar cosim --dir %s' would read it as the schedule of this design: pass it with --schedule %s, or move it away", p, dir, p)
		}
	}
	r, err := gendir.Write(dir, files, gendir.Options{Force: opts.force, Tool: "hxbar gen", Inputs: inputs})
	var refused *gendir.RefusedError
	if errors.As(err, &refused) {
		return nil, usageError{err}
	}
	if err != nil {
		return nil, err
	}
	m.Dir = dir
	return &generated{manifest: m, events: len(testbench.Lines(trace)), cycles: res.Cycles,
		written: r.Written, removed: r.Removed, replaced: r.Replaced, left: r.Left}, nil
}

// recordSchedule is a user schedule as the directory records it (JSON).
func recordSchedule(name string, v any) (gendir.File, error) {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return gendir.File{}, err
	}
	return gendir.File{Name: name, Data: append(b, '\n'), Mode: 0o644, Part: partSchedule}, nil
}

// inputsIn returns the names of the files among paths (read in full by the
// command before it writes) that are the files of those names in dir and
// that the new design writes again: the regenerated copy may replace them
// even when they were edited (they are what it was generated from).
func inputsIn(dir string, paths []string, names map[string]bool) []string {
	var out []string
	for _, p := range paths {
		if p == "" {
			continue
		}
		in, err := os.Stat(p)
		if err != nil {
			continue
		}
		name := filepath.Base(p)
		there, err := os.Lstat(filepath.Join(dir, name))
		if !names[name] || err != nil || !there.Mode().IsRegular() || !os.SameFile(in, there) {
			continue
		}
		out = append(out, name)
	}
	return out
}

// short lists names for a message, at most 4 of them.
func short(names []string) string {
	if len(names) <= 4 {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:4], ", "), len(names)-4)
}

// schedulesFlag reads the --schedule file as a data schedule for a data
// collective, else as a gate schedule (none: both nil).
func schedulesFlag(fs *flag.FlagSet, name string, s *hw.System) (*barrierunit.Schedule, *collective.Schedule, error) {
	if s.IsData() {
		cs, err := dataScheduleFlag(fs, name, s)
		return nil, cs, err
	}
	sched, err := scheduleFlag(fs, name, s)
	return sched, nil, err
}
