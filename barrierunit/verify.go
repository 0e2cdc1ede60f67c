package barrierunit

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/hxbar/hxbar/hw"
	"github.com/hxbar/hxbar/internal/strictjson"
)

// Report kinds. The first two are verdicts of a correct schedule; the others
// name the first failure found.
const (
	KindBarrier        = "correct barrier"   // op barrier: every rank released, each after every rank arrived
	KindReduction      = "correct reduction" // and every result folds every operand once (at least once for an idempotent op)
	KindInvalid        = "invalid schedule"  // structure (Check) or op
	KindTooLarge       = "too large to verify"
	KindDeadlock       = "deadlock"        // some rank is never released
	KindEarlyRelease   = "early release"   // released before hearing from some rank
	KindMissingOperand = "missing operand" // result lacks some rank's operand
	KindDoubleCount    = "double count"    // result counts some operand twice or more (sum, xor)
)

// maxVerifyNodes bounds ranks*(gates+1), the (rank, gate) pairs Verify keeps
// state for (about 40 bytes each, with the routes).
const maxVerifyNodes = 1 << 26

// Report is the verdict of Verify; its JSON is part of the CLI's output.
type Report struct {
	OK      bool   `json:"ok"`
	Kind    string `json:"kind"`
	Op      string `json:"op"`
	Ranks   int    `json:"ranks"`
	Gates   int    `json:"gates"`
	Rank    int    `json:"rank"`    // first offending rank, -1 if none (null in the JSON)
	Peer    int    `json:"peer"`    // the other rank the message names, -1 if none (null)
	Gate    int    `json:"gate"`    // the gate the message names, 0 if none (null)
	Message string `json:"message"` // one line
}

func (r Report) String() string { return r.Kind + ": " + r.Message }

// reportJSON is Report's JSON: null where the report names no rank, peer
// or gate.
type reportJSON struct {
	OK      bool   `json:"ok"`
	Kind    string `json:"kind"`
	Op      string `json:"op"`
	Ranks   int    `json:"ranks"`
	Gates   int    `json:"gates"`
	Rank    *int   `json:"rank"`
	Peer    *int   `json:"peer"`
	Gate    *int   `json:"gate"`
	Message string `json:"message"`
}

// MarshalJSON writes rank, peer and gate as null where the report names
// none (-1, -1, 0): no sentinel number in the JSON.
func (r Report) MarshalJSON() ([]byte, error) {
	named := func(v, none int) *int {
		if v == none {
			return nil
		}
		return &v
	}
	return json.Marshal(reportJSON{r.OK, r.Kind, r.Op, r.Ranks, r.Gates, named(r.Rank, -1), named(r.Peer, -1), named(r.Gate, 0), r.Message})
}

// UnmarshalJSON reads what MarshalJSON writes.
func (r *Report) UnmarshalJSON(data []byte) error {
	var v reportJSON
	if err := json.Unmarshal(data, &v); err != nil {
		return err
	}
	or := func(p *int, none int) int {
		if p == nil {
			return none
		}
		return *p
	}
	*r = Report{v.OK, v.Kind, v.Op, v.Ranks, v.Gates, or(v.Rank, -1), or(v.Peer, -1), or(v.Gate, 0), v.Message}
	return nil
}

// Verify proves or refutes schedule s for op by symbolic execution. For
// every (rank, gate) it computes three sets of ranks:
//
//   - heard: the ranks whose arrival the gate's passing causally depends on
//     (through the gate before it on the same rank and through every route
//     arriving at it);
//   - value: the ranks whose operands the gate's value folds (through the
//     arriving routes only: without a self route the rank's own value is not
//     carried over);
//   - twice: the ranks whose operands the value folds more than once.
//
// A gate can pass only if the gate before it and the sources of its arriving
// routes pass; the gates that never pass are found like a topological sort
// that gets stuck on a cycle.
//
// op barrier is correct when every rank is released and each release heard
// from every rank. A reduction must also have every operand in every result,
// exactly once (twice empty) unless op is idempotent.
//
// The failure reported is that of the lowest rank; for that rank the checks
// are, in order: never released (deadlock), heard, value, twice; the peer is
// the lowest rank missing (or counted twice).
//
// A schedule that fails Check is "invalid schedule" with Check's error, but
// if it can still be executed (ranks in range, routes from gates 1..G+1 to
// gates 2..G+1, so also one that goes back a gate and may deadlock) its
// semantic failure, if any, is reported instead, being the more telling.
func Verify(s *Schedule, op Op) Report {
	rep := Report{Op: op.String(), Rank: -1, Peer: -1}
	if s != nil {
		rep.Ranks, rep.Gates = s.Ranks, s.Gates
	}
	finish := func(kind, msg string) Report {
		rep.Kind, rep.Message = kind, msg
		return rep
	}
	if int(op) >= len(hw.Ops) {
		_, err := ParseOp(op.String())
		return finish(KindInvalid, err.Error())
	}
	// A schedule Check rejects may still be executable (a route that goes
	// back a gate, say): then its semantic failure, if any, is reported
	// first, being the more telling.
	errCheck := s.Check()
	if errCheck != nil {
		if s.check(false) != nil { // not executable: report Check's first error
			return finish(KindInvalid, errCheck.Error())
		}
	}
	if n := s.Ranks * (s.Gates + 1); n > maxVerifyNodes {
		return finish(KindTooLarge, fmt.Sprintf("ranks*(gates+1) = %d (rank, gate) pairs, more than the verifier's limit of %d", n, maxVerifyNodes))
	}
	e := newExec(s, op)
	e.run()
	if e.sets.over {
		return finish(KindTooLarge, fmt.Sprintf("the sets of ranks grew past the verifier's limit of %d interval bounds: the schedule lacks the structure (blocks, strides) that keeps them small", maxArena))
	}
	if r, ok := e.judge(); !ok {
		r.Op, r.Ranks, r.Gates = rep.Op, rep.Ranks, rep.Gates
		return r
	}
	if errCheck != nil {
		return finish(KindInvalid, errCheck.Error())
	}
	rep.OK = true
	if op == OpBarrier {
		return finish(KindBarrier, "every rank is released, and only after every rank has arrived")
	}
	if op.Idempotent() {
		return finish(KindReduction, fmt.Sprintf("every rank is released after every rank has arrived, with every operand in its result at least once (%s is idempotent)", op))
	}
	return finish(KindReduction, "every rank is released after every rank has arrived, with every operand in its result exactly once")
}

// exec is one symbolic execution. Node (r, h), h = 1..G+1, is index
// (h-1)*R + r: gate-major, so that a stage's routes touch two nearby runs of
// memory rather than jumping across the whole array.
type exec struct {
	s        *Schedule
	op       Op
	R        int
	sets     *isets
	nodes    []node
	outStart []int32 // routes leaving node n: outTo[outStart[n]:outStart[n+1]]
	outTo    []int32
	order    []int32 // nodes in the order they passed: a topological order
	inStart  []int32 // reverse adjacency, built only to explain a deadlock
	inFrom   []int32
	value    bool // op carries operands
	twice    bool // op counts duplicates (sum, xor)
}

type node struct {
	wait  int32 // unmet dependencies; > 0 at the end: never passes
	heard rset
	value rset
	twice rset
}

func (e *exec) id(r, h int) int32 { return int32((h-1)*e.R + r) }

func newExec(s *Schedule, op Op) *exec {
	R := s.Ranks
	n := R * (s.Gates + 1)
	e := &exec{s: s, op: op, R: R, sets: newIsets(R), value: op.HasPayload(), twice: op.HasPayload() && !op.Idempotent()}
	e.nodes = make([]node, n)
	e.outStart = make([]int32, n+1)
	e.outTo = make([]int32, len(s.Routes))
	for i := range s.Routes {
		rt := &s.Routes[i]
		e.outStart[e.id(rt.FromRank, rt.FromGate)+1]++
		e.nodes[e.id(rt.ToRank, rt.ToGate)].wait++
	}
	for k := 1; k <= n; k++ {
		e.outStart[k] += e.outStart[k-1]
	}
	fill := make([]int32, n)
	copy(fill, e.outStart[:n])
	for i := range s.Routes {
		rt := &s.Routes[i]
		k := e.id(rt.FromRank, rt.FromGate)
		e.outTo[fill[k]] = e.id(rt.ToRank, rt.ToGate)
		fill[k]++
	}
	for k := R; k < n; k++ {
		e.nodes[k].wait++ // the gate before it on the same rank
	}
	return e
}

func (e *exec) run() {
	R := int32(e.R)
	last := int32(len(e.nodes)) - R // first node of the end gate
	e.order = make([]int32, 0, len(e.nodes))
	for r := 0; r < e.R; r++ {
		one := e.sets.singleton(r)
		e.nodes[r].heard, e.nodes[r].value = one, one
		e.order = append(e.order, int32(r))
	}
	t := e.sets
	for q := 0; q < len(e.order); q++ {
		n := e.order[q]
		src := &e.nodes[n]
		for _, d := range e.outTo[e.outStart[n]:e.outStart[n+1]] {
			dst := &e.nodes[d]
			dst.heard = t.union(dst.heard, src.heard)
			if e.value {
				if e.twice {
					// A multiset sum: what both sides hold is now held twice.
					tw := t.union(dst.twice, src.twice)
					dst.twice = t.union(tw, t.inter(dst.value, src.value))
				}
				dst.value = t.union(dst.value, src.value)
			}
			if dst.wait--; dst.wait == 0 {
				e.order = append(e.order, d)
			}
		}
		if n < last { // the next gate on the same rank
			dst := &e.nodes[n+R]
			dst.heard = t.union(dst.heard, src.heard)
			if dst.wait--; dst.wait == 0 {
				e.order = append(e.order, n+R)
			}
		}
	}
}

// judge returns the failure of the lowest offending rank, if any.
func (e *exec) judge() (Report, bool) {
	R, G := e.s.Ranks, e.s.Gates
	for r := 0; r < R; r++ {
		end := e.id(r, G+1)
		x := &e.nodes[end]
		if x.wait > 0 {
			return e.deadlock(r), false
		}
		if p := e.sets.firstMissing(x.heard); p >= 0 {
			return Report{Kind: KindEarlyRelease, Rank: r, Peer: p,
				Message: fmt.Sprintf("rank %d released without having heard from rank %d", r, p)}, false
		}
		if !e.value {
			continue
		}
		if p := e.sets.firstMissing(x.value); p >= 0 {
			return Report{Kind: KindMissingOperand, Rank: r, Peer: p,
				Message: fmt.Sprintf("rank %d's result lacks the operand of rank %d", r, p)}, false
		}
		if !e.twice {
			continue
		}
		if p := e.sets.first(x.twice); p >= 0 {
			return Report{Kind: KindDoubleCount, Rank: r, Peer: p,
				Message: fmt.Sprintf("rank %d counts the operand of rank %d %s (%s needs each operand exactly once)", r, p, times(e.count(p, end)), e.op)}, false
		}
	}
	return Report{}, true
}

// count is how many times the value at node end folds the operand of rank
// p, by a pass over the topological order (saturating at MaxUint64).
func (e *exec) count(p int, end int32) uint64 {
	c := make([]uint64, len(e.nodes))
	c[e.id(p, 1)] = 1
	for _, n := range e.order {
		if c[n] == 0 {
			continue
		}
		for _, d := range e.outTo[e.outStart[n]:e.outStart[n+1]] {
			if c[d] > math.MaxUint64-c[n] {
				c[d] = math.MaxUint64
			} else {
				c[d] += c[n]
			}
		}
	}
	return c[end]
}

func times(c uint64) string {
	switch c {
	case 2:
		return "twice"
	case math.MaxUint64:
		return "at least 18446744073709551615 times"
	}
	return fmt.Sprintf("%d times", c)
}

// deadlock explains why rank r is never released: the lowest gate of r that
// never passes, the first route into it (in schedule order) whose source
// never passes, and the cycle of waits that source hangs on.
func (e *exec) deadlock(r int) Report {
	e.buildIn()
	h := 2
	for ; e.nodes[e.id(r, h)].wait == 0; h++ {
	}
	n := e.id(r, h)
	src := e.blocker(n) // not the gate before: that one passed
	sr, sg := e.node(src)
	// Follow "waits for" until a node repeats: every node that never passes
	// waits for another such node, and there are finitely many.
	seen := map[int32]int{}
	var path []int32
	for x := src; ; x = e.blocker(x) {
		if i, ok := seen[x]; ok {
			path = path[i:]
			break
		}
		seen[x] = len(path)
		path = append(path, x)
	}
	var b strings.Builder
	for _, x := range append(path, path[0]) {
		if b.Len() > 0 {
			b.WriteString(" waits for ")
		}
		xr, xg := e.node(x)
		fmt.Fprintf(&b, "rank %d gate %d", xr, xg)
	}
	return Report{Kind: KindDeadlock, Rank: r, Peer: sr, Gate: h,
		Message: fmt.Sprintf("rank %d is never released: gate %d waits for a route from rank %d gate %d that can never pass (cycle: %s)", r, h, sr, sg, b.String())}
}

func (e *exec) node(n int32) (rank, gate int) { return int(n) % e.R, int(n)/e.R + 1 }

// blocker returns a node that never passes and that n waits for: the gate
// before n on the same rank if that one never passes, otherwise the source
// of the first such route into n in schedule order.
func (e *exec) blocker(n int32) int32 {
	if before := n - int32(e.R); before >= 0 && e.nodes[before].wait > 0 {
		return before
	}
	for _, m := range e.inFrom[e.inStart[n]:e.inStart[n+1]] {
		if e.nodes[m].wait > 0 {
			return m
		}
	}
	return -1 // unreachable: a node all of whose dependencies pass, passes
}

func (e *exec) buildIn() {
	s := e.s
	n := len(e.nodes)
	e.inStart = make([]int32, n+1)
	for i := range s.Routes {
		e.inStart[e.id(s.Routes[i].ToRank, s.Routes[i].ToGate)+1]++
	}
	for k := 1; k <= n; k++ {
		e.inStart[k] += e.inStart[k-1]
	}
	fill := make([]int32, n)
	copy(fill, e.inStart[:n])
	e.inFrom = make([]int32, len(s.Routes))
	for i := range s.Routes { // schedule order within each node
		rt := &s.Routes[i]
		k := e.id(rt.ToRank, rt.ToGate)
		e.inFrom[fill[k]] = e.id(rt.FromRank, rt.FromGate)
		fill[k]++
	}
}

// ReadExecutable decodes a schedule as ReadSchedule does but accepts every
// schedule Verify can execute, not only those passing Check: ranks in
// range and routes from gates 1..G+1 to gates 2..G+1, so also one that goes
// back a gate and deadlocks. It is for proving or refuting a schedule
// (`hxbar verify`): Verify then reports the deadlock, or Check's error as an
// invalid schedule. A schedule that is to run must pass ReadSchedule.
func ReadExecutable(r io.Reader) (*Schedule, error) {
	var s Schedule
	if err := strictjson.DecodeOne(r, &s, "gate schedule"); err != nil {
		return nil, err
	}
	if err := s.check(false); err != nil {
		return nil, err
	}
	s.normalize()
	return &s, nil
}
