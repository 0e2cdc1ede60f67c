package sim

import (
	"slices"

	"github.com/hxbar/hxbar/barrierunit"
	"github.com/hxbar/hxbar/hw"
)

// A loop (hw.System.Iterations > 1, docs/microarchitecture.md,
// "Iterations") runs one barrier again and again with no quiet point: a
// rank released from iteration i in cycle t arrives at i+1 in cycle
// t + 1 + compute + its jitter, while other ranks may still be in i.

// IterationResult is one iteration of a communicator: its first arrival,
// its last release (nil until every rank is released from it) and its
// latency, last arrival -> last release (nil likewise).
type IterationResult struct {
	Iteration    int    `json:"iteration"`
	FirstArrival int64  `json:"first_arrival"`
	LastRelease  *int64 `json:"last_release"`
	Latency      *int64 `json:"latency"`
}

// CommunicatorResult is one communicator of a run: its ranks (a count),
// its barrier channel and its iterations (a run without a loop lists its
// episodes as iterations), with the loop's averages as osu_barrier reports
// them: avg_period is the cycles from the first iteration's first arrival
// to the end of the last iteration's last release (the cycle after it, the
// first in which every rank sees released) over iterations, so that a
// loop whose iterations take p cycles each has period p; complete loops
// only.
type CommunicatorResult struct {
	Name  string `json:"name"`
	Ranks int    `json:"ranks"`
	// RankList is a communicator's system ranks in its rank order, and
	// Channels the channel each uses on its node (a run of communicators
	// only); Channel is their channel when they all use one, else nil.
	RankList   []int             `json:"rank_list,omitempty"`
	Channels   []int             `json:"channels,omitempty"`
	Channel    *int              `json:"channel"`
	Iterations []IterationResult `json:"iterations"`
	AvgPeriod  *float64          `json:"avg_period"`
	AvgLatency *float64          `json:"avg_latency"`
	MinLatency *int64            `json:"min_latency"`
	MaxLatency *int64            `json:"max_latency"`
}

// loopRun is a running loop: the scheduled next arrivals and, per
// iteration, its arrivals and releases so far.
type loopRun struct {
	n, ranks int
	compute  int64
	q        arrivalQueue
	iters    []loopIter
	// sys draws the loop's jitters and operands (its ranks are base +
	// 0..ranks-1 of the units: a communicator's, or every rank); op is
	// the loop's op.
	sys  *hw.System
	base int
	op   barrierunit.Op
}

type loopIter struct {
	first, lastArrival, lastRelease int64
	arrived, released               int
}

// newLoop starts a loop whose first iteration's arrivals are arrive.
func newLoop(n, compute int, arrive []int64) *loopRun {
	lp := &loopRun{n: n, ranks: len(arrive), compute: int64(compute)}
	it := loopIter{first: Never, lastArrival: -1, lastRelease: -1}
	for _, a := range arrive {
		if a != Never {
			it.first, it.lastArrival = min(it.first, a), max(it.lastArrival, a)
			it.arrived++
		}
	}
	if it.arrived < len(arrive) {
		it.lastArrival = Never // some rank never arrives
	}
	lp.iters = append(lp.iters, it)
	return lp
}

// loopReleased takes the ranks the units released in cycle t from an
// iteration that is not their last (Units.Looped): each gets its next
// arrival scheduled, and its iteration's figures are updated.
func (s *System) loopReleased(t int64) {
	u := s.Units
	for _, r32 := range u.Looped {
		r := int(r32)
		lp := s.loopOf(r)
		i := u.Iteration(r) // the iteration just ended, 1-based
		lp.release(i, t)
		jit, _ := lp.sys.IterationDraw(r-lp.base, i+1)
		at := t + 1 + lp.compute + jit
		lp.q.push(loopArrival{at: at, rank: r32})
		if i == len(lp.iters) {
			lp.iters = append(lp.iters, loopIter{first: at, lastArrival: at, lastRelease: -1})
		}
		it := &lp.iters[i]
		it.first, it.lastArrival = min(it.first, at), max(it.lastArrival, at)
		it.arrived++
	}
	u.Looped = u.Looped[:0]
}

// release counts a release from iteration i (1-based) in cycle t.
func (lp *loopRun) release(i int, t int64) {
	it := &lp.iters[i-1]
	it.released++
	it.lastRelease = max(it.lastRelease, t)
}

// loopArrivals wakes the ranks whose next arrival is in cycle t, with
// their arrival cycle and operand.
func (s *System) loopArrivals(t int64) {
	for _, lp := range s.loops {
		s.loopArrivalsOf(lp, t)
	}
}

// loopOf is the loop rank r runs in.
func (s *System) loopOf(r int) *loopRun {
	if s.commOf != nil {
		return s.loops[s.commOf[r]]
	}
	return s.loop
}

// nextLoopArrival is the cycle of the next scheduled arrival of any loop
// (Never: none).
func (s *System) nextLoopArrival() int64 {
	na := int64(Never)
	for _, lp := range s.loops {
		na = min(na, lp.nextArrival())
	}
	return na
}

func (s *System) loopArrivalsOf(lp *loopRun, t int64) {
	u := s.Units
	for len(lp.q) > 0 && lp.q[0].at == t {
		a := lp.q.pop()
		// The arrival and operand are written when the rank arrives, not
		// when it is released: until then its results are the iteration
		// it ran last (a run cut between the two reported an arrival
		// after its end).
		r := int(a.rank)
		u.Arrive[r] = t
		if lp.op.HasPayload() {
			_, u.Operand[r] = lp.sys.IterationDraw(r-lp.base, u.Iteration(r)+1)
		}
		s.eng.wake(0, int32(s.switches+s.Units.Node(int(a.rank))), t)
		s.wd.arrived(t)
	}
}

// begun is the number of iterations some rank arrived at before cycle end
// (a next arrival is scheduled at the release before it, and may lie past
// a run cut at max_cycles).
func (lp *loopRun) begun(end int64) int {
	n := len(lp.iters)
	for n > 0 && lp.iters[n-1].first >= end {
		n--
	}
	return n
}

// lastArrival is the run's headline last arrival: that of the latest
// iteration begun before cycle end, Never while some rank has not arrived
// there.
func (lp *loopRun) lastArrival(end int64) int64 {
	n := lp.begun(end)
	if n == 0 {
		return Never
	}
	it := &lp.iters[n-1]
	if it.arrived < lp.ranks || it.lastArrival >= end {
		return Never
	}
	return it.lastArrival
}

// nextArrival is the cycle of the next scheduled arrival (Never: none).
func (lp *loopRun) nextArrival() int64 {
	if lp == nil || len(lp.q) == 0 {
		return Never
	}
	return lp.q[0].at
}

// communicators describes the run's one communicator, world: its loop's
// iterations, or its episodes.
func (s *System) communicators(res *Result) []CommunicatorResult {
	if s.comms != nil {
		return s.commResults(res)
	}
	c := CommunicatorResult{Name: "world", Ranks: res.Ranks, Channel: new(int), Iterations: []IterationResult{}} // JSON [], not null, before any arrival
	if lp := s.loop; lp != nil {
		for i := range lp.begun(res.Cycles) {
			it := &lp.iters[i]
			ir := IterationResult{Iteration: i + 1, FirstArrival: it.first}
			final := i == lp.n-1
			if done := it.released == lp.ranks || final && res.Complete; done {
				last := it.lastRelease
				if final {
					last = res.Cycles - 1
				}
				ir.LastRelease, ir.Latency = ptr(last), ptr(last-it.lastArrival)
			}
			c.Iterations = append(c.Iterations, ir)
		}
	} else {
		for _, e := range res.Episodes {
			ir := IterationResult{Iteration: e.Episode, FirstArrival: e.FirstArrival, Latency: e.Latency}
			if e.LastRelease >= 0 {
				ir.LastRelease = ptr(e.LastRelease)
			}
			c.Iterations = append(c.Iterations, ir)
		}
	}
	c.averages(res.Complete)
	return []CommunicatorResult{c}
}

// averages fills the loop's figures from its iterations: latencies over
// the iterations that have one, the period over a complete loop only.
func (c *CommunicatorResult) averages(complete bool) {
	var lat []int64
	for _, it := range c.Iterations {
		if it.Latency != nil {
			lat = append(lat, *it.Latency)
		}
	}
	if len(lat) > 0 {
		var sum float64
		for _, l := range lat {
			sum += float64(l)
		}
		avg := sum / float64(len(lat))
		c.AvgLatency, c.MinLatency, c.MaxLatency = &avg, ptr(slices.Min(lat)), ptr(slices.Max(lat))
	}
	if n := len(c.Iterations); complete && n > 0 && c.Iterations[n-1].LastRelease != nil {
		p := float64(*c.Iterations[n-1].LastRelease+1-c.Iterations[0].FirstArrival) / float64(n)
		c.AvgPeriod = &p
	}
}

// loopArrival is a scheduled next arrival.
type loopArrival struct {
	at   int64
	rank int32
}

// arrivalQueue is a min-heap of next arrivals by cycle, then rank (typed,
// so that a push allocates nothing once the slice has grown).
type arrivalQueue []loopArrival

func (a loopArrival) before(b loopArrival) bool {
	return a.at < b.at || a.at == b.at && a.rank < b.rank
}

func (q *arrivalQueue) push(x loopArrival) {
	*q = append(*q, x)
	h := *q
	for i := len(h) - 1; i > 0; {
		p := (i - 1) / 2
		if !h[i].before(h[p]) {
			break
		}
		h[i], h[p] = h[p], h[i]
		i = p
	}
}

func (q *arrivalQueue) pop() loopArrival {
	h := *q
	top, n := h[0], len(h)-1
	h[0] = h[n]
	h = h[:n]
	for i := 0; ; {
		c := 2*i + 1
		if c >= n {
			break
		}
		if c+1 < n && h[c+1].before(h[c]) {
			c++
		}
		if !h[c].before(h[i]) {
			break
		}
		h[i], h[c] = h[c], h[i]
		i = c
	}
	*q = h
	return top
}
