package barrierunit

import (
	"errors"
	"fmt"
	"math/bits"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/hxbar/hxbar/hw"
)

func rt(fr, fg, tr int) Route {
	return Route{FromRank: fr, FromGate: fg, ToRank: tr, ToGate: fg + 1, Distance: abs(fr - tr)}
}

func mustGenerate(t interface {
	Helper()
	Fatalf(string, ...any)
}, algo hw.Algorithm, ranks int) *Schedule {
	t.Helper()
	s, err := Generate(algo, ranks)
	if err != nil {
		t.Fatalf("Generate(%q, %d): %v", algo, ranks, err)
	}
	return s
}

func isPow2(x int) bool { return x > 0 && x&(x-1) == 0 }

// The seed's worked example (FIG. 12-18): R = 5, G = 4, route 4 -> 0 at
// gate 1, 0 <-> 2 and 1 <-> 3 at gate 2, 0 <-> 1 and 2 <-> 3 at gate 3,
// 0 -> 4 at gate 4, and the routes within ranks 0..3 (none within rank 4).
func TestGenerateSeedExampleR5(t *testing.T) {
	s := mustGenerate(t, hw.AlgoButterfly, 5)
	want := []Route{
		rt(0, 1, 0), rt(1, 1, 1), rt(2, 1, 2), rt(3, 1, 3), rt(4, 1, 0),
		rt(0, 2, 0), rt(0, 2, 2), rt(1, 2, 1), rt(1, 2, 3), rt(2, 2, 0), rt(2, 2, 2), rt(3, 2, 1), rt(3, 2, 3),
		rt(0, 3, 0), rt(0, 3, 1), rt(1, 3, 0), rt(1, 3, 1), rt(2, 3, 2), rt(2, 3, 3), rt(3, 3, 2), rt(3, 3, 3),
		rt(0, 4, 0), rt(0, 4, 4), rt(1, 4, 1), rt(2, 4, 2), rt(3, 4, 3),
	}
	if s.Ranks != 5 || s.Gates != 4 || s.Algo != string(hw.AlgoButterfly) {
		t.Fatalf("ranks %d gates %d algo %q, want 5, 4, butterfly", s.Ranks, s.Gates, s.Algo)
	}
	if !reflect.DeepEqual(s.Routes, want) {
		t.Fatalf("routes:\n got %v\nwant %v", s.Routes, want)
	}
}

func TestGenerateNearFirstR5(t *testing.T) {
	s := mustGenerate(t, hw.AlgoButterflyNearFirst, 5)
	want := []Route{
		rt(0, 1, 0), rt(1, 1, 1), rt(2, 1, 2), rt(3, 1, 3), rt(4, 1, 0),
		rt(0, 2, 0), rt(0, 2, 1), rt(1, 2, 0), rt(1, 2, 1), rt(2, 2, 2), rt(2, 2, 3), rt(3, 2, 2), rt(3, 2, 3),
		rt(0, 3, 0), rt(0, 3, 2), rt(1, 3, 1), rt(1, 3, 3), rt(2, 3, 0), rt(2, 3, 2), rt(3, 3, 1), rt(3, 3, 3),
		rt(0, 4, 0), rt(0, 4, 4), rt(1, 4, 1), rt(2, 4, 2), rt(3, 4, 3),
	}
	if !reflect.DeepEqual(s.Routes, want) {
		t.Fatalf("routes:\n got %v\nwant %v", s.Routes, want)
	}
}

// distancesByGate returns, per gate 1..G, the distinct distances of the
// routes between different ranks, ascending.
func distancesByGate(s *Schedule) [][]int {
	d := make([][]int, s.Gates+1)
	for _, r := range s.Routes {
		if r.Distance > 0 && !slices.Contains(d[r.FromGate], r.Distance) {
			d[r.FromGate] = append(d[r.FromGate], r.Distance)
		}
	}
	for _, x := range d {
		slices.Sort(x)
	}
	return d[1:]
}

func TestGenerateDistancesPowerOfTwo(t *testing.T) {
	for _, c := range []struct {
		algo  hw.Algorithm
		ranks int
		want  [][]int
	}{
		{hw.AlgoButterfly, 2, [][]int{{1}}},
		{hw.AlgoButterfly, 4, [][]int{{2}, {1}}},
		{hw.AlgoButterfly, 8, [][]int{{4}, {2}, {1}}},
		{hw.AlgoButterflyNearFirst, 4, [][]int{{1}, {2}}},
		{hw.AlgoButterflyNearFirst, 8, [][]int{{1}, {2}, {4}}},
		{hw.AlgoDissemination, 8, [][]int{{4}, {2, 6}, {1, 7}}}, // 6, 7: ranks 6, 7 wrap past rank 0
		{hw.AlgoButterfly, 5, [][]int{{4}, {2}, {1}, {4}}},
		{hw.AlgoButterflyNearFirst, 5, [][]int{{4}, {1}, {2}, {4}}},
	} {
		if got := distancesByGate(mustGenerate(t, c.algo, c.ranks)); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s R=%d: distances per gate %v, want %v", c.algo, c.ranks, got, c.want)
		}
	}
}

func TestGenerateOneRank(t *testing.T) {
	for _, algo := range hw.Algorithms {
		s := mustGenerate(t, algo, 1)
		if s.Gates != 1 || !reflect.DeepEqual(s.Routes, []Route{rt(0, 1, 0)}) {
			t.Errorf("%s R=1: gates %d routes %v, want 1 gate and the self route (0,1)->(0,2)", algo, s.Gates, s.Routes)
		}
		for _, op := range []Op{OpBarrier, OpSum} {
			if rep := Verify(s, op); !rep.OK {
				t.Errorf("%s R=1 %s: %v", algo, op, rep)
			}
		}
	}
}

func TestGenerateErrors(t *testing.T) {
	for _, c := range []struct {
		algo  hw.Algorithm
		ranks int
		field string
		msg   string
	}{
		{"tree", 4, "algo", `invalid algo: "tree" (allowed: butterfly, butterfly-near-first, dissemination)`},
		{"", 4, "algo", `invalid algo: "" (allowed: butterfly, butterfly-near-first, dissemination)`},
		{hw.AlgoButterfly, 0, "ranks", "invalid ranks: 0 (allowed: 1..16777216)"},
		{hw.AlgoDissemination, -3, "ranks", "invalid ranks: -3 (allowed: 1..16777216)"},
		{hw.AlgoButterflyNearFirst, MaxRanks + 1, "ranks", "invalid ranks: 16777217 (allowed: 1..16777216)"},
	} {
		s, err := Generate(c.algo, c.ranks)
		if s != nil || err == nil {
			t.Errorf("Generate(%q, %d) = %v, %v; want an error", c.algo, c.ranks, s, err)
			continue
		}
		var fe *hw.FieldError
		if !errors.As(err, &fe) || fe.Field != c.field || err.Error() != c.msg {
			t.Errorf("Generate(%q, %d): %v; want field %s, %q", c.algo, c.ranks, err, c.field, c.msg)
		}
		if _, err := GenerateFlat(c.algo, c.ranks); err == nil || err.Error() != c.msg {
			t.Errorf("GenerateFlat(%q, %d): %v; want %q", c.algo, c.ranks, err, c.msg)
		}
	}
	// Past MaxRoutes a route list is refused (GenerateFlat still works).
	for _, algo := range hw.Algorithms {
		max := maxRanksFor(algo)
		p, _ := newPlan(algo, max)
		q, _ := newPlan(algo, max+1)
		if p.count() > MaxRoutes || q.count() <= MaxRoutes {
			t.Errorf("%s: maxRanksFor %d: %d routes, %d for one more rank", algo, max, p.count(), q.count())
		}
		_, err := Generate(algo, max+1)
		var fe *hw.FieldError
		if !errors.As(err, &fe) || fe.Field != "ranks" || !strings.Contains(err.Error(), fmt.Sprintf("(allowed: 1..%d for a %s route list", max, algo)) {
			t.Errorf("%s R=%d: %v", algo, max+1, err)
		}
	}
	if _, err := Generate(hw.Algorithm(strings.Repeat("x", 1000)), 4); err == nil || len(err.Error()) > 200 {
		t.Errorf("a huge algo name must give a short error, got %d bytes", len(err.Error()))
	}
}

// wantGates is the gate count of docs/schedules.md.
func wantGates(algo hw.Algorithm, R int) int {
	switch {
	case R == 1:
		return 1
	case algo == hw.AlgoDissemination:
		return bits.Len(uint(R - 1))
	case isPow2(R):
		return bits.Len(uint(R)) - 1
	}
	return bits.Len(uint(R)) + 1
}

func fold(op Op, v []uint64) uint64 {
	if !op.HasPayload() {
		return 0
	}
	acc := op.Identity()
	for _, x := range v {
		acc = op.Apply(acc, x)
	}
	return acc
}

func randOperands(rng *rand.Rand, n int) []uint64 {
	v := make([]uint64, n)
	for i := range v {
		v[i] = rng.Uint64()
	}
	return v
}

// Every algorithm for every R from 1 to 1024: structure, gate count, the
// shape the docs promise (checkGenerated), the order of route distances
// (checkDistanceOrder), and a proof by Verify; Evaluate agrees with the
// proof on random operands.
func TestGenerateAllRanks(t *testing.T) {
	maxR := 1024
	for _, algo := range hw.Algorithms {
		t.Run(string(algo), func(t *testing.T) {
			t.Parallel()
			rng := rand.New(rand.NewPCG(1, uint64(len(algo))))
			for R := 1; R <= maxR; R++ {
				s := mustGenerate(t, algo, R)
				checkGenerated(t, s)
				checkDistanceOrder(t, s)
				if rep := Verify(s, OpBarrier); !rep.OK || rep.Kind != KindBarrier {
					t.Fatalf("%s R=%d barrier: %v", algo, R, rep)
				}
				ops := []Op{OpSum}
				if algo == hw.AlgoDissemination {
					ops = []Op{OpMax, OpSum}
				}
				for _, op := range ops {
					rep := Verify(s, op)
					wantOK := algo != hw.AlgoDissemination || op.Idempotent() || isPow2(R)
					if rep.OK != wantOK {
						t.Fatalf("%s R=%d %s: %v (want ok=%v)", algo, R, op, rep, wantOK)
					}
					if !wantOK && (rep.Kind != KindDoubleCount || rep.Rank != 0) {
						t.Fatalf("%s R=%d %s: %v, want rank 0 to double count", algo, R, op, rep)
					}
					ops := randOperands(rng, R)
					res, err := Evaluate(s, op, ops)
					if err != nil {
						t.Fatal(err)
					}
					want := fold(op, ops)
					for r, v := range res {
						if (v == want) != wantOK {
							t.Fatalf("%s R=%d %s: Evaluate gives rank %d %#x, the fold is %#x, verifier says ok=%v", algo, R, op, r, v, want, wantOK)
						}
					}
				}
			}
		})
	}
}

// checkGenerated checks what docs/schedules.md promises of a generated
// schedule without executing it.
func checkGenerated(t *testing.T, s *Schedule) {
	t.Helper()
	R, G, algo := s.Ranks, s.Gates, hw.Algorithm(s.Algo)
	if err := s.Check(); err != nil {
		t.Fatalf("%s R=%d: %v", algo, R, err)
	}
	if G != wantGates(algo, R) {
		t.Fatalf("%s R=%d: %d gates, want %d", algo, R, G, wantGates(algo, R))
	}
	if !slices.IsSortedFunc(s.Routes, func(a, b Route) int { return int(routeKey(&a)) - int(routeKey(&b)) }) {
		t.Fatalf("%s R=%d: routes not sorted by from_gate, from_rank, to_rank", algo, R)
	}
	nb := 1 << (bits.Len(uint(R)) - 1)
	self := 0
	remote := make([]int, G+1) // per gate
	for _, r := range s.Routes {
		if r.FromRank == r.ToRank {
			self++
			if algo != hw.AlgoDissemination && r.FromRank >= nb {
				t.Fatalf("%s R=%d: self route %v on extra rank %d double counts its operand", algo, R, r, r.FromRank)
			}
			continue
		}
		remote[r.FromGate]++
		if algo != hw.AlgoDissemination && !isPow2(R) {
			onEdge := r.FromGate == 1 || r.FromGate == G
			extra := r.FromRank >= nb || r.ToRank >= nb
			if onEdge != extra || (extra && r.Distance != nb) {
				t.Fatalf("%s R=%d: route %v: extra ranks must be folded in at gate 1 and out at gate %d, at distance %d", algo, R, r, G, nb)
			}
		}
	}
	wantSelf := R * G
	if algo != hw.AlgoDissemination {
		wantSelf = nb * G
	}
	if self != wantSelf {
		t.Fatalf("%s R=%d: %d self routes, want %d", algo, R, self, wantSelf)
	}
	if s.Routes == nil || len(s.Routes) != cap(s.Routes) {
		t.Fatalf("%s R=%d: %d routes in a slice of capacity %d: Generate must allocate exactly", algo, R, len(s.Routes), cap(s.Routes))
	}
}

// checkDistanceOrder checks the invention's rule, for every R up to 1024
// through TestGenerateAllRanks: routes nearer the end gate are no longer
// (near-last) or no shorter (near-first) than those before them, over the
// exchange gates. For R not a power of two the seed's own design folds the
// extra ranks in at gate 1 and out at gate G over distance NB, the longest
// in the schedule, so the rule holds over gates 2..G-1 only (docs/errata.md).
// Dissemination's rounds use 2^(G-g), near-last order, before the wrap.
func checkDistanceOrder(t *testing.T, s *Schedule) {
	t.Helper()
	R, algo := s.Ranks, hw.Algorithm(s.Algo)
	if R == 1 {
		return
	}
	if algo == hw.AlgoDissemination {
		for _, r := range s.Routes {
			if d := 1 << (s.Gates - r.FromGate); r.FromRank != r.ToRank && (r.FromRank+d)%R != r.ToRank {
				t.Fatalf("dissemination R=%d: route %v, want to rank (r + %d) mod R", R, r, d)
			}
		}
		return
	}
	lo, hi := 1, s.Gates
	if !isPow2(R) {
		lo, hi = 2, s.Gates-1
	}
	prev := -1
	for g, ds := range distancesByGate(s) {
		g++
		if g < lo || g > hi {
			continue
		}
		if len(ds) != 1 {
			t.Fatalf("%s R=%d gate %d: distances %v, want one exchange distance", algo, R, g, ds)
		}
		d := ds[0]
		if prev >= 0 && (algo == hw.AlgoButterfly && d > prev || algo == hw.AlgoButterflyNearFirst && d < prev) {
			t.Fatalf("%s R=%d gate %d: distance %d after %d", algo, R, g, d, prev)
		}
		prev = d
	}
	// Near-last ends with the 1-hop exchange, near-first with NB/2.
	nb := 1 << (bits.Len(uint(R)) - 1)
	if want := map[hw.Algorithm]int{hw.AlgoButterfly: 1, hw.AlgoButterflyNearFirst: nb / 2}[algo]; prev != want {
		t.Fatalf("%s R=%d: last exchange distance %d, want %d", algo, R, prev, want)
	}
}

// TestGenerateFlatMatchesFlatten: GenerateFlat, which streams the routes
// (in two concurrent halves of the gates past parallelRoutes routes: here
// both ways at every size), builds the table Flatten builds from the route
// list.
func TestGenerateFlatMatchesFlatten(t *testing.T) {
	sizes := []int{}
	for R := 1; R <= 70; R++ {
		sizes = append(sizes, R)
	}
	sizes = append(sizes, 255, 256, 257, 1000, 1024, 4097)
	defer func(p int) { parallelRoutes = p }(parallelRoutes)
	for _, parallelRoutes = range []int{1 << 20, 0} {
		for _, algo := range hw.Algorithms {
			for _, R := range sizes {
				s := mustGenerate(t, algo, R)
				want, err := Flatten(s)
				if err != nil {
					t.Fatal(err)
				}
				got, err := GenerateFlat(algo, R)
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("%s R=%d (parallel from %d routes): GenerateFlat differs from Flatten(Generate)", algo, R, parallelRoutes)
				}
			}
		}
	}
}

func TestGenerateLarge(t *testing.T) {
	if testing.Short() {
		t.Skip("large schedule")
	}
	R := 1 << 16
	for _, algo := range hw.Algorithms {
		s := mustGenerate(t, algo, R)
		if err := s.Check(); err != nil {
			t.Fatal(err)
		}
		if want := 2 * R * 16; len(s.Routes) != want {
			t.Fatalf("%s R=%d: %d routes, want %d", algo, R, len(s.Routes), want)
		}
		if rep := Verify(s, OpSum); !rep.OK {
			t.Fatalf("%s R=%d: %v", algo, R, rep)
		}
	}
	f, err := GenerateFlat(hw.AlgoButterfly, 1<<20+1)
	if err != nil {
		t.Fatal(err)
	}
	if f.Gates != 22 || len(f.OutDst) != 2*20*(1<<20)/2+2 {
		t.Fatalf("R=2^20+1: %d gates, %d remote routes", f.Gates, len(f.OutDst))
	}
}

func TestCached(t *testing.T) {
	a, err := Cached(hw.AlgoButterfly, 12)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Cached(hw.AlgoButterfly, 12)
	c, _ := Cached(hw.AlgoButterflyNearFirst, 12)
	d, _ := Cached(hw.AlgoButterfly, 13)
	if a != b {
		t.Fatal("two calls with the same key must return the same *Schedule")
	}
	if a == c || a == d || reflect.DeepEqual(a, c) {
		t.Fatal("different keys must give different schedules")
	}
	if !reflect.DeepEqual(a, mustGenerate(t, hw.AlgoButterfly, 12)) {
		t.Fatal("Cached differs from Generate")
	}
	if s, err := Cached("tree", 12); s != nil || err == nil || !strings.Contains(err.Error(), "algo") {
		t.Fatalf("Cached(tree) = %v, %v", s, err)
	}
	// Concurrent callers of a new key all get one schedule.
	var wg sync.WaitGroup
	got := make([]*Schedule, 8)
	for i := range got {
		wg.Go(func() { got[i], _ = Cached(hw.AlgoDissemination, 777) })
	}
	wg.Wait()
	for _, s := range got {
		if s != got[0] || s == nil {
			t.Fatal("concurrent Cached calls returned different schedules")
		}
	}
}

func TestCacheRouteBudget(t *testing.T) {
	cache.Lock()
	cache.lru.Purge()
	old := cacheRoutes
	cacheRoutes = 1000 // routes: a butterfly of 64 ranks has 768
	cache.Unlock()
	defer func() {
		cache.Lock()
		cacheRoutes = old
		cache.lru.Purge()
		cache.Unlock()
	}()
	a, _ := Cached(hw.AlgoButterfly, 64)
	b, _ := Cached(hw.AlgoButterfly, 4)
	c, _ := Cached(hw.AlgoButterflyNearFirst, 64) // 768 + 8 + 768 > 1000: a goes
	cache.Lock()
	_, aIn := cache.lru.Peek(cacheKey{hw.AlgoButterfly, 64})
	_, bIn := cache.lru.Peek(cacheKey{hw.AlgoButterfly, 4})
	routes := cache.routes
	cache.Unlock()
	if aIn || !bIn || routes != len(b.Routes)+len(c.Routes) {
		t.Fatalf("after 768+8+768 routes with a budget of 1000: oldest cached %v, middle cached %v, %d routes accounted", aIn, bIn, routes)
	}
	if a2, _ := Cached(hw.AlgoButterfly, 64); a2 == a || !reflect.DeepEqual(a2, a) {
		t.Fatal("an evicted schedule must be generated anew")
	}
	// A schedule over the budget on its own is still kept (the most recent).
	d, _ := Cached(hw.AlgoDissemination, 100)
	cache.Lock()
	n := cache.lru.Len()
	routes = cache.routes
	cache.Unlock()
	if n != 1 || routes != len(d.Routes) {
		t.Fatalf("after a schedule of %d routes: %d entries, %d routes accounted", len(d.Routes), n, routes)
	}
	cache.Lock()
	cache.lru.Purge()
	routes = cache.routes
	cache.Unlock()
	if routes != 0 {
		t.Fatalf("after Purge the cache accounts %d routes", routes)
	}
}

func TestCompileSeedExample(t *testing.T) {
	tab := Compile(mustGenerate(t, hw.AlgoButterfly, 5))
	if tab == nil || tab.Gates != 4 || len(tab.Ranks) != 5 {
		t.Fatalf("table %+v", tab)
	}
	f, n := false, true
	want := []RankGates{
		{Self: []bool{f, f, n, n, n, n}, Need: []int{0, 0, 1, 1, 1, 0}, Out: [][]int{nil, nil, {2}, {1}, {4}}},
		{Self: []bool{f, f, n, n, n, n}, Need: []int{0, 0, 0, 1, 1, 0}, Out: [][]int{nil, nil, {3}, {0}, nil}},
		{Self: []bool{f, f, n, n, n, n}, Need: []int{0, 0, 0, 1, 1, 0}, Out: [][]int{nil, nil, {0}, {3}, nil}},
		{Self: []bool{f, f, n, n, n, n}, Need: []int{0, 0, 0, 1, 1, 0}, Out: [][]int{nil, nil, {1}, {2}, nil}},
		{Self: []bool{f, f, f, f, f, f}, Need: []int{0, 0, 0, 0, 0, 1}, Out: [][]int{nil, {0}, nil, nil, nil}},
	}
	for r := range want {
		if !reflect.DeepEqual(tab.Ranks[r], want[r]) {
			t.Errorf("rank %d:\n got %+v\nwant %+v", r, tab.Ranks[r], want[r])
		}
	}
	if Compile(&Schedule{Ranks: 2, Gates: 1, Routes: []Route{rt(0, 1, 5)}}) != nil {
		t.Error("Compile of an invalid schedule must be nil")
	}
	if Compile(nil) != nil {
		t.Error("Compile(nil) must be nil")
	}
}

// Compile and Flatten are two layouts of one table.
func TestCompileMatchesFlatten(t *testing.T) {
	for _, algo := range hw.Algorithms {
		for _, R := range []int{1, 2, 3, 6, 17, 64, 100} {
			s := mustGenerate(t, algo, R)
			// A user's order: routes reversed, so Out keeps schedule order.
			u := *s
			u.Routes = slices.Clone(s.Routes)
			slices.Reverse(u.Routes)
			for _, s := range []*Schedule{s, &u} {
				tab, f := Compile(s), mustFlatten(t, s)
				st := f.Stride()
				for r, rg := range tab.Ranks {
					if len(rg.Self) != s.Gates+2 || len(rg.Need) != s.Gates+2 || len(rg.Out) != s.Gates+1 {
						t.Fatalf("%s R=%d rank %d: table lengths %d %d %d", algo, R, r, len(rg.Self), len(rg.Need), len(rg.Out))
					}
					for g := 0; g < st; g++ {
						k := r*st + g
						if rg.Self[g] != f.Self[k] || rg.Need[g] != int(f.Need[k]) {
							t.Fatalf("%s R=%d rank %d gate %d: Compile and Flatten differ", algo, R, r, g)
						}
						if g <= s.Gates {
							var dst []int
							for _, x := range f.OutDst[f.OutStart[k]:f.OutEnd[k]] {
								dst = append(dst, int(x))
							}
							if !slices.Equal(rg.Out[g], dst) {
								t.Fatalf("%s R=%d rank %d gate %d: Out %v, flat %v", algo, R, r, g, rg.Out[g], dst)
							}
						}
					}
				}
			}
		}
	}
}

func mustFlatten(t *testing.T, s *Schedule) *FlatTable {
	t.Helper()
	f, err := Flatten(s)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func TestFlattenRejectsInvalid(t *testing.T) {
	s := mustGenerate(t, hw.AlgoButterfly, 4)
	s.Routes = append(s.Routes, s.Routes[0]) // a duplicate self route would silently vanish in Self
	if _, err := Flatten(s); err == nil || !strings.Contains(err.Error(), "duplicate") {
		t.Fatalf("Flatten of a schedule with a duplicate route: %v", err)
	}
}

func ExampleGenerate() {
	s, _ := Generate("butterfly", 5)
	fmt.Println("gates:", s.Gates)
	for _, r := range s.Routes {
		if r.FromRank != r.ToRank {
			fmt.Printf("gate %d: %d -> %d (distance %d)\n", r.FromGate, r.FromRank, r.ToRank, r.Distance)
		}
	}
	// Output:
	// gates: 4
	// gate 1: 4 -> 0 (distance 4)
	// gate 2: 0 -> 2 (distance 2)
	// gate 2: 1 -> 3 (distance 2)
	// gate 2: 2 -> 0 (distance 2)
	// gate 2: 3 -> 1 (distance 2)
	// gate 3: 0 -> 1 (distance 1)
	// gate 3: 1 -> 0 (distance 1)
	// gate 3: 2 -> 3 (distance 1)
	// gate 3: 3 -> 2 (distance 1)
	// gate 4: 0 -> 4 (distance 4)
}

// TestFlatEntryOrder: every generated table stores its routes in entry
// order (OutStart[k] == OutEnd[k-1]), which the units rely on to find a
// gate's first route; a table built by hand without it is refused.
func TestFlatEntryOrder(t *testing.T) {
	for _, algo := range hw.Algorithms {
		for _, ranks := range []int{1, 2, 3, 12, 16, 100, 1000} {
			f, err := GenerateFlat(algo, ranks)
			if err != nil {
				t.Fatal(err)
			}
			if f.OutStart[0] != 0 {
				t.Fatalf("%s %d ranks: OutStart[0] = %d", algo, ranks, f.OutStart[0])
			}
			for k := 1; k < len(f.OutStart); k++ {
				if f.OutStart[k] != f.OutEnd[k-1] {
					t.Fatalf("%s %d ranks: entry %d starts at %d, the one before ends at %d", algo, ranks, k, f.OutStart[k], f.OutEnd[k-1])
				}
			}
		}
	}
	f, err := GenerateFlat(hw.AlgoButterfly, 4)
	if err != nil {
		t.Fatal(err)
	}
	f.OutStart[f.Stride()+1]++ // rank 1, gate 1: not where the entry before ends
	defer func() {
		if recover() == nil {
			t.Error("NewUnits took a table whose routes are not in entry order")
		}
	}()
	NewUnits(f, OpBarrier, 64, []int32{0, 1, 2, 3}, make([]int64, 4), make([]uint64, 4))
}
