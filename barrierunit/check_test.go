package barrierunit

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/hxbar/hxbar/hw"
)

func TestCheck(t *testing.T) {
	base := func() *Schedule { return mustGenerate(t, hw.AlgoButterfly, 5) }
	for _, c := range []struct {
		name  string
		edit  func(s *Schedule)
		field string
		msg   string
	}{
		{"ranks 0", func(s *Schedule) { s.Ranks = 0 }, "ranks", "invalid ranks: 0 (allowed: 1..16777216)"},
		{"gates -1", func(s *Schedule) { s.Gates = -1 }, "gates", "invalid gates: -1 (allowed: 0..62 (the end gate, gates+1, must fit the 6-bit gate field of a head flit))"},
		{"gates 63", func(s *Schedule) { s.Gates = 63 }, "gates", "invalid gates: 63 (allowed: 0..62 (the end gate, gates+1, must fit the 6-bit gate field of a head flit))"},
		{"from_rank", func(s *Schedule) { s.Routes[3].FromRank = -1 }, "routes[3].from_rank", "invalid routes[3].from_rank: -1 (allowed: 0..4)"},
		{"to_rank", func(s *Schedule) { s.Routes[7].ToRank = 5 }, "routes[7].to_rank", "invalid routes[7].to_rank: 5 (allowed: 0..4)"},
		{"from_gate 0", func(s *Schedule) { s.Routes[2].FromGate = 0 }, "routes[2].from_gate", "invalid routes[2].from_gate: 0 (allowed: 1..4)"},
		{"from_gate end", func(s *Schedule) { s.Routes[2].FromGate, s.Routes[2].ToGate = 5, 6 }, "routes[2].from_gate", "invalid routes[2].from_gate: 5 (allowed: 1..4)"},
		{"to_gate", func(s *Schedule) { s.Routes[3].ToGate = 5 }, "routes[3].to_gate", "invalid routes[3].to_gate: 5 (allowed: from_gate+1 = 2)"},
		{"to_gate back", func(s *Schedule) { s.Routes[20].ToGate = 3 }, "routes[20].to_gate", "invalid routes[20].to_gate: 3 (allowed: from_gate+1 = 4)"},
		{"distance", func(s *Schedule) { s.Routes[4].Distance = 3 }, "routes[4].distance", "invalid routes[4].distance: 3 (allowed: |from_rank - to_rank| = 4)"},
		{"self distance", func(s *Schedule) { s.Routes[0].Distance = 1 }, "routes[0].distance", "invalid routes[0].distance: 1 (allowed: |from_rank - to_rank| = 0)"},
		// The lowest repeating index wins, though routes[2]'s key sorts first.
		{"duplicate", func(s *Schedule) { s.Routes = append(s.Routes, s.Routes[9], s.Routes[2]) }, "routes[26]",
			"invalid routes[26]: duplicate of routes[9] (rank 2 gate 2 -> rank 0 gate 3) (allowed: each route at most once)"},
		{"duplicate, unsorted", func(s *Schedule) {
			s.Routes[0], s.Routes[20] = s.Routes[20], s.Routes[0]
			s.Routes = append(s.Routes, s.Routes[20], s.Routes[0])
		}, "routes[26]", "invalid routes[26]: duplicate of routes[20] (rank 0 gate 1 -> rank 0 gate 2) (allowed: each route at most once)"},
		{"no gates, a route", func(s *Schedule) { s.Gates = 0; s.Routes = []Route{rt(0, 1, 0)} }, "routes[0].from_gate",
			"invalid routes[0].from_gate: 1 (allowed: none: a schedule with 0 gates has no routes)"},
		{"first error wins", func(s *Schedule) { s.Routes[9].Distance = 9; s.Routes[8].ToRank = 9 }, "routes[8].to_rank", "invalid routes[8].to_rank: 9 (allowed: 0..4)"},
	} {
		s := base()
		c.edit(s)
		err := s.Check()
		var fe *hw.FieldError
		if err == nil || !errors.As(err, &fe) || fe.Field != c.field || err.Error() != c.msg {
			t.Errorf("%s: %v\n want %q", c.name, err, c.msg)
		}
	}
	var nilSchedule *Schedule
	if err := nilSchedule.Check(); err == nil {
		t.Error("nil schedule passes Check")
	}
	if err := (&Schedule{Ranks: 3}).Check(); err != nil {
		t.Errorf("3 ranks, no gates, no routes: %v", err)
	}
}

func TestCheckReceiveCounter(t *testing.T) {
	// 256 ranks all sending to rank 0's end gate: one more than the 8-bit
	// receive counter holds.
	s := &Schedule{Ranks: 300, Gates: 1}
	for r := 0; r < 300; r++ {
		s.Routes = append(s.Routes, rt(r, 1, r))
	}
	for r := 1; r <= 255; r++ {
		s.Routes = append(s.Routes, rt(r, 1, 0))
	}
	if err := s.Check(); err != nil {
		t.Fatalf("255 routes into one gate: %v", err)
	}
	s.Routes = append(s.Routes, rt(256, 1, 0))
	want := "invalid routes[555]: route number 256 from another rank into rank 0 gate 2 (allowed: at most 255 such routes per gate (the receive counter is 8 bits))"
	if err := s.Check(); err == nil || err.Error() != want {
		t.Fatalf("256 routes into one gate: %v", err)
	}
	if _, err := Flatten(s); err == nil {
		t.Fatal("Flatten accepts 256 routes into one gate")
	}
	// The sparse counter (few routes, many ranks) finds it too.
	s.Ranks = MaxRanks
	if err := s.Check(); err == nil || err.Error() != want {
		t.Fatalf("sparse: %v", err)
	}
}

func TestReadSchedule(t *testing.T) {
	s := mustGenerate(t, hw.AlgoButterfly, 6)
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(b, []byte(`{"ranks":6,"algo":"butterfly","gates":4,"routes":[{"from_rank":0,"from_gate":1,"to_rank":0,"to_gate":2,"distance":0},`)) {
		t.Fatalf("JSON keys changed: %.120s", b)
	}
	got, err := ReadSchedule(bytes.NewReader(b))
	if err != nil || !reflect.DeepEqual(got, s) {
		t.Fatalf("round trip: %v", err)
	}
	for _, c := range []struct{ in, msg string }{
		{``, "invalid gate schedule JSON: empty input"},
		{`{"ranks":2,"gates":1,"routes":[],"colour":1}`, `invalid gate schedule JSON: json: unknown field "colour"`},
		{`{"ranks":2,"gates":1,"routes":[{"from_rank":0,"from_gate":1,"to_rank":1,"to_gate":2,"distance":1,"hops":1}]}`, `invalid gate schedule JSON: json: unknown field "hops"`},
		{`{"ranks":2} {}`, "invalid gate schedule JSON: more data after the gate schedule object"},
		{`{"ranks":"2"}`, "invalid gate schedule JSON: json: cannot unmarshal string into Go struct field Schedule.ranks of type int"},
		{`{"ranks":1e99}`, "invalid gate schedule JSON: json: cannot unmarshal number 1e99 into Go struct field Schedule.ranks of type int"},
		{`[1]`, "invalid gate schedule JSON: json: cannot unmarshal array into Go value of type barrierunit.Schedule"},
		{`null`, "invalid gate schedule JSON: null is not allowed"},
		// encoding/json would keep the last of two keys and read null as 0.
		{`{"ranks":2,"gates":1,"ranks":3}`, `invalid gate schedule JSON: duplicate key "ranks"`},
		{`{"ranks":null,"gates":1}`, "invalid gate schedule JSON: ranks: null is not allowed"},
		{`{"ranks":2,"gates":1,"routes":[{"from_rank":0,"from_gate":1,"to_rank":1,"to_rank":0,"to_gate":2,"distance":1}]}`, `invalid gate schedule JSON: routes[0]: duplicate key "to_rank"`},
		{`{"ranks":2,"gates":1,"routes":[{"from_rank":0,"from_gate":1,"to_rank":null,"to_gate":2,"distance":1}]}`, "invalid gate schedule JSON: routes[0].to_rank: null is not allowed"},
		{`{"ranks":2,"gates":1,"routes":[{"from_rank":0,"from_gate":1,"to_rank":1,"to_gate":3,"distance":1}]}`, "invalid routes[0].to_gate: 3 (allowed: from_gate+1 = 2)"},
	} {
		s, err := ReadSchedule(strings.NewReader(c.in))
		if s != nil || err == nil || err.Error() != c.msg {
			t.Errorf("%s: %v, %v\n want %q", c.in, s, err, c.msg)
		}
	}
	// Trailing white space is fine.
	if _, err := ReadSchedule(strings.NewReader(`{"ranks":1,"gates":0}` + "\n\n")); err != nil {
		t.Error(err)
	}
}

// FuzzReadSchedule: whatever the bytes, no panic; what is accepted passes
// Check, round-trips, and survives Verify, Evaluate, Compile and Flatten.
func FuzzReadSchedule(f *testing.F) {
	for _, algo := range hw.Algorithms {
		for _, R := range []int{1, 2, 3, 5, 8} {
			s, _ := Generate(algo, R)
			b, _ := json.Marshal(s)
			f.Add(b)
		}
	}
	f.Add([]byte(`{"ranks":3,"gates":2,"routes":[{"from_rank":2,"from_gate":3,"to_rank":0,"to_gate":2,"distance":2}]}`))
	f.Add([]byte(`{"ranks":16777216,"gates":62,"routes":[]}`))
	f.Add([]byte(`{"ranks":2,"gates":1,"routes":[{"from_rank":0,"from_gate":1,"to_rank":1,"to_gate":2,"distance":1},{"from_rank":0,"from_gate":1,"to_rank":1,"to_gate":2,"distance":1}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := ReadSchedule(bytes.NewReader(data))
		if err != nil {
			if s != nil {
				t.Fatal("a schedule with an error")
			}
			return
		}
		if err := s.Check(); err != nil {
			t.Fatalf("accepted but fails Check: %v", err)
		}
		b, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		s2, err := ReadSchedule(bytes.NewReader(b))
		if err != nil || !reflect.DeepEqual(s, s2) {
			t.Fatalf("round trip: %v", err)
		}
		if s.Ranks*(s.Gates+2) > 1<<16 {
			return // keep each input cheap
		}
		for _, op := range []Op{OpBarrier, OpSum, OpMax} {
			rep := Verify(s, op)
			if rep.Kind == "" || rep.Message == "" {
				t.Fatalf("empty report %+v", rep)
			}
			res, err := Evaluate(s, op, make([]uint64, s.Ranks))
			if err != nil || len(res) != s.Ranks {
				t.Fatalf("Evaluate: %v", err)
			}
		}
		if Compile(s) == nil {
			t.Fatal("Compile of a checked schedule is nil")
		}
		if _, err := Flatten(s); err != nil {
			t.Fatalf("Flatten of a checked schedule: %v", err)
		}
	})
}

// A schedule without routes (one rank, no gates) is written with
// "routes": [] and read back as it was: hxbar must accept what it writes.
func TestScheduleWithoutRoutesRoundTrips(t *testing.T) {
	s, err := ReadSchedule(strings.NewReader(`{"ranks":1,"gates":0,"routes":[]}`))
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range []*Schedule{s, {Ranks: 1}} {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(b), `"routes":[]`) {
			t.Fatalf("routes not written as a list: %s", b)
		}
		back, err := ReadSchedule(bytes.NewReader(b))
		if err != nil || back.Ranks != 1 || back.Routes == nil || len(back.Routes) != 0 {
			t.Fatalf("read back %+v, %v", back, err)
		}
	}
}
