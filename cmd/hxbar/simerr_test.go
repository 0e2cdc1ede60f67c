package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/hxbar/hxbar/barrierunit"
	"github.com/hxbar/hxbar/hw"
	"github.com/hxbar/hxbar/internal/version"
	"github.com/hxbar/hxbar/sim"
)

// A run with a unit error (docs/microarchitecture.md, "Error paths"): the
// table says so, the JSON lists the errors (the streamed writer matches
// encoding/json), and the command's error is the one-line message.
func TestSimOutputsOfAnError(t *testing.T) {
	sys := hw.Default()
	sys.Dims, sys.Ranks, sys.Placement = []int{2, 2}, 4, nil
	if err := sys.Validate(); err != nil {
		t.Fatal(err)
	}
	s, err := sim.Build(sys, nil)
	if err != nil {
		t.Fatal(err)
	}
	// Rank 0 needs one signal less at gate 2 than it gets.
	s.Table.Need[0*s.Table.Stride()+2]--
	u := s.Units
	s.Units = barrierunit.NewUnits(s.Table, u.Op, sys.FlitWidth, u.NodeOf, u.Arrive, u.Operand)
	s.Units.SetNodes(s.Topo.Nodes)
	res, runErr := s.Run(sim.Options{})
	var ue *sim.UnitError
	if !errors.As(runErr, &ue) || !strings.HasPrefix(runErr.Error(), "cycle ") || !strings.Contains(runErr.Error(), ": node 0 (rank 0): OVER at gate 2 (found by the gate check: no source)") || strings.Contains(runErr.Error(), "from rank") {
		t.Fatalf("run error %v", runErr)
	}
	var tab bytes.Buffer
	if err := printSim(&tab, s, res); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(tab.String(), "unit errors, the first OVER at node 0 cycle") {
		t.Errorf("table:\n%s", tab.String())
	}
	var js, ref bytes.Buffer
	if err := writeSimJSON(&js, res); err != nil {
		t.Fatal(err)
	}
	if err := encodeIndented(&ref, simJSONOut{version.String(), res}); err != nil {
		t.Fatal(err)
	}
	if js.String() != ref.String() {
		t.Errorf("streamed JSON differs from encoding/json")
	}
	var back struct {
		Complete bool `json:"complete"`
		Errors   []struct {
			Cycle            int64
			Node, Rank, Gate int
			From             int
			Code             string
		} `json:"errors"`
	}
	if err := json.Unmarshal(js.Bytes(), &back); err != nil {
		t.Fatal(err)
	}
	if back.Complete || len(back.Errors) == 0 || back.Errors[0].Code != "OVER" || back.Errors[0].Node != 0 || back.Errors[0].Gate != 2 {
		t.Errorf("JSON: %+v", back)
	}
}
