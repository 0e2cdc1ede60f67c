package noc

import (
	"fmt"
	"testing"

	"github.com/hxbar/hxbar/hw"
)

// grantOrder streams packets of flits flits each from every node in srcs
// (count packets per source, all queued at cycle 0) to node 0 of a 4-node
// ring (one crossbar, ports 0..3 joined to nodes 0..3) and returns, for
// every flit node 0 pops, its source and cycle, flit by flit.
func grantOrder(t *testing.T, srcs []int, count, flits int) (order []int32, cycles []int64) {
	t.Helper()
	tp, err := NewTopology([]int{4})
	if err != nil {
		t.Fatal(err)
	}
	n, err := NewNetwork(tp, Config{BufferDepth: 4, LinkLatency: 1})
	if err != nil {
		t.Fatal(err)
	}
	left := map[int]int{} // flits still to inject per source
	for _, s := range srcs {
		left[s] = count * flits
	}
	want := len(srcs) * count * flits
	for c := int64(0); c < 1000 && len(order) < want; c++ {
		for s := 0; s < tp.Switches; s++ {
			n.EvalSwitch(s, c, 0)
		}
		for _, s := range srcs {
			if left[s] > 0 && n.CanInject(s, c) {
				i := flits - 1 - (left[s]-1)%flits // flit index within its packet
				n.Inject(s, hw.Flit{Dst: 0, Src: int32(s), Flags: hw.FlitFlags(i == 0, i == flits-1)}, c, 0)
				left[s]--
			}
		}
		if f, ok := n.RxFront(0, c); ok {
			n.RxPop(0, c)
			order = append(order, f.Src)
			cycles = append(cycles, c)
		}
	}
	if len(order) != want {
		t.Fatalf("node 0 received %d of %d flits", len(order), want)
	}
	return order, cycles
}

// TestRoundRobinGrantOrder pins the arbitration rule of
// docs/microarchitecture.md ("Switch", step 1): an output grants the first
// requester in the order rr, rr+1, ..., P-1, 0, ..., rr-1 and then sets
// rr <= grant+1 (mod P); rr resets to 0. The crossbar output toward node 0
// (port 0) has requesters on inputs 1, 2 and 3 (port j joins node j). All
// requests are present from cycle 2 (injection at 0, exchanger at 1,
// crossbar at 1+L = 2) and stay present while the sources stream, so the
// grants, worked out by hand from the rule, are:
//
//	cycle 2: rr=0, requesters {1,2,3} -> 1, rr=2
//	cycle 3: rr=2 -> 2, rr=3
//	cycle 4: rr=3 -> 3, rr=0 (wraps)
//	cycle 5: rr=0 -> 1, ... and so on: 1 2 3 1 2 3 ...
//
// Node 0 pops each flit two cycles after its grant (exchanger 0 at +1,
// ejection FIFO at +2). Fixed priority (rr never advances) would deliver
// 1 1 1 1 2 2 2 2 3 3 3 3; the old TestRoundRobinSharesAnOutput only
// checked that the output is never idle, which fixed priority also does.
func TestRoundRobinGrantOrder(t *testing.T) {
	for _, tc := range []struct {
		name         string
		srcs         []int
		count, flits int
		want         string
	}{
		// Three single-flit streams: strict rotation.
		{"three inputs", []int{1, 2, 3}, 4, 1, "1 2 3 1 2 3 1 2 3 1 2 3"},
		// Inputs 1 and 3: after granting 1, rr = 2; input 2 does not request,
		// so the search goes on to 3; then rr = 0 (wrap) and 1 again.
		{"skips a silent input", []int{1, 3}, 4, 1, "1 3 1 3 1 3 1 3"},
		// Inputs 2 and 3 only: from rr = 0 the search passes the silent
		// inputs 0 and 1 and grants 2; rr = 3 grants 3; rr = 0 (wrap)
		// grants 2 again.
		{"starts from the pointer", []int{3, 2}, 3, 1, "2 3 2 3 2 3"},
		// Wormhole: a 3-flit packet owns the output from its head to its
		// tail; the next grant rotates to the next input. The output is
		// free again the cycle after the tail, so no cycle is idle.
		{"packets", []int{1, 2, 3}, 2, 3, "1 1 1 2 2 2 3 3 3 1 1 1 2 2 2 3 3 3"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			order, cycles := grantOrder(t, tc.srcs, tc.count, tc.flits)
			got := ""
			for i, s := range order {
				if i > 0 {
					got += " "
				}
				got += fmt.Sprint(s)
			}
			if got != tc.want {
				t.Fatalf("sources in delivery order:\n got %s\nwant %s", got, tc.want)
			}
			for i, c := range cycles {
				if want := int64(4 + i); c != want {
					t.Fatalf("flit %d popped at cycle %d, want %d (grant at %d, one flit per cycle)", i, c, want, want-2)
				}
			}
		})
	}
}
