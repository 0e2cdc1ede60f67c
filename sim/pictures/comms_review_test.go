package pictures

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/hxbar/hxbar/barrierunit"
	"github.com/hxbar/hxbar/hw"
	"github.com/hxbar/hxbar/sim"
)

// TestCommunicatorsPictures: in a run of communicators a node hosts a
// rank per channel, and the Chrome trace and the timeline put every gate,
// send and recv on the rank of the channel that acted (not on the node's
// last rank): each rank has its G gate waits per iteration, and a message
// joins two ranks of one communicator. Thread names say whose rank it is.
func TestCommunicatorsPictures(t *testing.T) {
	sys := hw.Default()
	sys.Channels, sys.Skew = 2, 0
	it := 3
	sys.Communicators = []hw.Communicator{{Name: "rows", Split: "dim:0", Iterations: &it}, {Name: "pair", Ranks: []int{0, 5}, Iterations: &it}}
	sys.Name = "comms"
	tlb, cb, _, res := pics(t, sys)
	if !res.Complete || len(tlb) == 0 {
		t.Fatalf("run: %s", res.Stop)
	}
	commOf := map[int]string{}
	gates := map[string]int{"rows": 2, "pair": 1} // butterfly on 4 and 2 ranks
	for _, n := range res.Nodes {                 // "rows.1" -> "rows", "pair" stays
		if c := n.Communicator; len(c) > 4 && c[4] == '.' {
			commOf[n.Rank] = c[:4]
		} else {
			commOf[n.Rank] = c
		}
	}
	var tr struct {
		TraceEvents []struct {
			Name string         `json:"name"`
			Cat  string         `json:"cat"`
			Tid  int            `json:"tid"`
			Args map[string]any `json:"args"`
		} `json:"traceEvents"`
	}
	if err := json.Unmarshal(cb, &tr); err != nil {
		t.Fatal(err)
	}
	waits := map[int]int{}
	named := 0
	for _, e := range tr.TraceEvents {
		switch {
		case e.Name == "thread_name":
			if name, _ := e.Args["name"].(string); len(name) > 0 && strings.Contains(name, commOf[e.Tid]) {
				named++
			}
		case e.Cat == "gate":
			waits[e.Tid]++
		case e.Name == "send" || e.Name == "recv":
			peer := e.Args["to"]
			if e.Name == "recv" {
				peer = e.Args["from"]
			}
			if p := int(peer.(float64)); commOf[p] != commOf[e.Tid] {
				t.Fatalf("%s on rank %d (%s) with rank %d (%s)", e.Name, e.Tid, commOf[e.Tid], p, commOf[p])
			}
		}
	}
	if named != len(res.Nodes) {
		t.Errorf("%d of %d thread names name their communicator", named, len(res.Nodes))
	}
	for _, n := range res.Nodes {
		if want := gates[commOf[n.Rank]] * it; waits[n.Rank] != want {
			t.Errorf("rank %d (%s): %d gate waits in the trace, want %d", n.Rank, n.Communicator, waits[n.Rank], want)
		}
	}
	// The timeline's messages, likewise.
	s, err := sim.Build(sys, nil)
	if err != nil {
		t.Fatal(err)
	}
	tl := NewTimeline(RunOf(s, "x"))
	s.Run(sim.Options{Events: tl.Add})
	for _, e := range tl.evs {
		if (e.kind == barrierunit.EvSend || e.kind == barrierunit.EvRecv) && commOf[int(e.rank)] != commOf[int(e.peer)] {
			t.Fatalf("timeline: a message between rank %d (%s) and rank %d (%s)", e.rank, commOf[int(e.rank)], e.peer, commOf[int(e.peer)])
		}
	}
}

// TestCommunicatorsTimelineErrors: in a run of communicators the
// timeline marks each unit error on the row of the rank that raised it
// (a stuck rank 5 times out rows.1 and cols.1 ranks on the same nodes),
// not on the node's last rank.
func TestCommunicatorsTimelineErrors(t *testing.T) {
	s := buildRowsCols(t, func(sys *hw.System) {
		sys.Skew, sys.Watchdog, sys.Faults = 0, 100, []string{"stuck:5"}
	})
	tl := NewTimeline(RunOf(s, "x"))
	res, _ := s.Run(sim.Options{Events: tl.Add})
	if len(res.Errors) < 4 || len(tl.errs) != len(res.Errors) {
		t.Fatalf("%d errors, %d error events", len(res.Errors), len(tl.errs))
	}
	got := map[int32]int{}
	for _, r := range tl.errorRanks(res) {
		got[r]++
	}
	want := map[int32]int{}
	rowsOnly := false
	for _, e := range res.Errors {
		want[int32(e.Rank)]++
		rowsOnly = rowsOnly || e.Rank < 16 // a rows rank: not the last rank of its node
	}
	if !rowsOnly || len(got) != len(want) {
		t.Fatalf("error rows %v, want the raising ranks %v", got, want)
	}
	for r, n := range want {
		if got[r] != n {
			t.Fatalf("error rows %v, want the raising ranks %v", got, want)
		}
	}
}
