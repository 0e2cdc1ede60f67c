package hw

import (
	"reflect"
	"slices"
	"strings"
	"testing"
)

func commSys(cs ...Communicator) System {
	s := Default()
	s.Dims = []int{4, 4}
	s.Channels = 2
	s.Communicators = cs
	return s
}

func TestCommsSplit(t *testing.T) {
	s := commSys(Communicator{Name: "rows", Split: "dim:0"}, Communicator{Name: "cols", Split: "dim:1"})
	cs, err := s.Comms()
	if err != nil {
		t.Fatal(err)
	}
	if len(cs) != 8 {
		t.Fatalf("%d communicators, want 8", len(cs))
	}
	// dim 0 is the fastest coordinate: a line of dim 0 is 4 consecutive nodes.
	if cs[1].Name != "rows.1" || !slices.Equal(cs[1].Ranks, []int{4, 5, 6, 7}) {
		t.Errorf("rows.1 = %s %v, want rows.1 [4 5 6 7]", cs[1].Name, cs[1].Ranks)
	}
	if cs[6].Name != "cols.2" || !slices.Equal(cs[6].Ranks, []int{2, 6, 10, 14}) {
		t.Errorf("cols.2 = %s %v, want cols.2 [2 6 10 14]", cs[6].Name, cs[6].Ranks)
	}
	for _, c := range cs[:4] {
		if !slices.Equal(c.Channel, []int{0, 0, 0, 0}) {
			t.Errorf("%s channels %v, want all 0", c.Name, c.Channel)
		}
	}
	for _, c := range cs[4:] {
		if !slices.Equal(c.Channel, []int{1, 1, 1, 1}) {
			t.Errorf("%s channels %v, want all 1", c.Name, c.Channel)
		}
	}
	if cs[5].Sys.NumRanks() != 4 || !slices.Equal(cs[5].Sys.Placement, []int{1, 5, 9, 13}) {
		t.Errorf("cols.1 runs %d ranks on %v", cs[5].Sys.NumRanks(), cs[5].Sys.Placement)
	}
	p := commSys(Communicator{Name: "all", Split: "plane:1,0"})
	cs, err = p.Comms()
	if err != nil || len(cs) != 1 || len(cs[0].Ranks) != 16 {
		t.Fatalf("plane:1,0 on 4x4: %v, %d communicators", err, len(cs))
	}
}

func TestCommsOverrides(t *testing.T) {
	op, it, seed, skew := OpName("max"), 7, uint64(99), 0
	s := commSys(Communicator{Name: "a", Ranks: []int{3, 1}, Op: &op, Iterations: &it, Seed: &seed, Skew: &skew})
	cs, err := s.Comms()
	if err != nil {
		t.Fatal(err)
	}
	e := cs[0].Sys
	if e.Op != "max" || e.Iterations != 7 || e.Seed != 99 || e.Skew != 0 || e.Algo != s.Algo || e.Compute != s.Compute {
		t.Errorf("communicator system %+v does not carry the overrides (and the system's other keys)", e)
	}
	if !slices.Equal(e.Placement, []int{3, 1}) || e.NumRanks() != 2 {
		t.Errorf("placement %v, want [3 1] (list order is rank order)", e.Placement)
	}
}

// TestCommsErrors: every bad input names its key and the allowed values.
func TestCommsErrors(t *testing.T) {
	zero := 0
	for _, tc := range []struct {
		s     System
		field string
		want  string
	}{
		{commSys(Communicator{Name: "a", Ranks: []int{1, 2, 1}}), "communicators[0].ranks[2]", "not listed before"},
		{commSys(Communicator{Name: "a", Ranks: []int{16}}), "communicators[0].ranks[0]", "0..15"},
		{commSys(Communicator{Name: "a", Ranks: []int{-1}}), "communicators[0].ranks[0]", "0..15"},
		{commSys(Communicator{Name: "a", Split: "dim:2"}), "communicators[0].split", "not one of 0..1"},
		{commSys(Communicator{Name: "a", Split: "plane:0,0"}), "communicators[0].split", "must differ"},
		{commSys(Communicator{Name: "a", Split: "row"}), "communicators[0].split", "dim:K"},
		{commSys(Communicator{Name: "a"}), "communicators[0].ranks", "a split"},
		{commSys(Communicator{Name: "a", Split: "dim:0", Ranks: []int{1}}), "communicators[0].split", "absent when ranks"},
		{commSys(Communicator{Name: "", Ranks: []int{1}}), "communicators[0].name", "1..64"},
		{commSys(Communicator{Name: "a", Ranks: []int{1}}, Communicator{Name: "a", Ranks: []int{2}}), "communicators[1].name", "communicators[0]"},
		{commSys(Communicator{Name: "a", Ranks: []int{1}, Iterations: &zero}), "communicators[0].iterations", "1..1048576"},
		{commSys(Communicator{Name: "a", Split: "dim:0"}, Communicator{Name: "b", Split: "dim:1"}, Communicator{Name: "c", Ranks: []int{5}}), "channels", "node 5 (rank 5) is in 3 communicators (a.1, b.1, c)"},
	} {
		err := tc.s.Validate()
		fe, ok := err.(*FieldError)
		if !ok || fe.Field != tc.field || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: error %v, want field %s mentioning %q", tc.s.Communicators, err, tc.field, tc.want)
		}
		if err != nil && strings.Contains(err.Error(), "\n") {
			t.Errorf("a multi-line error: %q", err)
		}
	}
	s := commSys(Communicator{Name: "a", Split: "dim:0"})
	s.Repeat = 2
	if err := s.Validate(); err == nil || !strings.Contains(err.Error(), "communicators") {
		t.Errorf("communicators with repeat 2: %v", err)
	}
	s = commSys(Communicator{Name: "a", Split: "dim:0"})
	s.Channels = 9
	if err := s.Validate(); err == nil || !strings.Contains(err.Error(), "channels") {
		t.Errorf("channels 9: %v", err)
	}
	// The head must hold the channel field: 3 channel bits and the
	// iteration bit above a 4x4's 4+4+6 header need 18 bits.
	s = commSys(Communicator{Name: "a", Split: "dim:0"})
	s.Channels, s.FlitWidth = 5, 16
	if err := s.Validate(); err == nil || !strings.Contains(err.Error(), "flit_width") || !strings.Contains(err.Error(), "18..") {
		t.Errorf("channels 5 on a 16-bit flit: %v", err)
	}
}

// TestCommunicatorsYAML: a communicators list reads back from the file the
// system writes, and a file's mistakes are named with their line.
func TestCommunicatorsYAML(t *testing.T) {
	op, it, comp, jit, skew, seed := OpName("sum"), 3, 2, 1, 0, uint64(5)
	algo := Algorithm("dissemination")
	opMax := OpName("max")
	s := commSys(Communicator{Name: "rows", Split: "dim:0", Op: &op, Iterations: &it, Compute: &comp, Jitter: &jit, Skew: &skew, Seed: &seed},
		Communicator{Name: "pair", Ranks: []int{9, 2}, Algo: &algo, Op: &opMax})
	if err := s.Validate(); err != nil {
		t.Fatal(err)
	}
	b, err := s.YAML()
	if err != nil {
		t.Fatal(err)
	}
	got, err := Parse(b)
	if err != nil {
		t.Fatalf("parse the written file: %v\n%s", err, b)
	}
	if !reflect.DeepEqual(got.Communicators, s.Communicators) || got.Channels != 2 {
		t.Errorf("round trip: %+v, want %+v", got.Communicators, s.Communicators)
	}
	for _, tc := range []struct{ file, want string }{
		{"dims: [4, 4]\ncommunicators:\n  - {name: a, rankz: [1]}\n", "line 3"},
		{"dims: [4, 4]\ncommunicators:\n  - {name: a, ranks: [1], op: nope}\n", "communicators[0].op"},
		{"dims: [4, 4]\ncommunicators: 3\n", "communicators"},
		{"dims: [4, 4]\nchannels: 0\n", "channels"},
		{"dims: [4, 4]\ncommunicators:\n  - {name: a, ranks: [1], name: b}\n", "given twice"},
	} {
		if _, err := Parse([]byte(tc.file)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: %v, want an error mentioning %q", tc.file, err, tc.want)
		}
	}
}

// TestComputeWithoutLoop: compute and jitter change nothing without a
// loop, so giving them without one is an error naming the key, for the
// system and for a communicator's own.
func TestComputeWithoutLoop(t *testing.T) {
	s := Default()
	s.Compute = 5
	if err := s.Validate(); err == nil || !strings.Contains(err.Error(), "compute") || !strings.Contains(err.Error(), "iterations") {
		t.Errorf("compute 5 without a loop: %v", err)
	}
	s = Default()
	s.Jitter = 3
	if err := s.Validate(); err == nil || !strings.Contains(err.Error(), "jitter") {
		t.Errorf("jitter 3 without a loop: %v", err)
	}
	s.Iterations = 2
	if err := s.Validate(); err != nil {
		t.Errorf("jitter 3 in a loop: %v", err)
	}
	five, one, two := 5, 1, 2
	c := commSys(Communicator{Name: "a", Ranks: []int{1}, Compute: &five, Iterations: &one})
	if err := c.Validate(); err == nil || !strings.Contains(err.Error(), "communicators[0].compute") {
		t.Errorf("a communicator's compute without its loop: %v", err)
	}
	c = commSys(Communicator{Name: "a", Ranks: []int{1}, Compute: &five, Iterations: &two})
	if err := c.Validate(); err != nil {
		t.Errorf("a communicator's compute in its loop: %v", err)
	}
}

// TestLoopDefaultsSkipOneShot: the system's compute and jitter are
// defaults for the communicators that loop; one with iterations 1 runs
// without them instead of being refused under keys it does not have.
func TestLoopDefaultsSkipOneShot(t *testing.T) {
	one := 1
	s := commSys(Communicator{Name: "a", Ranks: []int{0, 1}}, Communicator{Name: "b", Ranks: []int{2, 3}, Iterations: &one})
	s.Iterations, s.Compute, s.Jitter = 4, 3, 5
	if err := s.Validate(); err != nil {
		t.Fatalf("a loop's compute and jitter beside a communicator that runs once: %v", err)
	}
	cs, err := s.Comms()
	if err != nil {
		t.Fatal(err)
	}
	if a, b := cs[0].Sys, cs[1].Sys; a.Compute != 3 || a.Jitter != 5 || b.Compute != 0 || b.Jitter != 0 {
		t.Errorf("compute/jitter: a %d/%d (want 3/5), b %d/%d (want 0/0)", a.Compute, a.Jitter, b.Compute, b.Jitter)
	}
	// With no communicator looping they would change nothing: an error
	// naming the system's key.
	s = commSys(Communicator{Name: "a", Ranks: []int{0, 1}})
	s.Jitter = 5
	if err := s.Validate(); err == nil || !strings.HasPrefix(err.Error(), "invalid jitter") {
		t.Errorf("jitter 5 with no communicator looping: %v, want an error naming jitter", err)
	}
}

// TestStuckRankInNoCommunicator: stuck:R for a rank no communicator
// holds would change nothing (no unit waits for it): an error naming the
// fault; a rank of a communicator is taken.
func TestStuckRankInNoCommunicator(t *testing.T) {
	s := commSys(Communicator{Name: "a", Ranks: []int{0, 1, 2}}, Communicator{Name: "b", Ranks: []int{2, 4}})
	s.Faults = []string{"stuck:5"}
	if err := s.Validate(); err == nil || !strings.Contains(err.Error(), "faults[0]") || !strings.Contains(err.Error(), "in none") {
		t.Errorf("stuck:5 in no communicator: %v", err)
	}
	s.Faults = []string{"stuck:4"}
	if err := s.Validate(); err != nil {
		t.Errorf("stuck:4 of communicator b: %v", err)
	}
}

// TestSplitMembersDrawApart: the communicators of one split take seeds
// seed, seed+1, ... so that rows.0 and rows.1 do not arrive alike; an
// entry with ranks keeps its seed.
func TestSplitMembersDrawApart(t *testing.T) {
	seed, skew := uint64(40), 50
	s := commSys(Communicator{Name: "rows", Split: "dim:0", Seed: &seed, Skew: &skew}, Communicator{Name: "p", Ranks: []int{0, 5}, Seed: &seed})
	cs, err := s.Comms()
	if err != nil {
		t.Fatal(err)
	}
	for k, c := range cs {
		want := seed + uint64(k)
		if c.Name == "p" {
			want = seed
		}
		if c.Sys.Seed != want {
			t.Errorf("%s: seed %d, want %d", c.Name, c.Sys.Seed, want)
		}
	}
	if a, b := cs[0].Sys.Arrivals(), cs[1].Sys.Arrivals(); reflect.DeepEqual(a, b) {
		t.Errorf("rows.0 and rows.1 draw the same arrivals %v", a)
	}
}
