package sim_test

import (
	"strings"
	"testing"

	"github.com/hxbar/hxbar/barrierunit"
	"github.com/hxbar/hxbar/hw"
	"github.com/hxbar/hxbar/sim"
)

// TestCommFaultsNamed: in a run of communicators a fault's packet names
// its sender by run rank, as the errors and the trace do, and the error
// that reported it is found: a flipped head of a column communicator
// (run rank 16, rank 0 of cols.0: src_rank 0 on the wire) and a stuck
// system rank whose run rank differs (rank 5 is rank 1 of the only
// communicator) were "no error names its packet" though CRC and TIMEOUT
// reported them.
func TestCommFaultsNamed(t *testing.T) {
	run := func(sys hw.System) *sim.Result {
		t.Helper()
		s, err := sim.Build(sys, nil)
		if err != nil {
			t.Fatal(err)
		}
		res, _ := s.Run(sim.Options{})
		if len(res.Faults) != 1 || len(res.Errors) == 0 {
			t.Fatalf("faults %+v, errors %+v", res.Faults, res.Errors)
		}
		return res
	}
	sys := rowsCols(1)
	sys.Watchdog = 300
	sys.Faults = []string{"flip:n0.d1.up@first:14"} // the head of cols.0's rank 0 to node 8, above the header
	f := run(sys).Faults[0]
	if f.Packet == nil || f.Packet.Src != 16 || f.DetectedBy == nil || f.DetectedBy.Code != "CRC" || f.DetectedBy.From != 16 {
		t.Errorf("flipped cols head: packet %+v, detected by %+v; want src_rank 16, CRC from 16", f.Packet, f.DetectedBy)
	}
	sys = hw.Default()
	sys.Watchdog = 300
	sys.Communicators = []hw.Communicator{{Name: "pair", Ranks: []int{9, 5}}}
	sys.Faults = []string{"stuck:5"}
	f = run(sys).Faults[0]
	if f.DetectedBy == nil || f.DetectedBy.Code != "TIMEOUT" || f.DetectedBy.From != 1 {
		t.Errorf("stuck:5 in pair [9 5]: detected by %+v, want TIMEOUT from run rank 1", f.DetectedBy)
	}
}

// TestCommScheduleRefused: a gate schedule of one's own with a
// communicators list is refused naming communicators (it ran each
// communicator's generated schedule and ignored the one given).
func TestCommScheduleRefused(t *testing.T) {
	sched, err := barrierunit.Generate(hw.AlgoButterfly, 16)
	if err != nil {
		t.Fatal(err)
	}
	_, err = sim.Build(rowsCols(1), sched)
	if err == nil || !strings.Contains(err.Error(), "communicators") || !strings.Contains(err.Error(), "--schedule") {
		t.Fatalf("communicators with a schedule: %v, want an error naming communicators", err)
	}
	if _, err := sim.Build(hw.Default(), sched); err != nil {
		t.Fatalf("a schedule without communicators: %v", err)
	}
}
