package sim_test

import (
	"encoding/json"
	"testing"

	"github.com/hxbar/hxbar/hw"
	"github.com/hxbar/hxbar/sim"
)

// rowsCols is rows and columns of a 4x4 at once, the rows looping.
func rowsCols(rowIters int) hw.System {
	sys := hw.Default()
	sys.Channels = 2
	sum := hw.OpSum
	sys.Communicators = []hw.Communicator{{Name: "rows", Split: "dim:0", Iterations: &rowIters}, {Name: "cols", Split: "dim:1", Op: &sum}}
	return sys
}

func runSys(t *testing.T, sys hw.System) *sim.Result {
	t.Helper()
	s, err := sim.Build(sys, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := s.Run(sim.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestCommNodesJSON: in a run of communicators every node entry of the
// JSON says whose rank it is (communicator, comm_rank, system_rank,
// channel, as docs/microarchitecture.md promises), and reads back.
func TestCommNodesJSON(t *testing.T) {
	sys := rowsCols(3)
	res := runSys(t, sys)
	b, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	var raw struct {
		Nodes []map[string]any `json:"nodes"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		t.Fatal(err)
	}
	var back sim.Result
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	cs, _ := sys.Comms()
	v := 0
	for _, c := range cs {
		for j, r := range c.Ranks {
			n := raw.Nodes[v]
			want := map[string]any{"communicator": c.Name, "comm_rank": float64(j), "system_rank": float64(r), "channel": float64(c.Channel[j])}
			for k, w := range want {
				if n[k] != w {
					t.Fatalf("nodes[%d].%s = %v, want %v (%s rank %d)", v, k, n[k], w, c.Name, j)
				}
			}
			bn := back.Nodes[v]
			if bn.Communicator != c.Name || bn.CommRank == nil || *bn.CommRank != j || bn.SystemRank == nil || *bn.SystemRank != r || bn.Channel == nil || *bn.Channel != c.Channel[j] {
				t.Fatalf("nodes[%d] read back as %+v", v, bn)
			}
			v++
		}
	}
	// A run without communicators keeps its old node fields.
	b, _ = json.Marshal(runSys(t, hw.Default()))
	raw.Nodes = nil
	json.Unmarshal(b, &raw)
	for _, k := range []string{"communicator", "comm_rank", "system_rank", "channel"} {
		if _, ok := raw.Nodes[0][k]; ok {
			t.Fatalf("a run without communicators writes nodes[0].%s", k)
		}
	}
}
