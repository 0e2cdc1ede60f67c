package sim

import (
	"bytes"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/hxbar/hxbar/barrierunit"
	"github.com/hxbar/hxbar/collective"
	"github.com/hxbar/hxbar/hw"
	"pgregory.net/rapid"
)

// randomDataSystem draws a data collective on a small hyper-crossbar: every
// schedule family (recursive doubling both ways, any one-sided/mutual order,
// the general all-gather, broadcast), item sizes, flit widths and timing.
func randomDataSystem(t *rapid.T) hw.System {
	s := randomSystem(t)
	s.Op = "barrier"
	R := s.NumRanks()
	s.Collective = rapid.SampledFrom([]hw.Collective{"allgather", "broadcast"}).Draw(t, "collective")
	s.Algo = "butterfly"
	s.ItemFlits = rapid.IntRange(1, 6).Draw(t, "item_flits")
	if s.Collective == "allgather" {
		s.Items = rapid.IntRange(1, R).Draw(t, "items")
		if R&(R-1) == 0 && R%s.Items == 0 && s.Items < R {
			orders, err := collective.Orders(R, s.Items)
			if err != nil {
				t.Fatal(err)
			}
			s.Order = rapid.SampledFrom(orders).Draw(t, "order")
		}
		if s.Items < R && rapid.Bool().Draw(t, "placed") {
			s.ItemPlace = rapid.SliceOfNDistinct(rapid.IntRange(0, R-1), s.Items, s.Items, rapid.ID[int]).Draw(t, "item_placement")
		}
		if s.Items == R && R&(R-1) == 0 {
			s.Algo = rapid.SampledFrom([]hw.Algorithm{"butterfly", "butterfly-near-first"}).Draw(t, "data_algo")
		}
	} else if rapid.Bool().Draw(t, "rooted") {
		s.ItemPlace = []int{rapid.IntRange(0, R-1).Draw(t, "root")}
	}
	return s
}

// wantChecksums computes, from the data schedule alone, the value every
// recv event must carry: "to from gate" -> the FoldWord checksum of the
// transfer's payload, cut to the flit width.
func wantChecksums(cs *collective.Schedule, fw, itemFlits int) map[string]uint64 {
	mask := ^uint64(0)
	if fw < 64 {
		mask = 1<<fw - 1
	}
	out := map[string]uint64{}
	for k, st := range cs.Steps {
		for _, tr := range st.Transfers {
			var c uint64
			for _, it := range tr.Items {
				for j := 0; j < itemFlits; j++ {
					c = barrierunit.FoldWord(c, barrierunit.ItemWord(cs.Placement[it], it, j)&mask)
				}
			}
			out[fmt.Sprint(tr.Dst, tr.Src, k+2)] = c
		}
	}
	return out
}

// TestDataProperties runs random data collectives and checks that every
// rank is released having received, flit for flit, exactly the items the
// schedule sends it (each recv value is the checksum computed from the
// schedule alone), that the steps finish in order, and that skipping idle
// components and sharing a cycle among workers change nothing.
func TestDataProperties(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		sys := randomDataSystem(rt)
		s, err := Build(sys, nil)
		if err != nil {
			rt.Fatalf("%+v: %v", sys, err)
		}
		var buf bytes.Buffer
		res, err := s.Run(Options{Trace: &buf})
		if err != nil {
			rt.Fatalf("%+v: %v", sys, err)
		}
		trace := buf.String()
		if res.Data == nil || uint64(res.Data.ItemsMoved) != res.Data.ItemsReceived || res.Data.ItemsMoved == 0 && sys.NumRanks() > 1 {
			rt.Fatalf("data result %+v", res.Data)
		}
		want := wantChecksums(s.Data, sys.FlitWidth, sys.ItemFlits)
		lastRecv := map[int]int64{}
		recvs := 0
		for _, line := range strings.Split(strings.TrimSpace(trace), "\n") {
			f := strings.Fields(line)
			if len(f) < 3 || f[2] != "recv" {
				continue
			}
			recvs++
			node, _ := strconv.Atoi(f[1][1:])
			from := strings.TrimPrefix(f[3], "from=")
			gate := strings.TrimPrefix(f[4], "gate=")
			val, _ := strconv.ParseUint(strings.TrimPrefix(f[5], "value="), 16, 64)
			rank := s.rankOfNode[node]
			w, ok := want[fmt.Sprintf("%d %s %s", rank, from, gate)]
			if !ok || w != val {
				rt.Fatalf("%s: value %016x, the schedule gives %016x (known %v)", line, val, w, ok)
			}
			c, _ := strconv.ParseInt(f[0], 10, 64)
			lastRecv[int(rank)] = max(lastRecv[int(rank)], c)
		}
		if recvs != len(want) {
			rt.Fatalf("%d messages received, the schedule sends %d", recvs, len(want))
		}
		for _, n := range res.Nodes {
			if n.Release < 0 || n.Release <= lastRecv[n.Rank] && lastRecv[n.Rank] > 0 {
				rt.Fatalf("rank %d released at %d, last receive %d", n.Rank, n.Release, lastRecv[n.Rank])
			}
		}
		for k := 1; k < len(res.Steps); k++ {
			if res.Steps[k].Done <= res.Steps[k-1].Done {
				rt.Fatalf("step %d done at %d, not after step %d at %d", k+1, res.Steps[k].Done, k, res.Steps[k-1].Done)
			}
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
		if rbuf.String() != trace {
			rt.Fatalf("trace differs from the exhaustive reference: %s", firstDiff(trace, rbuf.String()))
		}
		if got, ok := parallelTrace(rt, sys); ok && got != trace {
			rt.Fatalf("parallel trace differs: %s", firstDiff(got, trace))
		}
	})
}

// TestDataTwoRankGolden is worked out by hand from docs/transfers.md and the
// timing of TestTwoRankGolden: two ranks on a 1-D hyper-crossbar swap one
// item of two flits. Each sends its head in cycle 1 and its two payload
// flits in cycles 2 and 3; the flits reach the peer's unit 4 cycles later,
// so the tail is popped in cycle 7 and the rank is released in cycle 8.
//
// The recv values are the message checksums of docs/transfers.md, derived
// without barrierunit: item i starts on rank o = i, FW = 64 carries the
// whole word, and
//
//	x = (o<<48 | i<<32 | j) ^ 0x9e3779b97f4a7c15
//	ItemWord(o, i, j) = x ^ rotl(x, 13) ^ rotl(x, 21) ^ rotl(x, 32)
//	c = 0; c = rotl(c, 1) ^ flit, flit by flit
//
// item 0: flits 3965c30a2c4c7085, 3965c30b2c6c5084 -> c = 4bae451f74f4b18e
// item 1: flits 1944e30b2c4d70a4, 1944e30a2c6d50a5 -> c = 2bcd251c74f7b1ed
// (computed by hand with a calculator script from the formulas above, and
// again by itemWord and fold below, a second implementation written from
// the doc; the low 32 bits equal the FW = 32 values of the hand-checked RTL
// trace verilog/rtl/test/expected/ag4_l2_b1_fw32_f2.trace).
func TestDataTwoRankGolden(t *testing.T) {
	sys := hw.Default()
	sys.Dims, sys.Ranks, sys.Skew = []int{2}, 2, 0
	sys.Collective, sys.ItemFlits = "allgather", 2
	s, err := Build(sys, nil)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	res, err := s.Run(Options{Trace: &buf})
	if err != nil {
		t.Fatal(err)
	}
	rotl := func(x uint64, r uint) uint64 { return x<<r | x>>(64-r) }
	itemWord := func(o, i, j uint64) uint64 {
		x := (o<<48 | i<<32 | j) ^ 0x9e3779b97f4a7c15
		return x ^ rotl(x, 13) ^ rotl(x, 21) ^ rotl(x, 32)
	}
	fold := func(item uint64) uint64 {
		var c uint64
		for j := uint64(0); j < 2; j++ {
			c = rotl(c, 1) ^ itemWord(item, item, j)
		}
		return c
	}
	hand := map[uint64]uint64{0: 0x4bae451f74f4b18e, 1: 0x2bcd251c74f7b1ed}
	for item, c := range hand {
		if fold(item) != c {
			t.Fatalf("the test's two derivations of item %d's checksum disagree: %016x, %016x", item, fold(item), c)
		}
	}
	sum := func(item uint64) string { return fmt.Sprintf("%016x", hand[item]) }
	want := `0 n0 arrive rank=0 value=0000000000000000
0 n1 arrive rank=1 value=0000000000000000
1 n0 send to=1 gate=2
1 n1 send to=0 gate=2
7 n0 recv from=1 gate=2 value=` + sum(1) + `
7 n1 recv from=0 gate=2 value=` + sum(0) + `
8 n0 release rank=0 value=0000000000000000
8 n1 release rank=1 value=0000000000000000
`
	if buf.String() != want {
		t.Fatalf("trace:\n%s\nwant:\n%s", buf.String(), want)
	}
	if res.Cycles != 9 || len(res.Steps) != 1 || res.Steps[0].Done != 8 || res.Network.Flits != 6 {
		t.Fatalf("cycles %d steps %+v flits %d", res.Cycles, res.Steps, res.Network.Flits)
	}
}

// TestSeedSixOrders is the figure: on a 4x4 hyper-crossbar, 16
// ranks and 4 items, full duplex, items of 256 flits, the six step orders of
// the Hitachi seed finish in the seed's order and their cycle counts,
// divided by the cheapest, are within 5 % of 5:6:8:11:9:7 divided by 5.
func TestSeedSixOrders(t *testing.T) {
	seed := map[string]float64{"OOMM": 5, "OMOM": 6, "OMMO": 8, "MMOO": 11, "MOMO": 9, "MOOM": 7}
	cycles := map[string]int64{}
	for _, o := range collective.SeedOrders {
		sys := hw.Default()
		sys.Skew, sys.Collective, sys.Items, sys.ItemFlits, sys.Order = 0, "allgather", 4, 256, o
		s, err := Build(sys, nil)
		if err != nil {
			t.Fatal(err)
		}
		res, err := s.Run(Options{})
		if err != nil {
			t.Fatal(err)
		}
		cycles[o] = res.Cycles
	}
	byCycles := slices.Clone(collective.SeedOrders)
	slices.SortFunc(byCycles, func(a, b string) int { return int(cycles[a] - cycles[b]) })
	bySeed := slices.Clone(collective.SeedOrders)
	slices.SortFunc(bySeed, func(a, b string) int { return int(seed[a] - seed[b]) })
	if !slices.Equal(byCycles, bySeed) {
		t.Fatalf("orders by cycles %v, the seed ranks them %v (cycles %v)", byCycles, bySeed, cycles)
	}
	for _, o := range collective.SeedOrders {
		got := float64(cycles[o]) / float64(cycles["OOMM"])
		want := seed[o] / 5
		if got < want*0.95 || got > want*1.05 {
			t.Errorf("%s: %d cycles, %.3f x OOMM; the seed's ratio is %.3f", o, cycles[o], got, want)
		}
	}
}

// TestDataErrorsNameTheField checks the system-level errors of data runs.
func TestDataErrorsNameTheField(t *testing.T) {
	base := hw.Default()
	base.Collective = "allgather"
	cases := []struct {
		edit func(s *hw.System)
		want string
	}{
		{func(s *hw.System) { s.Items, s.Order = 4, "OOOM" }, "invalid order"},
		{func(s *hw.System) { s.Order = "MMMM" }, `invalid order: "MMMM" (allowed: "" when items = ranks`},
		{func(s *hw.System) { s.Algo = "dissemination" }, "invalid algo"},
		{func(s *hw.System) { s.Items, s.Order = 3, "OM" }, "invalid order"},
		{func(s *hw.System) { s.Ranks = 12; s.Items = 12; s.Order = "M" }, "invalid order"},
		{func(s *hw.System) { s.ItemPlace = []int{1} }, "invalid item_placement"},
		{func(s *hw.System) { s.Items, s.Algo = 4, "butterfly-near-first" }, "invalid algo"},
		{func(s *hw.System) { s.Collective, s.Algo = "broadcast", "butterfly-near-first" }, "invalid algo"},
		{func(s *hw.System) { s.Collective, s.Order = "broadcast", "OOOO" }, `invalid order: "OOOO" (allowed: "" with collective broadcast`},
	}
	for _, c := range cases {
		s := base
		c.edit(&s)
		_, err := Build(s, nil)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", s, err, c.want)
		}
	}
	if _, err := Build(base, &barrierunit.Schedule{Ranks: 16}); err == nil || !strings.Contains(err.Error(), "data schedule") {
		t.Errorf("a gate schedule for a data collective: %v", err)
	}
}

// TestDataUserSchedule runs a hand-written data schedule and refuses a wrong one.
func TestDataUserSchedule(t *testing.T) {
	sys := hw.Default()
	sys.Dims, sys.Ranks, sys.Collective, sys.Skew = []int{4}, 4, "allgather", 0
	good := `{"nodes":4,"items":2,"placement":[0,1],"steps":[{"kind":"O","transfers":[{"src":0,"dst":2,"items":[0]},{"src":1,"dst":3,"items":[1]}]},{"kind":"M","transfers":[{"src":0,"dst":1,"items":[0]},{"src":1,"dst":0,"items":[1]},{"src":2,"dst":3,"items":[0]},{"src":3,"dst":2,"items":[1]}]}]}`
	cs, err := collective.ReadSchedule(strings.NewReader(good))
	if err != nil {
		t.Fatal(err)
	}
	s, err := BuildData(sys, cs)
	if err != nil {
		t.Fatal(err)
	}
	res, err := s.Run(Options{})
	if err != nil || res.Data.ItemsReceived != 6 {
		t.Fatalf("%v, %+v", err, res.Data)
	}
	// Drop the last step: items are missing, which the verifier names.
	cs.Steps, cs.Order = cs.Steps[:1], "O"
	if _, err := BuildData(sys, cs); err == nil || !strings.Contains(err.Error(), "incomplete") {
		t.Fatalf("incomplete schedule: %v", err)
	}
}

// TestDataStuckNamesTheFlit: a data run stopped by max_cycles in the middle
// of a packet names the flit of the packet the sender is at.
func TestDataStuckNamesTheFlit(t *testing.T) {
	sys := hw.Default()
	sys.Dims, sys.Ranks, sys.Skew = []int{2}, 2, 0
	sys.Collective, sys.ItemFlits = "allgather", 64
	s, err := Build(sys, nil)
	if err != nil {
		t.Fatal(err)
	}
	// Build refuses max_cycles 30, below the run's lower bound of 65 cycles
	// (TestBoundRefusesHopelessRuns); set on the built system it stops the
	// run in the middle of the packets.
	s.Sys.MaxCycles = 30
	_, err = s.Run(Options{})
	// Each rank sends its head in cycle 1 and one flit a cycle after it
	// (the credits keep up at L = 1, B = 4); the run stops before cycle 30,
	// so cycles 1..29 sent the head and 28 payload flits: next is flit 29.
	if err == nil || !strings.Contains(err.Error(), "rank 0 gate 1 is still sending to rank 1 (next flit 29 of its packet)") {
		t.Fatalf("%v", err)
	}
}

// TestDataScheduleMustAgree: a user's data schedule is refused when the
// system says something else of its items.
func TestDataScheduleMustAgree(t *testing.T) {
	cs, err := collective.Order(4, 2, nil, "MO")
	if err != nil {
		t.Fatal(err)
	}
	sys := hw.Default()
	sys.Dims, sys.Ranks, sys.Collective = []int{4}, 4, "allgather"
	for _, c := range []struct {
		edit func(s *hw.System)
		want string
	}{
		{func(s *hw.System) { s.Items = 3 }, "invalid items: 3 (allowed: 0 or 2"},
		{func(s *hw.System) { s.Items, s.ItemPlace = 2, []int{2, 3} }, "invalid item_placement: [2 3] (allowed: [] or [0 1]"},
		{func(s *hw.System) { s.Items, s.Order = 2, "OM" }, `invalid order: "OM" (allowed: "" or "MO"`},
		{func(s *hw.System) { s.Collective = "broadcast" }, "invalid collective"},
	} {
		s := sys
		c.edit(&s)
		if _, err := BuildData(s, cs); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", s, err, c.want)
		}
	}
	sys.Items = 2
	if _, err := BuildData(sys, cs); err != nil {
		t.Fatal(err)
	}
}

// TestChannelCounts: channels are physical (one per direction of a
// switch-to-switch link): a 16-node ring has 32, a 4-ary 2-tree 32 (16
// links between 4 leaves and 4 tops, both ways), a 4x4 hyper-crossbar 64.
func TestChannelCounts(t *testing.T) {
	for _, c := range []struct {
		topology hw.Topology
		dims     []int
		want     int
	}{{"torus", []int{16}, 32}, {"torus", []int{4, 4}, 64}, {"fattree", []int{4, 4}, 32}, {"hyperxbar", []int{4, 4}, 64}} {
		sys := hw.Default()
		sys.Topology, sys.Dims, sys.Ranks = c.topology, c.dims, 0
		s, err := Build(sys, nil)
		if err != nil {
			t.Fatal(err)
		}
		res, err := s.Run(Options{})
		if err != nil {
			t.Fatal(err)
		}
		if res.Network.Channels != c.want {
			t.Errorf("%s %v: %d channels, want %d", c.topology, c.dims, res.Network.Channels, c.want)
		}
	}
}
