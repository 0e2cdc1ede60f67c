package sweep

import (
	"bytes"
	"encoding/json"
	"fmt"
	"image/color"
	"math"
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

// PlotSpec is what --plot draws: y against x, one line per value of
// series, each axis on a log scale if asked.
type PlotSpec struct {
	X, Y, Series string
	LogX, LogY   bool
}

// plotSyntax is the form of a --plot spec, for its errors.
const plotSyntax = "x=KEY,y=FIELD[,series=KEY][,logx][,logy]"

// ParsePlotSpec reads "x=KEY,y=FIELD[,series=KEY][,logx][,logy]".
func ParsePlotSpec(s string) (PlotSpec, error) {
	var p PlotSpec
	for part := range strings.SplitSeq(s, ",") {
		if flag := map[string]*bool{"logx": &p.LogX, "logy": &p.LogY}[part]; flag != nil {
			if *flag {
				return p, fmt.Errorf("%s given twice", part)
			}
			*flag = true
			continue
		}
		k, v, ok := strings.Cut(part, "=")
		if !ok || v == "" {
			return p, fmt.Errorf("%q is not NAME=COLUMN, logx or logy (allowed: %s)", part, plotSyntax)
		}
		var dst *string
		switch k {
		case "x":
			dst = &p.X
		case "y":
			dst = &p.Y
		case "series":
			dst = &p.Series
		case "logx", "logy":
			return p, fmt.Errorf("%s takes no value (allowed: %s)", k, plotSyntax)
		default:
			return p, fmt.Errorf("unknown %q (allowed: x, y, series, logx, logy)", k)
		}
		if *dst != "" {
			return p, fmt.Errorf("%s given twice", k)
		}
		*dst = v
	}
	if p.X == "" || p.Y == "" {
		return p, fmt.Errorf("x and y are required (allowed: %s)", plotSyntax)
	}
	return p, nil
}

// checkLog refuses a log axis that cannot be drawn: logx of a nominal x,
// and a value <= 0 on a log axis (a log scale has no place for it).
func checkLog(rows []map[string]json.RawMessage, ps PlotSpec, numericX bool) error {
	if ps.LogX && !numericX {
		return fmt.Errorf("logx: x=%s is not numeric (allowed: logx with a numeric x)", ps.X)
	}
	for _, r := range rows {
		if v, err := strconv.ParseFloat(string(r[ps.X]), 64); ps.LogX && err == nil && v <= 0 {
			return fmt.Errorf("logx: x=%s has the value %s (allowed: values > 0 on a log axis)", ps.X, r[ps.X])
		}
		if v, err := strconv.ParseFloat(string(r[ps.Y]), 64); ps.LogY && err == nil && v <= 0 {
			return fmt.Errorf("logy: y=%s has the value %s at %s=%s (allowed: values > 0 on a log axis)", ps.Y, r[ps.Y], ps.X, CSVValue(r[ps.X]))
		}
	}
	return nil
}

// logAxis puts a on a log scale with labelled ticks at the powers of ten
// in its range, and at 2 and 5 times them too when it spans less than two
// decades (every tick when that still labels fewer than two).
func logAxis(a *plot.Axis) {
	a.Scale = plot.LogScale{}
	a.Tick.Marker = logTicks{}
}

type logTicks struct{}

func (logTicks) Ticks(lo, hi float64) []plot.Tick {
	if lo <= 0 || hi <= 0 || lo > hi { // checkLog keeps these out; no panic
		return nil
	}
	labelled := []float64{1}
	if math.Log10(hi)-math.Log10(lo) < 2 {
		labelled = []float64{1, 2, 5}
	}
	var ts []plot.Tick
	for dec := math.Pow10(int(math.Floor(math.Log10(lo)))); dec <= hi; dec *= 10 {
		for i := 1; i < 10; i++ {
			v := dec * float64(i)
			if v < lo || v > hi {
				continue
			}
			t := plot.Tick{Value: v}
			if slices.Contains(labelled, float64(i)) {
				t.Label = strconv.FormatFloat(v, 'g', -1, 64)
			}
			ts = append(ts, t)
		}
	}
	if n := len(slices.DeleteFunc(slices.Clone(ts), func(t plot.Tick) bool { return t.Label == "" })); n < 2 {
		for i := range ts { // a narrow range (3..8): label every tick
			ts[i].Label = strconv.FormatFloat(ts[i].Value, 'g', -1, 64)
		}
	}
	if len(ts) == 0 { // lo == hi between two ticks
		ts = []plot.Tick{{Value: lo, Label: strconv.FormatFloat(lo, 'g', 4, 64)}}
	}
	return ts
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
	b, _, err := PlotOmitting(jsonl, ps, title, format)
	return b, err
}

// Omitted counts the rows of results.jsonl a plot leaves out because the
// x or y it plots is null there (it does not apply: the latency of a run
// that did not complete). A plot that omits rows says so under its title
// (Omitted.String).
type Omitted struct {
	Rows  int    // rows read
	X, Y  string // the columns plotted
	NullX int    // rows whose x is null
	NullY int    // rows whose x has a value and whose y is null
	// Of NullY: rows whose error column is set (the run ended in a unit
	// error) and, of the others, rows whose complete column is false.
	Errors, Incomplete int
}

// Total is the number of rows left out.
func (o Omitted) Total() int { return o.NullX + o.NullY }

// String says how many rows were left out and why, in one line ("" when
// none), e.g. "2 of 10 rows not drawn: latency is null in 2 (1 ended in an
// error, 1 did not complete)".
func (o Omitted) String() string {
	if o.Total() == 0 {
		return ""
	}
	var why []string
	if o.NullX > 0 {
		why = append(why, fmt.Sprintf("%s is null in %d", o.X, o.NullX))
	}
	if o.NullY > 0 {
		w := fmt.Sprintf("%s is null in %d", o.Y, o.NullY)
		var runs []string
		if o.Errors > 0 {
			runs = append(runs, fmt.Sprintf("%d ended in an error", o.Errors))
		}
		if o.Incomplete > 0 {
			runs = append(runs, fmt.Sprintf("%d did not complete", o.Incomplete))
		}
		if len(runs) > 0 {
			w += " (" + strings.Join(runs, ", ") + ")"
		}
		why = append(why, w)
	}
	return fmt.Sprintf("%d of %d rows not drawn: %s", o.Total(), o.Rows, strings.Join(why, "; "))
}

// PlotOmitting is PlotAs that also returns the rows it left out; the plot
// says the same under its title.
func PlotOmitting(jsonl []byte, ps PlotSpec, title, format string) ([]byte, Omitted, error) {
	var c vg.CanvasWriterTo
	var om Omitted
	p, w, h, err := buildRows(jsonl, ps, title, &om)
	if err != nil {
		return nil, om, err
	}
	switch format {
	case "svg":
		c = vgsvg.New(w, h)
	case "png":
		c = vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(plotDPI))}
	case "pdf":
		c = vgpdf.New(w, h)
	default:
		return nil, om, fmt.Errorf("format %q (allowed: %s)", format, strings.Join(PlotFormats, ", "))
	}
	p.Draw(draw.New(c))
	var b bytes.Buffer
	if _, err := c.WriteTo(&b); err != nil {
		return nil, om, err
	}
	return b.Bytes(), om, nil
}

// buildPlot makes the plot of Plot and its size.
func buildPlot(jsonl []byte, ps PlotSpec, title string) (*plot.Plot, vg.Length, vg.Length, error) {
	var om Omitted
	return buildRows(jsonl, ps, title, &om)
}

// countOmitted counts the rows buildPlot leaves out (a null x or y).
func countOmitted(rows []map[string]json.RawMessage, ps PlotSpec) Omitted {
	om := Omitted{Rows: len(rows), X: ps.X, Y: ps.Y}
	for _, r := range rows {
		switch {
		case string(r[ps.X]) == "null":
			om.NullX++
		case string(r[ps.Y]) == "null":
			om.NullY++
			if e, ok := r["error"]; ok && string(e) != `""` && string(e) != "null" {
				om.Errors++
			} else if string(r["complete"]) == "false" {
				om.Incomplete++
			}
		}
	}
	return om
}

// buildRows makes the plot of Plot and its size, and sets *om.
func buildRows(jsonl []byte, ps PlotSpec, title string, om *Omitted) (*plot.Plot, vg.Length, vg.Length, error) {
	rows, cols, err := parseRows(jsonl)
	if err != nil {
		return nil, 0, 0, err
	}
	for _, c := range []struct{ what, name string }{{"x", ps.X}, {"y", ps.Y}, {"series", ps.Series}} {
		if c.name != "" && !slices.Contains(cols, c.name) {
			return nil, 0, 0, fmt.Errorf("%s=%s: no such column (allowed: %s)", c.what, c.name, strings.Join(cols, ", "))
		}
	}
	numericX, xNames := xValues(rows, ps.X)
	if err := checkLog(rows, ps, numericX); err != nil {
		return nil, 0, 0, err
	}
	m, err := meansOf(rows, ps)
	if err != nil {
		return nil, 0, 0, err
	}
	*om = countOmitted(rows, ps)
	p := plot.New()
	p.Title.Text = title
	if om.Total() > 0 {
		p.Title.Text += "\n(" + om.String() + ")"
	}
	p.X.Label.Text = ps.X
	p.Y.Label.Text = ps.Y
	if m.maxCount > 1 {
		p.Y.Label.Text = fmt.Sprintf("%s (mean of up to %d points)", ps.Y, m.maxCount)
	}
	if err := addSeries(p, m, ps, numericX, xNames); err != nil {
		return nil, 0, 0, err
	}
	if !numericX {
		p.NominalX(xNames...)
	}
	if ps.LogX {
		logAxis(&p.X)
	}
	if ps.LogY {
		logAxis(&p.Y)
	}
	if ps.Series != "" { // headroom for the legend, top left
		if ps.LogY {
			p.Y.Max *= math.Pow(p.Y.Max/p.Y.Min, 0.35)
		} else {
			p.Y.Max += 0.35 * (p.Y.Max - p.Y.Min)
		}
	}
	p.Add(plotter.NewGrid())
	p.Legend.Top = true
	p.Legend.Left = true
	w := vg.Length(max(6, len(xNames)/2)) * vg.Inch
	return p, min(w, 12*vg.Inch), 4.5 * vg.Inch, nil
}

// parseRows reads the results' JSON lines and the first row's columns in
// their order.
func parseRows(jsonl []byte) ([]map[string]json.RawMessage, []string, error) {
	var rows []map[string]json.RawMessage
	var cols []string
	for line := range bytes.Lines(jsonl) {
		var r map[string]json.RawMessage
		if err := json.Unmarshal(line, &r); err != nil {
			return nil, nil, fmt.Errorf("results: bad row: %v", err)
		}
		if cols == nil {
			cols = orderedKeys(line)
		}
		rows = append(rows, r)
	}
	if len(rows) == 0 {
		return nil, nil, fmt.Errorf("results: no rows to plot")
	}
	return rows, cols, nil
}

// xValues returns whether every x value is a number, and the x values in
// their first order (rows where x is null left out).
func xValues(rows []map[string]json.RawMessage, x string) (numeric bool, names []string) {
	numeric = true
	for _, r := range rows {
		if string(r[x]) == "null" {
			continue // x does not apply to this point: left out below
		}
		if _, err := strconv.ParseFloat(string(r[x]), 64); err != nil {
			numeric = false
		}
		if n := CSVValue(r[x]); !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	return numeric, names
}

// seriesX is one point of the plot: a series and an x value.
type seriesX struct{ series, x string }

// means are the y values summed per series and x, to be averaged.
type means struct {
	sums     map[seriesX]float64
	counts   map[seriesX]int
	series   []string // in their first order
	maxCount int
}

// meansOf sums y per series and x; a row whose x or y is null does not
// apply and is left out.
func meansOf(rows []map[string]json.RawMessage, ps PlotSpec) (*means, error) {
	m := &means{sums: map[seriesX]float64{}, counts: map[seriesX]int{}}
	for _, r := range rows {
		if string(r[ps.X]) == "null" {
			continue
		}
		y, err := strconv.ParseFloat(string(r[ps.Y]), 64)
		if err != nil {
			if string(r[ps.Y]) == "null" {
				continue // does not apply to this point (e.g. latency of an incomplete run)
			}
			return nil, fmt.Errorf("y=%s: %s is not a number (allowed: a numeric column)", ps.Y, r[ps.Y])
		}
		s := ""
		if ps.Series != "" {
			s = CSVValue(r[ps.Series])
		}
		if !slices.Contains(m.series, s) {
			m.series = append(m.series, s)
		}
		k := seriesX{s, CSVValue(r[ps.X])}
		m.sums[k] += y
		m.counts[k]++
		m.maxCount = max(m.maxCount, m.counts[k])
	}
	if len(m.series) == 0 {
		return nil, fmt.Errorf("y=%s: no row has a value", ps.Y)
	}
	return m, nil
}

// addSeries draws each series' means as a line with points (points and a
// thin dashed line when x is a category, not a scale).
func addSeries(p *plot.Plot, m *means, ps PlotSpec, numericX bool, xNames []string) error {
	xOf := func(name string) float64 {
		if numericX {
			v, _ := strconv.ParseFloat(name, 64)
			return v
		}
		return float64(slices.Index(xNames, name))
	}
	for i, s := range m.series {
		var xys plotter.XYs
		for _, xn := range xNames {
			k := seriesX{s, xn}
			if m.counts[k] == 0 {
				continue
			}
			xys = append(xys, plotter.XY{X: xOf(xn), Y: m.sums[k] / float64(m.counts[k])})
		}
		if numericX {
			slices.SortFunc(xys, func(a, b plotter.XY) int { return cmpFloat(a.X, b.X) })
		}
		l, pts, err := plotter.NewLinePoints(xys)
		if err != nil {
			return err
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
	return nil
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
