package pictures

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/hxbar/hxbar/barrierunit"
	"github.com/hxbar/hxbar/hw"
	"github.com/hxbar/hxbar/sim"
)

// TestTimelineCommunicators: in a run of communicators every event of the
// timeline sits on a rank of the communicator it belongs to (a node hosts
// one rank per channel, so the node alone does not say which), each
// entry's messages get their colour and name, ranks are labelled
// communicator/rank, and a loop's iteration ends are marked.
func TestTimelineCommunicators(t *testing.T) {
	s := buildRowsCols(t, func(sys *hw.System) {
		it := 3
		sys.Skew, sys.Communicators[0].Iterations = 7, &it
	})
	run := RunOf(s, "x")
	tl := NewTimeline(run)
	res, err := s.Run(sim.Options{Events: tl.Add})
	if err != nil {
		t.Fatal(err)
	}
	msgs := 0
	for _, e := range tl.evs {
		switch e.kind {
		case barrierunit.EvSend, barrierunit.EvRecv:
			msgs++
			if run.CommOf[e.rank] != run.CommOf[e.peer] {
				t.Fatalf("a message between ranks %d (%s) and %d (%s)", e.rank, run.CommNames[run.CommOf[e.rank]], e.peer, run.CommNames[run.CommOf[e.peer]])
			}
		}
		if int(run.NodeOf[e.rank]) < 0 {
			t.Fatalf("event %+v on no rank", e)
		}
	}
	if msgs == 0 {
		t.Fatal("no messages recorded")
	}
	var b bytes.Buffer
	if err := tl.WriteSVG(&b, res); err != nil {
		t.Fatal(err)
	}
	if err := checkXML(b.Bytes()); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"rows messages", "cols messages", "rows.1/2", "cols.3/0", "iteration end"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("the timeline has no %q", want)
		}
	}
}

// TestChromeCommunicators: the Chrome trace of a run of communicators
// names each thread by communicator and rank, and every message flow
// starts and ends on ranks of one communicator.
func TestChromeCommunicators(t *testing.T) {
	s := buildRowsCols(t, nil)
	run := RunOf(s, "x")
	var b bytes.Buffer
	c := NewChrome(&b, run)
	res, err := s.Run(sim.Options{Events: c.Add})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Close(res); err != nil {
		t.Fatal(err)
	}
	if err := checkChrome(b.Bytes(), len(run.NodeOf)); err != nil {
		t.Fatal(err)
	}
	var tr struct {
		TraceEvents []chromeEvent `json:"traceEvents"`
	}
	if err := json.Unmarshal(b.Bytes(), &tr); err != nil {
		t.Fatal(err)
	}
	start := map[uint64]int32{}
	flows := 0
	for _, e := range tr.TraceEvents {
		switch e.Ph {
		case "s":
			start[e.ID] = e.Tid
		case "f":
			flows++
			if run.CommOf[start[e.ID]] != run.CommOf[e.Tid] {
				t.Fatalf("flow %d from rank %d to rank %d crosses communicators", e.ID, start[e.ID], e.Tid)
			}
		case "M":
			if e.Name == "thread_name" && e.Tid == 17 && e.Args["name"] != "rank 17 (node 4): cols.0 rank 1, system rank 4, channel 1" {
				t.Errorf("thread 17 is %v, want rank 17 (node 4): cols.0 rank 1, system rank 4, channel 1", e.Args["name"])
			}
		}
	}
	if flows == 0 {
		t.Fatal("no message flows")
	}
}

// TestChromeCommunicatorErrors: in a run of communicators a unit's error
// goes on the thread of the channel that raised it (the node has a
// thread per channel), found through the result's errors.
func TestChromeCommunicatorErrors(t *testing.T) {
	s := buildRowsCols(t, func(sys *hw.System) {
		sys.Watchdog, sys.Faults = 100, []string{"stuck:5"}
	})
	run := RunOf(s, "x")
	var b bytes.Buffer
	c := NewChrome(&b, run)
	res, _ := s.Run(sim.Options{Events: c.Add})
	if err := c.Close(res); err != nil {
		t.Fatal(err)
	}
	var tr struct {
		TraceEvents []chromeEvent `json:"traceEvents"`
	}
	if err := json.Unmarshal(b.Bytes(), &tr); err != nil {
		t.Fatal(err)
	}
	want := map[int32]bool{} // the ranks that timed out
	for _, e := range res.Errors {
		if e.Code == "TIMEOUT" {
			want[int32(e.Rank)] = true
		}
	}
	got := map[int32]bool{}
	for _, e := range tr.TraceEvents {
		if e.Cat == "error" {
			if e.S != "t" {
				t.Fatalf("error %s at cycle %d on the process, want the thread of its channel", e.Name, e.Ts)
			}
			got[e.Tid] = true
		}
	}
	if len(want) == 0 || len(got) != len(want) {
		t.Fatalf("errors on threads %v, want the ranks that raised them %v", got, want)
	}
	for r := range want {
		if !got[r] {
			t.Errorf("rank %d timed out but its thread has no error", r)
		}
	}
}

// buildRowsCols builds the rows and columns of a 4x4 on two channels, the
// system the communicator picture tests share, after set changes it.
func buildRowsCols(t *testing.T, set func(*hw.System)) *sim.System {
	t.Helper()
	sys := hw.Default()
	sys.Dims, sys.Channels = []int{4, 4}, 2
	sys.Communicators = []hw.Communicator{{Name: "rows", Split: "dim:0"}, {Name: "cols", Split: "dim:1"}}
	if set != nil {
		set(&sys)
	}
	s, err := sim.Build(sys, nil)
	if err != nil {
		t.Fatal(err)
	}
	return s
}
