package hw

import (
	"strings"
	"testing"
)

// TestLoopErrors: every bad loop key gets a one-line error naming the key
// and what is allowed.
func TestLoopErrors(t *testing.T) {
	cases := []struct{ yaml, want string }{
		{"iterations: 0\n", "invalid iterations: 0 (allowed: 1..1048576)"},
		{"iterations: 1048577\n", "invalid iterations: 1048577 (allowed: 1..1048576)"},
		{"iterations: -3\n", "invalid iterations: -3"},
		{"compute: -1\n", "invalid compute: -1 (allowed: 0..1073741824)"},
		{"jitter: 1073741825\n", "invalid jitter: 1073741825 (allowed: 0..1073741824)"},
		{"iterations: 4\ncollective: allgather\n", "invalid iterations: 4 (allowed: 1 with collective allgather"},
		{"iterations: 4\nrepeat: 2\n", "invalid iterations: 4 (allowed: 1 with repeat or episodes"},
		{"iterations: 4\nepisodes: [{op: max}]\n", "invalid iterations: 4 (allowed: 1 with repeat or episodes"},
		{"iterations: 2\ndims: [64, 64, 64, 64]\nflit_width: 16\n", "flit_width"},
	}
	for _, c := range cases {
		_, err := Parse([]byte(c.yaml))
		if err == nil {
			t.Errorf("%q: accepted", c.yaml)
			continue
		}
		if msg := err.Error(); !strings.Contains(msg, c.want) || strings.Contains(msg, "\n") {
			t.Errorf("%q: %q, want one line containing %q", c.yaml, msg, c.want)
		}
	}
	// The same system with one iteration is fine, and a loop adds exactly
	// one head bit (the iteration bit) to what flit_width must hold.
	s := Default()
	s.Dims = []int{64, 64, 64, 64}
	s.FlitWidth = s.HeaderBits()
	if err := s.Validate(); err != nil {
		t.Fatalf("one iteration at the header's width: %v", err)
	}
	s.Iterations = 2
	if err := s.Validate(); err == nil || !strings.Contains(err.Error(), "flit_width") {
		t.Fatalf("a loop at the header's width: %v, want a flit_width error", err)
	}
	s.FlitWidth++
	if err := s.Validate(); err != nil {
		t.Fatalf("a loop at the header's width + 1: %v", err)
	}
}

// TestIterationDraw: the draws are in range, reproducible, differ between
// ranks, iterations and seeds, and cover 0..jitter.
func TestIterationDraw(t *testing.T) {
	s := Default()
	s.Jitter = 5
	seen := map[int64]bool{}
	ops := map[uint64]bool{}
	for r := range 50 {
		for i := 2; i < 20; i++ {
			j, op := s.IterationDraw(r, i)
			if j < 0 || j > 5 {
				t.Fatalf("jitter %d out of 0..5", j)
			}
			if j2, op2 := s.IterationDraw(r, i); j2 != j || op2 != op {
				t.Fatalf("draw (%d, %d) not reproducible", r, i)
			}
			seen[j] = true
			ops[op] = true
		}
	}
	if len(seen) != 6 {
		t.Errorf("jitters drawn: %v, want all of 0..5", seen)
	}
	if len(ops) != 50*18 {
		t.Errorf("%d distinct operands of %d draws", len(ops), 50*18)
	}
	_, a := s.IterationDraw(3, 4)
	s.Seed++
	if _, b := s.IterationDraw(3, 4); a == b {
		t.Errorf("operand does not depend on the seed")
	}
	s.Jitter = 0
	if j, _ := s.IterationDraw(7, 9); j != 0 {
		t.Errorf("jitter 0 drew %d", j)
	}
}

// TestIterationDrawSeedsApart: neighbouring seeds share no draw at any
// rank (before the seed was mixed alone, seed s at rank r drew what seed
// s^1 drew at rank r^1).
func TestIterationDrawSeedsApart(t *testing.T) {
	a, b := Default(), Default()
	for seed := uint64(0); seed < 64; seed++ {
		a.Seed, b.Seed = seed, seed^1
		for r := range 64 {
			for i := 2; i < 6; i++ {
				_, x := a.IterationDraw(r, i)
				for r2 := range 64 {
					if _, y := b.IterationDraw(r2, i); x == y {
						t.Fatalf("seed %d rank %d and seed %d rank %d draw the same operand at iteration %d", seed, r, seed^1, r2, i)
					}
				}
			}
		}
	}
}
