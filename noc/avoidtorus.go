package noc

import (
	"fmt"
	"slices"
	"sort"
)

// avoidTorus is a torus whose rings send some destinations the other way
// round, away from dead link directions (docs/reliability.md).
type avoidTorus struct {
	*Torus
	rev map[[4]int]bool // (dimension k, ring, own coordinate, destination coordinate): reversed
}

// ring identifies router sw's ring in dimension k (its coordinate k zeroed).
func (t *Torus) ring(sw, k int) int { return sw - t.Coord(sw, k)*t.Stride[k] }

func (a *avoidTorus) dirPort(sw, dst int) int {
	for k, d := range a.Dims {
		x, c := a.Coord(sw, k), a.Coord(dst, k)
		if e := a.dir[k][x*d+c]; e != Pass {
			if a.rev[[4]int{k, a.ring(sw, k), x, c}] {
				e ^= 2 // + <-> -
			}
			return 1 + 4*k + int(e)
		}
	}
	return 0
}

// Next is Torus.Next over the reversed directions: the same dateline rule.
func (a *avoidTorus) Next(sw, in, dst int) int {
	e := a.dirPort(sw, dst)
	if e == 0 {
		return 0
	}
	if in == e+1 {
		return e + 1
	}
	k := (e - 1) / 4
	if !a.Wrap[k] {
		return e // a mesh line: no wrap link, VC0 (Torus.NextAddr)
	}
	x := a.Coord(sw, k)
	if (e-1)%4 == 0 && x == a.Dims[k]-1 || (e-1)%4 == 2 && x == 0 {
		return e + 1
	}
	return e
}

// Table is the direction table with the reversals.
func (a *avoidTorus) Table(sw int) []uint8 {
	tab := make([]uint8, a.Nodes)
	for dst := range tab {
		tab[dst] = uint8(a.dirPort(sw, dst))
	}
	return tab
}

// avoid routes a torus around dead channels: a dead virtual channel takes
// its link direction out (both virtual channels). On the dead link's
// ring, every (router, destination coordinate) pair whose path in its
// direction would cross the dead link goes the other way round: a longer
// path (up to K-1 hops) in the same dimension order, on which the dateline
// rule still crosses the wrap link at most once. CheckFabric proves the
// result (reachability, acyclic dependencies over the virtual channels),
// and every pair is walked for dead channels. A dead channel of a
// dimension that does not wrap (a mesh line, Torus.Wrap) has no other way
// round: an error.
func (t *Torus) avoid(dead []int) (*Avoid, *CheckReport, error) {
	if t.Nodes > MaxCheckNodes {
		return nil, nil, fmt.Errorf("avoid: %d nodes is beyond the all-pairs limit of %d", t.Nodes, MaxCheckNodes)
	}
	at := &avoidTorus{Torus: t, rev: map[[4]int]bool{}}
	deadDir := map[[2]int]bool{} // (router, port of VC0): the link direction is dead
	for _, c := range dead {
		sw, p := -1, -1
		if c < t.Switches*t.Ports(0) {
			sw, p = c/t.Ports(0), c%t.Ports(0)
		}
		if sw < 0 {
			v := c - t.Switches*t.Ports(0)
			return nil, nil, fmt.Errorf("avoid: n%d.inject is node %d's injection channel, its only way into the network", v, v)
		}
		if p == 0 {
			return nil, nil, fmt.Errorf("avoid: %s is node %d's ejection channel, its only way out of the network", ChannelName(t, sw, p), sw)
		}
		k, minus := (p-1)/4, (p-1)%4 >= 2
		if !t.Wrap[k] {
			// A mesh line has no other way round: the paths across the
			// link would need another dimension order.
			return nil, nil, fmt.Errorf("avoid: %s is on a mesh line (dimension %d does not wrap): no way round it in dimension order", ChannelName(t, sw, p), k)
		}
		vc0 := 1 + 4*k
		if minus {
			vc0 += 2
		}
		deadDir[[2]int{sw, vc0}] = true
		d, xk := t.Dims[k], t.Coord(sw, k)
		ring := t.ring(sw, k)
		for y := 0; y < d; y++ {
			for c := 0; c < d; c++ {
				e := t.dir[k][y*d+c]
				if e == Pass {
					continue
				}
				goesMinus := e == 2
				if at.rev[[4]int{k, ring, y, c}] {
					goesMinus = !goesMinus
				}
				if goesMinus != minus {
					continue
				}
				// Does the walk from y to c in this direction leave xk?
				crosses := false
				for z := y; z != c; {
					if z == xk {
						crosses = true
						break
					}
					if minus {
						z = (z + d - 1) % d
					} else {
						z = (z + 1) % d
					}
				}
				if crosses {
					at.rev[[4]int{k, ring, y, c}] = !at.rev[[4]int{k, ring, y, c}]
				}
			}
		}
	}
	rep, err := CheckFabric(at)
	if err != nil {
		return nil, nil, err
	}
	for src := 0; src < t.Nodes; src++ {
		for dst := 0; dst < t.Nodes; dst++ {
			path, err := Walk(at, src, dst)
			if err != nil {
				return nil, nil, err
			}
			for _, o := range path {
				if o.Port > 0 && deadDir[[2]int{o.Switch, 1 + 4*((o.Port-1)/4) + ((o.Port-1)%4)&2}] {
					return nil, nil, fmt.Errorf("path %d -> %d crosses the avoided link of %s", src, dst, ChannelName(t, o.Switch, o.Port))
				}
			}
		}
	}
	a := &Avoid{Dead: slices.Clone(dead), Except: make([]map[int32]uint8, t.Switches), Variant: -1, fabric: at}
	sort.Ints(a.Dead)
	a.Entries = len(at.rev)
	perSwitch := map[int]int{}
	for key := range at.rev {
		perSwitch[key[1]+key[2]*t.Stride[key[0]]]++
	}
	for _, n := range perSwitch {
		a.MaxEntries = max(a.MaxEntries, n)
	}
	return a, a.fill(t, rep), nil
}

// TorusReversed reports whether router sw of a torus routed around dead
// channels sends destination coordinate c of dimension k the other way
// round (its direction bit inverted; docs/reliability.md, "Torus"): the
// bits verilog.RouterProgram inverts in hx_router's PLUS(k). False
// without reversals.
func (a *Avoid) TorusReversed(sw, k, c int) bool {
	at, ok := a.fabric.(*avoidTorus)
	return ok && at.rev[[4]int{k, at.ring(sw, k), at.Coord(sw, k), c}]
}
