package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/hxbar/hxbar/hw"
	"github.com/hxbar/hxbar/sim"
	"github.com/olekukonko/tablewriter"
)

// runFaults runs a fault campaign: N runs of the system, each with one
// random fault, classified against the fault-free run
// (docs/reliability.md, "Campaigns").
func runFaults(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("faults", stderr)
	sys := bindSystem(fs.FlagSet)
	printCfg := bindPrintConfig(fs.FlagSet)
	n := fs.Int("campaign", 100, "runs, each with one random fault (kinds taken in turn)")
	kinds := fs.String("kinds", "", "comma-separated fault kinds to inject: "+strings.Join(hw.FaultKinds, ", ")+" (default: every kind the system can meet; ackflip needs link_retry)")
	format := fs.String("format", "table", "output format: table or json")
	verbose := fs.Bool("runs", false, "table format: also list every run (fault, outcome, cycles)")
	limit := bindBudget(fs.FlagSet)
	perRunFlag := fs.String("per-run", "1", fmt.Sprintf("faults injected into each run: K, or K-M or K,M,... taken in turn (each 1..%d)", sim.MaxFaultsPerRun))
	fs.neverTakes(notApplicable{[]string{"fault"}, "the campaign injects random faults: see --kinds and --per-run"})
	if err := parseFlags(fs, args, 0); err != nil {
		return err
	}
	if err := checkFormat(*format); err != nil {
		return err
	}
	if *format == "json" {
		if err := refuseFlags(fs.FlagSet, "faults --format json", notApplicable{[]string{"runs"}, "it lists the runs in the table; the JSON holds the totals"}); err != nil {
			return err
		}
	}
	if *n < 1 || *n > 1000000 {
		return usagef("invalid --campaign: %d (allowed: 1..1000000 runs)", *n)
	}
	perRun, err := parsePerRun(*perRunFlag)
	if err != nil {
		return err
	}
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == "kinds" })
	ks, err := parseKinds(*kinds, set)
	if err != nil {
		return err
	}
	s, err := sys()
	if err != nil {
		return usageError{err}
	}
	if len(s.Faults) > 0 {
		return usagef("the system has faults (key faults: %s): a campaign injects its own, one per run", strings.Join(s.Faults, ", "))
	}
	if *printCfg {
		return printConfig(stdout, s)
	}
	// A campaign holds the fault-free run, one faulty run and both traces
	// in memory: about 32 KiB a node resident (2.1 GB at 65,536 nodes,
	// measured), twice that as address space.
	if err := checkModelBudget(limit, fmt.Sprintf("a fault campaign on %d nodes", s.Nodes()), &s, 64<<10); err != nil {
		return err
	}
	res, err := sim.RunCampaign(s, sim.CampaignOptions{Runs: *n, Seed: s.Seed, Kinds: ks, PerRun: perRun, Keep: *verbose})
	if err != nil {
		return usageError{explainSystemError(fs.FlagSet, err)}
	}
	if *format == "json" {
		return json.NewEncoder(stdout).Encode(res)
	}
	return printCampaign(stdout, &s, res, perRun, *verbose)
}

// parseKinds reads --kinds (set: given on the command line): a
// comma-separated list of fault kinds, each once; nil for the default.
func parseKinds(kinds string, set bool) ([]string, error) {
	var ks []string
	for _, k := range strings.Split(kinds, ",") {
		if strings.TrimSpace(kinds) == "" {
			break // the default, or an empty --kinds (refused below)
		}
		k = strings.TrimSpace(k)
		if k == "" {
			return nil, usagef("invalid --kinds: %q has an empty entry (allowed: a comma-separated list of %s)", kinds, strings.Join(hw.FaultKinds, ", "))
		}
		if slices.Contains(ks, k) {
			return nil, usagef("invalid --kinds: %q names %s twice (allowed: each of %s at most once)", kinds, k, strings.Join(hw.FaultKinds, ", "))
		}
		if !slices.Contains(hw.FaultKinds, k) {
			return nil, usagef("invalid --kinds: %q (allowed: a comma-separated list of %s)", k, strings.Join(hw.FaultKinds, ", "))
		}
		ks = append(ks, k)
	}
	if len(ks) == 0 && set {
		return nil, usagef("invalid --kinds: empty (allowed: a comma-separated list of %s)", strings.Join(hw.FaultKinds, ", "))
	}
	return ks, nil
}

// printCampaign writes a campaign's tables: by kind, by faults per run
// (when a run takes more than one), the legend, and with verbose every
// run.
func printCampaign(stdout io.Writer, s *hw.System, res *sim.CampaignResult, perRun []int, verbose bool) error {
	what := fmt.Sprintf("%s %s", s.Algo, s.Op)
	if s.IsData() {
		what = string(s.Collective)
	}
	if s.MultiEpisode() {
		what = fmt.Sprintf("%d episodes", s.NumEpisodes())
	}
	fmt.Fprintf(stdout, "fault campaign: %d runs of system %q on a %s %s, %s, seed %d (fault-free: %d cycles)\n",
		res.Runs, s.Title(), dimsString(s.Dims), topologyNames[s.Topology], what, s.Seed, res.Cycles)
	if err := printByKind(stdout, res); err != nil {
		return err
	}
	multi := len(perRun) > 1 || perRun[0] != 1
	if multi {
		tw := tablewriter.NewWriter(stdout)
		tw.Header("faults per run", "runs", "injected", "detected", "recovered", "reported", "silent")
		for _, k := range perRun {
			if c := res.ByCount[fmt.Sprint(k)]; c != nil && c.Runs > 0 {
				tw.Append(k, c.Runs, c.Injected, c.Detected, c.Recovered, c.Reported, c.Silent)
			}
		}
		if err := tw.Render(); err != nil {
			return err
		}
	}
	writeCampaignLegend(stdout, s, multi)
	if verbose {
		return printRuns(stdout, res)
	}
	return nil
}

// printByKind writes the campaign's table by fault kind and its total.
func printByKind(stdout io.Writer, res *sim.CampaignResult) error {
	tw := tablewriter.NewWriter(stdout)
	tw.Header("kind", "runs", "injected", "detected", "recovered", "reported", "silent", "detection latency", "rerouted", "extra cycles")
	for _, k := range hw.FaultKinds {
		c, ok := res.ByKind[k]
		if !ok {
			continue
		}
		extra := "-"
		switch {
		case c.RerouteCycles != nil:
			extra = fmt.Sprintf("%.1f (rerouted)", *c.RerouteCycles)
		case c.RecoverCycles != nil:
			extra = fmt.Sprintf("%.1f (recovered)", *c.RecoverCycles)
		}
		rr := "-"
		if c.Rerouted != nil {
			rr = fmt.Sprint(*c.Rerouted)
		}
		lat := "-"
		if c.DetectLatency != nil {
			lat = fmt.Sprintf("%.1f (max %d)", *c.DetectLatency, *c.DetectLatencyMax)
		}
		tw.Append(k, c.Runs, c.Injected, c.Detected, c.Recovered, c.Reported, c.Silent, lat, rr, extra)
	}
	c := &res.CampaignCounts
	tw.Append("all", c.Runs, c.Injected, c.Detected, c.Recovered, c.Reported, c.Silent, "", "", "")
	return tw.Render()
}

// printRuns lists every run of the campaign: its faults, outcome, cycles
// and error.
func printRuns(stdout io.Writer, res *sim.CampaignResult) error {
	tw := tablewriter.NewWriter(stdout)
	tw.Header("fault", "outcome", "cycles", "error")
	for _, r := range res.Detail {
		var o []string
		for _, c := range []struct {
			on   bool
			name string
		}{{r.Detected, "detected"}, {r.Recovered, "recovered"}, {r.Reported, "reported"}, {r.Silent, "silent"}, {r.Rerouted, "rerouted"}} {
			if c.on {
				o = append(o, c.name)
			}
		}
		e := r.Err
		if len(e) > 80 {
			e = e[:77] + "..."
		}
		tw.Append(r.Spec, strings.Join(o, "+"), r.Cycles, e)
	}
	return tw.Render()
}

// parsePerRun reads --per-run: K, K-M (every count from K to M) or a
// comma-separated list, each 1..sim.MaxFaultsPerRun, without repeats.
func parsePerRun(v string) ([]int, error) {
	bad := func() ([]int, error) {
		return nil, usagef("invalid --per-run: %q (allowed: K, K-M or K,M,... with each K in 1..%d)", v, sim.MaxFaultsPerRun)
	}
	var out []int
	for _, part := range strings.Split(v, ",") {
		lo, hi, isRange := strings.Cut(strings.TrimSpace(part), "-")
		a, err := strconv.Atoi(lo)
		if err != nil {
			return bad()
		}
		b := a
		if isRange {
			if b, err = strconv.Atoi(hi); err != nil || b < a {
				return bad()
			}
		}
		for k := a; k <= b; k++ {
			if k < 1 || k > sim.MaxFaultsPerRun || slices.Contains(out, k) {
				return bad()
			}
			out = append(out, k)
		}
	}
	return out, nil
}

// campaignLegend says what each column of the campaign table counts
// (docs/reliability.md, "Campaigns"; sim.CampaignCounts), in the table's
// order.
var campaignLegend = [][2]string{
	{"kind", "the fault kind injected (all: every run)"},
	{"runs", "runs with faults of that kind"},
	{"injected", "runs whose faults acted: hit a flit, an ACK or a credit (a stuck rank always acts)"},
	{"detected", "runs in which a unit raised an error (CRC, TIMEOUT, ...): the hardware saw the fault"},
	{"recovered", "runs whose results equal the fault-free run's: every release, value and message"},
	{"reported", "runs that ended with an error the system sees: a unit error, or a run that never completed"},
	{"silent", "runs that completed with wrong results and no error: the failures that matter, want 0"},
	{"detection latency", "mean cycles from a fault's first hit to the first unit error (max), over the detected runs"},
	{"rerouted", "dead channels: runs that, repeated with --avoid naming the channel, give the fault-free results"},
	{"extra cycles", "mean cycles over the fault-free run's, of the rerouted runs (dead) or else the recovered runs"},
}

// writeCampaignLegend prints the legend of the campaign table under it,
// one line a column, and what a count depends on.
func writeCampaignLegend(w io.Writer, sys *hw.System, perRun bool) {
	fmt.Fprintln(w, "legend (a run counts in every class it is in: detected and reported, or with retry detected and recovered):")
	for _, l := range campaignLegend {
		fmt.Fprintf(w, "  %-18s %s\n", l[0], l[1])
	}
	if perRun {
		fmt.Fprintf(w, "  %-18s %s\n", "faults per run", "the same counts by the number of faults injected into a run (--per-run)")
	}
	if sys.Watchdog == 0 {
		fmt.Fprintln(w, "no watchdog: a lost signal hangs the run (reported, not detected); --watchdog N makes the units detect it")
	}
}
