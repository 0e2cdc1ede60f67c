package sim

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/hxbar/hxbar/hw"
	"github.com/hxbar/hxbar/noc"
)

// CampaignCounts are the outcomes of a fault campaign (docs/reliability.md,
// "Campaigns"). A run counts in every class it belongs to: detected and
// recovered, or detected and reported, can both hold.
type CampaignCounts struct {
	Runs int `json:"runs"`
	// Injected: runs whose fault acted (hit at least one flit; a stuck
	// rank always acts).
	Injected int `json:"injected"`
	// Detected: runs in which a unit raised an error (the hardware saw it).
	Detected int `json:"detected"`
	// Recovered: runs whose results equal the fault-free run's: every rank
	// released, with the same values, and every message received with the
	// same source, gate and value (data collectives: payload checksum).
	Recovered int `json:"recovered"`
	// Reported: runs that ended with an error the system sees: a unit
	// error, or a run that never completed (stopped by the watchdog or
	// max_cycles, naming the ranks and gates still waiting).
	Reported int `json:"reported"`
	// Silent: runs that completed with results differing from the
	// fault-free run's and no error raised.
	Silent int `json:"silent"`
}

// KindCounts are the outcomes of one fault kind, with the cost of recovery.
// A figure that does not apply is nil (JSON null), never 0: 0 extra
// cycles is a recovery that cost nothing.
type KindCounts struct {
	CampaignCounts
	// Rerouted (dead channels only, else nil): runs that, repeated with
	// --avoid naming the dead channel, complete with the fault-free
	// results; RerouteCycles is their mean extra cycles over the
	// fault-free run (nil when none was rerouted).
	Rerouted      *int     `json:"rerouted"`
	RerouteCycles *float64 `json:"reroute_extra_cycles"`
	// RecoverCycles is the mean extra cycles of the recovered runs (nil
	// when none recovered).
	RecoverCycles *float64 `json:"recover_extra_cycles"`
	// DetectLatency is the mean cycles from a fault's first hit to the
	// first unit error of the detected runs, DetectLatencyMax the most
	// (nil when no run was detected after a hit).
	DetectLatency    *float64 `json:"detect_latency_mean"`
	DetectLatencyMax *int64   `json:"detect_latency_max"`
}

// CampaignResult is the JSON of hxbar faults.
type CampaignResult struct {
	// System is the campaign's system (hw.System.Title), Seed the seed
	// of its draws.
	System string `json:"system"`
	Seed   uint64 `json:"seed"`
	// Cycles is the fault-free run's.
	Cycles int64 `json:"fault_free_cycles"`
	CampaignCounts
	ByKind map[string]*KindCounts `json:"by_kind"`
	// ByCount are the outcomes per number of faults injected into a run
	// (CampaignOptions.PerRun), keyed "1".."4": the number a run got,
	// fewer than asked when the run has fewer places (ranks, crossings,
	// channels) to put them, so that the entries add up to the runs.
	ByCount map[string]*CampaignCounts `json:"by_count"`
	// Runs of the campaign, when kept (CampaignOptions.Keep).
	Detail []CampaignRun `json:"-"`
}

// CampaignRun is one run of a campaign.
type CampaignRun struct {
	Spec                                  string // the run's faults, separated by spaces
	Hit                                   bool
	Detected, Recovered, Reported, Silent bool
	Rerouted                              bool // dead: the run with --avoid recovered
	Cycles                                int64
	RerouteCycles                         int64 // dead: the cycles of the run with --avoid
	// DetectLatency is the cycles from the first hit of the run's faults
	// to its first unit error, when DetectLatencyOK (detected after a hit).
	DetectLatency   int64
	DetectLatencyOK bool
	Err             string
}

// CampaignOptions says what a campaign injects.
type CampaignOptions struct {
	Runs  int
	Seed  uint64
	Kinds []string // fault kinds, taken in turn (hw.FaultKinds when empty)
	// PerRun are the numbers of faults injected into one run, taken in
	// turn after each round of the kinds (run i has kind Kinds[i mod k]
	// and PerRun[(i / k) mod len] faults, k = len(Kinds); [1] when
	// empty), each 1..MaxFaultsPerRun. The faults of a run are of the
	// run's kind.
	PerRun []int
	Keep   bool // keep every run's outcome in Detail
}

// MaxFaultsPerRun bounds CampaignOptions.PerRun.
const MaxFaultsPerRun = 4

// signature is what a run's results are compared on: the release of every
// rank with its value, and every received message (source, gate, value),
// per node, without cycles.
func signature(trace []byte) []string {
	var sig []string
	for _, l := range bytes.Split(trace, []byte{'\n'}) {
		f := strings.Fields(string(l))
		if len(f) < 3 {
			continue
		}
		switch f[2] {
		case "release", "recv":
			sig = append(sig, strings.Join(f[1:], " "))
		}
	}
	slices.Sort(sig)
	return sig
}

// campaignReference builds the fault-free run a campaign draws its faults
// from, on one worker: the faults are drawn by index from the crossings in
// the order they were recorded, which is the order of evaluation, the same
// from run to run only on one worker (a system from parallelElements
// elements on shares its cycles among workers otherwise).
func campaignReference(sys hw.System) (*System, error) {
	ref, err := Build(sys, nil)
	if err != nil {
		return nil, err
	}
	ref.eng.workers = 1
	return ref, nil
}

// RunCampaign runs opt.Runs runs of sys, each with opt.PerRun random
// faults of one kind (kinds taken in turn), and classifies each against
// the fault-free run. Flips, drops and dead channels are placed on flit
// crossings of the fault-free run (a channel and cycle drawn uniformly
// from every flit crossing of every channel, sorted by cycle and channel
// so that the draw does not depend on the order of evaluation), so each
// fault hits traffic; a flip's bit is drawn from every bit of the wire
// (hw.Wire: data, check code, tail and head marks), a stuck
// rank from the ranks (distinct ranks within a run). sys must have no
// faults of its own.
func RunCampaign(sys hw.System, opt CampaignOptions) (*CampaignResult, error) {
	if len(sys.Faults) > 0 {
		return nil, &hw.FieldError{Field: "faults", Value: fmt.Sprintf("%d entries", len(sys.Faults)), Allowed: "[] for a campaign (it injects its own)"}
	}
	kinds, perRun, err := campaignPlan(sys, opt)
	if err != nil {
		return nil, err
	}
	ref, cross, credits, res0, want, err := campaignBaseline(sys)
	if err != nil {
		return nil, err
	}
	d := &faultDraw{sys: sys, wire: sys.Wire(), cross: cross, credits: credits, idx: noc.NewChannelIndex(ref.Fabric)}
	// A faulty run that has not completed by then never will: stop it.
	fsys := sys
	fsys.MaxCycles = min(sys.MaxCycles, 10*res0.Cycles+1000)

	out := &CampaignResult{System: sys.Title(), Seed: opt.Seed, ByKind: map[string]*KindCounts{}, ByCount: map[string]*CampaignCounts{}, Cycles: res0.Cycles}
	for _, k := range kinds {
		out.ByKind[k] = &KindCounts{}
		if k == hw.FaultDead {
			out.ByKind[k].Rerouted = new(int)
		}
	}
	for _, k := range perRun {
		out.ByCount[fmt.Sprint(k)] = &CampaignCounts{}
	}
	acc := newCampaignSums()
	for i := 0; i < opt.Runs; i++ {
		rng := rand.New(rand.NewPCG(opt.Seed, uint64(i)))
		kind, specs := d.draw(rng, kinds[i%len(kinds)], perRun[i/len(kinds)%len(perRun)])
		run, err := campaignRun(fsys, specs, want)
		if err != nil {
			return nil, fmt.Errorf("run %d (%s): %w", i, strings.Join(specs, " "), err)
		}
		if kind == hw.FaultDead && !run.Recovered {
			// Software's answer to a dead link: route around it.
			asys := fsys
			asys.Avoid = slices.Clone(sys.Avoid)
			for _, spec := range specs {
				asys.Avoid = append(asys.Avoid, spec[len("dead:"):strings.LastIndex(spec, "@")])
			}
			if again, err := campaignRun(asys, specs, want); err == nil && again.Recovered {
				run.Rerouted, run.RerouteCycles = true, again.Cycles
			}
		}
		acc.add(out, kind, len(specs), run, res0.Cycles)
		if opt.Keep {
			out.Detail = append(out.Detail, run)
		}
	}
	acc.means(out)
	return out, nil
}

// campaignPlan checks a campaign's kinds and faults per run, with their
// defaults.
func campaignPlan(sys hw.System, opt CampaignOptions) (kinds []string, perRun []int, err error) {
	kinds = opt.Kinds
	if len(kinds) == 0 {
		// Every kind the system can meet: an ackflip needs link retry.
		for _, k := range hw.FaultKinds {
			if k != hw.FaultAckFlip || sys.LinkRetry > 0 {
				kinds = append(kinds, k)
			}
		}
	}
	for _, k := range kinds {
		if !slices.Contains(hw.FaultKinds, k) {
			return nil, nil, fmt.Errorf("invalid kind %q (allowed: %s)", k, strings.Join(hw.FaultKinds, ", "))
		}
		if k == hw.FaultAckFlip && sys.LinkRetry == 0 {
			return nil, nil, fmt.Errorf("invalid kind %q: an ackflip needs link_retry > 0 (without link-level retry there is no ACK)", k)
		}
	}
	perRun = opt.PerRun
	if len(perRun) == 0 {
		perRun = []int{1}
	}
	for _, k := range perRun {
		if k < 1 || k > MaxFaultsPerRun {
			return nil, nil, fmt.Errorf("invalid faults per run %d (allowed: 1..%d)", k, MaxFaultsPerRun)
		}
	}
	return kinds, perRun, nil
}

// campaignBaseline runs sys fault-free, recording every flit crossing
// and every credit return (each sorted by cycle, then channel), and
// returns the system, the crossings, the credit returns, the result and
// the run's signature.
func campaignBaseline(sys hw.System) (*System, []noc.Crossing, []noc.Crossing, *Result, []string, error) {
	ref, err := campaignReference(sys)
	if err != nil {
		return nil, nil, nil, nil, nil, err
	}
	var cross, credits []noc.Crossing
	ref.Net.Record(func(c noc.Crossing) {
		if c.Credit {
			credits = append(credits, c)
		} else {
			cross = append(cross, c)
		}
	})
	var tr bytes.Buffer
	res0, err := ref.Run(Options{Trace: &tr})
	if err != nil {
		return nil, nil, nil, nil, nil, fmt.Errorf("the fault-free run: %w", err)
	}
	byCycle := func(a, b noc.Crossing) int {
		if a.Cycle != b.Cycle {
			return cmp.Compare(a.Cycle, b.Cycle)
		}
		return cmp.Compare(a.Channel, b.Channel)
	}
	slices.SortFunc(cross, byCycle)
	slices.SortFunc(credits, byCycle)
	return ref, cross, credits, res0, signature(tr.Bytes()), nil
}

// faultDraw draws a campaign run's faults: flips, drops, dead channels
// and ACK flips on flit crossings, credit drops on credit returns.
type faultDraw struct {
	sys     hw.System
	wire    *hw.Wire // the flit layout: the bits a flip can name (data, check code, tail, head)
	cross   []noc.Crossing
	credits []noc.Crossing
	idx     *noc.ChannelIndex
}

// draw draws n faults of kind (a stuck rank when the run has no traffic)
// and returns the kind drawn and the specs. The faults of a run fall on
// distinct places: distinct ranks, distinct crossings, and for dead
// channels distinct channels (avoiding one twice would be refused). Fewer
// than n when the run has fewer places. Each place is drawn until it is
// new, so a run of one fault draws what it always drew.
func (d *faultDraw) draw(rng *rand.Rand, kind string, n int) (string, []string) {
	if kind == hw.FaultStuck || len(d.cross) == 0 {
		R := d.sys.NumRanks()
		var specs []string
		for _, r := range rng.Perm(R)[:min(n, R)] {
			specs = append(specs, fmt.Sprintf("stuck:%d", r))
		}
		return hw.FaultStuck, specs
	}
	from := d.cross
	if kind == hw.FaultCreditDrop && len(d.credits) > 0 {
		from = d.credits
	}
	// place names what two faults of a run must not share.
	place := func(c noc.Crossing) noc.Crossing {
		if kind == hw.FaultDead {
			return noc.Crossing{Channel: c.Channel}
		}
		return c
	}
	places := map[noc.Crossing]bool{}
	for _, c := range from {
		places[place(c)] = true
	}
	used := map[noc.Crossing]bool{}
	specs := make([]string, min(n, len(places)))
	for j := range specs {
		c := from[rng.IntN(len(from))]
		for used[place(c)] {
			c = from[rng.IntN(len(from))]
		}
		used[place(c)] = true
		specs[j] = d.spec(rng, kind, c)
	}
	return kind, specs
}

// spec is the fault of kind on crossing c.
func (d *faultDraw) spec(rng *rand.Rand, kind string, c noc.Crossing) string {
	name := d.idx.Name(int(c.Channel))
	switch kind {
	case hw.FaultFlip:
		return fmt.Sprintf("flip:%s@%d:%d", name, c.Cycle, d.wire.ModelledBit(rng.IntN(d.wire.Modelled())))
	case hw.FaultAckFlip: // the ACK word of the crossing
		return fmt.Sprintf("ackflip:%s@%d", name, c.Cycle+int64(c.Lat)-1)
	default:
		return fmt.Sprintf("%s:%s@%d", kind, name, c.Cycle)
	}
}

// campaignSums collects the sums behind a campaign's means.
type campaignSums struct {
	recover, reroute, detect map[string]int64
	detectN                  map[string]int
}

func newCampaignSums() *campaignSums {
	return &campaignSums{recover: map[string]int64{}, reroute: map[string]int64{}, detect: map[string]int64{}, detectN: map[string]int{}}
}

// add counts run (of kind, with n faults) into out; cycles0 is the
// fault-free run's length.
func (a *campaignSums) add(out *CampaignResult, kind string, n int, run CampaignRun, cycles0 int64) {
	k := out.ByKind[kind]
	if run.Rerouted {
		*k.Rerouted++ // set for the dead kind, the only one rerouted
		a.reroute[kind] += run.RerouteCycles - cycles0
	}
	if run.Recovered {
		a.recover[kind] += run.Cycles - cycles0
	}
	if run.DetectLatencyOK {
		a.detect[kind] += run.DetectLatency
		a.detectN[kind]++
		if k.DetectLatencyMax == nil || run.DetectLatency > *k.DetectLatencyMax {
			k.DetectLatencyMax = &run.DetectLatency
		}
	}
	byCount := out.ByCount[fmt.Sprint(n)]
	if byCount == nil { // a run with fewer places than faults asked for
		byCount = &CampaignCounts{}
		out.ByCount[fmt.Sprint(n)] = byCount
	}
	for _, c := range []*CampaignCounts{&out.CampaignCounts, &k.CampaignCounts, byCount} {
		c.Runs++
		c.Injected += b2i(run.Hit)
		c.Detected += b2i(run.Detected)
		c.Recovered += b2i(run.Recovered)
		c.Reported += b2i(run.Reported)
		c.Silent += b2i(run.Silent)
	}
}

// means fills in out's mean cycles per kind.
func (a *campaignSums) means(out *CampaignResult) {
	for kind, k := range out.ByKind {
		mean := func(sum int64, n int) *float64 {
			m := float64(sum) / float64(n)
			return &m
		}
		if k.Recovered > 0 {
			k.RecoverCycles = mean(a.recover[kind], k.Recovered)
		}
		if k.Rerouted != nil && *k.Rerouted > 0 {
			k.RerouteCycles = mean(a.reroute[kind], *k.Rerouted)
		}
		if a.detectN[kind] > 0 {
			k.DetectLatency = mean(a.detect[kind], a.detectN[kind])
		}
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// campaignRun runs sys with the faults specs and classifies it against
// want, the fault-free run's signature.
func campaignRun(sys hw.System, specs []string, want []string) (CampaignRun, error) {
	sys.Faults = specs
	run := CampaignRun{Spec: strings.Join(specs, " ")}
	s, err := Build(sys, nil)
	if err != nil {
		return run, err
	}
	var tr bytes.Buffer
	res, err := s.Run(Options{Trace: &tr})
	if res == nil {
		return run, err
	}
	run.Cycles = res.Cycles
	for _, f := range res.Faults {
		run.Hit = run.Hit || f.Hits > 0 || strings.HasPrefix(f.Spec, hw.FaultStuck)
	}
	run.Detected = s.unitErrors() > 0
	first := int64(-1) // the first hit of any fault of the run
	for _, f := range res.Faults {
		if f.First >= 0 && (first < 0 || f.First < first) {
			first = f.First
		}
	}
	if run.Detected && first >= 0 {
		run.DetectLatency, run.DetectLatencyOK = s.Units.Errors[0].Cycle-first, true
	}
	_, stuck := errors.AsType[*StuckError](err)
	run.Reported = run.Detected || stuck || !res.Complete
	if err != nil {
		run.Err = err.Error()
	}
	same := res.Complete && slices.Equal(signature(tr.Bytes()), want)
	run.Recovered = same
	run.Silent = !same && !run.Reported
	return run, nil
}

// unitErrors is the number of errors the units raised (docs/reliability.md,
// "Detection").
func (s *System) unitErrors() int { return len(s.Units.Errors) }
