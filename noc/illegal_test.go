package noc

import (
	"fmt"
	"testing"

	"github.com/hxbar/hxbar/hw"
	"pgregory.net/rapid"
)

// Illegal flits at a switch input (illegal.go; docs/microarchitecture.md,
// "Illegal flits"): each is dropped or cuts its packet, is counted, gives
// its credit back, and the input goes on with the next head.

// tb is what the helpers need of a *testing.T or a *rapid.T.
type tb interface {
	Helper()
	Fatal(args ...any)
	Fatalf(format string, args ...any)
}

// illegalNet is a network with the fault state armed (no fault: the flits
// below are illegal as injected) and the flits each node's endpoint
// popped, in order.
type illegalNet struct {
	n    *Network
	got  map[int][]hw.Flit
	dims []int
}

func newIllegalNet(t tb, dims []int, B, L int) *illegalNet {
	tp, err := NewTopology(dims)
	if err != nil {
		t.Fatal(err)
	}
	n, err := NewNetwork(tp, Config{BufferDepth: B, LinkLatency: L})
	if err != nil {
		t.Fatal(err)
	}
	if err := n.SetFaults(nil, nil); err != nil {
		t.Fatal(err)
	}
	return &illegalNet{n: n, got: map[int][]hw.Flit{}, dims: dims}
}

// run injects flits from node src, one a cycle as credits allow, and runs
// every switch and endpoint until the network has been empty for a while
// (at most cycles).
func (x *illegalNet) run(t tb, src int, flits []hw.Flit, cycles int64) {
	t.Helper()
	n := x.n
	quiet := 0
	for c := int64(0); c < cycles; c++ {
		busy := false
		for s := 0; s < n.T.Switches; s++ {
			if n.EvalSwitch(s, c, 0) {
				busy = true
			}
		}
		if len(flits) > 0 && n.CanInject(src, c) {
			n.Inject(src, flits[0], c, 0)
			flits = flits[1:]
			busy = true
		}
		for v := 0; v < n.T.Nodes; v++ {
			if f, ok := n.RxFront(v, c); ok {
				n.RxPop(v, c)
				x.got[v] = append(x.got[v], f)
				busy = true
			}
		}
		if busy || len(flits) > 0 {
			quiet = 0
		} else if quiet++; quiet > 4*hw.MaxLinkLatency {
			return
		}
	}
	t.Fatalf("the network did not drain in %d cycles", cycles)
}

// allFree fails unless every FIFO slot of the network is free (every
// credit back at its sender by the end of the run) and no input still
// drops a packet or owns an output.
func (x *illegalNet) allFree(t tb) {
	t.Helper()
	n := x.n
	for i := range n.slots {
		if held(&n.slots[i]) || n.slots[i].when == deadRel {
			t.Fatalf("slot %d of FIFO %d still taken: a credit was lost", i%int(n.B), i/int(n.B))
		}
	}
	for i := range n.out {
		if n.out[i].owner >= 0 || n.out[i].inOwned >= 0 {
			t.Fatalf("output %d still owned (owner %d, input owns %d)", i, n.out[i].owner, n.out[i].inOwned)
		}
	}
	for f, d := range n.discarding {
		if d {
			t.Fatalf("input FIFO %d still dropping", f)
		}
	}
}

// head is a head flit to node dst (tail: a 1-flit packet).
func head(dst int, tail bool) hw.Flit {
	return hw.Flit{Dst: int32(dst), Src: 7, Gate: 3, Flags: hw.FlitFlags(true, tail)}
}

// oogHead is a head whose coordinate k is past its dimension (the wire
// address: coordinate k = dims[k], the others 0).
func (x *illegalNet) oogHead(k int, tail bool) hw.Flit {
	shift := 0
	for j := 0; j < k; j++ {
		shift += hw.Bits(x.dims[j])
	}
	f := hw.Flit{Dst: hw.NoNode, Src: 7, Gate: 3, Flags: hw.FlitFlags(true, tail)}
	f.SetDstAddr(uint64(x.dims[k]) << shift)
	return f
}

func payload(v uint64, tail bool) hw.Flit {
	return hw.Flit{Data: v, Flags: hw.FlitFlags(false, tail)}
}

func TestIllegalFlitCases(t *testing.T) {
	for _, c := range []struct {
		name  string
		flits func(x *illegalNet) []hw.Flit
		want  DropCounts
		// recv: the flits node 2 must pop (its packets), as "H", "P", "T"
		// (a head that is a tail: "HT") and "C" for a cut tail.
		recv string
	}{
		{"out-of-grid head and its packet", func(x *illegalNet) []hw.Flit {
			return []hw.Flit{x.oogHead(0, false), payload(1, false), payload(2, true), head(2, true)}
		}, DropCounts{OutOfGrid: 1, Flits: 3}, "HT"},
		{"out-of-grid 1-flit packet", func(x *illegalNet) []hw.Flit {
			return []hw.Flit{x.oogHead(1, true), head(2, false), payload(5, true)}
		}, DropCounts{OutOfGrid: 1, Flits: 1}, "HT"},
		{"orphan payload and tail", func(x *illegalNet) []hw.Flit {
			return []hw.Flit{payload(1, false), payload(2, true), head(2, true)}
		}, DropCounts{Orphan: 2, Flits: 2}, "HT"},
		{"head inside a packet", func(x *illegalNet) []hw.Flit {
			return []hw.Flit{head(2, false), payload(1, false), head(2, false), payload(9, true)}
		}, DropCounts{Cut: 1}, "HPCHT"},
		{"head after an out-of-grid head without its tail", func(x *illegalNet) []hw.Flit {
			return []hw.Flit{x.oogHead(0, false), payload(1, false), head(2, true)}
		}, DropCounts{OutOfGrid: 1, Cut: 1, Flits: 2}, "HT"},
		{"out-of-grid head inside a packet", func(x *illegalNet) []hw.Flit {
			return []hw.Flit{head(2, false), x.oogHead(1, false), payload(3, true), head(2, true)}
		}, DropCounts{OutOfGrid: 1, Cut: 1, Flits: 2}, "HCHT"},
	} {
		for _, L := range []int{1, 3} {
			for _, B := range []int{1, 4} {
				t.Run(fmt.Sprintf("%s/L%d-B%d", c.name, L, B), func(t *testing.T) {
					x := newIllegalNet(t, []int{3, 3}, B, L)
					x.run(t, 0, c.flits(x), 500)
					if got := x.n.Drops(0); got != c.want {
						t.Errorf("exchanger 0 counted %+v, want %+v", got, c.want)
					}
					for s := 1; s < x.n.T.Switches; s++ {
						if d := x.n.Drops(s); d.Any() {
							t.Errorf("switch %d counted %+v: only the exchanger of the sender meets the illegal flits", s, d)
						}
					}
					if got := marks(x.got[2]); got != c.recv {
						t.Errorf("node 2 popped %s, want %s", got, c.recv)
					}
					for v, fs := range x.got {
						if v != 2 {
							t.Errorf("node %d popped %s: only node 2 is a destination", v, marks(fs))
						}
					}
					x.allFree(t)
				})
			}
		}
	}
}

// marks writes flits as H (head), P (payload), T (tail), HT (1-flit
// packet), C (a cut tail: a tail with every bit 0).
func marks(fs []hw.Flit) string {
	s := ""
	for _, f := range fs {
		switch {
		case f.Head() && f.Tail():
			s += "HT"
		case f.Head():
			s += "H"
		case f.Tail() && f.Data == 0 && f.CRC == 0:
			s += "C"
		case f.Tail():
			s += "T"
		default:
			s += "P"
		}
	}
	return s
}

// TestIllegalFlitStreams: a random stream of flits (heads to random nodes
// or out of the grid, payload and tail flits, in any order) from one node
// of a random grid: the exchanger's counts are the ones the rules of
// docs/microarchitecture.md give, every destination pops exactly the
// packets the rules forward (cut tails included), the network drains and
// every credit is back.
func TestIllegalFlitStreams(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		nd := rapid.IntRange(1, 3).Draw(rt, "nd")
		dims := make([]int, nd)
		for k := range dims {
			dims[k] = rapid.IntRange(2, 5).Draw(rt, "d")
		}
		B := rapid.IntRange(1, 4).Draw(rt, "B")
		L := rapid.IntRange(1, 3).Draw(rt, "L")
		x := newIllegalNet(rt, dims, B, L)
		nodes := x.n.T.Nodes
		src := rapid.IntRange(0, nodes-1).Draw(rt, "src")
		var flits []hw.Flit
		for i := rapid.IntRange(1, 30).Draw(rt, "len"); i > 0; i-- {
			tail := rapid.Bool().Draw(rt, "tail")
			switch kind := rapid.IntRange(0, 3).Draw(rt, "kind"); {
			case kind == 0:
				flits = append(flits, head(rapid.IntRange(0, nodes-1).Draw(rt, "dst"), tail))
			case kind == 1 && hasOOG(dims):
				k := rapid.IntRange(0, nd-1).Draw(rt, "k")
				if dims[k]&(dims[k]-1) == 0 {
					flits = append(flits, head(0, tail)) // no address past a power of two
				} else {
					flits = append(flits, x.oogHead(k, tail))
				}
			default:
				flits = append(flits, payload(uint64(i), tail))
			}
		}
		// A last 1-flit packet ends whatever the stream left open.
		flits = append(flits, head(rapid.IntRange(0, nodes-1).Draw(rt, "last"), true))
		want, recv := reference(flits)
		x.run(rt, src, flits, 20000)
		if got := x.n.Drops(src); got != want {
			rt.Fatalf("exchanger %d counted %+v, the rules give %+v", src, got, want)
		}
		for s := 0; s < x.n.T.Switches; s++ {
			if d := x.n.Drops(s); s != src && d.Any() {
				rt.Fatalf("switch %d counted %+v (only the sender's exchanger meets illegal flits)", s, d)
			}
		}
		for v := 0; v < nodes; v++ {
			if got := marks(x.got[v]); got != recv[v] {
				rt.Fatalf("node %d popped %q, the rules forward %q", v, got, recv[v])
			}
		}
		x.allFree(rt)
	})
}

func hasOOG(dims []int) bool {
	for _, d := range dims {
		if d&(d-1) != 0 {
			return true
		}
	}
	return false
}

// reference applies the rules of an input to a stream in order: the
// counts, and what each destination pops (marks).
func reference(flits []hw.Flit) (DropCounts, map[int]string) {
	var d DropCounts
	recv := map[int]string{}
	const idle, owned, dropping = 0, 1, 2
	state, dst := idle, 0
	for _, f := range flits {
		if f.Head() {
			switch state {
			case owned:
				d.Cut++
				recv[dst] += "C"
			case dropping:
				d.Cut++
			}
			state = idle
			if f.Dst == hw.NoNode {
				d.OutOfGrid++
				d.Flits++
				if !f.Tail() {
					state = dropping
				}
				continue
			}
			dst = int(f.Dst)
			if f.Tail() {
				recv[dst] += "HT"
			} else {
				recv[dst] += "H"
				state = owned
			}
			continue
		}
		switch state {
		case owned:
			recv[dst] += marks([]hw.Flit{f})
			if f.Tail() {
				state = idle
			}
		case dropping:
			d.Flits++
			if f.Tail() {
				state = idle
			}
		default:
			d.Orphan++
			d.Flits++
		}
	}
	return d, recv
}

// The DROPS register packs the counts, each saturated at 255.
func TestDropRegister(t *testing.T) {
	d := DropCounts{OutOfGrid: 1, Orphan: 300, Cut: 255, Flits: 256}
	if got, want := d.Register(), uint32(0xFF_FF_FF_01); got != want {
		t.Fatalf("Register() = %08x, want %08x", got, want)
	}
	if (DropCounts{}).Any() || !(DropCounts{Cut: 1}).Any() {
		t.Fatal("Any")
	}
}
