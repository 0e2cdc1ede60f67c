package sim

import (
	"bufio"
	"cmp"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/hxbar/hxbar/barrierunit"
	"github.com/hxbar/hxbar/collective"
	"github.com/hxbar/hxbar/design"
	"github.com/hxbar/hxbar/hw"
	"github.com/hxbar/hxbar/noc"
)

// MaxModelNodes bounds the systems the cycle model accepts: a million nodes
// take about 3 GiB, so 2^21 nodes stay well inside a 24 GiB machine.
const MaxModelNodes = 1 << 21

func checkModelSize(sys *hw.System) error {
	if n := sys.Nodes(); n > MaxModelNodes {
		return &hw.FieldError{Field: "dims", Value: fmt.Sprintf("%v = %d nodes", sys.Dims, n),
			Allowed: fmt.Sprintf("at most %d nodes for the cycle model (about 3 GiB per million nodes)", MaxModelNodes)}
	}
	return nil
}

// System is an assembled barrier system, ready to run once.
//
// It embeds the design it runs (Sys, Fabric, Topo, the placement, every
// episode's tables: design.Design, read only); the network and the units
// are its state.
type System struct {
	*design.Design
	Net   *noc.Network
	Sched *barrierunit.Schedule
	Table *barrierunit.FlatTable
	Units *barrierunit.Units
	Op    barrierunit.Op
	// Data is the data schedule of a collective (nil for a barrier);
	// DataTable what the units read of it.
	Data      *collective.Schedule
	DataTable *barrierunit.DataTable

	// Cur is the episode running (after Run, the last one run); Table,
	// Sched, Op, Data and DataTable are its tables.
	Cur *Episode

	switches   int // switch count: element ids of the endpoints follow
	rankOfNode []int32
	rankIsNode bool // rankOfNode[n] == n for every node (rankAt)
	eng        *engine
	events     []barrierunit.Event
	wevents    [hw.MaxWorkers][]barrierunit.Event // per worker, merged after each cycle
	later      []barrierunit.Event                // events of the next cycle, emitted ahead (see Run)
	exhaustive bool                               // evaluate every element every cycle (the reference for tests)
	epResults  []EpisodeResult                    // the episodes of the run so far
	epArrival  []int64                            // each episode's last arrival cycle (Never: a rank never arrives)
	releases   [][]int64                          // every rank's release cycle in each finished episode but the last
	// (the routing around the avoided channels is the design's Avoid)
	wd    *watchdog  // the units' watchdog (nil: off)
	loop  *loopRun   // the run's iteration loop (nil: none, loop.go)
	loops []*loopRun // every loop: the run's, or one per communicator (channels.go)
	// A run of communicators (channels.go): nil without a list.
	comms      []commRun
	commOf     []int32   // rank -> its communicator
	virtOf     [][]int32 // system rank -> its ranks, one per communicator
	nodeRanks  [][]int32 // node -> rank on each channel (-1: none)
	chans      []chanState
	chanCount  int
	chanMask   uint64
	ports      [hw.MaxWorkers]chanPort
	stuckRanks []int    // ranks a stuck fault keeps from arriving
	linkSpecs  []string // the spec of each armed link fault, in the network's order
}

// Build assembles a validated system: its design (design.New, which
// validates sys and compiles every episode's tables) and the network and
// units that run it. sched may be nil to generate the schedule named by
// sys.Algo; a user schedule must be for sys's rank count. A data
// collective (sys.Collective allgather or broadcast) runs the data schedule
// design.DataSchedule generates; sched must then be nil (see BuildData).
func Build(sys hw.System, sched *barrierunit.Schedule) (*System, error) {
	if sched != nil && sys.HasCommunicators() { // it would run each communicator's own schedule, ignoring sched
		return nil, &hw.FieldError{Field: "communicators", Value: fmt.Sprintf("%d entries", len(sys.Communicators)),
			Allowed: "[] with a gate schedule of one's own (--schedule): each communicator runs the one its algo generates for its size"}
	}
	return build(sys, sched, nil)
}

// BuildWith assembles a system with a user's schedule: a data schedule cs
// (BuildData) or else a gate schedule sched (Build); both nil: the schedule
// sys names.
func BuildWith(sys hw.System, sched *barrierunit.Schedule, cs *collective.Schedule) (*System, error) {
	if cs != nil {
		return BuildData(sys, cs)
	}
	return Build(sys, sched)
}

// BuildData assembles a system running the data schedule cs (nil: the one
// design.DataSchedule generates for sys). sys.Collective must name a data
// collective, and what sys says of the items (items, item_placement, order;
// broadcast: one item) must agree with cs; cs is verified before it runs.
func BuildData(sys hw.System, cs *collective.Schedule) (*System, error) {
	if !sys.IsData() {
		return nil, &hw.FieldError{Field: "collective", Value: fmt.Sprintf("%q", sys.Collective), Allowed: "allgather or broadcast with a data schedule"}
	}
	if cs != nil {
		if err := agrees(&sys, cs); err != nil {
			return nil, err
		}
	}
	return build(sys, nil, cs)
}

// agrees checks that a user's data schedule is what the system describes.
func agrees(sys *hw.System, cs *collective.Schedule) error {
	from := "the schedule's"
	switch {
	case sys.Collective == hw.CollBroadcast && cs.Items != 1:
		return &hw.FieldError{Field: "collective", Value: `"broadcast"`, Allowed: fmt.Sprintf("allgather for a schedule of %d items (a broadcast moves one)", cs.Items)}
	case sys.Items != 0 && sys.Items != cs.Items:
		return &hw.FieldError{Field: "items", Value: sys.Items, Allowed: fmt.Sprintf("0 or %d, %s item count", cs.Items, from)}
	case len(sys.ItemPlace) > 0 && !slices.Equal(sys.ItemPlace, cs.Placement):
		return &hw.FieldError{Field: "item_placement", Value: fmt.Sprint(sys.ItemPlace), Allowed: fmt.Sprintf("[] or %v, %s placement", cs.Placement, from)}
	case sys.Order != "" && sys.Order != cs.Order:
		return &hw.FieldError{Field: "order", Value: fmt.Sprintf("%q", sys.Order), Allowed: fmt.Sprintf(`"" or %q, %s order`, cs.Order, from)}
	}
	return nil
}

func build(sys hw.System, sched *barrierunit.Schedule, cs *collective.Schedule) (*System, error) {
	// The network's state (most of the memory of a big system) is built
	// while the schedule is generated.
	var net *noc.Network
	var netDone chan error
	d, err := design.NewWith(sys, sched, cs, design.Options{Check: checkModelSize, Fabric: func(fab noc.Fabric) {
		netDone = make(chan error, 1)
		go func() {
			var err error
			net, err = noc.NewFabricNetwork(fab, noc.Config{BufferDepth: sys.BufferDepth, LinkLatency: sys.LinkLatency, HalfDuplex: sys.Duplex == hw.DuplexHalf, Retry: sys.LinkRetry > 0, SwitchPipeline: sys.SwitchPipeline == 1})
			netDone <- err
		}()
	}})
	if netDone != nil {
		// Never leave the goroutine behind on an early return.
		if nerr := <-netDone; err == nil {
			err = nerr
		}
	}
	if err != nil {
		return nil, err
	}
	R := sys.NumRanks()
	fab := d.Fabric
	ep := d.Episode(1)
	s := &System{Design: d, switches: fab.NumSwitches(), Net: net}
	s.setEpisode(ep)
	s.rankOfNode = make([]int32, fab.NumNodes())
	s.rankIsNode = true
	for n := range s.rankOfNode {
		s.rankOfNode[n] = int32(d.RankOf(n))
		s.rankIsNode = s.rankIsNode && s.rankOfNode[n] == int32(n)
	}
	nodeOf := d.Placement()
	arrivals := d.Arrivals(1)
	arrive := make([]int64, R)
	operand := make([]uint64, R)
	for r := 0; r < R; r++ {
		arrive[r] = arrivals[r].Cycle
		if ep.Op.HasPayload() {
			operand[r] = arrivals[r].Operand
		}
	}
	s.Units = barrierunit.NewUnits(ep.Table, ep.Op, sys.FlitWidth, nodeOf, arrive, operand)
	s.Units.SetNodes(fab.NumNodes())
	s.Units.SetIterations(sys.IterationCount())
	s.Units.SetPipeline(sys.UnitPipeline == 1)
	if ep.DataTable != nil {
		if err := s.Units.SetData(ep.DataTable); err != nil {
			return nil, err
		}
	}
	if sys.HasCommunicators() {
		if err := s.buildComms(&sys); err != nil {
			return nil, err
		}
		s.rankIsNode = false
	}
	s.armWatchdog()
	if err := s.armAvoid(); err != nil {
		return nil, err
	}
	if err := s.armFaults(); err != nil {
		return nil, err
	}
	// The engine's wheel covers the furthest wake-up: a flit's arrival
	// L cycles after it is sent, or with link-level retry a resent flit's,
	// 2L more per flip or drop on its channel (noc.Network.RetryHorizon).
	horizon := sys.LinkLatency
	if sys.LinkRetry > 0 {
		horizon = noc.RetryLatency(horizon)
	}
	if h := net.RetryHorizon(); h > int64(horizon) {
		if h > maxWheel-2 {
			return nil, fmt.Errorf("invalid faults: with link_retry, the flips and drops on one channel may delay a flit by %d cycles, past the model's %d-cycle horizon (fewer faults per channel, or a lower link_latency)", h, maxWheel-2)
		}
		horizon = int(h)
	}
	s.eng = newFabricEngine(fab, sys.Duplex == hw.DuplexHalf, horizon, net.Elements(), s.eval)
	if net.Elements() >= prefetchElements && s.comms == nil {
		s.eng.prefetch = s.prefetch
	}
	net.Wake = s.eng.wake
	return s, nil
}

// prefetch is the engine's prefetch hook: the stages of element e's
// lines (noc.Network.PrefetchSwitch, PrefetchEndpoint, Units.Prefetch).
func (s *System) prefetch(e int32, stage int, t int64) {
	if int(e) < s.switches {
		s.Net.PrefetchSwitch(int(e), stage)
		return
	}
	node := int(e) - s.switches
	r := s.rankAt(node)
	if r < 0 {
		return
	}
	dst := s.Units.Prefetch(int(r), stage)
	s.Net.PrefetchEndpoint(node, stage, dst)
}

// rankAt is the rank on node (-1: none). With a rank on every node in
// node order it is the node, without a load: the lookup array is read at
// random by the prefetch's first stage and cost 3 % of a million-rank run.
func (s *System) rankAt(node int) int32 {
	if s.rankIsNode {
		return int32(node)
	}
	return s.rankOfNode[node]
}

func (s *System) eval(e int32, t int64, w int) int {
	if int(e) < s.switches {
		return b2i(s.Net.EvalSwitch(int(e), t, w))
	}
	if s.nodeRanks != nil {
		if len(s.nodeRanks[int(e)-s.switches]) > 0 {
			return s.evalChannels(int(e)-s.switches, t, w)
		}
		return b2i(s.Units.EvalNoRank(int(e)-s.switches, t, s.Net, w))
	}
	r := s.rankAt(int(e) - s.switches)
	if r < 0 {
		// A node without a rank: it runs only when a flit reaches it,
		// which it pops (NORANK, docs/microarchitecture.md "Error paths").
		return b2i(s.Units.EvalNoRank(int(e)-s.switches, t, s.Net, w))
	}
	return s.Units.Eval(int(r), t, s.Net, w)
}

// Why a run stopped (Result.Stop).
const (
	// StopComplete: every rank was released (a unit error makes the run
	// incomplete and stops it otherwise).
	StopComplete = "complete"
	// StopMaxCycles: the run reached max_cycles with some rank not released.
	StopMaxCycles = "max_cycles"
	// StopNoProgress: some rank is not released (or a unit is in error)
	// and nothing can change any more: no flit is in flight or can move,
	// and no arrival or watchdog deadline is ahead (every unit is
	// released, in error, waiting for good or never arrives). Cycles is
	// the cycle after the last change.
	StopNoProgress = "no_progress"
)

// Result is the outcome of a run; its JSON is the contract of `hxbar sim`.
//
// Cycles is, for a complete run, the last release cycle + 1 (so at most
// max_cycles); for an incomplete run, max_cycles: cycles 0..max_cycles-1
// were simulated (or skipped as idle) and some rank was still not released,
// or, when nothing was able to change any more (a unit's error, a rank
// that never arrives, a schedule that deadlocks), the cycle after the last
// change. Complete says which, and Stop why the run stopped; Released
// counts the ranks released (all of them when Complete). An incomplete run
// has no latency: Waiting and Errors say why.
type Result struct {
	Cycles   int64 `json:"cycles"`
	Ranks    int   `json:"ranks"`
	Complete bool  `json:"complete"`
	// Stop is why the run stopped: StopComplete, StopMaxCycles or
	// StopNoProgress.
	Stop     string `json:"stop"`
	Released int    `json:"released"`
	// The headline metrics (metrics.go; nil where they do not apply):
	// read them with LastArrival, Latency and ReleaseSpread.
	LastArrivalCycle    *int64       `json:"last_arrival"`
	LatencyCycles       *int64       `json:"latency"`
	ReleaseSpreadCycles *int64       `json:"release_spread"`
	Nodes               []NodeResult `json:"nodes"`
	Network             NetStats     `json:"network"`
	// Waiting explains, when the run stopped incomplete without a unit
	// error, which ranks wait at which gate and for whom.
	Waiting []string `json:"waiting,omitempty"`
	// Data and Steps describe a data collective: what it ran, and the
	// cycle each step was done (the last rank passed the step's gate).
	Data  *DataResult `json:"data,omitempty"`
	Steps []StepDone  `json:"steps,omitempty"`
	// Episodes lists the run's episodes (docs/microarchitecture.md,
	// "Episodes"); a run stopped by max_cycles lists those it started.
	// Nodes, Data and Steps describe the last one listed.
	Episodes []EpisodeResult `json:"episodes"`
	// Communicators lists the run's communicators with their iterations
	// (loop.go); a run without communicators has one, world.
	Communicators []CommunicatorResult `json:"communicators"`
	// Faults lists the injected faults and what each hit (none: omitted).
	Faults []FaultResult `json:"faults,omitempty"`
	// Dropped lists the switches that met illegal flits (docs/
	// microarchitecture.md, "Illegal flits"), by switch number; none:
	// omitted.
	Dropped []SwitchDrops `json:"dropped,omitempty"`
	// Errors are the units' errors (docs/microarchitecture.md, "Error
	// paths"), by cycle then node; a run with one is not complete.
	Errors []ErrorResult `json:"errors,omitempty"`
}

// ErrorResult is one unit's error: the cycle it was raised, the node and
// the rank it hosts (-1: none, null in the JSON), the code's name (BADGATE, NORANK, SHORT,
// FLITS, OVER), the gate and the source rank it concerns.
type ErrorResult struct {
	Cycle int64  `json:"cycle"`
	Node  int    `json:"node"`
	Rank  int    `json:"rank"`
	Code  string `json:"code"`
	Gate  int    `json:"gate"` // 0: the error concerns no gate (JSON null)
	From  int    `json:"from"` // the packet's source; JSON null with Gate 0 or NoFrom
	// NoFrom: the error names a gate but no packet (OVER found by the
	// gate check), so From is not a rank.
	NoFrom bool `json:"-"`
}

// Where names the gate and the source the error concerns as its message
// does (barrierunit.UnitError.Where): "" for no gate, no source with NoFrom.
func (e ErrorResult) Where() string {
	return barrierunit.UnitError{Gate: uint8(e.Gate), From: int32(e.From), NoFrom: e.NoFrom}.Where()
}

// UnitError reports a run in which a unit raised an error
// (docs/microarchitecture.md, "Error paths"); its message names the first,
// without an "error: " prefix: a caller that wraps it, or a command that
// prints it, adds its own.
type UnitError struct {
	Errors []barrierunit.UnitError
	// Context explains the first error in a run with faults: the faults
	// that hit, and for TIMEOUT the missing ranks (docs/reliability.md).
	Context string
}

func (e *UnitError) Error() string {
	msg := e.Errors[0].String()
	if n := len(e.Errors); n > 1 {
		msg += fmt.Sprintf(" (and %d more errors)", n-1)
	}
	if e.Context != "" {
		msg += "; " + e.Context
	}
	return msg
}

// NodeResult is one rank's arrival and release. Arrive is Never for a rank
// that never arrives (a stuck fault), Release -1 and Result "" while it is
// not released; the JSON holds null for all three (metrics.go).
type NodeResult struct {
	Rank    int    `json:"rank"`
	Node    int    `json:"node"`
	Arrive  int64  `json:"arrive"`
	Operand string `json:"operand"`
	Release int64  `json:"release"`
	Result  string `json:"result"`
	// Releases is the release cycle in every episode of Result.Episodes
	// (-1: not released); Release is the last entry.
	Releases []int64 `json:"releases"`
	// In a run of communicators Rank is the run's rank, a channel of a
	// unit: communicator k's rank j is the sizes of the communicators
	// before k, plus j (as in the trace). Communicator, CommRank,
	// SystemRank and Channel say whose it is.
	Communicator string `json:"communicator,omitempty"`
	CommRank     *int   `json:"comm_rank,omitempty"`
	SystemRank   *int   `json:"system_rank,omitempty"`
	Channel      *int   `json:"channel,omitempty"`
}

// NetStats are the network statistics of a barrier run.
type NetStats struct {
	Packets  uint64 `json:"packets"`
	Flits    uint64 `json:"flits"`
	FlitHops uint64 `json:"flit_hops"`
	// Channels is the number of network channels (two per exchanger port
	// toward a crossbar); MeanLoad their mean utilisation over the run.
	Channels int     `json:"channels"`
	MeanLoad float64 `json:"mean_channel_load"`
	// Busiest is the name of the channel that carried the most flits
	// (noc.ChannelName), e.g. "n5.d1.up" (exchanger 5's dimension-1 port
	// toward its crossbar), as --fault and --avoid take it;
	// BusiestLoad is its utilisation (flits per cycle). Busiest is ""
	// when no flit crossed a channel (both null in the JSON).
	Busiest     string  `json:"busiest_channel"`
	BusiestLoad float64 `json:"busiest_channel_load"`
}

// StuckError reports a run that did not complete: it hit max_cycles, or
// (At > 0) nothing could change any more from cycle At on (Stop
// no_progress). It names the ranks and gates still waiting and for whom.
type StuckError struct {
	MaxCycles int64
	// At is the cycle from which nothing can happen (Result.Cycles); 0
	// when the run hit max_cycles.
	At      int64
	Waiting []string
}

func (e *StuckError) Error() string {
	const show = 8
	w := e.Waiting
	more := ""
	if len(w) > show {
		more = fmt.Sprintf("; and %d more", len(w)-show)
		w = w[:show]
	}
	if e.At > 0 {
		return fmt.Sprintf("stuck: nothing can happen after cycle %d: %s%s", e.At-1, strings.Join(w, "; "), more)
	}
	return fmt.Sprintf("not complete after max_cycles %d: %s%s", e.MaxCycles, strings.Join(w, "; "), more)
}

// Options controls the outputs of a run.
type Options struct {
	Trace io.Writer // event trace, one line per event (nil: none)
	VCD   io.Writer // waveform (nil: none)
	// Progress, when set, is called about once a second with the current
	// cycle and the number of ranks released so far.
	Progress func(cycle int64, released, ranks int)
	// Events, when set, is called after every cycle that has events, with
	// that cycle's events in trace order (the slice is reused: copy what
	// is kept).
	Events func(evs []barrierunit.Event)
	// Load, when set, is filled with the flits each network channel
	// carried per time bucket (ChannelLoad); nil costs nothing.
	Load *ChannelLoad
}

// Run simulates the system until every rank is released, nothing can
// change any more, or max_cycles. A run in which a unit raises an error
// (docs/microarchitecture.md, "Error paths") returns a *UnitError; one
// that hits max_cycles, or in which ranks wait for good without an error
// (Stop no_progress), a *StuckError.
func (s *System) Run(opt Options) (*Result, error) {
	var tw *bufio.Writer
	var vcd *vcdWriter
	if opt.Trace != nil {
		tw = bufio.NewWriterSize(opt.Trace, 1<<16)
	}
	if opt.VCD != nil {
		vcd = newVCD(opt.VCD, s)
	}
	var load *loadRec
	if opt.Load != nil {
		load = newLoadRec(s, opt.Load)
	}
	if tw != nil || vcd != nil || opt.Events != nil {
		s.Units.Emit = func(w int, e barrierunit.Event) { s.wevents[w] = append(s.wevents[w], e) }
	}
	u := s.Units
	R := s.Table.Ranks
	order := make([]int32, R)
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortStableFunc(order, func(a, b int32) int {
		return int(u.Arrive[a] - u.Arrive[b])
	})
	next := 0
	first := int64(0) // the first arrival (Never: every rank is stuck)
	if R > 0 {
		first = u.Arrive[order[0]]
	}
	t := first
	if t == Never {
		t = 0 // nothing ever arrives: the run starts at 0 and stops stuck there
	}
	defer s.eng.close()
	// A unit may take a gate step a cycle ahead (Units.Eval), never past
	// the last cycle run; its event waits in later.
	u.PreStepBefore, s.later = s.Sys.MaxCycles, s.later[:0]
	var line []byte
	fz := settle{at: -1}
	lastReport := time.Now()
	// Episodes (docs/microarchitecture.md, "Episodes"): when every rank of
	// episode k is released, episode k+1 starts on the same network.
	k, E := 1, s.NumEpisodes()
	var cfg configState
	s.epResults = append(s.epResults[:0], EpisodeResult{Episode: 1, Collective: string(s.Cur.Sys.Collective), FirstArrival: first, LastRelease: -1})
	s.epArrival = append(s.epArrival[:0], maxArrival(u.Arrive))
	s.releases = s.releases[:0]
	s.startLoops()
	for {
		if opt.Progress != nil && t&63 == 0 && time.Since(lastReport) > time.Second {
			opt.Progress(t, u.Released, R)
			lastReport = time.Now()
		}
		if t >= s.Sys.MaxCycles {
			// A run that stops incomplete still writes whole outputs: the
			// caller commits them (the stuck run is what a user debugs).
			if tw != nil {
				tw.Flush()
			}
			if vcd != nil {
				vcd.finish(t)
			}
			if len(u.Errors) > 0 {
				return s.result(t), s.unitError()
			}
			res, err := s.result(t), s.stuck()
			if load != nil {
				load.finish(s, res.Cycles)
			}
			res.Waiting = err.Waiting
			return res, err
		}
		for next < R && u.Arrive[order[next]] == t {
			s.eng.wake(0, int32(s.switches+u.Node(int(order[next]))), t)
			s.wd.arrived(t)
			next++
		}
		if s.loops != nil {
			s.loopArrivals(t)
		}
		if s.exhaustive {
			for e := 0; e < s.Net.Elements(); e++ {
				s.eng.wake(0, int32(e), t)
			}
		}
		if load != nil {
			load.before(s, t)
		}
		s.Net.Rebase(t)
		s.eng.step(t)
		s.checkWatchdog(t)
		u.Collect()
		if len(u.Looped) > 0 {
			s.loopReleased(t)
		}
		// A unit that took its next cycle's gate step ahead (Units.Eval)
		// emitted that step's event in this one: it waits in later for
		// its cycle, which is run (the unit is woken after it).
		n := 0
		for _, e := range s.later {
			if e.Cycle <= t {
				s.events = append(s.events, e)
			} else {
				s.later[n] = e
				n++
			}
		}
		s.later = s.later[:n]
		for w := range s.wevents {
			for _, e := range s.wevents[w] {
				if e.Cycle > t {
					s.later = append(s.later, e)
				} else {
					s.events = append(s.events, e)
				}
			}
			s.wevents[w] = s.wevents[w][:0]
		}
		if len(s.events) > 0 {
			sortEvents(s.events)
			if tw != nil {
				for _, e := range s.events {
					line = AppendEvent(line[:0], e)
					tw.Write(line)
				}
			}
			if vcd != nil {
				vcd.cycle(t, s.events)
			}
			if opt.Events != nil {
				opt.Events(s.events)
			}
			s.events = s.events[:0]
		}
		if u.Released == R && len(u.Errors) == 0 {
			s.epResults[k-1].LastRelease = t
			if k == E {
				break
			}
			if s.Data != nil {
				if err := s.dataError(); err != nil {
					return s.result(t), fmt.Errorf("episode %d: %w", k, err)
				}
			}
			s.releases = append(s.releases, slices.Clone(u.Release))
			k++
			er, err := s.startEpisode(k, t, &cfg)
			if err != nil {
				return s.result(t), err
			}
			s.epResults = append(s.epResults, er)
			s.epArrival = append(s.epArrival, maxArrival(u.Arrive))
			slices.SortStableFunc(order, func(a, b int32) int {
				return cmp.Compare(u.Arrive[a], u.Arrive[b])
			})
			next = 0
		}
		// A rank a stuck fault holds back (Never) is no arrival to wait for.
		na := s.nextLoopArrival()
		if next < R {
			na = min(na, u.Arrive[order[next]])
		}
		arrivals := na != Never
		if s.exhaustive {
			t++
		} else if s.eng.pending() && len(s.Units.Errors) > 0 && s.frozen(t, !arrivals, &fz) {
			// In error, switches still polling, but nothing has changed
			// since cycle t-1 and nothing is in flight: from cycle t on
			// nothing can change (settle).
			return s.stopInError(t, tw, vcd)
		} else if s.eng.pending() {
			t++
		} else if arrivals {
			t = s.wd.due(na)
		} else if d := s.wd.due(math.MaxInt64); len(u.Errors) > 0 && d != math.MaxInt64 {
			// A unit is in ERROR, but the watchdog of another, still
			// waiting, has a deadline: its TIMEOUT is an event too (the
			// RTL's units each have their own counter).
			t = d
		} else if len(u.Errors) > 0 {
			// A unit is in ERROR and nothing can change any more (nothing
			// in flight, no arrival or watchdog deadline ahead): the run
			// stops here (cycles = t + 1), incomplete.
			return s.stopInError(t+1, tw, vcd)
		} else if u.Released < R {
			// Nothing can ever change again but a watchdog: the schedule
			// is stuck. Without a deadline ahead the run ends here
			// (cycles = t + 1), as a run in error does.
			if d := s.wd.due(math.MaxInt64); d != math.MaxInt64 || len(s.later) > 0 {
				t = min(d, s.Sys.MaxCycles)
			} else {
				return s.stopStuck(t+1, tw, vcd, load)
			}
		}
	}
	res := s.result(t)
	if load != nil {
		load.finish(s, res.Cycles)
	}
	if vcd != nil {
		if err := vcd.finish(res.Cycles); err != nil {
			return res, fmt.Errorf("vcd: %w", err)
		}
	}
	if tw != nil {
		if err := tw.Flush(); err != nil {
			return res, fmt.Errorf("trace: %w", err)
		}
	}
	if s.Data != nil {
		if err := s.dataError(); err != nil {
			if E > 1 {
				err = fmt.Errorf("episode %d: %w", k, err)
			}
			return res, err
		}
	}
	return res, nil
}

// stopStuck ends a run without errors whose cycles 0..c-1 hold every
// change: some rank waits for good (a rank that never arrives, a schedule
// that deadlocks) and no watchdog can fire.
func (s *System) stopStuck(c int64, tw *bufio.Writer, vcd *vcdWriter, load *loadRec) (*Result, error) {
	if tw != nil {
		tw.Flush()
	}
	if vcd != nil {
		vcd.finish(c)
	}
	res, err := s.result(c), s.stuck()
	if load != nil {
		load.finish(s, res.Cycles)
	}
	res.Stop = StopNoProgress
	err.At = c
	res.Waiting = err.Waiting
	s.explainFaults(res) // again: the effects say where the run stopped
	return res, err
}

// stopInError ends a run in error whose cycles 0..c-1 hold every change.
func (s *System) stopInError(c int64, tw *bufio.Writer, vcd *vcdWriter) (*Result, error) {
	if tw != nil {
		tw.Flush()
	}
	if vcd != nil {
		vcd.finish(c)
	}
	res := s.result(c)
	res.Stop = StopNoProgress
	return res, s.unitError()
}

func (s *System) result(t int64) *Result {
	u := s.Units
	res := &Result{Ranks: s.Table.Ranks, Nodes: make([]NodeResult, s.Table.Ranks)}
	var last int64 = -1
	for r := range res.Nodes {
		res.Nodes[r] = NodeResult{Rank: r, Node: int(u.NodeOf[r]), Arrive: u.Arrive[r],
			Release: u.Release[r]}
		if s.comms != nil {
			s.commNode(&res.Nodes[r], r)
		}
		if s.Op.HasPayload() || s.comms != nil && s.comms[s.commOf[r]].op.HasPayload() { // a barrier or data collective carries no value
			res.Nodes[r].Operand = strconv.FormatUint(u.Operand[r], 10)
			res.Nodes[r].Result = strconv.FormatUint(u.Result[r], 10)
		}
		if u.Release[r] < 0 {
			res.Nodes[r].Result = "" // no result yet: not a made-up 0
		}
		last = max(last, u.Release[r])
	}
	res.Cycles = last + 1
	res.Released = u.Released
	res.Episodes = slices.Clone(s.epResults)
	// Per-episode release cycles, one backing array for every rank.
	ne := len(s.releases) + 1
	flat := make([]int64, ne*len(res.Nodes))
	for r := range res.Nodes {
		rel := flat[r*ne : (r+1)*ne : (r+1)*ne]
		for e, er := range s.releases {
			rel[e] = er[r]
		}
		rel[ne-1] = u.Release[r]
		res.Nodes[r].Releases = rel
	}
	res.Complete = u.Released == s.Table.Ranks && len(u.Errors) == 0
	res.Stop = StopComplete
	if !res.Complete {
		res.Stop = StopMaxCycles // stopInError says otherwise
	}
	for _, e := range u.Errors {
		res.Errors = append(res.Errors, ErrorResult{Cycle: e.Cycle, Node: int(e.Node), Rank: int(e.Rank),
			Code: barrierunit.ErrName(e.Code), Gate: int(e.Gate), From: int(e.From), NoFrom: e.NoFrom})
	}
	if !res.Complete {
		// Stopped at max_cycles: the loop may have skipped idle cycles up to
		// an arrival past it, but the run covers cycles 0..max_cycles-1.
		res.Cycles = min(t, s.Sys.MaxCycles)
	}
	res.Network = NetStats{Packets: u.Packets, Flits: u.Flits, FlitHops: s.Net.FlitHops(), Channels: s.channels()}
	if res.Cycles > 0 && res.Network.Channels > 0 {
		res.Network.MeanLoad = float64(res.Network.FlitHops) / float64(res.Cycles) / float64(res.Network.Channels)
		var flits uint32
		if s.Topo != nil {
			node, dim, up, f := s.Net.BusiestChannel()
			dir := "down"
			if up {
				dir = "up"
			}
			res.Network.Busiest, flits = fmt.Sprintf("n%d.d%d.%s", node, dim, dir), f
		} else if sw, port, f := s.Net.BusiestOutput(); sw >= 0 {
			res.Network.Busiest, flits = noc.ChannelName(s.Fabric, sw, port), f
		}
		res.Network.BusiestLoad = float64(flits) / float64(res.Cycles)
		if flits == 0 {
			res.Network.Busiest = "" // no flit crossed a channel: none is busiest
		}
	}
	if s.Data != nil {
		s.dataResult(res)
	}
	if s.loop != nil {
		s.epArrival[0] = s.loop.lastArrival(res.Cycles) // the headline is the latest iteration's
	} else if s.comms != nil {
		s.epArrival[0] = s.commsLastArrival(res.Cycles)
	}
	setMetrics(res, s.epArrival)
	res.Communicators = s.communicators(res)
	if len(s.Sys.Faults) > 0 {
		res.Faults = s.faultResults()
		res.Dropped = s.dropResults()
		s.explainFaults(res)
	}
	return res
}

// channels is the number of physical network channels (switch to switch,
// one per direction of a link; a torus link's two virtual channels share
// one), so flit_hops / cycles / channels is their mean utilisation.
func (s *System) channels() int {
	if t := s.Topo; t != nil {
		return 2 * t.Nodes * len(t.Dims)
	}
	c := 0
	// A bit per wire: a map here took 2 s of a million-rank torus run.
	seen := make([]uint64, (s.Fabric.Wires(false)+63)/64)
	for sw := 0; sw < s.switches; sw++ {
		for p := 0; p < s.Fabric.Ports(sw); p++ {
			if !s.Fabric.IsChannel(sw, p) {
				continue
			}
			if w := s.Fabric.Wire(sw, p, false); w < 0 {
				c++
			} else if seen[w/64]&(1<<(w%64)) == 0 {
				seen[w/64] |= 1 << (w % 64)
				c++
			}
		}
	}
	return c
}

// unitError is the error of a run in which a unit raised an error.
func (s *System) unitError() *UnitError {
	ue := &UnitError{Errors: slices.Clone(s.Units.Errors)}
	if len(ue.Errors) > 0 {
		ue.Context = s.faultContext(ue.Errors[0])
	}
	return ue
}

// stuck explains which ranks wait at which gate, and for whom.
func (s *System) stuck() *StuckError {
	u := s.Units
	tab := s.Table
	into := map[[2]int][]int{} // (rank, gate) -> source ranks of remote routes
	st := tab.Stride()
	for src := 0; src < tab.Ranks; src++ {
		for g := 1; g <= tab.Gates; g++ {
			for i := tab.OutStart[src*st+g]; i < tab.OutEnd[src*st+g]; i++ {
				k := [2]int{int(tab.OutDst[i]), g + 1}
				into[k] = append(into[k], src)
			}
		}
	}
	var w []string
	for r := 0; r < tab.Ranks; r++ {
		if u.Release[r] >= 0 {
			continue
		}
		c := u.Gate(r)
		switch {
		case c == 0 && u.Arrive[r] == Never:
			w = append(w, fmt.Sprintf("rank %d has not arrived (fault stuck:%d: it never arrives)", r, r))
		case c == 0:
			w = append(w, fmt.Sprintf("rank %d has not arrived (arrives at cycle %d)", r, u.Arrive[r]))
		case !u.SendDone(r):
			to, flit := u.Sending(r)
			w = append(w, fmt.Sprintf("rank %d gate %d is still sending to rank %d (next flit %d of its packet)", r, c, to, flit))
		default:
			g := c + 1
			// Name every source of the gate: those that have not sent yet
			// with the gate they are at, those that have with "sent".
			var notYet, sent []string
			for _, src := range into[[2]int{r, g}] {
				if u.Gate(src) < g-1 || !u.SendDone(src) && u.Gate(src) == g-1 {
					notYet = append(notYet, fmt.Sprintf("rank %d (at gate %d)", src, u.Gate(src)))
				} else {
					sent = append(sent, fmt.Sprintf("rank %d", src))
				}
			}
			need := int(tab.Need[r*tab.Stride()+g])
			msg := fmt.Sprintf("rank %d gate %d has %d of %d routes", r, g, u.Received(r, g), need)
			if len(notYet) > 0 {
				msg += "; waits for " + strings.Join(notYet, ", ")
			}
			if len(sent) > 0 && u.Received(r, g) < need {
				msg += "; in the network or delivered from " + strings.Join(sent, ", ")
			}
			w = append(w, msg)
		}
	}
	return &StuckError{MaxCycles: s.Sys.MaxCycles, Waiting: w}
}

func sortEvents(ev []barrierunit.Event) {
	slices.SortFunc(ev, func(a, b barrierunit.Event) int {
		if a.Node != b.Node {
			return int(a.Node - b.Node)
		}
		return int(a.Kind) - int(b.Kind)
	})
}

// AppendEvent formats one trace line (with its newline), as specified in
// docs/microarchitecture.md and printed by the RTL testbench.
func AppendEvent(b []byte, e barrierunit.Event) []byte {
	b = strconv.AppendInt(b, e.Cycle, 10)
	b = append(b, " n"...)
	b = strconv.AppendInt(b, int64(e.Node), 10)
	switch e.Kind {
	case barrierunit.EvArrive:
		b = append(b, " arrive rank="...)
		b = strconv.AppendInt(b, int64(e.Rank), 10)
		b = appendValue(b, e.Value)
	case barrierunit.EvGate:
		b = append(b, " gate g="...)
		b = strconv.AppendInt(b, int64(e.Gate), 10)
		b = appendValue(b, e.Value)
	case barrierunit.EvRelease:
		b = append(b, " release rank="...)
		b = strconv.AppendInt(b, int64(e.Rank), 10)
		b = appendValue(b, e.Value)
	case barrierunit.EvSend:
		b = append(b, " send to="...)
		b = strconv.AppendInt(b, int64(e.Rank), 10)
		b = append(b, " gate="...)
		b = strconv.AppendInt(b, int64(e.Gate), 10)
	case barrierunit.EvRecv:
		b = append(b, " recv from="...)
		b = strconv.AppendInt(b, int64(e.Rank), 10)
		b = append(b, " gate="...)
		b = strconv.AppendInt(b, int64(e.Gate), 10)
		b = appendValue(b, e.Value)
	case barrierunit.EvError:
		b = append(b, " error code="...)
		b = strconv.AppendUint(b, e.Value, 10)
		// The name too, so a reader needs no table (the RTL's tb.v prints it
		// in step: testbench, errNameCase).
		b = append(b, " name="...)
		b = append(b, barrierunit.ErrName(uint8(e.Value))...)
		b = append(b, " gate="...)
		b = strconv.AppendInt(b, int64(e.Gate), 10)
		b = append(b, " from="...)
		b = strconv.AppendInt(b, int64(e.Rank), 10)
	}
	return append(b, '\n')
}

func appendValue(b []byte, v uint64) []byte {
	const hex = "0123456789abcdef"
	b = append(b, " value="...)
	for i := 60; i >= 0; i -= 4 {
		b = append(b, hex[v>>uint(i)&0xf])
	}
	return b
}
