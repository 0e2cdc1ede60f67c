package noc

import (
	"fmt"
	"slices"
	"sort"
)

// exceptFabric is a fabric whose routing function takes exceptions first.
type exceptFabric struct {
	Fabric
	exc []map[int32]uint8
}

func (e exceptFabric) Next(sw, in, dst int) int {
	if m := e.exc[sw]; m != nil {
		if p, ok := m[int32(dst)]; ok {
			return int(p)
		}
	}
	return e.Fabric.Next(sw, in, dst)
}

// AvoidChannels routes fabric f around the dead channels (Channel.IDs of
// switch outputs) and proves the result: the hyper-crossbar with
// Topology.AvoidRoutes, the fat tree with FatTree.avoid (other spines),
// the torus with Torus.avoid (the other way round the ring).
func AvoidChannels(f Fabric, dead []int) (*Avoid, *CheckReport, error) {
	switch t := f.(type) {
	case *Topology:
		return t.AvoidRoutes(dead)
	case *FatTree:
		return t.avoid(dead)
	case *Torus:
		return t.avoid(dead)
	}
	return nil, nil, fmt.Errorf("avoid: routing around dead channels is not built for the %s", f.Name())
}

// avoid routes a fat tree around dead channels. A destination's paths go
// up, choosing up port k + r_l at level l, to the first switch above it,
// then down the unique way: with r the destination's own digits that is
// the generated routing. For a destination some path of which crosses a
// dead channel, avoid tries the other choices of r (each a different set
// of spines) until every source's path avoids them, and puts the changed
// up ports into exceptions. Every path still goes up, then down
// (up*/down*), so the dependency graph stays acyclic; CheckFabric proves
// it, and every pair is walked for dead channels.
func (f *FatTree) avoid(dead []int) (*Avoid, *CheckReport, error) {
	if f.Nodes > MaxCheckNodes {
		return nil, nil, fmt.Errorf("avoid: %d nodes is beyond the all-pairs limit of %d", f.Nodes, MaxCheckNodes)
	}
	isDead := map[[2]int]bool{}
	idx := 0
	owner := map[int][2]int{}
	for s := 0; s < f.Switches; s++ {
		for p := 0; p < f.Ports(s); p++ {
			owner[idx] = [2]int{s, p}
			idx++
		}
	}
	for _, c := range dead {
		sp, ok := owner[c]
		if !ok {
			return nil, nil, fmt.Errorf("avoid: n%d.inject is node %d's injection channel, its only way into the network", c-idx, c-idx)
		}
		if !f.IsChannel(sp[0], sp[1]) {
			return nil, nil, fmt.Errorf("avoid: %s is a node's ejection channel, its only way out of the network", ChannelName(f, sp[0], sp[1]))
		}
		isDead[sp] = true
	}
	a := &Avoid{Dead: slices.Clone(dead), Except: make([]map[int32]uint8, f.Switches), Variant: -1}
	sort.Ints(a.Dead)
	spines := f.pow[f.Levels-1] // choices of r: n-1 digits
	// walk follows src -> dst with up choices r; it reports whether the
	// path avoids the dead channels and marks the switches it goes up from.
	walk := func(src, dst, r int, up map[int]int) bool {
		s, _ := f.Attach(src)
		for {
			l, w := f.Level(s), f.Index(s)
			var p int
			if w/f.pow[l] == dst/f.pow[l+1] {
				p = f.digit(dst, l)
			} else {
				p = f.K + f.digit(r, l)
				if up != nil {
					up[s] = p
				}
			}
			if isDead[[2]int{s, p}] {
				return false
			}
			ns, _ := f.Neighbor(s, p)
			if ns < 0 {
				return true
			}
			s = ns
		}
	}
	for d := 0; d < f.Nodes; d++ {
		own := d % spines // r = the destination's digits 0..n-2
		found := false
		for i := 0; i < spines && !found; i++ {
			r := (own + i) % spines
			ok := true
			for src := 0; src < f.Nodes && ok; src++ {
				ok = walk(src, d, r, nil)
			}
			if !ok {
				continue
			}
			found = true
			if r == own {
				break
			}
			up := map[int]int{}
			for src := 0; src < f.Nodes; src++ {
				walk(src, d, r, up)
			}
			for s, p := range up {
				if p != f.Next(s, 0, d) {
					if a.Except[s] == nil {
						a.Except[s] = map[int32]uint8{}
					}
					a.Except[s][int32(d)] = uint8(p)
				}
			}
		}
		if !found {
			return nil, nil, fmt.Errorf("avoid: no spine reaches node %d from every node without the avoided channels", d)
		}
	}
	a.count()
	ef := exceptFabric{Fabric: f, exc: a.Except}
	rep, err := CheckFabric(ef)
	if err != nil {
		return nil, nil, err
	}
	for src := 0; src < f.Nodes; src++ {
		for dst := 0; dst < f.Nodes; dst++ {
			path, err := Walk(ef, src, dst)
			if err != nil {
				return nil, nil, err
			}
			for _, o := range path {
				if isDead[[2]int{o.Switch, o.Port}] {
					return nil, nil, fmt.Errorf("path %d -> %d crosses the avoided channel %s", src, dst, ChannelName(f, o.Switch, o.Port))
				}
			}
		}
	}
	return a, a.fill(f, rep), nil
}
