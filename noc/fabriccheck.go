package noc

import (
	"fmt"

	"gonum.org/v1/gonum/graph/path"
	"gonum.org/v1/gonum/graph/simple"
)

// CheckFabric proves a fabric's routing function (Fabric.Next, which reads
// the generated tables): for every (source, destination) pair it walks the
// path from the source's attach point and proves that it ends at the
// destination's endpoint port; that it is a shortest path in the switch
// graph, counted in links (gonum Dijkstra); and that the dependency graph
// over logical channels (switch, output port: one per virtual channel) is
// acyclic (gonum topological sort), so wormhole routing cannot deadlock.
//
// MaxHops is the longest path in network channels; MaxCrossbars is filled
// for the hyper-crossbar only.
func CheckFabric(f Fabric) (*CheckReport, error) {
	S, N := f.NumSwitches(), f.NumNodes()
	if N > MaxCheckNodes {
		return nil, fmt.Errorf("check: %d nodes is beyond the all-pairs limit of %d", N, MaxCheckNodes)
	}
	hx, _ := f.(*Topology)
	base := make([]int, S+1)
	for s := 0; s < S; s++ {
		base[s+1] = base[s] + f.Ports(s)
	}
	// The switch graph: one undirected edge per link (parallel links, as in
	// a 2-ring, collapse: they have the same length).
	sg := simple.NewUndirectedGraph()
	for s := 0; s < S; s++ {
		sg.AddNode(simple.Node(s))
	}
	for s := 0; s < S; s++ {
		for p := 0; p < f.Ports(s); p++ {
			if ns, _ := f.Neighbor(s, p); ns >= 0 && ns != s && !sg.HasEdgeBetween(int64(s), int64(ns)) {
				sg.SetEdge(sg.NewEdge(simple.Node(s), simple.Node(ns)))
			}
		}
	}
	cdg := simple.NewDirectedGraph()
	deps := map[[2]int]bool{}
	used := map[int]bool{}
	addNode := func(c int) {
		if cdg.Node(int64(c)) == nil {
			cdg.AddNode(simple.Node(c))
		}
	}
	rep := &CheckReport{Minimal: true}
	limit := base[S] + 1
	for src := 0; src < N; src++ {
		s0, in0 := f.Attach(src)
		dist := path.DijkstraFrom(simple.Node(s0), sg)
		for dst := 0; dst < N; dst++ {
			rep.Pairs++
			s, in, prev, hops, xbars := s0, in0, -1, 0, 0
			for {
				p := f.Next(s, in, dst)
				if p < 0 || p >= f.Ports(s) {
					return nil, fmt.Errorf("switch %d: route to node %d from input %d gives port %d (allowed: 0..%d)", s, dst, in, p, f.Ports(s)-1)
				}
				ns, np := f.Neighbor(s, p)
				if ns < 0 {
					if np != dst {
						return nil, fmt.Errorf("path %d -> %d ends at node %d's endpoint (%s)", src, dst, np, f.DescribeOutput(s, p))
					}
					break
				}
				ch := base[s] + p
				used[ch] = true
				if prev >= 0 && !deps[[2]int{prev, ch}] {
					deps[[2]int{prev, ch}] = true
					addNode(prev)
					addNode(ch)
					cdg.SetEdge(cdg.NewEdge(simple.Node(prev), simple.Node(ch)))
				}
				prev = ch
				if hx != nil && hx.IsCrossbar(s) {
					xbars++
				}
				s, in = ns, np
				if hops++; hops > limit {
					return nil, fmt.Errorf("path %d -> %d does not reach its destination within %d hops (routing loop)", src, dst, limit)
				}
			}
			rep.MaxHops = max(rep.MaxHops, hops)
			rep.MaxCrossbars = max(rep.MaxCrossbars, xbars)
			sd, _ := f.Attach(dst)
			if float64(hops) != dist.WeightTo(int64(sd)) {
				rep.Minimal = false
			}
		}
	}
	rep.Channels = len(used)
	rep.Dependencies = len(deps)
	return rep, proveAcyclic(cdg, rep)
}
