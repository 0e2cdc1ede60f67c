package sweep

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/hxbar/hxbar/internal/version"
)

// oneLine fails t unless msg is one line of at most most bytes that holds
// each of want.
func oneLine(t *testing.T, msg string, most int, want ...string) {
	t.Helper()
	if strings.ContainsAny(msg, "\r\n") || len(msg) > most {
		t.Fatalf("error is not one line of at most %d bytes (%d): %.300q", most, len(msg), msg)
	}
	for _, w := range want {
		if !strings.Contains(msg, w) {
			t.Fatalf("error %q does not name %q", msg, w)
		}
	}
}

// FuzzParseSpec: the sweep spec parser never panics; an error is one
// *SpecError line naming the file; a spec it accepts has one point for each
// combination of its axes, every point a valid system with the hash of
// that system and its values as JSON, so every row can be written.
func FuzzParseSpec(f *testing.F) {
	// small.yaml without its comments: Go's minimiser is quadratic in the
	// input's length, and orders.yaml's 240 points make every run slow.
	data, err := os.ReadFile(filepath.Join("..", "examples", "sweeps", "small.yaml"))
	if err != nil {
		f.Fatal(err)
	}
	var keep []string
	for l := range strings.Lines(string(data)) {
		if !strings.HasPrefix(l, "#") && strings.TrimSpace(l) != "" {
			keep = append(keep, l)
		}
	}
	f.Add([]byte(strings.Join(keep, "")))
	for _, s := range []string{
		"", "~", "{}", "- 1\n", "vary: {skew: [0, 4]}\n", "base: {skew: 0}\nvary:\n  duplex: [full, half]\n",
		// issue 24's hostile values, as the spec wrote them
		"vary: {seed: [0x10, \"16\", 16, 1e3, 2024-01-01]}\n", "vary: {name: [2024-01-01, yes, null, .inf]}\n",
		"vary: {skew: [-1, 1000000000000, 99999999999999999999]}\n", "vary: {ranks: [0, -1, 16777217]}\n",
		"vary: {skew: [1, 2]}\nvary: {skew: [3]}\n", "vary: {skew: [1], skew: [2]}\n", "base: {skew: 1, skew: 2}\n",
		"measure: [cycles, cycles]\n", "vary: {name: [\"a\\u0007b\", \"a\\nb\"]}\n", "vary: {name: [\"\\xff\"]}\n",
		"vary: {dims: [[4, 4], [64, 64, 64, 64, 64, 64]]}\n", "vary: {skew: &a [1, 2]}\nbase: {seed: *a}\n",
		"vary:\n  skew: [1, 2]\n  seed: [3, 4]\nzip: [[skew, seed], [seed, skew]]\n", "zip: [[]]\n", "zip: {a: b}\n",
		"vary: {repeat: [1, 3], episodes: [[], [{op: sum}, {collective: allgather, items: 4}]]}\n",
		"vary: {faults: [[\"flip:n0.d0.up@10:3\"], [\"flip:n0.d0.up@10:3\", \"flip:n0.d0.up@10:3\"]]}\n",
		"vary: {avoid: [[], [n0.d0.up], [n0.inject]]}\n", "vary: {episodes: [[{op: sum, op: max}]]}\n",
		"vary: {skew: [[[[[[[[[[[[1]]]]]]]]]]]]}\n", "base: {<<: {skew: 1}}\n", "vary: {? [a] : [1]}\n",
		"vary: {skew: [1]}\n---\n", "measure: []\n", "measure: [hash]\n", "vary: {dims: [foo]}\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := Parse(data, "spec.yaml")
		if err != nil {
			if _, ok := errors.AsType[*SpecError](err); !ok {
				t.Fatalf("error %T is not a *SpecError: %v", err, err)
			}
			oneLine(t, err.Error(), 4000, "spec.yaml: ")
			return
		}
		cols := s.Columns()
		seen := map[string]bool{}
		for _, c := range cols {
			if seen[c] {
				t.Fatalf("column %q twice: %q", c, cols)
			}
			seen[c] = true
		}
		for i := range s.Points {
			p := &s.Points[i]
			if p.Index != i || len(p.Values) != len(s.Keys) {
				t.Fatalf("point %d: index %d, %d values for %d keys", i, p.Index, len(p.Values), len(s.Keys))
			}
			if err := p.Sys.Validate(); err != nil {
				t.Fatalf("point %d is invalid: %v", i, err)
			}
			if p.Hash != Hash(&p.Sys) {
				t.Fatalf("point %d: hash %s is not its system's", i, p.Hash)
			}
			for k, v := range p.Values {
				if !json.Valid(v) {
					t.Fatalf("point %d: %s = %q is not JSON", i, s.Keys[k], v)
				}
			}
		}
	})
}

// FuzzParseLog: the run log reader never panics; an error is one short
// line naming the log and the line; the records it accepts, written again
// as the sweep writes them, read back the same (so a collect, which merges
// logs by rewriting their records, keeps them).
func FuzzParseLog(f *testing.F) {
	good := Record{Hash: strings.Repeat("0a", 32), Version: version.String(), WallMS: 1.5,
		Result: map[string]json.RawMessage{"cycles": json.RawMessage("63"), "error": json.RawMessage(`""`)}}
	good.Sum = good.sum()
	line, _ := json.Marshal(good)
	f.Add(append(line, '\n'))
	f.Add(append(append(line[:40:40], '\n'), append(line, '\n')...)) // a line cut short by a crash
	for _, s := range []string{
		"", "\n\n", "hello\n", "null\n", "[]\n", `{"hash":"` + "\n",
		`{"hash":"` + strings.Repeat("a", 64) + `","result":{}}` + "\n",
		`{"hash":"` + strings.Repeat("a", 64) + `","hash":"` + strings.Repeat("b", 64) + `","result":{}}` + "\n",
		`{"hash":"` + strings.Repeat("a", 64) + `","result":{"cycles":1e999}}` + "\n",
		`{"hash":"` + strings.Repeat("a", 64) + `","wall_ms":-1,"result":{"cycles":0x10}}` + "\n",
		`{"hash":"` + strings.Repeat("a", 64) + `","result":{"a":"\u0007\n"},"sum":"00"}` + "\n",
		`{"hash":"` + strings.Repeat("a", 64) + `","hxbar_version":"v0 \n x","result":{}}` + "\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		recs, err := parseLog(bytes.NewReader(data), "points.jsonl")
		if err != nil {
			oneLine(t, err.Error(), 1000, "points.jsonl: line ")
			return
		}
		var again bytes.Buffer
		for _, r := range recs {
			b, err := json.Marshal(r)
			if err != nil {
				t.Fatalf("an accepted record does not encode: %v", err)
			}
			again.Write(append(b, '\n'))
		}
		back, err := parseLog(bytes.NewReader(again.Bytes()), "points.jsonl")
		if err != nil {
			t.Fatalf("the accepted records, written again, are refused: %v\n%s", err, again.Bytes())
		}
		b1, _ := json.Marshal(recs)
		b2, _ := json.Marshal(back)
		if !bytes.Equal(b1, b2) {
			t.Fatalf("round trip changed the records:\n%s\n%s", b1, b2)
		}
	})
}

// FuzzParseMeta: the reader of a shard's sweep.json (what --collect trusts
// to size its tables) never panics; an error is one short line naming the
// field or the file; a Meta it accepts is within every limit and written
// again reads back the same. Seeds: issue 24's points -1, shards 10^12,
// shards 0 and the like.
func FuzzParseMeta(f *testing.F) {
	s, err := Parse([]byte("base: {skew: 0}\nvary:\n  duplex: [full, half]\n"), "spec.yaml")
	if err != nil {
		f.Fatal(err)
	}
	good, _ := json.Marshal(Meta{Tool: Tool, Points: 2, PointsSHA256: s.PointsHash(), Columns: s.Columns(), Shard: 0, Shards: 1, HxbarVersion: version.String()})
	f.Add(good, 0)
	edits := []string{
		`"points":-1`, `"points":1000001`, `"shards":1000000000000`, `"shards":0`, `"shards":-1`, `"shard":1`,
		`"points":0x10`, `"points":"16"`, `"points":1e3`, `"points":2,"points":-1`, `"points":null`, `"extra":1`,
		`"tool":"hxbar gen"`, `"hxbar_version":"v0\n"`, `"points_sha256":"` + strings.Repeat("Z", 64) + `"`,
		`"columns":["point","skew","skew","wall_ms","hash","hxbar_version"]`,
		`"columns":["point","a\nb","wall_ms","hash","hxbar_version"]`, `"columns":[]`,
		`"` + strings.Repeat("k", 400) + `":1`, `"tool":"` + strings.Repeat("t", 400) + `"`,
	}
	for _, e := range edits {
		k := e[:strings.Index(e[1:], `"`)+2]
		var b []byte
		if i := bytes.Index(good, []byte(k+":")); i >= 0 {
			j := i + bytes.IndexAny(good[i:], ",}")
			if k == `"columns"` {
				j = i + bytes.Index(good[i:], []byte("]")) + 1
			}
			b = append(append(append([]byte{}, good[:i]...), e...), good[j:]...)
		} else {
			b = append(append(append([]byte{}, good[:len(good)-1]...), ","+e...), '}')
		}
		f.Add(b, 0)
	}
	for _, s := range []string{"", "{}", "null", "[]", string(good) + string(good), string(good) + "x"} {
		f.Add([]byte(s), 0)
	}
	f.Add(good, -1)
	f.Fuzz(func(t *testing.T, data []byte, shard int) {
		m, err := parseMeta(data, shard)
		if err != nil {
			msg := err.Error()
			oneLine(t, msg, 1000)
			if !strings.HasPrefix(msg, "invalid ") && !strings.HasPrefix(msg, "written by hxbar") {
				t.Fatalf("error names no field: %q", msg)
			}
			return
		}
		if m.Points < 1 || m.Points > MaxPoints || m.Shards < 1 || m.Shards > MaxShards || m.Shard != shard || m.Shard >= m.Shards {
			t.Fatalf("accepted a meta out of its limits: %+v", m)
		}
		b, _ := json.Marshal(m)
		back, err := parseMeta(b, shard)
		if err != nil || !reflect.DeepEqual(back, m) {
			t.Fatalf("round trip: %+v, %v; was %+v", back, err, m)
		}
	})
}
