package sim

import (
	"errors"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/hxbar/hxbar/design"
	"github.com/hxbar/hxbar/hw"
)

// randomBoundSystem draws a small system: any topology, 1 or 2 dims, any
// collective with any item count, item size, skew, latency, buffers, duplex.
func randomBoundSystem(rng *rand.Rand) hw.System {
	sys := hw.Default()
	sys.Topology = []hw.Topology{"hyperxbar", "hyperxbar", "torus", "fattree"}[rng.IntN(4)]
	sys.Dims = []int{2 + rng.IntN(4)}
	if rng.IntN(2) == 0 {
		d := 2 + rng.IntN(3)
		if sys.Topology == "fattree" {
			d = sys.Dims[0]
		}
		sys.Dims = append(sys.Dims, d)
	}
	sys.Ranks = 0
	if n := sys.Nodes(); rng.IntN(3) == 0 && n > 2 {
		sys.Ranks = 2 + rng.IntN(n-1)
	}
	sys.Collective = []hw.Collective{"barrier", "allgather", "allgather", "broadcast"}[rng.IntN(4)]
	if sys.Collective == "allgather" {
		R := sys.NumRanks()
		if R&(R-1) == 0 && rng.IntN(2) == 0 {
			sys.Items = max(1, R>>rng.IntN(3))
		} else {
			sys.Items = 1 + rng.IntN(R)
		}
	}
	sys.ItemFlits = 1 + rng.IntN(12)
	sys.Skew = []int{0, 0, 5, 40}[rng.IntN(4)]
	sys.Seed = rng.Uint64()
	sys.LinkLatency = 1 + rng.IntN(3)
	sys.BufferDepth = 1 + rng.IntN(4)
	sys.Duplex = []hw.Duplex{"full", "full", "half"}[rng.IntN(3)]
	sys.Op = []hw.OpName{"barrier", "sum", "max"}[rng.IntN(3)]
	return sys
}

// The bound that refuses runs before they start must never refuse a run
// that would finish: over many random small systems, every complete run
// takes at least as many cycles as the bound, and a max_cycles at the bound
// is accepted.
func TestLowerBoundIsSound(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	runs, data, tight := 0, 0, 0
	for i := 0; i < 3000; i++ {
		sys := randomBoundSystem(rng)
		if sys.Validate() != nil {
			continue
		}
		s, err := Build(sys, nil)
		if err != nil {
			continue // an unsupported combination, refused for its own reason
		}
		b := design.LowerBound(&s.Sys, s.Data, s.Units.Arrive)
		res, err := s.Run(Options{})
		if err != nil {
			t.Fatalf("%+v: %v", sys, err)
		}
		runs++
		if s.Data != nil {
			data++
		}
		if res.Cycles < b.Cycles {
			t.Fatalf("%+v: %d cycles, below the bound %d (%s)", sys, res.Cycles, b.Cycles, b.How)
		}
		if res.Cycles <= b.Cycles*5/4 {
			tight++
		}
		// At max_cycles = the run's own cycles it completes, so it must be
		// accepted; that max_cycles is at least the bound, so it is.
		sys.MaxCycles = res.Cycles
		if _, err := Build(sys, nil); err != nil {
			t.Fatalf("%+v: max_cycles %d, the run's own cycles, refused: %v", sys, res.Cycles, err)
		}
	}
	if runs < 1000 || data < 500 {
		t.Fatalf("only %d runs (%d data collectives): the generator draws too many invalid systems", runs, data)
	}
	t.Logf("%d runs, %d data collectives; %d within 25%% of the bound", runs, data, tight)
}

// A data collective whose bound exceeds max_cycles is refused before the
// run, naming max_cycles, the bound and its derivation.
func TestBoundRefusesHopelessRuns(t *testing.T) {
	sys := hw.Default()
	sys.Dims, sys.Ranks, sys.Collective, sys.ItemFlits, sys.Skew = []int{8}, 0, "allgather", 100, 0
	sys.MaxCycles = 700 // 7 items of 100 flits reach every rank in 3 messages: at least 703 flits
	_, err := Build(sys, nil)
	be, ok := errors.AsType[*design.BoundError](err)
	if !ok {
		t.Fatalf("want a *design.BoundError, got %v", err)
	}
	fe, ok := errors.AsType[*hw.FieldError](err)
	if !ok || fe.Field != "max_cycles" {
		t.Fatalf("want a FieldError naming max_cycles, got %v", err)
	}
	if be.Bound.Cycles < 703 || !strings.Contains(err.Error(), "ejection channel") || !strings.Contains(err.Error(), "invalid max_cycles: 700") {
		t.Fatalf("bound %d: %v", be.Bound.Cycles, err)
	}
	sys.MaxCycles = be.Bound.Cycles
	s, err := Build(sys, nil)
	if err != nil {
		t.Fatalf("max_cycles at the bound refused: %v", err)
	}
	if res, err := s.Run(Options{}); err == nil {
		t.Logf("completed in %d cycles, bound %d", res.Cycles, be.Bound.Cycles)
	}
}
