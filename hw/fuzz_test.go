package hw

import (
	"errors"
	"os"
	"reflect"
	"strings"
	"testing"
)

// FuzzParse: Parse never panics, its errors are one-line *ParseErrors, a
// system it returns is valid, and writing that system with YAML and reading
// it back gives the same system.
//
// The corpus is seeded with the example files without their full-line
// comments: the fuzzing engine minimises every new interesting input in time
// quadratic in its length, and the 3 KB of comments of an example would make
// it spend whole runs minimising. Comments are covered by TestExamples.
func FuzzParse(f *testing.F) {
	for _, path := range exampleFiles(f) {
		data, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		var keep []string
		for _, l := range strings.Split(string(data), "\n") {
			if l != "" && !strings.HasPrefix(l, "#") {
				keep = append(keep, l)
			}
		}
		f.Add([]byte(strings.Join(keep, "\n") + "\n"))
	}
	for _, s := range []string{
		"", "~", "{}", "---\n", "dims: [4, 65]\n", "dims: foo\n", "dim: [4]\n", "skew:\n",
		"dims: [64, 64, 64, 64]\nranks: 16777216\nskew: 1073741824\n",
		"dims: [2, 2]\nplacement: [0, 1, 2, 3, 3]\n", "placement: [3, 2, 1]\n",
		"a: 1\n---\nb: 2\n", "- 1\n", "ranks: 017\n", "seed: 18446744073709551615\n",
		"skew: &a 3\nlink_latency: *a\n", "dims: [4,\n", "<<: {skew: 1}\n", "? [a]\n: 1\n",
		"name: \"a\\nb\"\n", "max_cycles: 1e12\n", "algo: dissemination\nop: xor\n",
		"dims: &d [4, 4]\nplacement: *d\n", "ranks: 5\nranks: 6\n", "\xff\xfe",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := Parse(data)
		if err != nil {
			if _, ok := errors.AsType[*ParseError](err); !ok {
				t.Fatalf("error %T is not a *ParseError: %v", err, err)
			}
			if msg := err.Error(); strings.ContainsAny(msg, "\r\n") || len(msg) > 1000 {
				t.Fatalf("error message is not one short line: %q", msg)
			}
			return
		}
		if err := s.Validate(); err != nil {
			t.Fatalf("Parse returned an invalid system: %v", err)
		}
		out, err := s.YAML()
		if err != nil {
			t.Fatalf("YAML() of a parsed system: %v", err)
		}
		back, err := Parse(out)
		if err != nil {
			t.Fatalf("Parse(YAML()) = %v\n%s", err, out)
		}
		if !reflect.DeepEqual(back, s) {
			t.Fatalf("round trip changed the system:\n%+v\n%+v", s, back)
		}
	})
}
