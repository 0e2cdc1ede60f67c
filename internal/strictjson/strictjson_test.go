package strictjson

import (
	"strings"
	"testing"
)

func TestDecodeOne(t *testing.T) {
	type doc struct {
		A int `json:"a"`
	}
	for _, c := range []struct{ in, want string }{
		{``, "invalid thing JSON: empty input"},
		{`{"a":1,"b":2}`, `invalid thing JSON: json: unknown field "b"`},
		{`{"a":1} {}`, "invalid thing JSON: more data after the thing object"},
		{`{"a":"x"}`, "invalid thing JSON: json: cannot unmarshal"},
	} {
		var d doc
		err := DecodeOne(strings.NewReader(c.in), &d, "thing")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.in, err, c.want)
		}
	}
	var d doc
	if err := DecodeOne(strings.NewReader(" {\"a\": 7}\n"), &d, "thing"); err != nil || d.A != 7 {
		t.Fatalf("%v, %+v", err, d)
	}
}
