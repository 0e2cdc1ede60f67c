package sim

import (
	"bufio"
	"fmt"
	"io"
	"strconv"

	"github.com/hxbar/hxbar/barrierunit"
)

// vcdWriter writes the barrier units' signals as a VCD: per node the gate
// passed (cur), the carried value (acc), released, and one-cycle pulses for
// arrive, send and recv. Time is in ns with a 10 ns clock; the value written
// by the edge that ends cycle t appears at time 10*(t+1).
type vcdWriter struct {
	w      *bufio.Writer
	ids    map[[2]int32]string // (node, signal) -> identifier; (rank, signal) in a run of communicators
	pulsed []string            // pulse signals raised by the last event cycle
	last   int64
	rel    map[int32]bool // nodes (ranks) whose released is 1 (until their next episode's arrival)
	// unit is the key of the unit an event is about: its node, or in a
	// run of communicators its rank (a scope per channel: n<node>_ch<c>);
	// -1: none.
	unit func(barrierunit.Event) int32
}

const (
	sigGate = iota
	sigAcc
	sigReleased
	sigArrive
	sigSend
	sigRecv
	sigCount
)

var sigNames = [sigCount]struct {
	name  string
	width int
}{{"gate", 6}, {"acc", 64}, {"released", 1}, {"arrive", 1}, {"send", 1}, {"recv", 1}}

func vcdID(n int) string {
	var b []byte
	for {
		b = append(b, byte('!'+n%94))
		n /= 94
		if n == 0 {
			return string(b)
		}
	}
}

func newVCD(out io.Writer, s *System) *vcdWriter {
	v := &vcdWriter{w: bufio.NewWriter(out), ids: map[[2]int32]string{}, last: -1,
		unit: func(e barrierunit.Event) int32 { return e.Node }}
	key := func(r int) int32 { return s.Units.NodeOf[r] }
	if s.comms != nil {
		v.unit, key = s.EventRank, func(r int) int32 { return int32(r) }
	}
	fmt.Fprintf(v.w, "$comment hxbar barrier units: %s $end\n$timescale 1ns $end\n$scope module hxbar $end\n", s.Sys.Title())
	id := 0
	for r := 0; r < s.Table.Ranks; r++ {
		node := s.Units.NodeOf[r]
		if s.comms != nil {
			fmt.Fprintf(v.w, "$scope module n%d_ch%d $end\n", node, s.Units.Chan[r])
		} else {
			fmt.Fprintf(v.w, "$scope module n%d $end\n", node)
		}
		for k := 0; k < sigCount; k++ {
			sid := vcdID(id)
			id++
			v.ids[[2]int32{key(r), int32(k)}] = sid
			fmt.Fprintf(v.w, "$var wire %d %s %s $end\n", sigNames[k].width, sid, sigNames[k].name)
		}
		fmt.Fprintf(v.w, "$upscope $end\n")
	}
	fmt.Fprintf(v.w, "$upscope $end\n$enddefinitions $end\n#0\n$dumpvars\n")
	for r := 0; r < s.Table.Ranks; r++ {
		for k := 0; k < sigCount; k++ {
			v.value(v.ids[[2]int32{key(r), int32(k)}], sigNames[k].width, 0)
		}
	}
	fmt.Fprintf(v.w, "$end\n")
	return v
}

func (v *vcdWriter) value(id string, width int, x uint64) {
	if width == 1 {
		fmt.Fprintf(v.w, "%d%s\n", x&1, id)
		return
	}
	fmt.Fprintf(v.w, "b%s %s\n", strconv.FormatUint(x, 2), id)
}

// cycle records the events written by the edge that ends cycle t.
func (v *vcdWriter) cycle(t int64, evs []barrierunit.Event) {
	v.clearPulses(t)
	v.last = t
	for _, e := range evs {
		u := v.unit(e)
		if _, ok := v.ids[[2]int32{u, sigGate}]; !ok {
			continue // no unit with signals (an error of a communicators run's node, a garbled source)
		}
		id := func(k int) string { return v.ids[[2]int32{u, int32(k)}] }
		pulse := func(k int) {
			v.value(id(k), 1, 1)
			v.pulsed = append(v.pulsed, id(k))
		}
		switch e.Kind {
		case barrierunit.EvArrive:
			pulse(sigArrive)
			if v.rel[u] { // the next episode re-arms the unit
				v.value(id(sigReleased), 1, 0)
				delete(v.rel, u)
			}
			v.value(id(sigGate), 6, 1)
			v.value(id(sigAcc), 64, e.Value)
		case barrierunit.EvGate:
			v.value(id(sigGate), 6, uint64(e.Gate))
			v.value(id(sigAcc), 64, e.Value)
		case barrierunit.EvRelease:
			v.value(id(sigGate), 6, uint64(e.Gate))
			v.value(id(sigAcc), 64, e.Value)
			v.value(id(sigReleased), 1, 1)
			if v.rel == nil {
				v.rel = map[int32]bool{}
			}
			v.rel[u] = true
		case barrierunit.EvSend:
			pulse(sigSend)
		case barrierunit.EvRecv:
			pulse(sigRecv)
		}
	}
}

// clearPulses lowers the pulses of the last event cycle one cycle later and
// moves the time to cycle t's edge (the later value at one time wins).
func (v *vcdWriter) clearPulses(t int64) {
	now := 10 * (t + 1)
	if len(v.pulsed) > 0 {
		if drop := 10 * (v.last + 2); drop < now {
			fmt.Fprintf(v.w, "#%d\n", drop)
		} else {
			fmt.Fprintf(v.w, "#%d\n", now)
			now = -1
		}
		for _, id := range v.pulsed {
			fmt.Fprintf(v.w, "0%s\n", id)
		}
		v.pulsed = v.pulsed[:0]
	}
	if now >= 0 {
		fmt.Fprintf(v.w, "#%d\n", now)
	}
}

func (v *vcdWriter) finish(cycles int64) error {
	v.clearPulses(cycles + 1)
	return v.w.Flush()
}
