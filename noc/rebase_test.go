package noc

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/hxbar/hxbar/hw"
)

// TestRebase: the slots' 32-bit relative cycles give the timing of 64-bit
// cycles. The same traffic (multi-flit packets under contention, L = 2,
// B = 2, so that credits and blocked flits are in play) is run in two
// phases, the network drained in between, and the delivery cycles,
// counted from each phase's start, must be the same: with the epoch never
// moving, with it moved (and the past clamped) before every cycle, and
// with phases that start 2^32 - 2^20 cycles apart (a jump over idle
// cycles beyond int32). Each phase must also deliver
// what the first one did.
func TestRebase(t *testing.T) {
	type run struct {
		name   string
		after  int64
		starts []int64
	}
	runs := []run{
		{"epoch fixed", rebaseAfter, []int64{0, 1000}},
		{"rebase every cycle", 1, []int64{0, 1000}},
		// 2^32 - 2^20 cycles: unclamped, a past cycle would wrap around
		// to 2^20 cycles in the future.
		{"jumps past int32", rebaseAfter, []int64{1<<32 - 1<<20, 2 * (1<<32 - 1<<20)}},
	}
	var want [][]int64
	for _, r := range runs {
		tp, err := NewTopology([]int{4, 3})
		if err != nil {
			t.Fatal(err)
		}
		n, err := NewNetwork(tp, Config{BufferDepth: 2, LinkLatency: 2})
		if err != nil {
			t.Fatal(err)
		}
		n.rebaseAfter = r.after
		var got [][]int64
		for _, start := range r.starts {
			got = append(got, rebasePhase(t, n, start))
		}
		if !slices.Equal(got[0], got[1]) {
			t.Errorf("%s: the second phase delivered at %v, the first at %v", r.name, got[1], got[0])
		}
		if want == nil {
			want = got
			if len(want[0]) == 0 {
				t.Fatal("nothing delivered")
			}
			continue
		}
		for i := range got {
			if !slices.Equal(got[i], want[i]) {
				t.Errorf("%s, phase %d: delivered at %v, want %v", r.name, i, got[i], want[i])
			}
		}
	}
}

// rebasePhase injects a fixed set of 3-flit packets from cycle start on and
// runs until every flit is delivered; it returns the delivery cycles
// (node-major), counted from start.
func rebasePhase(t *testing.T, n *Network, start int64) []int64 {
	t.Helper()
	rng := rand.New(rand.NewPCG(7, 7))
	queue := make([][]hw.Flit, n.T.Nodes)
	flits := 0
	for v := range queue {
		for range 5 {
			dst := int32(rng.IntN(n.T.Nodes))
			for i := range 3 {
				queue[v] = append(queue[v], hw.Flit{Dst: dst, Src: int32(v), Data: uint64(i), Flags: hw.FlitFlags(i == 0, i == 2)})
				flits++
			}
		}
	}
	var got []int64
	for c := int64(0); c < 5000 && len(got) < flits; c++ {
		tc := start + c
		n.Rebase(tc)
		for s := 0; s < n.T.Switches; s++ {
			n.EvalSwitch(s, tc, 0)
		}
		for v := 0; v < n.T.Nodes; v++ {
			if q := queue[v]; len(q) > 0 && n.CanInject(v, tc) {
				n.Inject(v, q[0], tc, 0)
				queue[v] = q[1:]
			}
			if _, ok := n.RxFront(v, tc); ok {
				n.RxPop(v, tc)
				got = append(got, int64(v)<<32|c)
			}
		}
	}
	if len(got) != flits {
		t.Fatalf("phase from %d: delivered %d of %d flits", start, len(got), flits)
	}
	return got
}
