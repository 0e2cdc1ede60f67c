package strictjson

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"
)

type route struct {
	To int `json:"to_rank"`
}

type doc struct {
	A      int     `json:"a"`
	Routes []route `json:"routes"`
}

func TestDecodeOne(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{``, "invalid thing JSON: empty input"},
		{`{"a":1,"b":2}`, `invalid thing JSON: json: unknown field "b"`},
		{`{"a":1} {}`, "invalid thing JSON: more data after the thing object"},
		{`{"a":"x"}`, "invalid thing JSON: json: cannot unmarshal"},
		// What encoding/json accepts silently: the last of two keys, a
		// null read as zero.
		{`{"a":1,"a":2}`, `invalid thing JSON: duplicate key "a"`},
		{`{"a":1,"A":2}`, `invalid thing JSON: duplicate key "A"`},
		{`{"a":null}`, `invalid thing JSON: a: null is not allowed`},
		{`null`, `invalid thing JSON: null is not allowed`},
		{`{"routes":null}`, `invalid thing JSON: routes: null is not allowed`},
		{`{"routes":[{"to_rank":1},null]}`, `invalid thing JSON: routes[1]: null is not allowed`},
		{`{"routes":[{},{},{},{"to_rank":1,"to_rank":2}]}`, `invalid thing JSON: routes[3]: duplicate key "to_rank"`},
		{`{"routes":[{},{},{},{"to_rank":null}]}`, `invalid thing JSON: routes[3].to_rank: null is not allowed`},
	} {
		var d doc
		err := DecodeOne(strings.NewReader(c.in), &d, "thing")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.in, err, c.want)
		}
		if err != nil && strings.Contains(err.Error(), "\n") {
			t.Errorf("%q: a message of more than one line: %q", c.in, err)
		}
	}
	var d doc
	if err := DecodeOne(strings.NewReader(" {\"a\": 7, \"routes\": [{\"to_rank\": 3}]}\n"), &d, "thing"); err != nil || d.A != 7 || d.Routes[0].To != 3 {
		t.Fatalf("%v, %+v", err, d)
	}
}

// TestCheck: a document decoded loosely (a wrapper) is held to the same
// rules at any depth; the same key in two objects is not a duplicate.
func TestCheck(t *testing.T) {
	for in, want := range map[string]string{
		`{"schedule":{"steps":[{"kind":"O","kind":"M"}]},"report":{}}`: `invalid w JSON: schedule.steps[0]: duplicate key "kind"`,
		`{"schedule":{"nodes":null}}`:                                  `invalid w JSON: schedule.nodes: null is not allowed`,
		`{"schedule":{},"schedule":{}}`:                                `invalid w JSON: duplicate key "schedule"`,
		`{"schedule":`:                                                 `invalid w JSON: unexpected end of input`,
	} {
		if err := Check([]byte(in), "w"); err == nil || err.Error() != want {
			t.Errorf("%s: %v, want %q", in, err, want)
		}
	}
	if err := Check([]byte(`{"a":{"k":1},"b":{"k":2},"c":[{"k":1},{"k":2}]}`), "w"); err != nil {
		t.Fatal(err)
	}
}

// TestLongDetailCut: a key of megabytes (unknown or given twice) makes a
// message of a few hundred bytes that says how much was cut, still
// unwrapping to encoding/json's error.
func TestLongDetailCut(t *testing.T) {
	long := strings.Repeat("é", 1<<20)
	for _, in := range []string{`{"` + long + `":1}`, `{"routes":[{"to_rank":1,"` + long + `":2,"` + long + `":3}]}`} {
		var d doc
		err := Unmarshal([]byte(in), &d, "thing")
		if err == nil || len(err.Error()) > maxDetail+100 || !strings.Contains(err.Error(), "more bytes)") || !utf8.ValidString(err.Error()) {
			t.Errorf("%.40q: %.400v", in, err)
		}
	}
	var d doc
	err := Unmarshal([]byte(`{"a":"x"}`), &d, "thing")
	if _, ok := errors.AsType[*json.UnmarshalTypeError](err); !ok {
		t.Errorf("%v does not unwrap to a *json.UnmarshalTypeError", err)
	}
}
