package formal

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"github.com/hxbar/hxbar/internal/inputfile"
	"github.com/hxbar/hxbar/internal/outfile"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/hxbar/hxbar/internal/gendir"
	"github.com/hxbar/hxbar/internal/procgroup"
)

// Margins are how many frames past the longest run (the last episode's
// completion with every arrival as late as the window allows, see
// Result.Longest) a proof checks: the first that the check of the bound
// (output late) passes at.
var Margins = []int{2, 8, 24}

// Verdicts.
const (
	Proved         = "proved"         // no assert fails in any of Depth frames
	Counterexample = "counterexample" // an assert fails in frame CexFrame
)

// Result is one proof's outcome.
type Result struct {
	Name     string   `json:"name"`
	Unit     string   `json:"unit"`                // "rtl" or the replaced unit's name
	Prefix   int      `json:"prefix_cycles"`       // simulated cycles before episode 1 runs
	Longest  int      `json:"longest_run_frames"`  // frames to the last episode's completion, arrivals as late as allowed
	Depth    int      `json:"depth_frames"`        // frames checked (Longest + a margin + 1)
	Latches  int      `json:"latches"`             // of the property model after ABC's reductions
	Ands     int      `json:"ands"`                // of the same
	Verdict  string   `json:"verdict"`             // Proved or Counterexample
	CexFrame int      `json:"cex_frame,omitempty"` // the failing frame (counted from the first running cycle)
	CexCycle int      `json:"cex_cycle,omitempty"` // the same as a cycle of the harness (reset = 0)
	CexWhat  string   `json:"cex_what,omitempty"`  // which assert failed
	Moved    []string `json:"moved,omitempty"`     // step proofs: every register found to leave the boundary state
	Seconds  float64  `json:"seconds"`
}

// ReleasedEarly reports whether r is a counterexample of the property:
// a rank released before every rank of its episode arrived.
func (r Result) ReleasedEarly() bool {
	return r.Verdict == Counterexample && r.CexWhat == checks["early"]
}

// LeftBoundary reports whether r's counterexample is only a register that
// left the boundary state (a step proof's end check), not the property.
func (r Result) LeftBoundary() bool {
	return r.Verdict == Counterexample && strings.HasPrefix(r.CexWhat, checks["moved"])
}

// reduce is ABC's sequential reduction before the bounded check: a
// proof about the reduced model is one about the model (scorr merges only
// registers proved equivalent by induction from the initial state).
const reduce = "fold; scleanup; dc2; scorr; dc2; scleanup"

// Run writes j's files into dir (a new directory it creates), builds the
// models with yosys and checks them with yosys-abc's bmc3.
func Run(ctx context.Context, j *Job, dir string) (r Result, err error) {
	r = Result{Name: j.Name, Unit: "rtl", Prefix: j.Prefix}
	if j.Unit != "" {
		r.Unit = j.Unit
	}
	t0 := time.Now()
	defer func() { r.Seconds = time.Since(t0).Seconds() }()
	if _, err := os.Lstat(dir); err == nil {
		return r, fmt.Errorf("proof %s: %s exists (a proof writes into a new directory)", j.Name, dir)
	}
	files := make([]gendir.File, 0, len(j.Files))
	for name, data := range j.Files {
		files = append(files, gendir.File{Name: name, Data: data})
	}
	if _, err := gendir.Write(dir, files, gendir.Options{Tool: "hxbar formal"}); err != nil {
		return r, fmt.Errorf("proof %s: %w", j.Name, err)
	}
	if _, err := tool(ctx, dir, "yosys", "-q", "-l", "yosys.log", "-s", ScriptFile); err != nil {
		return r, fmt.Errorf("proof %s: yosys: %w (log: %s)", j.Name, err, filepath.Join(dir, "yosys.log"))
	}
	return r, check(ctx, j, dir, &r, false)
}

// check finds the longest run on the done model, then checks the
// property's model to the bound with each margin in turn. step: the
// model has assumptions (a step proof's), so the AIGER models are
// written with them as constraints.
func check(ctx context.Context, j *Job, dir string, r *Result, step bool) error {
	out, err := tool(ctx, dir, "yosys-abc", "-c", fmt.Sprintf("read_aiger %s; %s; bmc3 -F 1000", DoneFile, reduce))
	if err != nil {
		return fmt.Errorf("proof %s: yosys-abc on %s: %w", j.Name, DoneFile, err)
	}
	f, ok := assertedFrame(out)
	if !ok {
		return fmt.Errorf("proof %s: the last episode never completes within 1000 frames (yosys-abc said: %s)", j.Name, lastLine(out))
	}
	r.Longest = f
	for _, m := range Margins {
		r.Depth = f + m + 1
		out, err = prove(ctx, j, dir, r.Depth, step)
		if err != nil {
			return err
		}
		r.Latches, r.Ands = stats(out)
		if as := assertions(out, dir); len(as) > 0 {
			first, moved := worst(as)
			if first.kind == "late" {
				// Not a property of the unit: the bound, taken from
				// the latest arrivals, is short for some other arrival
				// pattern. Check again to a greater depth.
				continue
			}
			r.Verdict, r.CexFrame, r.CexCycle = Counterexample, first.frame, j.Prefix+first.frame
			r.CexWhat, r.Moved = first.what, moved
			return nil
		}
		if n, ok := checkedFrames(out); ok && n >= r.Depth {
			r.Verdict = Proved
			return nil
		}
		return fmt.Errorf("proof %s: bmc3 stopped before frame %d (yosys-abc said: %s)", j.Name, r.Depth, lastLine(out))
	}
	return fmt.Errorf("proof %s: some arrivals leave the last episode incomplete %d frames after the longest run", j.Name, Margins[len(Margins)-1])
}

// prove writes the property's model with the last episode due in frame
// depth-1 and checks depth frames; it returns what bmc3 said.
func prove(ctx context.Context, j *Job, dir string, depth int, step bool) ([]byte, error) {
	script := PropertyScript(j.Prefix + depth - 1)
	bmc := fmt.Sprintf("bmc3 -F %d", depth)
	if step {
		script = bytes.Replace(script, []byte(" -miter "), []byte(" "), 1)
		// Every output to the depth, not only the first to fail: one run
		// names every register that moves (-x keeps ABC 1.01 from
		// crashing on -a with constraints).
		bmc = fmt.Sprintf("bmc3 -a -x -F %d", depth)
	}
	if err := outfile.WriteFile(filepath.Join(dir, PropFile), script, 0o644); err != nil {
		return nil, fmt.Errorf("proof %s: %w", j.Name, err)
	}
	if _, err := tool(ctx, dir, "yosys", "-q", "-l", "property.log", "-s", PropFile); err != nil {
		return nil, fmt.Errorf("proof %s: yosys: %w (log: %s)", j.Name, err, filepath.Join(dir, "property.log"))
	}
	out, err := tool(ctx, dir, "yosys-abc", "-c", fmt.Sprintf("read_aiger %s; %s; print_stats; %s", AIGFile, reduce, bmc))
	if err != nil {
		return nil, fmt.Errorf("proof %s: yosys-abc on %s: %w", j.Name, AIGFile, err)
	}
	if err := outfile.WriteFile(filepath.Join(dir, fmt.Sprintf("bmc-%d.log", depth)), out, 0o644); err != nil {
		return nil, err
	}
	return out, nil
}

// tool runs name in dir and returns its standard output and error.
func tool(ctx context.Context, dir, name string, args ...string) ([]byte, error) {
	cmd := procgroup.Command(ctx, name, args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	_ = procgroup.Kill(cmd)
	if err != nil {
		return out, fmt.Errorf("%w: %s", err, lastLine(out))
	}
	return out, nil
}

var (
	reAsserted = regexp.MustCompile(`Output +(\d+) (?:of miter "[^"]*" )?was asserted in frame +(\d+)`)
	reNone     = regexp.MustCompile(`No output asserted in (\d+) frames`)
	reStats    = regexp.MustCompile(`lat =\s*(\d+)\s+and =\s*(\d+)`)
)

// assertedFrame is the frame of bmc3's counterexample, if it found one.
func assertedFrame(out []byte) (int, bool) { return number(reAsserted, out, 2) }

// checkedFrames is the number of frames bmc3 searched without one.
func checkedFrames(out []byte) (int, bool) { return number(reNone, out, 1) }

// number is group g of re's first match in out, as a number.
func number(re *regexp.Regexp, out []byte, g int) (int, bool) {
	m := re.FindSubmatch(out)
	if m == nil {
		return 0, false
	}
	n, err := strconv.Atoi(string(m[g]))
	return n, err == nil
}

func stats(out []byte) (latches, ands int) {
	m := reStats.FindAllSubmatch(out, -1)
	if m == nil {
		return 0, 0
	}
	last := m[len(m)-1]
	latches, _ = strconv.Atoi(string(last[1]))
	ands, _ = strconv.Atoi(string(last[2]))
	return latches, ands
}

// assertion is an output bmc3 found asserted: which check it is (an
// output name of the harness: early, refused, late, moved), what it says,
// and the frame.
type assertion struct {
	kind, what string
	frame      int
}

// assertions lists the outputs bmc3 reports asserted (one, or with -a
// every output it could assert), named from the AIGER map in dir.
func assertions(out []byte, dir string) []assertion {
	var as []assertion
	outputs := map[string][2]string{} // AIGER output index -> harness output, its bit
	if data, err := inputfile.Read(filepath.Join(dir, MapFile)); err == nil {
		sc := bufio.NewScanner(bytes.NewReader(data))
		for sc.Scan() {
			if f := strings.Fields(sc.Text()); len(f) == 4 && f[0] == "output" {
				outputs[f[1]] = [2]string{f[3], f[2]}
			}
		}
	}
	for _, m := range reAsserted.FindAllSubmatch(out, -1) {
		frame, _ := strconv.Atoi(string(m[2]))
		a := assertion{kind: "output " + string(m[1]), what: "output " + string(m[1]), frame: frame}
		if o, ok := outputs[string(m[1])]; ok {
			a.kind, a.what = o[0], "output "+o[0]
			if c, ok := checks[o[0]]; ok {
				a.what = c
			}
			if o[0] == "moved" {
				a.what = movedWhat(dir, o[1])
			}
		}
		as = append(as, a)
	}
	return as
}

// worst picks the assertion a proof reports: a failed property (early,
// refused or an unknown output) before a moved register, a moved register
// before late, the earliest frame first among equals. moved lists every
// register that moved (their names, from each moved assertion's what).
func worst(as []assertion) (first assertion, moved []string) {
	rank := func(a assertion) int {
		switch a.kind {
		case "moved":
			return 1
		case "late":
			return 2
		}
		return 0
	}
	for i, a := range as {
		if i == 0 || rank(a) < rank(first) || rank(a) == rank(first) && a.frame < first.frame {
			first = a
		}
		if reg, ok := strings.CutPrefix(a.what, checks["moved"]+": "); ok && a.kind == "moved" {
			moved = append(moved, reg)
		}
	}
	slices.Sort(moved)
	return first, slices.Compact(moved)
}

// checks says what each output of the harness means when it is 1.
var checks = map[string]string{
	"early":   "a rank released before every rank of its episode arrived",
	"refused": "a configuration write refused (pslverr)",
	"late":    "the last episode not complete by the bound",
	"moved":   "a register left the boundary state of the class the episode ends in",
}

// movedWhat names the register of bit of output moved (moved.txt).
func movedWhat(dir, bit string) string {
	what := checks["moved"]
	data, err := inputfile.Read(filepath.Join(dir, "moved.txt"))
	if err != nil {
		return what
	}
	names := strings.Split(strings.TrimSpace(string(data)), "\n")
	if i, err := strconv.Atoi(bit); err == nil && i < len(names) {
		return what + ": " + strings.TrimPrefix(names[i], "\\dut.")
	}
	return what
}

func lastLine(out []byte) string {
	s := strings.TrimSpace(string(out))
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		s = s[i+1:]
	}
	return s
}
