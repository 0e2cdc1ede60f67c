package sim

import (
	"strings"
	"testing"

	"github.com/hxbar/hxbar/hw"
	"github.com/hxbar/hxbar/noc"
)

// With link-level retry every flip and drop of a campaign is survived with
// the fault-free results, and a resent flit costs its channel 2L+2 cycles.
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
