package barrierunit

import (
	"strings"
	"testing"

	"github.com/hxbar/hxbar/hw"
)

// TestUnitsSendAReduction drives two units of the butterfly R = 2 over the
// ideal loopback (a flit reaches its destination the cycle after it is
// sent) with op sum and FW = 16, and checks every flit rank 0 sends against
// docs/microarchitecture.md ("Packets and flits"): a head flit {dst, src,
// gate 2}, then P = 64/16 = 4 payload flits, flit i carrying bits
// [16i, 16i+16) of the value, the last one the tail; and the results.
func TestUnitsSendAReduction(t *testing.T) {
	s, err := Generate("butterfly", 2)
	if err != nil {
		t.Fatal(err)
	}
	tab, err := Flatten(s)
	if err != nil {
		t.Fatal(err)
	}
	const x0, x1 = 0x0123456789abcdef, 0x1000000000000001
	u := NewUnits(tab, OpSum, 16, []int32{0, 1}, []int64{0, 3}, []uint64{x0, x1})
	var sent [2][]hw.Flit
	p := &loopback{q: map[int][]hw.Flit{}, due: map[int][]int64{}, tamper: func(f *hw.Flit) {
		src := 1 - int(f.Dst) // two ranks: each sends only to the other
		sent[src] = append(sent[src], *f)
	}}
	for c := int64(0); c < 40; c++ {
		for r := 0; r < 2; r++ {
			u.Eval(r, c, p, 0)
		}
		u.Collect()
	}
	want := []hw.Flit{
		{Dst: 1, Src: 0, Gate: 2, Flags: hw.FlitHead},
		{Dst: 1, Data: 0xcdef},
		{Dst: 1, Data: 0x89ab},
		{Dst: 1, Data: 0x4567},
		{Dst: 1, Data: 0x0123, Flags: hw.FlitTail},
	}
	if len(sent[0]) != len(want) {
		t.Fatalf("rank 0 sent %d flits %+v, want %d", len(sent[0]), sent[0], len(want))
	}
	for i, f := range sent[0] {
		if f != want[i] {
			t.Errorf("rank 0 flit %d: %+v, want %+v", i, f, want[i])
		}
	}
	if len(sent[1]) != 5 || sent[1][4].Data != 0x1000 || !sent[1][4].Tail() || sent[1][1].Data != 0x0001 {
		t.Errorf("rank 1 sent %+v", sent[1])
	}
	// Rank 0 sends in cycles 1..5, rank 1 (arrives 3) in 4..8; rank 0 pops
	// rank 1's tail in 9 and passes its end gate in 10, rank 1 has rank 0's
	// tail from 6 and passes when its own tail is sent, in 9.
	const sum = x0 + x1
	if u.Released != 2 || u.Result[0] != sum || u.Result[1] != sum || u.Release[0] != 10 || u.Release[1] != 9 {
		t.Fatalf("released %d, results %x, release cycles %v; want both %x, [10 9]", u.Released, u.Result, u.Release, uint64(sum))
	}
}

// TestOpNames: the names of docs/config.md in code order, parsed back,
// and a readable name for a value outside them.
func TestOpNames(t *testing.T) {
	for i, n := range []string{"barrier", "sum", "max", "min", "and", "or", "xor"} {
		if Op(i).String() != n {
			t.Errorf("Op(%d) = %q, want %q", i, Op(i).String(), n)
		}
		if o, err := ParseOp(n); err != nil || o != Op(i) {
			t.Errorf("ParseOp(%q) = %v, %v", n, o, err)
		}
	}
	if _, err := ParseOp("mul"); err == nil || !strings.Contains(err.Error(), "allowed: barrier, sum, max, min, and, or, xor") {
		t.Errorf("ParseOp(mul): %v", err)
	}
	if got := Op(7).String(); got != "Op(7)" {
		t.Errorf("Op(7) = %q", got)
	}
}

// TestCheckRefusesRanksPastTheEnd: ranks are 0..R-1, so R itself is out
// of range as a source and as a destination.
func TestCheckRefusesRanksPastTheEnd(t *testing.T) {
	for _, c := range []struct {
		rt   Route
		want string
	}{
		{Route{FromRank: 2, FromGate: 1, ToRank: 0, ToGate: 2}, "routes[0].from_rank"},
		{Route{FromRank: 0, FromGate: 1, ToRank: 2, ToGate: 2}, "routes[0].to_rank"},
		{Route{FromRank: -1, FromGate: 1, ToRank: 0, ToGate: 2}, "routes[0].from_rank"},
	} {
		s := &Schedule{Ranks: 2, Gates: 1, Routes: []Route{c.rt}}
		_, err := Flatten(s)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "0..1") {
			t.Errorf("%+v: %v, want %s (allowed 0..1)", c.rt, err, c.want)
		}
	}
}

// TestIsetsPeriodicSetsAreCanonical: a set equal to a rotation of itself
// (a strided set {0, p, 2p, ...} with p dividing R, or a union of such
// blocks) has one rset, however it was built (iset.go: "sh is reduced
// modulo the base's period, so equal sets have equal rsets"). Built here
// from singletons in increasing and in decreasing order, and rotated by
// whole periods.
func TestIsetsPeriodicSetsAreCanonical(t *testing.T) {
	for R := 2; R <= 40; R++ {
		for p := 1; p < R; p++ {
			if R%p != 0 {
				continue
			}
			for w := 1; w <= p; w++ { // blocks [kp, kp+w)
				st := newIsets(R)
				var up, down rset
				for k := 0; k < R/p; k++ {
					for j := 0; j < w; j++ {
						up = st.union(up, st.singleton(k*p+j))
					}
				}
				for k := R/p - 1; k >= 0; k-- {
					for j := w - 1; j >= 0; j-- {
						down = st.union(down, st.singleton((k*p+j+p)%R))
					}
				}
				if up != down {
					t.Fatalf("R=%d stride %d width %d: the same set is %+v and %+v", R, p, w, up, down)
				}
			}
		}
	}
}
