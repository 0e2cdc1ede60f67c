package sim_test

import "testing"

// TestCommHeadline: the headline last_arrival and latency of a run of
// communicators are those of the communicators' last iterations (the
// latest last arrival of any, to the run's last release), as for world's
// loop, not the first iteration's arrivals.
func TestCommHeadline(t *testing.T) {
	for _, it := range []int{1, 10} {
		res := runSys(t, rowsCols(it))
		wantArr, lastRel := int64(-1), int64(-1)
		for _, c := range res.Communicators {
			l := c.Iterations[len(c.Iterations)-1]
			wantArr = max(wantArr, *l.LastRelease-*l.Latency)
			lastRel = max(lastRel, *l.LastRelease)
		}
		a, ok := res.LastArrival()
		lat, ok2 := res.Latency()
		if !ok || !ok2 || a != wantArr || lat != lastRel-wantArr {
			t.Fatalf("rows x%d: headline last_arrival %d (%v), latency %d (%v); want %d, %d", it, a, ok, lat, ok2, wantArr, lastRel-wantArr)
		}
	}
}
