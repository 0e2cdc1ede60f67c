package hw

import (
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
)

// exampleFiles returns every YAML file in examples/.
func exampleFiles(t testing.TB) []string {
	files, err := filepath.Glob(filepath.Join("..", "examples", "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no files in examples/")
	}
	return files
}

// TestExamples loads every file in examples/, validates it, and checks the
// examples the documentation promises.
func TestExamples(t *testing.T) {
	want := map[string]func(s *System) bool{
		"default-4x4.yaml":  func(s *System) bool { return reflect.DeepEqual(*s, Default()) },
		"ring-8-sum.yaml":   func(s *System) bool { return reflect.DeepEqual(s.Dims, []int{8}) && s.Op == "sum" },
		"3d-4x4x4-max.yaml": func(s *System) bool { return reflect.DeepEqual(s.Dims, []int{4, 4, 4}) && s.Op == "max" },
		"nonpow2-12ranks.yaml": func(s *System) bool {
			return reflect.DeepEqual(s.Dims, []int{4, 4}) && s.NumRanks() == 12 && s.Algo == "butterfly" && s.Op == "xor"
		},
		"placement.yaml": func(s *System) bool {
			if len(s.Placement) == 0 {
				return false
			}
			for r, n := range s.Placement {
				if n != r {
					return true // not the identity
				}
			}
			return false
		},
		"backpressure.yaml": func(s *System) bool { return s.BufferDepth == 1 && s.LinkLatency == 3 },
		"big-32x32x32x32.yaml": func(s *System) bool {
			return reflect.DeepEqual(s.Dims, []int{32, 32, 32, 32}) && s.NumRanks() == 1<<20 && s.Skew == 100
		},
		"tofu-d-fugaku.yaml": func(s *System) bool {
			return s.Topology == TopoTorus && reflect.DeepEqual(s.Dims, []int{24, 23, 24, 2, 3, 2}) && s.NumRanks() == 158976 &&
				reflect.DeepEqual(s.Wrap, []bool{true, true, true, false, true, false}) && s.Algo == AlgoButterfly && s.Skew > 0
		},
		"allgather-hitachi-4x4.yaml": func(s *System) bool {
			return s.Collective == "allgather" && s.NumItems() == 4 && s.Order == "" && s.Skew == 0
		},
		"allgather-ring-16.yaml": func(s *System) bool {
			return s.Topology == "torus" && reflect.DeepEqual(s.Dims, []int{16}) && s.Collective == "allgather" && s.NumItems() == 16
		},
		"dissemination-8x8.yaml": func(s *System) bool {
			return reflect.DeepEqual(s.Dims, []int{8, 8}) && s.Algo == "dissemination" && s.Op == "min"
		},
		"rows-cols-4x4.yaml": func(s *System) bool {
			cs, err := s.Comms()
			return err == nil && len(cs) == 8 && s.ChannelCount() == 2 && cs[4].Name == "cols.0" && cs[4].Sys.Op == "sum" && cs[0].Sys.IterationCount() == 10
		},
		"osu-barrier-8x8.yaml": func(s *System) bool {
			return reflect.DeepEqual(s.Dims, []int{8, 8}) && s.Iterations == 1000 && s.Compute == 0 && s.Skew == 0
		},
	}
	seen := map[string]bool{}
	for _, path := range exampleFiles(t) {
		base := filepath.Base(path)
		seen[base] = true
		s, err := Load(path)
		if err != nil {
			t.Errorf("%v", err)
			continue
		}
		if err := s.Validate(); err != nil {
			t.Errorf("%s: %v", base, err)
		}
		if check, ok := want[base]; ok && !check(&s) {
			t.Errorf("%s is not the promised system: %+v", base, s)
		}
		if stem := strings.TrimSuffix(base, ".yaml"); base != "default-4x4.yaml" && s.Name != stem {
			t.Errorf("%s has name %q, want %q", base, s.Name, stem)
		}
	}
	for f := range want {
		if !seen[f] {
			t.Errorf("examples/%s is missing", f)
		}
	}
}

// TestExamplesDocumented: every key of every example has a comment above it
// and the file starts with a comment saying what the example shows.
func TestExamplesDocumented(t *testing.T) {
	keyLine := regexp.MustCompile(`^([a-z_]+):`)
	for _, path := range exampleFiles(t) {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(string(data), "\n")
		if !strings.HasPrefix(lines[0], "# ") {
			t.Errorf("%s does not start with a comment", path)
		}
		found := map[string]bool{}
		for i, l := range lines {
			if m := keyLine.FindStringSubmatch(l); m != nil {
				found[m[1]] = true
				if i == 0 || !strings.HasPrefix(lines[i-1], "#") {
					t.Errorf("%s:%d: key %s has no comment above it", path, i+1, m[1])
				}
			}
		}
		for _, k := range Keys() {
			if !found[k] {
				t.Errorf("%s does not set key %s", path, k)
			}
		}
	}
}

// TestExampleComments: above every key an example file gives, the comment
// is the one the YAML writer puts there (the key's meaning, type and
// allowed values), so that the examples do not drift from the contract
// when a key's documentation changes.
func TestExampleComments(t *testing.T) {
	comments := keyComments()
	for _, f := range exampleFiles(t) {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		text := string(b)
		for i, k := range keys {
			at := strings.Index(text, "\n"+k.key+":")
			if at < 0 {
				continue
			}
			if !strings.HasSuffix(text[:at+1], "\n"+comments[i]) {
				t.Errorf("%s: the comment above %s is not its documentation; want:\n%s", filepath.Base(f), k.key, comments[i])
			}
		}
	}
}
