package barrierunit

import (
	"fmt"
	"math/bits"

	"github.com/hxbar/hxbar/hw"
)

// Limits of a schedule the hardware can run.
const (
	// MaxRanks is the largest rank count: the largest hyper-crossbar has 64^4 nodes.
	MaxRanks = 1 << 24
	// MaxRoutes bounds the route list Generate builds (40 bytes a route, so
	// 5 GB): past it, GenerateFlat builds the gate tables without one.
	MaxRoutes = 1 << 27
)

var ranksAllowed = "1.." + itoa(MaxRanks)

// plan is a generated schedule before its routes are written out: the routes
// are a pure function of it, so Generate, GenerateFlat and the route count
// share one enumeration.
type plan struct {
	algo  hw.Algorithm
	r, g  int  // ranks, gates
	nb    int  // butterfly: largest power of two <= r
	n     int  // butterfly: log2(nb), the number of exchange gates
	off   int  // butterfly: 1 when r is not a power of two (gate 1 folds the extra ranks in)
	first bool // butterfly-near-first: distances 1, 2, ..., NB/2
}

func newPlan(algo hw.Algorithm, ranks int) (plan, error) {
	p := plan{algo: algo, r: ranks}
	switch algo {
	case hw.AlgoButterfly, hw.AlgoButterflyNearFirst, hw.AlgoDissemination:
	default:
		return p, &hw.FieldError{Field: "algo", Value: quote(string(algo)), Allowed: hw.Join(hw.Algorithms)}
	}
	if ranks < 1 || ranks > MaxRanks {
		return p, &hw.FieldError{Field: "ranks", Value: ranks, Allowed: ranksAllowed}
	}
	if ranks == 1 {
		// One gate with only the self route: the unit still passes one gate
		// between arrive and release, like every other rank count, so the
		// hardware needs no special case for G = 0.
		p.g = 1
		return p, nil
	}
	if algo == hw.AlgoDissemination {
		p.g = bits.Len(uint(ranks - 1)) // ceil(log2 R)
		return p, nil
	}
	p.first = algo == hw.AlgoButterflyNearFirst
	p.n = bits.Len(uint(ranks)) - 1
	p.nb = 1 << p.n
	p.g = p.n
	if p.nb != ranks {
		p.off = 1
		p.g = p.n + 2
	}
	return p, nil
}

// count is the exact number of routes, so that Generate allocates once.
func (p plan) count() int {
	switch {
	case p.r == 1:
		return 1
	case p.algo == hw.AlgoDissemination:
		return 2 * p.r * p.g
	default:
		// Exchange gates: a self and a remote route per base rank. Gate 1 and
		// gate G (only when R is not a power of two): a self route per base
		// rank and one remote route per extra rank.
		return 2*p.nb*p.n + 2*p.off*p.r
	}
}

// dist is the exchange distance at butterfly exchange k = 1..n.
func (p plan) dist(k int) int {
	if p.first {
		return 1 << (k - 1)
	}
	return p.nb >> k
}

// each calls yield for every route in the canonical order: by from_gate,
// from_rank, then to_rank. It stops early when yield returns false.
func (p plan) each(yield func(Route) bool) { p.eachGates(1, p.g+1, yield) }

// gateRoutes is the number of routes leaving gate g.
func (p plan) gateRoutes(g int) int {
	switch {
	case p.r == 1:
		return 1
	case p.algo == hw.AlgoDissemination:
		return 2 * p.r
	case p.off == 1 && g == 1:
		return p.r
	case p.off == 1 && g == p.g:
		return p.r
	default:
		return 2 * p.nb
	}
}

// eachGates yields the routes leaving gates lo..hi-1, in each's order.
func (p plan) eachGates(lo, hi int, yield func(Route) bool) {
	pair := func(r, g, s int) bool { // self route and the route to s, sorted by to_rank
		self := Route{FromRank: r, FromGate: g, ToRank: r, ToGate: g + 1}
		other := Route{FromRank: r, FromGate: g, ToRank: s, ToGate: g + 1, Distance: abs(r - s)}
		if s < r {
			return yield(other) && yield(self)
		}
		return yield(self) && yield(other)
	}
	if p.r == 1 {
		if lo <= 1 && 1 < hi {
			yield(Route{FromGate: 1, ToGate: 2})
		}
		return
	}
	if p.algo == hw.AlgoDissemination {
		for g := lo; g < hi; g++ {
			d := 1 << (p.g - g) // near-last order: 2^(G-1), ..., 2, 1
			for r := 0; r < p.r; r++ {
				if !pair(r, g, (r+d)%p.r) {
					return
				}
			}
		}
		return
	}
	for g := lo; g < hi; g++ {
		switch {
		case p.off == 1 && g == 1:
			// Each extra rank NB+i hands its operand to rank i and takes no
			// further part until its end gate: no self routes, or its operand
			// would be counted twice.
			for r := 0; r < p.r; r++ {
				var ok bool
				if r < p.nb {
					ok = yield(Route{FromRank: r, FromGate: 1, ToRank: r, ToGate: 2})
				} else {
					ok = yield(Route{FromRank: r, FromGate: 1, ToRank: r - p.nb, ToGate: 2, Distance: p.nb})
				}
				if !ok {
					return
				}
			}
		case p.off == 1 && g == p.g:
			// Rank i hands the result to the end gate of rank NB+i.
			for r := 0; r < p.nb; r++ {
				if !yield(Route{FromRank: r, FromGate: g, ToRank: r, ToGate: g + 1}) {
					return
				}
				if r+p.nb < p.r && !yield(Route{FromRank: r, FromGate: g, ToRank: r + p.nb, ToGate: g + 1, Distance: p.nb}) {
					return
				}
			}
		default:
			d := p.dist(g - p.off)
			for r := 0; r < p.nb; r++ {
				if !pair(r, g, r^d) {
					return
				}
			}
		}
	}
}

// Generate returns the schedule of algo for ranks ranks.
//
//   - butterfly: the seed's near-last butterfly. R = 2^n: G = n gates, the
//     exchange at gate g pairs r with r XOR 2^(G-g) (distances R/2, ..., 1).
//     Otherwise, with NB = 2^floor(log2 R): G = floor(log2 R) + 2; at gate 1
//     each extra rank NB+i sends to rank i; ranks 0..NB-1 run the butterfly
//     on gates 2..G-1 (distances NB/2, ..., 1); at gate G rank i sends to
//     the end gate of rank NB+i.
//   - butterfly-near-first: the same partners with distances 1, 2, ..., NB/2.
//   - dissemination: G = ceil(log2 R); at gate g rank r sends to
//     (r + 2^(G-g)) mod R. Correct for every R only for idempotent ops.
//
// R = 1 gives one gate and the single self route (0,1) -> (0,2).
// Routes are sorted by from_gate, from_rank, then to_rank.
func Generate(algo hw.Algorithm, ranks int) (*Schedule, error) {
	p, err := newPlan(algo, ranks)
	if err != nil {
		return nil, err
	}
	if p.count() > MaxRoutes {
		// Refuse rather than die of an allocation the machine cannot make.
		return nil, &hw.FieldError{Field: "ranks", Value: ranks,
			Allowed: fmt.Sprintf("1..%d for a %s route list of at most %d routes; GenerateFlat builds the gate tables of up to %d ranks", maxRanksFor(algo), algo, MaxRoutes, MaxRanks)}
	}
	s := &Schedule{Ranks: ranks, Algo: string(algo), Gates: p.g, Routes: make([]Route, p.count())}
	i := 0
	p.each(func(r Route) bool {
		s.Routes[i] = r
		i++
		return true
	})
	return s, nil
}

// GenerateEach is Generate without the route list: the schedule's fields
// (Routes nil) and its routes in Generate's order, made as each yields
// them, for a writer that streams them out. Same limits as Generate.
func GenerateEach(algo hw.Algorithm, ranks int) (*Schedule, func(yield func(Route) bool), error) {
	p, err := newPlan(algo, ranks)
	if err != nil {
		return nil, nil, err
	}
	if p.count() > MaxRoutes {
		return nil, nil, &hw.FieldError{Field: "ranks", Value: ranks,
			Allowed: fmt.Sprintf("1..%d for a %s route list of at most %d routes; GenerateFlat builds the gate tables of up to %d ranks", maxRanksFor(algo), algo, MaxRoutes, MaxRanks)}
	}
	return &Schedule{Ranks: ranks, Algo: string(algo), Gates: p.g}, p.each, nil
}

// GenerateFlat returns Flatten(Generate(algo, ranks)) without ever holding
// the route list: for a million ranks that is the difference between some
// 300 MB and 2 GB, and it works up to MaxRanks, past Generate's MaxRoutes.
func GenerateFlat(algo hw.Algorithm, ranks int) (*FlatTable, error) {
	p, err := newPlan(algo, ranks)
	if err != nil {
		return nil, err
	}
	if p.count() < parallelRoutes {
		return buildFlat(p.r, p.g, p.each)
	}
	// Two halves of the gates, filled concurrently: their table entries
	// are disjoint (a route writes its own gate's and the next gate's).
	mid := p.g/2 + 1
	base := 0
	for g := 1; g < mid; g++ {
		base += p.gateRoutes(g)
	}
	return buildFlatParts(p.r, p.g, []routePart{
		{each: func(y func(Route) bool) { p.eachGates(1, mid, y) }},
		{each: func(y func(Route) bool) { p.eachGates(mid, p.g+1, y) }, base: base},
	})
}

// parallelRoutes is the route count from which GenerateFlat fills the table
// on two goroutines (a variable for the tests, which run both ways).
var parallelRoutes = 1 << 20

// MaxRanksFor is the largest rank count Generate accepts for algo (a route
// list of at most MaxRoutes routes); 0 for an unknown algo.
func MaxRanksFor(algo hw.Algorithm) int {
	if _, err := newPlan(algo, 1); err != nil {
		return 0
	}
	return maxRanksFor(algo)
}

// maxRanksFor is the largest R whose algo schedule has at most MaxRoutes
// routes (the route count grows with R).
func maxRanksFor(algo hw.Algorithm) int {
	lo, hi := 1, MaxRanks // count(lo) <= MaxRoutes
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if p, _ := newPlan(algo, mid); p.count() <= MaxRoutes {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return lo
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
