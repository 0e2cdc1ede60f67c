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
		// issue 24: episodes, repeat, faults and avoid lists, hostile.
		"repeat: 3\nepisodes:\n  - {op: sum}\n  - {collective: allgather, items: 4, item_flits: 8}\n",
		"episodes: []\nrepeat: 0\n", "repeat: -1\n", "repeat: 1000000000000\n", "repeat: 0x10\n", "repeat: \"16\"\n",
		"episodes:\n  - {op: sum, op: max}\n", "episodes:\n  - {dims: [2, 2]}\n", "episodes:\n  - {skew: 2024-01-01}\n",
		"episodes: [~]\n", "episodes: {op: sum}\n", "episodes:\n  - {item_placement: [0, 0, 1]}\n",
		"episodes: &e [{op: sum}]\nrepeat: 2\n", "episodes:\n  - {order: \"a\\x00b\"}\n",
		"faults: [\"flip:n0.d0.up@10:3\", \"flip:n0.d0.up@10:3\"]\n", "faults: [\"flip:n0.d0.up@010:3\", \"flip:n0.d0.up@10:3\"]\n",
		"faults: [\"stuck:-1\"]\n", "faults: [\"stuck:1000000000000\"]\n", "faults: [\"drop:n0.eject@99999999999999999999\"]\n",
		"faults: [\"flip:n0.eject@3:0x10\"]\n", "faults: [\"ackflip:n0.d0.up@5\"]\nlink_retry: 2\n", "faults: [\"dead:\\u0007@1\"]\n",
		"faults: [\"stuck:3\", \"stuck:03\"]\n", "faults: stuck:3\n", "faults: [[1]]\n",
		"avoid: [n0.d0.up, n0.d0.up]\n", "avoid: [n0.inject]\n", "avoid: [\"n0.d0.up\\n\"]\n", "avoid: n0.d0.up\n", "avoid: [~]\n",
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

// FuzzParseFault: ParseFault never panics; a spec it accepts prints
// (Fault.String) as a spec that parses to the same fault, so the canonical
// form the duplicate check compares is a faithful one; a spec it refuses
// gives one short line quoting the spec with the parser's reason. In a
// system the spec is checked by Validate, whose error names the entry.
func FuzzParseFault(f *testing.F) {
	for _, s := range []string{
		"flip:n0.d0.up@10:3", "drop:n0.eject@0", "dead:n5.d1.down@100", "stuck:3", "ackflip:n0.d0.up@5",
		"creditdrop:l0.w0.up1@7", "flip:n0.d0+.vc1@1:64", " flip:n0.d0.up@10:3 ", "flip:n0.d0.up@010:3",
		// issue 24: hostile numbers and names
		"stuck:-1", "stuck:1000000000000", "stuck:0x10", "stuck:\"16\"", "stuck:", "stuck:1e3",
		"drop:n0.eject@99999999999999999999", "drop:n0.eject@-1", "drop:n0.eject@2024-01-01", "drop:@3", "drop:n0.eject",
		"flip:n0.eject@3", "flip:n0.eject@3:", "flip:n0.eject@3:1048576", "flip:a:b@3:1", "flip:a@b@3:1",
		"dead:n0\x00.eject@1", "dead:n0\n.eject@1", "drop:n0.eject@\u0663", "zap:n0.eject@3", "", ":", "flip", "\xff:\xfe@1",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, spec string) {
		fault, err := ParseFault(spec)
		if err != nil {
			msg := err.Error()
			if strings.ContainsAny(msg, "\r\n") || len(msg) > 1000 || !strings.Contains(msg, showString(spec)) {
				t.Fatalf("error is not one short line quoting the spec: %q", msg)
			}
			if _, ok := errors.AsType[*faultSyntaxError](err); !ok {
				t.Fatalf("error %T lacks the parser's reason: %v", err, err)
			}
		} else {
			back, err := ParseFault(fault.String())
			if err != nil || back != fault {
				t.Fatalf("%q parses to %+v, printed %q, which parses to %+v, %v", spec, fault, fault.String(), back, err)
			}
		}
		s := Default()
		s.Faults = []string{spec, spec}
		err = s.Validate()
		if err == nil {
			t.Fatalf("the fault %q given twice was accepted", spec)
		}
		if fe, ok := errors.AsType[*FieldError](err); !ok || !strings.HasPrefix(fe.Field, "faults[") {
			t.Fatalf("Validate with faults %q: %v, not an error on a faults entry", s.Faults, err)
		}
		if msg := err.Error(); strings.ContainsAny(msg, "\r\n") {
			t.Fatalf("Validate error is not one line: %q", msg)
		}
	})
}
