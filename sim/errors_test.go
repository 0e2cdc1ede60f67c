package sim

import (
	"bytes"
	"encoding/json"
	"errors"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/hxbar/hxbar/barrierunit"
	"github.com/hxbar/hxbar/hw"
)

// TestRunStopsAtAnError: a unit in ERROR (docs/microarchitecture.md,
// "Error paths") makes the run incomplete; it stops once nothing can
// change (not at max_cycles), its error names node, rank, gate, source,
// cycle and code, and the JSON lists the errors. The same run in the
// exhaustive engine (every element every cycle) has the same trace.
func TestRunStopsAtAnError(t *testing.T) {
	sys := hw.Default()
	sys.Dims, sys.Ranks, sys.Algo, sys.Op, sys.Placement = []int{4, 4}, 16, hw.Algorithm("butterfly"), hw.OpName("max"), nil
	if err := sys.Validate(); err != nil {
		t.Fatal(err)
	}
	traces := map[bool]string{}
	for _, exhaustive := range []bool{false, true} {
		s, err := Build(sys, nil)
		if err != nil {
			t.Fatal(err)
		}
		s.exhaustive = exhaustive
		// Rank 5 needs one signal less at gate 3 than it gets.
		st := s.Table.Stride()
		s.Table.Need[5*st+3]--
		u := s.Units
		s.Units = barrierunit.NewUnits(s.Table, u.Op, sys.FlitWidth, u.NodeOf, u.Arrive, u.Operand)
		s.Units.SetNodes(s.Topo.Nodes)
		var buf bytes.Buffer
		res, err := s.Run(Options{Trace: &buf})
		var ue *UnitError
		if !errors.As(err, &ue) {
			t.Fatalf("run error %v, want a *UnitError", err)
		}
		msg := err.Error()
		if !regexp.MustCompile(`^cycle \d+: node 5 \(rank 5\): OVER at gate 3 from rank \d+`).MatchString(msg) {
			t.Fatalf("message %q", msg)
		}
		if res.Complete || len(res.Errors) == 0 || res.Errors[0].Code != "OVER" || res.Errors[0].Rank != 5 || res.Errors[0].Gate != 3 {
			t.Fatalf("result: complete %v, errors %+v", res.Complete, res.Errors)
		}
		lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
		last := lines[len(lines)-1]
		if c, _ := strconv.ParseInt(strings.Fields(last)[0], 10, 64); !exhaustive && (c >= res.Cycles || res.Cycles > c+10) {
			t.Errorf("cycles %d, last event %q (the run stops soon after its last event)", res.Cycles, last)
		}
		if exhaustive && res.Cycles != sys.MaxCycles {
			t.Errorf("exhaustive: cycles %d", res.Cycles)
		}
		if res.Cycles >= sys.MaxCycles && !exhaustive {
			t.Errorf("ran to max_cycles")
		}
		js, err := json.Marshal(res)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(js, []byte(`"errors":[{"cycle":`)) || !bytes.Contains(js, []byte(`"code":"OVER","gate":3,`)) {
			t.Errorf("JSON %s", js)
		}
		traces[exhaustive] = buf.String()
	}
	if traces[false] != traces[true] {
		t.Errorf("the engine's trace differs from the exhaustive one:\n%s\n---\n%s", traces[false], traces[true])
	}
	// A run without an error has no "errors" key.
	res, _ := runTrace(t, sys, false)
	if js, _ := json.Marshal(res); bytes.Contains(js, []byte(`"errors"`)) {
		t.Errorf("complete run: %s", js)
	}
}
