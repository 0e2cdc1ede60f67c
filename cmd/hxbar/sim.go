package main

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/hxbar/hxbar/barrierunit"
	"github.com/hxbar/hxbar/collective"
	"github.com/hxbar/hxbar/hw"
	"github.com/hxbar/hxbar/internal/budget"
	"github.com/hxbar/hxbar/internal/inputfile"
	"github.com/hxbar/hxbar/internal/outfile"
	"github.com/hxbar/hxbar/internal/strictjson"
	"github.com/hxbar/hxbar/sim"
	"github.com/olekukonko/tablewriter"
)

// topologyNames are the networks' names in reports.
var topologyNames = map[hw.Topology]string{hw.TopoHyperXbar: "hyper-crossbar", hw.TopoTorus: "torus", hw.TopoFatTree: "fat tree"}

// maxTableRows bounds the per-node table on the terminal; JSON has them all.
const maxTableRows = 64

func runSim(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("sim", stderr)
	sys := bindSystem(fs.FlagSet)
	printCfg := bindPrintConfig(fs.FlagSet)
	format := fs.String("format", "table", "output format: table or json")
	trace := fs.String("trace", "", "write the event trace to `FILE`")
	vcd := fs.String("vcd", "", "write a VCD waveform of the barrier units to `FILE`")
	schedFile := fs.String("schedule", "", "run the schedule in `FILE` instead of a generated one: a gate schedule (JSON of 'hxbar schedule'), or with --collective allgather|broadcast a data schedule (JSON of 'hxbar collective')")
	timing := fs.Bool("timing", false, "report build and run wall time and peak memory on stderr")
	progress := fs.Bool("progress", false, "report progress on stderr during long runs (on a terminal, a long run shows it on one line anyway)")
	pics := bindPictureFlags(fs.FlagSet)
	limit := bindBudget(fs.FlagSet)
	if err := parseFlags(fs, args, 0); err != nil {
		return err
	}
	if err := checkSimOutputs(fs.FlagSet, *format, *trace, *vcd, *schedFile, pics); err != nil {
		return err
	}
	s, err := sys()
	if err != nil {
		return usageError{err}
	}
	if err := simFlagsApply(fs.FlagSet, &s, *schedFile); err != nil {
		return err
	}
	if *printCfg {
		if *schedFile != "" {
			return refuseScheduleConfig(*schedFile)
		}
		return printConfig(stdout, s)
	}
	if err := checkSimBudget(limit, &s, *format); err != nil {
		return err
	}
	start := time.Now()
	system, err := buildSimSystem(fs.FlagSet, &s, *schedFile)
	if err != nil {
		return err
	}
	built := time.Now()
	var opt sim.Options
	outputs, plotW, loadW, err := openSimOutputs(&opt, *trace, *vcd, pics)
	if err != nil {
		return err
	}
	// An output is committed only when the run and every other output
	// succeed: a failure leaves every old file whole.
	defer func() {
		for _, f := range outputs {
			f.Abort()
		}
	}()
	stopWatch := abortOnSignal(outputs)
	defer stopWatch()
	drawn := startPictures(pics, &opt, system, plotW, loadW)
	res, runErr := runWithProgress(system, opt, *progress, built, stderr)
	if runEnded(runErr) {
		if err := drawn.finish(res); err != nil {
			runErr = err
		}
	}
	if *timing {
		fmt.Fprintf(stderr, "timing: %d ranks, %d cycles: build %.2f s, run %.2f s, peak RSS %.0f MiB\n",
			res.Ranks, res.Cycles, built.Sub(start).Seconds(), time.Since(built).Seconds(), peakRSSMiB())
	}
	for _, f := range outputs {
		if !runEnded(runErr) {
			break
		}
		if err := f.Commit(); err != nil && runErr == nil {
			runErr = err
		}
	}
	if !runEnded(runErr) {
		return runErr
	}
	if *format == "json" {
		if err := writeSimJSON(stdout, res); err != nil {
			return err
		}
	} else if err := printSim(stdout, system, res); err != nil {
		return err
	}
	if runErr != nil {
		return failure{runErr.Error()}
	}
	return nil
}

// checkSimOutputs refuses a bad --format, picture flags that do not fit,
// and output files that are inputs, links or one another.
func checkSimOutputs(fs *flag.FlagSet, format, trace, vcd, schedFile string, pics *pictureFlags) error {
	if err := checkFormat(format); err != nil {
		return err
	}
	if err := pics.check(fs, trace); err != nil {
		return err
	}
	outs := pics.outputs()
	outs["trace"], outs["vcd"] = trace, vcd
	if err := checkOutputs(map[string]string{"config": fs.Lookup("config").Value.String(), "schedule": schedFile}, outs); err != nil {
		return err
	}
	return pics.checkSVG()
}

// checkSimBudget refuses a model run that would not fit the memory budget.
func checkSimBudget(limit func() (budget.Limit, error), s *hw.System, format string) error {
	// JSON keeps a result per rank (about 200 bytes) until it is written.
	perNode := int64(0)
	if format == "json" {
		perNode = 512
	}
	what := fmt.Sprintf("the cycle model of %d nodes", s.Nodes())
	if n := s.NumEpisodes(); n > 1 {
		what += fmt.Sprintf(" over %d episodes", n)
	}
	return checkModelBudget(limit, what, s, perNode)
}

// runWithProgress runs the model, reporting progress on stderr with
// --progress (or on one line when stderr is a terminal).
func runWithProgress(system *sim.System, opt sim.Options, progress bool, built time.Time, stderr io.Writer) (*sim.Result, error) {
	if progress {
		opt.Progress = func(cycle int64, released, ranks int) {
			fmt.Fprintf(stderr, "sim: cycle %d, %d of %d ranks released, %.0f s\n", cycle, released, ranks, time.Since(built).Seconds())
		}
	}
	var clearProgress func()
	if opt.Progress == nil {
		opt.Progress, clearProgress = terminalProgress(stderr)
	}
	res, err := system.Run(opt)
	if clearProgress != nil {
		clearProgress()
	}
	return res, err
}

// runEnded reports whether a run ended with a result to show: it
// completed, or it stopped at a hang or a unit's error (a result too).
func runEnded(err error) bool {
	var stuck *sim.StuckError
	var unitErr *sim.UnitError
	return err == nil || errors.As(err, &stuck) || errors.As(err, &unitErr)
}

// buildSimSystem builds the system to run: a data collective from its
// generated or given data schedule, a barrier from its gate schedule.
func buildSimSystem(fs *flag.FlagSet, s *hw.System, schedFile string) (*sim.System, error) {
	if s.IsData() {
		cs, err := dataScheduleFlag(fs, schedFile, s)
		if err != nil {
			return nil, err
		}
		var system *sim.System
		if cs == nil {
			system, err = sim.Build(*s, nil)
		} else {
			system, err = sim.BuildData(*s, cs)
		}
		if err != nil {
			return nil, usageError{explainSystemError(fs, err)}
		}
		return system, nil
	}
	sched, err := scheduleFlag(fs, schedFile, s)
	if err != nil {
		return nil, err
	}
	system, err := sim.Build(*s, sched)
	if err != nil {
		return nil, usageError{explainSystemError(fs, err)}
	}
	return system, nil
}

// openSimOutputs opens the run's output files (trace and VCD into opt,
// the pictures' plots returned as writers); none is committed here, and
// on an error the ones opened are aborted.
func openSimOutputs(opt *sim.Options, trace, vcd string, pics *pictureFlags) (outputs []outfile.Output, plotW, loadW io.Writer, err error) {
	for _, o := range []struct {
		name string
		dst  *io.Writer
	}{{trace, &opt.Trace}, {vcd, &opt.VCD}, {*pics.plot, &plotW}, {*pics.plotLoad, &loadW}} {
		if o.name == "" {
			continue
		}
		f, err := outfile.CreateOutput(o.name, 0o644)
		if err != nil {
			for _, f := range outputs {
				f.Abort()
			}
			return nil, nil, nil, usageError{err}
		}
		outputs = append(outputs, f)
		*o.dst = f
	}
	return outputs, plotW, loadW, nil
}

// stopText says where and why a run in error stopped (sim.Result.Stop).
func stopText(res *sim.Result) string {
	if res.Stop == sim.StopNoProgress {
		return fmt.Sprintf("the run stopped at cycle %d: no unit can act any more and nothing is in flight", res.Cycles)
	}
	return fmt.Sprintf("the run stopped at cycle %d (max_cycles)", res.Cycles)
}

// simFlagsApply refuses the flags the run s would ignore: the data keys for
// a barrier, --algo when --schedule gives the schedule.
func simFlagsApply(fs *flag.FlagSet, s *hw.System, schedFile string) error {
	anyData := false
	for k := 1; k <= max(len(s.Episodes), 1); k++ {
		e := s.EpisodeSystem(k)
		anyData = anyData || e.IsData()
	}
	if !anyData {
		if err := refuseFlags(fs, "a barrier", notApplicable{dataOnlyFlags, "it applies to --collective allgather or broadcast"}); err != nil {
			return err
		}
	}
	if schedFile != "" {
		return refuseFlags(fs, "a run of --schedule "+schedFile, notApplicable{[]string{"algo"}, "the file is the schedule"})
	}
	return nil
}

func readScheduleFile(name string) (*barrierunit.Schedule, error) {
	data, err := inputfile.ReadInput(name)
	if err != nil {
		return nil, err
	}
	s, err := barrierunit.ReadSchedule(bytes.NewReader(data))
	if err != nil {
		if bytes.Contains(data, []byte(`"transfers"`)) {
			return nil, fmt.Errorf("%s: %w (this looks like a data schedule: give --collective allgather or broadcast)", name, err)
		}
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return s, nil
}

func printSim(w io.Writer, s *sim.System, res *sim.Result) error {
	printSimHeader(w, s, res)
	if len(res.Episodes) > 1 {
		if err := printEpisodes(w, s, res); err != nil {
			return err
		}
	}
	if s.Sys.HasCommunicators() {
		if err := printComms(w, s, res); err != nil {
			return err
		}
	} else if s.Sys.Looping() && len(res.Communicators) > 0 {
		if err := printLoop(w, &s.Sys, &res.Communicators[0]); err != nil {
			return err
		}
	}
	if res.Data != nil {
		if err := printDataSteps(w, s, res); err != nil {
			return err
		}
	}
	lastArrive, err := printRanks(w, s, res)
	if err != nil {
		return err
	}
	return printSimStats(w, s, res, lastArrive)
}

// printSimHeader prints the system's line and the schedule's.
func printSimHeader(w io.Writer, s *sim.System, res *sim.Result) {
	sys := s.Cur.Sys // the last episode run: the one the tables below describe
	what := s.Sched.Algo + ", op " + string(sys.Op)
	if d := res.Data; d != nil {
		what = fmt.Sprintf("%s of %d items x %d flits (schedule %s, steps %s)", sys.Collective, d.Items, d.ItemFlits, d.Algo, d.Order)
	}
	if s.Sys.HasCommunicators() {
		what = fmt.Sprintf("%d communicators", len(res.Communicators))
	}
	fmt.Fprintf(w, "system %q: %d ranks on %v %s, %s, %s duplex, link latency %d, buffers %d, flit %d bits\n",
		s.Sys.Title(), s.Sys.NumRanks(), dimsString(sys.Dims), topologyNames[sys.Topology], what, sys.Duplex, sys.LinkLatency, sys.BufferDepth, sys.FlitWidth)
	if !s.Sys.HasCommunicators() {
		fmt.Fprintf(w, "schedule: %d gates + end gate, %d routes between nodes; arrivals skewed over [0, %d] with seed %d\n\n",
			s.Table.Gates, len(s.Table.OutDst), sys.Skew, sys.Seed)
	}
}

// printDataSteps prints a data collective's steps and its item counts.
func printDataSteps(w io.Writer, s *sim.System, res *sim.Result) error {
	tw := tablewriter.NewWriter(w)
	tw.Header("step", "kind", "gate", "done at cycle", "items in largest message")
	for i, st := range res.Steps {
		done := strconv.FormatInt(st.Done, 10)
		if st.Done < 0 {
			done = "not done"
		}
		tw.Append(st.Step, st.Kind, st.Gate, done, collective.StepCost(s.Data.Steps[i]))
	}
	if err := tw.Render(); err != nil {
		return err
	}
	fmt.Fprintf(w, "items moved %d, received and checked %d; seed cost model %d items\n\n", res.Data.ItemsMoved, res.Data.ItemsReceived, res.Data.Cost)
	return nil
}

// printRanks prints the ranks' table (the first maxTableRows) and returns
// the last arrival planned, for a run that stopped first.
func printRanks(w io.Writer, s *sim.System, res *sim.Result) (int64, error) {
	tw := tablewriter.NewWriter(w)
	hdr := []any{"rank", "node", "arrive", "release", "wait"}
	comms := s.Sys.HasCommunicators()
	if comms {
		hdr = []any{"rank", "communicator", "comm rank", "system rank", "node", "channel", "arrive", "release", "wait"}
	}
	if s.HasPayload() {
		hdr = append(hdr, "operand", "result")
	}
	tw.Header(hdr...)
	lastArrive := int64(-1) // the last arrival planned, for a run that stopped first
	for i, n := range res.Nodes {
		lastArrive = max(lastArrive, n.Arrive)
		if i >= maxTableRows {
			continue
		}
		row := []any{n.Rank, n.Node, arriveString(n.Arrive), relString(n.Release), relWait(n)}
		if comms {
			row = []any{n.Rank, n.Communicator, *n.CommRank, *n.SystemRank, n.Node, *n.Channel, arriveString(n.Arrive), relString(n.Release), relWait(n)}
		}
		if s.HasPayload() {
			row = append(row, cmp.Or(n.Operand, "-"), cmp.Or(n.Result, "-"))
		}
		tw.Append(row...)
	}
	if err := tw.Render(); err != nil {
		return 0, err
	}
	if len(res.Nodes) > maxTableRows {
		fmt.Fprintf(w, "(%d more ranks; use --format json for all)\n", len(res.Nodes)-maxTableRows)
	}
	fmt.Fprintln(w)
	return lastArrive, nil
}

// printSimStats prints the statistics table: cycles, status, latency,
// network counts, faults, drops.
func printSimStats(w io.Writer, s *sim.System, res *sim.Result, lastArrive int64) error {
	sys := s.Cur.Sys
	st := tablewriter.NewWriter(w)
	st.Header("statistic", "value")
	st.Append("cycles", strconv.FormatInt(res.Cycles, 10))
	switch {
	case len(res.Errors) > 0:
		e := res.Errors[0]
		st.Append("status", fmt.Sprintf("incomplete: %d of %d ranks released; %d unit errors, the first %s at node %d cycle %d (%s)",
			res.Released, res.Ranks, len(res.Errors), e.Code, e.Node, e.Cycle, stopText(res)))
	case !res.Complete && res.Stop == sim.StopNoProgress:
		// Latencies of a run that did not finish would be made up: say so.
		st.Append("status", fmt.Sprintf("stuck: %d of %d ranks released; nothing can happen after cycle %d (no_progress)", res.Released, res.Ranks, res.Cycles-1))
	case !res.Complete:
		st.Append("status", fmt.Sprintf("incomplete: %d of %d ranks released by cycle %d (max_cycles)", res.Released, res.Ranks, res.Cycles))
	}
	arrival := "none"
	if c, ok := res.LastArrival(); ok {
		arrival = strconv.FormatInt(c, 10)
	} else if lastArrive == sim.Never {
		arrival = "never (a rank is stuck)"
	} else if lastArrive >= 0 {
		arrival = strconv.FormatInt(lastArrive, 10) + " (after the run stopped)"
	}
	st.Append("last arrival", arrival)
	latency := "barrier latency (last arrival -> last release)"
	if res.Data != nil {
		latency = string(sys.Collective) + " latency (last arrival -> last release)"
	}
	lat, spread := "n/a", "n/a"
	if c, ok := res.Latency(); ok {
		lat = strconv.FormatInt(c, 10)
	}
	if c, ok := res.ReleaseSpread(); ok {
		spread = strconv.FormatInt(c, 10)
	}
	st.Append(latency, lat)
	st.Append("release spread (first -> last release)", spread)
	st.Append("packets", strconv.FormatUint(res.Network.Packets, 10))
	st.Append("flits", strconv.FormatUint(res.Network.Flits, 10))
	st.Append("flit hops (switch <-> switch channels)", strconv.FormatUint(res.Network.FlitHops, 10))
	st.Append("network channels", strconv.Itoa(res.Network.Channels))
	st.Append("mean channel load (flits/cycle)", fmt.Sprintf("%.4f", res.Network.MeanLoad))
	busiest := "none (no flit crossed a channel)"
	if res.Network.Busiest != "" {
		busiest = fmt.Sprintf("%s (%.4f)", res.Network.Busiest, res.Network.BusiestLoad)
	}
	st.Append("busiest channel (load)", busiest)
	for _, f := range res.Faults {
		st.Append("fault "+f.Spec, f.Effect) // what it did (sim/faulteffect.go)
	}
	for _, d := range res.Dropped {
		st.Append(fmt.Sprintf("switch %d dropped (illegal flits)", d.Switch),
			fmt.Sprintf("%d flits: %d out-of-grid heads, %d orphans; %d packets cut", d.Flits, d.OutOfGrid, d.Orphan, d.Cut))
	}
	if len(sys.Avoid) > 0 {
		st.Append("avoided channels", strings.Join(sys.Avoid, ", "))
	}
	return st.Render()
}

func relString(r int64) string {
	if r < 0 {
		return "waiting"
	}
	return strconv.FormatInt(r, 10)
}

// arriveString is a rank's arrival cycle, "never" for a stuck rank.
func arriveString(a int64) string {
	if a == sim.Never {
		return "never"
	}
	return strconv.FormatInt(a, 10)
}

func relWait(n sim.NodeResult) string {
	a, arrived := n.Arrived()
	r, released := n.Released()
	if !arrived || !released {
		return "-"
	}
	return strconv.FormatInt(r-a, 10)
}

func dimsString(d []int) string {
	s := ""
	for i, x := range d {
		if i > 0 {
			s += "x"
		}
		s += strconv.Itoa(x)
	}
	return s
}

// peakRSSMiB is the process's peak resident set size.
func peakRSSMiB() float64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return float64(ru.Maxrss) / 1024 // Linux reports KiB
}

// flagGiven reports whether a flag was set on the command line.
func flagGiven(fs *flag.FlagSet, name string) bool {
	given := false
	fs.Visit(func(f *flag.Flag) { given = given || f.Name == name })
	return given
}

// dataScheduleFlag reads a data schedule from the --schedule file (none:
// nil). Without --ranks, the schedule's node count is the rank count.
func dataScheduleFlag(fs *flag.FlagSet, name string, s *hw.System) (*collective.Schedule, error) {
	if name == "" {
		return nil, nil
	}
	data, err := inputfile.ReadInput(name)
	if err != nil {
		return nil, usageError{err}
	}
	// Accept the output of 'hxbar collective --format json' as it is: the
	// schedule wrapped with its verifier report. No key is given twice in
	// the whole file; the schedule is held to all its rules (no null
	// either), the report is not input (it says null where it names
	// nothing).
	if err := strictjson.CheckKeys(data, "data schedule"); err != nil {
		return nil, usageError{fmt.Errorf("%s: %w", name, err)}
	}
	var wrapped struct {
		Schedule json.RawMessage `json:"schedule"`
		Report   json.RawMessage `json:"report"`
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if dec.Decode(&wrapped) == nil && !dec.More() && len(wrapped.Schedule) > 0 {
		data = wrapped.Schedule
	}
	if err := strictjson.Check(data, "data schedule"); err != nil {
		return nil, usageError{fmt.Errorf("%s: %w", name, err)}
	}
	cs, err := collective.ReadSchedule(bytes.NewReader(data))
	if err != nil {
		return nil, usageError{fmt.Errorf("%s: %w", name, err)}
	}
	// Without --ranks and --items, the schedule says how many take part.
	if !flagGiven(fs, "ranks") {
		s.Ranks = cs.Nodes
	}
	if !flagGiven(fs, "items") {
		s.Items = cs.Items
	}
	if err := s.Validate(); err != nil {
		return nil, usageError{fmt.Errorf("%s: %w", name, err)}
	}
	return cs, nil
}

// scheduleFlag reads the --schedule file (none: nil). Without --ranks, the
// schedule says how many ranks take part.
func scheduleFlag(fs *flag.FlagSet, name string, s *hw.System) (*barrierunit.Schedule, error) {
	if name == "" {
		return nil, nil
	}
	sched, err := readScheduleFile(name)
	if err != nil {
		return nil, usageError{err}
	}
	changed := false
	if !flagGiven(fs, "ranks") && sched.Ranks != s.NumRanks() {
		s.Ranks, changed = sched.Ranks, true
	}
	// The file's algorithm, when hxbar generates it, names the run (the
	// system's name, --print-config); --algo is refused with --schedule.
	if a := hw.Algorithm(sched.Algo); slices.Contains(hw.Algorithms, a) && a != s.Algo {
		s.Algo, changed = a, true
	}
	if changed {
		if err := s.Validate(); err != nil {
			return nil, usageError{fmt.Errorf("%s: %w", name, err)}
		}
	}
	return sched, nil
}

// printEpisodes prints the episodes of a run of more than one; the tables
// after it describe the last.
func printEpisodes(w io.Writer, s *sim.System, res *sim.Result) error {
	fmt.Fprintf(w, "%d episodes of %d run back to back (configuration writes between them); the tables below describe episode %d\n",
		len(res.Episodes), s.NumEpisodes(), res.Episodes[len(res.Episodes)-1].Episode)
	tw := tablewriter.NewWriter(w)
	tw.Header("episode", "collective", "schedule", "config cycles", "first arrival", "last release")
	for _, e := range res.Episodes {
		ep := s.Episode(e.Episode)
		what := ep.Sched.Algo + ", op " + string(ep.Sys.Op)
		if ep.Data != nil {
			what = fmt.Sprintf("%s, %d items x %d flits", ep.Data.Algo, ep.Data.Items, ep.Sys.ItemFlits)
		}
		tw.Append(e.Episode, e.Collective, what, e.ConfigCycles, arriveString(e.FirstArrival), relString(e.LastRelease))
	}
	if err := tw.Render(); err != nil {
		return err
	}
	fmt.Fprintln(w)
	return nil
}

// printLoop shows a loop's iterations (the first and last ones of a long
// loop) and its averages, as osu_barrier reports them.
func printLoop(w io.Writer, sys *hw.System, c *sim.CommunicatorResult) error {
	fmt.Fprintf(w, "loop of %d iterations (compute %d, jitter %d), no quiet point between them; the rank table below describes the last\n",
		sys.IterationCount(), sys.Compute, sys.Jitter)
	tw := tablewriter.NewWriter(w)
	tw.Header("iteration", "first arrival", "last release", "latency")
	n := len(c.Iterations)
	for i, it := range c.Iterations {
		if n > loopRows && i >= loopRows/2 && i < n-loopRows/2 {
			if i == loopRows/2 {
				tw.Append(fmt.Sprintf("... %d more", n-loopRows), "", "", "")
			}
			continue
		}
		tw.Append(it.Iteration, it.FirstArrival, optString(it.LastRelease, "not released"), optString(it.Latency, "n/a"))
	}
	if err := tw.Render(); err != nil {
		return err
	}
	if c.AvgPeriod != nil {
		fmt.Fprintf(w, "avg period %.2f cycles per iteration; latency avg %.2f, min %d, max %d cycles\n", *c.AvgPeriod, *c.AvgLatency, *c.MinLatency, *c.MaxLatency)
	} else {
		fmt.Fprintf(w, "the loop did not complete: no period\n")
	}
	fmt.Fprintln(w)
	return nil
}

// loopRows is the iterations a loop's table shows: the first and last
// halves.
const loopRows = 20

// optString is *v in decimal, or none when v is nil.
func optString(v *int64, none string) string {
	if v == nil {
		return none
	}
	return strconv.FormatInt(*v, 10)
}

// printComms writes a run of communicators: one row per communicator with
// its ranks, channel, iterations and loop figures.
func printComms(w io.Writer, s *sim.System, res *sim.Result) error {
	cs := s.Comms()
	fmt.Fprintf(w, "%d communicators on %d channels per unit, at the same time on one network; the rank table below lists their ranks side by side (the last iteration)\n",
		len(cs), s.Sys.ChannelCount())
	tw := tablewriter.NewWriter(w)
	tw.Header("communicator", "ranks", "channel", "op", "algo", "iterations", "done", "avg period", "avg latency", "min", "max")
	for k, c := range res.Communicators {
		if k == maxTableRows {
			break
		}
		ch := "per node"
		if c.Channel != nil {
			ch = strconv.Itoa(*c.Channel)
		}
		done := 0
		for _, it := range c.Iterations {
			if it.LastRelease != nil {
				done++
			}
		}
		sys := &cs[k].Sys
		tw.Append(c.Name, rankListString(c.RankList), ch, string(sys.Op), string(sys.Algo), sys.IterationCount(), done,
			optFloat(c.AvgPeriod), optFloat(c.AvgLatency), optString(c.MinLatency, "n/a"), optString(c.MaxLatency, "n/a"))
	}
	if err := tw.Render(); err != nil {
		return err
	}
	if len(res.Communicators) > maxTableRows {
		fmt.Fprintf(w, "(%d more communicators; use --format json for all)\n", len(res.Communicators)-maxTableRows)
	}
	fmt.Fprintln(w)
	return nil
}

// rankListString is a rank list, shortened past 8 entries.
func rankListString(r []int) string {
	if len(r) > 8 {
		return fmt.Sprintf("%v... (%d)", r[:8], len(r))
	}
	return fmt.Sprint(r)
}

// optFloat is *v with two decimals, or n/a when v is nil.
func optFloat(v *float64) string {
	if v == nil {
		return "n/a"
	}
	return strconv.FormatFloat(*v, 'f', 2, 64)
}
