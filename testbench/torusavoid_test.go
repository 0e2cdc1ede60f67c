package testbench

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/hxbar/hxbar/hw"
	"github.com/hxbar/hxbar/verilog"
)

// TestTorusAvoidCosim: tori routed around avoided links (docs/
// reliability.md, "Torus": a ring sends the destinations whose path would
// cross the link the other way round, bits of hx_router's PLUS(k)),
// co-simulated under Icarus cycle for cycle: a sum on a 4x4 torus around
// a + link, a near-first all-gather on a ring of 8 around a - link that is
// dead from cycle 0 (the run completes with no error, in both), and a
// dissemination barrier on a mixed 4x3 grid (ring by line) around two
// links of its ring dimension. Each design must have reversals (else the test would
// not see them). A link on a mesh line has no way round in dimension
// order: refused, naming avoid.
func TestTorusAvoidCosim(t *testing.T) {
	needTools(t, Icarus)
	cases := []hw.System{
		torusSystem(t, "torus4x4-sum-avoid", []int{4, 4}, nil, func(s *hw.System) {
			s.Op, s.Avoid = hw.OpSum, []string{"n5.d0+.vc0"}
		}),
		torusData(t, "ring8-ag-nearfirst-F2-avoid-dead", []int{8}, nil, "allgather", "butterfly-near-first", 0, "", 2, func(s *hw.System) {
			s.Avoid, s.Faults, s.Watchdog = []string{"n2.d0-.vc0"}, []string{"dead:n2.d0-.vc0@0", "dead:n2.d0-.vc1@0"}, 300
		}),
		torusSystem(t, "mixed4x3-avoid2", []int{4, 3}, []bool{true, false}, func(s *hw.System) {
			s.Algo, s.Avoid = "dissemination", []string{"n1.d0+.vc0", "n10.d0-.vc1"}
		}),
	}
	for _, sys := range cases {
		t.Run(sys.Name, func(t *testing.T) {
			s, trace, res, err := RunModel(sys)
			if err != nil {
				t.Fatalf("model: %v", err)
			}
			if !res.Complete || len(res.Errors) > 0 {
				t.Fatalf("model: complete %v, errors %v", res.Complete, res.Errors)
			}
			revs := 0
			tor := verilog.Torus(s.Design)
			for n := range tor.Nodes {
				for k, K := range tor.Dims {
					for c := range K {
						if s.Design.Avoid.TorusReversed(n, k, c) {
							revs++
						}
					}
				}
			}
			if revs == 0 {
				t.Fatal("no router reverses a direction: the avoided links change nothing")
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
	t.Run("mesh-line-refused", func(t *testing.T) {
		sys := torusSystem(t, "mixed4x3-avoid-line", []int{4, 3}, []bool{true, false}, func(s *hw.System) {
			s.Avoid = []string{"n1.d1+.vc0"}
		})
		_, _, _, err := RunModel(sys)
		var fe *hw.FieldError
		if !errors.As(err, &fe) || fe.Field != "avoid" || strings.Contains(err.Error(), "\n") {
			t.Fatalf("err = %v, want one line naming avoid", err)
		}
	})
}
