package testbench

import (
	"bufio"
	"bytes"
	"fmt"
	"strconv"
	"strings"

	"github.com/hxbar/hxbar/barrierunit"
	"github.com/hxbar/hxbar/sim"
)

// kindNames are the trace keywords of the event kinds, indexed by
// barrierunit.EvArrive .. EvError (the canonical order within a node and cycle).
var kindNames = [...]string{
	barrierunit.EvArrive:  "arrive",
	barrierunit.EvGate:    "gate",
	barrierunit.EvRelease: "release",
	barrierunit.EvSend:    "send",
	barrierunit.EvRecv:    "recv",
	barrierunit.EvError:   "error",
}

// ParseEvent reads one trace line (without its newline) in the format of
// docs/microarchitecture.md, "Trace". Only the fields the text carries are
// set: Gate is 0 for arrive and release, Rank is 0 for gate, Value is 0 for
// send; an error's code is in Value, its source in Rank. A line is accepted only if sim.AppendEvent writes it back byte for
// byte, so every accepted line is in canonical form.
func ParseEvent(line string) (barrierunit.Event, error) {
	var e barrierunit.Event
	f := strings.Fields(line)
	if len(f) < 3 {
		return e, fmt.Errorf("trace line %q: want \"<cycle> n<node> <event> <fields>\"", line)
	}
	c, err := strconv.ParseInt(f[0], 10, 64)
	if err != nil || c < 0 {
		return e, fmt.Errorf("trace line %q: cycle %q is not a non-negative decimal", line, f[0])
	}
	e.Cycle = c
	if !strings.HasPrefix(f[1], "n") {
		return e, fmt.Errorf("trace line %q: node %q does not start with n", line, f[1])
	}
	n, err := strconv.ParseInt(f[1][1:], 10, 32)
	if err != nil || n < 0 {
		return e, fmt.Errorf("trace line %q: node %q is not n<decimal>", line, f[1])
	}
	e.Node = int32(n)
	kind := -1
	for k, name := range kindNames {
		if f[2] == name {
			kind = k
		}
	}
	if kind < 0 {
		return e, fmt.Errorf("trace line %q: event %q (allowed: arrive, gate, release, send, recv, error)", line, f[2])
	}
	e.Kind = uint8(kind)
	var keys []string
	switch e.Kind {
	case barrierunit.EvArrive, barrierunit.EvRelease:
		keys = []string{"rank", "value"}
	case barrierunit.EvGate:
		keys = []string{"g", "value"}
	case barrierunit.EvSend:
		keys = []string{"to", "gate"}
	case barrierunit.EvRecv:
		keys = []string{"from", "gate", "value"}
	case barrierunit.EvError:
		keys = []string{"code", "name", "gate", "from"}
	}
	if len(f) != 3+len(keys) {
		return e, fmt.Errorf("trace line %q: %s takes the fields %s", line, f[2], strings.Join(keys, "=, ")+"=")
	}
	for i, k := range keys {
		v, ok := strings.CutPrefix(f[3+i], k+"=")
		if !ok {
			return e, fmt.Errorf("trace line %q: field %d is %q, want %s=", line, i+1, f[3+i], k)
		}
		switch k {
		case "value":
			x, err := strconv.ParseUint(v, 16, 64)
			if err != nil || len(v) != 16 {
				return e, fmt.Errorf("trace line %q: value %q is not 16 hex digits", line, v)
			}
			e.Value = x
		case "code":
			x, err := strconv.ParseUint(v, 10, 8)
			if err != nil || x == 0 {
				return e, fmt.Errorf("trace line %q: code %q (allowed: 1..255)", line, v)
			}
			e.Value = x
		case "name":
			// The code's name (barrierunit.ErrName): the canonical check
			// below holds it to the code.
		case "g", "gate":
			x, err := strconv.ParseUint(v, 10, 8)
			if err != nil || x >= 1<<6 {
				return e, fmt.Errorf("trace line %q: gate %q (allowed: 0..63)", line, v)
			}
			e.Gate = uint8(x)
		default: // rank, to, from
			x, err := strconv.ParseInt(v, 10, 32)
			if err != nil || x < 0 {
				return e, fmt.Errorf("trace line %q: %s %q is not a rank", line, k, v)
			}
			e.Rank = int32(x)
		}
	}
	if back := sim.AppendEvent(nil, e); string(back[:len(back)-1]) != line {
		return e, fmt.Errorf("trace line %q is not in canonical form (want %q)", line, back[:len(back)-1])
	}
	return e, nil
}

// ParseTrace reads a whole trace (one event a line, as sim.System.Run
// writes it). Empty lines are an error: a trace has none.
func ParseTrace(data []byte) ([]barrierunit.Event, error) { return parseTrace(data, false) }

// ParseChannelTrace is ParseTrace for a run of communicators, whose node
// has a unit per channel: several events of a kind at a node in a cycle
// (in channel order, which the trace does not show) are allowed.
func ParseChannelTrace(data []byte) ([]barrierunit.Event, error) { return parseTrace(data, true) }

func parseTrace(data []byte, channels bool) ([]barrierunit.Event, error) {
	var evs []barrierunit.Event
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 1<<16), 1<<20)
	line := 0
	for sc.Scan() {
		line++
		e, err := ParseEvent(sc.Text())
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", line, err)
		}
		if k := len(evs); k > 0 && !canonicalBefore(evs[k-1], e, channels) {
			return nil, fmt.Errorf("line %d: event %q out of canonical order (by cycle, node, then arrive, gate, release, send, recv, error)", line, sc.Text())
		}
		evs = append(evs, e)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	return evs, nil
}

// canonicalBefore reports whether a strictly precedes b in the canonical
// trace order (at most one event of a kind per node and cycle, unless the
// node has channels).
func canonicalBefore(a, b barrierunit.Event, channels bool) bool {
	if a.Cycle != b.Cycle {
		return a.Cycle < b.Cycle
	}
	if a.Node != b.Node {
		return a.Node < b.Node
	}
	return a.Kind < b.Kind || channels && a.Kind == b.Kind
}

// FormatEvent is the trace line of e, without the newline.
func FormatEvent(e barrierunit.Event) string {
	b := sim.AppendEvent(nil, e)
	return string(b[:len(b)-1])
}

// Lines splits a trace into its lines (no trailing empty line).
func Lines(trace []byte) []string {
	s := strings.TrimSuffix(string(trace), "\n")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}
