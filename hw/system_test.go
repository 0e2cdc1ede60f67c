package hw

import (
	"errors"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"
)

func TestDefaultValidates(t *testing.T) {
	d := Default()
	if err := d.Validate(); err != nil {
		t.Fatalf("Default() does not validate: %v", err)
	}
	if d.Nodes() != 16 || d.NumRanks() != 16 || !reflect.DeepEqual(d.Dims, []int{4, 4}) {
		t.Fatalf("Default() is not the 16-node 4x4 system: %+v", d)
	}
	if d.Algo != "butterfly" || d.Skew == 0 {
		t.Fatalf("Default() must run the butterfly with skewed arrivals: %+v", d)
	}
	// Default returns a fresh value each time: changing one must not change the next.
	d.Dims[0] = 8
	if Default().Dims[0] != 4 {
		t.Fatal("Default() shares its dims slice between calls")
	}
}

// TestValidateRejects changes one field of the default system at a time and
// checks that Validate names exactly that field.
func TestValidateRejects(t *testing.T) {
	cases := []struct {
		name    string
		mutate  func(s *System)
		field   string
		allowed string // a substring of FieldError.Allowed
	}{
		{"name a space", func(s *System) { s.Name = "a b" }, "name", "1..64"},
		{"name space", func(s *System) { s.Name = "my system" }, "name", "A-Z"},
		{"name leading dash", func(s *System) { s.Name = "-x" }, "name", "starting with"},
		{"name leading dot", func(s *System) { s.Name = ".x" }, "name", "starting with"},
		{"name too long", func(s *System) { s.Name = strings.Repeat("a", 65) }, "name", "1..64"},
		{"name non-ascii", func(s *System) { s.Name = "süd" }, "name", "A-Z"},
		{"name newline", func(s *System) { s.Name = "a\nb" }, "name", "A-Z"},
		{"topology", func(s *System) { s.Topology = "mesh" }, "topology", "hyperxbar"},
		{"fattree unequal dims", func(s *System) { s.Topology, s.Dims = "fattree", []int{4, 2} }, "dims[1]", "all equal"},
		{"collective", func(s *System) { s.Collective = "reduce" }, "collective", "allgather"},
		{"item_flits", func(s *System) { s.ItemFlits = 0 }, "item_flits", "1..4096"},
		{"data op", func(s *System) { s.Collective, s.Op = "allgather", "sum" }, "op", "barrier with collective allgather"},
		{"items", func(s *System) { s.Collective, s.Items = "allgather", 17 }, "items", "0..16 with collective allgather on 16 ranks (0 means 16)"},
		{"broadcast items default", func(s *System) { s.Collective, s.Items = "broadcast", 2 }, "items", "(0 means 1)"},
		{"barrier items", func(s *System) { s.Items = 4 }, "items", "0 with collective barrier"},
		{"barrier order", func(s *System) { s.Order = "OM" }, "order", `"" with collective barrier`},
		{"barrier item_placement", func(s *System) { s.ItemPlace = []int{1} }, "item_placement", "[] with collective barrier"},
		{"broadcast items", func(s *System) { s.Collective, s.Items = "broadcast", 2 }, "items", "0..1"},
		{"order", func(s *System) { s.Collective, s.Items, s.Order = "allgather", 4, "OXMM" }, "order", "character 1"},
		{"item_placement length", func(s *System) { s.Collective, s.Items, s.ItemPlace = "allgather", 4, []int{1, 2} }, "item_placement", "4 entries"},
		{"item_placement range", func(s *System) { s.Collective, s.Items, s.ItemPlace = "allgather", 2, []int{1, 16} }, "item_placement[1]", "0..15"},
		{"item_placement repeat", func(s *System) { s.Collective, s.Items, s.ItemPlace = "allgather", 2, []int{3, 3} }, "item_placement[1]", "item 0 starts on rank 3"},
		{"topology empty", func(s *System) { s.Topology = "" }, "topology", "hyperxbar"},
		{"dims nil", func(s *System) { s.Dims = nil }, "dims", "1 to 6"},
		{"dims seven", func(s *System) { s.Dims = []int{2, 2, 2, 2, 2, 2, 2} }, "dims", "1 to 6"},
		{"dims[0] one", func(s *System) { s.Dims = []int{1}; s.Ranks = 0 }, "dims[0]", "2..64"},
		{"dims[1] 65", func(s *System) { s.Dims = []int{4, 65} }, "dims[1]", "2..64"},
		{"dims[2] negative", func(s *System) { s.Dims = []int{4, 4, -4}; s.Ranks = 0 }, "dims[2]", "2..64"},
		{"ranks negative", func(s *System) { s.Ranks = -1 }, "ranks", "0..16"},
		{"ranks over nodes", func(s *System) { s.Ranks = 17 }, "ranks", "0..16"},
		{"placement short", func(s *System) { s.Ranks = 4; s.Placement = []int{0, 1, 2} }, "placement", "4 entries"},
		{"placement long", func(s *System) { s.Ranks = 2; s.Placement = []int{0, 1, 2} }, "placement", "2 entries"},
		{"placement out of range", func(s *System) { s.Ranks = 3; s.Placement = []int{0, 16, 1} }, "placement[1]", "0..15"},
		{"placement negative", func(s *System) { s.Ranks = 3; s.Placement = []int{0, 1, -1} }, "placement[2]", "0..15"},
		{"placement duplicate", func(s *System) { s.Ranks = 3; s.Placement = []int{7, 3, 7} }, "placement[2]", "rank 0 is on node 7"},
		{"algo", func(s *System) { s.Algo = "ring" }, "algo", "butterfly, butterfly-near-first, dissemination"},
		{"op", func(s *System) { s.Op = "mul" }, "op", "barrier, sum"},
		{"op sum with dissemination", func(s *System) { s.Algo = "dissemination"; s.Op = "sum" }, "op", "idempotent"},
		{"op xor with dissemination", func(s *System) { s.Algo = "dissemination"; s.Op = "xor" }, "op", "idempotent"},
		{"skew negative", func(s *System) { s.Skew = -1 }, "skew", "0..1073741824"},
		{"skew huge", func(s *System) { s.Skew = MaxSkew + 1 }, "skew", "0..1073741824"},
		{"link_latency 0", func(s *System) { s.LinkLatency = 0 }, "link_latency", "1..64"},
		{"link_latency 65", func(s *System) { s.LinkLatency = 65 }, "link_latency", "1..64"},
		{"buffer_depth 0", func(s *System) { s.BufferDepth = 0 }, "buffer_depth", "1..64"},
		{"buffer_depth 65", func(s *System) { s.BufferDepth = 65 }, "buffer_depth", "1..64"},
		{"flit_width 15", func(s *System) { s.FlitWidth = 15 }, "flit_width", "16..128"},
		{"flit_width 129", func(s *System) { s.FlitWidth = 129 }, "flit_width", "16..128"},
		{"flit_width below header", func(s *System) {
			s.Dims = []int{64, 64, 64, 64} // 24 address + 24 rank + 6 gate bits
			s.Ranks = 0
			s.FlitWidth = 53
		}, "flit_width", "54-bit header"},
		{"duplex", func(s *System) { s.Duplex = "simplex" }, "duplex", "full, half"},
		{"max_cycles 0", func(s *System) { s.MaxCycles = 0 }, "max_cycles", "1..1099511627776"},
		{"max_cycles huge", func(s *System) { s.MaxCycles = MaxMaxCycles + 1 }, "max_cycles", "1..1099511627776"},
		{"unit_pipeline 2", func(s *System) { s.UnitPipeline = 2 }, "unit_pipeline", "0 (a signal counts for the gate check from the cycle after its pop) or 1"},
		{"unit_pipeline -1", func(s *System) { s.UnitPipeline = -1 }, "unit_pipeline", "or 1 (from the third cycle after it"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := Default()
			c.mutate(&s)
			err := s.Validate()
			fe, ok := errors.AsType[*FieldError](err)
			if !ok {
				t.Fatalf("Validate() = %v, want a *FieldError for %s", err, c.field)
			}
			if fe.Field != c.field {
				t.Fatalf("Validate() names field %q, want %q (error: %v)", fe.Field, c.field, err)
			}
			if !strings.Contains(fe.Allowed, c.allowed) {
				t.Errorf("allowed %q does not mention %q", fe.Allowed, c.allowed)
			}
			msg := err.Error()
			if !strings.HasPrefix(msg, "invalid "+c.field+": ") || !strings.Contains(msg, "(allowed: ") || strings.Contains(msg, "\n") {
				t.Errorf("message %q is not one line of the form \"invalid FIELD: VALUE (allowed: ...)\"", msg)
			}
		})
	}
}

func TestValidateAcceptsEdges(t *testing.T) {
	cases := []struct {
		name   string
		mutate func(s *System)
	}{
		{"ranks 0 is every node", func(s *System) { s.Ranks = 0 }},
		{"ranks 1", func(s *System) { s.Ranks = 1 }},
		{"one dimension of 2", func(s *System) { s.Dims = []int{2}; s.Ranks = 0 }},
		{"four dimensions of 64", func(s *System) { s.Dims = []int{64, 64, 64, 64}; s.Ranks = 1 << 24 }},
		{"flit_width at header", func(s *System) { s.Dims = []int{64, 64, 64, 64}; s.Ranks = 0; s.FlitWidth = 54 }},
		{"skew 0", func(s *System) { s.Skew = 0 }},
		{"skew max", func(s *System) { s.Skew = MaxSkew }},
		{"latency and depth max", func(s *System) { s.LinkLatency, s.BufferDepth = MaxLinkLatency, MaxBufferDepth }},
		{"max_cycles max", func(s *System) { s.MaxCycles = MaxMaxCycles }},
		{"permutation placement", func(s *System) {
			s.Placement = []int{15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0}
		}},
		{"sparse placement", func(s *System) { s.Ranks = 3; s.Placement = []int{15, 0, 5} }},
		{"placement with ranks 0", func(s *System) {
			s.Ranks = 0
			s.Placement = []int{1, 0, 3, 2, 5, 4, 7, 6, 9, 8, 11, 10, 13, 12, 15, 14}
		}},
		{"dissemination min", func(s *System) { s.Algo, s.Op = "dissemination", "min" }},
		{"near-first xor", func(s *System) { s.Algo, s.Op = "butterfly-near-first", "xor" }},
		{"half duplex", func(s *System) { s.Duplex = "half" }},
		{"name chars", func(s *System) { s.Name = "_a.B-9" }},
		{"name 64", func(s *System) { s.Name = strings.Repeat("z", 64) }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := Default()
			c.mutate(&s)
			if err := s.Validate(); err != nil {
				t.Fatalf("Validate() = %v, want nil", err)
			}
		})
	}
}

// TestValidateShortMessages: a huge value must not make a huge message.
func TestValidateShortMessages(t *testing.T) {
	s := Default()
	s.Algo = Algorithm(strings.Repeat("x", 1<<20))
	if err := s.Validate(); err == nil || len(err.Error()) > 200 {
		t.Fatalf("message for a 1 MiB algo is %d bytes", len(err.Error()))
	}
	s = Default()
	s.Dims = make([]int, 1<<20)
	if err := s.Validate(); err == nil || len(err.Error()) > 200 {
		t.Fatalf("message for a 1M-entry dims is %d bytes", len(err.Error()))
	}
}

// allocBytes returns the bytes f allocates (averaged over a few runs).
func allocBytes(f func()) uint64 {
	const runs = 5
	f()
	var a, b runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&a)
	for range runs {
		f()
	}
	runtime.ReadMemStats(&b)
	return (b.TotalAlloc - a.TotalAlloc) / runs
}

// TestValidateCost: Validate must not allocate in proportion to the nodes,
// only (for placement) in proportion to the placement list.
func TestValidateCost(t *testing.T) {
	big := Default()
	big.Dims = []int{64, 64, 64, 64} // 16,777,216 nodes
	big.Ranks = 1 << 24
	big.Skew = MaxSkew
	if n := allocBytes(func() {
		if err := big.Validate(); err != nil {
			t.Fatal(err)
		}
	}); n > 1024 {
		t.Errorf("Validate of a 2^24-node system without placement allocates %d bytes", n)
	}

	sparse := big
	sparse.Ranks = 4
	sparse.Placement = []int{1 << 23, 0, 5, 1<<24 - 1}
	if n := allocBytes(func() {
		if err := sparse.Validate(); err != nil {
			t.Fatal(err)
		}
	}); n > 4096 {
		t.Errorf("Validate of 4 placed ranks on 2^24 nodes allocates %d bytes", n)
	}

	dense := Default()
	dense.Dims = []int{32, 32, 32, 32} // 1,048,576 nodes
	dense.Ranks = 0
	dense.Placement = make([]int, 1<<20)
	for r := range dense.Placement {
		dense.Placement[r] = (r*7 + 3) % (1 << 20) // a permutation: 7 is odd
	}
	if n := allocBytes(func() {
		if err := dense.Validate(); err != nil {
			t.Fatal(err)
		}
	}); n > 8*uint64(len(dense.Placement)) {
		t.Errorf("Validate of a 2^20-entry placement allocates %d bytes, more than the list itself", n)
	}
}

// TestCheckPlacementModes covers both duplicate detectors (bit set for dense
// placements, map for sparse ones) and the rank reported for a duplicate.
func TestCheckPlacementModes(t *testing.T) {
	for _, nodes := range []int{16, 1 << 20} { // bit set, then map
		p := []int{3, 9, 12, 9}
		err := checkPlacement(p, nodes)
		fe, ok := errors.AsType[*FieldError](err)
		if !ok || fe.Field != "placement[3]" || !strings.Contains(fe.Allowed, "rank 1 is on node 9") {
			t.Errorf("nodes=%d: checkPlacement(%v) = %v, want duplicate at placement[3] naming rank 1", nodes, p, err)
		}
		if err := checkPlacement([]int{3, 9, 12, 0}, nodes); err != nil {
			t.Errorf("nodes=%d: distinct placement rejected: %v", nodes, err)
		}
		err = checkPlacement([]int{3, nodes, 3}, nodes)
		if fe, ok := errors.AsType[*FieldError](err); !ok || fe.Field != "placement[1]" {
			t.Errorf("nodes=%d: out-of-range entry reported as %v, want placement[1]", nodes, err)
		}
	}
}

func TestArrivals(t *testing.T) {
	s := Default()
	a1, a2 := s.Arrivals(), s.Arrivals()
	if len(a1) != s.NumRanks() {
		t.Fatalf("len(Arrivals()) = %d, want %d", len(a1), s.NumRanks())
	}
	if !reflect.DeepEqual(a1, a2) {
		t.Fatal("Arrivals() differs between two calls with the same seed")
	}
	s2 := s
	s2.Seed = s.Seed + 1
	if reflect.DeepEqual(a1, s2.Arrivals()) {
		t.Fatal("Arrivals() is the same for seeds 1 and 2")
	}
	// The cycles must actually spread over the window and operands must vary.
	cycles, ops := map[int64]bool{}, map[uint64]bool{}
	for _, a := range a1 {
		cycles[a.Cycle] = true
		ops[a.Operand] = true
	}
	if len(cycles) < 4 || len(ops) < 16 {
		t.Fatalf("Arrivals() poorly spread: %d distinct cycles, %d distinct operands of 16", len(cycles), len(ops))
	}

	for _, skew := range []int{0, 1, 7, 40, MaxSkew} {
		for seed := uint64(0); seed < 20; seed++ {
			s := Default()
			s.Skew, s.Seed = skew, seed
			for r, a := range s.Arrivals() {
				if a.Cycle < 0 || a.Cycle > int64(skew) {
					t.Fatalf("skew %d seed %d: rank %d arrives at %d, outside [0, %d]", skew, seed, r, a.Cycle, skew)
				}
			}
		}
	}
	// With skew 1 over many ranks both ends of the window occur.
	s = Default()
	s.Dims, s.Ranks, s.Skew = []int{64}, 0, 1
	seen := map[int64]bool{}
	for _, a := range s.Arrivals() {
		seen[a.Cycle] = true
	}
	if !seen[0] || !seen[1] {
		t.Fatalf("skew 1 over 64 ranks gives cycles %v, want both 0 and 1", seen)
	}
	// The rank count follows ranks, not the node count.
	s = Default()
	s.Ranks = 12
	if n := len(s.Arrivals()); n != 12 {
		t.Fatalf("ranks 12: %d arrivals", n)
	}
}

func TestPlacement(t *testing.T) {
	s := Default()
	for r := range s.NumRanks() {
		if n := s.RankNode(r); n != r {
			t.Fatalf("without placement rank %d is on node %d, want %d", r, n, r)
		}
	}
	s.Ranks = 4
	s.Placement = []int{15, 0, 10, 5}
	if err := s.Validate(); err != nil {
		t.Fatal(err)
	}
	for r, want := range []int{15, 0, 10, 5} {
		if n := s.RankNode(r); n != want {
			t.Errorf("rank %d is on node %d, want %d", r, n, want)
		}
	}
	if s.NumRanks() != 4 || s.Nodes() != 16 {
		t.Errorf("NumRanks()=%d Nodes()=%d, want 4 and 16", s.NumRanks(), s.Nodes())
	}
}

func TestBits(t *testing.T) {
	for _, c := range []struct{ n, want int }{{0, 1}, {1, 1}, {2, 1}, {3, 2}, {4, 2}, {5, 3}, {16, 4}, {17, 5}, {1 << 24, 24}} {
		if got := Bits(c.n); got != c.want {
			t.Errorf("Bits(%d) = %d, want %d", c.n, got, c.want)
		}
	}
	s := Default()
	s.Dims = []int{4, 5, 64}
	if got := s.CoordBits(); !reflect.DeepEqual(got, []int{2, 3, 6}) {
		t.Errorf("CoordBits() = %v", got)
	}
	if s.AddrBits() != 11 {
		t.Errorf("AddrBits() = %d, want 11", s.AddrBits())
	}
}

// TestTitleNamesWhatRuns: an unnamed system is named from what runs, after
// any change (so Default with other dims is not called by the 4x4 name);
// a name given wins; every title is a valid name. Default's ranks follow
// its dims (0: every node), as in a file and on the command line.
func TestTitleNamesWhatRuns(t *testing.T) {
	s := Default()
	if got := s.Title(); got != "hyperxbar-4x4-butterfly-barrier" {
		t.Fatalf("default title %q", got)
	}
	s.Dims = []int{8, 8}
	if got, n := s.Title(), s.NumRanks(); got != "hyperxbar-8x8-butterfly-barrier" || n != 64 {
		t.Fatalf("8x8: title %q, %d ranks", got, n)
	}
	s.Collective, s.Op = CollAllGather, OpBarrier
	s.Topology, s.Algo = TopoTorus, AlgoDissemination
	s.Repeat = 3
	if got := s.Title(); got != "torus-8x8-dissemination-allgather-3ep" {
		t.Fatalf("torus all-gather: %q", got)
	}
	s.Name = "mine"
	if got := s.Title(); got != "mine" {
		t.Fatalf("named: %q", got)
	}
	s = Default()
	s.Dims = []int{64, 64, 64, 64, 64, 64}
	s.Algo = "near-first-butterfly-long-name"
	if got := s.Title(); !validName(got) {
		t.Fatalf("title %q is not a valid name", got)
	}
}

// TestTitleLongStaysMeaningful: a derived name longer than MaxNameLen is
// cut to a valid name that still says what runs (its start) and keeps two
// systems apart that differ only past the cut (a hash suffix), the same on
// every call; a valid system's title is accepted as its name.
func TestTitleLongStaysMeaningful(t *testing.T) {
	s := Default()
	s.Dims = []int{16, 16, 16, 16, 16, 16}
	s.Algo, s.Collective, s.Op = AlgoButterflyNearFirst, CollAllGather, OpBarrier
	s.Repeat = 10000
	long := s.Title()
	if len(long) > MaxNameLen || !validName(long) {
		t.Fatalf("title %q (%d bytes) is not a valid name", long, len(long))
	}
	if !strings.HasPrefix(long, "hyperxbar-16x16x16x16x16x16-butterfly-near-first-") {
		t.Fatalf("title %q lost what runs", long)
	}
	if again := s.Title(); again != long {
		t.Fatalf("title not stable: %q then %q", long, again)
	}
	s.Repeat = 9999
	if other := s.Title(); other == long {
		t.Fatalf("two systems differing past the cut share the title %q", long)
	}
	s.Name, s.Ranks = long, 4096
	if err := s.Validate(); err != nil {
		t.Fatalf("the title as a name: %v", err)
	}
	odd := Default()
	odd.Topology, odd.Algo = "", "my algo"
	if got := odd.Title(); !validName(got) || !strings.Contains(got, "my_algo") {
		t.Fatalf("title %q of a system with odd names", got)
	}
}

// TestPlacementAloneSetsRanks: one rule for ranks in the struct, a file
// and the flags: a placement without ranks places one rank per entry
// (README, "Use hxbar from Go": set Ranks or Placement for fewer ranks).
func TestPlacementAloneSetsRanks(t *testing.T) {
	s := Default()
	s.Placement = []int{0, 5, 10, 15}
	if err := s.Validate(); err != nil || s.NumRanks() != 4 {
		t.Fatalf("Go: placement of 4 without ranks: %v, %d ranks", err, s.NumRanks())
	}
	f, err := Parse([]byte("placement: [0, 5, 10, 15]\n"))
	if err != nil || f.NumRanks() != s.NumRanks() {
		t.Fatalf("file: %v, %d ranks; Go: %d", err, f.NumRanks(), s.NumRanks())
	}
	y, err := s.YAML()
	if err != nil {
		t.Fatal(err)
	}
	back, err := Parse(y)
	if err != nil || back.NumRanks() != 4 || !slices.Equal(back.Placement, s.Placement) {
		t.Fatalf("the struct's YAML read back: %v, %d ranks", err, back.NumRanks())
	}
}
