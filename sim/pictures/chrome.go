package pictures

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strconv"

	"github.com/hxbar/hxbar/barrierunit"
	"github.com/hxbar/hxbar/sim"
)

// Chrome writes a run as Chrome trace-event JSON (the JSON Object Format:
// {"traceEvents": [...], "displayTimeUnit": "ns", "otherData": {...}}), one
// cycle being one microsecond of trace time (ts and dur are in
// microseconds). Process 1 is the system; thread r is rank r, named by a
// thread_name metadata event. Per rank:
//
//   - "arrive" and "release": instant events ("i", scope thread);
//   - "gate g": a complete event ("X") per gate wait, from the cycle the
//     rank passed gate g-1 (its arrival passes gate 1) to the cycle it
//     passed gate g (its release passes the end gate), so dur >= 0;
//   - "send" and "recv": complete events of duration 0 at the cycles of
//     the trace's send and recv events, joined by a flow ("s" on the
//     sender, "f" with "bp": "e" on the receiver, one id per message);
//     a send pairs with the next recv of the same (sender, receiver, gate),
//     and the flow is written with the recv (a message never received,
//     in a run stopped by max_cycles, has no flow).
//
// A unit's error is an instant event "error NAME" on its rank's thread
// (the process's for a node without a rank), args its code, name, node,
// gate and source rank (null where the error names none: no gate, or an
// OVER the gate check found), written at Close. At Close, global instant events mark each
// episode's first arrival, and instant events "fault SPEC" each injected
// fault (faultMarks): a stuck rank on its thread at cycle 0, a channel's
// fault on the process at its first hit.
// Events are written as they come, so memory stays bounded by the ranks
// and the messages in flight.
type Chrome struct {
	w      *bufio.Writer
	run    Run
	rankOf []int32
	passed []int64              // per rank: cycle of the last gate passed (-1: not arrived)
	gate   []uint8              // per rank: that gate
	ep     []int32              // per rank: episode of the last arrival
	flows  map[[3]int32][]int64 // (sender, receiver, gate) -> send cycles not yet received
	nextID uint64
	first  bool
	errs   []barrierunit.Event // the units' error events, written at Close
	err    error
}

type chromeEvent struct {
	Name string         `json:"name"`
	Cat  string         `json:"cat,omitempty"`
	Ph   string         `json:"ph"`
	Ts   int64          `json:"ts"`
	Dur  *int64         `json:"dur,omitempty"`
	Pid  int            `json:"pid"`
	Tid  int32          `json:"tid"`
	S    string         `json:"s,omitempty"`
	ID   uint64         `json:"id,omitempty"`
	Bp   string         `json:"bp,omitempty"`
	Args map[string]any `json:"args,omitempty"`
}

// NewChrome starts the trace of run r on w; it writes the process and
// thread names at once.
func NewChrome(w io.Writer, r Run) *Chrome {
	R := len(r.NodeOf)
	c := &Chrome{w: bufio.NewWriterSize(w, 1<<16), run: r, rankOf: r.rankOf(), passed: make([]int64, R), gate: make([]uint8, R),
		ep: make([]int32, R), flows: map[[3]int32][]int64{}, first: true}
	for i := range c.passed {
		c.passed[i] = -1
	}
	c.w.WriteString("{\"traceEvents\":[\n")
	c.emit(chromeEvent{Name: "process_name", Ph: "M", Pid: 1, Args: map[string]any{"name": r.Title}})
	for rank, node := range r.NodeOf {
		name := fmt.Sprintf("rank %d (node %d)", rank, node)
		if rank < len(r.Label) {
			name = fmt.Sprintf("rank %d (node %d): %s", rank, node, r.Label[rank])
		}
		c.emit(chromeEvent{Name: "thread_name", Ph: "M", Pid: 1, Tid: int32(rank), Args: map[string]any{"name": name}})
		c.emit(chromeEvent{Name: "thread_sort_index", Ph: "M", Pid: 1, Tid: int32(rank), Args: map[string]any{"sort_index": rank}})
	}
	return c
}

func (c *Chrome) emit(e chromeEvent) {
	if c.err != nil {
		return
	}
	b, err := json.Marshal(e)
	if err != nil {
		c.err = err
		return
	}
	if !c.first {
		c.w.WriteString(",\n")
	}
	c.first = false
	_, c.err = c.w.Write(b)
}

func hex(v uint64) string { return "0x" + strconv.FormatUint(v, 16) }

// Add writes one cycle's events (sim.Options.Events).
func (c *Chrome) Add(evs []barrierunit.Event) {
	for _, e := range evs {
		if c.run.EventRank != nil && e.Kind != barrierunit.EvError && c.run.EventRank(e) < 0 {
			continue // no rank of the run (a garbled source without a check code)
		}
		switch e.Kind {
		case barrierunit.EvArrive:
			r := e.Rank
			c.ep[r]++
			c.passed[r], c.gate[r] = e.Cycle, 1
			c.emit(chromeEvent{Name: "arrive", Cat: "rank", Ph: "i", S: "t", Ts: e.Cycle, Pid: 1, Tid: r,
				Args: map[string]any{"episode": c.ep[r], "value": hex(e.Value)}})
		case barrierunit.EvGate, barrierunit.EvRelease:
			r := c.run.ownRank(c.rankOf, e)
			g := e.Gate
			if g == 0 {
				g = c.gate[r] + 1
			}
			if c.passed[r] >= 0 {
				dur := e.Cycle - c.passed[r]
				c.emit(chromeEvent{Name: "gate " + strconv.Itoa(int(g)), Cat: "gate", Ph: "X", Ts: c.passed[r], Dur: &dur, Pid: 1, Tid: r,
					Args: map[string]any{"episode": c.ep[r], "value": hex(e.Value)}})
			}
			c.passed[r], c.gate[r] = e.Cycle, g
			if e.Kind == barrierunit.EvRelease {
				c.emit(chromeEvent{Name: "release", Cat: "rank", Ph: "i", S: "t", Ts: e.Cycle, Pid: 1, Tid: r,
					Args: map[string]any{"episode": c.ep[r], "value": hex(e.Value)}})
				c.passed[r] = -1
			}
		case barrierunit.EvSend:
			r := c.run.ownRank(c.rankOf, e)
			var zero int64
			k := [3]int32{r, e.Rank, int32(e.Gate)}
			c.flows[k] = append(c.flows[k], e.Cycle)
			c.emit(chromeEvent{Name: "send", Cat: "msg", Ph: "X", Ts: e.Cycle, Dur: &zero, Pid: 1, Tid: r, Args: map[string]any{"to": e.Rank, "gate": e.Gate}})
		case barrierunit.EvRecv:
			r := c.run.ownRank(c.rankOf, e)
			var zero int64
			c.emit(chromeEvent{Name: "recv", Cat: "msg", Ph: "X", Ts: e.Cycle, Dur: &zero, Pid: 1, Tid: r,
				Args: map[string]any{"from": e.Rank, "gate": e.Gate, "value": hex(e.Value)}})
			k := [3]int32{e.Rank, r, int32(e.Gate)}
			if q := c.flows[k]; len(q) > 0 {
				// The flow is written when both ends are known, so every
				// start has its finish.
				c.nextID++
				c.emit(chromeEvent{Name: "message", Cat: "msg", Ph: "s", Ts: q[0], Pid: 1, Tid: e.Rank, ID: c.nextID})
				c.emit(chromeEvent{Name: "message", Cat: "msg", Ph: "f", Bp: "e", Ts: e.Cycle, Pid: 1, Tid: r, ID: c.nextID})
				if len(q) == 1 {
					delete(c.flows, k)
				} else {
					c.flows[k] = q[1:]
				}
			}
		case barrierunit.EvError:
			c.errs = append(c.errs, e) // written at Close, with what res.Errors says of it
		}
	}
}

// errorEvent is the instant event of a unit's error: on the thread of the
// node's rank, on the process for a node without one.
func (c *Chrome) errorEvent(e barrierunit.Event, errs []sim.ErrorResult) chromeEvent {
	ev := chromeEvent{Name: "error " + barrierunit.ErrName(uint8(e.Value)), Cat: "error", Ph: "i", S: "p", Ts: e.Cycle, Pid: 1, Args: errorArgs(e, errs)}
	switch {
	case c.run.EventRank != nil: // communicators: the channel that raised it, as the result names it
		for _, er := range errs {
			if er.Cycle == e.Cycle && er.Node == int(e.Node) && er.Code == barrierunit.ErrName(uint8(e.Value)) {
				if er.Rank >= 0 {
					ev.S, ev.Tid = "t", int32(er.Rank)
				}
				break
			}
		}
	case int(e.Node) < len(c.rankOf) && c.rankOf[e.Node] >= 0:
		ev.S, ev.Tid = "t", c.rankOf[e.Node]
	}
	return ev
}

// faultEvents are the instant events of res's faults (faultMarks), args
// the spec, the flits it hit and the cycle of the first (null: none).
func (c *Chrome) faultEvents(res *sim.Result) {
	for _, m := range faultMarks(res, len(c.passed)) {
		var first any // null when it hit nothing: no sentinel
		if m.first >= 0 {
			first = m.first
		}
		ev := chromeEvent{Name: "fault " + m.spec, Cat: "fault", Ph: "i", S: "p", Ts: m.cycle, Pid: 1,
			Args: map[string]any{"spec": m.spec, "hits": m.hits, "first": first}}
		if m.rank >= 0 {
			ev.S, ev.Tid = "t", m.rank
		}
		c.emit(ev)
	}
}

// Close marks the episodes of res and ends the JSON document.
func (c *Chrome) Close(res *sim.Result) error {
	for _, e := range res.Episodes {
		var lastRelease any // null while the episode is not complete: no sentinel
		if e.LastRelease >= 0 {
			lastRelease = e.LastRelease
		}
		c.emit(chromeEvent{Name: "episode " + strconv.Itoa(e.Episode), Cat: "episode", Ph: "i", S: "g", Ts: e.FirstArrival, Pid: 1,
			Args: map[string]any{"collective": e.Collective, "config_cycles": e.ConfigCycles, "last_release": lastRelease}})
	}
	for _, e := range c.errs {
		c.emit(c.errorEvent(e, res.Errors))
	}
	c.faultEvents(res)
	if c.err != nil {
		return c.err
	}
	c.w.WriteString("\n],\"displayTimeUnit\":\"ns\",\"otherData\":{\"generator\":\"hxbar sim\",\"time\":\"1 cycle = 1 us of trace time\"}}\n")
	return c.w.Flush()
}
