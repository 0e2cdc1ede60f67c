package barrierunit

// Compile builds each rank's gate table (see RankGates and the "Gate table"
// section of docs/microarchitecture.md) as a per-rank view of Flatten's
// table. It returns nil if s does not pass Check. All ranks share a few
// backing arrays; for the leanest form use Flatten or GenerateFlat.
func Compile(s *Schedule) *Table {
	if s == nil {
		return nil
	}
	f, err := Flatten(s) // runs Check
	if err != nil {
		return nil
	}
	R, G := f.Ranks, f.Gates
	st := f.Stride() // entries per rank for Self and Need
	so := G + 1      // entries per rank for Out
	need := make([]int, len(f.Need))
	for i, n := range f.Need {
		need[i] = int(n)
	}
	dst := make([]int, len(f.OutDst))
	for i, d := range f.OutDst {
		dst[i] = int(d)
	}
	out := make([][]int, R*so)
	for r := 0; r < R; r++ {
		for g := 1; g <= G; g++ {
			if a, b := f.OutStart[r*st+g], f.OutEnd[r*st+g]; a < b {
				out[r*so+g] = dst[a:b:b]
			}
		}
	}
	t := &Table{Gates: G, Ranks: make([]RankGates, R)}
	for r := range t.Ranks {
		a, b := r*st, (r+1)*st
		c, d := r*so, (r+1)*so
		t.Ranks[r] = RankGates{Self: f.Self[a:b:b], Need: need[a:b:b], Out: out[c:d:d]}
	}
	return t
}
