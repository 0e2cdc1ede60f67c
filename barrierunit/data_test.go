package barrierunit

import (
	"strings"
	"testing"

	"github.com/hxbar/hxbar/hw"
)

// TestItemWordSeparates checks what docs/transfers.md promises of the low
// 16 bits: for fixed other inputs, every j, every origin, every item, and
// every item on its own rank (origin = item) gives a different word.
func TestItemWordSeparates(t *testing.T) {
	distinct := func(name string, f func(v int) uint64) {
		seen := make(map[uint64]int, 1<<16)
		for v := 0; v < 1<<16; v++ {
			w := f(v) & 0xffff
			if k, dup := seen[w]; dup {
				t.Fatalf("%s: %d and %d share the low 16 bits %#x", name, k, v, w)
			}
			seen[w] = v
		}
	}
	for _, c := range [][2]int{{0, 0}, {5, 3}, {65535, 65535}, {1234, 77}} {
		distinct("flit", func(j int) uint64 { return ItemWord(c[0], c[1], j) })
		distinct("origin", func(o int) uint64 { return ItemWord(o, c[1], c[0]) })
		distinct("item", func(i int) uint64 { return ItemWord(c[0], i, c[1]) })
	}
	distinct("item on its own rank", func(i int) uint64 { return ItemWord(i, i, 0) })
	if ItemWord(0, 0, 0) == 0 {
		t.Error("item 0 of rank 0 is all zeros")
	}
}

// loopback is an ideal network for unit tests: a flit injected in cycle t
// reaches its destination's receive side in cycle t+1; tamper may alter it.
type loopback struct {
	q      map[int][]hw.Flit
	due    map[int][]int64
	tamper func(f *hw.Flit)
}

func (l *loopback) CanInject(int, int64) bool { return true }
func (l *loopback) Inject(node int, f hw.Flit, t int64, _ int) {
	if l.tamper != nil {
		l.tamper(&f)
	}
	d := int(f.Dst)
	l.q[d] = append(l.q[d], f)
	l.due[d] = append(l.due[d], t+1)
}
func (l *loopback) RxFront(node int, t int64) (hw.Flit, bool) {
	if len(l.q[node]) == 0 || l.due[node][0] > t {
		return hw.Flit{}, false
	}
	return l.q[node][0], true
}
func (l *loopback) RxPop(node int, t int64) {
	l.q[node], l.due[node] = l.q[node][1:], l.due[node][1:]
}
func (l *loopback) RxPending(node int, t int64) bool { _, ok := l.RxFront(node, t); return ok }

// runPair swaps items between two ranks over a loopback (rank 0 sends
// items 0 and 2 to rank 1, which sends item 1 back) and returns the units.
func runPair(t *testing.T, tamper func(f *hw.Flit), edit func(d *DataTable)) *Units {
	t.Helper()
	return runPairDetect(t, tamper, edit, false)
}

// runPairDetect is runPair with the data mode's length checks (Detect: SEQ)
// on or off.
func runPairDetect(t *testing.T, tamper func(f *hw.Flit), edit func(d *DataTable), detect bool) *Units {
	t.Helper()
	msgs := []Message{{From: 0, To: 1, Gate: 1, Items: []int32{0, 2}}, {From: 1, To: 0, Gate: 1, Items: []int32{1}}}
	tab, d, err := BuildData(2, 1, 3, []int32{0, 1, 0}, msgs)
	if err != nil {
		t.Fatal(err)
	}
	if edit != nil {
		edit(d)
	}
	u := NewUnits(tab, OpBarrier, 16, []int32{0, 1}, []int64{0, 0}, []uint64{0, 0})
	if err := u.SetData(d); err != nil {
		t.Fatal(err)
	}
	u.Detect = detect
	p := &loopback{q: map[int][]hw.Flit{}, due: map[int][]int64{}, tamper: tamper}
	for c := int64(0); c < 40; c++ {
		for r := 0; r < 2; r++ {
			u.Eval(r, c, p, 0)
		}
		u.Collect()
	}
	return u
}

func TestDataUnitsPair(t *testing.T) {
	u := runPair(t, nil, nil)
	if u.Released != 2 || u.DataErrors != 0 || u.ItemsReceived != 3 || u.Flits != 2+3*3 {
		t.Fatalf("released %d, errors %d (%s), items %d, flits %d", u.Released, u.DataErrors, u.FirstDataError, u.ItemsReceived, u.Flits)
	}
	// Rank 1 sends 4 flits in cycles 1..4, so rank 0 pops the tail in
	// cycle 5, but rank 0 sends 7 flits (1..7) and passes gate 2 only in 8,
	// when its send pointer is at the end; rank 1 pops that tail in 8 and
	// passes in 9.
	if u.Release[0] != 8 || u.Release[1] != 9 || u.GateDone(2) != 9 {
		t.Fatalf("release %v, gate done %v", u.Release, []int64{u.GateDone(1), u.GateDone(2)})
	}
}

// TestDataUnitsCatchBadFlits corrupts the data on the wire, or makes the
// receiver expect something else, and checks that the receiver names it.
func TestDataUnitsCatchBadFlits(t *testing.T) {
	cases := []struct {
		name   string
		tamper func(f *hw.Flit)
		edit   func(d *DataTable)
		want   string
	}{
		{"bit flip", func(f *hw.Flit) {
			if f.Dst == 1 && f.Tail() && !f.Head() {
				f.Data ^= 1 << 7
			}
		}, nil, "rank 1 gate 2 from rank 0: item 2 flit 2"},
		{"early tail", func(f *hw.Flit) { f.SetTail(f.Tail() || !f.Head()) }, nil, "message ended early"},
		{"wrong source", nil, func(d *DataTable) { d.RouteFrom[0] = 1 }, "expected rank 1"},
		{"no message expected", nil, func(d *DataTable) { d.RxRoute[1*3+2] = -1 }, "expects none"},
	}
	for _, c := range cases {
		u := runPair(t, c.tamper, c.edit)
		if u.DataErrors == 0 || !strings.Contains(u.FirstDataError, c.want) {
			t.Errorf("%s: %d errors, first %q; want %q", c.name, u.DataErrors, u.FirstDataError, c.want)
		}
	}
}

// TestDataUnitsShortMessage: a head that is also a tail (a message without
// items) is the hardware error SHORT (docs/microarchitecture.md, "Error
// paths"), not a payload error: the receiver names gate and source, and
// counts nothing.
func TestDataUnitsShortMessage(t *testing.T) {
	u := runPair(t, func(f *hw.Flit) { f.SetTail(f.Tail() || f.Head()) }, nil)
	if u.DataErrors != 0 || len(u.Errors) != 2 {
		t.Fatalf("data errors %d (%s), unit errors %v", u.DataErrors, u.FirstDataError, u.Errors)
	}
	for _, e := range u.Errors {
		if e.Code != ErrShort || e.Gate != 2 || e.From != 1-e.Rank || u.Received(int(e.Rank), 2) != 0 {
			t.Errorf("error %v (%+v)", e, e)
		}
	}
	if u.Released != 0 {
		t.Errorf("%d released", u.Released)
	}
}

// TestDataUnitsRaiseSeq: with Detect, a tail before the last expected
// flit of a message is the hardware error SEQ (docs/reliability.md,
// "Detection"), named with the message's gate and source; without it
// the same flits raise no SEQ.
func TestDataUnitsRaiseSeq(t *testing.T) {
	early := func(f *hw.Flit) { f.SetTail(f.Tail() || !f.Head()) }
	u := runPairDetect(t, early, nil, true)
	if len(u.Errors) != 2 || u.Released != 0 {
		t.Fatalf("unit errors %v, %d released", u.Errors, u.Released)
	}
	for _, e := range u.Errors {
		if e.Code != ErrSeq || e.Gate != 2 || e.From != 1-e.Rank {
			t.Errorf("error %v (%+v), want SEQ at gate 2 from rank %d", e, e, 1-e.Rank)
		}
	}
	for _, e := range runPairDetect(t, early, nil, false).Errors {
		if e.Code == ErrSeq {
			t.Errorf("without Detect: %v", e)
		}
	}
}

// TestDataUnitsCatchHeadBeforeTail: rank 2 receives from rank 0 at gate 2
// and from rank 1 at gate 3; with the tails lost, rank 1's head arrives
// while rank 0's message is still open.
func TestDataUnitsCatchHeadBeforeTail(t *testing.T) {
	msgs := []Message{{From: 0, To: 2, Gate: 1, Items: []int32{0}}, {From: 1, To: 2, Gate: 2, Items: []int32{1}}}
	tab, d, err := BuildData(3, 2, 2, []int32{0, 1}, msgs)
	if err != nil {
		t.Fatal(err)
	}
	u := NewUnits(tab, OpBarrier, 16, []int32{0, 1, 2}, []int64{0, 0, 0}, []uint64{0, 0, 0})
	if err := u.SetData(d); err != nil {
		t.Fatal(err)
	}
	p := &loopback{q: map[int][]hw.Flit{}, due: map[int][]int64{}, tamper: func(f *hw.Flit) { f.SetTail(false) }}
	for c := int64(0); c < 40; c++ {
		for r := 0; r < 3; r++ {
			u.Eval(r, c, p, 0)
		}
		u.Collect()
	}
	if u.DataErrors == 0 || !strings.Contains(u.FirstDataError, "rank 2 gate 2 from rank 0: a head flit (from rank 1) before the tail") {
		t.Fatalf("%d errors, first %q", u.DataErrors, u.FirstDataError)
	}
}

func TestBuildDataErrors(t *testing.T) {
	one := []int32{0, 1}
	cases := []struct {
		ranks, gates, f int
		origin          []int32
		msgs            []Message
		want            string
	}{
		{2, 1, 0, one, nil, "invalid item_flits: 0"},
		{2, 1, 1, []int32{0, 2}, nil, "item 1: starts on rank 2"},
		{2, 1, 1, one, []Message{{From: 0, To: 1, Gate: 1}}, "no items"},
		{2, 1, 1, one, []Message{{From: 0, To: 0, Gate: 1, Items: []int32{0}}}, "sends to itself"},
		{2, 1, 1, one, []Message{{From: 0, To: 1, Gate: 1, Items: []int32{5}}}, "item 5"},
		{3, 1, 1, one, []Message{{From: 0, To: 1, Gate: 1, Items: []int32{0}}, {From: 2, To: 1, Gate: 1, Items: []int32{1}}}, "already receives message 0"},
		{2, 1, 1, one, []Message{{From: 0, To: 1, Gate: 2, Items: []int32{0}}}, "not a valid route"},
	}
	for _, c := range cases {
		if _, _, err := BuildData(c.ranks, c.gates, c.f, c.origin, c.msgs); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("BuildData(%v): %v, want %q", c.msgs, err, c.want)
		}
	}
}
