package sweep

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/hxbar/hxbar/design"
	"github.com/hxbar/hxbar/hw"
	"github.com/hxbar/hxbar/internal/version"
	"github.com/hxbar/hxbar/noc"
	"github.com/hxbar/hxbar/sim"
)

// Measures are the fields a sweep can keep of a run: the scalar fields of
// 'hxbar sim --format json' (top level, network, data) under their JSON
// names, a loop's iterations, avg_period and avg_latency, plus three the
// table of 'hxbar sim' derives from the nodes:
// last_arrival, latency (last arrival -> last release) and release_spread
// (first -> last release). A field that does not apply is null (an empty
// CSV cell): latency and release_spread of a run that did not complete,
// items_moved, items_received and cost of a barrier, last_arrival of a run
// in which no rank arrived. error is the code of the first unit error
// (TIMEOUT, CRC, ...: docs/microarchitecture.md, "Error paths"), "" when
// none: a run that ends in an error is a result, not a failure.
type Measures struct {
	Cycles             int64    `json:"cycles"`
	Ranks              int      `json:"ranks"`
	Complete           bool     `json:"complete"`
	Error              string   `json:"error"`
	Released           int      `json:"released"`
	Episodes           int      `json:"episodes"`
	LastArrival        *int64   `json:"last_arrival"`
	Latency            *int64   `json:"latency"`
	ReleaseSpread      *int64   `json:"release_spread"`
	Packets            uint64   `json:"packets"`
	Flits              uint64   `json:"flits"`
	FlitHops           uint64   `json:"flit_hops"`
	Channels           int      `json:"channels"`
	MeanChannelLoad    float64  `json:"mean_channel_load"`
	BusiestChannel     *string  `json:"busiest_channel"`
	BusiestChannelLoad *float64 `json:"busiest_channel_load"`
	ItemsMoved         *int     `json:"items_moved"`
	ItemsReceived      *uint64  `json:"items_received"`
	Cost               *int     `json:"cost"`
	// A loop's figures (communicators[0] of 'hxbar sim --format json'):
	// iterations run (started), avg_period (null unless complete) and
	// avg_latency over the iterations that completed. A run without a
	// loop counts its episodes as iterations.
	Iterations int      `json:"iterations"`
	AvgPeriod  *float64 `json:"avg_period"`
	AvgLatency *float64 `json:"avg_latency"`
}

// Fields lists the names measure: accepts, in the order of Measures.
var Fields = sync.OnceValue(func() []string {
	t := reflect.TypeFor[Measures]()
	out := make([]string, t.NumField())
	for i := range out {
		out[i], _, _ = strings.Cut(t.Field(i).Tag.Get("json"), ",")
	}
	return out
})

// Measure extracts the Measures of a run.
func Measure(res *sim.Result) Measures {
	m := Measures{
		Cycles: res.Cycles, Ranks: res.Ranks, Complete: res.Complete, Released: res.Released,
		Episodes: len(res.Episodes), Packets: res.Network.Packets, Flits: res.Network.Flits,
		FlitHops: res.Network.FlitHops, Channels: res.Network.Channels, MeanChannelLoad: res.Network.MeanLoad,
	}
	if n := res.Network; n.Busiest != "" { // none when no flit crossed a channel
		m.BusiestChannel, m.BusiestChannelLoad = &n.Busiest, &n.BusiestLoad
	}
	// One definition of the headline metrics: sim's (docs/microarchitecture.md,
	// "Statistics"); absent where they do not apply.
	m.LastArrival, m.Latency, m.ReleaseSpread = res.LastArrivalCycle, res.LatencyCycles, res.ReleaseSpreadCycles
	if len(res.Errors) > 0 {
		m.Error = res.Errors[0].Code
	}
	if len(res.Communicators) > 0 {
		c := res.Communicators[0]
		m.Iterations, m.AvgPeriod, m.AvgLatency = len(c.Iterations), c.AvgPeriod, c.AvgLatency
	}
	if d := res.Data; d != nil {
		moved, recv, cost := d.ItemsMoved, d.ItemsReceived, d.Cost
		m.ItemsMoved, m.ItemsReceived, m.Cost = &moved, &recv, &cost
	}
	return m
}

// Record is the outcome of one point, as the log of a sweep directory
// holds it: the point's hash, the hxbar version that ran it, its wall time
// and every measured field (JSON values keyed by field name, so a later
// spec may keep others).
type Record struct {
	Hash    string                     `json:"hash"`
	Version string                     `json:"hxbar_version"`
	WallMS  float64                    `json:"wall_ms"`
	Result  map[string]json.RawMessage `json:"result"`
	// Sum is the first 16 hex digits of the SHA-256 of the record's JSON
	// without it: a record edited by hand is refused (parseLog).
	Sum string `json:"sum,omitempty"`
}

// sum is the Sum the record's content has.
func (r Record) sum() string {
	r.Sum = ""
	data, _ := json.Marshal(r)
	h := sha256.Sum256(data)
	return hex.EncodeToString(h[:8])
}

// RunPoint builds and runs one point's system. A run stopped by max_cycles
// or by a unit's error (a watchdog TIMEOUT, a CRC error) is a result
// (complete false, error the code), not an error.
func RunPoint(p *Point) (Record, error) {
	start := time.Now()
	system, err := sim.Build(p.Sys, nil)
	if err != nil {
		return Record{}, err
	}
	res, err := system.Run(sim.Options{})
	_, stuck := errors.AsType[*sim.StuckError](err)
	_, unit := errors.AsType[*sim.UnitError](err)
	if err != nil && (!stuck && !unit || res == nil) {
		return Record{}, err
	}
	wall := time.Since(start)
	m := Measure(res)
	data, err := json.Marshal(m)
	if err != nil {
		return Record{}, err
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(data, &fields); err != nil {
		return Record{}, err
	}
	return Record{Hash: p.Hash, Version: version.String(), WallMS: roundMS(wall), Result: fields}, nil
}

// roundMS is a duration in milliseconds to the microsecond.
func roundMS(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// Check runs the checks of sim.Build on a point without running it: the
// system is assembled (for systems of at most checkBuildNodes nodes) or, for
// larger ones, the data schedules are generated (the part of sim.Build that
// refuses systems hw.Validate accepts: an order that does not fit the ranks
// and items, ...). Systems above the cycle model's size are refused.
func Check(p *Point) error {
	if p.Sys.Nodes() <= checkBuildNodes {
		_, err := sim.Build(p.Sys, nil)
		return err
	}
	if n := p.Sys.Nodes(); n > sim.MaxModelNodes {
		return fmt.Errorf("invalid dims: %v = %d nodes (allowed: at most %d nodes for the cycle model)", p.Sys.Dims, n, sim.MaxModelNodes)
	}
	for k := 1; k <= max(len(p.Sys.Episodes), 1); k++ {
		if e := p.Sys.EpisodeSystem(k); e.IsData() {
			if _, err := design.DataSchedule(&e); err != nil {
				return err
			}
		}
	}
	return nil
}

// CheckAll checks every point before any runs, whatever its size: Check,
// and for the points Check does not assemble, the channel names of their
// faults and avoid lists, in one pass over the channels of each distinct
// network (no index of every name is built). The first bad point, in point
// order, is the error, naming the point and the field.
func (s *Spec) CheckAll() error {
	type use struct {
		point int
		field string
		value string
	}
	byFabric := map[string][]use{}
	var order []string
	for i := range s.Points {
		p := &s.Points[i]
		if err := Check(p); err != nil {
			return s.Locate(p, err)
		}
		if p.Sys.Nodes() <= checkBuildNodes {
			continue // sim.Build resolved its names
		}
		key := fmt.Sprint(p.Sys.Topology, p.Sys.Dims, p.Sys.Wrap)
		if _, ok := byFabric[key]; !ok {
			order = append(order, key)
		}
		for j, f := range p.Sys.ParsedFaults() {
			if f.Channel != "" {
				byFabric[key] = append(byFabric[key], use{i, fmt.Sprintf("faults[%d]", j), f.Channel})
			}
		}
		for j, a := range p.Sys.Avoid {
			byFabric[key] = append(byFabric[key], use{i, fmt.Sprintf("avoid[%d]", j), a})
		}
	}
	for _, key := range order {
		uses := byFabric[key]
		if len(uses) == 0 {
			continue
		}
		p := &s.Points[uses[0].point]
		fab, err := noc.FabricOf(&p.Sys)
		if err != nil {
			return s.Locate(p, err)
		}
		names := map[string]bool{}
		for _, u := range uses {
			names[u.value] = false
		}
		markChannels(fab, names)
		for _, u := range uses { // in point order
			if !names[u.value] {
				p := &s.Points[u.point]
				return s.Locate(p, &hw.FieldError{Field: u.field, Value: fmt.Sprintf("%q", u.value),
					Allowed: fmt.Sprintf("a channel of this %s (hxbar check --channels lists them)", fab.Name())})
			}
		}
	}
	return nil
}

// markChannels sets names[n] for every name in names that is a channel of
// f, naming the channels one at a time (noc.Channels' names).
func markChannels(f noc.Fabric, names map[string]bool) {
	for sw := range f.NumSwitches() {
		for port := range f.Ports(sw) {
			if n := noc.ChannelName(f, sw, port); !names[n] {
				if _, ok := names[n]; ok {
					names[n] = true
				}
			}
		}
	}
	for v := range f.NumNodes() {
		n := "n" + strconv.Itoa(v) + ".inject"
		if _, ok := names[n]; ok {
			names[n] = true
		}
	}
}

// checkBuildNodes is the largest system Check assembles in full (a few
// milliseconds); larger ones get the cheaper checks only.
const checkBuildNodes = 1 << 12
