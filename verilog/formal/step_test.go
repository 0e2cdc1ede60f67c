package formal

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/hxbar/hxbar/hw"
)

// TestClassesClosed follows every history of up to six episodes through
// the classes' transitions from the class of its first episode: the class
// reached must hold the tables the history leaves (the same writes, so the
// same next writes), and every class's representative must lie in it.
func TestClassesClosed(t *testing.T) {
	b, d := hw.AlgoButterfly, hw.AlgoDissemination
	for _, dims := range [][]int{{3}, {4}} {
		s := Spec{Name: "t", Dims: dims, Algos: []hw.Algorithm{b, d}, Window: 6}
		cls, err := Classes(s, 6)
		if err != nil {
			t.Fatal(err)
		}
		if len(cls) < 2 {
			t.Fatalf("%v: %d classes, want at least one per schedule", dims, len(cls))
		}
		first := map[hw.Algorithm]int{}
		for i, c := range cls {
			if len(c.Rep) == 1 {
				first[c.Rep[0]] = i
			}
		}
		for n := 1; n <= 6; n++ {
			for m := range 1 << n {
				seq := make([]hw.Algorithm, n)
				for i := range seq {
					seq[i] = []hw.Algorithm{b, d}[m>>i&1]
				}
				c := first[seq[0]]
				for _, a := range seq[1:] {
					c = cls[c].Next[a]
				}
				key, err := s.tablesKey(seq)
				if err != nil {
					t.Fatal(err)
				}
				if key != cls[c].key {
					t.Fatalf("%v: history %s reaches class %d (rep %s), whose tables differ", dims, seqName(seq), c, seqName(cls[c].Rep))
				}
			}
		}
	}
	// A maximum length the exploration cannot close within fails.
	s := Spec{Name: "t", Dims: []int{3}, Algos: []hw.Algorithm{b, d}, Window: 6}
	if _, err := Classes(s, 1); err == nil {
		t.Error("Classes with maxLen 1 on line3: no error, want one (bd reaches new tables)")
	}
}

// TestHarnessHistory: with Fixed set, the history's episodes take every
// arrival at the window's end whatever the free input says, the episode
// after them takes its arrivals from it, and bnd is never early.
func TestHarnessHistory(t *testing.T) {
	s := spec(t, "line3-bdb")
	s.Fixed = 2
	j, err := Build(s, nil, "")
	if err != nil {
		t.Fatal(err)
	}
	run := simHarness(t, j, 260)
	N, E, W := j.Nodes, len(j.Seq), s.Window
	rng := rand.New(rand.NewPCG(20, 9))
	for range 6 {
		offs := make([]int, E*N)
		for i := range offs {
			offs[i] = rng.IntN(W)
		}
		want := slices.Clone(offs)
		for i := range s.Fixed * N {
			want[i] = W - 1
		}
		checkArrivals(t, "line3-bdb fixed 2", run(offs), want, N, E, W)
	}
}
