package bigmem

import "testing"

// TestMake: a small slice and a mapped one (past hugeThreshold) both have
// n zeroed elements that keep what is written into them, the first and
// last included; the mapped one touched on every core first (Make) or
// left to fault in where it is written (MakeSparse).
func TestMake(t *testing.T) {
	type rec struct{ a, b uint64 }
	owner := new(int)
	for _, n := range []int{1, 1000, hugeThreshold/16 + 3, -(hugeThreshold/16 + 5)} {
		// A negative n asks MakeSparse for -n elements.
		var s []rec
		if n < 0 {
			n = -n
			s = MakeSparse[rec](owner, n)
		} else {
			s = Make[rec](owner, n)
		}
		if len(s) != n {
			t.Fatalf("n %d: len %d", n, len(s))
		}
		idx := []int{0, n / 2, n - 1}
		for _, i := range idx {
			if s[i] != (rec{}) {
				t.Fatalf("n %d: element %d not zero: %+v", n, i, s[i])
			}
		}
		for _, i := range idx {
			s[i] = rec{uint64(i), ^uint64(i)}
		}
		for _, i := range idx {
			if s[i] != (rec{uint64(i), ^uint64(i)}) {
				t.Fatalf("n %d: element %d lost its value: %+v", n, i, s[i])
			}
		}
	}
}
