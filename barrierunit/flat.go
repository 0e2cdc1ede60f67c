package barrierunit

import "fmt"

// MaxNeed is the largest number of routes from other ranks that may arrive
// at one gate: the RTL's receive counter is 8 bits wide.
const MaxNeed = 255

// FlatTable is a schedule compiled into the per-rank gate tables that the
// barrier units read, stored flat so that a million ranks cost a few arrays
// rather than millions of slices. Entry (r, g) is at index r*(Gates+2)+g.
// It is exactly what the model runs and what the Verilog writer emits.
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

// Flatten compiles a structurally valid schedule (see Schedule.Check) into a
// FlatTable.
func Flatten(s *Schedule) (*FlatTable, error) {
	if s.Ranks < 1 || s.Gates < 0 {
		return nil, fmt.Errorf("invalid schedule: ranks %d, gates %d", s.Ranks, s.Gates)
	}
	st := s.Gates + 2
	n := s.Ranks * st
	f := &FlatTable{
		Ranks: s.Ranks, Gates: s.Gates,
		Self: make([]bool, n), Need: make([]uint8, n),
		OutStart: make([]int32, n), OutEnd: make([]int32, n),
	}
	// Counting sort of the remote routes by (from_rank, from_gate), keeping
	// schedule order within a group.
	count := make([]int32, n+1)
	for i, r := range s.Routes {
		if r.FromRank < 0 || r.FromRank >= s.Ranks || r.ToRank < 0 || r.ToRank >= s.Ranks ||
			r.FromGate < 1 || r.FromGate > s.Gates || r.ToGate != r.FromGate+1 {
			return nil, fmt.Errorf("routes[%d]: not a valid route of a %d-rank, %d-gate schedule", i, s.Ranks, s.Gates)
		}
		to := r.ToRank*st + r.ToGate
		if r.FromRank == r.ToRank {
			f.Self[to] = true
			continue
		}
		if f.Need[to] == MaxNeed {
			return nil, fmt.Errorf("routes[%d]: more than %d routes arrive at rank %d gate %d", i, MaxNeed, r.ToRank, r.ToGate)
		}
		f.Need[to]++
		count[r.FromRank*st+r.FromGate+1]++
	}
	for i := 1; i <= n; i++ {
		count[i] += count[i-1]
	}
	f.OutDst = make([]int32, count[n])
	for i := 0; i < n; i++ {
		f.OutStart[i], f.OutEnd[i] = count[i], count[i]
	}
	for _, r := range s.Routes {
		if r.FromRank == r.ToRank {
			continue
		}
		i := r.FromRank*st + r.FromGate
		f.OutDst[f.OutEnd[i]] = int32(r.ToRank)
		f.OutEnd[i]++
	}
	return f, nil
}
