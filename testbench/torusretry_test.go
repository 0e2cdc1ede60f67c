package testbench

import (
	"testing"
	"time"

	"github.com/hxbar/hxbar/hw"
)

// TestTorusRetryCosim: link-level retry on the torus tiles (every hx_link
// of hx_rtile with hx_link_tx / hx_link_rx: one link layer per VC
// channel, docs/reliability.md, "Link-level retry"), co-simulated under
// Icarus cycle for cycle. A fault-free all-gather on a ring of 8 (the
// link layer's latency max(L, 2) must show: its model run is longer than
// without retry); a head flit dropped on the VC1 past a 4x4 torus's
// dateline during a sum, and a head bit flipped on a mixed-wrap grid's
// mesh line during a near-first all-gather (each resent: the model
// replays it and ends with no error and the fault-free results); an ACK
// word and a credit word damaged on a 3x3 mesh with link latency 2 (the
// next word repairs them). Without retry the dropped head orphans its
// payload at a router, which drops it (TestTorusFaultsCosim); with retry
// nothing is lost.
func TestTorusRetryCosim(t *testing.T) {
	needTools(t, Icarus)
	retry := func(r, b, l int, faults ...string) func(*hw.System) {
		return func(s *hw.System) {
			s.LinkRetry, s.BufferDepth, s.LinkLatency, s.Watchdog, s.Faults = r, b, l, 300, faults
		}
	}
	cases := []struct {
		sys     hw.System
		resends bool // the model must replay a flit
	}{
		{torusData(t, "ring8-ag-F2-lr4", []int{8}, nil, "allgather", "butterfly", 0, "", 2, retry(4, 4, 1)), false},
		{torusSystem(t, "torus4x4-sum-lr4-drop-vc1", []int{4, 4}, nil, func(s *hw.System) {
			s.Op = hw.OpSum
			retry(4, 4, 1, "drop:n3.d0+.vc1@first")(s)
		}), true},
		{torusData(t, "mixed4x4-ag-nearfirst-F3-B2-lr2-flip", []int{4, 4}, []bool{true, false}, "allgather", "butterfly-near-first", 0, "", 3,
			retry(2, 2, 1, "flip:n12.d1-.vc0@first:33")), true},
		{torusSystem(t, "mesh3x3-B2-L2-lr3-ackflip-creditdrop", []int{3, 3}, []bool{false, false},
			retry(3, 2, 2, "ackflip:n4.d0+.vc0@first", "creditdrop:n1.d1+.vc0@first")), false},
	}
	for _, c := range cases {
		t.Run(c.sys.Name, func(t *testing.T) {
			s, trace, res, err := RunModel(c.sys)
			if err != nil {
				t.Fatalf("model: %v", err)
			}
			if !res.Complete || len(res.Errors) > 0 {
				t.Fatalf("model: retry did not recover: complete %v, errors %v", res.Complete, res.Errors)
			}
			if c.resends && s.Net.Retried() == 0 {
				t.Fatalf("model: no flit resent: the fault missed")
			}
			if len(c.sys.Faults) == 0 {
				plain := c.sys
				plain.LinkRetry = 0
				if _, _, pres, err := RunModel(plain); err != nil || pres.Cycles >= res.Cycles {
					t.Fatalf("without retry %v cycles (%v), with %d: the link layer's latency does not show", pres, err, res.Cycles)
				}
			}
			dir := t.TempDir()
			writeResolved(t, dir, s, trace)
			rep, err := Cosim(ctxFor(t, 5*time.Minute), dir, Icarus)
			if err != nil {
				t.Fatalf("cosim: %v", err)
			}
			if !rep.OK() {
				t.Fatalf("cosim: %s", rep.Summary())
			}
		})
	}
}
