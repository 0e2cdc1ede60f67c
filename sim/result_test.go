package sim

import (
	"encoding/json"
	"errors"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/hxbar/hxbar/hw"
)

// A run stopped by max_cycles says so: complete false, the ranks released,
// and cycles = max_cycles (never an arrival past it the loop skipped to).
func TestIncompleteRunSaysSo(t *testing.T) {
	for _, mc := range []int64{1, 2, 30, 45} {
		sys := hw.Default() // arrivals skewed over 0..40, first at cycle 3
		sys.MaxCycles = mc
		s, err := Build(sys, nil)
		if err != nil {
			t.Fatal(err)
		}
		res, err := s.Run(Options{})
		if _, ok := errors.AsType[*StuckError](err); !ok {
			t.Fatalf("max_cycles %d: %v, want a StuckError", mc, err)
		}
		released := 0
		for _, n := range res.Nodes {
			if n.Release >= 0 {
				released++
			}
		}
		if res.Complete || res.Cycles != mc || res.Released != released || released == res.Ranks {
			t.Fatalf("max_cycles %d: complete %v, cycles %d, released %d (counted %d)", mc, res.Complete, res.Cycles, res.Released, released)
		}
	}
	s, err := Build(hw.Default(), nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := s.Run(Options{})
	if err != nil || !res.Complete || res.Released != res.Ranks || res.Cycles > hw.Default().MaxCycles {
		t.Fatalf("complete run: %v, %+v", err, res)
	}
}

// A step of an incomplete data run is done only when every rank passed its
// gate: otherwise done is -1, not the cycle of the latest rank so far.
func TestIncompleteDataRunStepsNotDone(t *testing.T) {
	sys := hw.Default()
	sys.Collective, sys.Items, sys.ItemFlits = "allgather", 4, 64
	s, err := Build(sys, nil)
	if err != nil {
		t.Fatal(err)
	}
	full, err := s.Run(Options{})
	if err != nil {
		t.Fatal(err)
	}
	last := full.Steps[len(full.Steps)-1]
	s, _ = Build(sys, nil)
	s.Sys.MaxCycles = last.Done // the last step's gate is passed by the last rank in cycle Done
	res, _ := s.Run(Options{})
	if res.Complete {
		t.Fatalf("complete at max_cycles %d", last.Done)
	}
	for i, st := range res.Steps {
		if want := full.Steps[i].Done; i < len(res.Steps)-1 && st.Done != want || i == len(res.Steps)-1 && st.Done != -1 {
			t.Errorf("step %d: done %d (complete run: %d)", st.Step, st.Done, want)
		}
	}
}

// TestMetricsWithoutSentinels: a stuck rank and a run stopped by max_cycles
// have no last arrival, latency or release spread (ok false, JSON null),
// and the JSON of a node that never arrives or is never released holds
// null, never a sentinel number; what MarshalJSON writes reads back.
func TestMetricsWithoutSentinels(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(*hw.System)
	}{
		{"stuck rank", func(s *hw.System) { s.Faults = []string{"stuck:3"}; s.MaxCycles = 400 }},
		{"max_cycles", func(s *hw.System) { s.MaxCycles = 30 }},
		{"arrival after the stop", func(s *hw.System) { s.Skew = 500; s.Seed = 3; s.MaxCycles = 100 }},
	} {
		sys := hw.Default()
		tc.edit(&sys)
		s, err := Build(sys, nil)
		if err != nil {
			t.Fatal(err)
		}
		res, _ := s.Run(Options{})
		if res.Complete {
			t.Fatalf("%s: complete", tc.name)
		}
		if _, ok := res.Latency(); ok {
			t.Fatalf("%s: a latency", tc.name)
		}
		if _, ok := res.ReleaseSpread(); ok {
			t.Fatalf("%s: a release spread", tc.name)
		}
		if c, ok := res.LastArrival(); ok {
			t.Fatalf("%s: last arrival %d in a run of %d cycles where a rank did not arrive", tc.name, c, res.Cycles)
		}
		data, err := json.Marshal(res)
		if err != nil {
			t.Fatal(err)
		}
		for _, key := range []string{`"latency":null`, `"release_spread":null`, `"last_arrival":null`, `"release":null`} {
			if !strings.Contains(string(data), key) {
				t.Fatalf("%s: JSON lacks %s", tc.name, key)
			}
		}
		if strings.Contains(string(data), "9223372036854775807") || strings.Contains(string(data), ":-1") {
			t.Fatalf("%s: a sentinel in the JSON", tc.name)
		}
		var back Result
		if err := json.Unmarshal(data, &back); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(back.Nodes, res.Nodes) || !reflect.DeepEqual(back.Episodes, res.Episodes) {
			t.Fatalf("%s: nodes or episodes changed in a JSON round trip", tc.name)
		}
	}
}

// TestRunEndsWhenNoUnitCanAct: a run whose waiting units all time out while
// a stuck rank never arrives ends at the cycle after its last error and
// says so (Stop no_progress), not at max_cycles; the trace has no event at
// or past that cycle. Complete and max_cycles runs say why they stopped.
func TestRunEndsWhenNoUnitCanAct(t *testing.T) {
	sys := hw.Default()
	sys.Faults, sys.Watchdog = []string{"stuck:7"}, 100
	s, err := Build(sys, nil)
	if err != nil {
		t.Fatal(err)
	}
	var trace strings.Builder
	res, err := s.Run(Options{Trace: &trace})
	ue, ok := errors.AsType[*UnitError](err)
	if !ok {
		t.Fatalf("run error %v, want a *UnitError", err)
	}
	if len(ue.Errors) != sys.NumRanks()-1 {
		t.Fatalf("%d unit errors, want every waiting rank's TIMEOUT (%d)", len(ue.Errors), sys.NumRanks()-1)
	}
	last := ue.Errors[len(ue.Errors)-1].Cycle
	if res.Stop != StopNoProgress || res.Complete || res.Cycles != last+1 {
		t.Fatalf("stop %q, complete %v, cycles %d; want no_progress at cycle %d (last TIMEOUT + 1)", res.Stop, res.Complete, res.Cycles, last+1)
	}
	lines := strings.Split(strings.TrimSpace(trace.String()), "\n")
	if f := strings.Fields(lines[len(lines)-1]); f[0] != strconv.FormatInt(last, 10) {
		t.Fatalf("last trace line %q, want cycle %d", lines[len(lines)-1], last)
	}
	if data, _ := json.Marshal(res); !strings.Contains(string(data), `"stop":"no_progress"`) {
		t.Fatalf("JSON lacks the stop reason: %.200s", data)
	}

	for _, tc := range []struct {
		maxCycles int64
		want      string
	}{{hw.Default().MaxCycles, StopComplete}, {30, StopMaxCycles}} {
		sys := hw.Default()
		sys.MaxCycles = tc.maxCycles
		s, err := Build(sys, nil)
		if err != nil {
			t.Fatal(err)
		}
		if res, _ := s.Run(Options{}); res.Stop != tc.want {
			t.Errorf("max_cycles %d: stop %q, want %q", tc.maxCycles, res.Stop, tc.want)
		}
	}
}

// hw.Default() with new Dims runs every node: Ranks 0 is one rank a node,
// in a program as in a file, so 8x8 runs 64 ranks, every one released.
func TestDefaultWithDimsRunsEveryNode(t *testing.T) {
	sys := hw.Default()
	sys.Dims = []int{8, 8}
	s, err := Build(sys, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := s.Run(Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Ranks != 64 || len(res.Nodes) != 64 || res.Released != 64 || !res.Complete || res.Nodes[63].Node != 63 {
		t.Fatalf("ranks %d, nodes %d, released %d, complete %v: want 64 ranks on 64 nodes", res.Ranks, len(res.Nodes), res.Released, res.Complete)
	}
}

// TestStuckRunStopsWhenNothingCanHappen: a run without a unit error in
// which ranks wait for good (a rank that never arrives) and no watchdog can
// fire ends at the cycle after its last event with Stop no_progress and a
// *StuckError that says who waits for whom, not at max_cycles. A watchdog
// whose deadline is ahead still fires; one past max_cycles leaves the run
// to max_cycles; a live run with long idle gaps (large skew) completes.
func TestStuckRunStopsWhenNothingCanHappen(t *testing.T) {
	sys := hw.Default()
	sys.Faults = []string{"stuck:7"}
	s, err := Build(sys, nil)
	if err != nil {
		t.Fatal(err)
	}
	var trace strings.Builder
	res, err := s.Run(Options{Trace: &trace})
	se, ok := errors.AsType[*StuckError](err)
	if !ok {
		t.Fatalf("run error %v, want a *StuckError", err)
	}
	lines := strings.Split(strings.TrimSpace(trace.String()), "\n")
	last, _ := strconv.ParseInt(strings.Fields(lines[len(lines)-1])[0], 10, 64)
	if res.Stop != StopNoProgress || res.Complete || res.Cycles != last+1 || se.At != res.Cycles {
		t.Fatalf("stop %q, complete %v, cycles %d, at %d; want no_progress at cycle %d (last event + 1)", res.Stop, res.Complete, res.Cycles, se.At, last+1)
	}
	want := "stuck: nothing can happen after cycle " + strconv.FormatInt(last, 10) + ": "
	if msg := err.Error(); !strings.HasPrefix(msg, want) || !strings.Contains(msg, "rank 7 has not arrived") {
		t.Fatalf("message %q, want it to start %q and name rank 7", msg, want)
	}
	data, _ := json.Marshal(res)
	if !strings.Contains(string(data), `"stop":"no_progress"`) || !strings.Contains(string(data), `"waiting":["rank 0 gate`) {
		t.Fatalf("JSON lacks the stop reason or the waits: %.300s", data)
	}

	for _, tc := range []struct {
		watchdog, maxCycles int64
		want                string
	}{{100, 1000000, StopNoProgress}, {5000, 1000, StopMaxCycles}} {
		sys.Watchdog, sys.MaxCycles = tc.watchdog, tc.maxCycles
		s, err := Build(sys, nil)
		if err != nil {
			t.Fatal(err)
		}
		res, err := s.Run(Options{})
		_, unit := errors.AsType[*UnitError](err)
		if res.Stop != tc.want || unit != (tc.want == StopNoProgress) || tc.want == StopMaxCycles && res.Cycles != tc.maxCycles {
			t.Errorf("watchdog %d, max_cycles %d: stop %q, cycles %d, err %v; want %s", tc.watchdog, tc.maxCycles, res.Stop, res.Cycles, err, tc.want)
		}
	}

	live := hw.Default()
	live.Skew = 500000 // arrivals hundreds of thousands of idle cycles apart
	s, err = Build(live, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res, err := s.Run(Options{}); err != nil || !res.Complete || res.Stop != StopComplete || res.Cycles < 100000 {
		t.Fatalf("large skew: %v, stop %q, cycles %d", err, res.Stop, res.Cycles)
	}
}

// A rank that is not released has no result: Result is "" and the JSON
// null, never a made-up 0 (issue 25: no sentinel numbers); a released
// rank's result is its reduction.
func TestUnreleasedRankHasNoResult(t *testing.T) {
	sys := hw.Default()
	sys.Op = hw.OpSum
	sys.Faults = []string{"stuck:7"}
	sys.Watchdog = 100
	s, err := Build(sys, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, _ := s.Run(Options{})
	for _, n := range res.Nodes {
		if n.Release >= 0 {
			t.Fatalf("rank %d released with rank 7 stuck", n.Rank)
		}
		if n.Result != "" {
			t.Errorf("rank %d, not released: result %q, want none", n.Rank, n.Result)
		}
		b, err := json.Marshal(n)
		if err != nil || !strings.Contains(string(b), `"result":null`) {
			t.Errorf("rank %d: JSON %s (%v), want result null", n.Rank, b, err)
		}
		var back NodeResult
		if err := json.Unmarshal(b, &back); err != nil || !reflect.DeepEqual(back, n) {
			t.Errorf("rank %d: %+v read back as %+v (%v)", n.Rank, n, back, err)
		}
	}
	sys.Faults, sys.Watchdog = nil, 0
	s, err = Build(sys, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err = s.Run(Options{})
	if err != nil || res.Nodes[0].Result == "" {
		t.Fatalf("complete run: %v, rank 0 result %q", err, res.Nodes[0].Result)
	}
}

// A unit error at a node without a rank (NORANK, a misrouted head) has
// rank null in the JSON, not -1, and reads back.
func TestErrorWithoutRankJSON(t *testing.T) {
	sys := hw.Default()
	sys.Op, sys.Ranks = hw.OpSum, 8
	sys.Faults = []string{"flip:n4.d0.up@first:3"}
	s, err := Build(sys, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, _ := s.Run(Options{})
	if len(res.Errors) == 0 || res.Errors[0].Code != "NORANK" || res.Errors[0].Rank != -1 {
		t.Fatalf("errors %+v: want a NORANK error first", res.Errors)
	}
	b, err := json.Marshal(res.Errors[0])
	if err != nil || !strings.Contains(string(b), `"rank":null`) {
		t.Errorf("NORANK error: %s (%v), want rank null", b, err)
	}
	var back ErrorResult
	if err := json.Unmarshal(b, &back); err != nil || back != res.Errors[0] {
		t.Errorf("%+v read back as %+v (%v)", res.Errors[0], back, err)
	}
	b, _ = json.Marshal(res.Faults[0])
	if !strings.Contains(string(b), `"detected_by":{"cycle":`) || strings.Contains(string(b), `"rank":-1`) {
		t.Errorf("fault: %s", b)
	}
}

// A run in which no rank ever arrives (every rank stuck) has no first
// arrival: null in the JSON, not MaxInt64.
func TestNoArrivalNoFirstArrival(t *testing.T) {
	sys := hw.Default()
	sys.Ranks, sys.MaxCycles = 2, 5000
	sys.Faults = []string{"stuck:0", "stuck:1"}
	s, err := Build(sys, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := s.Run(Options{})
	if _, ok := errors.AsType[*StuckError](err); !ok || res.Stop != StopNoProgress || res.Cycles != 1 {
		t.Errorf("every rank stuck: stop %q after %d cycles (%v); want no_progress at once, not max_cycles", res.Stop, res.Cycles, err)
	}
	b, err := json.Marshal(res.Episodes)
	if err != nil || !strings.Contains(string(b), `"first_arrival":null`) {
		t.Errorf("episodes %s (%v), want first_arrival null", b, err)
	}
	var back []EpisodeResult
	if err := json.Unmarshal(b, &back); err != nil || !reflect.DeepEqual(back, res.Episodes) {
		t.Errorf("%+v read back as %+v (%v)", res.Episodes, back, err)
	}
}

// A run in which no flit crossed a network channel has no busiest
// channel: "" in Go, null in the JSON, not the first channel with load 0.
func TestNoFlitNoBusiestChannel(t *testing.T) {
	sys := hw.Default()
	sys.Ranks = 2
	sys.Faults = []string{"stuck:0", "stuck:1"}
	s, err := Build(sys, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, _ := s.Run(Options{})
	b, _ := json.Marshal(res.Network)
	if res.Network.FlitHops != 0 || res.Network.Busiest != "" || !strings.Contains(string(b), `"busiest_channel":null,"busiest_channel_load":null`) {
		t.Errorf("no flit: busiest %q, JSON %s", res.Network.Busiest, b)
	}
	var back NetStats
	if err := json.Unmarshal(b, &back); err != nil || back != res.Network {
		t.Errorf("%+v read back as %+v (%v)", res.Network, back, err)
	}
}

// TestNoValueIsNull: a barrier carries no value, so its ranks' operand
// and result are null, not a made-up "0"; an error that concerns no gate
// has gate and from null (a from of 0 would name rank 0); both read back.
func TestNoValueIsNull(t *testing.T) {
	sys := hw.Default()
	s, err := Build(sys, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, _ := s.Run(Options{})
	b, err := json.Marshal(res.Nodes[3])
	if err != nil || !strings.Contains(string(b), `"operand":null`) || !strings.Contains(string(b), `"result":null`) || !strings.Contains(string(b), `"release":`) {
		t.Fatalf("barrier rank: %s (%v), want operand and result null", b, err)
	}
	for _, e := range []ErrorResult{{Cycle: 5, Node: 2, Rank: 2, Code: "FLITS"}, {Cycle: 9, Node: 1, Rank: 1, Code: "TIMEOUT", Gate: 3, From: 0},
		{Cycle: 7, Node: 0, Rank: 0, Code: "OVER", Gate: 2, NoFrom: true}} {
		b, err := json.Marshal(e)
		if err != nil || strings.Contains(string(b), `"gate":null`) != (e.Gate == 0) || strings.Contains(string(b), `"from":null`) != (e.Gate == 0 || e.NoFrom) {
			t.Errorf("%+v: %s (%v)", e, b, err)
		}
		var back ErrorResult
		if err := json.Unmarshal(b, &back); err != nil || back != e {
			t.Errorf("%+v read back as %+v (%v)", e, back, err)
		}
	}
}

// TestErrorResultWhere: an error's place names its gate and source as the
// run's message does, and no source when the JSON has from null.
func TestErrorResultWhere(t *testing.T) {
	for e, want := range map[ErrorResult]string{
		{Code: "OVER", Gate: 2, From: 4}:              " at gate 2 from rank 4",
		{Code: "OVER", Gate: 2, NoFrom: true}:         " at gate 2 (found by the gate check: no source)",
		{Code: "BADGATE", Gate: 0, From: 0, Rank: -1}: "",
	} {
		if got := e.Where(); got != want {
			t.Errorf("%+v: %q, want %q", e, got, want)
		}
	}
}

// TestDetectedByNeedsASource: an error that names no source (an OVER the
// gate check found, an error of no gate: From 0, JSON from null) is not
// taken as the report of a fault of rank 0; one naming rank 0 is.
func TestDetectedByNeedsASource(t *testing.T) {
	f := &FaultResult{Spec: "stuck:0"}
	none := []ErrorResult{{Code: "OVER", Gate: 2, NoFrom: true}, {Code: "BADGATE", Rank: -1}}
	if got := new(System).detectedBy(f, none); got != nil {
		t.Errorf("stuck:0 detected by %+v, which names no source", *got)
	}
	named := append(none, ErrorResult{Code: "TIMEOUT", Gate: 3, From: 0})
	if got := new(System).detectedBy(f, named); got == nil || got.Code != "TIMEOUT" {
		t.Errorf("stuck:0 detected by %v, want the TIMEOUT from rank 0", got)
	}
}

// TestNodeArrivedReleased: a rank's arrival and release come with an ok
// bool, false for a stuck rank (never arrives) and for a rank not
// released, so a program need not compare with Never or -1.
func TestNodeArrivedReleased(t *testing.T) {
	sys := hw.Default()
	sys.Faults = []string{"stuck:3"}
	s, err := Build(sys, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, _ := s.Run(Options{})
	if _, ok := res.Nodes[3].Arrived(); ok {
		t.Errorf("stuck rank 3: Arrived ok")
	}
	if c, ok := res.Nodes[0].Arrived(); !ok || c != res.Nodes[0].Arrive {
		t.Errorf("rank 0: Arrived %d, %v", c, ok)
	}
	if _, ok := res.Nodes[3].Released(); ok || res.Complete {
		t.Errorf("stuck run: rank 3 released, or the run complete")
	}
	fine, err := Build(hw.Default(), nil)
	if err != nil {
		t.Fatal(err)
	}
	res2, err := fine.Run(Options{})
	if err != nil {
		t.Fatal(err)
	}
	if c, ok := res2.Nodes[5].Released(); !ok || c != res2.Nodes[5].Release {
		t.Errorf("complete run: rank 5 Released %d, %v", c, ok)
	}
}
