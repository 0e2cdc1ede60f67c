package noc

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/hxbar/hxbar/hw"
)

func mustFabric(t testing.TB, name hw.Topology, dims ...int) Fabric {
	t.Helper()
	f, err := NewFabric(name, dims)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// checkedFabrics are the sizes every fabric must pass the check at.
func checkedFabrics(t testing.TB) []Fabric {
	var fs []Fabric
	for k := 2; k <= 16; k++ {
		fs = append(fs, mustFabric(t, "torus", k))
	}
	fs = append(fs, mustFabric(t, "torus", 4, 4), mustFabric(t, "torus", 3, 3, 3),
		mustFabric(t, "torus", 4, 4, 4), mustFabric(t, "torus", 2, 3, 5), mustFabric(t, "torus", 2, 2, 2, 2))
	for n := 1; n <= 4; n++ {
		fs = append(fs, mustFabric(t, "fattree", make2(n, 2)...))
	}
	for n := 1; n <= 3; n++ {
		fs = append(fs, mustFabric(t, "fattree", make2(n, 4)...))
	}
	fs = append(fs, mustFabric(t, "fattree", 3, 3), mustFabric(t, "hyperxbar", 4, 4), mustFabric(t, "hyperxbar", 3, 2, 2))
	// Up to six dimensions, and meshes and mixed tori.
	fs = append(fs, mustFabric(t, "fattree", 2, 2, 2, 2, 2, 2), mustFabric(t, "hyperxbar", 2, 3, 2, 2, 3, 2),
		mustFabric(t, "torus", 2, 3, 2, 2, 3, 2))
	for _, c := range []struct {
		dims []int
		wrap []bool
	}{
		{[]int{2}, []bool{false}}, {[]int{7}, []bool{false}}, {[]int{16}, []bool{false}},
		{[]int{4, 4}, []bool{false, false}}, {[]int{5, 3}, []bool{true, false}}, {[]int{3, 5}, []bool{false, true}},
		{[]int{4, 3, 4, 2, 3, 2}, []bool{true, true, true, false, true, false}}, // Tofu-D's pattern
		{[]int{3, 2, 3, 2, 2, 2}, []bool{false, true, false, true, false, true}},
	} {
		f, err := NewTorusWrap(c.dims, c.wrap)
		if err != nil {
			t.Fatal(err)
		}
		fs = append(fs, f)
	}
	return fs
}

func make2(n, k int) []int {
	d := make([]int, n)
	for i := range d {
		d[i] = k
	}
	return d
}

func fabricName(f Fabric) string {
	switch f := f.(type) {
	case *Torus:
		return fmt.Sprint("torus", f.Dims, "wrap", f.Wrap)
	case *FatTree:
		return fmt.Sprint("fattree", f.Dims)
	case *Topology:
		return fmt.Sprint("hyperxbar", f.Dims)
	}
	return string(f.Name())
}

func TestEveryFabricPassesTheCheck(t *testing.T) {
	for _, f := range checkedFabrics(t) {
		rep, err := CheckFabric(f)
		if err != nil {
			t.Fatalf("%s: %v", fabricName(f), err)
		}
		N := f.NumNodes()
		if !rep.Minimal || !rep.Acyclic || rep.Pairs != N*N {
			t.Fatalf("%s: report %+v", fabricName(f), rep)
		}
		want := 0
		switch f := f.(type) {
		case *Torus:
			for k, d := range f.Dims {
				if f.Wrap[k] {
					want += d / 2 // a ring: half way round at most
				} else {
					want += d - 1 // a mesh line: end to end
				}
			}
		case *FatTree:
			want = 2 * (f.Levels - 1)
		case *Topology:
			want = 2 * len(f.Dims)
		}
		if rep.MaxHops != want {
			t.Fatalf("%s: longest path %d hops, want %d", fabricName(f), rep.MaxHops, want)
		}
	}
}

func TestCheckFabricAgreesWithTopologyCheck(t *testing.T) {
	for _, dims := range [][]int{{4}, {4, 4}, {2, 3, 2}} {
		tp, _ := NewTopology(dims)
		a, errA := tp.Check(tp.Table)
		b, errB := CheckFabric(tp)
		if errA != nil || errB != nil {
			t.Fatalf("%v: %v %v", dims, errA, errB)
		}
		if b.MaxHops != 2*b.MaxCrossbars {
			t.Fatalf("%v: %d hops, %d crossbars", dims, b.MaxHops, b.MaxCrossbars)
		}
		b.MaxHops = 0
		if !reflect.DeepEqual(a, b) {
			t.Fatalf("%v: Check %+v, CheckFabric %+v", dims, a, b)
		}
		// Next is the generated tables' route.
		for sw := 0; sw < tp.Switches; sw++ {
			for dst := 0; dst < tp.Nodes; dst++ {
				if got, want := tp.Next(sw, 0, dst), tp.Route(sw, tp.Table(sw), dst); got != want {
					t.Fatalf("%v: switch %d dst %d: Next %d, table %d", dims, sw, dst, got, want)
				}
			}
		}
	}
}

// Every output feeds exactly one input, endpoints sit where Attach says,
// and the torus/fat-tree tables are what Next routes by.
func TestFabricWiringAndTables(t *testing.T) {
	for _, f := range checkedFabrics(t) {
		fed := map[[2]int]bool{}
		ends := map[int]bool{}
		for sw := 0; sw < f.NumSwitches(); sw++ {
			for p := 0; p < f.Ports(sw); p++ {
				ns, np := f.Neighbor(sw, p)
				if ns < 0 && np < 0 { // the end of a torus's mesh line
					if tor, ok := f.(*Torus); !ok || tor.Wrap[(p-1)/4] || f.IsChannel(sw, p) || f.Wire(sw, p, false) != -1 || f.Wire(sw, p, true) != -1 {
						t.Fatalf("%s: %s is not connected", fabricName(f), f.DescribeOutput(sw, p))
					}
					continue
				}
				if ns < 0 {
					if as, ap := f.Attach(np); as != sw || ap != p || ends[np] || f.IsChannel(sw, p) {
						t.Fatalf("%s: endpoint %d at switch %d port %d, Attach (%d, %d)", fabricName(f), np, sw, p, as, ap)
					}
					ends[np] = true
					continue
				}
				if !f.IsChannel(sw, p) || np < 0 || np >= f.Ports(ns) || fed[[2]int{ns, np}] {
					t.Fatalf("%s: %s feeds switch %d input %d twice or out of range", fabricName(f), f.DescribeOutput(sw, p), ns, np)
				}
				fed[[2]int{ns, np}] = true
				// The link's other direction comes back.
				if bs, _ := f.Neighbor(ns, np); f.Name() == "fattree" && bs != sw {
					t.Fatalf("%s: %s: reverse goes to %d", fabricName(f), f.DescribeOutput(sw, p), bs)
				}
			}
		}
		if len(ends) != f.NumNodes() {
			t.Fatalf("%s: %d endpoints", fabricName(f), len(ends))
		}
		if f.Name() == "hyperxbar" {
			continue
		}
		for sw := 0; sw < f.NumSwitches(); sw++ {
			tab := f.Table(sw)
			for dst, e := range tab {
				for in := 0; in < f.Ports(sw); in++ {
					got := f.Next(sw, in, dst)
					if f.Name() == "torus" && got > 0 {
						got -= (got - 1) % 2 // strip the VC bit
					}
					if got != int(e) {
						t.Fatalf("%s: switch %d input %d dst %d: Next %d, table %d", fabricName(f), sw, in, dst, got, e)
					}
				}
			}
		}
	}
}

func TestNewFabricRejects(t *testing.T) {
	for _, c := range []struct {
		name hw.Topology
		dims []int
		want string
	}{
		{"mesh", []int{4}, `invalid topology: "mesh" (allowed: hyperxbar, torus, fattree)`},
		{"fattree", []int{4, 2}, "invalid dims[1]: 2 (allowed: 4, a fat tree's dims are all equal: a k-ary n-tree)"},
		{"fattree", []int{33}, "invalid dims[0]: 33"},
		{"fattree", []int{2, 2, 2, 2, 2, 2, 2}, "invalid dims"},
		{"fattree", []int{16, 16, 16, 16, 16, 16}, "at most 2097152 nodes"},
		{"torus", []int{64, 64, 64, 64}, "at most 2097152 nodes"},
		{"torus", []int{2, 2, 2, 2, 2, 2, 2}, "invalid dims"},
		{"torus", []int{1}, "invalid dims[0]: 1"},
		{"torus", []int{}, "invalid dims"},
	} {
		_, err := NewFabric(c.name, c.dims)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Fatalf("%s %v: error %v, want %q", c.name, c.dims, err, c.want)
		}
	}
}

func TestTorusHopCountsAndVCs(t *testing.T) {
	f := mustFabric(t, "torus", 16)
	for _, c := range []struct {
		src, dst int
		ports    []int // outputs taken, ejection last
	}{
		{0, 8, []int{1, 1, 1, 1, 1, 1, 1, 1, 0}},  // tie: +, no wrap
		{0, 15, []int{4, 0}},                      // - across the wrap: VC1
		{15, 7, []int{2, 2, 2, 2, 2, 2, 2, 2, 0}}, // + wraps at once, stays on VC1
		{13, 2, []int{1, 1, 2, 2, 2, 0}},          // VC0 up to the dateline, VC1 after
		{2, 13, []int{3, 3, 4, 4, 4, 0}},          // the same going -
		{5, 5, []int{0}},
	} {
		path, err := Walk(f, c.src, c.dst)
		if err != nil {
			t.Fatal(err)
		}
		var got []int
		for _, o := range path {
			got = append(got, o.Port)
		}
		if fmt.Sprint(got) != fmt.Sprint(c.ports) {
			t.Fatalf("%d -> %d: ports %v, want %v", c.src, c.dst, got, c.ports)
		}
	}
	// The network counts the same hops per flit.
	for _, c := range [][3]int{{0, 8, 8}, {0, 15, 1}, {3, 3, 0}} {
		n, _ := NewFabricNetwork(f, Config{BufferDepth: 2, LinkLatency: 2})
		res := drive(t, n, []tpkt{{src: c[0], dst: c[1], flits: 3}}, 1000)
		if !res.drained || n.FlitHops() != uint64(3*c[2]) {
			t.Fatalf("%d -> %d: drained %v, flit hops %d, want %d", c[0], c[1], res.drained, n.FlitHops(), 3*c[2])
		}
	}
	// A 2-ring routes + (the tie) over its two distinct links.
	two := mustFabric(t, "torus", 2)
	if p, _ := Walk(two, 0, 1); fmt.Sprint(p) != "[{0 1} {1 0}]" {
		t.Fatalf("2-ring 0 -> 1: %v", p)
	}
	if p, _ := Walk(two, 1, 0); fmt.Sprint(p) != "[{1 2} {0 0}]" {
		t.Fatalf("2-ring 1 -> 0: %v", p)
	}
}

func TestFatTreeHopCounts(t *testing.T) {
	f := mustFabric(t, "fattree", 4, 4, 4).(*FatTree)
	for _, c := range [][3]int{{0, 1, 0}, {0, 4, 2}, {0, 63, 4}, {17, 18, 0}, {17, 33, 4}} {
		p, err := Walk(f, c[0], c[1])
		if err != nil || len(p)-1 != c[2] {
			t.Fatalf("%d -> %d: %v hops, %v; want %d", c[0], c[1], len(p)-1, err, c[2])
		}
	}
	// Up ports spread by the destination's digits: 0 -> 63 climbs through
	// up port k+3 at levels 0 and 1.
	p, _ := Walk(f, 0, 63)
	if p[0].Port != 4+3 || p[1].Port != 4+3 {
		t.Fatalf("0 -> 63: %v", p)
	}
}

// noDateline keeps every packet on VC0: the ring's channel dependencies
// close a cycle.
type noDateline struct{ *Torus }

func (d noDateline) Next(sw, in, dst int) int {
	p := d.Torus.Next(sw, in, dst)
	if p > 0 && (p-1)%2 == 1 {
		p--
	}
	return p
}

// bounce is a 2-level fat tree that turns down, then up: a packet for
// another leaf first climbs to top switch a_0, which sends it back down to
// its own leaf, which sends it up again through top switch a_0+1.
type bounce struct{ *FatTree }

func (b bounce) Next(sw, in, dst int) int {
	k, l, w := b.K, b.Level(sw), b.Index(sw)
	a0 := dst % k
	switch {
	case l == 0 && in >= k && dst/k != w:
		return k + (a0+1)%k
	case l == 1 && in < k && w == a0:
		return in
	}
	return b.FatTree.Next(sw, in, dst)
}

func TestCheckFabricRejectsBadRouting(t *testing.T) {
	for _, dims := range [][]int{{4}, {5}, {16}, {4, 4}, {4, 4, 4}} {
		tor, _ := NewTorus(dims)
		rep, err := CheckFabric(noDateline{tor})
		if err == nil || !strings.Contains(err.Error(), "cycle") || rep.Acyclic {
			t.Fatalf("torus %v without a dateline: %v", dims, err)
		}
	}
	for _, k := range []int{2, 4} {
		ft, _ := NewFatTree([]int{k, k})
		rep, err := CheckFabric(bounce{ft})
		if err == nil || !strings.Contains(err.Error(), "cycle") || rep.Minimal {
			t.Fatalf("down-up fat tree k=%d: %v %+v", k, err, rep)
		}
	}
	// A fat tree that ejects at the wrong leaf port.
	ft, _ := NewFatTree([]int{4, 4})
	if _, err := CheckFabric(wrongLeaf{ft}); err == nil || !strings.Contains(err.Error(), "endpoint") {
		t.Fatalf("misrouting accepted: %v", err)
	}
}

type wrongLeaf struct{ *FatTree }

func (w wrongLeaf) Next(sw, in, dst int) int {
	p := w.FatTree.Next(sw, in, dst)
	if sw == 0 && dst == 2 {
		return 3
	}
	return p
}

// tpkt is one test packet; drive numbers them in order.
type tpkt struct{ src, dst, flits int }

type driveResult struct {
	drained   bool
	cycles    int64
	delivered int
	// wireShared: some wire carried flits from two different outputs.
	wireShared bool
}

// drive runs packets through a network, evaluating every switch every
// cycle in id order, one injection and one ejection per node per cycle, and
// checks that every packet arrives exactly once, whole and contiguous, at
// its destination, in order per (source, destination), and that no wire
// moves two flits in one cycle. It stops when all are delivered, after
// maxCycles, or after 2000 cycles without any flit moving (deadlock).
func drive(t testing.TB, n *Network, pkts []tpkt, maxCycles int64) driveResult {
	t.Helper()
	return driveWith(t, n, pkts, maxCycles, false)
}

// driveWith is drive; with prefetch it runs every prefetch stage of a
// switch (PrefetchSwitch) before the switch's evaluation, as the engine
// does for large networks.
func driveWith(t testing.TB, n *Network, pkts []tpkt, maxCycles int64, prefetch bool) driveResult {
	t.Helper()
	N := n.nodes
	queue := make([][]int, N) // packet ids per source
	for id, p := range pkts {
		queue[p.src] = append(queue[p.src], id)
	}
	sent := make([]int, N) // flits of the front packet sent
	cur := make([]int, N)  // packet being ejected at node, or -1
	got := make([]int, N)  // its flits received
	for i := range cur {
		cur[i] = -1
	}
	nextSeq := map[[2]int]int{} // (src, dst) -> next packet id expected, by order
	order := map[[2]int][]int{}
	for id, p := range pkts {
		order[[2]int{p.src, p.dst}] = append(order[[2]int{p.src, p.dst}], id)
	}
	done := make([]bool, len(pkts))
	var res driveResult
	prevSent := make([]uint32, len(n.out))
	wireAt := make([]int64, n.F.Wires(n.cfg.HalfDuplex))
	wireBy := make([]int32, len(wireAt))
	for i := range wireAt {
		wireAt[i], wireBy[i] = -1, -1
	}
	idle := int64(0)
	var c int64
	for c = 0; c < maxCycles && res.delivered < len(pkts); c++ {
		moved := false
		for s := 0; s < n.switches; s++ {
			for stage := 0; prefetch && stage < 4; stage++ {
				n.PrefetchSwitch(s, stage)
			}
			n.EvalSwitch(s, c, 0)
		}
		for v := 0; v < N; v++ {
			if q := queue[v]; len(q) > 0 && n.CanInject(v, c) {
				p := pkts[q[0]]
				i := sent[v]
				n.Inject(v, hw.Flit{Dst: int32(p.dst), Src: int32(v), Data: uint64(q[0])<<16 | uint64(i), Flags: hw.FlitFlags(i == 0, i == p.flits-1)}, c, 0)
				moved = true
				if sent[v]++; sent[v] == p.flits {
					queue[v], sent[v] = q[1:], 0
				}
			}
			fl, ok := n.RxFront(v, c)
			if !ok {
				continue
			}
			n.RxPop(v, c)
			moved = true
			id, idx := int(fl.Data>>16), int(fl.Data&0xFFFF)
			if id >= len(pkts) || pkts[id].dst != v || int(fl.Src) != pkts[id].src {
				t.Fatalf("cycle %d: node %d received a flit of packet %d (%+v)", c, v, id, fl)
			}
			if fl.Head() != (idx == 0) || fl.Tail() != (idx == pkts[id].flits-1) {
				t.Fatalf("cycle %d: packet %d flit %d has head %v tail %v", c, id, idx, fl.Head(), fl.Tail())
			}
			if fl.Head() {
				if cur[v] >= 0 {
					t.Fatalf("cycle %d: node %d: packet %d starts inside packet %d", c, v, id, cur[v])
				}
				key := [2]int{pkts[id].src, v}
				if want := order[key][nextSeq[key]]; want != id {
					t.Fatalf("cycle %d: node %d: packet %d from %d arrived, expected %d first", c, v, id, key[0], want)
				}
				nextSeq[key]++
				cur[v], got[v] = id, 0
			}
			if cur[v] != id || got[v] != idx || done[id] {
				t.Fatalf("cycle %d: node %d: flit %d of packet %d, expected flit %d of packet %d", c, v, idx, id, got[v], cur[v])
			}
			got[v]++
			if fl.Tail() {
				done[id], cur[v] = true, -1
				res.delivered++
			}
		}
		for o := range n.out {
			if n.sentBy(int32(o)) == prevSent[o] {
				continue
			}
			if d := n.sentBy(int32(o)) - prevSent[o]; d > 1 {
				t.Fatalf("cycle %d: output %d sent %d flits", c, o, d)
			}
			prevSent[o] = n.sentBy(int32(o))
			moved = true
			if w := wireOf(n, o); w >= 0 {
				if wireAt[w] == c {
					t.Fatalf("cycle %d: wire %d carried two flits", c, w)
				}
				if wireBy[w] >= 0 && wireBy[w] != int32(o) {
					res.wireShared = true
				}
				wireAt[w], wireBy[w] = c, int32(o)
			}
		}
		if moved {
			idle = 0
		} else if idle++; idle > 2000 {
			break
		}
	}
	res.cycles = c
	res.drained = res.delivered == len(pkts)
	return res
}

func randomPackets(rng *rand.Rand, N, count, maxFlits int) []tpkt {
	pk := make([]tpkt, count)
	for i := range pk {
		pk[i] = tpkt{src: rng.IntN(N), dst: rng.IntN(N), flits: 1 + rng.IntN(maxFlits)}
	}
	return pk
}

func TestNetworkDeliversRandomTraffic(t *testing.T) {
	fabrics := []Fabric{
		mustFabric(t, "torus", 2), mustFabric(t, "torus", 5), mustFabric(t, "torus", 8),
		mustFabric(t, "torus", 4, 3), mustFabric(t, "torus", 3, 2, 3),
		mustFabric(t, "fattree", 2, 2, 2), mustFabric(t, "fattree", 4, 4), mustFabric(t, "fattree", 3),
		mustFabric(t, "hyperxbar", 4, 3),
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for _, f := range fabrics {
		for _, half := range []bool{false, true} {
			for B := 1; B <= 4; B++ {
				for L := 1; L <= 3; L++ {
					n, err := NewFabricNetwork(f, Config{BufferDepth: B, LinkLatency: L, HalfDuplex: half})
					if err != nil {
						t.Fatal(err)
					}
					count := 600
					if testing.Short() {
						count = 250
					}
					res := drive(t, n, randomPackets(rng, f.NumNodes(), count, 6), 200_000)
					if !res.drained {
						t.Fatalf("%s half=%v B=%d L=%d: delivered %d of %d by cycle %d", fabricName(f), half, B, L, res.delivered, count, res.cycles)
					}
				}
			}
		}
	}
}

// allToAll: every node sends one packet of the given length to every other
// node, in a rotated order.
func allToAll(N, flits int) []tpkt {
	var pk []tpkt
	for r := 1; r < N; r++ {
		for v := 0; v < N; v++ {
			pk = append(pk, tpkt{src: v, dst: (v + r) % N, flits: flits})
		}
	}
	return pk
}

func TestRingSaturationDrainsWithTheDateline(t *testing.T) {
	for _, k := range []int{4, 8, 16} {
		tor, _ := NewTorus([]int{k})
		for _, cfg := range []Config{{BufferDepth: 1, LinkLatency: 1}, {BufferDepth: 2, LinkLatency: 2}, {BufferDepth: 2, LinkLatency: 1, HalfDuplex: true}} {
			n, _ := NewFabricNetwork(tor, cfg)
			pk := allToAll(k, 16)
			if res := drive(t, n, pk, 1_000_000); !res.drained {
				t.Fatalf("ring %d %+v: delivered %d of %d (deadlock?)", k, cfg, res.delivered, len(pk))
			}
			// The same load on one virtual channel deadlocks.
			bad, _ := NewFabricNetwork(noDateline{tor}, cfg)
			if res := drive(t, bad, pk, 1_000_000); res.drained {
				t.Fatalf("ring %d %+v: drained without the dateline; the test cannot tell", k, cfg)
			}
		}
	}
	for _, f := range []Fabric{mustFabric(t, "torus", 4, 4), mustFabric(t, "torus", 3, 4, 2), mustFabric(t, "fattree", 4, 4), mustFabric(t, "fattree", 2, 2, 2, 2)} {
		for _, half := range []bool{false, true} {
			n, _ := NewFabricNetwork(f, Config{BufferDepth: 1, LinkLatency: 2, HalfDuplex: half})
			if res := drive(t, n, allToAll(f.NumNodes(), 12), 1_000_000); !res.drained {
				t.Fatalf("%s half=%v: delivered %d (deadlock?)", fabricName(f), half, res.delivered)
			}
		}
	}
}

// On a torus link both virtual channels (and, with half duplex, both
// directions) share one wire: drive checks at most one flit per wire per
// cycle; here the load makes both VCs use the same wires.
func TestTorusLinkMovesOneFlitPerCycle(t *testing.T) {
	for _, half := range []bool{false, true} {
		tor, _ := NewTorus([]int{6})
		n, _ := NewFabricNetwork(tor, Config{BufferDepth: 2, LinkLatency: 1, HalfDuplex: half})
		res := drive(t, n, allToAll(6, 5), 100_000)
		if !res.drained || !res.wireShared {
			t.Fatalf("half=%v: drained %v, a wire carried two VCs: %v", half, res.drained, res.wireShared)
		}
		// Every flit-hop crossed a wire, and the busiest link direction
		// carried at most one flit per cycle in total.
		per := map[int32]uint32{}
		for sw := 0; sw < tor.Switches; sw++ {
			for p := 1; p < tor.Ports(sw); p++ {
				per[wireOf(n, n.portBase[sw]+int32(p))] += n.OutputFlits(sw, p)
			}
		}
		for w, f := range per {
			if int64(f) > res.cycles {
				t.Fatalf("half=%v: wire %d carried %d flits in %d cycles", half, w, f, res.cycles)
			}
		}
	}
	// Full duplex, one direction: a stream on VC0 and a stream on VC1 of the
	// same link share its flits: 2 x 40 flits need >= 80 cycles on the link.
	tor, _ := NewTorus([]int{8})
	n, _ := NewFabricNetwork(tor, Config{BufferDepth: 4, LinkLatency: 1})
	// 0 -> 2 crosses router 0's + link on VC0; 6 -> 2 (distance 4, a tie:
	// +) wraps at 7 -> 0 and crosses it on VC1.
	var pk []tpkt
	for i := 0; i < 10; i++ {
		pk = append(pk, tpkt{src: 0, dst: 2, flits: 4}, tpkt{src: 6, dst: 2, flits: 4})
	}
	res := drive(t, n, pk, 10_000)
	vc0, vc1 := n.OutputFlits(0, 1), n.OutputFlits(0, 2)
	if !res.drained || vc0 != 40 || vc1 != 40 || !res.wireShared {
		t.Fatalf("router 0 + link: VC0 %d VC1 %d flits, shared %v", vc0, vc1, res.wireShared)
	}
	if sw, p, fl := n.BusiestOutput(); fl != 40 || n.DescribeOutput(sw, p) == "" {
		t.Fatalf("busiest %d %d %d", sw, p, fl)
	}
	if got := n.DescribeOutput(0, 2); got != "router 0 dim 0 + VC1 -> router 1" {
		t.Fatalf("describe: %q", got)
	}
}

func TestFabricNetworkElementsAndInject(t *testing.T) {
	ft, _ := NewFatTree([]int{4, 4})
	n, err := NewFabricNetwork(ft, Config{BufferDepth: 2, LinkLatency: 1})
	if err != nil {
		t.Fatal(err)
	}
	if n.Elements() != ft.Switches+ft.Nodes || n.T != nil || n.F != ft {
		t.Fatalf("elements %d", n.Elements())
	}
	var woke []int32
	n.Wake = func(_ int, e int32, at int64) { woke = append(woke, e) }
	n.Inject(13, hw.Flit{Dst: 2, Flags: hw.FlitHead | hw.FlitTail}, 0, 0)
	if sw, _ := ft.Attach(13); len(woke) != 1 || woke[0] != int32(sw) {
		t.Fatalf("inject woke %v, want leaf %d", woke, sw)
	}
	// Leaf 3 sends it up (port k + a_0 = 4+2), to level 1.
	n.EvalSwitch(3, 1, 0)
	if n.OutputFlits(3, 6) != 1 || n.FlitHops() != 1 {
		t.Fatalf("leaf 3 outputs: %d, hops %d", n.OutputFlits(3, 6), n.FlitHops())
	}
	if _, err := NewFabricNetwork(ft, Config{BufferDepth: 0, LinkLatency: 1}); err == nil {
		t.Fatal("buffer depth 0 accepted")
	}
	hx, _ := NewTopology([]int{4, 4})
	if n, _ := NewFabricNetwork(hx, Config{BufferDepth: 2, LinkLatency: 1}); n.T != hx || n.gen != nil {
		t.Fatal("hyper-crossbar did not take the table-driven path")
	}
}

// wireOf is output o's shared wire (-1: none), as the fabric gives it.
func wireOf[I int | int32](n *Network, o I) int32 {
	if n.wire != nil {
		return n.wire[o]
	}
	if int32(o) >= n.rxBase {
		return -1
	}
	sw := sort.Search(n.switches, func(s int) bool { return n.portBase[s+1] > int32(o) })
	return int32(n.F.Wire(sw, int(int32(o)-n.portBase[sw]), n.cfg.HalfDuplex))
}
