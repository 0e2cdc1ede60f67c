package noc

import (
	"strings"
	"testing"
)

// For every single dead network channel of a 4x4 and an 8x8 hyper-crossbar
// (the pivot column) and of 2x3x2 and 2x2x2 (shortest live next hops in
// tie-break orders) the exceptions route every pair around it, proved
// deadlock-free.
func TestAvoidEverySingleDeadChannel(t *testing.T) {
	for _, dims := range [][]int{{4, 4}, {8, 8}, {2, 3}, {3, 5}, {2, 3, 2}, {2, 2, 2}} {
		topo, err := NewTopology(dims)
		if err != nil {
			t.Fatal(err)
		}
		worst := 0
		for _, c := range Channels(topo) {
			if c.Kind != ChanNetwork {
				continue
			}
			a, rep, err := topo.AvoidRoutes([]int{c.ID})
			if err != nil {
				t.Fatalf("%v: avoid %s: %v", dims, c.Name, err)
			}
			if !rep.Acyclic || rep.Pairs != topo.Nodes*topo.Nodes || a.Entries == 0 {
				t.Fatalf("%v: avoid %s: %+v, %d exceptions", dims, c.Name, rep, a.Entries)
			}
			// A node whose dim-0 up link is dead goes through dim 1 first:
			// the fewest crossbars of any path without the dead link (a
			// path over it would take fewer), so the routes are minimal.
			if strings.HasSuffix(c.Name, ".d0.up") && !rep.Minimal {
				t.Fatalf("%v: avoid %s: not minimal without the dead channel: %+v", dims, c.Name, rep)
			}
			worst = max(worst, a.MaxEntries)
		}
		t.Logf("%v: at most %d exceptions in one switch", dims, worst)
	}
}

func TestAvoidRefusesNodeLinks(t *testing.T) {
	topo, _ := NewTopology([]int{4, 4})
	x := NewChannelIndex(topo)
	for _, n := range []string{"n3.eject", "n3.inject"} {
		id, _ := x.Parse(n)
		if _, _, err := topo.AvoidRoutes([]int{id}); err == nil {
			t.Errorf("avoid %s: no error", n)
		}
	}
	// A 1-D crossbar: a node's only up channel cannot be avoided.
	line, _ := NewTopology([]int{4})
	id, _ := NewChannelIndex(line).Parse("n1.d0.up")
	if _, _, err := line.AvoidRoutes([]int{id}); err == nil {
		t.Error("avoid the only up channel of a 1-D crossbar: no error")
	}
}

// Two dead channels: the pivot offsets are searched for one proof; count
// how many pairs of a 4x4's network channels can be avoided together.
func TestAvoidPairs(t *testing.T) {
	topo, _ := NewTopology([]int{4, 4})
	var net []Channel
	for _, c := range Channels(topo) {
		if c.Kind == ChanNetwork {
			net = append(net, c)
		}
	}
	ok, all := 0, 0
	for i := 0; i < len(net); i += 5 {
		for j := i + 1; j < len(net); j += 7 {
			all++
			if _, rep, err := topo.AvoidRoutes([]int{net[i].ID, net[j].ID}); err == nil && rep.Acyclic {
				ok++
			}
		}
	}
	t.Logf("4x4: %d of %d sampled pairs of dead channels avoided", ok, all)
	if ok == 0 {
		t.Error("no pair of dead channels avoided")
	}
}

// A fat tree: every single dead switch-to-switch channel of a 4-ary
// 3-tree (and a 2-ary 4-tree) is avoided by other spines, proved.
func TestAvoidFatTree(t *testing.T) {
	for _, dims := range [][]int{{4, 4, 4}, {2, 2, 2, 2}} {
		f, err := NewFatTree(dims)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range Channels(f) {
			if c.Kind != ChanNetwork {
				continue
			}
			a, rep, err := AvoidChannels(f, []int{c.ID})
			if err != nil || !rep.Acyclic || a.Entries == 0 {
				t.Fatalf("%v: avoid %s: %v", dims, c.Name, err)
			}
		}
	}
}

// A torus: every single dead virtual channel (its link direction) of a
// 4x4, a 3x5 and a 16-ring is avoided the other way round its ring,
// proved with the dateline virtual channels.
func TestAvoidTorus(t *testing.T) {
	for _, dims := range [][]int{{4, 4}, {3, 5}, {16}, {2, 2}} {
		tor, err := NewTorus(dims)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range Channels(tor) {
			if c.Kind != ChanNetwork {
				continue
			}
			a, rep, err := AvoidChannels(tor, []int{c.ID})
			if err != nil || !rep.Acyclic {
				t.Fatalf("%v: avoid %s: %v", dims, c.Name, err)
			}
			if a.Entries == 0 && dims[0] > 2 {
				t.Fatalf("%v: avoid %s: no reversal", dims, c.Name)
			}
		}
	}
	// With a mesh line (issue 12's wrap): a ring's channels are avoided
	// the other way round; a mesh line's have no other way, an error.
	tor, err := NewTorusWrap([]int{4, 3}, []bool{true, false})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range Channels(tor) {
		if c.Kind != ChanNetwork {
			continue
		}
		_, rep, err := AvoidChannels(tor, []int{c.ID})
		if ring := strings.Contains(c.Name, ".d0"); ring && (err != nil || !rep.Acyclic) {
			t.Fatalf("4x3 ring x mesh: avoid %s: %v", c.Name, err)
		} else if !ring && (err == nil || !strings.Contains(err.Error(), "mesh line")) {
			t.Fatalf("4x3 ring x mesh: avoid %s: %v, want the mesh line's error", c.Name, err)
		}
	}
}

// TestSetAvoidKeepsTrafficOffTheChannel: on a torus and a fat tree network
// SetAvoid takes the fabric's exceptions, and all-to-all traffic (drive
// checks every packet) then leaves alone a channel it uses without them;
// a hyper-crossbar network refuses a fabric's routing.
func TestSetAvoidKeepsTrafficOffTheChannel(t *testing.T) {
	for _, f := range []Fabric{mustFabric(t, "torus", 4, 3), mustFabric(t, "fattree", 4, 4)} {
		pkts := allToAll(f.NumNodes(), 3)
		n, err := NewFabricNetwork(f, Config{BufferDepth: 2, LinkLatency: 1})
		if err != nil {
			t.Fatal(err)
		}
		if res := drive(t, n, pkts, 100_000); !res.drained {
			t.Fatalf("%s: %d of %d packets delivered", fabricName(f), res.delivered, len(pkts))
		}
		dead := -1 // the first network channel the traffic uses
		for _, c := range Channels(f) {
			if c.Kind == ChanNetwork && n.sentBy(int32(c.ID)) > 0 {
				dead = c.ID
				break
			}
		}
		if dead < 0 {
			t.Fatalf("%s: no network channel carried a flit", fabricName(f))
		}
		a, _, err := AvoidChannels(f, []int{dead})
		if err != nil {
			t.Fatal(err)
		}
		n, err = NewFabricNetwork(f, Config{BufferDepth: 2, LinkLatency: 1})
		if err != nil {
			t.Fatal(err)
		}
		if err := n.SetAvoid(a); err != nil {
			t.Fatalf("%s: %v", fabricName(f), err)
		}
		if res := drive(t, n, pkts, 100_000); !res.drained {
			t.Fatalf("%s avoiding %d: %d of %d packets delivered", fabricName(f), dead, res.delivered, len(pkts))
		}
		if k := n.sentBy(int32(dead)); k != 0 {
			t.Fatalf("%s: the avoided channel %d carried %d flits", fabricName(f), dead, k)
		}
	}
	topo, _ := NewTopology([]int{4, 3})
	n, err := NewNetwork(topo, Config{BufferDepth: 2, LinkLatency: 1})
	if err != nil {
		t.Fatal(err)
	}
	a := &Avoid{Except: make([]map[int32]uint8, n.switches), fabric: mustFabric(t, "torus", 4, 3)}
	if err := n.SetAvoid(a); err == nil || !strings.Contains(err.Error(), "hyper-crossbar") {
		t.Fatalf("a torus's routing on a hyper-crossbar network: %v", err)
	}
}
