package barrierunit

import (
	"testing"

	"github.com/hxbar/hxbar/hw"
)

// fakePort delivers the flits of rx, each in its cycle, and accepts every
// injection.
type fakePort struct {
	rx   map[int64]hw.Flit
	sent []hw.Flit
}

func (p *fakePort) CanInject(int, int64) bool               { return true }
func (p *fakePort) Inject(_ int, f hw.Flit, _ int64, _ int) { p.sent = append(p.sent, f) }
func (p *fakePort) RxPending(_ int, t int64) bool           { _, ok := p.rx[t]; return ok }
func (p *fakePort) RxPop(_ int, t int64)                    { delete(p.rx, t) }
func (p *fakePort) RxFront(_ int, t int64) (hw.Flit, bool)  { f, ok := p.rx[t]; return f, ok }

// TestTailInTheReleaseCycleIsOver: a tail popped in the cycle the unit
// passes its gate (here: releases) is for a gate the unit has passed, so
// it is OVER (docs/microarchitecture.md, "Error paths"): not counted, no
// recv event, the release event still written by the same edge.
func TestTailInTheReleaseCycleIsOver(t *testing.T) {
	s := &Schedule{Ranks: 1, Gates: 1, Routes: []Route{{FromRank: 0, FromGate: 1, ToRank: 0, ToGate: 2}}}
	tab, err := Flatten(s)
	if err != nil {
		t.Fatal(err)
	}
	u := NewUnits(tab, OpSum, 64, []int32{0}, []int64{0}, []uint64{7})
	p := &fakePort{rx: map[int64]hw.Flit{0: {Flags: hw.FlitHead, Src: 0, Gate: 2}, 1: {Flags: hw.FlitTail, Data: 5}}}
	var got []Event
	u.Emit = func(_ int, e Event) { got = append(got, e) }
	for c := int64(0); c < 4; c++ {
		u.Eval(0, c, p, 0)
		u.Collect()
	}
	want := []Event{
		{Cycle: 0, Kind: EvArrive, Gate: 1, Rank: 0, Value: 7},
		{Cycle: 1, Kind: EvRelease, Gate: 2, Rank: 0, Value: 7},
		{Cycle: 1, Kind: EvError, Gate: 2, Rank: 0, Value: uint64(ErrOver)},
	}
	if len(got) != len(want) {
		t.Fatalf("events %+v", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("event %d: %+v, want %+v", i, got[i], want[i])
		}
	}
	if len(u.Errors) != 1 || u.Errors[0] != (UnitError{Cycle: 1, Node: 0, Rank: 0, Code: ErrOver, Gate: 2, From: 0}) {
		t.Fatalf("errors %v", u.Errors)
	}
	if n := u.Received(0, 2); n != 0 {
		t.Fatalf("count %d", n)
	}
}

// TestReleaseRearms: the edge of the release clears every gate's received
// count; the released unit takes the next episode's arrival (its CTRL
// unchanged) and an idle one too (a new op).
func TestReleaseRearms(t *testing.T) {
	// One rank, one gate with a route within the node: arrival at 0,
	// release at 1.
	s := &Schedule{Ranks: 1, Gates: 1, Routes: []Route{{FromRank: 0, FromGate: 1, ToRank: 0, ToGate: 2}}}
	tab, err := Flatten(s)
	if err != nil {
		t.Fatal(err)
	}
	u := NewUnits(tab, OpSum, 64, []int32{0}, []int64{0}, []uint64{7})
	p := &fakePort{rx: map[int64]hw.Flit{}}
	for c := int64(0); c < 3; c++ {
		u.Eval(0, c, p, 0)
		u.Collect()
	}
	if u.Release[0] != 1 || u.Result[0] != 7 {
		t.Fatalf("release %d result %d", u.Release[0], u.Result[0])
	}
	if u.rxacc[2] != OpSum.Identity() {
		t.Fatalf("received value not cleared: %x", u.rxacc[2])
	}
	// Episode 2, same tables and op: the unit is RELEASED (cur = G+1) and
	// takes the arrival.
	if err := u.NextEpisode(tab, OpSum, 64, nil, []int64{5}, []uint64{9}); err != nil {
		t.Fatal(err)
	}
	if u.rank[0].cur != 2 || u.Gate(0) != 0 {
		t.Fatalf("released unit: cur %d, Gate %d", u.rank[0].cur, u.Gate(0))
	}
	for c := int64(3); c < 8; c++ {
		u.Eval(0, c, p, 0)
		u.Collect()
	}
	if u.Release[0] != 6 || u.Result[0] != 9 || u.Released != 1 {
		t.Fatalf("episode 2: release %d result %d", u.Release[0], u.Result[0])
	}
	// Episode 3, op max (a CTRL write): IDLE, identities of max.
	if err := u.NextEpisode(tab, OpMax, 64, nil, []int64{10}, []uint64{3}); err != nil {
		t.Fatal(err)
	}
	if u.rank[0].cur != 0 || u.rxacc[2] != OpMax.Identity() {
		t.Fatalf("after a CTRL write: cur %d rxacc %x", u.rank[0].cur, u.rxacc[2])
	}
	for c := int64(8); c < 12; c++ {
		u.Eval(0, c, p, 0)
		u.Collect()
	}
	if u.Release[0] != 11 || u.Result[0] != 3 {
		t.Fatalf("episode 3: release %d result %d", u.Release[0], u.Result[0])
	}
	// A barrier after a sum: the arrival's value is 0, not the old acc.
	if err := u.NextEpisode(tab, OpBarrier, 64, nil, []int64{12}, []uint64{0}); err != nil {
		t.Fatal(err)
	}
	var got []Event
	u.Emit = func(_ int, e Event) { got = append(got, e) }
	u.Eval(0, 12, p, 0)
	if len(got) == 0 || got[0].Kind != EvArrive || got[0].Value != 0 {
		t.Fatalf("barrier arrival events %+v", got)
	}
	// NextEpisode refuses while a rank waits.
	if err := u.NextEpisode(tab, OpBarrier, 64, nil, []int64{20}, []uint64{0}); err == nil {
		t.Fatal("NextEpisode accepted a rank that is not released")
	}
}
