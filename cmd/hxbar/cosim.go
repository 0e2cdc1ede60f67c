package main

import (
	"encoding/json"
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
	netlist := fs.Bool("netlist", false, "gate-level: synthesize the design with Yosys (synth) and co-simulate its netlist, under Icarus, with the same testbench (written to DIR/netlist; docs/cosim.md)")
	format := fs.String("format", "table", "output format: table (one line) or json (an object: ok, summary, simulator, events, cycles, netlist, synthesis time and cells)")
	if err := parseFlags(fs, args, 0); err != nil {
		return err
	}
	if err := checkCosimFlags(fs.FlagSet, *format, *simulator, *netlist, *dir, *schedFile, *keep); err != nil {
		return err
	}
	if *printCfg {
		return cosimPrintConfig(*dir, *schedFile, sys, stdout)
	}

	ctx, stop := runContext(stdout)
	defer stop()

	target := *dir
	if target == "" {
		tmp, cleanup, err := cosimTempDir(fs.FlagSet, sys, *schedFile, *netlist)
		if err != nil {
			return err
		}
		if *keep {
			defer fmt.Fprintf(stderr, "hxbar cosim: kept %s\n", tmp)
		} else {
			defer cleanup()
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
	if *netlist {
		stopBeat = heartbeat(stderr, "hxbar cosim: --netlist: yosys synthesizes the design, then Icarus simulates the netlist (minutes for a 4x4 design; a later run of the directory reuses the netlist)", 30*time.Second)
	}
	rep, err := testbench.CosimWith(ctx, target, *simulator, testbench.Options{Netlist: *netlist})
	stopBeat()
	return reportCosim(rep, err, target, *format, stdout)
}

// checkCosimFlags refuses the flag combinations cosim cannot run: an
// unknown format or simulator, a netlist under Verilator, system flags,
// --schedule or --keep beside --dir.
func checkCosimFlags(fs *flag.FlagSet, format, simulator string, netlist bool, dir, schedFile string, keep bool) error {
	if err := checkFormat(format); err != nil {
		return err
	}
	if !slices.Contains(testbench.Simulators, simulator) {
		return usagef("invalid --simulator: %q (allowed: %s)", simulator, strings.Join(testbench.Simulators, ", "))
	}
	if netlist && simulator != testbench.Icarus {
		return usagef("invalid --simulator: %q with --netlist (allowed: %s; the netlist is co-simulated under Icarus)", simulator, testbench.Icarus)
	}
	own := map[string]bool{"dir": true, "simulator": true, "keep": true, "schedule": true, "print-config": true, "netlist": true, "format": true}
	var sysFlags []string
	fs.Visit(func(f *flag.Flag) {
		if !own[f.Name] {
			sysFlags = append(sysFlags, "--"+f.Name)
		}
	})
	if dir != "" && len(sysFlags) > 0 {
		return usagef("%s cannot be combined with --dir: the directory's system.yaml is the reference (regenerate the directory with 'hxbar gen --out DIR' and those flags)",
			strings.Join(sysFlags, ", "))
	}
	if dir != "" && schedFile != "" {
		return usagef("--schedule applies only without --dir (a directory records its schedule in %s or %s)", testbench.ScheduleFile, testbench.DataScheduleFile)
	}
	if dir != "" && keep {
		return usagef("--keep applies only without --dir (a temporary directory)")
	}
	return nil
}

// cosimTempDir generates the system of the flags (and --schedule) into a
// new temporary directory and returns it with the function that removes
// it.
func cosimTempDir(fs *flag.FlagSet, sys func() (hw.System, error), schedFile string, netlist bool) (string, func(), error) {
	s, err := sys()
	if err != nil {
		return "", nil, usageError{err}
	}
	if err := refuseFaults("cosim", s); err != nil {
		return "", nil, err
	}
	if netlist && len(s.Faults) > 0 {
		return "", nil, usagef("%s", netlistFaults(s.Faults))
	}
	sched, cs, err := schedulesFlag(fs, schedFile, &s)
	if err != nil {
		return "", nil, err
	}
	tmp, err := os.MkdirTemp("", "hxbar-cosim-")
	if err != nil {
		return "", nil, err
	}
	cleanup := func() { os.RemoveAll(tmp) }
	if _, err := generateDir(tmp, s, sched, cs); err != nil {
		cleanup()
		return "", nil, explainUsage(fs, err)
	}
	return tmp, cleanup, nil
}

// reportCosim prints a co-simulation's outcome (a table line or JSON)
// and turns a difference, a build failure or a run the model cannot
// finish into the command's failure.
func reportCosim(rep *testbench.Report, err error, target, format string, stdout io.Writer) error {
	var mm *testbench.MismatchError
	var ce *testbench.CompileError
	var stuck *sim.StuckError
	var unitErr *sim.UnitError
	switch {
	case errors.As(err, &mm):
		if format == "json" {
			if err := json.NewEncoder(stdout).Encode(cosimJSON(rep)); err != nil {
				return err
			}
		} else {
			fmt.Fprintln(stdout, rep.String())
		}
		if rep.Netlist != nil {
			return failure{"netlist differs from the model"}
		}
		return failure{"RTL differs from the model"}
	case errors.As(err, &ce):
		return failure{err.Error()}
	case errors.As(err, &stuck), errors.As(err, &unitErr):
		return failure{err.Error()}
	case errors.Is(err, testbench.ErrNetlistFaults):
		s, _ := hw.Load(filepath.Join(target, verilog.SystemFile))
		return usagef("%s", netlistFaults(s.Faults))
	case err != nil:
		return err
	}
	if format == "json" {
		return json.NewEncoder(stdout).Encode(cosimJSON(rep))
	}
	fmt.Fprintln(stdout, rep.Summary())
	return nil
}

// cosimResult is cosim's --format json output.
type cosimResult struct {
	OK         bool    `json:"ok"`
	Summary    string  `json:"summary"`
	Problem    string  `json:"problem,omitempty"` // the first difference (not OK)
	System     string  `json:"system"`
	Simulator  string  `json:"simulator"`
	Events     int     `json:"events"` // the model's
	Cycles     int64   `json:"cycles"`
	SimSeconds float64 `json:"sim_seconds"` // the simulation run, without compiling
	// Netlist: the Yosys netlist was simulated (--netlist), not the RTL;
	// the synthesis's wall time (0 when an up-to-date netlist was
	// reused) and the design's cells.
	Netlist       bool    `json:"netlist"`
	SynthSeconds  float64 `json:"synth_seconds,omitempty"`
	NetlistCells  int     `json:"netlist_cells,omitempty"`
	NetlistReused bool    `json:"netlist_reused,omitempty"`
}

func cosimJSON(r *testbench.Report) cosimResult {
	c := cosimResult{OK: r.OK(), Summary: r.Summary(), Problem: r.Problem(), System: r.System.Title(), Simulator: r.Simulator,
		Events: r.Events, Cycles: r.Cycles, SimSeconds: r.SimTime.Seconds(), Netlist: r.Netlist != nil}
	if n := r.Netlist; n != nil {
		c.SynthSeconds, c.NetlistCells, c.NetlistReused = n.SynthTime.Seconds(), n.Cells, n.Reused
	}
	return c
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

// netlistFaults is the one-line refusal of --netlist for a system with
// faults.
func netlistFaults(faults []string) string {
	return fmt.Sprintf("--netlist cannot inject faults (%s): the testbench injects them through simulation-only registers of the RTL (fi_* of hx_chan, pchk, achk) that synthesis removes; allowed: --netlist without faults, or the faults without --netlist", strings.Join(faults, ", "))
}
