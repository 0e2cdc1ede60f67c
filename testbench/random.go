package testbench

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/hxbar/hxbar/hw"
	"github.com/hxbar/hxbar/noc"
	"github.com/hxbar/hxbar/sim"
	"github.com/hxbar/hxbar/verilog"
)

// Random co-simulation (docs/testing.md, "Random co-simulation"): whole
// designs drawn from a seed, so that the RTL is checked against the model
// where no hand-written matrix looks. A seed reproduces its design;
// RandomDesign(seed) is the only source of randomness.

// randomStream separates the design generator's PCG stream from every
// other use of a seed in hxbar.
const randomStream = 0x72616e64636f73 // "randcos"

// RandomDesign draws the design of seed: the grid (1-3 dimensions: 2-9
// nodes on a line, 2-5 by 2-5, or 2-3 cubed), ranks and placement, the episode list (1-5
// entries of barriers with every op and algorithm, all-gathers and
// broadcasts, so gate counts change between episodes, repeated up to 3
// times), link latency 1-4, buffer depth 1-5, flit width, check code,
// link retry, a watchdog, avoided channels, the switch pipeline (one
// design in four), the unit pipeline (one hyper-crossbar design in four,
// from a stream of its own), and 0-4 faults of every kind drawn on the fault-free
// run's crossings; one design in four without communicators is a torus
// instead (rings and mesh lines drawn per dimension,
// without the switch pipeline or avoided channels: asTorus). Candidates that the model or
// the Verilog generator refuses are drawn again from the same stream.
func RandomDesign(seed uint64) (hw.System, error) {
	rng := rand.New(rand.NewPCG(seed, randomStream))
	// The torus draws come from their own stream, so that the designs the
	// hyper-crossbar draws keep their seeds.
	trng := rand.New(rand.NewPCG(seed, torusStream))
	// So do the unit pipeline's: a hyper-crossbar design drawn without
	// the key is the design its seed drew before the key existed.
	urng := rand.New(rand.NewPCG(seed, unitPipeStream))
	for try := 0; try < 400; try++ {
		sys := drawSystem(rng, seed)
		torus := trng.IntN(4) == 0 && asTorus(trng, &sys)
		if urng.IntN(4) == 0 && !torus {
			sys.UnitPipeline = 1
		}
		if !buildsForRTL(sys) {
			continue
		}
		if rng.IntN(5) < 2 {
			withFaults, ok := drawFaults(rng, sys)
			if !ok {
				continue
			}
			sys = withFaults
		}
		return sys, nil
	}
	return hw.System{}, fmt.Errorf("random design %d: no design the RTL can build in 400 draws", seed)
}

// fourthFaultStream is the PCG stream of a design's fourth fault.
const fourthFaultStream = 0x34666c74 // "4flt"

// torusStream is the PCG stream of RandomDesign's torus draws.
const torusStream = 0x746f727573 // "torus"

// unitPipeStream is the PCG stream of RandomDesign's unit pipeline draws.
const unitPipeStream = 0x7570697065 // "upipe"

// asTorus makes sys, when the torus RTL builds its run (no
// communicators), a torus with a drawn wrap per dimension, without what
// that RTL does not build yet (the switch pipeline) and without the
// hyper-crossbar's avoided channels (their names are not a torus's): one
// design in four. Data collectives, retry and faults (drawn afterwards on
// the torus's own crossings) stay.
func asTorus(rng *rand.Rand, sys *hw.System) bool {
	if sys.HasCommunicators() {
		return false
	}
	sys.Topology = hw.TopoTorus
	sys.Wrap = make([]bool, len(sys.Dims))
	for k := range sys.Wrap {
		sys.Wrap[k] = rng.IntN(3) > 0
	}
	sys.SwitchPipeline, sys.Avoid = 0, nil
	return true
}

// drawSystem draws a candidate system without faults.
func drawSystem(rng *rand.Rand, seed uint64) hw.System {
	s := hw.Default()
	s.Name = fmt.Sprintf("random-%d", seed)
	// Sizes stay small (2-18 nodes): a design's Icarus run grows with its
	// nodes, and many small designs find more than a few large ones.
	nd := 1 + rng.IntN(3)
	s.Dims = make([]int, nd)
	for k := range s.Dims {
		s.Dims[k] = 2 + rng.IntN([]int{8, 4, 2}[nd-1])
	}
	nodes := s.Nodes()
	s.Ranks, s.Placement = 0, nil
	if rng.IntN(3) == 0 && nodes > 2 {
		s.Ranks = 2 + rng.IntN(nodes-2)
		if rng.IntN(2) == 0 {
			s.Placement = rng.Perm(nodes)[:s.Ranks]
		}
	}
	s.LinkLatency = 1 + rng.IntN(4)
	s.BufferDepth = 1 + rng.IntN(5)
	s.FlitWidth = []int{16, 24, 32, 48, 64, 64, 128}[rng.IntN(7)]
	for s.FlitWidth < s.HeaderBits() {
		s.FlitWidth *= 2
	}
	s.CRCBits = []int{0, hw.PacketCodeBits, hw.PacketCodeBits}[rng.IntN(3)]
	s.Seed, s.Skew = rng.Uint64N(1<<32), rng.IntN(80)
	s.MaxCycles = 200_000
	if rng.IntN(4) == 0 {
		s.Watchdog = int64(300 + rng.IntN(2000))
	}
	if rng.IntN(4) == 0 {
		s.LinkRetry = s.BufferDepth + rng.IntN(5)
	}
	drawEpisodes(rng, &s)
	if rng.IntN(4) == 0 {
		drawCommunicators(rng, &s)
	}
	// A loop's head carries the iteration bit, and with channels the
	// destination's channel above it.
	for s.FlitWidth < s.HeaderBits()+headExtra(s) {
		s.FlitWidth *= 2
	}
	if rng.IntN(6) == 0 && len(s.Dims) >= 2 {
		drawAvoid(rng, &s)
	}
	if rng.IntN(4) == 0 {
		s.SwitchPipeline = 1
	}
	return s
}

// drawEpisodes draws the run: one collective (repeated or not), a list
// of 2-5 entries, the list sometimes repeated, or a barrier or reduction
// in a back-to-back loop.
func drawEpisodes(rng *rand.Rand, s *hw.System) {
	entry := func() hw.Episode {
		var e hw.Episode
		switch k := rng.IntN(8); {
		case k < 6: // barrier or reduction, every op and algorithm
			c, op, algo := hw.CollBarrier, hw.Ops[rng.IntN(len(hw.Ops))], hw.Algorithms[rng.IntN(len(hw.Algorithms))]
			e.Collective, e.Op, e.Algo = &c, &op, &algo
		default: // a data collective
			c := []hw.Collective{hw.CollAllGather, hw.CollBroadcast}[rng.IntN(2)]
			algo, f, op := hw.Algorithms[rng.IntN(2)], 1+rng.IntN(4), hw.OpBarrier
			e.Collective, e.Algo, e.ItemFlits, e.Op = &c, &algo, &f, &op
		}
		if rng.IntN(3) == 0 {
			sk := rng.IntN(60)
			e.Skew = &sk
		}
		return e
	}
	s.Repeat = 1
	switch n := rng.IntN(7); {
	case n == 6: // a loop of 2-6 iterations (docs/microarchitecture.md, "Iterations")
		c, op, algo := hw.CollBarrier, hw.Ops[rng.IntN(len(hw.Ops))], hw.Algorithms[rng.IntN(len(hw.Algorithms))]
		if algo == hw.AlgoDissemination && (op == hw.OpSum || op == hw.OpXor) {
			op = hw.OpMax
		}
		s.Collective, s.Op, s.Algo = c, op, algo
		s.Iterations = 2 + rng.IntN(5)
		s.Compute = []int{0, 0, 1, 6}[rng.IntN(4)]
		s.Jitter = []int{0, 0, 3, 12}[rng.IntN(4)]
	case n == 0: // the plain one-episode run
		e := entry()
		s.Collective, s.Op, s.Algo = *e.Collective, *e.Op, *e.Algo
		if e.ItemFlits != nil {
			s.ItemFlits = *e.ItemFlits
		}
	case n == 1: // one collective repeated: no reconfiguration
		s.Episodes = []hw.Episode{entry()}
		s.Repeat = 2 + rng.IntN(3)
	default:
		for i := 0; i < n; i++ {
			s.Episodes = append(s.Episodes, entry())
		}
		if n <= 3 && rng.IntN(3) == 0 {
			s.Repeat = 2 + rng.IntN(2)
		}
	}
}

// drawCommunicators replaces the run with 1-4 communicators
// (docs/microarchitecture.md, "Channels and communicators"): splits by
// dimension or plane, explicit rank lists (some on a few nodes only,
// overlapping others), each with its own op, algorithm, loop of 1-20
// iterations, compute, jitter, skew and seed; channels is what the
// busiest node needs, sometimes more, up to 8 (channels no communicator uses).
func drawCommunicators(rng *rand.Rand, s *hw.System) {
	s.Episodes, s.Repeat, s.Iterations, s.Compute, s.Jitter = nil, 1, 1, 0, 0
	s.Collective, s.Op, s.Algo = hw.CollBarrier, hw.OpBarrier, hw.AlgoButterfly
	n := s.NumRanks()
	pint := func(v int) *int { return &v }
	s.Communicators = nil
	for i := range 1 + rng.IntN(4) {
		c := hw.Communicator{Name: fmt.Sprintf("c%d", i)}
		switch k := rng.IntN(4); {
		case k == 0 && len(s.Dims) >= 3:
			a := rng.IntN(3)
			c.Split = fmt.Sprintf("plane:%d,%d", a, (a+1+rng.IntN(2))%3)
		case k <= 1:
			c.Split = fmt.Sprintf("dim:%d", rng.IntN(len(s.Dims)))
		default: // 2..n ranks in a random order
			c.Ranks = rng.Perm(n)[:2+rng.IntN(n-1)]
			if rng.IntN(2) == 0 {
				slices.Sort(c.Ranks)
			}
		}
		op, algo := hw.Ops[rng.IntN(len(hw.Ops))], hw.Algorithms[rng.IntN(len(hw.Algorithms))]
		if algo == hw.AlgoDissemination && (op == hw.OpSum || op == hw.OpXor) {
			op = hw.OpMax
		}
		c.Op, c.Algo = &op, &algo
		c.Iterations = pint([]int{1, 2, 3, 5, 8, 20}[rng.IntN(6)])
		c.Compute = pint([]int{0, 0, 1, 7}[rng.IntN(4)])
		c.Jitter = pint([]int{0, 0, 3, 15}[rng.IntN(4)])
		if rng.IntN(2) == 0 {
			c.Skew = pint(rng.IntN(60))
		}
		if rng.IntN(2) == 0 {
			seed := rng.Uint64N(1 << 20)
			c.Seed = &seed
		}
		s.Communicators = append(s.Communicators, c)
	}
	s.Channels = 1
	_, err := s.Comms()
	for k := 2; err != nil && k <= hw.MaxChannels; k++ {
		s.Channels = k
		_, err = s.Comms()
	}
	if err == nil && s.Channels < hw.MaxChannels && rng.IntN(4) == 0 {
		s.Channels += 1 + rng.IntN(hw.MaxChannels-s.Channels) // up to 8: a wider channel field
	}
}

// headExtra is the head bits above the header (hw's headExtraBits): the
// iteration bit of a loop, and the channel field above it with channels.
func headExtra(s hw.System) int {
	switch {
	case s.HasCommunicators() && s.ChannelCount() > 1:
		return 1 + hw.Bits(s.ChannelCount())
	case s.Looping() || s.HasCommunicators():
		return 1
	}
	return 0
}

// drawAvoid names one or two network channels the routing keeps off.
func drawAvoid(rng *rand.Rand, s *hw.System) {
	m, err := sim.Build(*s, nil)
	if err != nil {
		return
	}
	var names []string
	for _, c := range noc.Channels(m.Fabric) {
		if !strings.HasSuffix(c.Name, ".inject") && !strings.HasSuffix(c.Name, ".eject") {
			names = append(names, c.Name)
		}
	}
	if len(names) == 0 {
		return
	}
	s.Avoid = []string{names[rng.IntN(len(names))]}
	if rng.IntN(3) == 0 {
		s.Avoid = append(s.Avoid, names[rng.IntN(len(names))])
	}
}

// buildsForRTL reports whether sys is valid, the model builds and
// completes it, and the Verilog generator can write it.
func buildsForRTL(sys hw.System) bool {
	if sys.Validate() != nil {
		return false
	}
	s, err := sim.Build(sys, nil)
	if err != nil || verilog.Check(s.Design) != nil {
		return false
	}
	_, _, err = Trace(s)
	return err == nil
}

// faultKindsDrawn are the fault kinds the generator draws, in the order
// of hw.FaultKinds (an ackflip only with link retry).
var faultKindsDrawn = []string{hw.FaultFlip, hw.FaultDrop, hw.FaultDead, hw.FaultStuck, hw.FaultAckFlip, hw.FaultCreditDrop}

// drawFaults adds 1-3 faults to sys (a fourth in one design of three
// with three), each on a crossing of the fault-free
// run (so that it hits traffic; a creditdrop on a credit return, an
// ackflip on the ACK word of a crossing), and a watchdog when there is none (a
// fault must end in an error the model and the RTL both report, not in a
// hang). It reports false when the faulty run cannot be compared (the
// model does not finish).
func drawFaults(rng *rand.Rand, sys hw.System) (hw.System, bool) {
	s, err := sim.Build(sys, nil)
	if err != nil {
		return sys, false
	}
	var cr, credits []noc.Crossing // flit crossings, credit returns
	s.Net.Record(func(c noc.Crossing) {
		if c.Credit {
			credits = append(credits, c)
		} else {
			cr = append(cr, c)
		}
	})
	if _, _, err := Trace(s); err != nil || len(cr) == 0 {
		return sys, false
	}
	var names []string
	for _, c := range noc.Channels(s.Fabric) {
		names = append(names, c.Name)
	}
	var kinds []string // every kind the system can meet
	for _, k := range faultKindsDrawn {
		if (k != hw.FaultAckFlip || sys.LinkRetry > 0) && (k != hw.FaultCreditDrop || len(credits) > 0) {
			kinds = append(kinds, k)
		}
	}
	k := 1 + rng.IntN(3)
	for range k {
		kind := kinds[rng.IntN(len(kinds))]
		on := cr
		if kind == hw.FaultCreditDrop {
			on = credits
		}
		sys.Faults = append(sys.Faults, drawOneFault(rng, &sys, names, on, kind))
	}
	// One three-fault design in three gets a fourth fault (the most a
	// campaign run takes), drawn from a stream of its own so that the
	// other designs keep their seeds' draws; a fault already drawn is
	// drawn again.
	if frng := rand.New(rand.NewPCG(uint64(sys.Seed), fourthFaultStream)); k == 3 && frng.IntN(3) == 0 {
		kind := kinds[frng.IntN(len(kinds))]
		on := cr
		if kind == hw.FaultCreditDrop {
			on = credits
		}
		for try := 0; try < 20; try++ {
			if f := drawOneFault(frng, &sys, names, on, kind); !slices.Contains(sys.Faults, f) {
				sys.Faults = append(sys.Faults, f)
				break
			}
		}
	}
	if sys.Watchdog == 0 {
		sys.Watchdog = int64(200 + rng.IntN(800))
	}
	if !buildsForRTL(sys) {
		return sys, false
	}
	return sys, true
}

// drawOneFault draws a fault of kind on crossing traffic (cr: credit
// returns for a creditdrop, flit crossings otherwise); a flip's bit among
// those the RTL testbench injects as the model does.
func drawOneFault(rng *rand.Rand, sys *hw.System, names []string, cr []noc.Crossing, kind string) string {
	if kind == hw.FaultStuck {
		if cs, err := sys.Comms(); err == nil && sys.HasCommunicators() { // a rank some communicator waits for
			c := cs[rng.IntN(len(cs))]
			return fmt.Sprintf("stuck:%d", c.Ranks[rng.IntN(len(c.Ranks))])
		}
		return fmt.Sprintf("stuck:%d", rng.IntN(sys.NumRanks()))
	}
	c := cr[rng.IntN(len(cr))]
	name := names[c.Channel]
	switch kind {
	case hw.FaultFlip:
		for {
			b := rng.IntN(sys.Wire().Bits()) // data, code, tail and head bits
			if rtlFlipBit(sys, b) == "" {
				return fmt.Sprintf("flip:%s@%d:%d", name, c.Cycle, b)
			}
		}
	case hw.FaultDrop:
		return fmt.Sprintf("drop:%s@%d", name, c.Cycle)
	case hw.FaultAckFlip: // the ACK word of the crossing, sent as it arrives
		return fmt.Sprintf("ackflip:%s@%d", name, c.Cycle+int64(c.Lat)-1)
	case hw.FaultCreditDrop:
		return fmt.Sprintf("creditdrop:%s@%d", name, c.Cycle)
	}
	return fmt.Sprintf("dead:%s@%d", name, c.Cycle)
}

// CosimSystem writes sys's design and testbench into dir, as 'hxbar gen'
// does, and co-simulates them with simulator (Cosim).
func CosimSystem(ctx context.Context, dir string, sys hw.System, simulator string) (*Report, error) {
	s, trace, _, err := RunModel(sys)
	if err != nil {
		return nil, fmt.Errorf("model: %w", err)
	}
	if _, err := verilog.Generate(dir, s.Design); err != nil {
		return nil, err
	}
	if err := Generate(dir, Resolved(s), trace); err != nil {
		return nil, err
	}
	return Cosim(ctx, dir, simulator)
}

// Shrink returns a smaller design on which fails still holds: it drops
// faults, avoided channels, episodes and repeats, the retry, the
// watchdog and the check code, then lowers latency, buffer depth and
// skew, keeping each step that still fails, until no step does (or
// budget calls of fails are spent). fails must be deterministic.
func Shrink(sys hw.System, fails func(hw.System) bool, budget int) hw.System {
	for changed := true; changed && budget > 0; {
		changed = false
		for _, c := range shrinkSteps(sys) {
			if budget <= 0 {
				break
			}
			if c.Validate() != nil {
				continue
			}
			budget--
			if fails(c) {
				sys, changed = c, true
				break
			}
		}
	}
	return sys
}

// shrinkSteps lists the one-step simplifications of sys, boldest first.
func shrinkSteps(sys hw.System) []hw.System {
	var out []hw.System
	add := func(edit func(*hw.System)) {
		c := sys
		c.Dims = slices.Clone(sys.Dims)
		c.Placement = slices.Clone(sys.Placement)
		c.Episodes = slices.Clone(sys.Episodes)
		c.Faults = slices.Clone(sys.Faults)
		c.Avoid = slices.Clone(sys.Avoid)
		c.Communicators = slices.Clone(sys.Communicators)
		edit(&c)
		out = append(out, c)
	}
	for i := range sys.Faults {
		add(func(c *hw.System) { c.Faults = slices.Delete(c.Faults, i, i+1) })
	}
	for i := range sys.Communicators {
		if len(sys.Communicators) > 1 {
			add(func(c *hw.System) { c.Communicators = slices.Delete(c.Communicators, i, i+1) })
		}
		if it := sys.Communicators[i].Iterations; it != nil && *it > 2 {
			add(func(c *hw.System) { c.Communicators[i].Iterations = new(*it - 1) })
		}
		if j := sys.Communicators[i].Jitter; j != nil && *j > 0 {
			add(func(c *hw.System) { c.Communicators[i].Jitter = nil })
		}
	}
	if len(sys.Avoid) > 0 {
		add(func(c *hw.System) { c.Avoid = nil })
	}
	if sys.Repeat > 1 {
		add(func(c *hw.System) { c.Repeat-- })
	}
	if sys.IterationCount() > 2 {
		add(func(c *hw.System) { c.Iterations-- })
	}
	if sys.Jitter > 0 {
		add(func(c *hw.System) { c.Jitter = 0 })
	}
	for i := range sys.Episodes {
		if len(sys.Episodes) > 1 {
			add(func(c *hw.System) { c.Episodes = slices.Delete(c.Episodes, i, i+1) })
		}
	}
	if sys.LinkRetry > 0 {
		add(func(c *hw.System) { c.LinkRetry = 0 })
	}
	if sys.SwitchPipeline > 0 {
		add(func(c *hw.System) { c.SwitchPipeline = 0 })
	}
	if sys.UnitPipeline > 0 {
		add(func(c *hw.System) { c.UnitPipeline = 0 })
	}
	if sys.Watchdog > 0 && len(sys.Faults) == 0 {
		add(func(c *hw.System) { c.Watchdog = 0 })
	}
	if sys.CRCBits > 0 {
		add(func(c *hw.System) { c.CRCBits = 0 })
	}
	if sys.LinkLatency > 1 {
		add(func(c *hw.System) { c.LinkLatency = 1 })
	}
	if sys.BufferDepth > 1 && sys.LinkRetry == 0 {
		add(func(c *hw.System) { c.BufferDepth-- })
	}
	if sys.Skew > 0 {
		add(func(c *hw.System) { c.Skew /= 2 })
	}
	return out
}

// randomFeatures counts what a sample of random designs covers, so a run
// can say what it looked at and a test can hold the generator to it.
type randomFeatures struct {
	designs, episodes, multi, gatesChange, retry, watchdog, avoid, crcOn, partial, placed, loops, pipe int
	unitPipe                                                                                           int
	torus, mesh, torusFaults, torusData, torusRetry                                                    int
	comms, spareChannel, commFaults                                                                    int
	dims                                                                                               [4]int
	collectives, ops, faultKinds, faultCounts                                                          map[string]int
}

func (f *randomFeatures) add(sys hw.System) {
	if f.collectives == nil {
		f.collectives, f.ops, f.faultKinds, f.faultCounts = map[string]int{}, map[string]int{}, map[string]int{}, map[string]int{}
	}
	f.designs++
	f.episodes += sys.NumEpisodes()
	f.dims[min(len(sys.Dims), 3)]++
	count := func(b bool, n *int) {
		if b {
			*n++
		}
	}
	count(sys.NumEpisodes() > 1, &f.multi)
	count(sys.Looping(), &f.loops)
	count(sys.HasCommunicators(), &f.comms)
	count(sys.HasCommunicators() && len(sys.Faults) > 0, &f.commFaults)
	if cs, err := sys.Comms(); err == nil && sys.HasCommunicators() {
		most := 0
		for _, c := range cs {
			most = max(most, slices.Max(c.Channel)+1)
		}
		count(most < sys.ChannelCount(), &f.spareChannel)
	}
	count(sys.LinkRetry > 0, &f.retry)
	count(sys.SwitchPipeline == 1, &f.pipe)
	count(sys.UnitPipeline == 1, &f.unitPipe)
	count(sys.Topology == hw.TopoTorus, &f.torus)
	count(slices.Contains(sys.Wrap, false), &f.mesh)
	count(sys.Topology == hw.TopoTorus && len(sys.Faults) > 0, &f.torusFaults)
	count(sys.Topology == hw.TopoTorus && sys.IsData(), &f.torusData)
	count(sys.Topology == hw.TopoTorus && sys.LinkRetry > 0, &f.torusRetry)
	count(sys.Watchdog > 0, &f.watchdog)
	count(len(sys.Avoid) > 0, &f.avoid)
	count(sys.CRCBits == hw.PacketCodeBits, &f.crcOn)
	count(sys.Ranks > 0, &f.partial)
	count(len(sys.Placement) > 0, &f.placed)
	if s, err := sim.Build(sys, nil); err == nil {
		gates := map[int]bool{}
		for k := 1; k <= s.Design.NumEntries(); k++ {
			e := s.Design.Episode(k)
			gates[e.Table.Gates] = true
			f.collectives[string(e.Sys.Collective)]++
			if e.Sys.Collective == hw.CollBarrier {
				f.ops[string(e.Sys.Op)]++
			}
		}
		count(len(gates) > 1, &f.gatesChange)
	}
	f.faultCounts[fmt.Sprint(len(sys.Faults))]++
	for _, spec := range sys.Faults {
		if ft, err := hw.ParseFault(spec); err == nil {
			f.faultKinds[ft.Kind]++
		}
	}
}

// missing names what the sample never drew.
func (f *randomFeatures) missing() []string {
	var miss []string
	need := func(n int, what string) {
		if n == 0 {
			miss = append(miss, what)
		}
	}
	need(f.multi, "a multi-episode run")
	need(f.loops, "a back-to-back loop")
	need(f.comms, "communicators")
	need(f.commFaults, "communicators with faults")
	need(f.spareChannel, "a channel no communicator uses")
	need(f.gatesChange, "episodes whose gate counts change")
	need(f.retry, "link retry")
	need(f.pipe, "the switch pipeline")
	need(f.designs-f.pipe, "switch_pipeline 0")
	need(f.unitPipe, "the unit pipeline")
	need(f.designs-f.unitPipe, "unit_pipeline 0")
	need(f.torus, "a torus")
	need(f.mesh, "a mesh line")
	need(f.torusFaults, "a torus with faults")
	need(f.torusData, "a torus running a data collective")
	need(f.torusRetry, "a torus with link retry")
	need(f.watchdog, "a watchdog")
	need(f.avoid, "avoided channels")
	need(f.crcOn, "a check code")
	need(f.designs-f.crcOn, "crc_bits 0")
	need(f.partial, "fewer ranks than nodes")
	need(f.placed, "a placement")
	for d := 1; d <= 3; d++ {
		need(f.dims[d], fmt.Sprintf("%d dimensions", d))
	}
	for _, c := range hw.Collectives {
		need(f.collectives[string(c)], "collective "+string(c))
	}
	for _, op := range hw.Ops {
		need(f.ops[string(op)], "op "+string(op))
	}
	for _, k := range faultKindsDrawn {
		need(f.faultKinds[k], "fault "+k)
	}
	for _, k := range []string{"0", "1", "2", "3"} {
		need(f.faultCounts[k], k+" faults in a run")
	}
	return miss
}

func (f *randomFeatures) String() string {
	return fmt.Sprintf("%d episodes; %d multi-episode (%d with changing gate counts); %d loops; %d communicators (%d with faults, %d with a spare channel); dims 1/2/3: %d/%d/%d; collectives %v; ops %v; faults per run %v, by kind %v; retry %d, switch pipeline %d, watchdog %d, avoid %d, check code %d, partial ranks %d, placed %d, torus %d (%d with a mesh line, %d with faults, %d with data, %d with retry)",
		f.episodes, f.multi, f.gatesChange, f.loops, f.comms, f.commFaults, f.spareChannel, f.dims[1], f.dims[2], f.dims[3], f.collectives, f.ops, f.faultCounts, f.faultKinds, f.retry, f.pipe, f.watchdog, f.avoid, f.crcOn, f.partial, f.placed, f.torus, f.mesh, f.torusFaults, f.torusData, f.torusRetry)
}
