package noc

import (
	"strings"
	"testing"

	"github.com/hxbar/hxbar/hw"
	"pgregory.net/rapid"
)

func TestCrossbarNumberingIsABijection(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		nd := rapid.IntRange(1, 4).Draw(rt, "nd")
		dims := make([]int, nd)
		for i := range dims {
			dims[i] = rapid.IntRange(2, 7).Draw(rt, "d")
		}
		tp, err := NewTopology(dims)
		if err != nil {
			rt.Fatal(err)
		}
		seen := map[[2]int]int{}
		for v := 0; v < tp.Nodes; v++ {
			for k := range dims {
				sw, p := tp.Crossbar(v, k)
				if !tp.IsCrossbar(sw) || tp.XbarDim(sw) != k {
					rt.Fatalf("node %d dim %d: switch %d is not a dim-%d crossbar", v, k, sw, k)
				}
				if got := tp.XbarNode(sw, p); got != v {
					rt.Fatalf("XbarNode(%d,%d) = %d, want %d", sw, p, got, v)
				}
				if prev, dup := seen[[2]int{sw, p}]; dup {
					rt.Fatalf("crossbar %d port %d used by nodes %d and %d", sw, p, prev, v)
				}
				seen[[2]int{sw, p}] = v
			}
		}
		if len(seen) != tp.Nodes*nd {
			rt.Fatalf("%d crossbar ports, want %d", len(seen), tp.Nodes*nd)
		}
	})
}

func TestGeneratedTablesAreMinimalAndDeadlockFree(t *testing.T) {
	for _, dims := range [][]int{{2}, {5}, {4, 4}, {3, 5}, {4, 4, 4}, {2, 3, 2, 3}, {8, 8}, {16, 16}} {
		tp, _ := NewTopology(dims)
		rep, err := tp.Check(tp.Table)
		if err != nil {
			t.Fatalf("%v: %v", dims, err)
		}
		if !rep.Minimal || !rep.Acyclic || rep.Pairs != tp.Nodes*tp.Nodes {
			t.Fatalf("%v: report %+v", dims, rep)
		}
		if rep.MaxCrossbars != len(dims) {
			t.Fatalf("%v: longest path crosses %d crossbars, want %d", dims, rep.MaxCrossbars, len(dims))
		}
	}
}

func TestCheckRejectsBrokenTables(t *testing.T) {
	tp, _ := NewTopology([]int{4, 4})
	// Node 5's exchanger sends dimension-0 traffic for coordinate 2 to the
	// local port: packets would be ejected at the wrong node.
	bad := func(sw int) []uint8 {
		tab := tp.Table(sw)
		if sw == 5 {
			tab[tp.Off[0]+2] = 0
		}
		return tab
	}
	if _, err := tp.Check(bad); err == nil || !strings.Contains(err.Error(), "local port") {
		t.Fatalf("misrouting table accepted: %v", err)
	}
	// Routing dimension 1 before dimension 0 at one exchanger and dimension 0
	// first elsewhere creates a cyclic channel dependency.
	mixed := func(sw int) []uint8 {
		tab := tp.Table(sw)
		if !tp.IsCrossbar(sw) && sw%2 == 1 {
			// Move in dim 1 first: mark dim 0 entries PASS and let dim 1 route;
			// then dim 0 is reached on the next exchanger.
			x := tp.Coord(sw, 1)
			for c := 0; c < 4; c++ {
				if c != x {
					tab[tp.Off[0]+c], tab[tp.Off[1]+c] = 2, 2
				}
			}
		}
		return tab
	}
	if _, err := tp.Check(mixed); err == nil {
		t.Fatal("mixed dimension order accepted")
	}
	short := func(sw int) []uint8 { return tp.Table(sw)[:1] }
	if _, err := tp.Check(short); err == nil || !strings.Contains(err.Error(), "entries") {
		t.Fatalf("short table accepted: %v", err)
	}
}

// harness drives a network with a trivial endpoint: inject packets, record
// ejection cycles.
type harness struct {
	n     *Network
	woken map[int64][]int32
}

func newHarness(t *testing.T, dims []int, cfg Config) *harness {
	tp, err := NewTopology(dims)
	if err != nil {
		t.Fatal(err)
	}
	n, err := NewNetwork(tp, cfg)
	if err != nil {
		t.Fatal(err)
	}
	h := &harness{n: n, woken: map[int64][]int32{}}
	return h
}

// run evaluates every switch every cycle (no skipping: the reference) and
// collects ejected flits per node as (cycle, flit).
func (h *harness) run(cycles int64, inject map[int64][][2]int) map[int][]int64 {
	out := map[int][]int64{}
	queue := map[int][]hw.Flit{}
	for t := int64(0); t < cycles; t++ {
		for _, pd := range inject[t] {
			queue[pd[0]] = append(queue[pd[0]], hw.Flit{Dst: int32(pd[1]), Src: int32(pd[0]), Flags: hw.FlitHead | hw.FlitTail})
		}
		for s := 0; s < h.n.T.Switches; s++ {
			h.n.EvalSwitch(s, t, 0)
		}
		for v := 0; v < h.n.T.Nodes; v++ {
			if q := queue[v]; len(q) > 0 && h.n.CanInject(v, t) {
				h.n.Inject(v, q[0], t, 0)
				queue[v] = q[1:]
			}
			if _, ok := h.n.RxFront(v, t); ok {
				h.n.RxPop(v, t)
				out[v] = append(out[v], t)
			}
		}
	}
	return out
}

func TestZeroLoadLatency(t *testing.T) {
	for _, L := range []int{1, 2, 3} {
		h := newHarness(t, []int{4, 4}, Config{BufferDepth: 4, LinkLatency: L})
		// 0 -> 1 crosses one crossbar: inject (t), exchanger (+1),
		// crossbar (+L), exchanger (+L), ejection FIFO (+1).
		got := h.run(40, map[int64][][2]int{0: {{0, 1}}, 1: {{2, 13}}, 20: {{5, 0}}})
		if want := int64(0 + 1 + L + L + 1); len(got[1]) != 1 || got[1][0] != want {
			t.Fatalf("L=%d: 1-crossbar packet popped at %v, want [%d]", L, got[1], want)
		}
		if want := int64(1 + 1 + 4*L + 1); len(got[13]) != 1 || got[13][0] != want {
			t.Fatalf("L=%d: 2-crossbar packet popped at %v, want [%d]", L, got[13], want)
		}
		// Into node 0, whose ejection FIFO is the first endpoint FIFO.
		if want := int64(20 + 1 + 4*L + 1); len(got[0]) != 1 || got[0][0] != want {
			t.Fatalf("L=%d: 2-crossbar packet to node 0 popped at %v, want [%d]", L, got[0], want)
		}
		if h.n.FlitHops() != 2+4+4 {
			t.Fatalf("L=%d: flit hops %d, want 10", L, h.n.FlitHops())
		}
	}
}

func TestCreditsThrottleAStream(t *testing.T) {
	// One node streams 20 one-flit packets to its dimension-0 neighbour.
	// With B >= 2L the stream runs at one flit per cycle; with B = 1 and L = 3
	// every hop waits for the credit round trip of 2L cycles.
	stream := map[int64][][2]int{}
	for i := int64(0); i < 20; i++ {
		stream[0] = append(stream[0], [2]int{0, 1})
	}
	fast := newHarness(t, []int{4}, Config{BufferDepth: 6, LinkLatency: 3}).run(200, stream)[1]
	slow := newHarness(t, []int{4}, Config{BufferDepth: 1, LinkLatency: 3}).run(400, stream)[1]
	if len(fast) != 20 || len(slow) != 20 {
		t.Fatalf("delivered %d and %d of 20", len(fast), len(slow))
	}
	for i := 1; i < 20; i++ {
		if fast[i]-fast[i-1] != 1 {
			t.Fatalf("B=6 L=3: gap %d at packet %d, want 1", fast[i]-fast[i-1], i)
		}
		if slow[i]-slow[i-1] != 6 {
			t.Fatalf("B=1 L=3: gap %d at packet %d, want 2L = 6", slow[i]-slow[i-1], i)
		}
	}
}

func TestRoundRobinSharesAnOutput(t *testing.T) {
	// Nodes 1, 2, 3 of a 4-ring each stream to node 0: the crossbar output to
	// node 0 is granted round robin, so deliveries alternate sources.
	inj := map[int64][][2]int{}
	for i := 0; i < 6; i++ {
		for _, s := range []int{1, 2, 3} {
			inj[0] = append(inj[0], [2]int{s, 0})
		}
	}
	h := newHarness(t, []int{4}, Config{BufferDepth: 4, LinkLatency: 1})
	got := h.run(100, inj)[0]
	if len(got) != 18 {
		t.Fatalf("delivered %d of 18", len(got))
	}
	for i := 1; i < len(got); i++ {
		if got[i]-got[i-1] != 1 {
			t.Fatalf("output idle at cycle %d while three inputs wait", got[i-1]+1)
		}
	}
}

func TestHalfDuplexSharesTheWire(t *testing.T) {
	// 0 and 1 stream to each other: full duplex moves both directions every
	// cycle, half duplex needs twice as long.
	inj := map[int64][][2]int{}
	for i := 0; i < 20; i++ {
		inj[0] = append(inj[0], [2]int{0, 1}, [2]int{1, 0})
	}
	full := newHarness(t, []int{2}, Config{BufferDepth: 4, LinkLatency: 1}).run(200, inj)
	half := newHarness(t, []int{2}, Config{BufferDepth: 4, LinkLatency: 1, HalfDuplex: true}).run(200, inj)
	lastF := max(full[0][19], full[1][19])
	lastH := max(half[0][19], half[1][19])
	if lastH < lastF+15 {
		t.Fatalf("half duplex finished at %d, full at %d: the wire is not shared", lastH, lastF)
	}
}

// TestOneFlitPerChannelPerCycle streams multi-flit packets from every node to
// a few hot destinations with deep buffers and checks, every cycle, that no
// FIFO receives more than one flit: an output whose owner sends its tail
// must not grant the next packet in the same cycle.
func TestOneFlitPerChannelPerCycle(t *testing.T) {
	for _, B := range []int{2, 4} {
		tp, _ := NewTopology([]int{4, 3})
		n, _ := NewNetwork(tp, Config{BufferDepth: B, LinkLatency: 2})
		type pkt struct{ dst, left int }
		queue := make([][]pkt, tp.Nodes)
		for v := range queue {
			for i := 0; i < 6; i++ {
				queue[v] = append(queue[v], pkt{dst: (v*7 + i) % 3, left: 3})
			}
		}
		delivered := 0
		prev := make([]uint32, len(n.fifo))
		for c := int64(0); c < 2000 && delivered < 6*tp.Nodes; c++ {
			for s := 0; s < tp.Switches; s++ {
				n.EvalSwitch(s, c, 0)
			}
			for v := 0; v < tp.Nodes; v++ {
				if q := queue[v]; len(q) > 0 && n.CanInject(v, c) {
					f := hw.Flit{Dst: int32(q[0].dst), Flags: hw.FlitFlags(q[0].left == 3, q[0].left == 1)}
					n.Inject(v, f, c, 0)
					if q[0].left--; q[0].left == 0 {
						queue[v] = q[1:]
					}
				}
				if f, ok := n.RxFront(v, c); ok {
					n.RxPop(v, c)
					if f.Tail() {
						delivered++
					}
				}
			}
			for f := range n.fifo {
				if d := n.pushes(int32(f)) - prev[f]; d > 1 {
					t.Fatalf("B=%d cycle %d: FIFO %d received %d flits", B, c, f, d)
				}
				prev[f] = n.pushes(int32(f))
			}
		}
		if delivered != 6*tp.Nodes {
			t.Fatalf("B=%d: delivered %d of %d packets", B, delivered, 6*tp.Nodes)
		}
	}
}

func TestTablesAreCachedByDimensions(t *testing.T) {
	a, _ := NewTopology([]int{3, 4})
	b, _ := NewTopology([]int{3, 4})
	ta, tb := a.Tables(), b.Tables()
	if &ta[0][0] != &tb[0][0] {
		t.Fatal("two topologies of the same dimensions did not share the cached tables")
	}
	for s := range ta {
		if string(ta[s]) != string(a.Table(s)) {
			t.Fatalf("cached table of switch %d differs from the generated one", s)
		}
	}
	c, _ := NewTopology([]int{4, 3})
	if tc := c.Tables(); string(tc[0]) == string(ta[0]) && len(tc) == len(ta) && string(tc[len(tc)-1]) == string(ta[len(ta)-1]) {
		t.Fatal("different dimensions share tables")
	}
}
