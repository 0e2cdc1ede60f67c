package sim

import (
	"slices"

	"github.com/hxbar/hxbar/barrierunit"
	"github.com/hxbar/hxbar/hw"
)

// Communicators (docs/microarchitecture.md, "Channels and communicators")
// run at the same time on one network, each rank of each on a channel of
// its node's unit. The model keeps them as one set of units whose ranks
// are the communicators' ranks side by side (barrierunit.MergeTables): a
// rank of the run here is a (communicator, rank) pair, a channel of a
// unit. A node's channels share its injection and ejection ports.

// commRun is what the run keeps of one communicator.
type commRun struct {
	hw.Comm
	base int // its first rank among the merged ranks
	op   barrierunit.Op
}

// chanState is a node's shared port state.
type chanState struct {
	rr     int8  // the channel that sent the last head (-1: none yet)
	rxChan int8  // the channel of the packet being received (-1: none)
	popped int64 // the cycle of the last pop (one per cycle)
}

// chanPort is the port a channel's unit sees: the node's ports, with the
// injection port granted to one channel a cycle and the ejection port's
// front flit shown only to the channel it is for.
type chanPort struct {
	s       *System
	ch      int8
	granted bool
}

func (p *chanPort) CanInject(node int, t int64) bool {
	return p.granted && p.s.Net.CanInject(node, t)
}

func (p *chanPort) Inject(node int, f hw.Flit, t int64, w int) {
	if f.Head() {
		p.s.chans[node].rr = p.ch
	}
	p.s.Net.Inject(node, f, t, w)
}

func (p *chanPort) RxFront(node int, t int64) (hw.Flit, bool) {
	st := &p.s.chans[node]
	if st.popped == t {
		return hw.Flit{}, false
	}
	f, ok := p.s.Net.RxFront(node, t)
	if !ok || p.s.flitChannel(st, &f) != p.ch {
		return hw.Flit{}, false
	}
	return f, true
}

func (p *chanPort) RxPop(node int, t int64) {
	st := &p.s.chans[node]
	if f, ok := p.s.Net.RxFront(node, t); ok {
		switch {
		case f.Tail(): // a one-flit packet is head and tail: none left open
			st.rxChan = -1
		case f.Head():
			st.rxChan = p.ch
		}
	}
	st.popped = t
	p.s.Net.RxPop(node, t)
}

func (p *chanPort) RxPending(node int, t int64) bool { return p.s.Net.RxPending(node, t) }

// flitChannel is the channel a flit at a node's ejection port is for: a
// head names it above its iteration bit; a payload or tail flit belongs to
// the packet being received (channel 0 when none is: the unit there finds
// the flit without a head).
func (s *System) flitChannel(st *chanState, f *hw.Flit) int8 {
	if f.Head() {
		return int8(f.Data >> 1 & s.chanMask)
	}
	return max(st.rxChan, 0)
}

// buildComms replaces the units of a run of communicators: every
// communicator's tables side by side, each rank with its communicator's
// op, gates, loop and channel.
func (s *System) buildComms(sys *hw.System) error {
	cs, err := sys.Comms()
	if err != nil {
		return err
	}
	tabs := make([]*barrierunit.FlatTable, len(cs))
	s.comms = make([]commRun, len(cs))
	for k := range cs {
		c := &s.comms[k]
		c.Comm = cs[k]
		if c.op, err = barrierunit.ParseOp(string(c.Sys.Op)); err != nil {
			return err
		}
		sched, err := barrierunit.Cached(c.Sys.Algo, len(c.Ranks))
		if err != nil {
			return commErr(k, c.Name, err)
		}
		if tabs[k], err = barrierunit.Flatten(sched); err != nil {
			return commErr(k, c.Name, err)
		}
	}
	tab, bases, err := barrierunit.MergeTables(tabs)
	if err != nil {
		return err
	}
	V := tab.Ranks
	nodeOf := make([]int32, V)
	arrive := make([]int64, V)
	operand := make([]uint64, V)
	chans := make([]uint8, V)
	base := make([]int32, V)
	limit := make([]uint32, V)
	s.commOf = make([]int32, V)
	s.virtOf = make([][]int32, sys.NumRanks())
	s.nodeRanks = make([][]int32, s.Fabric.NumNodes())
	iters := 1
	for k := range s.comms {
		c := &s.comms[k]
		c.base = bases[k]
		arr := c.Sys.Arrivals()
		iters = max(iters, c.Sys.IterationCount())
		for j, r := range c.Ranks {
			v := c.base + j
			n := sys.RankNode(r)
			nodeOf[v], arrive[v], chans[v], base[v] = int32(n), arr[j].Cycle, uint8(c.Channel[j]), int32(c.base)
			if c.op.HasPayload() {
				operand[v] = arr[j].Operand
			}
			limit[v] = uint32(c.Sys.IterationCount())
			s.commOf[v] = int32(k)
			s.virtOf[r] = append(s.virtOf[r], int32(v))
			for len(s.nodeRanks[n]) <= c.Channel[j] {
				s.nodeRanks[n] = append(s.nodeRanks[n], -1)
			}
			s.nodeRanks[n][c.Channel[j]] = int32(v)
		}
	}
	u := barrierunit.NewUnits(tab, s.comms[0].op, sys.FlitWidth, nodeOf, arrive, operand)
	u.SetNodes(s.Fabric.NumNodes())
	u.SetIterations(iters)
	u.SetPipeline(sys.UnitPipeline == 1)
	u.Chan, u.Base, u.IterLimit = chans, base, limit
	for k := range s.comms {
		c := &s.comms[k]
		for j := range c.Ranks {
			if err := u.SetCtrl(c.base+j, true, c.op, false, tabs[k].Gates); err != nil {
				return err
			}
		}
		if c.op.HasPayload() { // SetCtrl filled bank 0's identities; a loop's bank 1 too
			for j := range c.Ranks {
				u.SetCtrl(c.base+j, true, c.op, false, tabs[k].Gates)
			}
		}
	}
	s.Units, s.Table = u, tab
	s.chans = make([]chanState, s.Fabric.NumNodes())
	for n := range s.chans {
		s.chans[n] = chanState{rr: -1, rxChan: -1, popped: -1}
	}
	s.chanCount = sys.ChannelCount()
	s.chanMask = uint64(1)<<hw.Bits(s.chanCount) - 1
	if s.chanCount == 1 {
		s.chanMask = 0
	}
	return nil
}

func commErr(k int, name string, err error) error {
	return &commError{k: k, name: name, err: err}
}

type commError struct {
	k    int
	name string
	err  error
}

func (e *commError) Error() string { return "communicator " + e.name + ": " + e.err.Error() }
func (e *commError) Unwrap() error { return e.err }

// evalChannels runs a node's channels for cycle t: the injection port goes
// to the channel in the middle of a packet, else to the first channel
// with a flit to send after the one that sent the last head (round
// robin); each channel's unit then runs with its view of the ports. A
// flit for a channel the node does not have is popped and raises NORANK.
func (s *System) evalChannels(node int, t int64, w int) int {
	ranks := s.nodeRanks[node]
	st := &s.chans[node]
	grant := int8(-1)
	for i := range ranks {
		if ranks[i] < 0 {
			continue
		}
		if p, mid := s.Units.SendPending(int(ranks[i]), t); p && mid {
			grant = int8(i)
		}
	}
	if grant < 0 {
		K := len(ranks)
		for k := 1; k <= K; k++ {
			i := (int(st.rr) + k + K) % K
			if ranks[i] >= 0 {
				if p, _ := s.Units.SendPending(int(ranks[i]), t); p {
					grant = int8(i)
					break
				}
			}
		}
	}
	p := &s.ports[w]
	p.s = s
	wake := 0
	for i, v := range ranks {
		if v < 0 {
			continue
		}
		p.ch, p.granted = int8(i), grant == int8(i)
		wake = max(wake, min(s.Units.Eval(int(v), t, p, w), 1))
	}
	if st.popped != t {
		if f, ok := s.Net.RxFront(node, t); ok {
			if c := s.flitChannel(st, &f); int(c) >= len(ranks) || ranks[c] < 0 {
				s.Net.RxPop(node, t)
				st.popped = t
				s.Units.RaiseAt(node, t, f, barrierunit.ErrNoRank, w)
				wake = 1
			}
		}
	}
	if s.Net.RxPending(node, t+1) {
		wake = 1
	}
	return wake
}

// startLoops starts the run's loops: one per communicator in a run of
// communicators (a single barrier is a loop of one iteration), else the
// run's loop when it has one.
func (s *System) startLoops() {
	s.loop, s.loops = nil, nil
	u := s.Units
	if s.comms != nil {
		for k := range s.comms {
			c := &s.comms[k]
			lp := newLoop(c.Sys.IterationCount(), c.Sys.Compute, u.Arrive[c.base:c.base+len(c.Ranks)])
			lp.sys, lp.base, lp.op = &c.Sys, c.base, c.op
			s.loops = append(s.loops, lp)
		}
		return
	}
	if s.Sys.Looping() {
		s.loop = newLoop(s.Sys.IterationCount(), s.Sys.Compute, u.Arrive)
		s.loop.sys, s.loop.op = &s.Sys, s.Op
		s.loops = []*loopRun{s.loop}
	}
}

// commsLastArrival is the headline last arrival of a run of
// communicators: the latest of their last iterations' last arrivals
// (Never while some communicator's has not arrived), so the headline
// latency is that arrival -> the run's last release, as for world's loop.
func (s *System) commsLastArrival(end int64) int64 {
	last := int64(-1)
	for _, lp := range s.loops {
		a := lp.lastArrival(end)
		if a == Never {
			return Never
		}
		last = max(last, a)
	}
	return last
}

// commResults describes every communicator of the run: its ranks and
// channels and its iterations, each complete when every rank of it was
// released from it.
func (s *System) commResults(res *Result) []CommunicatorResult {
	u := s.Units
	out := make([]CommunicatorResult, len(s.comms))
	for k := range s.comms {
		c, lp := &s.comms[k], s.loops[k]
		cr := CommunicatorResult{Name: c.Name, Ranks: len(c.Ranks), RankList: c.Ranks, Channels: c.Channel, Iterations: []IterationResult{}}
		if !slices.ContainsFunc(c.Channel, func(ch int) bool { return ch != c.Channel[0] }) {
			ch := c.Channel[0]
			cr.Channel = &ch
		}
		done, last := true, int64(-1)
		for j := range c.Ranks {
			v := c.base + j
			done = done && u.Release[v] >= 0 && u.Iteration(v) == lp.n
			last = max(last, u.Release[v])
		}
		for i := range lp.begun(res.Cycles) {
			it := &lp.iters[i]
			ir := IterationResult{Iteration: i + 1, FirstArrival: it.first}
			final := i == lp.n-1
			if it.released == lp.ranks && !final {
				ir.LastRelease, ir.Latency = ptr(it.lastRelease), ptr(it.lastRelease-it.lastArrival)
			} else if final && done {
				ir.LastRelease, ir.Latency = ptr(last), ptr(last-it.lastArrival)
			}
			cr.Iterations = append(cr.Iterations, ir)
		}
		cr.averages(done)
		out[k] = cr
	}
	return out
}

// commNode fills what a run of communicators says of its rank v.
func (s *System) commNode(n *NodeResult, v int) {
	c := &s.comms[s.commOf[v]]
	j := v - c.base
	sr, ch := c.Ranks[j], c.Channel[j]
	n.Communicator, n.CommRank, n.SystemRank, n.Channel = c.Name, &j, &sr, &ch
}

// HasPayload reports whether some rank of the run carries a value (an op
// other than barrier, in the run or in one of its communicators).
func (s *System) HasPayload() bool {
	if s.comms == nil {
		return s.Op.HasPayload()
	}
	for k := range s.comms {
		if s.comms[k].op.HasPayload() {
			return true
		}
	}
	return false
}

// headSrc is the rank of the run a head's src_rank names: itself without
// communicators; in a run of them, src_rank is the sender's rank within
// the communicator of the destination's channel (the head's channel
// field), so its base plus src_rank (ok false: the head names no channel
// of a node).
func (s *System) headSrc(fl hw.Flit) (int, bool) {
	if s.comms == nil {
		return int(fl.Src), true
	}
	if fl.Dst < 0 || int(fl.Dst) >= len(s.nodeRanks) {
		return 0, false
	}
	ch, rs := int(fl.Data>>1&s.chanMask), s.nodeRanks[fl.Dst]
	if ch >= len(rs) || rs[ch] < 0 {
		return 0, false
	}
	return s.comms[s.commOf[rs[ch]]].base + int(fl.Src), true
}

// EventRank is, in a run of communicators (a rank per channel of a node),
// the rank a unit's event is about: its own rank for arrive, gate and
// release; for send and recv the node's rank in the communicator of the
// other end (a communicator has one rank a node); -1 for an error (the
// node's, whichever channel raised it) or a source that is no rank of the
// run (a garbled head without a check code).
func (s *System) EventRank(e barrierunit.Event) int32 {
	switch e.Kind {
	case barrierunit.EvArrive, barrierunit.EvGate, barrierunit.EvRelease:
		return e.Rank
	case barrierunit.EvSend, barrierunit.EvRecv:
		if e.Rank < 0 || int(e.Rank) >= len(s.commOf) || int(e.Node) >= len(s.nodeRanks) {
			return -1
		}
		k := s.commOf[e.Rank]
		for _, v := range s.nodeRanks[e.Node] {
			if v >= 0 && s.commOf[v] == k {
				return v
			}
		}
	}
	return -1
}

// Comms is the run's communicators (nil without a communicators list).
func (s *System) Comms() []hw.Comm {
	var out []hw.Comm
	for k := range s.comms {
		out = append(out, s.comms[k].Comm)
	}
	return out
}

// RankComm is the communicator (index into Comms) and the rank within it of
// run rank v; ok is false in a run without communicators.
func (s *System) RankComm(v int) (k, j int, ok bool) {
	if s.comms == nil {
		return 0, v, false
	}
	k = int(s.commOf[v])
	return k, v - s.comms[k].base, true
}
