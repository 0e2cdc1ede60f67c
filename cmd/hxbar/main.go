// Command hxbar simulates barrier units and hyper-crossbar networks cycle by
// cycle, prints and verifies gate schedules, runs synthetic traffic, and
// generates Verilog that Icarus Verilog simulates to the same trace.
//
// Exit codes: 0 success, 1 the run found a problem (schedule wrong, barrier
// stuck, RTL differs from the model), 2 bad usage or input.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"regexp"
	"sort"
	"strings"
)

type command struct {
	summary string
	run     func(args []string, stdout, stderr io.Writer) error
}

var commands = map[string]command{
	"sim":         {"simulate one barrier or reduction, cycle by cycle", runSim},
	"schedule":    {"print a gate schedule (every route)", runSchedule},
	"verify":      {"prove or refute a schedule file", runVerify},
	"traffic":     {"run synthetic traffic and report latency and throughput", runTraffic},
	"collective":  {"print, verify and cost a data-collective schedule (Hitachi one-sided/mutual all-gather, ...)", runCollective},
	"faults":      {"run a fault campaign: N runs with one random fault each, classified against the fault-free run", runFaults},
	"check":       {"prove the routing tables (reachability, minimality, deadlock freedom)", runCheck},
	"gen":         {"generate the Verilog and a self-checking testbench for a system", runGen},
	"cosim":       {"run the RTL under Icarus or Verilator and compare it with the model, cycle by cycle", runCosim},
	"sweep":       {"run a design-space sweep (base system, varied keys, measured fields) on every core or as a SLURM array job; merge and plot its results", runSweep},
	"synth":       {"synthesize the generated RTL with Yosys and report area (cells, flip-flops, memory bits) and logic depth per module", runSynth},
	"version":     {"print the module version and VCS revision of this binary (sweeps record it in every row)", runVersion},
	"experiments": {"measure the seeds' claims (orders, near-last vs near-first, duplex) and write docs/experiments.md", runExperiments},
}

// usageError marks bad command-line input: exit status 2.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

func usagef(format string, a ...any) error { return usageError{fmt.Errorf(format, a...)} }

// failure marks a run that completed and found a problem: exit status 1.
type failure struct{ msg string }

func (e failure) Error() string { return e.msg }

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	switch {
	case len(args) == 0:
		// No command is bad usage: a one-line usage on stderr, exit 2.
		fmt.Fprintf(stderr, "usage: hxbar <command> [flags] (commands: %s; see 'hxbar help')\n", strings.Join(commandNames(), ", "))
		return 2
	case args[0] == "-h" || args[0] == "--help" || args[0] == "help" && len(args) == 1:
		usage(stdout)
		return 0
	case args[0] == "help":
		// "hxbar help CMD" is "hxbar CMD -h"; anything more is bad usage.
		if _, ok := commands[args[1]]; !ok || len(args) > 2 {
			what := fmt.Sprintf("unknown command %q", args[1])
			if ok {
				what = fmt.Sprintf("help takes one command, not %q", strings.Join(args[1:], " "))
			}
			fmt.Fprintf(stderr, "hxbar help: %s (allowed: %s)\n", what, strings.Join(commandNames(), ", "))
			return 2
		}
		args = []string{args[1], "-h"}
	}
	c, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "hxbar: unknown command %q (allowed: %s; see 'hxbar help')\n", args[0], strings.Join(commandNames(), ", "))
		return 2
	}
	out := &errWriter{w: stdout}
	err := c.run(args[1:], out, stderr)
	if err == nil && out.err != nil {
		err = fmt.Errorf("writing the output: %w", out.err)
	}
	switch {
	case err == nil:
		return 0
	case errors.Is(err, flag.ErrHelp):
		return 0
	}
	fmt.Fprintf(stderr, "hxbar %s: %v\n", args[0], err)
	var f failure
	if errors.As(err, &f) {
		return 1
	}
	return 2
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: hxbar <command> [flags]\n\ncommands:")
	for _, n := range commandNames() {
		fmt.Fprintf(w, "  %-9s %s\n", n, commands[n].summary)
	}
	fmt.Fprintln(w, "\nRun 'hxbar <command> -h' for a command's flags.")
}

// flagSet is a command's flag set: errors come back as one line naming
// the flag (not printed with the whole usage), -h prints the usage, and the
// positional arguments are kept in args.
type flagSet struct {
	*flag.FlagSet
	name   string
	stderr io.Writer
	args   []string
}

func newFlags(name string, stderr io.Writer) *flagSet {
	fs := flag.NewFlagSet("hxbar "+name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {} // errors are reported by run, in one line
	return &flagSet{FlagSet: fs, name: name, stderr: stderr}
}

// flagNameRE finds the flag in the flag package's error messages.
var flagNameRE = regexp.MustCompile(`flag -{1,2}([a-z0-9-]+)`)

// explainFlagError turns the flag package's error into one line that names
// the flag and, when it has one, what the flag allows.
func explainFlagError(fs *flag.FlagSet, err error) error {
	msg := err.Error()
	if m := flagNameRE.FindStringSubmatch(msg); m != nil {
		if f := fs.Lookup(m[1]); f != nil && !strings.Contains(msg, "allowed") {
			msg += " (--" + f.Name + ": " + f.Usage + ")"
		}
	}
	return usageError{errors.New(msg)}
}

// parseFlags parses flags and up to maxArgs positional arguments (kept in
// fs.args), which may come before, between or after the flags.
func parseFlags(fs *flagSet, args []string, maxArgs int) error {
	fs.args = nil
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				fmt.Fprintf(fs.stderr, "usage of hxbar %s:\n", fs.name)
				fs.SetOutput(fs.stderr)
				fs.PrintDefaults()
				fs.SetOutput(io.Discard)
				return err
			}
			return explainFlagError(fs.FlagSet, err)
		}
		if fs.NArg() == 0 {
			break
		}
		fs.args = append(fs.args, fs.Arg(0))
		args = fs.Args()[1:]
	}
	if len(fs.args) > maxArgs {
		return usagef("unexpected argument %q", fs.args[maxArgs])
	}
	return nil
}

func checkFormat(f string) error {
	if f != "table" && f != "json" {
		return usagef("invalid --format: %q (allowed: table, json)", f)
	}
	return nil
}

func commandNames() []string {
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// errWriter remembers the first write error, so that output lost to a full
// disk or a closed pipe is not reported as success.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) Write(p []byte) (int, error) {
	if e.err != nil {
		return 0, e.err
	}
	n, err := e.w.Write(p)
	if err != nil {
		e.err = err
	}
	return n, err
}
