package verilog

import (
	"bytes"
	"math/big"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/hxbar/hxbar/barrierunit"
	"github.com/hxbar/hxbar/hw"
	"github.com/hxbar/hxbar/sim"
)

// rtlScenario is one run_scenario line of verilog/rtl/test/run.sh.
type rtlScenario struct {
	name, dir, top  string
	k, l, b, fw, op int
	ng, nw, arr     []int // per node (G, body words) and per rank (arrival)
	ops             *big.Int
	flitsPerItem    int // data mode (IF), 0 for a barrier
	dataWords       []int
}

// shellWords splits a shell command line into words, honouring double
// quotes (all run.sh's scenario lines use).
func shellWords(line string) []string {
	var words []string
	var cur strings.Builder
	in, quoted := false, false
	for _, c := range line {
		switch {
		case c == '"':
			quoted = !quoted
			in = true
		case (c == ' ' || c == '\t') && !quoted:
			if in {
				words = append(words, cur.String())
				cur.Reset()
				in = false
			}
		default:
			cur.WriteRune(c)
			in = true
		}
	}
	if in {
		words = append(words, cur.String())
	}
	return words
}

// rtlScenarios reads the scenarios from run.sh itself, so that a scenario
// added there is run on the model here too.
func rtlScenarios(t *testing.T) []rtlScenario {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("rtl", "test", "run.sh"))
	if err != nil {
		t.Fatal(err)
	}
	ints := func(s string) []int {
		var v []int
		for _, f := range strings.Fields(s) {
			n, err := strconv.Atoi(f)
			if err != nil {
				t.Fatalf("run.sh: %q is not a list of integers", s)
			}
			v = append(v, n)
		}
		return v
	}
	var out []rtlScenario
	text := strings.ReplaceAll(string(src), "\\\n", " ")
	for _, line := range strings.Split(text, "\n") {
		w := shellWords(line)
		if len(w) == 0 || w[0] != "run_scenario" {
			continue
		}
		if len(w) != 13 && len(w) != 15 {
			t.Fatalf("run.sh: run_scenario with %d arguments: %s", len(w)-1, line)
		}
		s := rtlScenario{name: w[1], dir: w[2], top: w[3]}
		for i, p := range []*int{&s.k, &s.l, &s.b, &s.fw, &s.op} {
			n, err := strconv.Atoi(w[4+i])
			if err != nil {
				t.Fatalf("run.sh %s: argument %d: %v", s.name, 4+i, err)
			}
			*p = n
		}
		s.ng, s.nw, s.arr = ints(w[9]), ints(w[10]), ints(w[11])
		hex := strings.ReplaceAll(w[12][strings.Index(w[12], "'h")+2:], "_", "")
		var ok bool
		if s.ops, ok = new(big.Int).SetString(hex, 16); !ok {
			t.Fatalf("run.sh %s: operands %q", s.name, w[12])
		}
		if len(w) == 15 {
			s.flitsPerItem, _ = strconv.Atoi(w[13])
			s.dataWords = ints(w[14])
		}
		out = append(out, s)
	}
	return out
}

// gatherSchedule is gather4's schedule (verilog/rtl/test/gather4): every
// rank's gate 1 signals rank 0's gate 2, rank 0's gate 2 signals every
// rank's gate 3 (a gather then a broadcast).
func gatherSchedule() *barrierunit.Schedule {
	s := &barrierunit.Schedule{Ranks: 4, Algo: "gather4", Gates: 2}
	s.Routes = append(s.Routes, barrierunit.Route{FromRank: 0, FromGate: 1, ToRank: 0, ToGate: 2})
	for r := 1; r < 4; r++ {
		s.Routes = append(s.Routes,
			barrierunit.Route{FromRank: r, FromGate: 1, ToRank: 0, ToGate: 2, Distance: r},
			barrierunit.Route{FromRank: r, FromGate: 1, ToRank: r, ToGate: 2})
	}
	s.Routes = append(s.Routes, barrierunit.Route{FromRank: 0, FromGate: 2, ToRank: 0, ToGate: 3})
	for r := 1; r < 4; r++ {
		s.Routes = append(s.Routes, barrierunit.Route{FromRank: 0, FromGate: 2, ToRank: r, ToGate: 3, Distance: r})
	}
	return s
}

// diagSchedule is grid2diag's schedule: gate 1 pairs r with r^3 (the
// diagonal of the 2x2 grid), gate 2 with r^1.
func diagSchedule() *barrierunit.Schedule {
	s := &barrierunit.Schedule{Ranks: 4, Algo: "diag", Gates: 2}
	for g, x := range []int{3, 1} {
		for r := 0; r < 4; r++ {
			p := r ^ x
			s.Routes = append(s.Routes,
				barrierunit.Route{FromRank: r, FromGate: g + 1, ToRank: p, ToGate: g + 2, Distance: max(r-p, p-r)},
				barrierunit.Route{FromRank: r, FromGate: g + 1, ToRank: r, ToGate: g + 2})
		}
	}
	return s
}

// TestRTLScenariosOnTheModel runs every hand-derived RTL smoke scenario
// (verilog/rtl/test/run.sh, expected/<name>.trace) on the Go model: the
// system is built from the scenario's parameters (K, L, B, FW, OP, the
// ranks' arrivals and operands), the schedule from its table directory,
// and the model's trace must equal the expected file line for line. The
// RTL's own run (make rtl) compares the same file, so the model and the
// RTL are held to one hand-checked trace each without a simulator here.
func TestRTLScenariosOnTheModel(t *testing.T) {
	opName := []hw.OpName{"barrier", "sum", "max", "min", "and", "or", "xor"} // hx_alu.v's OP codes
	scen := rtlScenarios(t)
	if len(scen) < 9 {
		t.Fatalf("read %d scenarios from run.sh, want at least 9", len(scen))
	}
	for _, sc := range scen {
		t.Run(sc.name, func(t *testing.T) {
			var dims []int
			switch sc.top {
			case "line_top":
				dims = []int{sc.k}
			case "grid2_top":
				dims = []int{2, 2}
			default:
				t.Fatalf("unknown top %s", sc.top)
			}
			nodes := 1
			for _, d := range dims {
				nodes *= d
			}
			if sc.k != nodes || len(sc.ng) != nodes || len(sc.nw) != nodes || len(sc.arr) != nodes {
				t.Fatalf("K = %d, %d/%d/%d per-node values for %d nodes", sc.k, len(sc.ng), len(sc.nw), len(sc.arr), nodes)
			}
			// The smoke tops place rank r on node r: ranked nodes (NW > 1:
			// a unit with a gate table beyond its header word) come first.
			// NW = 1 is a node without a rank.
			ranks := 0
			for n := 0; n < nodes; n++ {
				if sc.nw[n] > 1 {
					if n != ranks {
						t.Fatalf("node %d has a rank after a node without one", n)
					}
					ranks++
				}
			}
			sys := testSystem(sc.name, dims, func(s *hw.System) {
				s.Ranks, s.LinkLatency, s.BufferDepth, s.FlitWidth, s.Skew = ranks, sc.l, sc.b, sc.fw, 0
				s.Op = opName[sc.op]
			})
			var sched *barrierunit.Schedule
			switch sc.dir {
			case "gather4":
				sched = gatherSchedule()
			case "grid2diag":
				sched = diagSchedule()
			case "single_g0":
				// G = 0: no gate, the unit releases in the arrival cycle.
				// The generator emits G = 1 with a self route for R = 1
				// (single_g1); a user schedule expresses G = 0.
				sched = &barrierunit.Schedule{Ranks: 1, Algo: "none", Gates: 0}
			case "ag4":
				// All-gather of 2 items of IF flits (Hitachi order OM, the
				// default for 2 items), FW 32: the data mode of line_top.
				sys.Collective, sys.Items, sys.ItemFlits = "allgather", 2, sc.flitsPerItem
			}
			if sc.flitsPerItem != 0 && sys.Collective == "" {
				t.Fatalf("data-mode scenario %s has no model equivalent here: add it", sc.name)
			}
			s, err := sim.Build(sys, sched)
			if err != nil {
				t.Fatal(err)
			}
			// The gate counts per node are the scenario's.
			for n := 0; n < nodes; n++ {
				if n < ranks && s.Table.Gates != sc.ng[n] {
					t.Fatalf("node %d: the model has %d gates, the scenario %d", n, s.Table.Gates, sc.ng[n])
				}
				if n >= ranks && sc.ng[n] != 0 {
					t.Fatalf("node %d without a rank has G = %d", n, sc.ng[n])
				}
			}
			mask := new(big.Int).SetUint64(^uint64(0))
			for r := 0; r < ranks; r++ {
				if got := s.Units.NodeOf[r]; int(got) != r {
					t.Fatalf("rank %d on node %d, the smoke top puts it on node %d", r, got, r)
				}
				s.Units.Arrive[r] = int64(sc.arr[r])
				s.Units.Operand[r] = new(big.Int).And(new(big.Int).Rsh(sc.ops, uint(64*r)), mask).Uint64()
			}
			var buf bytes.Buffer
			if _, err := s.Run(sim.Options{Trace: &buf}); err != nil {
				t.Fatal(err)
			}
			want, err := os.ReadFile(filepath.Join("rtl", "test", "expected", sc.name+".trace"))
			if err != nil {
				t.Fatal(err)
			}
			if got := buf.String(); got != string(want) {
				t.Fatalf("model trace:\n%s\nexpected/%s.trace:\n%s", got, sc.name, want)
			}
		})
	}
}
