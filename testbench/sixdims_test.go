package testbench

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/hxbar/hxbar/hw"
)

// sixDimCase is one co-simulation of a 5-D or 6-D system.
type sixDimCase struct {
	name  string
	topo  hw.Topology
	dims  []int
	wrap  []bool // torus only; nil: every dimension a ring
	algo  hw.Algorithm
	op    hw.OpName
	eps   []hw.Episode // back-to-back episodes (one build, tables rewritten between them); nil: one
	bench bool         // long: make bench only (HXBAR_FULL_MATRIX)
	fault string       // a fault injected (hw.System.Faults), with code the model's first error
	code  string
	sim   string // the simulator; "": Icarus
}

// sixDimCases: make test co-simulates a 5-D hyper-crossbar whose
// dimension 4 differs in size from the others (so that a design that
// mixes up its size, coordinate or wiring cannot match the model); the
// 6-D systems are make bench's, as the smallest is 64 nodes (a 96-node
// 6-D hyper-crossbar took 23 minutes under Icarus on a loaded 2-core
// machine, most of it the compile): a 6-D hyper-crossbar whose dimensions
// 4 and 5 differ in size, the 64-node one, a 6-D torus of the first's
// shape (96 25-port routers: 187 s with the torus top's clock leaves on
// a loaded machine; before them a run on a more loaded one had not
// compiled within 30 minutes) running a sum and
// then a near-first barrier, and the Tofu-shaped 3x2x3x2x3x2 system (216 ranks,
// rings of 3 and mesh lines of 2) running the near-last and the
// near-first butterfly, a sum and an all-gather of 16 items as four
// episodes of one build, and a flipped address bit on it, and a sum on
// it under Verilator. make test
// lints and synthesizes 6-D tiles (verilog/sixdims_test.go).
func sixDimCases() []sixDimCase {
	alg := func(a hw.Algorithm) *hw.Algorithm { return &a }
	op := func(o hw.OpName) *hw.OpName { return &o }
	coll := func(c hw.Collective) *hw.Collective { return &c }
	num := func(n int) *int { return &n }
	tofu, tofuWrap := []int{3, 2, 3, 2, 3, 2}, []bool{true, false, true, false, true, false}
	return []sixDimCase{
		{name: "hyperxbar-2x2x2x2x3-sum", topo: hw.TopoHyperXbar, dims: []int{2, 2, 2, 2, 3}, algo: hw.AlgoButterfly, op: hw.OpSum},
		{name: "hyperxbar-2x2x2x2x3x2-nearfirst", topo: hw.TopoHyperXbar, dims: []int{2, 2, 2, 2, 3, 2}, algo: hw.AlgoButterflyNearFirst, op: hw.OpBarrier, bench: true},
		{name: "torus-2x2x2x2x3x2-sum-nearfirst", topo: hw.TopoTorus, dims: []int{2, 2, 2, 2, 3, 2},
			wrap: []bool{false, false, false, false, true, false}, algo: hw.AlgoButterfly, op: hw.OpSum,
			eps:   []hw.Episode{{}, {Op: op(hw.OpBarrier), Algo: alg(hw.AlgoButterflyNearFirst)}},
			bench: true},
		{name: "hyperxbar-2x2x2x2x2x2", topo: hw.TopoHyperXbar, dims: []int{2, 2, 2, 2, 2, 2}, algo: hw.AlgoButterfly, op: hw.OpBarrier, bench: true},
		{name: "tofu-nearlast-nearfirst-sum-allgather", topo: hw.TopoTorus, dims: tofu,
			wrap: tofuWrap, algo: hw.AlgoButterfly, op: hw.OpBarrier,
			eps: []hw.Episode{{}, {Algo: alg(hw.AlgoButterflyNearFirst)}, {Op: op(hw.OpSum)},
				{Collective: coll(hw.CollAllGather), Items: num(16)}},
			bench: true},
		// A flipped address bit misroutes a barrier packet along a mesh
		// line: the wrong unit's CRC check catches it.
		{name: "tofu-flip-dst", topo: hw.TopoTorus, dims: tofu, wrap: tofuWrap, algo: hw.AlgoButterfly, op: hw.OpBarrier,
			fault: "flip:n0.d1+.vc0@first:5", code: "CRC", bench: true},
		// The Tofu shape under Verilator: 4.7 GB and about 5 minutes
		// for verilator_bin, then 200 MB of C++ at -O0 (docs/rtl.md,
		// "Verilator").
		{name: "tofu-verilator-nearlast-sum", topo: hw.TopoTorus, dims: tofu, wrap: tofuWrap, algo: hw.AlgoButterfly, op: hw.OpSum,
			bench: true, sim: Verilator},
	}
}

// TestCosimSixDims co-simulates 5-D and 6-D systems, both fabrics, cycle
// for cycle against the model under Icarus, and the Tofu shape under
// Verilator too (docs/rtl.md: K0..K5).
func TestCosimSixDims(t *testing.T) {
	needTools(t, Icarus)
	for _, c := range sixDimCases() {
		t.Run(c.name, func(t *testing.T) {
			if c.bench && !fullMatrix() {
				t.Skip("make bench runs it (HXBAR_FULL_MATRIX): minutes under Icarus")
			}
			if c.sim != "" {
				needTools(t, c.sim)
			}
			sys := hw.Default()
			sys.Name, sys.Topology, sys.Dims, sys.Wrap = c.name, c.topo, c.dims, c.wrap
			sys.Ranks, sys.Placement, sys.Algo, sys.Op, sys.Episodes = 0, nil, c.algo, c.op, c.eps
			if c.fault != "" {
				sys.Faults, sys.Watchdog = []string{c.fault}, 120
			}
			if err := sys.Validate(); err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
			dir := t.TempDir()
			generate(t, dir, sys)
			top, err := os.ReadFile(join(dir, "hx_top.v"))
			if err != nil {
				t.Fatal(err)
			}
			for k, d := range c.dims {
				if want := fmt.Sprintf("localparam integer K%d   = %d;", k, d); !strings.Contains(string(top), want) {
					t.Fatalf("hx_top.v has no %q", want)
				}
			}
			start := time.Now()
			limit := 30 * time.Minute
			if c.bench {
				limit = 3 * time.Hour // the Tofu shape: a 480 MB sim.vvp, about 2 s a simulated cycle
			}
			simulator := Icarus
			if c.sim != "" {
				simulator = c.sim
			}
			rep, err := Cosim(ctxFor(t, limit), dir, simulator)
			if err != nil {
				t.Fatalf("cosim: %v", err)
			}
			if !rep.OK() {
				t.Fatalf("cosim: %s", rep.Summary())
			}
			if c.code != "" && (len(rep.Errors) == 0 || rep.Errors[0].Code != c.code) {
				t.Fatalf("model errors %v, want %s first", rep.Errors, c.code)
			}
			t.Logf("%s: %s (%.0f s)", c.name, rep.Summary(), time.Since(start).Seconds())
		})
	}
}
