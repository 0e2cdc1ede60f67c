package sim_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/hxbar/hxbar/hw"
	"github.com/hxbar/hxbar/sim"
)

// TestChannelErrorMidPacket: a flip that puts a rows channel in ERROR
// (a head's gate bit inverted at a node's ejection) never stops the
// columns: for every cycle of the rows' exchanges, the columns complete.
// Some of these errors strike a channel in the middle of a 5-flit sum
// packet it is sending; it finishes that packet (docs/microarchitecture.md,
// "Error paths"), where a half packet would hold the node's ejection path
// and starve the columns' signals to it (cols.0 timed out so at
// flip:n1.eject@82:13 before).
func TestChannelErrorMidPacket(t *testing.T) {
	sum := hw.OpName("sum")
	it := 3
	build := func(fault string, maxCycles int64) *sim.System {
		s, _ := buildRowsCols(t, func(sys *hw.System) {
			sys.FlitWidth, sys.Skew, sys.Watchdog = 16, 30, 300
			sys.Communicators[0].Op, sys.Communicators[0].Iterations = &sum, &it
			sys.Communicators[1].Iterations = &it
			sys.Faults = []string{fault}
			if maxCycles > 0 {
				sys.MaxCycles = maxCycles
			}
		})
		return s
	}
	midPacket, runs := 0, 0
	for node := range 4 {
		for c := int64(0); c < 90; c++ {
			// bit 13: the gate field's top bit (AB 4 + RB 5 + 4), a BADGATE.
			fault := fmt.Sprintf("flip:n%d.eject@%d:13", node, c)
			s := build(fault, 0)
			res, _ := s.Run(sim.Options{})
			f := res.Faults[0]
			if f.Packet == nil || f.Packet.Flit == "payload" || len(res.Errors) == 0 {
				continue
			}
			if k, _, _ := s.RankComm(f.Packet.Src); !strings.HasPrefix(s.Comms()[k].Name, "rows") {
				continue // a column's packet hit: not this test's case
			}
			runs++
			for _, cr := range res.Communicators {
				if strings.HasPrefix(cr.Name, "cols") && (len(cr.Iterations) != it || cr.Iterations[it-1].LastRelease == nil) {
					t.Fatalf("%s: %s did not complete: %+v (errors %+v)", fault, cr.Name, cr.Iterations, res.Errors)
				}
			}
			// Was the failed unit in the middle of a packet? Run again to
			// the end of the error's cycle and look.
			e := res.Errors[0]
			s2 := build(fault, e.Cycle+1)
			if _, err := s2.Run(sim.Options{}); err != nil && s2.Units == nil {
				t.Fatal(err)
			}
			if _, flit := s2.Units.Sending(int(e.Rank)); flit != 0 && !s2.Units.SendDone(int(e.Rank)) {
				midPacket++
			}
		}
	}
	t.Logf("%d runs with a rows packet hit, %d of them in the middle of a packet", runs, midPacket)
	if midPacket == 0 {
		t.Fatalf("none of %d runs put a unit in ERROR in the middle of a packet: the test does not reach its case", runs)
	}
}

// TestNoSourceErrorNamesChannelBase: an error with no source (a flit with
// no packet open: FLITS, gate 0) raised by a channel of job b (run ranks
// 8..15) names rank 0 of that communicator in run ranks, 8, as the RTL's
// register (source 0) plus the testbench's base does; 0 would be job a's
// rank and put the event on the wrong channel. The co-simulation of this
// case is TestCosimChannels/two-jobs-headless.
func TestNoSourceErrorNamesChannelBase(t *testing.T) {
	sys := hw.Default()
	sys.Dims, sys.Channels, sys.CRCBits, sys.Watchdog = []int{4, 4}, 1, 0, 200
	sys.Communicators = []hw.Communicator{
		{Name: "a", Ranks: []int{0, 1, 2, 3, 4, 5, 6, 7}},
		{Name: "b", Ranks: []int{8, 9, 10, 11, 12, 13, 14, 15}},
	}
	sys.Faults = []string{"flip:n9.eject@first:65"} // the head mark: the flit arrives with no packet open
	s, err := sim.Build(sys, nil)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	s.Run(sim.Options{Trace: &b}) // ends with unit errors
	found := false
	for _, l := range strings.Split(b.String(), "\n") {
		if strings.Contains(l, " n9 error ") && strings.Contains(l, "name=FLITS gate=0") {
			found = true
			if !strings.HasSuffix(l, " from=8") {
				t.Errorf("%q: want from=8 (rank 0 of communicator b)", l)
			}
		}
	}
	if !found {
		t.Fatalf("no FLITS error with gate 0 at node 9 in the trace:\n%s", b.String())
	}
}
