package main

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/hxbar/hxbar/verilog/formal"
)

// stepReport is one system's step proofs, as -json writes them.
type stepReport struct {
	System string `json:"system"`
	Unit   string `json:"unit"`
	RTL    string `json:"rtl_sha256"` // formal.Job.RTLDigest: the RTL proved
	// Inputs: each step's formal.Job.InputsDigest; steps of two runs add up
	// when these, the free groups and the tools are equal.
	Inputs  map[string]string `json:"inputs_sha256"`
	Classes []string          `json:"classes"`     // each class's representative history
	Free    []string          `json:"free_groups"` // register groups left free
	Steps   []formal.Result   `json:"steps"`
	Verdict string            `json:"verdict"` // proved, or counterexample
	Error   string            `json:"error,omitempty"`
}

// runSteps runs the step proofs of every system matching only (the RTL
// must prove every step) and of those matching oldRe with the old unit
// (some step must find an early release), jobs systems at a time.
func runSteps(ctx context.Context, jobs int, out string, onlyRx, oldRx *regexp.Regexp, oldUnit []byte, jsonOut string, opt stepRun) error {
	type task struct {
		spec formal.Spec
		old  bool
	}
	var tasks []task
	for _, s := range formal.StepSystems() {
		if oldRx != nil && oldRx.MatchString(s.Name) {
			tasks = append(tasks, task{s, true})
		}
	}
	for _, s := range formal.StepSystems() {
		if onlyRx.MatchString(s.Name) {
			tasks = append(tasks, task{s, false})
		}
	}
	if len(tasks) == 0 {
		return fmt.Errorf("-run %q matches no system (%s)", onlyRx, strings.Join(stepNames(), ", "))
	}
	if err := os.Mkdir(out, 0o755); err != nil {
		return fmt.Errorf("-out: %w", err)
	}
	reports := make([]stepReport, len(tasks))
	next := make(chan int)
	var mu sync.Mutex
	var wg sync.WaitGroup
	for range jobs {
		wg.Go(func() {
			for i := range next {
				t := tasks[i]
				var unit []byte
				name, dir := "", filepath.Join(out, t.spec.Name)
				if t.old {
					unit, name, dir = oldUnit, "old unit 01691af", dir+"-old"
				}
				log := func(r formal.Result, err error) {
					mu.Lock()
					defer mu.Unlock()
					stepLine(name, r, err)
				}
				reports[i] = proveSteps(ctx, t.spec, unit, name, dir, opt, log)
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
		r := reports[i]
		ok := r.Error == "" && r.Verdict == formal.Proved
		if t.old {
			ok = r.Error == "" && slices.ContainsFunc(r.Steps, formal.Result.ReleasedEarly)
		}
		fmt.Printf("%s %s (rtl sha256 %.16s): %s%s\n", r.System, unitName(r.Unit), r.RTL, r.Verdict, map[bool]string{true: "", false: "  UNEXPECTED " + r.Error}[ok])
		if !ok {
			bad++
		}
	}
	if jsonOut != "" {
		if err := writeJSON(jsonOut, reports); err != nil {
			return err
		}
	}
	if bad > 0 {
		return fmt.Errorf("%d of %d systems did not reach their expected verdict", bad, len(tasks))
	}
	fmt.Printf("%d systems, every verdict as expected\n", len(tasks))
	return nil
}

func unitName(u string) string {
	if u == "" {
		return "rtl"
	}
	return u
}

func stepNames() []string {
	var n []string
	for _, s := range formal.StepSystems() {
		n = append(n, s.Name)
	}
	return n
}

// stepRun is how a -steps run picks and records its steps.
type stepRun struct {
	free   []string       // -free: groups free from the start
	stepRx *regexp.Regexp // -step: the steps to run
	ledger []formal.Proof // -resume: skip the steps it proves (nil: run all)
	tools  string         // yosys -V, recorded with each proof
}

// proveSteps prepares and runs one system's step proofs; with the RTL
// (unit nil) it writes a proof record beside each step proved.
func proveSteps(ctx context.Context, s formal.Spec, unit []byte, name, dir string, opt stepRun, log func(formal.Result, error)) stepReport {
	rep := stepReport{System: s.Name, Unit: name}
	set, err := formal.PrepareSteps(ctx, s, unit, name, dir)
	if err != nil {
		rep.Error = err.Error()
		return rep
	}
	// -step: a resumed run proves only the steps it names; the proof is
	// the union of the runs only if none of them freed another register.
	if len(set.Steps) > 0 {
		rep.RTL = set.Steps[0].Job.RTLDigest()
	}
	set.Steps = slices.DeleteFunc(set.Steps, func(st formal.Step) bool { return !opt.stepRx.MatchString(st.Job.Name) })
	rep.Inputs = map[string]string{}
	for _, st := range set.Steps {
		rep.Inputs[st.Job.Name] = set.Digest(st)
	}
	if len(set.Steps) == 0 {
		rep.Error = fmt.Sprintf("-step %q matches no step of %s", opt.stepRx, s.Name)
		return rep
	}
	// The old unit runs exact (StepSet.Exact): its early release must be
	// one it can make from the reset, not one a free register allows.
	set.Exact = unit != nil
	for _, g := range opt.free {
		if g = strings.TrimSpace(g); g != "" {
			set.Diff[g] = true
		}
	}
	for _, c := range set.Classes {
		rep.Classes = append(rep.Classes, formal.HistoryName(c.Rep))
	}
	skipped, seed := 0, len(set.Diff)
	if opt.ledger != nil && unit == nil {
		if skipped = skipProved(set, opt, rep.Inputs); len(set.Steps) == 0 {
			rep.Verdict = formal.Proved
			return rep
		}
	}
	record := log
	if unit == nil {
		record = func(r formal.Result, err error) {
			if err == nil && r.Verdict == formal.Proved {
				p := newProof(s.Name, r, rep.Inputs[r.Name], rep.RTL, slices.Collect(maps.Keys(set.Diff)), opt.tools)
				if werr := writeProof(dir, p); werr != nil {
					err = fmt.Errorf("recording the proof: %w", werr)
				}
			}
			log(r, err)
		}
	}
	res, err := set.Prove(ctx, record)
	rep.Steps = res
	if err != nil {
		rep.Error = err.Error()
	}
	for g := range set.Diff {
		rep.Free = append(rep.Free, g)
	}
	slices.Sort(rep.Free)
	// The steps -resume skipped are proved under the seed's free set
	// only: if the set grew, they no longer add up with these.
	if skipped > 0 && len(set.Diff) > seed && rep.Error == "" {
		rep.Error = fmt.Sprintf("the free set grew from %d to %d groups, so the %d steps skipped from the ledger must run again: add the groups (free_groups in -json) to -free (FORMAL_FREE) and run again", seed, len(set.Diff), skipped)
	}
	// Proved when every step is; a counterexample of the property (not a
	// register that moved, which an exact run leaves standing) wins.
	rep.Verdict = formal.Proved
	for _, r := range res {
		switch {
		case r.Verdict == formal.Counterexample && !r.LeftBoundary():
			rep.Verdict = formal.Counterexample
		case r.Verdict != formal.Proved && rep.Verdict == formal.Proved:
			rep.Verdict = "unfinished"
		}
	}
	return rep
}

// skipProved (-resume) drops from set the steps the ledger proves on
// their digests under set's free set and the tools, and returns how many.
func skipProved(set *formal.StepSet, opt stepRun, digests map[string]string) int {
	skip := proved(opt.ledger, digests, slices.Collect(maps.Keys(set.Diff)), opt.tools)
	set.Steps = slices.DeleteFunc(set.Steps, func(st formal.Step) bool { return skip[st.Job.Name] })
	for _, st := range slices.Sorted(maps.Keys(skip)) {
		fmt.Printf("%-16s %-8s in the ledger: proved on these inputs, free set and tools\n", st, "rtl")
	}
	return len(skip)
}

func stepLine(unit string, r formal.Result, err error) {
	switch {
	case err != nil:
		fmt.Printf("%-16s %-8s ERROR %v\n", r.Name, unitName(unit), err)
	case r.Verdict == formal.Proved:
		fmt.Printf("%-16s %-8s proved: %d frames from the boundary (cycle %d; longest run %d), %d latches: %.0f s\n",
			r.Name, unitName(unit), r.Depth, r.Prefix, r.Longest, r.Latches, r.Seconds)
	case len(r.Moved) > 1:
		fmt.Printf("%-16s %-8s counterexample from frame %d (cycle %d): %d registers left the boundary state (%s): %.0f s\n",
			r.Name, unitName(unit), r.CexFrame, r.CexCycle, len(r.Moved), strings.Join(r.Moved, ", "), r.Seconds)
	default:
		fmt.Printf("%-16s %-8s counterexample in frame %d (cycle %d): %s: %.0f s\n",
			r.Name, unitName(unit), r.CexFrame, r.CexCycle, r.CexWhat, r.Seconds)
	}
}

func writeJSON(path string, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return fmt.Errorf("-json: %w", err)
	}
	if _, err := f.Write(append(data, '\n')); err != nil {
		f.Close()
		return fmt.Errorf("-json: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("-json: %w", err)
	}
	return nil
}
