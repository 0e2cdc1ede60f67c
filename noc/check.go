package noc

import (
	"errors"
	"fmt"

	"gonum.org/v1/gonum/graph"
	"gonum.org/v1/gonum/graph/path"
	"gonum.org/v1/gonum/graph/simple"
	"gonum.org/v1/gonum/graph/topo"
)

// MaxCheckNodes bounds the all-pairs table check (it walks N^2 paths).
const MaxCheckNodes = 4096

// CheckReport summarises a proof of a set of routing tables.
type CheckReport struct {
	Pairs        int  `json:"pairs"`              // (source, destination) paths walked
	MaxCrossbars int  `json:"max_crossbars"`      // longest path, in crossbars crossed
	Channels     int  `json:"channels"`           // channels used by some path
	Dependencies int  `json:"dependencies"`       // edges of the channel dependency graph
	Minimal      bool `json:"minimal"`            // every path is a shortest path
	Acyclic      bool `json:"acyclic"`            // the dependency graph has no cycle
	MaxHops      int  `json:"max_hops,omitempty"` // longest path, in network channels (CheckFabric)
	// With avoided channels (CheckAvoid through AvoidRoutes): the
	// channels, the routing exceptions in all and in the fullest switch.
	Avoided       []string `json:"avoided,omitempty"`
	Exceptions    int      `json:"exceptions,omitempty"`
	MaxExceptions int      `json:"max_switch_exceptions,omitempty"`
	// Method is "by-dimension" for CheckByDimension's proof (empty: every
	// pair walked).
	Method string `json:"method,omitempty"`
}

// Check proves a set of routing tables (table(sw) for every switch) on this
// topology: from every source exchanger, the table walk reaches every
// destination's local port, every path is a shortest path in the switch graph
// (gonum Dijkstra), and the channel dependency graph is acyclic (gonum
// topological sort), so wormhole routing cannot deadlock.
func (t *Topology) Check(table func(sw int) []uint8) (*CheckReport, error) {
	if t.Nodes > MaxCheckNodes {
		return nil, fmt.Errorf("check: %d nodes is beyond the all-pairs limit of %d", t.Nodes, MaxCheckNodes)
	}
	tabs := make([][]uint8, t.Switches)
	for s := range tabs {
		tabs[s] = table(s)
		want := t.Dims[0]
		if !t.IsCrossbar(s) {
			want = t.Off[len(t.Off)-1] + t.Dims[len(t.Dims)-1]
		} else {
			want = t.Dims[t.XbarDim(s)]
		}
		if len(tabs[s]) != want {
			return nil, fmt.Errorf("switch %d: routing table has %d entries (allowed: %d)", s, len(tabs[s]), want)
		}
	}
	// Channel id = output port: switch s port p -> portID(s, p).
	base := make([]int, t.Switches+1)
	for s := 0; s < t.Switches; s++ {
		base[s+1] = base[s] + t.Ports(s)
	}
	sw := simple.NewUndirectedGraph()
	for s := 0; s < t.Switches; s++ {
		sw.AddNode(simple.Node(s))
	}
	for v := 0; v < t.Nodes; v++ {
		for k := range t.Dims {
			x, _ := t.Crossbar(v, k)
			sw.SetEdge(sw.NewEdge(simple.Node(v), simple.Node(x)))
		}
	}
	route := func(s, dst int) int { return t.Route(s, tabs[s], dst) }
	return t.walkPaths(route, "table entry", sw, base, nil, 2*len(t.Dims)+2)
}

// walkPaths follows the path of every (source, destination) pair, as
// route(switch, destination) gives each switch's output port: every path
// must reach its destination's local port within maxSteps switches and
// cross no channel in dead; it is minimal when its crossbars are as many
// as the shortest path in graph g (edges of weight 1, two per crossbar).
// The channels form the dependency graph whose acyclicity proveAcyclic
// proves. what names the routing in errors ("table entry", "route").
func (t *Topology) walkPaths(route func(s, dst int) int, what string, g graph.Graph, base []int, dead map[int]bool, maxSteps int) (*CheckReport, error) {
	cdg := simple.NewDirectedGraph()
	used := map[int]bool{}
	rep := &CheckReport{Minimal: true}
	for src := 0; src < t.Nodes; src++ {
		dist := path.DijkstraFrom(simple.Node(src), g)
		for dst := 0; dst < t.Nodes; dst++ {
			rep.Pairs++
			s, prev, steps, xbars := src, -1, 0, 0
			for {
				p := route(s, dst)
				if p < 0 || p >= t.Ports(s) {
					return nil, fmt.Errorf("switch %d: %s for node %d gives port %d (allowed: 0..%d)", s, what, dst, p, t.Ports(s)-1)
				}
				ch := base[s] + p
				if !t.IsCrossbar(s) && p == 0 {
					if s != dst {
						return nil, fmt.Errorf("path %d -> %d ends at node %d's local port", src, dst, s)
					}
					break
				}
				if dead[ch] {
					return nil, fmt.Errorf("path %d -> %d crosses the avoided channel %s", src, dst, ChannelName(t, s, p))
				}
				used[ch] = true
				if prev >= 0 && !cdg.HasEdgeFromTo(int64(prev), int64(ch)) {
					if cdg.Node(int64(prev)) == nil {
						cdg.AddNode(simple.Node(prev))
					}
					if cdg.Node(int64(ch)) == nil {
						cdg.AddNode(simple.Node(ch))
					}
					cdg.SetEdge(cdg.NewEdge(simple.Node(prev), simple.Node(ch)))
					rep.Dependencies++
				}
				prev = ch
				if t.IsCrossbar(s) {
					xbars++
				}
				s, _ = t.Neighbor(s, p)
				if steps++; steps > maxSteps {
					return nil, fmt.Errorf("path %d -> %d does not reach its destination within %d switches (routing loop)", src, dst, maxSteps)
				}
			}
			rep.MaxCrossbars = max(rep.MaxCrossbars, xbars)
			if float64(2*xbars) != dist.WeightTo(int64(dst)) {
				rep.Minimal = false
			}
		}
	}
	rep.Channels = len(used)
	return rep, proveAcyclic(cdg, rep)
}

// proveAcyclic sorts the channel dependency graph topologically (gonum) and
// sets rep.Acyclic, or names the size of a cycle: wormhole routing over an
// acyclic dependency graph cannot deadlock.
func proveAcyclic(cdg *simple.DirectedGraph, rep *CheckReport) error {
	if _, err := topo.Sort(cdg); err != nil {
		var u topo.Unorderable
		if errors.As(err, &u) && len(u) > 0 {
			return fmt.Errorf("channel dependency graph has a cycle through %d channels: wormhole routing can deadlock", len(u[0]))
		}
		return err
	}
	rep.Acyclic = true
	return nil
}
