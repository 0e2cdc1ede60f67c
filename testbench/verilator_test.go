package testbench

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hxbar/hxbar/hw"
)

// TestCosimVerilator co-simulates systems under Verilator 5 (three seeds
// each, one build per design: the later seeds reuse obj_dir): a 3x2
// torus, a ring of 3 by a mesh line of 2 (its routers, dateline VCs and
// the line's unwired ends), with 16-bit flits here, the hyper-crossbar
// 2x2 of verilatorChecksSystem in TestTestbenchChecksVerilator (on that
// test's build); make bench builds the 216-tile Tofu shape
// (TestCosimSixDims).
func TestCosimVerilator(t *testing.T) {
	needTools(t, Verilator)
	t.Parallel()
	s := system(t, "v1-torus3x2-bfly-sum-fw16", []int{3, 2}, 0, "butterfly", "sum", 1, 2, 16)
	s.Topology, s.Wrap = hw.TopoTorus, []bool{true, false}
	if err := s.Validate(); err != nil {
		t.Fatal(err)
	}
	verilatorSeeds(t, filepath.Join(t.TempDir(), s.Name), s, 500)
}

// verilatorChecksSystem is the design of TestTestbenchChecksVerilator: a
// 2x2 dissemination max at latency 3 and buffer depth 1.
func verilatorChecksSystem(t *testing.T) hw.System {
	return system(t, "v2-2x2-diss-max-L3-B1-fw32", []int{2, 2}, 0, "dissemination", "max", 3, 1, 32)
}

// verilatorSeeds co-simulates s under Verilator in dir with seeds seed,
// seed+1, seed+2 (and the matrix's skews): the first builds, the others
// reuse its obj_dir.
func verilatorSeeds(t *testing.T, dir string, s hw.System, seed uint64) {
	t.Helper()
	for k := 0; k < 3; k++ {
		s.Seed, s.Skew = seed+uint64(k), matrixSkews[k%len(matrixSkews)]
		generate(t, dir, s)
		rep, err := Cosim(ctxFor(t, 10*time.Minute), dir, Verilator)
		if err != nil {
			t.Fatalf("%s seed %d: %v\n%v", s.Name, s.Seed, err, rep)
		}
		if !rep.OK() || rep.Run.Compiled != (k == 0) || rep.Run.Simulator != Verilator {
			t.Fatalf("%s seed %d: ok %v compiled %v", s.Name, s.Seed, rep.OK(), rep.Run.Compiled)
		}
		if rep.Run.Compiled {
			if strings.Contains(rep.Run.CompileOutput, "%Warning") {
				t.Errorf("%s: Verilator warnings:\n%s", s.Name, compileMessages(Verilator, rep.Run.CompileOutput))
			}
			t.Logf("%s: built in %v", s.Name, rep.Run.CompileTime.Round(time.Millisecond))
		}
	}
}

// The testbench's checks behave the same under Verilator, whose memories are
// 2-state (a missing word reads 0, not X), and damaged tables are caught.
// One build serves every case: the tables and the data files are read when
// the simulation starts. The build first co-simulates three seeds of its
// design (TestCosimVerilator's second design, sharing the build).
func TestTestbenchChecksVerilator(t *testing.T) {
	needTools(t, Verilator)
	t.Parallel()
	sys := verilatorChecksSystem(t)
	dir := t.TempDir()
	verilatorSeeds(t, dir, sys, 510)
	sys.Seed, sys.Skew = 3, 9
	s, trace := generate(t, dir, sys)
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
