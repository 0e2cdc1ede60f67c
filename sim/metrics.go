package sim

import (
	"encoding/json"
	"slices"
	"strings"

	"github.com/hxbar/hxbar/hw"
)

// The headline metrics of a run (docs/microarchitecture.md, "Statistics"),
// the names 'hxbar sweep' measures and 'hxbar sim --format json' writes:
//
//   - last_arrival: the cycle the last rank arrived, when every rank
//     arrived before the run stopped;
//   - latency: last arrival -> last release, of a complete run;
//   - release_spread: first release -> last release, of a complete run.
//
// Where one does not apply it is absent: the method's ok is false, the JSON
// value null. No sentinel cycle stands for "never".

// LastArrival is the cycle the last rank arrived (in the last episode
// listed); ok is false when some rank never arrives (a stuck fault) or had
// not arrived when the run stopped.
func (r *Result) LastArrival() (cycle int64, ok bool) { return value(r.LastArrivalCycle) }

// Latency is the run's latency: last arrival -> last release of its last
// episode; ok is false for an incomplete run.
func (r *Result) Latency() (cycles int64, ok bool) { return value(r.LatencyCycles) }

// ReleaseSpread is first release -> last release of the last episode; ok is
// false for an incomplete run.
func (r *Result) ReleaseSpread() (cycles int64, ok bool) { return value(r.ReleaseSpreadCycles) }

// Arrived is the rank's arrival cycle (its last, over episodes); ok is
// false for a rank that never arrives (a stuck fault; the field Arrive
// holds Never there).
func (n NodeResult) Arrived() (cycle int64, ok bool) { return n.Arrive, n.Arrive != Never }

// Released is the rank's release cycle (its last, over episodes); ok is
// false for a rank not released when the run stopped (the field Release
// holds -1 there).
func (n NodeResult) Released() (cycle int64, ok bool) { return n.Release, n.Release >= 0 }

func value(p *int64) (int64, bool) {
	if p == nil {
		return 0, false
	}
	return *p, true
}

// setMetrics fills the headline fields of res and of its episodes from the
// nodes' arrivals and releases. lastArrival[k] is episode k+1's last
// arrival cycle (Never: some rank never arrives).
func setMetrics(res *Result, lastArrival []int64) {
	for k := range res.Episodes {
		e := &res.Episodes[k]
		arrived := k < len(lastArrival) && lastArrival[k] != Never && lastArrival[k] < res.Cycles
		if arrived {
			e.LastArrival = ptr(lastArrival[k])
		}
		if !arrived || e.LastRelease < 0 {
			continue
		}
		first := int64(-1)
		for i := range res.Nodes {
			if rel := res.Nodes[i].Releases; k < len(rel) && rel[k] >= 0 && (first < 0 || rel[k] < first) {
				first = rel[k]
			}
		}
		e.Latency = ptr(e.LastRelease - lastArrival[k])
		if first >= 0 {
			e.ReleaseSpread = ptr(e.LastRelease - first)
		}
	}
	if n := len(res.Episodes); n > 0 {
		last := res.Episodes[n-1]
		res.LastArrivalCycle = last.LastArrival
		if res.Complete {
			res.LatencyCycles, res.ReleaseSpreadCycles = last.Latency, last.ReleaseSpread
		}
	}
}

func ptr(v int64) *int64 { return &v }

// cycleOrNull is a cycle for JSON: null when it is not one (negative: not
// released, not done; Never: never arrives).
func cycleOrNull(c int64) *int64 {
	if c < 0 || c == Never {
		return nil
	}
	return &c
}

// nodeJSON is NodeResult's JSON; the communicator fields are present in
// a run of communicators only.
type nodeJSON struct {
	Rank         int      `json:"rank"`
	Node         int      `json:"node"`
	Arrive       *int64   `json:"arrive"`
	Operand      *string  `json:"operand"`
	Release      *int64   `json:"release"`
	Result       *string  `json:"result"`
	Releases     []*int64 `json:"releases"`
	Communicator string   `json:"communicator,omitempty"`
	CommRank     *int     `json:"comm_rank,omitempty"`
	SystemRank   *int     `json:"system_rank,omitempty"`
	Channel      *int     `json:"channel,omitempty"`
}

// MarshalJSON writes a node's arrival, releases, operand and result with
// null for "never", "not released" and "no value" (Arrive Never, Release
// -1, Operand and Result "": a rank not released, or an op without a
// value): no sentinel number in the JSON.
func (n NodeResult) MarshalJSON() ([]byte, error) {
	rel := make([]*int64, len(n.Releases))
	for i, r := range n.Releases {
		rel[i] = cycleOrNull(r)
	}
	if n.Releases == nil {
		rel = nil
	}
	return json.Marshal(nodeJSON{n.Rank, n.Node, cycleOrNull(n.Arrive), stringOrNull(n.Operand), cycleOrNull(n.Release), stringOrNull(n.Result), rel,
		n.Communicator, n.CommRank, n.SystemRank, n.Channel})
}

// UnmarshalJSON reads what MarshalJSON writes (null: Never for arrive, -1
// for a release, "" for the result).
func (n *NodeResult) UnmarshalJSON(data []byte) error {
	var v nodeJSON
	if err := json.Unmarshal(data, &v); err != nil {
		return err
	}
	*n = NodeResult{Rank: v.Rank, Node: v.Node, Arrive: orElse(v.Arrive, Never), Release: orElse(v.Release, -1),
		Communicator: v.Communicator, CommRank: v.CommRank, SystemRank: v.SystemRank, Channel: v.Channel}
	if v.Operand != nil {
		n.Operand = *v.Operand
	}
	if v.Result != nil {
		n.Result = *v.Result
	}
	if v.Releases != nil {
		n.Releases = make([]int64, len(v.Releases))
		for i, r := range v.Releases {
			n.Releases[i] = orElse(r, -1)
		}
	}
	return nil
}

// errorJSON is ErrorResult's JSON, with rank null for a unit that hosts
// none (Rank -1).
type errorJSON struct {
	Cycle int64  `json:"cycle"`
	Node  int    `json:"node"`
	Rank  *int64 `json:"rank"`
	Code  string `json:"code"`
	Gate  *int64 `json:"gate"`
	From  *int64 `json:"from"`
}

// MarshalJSON writes the error with rank null for a unit without a rank
// (NORANK), gate and from null for an error that concerns no gate
// (Gate 0: a flit popped outside any packet), and from null for one that
// names a gate but no packet (NoFrom: OVER found by the gate check): no
// sentinel number in the JSON. (The trace keeps gate=0 from=0, the RTL's
// format.)
func (e ErrorResult) MarshalJSON() ([]byte, error) {
	var rank, gate, from *int64
	if e.Rank >= 0 {
		r := int64(e.Rank)
		rank = &r
	}
	if e.Gate > 0 {
		g := int64(e.Gate)
		gate = &g
	}
	if e.Gate > 0 && !e.NoFrom {
		f := int64(e.From)
		from = &f
	}
	return json.Marshal(errorJSON{e.Cycle, e.Node, rank, e.Code, gate, from})
}

// UnmarshalJSON reads what MarshalJSON writes (null: Rank -1, Gate and
// From 0).
func (e *ErrorResult) UnmarshalJSON(data []byte) error {
	var v errorJSON
	if err := json.Unmarshal(data, &v); err != nil {
		return err
	}
	*e = ErrorResult{Cycle: v.Cycle, Node: v.Node, Rank: int(orElse(v.Rank, -1)), Code: v.Code, Gate: int(orElse(v.Gate, 0)), From: int(orElse(v.From, 0)),
		NoFrom: v.Gate != nil && v.From == nil}
	return nil
}

// netJSON is NetStats' JSON: the busiest channel and its load null when
// no flit crossed a channel.
type netJSON struct {
	Packets     uint64   `json:"packets"`
	Flits       uint64   `json:"flits"`
	FlitHops    uint64   `json:"flit_hops"`
	Channels    int      `json:"channels"`
	MeanLoad    float64  `json:"mean_channel_load"`
	Busiest     *string  `json:"busiest_channel"`
	BusiestLoad *float64 `json:"busiest_channel_load"`
}

// MarshalJSON writes busiest_channel and its load as null when no flit
// crossed a channel (Busiest ""), not a channel with load 0.
func (n NetStats) MarshalJSON() ([]byte, error) {
	v := netJSON{n.Packets, n.Flits, n.FlitHops, n.Channels, n.MeanLoad, nil, nil}
	if n.Busiest != "" {
		v.Busiest, v.BusiestLoad = &n.Busiest, &n.BusiestLoad
	}
	return json.Marshal(v)
}

// UnmarshalJSON reads what MarshalJSON writes.
func (n *NetStats) UnmarshalJSON(data []byte) error {
	var v netJSON
	if err := json.Unmarshal(data, &v); err != nil {
		return err
	}
	*n = NetStats{Packets: v.Packets, Flits: v.Flits, FlitHops: v.FlitHops, Channels: v.Channels, MeanLoad: v.MeanLoad}
	if v.Busiest != nil && v.BusiestLoad != nil {
		n.Busiest, n.BusiestLoad = *v.Busiest, *v.BusiestLoad
	}
	return nil
}

// stringOrNull is s for JSON, null when empty (no result).
func stringOrNull(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func orElse(p *int64, v int64) int64 {
	if p == nil {
		return v
	}
	return *p
}

// episodeJSON is EpisodeResult as JSON: last_release null while the
// episode is not complete, first_arrival null when no rank arrives.
type episodeJSON struct {
	Episode       int    `json:"episode"`
	Collective    string `json:"collective"`
	FirstArrival  *int64 `json:"first_arrival"`
	LastArrival   *int64 `json:"last_arrival"`
	LastRelease   *int64 `json:"last_release"`
	Latency       *int64 `json:"latency"`
	ReleaseSpread *int64 `json:"release_spread"`
	ConfigCycles  int64  `json:"config_cycles"`
}

// MarshalJSON writes last_release as null while the episode is not
// complete, first_arrival as null when no rank arrives (Never).
func (e EpisodeResult) MarshalJSON() ([]byte, error) {
	return json.Marshal(episodeJSON{e.Episode, e.Collective, cycleOrNull(e.FirstArrival), e.LastArrival,
		cycleOrNull(e.LastRelease), e.Latency, e.ReleaseSpread, e.ConfigCycles})
}

// UnmarshalJSON reads what MarshalJSON writes.
func (e *EpisodeResult) UnmarshalJSON(data []byte) error {
	var v episodeJSON
	if err := json.Unmarshal(data, &v); err != nil {
		return err
	}
	*e = EpisodeResult{Episode: v.Episode, Collective: v.Collective, FirstArrival: orElse(v.FirstArrival, Never),
		LastArrival: v.LastArrival, LastRelease: orElse(v.LastRelease, -1), Latency: v.Latency,
		ReleaseSpread: v.ReleaseSpread, ConfigCycles: v.ConfigCycles}
	return nil
}

// MarshalJSON writes done as null for a step not every rank finished.
func (s StepDone) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Step int    `json:"step"`
		Kind string `json:"kind"`
		Gate int    `json:"gate"`
		Done *int64 `json:"done"`
	}{s.Step, s.Kind, s.Gate, cycleOrNull(s.Done)})
}

// UnmarshalJSON reads what MarshalJSON writes.
func (s *StepDone) UnmarshalJSON(data []byte) error {
	var v struct {
		Step int    `json:"step"`
		Kind string `json:"kind"`
		Gate int    `json:"gate"`
		Done *int64 `json:"done"`
	}
	if err := json.Unmarshal(data, &v); err != nil {
		return err
	}
	*s = StepDone{Step: v.Step, Kind: v.Kind, Gate: v.Gate, Done: orElse(v.Done, -1)}
	return nil
}

// maxArrival is the last of the arrival cycles (Never if any is Never).
func maxArrival(arrive []int64) int64 {
	if len(arrive) == 0 {
		return -1
	}
	return slices.Max(arrive)
}

// faultJSON is FaultResult as JSON: first is null for a fault that hit
// nothing, hit says whether it hit (a stuck rank: true).
type faultJSON struct {
	Spec         string       `json:"spec"`
	Hit          bool         `json:"hit"`
	Hits         int          `json:"hits"`
	First        *int64       `json:"first"`
	Effect       string       `json:"effect"`
	Packet       *FaultPacket `json:"packet"`
	Misrouted    *Misroute    `json:"misrouted"`
	DetectedBy   *ErrorResult `json:"detected_by"`
	Replays      *int         `json:"replays"`
	ReplayCycles *int64       `json:"replay_cycles"`
}

// MarshalJSON writes null for what did not happen (first, packet,
// misrouted, detected_by, replays).
func (f FaultResult) MarshalJSON() ([]byte, error) {
	hit := f.Hits > 0 || strings.HasPrefix(f.Spec, hw.FaultStuck+":")
	return json.Marshal(faultJSON{f.Spec, hit, f.Hits, cycleOrNull(f.First), f.Effect, f.Packet, f.Misrouted,
		f.DetectedBy, f.Replays, f.ReplayCycles})
}

// UnmarshalJSON reads what MarshalJSON writes.
func (f *FaultResult) UnmarshalJSON(data []byte) error {
	var v faultJSON
	if err := json.Unmarshal(data, &v); err != nil {
		return err
	}
	*f = FaultResult{Spec: v.Spec, Hits: v.Hits, First: orElse(v.First, -1), Effect: v.Effect, Packet: v.Packet,
		Misrouted: v.Misrouted, DetectedBy: v.DetectedBy, Replays: v.Replays, ReplayCycles: v.ReplayCycles}
	return nil
}
