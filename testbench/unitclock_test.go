package testbench

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/hxbar/hxbar/hw"
)

// gateCombineSystems are the runs of TestCosimGateCombine: every op on a
// 2x2 grid with its arrivals skewed (so that a gate's last signal is often
// counted in the cycle its gate passes, the forwarded operand), and on 3
// ranks a butterfly (sum), dissemination (max), butterfly (min) episode
// list, whose gates are left with entries of earlier episodes (valid bits
// cleared, RAM words kept).
func gateCombineSystems(t *testing.T) []hw.System {
	var out []hw.System
	for i, op := range []hw.OpName{"sum", "max", "min", "and", "or", "xor"} {
		s := system(t, "combine-"+string(op), []int{2, 2}, 0, hw.AlgoButterfly, op, 1, 2, 64)
		s.Seed, s.Skew = uint64(31+i), 9
		out = append(out, s)
	}
	s := hw.Default()
	bfly, diss := hw.AlgoButterfly, hw.AlgoDissemination
	sum, mx, mn := hw.OpName("sum"), hw.OpName("max"), hw.OpName("min")
	s.Name, s.Dims, s.Ranks, s.Skew, s.Seed = "combine-episodes", []int{3}, 3, 20, 5
	s.Episodes = []hw.Episode{{Algo: &bfly, Op: &sum}, {Algo: &diss, Op: &mx}, {Algo: &bfly, Op: &mn}}
	if err := s.Validate(); err != nil {
		t.Fatal(err)
	}
	return append(out, s)
}

// TestCosimGateCombine: the gate pass folds acc, the gate's entry and the
// value counted in the pass cycle with one three-operand op (hx_alu3,
// docs/area.md "The unit's clock"), taking the entry through the RAM's
// bypass and valid bit itself. Every run of gateCombineSystems matches the
// model; each mutant of that path in the unit (the value counted in the
// pass cycle dropped, the bypassed word or the valid bit ignored at the
// gate or at the receive fold) makes at least one of them differ.
func TestCosimGateCombine(t *testing.T) {
	needTools(t, Icarus)
	t.Parallel()
	ctx := ctxFor(t, 10*time.Minute)
	var dirs []string
	for _, s := range gateCombineSystems(t) {
		dir := filepath.Join(t.TempDir(), s.Name)
		generate(t, dir, s)
		if rep, err := Cosim(ctx, dir, Icarus); err != nil || !rep.OK() {
			t.Fatalf("%s: %v\n%s", s.Name, err, rep)
		}
		dirs = append(dirs, dir)
	}
	mutants := [][2]string{
		{"assign g_fwd = fwd ? p1_val : ident;", "assign g_fwd = ident;"},
		{"wire [63:0]   xa_alt = (xa_ok && xa_byp) ? xw_q[63:0] : ident;", "wire [63:0]   xa_alt = ident;"},
		{"assign g_val = (xa_ok && !xa_byp) ? xa_q[63:0] : xa_alt;", "assign g_val = !xa_byp ? xa_q[63:0] : xa_alt;"},
		{"wire [63:0]   xb_val = (xb_ok && !xb_byp) ? xb_q[63:0] : xb_alt;", "wire [63:0]   xb_val = !xb_byp ? xb_q[63:0] : xb_alt;"},
	}
	for _, m := range mutants {
		var failed []string
		for _, dir := range dirs {
			path := filepath.Join(dir, "hx_barrier_unit.v")
			src, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if bytes.Count(src, []byte(m[0])) != 1 {
				t.Fatalf("%q not found once in hx_barrier_unit.v", m[0])
			}
			if err := os.WriteFile(path, bytes.Replace(src, []byte(m[0]), []byte(m[1]), 1), 0o644); err != nil {
				t.Fatal(err)
			}
			res, err := RunSimulator(ctx, dir, Icarus)
			if werr := os.WriteFile(path, src, 0o644); werr != nil {
				t.Fatal(werr)
			}
			if err != nil {
				t.Fatal(err)
			}
			if !res.Passed() {
				failed = append(failed, fmt.Sprintf("%s (%s)", filepath.Base(dir), firstLine(res.Verdict())))
			}
		}
		if len(failed) == 0 {
			t.Errorf("mutant %q -> %q: every run still matches the model", m[0], m[1])
		} else {
			t.Logf("mutant %q: %d of %d runs differ: %v", m[1], len(failed), len(dirs), failed[0])
		}
	}
}
