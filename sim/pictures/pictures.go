// Package pictures draws a run of the cycle model: a timeline of every
// rank's arrival, gate passes, release and messages (SVG), the run as a
// Chrome trace-event file that Perfetto and chrome://tracing open, and a
// heat map of the network channels' load (SVG). The events come from
// sim.Options.Events and the loads from sim.Options.Load; docs/pictures.md
// describes what each picture shows.
//
// Every output is deterministic: the same run gives the same bytes.
package pictures

import (
	"bytes"
	"fmt"
	"image/color"
	"io"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/hxbar/hxbar/barrierunit"
	"github.com/hxbar/hxbar/sim"
)

// Run is what the pictures need to know of a system besides its events.
type Run struct {
	Title  string  // the plots' title
	NodeOf []int32 // rank -> node
	// In a run of communicators (a rank per channel of a node): EventRank
	// is the rank a unit's event is about (sim.System.EventRank), and
	// Label each rank's communicator, rank in it and system rank. Both
	// nil otherwise.
	EventRank func(barrierunit.Event) int32
	Label     []string
	// For colours and labels, each rank's communicator (an index into
	// CommNames) and its rank within it; CommGroup is each communicator's
	// colour group (the entry of the list it comes from: a split's
	// communicators share one).
	CommOf    []int32
	CommRank  []int32
	CommNames []string
	CommGroup []int32
}

// RunOf describes s under title.
func RunOf(s *sim.System, title string) Run {
	r := Run{Title: title, NodeOf: s.Units.NodeOf}
	cs := s.Comms()
	if len(cs) == 0 {
		return r
	}
	r.EventRank = s.EventRank
	for _, c := range cs {
		for j, sr := range c.Ranks {
			r.Label = append(r.Label, fmt.Sprintf("%s rank %d, system rank %d, channel %d", c.Name, j, sr, c.Channel[j]))
		}
	}
	for _, c := range cs {
		r.CommNames = append(r.CommNames, c.Name)
		r.CommGroup = append(r.CommGroup, int32(c.Entry))
	}
	r.CommOf, r.CommRank = make([]int32, len(r.NodeOf)), make([]int32, len(r.NodeOf))
	for v := range r.NodeOf {
		k, j, _ := s.RankComm(v)
		r.CommOf[v], r.CommRank[v] = int32(k), int32(j)
	}
	return r
}

// ownRank is the rank a unit's event is about: the one arrive and
// release name; for gate, send and recv the node's rank (in a run of
// communicators, the rank of the node's channel that acted); -1: none.
func (r *Run) ownRank(rankOf []int32, e barrierunit.Event) int32 {
	switch {
	case e.Kind == barrierunit.EvArrive || e.Kind == barrierunit.EvRelease:
		return e.Rank
	case r.EventRank != nil:
		return r.EventRank(e)
	case int(e.Node) < len(rankOf):
		return rankOf[e.Node]
	}
	return -1
}

// rankOf maps a node to its rank (-1: none).
func (r Run) rankOf() []int32 {
	n := int32(0)
	for _, v := range r.NodeOf {
		n = max(n, v+1)
	}
	m := make([]int32, n)
	for i := range m {
		m[i] = -1
	}
	for rank, v := range r.NodeOf {
		m[v] = int32(rank)
	}
	return m
}

// drawWithLegend draws p on c, its legend in the right margin.
func drawWithLegend(p *plot.Plot, c draw.Canvas) {
	p.Legend.Top, p.Legend.Left = true, false
	p.Legend.XOffs = vg.Points(legendWidth - 10)
	p.Legend.TextStyle.Font.Size = vg.Points(9)
	p.Draw(draw.Crop(c, 0, -vg.Points(legendWidth), 0, 0))
}

// legendWidth is the margin right of the plot that holds its legend.
const legendWidth = 130

// writeSVG renders p as SVG of w x h, its legend (top right) in a margin
// right of the data.
func writeSVG(out io.Writer, p *plot.Plot, w, h vg.Length) error {
	c := vgsvg.New(w, h)
	drawWithLegend(p, draw.New(c))
	var b bytes.Buffer
	if _, err := c.WriteTo(&b); err != nil {
		return err
	}
	_, err := out.Write(b.Bytes())
	return err
}

// heat is the palette of the heat maps: white (nothing) through yellow and
// orange to dark red (the most).
type heat int

var heatStops = []color.RGBA{{0xff, 0xff, 0xff, 0xff}, {0xff, 0xe0, 0x6e, 0xff}, {0xf4, 0x80, 0x2a, 0xff}, {0xc2, 0x1b, 0x1b, 0xff}, {0x4a, 0x05, 0x05, 0xff}}

func (h heat) Colors() []color.Color {
	n := int(h)
	cs := make([]color.Color, n)
	for i := range cs {
		cs[i] = heatAt(float64(i) / float64(n-1))
	}
	return cs
}

// heatAt is the palette's colour at x in [0, 1].
func heatAt(x float64) color.RGBA {
	x = min(max(x, 0), 1) * float64(len(heatStops)-1)
	i := min(int(x), len(heatStops)-2)
	f := x - float64(i)
	a, b := heatStops[i], heatStops[i+1]
	mix := func(p, q uint8) uint8 { return uint8(float64(p) + f*(float64(q)-float64(p)) + 0.5) }
	return color.RGBA{mix(a.R, b.R), mix(a.G, b.G), mix(a.B, b.B), 0xff}
}

// swatch is a legend entry of one colour.
type swatch struct{ c color.Color }

func (s swatch) Thumbnail(c *draw.Canvas) {
	r := c.Rectangle
	c.FillPolygon(s.c, []vg.Point{r.Min, {X: r.Max.X, Y: r.Min.Y}, r.Max, {X: r.Min.X, Y: r.Max.Y}})
	c.StrokeLines(draw.LineStyle{Color: color.Gray{0x80}, Width: vg.Points(0.5)},
		[]vg.Point{r.Min, {X: r.Max.X, Y: r.Min.Y}, r.Max, {X: r.Min.X, Y: r.Max.Y}, r.Min})
}

// heatLegend adds a swatch per value of vals, coloured as a cell of that
// value on a scale whose darkest colour is top, labelled by label.
func heatLegend(p *plot.Plot, vals []float64, top float64, label func(float64) string) {
	for _, v := range vals {
		p.Legend.Add(label(v), swatch{heatAt(v / top)})
	}
}

// heatSteps is 0..top in steps equal parts: the values of a legend.
func heatSteps(top float64, steps int) []float64 {
	vs := make([]float64, steps+1)
	for i := range vs {
		vs[i] = top * float64(i) / float64(steps)
	}
	return vs
}

// countSteps is 0..top in at most steps parts, each a whole count (an
// event is not divisible): the values of a legend of counts.
func countSteps(top uint32, steps int) []float64 {
	var vs []float64
	prev := -1
	for i := 0; i <= steps; i++ {
		v := int((uint64(top)*uint64(i) + uint64(steps)/2) / uint64(steps)) // rounded
		if v != prev {
			vs = append(vs, float64(v))
			prev = v
		}
	}
	return vs
}
