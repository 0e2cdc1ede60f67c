package sim

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/hxbar/hxbar/hw"
	"github.com/hxbar/hxbar/noc"
)

// With link-level retry every flip and drop of a campaign is survived with
// the fault-free results, and a resent flit costs its channel 2L cycles.
func TestLinkRetry(t *testing.T) {
	sys := hw.Default()
	sys.Op = hw.OpSum
	sys.LinkRetry = 4
	res, err := RunCampaign(sys, CampaignOptions{Runs: 40, Seed: 5, Kinds: []string{hw.FaultFlip, hw.FaultDrop}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Recovered != 40 || res.Silent != 0 || res.Detected != 0 {
		t.Fatalf("retry: %+v", res.CampaignCounts)
	}
	// One resend on a head's channel: the same trace but for later cycles.
	ref, _, cross, err := faultTrace(t, sys, true)
	if err != nil {
		t.Fatal(err)
	}
	idx := noc.NewChannelIndex(mustFabric(t, sys))
	var c noc.Crossing
	for _, x := range cross {
		if x.Head && strings.Contains(idx.Name(int(x.Channel)), ".up") {
			c = x
			break
		}
	}
	sys.Faults = []string{"drop:" + idx.Name(int(c.Channel)) + "@" + itoa(c.Cycle)}
	s, err := Build(sys, nil)
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.Run(Options{})
	if err != nil || !got.Complete || s.Net.Retried() != 1 {
		t.Fatalf("drop with retry: %v, retried %d", err, s.Net.Retried())
	}
	for r := range got.Nodes {
		if got.Nodes[r].Result != ref.Nodes[r].Result {
			t.Fatalf("rank %d: %s, want %s", r, got.Nodes[r].Result, ref.Nodes[r].Result)
		}
	}
	if got.Cycles < ref.Cycles {
		t.Fatalf("retry made the run shorter: %d < %d", got.Cycles, ref.Cycles)
	}
	sys.LinkLatency, sys.LinkRetry = 41, 200
	if err := sys.Validate(); err == nil {
		t.Error("retry at link_latency 41: no error")
	}
}

// Property: over many seeds, systems (barrier, sum, all-gather; link
// latency 1..3; buffer depth 1..4; replay buffer buffer_depth..+3) and
// sets of one to four flips and drops on flits of the fault-free run,
// link-level retry gives the fault-free results (every release with its
// value, every received message) and no error. It need not end later: a
// resent flit can let another packet win a contended output sooner (the
// 5-node all-gather of seed 65 with flip:n4.eject@45:41,
// drop:n2.d0.down@48 and flip:n0.inject@54:18 ends at cycle 74, its
// fault-free run at 78), so its end cycle is not held to the fault-free
// one.
func TestLinkRetryProperty(t *testing.T) {
	dims := [][]int{{2, 2}, {4, 4}, {3, 2}, {2, 2, 2}, {5}}
	resent := 0
	for seed := uint64(1); seed <= 100; seed++ {
		r := rand.New(rand.NewPCG(seed, 11))
		sys := hw.Default()
		sys.Dims = dims[r.IntN(len(dims))]
		sys.Ranks = 0
		sys.Seed = seed
		switch r.IntN(3) {
		case 0:
			sys.Op = hw.OpBarrier
		case 1:
			sys.Op = hw.OpSum
		default:
			sys.Collective = "allgather"
			sys.Op = hw.OpBarrier
		}
		sys.LinkLatency = 1 + r.IntN(3)
		sys.BufferDepth = 1 + r.IntN(4)
		sys.LinkRetry = sys.BufferDepth + r.IntN(4)
		name := fmt.Sprintf("seed %d: %v %s/%s L=%d B=%d R=%d", seed, sys.Dims, sys.Collective, sys.Op, sys.LinkLatency, sys.BufferDepth, sys.LinkRetry)
		if err := sys.Validate(); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		res, err := RunCampaign(sys, CampaignOptions{Runs: 8, Seed: seed, Kinds: []string{hw.FaultFlip, hw.FaultDrop}})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if res.Recovered != 8 || res.Silent != 0 || res.Detected != 0 || res.Reported != 0 {
			t.Errorf("%s: campaign %+v", name, res.CampaignCounts)
		}
		// Several faults in one run, some on the same channel.
		_, want, cross, err := faultTrace(t, sys, true)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		idx := noc.NewChannelIndex(mustFabric(t, sys))
		nf := 1 + r.IntN(4)
		sys.Faults = nil
		for range nf {
			c := cross[r.IntN(len(cross))]
			if r.IntN(2) == 0 {
				sys.Faults = append(sys.Faults, "drop:"+idx.Name(int(c.Channel))+"@"+itoa(c.Cycle))
			} else {
				sys.Faults = append(sys.Faults, fmt.Sprintf("flip:%s@%d:%d", idx.Name(int(c.Channel)), c.Cycle, r.IntN(sys.FlitWidth+8)))
			}
		}
		s, err := Build(sys, nil)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var trb bytes.Buffer
		got, err := s.Run(Options{Trace: &trb})
		if err != nil || !got.Complete || s.Net.Retried() == 0 {
			t.Errorf("%s, faults %v: %v, %d resent", name, sys.Faults, err, s.Net.Retried())
			continue
		}
		tr := trb.String()
		resent += s.Net.Retried()
		if !slices.Equal(signature([]byte(tr)), signature([]byte(want))) {
			t.Errorf("%s, faults %v: results differ from the fault-free run", name, sys.Faults)
		}
	}
	t.Logf("%d flits resent in the multi-fault runs", resent)
}
