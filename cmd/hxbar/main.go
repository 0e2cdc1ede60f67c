// Command hxbar simulates barrier units and hyper-crossbar networks cycle by
// cycle, prints and verifies gate schedules, runs synthetic traffic, and
// generates Verilog that Icarus Verilog simulates to the same trace.
//
// Exit codes: 0 success, 1 the run found a problem (schedule wrong, barrier
// stuck, RTL differs from the model), 2 bad usage or input.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"syscall"
	"unicode"
	"unicode/utf8"

	"github.com/hxbar/hxbar/hw"
	"github.com/hxbar/hxbar/internal/inputfile"
)

type command struct {
	run func(args []string, stdout, stderr io.Writer) error
}

var commands = map[string]command{
	"sim":         {runSim},
	"schedule":    {runSchedule},
	"verify":      {runVerify},
	"traffic":     {runTraffic},
	"collective":  {runCollective},
	"faults":      {runFaults},
	"check":       {runCheck},
	"gen":         {runGen},
	"cosim":       {runCosim},
	"sweep":       {runSweep},
	"synth":       {runSynth},
	"version":     {runVersion},
	"experiments": {runExperiments},
}

// summaries are the commands' one-line summaries: 'hxbar help' lists
// them, and each command's -h starts with its own.
var summaries = map[string]string{
	"sim":         "simulate a barrier, reduction, all-gather or broadcast (or back-to-back episodes of them), cycle by cycle",
	"schedule":    "print a gate schedule (every route)",
	"verify":      "prove or refute a schedule file",
	"traffic":     "run synthetic traffic and report latency and throughput",
	"collective":  "print, verify and cost a data-collective schedule (Hitachi one-sided/mutual all-gather, ...)",
	"faults":      "run a fault campaign: N runs, each with K random faults (--per-run), classified against the fault-free run",
	"check":       "prove the routing tables (reachability, minimality, deadlock freedom)",
	"gen":         "generate the Verilog and a self-checking testbench for a system",
	"cosim":       "run the RTL under Icarus or Verilator and compare it with the model, cycle by cycle",
	"sweep":       "run a design-space sweep (base system, varied keys, measured fields) on every core or as a SLURM array job; merge and plot its results",
	"synth":       "synthesize the generated RTL with Yosys and report area (cells, flip-flops, memory bits) and logic depth per module; --pnr ice40: Fmax on an iCE40-HX8K",
	"version":     "print the module version and VCS revision of this binary (sweeps record it in every row)",
	"experiments": "measure the seeds' claims (orders, near-last vs near-first, duplex) and write docs/experiments.md",
}

// usageError marks bad command-line input: exit status 2.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

func usagef(format string, a ...any) error { return usageError{fmt.Errorf(format, a...)} }

// failure marks a run that completed and found a problem: exit status 1.
type failure struct{ msg string }

func (e failure) Error() string { return e.msg }

// exitPipe is the status of a run whose stdout or stderr reader went away:
// a shell's status for a death by SIGPIPE (128 + 13).
const exitPipe = 128 + int(syscall.SIGPIPE)

func main() {
	// With SIGPIPE handled, a write to a closed pipe returns EPIPE instead
	// of killing hxbar outright: the run is cancelled (children killed,
	// temporary directories removed) and hxbar exits with the status a
	// shell shows for a death by SIGPIPE (the Go runtime ignores a
	// SIGPIPE hxbar would send itself).
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
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
	inputfile.Forget() // a new run: no file read before is its input
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	out := &errWriter{w: stdout, ctx: ctx, cancel: cancel}
	errOut := &errWriter{w: stderr, ctx: ctx, cancel: cancel}
	err := c.run(args[1:], out, errOut)
	if err == nil && out.failed() != nil {
		err = fmt.Errorf("writing the output: %w", out.failed())
	}
	switch {
	case err == nil:
		return 0
	case errors.Is(err, flag.ErrHelp):
		return 0
	case errors.Is(out.failed(), syscall.EPIPE) || errors.Is(errOut.failed(), syscall.EPIPE):
		return exitPipe // the reader has gone: nothing to tell it
	}
	fmt.Fprintf(stderr, "hxbar %s: %s\n", args[0], oneLine(err.Error()))
	var f failure
	if errors.As(err, &f) {
		return 1
	}
	return 2
}

// maxMessage bounds a printed error: one that quotes its input (a line of
// a file, a tool's output) could otherwise be megabytes on one line.
const maxMessage = 4096

// oneLine makes an error message one line of at most maxMessage bytes:
// a multi-line message (a tool's stderr, a parser's report) has its lines
// joined by " | ", a control character it quotes (a file name's escape
// sequence or carriage return) is shown escaped (\x1b) instead of acting on
// the terminal, and a long one is cut, saying how much was cut.
func oneLine(msg string) string {
	var lines []string
	for l := range strings.Lines(msg) {
		if l = strings.TrimSpace(l); l != "" {
			lines = append(lines, l)
		}
	}
	msg = visible(strings.Join(lines, " | "))
	if len(msg) > maxMessage {
		cut := maxMessage
		for cut > 0 && !utf8.RuneStart(msg[cut]) {
			cut--
		}
		msg = fmt.Sprintf("%s... (%d more bytes of the message cut)", msg[:cut], len(msg)-cut)
	}
	return msg
}

// visible escapes the control characters of msg (but tabs) and the
// bidirectional overrides, which would act on the terminal that shows them.
func visible(msg string) string {
	var b strings.Builder
	for _, r := range msg {
		switch {
		case r != '\t' && unicode.IsControl(r) && r < 0x100:
			fmt.Fprintf(&b, "\\x%02x", r)
		case r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069:
			fmt.Fprintf(&b, "\\u%04x", r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: hxbar <command> [flags]\n\ncommands:")
	width := 0
	for _, n := range commandNames() {
		width = max(width, len(n))
	}
	for _, n := range commandNames() {
		fmt.Fprintf(w, "  %-*s  %s\n", width, n, summaries[n])
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
	never  []notApplicable // flags bound but never taken: refused, not listed by -h
	// forms are the command lines of a command that takes arguments, as
	// -h lists them above the flags ("FILE" for hxbar verify FILE).
	forms []string
}

func newFlags(name string, stderr io.Writer) *flagSet {
	fs := flag.NewFlagSet("hxbar "+name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {} // errors are reported by run, in one line
	return &flagSet{FlagSet: fs, name: name, stderr: stderr}
}

// neverTakes declares flags that the command binds (with the shared
// system or picture flags) but never takes: parseFlags refuses them by
// name and -h does not list them.
func (fs *flagSet) neverTakes(rules ...notApplicable) { fs.never = append(fs.never, rules...) }

// flagWordRE finds a flag as the flag package spells it in its errors
// (-name); the README and every other message spell it --name.
var flagWordRE = regexp.MustCompile(`(^|[ :])-([a-zA-Z0-9][a-zA-Z0-9_-]*)`)

// explainFlagError turns the flag package's error into one line that spells
// the flag --name, names what it allows, and for an unknown flag suggests
// the nearest one the command takes.
func explainFlagError(fs *flagSet, err error) error {
	msg := err.Error()
	if name, ok := strings.CutPrefix(msg, "flag provided but not defined: -"); ok {
		msg = fmt.Sprintf("unknown flag --%s", name)
		if best := fs.closest(name); best != "" {
			msg += fmt.Sprintf("; did you mean --%s?", best)
		}
		return usageError{errors.New(msg + fmt.Sprintf(" (see 'hxbar %s -h')", fs.name))}
	}
	msg = flagWordRE.ReplaceAllString(msg, "$1--$2")
	if m := flagWordRE.FindStringSubmatch(err.Error()); m != nil {
		if f := fs.Lookup(m[2]); f != nil && !strings.Contains(msg, "allowed") {
			kind, usage := flag.UnquoteUsage(f) // as the help shows it: no backquotes
			if what, ok := parseErrorWords[kind]; ok {
				msg = strings.Replace(msg, ": parse error", ": not "+what, 1)
			}
			msg += " (--" + f.Name + ": " + usage + ")"
		}
	}
	return usageError{errors.New(msg)}
}

// parseErrorWords say, by a flag's kind, what the flag package's "parse
// error" means: the value is not of the kind the flag takes.
var parseErrorWords = map[string]string{
	"int":      "an integer",
	"uint":     "a whole number 0 or above",
	"float":    "a number",
	"duration": "a duration (e.g. 30s)",
}

// closest is the flag the command takes nearest to a mistyped name, or ""
// when none is near enough to be a likely typo.
func (fs *flagSet) closest(name string) string {
	name = strings.ToLower(strings.ReplaceAll(strings.TrimLeft(name, "-"), "_", "-"))
	best, bestD := "", -1
	fs.VisitAll(func(f *flag.Flag) {
		if fs.isNever(f.Name) {
			return
		}
		if d := hw.EditDistance(name, f.Name); nearTypo(name, f.Name, d) && (bestD < 0 || d < bestD) {
			best, bestD = f.Name, d
		}
	})
	return best
}

// nearTypo is hw's rule for a did-you-mean (one edit up to 4 characters,
// two beyond, never every character) plus a prefix: --max-mem for
// --max-memory.
func nearTypo(typed, known string, d int) bool {
	if len(typed) >= 3 && strings.HasPrefix(known, typed) {
		return true
	}
	limit := 2
	if min(len(typed), len(known)) <= 4 {
		limit = 1
	}
	return d <= limit && d < min(len(typed), len(known))
}

func (fs *flagSet) isNever(name string) bool {
	for _, r := range fs.never {
		if slices.Contains(r.flags, name) {
			return true
		}
	}
	return false
}

// printUsage lists the flags the command takes, spelled --name.
func (fs *flagSet) printUsage() {
	fmt.Fprintf(fs.stderr, "hxbar %s: %s\n\n", fs.name, summaries[fs.name])
	if len(fs.forms) > 0 {
		fmt.Fprintf(fs.stderr, "usage:\n")
		for _, f := range fs.forms {
			fmt.Fprintf(fs.stderr, "  hxbar %s %s\n", fs.name, f)
		}
		fmt.Fprintf(fs.stderr, "\nflags of hxbar %s:\n", fs.name)
	} else {
		fmt.Fprintf(fs.stderr, "usage of hxbar %s:\n", fs.name)
	}
	fs.VisitAll(func(f *flag.Flag) {
		if fs.isNever(f.Name) {
			return
		}
		kind, usage := flag.UnquoteUsage(f)
		line := "  --" + f.Name
		if kind != "" {
			line += " " + kind
		}
		usage = strings.ReplaceAll(usage, "\n", "\n    \t")
		fmt.Fprintf(fs.stderr, "%s\n    \t%s", line, usage)
		if def := f.DefValue; def != "" && def != "false" && def != "0" && def != "[]" {
			fmt.Fprintf(fs.stderr, " (default %s)", def)
		}
		fmt.Fprintln(fs.stderr)
	})
}

// parseFlags parses flags and up to maxArgs positional arguments (kept in
// fs.args), which may come before, between or after the flags, and refuses
// a given flag the command never takes.
func parseFlags(fs *flagSet, args []string, maxArgs int) error {
	fs.args = nil
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				fs.printUsage()
				return err
			}
			return explainFlagError(fs, err)
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
	return refuseFlags(fs.FlagSet, fs.name, fs.never...)
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
// disk or a closed pipe is not reported as success. A closed pipe also
// cancels the run (cancel): its children are of no use to anyone.
type errWriter struct {
	w      io.Writer
	mu     sync.Mutex // watchPipe fails it from another goroutine
	err    error
	ctx    context.Context
	cancel context.CancelFunc
}

func (e *errWriter) Write(p []byte) (int, error) {
	if err := e.failed(); err != nil {
		return 0, err
	}
	n, err := e.w.Write(p)
	if err != nil {
		e.fail(err)
	}
	return n, err
}

func (e *errWriter) failed() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.err
}

// fail records the first error; a closed pipe cancels the run.
func (e *errWriter) fail(err error) {
	e.mu.Lock()
	if e.err == nil {
		e.err = err
	}
	e.mu.Unlock()
	if errors.Is(err, syscall.EPIPE) && e.cancel != nil {
		e.cancel()
	}
}

// runContext is the context of a command that starts children (synth,
// cosim): cancelled by SIGINT, SIGTERM, SIGHUP, a write to a closed
// stdout or stderr pipe (w is the stdout run passed in), or stdout's
// reader closing while nothing is written (watchPipe).
func runContext(w io.Writer) (context.Context, context.CancelFunc) {
	base := context.Background()
	e, ok := w.(*errWriter)
	if ok && e.ctx != nil {
		base = e.ctx
	}
	ctx, stop := signal.NotifyContext(base, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	if ok && e.cancel != nil && e.w == io.Writer(os.Stdout) {
		go watchPipe(ctx, int(os.Stdout.Fd()), func() { e.fail(syscall.EPIPE) })
	}
	return ctx, stop
}
