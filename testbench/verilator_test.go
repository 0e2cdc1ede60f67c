package testbench

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hxbar/hxbar/hw"
	"github.com/hxbar/hxbar/verilog"
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
		path := filepath.Join(dir, m.file)
		restore := saveFile(t, path)
		if err := verilog.RewriteTable(path, m.edit); err != nil {
			t.Fatal(err)
		}
		rep, err := Cosim(ctx, dir, Verilator)
		restore()
		var mm *MismatchError
		if !errors.As(err, &mm) {
			t.Errorf("%s: not detected under Verilator (err %v)", m.what, err)
			continue
		}
		t.Logf("%s: %s", m.what, firstLine(rep.Problem()))
	}
	// Without the checksum: the table's header check, by name.
	file := verilog.RouteTableFile(1)
	path := filepath.Join(dir, file)
	restore := saveFile(t, path)
	if err := verilog.RewriteTableWords(path, func(w []uint64) { w[2] ^= 1 }); err != nil {
		t.Fatal(err)
	}
	rep, err := Cosim(ctx, dir, Verilator)
	restore()
	if err == nil || !strings.Contains(rep.Problem(), file+": checksum") {
		t.Fatalf("bad checksum under Verilator: %v", err)
	}
	// A word too many or too few (2-state memories: a missing word would
	// read 0): refused by Cosim, and by the RTL under Verilator.
	for _, c := range []lengthCase{{verilog.GateTableFile(2), true, true}, {verilog.RouteTableFile(1), true, false}, {verilog.GateTableFile(0), false, true}} {
		checkLengthRefused(t, dir, Verilator, c)
	}
}
