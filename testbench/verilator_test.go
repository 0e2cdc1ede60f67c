package testbench

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hxbar/hxbar/hw"
)

// TestCosimVerilator co-simulates a few systems under Verilator 5 (three
// seeds each, one build per design: the later seeds reuse obj_dir).
func TestCosimVerilator(t *testing.T) {
	needTools(t, Verilator)
	t.Parallel()
	for i, sys := range []struct {
		name string
		dims []int
		algo hw.Algorithm
		op   hw.OpName
		L, B int
		FW   int
	}{
		{"v1-line2-bfly-sum-fw16", []int{2}, "butterfly", "sum", 1, 2, 16},
		{"v2-2x2-diss-max-L3-B1-fw32", []int{2, 2}, "dissemination", "max", 3, 1, 32},
	} {
		s := system(t, sys.name, sys.dims, 0, sys.algo, sys.op, sys.L, sys.B, sys.FW)
		dir := filepath.Join(t.TempDir(), sys.name)
		for k := 0; k < 3; k++ {
			s.Seed, s.Skew = uint64(500+10*i+k), matrixSkews[k%len(matrixSkews)]
			generate(t, dir, s)
			rep, err := Cosim(ctxFor(t, 10*time.Minute), dir, Verilator)
			if err != nil {
				t.Fatalf("%s seed %d: %v\n%v", sys.name, s.Seed, err, rep)
			}
			if !rep.OK() || rep.Run.Compiled != (k == 0) || rep.Run.Simulator != Verilator {
				t.Fatalf("%s seed %d: ok %v compiled %v", sys.name, s.Seed, rep.OK(), rep.Run.Compiled)
			}
			if k == 0 {
				if strings.Contains(rep.Run.CompileOutput, "%Warning") {
					t.Errorf("%s: Verilator warnings:\n%s", sys.name, compileMessages(Verilator, rep.Run.CompileOutput))
				}
				t.Logf("%s: built in %v", sys.name, rep.Run.CompileTime.Round(time.Millisecond))
			}
		}
	}
}

// The testbench's checks behave the same under Verilator, whose memories are
// 2-state (a missing word reads 0, not X), and damaged tables are caught.
// One build serves every case: the tables and the data files are read when
// the simulation starts.
func TestTestbenchChecksVerilator(t *testing.T) {
	needTools(t, Verilator)
	t.Parallel()
	dir, s, trace := tbDir(t)
	testbenchChecks(t, Verilator, dir, s, trace, false)
	ctx := ctxFor(t, 10*time.Minute)
	muts := routeMutations(s, 3)
	for _, m := range append(muts, gateMutations(s)[:2]...) {
		if rep, ok := runMutationWith(t, ctx, dir, Verilator, m); ok {
			t.Logf("%s: %s", m.what, firstLine(rep.Problem()))
		}
	}
	// Without the checksum: tb.v's check of config.hex, by name.
	restore := saveFile(t, filepath.Join(dir, ConfigFile))
	flipConfigWord(t, dir, 0)
	rep, err := Cosim(ctx, dir, Verilator)
	restore()
	if err == nil || !strings.Contains(rep.Problem(), "FAIL "+ConfigFile+": checksum") {
		t.Fatalf("bad checksum under Verilator: %v", err)
	}
	// config.hex damaged (2-state memories: a missing word would read 0):
	// refused by tb.v under Verilator, by name.
	for _, c := range configCases(s.Topo.Nodes) {
		checkConfigRefused(t, ctx, dir, Verilator, c)
	}
}
