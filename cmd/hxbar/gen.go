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
	"github.com/hxbar/hxbar/sim"
	"github.com/hxbar/hxbar/testbench"
	"github.com/hxbar/hxbar/verilog"
)

func runGen(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("gen", stderr)
	sys := bindSystem(fs.FlagSet)
	out := fs.String("out", "", "write the Verilog and the testbench into `DIR` (created if needed)")
	schedFile := fs.String("schedule", "", "generate for the schedule in `FILE`: a gate schedule (JSON of 'hxbar schedule'), or with --collective a data schedule (JSON of 'hxbar collective'); it is copied into DIR")
	if err := parseFlags(fs, args, 0); err != nil {
		return err
	}
	if *out == "" {
		return usagef("missing --out DIR: the directory to write the Verilog and the testbench into")
	}
	s, err := sys()
	if err != nil {
		return usageError{err}
	}
	sched, cs, err := schedulesFlag(fs.FlagSet, *schedFile, &s)
	if err != nil {
		return err
	}
	g, err := generateDir(*out, s, sched, cs)
	if err != nil {
		return err
	}
	m := g.manifest
	fmt.Fprintf(stdout, "wrote %s (system %q: %d nodes, %d ranks, %d switches):\n", *out, m.Name, m.Nodes, m.Ranks, m.Switches)
	fmt.Fprintf(stdout, "  RTL:        %s (top level, module %s), %s\n", verilog.TopFile, m.Top, strings.Join(m.Library, " "))
	fmt.Fprintf(stdout, "  tables:     %d gate tables gt_n<node>.hex, %d routing tables rt_s<switch>.hex", len(m.GateTables), len(m.RouteTables))
	if m.Data {
		fmt.Fprintf(stdout, ", %d data tables dt_n<node>.hex (%s: %d items of %d flits)", len(m.DataTables), s.Collective, m.Items, m.ItemFlits)
	}
	fmt.Fprintln(stdout)
	fmt.Fprintf(stdout, "  defines:    %s; reference system: %s\n", m.Params, m.System)
	fmt.Fprintf(stdout, "  testbench:  %s, %s, %s (%d events over %d cycles), %s, %s\n",
		testbench.TBFile, testbench.ScenarioFile, testbench.ExpectedFile, g.events, g.cycles, testbench.RunScript, testbench.MakefileName)
	fmt.Fprintf(stdout, "run it: 'hxbar cosim --dir %s', or without Go: 'cd %s && make' (Icarus) / 'make verilator'\n", *out, *out)
	return nil
}

// generated is what generateDir wrote.
type generated struct {
	manifest *verilog.Manifest
	events   int
	cycles   int64
}

// generateDir writes the design (verilog.Generate) and its testbench, with
// the model's trace as the expected one, into dir. Systems the RTL cannot
// build are usage errors; a model run that does not complete is a failure.
func generateDir(dir string, sys hw.System, sched *barrierunit.Schedule, cs *collective.Schedule) (*generated, error) {
	s, err := sim.BuildWith(sys, sched, cs)
	if err != nil {
		return nil, usageError{err}
	}
	if err := verilog.Check(s); err != nil {
		return nil, usageError{err}
	}
	trace, res, err := testbench.Trace(s)
	if err != nil {
		var stuck *sim.StuckError
		if errors.As(err, &stuck) {
			return nil, failure{err.Error()}
		}
		return nil, usageError{err}
	}
	m, err := verilog.Generate(dir, s)
	if err != nil {
		return nil, err
	}
	// A user schedule is part of the reference: cosim --dir reads it back.
	if err := recordSchedule(filepath.Join(dir, testbench.ScheduleFile), sched); err != nil {
		return nil, err
	}
	if err := recordSchedule(filepath.Join(dir, testbench.DataScheduleFile), cs); err != nil {
		return nil, err
	}
	if err := testbench.Generate(dir, s, trace); err != nil {
		return nil, err
	}
	return &generated{manifest: m, events: len(testbench.Lines(trace)), cycles: res.Cycles}, nil
}

// recordSchedule writes a user schedule as JSON to path, or removes a stale
// one when there is none (v is a nil pointer).
func recordSchedule[T any](path string, v *T) error {
	if v == nil {
		if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
		return nil
	}
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
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
