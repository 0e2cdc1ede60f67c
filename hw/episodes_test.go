package hw

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

func TestEpisodesParse(t *testing.T) {
	s, err := Parse([]byte(`
repeat: 2
episodes:
  - {collective: barrier, op: sum, algo: butterfly}
  - {collective: allgather, items: 4, item_flits: 8, skew: 0}
  - {}
  - {op: max, algo: dissemination, item_placement: []}
`))
	if err != nil {
		t.Fatal(err)
	}
	if s.NumEpisodes() != 8 || !s.MultiEpisode() {
		t.Fatalf("NumEpisodes = %d", s.NumEpisodes())
	}
	e2 := s.EpisodeSystem(2)
	if e2.Collective != CollAllGather || e2.Items != 4 || e2.ItemFlits != 8 || e2.Skew != 0 || e2.Op != OpBarrier {
		t.Errorf("episode 2 = %+v", e2)
	}
	if e6 := s.EpisodeSystem(6); !reflect.DeepEqual(e6, e2) {
		t.Errorf("episode 6 (entry 1 again) = %+v, want %+v", e6, e2)
	}
	if e3 := s.EpisodeSystem(3); e3.Skew != 40 || e3.Collective != CollBarrier || e3.Repeat != 1 || e3.Episodes != nil {
		t.Errorf("episode 3 ({}) = %+v", e3)
	}
	// YAML round trip keeps the list.
	b, err := s.YAML()
	if err != nil {
		t.Fatal(err)
	}
	got, err := Parse(b)
	if err != nil || !reflect.DeepEqual(got, s) {
		t.Fatalf("round trip: %v\n%s\n%+v\n%+v", err, b, got, s)
	}
	d := Default()
	if d.NumEpisodes() != 1 || d.MultiEpisode() {
		t.Error("the default system has more than one episode")
	}
}

func TestEpisodesErrors(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"repeat: 0", "invalid repeat: 0 (allowed: 1..10000)"},
		{"repeat: 10001", "invalid repeat: 10001"},
		{"repeat: 1.5", "invalid repeat: 1.5"},
		{"repeat: 5001\nepisodes: [{}, {}]", "at most 10000 episodes"},
		{"episodes: 3", "invalid episodes: 3"},
		{"episodes: [3]", "invalid episodes[0]: 3 (allowed: a mapping"},
		{"episodes:\n  - {op: sum}\n  - {dims: [8]}", `line 3: episodes[1] (episode 2): key "dims" cannot change between episodes, it belongs to the whole run (allowed keys: collective, op, algo, items, item_flits, order, item_placement, skew)`},
		{"episodes: [{seed: 3}]", `key "seed" cannot change between episodes`},
		{"episodes: [{max_cycles: 3}]", `key "max_cycles" cannot change`},
		{"episodes: [{placement: [1]}]", `key "placement" cannot change`},
		{"episodes: [{link_latency: 2}]", `key "link_latency" cannot change`},
		{"episodes: [{foo: 2}]", `episodes[0] (episode 1): unknown key "foo" (allowed keys: collective, op`},
		{"episodes: [{op: sum, op: max}]", `key "op" given twice`},
		{"episodes: [{op: }]", "invalid episodes[0].op: null"},
		{"episodes: [{skew: x}]", "invalid episodes[0].skew"},
		{"episodes:\n  - {}\n  - {collective: allgather}\nop: sum", `line 3: invalid episodes[1].op: "sum" (allowed: barrier with collective allgather (the units carry items, not a reduction), in episode 2)`},
		{"episodes:\n  - {algo: dissemination,\n     op: sum}", `line 3: invalid episodes[0].op: "sum"`},
		{"episodes: [{items: 3}]", "invalid episodes[0].items: 3 (allowed: 0 with collective barrier"},
		{"episodes: [{skew: -1}]", "invalid episodes[0].skew: -1"},
	} {
		_, err := Parse([]byte(c.in))
		if err == nil {
			t.Errorf("%q: accepted", c.in)
			continue
		}
		if !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q:\n got %v\nwant %s", c.in, err, c.want)
		}
		if _, ok := errors.AsType[*ParseError](err); !ok {
			t.Errorf("%q: %T, want a *ParseError", c.in, err)
		}
	}
}

func TestEpisodeArrivals(t *testing.T) {
	s := Default()
	s.Repeat = 3
	if !reflect.DeepEqual(s.EpisodeArrivals(1), s.Arrivals()) {
		t.Fatal("episode 1's arrivals are not Arrivals()")
	}
	a2, a3 := s.EpisodeArrivals(2), s.EpisodeArrivals(3)
	if reflect.DeepEqual(a2, a3) || reflect.DeepEqual(a2, s.Arrivals()) {
		t.Error("episodes draw the same arrivals")
	}
	if !reflect.DeepEqual(a2, s.EpisodeArrivals(2)) {
		t.Error("EpisodeArrivals is not deterministic")
	}
	for _, a := range a3 {
		if a.Cycle < 0 || a.Cycle > int64(s.Skew) {
			t.Errorf("offset %d outside 0..%d", a.Cycle, s.Skew)
		}
	}
	// The documented derivation, pinned: rank 0 of episode 2, seed 1, skew 40.
	if got := arrivals(1, 1, 40, 1)[0]; got != a2[0] {
		t.Errorf("arrivals(1, 1, 40, 1) = %+v, want %+v", got, a2[0])
	}
	// An episode's skew applies to its arrivals.
	zero := 0
	s.Episodes = []Episode{{}, {Skew: &zero}}
	for _, a := range s.EpisodeArrivals(2) {
		if a.Cycle != 0 {
			t.Fatalf("skew 0 episode arrives at offset %d", a.Cycle)
		}
	}
}

func TestRepeatFlag(t *testing.T) {
	fs, f := newFlags(t)
	if err := fs.Parse([]string{"--repeat", "0"}); err != nil {
		t.Fatal(err)
	}
	s := Default()
	if err := f.Apply(&s); err == nil || !strings.Contains(err.Error(), "flag --repeat: invalid repeat: 0 (allowed: 1..10000)") {
		t.Errorf("--repeat 0: %v", err)
	}
	fs, f = newFlags(t)
	if err := fs.Parse([]string{"--repeat", "7"}); err != nil {
		t.Fatal(err)
	}
	if err := f.Apply(&s); err != nil || s.Repeat != 7 || s.NumEpisodes() != 7 {
		t.Errorf("--repeat 7: %v, %d", err, s.Repeat)
	}
}

// TestEpisodesYAMLRoundTrip: a system with any valid episodes list is
// written by YAML and read back unchanged.
func TestEpisodesYAMLRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := genSystem(t)
		s.Repeat = rapid.IntRange(1, 3).Draw(t, "repeat")
		n := rapid.IntRange(0, 4).Draw(t, "entries")
		for range n {
			var e Episode
			zero, empty := 0, ""
			e.Items, e.Order, e.ItemPlace = &zero, &empty, &[]int{}
			if rapid.Bool().Draw(t, "data") {
				c := rapid.SampledFrom(Collectives[1:]).Draw(t, "collective")
				o, a := OpBarrier, AlgoButterfly
				f := rapid.IntRange(1, MaxItemFlits).Draw(t, "item_flits")
				e.Collective, e.Op, e.Algo, e.ItemFlits = &c, &o, &a, &f
			} else {
				c := CollBarrier
				a := rapid.SampledFrom(Algorithms).Draw(t, "algo")
				ops := Ops
				if a == AlgoDissemination {
					ops = []OpName{OpBarrier, OpMax, OpMin, OpAnd, OpOr}
				}
				o := rapid.SampledFrom(ops).Draw(t, "op")
				e.Collective, e.Op, e.Algo = &c, &o, &a
			}
			if rapid.Bool().Draw(t, "set.skew") {
				k := rapid.IntRange(0, MaxSkew).Draw(t, "skew")
				e.Skew = &k
			}
			if rapid.IntRange(0, 5).Draw(t, "empty") == 0 {
				e = Episode{}
			}
			s.Episodes = append(s.Episodes, e)
		}
		if s.Validate() != nil {
			t.Skip("invalid combination")
		}
		if err := yamlRoundTrip(s); err != nil {
			t.Fatal(err)
		}
	})
}
