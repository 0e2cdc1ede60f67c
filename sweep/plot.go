package sweep

import (
	"bytes"
	"encoding/json"
	"fmt"
	"image/color"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgpdf"
	"gonum.org/v1/plot/vg/vgsvg"
)

// PlotSpec is what --plot draws: y against x, one line per value of series.
type PlotSpec struct {
	X, Y, Series string
}

// ParsePlotSpec reads "x=KEY,y=FIELD[,series=KEY]".
func ParsePlotSpec(s string) (PlotSpec, error) {
	var p PlotSpec
	for part := range strings.SplitSeq(s, ",") {
		k, v, ok := strings.Cut(part, "=")
		if !ok || v == "" {
			return p, fmt.Errorf("%q is not NAME=COLUMN (allowed: x=KEY,y=FIELD[,series=KEY])", part)
		}
		var dst *string
		switch k {
		case "x":
			dst = &p.X
		case "y":
			dst = &p.Y
		case "series":
			dst = &p.Series
		default:
			return p, fmt.Errorf("unknown %q (allowed: x, y, series)", k)
		}
		if *dst != "" {
			return p, fmt.Errorf("%s given twice", k)
		}
		*dst = v
	}
	if p.X == "" || p.Y == "" {
		return p, fmt.Errorf("x and y are required (allowed: x=KEY,y=FIELD[,series=KEY])")
	}
	return p, nil
}

var palette = []color.Color{
	color.RGBA{R: 0x1f, G: 0x77, B: 0xb4, A: 0xff},
	color.RGBA{R: 0xff, G: 0x7f, B: 0x0e, A: 0xff},
	color.RGBA{R: 0x2c, G: 0xa0, B: 0x2c, A: 0xff},
	color.RGBA{R: 0xd6, G: 0x27, B: 0x28, A: 0xff},
	color.RGBA{R: 0x94, G: 0x67, B: 0xbd, A: 0xff},
	color.RGBA{R: 0x8c, G: 0x56, B: 0x4b, A: 0xff},
	color.RGBA{R: 0xe3, G: 0x77, B: 0xc2, A: 0xff},
	color.RGBA{R: 0x7f, G: 0x7f, B: 0x7f, A: 0xff},
}

// Plot draws the rows of a results.jsonl as an SVG: y against x, one line
// per value of series. x is numeric when every x value is a number, else
// nominal (the values in order of first appearance). Rows sharing a series
// and an x (they differ in another varied key) are drawn as their mean,
// and the y label says so.
func Plot(jsonl []byte, ps PlotSpec, title string) ([]byte, error) {
	return PlotAs(jsonl, ps, title, "svg")
}

// PlotFormats are the file formats PlotAs draws, by their extension.
var PlotFormats = []string{"svg", "png", "pdf"}

// plotDPI is the resolution of a PNG plot: twice the 72 points per inch of
// its size, so its lines and text stay sharp on a high-density screen.
const plotDPI = 144

// PlotAs is Plot drawn as format, one of PlotFormats.
func PlotAs(jsonl []byte, ps PlotSpec, title, format string) ([]byte, error) {
	var c vg.CanvasWriterTo
	p, w, h, err := buildPlot(jsonl, ps, title)
	if err != nil {
		return nil, err
	}
	switch format {
	case "svg":
		c = vgsvg.New(w, h)
	case "png":
		c = vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(plotDPI))}
	case "pdf":
		c = vgpdf.New(w, h)
	default:
		return nil, fmt.Errorf("format %q (allowed: %s)", format, strings.Join(PlotFormats, ", "))
	}
	p.Draw(draw.New(c))
	var b bytes.Buffer
	if _, err := c.WriteTo(&b); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// buildPlot makes the plot of Plot and its size.
func buildPlot(jsonl []byte, ps PlotSpec, title string) (*plot.Plot, vg.Length, vg.Length, error) {
	var rows []map[string]json.RawMessage
	var cols []string
	for line := range bytes.Lines(jsonl) {
		var r map[string]json.RawMessage
		if err := json.Unmarshal(line, &r); err != nil {
			return nil, 0, 0, fmt.Errorf("results: bad row: %v", err)
		}
		if cols == nil {
			cols = orderedKeys(line)
		}
		rows = append(rows, r)
	}
	if len(rows) == 0 {
		return nil, 0, 0, fmt.Errorf("results: no rows to plot")
	}
	for _, c := range []struct{ what, name string }{{"x", ps.X}, {"y", ps.Y}, {"series", ps.Series}} {
		if c.name != "" && !slices.Contains(cols, c.name) {
			return nil, 0, 0, fmt.Errorf("%s=%s: no such column (allowed: %s)", c.what, c.name, strings.Join(cols, ", "))
		}
	}
	numericX := true
	var xNames []string
	for _, r := range rows {
		if _, err := strconv.ParseFloat(string(r[ps.X]), 64); err != nil {
			numericX = false
		}
		if n := CSVValue(r[ps.X]); !slices.Contains(xNames, n) {
			xNames = append(xNames, n)
		}
	}
	type key struct{ series, x string }
	sums := map[key]float64{}
	counts := map[key]int{}
	var series []string
	maxCount := 0
	for _, r := range rows {
		y, err := strconv.ParseFloat(string(r[ps.Y]), 64)
		if err != nil {
			if string(r[ps.Y]) == "null" {
				continue // does not apply to this point (e.g. latency of an incomplete run)
			}
			return nil, 0, 0, fmt.Errorf("y=%s: %s is not a number (allowed: a numeric column)", ps.Y, r[ps.Y])
		}
		s := ""
		if ps.Series != "" {
			s = CSVValue(r[ps.Series])
		}
		if !slices.Contains(series, s) {
			series = append(series, s)
		}
		k := key{s, CSVValue(r[ps.X])}
		sums[k] += y
		counts[k]++
		maxCount = max(maxCount, counts[k])
	}
	if len(series) == 0 {
		return nil, 0, 0, fmt.Errorf("y=%s: no row has a value", ps.Y)
	}
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = ps.X
	p.Y.Label.Text = ps.Y
	if maxCount > 1 {
		p.Y.Label.Text = fmt.Sprintf("%s (mean of up to %d points)", ps.Y, maxCount)
	}
	xOf := func(name string) float64 {
		if numericX {
			v, _ := strconv.ParseFloat(name, 64)
			return v
		}
		return float64(slices.Index(xNames, name))
	}
	for i, s := range series {
		var xys plotter.XYs
		for _, xn := range xNames {
			k := key{s, xn}
			if counts[k] == 0 {
				continue
			}
			xys = append(xys, plotter.XY{X: xOf(xn), Y: sums[k] / float64(counts[k])})
		}
		if numericX {
			slices.SortFunc(xys, func(a, b plotter.XY) int { return cmpFloat(a.X, b.X) })
		}
		l, pts, err := plotter.NewLinePoints(xys)
		if err != nil {
			return nil, 0, 0, err
		}
		c := palette[i%len(palette)]
		l.Color, pts.Color = c, c
		pts.Shape = draw.CircleGlyph{}
		if !numericX {
			// Categories: points only, the order of x is not a scale.
			l.LineStyle.Width = vg.Points(0.5)
			l.LineStyle.Dashes = []vg.Length{vg.Points(2), vg.Points(2)}
		}
		p.Add(l, pts)
		if ps.Series != "" {
			p.Legend.Add(ps.Series+"="+s, l, pts)
		}
	}
	if !numericX {
		p.NominalX(xNames...)
	}
	if ps.Series != "" { // headroom for the legend, top left
		p.Y.Max += 0.35 * (p.Y.Max - p.Y.Min)
	}
	p.Add(plotter.NewGrid())
	p.Legend.Top = true
	p.Legend.Left = true
	w := vg.Length(max(6, len(xNames)/2)) * vg.Inch
	return p, min(w, 12*vg.Inch), 4.5 * vg.Inch, nil
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// orderedKeys lists the keys of a JSON object in the order written.
func orderedKeys(line []byte) []string {
	dec := json.NewDecoder(bytes.NewReader(line))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil
	}
	var keys []string
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return keys
		}
		keys = append(keys, fmt.Sprint(t))
		var skip json.RawMessage
		if dec.Decode(&skip) != nil {
			return keys
		}
	}
	return keys
}
