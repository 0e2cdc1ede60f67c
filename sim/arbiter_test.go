package sim_test

import (
	"testing"

	"github.com/hxbar/hxbar/barrierunit"
	"github.com/hxbar/hxbar/hw"
	"github.com/hxbar/hxbar/sim"
)

// sendsOf runs sys and returns, per node, the heads its channels sent:
// the cycle and the communicator (by the destination's run rank).
func sendsOf(t *testing.T, sys hw.System) (map[int32][][2]int64, *sim.Result) {
	t.Helper()
	cs, err := sys.Comms()
	if err != nil {
		t.Fatal(err)
	}
	commOf := map[int32]int64{}
	v := int32(0)
	for k, c := range cs {
		for range c.Ranks {
			commOf[v] = int64(k)
			v++
		}
	}
	s, err := sim.Build(sys, nil)
	if err != nil {
		t.Fatal(err)
	}
	sends := map[int32][][2]int64{}
	res, err := s.Run(sim.Options{Events: func(evs []barrierunit.Event) {
		for _, e := range evs {
			if e.Kind == barrierunit.EvSend {
				sends[e.Node] = append(sends[e.Node], [2]int64{e.Cycle, commOf[e.Rank]})
			}
		}
	}})
	if err != nil || !res.Complete || len(res.Errors) > 0 {
		t.Fatalf("run: %v, complete %v, errors %+v", err, res != nil && res.Complete, res.Errors)
	}
	return sends, res
}

// TestChannelArbiter pins the injection rules of docs/microarchitecture.md
// ("Channels and communicators", rule 1) on a 2-node crossbar where four
// communicators of ranks [0 1] take channels 0..3 on both nodes, each
// packet a head and 4 payload flits (sum on 16-bit flits), buffers deep
// enough that no credit stalls the port:
//   - all four ready in cycle 1 (arrival in 0): channel 0 first (rr resets
//     to K-1), then 1, 2, 3, each packet's 5 flits back to back, so the
//     heads are 5 cycles apart (an interleaved flit would also reach the
//     other node's channels as a flit without its head: FLITS);
//   - channel 0 loops: its second packet is ready while channel 3 still
//     waits for the port, after channel 2 sent the last head; round robin
//     grants channel 3 first (a fixed priority would pick channel 0).
func TestChannelArbiter(t *testing.T) {
	sys := hw.Default()
	sys.Dims, sys.Skew, sys.Op, sys.FlitWidth, sys.BufferDepth, sys.Channels = []int{2}, 0, hw.OpSum, 16, 16, 4
	two := 2
	sys.Communicators = []hw.Communicator{{Name: "a", Ranks: []int{0, 1}, Iterations: &two}, {Name: "b", Ranks: []int{0, 1}}, {Name: "c", Ranks: []int{0, 1}}, {Name: "d", Ranks: []int{0, 1}}}
	sends, res := sendsOf(t, sys)
	for node := range int32(2) {
		got := sends[node]
		if len(got) != 5 {
			t.Fatalf("node %d sent %d heads, want 5: %v", node, len(got), got)
		}
		first := got[0][0]
		for i, w := range [][2]int64{{first, 0}, {first + 5, 1}, {first + 10, 2}, {first + 15, 3}} {
			if got[i] != w {
				t.Fatalf("node %d heads %v: head %d is %v, want %v (channel 0, 1, 2, 3 in turn, 5 flits each)", node, got, i, got[i], w)
			}
		}
		// a's second iteration: arrived (ready a cycle later) before d's
		// head was granted, yet d went first.
		aArrive2 := res.Nodes[node].Arrive // run rank node is a's rank on it; its last arrival is iteration 2's
		if aArrive2+1 > first+15 {
			t.Fatalf("node %d: a arrives again in cycle %d, after d's head in %d: the case does not test the round robin (%v)", node, aArrive2, first+15, got)
		}
		if w := [2]int64{first + 20, 0}; got[4] != w {
			t.Fatalf("node %d heads %v: a's second head %v, want %v (after d's packet, by round robin)", node, got, got[4], w)
		}
	}
}
