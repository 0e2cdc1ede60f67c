package noc

import (
	"fmt"
	"strings"
	"testing"

	"github.com/hxbar/hxbar/hw"
)

// TestWiresJoinOneLink pins Fabric.Wire and Wires (fabric.go): outputs
// that share a wire move at most one flit per cycle between them, so a
// wire must join exactly one physical link. In full duplex a wire carries
// one direction of a link (a torus's two virtual channels share it); in
// half duplex (docs/microarchitecture.md, "Half duplex") both directions
// of one switch-to-switch link share it. Endpoint links never share. Wire
// ids are 0..Wires-1 and every id is used.
func TestWiresJoinOneLink(t *testing.T) {
	for _, f := range checkedFabrics(t) {
		for _, half := range []bool{false, true} {
			name := fmt.Sprintf("%s half=%v", fabricName(f), half)
			// dirs[w]: the ordered (switch, next switch) pairs on wire w.
			dirs := map[int]map[[2]int]bool{}
			for sw := 0; sw < f.NumSwitches(); sw++ {
				for p := 0; p < f.Ports(sw); p++ {
					w := f.Wire(sw, p, half)
					ns, _ := f.Neighbor(sw, p)
					if ns < 0 {
						if w != -1 {
							t.Fatalf("%s: endpoint output %s has wire %d", name, f.DescribeOutput(sw, p), w)
						}
						continue
					}
					if w == -1 {
						if f.Wires(half) != 0 && (half || f.Name() == "torus") {
							t.Fatalf("%s: %s has no wire", name, f.DescribeOutput(sw, p))
						}
						continue
					}
					if w < 0 || w >= f.Wires(half) {
						t.Fatalf("%s: %s: wire %d outside 0..%d", name, f.DescribeOutput(sw, p), w, f.Wires(half)-1)
					}
					if dirs[w] == nil {
						dirs[w] = map[[2]int]bool{}
					}
					dirs[w][[2]int{sw, ns}] = true
				}
			}
			// Every id is used, but those of the links a torus's mesh
			// lines lack (one per line and direction).
			want := f.Wires(half)
			if tor, ok := f.(*Torus); ok {
				for k, d := range tor.Dims {
					if !tor.Wrap[k] {
						if half {
							want -= tor.Nodes / d
						} else {
							want -= 2 * tor.Nodes / d
						}
					}
				}
			}
			if len(dirs) != want {
				t.Fatalf("%s: %d wires used, want %d (Wires says %d)", name, len(dirs), want, f.Wires(half))
			}
			for w, d := range dirs {
				var a, b int
				for pair := range d {
					a, b = pair[0], pair[1]
				}
				want := map[[2]int]bool{{a, b}: true}
				if half {
					want[[2]int{b, a}] = true
				}
				if len(d) != len(want) || !d[[2]int{a, b}] || !d[[2]int{b, a}] && half {
					t.Fatalf("%s: wire %d joins %v, want the one link %d-%d (both directions: %v)", name, w, d, a, b, half)
				}
			}
		}
	}
}

// TestNetworkConfigLimits: buffer_depth and link_latency take 1..Max
// (hw.MaxBufferDepth, hw.MaxLinkLatency) inclusive.
func TestNetworkConfigLimits(t *testing.T) {
	tp, _ := NewTopology([]int{2})
	for _, c := range []struct {
		cfg  Config
		want string // "" accepted
	}{
		{Config{BufferDepth: 1, LinkLatency: 1}, ""},
		{Config{BufferDepth: hw.MaxBufferDepth, LinkLatency: hw.MaxLinkLatency}, ""},
		{Config{BufferDepth: 0, LinkLatency: 1}, "invalid buffer_depth: 0"},
		{Config{BufferDepth: hw.MaxBufferDepth + 1, LinkLatency: 1}, fmt.Sprintf("invalid buffer_depth: %d (allowed: 1..%d)", hw.MaxBufferDepth+1, hw.MaxBufferDepth)},
		{Config{BufferDepth: 1, LinkLatency: 0}, "invalid link_latency: 0"},
		{Config{BufferDepth: 1, LinkLatency: hw.MaxLinkLatency + 1}, fmt.Sprintf("invalid link_latency: %d (allowed: 1..%d)", hw.MaxLinkLatency+1, hw.MaxLinkLatency)},
	} {
		_, err := NewNetwork(tp, c.cfg)
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("%+v: %v, want %q", c.cfg, err, c.want)
		}
	}
}

// TestSetFaultsRefusesChannelsOutOfRange: a fault's channel is an output
// of the network, 0..outputs-1, both ends accepted; either side is
// refused with the range.
func TestSetFaultsRefusesChannelsOutOfRange(t *testing.T) {
	tp, _ := NewTopology([]int{2, 2})
	n, err := NewNetwork(tp, Config{BufferDepth: 1, LinkLatency: 1})
	if err != nil {
		t.Fatal(err)
	}
	last := len(n.out) - 1
	for _, c := range []int{0, last} {
		if err := n.SetFaults([]LinkFault{{Kind: LinkDead, Channel: c}}, nil); err != nil {
			t.Fatalf("channel %d: %v", c, err)
		}
	}
	for _, c := range []int{-1, last + 1} {
		err := n.SetFaults([]LinkFault{{Kind: LinkDead, Channel: c}}, nil)
		if want := fmt.Sprintf("fault on channel %d: the network has channels 0..%d", c, last); err == nil || err.Error() != want {
			t.Errorf("channel %d: %v, want %q", c, err, want)
		}
	}
}

// TestFatTreeOutputsGoUpAndDown: ports 0..k-1 of a fat-tree switch go down
// (to level l-1, or to a node at level 0), ports k..2k-1 go up to level l+1
// (docs/networks.md), and DescribeOutput says which.
func TestFatTreeOutputsGoUpAndDown(t *testing.T) {
	for _, dims := range [][]int{{2, 2}, {4, 4}, {2, 2, 2}, {3, 3, 3}} {
		ft, err := NewFatTree(dims)
		if err != nil {
			t.Fatal(err)
		}
		for sw := 0; sw < ft.NumSwitches(); sw++ {
			l := ft.Level(sw)
			for p := 0; p < ft.Ports(sw); p++ {
				ns, np := ft.Neighbor(sw, p)
				d := ft.DescribeOutput(sw, p)
				switch {
				case ns < 0:
					if l != 0 || p >= ft.K || !strings.Contains(d, fmt.Sprintf("down %d -> node %d (ejection)", p, np)) {
						t.Fatalf("%v: switch %d port %d to node %d: %q", dims, sw, p, np, d)
					}
				case p >= ft.K:
					if ft.Level(ns) != l+1 || !strings.Contains(d, fmt.Sprintf(" up %d -> switch %d", p-ft.K, ns)) {
						t.Fatalf("%v: switch %d (level %d) port %d to switch %d (level %d): %q", dims, sw, l, p, ns, ft.Level(ns), d)
					}
				default:
					if ft.Level(ns) != l-1 || !strings.Contains(d, fmt.Sprintf(" down %d -> switch %d", p, ns)) {
						t.Fatalf("%v: switch %d (level %d) port %d to switch %d (level %d): %q", dims, sw, l, p, ns, ft.Level(ns), d)
					}
				}
			}
		}
	}
}

// portOut routes switch 0's traffic to a port that does not exist: p =
// Ports(0), the first past the end (or -1).
type portOut struct {
	*Torus
	p int
}

func (b portOut) Next(sw, in, dst int) int {
	if sw == 0 {
		return b.p
	}
	return b.Torus.Next(sw, in, dst)
}

// manyNodes claims n nodes and routes nowhere: CheckFabric must refuse it
// by size before walking when n > MaxCheckNodes, and walk (and fail on the
// route) at n = MaxCheckNodes.
type manyNodes struct {
	*Torus
	n int
}

func (m manyNodes) NumNodes() int            { return m.n }
func (m manyNodes) Attach(int) (int, int)    { return m.Torus.Attach(0) }
func (m manyNodes) Next(sw, in, dst int) int { return -1 }

func TestCheckFabricRefusesPortsOutOfRange(t *testing.T) {
	tor, _ := NewTorus([]int{4, 4})
	for _, p := range []int{-1, tor.Ports(0)} {
		want := fmt.Sprintf("switch 0: route to node 0 from input 0 gives port %d (allowed: 0..%d)", p, tor.Ports(0)-1)
		if _, err := CheckFabric(portOut{tor, p}); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("port %d: %v, want %q", p, err, want)
		}
		if _, err := Walk(portOut{tor, p}, 0, 5); err == nil || !strings.Contains(err.Error(), "gives port") {
			t.Errorf("walk with port %d: %v", p, err)
		}
	}
	if _, err := CheckFabric(manyNodes{tor, MaxCheckNodes + 1}); err == nil || !strings.Contains(err.Error(), "all-pairs limit") {
		t.Errorf("%d nodes: %v", MaxCheckNodes+1, err)
	}
	if _, err := CheckFabric(manyNodes{tor, MaxCheckNodes}); err == nil || strings.Contains(err.Error(), "all-pairs limit") || !strings.Contains(err.Error(), "gives port -1") {
		t.Errorf("%d nodes: %v, want the walk to start", MaxCheckNodes, err)
	}
}

// TestFabricSizeLimit: MaxFabricNodes nodes is allowed, one step more is not.
func TestFabricSizeLimit(t *testing.T) {
	for _, c := range []struct {
		name hw.Topology
		dims []int
	}{{"fattree", []int{16, 16, 16, 16}}, {"torus", []int{64, 64, 16}}} {
		if _, err := NewFabric(c.name, c.dims); err != nil {
			t.Errorf("%s %v (%d nodes): %v", c.name, c.dims, MaxFabricNodes, err)
		}
	}
}

// TestBusiestChannel: the statistic names the exchanger-crossbar channel
// that moved the most flits, by node, dimension and direction (up: the
// exchanger's port k+1 toward the crossbar; down: back to the exchanger).
// Each case has one strictly busiest channel: the order among equals is
// not specified.
func TestBusiestChannel(t *testing.T) {
	for _, c := range []struct {
		name   string
		inject [][2]int // (src, dst) packets of one flit, queued at cycle 0
		node   int
		dim    int
		up     bool
		flits  uint32
	}{
		// Node 5 = (1,1) sends 3 packets to node 13 = (1,3) and 2 to node
		// 9 = (1,2): dimension 1 only; node 5's channel up carries all 5,
		// the channels down into 13 and 9 carry 3 and 2.
		{"up dim 1", append(repeat([2]int{5, 13}, 3), repeat([2]int{5, 9}, 2)...), 5, 1, true, 5},
		// Nodes 0, 1, 3 send 2 packets each to node 2 along dimension 0:
		// the crossbar's channel down to node 2 (its port 2) carries all 6.
		{"down dim 0", append(append(repeat([2]int{0, 2}, 2), repeat([2]int{1, 2}, 2)...), repeat([2]int{3, 2}, 2)...), 2, 0, false, 6},
		// Nodes 1 = (1,0) and 9 = (1,2) send 3 packets each to node 5 =
		// (1,1) along dimension 1: down into node 5 from its dimension-1
		// crossbar's port 1.
		{"down dim 1", append(repeat([2]int{1, 5}, 3), repeat([2]int{9, 5}, 3)...), 5, 1, false, 6},
	} {
		h := newHarness(t, []int{4, 4}, Config{BufferDepth: 4, LinkLatency: 1})
		h.run(200, map[int64][][2]int{0: c.inject})
		node, dim, up, flits := h.n.BusiestChannel()
		if node != c.node || dim != c.dim || up != c.up || flits != c.flits {
			t.Errorf("%s: busiest channel node %d dim %d up %v with %d flits, want node %d dim %d up %v with %d",
				c.name, node, dim, up, flits, c.node, c.dim, c.up, c.flits)
		}
	}
}

func repeat(p [2]int, n int) [][2]int {
	var v [][2]int
	for range n {
		v = append(v, p)
	}
	return v
}
