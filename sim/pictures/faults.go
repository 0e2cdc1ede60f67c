package pictures

import (
	"fmt"
	"image/color"

	"github.com/hxbar/hxbar/barrierunit"
	"github.com/hxbar/hxbar/hw"
	"github.com/hxbar/hxbar/sim"
)

// faultMark is where the pictures mark an injected fault (sim.Result
// Faults): a channel fault at the cycle of its first hit, or at the cycle
// its spec names when it hit nothing; a stuck rank on its rank at cycle 0
// (it never arrives).
type faultMark struct {
	spec  string
	cycle int64
	rank  int32 // stuck: the rank; -1 for a channel's fault
	hits  int
	first int64 // -1: hit nothing
	label string
}

// faultMarks lists the marks of res's faults, in res's order. A fault
// whose spec names no cycle and that hit nothing has no place: it is left
// out.
func faultMarks(res *sim.Result, ranks int) []faultMark {
	var out []faultMark
	for _, f := range res.Faults {
		m := faultMark{spec: f.Spec, cycle: f.First, rank: -1, hits: f.Hits, first: f.First, label: f.Spec}
		p, err := hw.ParseFault(f.Spec)
		switch {
		case err == nil && p.Kind == hw.FaultStuck:
			if p.Rank >= ranks {
				continue
			}
			m.cycle, m.rank, m.label = 0, int32(p.Rank), f.Spec+" (never arrives)"
		case f.First >= 0:
		case err == nil:
			m.cycle, m.label = p.Cycle, f.Spec+" (hit nothing)"
		default:
			continue
		}
		out = append(out, m)
	}
	return out
}

// faultColor marks faults in the timeline.
var faultColor = color.RGBA{0xc0, 0x1c, 0xc0, 0xff}

// errorColor is the colour of an error code's marks: the detection codes
// of docs/reliability.md apart, the configuration errors in one colour.
func errorColor(code uint8) color.RGBA {
	switch code {
	case barrierunit.ErrCRC:
		return color.RGBA{0xff, 0x7f, 0x0e, 0xff}
	case barrierunit.ErrTimeout:
		return color.RGBA{0x00, 0x00, 0x00, 0xff}
	case barrierunit.ErrFlits, barrierunit.ErrSeq:
		return color.RGBA{0x8c, 0x56, 0x4b, 0xff}
	case barrierunit.ErrOver:
		return color.RGBA{0x94, 0x67, 0xbd, 0xff}
	}
	return color.RGBA{0x7f, 0x7f, 0x7f, 0xff}
}

// errorArgs are the Chrome args of a unit's error event.
// The gate and the source are null where the error names none (the
// trace, like the RTL's, has 0 there): an error of no gate, and an OVER
// the gate check found (sim.ErrorResult.NoFrom, looked up in errs).
func errorArgs(e barrierunit.Event, errs []sim.ErrorResult) map[string]any {
	name := barrierunit.ErrName(uint8(e.Value))
	var gate, from any = e.Gate, e.Rank
	if e.Gate == 0 {
		gate, from = nil, nil
	}
	for _, r := range errs {
		if r.Cycle == e.Cycle && r.Node == int(e.Node) && r.Code == name {
			if r.NoFrom {
				from = nil
			}
			break
		}
	}
	return map[string]any{"code": e.Value, "name": name, "node": e.Node, "gate": gate, "from": from}
}

// errorLabel is "error NAME (code N)": the legend entry of a code.
func errorLabel(code uint8) string {
	return fmt.Sprintf("error %s (code %d)", barrierunit.ErrName(code), code)
}
