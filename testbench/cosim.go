package testbench

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/hxbar/hxbar/barrierunit"
	"github.com/hxbar/hxbar/collective"
	"github.com/hxbar/hxbar/hw"
	"github.com/hxbar/hxbar/internal/gendir"
	"github.com/hxbar/hxbar/internal/inputfile"
	"github.com/hxbar/hxbar/sim"
	"github.com/hxbar/hxbar/verilog"
)

// Report is the outcome of one co-simulation.
type Report struct {
	Dir       string
	Simulator string
	System    hw.System // the reference, read from Dir/system.yaml

	Events    int      // events in the model's trace
	Cycles    int64    // cycles of the model's run (last release + 1)
	Model     []string // the model's trace
	ModelTime time.Duration
	Run       *RunResult    // the simulation (its Trace is the RTL's)
	SimTime   time.Duration // wall time of the simulation run (without compiling)

	Diff *Diff // first difference between the traces, nil when identical

	// Errors are the model's unit errors (a run with faults or a
	// watchdog that ended with errors; their events are in Model).
	Errors []sim.ErrorResult

	// Faults are the model's faults with what each did (a fault that hit
	// nothing is named in the summary: the run matched, but tested
	// nothing of it).
	Faults []sim.FaultResult

	// DropDiff names the first switch whose DROPS register, as the
	// testbench printed it, differs from the model's counts at that cycle
	// (a design with faults); "" when every one agrees.
	DropDiff string

	// Netlist is the synthesis simulated by a gate-level run (nil: the
	// RTL was simulated).
	Netlist *Netlist
}

// what names what was simulated, for the summary: "RTL", or "Netlist".
func (r *Report) what() string {
	if r.Netlist != nil {
		return "Netlist"
	}
	return "RTL"
}

// simulated is the summary's closing parenthesis: the simulator, and the
// netlist's size for a gate-level run.
func (r *Report) simulated() string {
	if r.Netlist != nil {
		return fmt.Sprintf("%s, Yosys netlist of %d cells", r.Simulator, r.Netlist.Cells)
	}
	return r.Simulator
}

// OK reports a co-simulation in which the RTL reproduced the model exactly:
// identical traces, the same drop counts and a PASS from the testbench.
func (r *Report) OK() bool {
	return r.Diff == nil && r.DropDiff == "" && r.Run != nil && r.Run.Passed() && r.Run.Cycles == r.Cycles && r.Run.Events == r.Events
}

// Summary is the one-line result: "RTL matches the model, cycle-exact: ..."
// or what went wrong first.
func (r *Report) Summary() string {
	if r.OK() && len(r.Errors) > 0 {
		e := r.Errors[0]
		return fmt.Sprintf("%s matches the model, cycle-exact: system %q, %d events over %d cycles, error events included (first: %s at node %d in cycle %d%s) (%s)",
			r.what(), r.System.Title(), r.Events, r.Cycles, e.Code, e.Node, e.Cycle, e.Where(), r.simulated()) + r.idleFaults()
	}
	if r.OK() {
		return fmt.Sprintf("%s matches the model, cycle-exact: system %q, %d events over %d cycles (%s)", r.what(), r.System.Title(), r.Events, r.Cycles, r.simulated()) + r.idleFaults()
	}
	return fmt.Sprintf("%s differs from the model (%s): %s", r.what(), r.simulated(), r.Problem())
}

// idleFaults names the faults that hit nothing in the model's run (and so
// in the RTL's), with why: "; fault SPEC hit nothing: ...".
func (r *Report) idleFaults() string {
	var b strings.Builder
	for _, f := range r.Faults {
		if f.Hits == 0 && !strings.HasPrefix(f.Spec, hw.FaultStuck+":") {
			fmt.Fprintf(&b, "; fault %s %s", f.Spec, f.Effect)
		}
	}
	return b.String()
}

// Problem explains a failed co-simulation ("" when OK). A simulation that
// stopped without a verdict (a crash), or failed before its first event (a
// data file tb.v refused, e.g. config.hex), is reported by its own message,
// since its trace is cut short; otherwise the first trace difference comes
// first, then the testbench's verdict.
func (r *Report) Problem() string {
	switch {
	case r.OK():
		return ""
	case r.Run != nil && (len(r.Run.Verdicts) == 0 || !r.Run.Passed() && len(r.Run.Trace) == 0):
		return r.Run.Problem()
	case r.Diff != nil:
		return r.Diff.Summary()
	case r.Run != nil && !r.Run.Passed():
		return r.Run.Problem()
	case r.DropDiff != "":
		return r.DropDiff
	case r.Run != nil:
		return fmt.Sprintf("the testbench reports %d events over %d cycles, the model %d over %d", r.Run.Events, r.Run.Cycles, r.Events, r.Cycles)
	}
	return "no simulation"
}

// String is the full report: the summary, then for a failure the first
// difference with context from both sides and the testbench's verdict.
func (r *Report) String() string {
	if r.OK() {
		return r.Summary()
	}
	var b strings.Builder
	b.WriteString(r.Summary())
	if r.Diff != nil {
		b.WriteString("\n")
		b.WriteString(r.Diff.String())
	}
	if r.Run != nil {
		if v := r.Run.Verdict(); v != "" && (r.Diff == nil || !strings.Contains(r.Summary(), v)) {
			b.WriteString("\ntestbench: " + v)
		}
		if m := simMessages(r.Run.Output); m != "" {
			b.WriteString("\nsimulator: " + m)
		}
	}
	return b.String()
}

// MismatchError is returned by Cosim when the RTL did not reproduce the
// model; Report has the details.
type MismatchError struct{ Report *Report }

func (e *MismatchError) Error() string { return e.Report.Summary() }

// Cosim checks the design in dir against the model. It reads dir/system.yaml
// as the reference, runs the model on it (sim.Build, Run with a trace), runs
// the testbench in dir as it stands with the named simulator (Icarus or
// Verilator; the RTL and the configuration program config.hex there are the
// design under test, possibly edited by hand) and compares the two traces
// line by line.
//
// The testbench's own files (tb.v, scenario.hex, expected.hex) must be the
// ones Generate writes for that system; a stale one is an error, as it would
// test another scenario. The report is returned whenever the simulation ran;
// when the RTL does not match, the error is a *MismatchError for it. Other
// errors: an unreadable system, a model run that does not complete, a
// table file edited since gen wrote it (a *DirError, before any
// simulation: the RTL takes its configuration from config.hex and reads
// no table), a missing tool (ErrToolMissing), a design that does not compile
// (*CompileError).
func Cosim(ctx context.Context, dir, simulator string) (*Report, error) {
	return CosimWith(ctx, dir, simulator, Options{})
}

// Options select what Cosim simulates.
type Options struct {
	// Netlist: synthesize the design with Yosys and simulate the netlist
	// (Synthesize; docs/cosim.md, "Gate-level co-simulation") with the
	// directory's testbench, under Icarus. A design with faults is
	// refused (ErrNetlistFaults): their injection writes registers
	// synthesis removes.
	Netlist bool
}

// ErrNetlistFaults is the error of a gate-level run of a design that
// injects faults.
var ErrNetlistFaults = errors.New("faults cannot be injected into a netlist: the testbench injects them through simulation-only registers of the RTL (fi_* of hx_chan, pchk, achk), which synthesis removes; co-simulate them on the RTL")

// CosimWith is Cosim with options: opt.Netlist co-simulates the Yosys
// netlist of the design instead of its RTL.
func CosimWith(ctx context.Context, dir, simulator string, opt Options) (*Report, error) {
	if simulator != Icarus && simulator != Verilator {
		return nil, fmt.Errorf("simulator %q (allowed: %s)", simulator, strings.Join(Simulators, ", "))
	}
	if opt.Netlist && simulator != Icarus {
		return nil, fmt.Errorf("simulator %q: the netlist is co-simulated under Icarus only (allowed: %s)", simulator, Icarus)
	}
	sys, err := hw.Load(filepath.Join(dir, systemFile))
	if err != nil {
		return nil, err
	}
	sched, cs, err := ReadDirSchedules(dir)
	if err != nil {
		return nil, err
	}
	rep := &Report{Dir: dir, Simulator: simulator, System: sys}
	start := time.Now()
	s, err := sim.BuildWith(sys, sched, cs)
	if err != nil {
		return nil, err
	}
	trace, res, err := Trace(s)
	rep.ModelTime = time.Since(start)
	if err != nil {
		return nil, err
	}
	rep.Model = Lines(trace)
	rep.Events, rep.Cycles, rep.Errors, rep.Faults = len(rep.Model), res.Cycles, res.Errors, res.Faults

	want, err := testbenchFiles(Resolved(s), trace) // as gen rendered it
	if err != nil {
		return nil, err
	}
	var stale []string
	for _, name := range []string{TBFile, ScenarioFile, ExpectedFile} { // config.hex: the design under test, editable (docs/cosim.md)
		have, err := inputfile.Read(filepath.Join(dir, name))
		if errors.Is(err, os.ErrNotExist) {
			return nil, &DirError{Dir: dir, File: name, Msg: fmt.Sprintf("%s: no %s (a file of the testbench): regenerate with '%s'", dir, name, RegenerateCommand(dir))}
		}
		if err != nil {
			return nil, err
		}
		if !bytes.Equal(have, want[name]) {
			stale = append(stale, name)
		}
	}
	if len(stale) > 0 {
		advice := "regenerate with '" + RegenerateCommand(dir) + "'"
		// A file edited since gen wrote it is no longer gen's: without
		// --force, gen would refuse to replace it, so the advice says so.
		var edited []string
		for _, name := range stale {
			if !gendir.Owns(dir, name) {
				edited = append(edited, name)
			}
		}
		if len(edited) > 0 {
			advice = "regenerate with '" + RegenerateCommand(dir) + " --force' (--force because " + strings.Join(edited, ", ") +
				" differs from what hxbar wrote; it also replaces tables edited by hand)"
		}
		return nil, &DirError{Dir: dir, File: stale[0], Msg: fmt.Sprintf("%s: %s not generated from %s (stale or edited); %s",
			dir, strings.Join(stale, ", "), systemFile, advice)}
	}
	// Every file of the design must be there: a missing table is a broken
	// directory, not an RTL that differs from the model.
	if err := checkDesignFiles(dir); err != nil {
		return nil, err
	}

	// The table files are the readable record of what config.hex writes;
	// the RTL reads none of them, so an edited one would not change the
	// run: refuse it rather than pass a design the user believes changed.
	if err := checkTablesUnedited(dir); err != nil {
		return nil, err
	}
	var run *RunResult
	if opt.Netlist {
		d := Resolved(s)
		if len(d.Sys.Faults) > 0 {
			return nil, ErrNetlistFaults
		}
		if rep.Netlist, err = Synthesize(ctx, dir); err != nil {
			return nil, err
		}
		run, err = runNetlist(ctx, dir, d, want[TBFile])
	} else {
		run, err = RunSimulator(ctx, dir, simulator)
	}
	if err != nil {
		return nil, err
	}
	rep.Run, rep.SimTime = run, run.RunTime
	rep.Diff = Compare(rep.Model, run.Trace)
	rep.DropDiff = CompareDrops(s, run)
	if !rep.OK() {
		return rep, &MismatchError{rep}
	}
	return rep, nil
}

// DirError is a generated directory that cannot be co-simulated as it
// stands: a file is missing, or the testbench is stale. Msg is the whole
// one-line message, naming File and the command that regenerates the
// directory.
type DirError struct {
	Dir, File, Msg string
}

func (e *DirError) Error() string { return e.Msg }

// checkDesignFiles reports the first file of the design (a file of part
// verilog.PartDesign in dir's manifest: the library, hx_top.v, the tables,
// hx_params.vh) missing from dir. A directory without a manifest (written
// by hand or by an older hxbar) is not checked.
func checkDesignFiles(dir string) error {
	m, err := manifestOrNone(dir)
	if m == nil {
		return err
	}
	for _, e := range m.Files {
		if e.Part != verilog.PartDesign {
			continue
		}
		st, err := os.Stat(filepath.Join(dir, e.Name))
		switch {
		case errors.Is(err, os.ErrNotExist):
			return &DirError{Dir: dir, File: e.Name, Msg: fmt.Sprintf("%s: no %s (%s): regenerate with '%s'", dir, e.Name, describe(e.Name), RegenerateCommand(dir))}
		case err != nil:
			return err
		case !st.Mode().IsRegular():
			return &DirError{Dir: dir, File: e.Name, Msg: fmt.Sprintf("%s: %s (%s) is not a regular file: regenerate with '%s'", dir, e.Name, describe(e.Name), RegenerateCommand(dir))}
		}
	}
	return nil
}

// manifestOrNone reads dir's manifest: nil and no error for a directory
// without one (written by hand or by an older hxbar: not checked), an error
// naming it for one that cannot be read (edited, truncated, too large), so a
// damaged manifest cannot turn the checks off.
func manifestOrNone(dir string) (*gendir.Manifest, error) {
	m, err := gendir.ReadManifest(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, &DirError{Dir: dir, File: gendir.ManifestName, Msg: fmt.Sprintf("%s: %s cannot be read (%v): regenerate with '%s --force'",
			dir, gendir.ManifestName, err, RegenerateCommand(dir))}
	}
	return m, nil
}

// checkTablesUnedited reports the first table file (gt_n*, rt_s*, dt_n*)
// that dir's manifest records and that differs from what hxbar wrote. A
// directory without a manifest is not checked.
func checkTablesUnedited(dir string) error {
	m, err := manifestOrNone(dir)
	if m == nil {
		return err
	}
	for _, e := range m.Files {
		table := false
		for _, pat := range verilog.TableFilePatterns {
			if ok, _ := filepath.Match(pat, e.Name); ok {
				table = true
			}
		}
		if table && !gendir.Owns(dir, e.Name) {
			return &DirError{Dir: dir, File: e.Name, Msg: fmt.Sprintf("%s: %s (%s) was edited since hxbar wrote it, but the RTL reads no table file: "+
				"it is configured from %s (edit that to change what the RTL is given; see docs/cosim.md), or regenerate with '%s --force'",
				dir, e.Name, describe(e.Name), ConfigFile, RegenerateCommand(dir))}
		}
	}
	return nil
}

// describe says what a design file is, for messages.
func describe(name string) string {
	for _, k := range []struct{ prefix, what string }{
		{"gt_n", "the gate table of node "}, {"dt_n", "the data table of node "}, {"rt_s", "the routing table of switch "},
		{"rx_s", "the routing exceptions of switch "},
	} {
		if n, ok := strings.CutPrefix(name, k.prefix); ok {
			if n, ok := strings.CutSuffix(n, ".hex"); ok {
				if _, err := strconv.Atoi(n); err == nil {
					return k.what + n
				}
			}
		}
	}
	switch name {
	case paramsFile:
		return "the design's defines"
	case verilog.TopFile:
		return "the top level"
	case systemFile:
		return "the reference system"
	}
	return "a file of the RTL library"
}

// RegenerateCommand is the command that regenerates the directory dir from
// its own records: its system.yaml and, when dir holds one, its recorded
// schedule (schedule.json or data-schedule.json). gen reads both before it
// writes anything, and they are its own files (in the manifest), so
// regenerating over them loses nothing.
func RegenerateCommand(dir string) string {
	cmd := "hxbar gen --config " + filepath.Join(dir, systemFile)
	for _, f := range []string{ScheduleFile, DataScheduleFile} {
		if _, err := os.Stat(filepath.Join(dir, f)); err == nil {
			cmd += " --schedule " + filepath.Join(dir, f)
		}
	}
	return cmd + " --out " + dir
}

// RunModel builds and runs the model of sys and returns the assembled system,
// its trace and result. A run that does not complete within max_cycles is an
// error (a *sim.StuckError).
func RunModel(sys hw.System) (*sim.System, []byte, *sim.Result, error) {
	s, err := sim.Build(sys, nil)
	if err != nil {
		return nil, nil, nil, err
	}
	trace, res, err := Trace(s)
	return s, trace, res, err
}

// Trace runs an assembled system (once, as a sim.System runs) and returns
// its trace, the testbench's expected events, and its result; a run that
// does not complete is an error wrapping the *sim.StuckError.
//
// A system with faults or a watchdog (docs/reliability.md) is run to be
// compared error events included: a run that ends with unit errors is
// then an outcome, not an error (res.Errors lists them, and res.Cycles is
// the cycle after the last event, as the testbench counts).
func Trace(s *sim.System) ([]byte, *sim.Result, error) {
	if s.Comms() != nil {
		return channelTrace(s)
	}
	trace, res, err := runTrace(s, nil)
	if err != nil {
		return nil, nil, err
	}
	return trace, res, nil
}

// runTrace is Trace in the model's order of events; events, when set,
// gets every cycle's events.
func runTrace(s *sim.System, events func([]barrierunit.Event)) ([]byte, *sim.Result, error) {
	var trace bytes.Buffer
	res, err := s.Run(sim.Options{Trace: &trace, Events: events})
	if ue, ok := errors.AsType[*sim.UnitError](err); ok && Detects(&s.Sys) && res != nil {
		if len(res.Errors) == 0 {
			return nil, nil, fmt.Errorf("the model's run ended with %w, but its result lists no error", ue)
		}
		if evs, perr := parseTrace(trace.Bytes(), s.Comms() != nil); perr == nil && len(evs) > 0 {
			res.Cycles = evs[len(evs)-1].Cycle + 1
		}
		return trace.Bytes(), res, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("the model does not complete, so there is nothing to compare: %w", err)
	}
	return trace.Bytes(), res, nil
}

// Detects reports whether a system injects faults or has a watchdog: its
// co-simulation compares a run that ends with unit errors (the detection
// of docs/reliability.md) as it compares a complete one.
func Detects(sys *hw.System) bool {
	return len(sys.Faults) > 0 || sys.Watchdog > 0
}

// ScheduleFile holds, in a generated directory, the user-supplied gate
// schedule the design was generated for (absent for a generated schedule).
const ScheduleFile = "schedule.json"

// ReadDirSchedules returns the user schedule recorded in dir: a gate
// schedule (ScheduleFile) or a data schedule (DataScheduleFile), or neither
// when the directory uses the schedule its system.yaml names.
func ReadDirSchedules(dir string) (*barrierunit.Schedule, *collective.Schedule, error) {
	sched, err := readDirFile(dir, ScheduleFile, barrierunit.ReadSchedule)
	if err != nil {
		return nil, nil, err
	}
	cs, err := readDirFile(dir, DataScheduleFile, collective.ReadSchedule)
	return sched, cs, err
}

// DataScheduleFile holds, in a generated directory, the user-supplied data
// schedule of a collective (absent for a generated one).
const DataScheduleFile = "data-schedule.json"

// readDirFile reads dir/name with read, or returns nil when it is absent.
func readDirFile[T any](dir, name string, read func(io.Reader) (*T, error)) (*T, error) {
	path := filepath.Join(dir, name)
	data, err := inputfile.Read(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	v, err := read(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return v, nil
}

// CompareDrops compares the switches' DROPS registers the testbench of a
// design with faults printed with the model's counts at the same cycle
// (noc.Network.DropsAt) and names the first that differs ("" when all
// agree, or when the testbench injects no fault: none given, or only
// @first faults the model's run never hit, which Resolved leaves out).
func CompareDrops(s *sim.System, run *RunResult) string {
	switches := 0
	switch {
	case s.Topo != nil:
		switches = s.Topo.Switches
	case verilog.Torus(s.Design) != nil:
		switches = verilog.Torus(s.Design).Nodes // a router per node
	}
	if len(Resolved(s).Sys.Faults) == 0 || switches == 0 {
		return ""
	}
	if run.Drops == nil {
		if run.Passed() {
			return "the testbench printed no DROPS line"
		}
		return ""
	}
	if len(run.Drops) != switches {
		return fmt.Sprintf("the testbench printed the DROPS of %d switches, the design has %d", len(run.Drops), switches)
	}
	for sw, got := range run.Drops {
		if want := s.Net.DropsAt(sw, run.DropsCycle).Register(); got != want {
			return fmt.Sprintf("switch %d: DROPS %08x at the end of cycle %d in the RTL, %08x in the model", sw, got, run.DropsCycle, want)
		}
	}
	return ""
}
