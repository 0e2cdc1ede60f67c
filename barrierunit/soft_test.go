package barrierunit

import (
	"testing"

	"github.com/hxbar/hxbar/hw"
)

// creditPort is a fakePort whose injection channel takes a flit only in
// the cycles of ok (nil: every cycle).
type creditPort struct {
	fakePort
	ok func(t int64) bool
}

func (p *creditPort) CanInject(_ int, t int64) bool { return p.ok == nil || p.ok(t) }

// softUnits is rank 0's unit of a 3-rank sum (32-bit flits: a packet is a
// head and two payload flits): rank 0 sends one packet to rank 1 after its
// arrival, and its end gate 2 needs the packets of ranks 1 and 2. Only
// rank 0 is evaluated; the port plays the network.
func softUnits(t *testing.T, arrive int64) (*Units, *creditPort, *[]Event) {
	t.Helper()
	s := &Schedule{Ranks: 3, Gates: 1, Routes: []Route{
		{FromRank: 0, FromGate: 1, ToRank: 1, ToGate: 2, Distance: 1},
		{FromRank: 1, FromGate: 1, ToRank: 0, ToGate: 2, Distance: 1},
		{FromRank: 2, FromGate: 1, ToRank: 0, ToGate: 2, Distance: 2},
	}}
	tab, err := Flatten(s)
	if err != nil {
		t.Fatal(err)
	}
	u := NewUnits(tab, OpSum, 32, []int32{0, 1, 2}, []int64{arrive, -1, -1}, []uint64{7, 0, 0})
	p := &creditPort{fakePort: fakePort{rx: map[int64]hw.Flit{}}}
	var ev []Event
	u.Emit = func(_ int, e Event) { ev = append(ev, e) }
	return u, p, &ev
}

// packet puts the value packet of rank src for gate 2 into p, its head in
// cycle at.
func (p *creditPort) packet(src int32, v uint64, at int64) {
	p.rx[at] = hw.Flit{Flags: hw.FlitHead, Src: src, Gate: 2}
	p.rx[at+1] = hw.Flit{Data: v & 0xffffffff}
	p.rx[at+2] = hw.Flit{Flags: hw.FlitTail, Data: v >> 32}
}

// run evaluates rank 0 over cycles [from, to), calling before(c) first in
// each cycle.
func run(u *Units, p Port, from, to int64, before func(c int64)) {
	for c := from; c < to; c++ {
		if before != nil {
			before(c)
		}
		u.Eval(0, c, p, 0)
		u.Collect()
	}
}

func kinds(ev []Event, k uint8) []int64 {
	var out []int64
	for _, e := range ev {
		if e.Kind == k {
			out = append(out, e.Cycle)
		}
	}
	return out
}

// TestAbortInWaitClearsTheEpisode: an ABORT while the unit waits returns it
// to IDLE with its receive counts cleared (a signal counted before it no
// longer counts), and a fresh episode then completes; the release sets
// IRQ_STATUS's release bit, which ClearIrq clears.
func TestAbortInWaitClearsTheEpisode(t *testing.T) {
	u, p, ev := softUnits(t, 0)
	p.packet(1, 5, 6) // rank 1's signal of the aborted episode, counted in 8
	abortAt := int64(12)
	run(u, p, 0, 20, func(c int64) {
		if c == abortAt {
			if err := u.Abort(0, c); err != nil {
				t.Fatal(err)
			}
		}
	})
	if u.Gate(0) != 0 || u.Release[0] != -1 || u.Received(0, 2) != 0 {
		t.Fatalf("after ABORT: gate %d release %d received %d", u.Gate(0), u.Release[0], u.Received(0, 2))
	}
	if s, d := u.Draining(0); s || d {
		t.Fatalf("draining %v %v with nothing half done", s, d)
	}
	u.Arrive[0] = 20
	p.packet(2, 3, 25)
	run(u, p, 20, 30, nil)
	if u.Release[0] != -1 {
		t.Fatalf("released at %d with one of two signals: the aborted episode's was kept", u.Release[0])
	}
	p.packet(1, 4, 30)
	run(u, p, 30, 40, nil)
	if u.Release[0] != 33 || u.Result[0] != 3+4 { // no route within rank 0: its own value is not taken in
		t.Fatalf("fresh episode: release %d result %d, want 33 and 7 (events %v)", u.Release[0], u.Result[0], *ev)
	}
	if u.IrqPending(0) != IrqRelease {
		t.Fatalf("IRQ_STATUS %b after the release", u.IrqPending(0))
	}
	u.ClearIrq(0, IrqRelease)
	if u.IrqPending(0) != 0 {
		t.Fatalf("IRQ_STATUS %b after clearing", u.IrqPending(0))
	}
}

// TestAbortInErrorAndIrq: an error sets IRQ_STATUS's error bit; ABORT
// clears the error, and an arrival in its cycle is taken in the next.
func TestAbortInErrorAndIrq(t *testing.T) {
	u, p, ev := softUnits(t, 0)
	p.rx[5] = hw.Flit{Flags: hw.FlitHead | hw.FlitTail, Src: 1, Gate: 9} // BADGATE
	run(u, p, 0, 8, nil)
	if len(u.Errors) != 1 || u.IrqPending(0) != IrqError {
		t.Fatalf("errors %v, IRQ_STATUS %b", u.Errors, u.IrqPending(0))
	}
	u.Arrive[0] = 10
	run(u, p, 8, 14, func(c int64) {
		if c == 10 {
			if err := u.Abort(0, c); err != nil {
				t.Fatal(err)
			}
		}
	})
	if a := kinds(*ev, EvArrive); len(a) != 2 || a[1] != 11 {
		t.Fatalf("arrivals %v, want the second in 11 (held from the ABORT's cycle 10)", a)
	}
	if u.Gate(0) != 1 || u.rank[0].err != 0 {
		t.Fatalf("after ABORT and arrival: gate %d error %d", u.Gate(0), u.rank[0].err)
	}
}

// TestAbortMidPacket: an ABORT while the unit has sent the head and one
// payload flit of its packet (no credit for the tail) finishes the packet:
// the tail leaves when a credit comes, an arrival meanwhile is held until
// then.
func TestAbortMidPacket(t *testing.T) {
	u, p, ev := softUnits(t, 0)
	p.ok = func(c int64) bool { return c <= 2 || c >= 20 } // head 1, payload 2, tail not before 20
	run(u, p, 0, 20, func(c int64) {
		if c == 10 {
			if err := u.Abort(0, c); err != nil {
				t.Fatal(err)
			}
		}
		if c == 15 {
			u.Arrive[0] = 15
		}
	})
	if len(p.sent) != 2 {
		t.Fatalf("%d flits sent before the credit, want 2", len(p.sent))
	}
	if s, _ := u.Draining(0); !s || u.Gate(0) != 0 {
		t.Fatalf("after ABORT mid-packet: draining %v, gate %d", s, u.Gate(0))
	}
	run(u, p, 20, 22, nil)
	if len(p.sent) < 3 || !p.sent[2].Tail() || p.sent[2].Data != 0 {
		t.Fatalf("flits %v: the third should be the tail (the value's high half)", p.sent)
	}
	if s, _ := u.Draining(0); s {
		t.Fatal("still draining after the tail")
	}
	if a := kinds(*ev, EvArrive); len(a) != 2 || a[1] != 21 {
		t.Fatalf("arrivals %v, want the second in 21 (the tail in 20)", a)
	}
}

// TestAbortMidReceive: the rest of a packet whose head was popped before
// an ABORT is discarded (no count, no error); the next packet counts.
func TestAbortMidReceive(t *testing.T) {
	u, p, ev := softUnits(t, 0)
	p.rx[5] = hw.Flit{Flags: hw.FlitHead, Src: 1, Gate: 2}
	p.rx[12] = hw.Flit{Data: 1}
	p.rx[13] = hw.Flit{Flags: hw.FlitTail}
	run(u, p, 0, 15, func(c int64) {
		if c == 10 {
			if err := u.Abort(0, c); err != nil {
				t.Fatal(err)
			}
		}
		if c == 11 {
			if _, d := u.Draining(0); !d {
				t.Fatal("not discarding after an ABORT with a packet open")
			}
		}
	})
	if _, d := u.Draining(0); d || len(u.Errors) != 0 || len(kinds(*ev, EvRecv)) != 0 {
		t.Fatalf("discarding %v, errors %v, recv events %v", d, u.Errors, kinds(*ev, EvRecv))
	}
	p.packet(2, 1, 20)
	run(u, p, 15, 25, nil)
	if r := kinds(*ev, EvRecv); len(r) != 1 || r[0] != 22 || len(u.Errors) != 0 {
		t.Fatalf("recv %v errors %v after the discarded packet", r, u.Errors)
	}
}

// TestAbortRefusals: Abort names a bad rank and refuses a run with gate
// steps taken ahead.
func TestAbortRefusals(t *testing.T) {
	u, _, _ := softUnits(t, 0)
	if err := u.Abort(3, 0); err == nil {
		t.Error("rank 3 of 3 accepted")
	}
	u.PreStepBefore = 100
	if err := u.Abort(0, 0); err == nil {
		t.Error("accepted with PreStepBefore set")
	}
}
