package main

import (
	"github.com/hxbar/hxbar/internal/version"

	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"

	"github.com/hxbar/hxbar/barrierunit"
	"github.com/hxbar/hxbar/hw"
	"github.com/hxbar/hxbar/sim"
)

// Large JSON documents (a schedule of millions of routes, a run of millions
// of nodes) are written piece by piece: json.Encoder builds the whole
// document in memory first, which for 2^22 ranks is tens of GiB on top of
// the model. The output is byte for byte what an Encoder with
// SetIndent("", "  ") writes (TestStreamedJSONMatchesEncoder).

// appendElem appends element i of a streamed array, indented as the
// encoder would indent it at depth 2 (its first line without the prefix).
type appendElem func(b []byte, i int) []byte

// writeJSONArrayField writes head as indented JSON, with the top-level
// array field key (empty, non-nil, in head) replaced by n elements written
// one by one through a buffer, then a newline. Memory: head's encoding and
// one element at a time.
func writeJSONArrayField(w io.Writer, head any, key string, n int, elem appendElem) error {
	return writeJSONArrayEach(w, head, key, func(emit func(appendElem) error) error {
		for i := range n {
			if err := emit(func(b []byte, _ int) []byte { return elem(b, i) }); err != nil {
				return err
			}
		}
		return nil
	})
}

// writeJSONArrayEach is writeJSONArrayField for elements that each hands
// out one by one (emit appends the next, its index the count so far), so
// that they need not exist all at once: a schedule's routes are generated
// while they are written.
func writeJSONArrayEach(w io.Writer, head any, key string, each func(emit func(appendElem) error) error) error {
	doc, err := json.MarshalIndent(head, "", "  ")
	if err != nil {
		return err
	}
	mark := []byte("\n  " + strconv.Quote(key) + ": []")
	at := bytes.Index(doc, mark)
	if at < 0 {
		return fmt.Errorf("streaming JSON: no empty top-level field %q to fill", key)
	}
	bw := bufio.NewWriterSize(w, 1<<16)
	bw.Write(doc[:at+len(mark)-2])
	var b []byte
	i := 0
	err = each(func(elem appendElem) error {
		b = b[:0]
		if i == 0 {
			b = append(b, "[\n    "...)
		} else {
			b = append(b, ",\n    "...)
		}
		b = elem(b, i)
		i++
		_, err := bw.Write(b)
		return err
	})
	if err != nil {
		return err
	}
	if i == 0 {
		bw.WriteString("[]")
	} else {
		bw.WriteString("\n  ]")
	}
	bw.Write(doc[at+len(mark):])
	bw.WriteByte('\n')
	return bw.Flush()
}

// jsonInt appends `"key": v` on its own line at depth 3 (inside an element).
func jsonInt(b []byte, key string, v int64, last bool) []byte {
	b = append(b, "\n      \""...)
	b = append(b, key...)
	b = append(b, "\": "...)
	b = strconv.AppendInt(b, v, 10)
	if !last {
		b = append(b, ',')
	}
	return b
}

// jsonCycle is jsonInt for a cycle: null for "never" (negative or
// sim.Never), as sim.NodeResult's MarshalJSON writes it.
func jsonCycle(b []byte, key string, v int64, last bool) []byte {
	b = append(b, "\n      \""...)
	b = append(b, key...)
	b = append(b, "\": "...)
	b = appendCycle(b, v)
	if !last {
		b = append(b, ',')
	}
	return b
}

func appendCycle(b []byte, v int64) []byte {
	if v < 0 || v == sim.Never {
		return append(b, "null"...)
	}
	return strconv.AppendInt(b, v, 10)
}

// jsonCycles is jsonCycle for a list of cycles, one a line as the encoder
// indents them (nil: null).
func jsonCycles(b []byte, key string, v []int64, last bool) []byte {
	b = append(b, "\n      \""...)
	b = append(b, key...)
	b = append(b, "\": "...)
	switch {
	case v == nil:
		b = append(b, "null"...)
	case len(v) == 0:
		b = append(b, "[]"...)
	default:
		b = append(b, '[')
		for i, x := range v {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, "\n        "...)
			b = appendCycle(b, x)
		}
		b = append(b, "\n      ]"...)
	}
	if !last {
		b = append(b, ',')
	}
	return b
}

// jsonString is jsonInt for a string, escaped as encoding/json escapes it.
func jsonString(b []byte, key, v string, last bool) []byte {
	b = append(b, "\n      \""...)
	b = append(b, key...)
	b = append(b, "\": "...)
	plain := true
	for i := 0; i < len(v) && plain; i++ {
		c := v[i]
		plain = c >= 0x20 && c < 0x7f && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&'
	}
	if plain {
		b = append(b, '"')
		b = append(b, v...)
		b = append(b, '"')
	} else {
		q, _ := json.Marshal(v)
		b = append(b, q...)
	}
	if !last {
		b = append(b, ',')
	}
	return b
}

// writeScheduleJSON writes a gate schedule, its routes streamed.
func writeScheduleJSON(w io.Writer, s *barrierunit.Schedule) error {
	if s.Routes == nil {
		return encodeIndented(w, s) // "routes": null
	}
	head := *s
	head.Routes = []barrierunit.Route{}
	return writeJSONArrayField(w, &head, "routes", len(s.Routes), func(b []byte, i int) []byte {
		return appendRoute(b, &s.Routes[i])
	})
}

// writeGeneratedScheduleJSON writes the schedule barrierunit.Generate would
// return, its routes generated as they are written: 4,194,303 ranks are
// 92 million routes, 3.4 GiB as a list, a few KiB this way.
func writeGeneratedScheduleJSON(w io.Writer, algo hw.Algorithm, ranks int) error {
	head, each, err := barrierunit.GenerateEach(algo, ranks)
	if err != nil {
		return usageError{flagSpelled(err, "algo", "ranks")}
	}
	head.Routes = []barrierunit.Route{}
	return writeJSONArrayEach(w, head, "routes", func(emit func(appendElem) error) error {
		var err error
		each(func(r barrierunit.Route) bool {
			err = emit(func(b []byte, _ int) []byte { return appendRoute(b, &r) })
			return err == nil
		})
		return err
	})
}

// appendRoute appends one route as the indenting encoder writes it.
func appendRoute(b []byte, r *barrierunit.Route) []byte {
	b = append(b, '{')
	b = jsonInt(b, "from_rank", int64(r.FromRank), false)
	b = jsonInt(b, "from_gate", int64(r.FromGate), false)
	b = jsonInt(b, "to_rank", int64(r.ToRank), false)
	b = jsonInt(b, "to_gate", int64(r.ToGate), false)
	b = jsonInt(b, "distance", int64(r.Distance), true)
	return append(b, "\n    }"...)
}

// simJSONOut is a run's result with the version that computed it first
// (docs/sweeps.md: rows of two versions are never mixed).
type simJSONOut struct {
	HxbarVersion string `json:"hxbar_version"`
	*sim.Result
}

// writeSimJSON writes a run's result, its nodes streamed.
func writeSimJSON(w io.Writer, res *sim.Result) error {
	if res.Nodes == nil {
		return encodeIndented(w, simJSONOut{version.String(), res}) // "nodes": null
	}
	head := *res
	head.Nodes = []sim.NodeResult{}
	return writeJSONArrayField(w, &simJSONOut{version.String(), &head}, "nodes", len(res.Nodes), func(b []byte, i int) []byte {
		n := &res.Nodes[i]
		b = append(b, '{')
		b = jsonInt(b, "rank", int64(n.Rank), false)
		b = jsonInt(b, "node", int64(n.Node), false)
		b = jsonCycle(b, "arrive", n.Arrive, false)
		b = jsonStringOrNull(b, "operand", n.Operand) // an op without a value: null
		b = jsonCycle(b, "release", n.Release, false)
		b = jsonStringOrNull(b, "result", n.Result) // not released, or no value: null
		comm := n.Communicator != ""
		b = jsonCycles(b, "releases", n.Releases, !comm)
		if comm { // a run of communicators: whose rank it is (sim.NodeResult's MarshalJSON)
			b = jsonString(b, "communicator", n.Communicator, false)
			b = jsonInt(b, "comm_rank", int64(*n.CommRank), false)
			b = jsonInt(b, "system_rank", int64(*n.SystemRank), false)
			b = jsonInt(b, "channel", int64(*n.Channel), true)
		}
		return append(b, "\n    }"...)
	})
}

// jsonStringOrNull appends a node field that is null when s is "" (as
// sim.NodeResult's MarshalJSON writes it), not the last field.
func jsonStringOrNull(b []byte, key, s string) []byte {
	if s == "" {
		return append(b, "\n      \""+key+"\": null,"...)
	}
	return jsonString(b, key, s, false)
}

// encodeIndented is the encoder whose output the streamed writers match.
func encodeIndented(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
