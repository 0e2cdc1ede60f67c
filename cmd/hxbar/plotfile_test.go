package main

import (
	"bytes"
	"fmt"
	"image/png"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/hxbar/hxbar/internal/xmlcheck"
	"github.com/hxbar/hxbar/sweep"
)

// plotRows are two results rows, enough for a plot of every format.
const plotRows = `{"point":0,"order":"OOMM","cycles":40}
{"point":1,"order":"MMOO","cycles":52}
`

func drawnPlot(t *testing.T, format string) []byte {
	t.Helper()
	ps, err := sweep.ParsePlotSpec("x=order,y=cycles")
	if err != nil {
		t.Fatal(err)
	}
	b, err := sweep.PlotAs([]byte(plotRows), ps, "t", format)
	if err != nil {
		t.Fatalf("%s: %v", format, err)
	}
	m, err := markPlot(format, b)
	if err != nil {
		t.Fatalf("%s: %v", format, err)
	}
	if !isPlotHead(m[:200]) {
		t.Errorf("%s: no mark in the first 200 bytes: %q", format, m[:200])
	}
	return m
}

// TestPlotMarks: each format's mark is within the first 200 bytes and
// leaves a file its format's reader takes: strict XML, a PNG whose chunk
// CRCs hold, a PDF whose cross-reference offsets point at its objects.
func TestPlotMarks(t *testing.T) {
	svg := drawnPlot(t, "svg")
	if !bytes.HasPrefix(svg, []byte("<?xml version=\"1.0\"?>\n"+plotMarker)) {
		t.Errorf("svg: %.120q", svg)
	}
	if err := xmlcheck.Strict(svg); err != nil {
		t.Errorf("svg: %v", err)
	}
	if _, err := png.Decode(bytes.NewReader(drawnPlot(t, "png"))); err != nil {
		t.Errorf("png: %v", err)
	}
	checkPDFOffsets(t, drawnPlot(t, "pdf"))
	if _, err := markPlot("svg", []byte("<svg/>")); err == nil {
		t.Error("an SVG without a declaration was marked")
	}
	if _, err := markPDF([]byte("%PDF-1.3\n%x\nno xref\n")); err == nil {
		t.Error("a PDF without a cross-reference table was marked")
	}
}

// TestPlotOutFormat: the extension picks the format, any case; another is
// refused with the flag, the extension and the allowed ones.
func TestPlotOutFormat(t *testing.T) {
	for in, want := range map[string]string{"a.svg": "svg", "b/c.PNG": "png", "x.Pdf": "pdf"} {
		if got, err := plotOutFormat(in); err != nil || got != want {
			t.Errorf("%s: %q, %v; want %q", in, got, err, want)
		}
	}
	for in, want := range map[string]string{
		"p.jpg":   "--plot-out p.jpg: extension .jpg (allowed: .svg, .png, .pdf)",
		"p.svg.x": "--plot-out p.svg.x: extension .x (allowed: .svg, .png, .pdf)",
		"plot":    "--plot-out plot: no extension (allowed: .svg, .png, .pdf)",
	} {
		if _, err := plotOutFormat(in); err == nil || err.Error() != want {
			t.Errorf("%s: %v; want %s", in, err, want)
		}
	}
}

var xrefEntryRE = regexp.MustCompile(`(?m)^(\d{10}) 00000 n $`)

// checkPDFOffsets checks that a PDF starts with its header and that every
// in-use entry of its cross-reference table, and startxref, point at what
// they name: object j at "j 0 obj", startxref at "xref".
func checkPDFOffsets(t *testing.T, b []byte) {
	t.Helper()
	if !bytes.HasPrefix(b, []byte("%PDF-")) {
		t.Fatalf("pdf: no header: %.40q", b)
	}
	xref := bytes.LastIndex(b, []byte("\nxref\n")) + 1
	ms := xrefEntryRE.FindAllSubmatch(b[xref:], -1)
	if len(ms) == 0 {
		t.Fatal("pdf: no cross-reference entries")
	}
	for j, m := range ms {
		off, _ := strconv.Atoi(string(m[1]))
		want := fmt.Sprintf("%d 0 obj", j+1)
		if off >= len(b) || !bytes.HasPrefix(b[off:], []byte(want)) {
			t.Errorf("pdf: entry %d: offset %d holds %.20q, want %q", j+1, off, b[min(off, len(b)):], want)
		}
	}
	sx := bytes.LastIndex(b, []byte("\nstartxref\n"))
	var at int
	if _, err := fmt.Sscanf(string(b[sx+len("\nstartxref\n"):]), "%d", &at); err != nil || at != xref {
		t.Errorf("pdf: startxref %d (%v), want %d", at, err, xref)
	}
}

// TestSweepPlotSaysWhatItOmits: a sweep whose runs did not all complete
// has null latencies; --plot y=latency leaves those rows out and says so
// on stderr, in the plot and in --format json (not silently).
func TestSweepPlotSaysWhatItOmits(t *testing.T) {
	d := t.TempDir()
	writeFiles(t, d, map[string]string{"s.yaml": "base: {dims: [2, 2], skew: 0}\nvary:\n  max_cycles: [3, 100000]\nmeasure: [latency, complete]\n"})
	out := filepath.Join(d, "out")
	if code, _, e := hx(t, "sweep", filepath.Join(d, "s.yaml"), "--out", out); code != 1 || !strings.Contains(e, "1 points did not complete") {
		t.Fatalf("sweep with a point that cannot complete: exit %d: %s", code, e)
	}
	code, o, e := hx(t, "sweep", "--plot", "x=max_cycles,y=latency", "--format", "json", out)
	note := "1 of 2 rows not drawn: latency is null in 1 (1 did not complete)"
	if code != 0 || e != "hxbar sweep: "+note+"\n" || !strings.Contains(o, `"omitted": 1`) {
		t.Fatalf("sweep --plot: exit %d, stdout %s, stderr %q", code, o, e)
	}
	svg, err := os.ReadFile(filepath.Join(out, "plot.svg"))
	if err != nil || !bytes.Contains(svg, []byte(note)) {
		t.Errorf("plot.svg does not say what it left out: %v", err)
	}
}
