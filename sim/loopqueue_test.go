package sim

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestArrivalQueueOrder: the next-arrival heap pops by cycle, then rank,
// whatever the order of the pushes.
func TestArrivalQueueOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for range 50 {
		var q arrivalQueue
		var want []loopArrival
		for range 1 + rng.IntN(200) {
			a := loopArrival{at: rng.Int64N(20), rank: rng.Int32N(50)}
			q.push(a)
			want = append(want, a)
		}
		slices.SortFunc(want, func(a, b loopArrival) int { return cmp.Or(cmp.Compare(a.at, b.at), cmp.Compare(a.rank, b.rank)) })
		for i, w := range want {
			if got := q.pop(); got != w {
				t.Fatalf("pop %d: %+v, want %+v", i, got, w)
			}
		}
	}
}
