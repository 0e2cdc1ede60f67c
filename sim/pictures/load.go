package pictures

import (
	"fmt"
	"io"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"

	"github.com/hxbar/hxbar/sim"
)

// minLoadColumns is the fewest time buckets drawn as a heat map over time;
// a shorter run is drawn as one column, its channels' load over the run.
const minLoadColumns = 8

// maxLoadColumns is the most time buckets drawn: a run recorded in more is
// drawn with buckets twice (four times, ...) as wide.
const maxLoadColumns = 48

// cyclesText is "cycle" or "N cycles".
func cyclesText(n int64) string {
	if n == 1 {
		return "cycle"
	}
	return fmt.Sprintf("%d cycles", n)
}

// LoadSVG draws the channel loads l (sim.Options.Load) as a heat map: the
// channels down (one row per channel, or per group of PerRow channels),
// time across in l.Bucket-cycle columns, each cell coloured by the row's
// mean utilisation in that column (flits per cycle per channel), on a
// colour scale from 0 to the busiest cell of the run (its legend). A
// run of fewer than 8 columns gets one column for the whole run. The
// boundaries between the episodes of res (nil: none) are marked.
func LoadSVG(w io.Writer, l *sim.ChannelLoad, res *sim.Result, title string) error {
	p, wd, h := loadPlot(l, res, title)
	return writeSVG(w, p, wd, h)
}

// loadCells is the load map's cells: load[i][j] is row i's mean load in
// column j (flits per cycle per channel), columns bucket cycles wide
// (the last one may be shorter).
func loadCells(l *sim.ChannelLoad) (load [][]float64, bucket int64) {
	rows := len(l.Rows)
	cycles := max(l.Cycles, 1)
	bucket = l.Bucket
	cols := int((cycles + bucket - 1) / bucket)
	flits := l.Flits
	for cols > maxLoadColumns { // wider buckets: shades rather than single flits
		bucket *= 2
		cols = int((cycles + bucket - 1) / bucket)
		merged := make([][]uint32, rows)
		for i, row := range flits {
			merged[i] = make([]uint32, cols)
			for j, f := range row {
				merged[i][j/2] += f
			}
		}
		flits = merged
	}
	if cols < minLoadColumns {
		bucket, cols = cycles, 1
		flits = make([][]uint32, rows)
		for i, row := range l.Flits {
			var s uint32
			for _, f := range row {
				s += f
			}
			flits[i] = []uint32{s}
		}
	}
	load = make([][]float64, rows)
	for i, row := range flits {
		load[i] = make([]float64, cols)
		n := min(l.PerRow, l.Channels()-i*l.PerRow)
		for j, f := range row[:min(len(row), cols)] {
			width := min(bucket, cycles-int64(j)*bucket)
			load[i][j] = float64(f) / float64(width) / float64(n)
		}
	}
	return load, bucket
}

// busiest is the largest value of cells (0: none).
func busiest(cells [][]float64) float64 {
	top := 0.0
	for _, row := range cells {
		for _, v := range row {
			top = max(top, v)
		}
	}
	return top
}

func loadPlot(l *sim.ChannelLoad, res *sim.Result, title string) (*plot.Plot, vg.Length, vg.Length) {
	rows := len(l.Rows)
	cycles := max(l.Cycles, 1)
	load, bucket := loadCells(l)
	cols := 1
	if rows > 0 {
		cols = len(load[0])
	}
	p := plot.New()
	what := "channel"
	if l.PerRow > 1 {
		what = fmt.Sprintf("%d channels (mean)", l.PerRow)
	}
	if cols == 1 {
		p.Title.Text = fmt.Sprintf("%s: load per %s over %d cycles", title, what, cycles)
	} else {
		p.Title.Text = fmt.Sprintf("%s: load per %s per %s", title, what, cyclesText(bucket))
	}
	p.X.Label.Text = "cycle"
	p.Y.Label.Text = "network channel"
	p.Y.Scale = plot.InvertedScale{Normalizer: plot.LinearScale{}}
	p.X.Min, p.X.Max = 0, float64(cycles)
	p.Y.Min, p.Y.Max = 0, float64(max(rows, 1))
	step := (rows + 63) / 64
	p.Y.Tick.Label.Font.Size = vg.Points(7)
	p.Y.Tick.Marker = plot.TickerFunc(func(lo, hi float64) []plot.Tick {
		var ts []plot.Tick
		for i := 0; i < rows; i += step {
			ts = append(ts, plot.Tick{Value: float64(i) + 0.5, Label: l.Rows[i]})
		}
		return ts
	})
	// The colour scale runs to the run's busiest cell, so a light load
	// (a barrier's few flits) still shows which channels carry it.
	top := busiest(load)
	scale := max(top, 1e-300)
	p.Add(grid{x0: 0, dx: float64(bucket), x1: float64(cycles), dy: 1, y1: float64(rows), rows: rows, cols: cols,
		val: func(i, j int) float64 { return load[i][j] / scale }})
	vals := []float64{0}
	if top > 0 {
		vals = heatSteps(top, 4)
	}
	heatLegend(p, vals, scale, func(v float64) string { return fmt.Sprintf("%.3g flits/cycle", v) })
	if res != nil && cols > 1 {
		episodeLines(p, episodesOf(res))
	}
	rowH := 10.0
	if rows > 64 {
		rowH = 4
	}
	h := vg.Points(float64(rows)*rowH + 110)
	wd := 10 * vg.Inch
	if cols == 1 {
		wd = 6 * vg.Inch
	}
	return p, wd, max(h, 3*vg.Inch)
}
