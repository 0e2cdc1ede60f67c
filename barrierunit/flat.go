package barrierunit

import (
	"fmt"
	"sync"

	"github.com/hxbar/hxbar/hw"
)

// FlatTable is a schedule compiled into the per-rank gate tables that the
// barrier units read, stored flat so that a million ranks cost a few arrays
// rather than millions of slices. Entry (r, g) is at index r*(Gates+2)+g.
// It is exactly what the model runs and what the Verilog writer emits.
// Routes are stored in entry order: OutStart[0] == 0 and OutStart[k] ==
// OutEnd[k-1] (the units find a gate's first route where the entry before
// ends; NewUnits panics on a table without it).
type FlatTable struct {
	Ranks, Gates int
	Self         []bool  // (r, g), g = 2..Gates+1: route (r, g-1) -> (r, g)
	Need         []uint8 // (r, g), g = 2..Gates+1: routes from other ranks into (r, g)
	OutStart     []int32 // (r, g), g = 1..Gates+1: first index into OutDst of routes leaving (r, g)
	OutEnd       []int32 // (r, g): one past the last; empty for g = Gates+1
	OutDst       []int32 // destination ranks, grouped by (r, g) in schedule order
}

// Stride is the number of entries per rank.
func (f *FlatTable) Stride() int { return f.Gates + 2 }

// Flatten compiles a schedule that passes Check into a FlatTable.
func Flatten(s *Schedule) (*FlatTable, error) {
	if err := s.Check(); err != nil {
		return nil, err
	}
	return buildFlat(s.Ranks, s.Gates, func(yield func(Route) bool) {
		for _, r := range s.Routes {
			if !yield(r) {
				return
			}
		}
	})
}

// buildFlat makes two passes over the routes (count, then fill) so that a
// generator can stream them without a route list.
func buildFlat(ranks, gates int, each func(func(Route) bool)) (*FlatTable, error) {
	return buildFlatParts(ranks, gates, []routePart{{each: each}})
}

// routePart is a part of a route list: its routes (each) and the index of
// its first route in the whole list (base, for errors).
type routePart struct {
	each func(func(Route) bool)
	base int
}

// buildFlatParts is buildFlat for a route list in parts, walked
// concurrently in each pass: the parts must leave disjoint sets of gates
// (so they write disjoint entries), in gate order (so the routes stay in
// schedule order within an entry, and entries in entry order).
func buildFlatParts(ranks, gates int, parts []routePart) (*FlatTable, error) {
	if ranks < 1 || gates < 0 {
		return nil, fmt.Errorf("invalid schedule: ranks %d, gates %d", ranks, gates)
	}
	st := gates + 2
	n := ranks * st
	f := &FlatTable{
		Ranks: ranks, Gates: gates,
		Self: make([]bool, n), Need: make([]uint8, n),
		OutStart: make([]int32, n), OutEnd: make([]int32, n),
	}
	// Counting sort of the remote routes by (from_rank, from_gate), keeping
	// schedule order within a group. OutEnd holds the counts until the prefix sum.
	errs := make([]error, len(parts))
	inParts(parts, func(k int, pt routePart) {
		i := pt.base
		pt.each(func(r Route) bool {
			if r.FromRank < 0 || r.FromRank >= ranks || r.ToRank < 0 || r.ToRank >= ranks ||
				r.FromGate < 1 || r.FromGate > gates || r.ToGate != r.FromGate+1 {
				errs[k] = fmt.Errorf("routes[%d]: not a valid route of a %d-rank, %d-gate schedule", i, ranks, gates)
				return false
			}
			i++
			to := r.ToRank*st + r.ToGate
			if r.FromRank == r.ToRank {
				f.Self[to] = true
				return true
			}
			if f.Need[to] == hw.MaxNeed {
				errs[k] = fmt.Errorf("routes[%d]: more than %d routes arrive at rank %d gate %d", i-1, hw.MaxNeed, r.ToRank, r.ToGate)
				return false
			}
			f.Need[to]++
			f.OutEnd[r.FromRank*st+r.FromGate]++
			return true
		})
	})
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	var sum int32
	for k := 0; k < n; k++ {
		c := f.OutEnd[k]
		f.OutStart[k], f.OutEnd[k] = sum, sum
		sum += c
	}
	f.OutDst = make([]int32, sum)
	inParts(parts, func(_ int, pt routePart) {
		pt.each(func(r Route) bool {
			if r.FromRank != r.ToRank {
				k := r.FromRank*st + r.FromGate
				f.OutDst[f.OutEnd[k]] = int32(r.ToRank)
				f.OutEnd[k]++
			}
			return true
		})
	})
	return f, nil
}

// inParts runs do for every part, on a goroutine each when there are
// several, and waits for them.
func inParts(parts []routePart, do func(k int, pt routePart)) {
	if len(parts) == 1 {
		do(0, parts[0])
		return
	}
	var wg sync.WaitGroup
	for k, pt := range parts {
		wg.Go(func() { do(k, pt) })
	}
	wg.Wait()
}

// MergeTables lays the tables of several communicators side by side as one
// table of their ranks together (docs/microarchitecture.md, "Channels and
// communicators"): table k's rank j is rank Bases[k]+j, its routes go to
// ranks of its own table only, and its gates keep their numbers (the
// merged table has the most gates of any; a rank of a table with fewer
// has empty entries above its end gate, which its unit, told its own gate
// count, never reads).
func MergeTables(tabs []*FlatTable) (*FlatTable, []int, error) {
	bases := make([]int, len(tabs))
	ranks, gates := 0, 0
	for k, t := range tabs {
		bases[k] = ranks
		ranks += t.Ranks
		gates = max(gates, t.Gates)
	}
	merged, err := buildFlat(ranks, gates, func(yield func(Route) bool) {
		for k, t := range tabs {
			st, b := t.Stride(), bases[k]
			for j := range t.Ranks {
				for g := 1; g <= t.Gates+1; g++ {
					i := j*st + g
					if g >= 2 && t.Self[i] && !yield(Route{FromRank: b + j, FromGate: g - 1, ToRank: b + j, ToGate: g}) {
						return
					}
					for _, d := range t.OutDst[t.OutStart[i]:t.OutEnd[i]] {
						if !yield(Route{FromRank: b + j, FromGate: g, ToRank: b + int(d), ToGate: g + 1}) {
							return
						}
					}
				}
			}
		}
	})
	return merged, bases, err
}
