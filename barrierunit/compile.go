package barrierunit

// Compile builds each rank's gate table (see RankGates and the "Gate table"
// section of docs/microarchitecture.md). It returns nil if s does not pass
// Check. All ranks share a few backing arrays, so the cost is that of the
// arrays rather than of millions of small slices; for the leanest form use
// Flatten or GenerateFlat.
func Compile(s *Schedule) *Table {
	if s.Check() != nil {
		return nil
	}
	R, G := s.Ranks, s.Gates
	st := G + 2 // entries per rank for Self and Need
	so := G + 1 // entries per rank for Out
	self := make([]bool, R*st)
	need := make([]int, R*st)
	// Counting sort of the remote routes by source (r, g) keeps schedule
	// order within one Out[g].
	start := make([]int32, R*so+1)
	for i := range s.Routes {
		rt := &s.Routes[i]
		if rt.FromRank == rt.ToRank {
			self[rt.ToRank*st+rt.ToGate] = true
			continue
		}
		need[rt.ToRank*st+rt.ToGate]++
		start[rt.FromRank*so+rt.FromGate+1]++
	}
	for k := 1; k < len(start); k++ {
		start[k] += start[k-1]
	}
	dst := make([]int, start[len(start)-1])
	fill := make([]int32, R*so)
	copy(fill, start)
	for i := range s.Routes {
		rt := &s.Routes[i]
		if rt.FromRank != rt.ToRank {
			k := rt.FromRank*so + rt.FromGate
			dst[fill[k]] = rt.ToRank
			fill[k]++
		}
	}
	out := make([][]int, R*so)
	for k := range out {
		if a, b := start[k], start[k+1]; a < b {
			out[k] = dst[a:b:b]
		}
	}
	t := &Table{Gates: G, Ranks: make([]RankGates, R)}
	for r := range t.Ranks {
		a, b := r*st, (r+1)*st
		c, d := r*so, (r+1)*so
		t.Ranks[r] = RankGates{Self: self[a:b:b], Need: need[a:b:b], Out: out[c:d:d]}
	}
	return t
}
