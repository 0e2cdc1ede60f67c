package sim

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/hxbar/hxbar/collective"
	"github.com/hxbar/hxbar/hw"
)

// FuzzDataSchedule feeds arbitrary bytes to the data-schedule reader, as
// `hxbar sim --collective allgather --schedule FILE` does. Whatever the
// bytes: no panic; a schedule the verifier accepts runs to completion on a
// 1-D hyper-crossbar with every item received and checked; one it refutes
// is refused by BuildData.
func FuzzDataSchedule(f *testing.F) {
	for _, mk := range []func() (*collective.Schedule, error){
		func() (*collective.Schedule, error) { return collective.Hitachi(8, 2, nil) },
		func() (*collective.Schedule, error) { return collective.Order(4, 2, []int{1, 2}, "MO") },
		func() (*collective.Schedule, error) { return collective.RecursiveDoubling(4, false) },
		func() (*collective.Schedule, error) { return collective.Broadcast(5, 3) },
		func() (*collective.Schedule, error) { return collective.General(6, 4, nil) },
	} {
		s, err := mk()
		if err != nil {
			f.Fatal(err)
		}
		b, _ := json.Marshal(s)
		f.Add(b)
	}
	f.Add([]byte(`{"nodes":2,"items":1,"placement":[0],"steps":[{"kind":"O","transfers":[{"src":1,"dst":0,"items":[0]}]}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		cs, err := collective.ReadSchedule(bytes.NewReader(data))
		if err != nil || cs.Nodes < 2 || cs.Nodes > 16 || len(cs.Steps) > 8 {
			return // malformed, or too big to run cheaply
		}
		sys := hw.Default()
		sys.Dims, sys.Ranks, sys.Collective, sys.ItemFlits, sys.Skew = []int{cs.Nodes}, cs.Nodes, "allgather", 2, 3
		s, err := BuildData(sys, cs)
		rep := collective.Verify(cs)
		if !rep.OK {
			if err == nil {
				t.Fatalf("a schedule the verifier refutes (%s) was built", rep)
			}
			return
		}
		if err != nil {
			t.Fatalf("a verified schedule was refused: %v", err)
		}
		res, err := s.Run(Options{})
		if err != nil {
			t.Fatalf("a verified schedule did not run: %v", err)
		}
		if res.Data.ItemsReceived != uint64(res.Data.ItemsMoved) {
			t.Fatalf("received %d of %d item copies", res.Data.ItemsReceived, res.Data.ItemsMoved)
		}
	})
}
