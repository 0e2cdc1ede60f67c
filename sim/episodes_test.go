package sim

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/hxbar/hxbar/barrierunit"
	"github.com/hxbar/hxbar/hw"
)

// randomEpisodes gives a random system a random episodes list mixing
// barriers (any algo and op) and data collectives, each with its skew.
func randomEpisodes(t *rapid.T, s hw.System) hw.System {
	n := rapid.IntRange(1, 5).Draw(t, "entries")
	s.Episodes = make([]hw.Episode, n)
	for i := range s.Episodes {
		e := &s.Episodes[i]
		skew := rapid.IntRange(0, 30).Draw(t, "ep.skew")
		e.Skew = &skew
		coll := rapid.SampledFrom(hw.Collectives).Draw(t, "ep.collective")
		e.Collective = &coll
		if coll == hw.CollBarrier {
			algo := rapid.SampledFrom(hw.Algorithms).Draw(t, "ep.algo")
			ops := hw.Ops
			if algo == hw.AlgoDissemination {
				ops = []hw.OpName{"barrier", "max", "min", "and", "or"}
			}
			op := rapid.SampledFrom(ops).Draw(t, "ep.op")
			e.Algo, e.Op = &algo, &op
			continue
		}
		algo, op := hw.AlgoButterfly, hw.OpBarrier
		flits := rapid.IntRange(1, 4).Draw(t, "ep.item_flits")
		e.Algo, e.Op, e.ItemFlits = &algo, &op, &flits
	}
	s.Repeat = rapid.IntRange(1, 2).Draw(t, "repeat")
	return s
}

// episodeValues is what every rank of episode k must be released with:
// the op over the episode's operands (0 for a barrier or a data episode).
func episodeValues(sys *hw.System, k int) uint64 {
	e := sys.EpisodeSystem(k)
	op, _ := barrierunit.ParseOp(string(e.Op))
	if !op.HasPayload() {
		return 0
	}
	v := op.Identity()
	for _, a := range sys.EpisodeArrivals(k) {
		v = op.Apply(v, a.Operand)
	}
	return v
}

type traceEvent struct {
	cycle      int64
	node       int
	kind       string
	rank       int
	from, gate int
	value      uint64
}

func parseTrace(t interface{ Fatalf(string, ...any) }, trace string) []traceEvent {
	var out []traceEvent
	for _, l := range strings.Split(strings.TrimSpace(trace), "\n") {
		f := strings.Fields(l)
		if len(f) < 3 {
			continue
		}
		c, _ := strconv.ParseInt(f[0], 10, 64)
		e := traceEvent{cycle: c, kind: f[2]}
		e.node, _ = strconv.Atoi(strings.TrimPrefix(f[1], "n"))
		for _, kv := range f[3:] {
			k, v, _ := strings.Cut(kv, "=")
			switch k {
			case "from":
				e.from, _ = strconv.Atoi(v)
			case "gate":
				e.gate, _ = strconv.Atoi(v)
			case "rank":
				e.rank, _ = strconv.Atoi(v)
			case "value":
				e.value, _ = strconv.ParseUint(v, 16, 64)
			}
		}
		out = append(out, e)
	}
	return out
}

// TestEpisodesProperties runs random multi-episode systems: the trace with
// idle skipping equals the exhaustive reference; episode 1 is exactly the
// single-episode run of the system; every episode completes, its
// arrivals come after the previous release and its configuration writes,
// and every rank is released with the episode's reduction.
func TestEpisodesProperties(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		base := randomSystem(rt)
		base.Ranks = min(base.Ranks, hw.MaxCollectiveRanks)
		sys := randomEpisodes(rt, base)
		if err := sys.Validate(); err != nil {
			rt.Skipf("invalid: %v", err)
		}
		s, err := Build(sys, nil)
		if err != nil {
			rt.Skipf("not buildable: %v", err) // e.g. a data order the rank count refuses
		}
		var buf bytes.Buffer
		res, err := s.Run(Options{Trace: &buf})
		if err != nil {
			rt.Fatalf("run: %v", err)
		}
		ref, err := Build(sys, nil)
		if err != nil {
			rt.Fatal(err)
		}
		ref.exhaustive = true
		var rbuf bytes.Buffer
		if _, err := ref.Run(Options{Trace: &rbuf}); err != nil {
			rt.Fatal(err)
		}
		trace := buf.String()
		if trace != rbuf.String() {
			rt.Fatalf("trace differs from the exhaustive reference: %s", firstDiff(trace, rbuf.String()))
		}
		if got, ok := parallelTrace(rt, sys); ok && got != trace {
			rt.Fatalf("parallel trace differs: %s", firstDiff(got, trace))
		}
		E := sys.NumEpisodes()
		if !res.Complete || len(res.Episodes) != E {
			rt.Fatalf("complete %v, %d of %d episodes", res.Complete, len(res.Episodes), E)
		}
		// Episode 1 is the single-episode run.
		one := sys.EpisodeSystem(1)
		single, singleTrace := runTrace(t, one, false)
		r1 := res.Episodes[0].LastRelease
		if r1 != single.Cycles-1 {
			rt.Fatalf("episode 1 ends at %d, the single run at %d", r1, single.Cycles-1)
		}
		var head strings.Builder
		for _, l := range strings.SplitAfter(trace, "\n") {
			if c, _, ok := strings.Cut(l, " "); ok {
				if n, _ := strconv.ParseInt(c, 10, 64); n <= r1 {
					head.WriteString(l)
				}
			}
		}
		if head.String() != singleTrace {
			rt.Fatalf("episode 1 differs from the single run: %s", firstDiff(head.String(), singleTrace))
		}
		ev := parseTrace(rt, trace)
		for i, e := range res.Episodes {
			k := i + 1
			if e.Episode != k || e.LastRelease < e.FirstArrival {
				rt.Fatalf("episode %+v", e)
			}
			offsets := sys.EpisodeArrivals(k)
			start := int64(0)
			if k > 1 {
				prev := res.Episodes[i-1]
				start = prev.LastRelease + 1 + e.ConfigCycles
				if e.ConfigCycles%2 != 0 || e.ConfigCycles < 0 {
					rt.Fatalf("episode %d: config cycles %d", k, e.ConfigCycles)
				}
				if s.Episode(k) == s.Episode(k-1) && e.ConfigCycles != 0 {
					rt.Fatalf("episode %d: same tables, %d config cycles", k, e.ConfigCycles)
				}
			} else if e.ConfigCycles != 0 {
				rt.Fatalf("episode 1: %d config cycles", e.ConfigCycles)
			}
			minOff := offsets[0].Cycle
			for _, a := range offsets {
				minOff = min(minOff, a.Cycle)
			}
			if e.FirstArrival != start+minOff {
				rt.Fatalf("episode %d: first arrival %d, want %d + %d", k, e.FirstArrival, start, minOff)
			}
			want := episodeValues(&sys, k)
			ep := s.Episode(k)
			var sums map[string]uint64
			if ep.Data != nil {
				sums = wantChecksums(ep.Data, sys.FlitWidth, ep.Sys.ItemFlits)
			}
			arrived, released, recvs := 0, 0, 0
			var lastArrival int64
			firstRelease := int64(-1)
			for _, x := range ev {
				if x.cycle < e.FirstArrival || x.cycle > e.LastRelease {
					continue
				}
				switch x.kind {
				case "arrive":
					arrived++
					lastArrival = max(lastArrival, x.cycle)
					if x.cycle != start+offsets[x.rank].Cycle {
						rt.Fatalf("episode %d rank %d arrives at %d, want %d", k, x.rank, x.cycle, start+offsets[x.rank].Cycle)
					}
				case "recv":
					recvs++
					if sums != nil {
						key := fmt.Sprintf("%d %d %d", s.rankOfNode[x.node], x.from, x.gate)
						if w, ok := sums[key]; !ok || w != x.value {
							rt.Fatalf("episode %d: recv %s value %016x, the schedule gives %016x (known %v)", k, key, x.value, w, ok)
						}
					}
				case "release":
					released++
					if firstRelease < 0 {
						firstRelease = x.cycle
					}
					if x.value != want {
						rt.Fatalf("episode %d rank %d released with %016x, want %016x", k, x.rank, x.value, want)
					}
					if x.cycle < lastArrival {
						rt.Fatalf("episode %d rank %d released at %d before an arrival", k, x.rank, x.cycle)
					}
				}
			}
			R := sys.NumRanks()
			if arrived != R || released != R {
				rt.Fatalf("episode %d: %d arrivals, %d releases of %d ranks", k, arrived, released, R)
			}
			// The headline metrics agree with the trace's events.
			if e.LastArrival == nil || *e.LastArrival != lastArrival || e.Latency == nil || *e.Latency != e.LastRelease-lastArrival ||
				e.ReleaseSpread == nil || *e.ReleaseSpread != e.LastRelease-firstRelease {
				rt.Fatalf("episode %d: metrics %+v; the trace: last arrival %d, releases %d..%d", k, e, lastArrival, firstRelease, e.LastRelease)
			}
			if sums != nil && recvs != len(sums) {
				rt.Fatalf("episode %d: %d messages received, the schedule sends %d", k, recvs, len(sums))
			}
			if k == E {
				if c, ok := res.Latency(); !ok || c != *e.Latency {
					rt.Fatalf("run latency %d %v, the last episode's %d", c, ok, *e.Latency)
				}
				if c, ok := res.LastArrival(); !ok || c != lastArrival {
					rt.Fatalf("run last arrival %d %v, the last episode's %d", c, ok, lastArrival)
				}
				if c, ok := res.ReleaseSpread(); !ok || c != *e.ReleaseSpread {
					rt.Fatalf("run release spread %d %v, the last episode's %d", c, ok, *e.ReleaseSpread)
				}
			}
			for r, n := range res.Nodes {
				if len(n.Releases) != E || n.Releases[E-1] != n.Release {
					rt.Fatalf("rank %d releases %v, release %d", r, n.Releases, n.Release)
				}
			}
		}
	})
}

// TestRepeatQuiescent: repeating a barrier with skew 0 on a quiescent
// network needs no configuration writes, every episode starts one cycle
// after the last release, and every episode has the same length (the
// round-robin pointers carried over change no grant: with skew 0 and one
// packet per output the order does not matter... so the test checks it is
// at most the first episode's length plus a few cycles).
func TestRepeatQuiescent(t *testing.T) {
	for _, op := range []hw.OpName{"barrier", "sum"} {
		sys := hw.Default()
		sys.Repeat, sys.Skew, sys.Op = 5, 0, op
		s, err := Build(sys, nil)
		if err != nil {
			t.Fatal(err)
		}
		res, err := s.Run(Options{})
		if err != nil {
			t.Fatal(err)
		}
		first := res.Episodes[0].LastRelease - res.Episodes[0].FirstArrival
		for i, e := range res.Episodes {
			if e.ConfigCycles != 0 || i > 0 && e.FirstArrival != res.Episodes[i-1].LastRelease+1 {
				t.Errorf("%s episode %+v", op, e)
			}
			if d := e.LastRelease - e.FirstArrival; d < first-4 || d > first+4 {
				t.Errorf("%s episode %d takes %d cycles, episode 1 %d", op, i+1, d, first)
			}
		}
		if res.Cycles != res.Episodes[4].LastRelease+1 {
			t.Errorf("cycles %d", res.Cycles)
		}
	}
}

// TestEpisodeIncomplete: max_cycles bounds the whole run; an episode that
// does not complete ends it, listed with last release -1.
func TestEpisodeIncomplete(t *testing.T) {
	sys := hw.Default()
	sys.Repeat = 4
	one, _ := runTrace(t, sys.EpisodeSystem(1), false)
	sys.MaxCycles = one.Cycles + 20 // inside episode 2
	s, err := Build(sys, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := s.Run(Options{})
	if _, ok := err.(*StuckError); !ok {
		t.Fatalf("err = %v", err)
	}
	if res.Complete || len(res.Episodes) != 2 || res.Episodes[1].LastRelease != -1 || res.Cycles != sys.MaxCycles {
		t.Fatalf("result %+v", res)
	}
	for _, n := range res.Nodes {
		if len(n.Releases) != 2 || n.Releases[0] < 0 || n.Releases[1] != n.Release {
			t.Fatalf("node %+v", n)
		}
	}
}

// TestEpisodeErrorsNameTheEpisode: an entry whose schedule cannot be built
// is named.
func TestEpisodeErrorsNameTheEpisode(t *testing.T) {
	sys := hw.Default()
	ag, dis := hw.CollAllGather, hw.AlgoDissemination
	sys.Episodes = []hw.Episode{{}, {Collective: &ag, Algo: &dis}}
	_, err := Build(sys, nil)
	if err == nil || !strings.Contains(err.Error(), "episodes[1]") {
		t.Fatalf("err = %v", err)
	}
	if want := `invalid episodes[1].algo: "dissemination"`; !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "in episode 2") {
		t.Errorf("err = %v, want %s ... in episode 2", err, want)
	}
}
