package testbench

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/hxbar/hxbar/internal/inputfile"
	"github.com/hxbar/hxbar/internal/outfile"
	"github.com/hxbar/hxbar/internal/procgroup"
)

// Simulators that RunSimulator accepts.
const (
	Icarus    = "icarus"
	Verilator = "verilator"
)

// Simulators lists the simulator names, for messages.
var Simulators = []string{Icarus, Verilator}

// Build products, inside the testbench directory.
const (
	IcarusBuild    = "sim.vvp"      // iverilog output
	VerilatorBuild = "obj_dir"      // Verilator's build directory
	verilatorExe   = "hx_tb"        // executable inside VerilatorBuild
	stampSuffix    = ".stamp"       // hash of what a build was made from
	paramsFile     = "hx_params.vh" // included by tb.v
	systemFile     = "system.yaml"  // the reference system of a directory
	installIcarus  = "apt-get install -y iverilog"
	installVerilat = "apt-get install -y verilator make g++"
)

// ErrToolMissing is wrapped by the error for a simulator that is not
// installed; the error's text names the install command.
var ErrToolMissing = errors.New("simulator not installed")

// ToolError is a simulator (or a tool it needs) missing from PATH.
type ToolError struct {
	Tool    string
	Install string // command that installs it (Debian/Ubuntu)
}

func (e *ToolError) Error() string {
	return fmt.Sprintf("%s not found in PATH: install it with '%s' (or 'make deps' in the hxbar repository)", e.Tool, e.Install)
}

// Unwrap makes errors.Is(err, ErrToolMissing) hold.
func (e *ToolError) Unwrap() error { return ErrToolMissing }

// CompileError is a design or testbench the simulator could not build; Output
// is the simulator's message.
type CompileError struct {
	Simulator string
	Command   string
	Output    string
}

func (e *CompileError) Error() string {
	return fmt.Sprintf("%s could not build the testbench (%s):\n%s", e.Simulator, e.Command, strings.TrimRight(e.Output, "\n"))
}

// RunResult is one simulation of the testbench in a directory.
type RunResult struct {
	Simulator string // Icarus or Verilator
	Dir       string
	Command   string // the simulation command line (run in Dir)

	Compiled      bool          // false: an up-to-date build was reused
	CompileTime   time.Duration // 0 when reused
	CompileOutput string        // what the compiler printed (warnings)
	RunTime       time.Duration // wall time of the simulation run

	Output   string   // everything the simulation printed (stdout and stderr)
	Trace    []string // the lines that are trace events, in order
	Verdicts []string // the PASS / FAIL lines (exactly one in a sound run)
	// Warnings are the simulator's own warning and error lines (Icarus
	// "WARNING: ..." / "ERROR: ...", e.g. a $readmemh file with too many or
	// too few words or that cannot be opened; Verilator "%Warning..." /
	// "%Error..."). A sound run prints none: with any, the run has not passed.
	Warnings []string
	ExitCode int

	// From the PASS line.
	Events int
	Cycles int64

	// Drops is every switch's DROPS register as the testbench of a
	// design with faults prints it before its verdict ("DROPS <cycle>
	// <hex>..."), at the end of cycle DropsCycle; nil when it printed none.
	Drops      []uint32
	DropsCycle int64
}

// Verdict is the run's PASS or FAIL line ("" when it printed none).
func (r *RunResult) Verdict() string {
	if len(r.Verdicts) == 0 {
		return ""
	}
	return r.Verdicts[0]
}

// Passed reports a clean pass: exactly one verdict, PASS, exit status 0,
// and no warning from the simulator.
func (r *RunResult) Passed() bool {
	return len(r.Verdicts) == 1 && strings.HasPrefix(r.Verdicts[0], "PASS ") && r.ExitCode == 0 && len(r.Warnings) == 0
}

// Problem explains a run that did not pass ("" when it passed).
func (r *RunResult) Problem() string {
	switch {
	case r.Passed():
		return ""
	case len(r.Verdicts) > 1:
		return fmt.Sprintf("the testbench printed %d verdict lines (%q, ...), exactly one was expected", len(r.Verdicts), r.Verdicts[0])
	case len(r.Verdicts) == 1 && strings.HasPrefix(r.Verdicts[0], "PASS ") && r.ExitCode != 0:
		return fmt.Sprintf("%s, but the simulation exited with status %d", r.Verdicts[0], r.ExitCode)
	case len(r.Verdicts) == 1 && strings.HasPrefix(r.Verdicts[0], "PASS "):
		more := ""
		if n := len(r.Warnings) - 1; n > 0 {
			more = fmt.Sprintf(" (and %d more %s)", n, plural(n, "warning", "warnings"))
		}
		return fmt.Sprintf("%s, but the simulator warned: %s%s", r.Verdicts[0], r.Warnings[0], more)
	case len(r.Verdicts) == 1:
		return r.Verdicts[0]
	}
	msg := simMessages(r.Output)
	if msg == "" {
		msg = lastLines(r.Output, 5)
	}
	return fmt.Sprintf("the simulation stopped without PASS or FAIL (exit status %d): %s", r.ExitCode, msg)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// isWarning reports a simulator's own warning or error line (not FATAL: a
// $fatal stops the run without a verdict and is reported as such).
func isWarning(t string) bool {
	return strings.HasPrefix(t, "WARNING") || strings.HasPrefix(t, "ERROR") || strings.HasPrefix(t, "VCD warning") ||
		strings.HasPrefix(t, "%Warning") || strings.HasPrefix(t, "%Error")
}

// simMessages picks the simulator's own error lines out of its output.
func simMessages(out string) string {
	var keep []string
	for _, l := range strings.Split(out, "\n") {
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, "FATAL") || strings.HasPrefix(t, "ERROR") || strings.HasPrefix(t, "%Error") ||
			strings.Contains(t, "%Error:") || strings.HasPrefix(t, "WARNING") || strings.HasPrefix(t, "%Warning") {
			keep = append(keep, t)
		}
	}
	return strings.Join(keep, "; ")
}

func lastLines(s string, n int) string {
	l := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(l) > n {
		l = l[len(l)-n:]
	}
	return strings.Join(l, " | ")
}

// RunIcarus compiles the testbench in dir with iverilog (unless sim.vvp is
// up to date with every source) and runs it with vvp, in dir. plusargs are
// passed to the simulation (e.g. "+vcd"). Nothing in dir is regenerated: the
// design, the tables and the data files are used as they are.
//
// The error is non-nil only when the simulation could not be run: the tool
// is missing (a *ToolError, with the install command), the sources do not
// compile (a *CompileError with the simulator's message), ctx ended. A run
// that fails its checks is a RunResult whose Passed is false.
func RunIcarus(ctx context.Context, dir string, plusargs ...string) (*RunResult, error) {
	return RunSimulator(ctx, dir, Icarus, plusargs...)
}

// RunSimulator runs the testbench in dir with the named simulator (Icarus or
// Verilator); see RunIcarus. With Verilator 5 (verilator --binary) the
// build lives in dir/obj_dir and is reused while the sources are unchanged.
func RunSimulator(ctx context.Context, dir, simulator string, plusargs ...string) (*RunResult, error) {
	var tools []ToolError
	switch simulator {
	case Icarus:
		tools = []ToolError{{"iverilog", installIcarus}, {"vvp", installIcarus}}
	case Verilator:
		tools = []ToolError{{"verilator", installVerilat}, {"make", installVerilat}, {"g++", installVerilat}}
	default:
		return nil, fmt.Errorf("simulator %q (allowed: %s)", simulator, strings.Join(Simulators, ", "))
	}
	for _, t := range tools {
		if _, err := exec.LookPath(t.Tool); err != nil {
			return nil, &t
		}
	}
	srcs, stamp, err := sources(dir)
	if err != nil {
		return nil, err
	}
	if err := checkBuildPaths(dir, simulator); err != nil {
		return nil, err
	}
	return runBuild(ctx, dir, simulator, srcs, stamp, IcarusBuild, plusargs)
}

// verilatorOptions are Verilator's options for the testbench build of a
// system of nodes nodes (here, and in the generated run.sh and Makefile).
// --unroll-count 1 --unroll-stmts 10 leave the RTL's for loops as loops:
// Verilator's unrolling copies every loop body per iteration in every
// instance, which took 2.3 of the 2.7 GB verilator_bin used on a 36-tile
// torus and more than 23 GB on the 216-tile Tofu shape (issue 23); with
// loops kept, 0.6 GB and 4.7 GB. From verilatorO0Nodes nodes the C++ is
// compiled at -O0: Verilator writes code per instance, 200 MB of it for
// the Tofu shape, which -O0 compiles about three times faster than
// Verilator's -Os; below, -O0 saves a sixth of a 4x4 build and makes a
// long run 19 times slower (docs/rtl.md, "Verilator").
func verilatorOptions(nodes int) string {
	o := "--binary -j 2 -Wno-fatal --unroll-count 1 --unroll-stmts 10"
	if nodes >= verilatorO0Nodes {
		o += " -MAKEFLAGS OPT_FAST=-O0 -MAKEFLAGS OPT_SLOW=-O0 -MAKEFLAGS OPT_GLOBAL=-O0"
	}
	return o
}

// verilatorO0Nodes is the system size from which Verilator's C++ is
// compiled without optimisation (verilatorOptions).
const verilatorO0Nodes = 64

// paramsNodes is the node count of the design in dir (hx_params.vh's
// HX_NODES), 0 when it cannot be read.
func paramsNodes(dir string) int {
	data, err := inputfile.ReadCapped(filepath.Join(dir, paramsFile), MaxSourcesSize)
	if err != nil {
		return 0
	}
	m := nodesDefine.FindSubmatch(data)
	if m == nil {
		return 0
	}
	n, _ := strconv.Atoi(string(m[1]))
	return n
}

var nodesDefine = regexp.MustCompile("(?m)^`define HX_NODES +([0-9]+)")

// runBuild compiles srcs (paths relative to dir; stamp hashes their text)
// unless the build is up to date, and runs it in dir. An Icarus build is
// written to vvp (relative to dir), a Verilator one to VerilatorBuild.
func runBuild(ctx context.Context, dir, simulator string, srcs []string, stamp, vvp string, plusargs []string) (*RunResult, error) {
	res := &RunResult{Simulator: simulator, Dir: dir}
	var build, exe string
	var compile []string
	switch simulator {
	case Icarus:
		build = vvp
		compile = append([]string{"iverilog", "-g2005", "-s", TBModule, "-o", vvp}, srcs...)
		exe = "vvp"
	case Verilator:
		build = filepath.Join(VerilatorBuild, verilatorExe)
		compile = append(append([]string{"verilator"}, strings.Fields(verilatorOptions(paramsNodes(dir)))...),
			"--top-module", TBModule, "-Mdir", VerilatorBuild, "-o", verilatorExe)
		compile = append(compile, srcs...)
		exe = "./" + build
	default:
		return nil, fmt.Errorf("simulator %q (allowed: %s)", simulator, strings.Join(Simulators, ", "))
	}
	if err := checkDataFiles(dir); err != nil {
		return nil, err
	}
	stamp = hashStrings(append([]string{stamp}, compile...))
	stampFile := filepath.Join(dir, build+stampSuffix)
	if old, err := inputfile.ReadCapped(stampFile, 4<<10); err != nil || string(old) != stamp || !exists(filepath.Join(dir, build)) {
		os.Remove(stampFile)
		start := time.Now()
		out, code, err := execIn(ctx, dir, compile)
		res.CompileTime = time.Since(start)
		res.CompileOutput = out
		if err != nil {
			return nil, err
		}
		if code != 0 || !exists(filepath.Join(dir, build)) {
			return nil, &CompileError{Simulator: simulator, Command: strings.Join(compile, " "), Output: compileMessages(simulator, out)}
		}
		res.Compiled = true
		if err := outfile.WriteFile(stampFile, []byte(stamp), 0o644); err != nil {
			return nil, err
		}
	}
	args := []string{exe}
	if simulator == Icarus {
		args = append(args, "-N", vvp)
	}
	args = append(args, plusargs...)
	res.Command = strings.Join(args, " ")
	start := time.Now()
	out, code, err := execIn(ctx, dir, args)
	res.RunTime = time.Since(start)
	if err != nil {
		return nil, err
	}
	res.Output, res.ExitCode = out, code
	parseOutput(res)
	return res, nil
}

// parseOutput extracts the trace, the verdicts and the simulator's warnings
// from res.Output.
func parseOutput(res *RunResult) {
	for _, l := range strings.Split(res.Output, "\n") {
		l = strings.TrimRight(l, "\r")
		if strings.HasPrefix(l, "PASS ") || strings.HasPrefix(l, "FAIL ") || l == "PASS" || l == "FAIL" {
			res.Verdicts = append(res.Verdicts, l)
			if f := strings.Fields(l); len(f) == 5 && f[0] == "PASS" && f[2] == "events" && f[4] == "cycles" {
				res.Events, _ = strconv.Atoi(f[1])
				res.Cycles, _ = strconv.ParseInt(f[3], 10, 64)
			}
			continue
		}
		if f := strings.Fields(l); len(f) >= 2 && f[0] == "DROPS" {
			res.DropsCycle, _ = strconv.ParseInt(f[1], 10, 64)
			res.Drops = []uint32{}
			for _, h := range f[2:] {
				v, _ := strconv.ParseUint(h, 16, 32)
				res.Drops = append(res.Drops, uint32(v))
			}
			continue
		}
		if _, err := ParseEvent(l); err == nil {
			res.Trace = append(res.Trace, l)
		} else if t := strings.TrimSpace(l); isWarning(t) {
			res.Warnings = append(res.Warnings, t)
		}
	}
}

// compileMessages keeps Verilator's diagnostics and drops its make/g++
// command echo; Icarus's output is kept whole.
func compileMessages(simulator, out string) string {
	if simulator != Verilator {
		return out
	}
	var keep []string
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "%") || strings.HasPrefix(l, " ") || strings.Contains(l, "error") {
			keep = append(keep, l)
		}
	}
	if len(keep) == 0 {
		return lastLines(out, 20)
	}
	return strings.Join(keep, "\n")
}

// MaxSourcesSize caps SourcesFile: a list of file names, a few hundred
// bytes as generated.
const MaxSourcesSize = 1 << 20

// sources reads the list of the Verilog sources of dir (SourcesFile: one
// plain .v file name a line, each present) and hashes them with
// hx_params.vh, so that a build is reused only for the same text. No other
// .v file of dir is compiled.
func sources(dir string) ([]string, string, error) {
	st, err := os.Stat(dir)
	if err != nil {
		return nil, "", fmt.Errorf("testbench directory: %w", err)
	}
	if !st.IsDir() {
		return nil, "", fmt.Errorf("testbench directory %s: not a directory", dir)
	}
	list, err := inputfile.ReadCapped(filepath.Join(dir, SourcesFile), MaxSourcesSize)
	if errors.Is(err, os.ErrNotExist) {
		return nil, "", fmt.Errorf("%s: no %s (the list of the sources to compile): regenerate with '%s'", dir, SourcesFile, RegenerateCommand(dir))
	}
	if err != nil {
		return nil, "", err
	}
	var srcs []string
	for _, l := range strings.Split(string(list), "\n") {
		l = strings.TrimSpace(l)
		if l == "" {
			continue
		}
		if !strings.HasSuffix(l, ".v") || strings.ContainsAny(l, "/\\") || strings.HasPrefix(l, "-") || strings.HasPrefix(l, "+") {
			return nil, "", fmt.Errorf("%s: %s names %q: only .v files of the directory may be listed", dir, SourcesFile, l)
		}
		srcs = append(srcs, l)
	}
	if !slices.Contains(srcs, TBFile) {
		return nil, "", fmt.Errorf("%s: %s does not list %s: regenerate with '%s'", dir, SourcesFile, TBFile, RegenerateCommand(dir))
	}
	h := sha256.New()
	for _, name := range append(slices.Clone(srcs), paramsFile) {
		data, err := inputfile.Read(filepath.Join(dir, name))
		if errors.Is(err, os.ErrNotExist) {
			return nil, "", fmt.Errorf("%s: no %s (a source of the design, listed in %s): regenerate with '%s'", dir, name, SourcesFile, RegenerateCommand(dir))
		}
		if err != nil {
			return nil, "", err
		}
		fmt.Fprintf(h, "%s %d\n", name, len(data))
		h.Write(data)
	}
	return srcs, hex.EncodeToString(h.Sum(nil)), nil
}

func hashStrings(s []string) string {
	h := sha256.New()
	for _, x := range s {
		fmt.Fprintf(h, "%d:%s\n", len(x), x)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// checkBuildPaths refuses a build in dir that the compiler would write
// through or a run would block on: a sim.vvp (or Verilator's binary) that is
// a symlink, a hard link, a FIFO or a device, an obj_dir that is not a
// directory of its own (a symlink). Nothing is compiled or run then.
func checkBuildPaths(dir, simulator string) error {
	if simulator == Icarus {
		return outfile.Check(filepath.Join(dir, IcarusBuild))
	}
	d := filepath.Join(dir, VerilatorBuild)
	if st, err := os.Lstat(d); err == nil && st.Mode()&fs.ModeSymlink != 0 {
		return fmt.Errorf("%s: a symlink, not followed (allowed: a missing directory or one of its own, where the build is written)", d)
	} else if err == nil && !st.IsDir() {
		return fmt.Errorf("%s: %s (allowed: a missing directory or one of its own, where the build is written)", d, inputfile.Kind(st.Mode()))
	}
	return outfile.Check(filepath.Join(d, verilatorExe))
}

// checkDataFiles refuses a data file the testbench reads at run time
// (config.hex, editable; scenario.hex, expected.hex) that the simulator would
// block on (a FIFO) or read without end (a device, a sparse file over the
// input cap). A missing one is the testbench's to report.
func checkDataFiles(dir string) error {
	for _, name := range []string{ConfigFile, ScenarioFile, ExpectedFile} {
		if err := inputfile.Check(filepath.Join(dir, name), inputfile.MaxSize); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	return nil
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// execIn runs args in dir and returns the combined output and exit status.
// The error is for a command that could not be run or was cancelled.
func execIn(ctx context.Context, dir string, args []string) (string, int, error) {
	// Own process group: cancelling ctx (a signal, a closed pipe) kills
	// vvp or make with the compilers and simulators they started.
	cmd := procgroup.Command(ctx, args[0], args[1:]...)
	cmd.Dir = dir
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &out
	err := procgroup.Run(cmd)
	if ctx.Err() != nil {
		return out.String(), -1, fmt.Errorf("%s: %w", args[0], ctx.Err())
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return out.String(), ee.ExitCode(), nil
	}
	if err != nil {
		return out.String(), -1, fmt.Errorf("%s: %w", args[0], err)
	}
	return out.String(), 0, nil
}
