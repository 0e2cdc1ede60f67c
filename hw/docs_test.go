package hw

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestConfigDoc keeps docs/config.md in step with the code: every key has a
// table row with its flag and default, and the example parses as described.
func TestConfigDoc(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "docs", "config.md"))
	if err != nil {
		t.Fatal(err)
	}
	doc := string(data)
	d := Default()
	defaults := map[string]string{
		"name": `""`, "topology": string(d.Topology), "dims": "[4, 4]", "ranks": "0", "placement": "[]",
		"algo": string(d.Algo), "op": string(d.Op), "seed": "1", "skew": "40", "link_latency": "1",
		"buffer_depth": "4", "flit_width": "64", "duplex": string(d.Duplex), "max_cycles": "1000000",
		"collective": "barrier", "items": "0", "wrap": "[]", "item_flits": "4", "order": `""`, "item_placement": "[]",
		"repeat": "1", "iterations": "1", "compute": "0", "jitter": "0", "episodes": "[]", "faults": "[]", "avoid": "[]", "crc_bits": "32", "watchdog": "0", "link_retry": "0", "switch_pipeline": "0", "unit_pipeline": "0", "channels": "1", "communicators": "[]",
	}
	for _, k := range keys {
		var row string
		for _, l := range strings.Split(doc, "\n") {
			if strings.HasPrefix(l, "| `"+k.key+"` |") {
				row = l
			}
		}
		if row == "" {
			t.Errorf("docs/config.md has no table row for key %s", k.key)
			continue
		}
		if k.flag != "" && !strings.Contains(row, "`--"+k.flag) {
			t.Errorf("the row of %s does not give --%s", k.key, k.flag)
		}
		if !strings.Contains(row, "`"+defaults[k.key]+"`") {
			t.Errorf("the row of %s does not give the default %s", k.key, defaults[k.key])
		}
		if !strings.Contains(doc, "- **`"+k.key+"`**") {
			t.Errorf("docs/config.md does not explain key %s", k.key)
		}
	}

	// The first YAML block is the example; the text says what it reads as.
	_, rest, _ := strings.Cut(doc, "```yaml\n")
	example, _, _ := strings.Cut(rest, "```")
	s, err := Parse([]byte(example))
	if err != nil {
		t.Fatalf("the example in docs/config.md: %v", err)
	}
	want := Default()
	want.Name, want.Dims, want.Ranks, want.Op, want.Skew = "sum-8x8", []int{8, 8}, 0, "sum", 100
	if !reflect.DeepEqual(s, want) {
		t.Errorf("the example in docs/config.md reads as %+v, not as the text says", s)
	}
}
