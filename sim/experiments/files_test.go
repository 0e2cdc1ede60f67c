package experiments

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/hxbar/hxbar/internal/gendir"
)

// TestCheckOutputs: Write overwrites only its own files and creates no
// parent directories; every refusal is one line naming the path.
func TestCheckOutputs(t *testing.T) {
	d := t.TempDir()
	own := docMarker + "# old report\n"
	ownSVG := "<?xml version=\"1.0\"?>\n" + svgMarker + "<svg/>\n"
	write := func(p, s string) {
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(d, "own.md"), own)
	write(filepath.Join(d, "foreign.md"), "# my notes\n")
	write(filepath.Join(d, "img", plotFiles[0]), ownSVG)
	write(filepath.Join(d, "img", "other.svg"), "not ours, not touched")
	write(filepath.Join(d, "badimg", plotFiles[1]), "<?xml version=\"1.0\"?>\n<svg/>\n")
	write(filepath.Join(d, "file"), "x")
	syscall.Mkfifo(filepath.Join(d, "fifo.md"), 0o644)
	os.Symlink("own.md", filepath.Join(d, "link.md"))
	write(filepath.Join(d, "img2", plotFiles[0]), ownSVG)
	os.Link(filepath.Join(d, "img2", plotFiles[0]), filepath.Join(d, "mine.svg"))
	write(filepath.Join(d, "design", gendir.ManifestName), `{"tool": "hxbar gen", "format": 1, "files": []}`)
	for _, c := range []struct{ doc, img, want string }{
		{"new.md", "img", ""},
		{"own.md", "img", ""},
		{"own.md", "newimg", ""},
		{"foreign.md", "img", "foreign.md: exists and was not written by hxbar experiments, not overwritten"},
		{"fifo.md", "img", "fifo.md: not a regular file, not overwritten"},
		{"link.md", "img", "link.md: a symlink (not followed), not overwritten"},
		{"new.md", "img2", plotFiles[0] + ": a file with 2 hard links"},
		{"nodir/x.md", "img", "nodir: the report's directory does not exist"},
		{"file/x.md", "img", "file: the report's directory is not a directory"},
		{"new.md", "nodir/img", "nodir: the plot directory's parent does not exist"},
		{"new.md", "file", "file: not a directory"},
		{"new.md", "badimg", plotFiles[1] + ": exists and was not written by hxbar experiments"},
		{"img/" + plotFiles[2], "img", plotFiles[2] + ": both the report and a plot"},
		{"new.md", "design", "design: a gen directory (hxbar gen), refusing to write plots into it"},
	} {
		err := checkOutputs(filepath.Join(d, c.doc), filepath.Join(d, c.img))
		switch {
		case c.want == "" && err != nil:
			t.Errorf("--doc %s --img %s: %v", c.doc, c.img, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n")):
			t.Errorf("--doc %s --img %s: %v, want %q", c.doc, c.img, err, c.want)
		}
	}
	if _, err := os.Stat(filepath.Join(d, "newimg")); err == nil {
		t.Error("the check created the plot directory")
	}
}

// TestCommittedFilesMarked: docs/experiments.md and its plots carry the
// Marker, so 'make experiments' may rewrite them.
func TestCommittedFilesMarked(t *testing.T) {
	if err := checkOutputs(filepath.Join("..", "..", "docs", "experiments.md"), filepath.Join("..", "..", "docs", "img")); err != nil {
		t.Fatal(err)
	}
	for _, f := range plotFiles {
		if _, err := os.Stat(filepath.Join("..", "..", "docs", "img", f)); err != nil {
			t.Error(err)
		}
	}
}

// TestWriteRelativeImgAbsoluteDoc: the plots are named relative to the
// report whichever of the two paths is absolute (filepath.Rel of an
// absolute and a relative path failed after every experiment had run).
func TestWriteRelativeImgAbsoluteDoc(t *testing.T) {
	d := t.TempDir()
	t.Chdir(d)
	doc := filepath.Join(d, "report.md")
	if err := Write(Default(), doc, "img"); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(doc)
	if err != nil || !strings.Contains(string(data), "](img/"+plotFiles[0]+")") {
		t.Errorf("report: %v; want links to img/%s", err, plotFiles[0])
	}
}
