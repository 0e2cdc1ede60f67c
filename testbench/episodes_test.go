package testbench

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hxbar/hxbar/hw"
	"github.com/hxbar/hxbar/sim"
)

// episodeShapes are the networks the multi-episode runs draw from: dims,
// link latency, buffer depth, flit width.
var episodeShapes = []struct {
	dims       []int
	lat, b, fw int
}{
	{[]int{2}, 1, 2, 64},
	{[]int{4}, 2, 1, 32},
	{[]int{2, 2}, 1, 4, 64},
	{[]int{2, 4}, 3, 2, 32},
	{[]int{4, 4}, 1, 4, 64},
	{[]int{8}, 1, 1, 64},
	{[]int{2, 2, 2}, 2, 2, 32},
}

// randomEpisodes draws a valid multi-episode system: a shape, then either
// a repeat of one collective (2..5 times) or a list of 2..5 mixed entries
// (barriers with every op and algorithm, all-gathers, broadcasts), the
// list sometimes repeated. Candidates the model refuses are drawn again.
func randomEpisodes(t testing.TB, rng *rand.Rand, name string) hw.System {
	t.Helper()
	for try := 0; try < 200; try++ {
		sh := episodeShapes[rng.IntN(len(episodeShapes))]
		s := hw.Default()
		s.Name, s.Dims, s.Ranks, s.Placement = name, sh.dims, 0, nil
		s.LinkLatency, s.BufferDepth, s.FlitWidth = sh.lat, sh.b, sh.fw
		s.Seed, s.Skew = rng.Uint64N(1<<20), rng.IntN(25)
		entry := func() hw.Episode {
			var e hw.Episode
			switch k := rng.IntN(6); {
			case k < 4: // barrier or reduction
				c, op, algo := hw.CollBarrier, hw.Ops[rng.IntN(len(hw.Ops))], hw.Algorithms[rng.IntN(len(hw.Algorithms))]
				e.Collective, e.Op, e.Algo = &c, &op, &algo
			case k == 4:
				c, algo, f := hw.CollAllGather, hw.Algorithms[rng.IntN(2)], 1+rng.IntN(4)
				op := hw.OpBarrier
				e.Collective, e.Algo, e.ItemFlits, e.Op = &c, &algo, &f, &op
			default:
				c, algo, f := hw.CollBroadcast, hw.Algorithms[rng.IntN(2)], 1+rng.IntN(5)
				op := hw.OpBarrier
				e.Collective, e.Algo, e.ItemFlits, e.Op = &c, &algo, &f, &op
			}
			if rng.IntN(3) == 0 {
				sk := rng.IntN(40)
				e.Skew = &sk
			}
			return e
		}
		if rng.IntN(3) == 0 {
			e := entry() // one collective, repeated: no reconfiguration
			s.Episodes = []hw.Episode{e}
			s.Repeat = 2 + rng.IntN(4)
		} else {
			n := 2 + rng.IntN(4)
			for i := 0; i < n; i++ {
				s.Episodes = append(s.Episodes, entry())
			}
			s.Repeat = 1
			if n <= 3 && rng.IntN(3) == 0 {
				s.Repeat = 2
			}
		}
		if s.Validate() != nil {
			continue
		}
		if _, err := sim.Build(s, nil); err != nil {
			continue
		}
		return s
	}
	t.Fatalf("%s: no valid multi-episode system in 200 draws", name)
	return hw.System{}
}

// TestCosimEpisodes co-simulates 50 multi-episode runs under Icarus: repeats
// of one collective (2-5 times) and lists of 2-5 mixed barrier, reduction,
// all-gather and broadcast episodes, with the tables rewritten through the
// configuration ports between episodes (docs/registers.md). Every run must
// match the model cycle for cycle, across every episode. make test runs
// the first 24 (about two minutes of CPU less; TestCosimRandom draws
// episode lists too), make bench all 50.
func TestCosimEpisodes(t *testing.T) {
	needTools(t, Icarus)
	t.Parallel()
	runs := 24
	if fullMatrix() {
		runs = 50
	}
	if testing.Short() {
		runs = 6
	}
	rng := rand.New(rand.NewPCG(2026, 8))
	systems := make([]hw.System, runs)
	for i := range systems {
		systems[i] = randomEpisodes(t, rng, fmt.Sprintf("ep%02d", i))
	}
	var multiCfg, repeats, episodes atomic.Int64
	t.Cleanup(func() {
		t.Logf("%d runs, %d episodes; %d runs reconfigure between episodes, %d repeat one collective",
			runs, episodes.Load(), multiCfg.Load(), repeats.Load())
	})
	// Two workers: each co-simulation compiles its own design.
	for w := 0; w < 2; w++ {
		t.Run(fmt.Sprintf("worker%d", w), func(t *testing.T) {
			t.Parallel()
			for i := w; i < runs; i += 2 {
				sys := systems[i]
				dir := filepath.Join(t.TempDir(), sys.Name)
				s, _ := generate(t, dir, sys)
				rep, err := Cosim(ctxFor(t, 5*time.Minute), dir, Icarus)
				var mm *MismatchError
				if errors.As(err, &mm) {
					t.Fatalf("%s (%s): %s", sys.Name, describeEpisodes(sys), rep.String())
				}
				if err != nil {
					t.Fatalf("%s (%s): %v", sys.Name, describeEpisodes(sys), err)
				}
				E := s.NumEpisodes()
				if E < 2 {
					t.Fatalf("%s: %d episodes", sys.Name, E)
				}
				// Every rank is released once per episode in the compared trace.
				rel := 0
				for _, l := range rep.Model {
					if ev, err := ParseEvent(l); err == nil && ev.Kind == 2 {
						rel++
					}
				}
				if want := E * s.Table.Ranks; rel != want {
					t.Errorf("%s: %d release events, want %d (%d episodes x %d ranks)", sys.Name, rel, want, E, s.Table.Ranks)
				}
				episodes.Add(int64(E))
				if len(sys.Episodes) > 1 {
					multiCfg.Add(1)
				} else {
					repeats.Add(1)
				}
			}
		})
	}
}

// TestCosimEpisodesVerilator runs a few multi-episode systems under
// Verilator.
func TestCosimEpisodesVerilator(t *testing.T) {
	needTools(t, Verilator)
	if !fullMatrix() {
		t.Skip("make bench runs it (HXBAR_FULL_MATRIX): two Verilator builds of random episode designs, 5 minutes; make test builds Verilator in TestCosimVerilator")
	}
	t.Parallel()
	designs := 2
	rng := rand.New(rand.NewPCG(77, 1))
	for i := 0; i < designs; i++ {
		sys := randomEpisodes(t, rng, fmt.Sprintf("epv%d", i))
		dir := filepath.Join(t.TempDir(), sys.Name)
		generate(t, dir, sys)
		rep, err := Cosim(ctxFor(t, 10*time.Minute), dir, Verilator)
		if err != nil {
			t.Fatalf("%s (%s): %v\n%s", sys.Name, describeEpisodes(sys), err, rep)
		}
	}
}

// describeEpisodes is a short description of a system's episodes.
func describeEpisodes(s hw.System) string {
	d := fmt.Sprintf("dims %v repeat %d:", s.Dims, s.Repeat)
	for _, e := range s.Episodes {
		d += " {"
		if e.Collective != nil {
			d += string(*e.Collective)
		}
		if e.Op != nil {
			d += " " + string(*e.Op)
		}
		if e.Algo != nil {
			d += " " + string(*e.Algo)
		}
		if e.ItemFlits != nil {
			d += fmt.Sprintf(" F%d", *e.ItemFlits)
		}
		d += "}"
	}
	return d
}

// TestCosimStaleGateCount is issue 20's reproduction: on 3 ranks,
// butterfly (4 gates), dissemination (3 gates), then butterfly again.
// With the receive RAM's entries tagged by a 1-bit episode parity, gate
// 4's count of episode 1 (episode 2 never writes it) read as live again
// in episode 3 and released rank 2 at cycle 172, before ranks 0 and 1
// arrived; the valid flip-flops cleared at every release keep it out. The
// model must release no rank of an episode before that episode's last
// arrival, and the RTL must match it cycle for cycle.
func TestCosimStaleGateCount(t *testing.T) {
	needTools(t, Icarus)
	t.Parallel()
	sys := hw.Default()
	bfly, diss := hw.AlgoButterfly, hw.AlgoDissemination
	sys.Name, sys.Dims, sys.Ranks, sys.Skew, sys.Seed = "stale-gate-count", []int{3}, 3, 60, 9
	sys.Episodes = []hw.Episode{{Algo: &bfly}, {Algo: &diss}, {Algo: &bfly}}
	if err := sys.Validate(); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), sys.Name)
	s, trace := generate(t, dir, sys)
	if g := []int{s.Design.Episode(1).Table.Gates, s.Design.Episode(2).Table.Gates}; g[0] <= g[1] {
		t.Fatalf("gates per episode %v: the case needs fewer gates in episode 2", g)
	}
	evs, err := ParseTrace(trace)
	if err != nil {
		t.Fatal(err)
	}
	// Per episode (counted by releases), no release before the last arrival.
	lastArrive, releases, episode := int64(-1), 0, 1
	for _, e := range evs {
		switch e.Kind {
		case 0:
			lastArrive = max(lastArrive, e.Cycle)
		case 2:
			if e.Cycle < lastArrive {
				t.Fatalf("episode %d: a release at %d before the last arrival at %d", episode, e.Cycle, lastArrive)
			}
			if releases++; releases == 3 {
				releases, episode = 0, episode+1
			}
		}
	}
	if episode != 4 {
		t.Fatalf("%d episodes completed, want 3", episode-1)
	}
	if rep, err := Cosim(ctxFor(t, 5*time.Minute), dir, Icarus); err != nil {
		t.Fatalf("%v\n%s", err, rep)
	}
}

// TestWireFlipLeavesTheSender is random co-simulation seed 209, shrunk:
// a tail bit flipped on n3.d0.down in the middle of an all-gather packet.
// The crossbar sent a payload flit; exchanger 3 received a tail, so
// exchanger 3 (switch 3) ends the packet and drops the rest as orphans.
// The model once let the flipped bit end the packet at the sender too,
// and counted the orphans at the crossbar (switch 5). Model only: no
// simulator (TestCosimWireFlipLeavesTheSender runs the RTL).
func TestWireFlipLeavesTheSender(t *testing.T) {
	t.Parallel()
	_, s := tailFlipDesign(t)
	const receiver, sender = 3, 5
	if d := s.Net.Drops(receiver); d.Orphan == 0 {
		t.Errorf("switch %d (the receiver): %+v, want the packet's rest dropped as orphans", receiver, d)
	}
	if d := s.Net.Drops(sender); d.Any() {
		t.Errorf("switch %d (the sender): %+v, want no drop", sender, d)
	}
}

// TestCosimWireFlipLeavesTheSender: the RTL agrees, DROPS included.
func TestCosimWireFlipLeavesTheSender(t *testing.T) {
	needTools(t, Icarus)
	t.Parallel()
	dir, _ := tailFlipDesign(t)
	if rep, err := Cosim(ctxFor(t, 5*time.Minute), dir, Icarus); err != nil {
		t.Fatalf("%v\n%s", err, rep)
	}
}

// tailFlipDesign generates testdata/tail-flip-209.yaml into a temporary
// directory and runs its model.
func tailFlipDesign(t *testing.T) (string, *sim.System) {
	sys, err := hw.Load("testdata/tail-flip-209.yaml")
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), sys.Name)
	s, _ := generate(t, dir, sys)
	return dir, s
}
