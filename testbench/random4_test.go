package testbench

import "testing"

// TestRandomDesignsFaultCounts: the random designs draw every fault count
// a campaign run takes, 1 to 4, and no fault twice.
func TestRandomDesignsFaultCounts(t *testing.T) {
	seen := map[int]int{}
	for seed := uint64(1); seed <= 400; seed++ {
		sys, err := RandomDesign(seed)
		if err != nil {
			t.Fatal(err)
		}
		seen[len(sys.Faults)]++
		dup := map[string]bool{}
		for _, f := range sys.Faults {
			if dup[f] {
				t.Errorf("seed %d: fault %s drawn twice", seed, f)
			}
			dup[f] = true
		}
	}
	for k := 1; k <= 4; k++ {
		if seen[k] == 0 {
			t.Errorf("no design of seeds 1..400 has %d faults (counts %v)", k, seen)
		}
	}
	t.Logf("designs per fault count: %v", seen)

}
