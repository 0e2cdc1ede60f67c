package sweep

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestAliasBombRefused: nested YAML aliases that stand for 10^9 varied
// values (467 bytes) are refused by name, quickly, instead of being
// written out until the memory runs out.
func TestAliasBombRefused(t *testing.T) {
	var b strings.Builder
	b.WriteString("base: {name: x}\nvary:\n  seed: [1]\n  avoid:\n    - &a0 [" + strings.TrimSuffix(strings.Repeat(`"x", `, 10), ", ") + "]\n")
	for i := 1; i <= 8; i++ {
		b.WriteString(fmt.Sprintf("    - &a%d [%s]\n", i, strings.TrimSuffix(strings.Repeat(fmt.Sprintf("*a%d, ", i-1), 10), ", ")))
	}
	start := time.Now()
	_, err := Parse([]byte(b.String()), "bomb.yaml")
	if err == nil || !strings.Contains(err.Error(), "too many values once aliases are expanded") || strings.Contains(err.Error(), "\n") {
		t.Fatalf("alias bomb: %v", err)
	}
	if d := time.Since(start); d > time.Minute {
		t.Errorf("refused after %v", d)
	}
	// A modest alias is still a value.
	if s, err := Parse([]byte("vary:\n  skew: [&s 3, 4]\n  seed: [*s, 9]\n"), "ok.yaml"); err != nil || s.Points[0].Sys.Seed != 3 {
		t.Errorf("one alias: %v", err)
	}
}

// TestMissingShardsListed: a sweep.json claiming a million shards, with
// two present, gives a short message: ten missing shards named and the
// count of the rest, its tail (the shard range) kept.
func TestMissingShardsListed(t *testing.T) {
	present := map[int]bool{0: true, 1: true}
	msg := missingShards("d", 1_000_000, present)
	if len(msg) > 300 || !strings.Contains(msg, "2, 3, 4") || !strings.Contains(msg, "and 999988 more") || !strings.HasSuffix(msg, "of 0..999999 are missing") {
		t.Errorf("%d bytes: %q", len(msg), msg)
	}
}

// TestHugeSpecRefusedBeforeBuilding: a spec whose log alone would outgrow
// what a sweep reads back is refused by Parse, before a million points
// are built and validated.
func TestHugeSpecRefusedBeforeBuilding(t *testing.T) {
	var b strings.Builder
	b.WriteString("base: {dims: [2, 2]}\nvary:\n  seed: [")
	for i := range 1000 {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprint(&b, i)
	}
	b.WriteString("]\n  skew: [")
	for i := range 1000 {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprint(&b, i)
	}
	b.WriteString("]\n")
	start := time.Now()
	_, err := Parse([]byte(b.String()), "many.yaml")
	if err == nil || !strings.Contains(err.Error(), "1000000 points: the sweep's points.jsonl would exceed") {
		t.Fatalf("a million points: %v", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("refused after %v: the points were built first", d)
	}
}
