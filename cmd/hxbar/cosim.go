package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/hxbar/hxbar/hw"
	"github.com/hxbar/hxbar/internal/gendir"
	"github.com/hxbar/hxbar/sim"
	"github.com/hxbar/hxbar/testbench"
	"github.com/hxbar/hxbar/verilog"
)

func runCosim(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("cosim", stderr)
	sys := bindSystem(fs.FlagSet)
	printCfg := bindPrintConfig(fs.FlagSet)
	dir := fs.String("dir", "", "check the design in `DIR` (made by 'hxbar gen', possibly edited) against DIR/system.yaml; without it the system flags are generated into a temporary directory")
	schedFile := fs.String("schedule", "", "without --dir: generate for the schedule in `FILE`: a gate schedule (JSON of 'hxbar schedule'), or with --collective a data schedule (JSON of 'hxbar collective')")
	simulator := fs.String("simulator", testbench.Icarus, "simulator: "+strings.Join(testbench.Simulators, " or "))
	keep := fs.Bool("keep", false, "without --dir: keep the temporary directory and print its name")
	if err := parseFlags(fs, args, 0); err != nil {
		return err
	}
	if !slices.Contains(testbench.Simulators, *simulator) {
		return usagef("invalid --simulator: %q (allowed: %s)", *simulator, strings.Join(testbench.Simulators, ", "))
	}
	own := map[string]bool{"dir": true, "simulator": true, "keep": true, "schedule": true, "print-config": true}
	var sysFlags []string
	fs.Visit(func(f *flag.Flag) {
		if !own[f.Name] {
			sysFlags = append(sysFlags, "--"+f.Name)
		}
	})
	if *dir != "" && len(sysFlags) > 0 {
		return usagef("%s cannot be combined with --dir: the directory's system.yaml is the reference (regenerate the directory with 'hxbar gen --out DIR' and those flags)",
			strings.Join(sysFlags, ", "))
	}
	if *dir != "" && *schedFile != "" {
		return usagef("--schedule applies only without --dir (a directory records its schedule in %s or %s)", testbench.ScheduleFile, testbench.DataScheduleFile)
	}
	if *dir != "" && *keep {
		return usagef("--keep applies only without --dir (a temporary directory)")
	}
	if *printCfg {
		return cosimPrintConfig(*dir, *schedFile, sys, stdout)
	}

	ctx, stop := runContext(stdout)
	defer stop()

	target := *dir
	if target == "" {
		s, err := sys()
		if err != nil {
			return usageError{err}
		}
		if err := refuseFaults("cosim", s); err != nil {
			return err
		}
		tmp, err := os.MkdirTemp("", "hxbar-cosim-")
		if err != nil {
			return err
		}
		if *keep {
			defer fmt.Fprintf(stderr, "hxbar cosim: kept %s\n", tmp)
		} else {
			defer os.RemoveAll(tmp)
		}
		sched, cs, err := schedulesFlag(fs.FlagSet, *schedFile, &s)
		if err != nil {
			return err
		}
		if _, err := generateDir(tmp, s, sched, cs); err != nil {
			return err
		}
		target = tmp
	} else if err := checkCosimDir(target); err != nil {
		return err
	}

	stopBeat := func() {}
	if *simulator == testbench.Verilator {
		// Its first build takes a minute or more with no output of its own.
		stopBeat = heartbeat(stderr, "hxbar cosim: verilator: building and running (the first build takes about 80 s; later runs of the directory reuse it)", 10*time.Second)
	}
	rep, err := testbench.Cosim(ctx, target, *simulator)
	stopBeat()
	var mm *testbench.MismatchError
	var ce *testbench.CompileError
	var stuck *sim.StuckError
	var unitErr *sim.UnitError
	switch {
	case errors.As(err, &mm):
		fmt.Fprintln(stdout, rep.String())
		return failure{"RTL differs from the model"}
	case errors.As(err, &ce):
		return failure{err.Error()}
	case errors.As(err, &stuck), errors.As(err, &unitErr):
		return failure{err.Error()}
	case err != nil:
		return err
	}
	fmt.Fprintln(stdout, rep.Summary())
	return nil
}

// cosimPrintConfig prints the system cosim would check: DIR/system.yaml
// with --dir, else the system of the flags; it refuses a run whose
// schedule comes from a file (--schedule, DIR's recorded schedule).
func cosimPrintConfig(dir, schedFile string, sys func() (hw.System, error), stdout io.Writer) error {
	if dir != "" {
		if err := checkCosimDir(dir); err != nil {
			return err
		}
		if f := dirSchedule(dir); f != "" {
			return refuseScheduleConfig(f)
		}
		s, err := hw.Load(filepath.Join(dir, verilog.SystemFile))
		if err != nil {
			return usageError{err}
		}
		return printConfig(stdout, s)
	}
	s, err := sys()
	if err != nil {
		return usageError{err}
	}
	if err := refuseFaults("cosim", s); err != nil {
		return err
	}
	if schedFile != "" {
		return refuseScheduleConfig(schedFile)
	}
	return printConfig(stdout, s)
}

// checkDesignDir refuses a --dir that is not a directory, or that another
// tool than hxbar gen owns (a sweep's directory), by name: its advice to
// write the design with 'hxbar gen --out DIR' would be refused there.
// checkCosimDir is checkDesignDir for cosim, which also needs the
// directory's system.yaml (the reference it checks the RTL against).
func checkCosimDir(dir string) error {
	if err := checkDesignDir(dir); err != nil {
		return err
	}
	if _, err := os.Lstat(filepath.Join(dir, verilog.SystemFile)); errors.Is(err, os.ErrNotExist) {
		return usagef("invalid --dir: %q has no %s, the system to check the RTL against (allowed: a directory hxbar gen wrote)", dir, verilog.SystemFile)
	}
	return nil
}

func checkDesignDir(dir string) error {
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return usagef("invalid --dir: %q is not a directory (write one with 'hxbar gen --out DIR')", dir)
	}
	if m, err := gendir.ReadManifest(dir); err == nil && gendir.Owner(m.Tool) != "gen" {
		return usagef("invalid --dir: %q is a %s directory (%s), not a design (allowed: a directory hxbar gen wrote)", dir, gendir.Owner(m.Tool), m.Tool)
	}
	return nil
}
