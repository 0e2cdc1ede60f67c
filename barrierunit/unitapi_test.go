package barrierunit

import (
	"slices"
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
// unit that has arrived and is not released (Waiting); not for one that
// has not arrived, nor again for one in ERROR, nor for a released one.
func TestTimeoutRaisesOnlyForAWaitingUnit(t *testing.T) {
	// Rank 0 arrives in cycle 0, the others never: rank 0 passes gate 1
	// and waits for gate 2, of 2 gates (R = 4) or the end gate (R = 2).
	for _, R := range []int{4, 2} {
		tab, err := GenerateFlat(hw.AlgoButterfly, R)
		if err != nil {
			t.Fatal(err)
		}
		nodeOf, arrive := make([]int32, R), make([]int64, R)
		for r := range R {
			nodeOf[r], arrive[r] = int32(r), -1
		}
		arrive[0] = 0
		u := NewUnits(tab, OpBarrier, 64, nodeOf, arrive, make([]uint64, R))
		p := &fakePort{rx: map[int64]hw.Flit{}}
		for c := int64(0); c < 5; c++ {
			u.Eval(0, c, p, 0)
			u.Collect()
		}
		if u.Waiting(1) || u.Timeout(1, 5, 0) {
			t.Errorf("R=%d: a rank that has not arrived is waiting, or timed out", R)
		}
		if !u.Waiting(0) || !u.Timeout(0, 5, 1) {
			t.Fatalf("R=%d: a waiting rank is not waiting, or did not time out", R)
		}
		u.Collect()
		want := UnitError{Cycle: 5, Node: 0, Rank: 0, Code: ErrTimeout, Gate: 2, From: 1}
		if len(u.Errors) != 1 || u.Errors[0] != want {
			t.Fatalf("R=%d: errors %+v, want %+v", R, u.Errors, want)
		}
		if u.Waiting(0) || u.Timeout(0, 6, 1) {
			t.Errorf("R=%d: a rank in ERROR is waiting, or timed out again", R)
		}
	}
	// Two ranks over a 1-cycle network: both released.
	two, err := GenerateFlat(hw.AlgoButterfly, 2)
	if err != nil {
		t.Fatal(err)
	}
	u := NewUnits(two, OpBarrier, 64, []int32{0, 1}, []int64{0, 0}, make([]uint64, 2))
	net := &delayNet{spread: 1, rx: make([][]delayed, 2)}
	for c := int64(0); c < 10; c++ {
		for r := range 2 {
			u.Eval(r, c, net, 0)
		}
		u.Collect()
	}
	if u.Released != 2 || u.Waiting(0) || u.Timeout(0, 10, 1) || len(u.Errors) != 0 {
		t.Errorf("%d released; released rank 0 waiting %v; errors after its Timeout: %v", u.Released, u.Waiting(0), u.Errors)
	}
	// A unit whose CTRL has 0 gates is released in its arrival cycle 0,
	// at gate 1 (below the table's gates): only its release says so.
	u = NewUnits(two, OpBarrier, 64, []int32{0, 1}, []int64{0, -1}, make([]uint64, 2))
	if err := u.SetCtrl(0, true, OpBarrier, false, 0); err != nil {
		t.Fatal(err)
	}
	u.Eval(0, 0, net, 0)
	u.Collect()
	if u.Release[0] != 0 || u.Waiting(0) || u.Timeout(0, 1, 1) {
		t.Errorf("CTRL gates 0: released in %d, waiting %v, errors %v", u.Release[0], u.Waiting(0), u.Errors)
	}
}

// TestSetCtrlOpReduces: a CTRL op other than the system's (every rank's
// set to min over units built for sum) starts each gate's received value
// at min's identity, so every rank gets the minimum of the operands.
func TestSetCtrlOpReduces(t *testing.T) {
	for _, R := range []int{2, 4, 6} {
		tab, err := GenerateFlat(hw.AlgoDissemination, R)
		if err != nil {
			t.Fatal(err)
		}
		nodeOf, arrive, operand := make([]int32, R), make([]int64, R), make([]uint64, R)
		for r := range R {
			nodeOf[r], operand[r] = int32(r), uint64(100+7*((r+2)%R))
		}
		u := NewUnits(tab, OpSum, 64, nodeOf, arrive, operand)
		for r := range R {
			if err := u.SetCtrl(r, true, OpMin, false, tab.Gates); err != nil {
				t.Fatal(err)
			}
		}
		net := &delayNet{spread: 1, rx: make([][]delayed, R)}
		for c := int64(0); c < 100; c++ {
			for r := range R {
				u.Eval(r, c, net, 0)
			}
			u.Collect()
		}
		for r := range R {
			if u.Release[r] < 0 || u.Result[r] != slices.Min(operand) {
				t.Fatalf("R=%d rank %d: released %d with %d, want %d", R, r, u.Release[r], u.Result[r], slices.Min(operand))
			}
		}
	}
}

// TestCtrlOffPopsAndRaisesNoRank: a unit with CTRL.EN = 0 never arrives,
// asks to be evaluated in t+1 when a flit is ready for it then, pops it
// and raises NORANK with the head's gate and source.
func TestCtrlOffPopsAndRaisesNoRank(t *testing.T) {
	tab, err := GenerateFlat(hw.AlgoButterfly, 2)
	if err != nil {
		t.Fatal(err)
	}
	u := NewUnits(tab, OpBarrier, 64, []int32{0, 1}, []int64{0, 0}, make([]uint64, 2))
	if err := u.SetCtrl(0, false, OpBarrier, false, tab.Gates); err != nil {
		t.Fatal(err)
	}
	p := &fakePort{rx: map[int64]hw.Flit{3: {Src: 1, Gate: 2, Flags: hw.FlitHead | hw.FlitTail}}}
	for c := int64(0); c < 6; c++ {
		d := u.Eval(0, c, p, 0)
		if want := map[bool]int{true: 1}[c == 2 || c == 3]; d != want {
			t.Errorf("cycle %d: Eval returned %d, want %d", c, d, want)
		}
		u.Collect()
	}
	want := UnitError{Cycle: 3, Node: 0, Rank: -1, Code: ErrNoRank, Gate: 2, From: 1}
	if len(u.Errors) != 1 || u.Errors[0] != want || u.Release[0] >= 0 || len(p.rx) != 0 || len(p.sent) != 0 {
		t.Fatalf("errors %+v (want %+v), release %d, %d flits left, %d sent", u.Errors, want, u.Release[0], len(p.rx), len(p.sent))
	}
}

// TestSendEventsNameTheirFlits: every send event names the gate its head
// flit carries and the rank at the flit's destination, in the cycle the
// flit is injected.
func TestSendEventsNameTheirFlits(t *testing.T) {
	for _, c := range []preStepCase{
		{R: 4, algo: hw.AlgoButterfly, op: OpSum, spread: 1, arrive: []int64{0, 1, 2, 3}, cycles: 60},
		{R: 5, algo: hw.AlgoDissemination, op: OpBarrier, spread: 2, arrive: []int64{3, 0, 0, 1, 0}, cycles: 60},
	} {
		tab, err := GenerateFlat(c.algo, c.R)
		if err != nil {
			t.Fatal(err)
		}
		nodeOf := make([]int32, c.R)
		for r := range nodeOf {
			nodeOf[r] = int32(c.R - 1 - r) // rank r on node R-1-r: ranks and nodes differ
		}
		u := NewUnits(tab, c.op, 64, nodeOf, c.arrive, make([]uint64, c.R))
		var sends []Event
		u.Emit = func(_ int, e Event) {
			if e.Kind == EvSend {
				sends = append(sends, e)
			}
		}
		rec := &recordNet{delayNet: delayNet{spread: c.spread, rx: make([][]delayed, c.R)}}
		for t := int64(0); t < c.cycles; t++ {
			for r := range c.R {
				u.Eval(r, t, rec, 0)
			}
			u.Collect()
		}
		if len(sends) == 0 || len(sends) != len(rec.heads) {
			t.Fatalf("%+v: %d send events, %d heads injected", c, len(sends), len(rec.heads))
		}
		for i, e := range sends {
			h := rec.heads[i]
			if e.Cycle != h.ready || e.Gate != h.f.Gate || nodeOf[e.Rank] != h.f.Dst || e.Node != nodeOf[h.f.Src] {
				t.Fatalf("%+v: send event %+v, head %+v injected in cycle %d", c, e, h.f, h.ready)
			}
		}
	}
}

// recordNet is a delayNet that records the head flits injected, each with
// its injection cycle (in ready).
type recordNet struct {
	delayNet
	heads []delayed
}

func (n *recordNet) Inject(node int, f hw.Flit, t int64, w int) {
	if f.Head() {
		n.heads = append(n.heads, delayed{f, t})
	}
	n.delayNet.Inject(node, f, t, w)
}
