package sim

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/hxbar/hxbar/barrierunit"
	"github.com/hxbar/hxbar/hw"
	"pgregory.net/rapid"
)

func runTrace(t testing.TB, sys hw.System, exhaustive bool) (*Result, string) {
	t.Helper()
	s, err := Build(sys, nil)
	if err != nil {
		t.Fatal(err)
	}
	s.exhaustive = exhaustive
	var buf bytes.Buffer
	res, err := s.Run(Options{Trace: &buf})
	if err != nil {
		t.Fatalf("%+v: %v", sys, err)
	}
	return res, buf.String()
}

func randomSystem(t *rapid.T) hw.System {
	s := hw.Default()
	// One to six dimensions of 2..5, at most 128 nodes in all.
	nd := rapid.IntRange(1, hw.MaxDims).Draw(t, "ndims")
	s.Dims = nil
	for nodes := 1; len(s.Dims) < nd && nodes*2 <= 128; {
		d := rapid.IntRange(2, min(5, 128/nodes)).Draw(t, "dim")
		s.Dims = append(s.Dims, d)
		nodes *= d
	}
	s.Topology = rapid.SampledFrom(hw.Topologies).Draw(t, "topology")
	if s.Topology == "fattree" {
		for i := range s.Dims {
			s.Dims[i] = s.Dims[0]
		}
		for s.Nodes() > 128 {
			s.Dims = s.Dims[:len(s.Dims)-1]
		}
	}
	if s.Topology == "torus" && rapid.Bool().Draw(t, "wrap list") {
		s.Wrap = rapid.SliceOfN(rapid.Bool(), len(s.Dims), len(s.Dims)).Draw(t, "wrap")
	}
	s.Ranks = rapid.IntRange(1, s.Nodes()).Draw(t, "ranks")
	s.Algo = rapid.SampledFrom(hw.Algorithms).Draw(t, "algo")
	ops := hw.Ops
	if s.Algo == "dissemination" {
		ops = []hw.OpName{"barrier", "max", "min", "and", "or"}
	}
	s.Op = rapid.SampledFrom(ops).Draw(t, "op")
	s.Seed = rapid.Uint64().Draw(t, "seed")
	s.Skew = rapid.IntRange(0, 60).Draw(t, "skew")
	s.LinkLatency = rapid.IntRange(1, 4).Draw(t, "L")
	s.BufferDepth = rapid.IntRange(1, 5).Draw(t, "B")
	s.FlitWidth = rapid.SampledFrom([]int{s.HeaderBits() + 8, 32, 64}).Draw(t, "fw")
	if s.FlitWidth < s.HeaderBits() {
		s.FlitWidth = 64
	}
	s.Duplex = rapid.SampledFrom(hw.DuplexModes).Draw(t, "duplex")
	return s
}

// TestBarrierProperties checks, over random systems and seeds, that every
// rank is released, never before the last arrival, with the reduction of
// every operand; and that skipping idle components changes nothing.
func TestBarrierProperties(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		sys := randomSystem(rt)
		res, trace := runTrace(t, sys, false)
		ref, refTrace := runTrace(t, sys, true)
		if trace != refTrace {
			rt.Fatalf("trace with idle skipping differs from the exhaustive reference:\n%s\nvs\n%s", firstDiff(trace, refTrace), "")
		}
		if res.Cycles != ref.Cycles {
			rt.Fatalf("cycles %d vs reference %d", res.Cycles, ref.Cycles)
		}
		op, _ := barrierunit.ParseOp(string(sys.Op))
		want := op.Identity()
		var lastArrive int64
		for _, n := range res.Nodes {
			lastArrive = max(lastArrive, n.Arrive)
		}
		arr := sys.Arrivals()
		for r := range arr {
			if op.HasPayload() {
				want = op.Apply(want, arr[r].Operand)
			}
		}
		wantText := strconv.FormatUint(want, 10)
		if !op.HasPayload() {
			wantText = "" // a barrier carries no value: no result
		}
		for _, n := range res.Nodes {
			if n.Release < 0 {
				rt.Fatalf("rank %d never released", n.Rank)
			}
			if n.Release <= lastArrive && res.Ranks > 1 {
				rt.Fatalf("rank %d released at %d, last arrival at %d", n.Rank, n.Release, lastArrive)
			}
			if n.Result != wantText {
				rt.Fatalf("rank %d result %q, want %q (op %s)", n.Rank, n.Result, wantText, sys.Op)
			}
		}
	})
}

func firstDiff(a, b string) string {
	la, lb := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := 0; i < len(la) && i < len(lb); i++ {
		if la[i] != lb[i] {
			return "line " + strconv.Itoa(i+1) + ": " + la[i] + " | " + lb[i]
		}
	}
	return "lengths differ"
}

func TestDeterministicTrace(t *testing.T) {
	sys := hw.Default()
	sys.Op = "sum"
	_, a := runTrace(t, sys, false)
	_, b := runTrace(t, sys, false)
	if a != b || len(a) == 0 {
		t.Fatal("two runs of one system gave different traces")
	}
	sys.Seed++
	_, c := runTrace(t, sys, false)
	if c == a {
		t.Fatal("a different seed gave the same trace")
	}
}

// TestTwoRankGolden is worked out by hand from docs/microarchitecture.md:
// 2 nodes on a 1-D hyper-crossbar, L = 1. Rank 0 arrives at 0, rank 1 at 3.
func TestTwoRankGolden(t *testing.T) {
	sys := hw.Default()
	sys.Dims, sys.Ranks, sys.Skew = []int{2}, 2, 0
	s, err := Build(sys, nil)
	if err != nil {
		t.Fatal(err)
	}
	s.Units.Arrive[0], s.Units.Arrive[1] = 0, 3
	var buf bytes.Buffer
	if _, err := s.Run(Options{Trace: &buf}); err != nil {
		t.Fatal(err)
	}
	// Rank 0: arrives 0; head flit injected in 1; exchanger 0 -> crossbar in
	// 2; crossbar -> exchanger 1 in 3; exchanger 1 -> ejection FIFO in 4;
	// rank 1 pops it in 5. Rank 1: arrives 3, sends 4, ..., rank 0 pops in 8.
	// Each releases the cycle after its last receive (gate 2 needs 1 route).
	want := `0 n0 arrive rank=0 value=0000000000000000
1 n0 send to=1 gate=2
3 n1 arrive rank=1 value=0000000000000000
4 n1 send to=0 gate=2
5 n1 recv from=0 gate=2 value=0000000000000000
6 n1 release rank=1 value=0000000000000000
8 n0 recv from=1 gate=2 value=0000000000000000
9 n0 release rank=0 value=0000000000000000
`
	if buf.String() != want {
		t.Fatalf("trace:\n%s\nwant:\n%s", buf.String(), want)
	}
}

func TestMaxCyclesNamesTheWaiters(t *testing.T) {
	sys := hw.Default()
	sys.Dims, sys.Ranks, sys.Skew, sys.MaxCycles = []int{4}, 4, 0, 6
	s, err := Build(sys, nil)
	if err != nil {
		t.Fatal(err)
	}
	s.Units.Arrive[3] = 100 // rank 3 arrives after max_cycles
	_, err = s.Run(Options{})
	var stuck *StuckError
	if !errors.As(err, &stuck) {
		t.Fatalf("got %v, want a StuckError", err)
	}
	for _, want := range []string{"rank 3 has not arrived", "rank 1 gate 2 has 0 of 1 routes; waits for rank 3 (at gate 0)"} {
		if !strings.Contains(err.Error(), want) {
			t.Fatalf("error %q does not say %q", err, want)
		}
	}
}

// TestParallelMatchesSequential runs random systems with the cycle shared
// by several workers (forced, whatever the size) and compares the trace with
// the single-worker run. Run it under -race too (make race).
func TestParallelMatchesSequential(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		sys := randomSystem(rt)
		_, want := runTrace(t, sys, false)
		if got, ok := parallelTrace(rt, sys); ok && got != want {
			rt.Fatalf("parallel trace differs: %s", firstDiff(got, want))
		}
	})
}

// parallelTrace runs sys with its cycles shared by 2-4 workers taking one
// bitmap word at a time, and returns the trace; ok is false for a system
// that runs on one worker by design (half-duplex wires between switches of
// a torus or fat tree).
func parallelTrace(rt *rapid.T, sys hw.System) (trace string, ok bool) {
	s, err := Build(sys, nil)
	if err != nil {
		rt.Fatal(err)
	}
	if s.eng.alternate {
		return "", false
	}
	s.eng.workers = rapid.IntRange(2, 4).Draw(rt, "workers")
	s.eng.block = 1
	if rapid.Bool().Draw(rt, "prefetch") {
		s.eng.prefetch = s.prefetch
	}
	var buf bytes.Buffer
	if _, err := s.Run(Options{Trace: &buf}); err != nil {
		rt.Fatal(err)
	}
	return buf.String(), true
}

// TestPrefetchKeepsTrace runs random systems with the engine's prefetch
// stages forced on (they start at prefetchElements elements otherwise),
// on one worker or several, and compares the trace with the run without:
// the prefetch only reads, in the order of the evaluation, and never
// changes which elements are evaluated or in what order.
func TestPrefetchKeepsTrace(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		sys := randomSystem(rt)
		want, wantRes := prefetchTrace(t, sys, false, 1)
		workers := 1
		if rapid.Bool().Draw(rt, "parallel") {
			workers = rapid.IntRange(2, 4).Draw(rt, "workers")
		}
		got, gotRes := prefetchTrace(t, sys, true, workers)
		if got != want {
			rt.Fatalf("trace with prefetch differs: %s", firstDiff(got, want))
		}
		if gotRes != wantRes {
			rt.Fatalf("result with prefetch differs:\n%s\n%s", gotRes, wantRes)
		}
	})
}

func prefetchTrace(t testing.TB, sys hw.System, pf bool, workers int) (trace, result string) {
	s, err := Build(sys, nil)
	if err != nil {
		t.Fatal(err)
	}
	if pf {
		s.eng.prefetch = s.prefetch
	} else {
		s.eng.prefetch = nil
	}
	if workers > 1 && !s.eng.alternate {
		s.eng.workers, s.eng.block = workers, 1
	}
	var buf bytes.Buffer
	res, err := s.Run(Options{Trace: &buf})
	if err != nil {
		t.Fatal(err)
	}
	j, _ := json.Marshal(res)
	return buf.String(), string(j)
}

// TestLongRunRebase: a run whose cycles pass int32 (three episodes, each
// with arrivals skewed over 2^30 cycles) completes with every episode's
// last release within a few hundred cycles of its arrival window, as with
// short skews: the network's 32-bit relative slot cycles are moved along
// (noc.Network.Rebase) by the run loop.
func TestLongRunRebase(t *testing.T) {
	sys := hw.Default()
	sys.Skew, sys.Repeat, sys.MaxCycles = 1<<30, 3, 1<<40
	s, err := Build(sys, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := s.Run(Options{})
	if err != nil || !res.Complete {
		t.Fatalf("complete %v, err %v", res != nil && res.Complete, err)
	}
	if len(res.Episodes) != 3 || res.Episodes[2].LastRelease < 1<<31 {
		t.Fatalf("episodes %+v: want 3, the last past 2^31", res.Episodes)
	}
	if e := s.Net.Epoch(); e < 1<<31 {
		t.Errorf("the network's epoch is %d after a run past 2^31: not rebased", e)
	}
	for _, e := range res.Episodes {
		if d := e.LastRelease - e.FirstArrival; d < 20 || d > 1<<30+500 {
			t.Errorf("episode %d: first arrival %d, last release %d", e.Episode, e.FirstArrival, e.LastRelease)
		}
	}
}
