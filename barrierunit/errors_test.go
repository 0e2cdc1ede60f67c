package barrierunit

import (
	"testing"

	"github.com/hxbar/hxbar/hw"
)

// TestValueModeErrors feeds one rank's unit (op sum, 32-bit flits: a
// packet is a head and 2 payload flits) flit sequences that break the
// rules of docs/microarchitecture.md, "Error paths", and checks the code,
// gate and source recorded, that the first error is kept, and that the unit
// then passes, sends and counts nothing but still pops.
func TestValueModeErrors(t *testing.T) {
	// Rank 0 of 2, one gate: it sends one packet to rank 1 at gate 1 and
	// needs one from rank 1 at gate 2.
	s := &Schedule{Ranks: 2, Gates: 1, Routes: []Route{
		{FromRank: 0, FromGate: 1, ToRank: 1, ToGate: 2, Distance: 1}, {FromRank: 1, FromGate: 1, ToRank: 0, ToGate: 2, Distance: 1}}}
	tab, err := Flatten(s)
	if err != nil {
		t.Fatal(err)
	}
	head := func(src int32, g uint8) hw.Flit { return hw.Flit{Flags: hw.FlitHead, Src: src, Gate: g} }
	pay := hw.Flit{Data: 1}
	tail := hw.Flit{Flags: hw.FlitTail, Data: 2}
	cases := []struct {
		name  string
		rx    []hw.Flit // popped in cycles 10, 11, ...
		want  UnitError
		count int // the signals counted at gate 2
	}{
		{"good", []hw.Flit{head(1, 2), pay, tail}, UnitError{}, 1},
		{"bad gate", []hw.Flit{head(1, 3), pay, tail}, UnitError{Cycle: 10, Code: ErrBadGate, Gate: 3, From: 1}, 0},
		{"gate 1", []hw.Flit{head(1, 1)}, UnitError{Cycle: 10, Code: ErrBadGate, Gate: 1, From: 1}, 0},
		{"tail early", []hw.Flit{head(1, 2), tail}, UnitError{Cycle: 11, Code: ErrFlits, Gate: 2, From: 1}, 0},
		{"head is tail", []hw.Flit{{Flags: hw.FlitHead | hw.FlitTail, Src: 1, Gate: 2}}, UnitError{Cycle: 10, Code: ErrFlits, Gate: 2, From: 1}, 0},
		{"payload past", []hw.Flit{head(1, 2), pay, pay, tail}, UnitError{Cycle: 12, Code: ErrFlits, Gate: 2, From: 1}, 0},
		{"head while open", []hw.Flit{head(1, 2), pay, head(1, 2), pay, tail}, UnitError{Cycle: 12, Code: ErrFlits, Gate: 2, From: 1}, 0},
		{"payload alone", []hw.Flit{pay}, UnitError{Cycle: 10, Code: ErrFlits}, 0},
		{"bad gate wins", []hw.Flit{head(1, 2), head(1, 9)}, UnitError{Cycle: 11, Code: ErrBadGate, Gate: 9, From: 1}, 0},
		{"second packet over", []hw.Flit{head(1, 2), pay, tail, head(1, 2), pay, tail}, UnitError{Cycle: 16, Code: ErrOver, Gate: 2, NoFrom: true}, 2}, // the gate check, the cycle after the count,
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			// Rank 0 arrives at 0 but cannot send (no credit): it waits at
			// gate 1 with its packet unsent, so only the receive part runs.
			u := NewUnits(tab, OpSum, 32, []int32{0, 1}, []int64{0, 1000}, []uint64{5, 6})
			p := &fakePort{rx: map[int64]hw.Flit{}}
			for i, f := range c.rx {
				p.rx[10+int64(i)] = f
			}
			var evs []Event
			u.Emit = func(_ int, e Event) { evs = append(evs, e) }
			blocked := &noCredit{p}
			for cy := int64(0); cy < 30; cy++ {
				u.Eval(0, cy, blocked, 0)
				u.Collect()
			}
			if len(p.rx) != 0 {
				t.Errorf("flits not popped: %v", p.rx)
			}
			if c.want.Code == 0 {
				if len(u.Errors) != 0 {
					t.Fatalf("errors %v", u.Errors)
				}
			} else {
				c.want.Rank = 0
				if len(u.Errors) != 1 || u.Errors[0] != c.want {
					t.Fatalf("errors %+v, want %+v", u.Errors, c.want)
				}
				if u.rank[0].err != c.want.Code {
					t.Fatalf("error register %d", u.rank[0].err)
				}
			}
			if n := u.Received(0, 2); n != c.count {
				t.Errorf("count %d, want %d", n, c.count)
			}
			for _, e := range evs {
				if e.Kind == EvRecv && c.want.Code != 0 && e.Cycle >= c.want.Cycle {
					t.Errorf("recv event %+v at or after the error", e)
				}
			}
		})
	}
}

// noCredit is a Port whose injection channel never has a credit.
type noCredit struct{ *fakePort }

func (noCredit) CanInject(int, int64) bool { return false }

// TestErrorStopsTheUnit: in ERROR the unit passes no gate, sends nothing
// and ignores its arrival, and a node without a rank pops and raises
// NORANK once.
func TestErrorStopsTheUnit(t *testing.T) {
	s := &Schedule{Ranks: 2, Gates: 1, Routes: []Route{
		{FromRank: 0, FromGate: 1, ToRank: 1, ToGate: 2, Distance: 1}, {FromRank: 1, FromGate: 1, ToRank: 0, ToGate: 2, Distance: 1}}}
	tab, err := Flatten(s)
	if err != nil {
		t.Fatal(err)
	}
	u := NewUnits(tab, OpBarrier, 32, []int32{0, 1}, []int64{5, 0}, []uint64{0, 0})
	u.SetNodes(3)
	// A bad head at cycle 1 puts rank 0 in ERROR before its arrival at 5.
	p := &fakePort{rx: map[int64]hw.Flit{1: {Flags: hw.FlitHead | hw.FlitTail, Src: 1, Gate: 7}, 8: {Flags: hw.FlitHead | hw.FlitTail, Src: 1, Gate: 2}}}
	for cy := int64(0); cy < 20; cy++ {
		u.Eval(0, cy, p, 0)
		u.Collect()
	}
	if u.Gate(0) != 0 || len(p.sent) != 0 || len(p.rx) != 0 || u.Received(0, 2) != 0 || len(u.Errors) != 1 {
		t.Fatalf("gate %d, sent %d, left %d, count %d, errors %v", u.Gate(0), len(p.sent), len(p.rx), u.Received(0, 2), u.Errors)
	}
	// Node 2 hosts no rank.
	q := &fakePort{rx: map[int64]hw.Flit{3: {Flags: hw.FlitHead, Src: 1, Gate: 2}, 4: {Flags: hw.FlitTail}}}
	for cy := int64(0); cy < 6; cy++ {
		u.EvalNoRank(2, cy, q, 0)
		u.Collect()
	}
	want := UnitError{Cycle: 3, Node: 2, Rank: -1, Code: ErrNoRank, Gate: 2, From: 1}
	if len(q.rx) != 0 || len(u.Errors) != 2 || u.Errors[1] != want {
		t.Fatalf("left %d, errors %+v", len(q.rx), u.Errors)
	}
	if got := u.Errors[1].String(); got != "cycle 3: node 2 (no rank): NORANK at gate 2 from rank 1" {
		t.Errorf("String: %q", got)
	}
}

// TestUnitErrorStringNamesOnlyWhatItKnows: the message names the gate and
// the source rank an error concerns, no source for an OVER found by the
// gate check (NoFrom: From 0 is not rank 0), and neither for an error of
// no gate.
func TestUnitErrorStringNamesOnlyWhatItKnows(t *testing.T) {
	for _, c := range []struct {
		e    UnitError
		want string
	}{
		{UnitError{Cycle: 9, Node: 3, Rank: 3, Code: ErrOver, Gate: 2, From: 1}, "cycle 9: node 3 (rank 3): OVER at gate 2 from rank 1"},
		{UnitError{Cycle: 9, Node: 3, Rank: 3, Code: ErrOver, Gate: 2, NoFrom: true}, "cycle 9: node 3 (rank 3): OVER at gate 2 (found by the gate check: no source)"},
		{UnitError{Cycle: 9, Node: 3, Rank: -1, Code: ErrBadGate}, "cycle 9: node 3 (no rank): BADGATE"},
	} {
		if got := c.e.String(); got != c.want {
			t.Errorf("%+v: %q, want %q", c.e, got, c.want)
		}
	}
}
