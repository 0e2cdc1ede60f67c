package collective

import (
	"math/bits"
	"testing"
)

// TestGeneralTakesCeilLog2Steps: General's Bruck-style all-gather has
// ceil(log2 M) steps, the minimum (docs/collectives.md, "General"), for
// every M and D, whatever the placement default: step k+1 shifts by 2^k,
// so no step is wasted and none is missing.
func TestGeneralTakesCeilLog2Steps(t *testing.T) {
	for M := 1; M <= 33; M++ {
		want := bits.Len(uint(M - 1)) // ceil(log2 M), 0 for M = 1
		for _, D := range []int{1, (M + 1) / 2, M} {
			s, err := General(M, D, nil)
			if err != nil {
				t.Fatalf("General(%d, %d): %v", M, D, err)
			}
			if len(s.Steps) != want {
				t.Errorf("General(%d, %d): %d steps, want ceil(log2 %d) = %d", M, D, len(s.Steps), M, want)
			}
		}
	}
}
