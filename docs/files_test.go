// Package docs holds no code: its test checks the committed files the
// documentation shows (docs/img) and every other committed SVG or JSON.
package docs

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hxbar/hxbar/internal/xmlcheck"
)

// TestCommittedFilesParse: every SVG in the repository parses as XML with
// a strict parser (an SVG viewer refuses what it refuses, e.g. "--" in a
// comment), and every JSON file as JSON, so each opens in its standard
// tool. The command outputs are checked by TestOutputsParse in cmd/hxbar.
func TestCommittedFilesParse(t *testing.T) {
	svgs := 0
	err := filepath.WalkDir("..", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p != ".." && strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" {
				// .git and the like; testdata holds other tools' outputs as
				// they are (Yosys 0.23's stat JSON with its trailing comma).
				return filepath.SkipDir
			}
			return nil
		}
		switch strings.ToLower(filepath.Ext(p)) {
		case ".svg":
			svgs++
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			if err := xmlcheck.Strict(b); err != nil {
				t.Errorf("%s: not XML: %v", p, err)
			}
		case ".json":
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			if !json.Valid(b) {
				t.Errorf("%s: not JSON: %v", p, json.Unmarshal(b, new(any)))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if svgs < 11 {
		t.Errorf("found %d SVG files, want docs/img's 11 at least", svgs)
	}
}
