package main

import (
	"github.com/hxbar/hxbar/internal/version"

	"bytes"
	"encoding/json"
	"testing"

	"github.com/hxbar/hxbar/barrierunit"
	"github.com/hxbar/hxbar/hw"
	"github.com/hxbar/hxbar/noc"
	"github.com/hxbar/hxbar/sim"
)

// encoded is what `json.NewEncoder(w).SetIndent("", "  ")` wrote before
// large outputs were streamed: the output must not change by a byte.
func encoded(t *testing.T, v any) []byte {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestStreamedJSONMatchesEncoder(t *testing.T) {
	nilRoutes := &barrierunit.Schedule{Ranks: 3}
	var nr bytes.Buffer
	if err := writeScheduleJSON(&nr, nilRoutes); err != nil || !bytes.Equal(nr.Bytes(), encoded(t, nilRoutes)) {
		t.Fatalf("nil routes: %v\n%s", err, nr.Bytes())
	}
	for _, algo := range hw.Algorithms {
		for _, r := range []int{1, 2, 5, 16} {
			s, err := barrierunit.Generate(algo, r)
			if err != nil {
				t.Fatal(err)
			}
			var got bytes.Buffer
			if err := writeScheduleJSON(&got, s); err != nil {
				t.Fatal(err)
			}
			if want := encoded(t, s); !bytes.Equal(got.Bytes(), want) {
				t.Fatalf("%s %d ranks: streamed\n%s\nencoder\n%s", algo, r, got.Bytes(), want)
			}
		}
	}
	// An empty route list is "[]", not an array of nothing.
	empty := &barrierunit.Schedule{Ranks: 1, Algo: "x<&>\"", Routes: []barrierunit.Route{}}
	var got bytes.Buffer
	if err := writeScheduleJSON(&got, empty); err != nil {
		t.Fatal(err)
	}
	if want := encoded(t, empty); !bytes.Equal(got.Bytes(), want) {
		t.Fatalf("empty schedule: streamed\n%s\nencoder\n%s", got.Bytes(), want)
	}

	var results []*sim.Result
	for _, mk := range []func(*hw.System){
		func(s *hw.System) { s.Op = "sum" },
		func(s *hw.System) { s.MaxCycles = 30 }, // incomplete: waiting, released -1
		func(s *hw.System) { s.Collective, s.Items, s.ItemFlits = "allgather", 4, 3 },
		func(s *hw.System) { s.Collective, s.Topology, s.Dims, s.Ranks = "broadcast", "torus", []int{8}, 0 },
		func(s *hw.System) { s.Repeat = 3 },
		func(s *hw.System) { s.Repeat, s.MaxCycles = 3, 100 }, // incomplete in episode 2
		func(s *hw.System) { // communicators: nodes name theirs
			s.Channels, s.Op = 2, "sum"
			s.Communicators = []hw.Communicator{{Name: "rows", Split: "dim:0"}, {Name: "cols", Split: "dim:1"}}
		},
	} {
		sys := hw.Default()
		mk(&sys)
		s, err := sim.Build(sys, nil)
		if err != nil {
			t.Fatal(err)
		}
		res, _ := s.Run(sim.Options{})
		results = append(results, res)
	}
	// Strings the encoder escapes, in the streamed elements.
	results = append(results, &sim.Result{Nodes: []sim.NodeResult{{Operand: "<a&b>", Result: "\"q\"\\\n\u2028é"}}})
	results = append(results, &sim.Result{Nodes: []sim.NodeResult{{Releases: []int64{}}, {Releases: []int64{-1, 5}}}})
	results = append(results, &sim.Result{Nodes: []sim.NodeResult{}}, &sim.Result{})
	for i, res := range results {
		var got bytes.Buffer
		if err := writeSimJSON(&got, res); err != nil {
			t.Fatal(err)
		}
		if want := encoded(t, simJSONOut{version.String(), res}); !bytes.Equal(got.Bytes(), want) {
			t.Fatalf("result %d: streamed\n%s\nencoder\n%s", i, got.Bytes(), want)
		}
	}
}

// TestGeneratedStreamsMatchEncoder: the schedule written while its routes
// are generated, and the channel list written channel by channel, are byte
// for byte what the encoder writes for the whole value.
func TestGeneratedStreamsMatchEncoder(t *testing.T) {
	for _, algo := range hw.Algorithms {
		for _, r := range []int{1, 2, 5, 16, 100} {
			s, err := barrierunit.Generate(algo, r)
			if err != nil {
				t.Fatal(err)
			}
			var got bytes.Buffer
			if err := writeGeneratedScheduleJSON(&got, algo, r); err != nil {
				t.Fatal(err)
			}
			if want := encoded(t, s); !bytes.Equal(got.Bytes(), want) {
				t.Fatalf("%s %d ranks: generated stream\n%s\nencoder\n%s", algo, r, got.Bytes(), want)
			}
		}
	}
	for _, sys := range []hw.System{
		{Topology: hw.TopoHyperXbar, Dims: []int{4, 3}},
		{Topology: hw.TopoTorus, Dims: []int{3, 4}, Wrap: []bool{true, false}},
		{Topology: hw.TopoFatTree, Dims: []int{2, 2, 2}},
	} {
		s := hw.Default()
		s.Topology, s.Dims, s.Wrap = sys.Topology, sys.Dims, sys.Wrap
		f, err := noc.FabricOf(&s)
		if err != nil {
			t.Fatal(err)
		}
		var got, want bytes.Buffer
		if err := writeChannelsJSON(&got, f); err != nil {
			t.Fatal(err)
		}
		if err := json.NewEncoder(&want).Encode(noc.Channels(f)); err != nil {
			t.Fatal(err)
		}
		var compact bytes.Buffer
		if err := json.Compact(&compact, got.Bytes()); err != nil {
			t.Fatalf("%s %v: channel stream is not JSON: %v\n%s", s.Topology, s.Dims, err, got.Bytes())
		}
		compact.WriteByte('\n')
		if !bytes.Equal(compact.Bytes(), want.Bytes()) {
			t.Fatalf("%s %v: channel stream\n%s\nencoder\n%s", s.Topology, s.Dims, got.Bytes(), want.Bytes())
		}
		// One channel a line, between the brackets' lines.
		if lines, n := bytes.Count(got.Bytes(), []byte("\n")), noc.NumChannels(f); lines != n+2 {
			t.Fatalf("%s %v: %d lines for %d channels, want one a line and two for the brackets", s.Topology, s.Dims, lines, n)
		}
	}
}
