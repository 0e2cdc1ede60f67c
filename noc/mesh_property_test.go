package noc

import (
	"fmt"
	"testing"

	"pgregory.net/rapid"

	"github.com/hxbar/hxbar/hw"
)

// drawShape draws 1..hw.MaxDims dimension sizes (2..hw.MaxDimSize, odd
// sizes included) of at most maxNodes nodes in all.
func drawShape(t *rapid.T, maxNodes int) []int {
	n := rapid.IntRange(hw.MinDims, hw.MaxDims).Draw(t, "dimensions")
	dims := make([]int, 0, n)
	nodes := 1
	for k := 0; k < n && nodes*2 <= maxNodes; k++ {
		d := rapid.IntRange(hw.MinDimSize, min(hw.MaxDimSize, maxNodes/nodes)).Draw(t, fmt.Sprintf("dims[%d]", k))
		dims = append(dims, d)
		nodes *= d
	}
	return dims
}

// TestMeshTorusProperties proves, over random shapes of one to six
// dimensions and random wrap flags (meshes, tori and every mix), that the
// torus's routing reaches every destination along a shortest path and
// that its channel dependency graph is acyclic (CheckFabric: gonum
// Dijkstra and topological sort), with the longest path the sum over
// dimensions of K/2 (ring) or K-1 (mesh line); and that the cycle model's
// route on packed addresses (NextAddr) is Next.
func TestMeshTorusProperties(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		dims := drawShape(t, 128)
		wrap := rapid.SliceOfN(rapid.Bool(), len(dims), len(dims)).Draw(t, "wrap")
		tor, err := NewTorusWrap(dims, wrap)
		if err != nil {
			t.Fatal(err)
		}
		rep, err := CheckFabric(tor)
		if err != nil {
			t.Fatalf("dims %v wrap %v: %v", dims, wrap, err)
		}
		want := 0
		for k, d := range dims {
			if wrap[k] {
				want += d / 2
			} else {
				want += d - 1
			}
		}
		if !rep.Minimal || !rep.Acyclic || rep.Pairs != tor.Nodes*tor.Nodes || rep.MaxHops != want {
			t.Fatalf("dims %v wrap %v: report %+v, want minimal, acyclic, %d pairs, longest path %d", dims, wrap, rep, tor.Nodes*tor.Nodes, want)
		}
		for range 50 {
			sw := rapid.IntRange(0, tor.Nodes-1).Draw(t, "router")
			dst := rapid.IntRange(0, tor.Nodes-1).Draw(t, "dst")
			in := rapid.IntRange(0, tor.Ports(sw)-1).Draw(t, "input")
			if a, b := tor.NextAddr(in, tor.Addr(sw), tor.Addr(dst)), tor.Next(sw, in, dst); a != b {
				t.Fatalf("dims %v wrap %v router %d in %d dst %d: NextAddr %d, Next %d", dims, wrap, sw, in, dst, a, b)
			}
		}
	})
}

// TestHyperXbarProperties: the same proof for the hyper-crossbar over random
// shapes of one to six dimensions.
func TestHyperXbarProperties(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		dims := drawShape(t, 128)
		tp, err := NewTopology(dims)
		if err != nil {
			t.Fatal(err)
		}
		rep, err := CheckFabric(tp)
		if err != nil {
			t.Fatalf("dims %v: %v", dims, err)
		}
		if !rep.Minimal || !rep.Acyclic || rep.Pairs != tp.Nodes*tp.Nodes {
			t.Fatalf("dims %v: report %+v", dims, rep)
		}
		for range 50 {
			v := rapid.IntRange(0, tp.Nodes-1).Draw(t, "node")
			a := tp.FlitAddr(v)
			for k := range dims {
				if c := int(a >> (hw.CoordField * k) & (1<<hw.CoordField - 1)); c != tp.Coord(v, k) {
					t.Fatalf("dims %v node %d: packed coordinate %d is %d, want %d", dims, v, k, c, tp.Coord(v, k))
				}
			}
		}
	})
}

// TestPackedAddrs: the network's per-node table of packed addresses is
// FlitAddr for every node; Addr (the RTL's address) holds coordinate k in
// CoordBits[k] bits above those of the lower dimensions, and nothing above.
func TestPackedAddrs(t *testing.T) {
	for _, dims := range [][]int{{2}, {5, 3}, {2, 3, 2, 2, 3, 2}, {64, 3, 7}} {
		tp, _ := NewTopology(dims)
		a := packedAddrs(dims)
		for v := range a {
			if a[v] != tp.FlitAddr(v) {
				t.Fatalf("dims %v node %d: %x, want %x", dims, v, a[v], tp.FlitAddr(v))
			}
			addr, shift := tp.Addr(v), 0
			for k := range dims {
				if c := int(addr >> shift & (1<<tp.CoordBits[k] - 1)); c != tp.Coord(v, k) {
					t.Fatalf("dims %v node %d: Addr %#x holds coordinate %d = %d, want %d", dims, v, addr, k, c, tp.Coord(v, k))
				}
				shift += tp.CoordBits[k]
			}
			if addr>>shift != 0 {
				t.Fatalf("dims %v node %d: Addr %#x has bits above its %d coordinate bits", dims, v, addr, shift)
			}
		}
	}
}

// TestCheckByDimension: the by-dimension proof agrees with the all-pairs
// one where both run, and passes Tofu-D's shape.
func TestCheckByDimension(t *testing.T) {
	for _, c := range []struct {
		dims []int
		wrap []bool
	}{
		{[]int{5, 4, 3}, []bool{true, false, true}}, {[]int{4, 3, 4, 2, 3, 2}, []bool{true, true, true, false, true, false}},
		{[]int{8, 8}, nil}, {[]int{6, 7}, []bool{false, false}},
	} {
		tor, _ := NewTorusWrap(c.dims, c.wrap)
		all, err := CheckFabric(tor)
		if err != nil {
			t.Fatal(err)
		}
		byDim, err := CheckByDimension(tor, 2000, 1)
		if err != nil {
			t.Fatalf("%v %v: %v", c.dims, c.wrap, err)
		}
		if !byDim.Minimal || !byDim.Acyclic || byDim.MaxHops != all.MaxHops {
			t.Fatalf("%v %v: by dimension %+v, all pairs %+v", c.dims, c.wrap, byDim, all)
		}
		// The report sums each distinct line's figures once, and the
		// sampled pairs.
		want := CheckReport{Pairs: 2000}
		seen := map[string]bool{}
		for k, d := range c.dims {
			line, _ := NewTorusWrap([]int{d}, []bool{tor.Wrap[k]})
			if seen[fabricName(line)] {
				continue
			}
			seen[fabricName(line)] = true
			r, err := CheckFabric(line)
			if err != nil {
				t.Fatal(err)
			}
			want.Pairs += r.Pairs
			want.Channels += r.Channels
			want.Dependencies += r.Dependencies
		}
		if byDim.Pairs != want.Pairs || byDim.Channels != want.Channels || byDim.Dependencies != want.Dependencies {
			t.Fatalf("%v %v: by dimension %+v, want pairs, channels and dependencies of %+v", c.dims, c.wrap, byDim, want)
		}
	}
	tofu, _ := NewTorusWrap([]int{24, 23, 24, 2, 3, 2}, []bool{true, true, true, false, true, false})
	rep, err := CheckByDimension(tofu, 5000, 1)
	if err != nil || !rep.Minimal || !rep.Acyclic || rep.MaxHops != 12+11+12+1+1+1 {
		t.Fatalf("Tofu-D: %+v %v", rep, err)
	}
}
