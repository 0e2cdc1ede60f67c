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
// mean utilisation in that column (flits per cycle per channel, 0..1). A
// run of fewer than 8 columns gets one column for the whole run. The
// boundaries between the episodes of res (nil: none) are marked.
func LoadSVG(w io.Writer, l *sim.ChannelLoad, res *sim.Result, title string) error {
	p, wd, h := loadPlot(l, res, title)
	return writeSVG(w, p, wd, h)
}

func loadPlot(l *sim.ChannelLoad, res *sim.Result, title string) (*plot.Plot, vg.Length, vg.Length) {
	rows := len(l.Rows)
	cycles := max(l.Cycles, 1)
	bucket := l.Bucket
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
	p.Add(grid{x0: 0, dx: float64(bucket), x1: float64(cycles), dy: 1, y1: float64(rows), rows: rows, cols: cols,
		val: func(i, j int) float64 {
			if j >= len(flits[i]) || flits[i][j] == 0 {
				return 0
			}
			width := min(bucket, cycles-int64(j)*bucket)
			n := min(l.PerRow, l.Channels()-i*l.PerRow)
			return float64(flits[i][j]) / float64(width) / float64(n)
		}})
	heatLegend(p, "%.2f flits/cycle", 1, 4)
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
