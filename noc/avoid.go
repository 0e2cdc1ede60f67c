package noc

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"

	"gonum.org/v1/gonum/graph/simple"
)

// Avoid is a hyper-crossbar's routing around dead channels
// (docs/reliability.md, "Routing around a dead channel"): the generated
// tables, plus per-switch exceptions (destination node -> output port)
// looked up before the table. A switch whose dimension-order route to a
// destination still is a shortest path without the dead channels keeps
// it; every other (switch, destination) pair gets an exception naming an
// output on a shortest live path. So an unaffected packet takes exactly its
// old route, and the tables of the RTL would gain a small exception list
// per switch rather than change format.
type Avoid struct {
	Dead []int // the avoided channels (Channel.ID, switch outputs)
	// Except[sw] maps a destination node to the output port switch sw
	// uses for it instead of its table's (nil: no exception).
	Except []map[int32]uint8
	// Entries is the number of exceptions over all switches; MaxEntries
	// the most in one switch.
	Entries, MaxEntries int
	// Variant is the tie-break order that gave an acyclic dependency graph
	// (0: the first tried).
	Variant int
	// fabric, when set, is a routing function that replaces the fabric's
	// (a torus with reversed ring directions); Except is then unused and
	// Entries counts the reversed (router, destination coordinate) pairs.
	fabric Fabric
}

// maxAvoidVariants bounds the tie-break orders AvoidRoutes tries before it
// gives up on finding deadlock-free exceptions.
const maxAvoidVariants = 64

// AvoidRoutes computes the exceptions that keep every route off the dead
// channels (ids of switch outputs: Channel.ID), and proves them with
// CheckAvoid (every pair reaches its destination without a dead channel,
// the channel dependency graph is acyclic). Among the shortest live next
// hops a switch prefers its table's, then the others in a tie-break order;
// when the dependency graph of one order has a cycle, the next order is
// tried.
func (t *Topology) AvoidRoutes(dead []int) (*Avoid, *CheckReport, error) {
	if t.Nodes > MaxCheckNodes {
		return nil, nil, fmt.Errorf("avoid: %d nodes is beyond the all-pairs limit of %d", t.Nodes, MaxCheckNodes)
	}
	isDead := map[int]bool{}
	owner := map[int][2]int{} // channel id -> (switch, port)
	id := 0
	for s := 0; s < t.Switches; s++ {
		for p := 0; p < t.Ports(s); p++ {
			owner[id] = [2]int{s, p}
			id++
		}
	}
	for _, c := range dead {
		sp, ok := owner[c]
		if !ok {
			return nil, nil, fmt.Errorf("avoid: n%d.inject is node %d's injection channel, its only way into the network", c-id, c-id)
		}
		if !t.IsChannel(sp[0], sp[1]) {
			return nil, nil, fmt.Errorf("avoid: %s is node %d's ejection channel, its only way out of the network", ChannelName(t, sp[0], sp[1]), sp[0])
		}
		isDead[c] = true
	}
	// in[s]: the live channels into switch s, as (from switch, its port).
	in := make([][][2]int, t.Switches)
	for s := 0; s < t.Switches; s++ {
		for p := 0; p < t.Ports(s); p++ {
			if ns, _ := t.Neighbor(s, p); ns >= 0 && !isDead[ChannelID(t, s, p)] {
				in[ns] = append(in[ns], [2]int{s, p})
			}
		}
	}
	base := make([]int, t.Switches+1)
	for s := 0; s < t.Switches; s++ {
		base[s+1] = base[s] + t.Ports(s)
	}
	var lastErr error
	// Two dimensions: the pivot-column construction (avoid2D), proved by
	// CheckAvoid; several dead channels merge their exceptions.
	if len(t.Dims) == 2 {
		// The pivot column and row offsets: 1 first (c* = a+1, z* = b+1),
		// then the others, the same for every dead channel.
		for dc := 1; dc < t.Dims[0]; dc++ {
			for dz := 1; dz < t.Dims[1]; dz++ {
				a := &Avoid{Dead: slices.Clone(dead), Except: make([]map[int32]uint8, t.Switches), Variant: -1}
				sort.Ints(a.Dead)
				for _, c := range a.Dead {
					t.avoid2D(a, owner[c][0], owner[c][1], dc, dz)
				}
				a.count()
				rep, err := t.CheckAvoid(a)
				if err == nil {
					return a, a.fill(t, rep), nil
				}
				if lastErr == nil {
					lastErr = err
				}
				if len(dead) == 1 {
					break // one channel: the first offsets always do (TestAvoidEverySingleDeadChannel)
				}
			}
			if len(dead) == 1 {
				break
			}
		}
	}
	for v := 0; v < maxAvoidVariants; v++ {
		a := &Avoid{Dead: slices.Clone(dead), Except: make([]map[int32]uint8, t.Switches), Variant: v}
		sort.Ints(a.Dead)
		rng := rand.New(rand.NewPCG(uint64(v), 0x5eed))
		dist := make([]int, t.Switches)
		queue := make([]int, 0, t.Switches)
		for d := 0; d < t.Nodes; d++ {
			for i := range dist {
				dist[i] = -1
			}
			dist[d] = 0
			queue = append(queue[:0], d)
			for i := 0; i < len(queue); i++ {
				s := queue[i]
				for _, e := range in[s] {
					if dist[e[0]] < 0 {
						dist[e[0]] = dist[s] + 1
						queue = append(queue, e[0])
					}
				}
			}
			for s := 0; s < t.Switches; s++ {
				if s == d {
					continue
				}
				if dist[s] < 0 {
					if !t.IsCrossbar(s) {
						return nil, nil, fmt.Errorf("avoid: node %d cannot reach node %d without the avoided channels", s, d)
					}
					continue
				}
				p0 := t.Next(s, 0, d)
				if ns, _ := t.Neighbor(s, p0); ns >= 0 && !isDead[base[s]+p0] && dist[ns] == dist[s]-1 {
					continue // the table's route is still a shortest live path
				}
				var cands []int
				for p := 0; p < t.Ports(s); p++ {
					if ns, _ := t.Neighbor(s, p); ns >= 0 && !isDead[base[s]+p] && dist[ns] == dist[s]-1 {
						cands = append(cands, p)
					}
				}
				if v > 0 {
					rng.Shuffle(len(cands), func(i, j int) { cands[i], cands[j] = cands[j], cands[i] })
				}
				if a.Except[s] == nil {
					a.Except[s] = map[int32]uint8{}
				}
				a.Except[s][int32(d)] = uint8(cands[0])
			}
		}
		a.count()
		rep, err := t.CheckAvoid(a)
		if err == nil {
			return a, a.fill(t, rep), nil
		}
		lastErr = err
	}
	return nil, nil, fmt.Errorf("avoid: no deadlock-free exceptions in %d tie-break orders: %w", maxAvoidVariants, lastErr)
}

// Route is the output port switch sw takes for destination dst: its
// exception, or its table's.
func (a *Avoid) Route(t *Topology, sw, dst int) int {
	if m := a.Except[sw]; m != nil {
		if p, ok := m[int32(dst)]; ok {
			return int(p)
		}
	}
	return t.Next(sw, 0, dst)
}

// CheckAvoid proves routing with exceptions, as Check proves tables: from
// every source every destination is reached, no path crosses an avoided
// channel, and the channel dependency graph is acyclic (gonum topological
// sort). Minimal says whether every path is a shortest path of the switch
// graph without the avoided channels (gonum Dijkstra).
func (t *Topology) CheckAvoid(a *Avoid) (*CheckReport, error) {
	isDead := map[int]bool{}
	for _, c := range a.Dead {
		isDead[c] = true
	}
	base := make([]int, t.Switches+1)
	for s := 0; s < t.Switches; s++ {
		base[s+1] = base[s] + t.Ports(s)
	}
	live := simple.NewDirectedGraph()
	for s := 0; s < t.Switches; s++ {
		live.AddNode(simple.Node(s))
	}
	for s := 0; s < t.Switches; s++ {
		for p := 0; p < t.Ports(s); p++ {
			if ns, _ := t.Neighbor(s, p); ns >= 0 && !isDead[base[s]+p] {
				live.SetEdge(live.NewEdge(simple.Node(s), simple.Node(ns)))
			}
		}
	}
	route := func(s, dst int) int { return a.Route(t, s, dst) }
	rep, err := t.walkPaths(route, "route", live, base, isDead, t.Switches)
	if err != nil {
		return rep, err
	}
	if !rep.Acyclic {
		return rep, errors.New("channel dependency graph not proved acyclic")
	}
	return rep, nil
}

func (a *Avoid) count() {
	a.Entries, a.MaxEntries = 0, 0
	for _, m := range a.Except {
		a.Entries += len(m)
		a.MaxEntries = max(a.MaxEntries, len(m))
	}
}

func (a *Avoid) set(sw, dst, port int) {
	if a.Except[sw] == nil {
		a.Except[sw] = map[int32]uint8{}
	}
	a.Except[sw][int32(dst)] = uint8(port)
}

// avoid2D adds the exceptions that route a K0 x K1 hyper-crossbar around
// the dead output p of switch sw (docs/reliability.md). Dimension-order
// routing turns only from dimension 0 to dimension 1 at a node; the
// detours add turns from dimension 1 to dimension 0, all in one column (a
// fixed coordinate 0), and turns from 0 to 1. A dependency cycle would
// need two 1-to-0 turns in different columns, so none exists. With n =
// (a, b) the node of the dead channel, c* = a+dc and z* = b+dz (mod the
// sizes; AvoidRoutes tries dc = dz = 1 first):
//
//   - n.d0.up: n sends every destination (c, w), c != a, up dimension 1
//     first, turning at (a, w); for w = b the crossbar of column a sends it
//     to row z* (the turn at (a, z*)), whence dimension order delivers it.
//   - n.d1.up: destinations (a, w), w != b, reached through n's row go to
//     column c* instead (n itself sends them up dimension 0), up column c*,
//     and back along row w: the turn at (c*, w).
//   - n.d0.down: destinations (a, w) in row b's crossbar go to column c*,
//     up it, and along row w (for w = b: via row z* and up column a).
//   - n.d1.down: node n, from every other row z, goes along row z to
//     column c*, up it to row b, and along row b: the turn at (c*, b).
func (t *Topology) avoid2D(a *Avoid, sw, p, dc, dz int) {
	K0, K1 := t.Dims[0], t.Dims[1]
	node := func(x, y int) int { return x + K0*y }
	row := func(y int) int { s, _ := t.Crossbar(node(0, y), 0); return s } // crossbar of dimension 0 on row y
	col := func(x int) int { s, _ := t.Crossbar(node(x, 0), 1); return s } // crossbar of dimension 1 on column x
	var n, k int
	up := !t.IsCrossbar(sw)
	if up {
		n, k = sw, p-1
	} else {
		n, _ = t.Neighbor(sw, p)
		k = t.XbarDim(sw)
	}
	ax, by := t.Coord(n, 0), t.Coord(n, 1)
	cs, zs := (ax+dc)%K0, (by+dz)%K1
	switch {
	case up && k == 0:
		for c := 0; c < K0; c++ {
			for w := 0; w < K1; w++ {
				if c != ax {
					a.set(n, node(c, w), 2)
				}
			}
			if c != ax {
				a.set(col(ax), node(c, by), zs)
			}
		}
	case up && k == 1:
		for w := 0; w < K1; w++ {
			if w == by {
				continue
			}
			d := node(ax, w)
			a.set(n, d, 1)
			a.set(row(by), d, cs)
			a.set(node(cs, by), d, 2)
		}
	case !up && k == 0:
		for w := 0; w < K1; w++ {
			d := node(ax, w)
			a.set(row(by), d, cs)
			a.set(node(cs, by), d, 2)
		}
		a.set(col(cs), n, zs)
	default: // !up && k == 1
		for z := 0; z < K1; z++ {
			if z == by {
				continue
			}
			a.set(node(ax, z), n, 1)
			a.set(row(z), n, cs)
			a.set(node(cs, z), n, 2)
		}
	}
}

// SetAvoid makes the network route with a's exceptions.
func (n *Network) SetAvoid(a *Avoid) error {
	if len(a.Except) != n.switches {
		return fmt.Errorf("avoid: the exceptions are for a network of %d switches, not %d", len(a.Except), n.switches)
	}
	if a.fabric != nil {
		if n.gen == nil && n.tor == nil {
			return fmt.Errorf("avoid: a %s's routing for a hyper-crossbar network", a.fabric.Name())
		}
		// The fabric's Next with the avoided channels routes every head
		// flit, the torus's too (instead of Torus.NextAddr on packed
		// addresses: only a network with avoided channels pays for it).
		n.gen, n.tor = a.fabric, nil
		return nil
	}
	n.exc = a.Except
	return nil
}

func (a *Avoid) fill(t Fabric, rep *CheckReport) *CheckReport {
	x := NewChannelIndex(t)
	for _, c := range a.Dead {
		rep.Avoided = append(rep.Avoided, x.Name(c))
	}
	rep.Exceptions, rep.MaxExceptions = a.Entries, a.MaxEntries
	return rep
}
