package noc

import (
	"fmt"
	"math/rand/v2"
	"slices"
)

// CheckSamples is the number of (source, destination) pairs CheckByDimension
// walks on the whole torus.
const CheckSamples = 100_000

// CheckByDimension proves the routing of a torus (rings, mesh lines or a
// mix) of any size, where CheckFabric's all-pairs walk (N^2 paths) does not
// fit. Routing is dimension order and a router's choice in dimension k
// depends only on its own and the destination's coordinate k and on
// whether the flit arrived in dimension k on VC1 (Next): so a path is, one
// dimension after the other, exactly the path the one-dimensional torus of
// that dimension's size and wrap (its "line") routes between the two
// coordinates. The proof has three parts:
//
//  1. every distinct line (size, wrap) passes CheckFabric: every path
//     reaches its destination, is a shortest path (gonum Dijkstra) and the
//     line's channel dependency graph is acyclic (gonum topological sort);
//  2. samples random (source, destination) pairs of the whole torus are
//     walked (Walk, the routing function itself) and each path must be the
//     concatenation of its lines' paths, dimension 0 first;
//  3. then: the distance in the torus, a Cartesian product of its lines,
//     is the sum of the lines' distances, so every path is minimal; and a
//     dependency either stays on one line (an edge of that line's acyclic
//     graph) or goes from dimension j to a dimension k > j, so ordering the
//     channels by dimension, then by the line's topological order, orders
//     every dependency: the whole graph is acyclic.
//
// The report sums the lines' figures (each distinct line once) and adds the
// sampled pairs to Pairs; MaxHops is the sum of the lines' longest paths.
func CheckByDimension(t *Torus, samples int, seed uint64) (*CheckReport, error) {
	rep := &CheckReport{Minimal: true, Acyclic: true, Method: "by-dimension"}
	lines := make([]*Torus, len(t.Dims))
	done := map[[2]int]bool{}
	for k, d := range t.Dims {
		w := 0
		if t.Wrap[k] {
			w = 1
		}
		line, err := NewTorusWrap([]int{d}, []bool{t.Wrap[k]})
		if err != nil {
			return nil, err
		}
		lines[k] = line
		r, err := CheckFabric(line)
		if err != nil {
			return nil, fmt.Errorf("dimension %d (%d routers, wrap %v): %w", k, d, t.Wrap[k], err)
		}
		rep.Minimal = rep.Minimal && r.Minimal
		rep.Acyclic = rep.Acyclic && r.Acyclic
		rep.MaxHops += r.MaxHops
		if !done[[2]int{d, w}] {
			done[[2]int{d, w}] = true
			rep.Pairs += r.Pairs
			rep.Channels += r.Channels
			rep.Dependencies += r.Dependencies
		}
	}
	rng := rand.New(rand.NewPCG(seed, 0x6d657368))
	for range samples {
		src, dst := rng.IntN(t.Nodes), rng.IntN(t.Nodes)
		got, err := Walk(t, src, dst)
		if err != nil {
			return nil, err
		}
		want := make([]Output, 0, len(got))
		cur := src
		for k := range t.Dims {
			x, c := t.Coord(cur, k), t.Coord(dst, k)
			if x == c {
				continue
			}
			lp, err := Walk(lines[k], x, c)
			if err != nil {
				return nil, fmt.Errorf("dimension %d: %w", k, err)
			}
			for _, o := range lp[:len(lp)-1] { // the line's ejection is not a hop here
				want = append(want, Output{cur, 1 + 4*k + o.Port - 1})
				cur, _ = t.Neighbor(cur, 1+4*k+o.Port-1)
			}
		}
		want = append(want, Output{dst, 0})
		if !slices.Equal(got, want) {
			return nil, fmt.Errorf("path %d -> %d is %v, not its lines' paths %v", src, dst, got, want)
		}
		rep.Pairs++
	}
	return rep, nil
}
