package barrierunit

import (
	"strings"
	"testing"

	"github.com/hxbar/hxbar/hw"
)

// TestSetCtrlLimits: SetCtrl takes ranks 0..R-1 and gates 0..G (the
// table's), and data mode only with a data table and op barrier; every
// other value is refused, naming what is allowed.
func TestSetCtrlLimits(t *testing.T) {
	tab, err := GenerateFlat(hw.AlgoButterfly, 4)
	if err != nil {
		t.Fatal(err)
	}
	G := tab.Gates
	plain := func() *Units {
		return NewUnits(tab, OpBarrier, 64, []int32{0, 1, 2, 3}, []int64{0, 0, 0, 0}, make([]uint64, 4))
	}
	dtab, d, err := BuildData(2, 1, 3, []int32{0, 1, 0}, []Message{{From: 0, To: 1, Gate: 1, Items: []int32{0, 2}}, {From: 1, To: 0, Gate: 1, Items: []int32{1}}})
	if err != nil {
		t.Fatal(err)
	}
	withData := func() *Units {
		u := NewUnits(dtab, OpBarrier, 16, []int32{0, 1}, []int64{0, 0}, []uint64{0, 0})
		if err := u.SetData(d); err != nil {
			t.Fatal(err)
		}
		return u
	}
	for _, c := range []struct {
		u     *Units
		r     int
		op    Op
		data  bool
		gates int
		want  string // "" accepted
	}{
		{plain(), 0, OpBarrier, false, G, ""},
		{plain(), 3, OpSum, false, 0, ""},
		{plain(), -1, OpBarrier, false, G, "rank -1 (allowed: 0..3)"},
		{plain(), 4, OpBarrier, false, G, "rank 4 (allowed: 0..3)"},
		{plain(), 0, OpBarrier, false, -1, "gates -1 (allowed: 0.."},
		{plain(), 0, OpBarrier, false, G + 1, "allowed: 0.."},
		{plain(), 0, OpBarrier, true, G, "data mode needs a data table"},
		{withData(), 1, OpBarrier, true, dtab.Gates, ""},
		{withData(), 1, OpSum, true, dtab.Gates, "data mode needs a data table and op barrier"},
	} {
		err := c.u.SetCtrl(c.r, true, c.op, c.data, c.gates)
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("SetCtrl(%d, %v, data %v, gates %d): %v, want %q", c.r, c.op, c.data, c.gates, err, c.want)
		}
	}
}

// TestTimeoutRaisesOnlyForAWaitingUnit: the watchdog's Timeout raises
// TIMEOUT, naming the gate the unit waits at and the rank it names, for a
// unit that has arrived and is not released; not for one that has not
// arrived, nor again for one in ERROR, nor for a released one.
func TestTimeoutRaisesOnlyForAWaitingUnit(t *testing.T) {
	tab, err := GenerateFlat(hw.AlgoButterfly, 4)
	if err != nil {
		t.Fatal(err)
	}
	// Rank 0 arrives in cycle 0, the others never: rank 0 waits at gate 2.
	u := NewUnits(tab, OpBarrier, 64, []int32{0, 1, 2, 3}, []int64{0, -1, -1, -1}, make([]uint64, 4))
	p := &fakePort{rx: map[int64]hw.Flit{}}
	for c := int64(0); c < 5; c++ {
		u.Eval(0, c, p, 0)
		u.Collect()
	}
	if u.Timeout(1, 5, 0) {
		t.Error("Timeout raised for a rank that has not arrived")
	}
	if !u.Timeout(0, 5, 1) {
		t.Fatal("Timeout did not raise for a waiting rank")
	}
	u.Collect()
	want := UnitError{Cycle: 5, Node: 0, Rank: 0, Code: ErrTimeout, Gate: 2, From: 1}
	if len(u.Errors) != 1 || u.Errors[0] != want {
		t.Fatalf("errors %+v, want %+v", u.Errors, want)
	}
	if u.Timeout(0, 6, 1) {
		t.Error("Timeout raised again for a rank in ERROR")
	}
	// Two ranks over a 1-cycle network: both released.
	two, err := GenerateFlat(hw.AlgoButterfly, 2)
	if err != nil {
		t.Fatal(err)
	}
	u = NewUnits(two, OpBarrier, 64, []int32{0, 1}, []int64{0, 0}, make([]uint64, 2))
	net := &delayNet{spread: 1, rx: make([][]delayed, 2)}
	for c := int64(0); c < 10; c++ {
		for r := range 2 {
			u.Eval(r, c, net, 0)
		}
		u.Collect()
	}
	if u.Released != 2 || u.Timeout(0, 10, 1) || len(u.Errors) != 0 {
		t.Errorf("%d released; errors after Timeout of a released rank: %v", u.Released, u.Errors)
	}
}
