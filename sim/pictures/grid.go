package pictures

import (
	"image/color"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// grid is a plotter of coloured cells: column j spans x in
// [x0 + j*dx, x0 + (j+1)*dx) (the last one ends at x1), row i spans y in
// [i*dy, (i+1)*dy) (the last one ends at y1); val(i, j) in [0, 1] picks
// the heat colour, and a cell of value 0 stays blank.
type grid struct {
	x0, dx, x1 float64
	dy, y1     float64
	rows, cols int
	val        func(i, j int) float64
}

func (g grid) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	for i := 0; i < g.rows; i++ {
		ya, yb := trY(float64(i)*g.dy), trY(min(float64(i+1)*g.dy, g.y1))
		for j := 0; j < g.cols; j++ {
			v := g.val(i, j)
			if v <= 0 {
				continue
			}
			xa, xb := trX(g.x0+float64(j)*g.dx), trX(min(g.x0+float64(j+1)*g.dx, g.x1))
			var pa vg.Path
			pa.Move(vg.Point{X: xa, Y: ya})
			pa.Line(vg.Point{X: xb, Y: ya})
			pa.Line(vg.Point{X: xb, Y: yb})
			pa.Line(vg.Point{X: xa, Y: yb})
			pa.Close()
			c.SetColor(heatAt(v))
			c.Fill(pa)
		}
	}
}

func (g grid) DataRange() (xmin, xmax, ymin, ymax float64) { return g.x0, g.x1, 0, g.y1 }

// segments is a plotter of straight lines between data points.
type segments struct {
	lines [][2]plotter.XY
	style draw.LineStyle
}

func (s segments) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	for _, l := range s.lines {
		c.StrokeLine2(s.style, trX(l[0].X), trY(l[0].Y), trX(l[1].X), trY(l[1].Y))
	}
}

func (s segments) Thumbnail(c *draw.Canvas) {
	y := (c.Min.Y + c.Max.Y) / 2
	c.StrokeLine2(s.style, c.Min.X, y, c.Max.X, y)
}

// vlines is a plotter of vertical lines across the plot at xs.
type vlines struct {
	xs    []float64
	style draw.LineStyle
}

func (v vlines) Plot(c draw.Canvas, p *plot.Plot) {
	trX, _ := p.Transforms(&c)
	for _, x := range v.xs {
		c.StrokeLine2(v.style, trX(x), c.Min.Y, trX(x), c.Max.Y)
	}
}

func (v vlines) Thumbnail(c *draw.Canvas) {
	x := (c.Min.X + c.Max.X) / 2
	c.StrokeLine2(v.style, x, c.Min.Y, x, c.Max.Y)
}

// episodeLines marks the boundaries between the episodes of a run: half a
// cycle after each episode's last release, but the last.
func episodeLines(p *plot.Plot, eps []episode) {
	if len(eps) < 2 {
		return
	}
	v := vlines{style: draw.LineStyle{Color: color.RGBA{0x55, 0x55, 0x55, 0xff}, Width: vg.Points(1), Dashes: []vg.Length{vg.Points(4), vg.Points(3)}}}
	for _, e := range eps[:len(eps)-1] {
		if e.lastRelease >= 0 {
			v.xs = append(v.xs, float64(e.lastRelease)+0.5)
		}
	}
	p.Add(v)
	p.Legend.Add("episode boundary", v)
}

// episode is what the pictures use of sim.EpisodeResult.
type episode struct{ firstArrival, lastRelease int64 }
