package sim

import (
	"bytes"
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
type KindCounts struct {
	CampaignCounts
	// Rerouted (dead channels): runs that, repeated
	// with --avoid naming the dead channel, complete with the fault-free
	// results; RerouteCycles is their mean extra cycles over the
	// fault-free run.
	Rerouted      int     `json:"rerouted,omitempty"`
	RerouteCycles float64 `json:"reroute_extra_cycles,omitempty"`
	// RecoverCycles is the mean extra cycles of the recovered runs.
	RecoverCycles float64 `json:"recover_extra_cycles,omitempty"`
	// DetectLatency is the mean cycles from a link fault's first hit to
	// the first unit error of the detected runs, DetectLatencyMax the most.
	DetectLatency    float64 `json:"detect_latency_mean,omitempty"`
	DetectLatencyMax int64   `json:"detect_latency_max,omitempty"`
}

// CampaignResult is the JSON of hxbar faults.
type CampaignResult struct {
	CampaignCounts
	ByKind map[string]*KindCounts `json:"by_kind"`
	// Cycles is the fault-free run's.
	Cycles int64 `json:"-"`
	// Runs of the campaign, when kept (CampaignOptions.Keep).
	Detail []CampaignRun `json:"-"`
}

// CampaignRun is one run of a campaign.
type CampaignRun struct {
	Spec                                  string
	Hit                                   bool
	Detected, Recovered, Reported, Silent bool
	Rerouted                              bool // dead: the run with --avoid recovered
	Cycles                                int64
	RerouteCycles                         int64 // dead: the cycles of the run with --avoid
	DetectLatency                         int64 // cycles from the fault's first hit to the first error, -1: none
	Err                                   string
}

// CampaignOptions says what a campaign injects.
type CampaignOptions struct {
	Runs  int
	Seed  uint64
	Kinds []string // fault kinds, taken in turn (hw.FaultKinds when empty)
	Keep  bool     // keep every run's outcome in Detail
}

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

// RunCampaign runs opt.Runs runs of sys, each with one random fault, and
// classifies each against the fault-free run. Flips, drops and dead
// channels are placed on a flit crossing of the fault-free run (a channel
// and cycle drawn uniformly from every flit crossing of every channel),
// so each fault hits traffic; a flip's bit is drawn from 0..flit_width-1,
// a stuck rank from the ranks. sys must have no faults of its own.
func RunCampaign(sys hw.System, opt CampaignOptions) (*CampaignResult, error) {
	if len(sys.Faults) > 0 {
		return nil, &hw.FieldError{Field: "faults", Value: fmt.Sprintf("%d entries", len(sys.Faults)), Allowed: "[] for a campaign (it injects its own)"}
	}
	kinds := opt.Kinds
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
			return nil, fmt.Errorf("invalid kind %q (allowed: %s)", k, strings.Join(hw.FaultKinds, ", "))
		}
		if k == hw.FaultAckFlip && sys.LinkRetry == 0 {
			return nil, fmt.Errorf("invalid kind %q: an ackflip needs link_retry > 0 (without link-level retry there is no ACK)", k)
		}
	}
	// The fault-free run, recording every flit crossing.
	ref, err := campaignReference(sys)
	if err != nil {
		return nil, err
	}
	var cross, credits []noc.Crossing // flit crossings, credit returns
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
		return nil, fmt.Errorf("the fault-free run: %w", err)
	}
	want := signature(tr.Bytes())
	idx := noc.NewChannelIndex(ref.Fabric)
	// A faulty run that has not completed by then never will: stop it.
	fsys := sys
	fsys.MaxCycles = min(sys.MaxCycles, 10*res0.Cycles+1000)

	out := &CampaignResult{ByKind: map[string]*KindCounts{}, Cycles: res0.Cycles}
	for _, k := range kinds {
		out.ByKind[k] = &KindCounts{}
	}
	var recoverSum, rerouteSum, detectSum = map[string]int64{}, map[string]int64{}, map[string]int64{}
	detectN := map[string]int{}
	R := sys.NumRanks()
	for i := 0; i < opt.Runs; i++ {
		rng := rand.New(rand.NewPCG(opt.Seed, uint64(i)))
		kind := kinds[i%len(kinds)]
		var spec string
		if kind == hw.FaultStuck || len(cross) == 0 {
			kind = hw.FaultStuck
			spec = fmt.Sprintf("stuck:%d", rng.IntN(R))
		} else {
			c := cross[rng.IntN(len(cross))]
			if kind == hw.FaultCreditDrop && len(credits) > 0 {
				c = credits[rng.IntN(len(credits))]
			}
			name := idx.Name(int(c.Channel))
			switch kind {
			case hw.FaultFlip:
				spec = fmt.Sprintf("flip:%s@%d:%d", name, c.Cycle, rng.IntN(sys.FlitWidth))
			case hw.FaultAckFlip: // the ACK word of the crossing
				spec = fmt.Sprintf("ackflip:%s@%d", name, c.Cycle+int64(c.Lat)-1)
			default:
				spec = fmt.Sprintf("%s:%s@%d", kind, name, c.Cycle)
			}
		}
		run, err := campaignRun(fsys, spec, want)
		if err != nil {
			return nil, fmt.Errorf("run %d (%s): %w", i, spec, err)
		}
		if kind == hw.FaultDead && !run.Recovered {
			// Software's answer to a dead link: route around it.
			name := spec[len("dead:"):strings.LastIndex(spec, "@")]
			asys := fsys
			asys.Avoid = append(slices.Clone(sys.Avoid), name)
			if again, err := campaignRun(asys, spec, want); err == nil && again.Recovered {
				run.Rerouted, run.RerouteCycles = true, again.Cycles
			}
		}
		k := out.ByKind[kind]
		if run.Rerouted {
			k.Rerouted++
			rerouteSum[kind] += run.RerouteCycles - res0.Cycles
		}
		if run.Recovered {
			recoverSum[kind] += run.Cycles - res0.Cycles
		}
		if run.DetectLatency >= 0 {
			detectSum[kind] += run.DetectLatency
			detectN[kind]++
			k.DetectLatencyMax = max(k.DetectLatencyMax, run.DetectLatency)
		}
		for _, c := range []*CampaignCounts{&out.CampaignCounts, &k.CampaignCounts} {
			c.Runs++
			c.Injected += b2i(run.Hit)
			c.Detected += b2i(run.Detected)
			c.Recovered += b2i(run.Recovered)
			c.Reported += b2i(run.Reported)
			c.Silent += b2i(run.Silent)
		}
		if opt.Keep {
			out.Detail = append(out.Detail, run)
		}
	}
	for kind, k := range out.ByKind {
		if k.Recovered > 0 {
			k.RecoverCycles = float64(recoverSum[kind]) / float64(k.Recovered)
		}
		if k.Rerouted > 0 {
			k.RerouteCycles = float64(rerouteSum[kind]) / float64(k.Rerouted)
		}
		if detectN[kind] > 0 {
			k.DetectLatency = float64(detectSum[kind]) / float64(detectN[kind])
		}
	}
	return out, nil
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// campaignRun runs sys with one fault and classifies it against want, the
// fault-free run's signature.
func campaignRun(sys hw.System, spec string, want []string) (CampaignRun, error) {
	sys.Faults = []string{spec}
	run := CampaignRun{Spec: spec, DetectLatency: -1}
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
	if run.Detected && len(res.Faults) > 0 && res.Faults[0].First >= 0 {
		run.DetectLatency = s.Units.Errors[0].Cycle - res.Faults[0].First
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
