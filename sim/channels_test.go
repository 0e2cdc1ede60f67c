package sim_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/hxbar/hxbar/barrierunit"
	"github.com/hxbar/hxbar/hw"
	"github.com/hxbar/hxbar/sim"
)

// drawComms draws a run of communicators: splits of the network's lines
// and planes and random rank lists, each with its own op, algo, loop and
// arrivals, and channels enough for the busiest node.
func drawComms(rng *rand.Rand) hw.System {
	dimsChoices := [][]int{{4}, {3, 3}, {4, 4}, {2, 3, 4}, {5, 2}}
	ops := []hw.OpName{hw.OpBarrier, hw.OpSum, hw.OpMax, hw.OpXor}
	sys := hw.Default()
	sys.Dims = dimsChoices[rng.IntN(len(dimsChoices))]
	sys.Seed = rng.Uint64()
	R := sys.NumRanks()
	n := 1 + rng.IntN(4)
	for k := range n {
		c := hw.Communicator{Name: fmt.Sprintf("c%d", k)}
		switch rng.IntN(3) {
		case 0:
			c.Split = fmt.Sprintf("dim:%d", rng.IntN(len(sys.Dims)))
		case 1:
			c.Ranks = rng.Perm(R)[:1+rng.IntN(R)]
		default:
			if len(sys.Dims) >= 2 {
				c.Split = "plane:0,1"
			} else {
				c.Ranks = rng.Perm(R)
			}
		}
		op := ops[rng.IntN(len(ops))]
		algo := hw.Algorithms[rng.IntN(len(hw.Algorithms))]
		if algo == hw.AlgoDissemination && (op == hw.OpSum || op == hw.OpXor) {
			op = hw.OpMax
		}
		it, comp, jit, skew := 1+rng.IntN(6), []int{0, 0, 2, 20}[rng.IntN(4)], []int{0, 3}[rng.IntN(2)], rng.IntN(40)
		if it == 1 { // compute and jitter only with a loop
			comp, jit = 0, 0
		}
		seed := rng.Uint64()
		c.Op, c.Algo, c.Iterations, c.Compute, c.Jitter, c.Skew, c.Seed = &op, &algo, &it, &comp, &jit, &skew, &seed
		sys.Communicators = append(sys.Communicators, c)
	}
	sys.Channels = hw.MaxChannels
	if cs, err := sys.Comms(); err == nil {
		most := 0
		used := map[int]int{}
		for _, c := range cs {
			for _, r := range c.Ranks {
				used[r]++
				most = max(most, used[r])
			}
		}
		sys.Channels = max(most, 1)
	}
	return sys
}

// TestCommunicatorProperties draws runs of concurrent communicators and
// checks that each behaves as a barrier (or reduction) loop of its own,
// whatever the others do on the same network: every rank of it runs every
// iteration; none leaves iteration i before every rank of its communicator
// has arrived at i; a reduction's result is the op over its
// communicator's operands of i (a signal of another communicator counted
// would change it, or raise OVER); each next arrival is the release + 1 +
// compute + jitter; and the result's iterations agree with the events.
func TestCommunicatorProperties(t *testing.T) {
	rng := rand.New(rand.NewPCG(27, 5))
	runs := 80
	if testing.Short() {
		runs = 30
	}
	for i := range runs {
		sys := drawComms(rng)
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			if err := sys.Validate(); err != nil {
				t.Fatalf("a drawn run is invalid: %v", err)
			}
			checkComms(t, sys)
		})
	}
}

func checkComms(t *testing.T, sys hw.System) {
	t.Helper()
	cs, err := sys.Comms()
	if err != nil {
		t.Fatal(err)
	}
	V := 0
	for _, c := range cs {
		V += len(c.Ranks)
	}
	arrive := make([][]barrierunit.Event, V)
	release := make([][]barrierunit.Event, V)
	s, err := sim.Build(sys, nil)
	if err != nil {
		t.Fatalf("build: %v", err)
	}
	res, err := s.Run(sim.Options{Events: func(evs []barrierunit.Event) {
		for _, e := range evs {
			switch e.Kind {
			case barrierunit.EvArrive:
				arrive[e.Rank] = append(arrive[e.Rank], e)
			case barrierunit.EvRelease:
				release[e.Rank] = append(release[e.Rank], e)
			}
		}
	}})
	if err != nil || !res.Complete {
		t.Fatalf("run: %v (%s)", err, res.Stop)
	}
	if len(res.Communicators) != len(cs) {
		t.Fatalf("%d communicators in the result, want %d", len(res.Communicators), len(cs))
	}
	base := 0
	for k, c := range cs {
		checkComm(t, c, res.Communicators[k], arrive[base:base+len(c.Ranks)], release[base:base+len(c.Ranks)])
		base += len(c.Ranks)
	}
}

func checkComm(t *testing.T, c hw.Comm, cr sim.CommunicatorResult, arrive, release [][]barrierunit.Event) {
	t.Helper()
	N, n := c.Sys.IterationCount(), len(c.Ranks)
	op, _ := barrierunit.ParseOp(string(c.Sys.Op))
	if cr.Name != c.Name || !slices.Equal(cr.RankList, c.Ranks) || len(cr.Iterations) != N {
		t.Fatalf("communicator %s: result %s, ranks %v, %d iterations; want ranks %v, %d iterations", c.Name, cr.Name, cr.RankList, len(cr.Iterations), c.Ranks, N)
	}
	for j := range n {
		if len(arrive[j]) != N || len(release[j]) != N {
			t.Fatalf("%s rank %d: %d arrivals, %d releases, want %d each", c.Name, j, len(arrive[j]), len(release[j]), N)
		}
	}
	for i := range N {
		lastArr, lastRel := int64(-1), int64(-1)
		want := op.Identity()
		for j := range n {
			lastArr = max(lastArr, arrive[j][i].Cycle)
			want = op.Apply(want, arrive[j][i].Value)
		}
		for j := range n {
			rel := release[j][i]
			lastRel = max(lastRel, rel.Cycle)
			if n > 1 && rel.Cycle <= lastArr {
				t.Fatalf("%s iteration %d: rank %d released in cycle %d, the last rank arrives in %d", c.Name, i+1, j, rel.Cycle, lastArr)
			}
			if op.HasPayload() && rel.Value != want {
				t.Fatalf("%s iteration %d: rank %d's result %#x, want %#x", c.Name, i+1, j, rel.Value, want)
			}
			if i+1 < N {
				jit, _ := c.Sys.IterationDraw(j, i+2)
				if at := arrive[j][i+1].Cycle; at != rel.Cycle+1+int64(c.Sys.Compute)+jit {
					t.Fatalf("%s rank %d arrives at iteration %d in cycle %d, want release %d + 1 + compute %d + jitter %d", c.Name, j, i+2, at, rel.Cycle, c.Sys.Compute, jit)
				}
			}
		}
		it := cr.Iterations[i]
		if it.Latency == nil || *it.Latency != lastRel-lastArr || *it.LastRelease != lastRel {
			t.Fatalf("%s iteration %d: result %+v, want last release %d, latency %d", c.Name, i+1, it, lastRel, lastRel-lastArr)
		}
	}
}

// TestOneCommunicatorIsWorld: a communicators list of one communicator of
// every rank in rank order runs exactly as the system without a list (the
// channel machinery adds no cycle): the same events in the same cycles.
func TestOneCommunicatorIsWorld(t *testing.T) {
	for _, tc := range []struct {
		dims []int
		op   hw.OpName
		it   int
	}{{[]int{4, 4}, hw.OpBarrier, 1}, {[]int{3, 5}, hw.OpSum, 4}, {[]int{8}, hw.OpMax, 3}} {
		sys := hw.Default()
		sys.Dims, sys.Op, sys.Iterations = tc.dims, tc.op, tc.it
		all := make([]int, sys.NumRanks())
		for r := range all {
			all[r] = r
		}
		one := sys
		one.Communicators = []hw.Communicator{{Name: "all", Ranks: all}}
		a, b := eventsOf(t, sys), eventsOf(t, one)
		if len(a) == 0 || !slices.Equal(a, b) {
			t.Fatalf("%v %s x%d: %d events without a list, %d with one communicator; first difference: %s", tc.dims, tc.op, tc.it, len(a), len(b), firstDiff(a, b))
		}
	}
}

func eventsOf(t *testing.T, sys hw.System) []barrierunit.Event {
	t.Helper()
	s, err := sim.Build(sys, nil)
	if err != nil {
		t.Fatal(err)
	}
	var out []barrierunit.Event
	if _, err := s.Run(sim.Options{Events: func(evs []barrierunit.Event) { out = append(out, evs...) }}); err != nil {
		t.Fatal(err)
	}
	return out
}

func firstDiff(a, b []barrierunit.Event) string {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return fmt.Sprintf("event %d: %+v vs %+v", i, a[i], b[i])
		}
	}
	return "one is a prefix of the other"
}

// TestCommunicatorStuckRank: a rank that never arrives stops every
// communicator it is in, whose units' watchdogs report it; the
// communicators without it complete every iteration.
func TestCommunicatorStuckRank(t *testing.T) {
	it := 3
	s, sys := buildRowsCols(t, func(sys *hw.System) {
		sys.Watchdog, sys.Faults = 200, []string{"stuck:5"}
		sys.Communicators[0].Iterations = &it
	})
	res, _ := s.Run(sim.Options{})
	if res.Complete {
		t.Fatal("a run with a stuck rank completed")
	}
	cs, _ := sys.Comms()
	timeouts := map[int]bool{} // nodes whose unit timed out
	for _, e := range res.Errors {
		if e.Code == "TIMEOUT" {
			timeouts[e.Node] = true
		}
	}
	for k, c := range cs {
		cr := res.Communicators[k]
		has5 := slices.Contains(c.Ranks, 5)
		last := cr.Iterations[len(cr.Iterations)-1]
		switch {
		case has5 && last.LastRelease != nil:
			t.Errorf("%s holds the stuck rank but its iteration %d ended", c.Name, last.Iteration)
		case !has5 && (len(cr.Iterations) != c.Sys.IterationCount() || last.LastRelease == nil):
			t.Errorf("%s does not hold the stuck rank but did not complete: %+v", c.Name, cr.Iterations)
		}
		if has5 {
			for _, r := range c.Ranks {
				if r != 5 && !timeouts[sys.RankNode(r)] {
					t.Errorf("%s: rank %d waits for the stuck rank, but its node's watchdog raised no TIMEOUT (errors %+v)", c.Name, r, res.Errors)
				}
			}
		}
	}
}

// buildRowsCols builds the rows and columns of a 4x4 on two channels
// after set changes the system, and returns the system it built.
func buildRowsCols(t *testing.T, set func(*hw.System)) (*sim.System, hw.System) {
	t.Helper()
	sys := hw.Default()
	sys.Dims, sys.Channels = []int{4, 4}, 2
	sys.Communicators = []hw.Communicator{{Name: "rows", Split: "dim:0"}, {Name: "cols", Split: "dim:1"}}
	if set != nil {
		set(&sys)
	}
	s, err := sim.Build(sys, nil)
	if err != nil {
		t.Fatal(err)
	}
	return s, sys
}
