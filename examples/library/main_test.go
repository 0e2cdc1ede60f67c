package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The README's example, run: it builds the 8x8 system, runs it and prints
// its latency (64 ranks: hw.Default's Ranks 0 means every node).
func Example() {
	main()
	// Output:
	// hyperxbar-8x8-butterfly-sum: 64 ranks, 83 cycles, latency 42 cycles
}

// TestReadmeIsThisExample: the Go block under "## Use hxbar from Go" in the
// README is this directory's main.go, byte for byte, so the example the
// README shows is the one Example runs.
func TestReadmeIsThisExample(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(readme), "\n## Use hxbar from Go\n")
	if !ok {
		t.Fatal(`README.md has no section "## Use hxbar from Go"`)
	}
	section, _, _ = strings.Cut(section, "\n## ")
	_, block, ok := strings.Cut(section, "```go\n")
	block, _, ok2 := strings.Cut(block, "```")
	if !ok || !ok2 {
		t.Fatal("README.md: no ```go block in \"Use hxbar from Go\"")
	}
	src, err := os.ReadFile("main.go")
	if err != nil {
		t.Fatal(err)
	}
	if block != string(src) {
		t.Errorf("the README's Go block differs from examples/library/main.go: copy main.go into it\nREADME:\n%s", block)
	}
}
