// Command formal runs the proofs of verilog/formal (docs/testing.md,
// "Formal proof"): by default the bounded proofs of formal.Systems, one
// per sequence of three episodes, on which the generated RTL must show no
// early release and the old parity-tagged unit (issue 20, item 1) must
// show one on the proofs named by -old. With -steps, the step proofs of
// formal.StepSystems instead (work in progress, docs/testing.md): every
// episode from every class of boundary states, so that no sequence of
// episodes of any length releases a rank early. It prints one line per
// proof, writes the results as JSON with -json, and exits 1 when an
// expectation fails.
//
//	go run ./tools/formal -j 2 -out /tmp/hxbar-formal
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"

	"github.com/hxbar/hxbar/verilog/formal"
)

// task is one proof to run and the verdict it must reach.
type task struct {
	spec formal.Spec
	old  bool
	want string
}

func main() {
	jobs := flag.Int("j", 2, "proofs run at once")
	out := flag.String("out", "", "new directory for the proofs' files and logs (required; must not exist)")
	only := flag.String("run", "", "run only the proofs whose name matches this regular expression")
	oldRe := flag.String("old", "", "also run the old unit on the proofs (systems with -steps) matching this regular expression; each must find its early release (default ^line3$, or ^line3-bdb$ with -steps=false)")
	steps := flag.Bool("steps", false, "step proofs by induction over episodes instead of the bounded proofs of three-episode sequences")
	jsonOut := flag.String("json", "", "write the results as JSON to this new file")
	free := flag.String("free", "", "with -steps: comma-separated register groups (a report's \"free\" list) left free from the start; the proofs free more where registers move")
	step := flag.String("step", "", "with -steps: run only the steps whose name (e.g. line4-d.b) matches this regular expression, to resume a long run with the free set it ended with")
	ledger := flag.String("ledger", formal.LedgerFile, "the ledger of step proofs (-status, -add, -resume)")
	showStatus := flag.Bool("status", false, "print which steps of the -run systems the ledger proves on today's RTL, and exit 1 unless every one is")
	add := flag.Bool("add", false, "merge the step proofs recorded under the directories (a -steps run's -out) named as arguments into the ledger")
	resume := flag.Bool("resume", false, "with -steps: skip the steps the ledger proves on today's inputs under this run's free set and tools")
	flag.Parse()
	switch {
	case *showStatus && *add:
		fmt.Fprintln(os.Stderr, "formal: -status and -add: one at a time")
		os.Exit(2)
	case (*showStatus || *add) && (*steps || *resume || *free != "" || *step != "" || *out != ""):
		fmt.Fprintln(os.Stderr, "formal: -status and -add run no proof: without -steps, -resume, -free, -step and -out")
		os.Exit(2)
	case *showStatus || *add:
		var err error
		if *add {
			err = addProofs(*ledger, flag.Args())
		} else if rx, rerr := regexp.Compile(*only); rerr != nil {
			err = fmt.Errorf("-run %q: %v", *only, rerr)
		} else {
			err = status(*ledger, rx)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "formal:", err)
			os.Exit(1)
		}
		return
	case flag.NArg() > 0:
		fmt.Fprintf(os.Stderr, "formal: unexpected arguments %q (only -add takes arguments)\n", flag.Args())
		os.Exit(2)
	}
	old := *oldRe
	if !isSet("old") {
		old = map[bool]string{true: "^line3$", false: "^line3-bdb$"}[*steps]
	}
	if (*free != "" || *step != "" || *resume) && !*steps {
		fmt.Fprintln(os.Stderr, "formal: -free, -step and -resume: only with -steps")
		os.Exit(2)
	}
	if err := run(*jobs, *out, *only, old, *jsonOut, *steps, stepOptions{*free, *step, *ledger, *resume}); err != nil {
		fmt.Fprintln(os.Stderr, "formal:", err)
		os.Exit(1)
	}
}

// isSet reports whether flag name was given on the command line.
func isSet(name string) bool {
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

// stepOptions are the -steps run's -free and -step flags.
type stepOptions struct {
	free, step, ledger string
	resume             bool
}

func run(jobs int, out, only, oldRe, jsonOut string, steps bool, so stepOptions) error {
	if jobs < 1 {
		return fmt.Errorf("-j %d: must be at least 1", jobs)
	}
	if out == "" {
		return fmt.Errorf("-out: required (a new directory)")
	}
	onlyRx, err := regexp.Compile(only)
	if err != nil {
		return fmt.Errorf("-run %q: %v", only, err)
	}
	oldRx, err := regexp.Compile(oldRe)
	if err != nil {
		return fmt.Errorf("-old %q: %v", oldRe, err)
	}
	oldUnit, err := os.ReadFile(filepath.Join("verilog", "formal", "testdata", "hx_barrier_unit_01691af.v"))
	if err != nil {
		return fmt.Errorf("the old unit (run from the repository's root): %w", err)
	}
	if steps {
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		defer stop()
		var old *regexp.Regexp
		if oldRe != "" {
			old = oldRx
		}
		var groups []string
		if so.free != "" {
			groups = strings.Split(so.free, ",")
		}
		stepRx, err := regexp.Compile(so.step)
		if err != nil {
			return fmt.Errorf("-step %q: %v", so.step, err)
		}
		opt := stepRun{free: groups, stepRx: stepRx}
		if opt.tools, err = toolsVersion(ctx); err != nil {
			return err
		}
		if so.resume {
			if opt.ledger, err = formal.ReadLedger(so.ledger); err != nil {
				return err
			}
			if opt.ledger == nil {
				opt.ledger = []formal.Proof{}
			}
		}
		return runSteps(ctx, jobs, out, onlyRx, old, oldUnit, jsonOut, opt)
	}
	var tasks []task
	for _, s := range formal.Systems() {
		if oldRe != "" && oldRx.MatchString(s.Name) {
			tasks = append(tasks, task{s, true, formal.Counterexample})
		}
	}
	for _, s := range formal.Systems() {
		if onlyRx.MatchString(s.Name) {
			tasks = append(tasks, task{s, false, formal.Proved})
		}
	}
	if len(tasks) == 0 {
		return fmt.Errorf("-run %q matches no proof", only)
	}
	if err := os.Mkdir(out, 0o755); err != nil {
		return fmt.Errorf("-out: %w", err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	results := make([]formal.Result, len(tasks))
	errs := make([]error, len(tasks))
	next := make(chan int)
	var mu sync.Mutex
	var wg sync.WaitGroup
	for range jobs {
		wg.Go(func() {
			for i := range next {
				results[i], errs[i] = prove(ctx, tasks[i], out, oldUnit)
				mu.Lock()
				report(tasks[i], results[i], errs[i])
				mu.Unlock()
			}
		})
	}
	for i := range tasks {
		next <- i
	}
	close(next)
	wg.Wait()

	bad := 0
	for i, t := range tasks {
		if errs[i] != nil || results[i].Verdict != t.want {
			bad++
		}
	}
	if jsonOut != "" {
		if err := writeJSON(jsonOut, results); err != nil {
			return err
		}
	}
	if bad > 0 {
		return fmt.Errorf("%d of %d proofs did not reach their expected verdict", bad, len(tasks))
	}
	fmt.Printf("%d proofs, every verdict as expected\n", len(tasks))
	return nil
}

func prove(ctx context.Context, t task, out string, oldUnit []byte) (formal.Result, error) {
	var unit []byte
	name, dir := "", filepath.Join(out, t.spec.Name)
	if t.old {
		unit, name, dir = oldUnit, "old unit 01691af", dir+"-old"
	}
	j, err := formal.Build(t.spec, unit, name)
	if err != nil {
		return formal.Result{Name: t.spec.Name}, err
	}
	return formal.Run(ctx, j, dir)
}

func report(t task, r formal.Result, err error) {
	unit := "rtl"
	if t.old {
		unit = "old unit"
	}
	switch {
	case err != nil:
		fmt.Printf("%-10s %-8s ERROR %v\n", t.spec.Name, unit, err)
	case r.Verdict == formal.Proved:
		fmt.Printf("%-10s %-8s no early release in %d frames (cycles %d..%d; longest run %d frames), %d latches: %.0f s%s\n",
			r.Name, unit, r.Depth, r.Prefix, r.Prefix+r.Depth-1, r.Longest, r.Latches, r.Seconds, verdict(t, r))
	default:
		fmt.Printf("%-10s %-8s counterexample in frame %d (cycle %d): %s: %.0f s%s\n",
			r.Name, unit, r.CexFrame, r.CexCycle, r.CexWhat, r.Seconds, verdict(t, r))
	}
}

func verdict(t task, r formal.Result) string {
	if r.Verdict == t.want {
		return ""
	}
	return fmt.Sprintf("  UNEXPECTED (want %s)", t.want)
}
