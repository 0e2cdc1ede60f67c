package pictures

import (
	"fmt"
	"image/color"
	"io"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/hxbar/hxbar/barrierunit"
	"github.com/hxbar/hxbar/sim"
)

// MaxDetailRanks is the largest rank count the timeline draws event by
// event; a larger run gets the density view.
const MaxDetailRanks = 64

// Density view bounds: at most densityRows rank buckets and
// densityCols cycle buckets (the cycle bucket width doubles as the run
// grows, neighbouring buckets merging).
const (
	densityRows = 64
	densityCols = 128
)

// Timeline records a run's events for its timeline picture (WriteSVG):
// event by event for at most MaxDetailRanks ranks, else as counts per
// rank bucket and cycle bucket. Add takes each cycle's events.
type Timeline struct {
	run    Run
	rankOf []int32
	ranks  int
	evs    []tev               // detailed view
	errs   []barrierunit.Event // the units' errors (at most one a node), both views

	// density view
	perRow int
	bucket int64
	counts [][]uint32 // [row][column]
}

// tev is one event of the detailed view: rank is the rank the event
// belongs to (the sender of a send, the receiver of a recv), peer the
// other end of a message.
type tev struct {
	cycle      int64
	rank, peer int32
	kind, gate uint8
}

// NewTimeline starts the timeline of run r.
func NewTimeline(r Run) *Timeline {
	t := &Timeline{run: r, rankOf: r.rankOf(), ranks: len(r.NodeOf)}
	if t.ranks > MaxDetailRanks {
		t.perRow = (t.ranks + densityRows - 1) / densityRows
		t.counts = make([][]uint32, (t.ranks+t.perRow-1)/t.perRow)
		t.bucket = 1
	}
	return t
}

// Add records one cycle's events (sim.Options.Events): the units' errors
// as they are, the other kinds for the detailed or the density view.
func (t *Timeline) Add(evs []barrierunit.Event) {
	for _, e := range evs {
		var rank int32
		switch e.Kind {
		case barrierunit.EvArrive, barrierunit.EvRelease:
			rank = e.Rank
		case barrierunit.EvGate, barrierunit.EvSend, barrierunit.EvRecv:
			if rank = t.run.ownRank(t.rankOf, e); rank < 0 && t.run.EventRank != nil {
				continue // no rank of the run (a garbled source without a check code)
			}
		case barrierunit.EvError:
			t.errs = append(t.errs, e)
			continue
		default:
			continue
		}
		if t.counts == nil {
			t.evs = append(t.evs, tev{cycle: e.Cycle, rank: rank, peer: e.Rank, kind: e.Kind, gate: e.Gate})
			continue
		}
		for e.Cycle/t.bucket >= densityCols {
			t.bucket *= 2
			for i, row := range t.counts {
				for j := 0; j < len(row); j += 2 {
					v := row[j]
					if j+1 < len(row) {
						v += row[j+1]
					}
					row[j/2] = v
				}
				t.counts[i] = row[:(len(row)+1)/2]
			}
		}
		row := &t.counts[int(rank)/t.perRow]
		col := int(e.Cycle / t.bucket)
		for len(*row) <= col {
			*row = append(*row, 0)
		}
		(*row)[col]++
	}
}

func episodesOf(res *sim.Result) []episode {
	var eps []episode
	for _, e := range res.Episodes {
		eps = append(eps, episode{e.FirstArrival, e.LastRelease})
	}
	return eps
}

// rankTicks labels ranks on the (inverted) rank axis, every step-th one,
// with label's text.
func rankTicks(ranks, step int, label func(r int) string) plot.Ticker {
	return plot.TickerFunc(func(lo, hi float64) []plot.Tick {
		var ts []plot.Tick
		for r := 0; r < ranks; r++ {
			l := ""
			if r%step == 0 {
				l = label(r)
			}
			ts = append(ts, plot.Tick{Value: float64(r), Label: l})
		}
		return ts
	})
}

// WriteSVG draws the timeline of the run whose result is res: ranks down,
// cycles across.
func (t *Timeline) WriteSVG(w io.Writer, res *sim.Result) error {
	p, wd, h := t.plot(res)
	return writeSVG(w, p, wd, h)
}

func (t *Timeline) plot(res *sim.Result) (*plot.Plot, vg.Length, vg.Length) {
	p := plot.New()
	p.X.Label.Text = "cycle"
	p.Y.Scale = plot.InvertedScale{Normalizer: plot.LinearScale{}}
	p.X.Min, p.X.Max = 0, float64(max(res.Cycles, 1))
	p.Legend.Top = true
	p.Legend.Left = false
	var h vg.Length
	y := rows{top: -0.5, line: 0.75, row: func(r int32) float64 { return float64(r) }} // a row of 12 points per rank
	if t.counts == nil {
		t.detail(p)
		iterationMarks(p, res)
		h = vg.Points(float64(t.ranks)*12 + 120)
	} else {
		t.density(p, res)
		h = vg.Points(float64(len(t.counts))*8 + 120)
		// A row of 8 points per perRow ranks.
		y = rows{top: 0, line: 1.125 * float64(t.perRow), row: func(r int32) float64 { return float64(r) + 0.5 }}
	}
	episodeLines(p, episodesOf(res))
	t.faults(p, res, y)
	t.errors(p, y.row, res)
	return p, 10 * vg.Inch, max(h, 3*vg.Inch)
}

func (t *Timeline) detail(p *plot.Plot) {
	p.Title.Text = t.run.Title + ": timeline"
	p.Y.Label.Text = "rank"
	p.Y.Min, p.Y.Max = -0.5, float64(t.ranks)-0.5
	step := 1
	if t.ranks > 32 {
		step = 4
	}
	p.Y.Tick.Marker = rankTicks(t.ranks, step, t.rankLabel)
	p.Add(plotter.NewGrid())
	// Messages: a send pairs with the next recv of the same (src, dst,
	// gate); in a run of communicators each entry's in its own colour.
	msgs := segments{style: draw.LineStyle{Color: color.RGBA{0x80, 0x80, 0x80, 0xa0}, Width: vg.Points(0.6)}}
	groups := map[int32]*segments{}
	pending := map[[3]int32][]int64{}
	var arrive, gate, release plotter.XYs
	for _, e := range t.evs {
		x, y := float64(e.cycle), float64(e.rank)
		switch e.kind {
		case barrierunit.EvArrive:
			arrive = append(arrive, plotter.XY{X: x, Y: y})
		case barrierunit.EvGate:
			gate = append(gate, plotter.XY{X: x, Y: y})
		case barrierunit.EvRelease:
			release = append(release, plotter.XY{X: x, Y: y})
		case barrierunit.EvSend:
			k := [3]int32{e.rank, e.peer, int32(e.gate)}
			pending[k] = append(pending[k], e.cycle)
		case barrierunit.EvRecv:
			k := [3]int32{e.peer, e.rank, int32(e.gate)}
			if q := pending[k]; len(q) > 0 {
				line := [2]plotter.XY{{X: float64(q[0]), Y: float64(e.peer)}, {X: x, Y: y}}
				if t.run.CommOf != nil {
					g := t.run.CommGroup[t.run.CommOf[e.rank]]
					if groups[g] == nil {
						groups[g] = &segments{style: draw.LineStyle{Color: commColor(int(g)), Width: vg.Points(0.8)}}
					}
					groups[g].lines = append(groups[g].lines, line)
				} else {
					msgs.lines = append(msgs.lines, line)
				}
				pending[k] = q[1:]
			}
		}
	}
	if t.run.CommOf == nil {
		p.Add(msgs)
		p.Legend.Add("message (send -> recv)", msgs)
	}
	t.commLegend(p, groups)
	for _, s := range []struct {
		name  string
		pts   plotter.XYs
		shape draw.GlyphDrawer
		c     color.RGBA
		r     float64
	}{
		{"arrive", arrive, draw.TriangleGlyph{}, color.RGBA{0x2c, 0xa0, 0x2c, 0xff}, 3.5},
		{"gate passed", gate, draw.CircleGlyph{}, color.RGBA{0x1f, 0x77, 0xb4, 0xff}, 2.5},
		{"release", release, draw.BoxGlyph{}, color.RGBA{0xd6, 0x27, 0x28, 0xff}, 3},
	} {
		sc, err := plotter.NewScatter(s.pts)
		if err != nil { // no such events (an incomplete run): no entry
			continue
		}
		sc.GlyphStyle = draw.GlyphStyle{Shape: s.shape, Color: s.c, Radius: vg.Points(s.r)}
		p.Add(sc)
		p.Legend.Add(s.name, sc)
	}
}

func (t *Timeline) density(p *plot.Plot, res *sim.Result) {
	cols := int((max(res.Cycles, 1) + t.bucket - 1) / t.bucket)
	var top uint32
	for _, row := range t.counts {
		for _, c := range row {
			top = max(top, c)
		}
	}
	p.Title.Text = fmt.Sprintf("%s: events per %d ranks per %s", t.run.Title, t.perRow, cyclesText(t.bucket))
	p.Y.Label.Text = "rank"
	p.Y.Min, p.Y.Max = 0, float64(t.ranks)
	p.Add(grid{x0: 0, dx: float64(t.bucket), x1: float64(max(res.Cycles, 1)), dy: float64(t.perRow), y1: float64(t.ranks),
		rows: len(t.counts), cols: cols, val: func(i, j int) float64 {
			if j >= len(t.counts[i]) || top == 0 {
				return 0
			}
			return float64(t.counts[i][j]) / float64(top)
		}})
	heatLegend(p, countSteps(top, 4), float64(max(top, 1)), eventsText)
}

// eventsText is "1 event" or "N events".
func eventsText(n float64) string {
	if n == 1 {
		return "1 event"
	}
	return fmt.Sprintf("%d events", int64(n))
}

// rows places marks on the rank axis: top is its top edge, line the
// height of a line of label text, row the y of a rank.
type rows struct {
	top, line float64
	row       func(int32) float64
}

// faults marks each injected fault (faultMarks): a ring labelled with its
// spec, on the stuck rank's row, or at the top with a dashed line down
// the ranks at the cycle a channel's fault first hit.
func (t *Timeline) faults(p *plot.Plot, res *sim.Result, y rows) {
	marks := faultMarks(res, t.ranks)
	if len(marks) == 0 {
		return
	}
	lines := vlines{style: draw.LineStyle{Color: faultColor, Width: vg.Points(0.8), Dashes: []vg.Length{vg.Points(2), vg.Points(2)}}}
	var at plotter.XYLabels
	for i, m := range marks {
		if m.cycle > max(res.Cycles, 1) {
			continue // aimed past the run's end: it never came
		}
		x, at0 := float64(m.cycle), y.row(m.rank)
		if m.rank < 0 {
			// Labels at the top, one below the other so that faults close
			// in time stay readable.
			at0 = y.top + y.line*float64(i%8)
			lines.xs = append(lines.xs, x)
		}
		at.XYs = append(at.XYs, plotter.XY{X: x, Y: at0})
		at.Labels = append(at.Labels, m.label)
	}
	if len(at.XYs) == 0 {
		return
	}
	p.Add(lines)
	sc, _ := plotter.NewScatter(at)
	sc.GlyphStyle = draw.GlyphStyle{Shape: draw.RingGlyph{}, Color: faultColor, Radius: vg.Points(4)}
	p.Add(sc)
	if l, err := plotter.NewLabels(at); err == nil {
		for i := range l.TextStyle {
			l.TextStyle[i].Color = faultColor
			l.TextStyle[i].Font.Size = vg.Points(8)
			l.TextStyle[i].YAlign = draw.YCenter
		}
		l.Offset = vg.Point{X: vg.Points(6)}
		p.Add(l)
	}
	p.Legend.Add("fault (labelled with its spec)", sc, lines)
}

// errorRanks is the row of each of t.errs: the node's rank (a node
// without a rank: the packet's source). In a run of communicators a node
// has a rank per channel: the rank that raised it, as res.Errors names it
// (the event names the node only), matched in order by cycle, node and
// code.
func (t *Timeline) errorRanks(res *sim.Result) []int32 {
	out := make([]int32, len(t.errs))
	used := make([]bool, len(res.Errors))
	for i, e := range t.errs {
		out[i] = e.Rank // the source rank
		if int(e.Node) < len(t.rankOf) && t.rankOf[e.Node] >= 0 {
			out[i] = t.rankOf[e.Node]
		}
		if t.run.EventRank == nil {
			continue
		}
		for k, er := range res.Errors {
			if !used[k] && er.Cycle == e.Cycle && er.Node == int(e.Node) && er.Code == barrierunit.ErrName(uint8(e.Value)) {
				used[k] = true
				if er.Rank >= 0 {
					out[i] = int32(er.Rank)
				}
				break
			}
		}
	}
	return out
}

// errors marks each unit's error with a cross on its rank's row (a node
// without a rank: the row of the packet's source), one legend entry and
// colour per error code.
func (t *Timeline) errors(p *plot.Plot, row func(int32) float64, res *sim.Result) {
	byCode := map[uint8]plotter.XYs{}
	var codes []uint8
	rows := t.errorRanks(res)
	for i, e := range t.errs {
		r := rows[i]
		code := uint8(e.Value)
		if _, ok := byCode[code]; !ok {
			codes = append(codes, code)
		}
		byCode[code] = append(byCode[code], plotter.XY{X: float64(e.Cycle), Y: row(r)})
	}
	slices.Sort(codes)
	for _, code := range codes {
		sc, err := plotter.NewScatter(byCode[code])
		if err != nil {
			continue
		}
		sc.GlyphStyle = draw.GlyphStyle{Shape: draw.CrossGlyph{}, Color: errorColor(code), Radius: vg.Points(4)}
		p.Add(sc)
		p.Legend.Add(errorLabel(code), sc)
	}
}

// rankLabel is rank r's label: its number, or in a run of communicators
// its communicator and rank there (rows.2/1).
func (t *Timeline) rankLabel(r int) string {
	if t.run.CommOf == nil {
		return strconv.Itoa(r)
	}
	return t.run.CommNames[t.run.CommOf[r]] + "/" + strconv.Itoa(int(t.run.CommRank[r]))
}

// commLegend adds each communicator entry's messages (groups, by entry)
// with its name: the entry's, without a split's ".k".
func (t *Timeline) commLegend(p *plot.Plot, groups map[int32]*segments) {
	keys := make([]int32, 0, len(groups))
	for g := range groups {
		keys = append(keys, g)
	}
	slices.Sort(keys)
	for _, g := range keys {
		name := ""
		for k, cg := range t.run.CommGroup {
			if cg == g {
				name, _, _ = strings.Cut(t.run.CommNames[k], ".")
				if !strings.Contains(t.run.CommNames[k], ".") {
					name = t.run.CommNames[k]
				}
				break
			}
		}
		p.Add(groups[g])
		p.Legend.Add(name+" messages", groups[g])
	}
}

// commColor is the colour of communicator entry g's messages.
func commColor(g int) color.RGBA {
	palette := []color.RGBA{{0x94, 0x67, 0xbd, 0xd0}, {0xff, 0x7f, 0x0e, 0xd0}, {0x17, 0xbe, 0xcf, 0xd0}, {0x8c, 0x56, 0x4b, 0xd0},
		{0xe3, 0x77, 0xc2, 0xd0}, {0xbc, 0xbd, 0x22, 0xd0}, {0x7f, 0x7f, 0x7f, 0xd0}, {0x1f, 0x77, 0xb4, 0xd0}}
	return palette[g%len(palette)]
}

// iterationMarks marks the end of every iteration of a loop (and every
// communicator's, in a run of communicators, whose ranks are consecutive
// rows): a dashed line over the communicator's rows half a cycle after
// the iteration's last release.
func iterationMarks(p *plot.Plot, res *sim.Result) {
	marks := segments{style: draw.LineStyle{Color: color.RGBA{0x30, 0x30, 0x30, 0xff}, Width: vg.Points(0.8), Dashes: []vg.Length{vg.Points(2), vg.Points(2)}}}
	base := 0
	for _, c := range res.Communicators {
		if len(c.Iterations) > 1 && len(c.Iterations) <= maxIterationMarks {
			for _, it := range c.Iterations {
				if it.LastRelease == nil {
					continue
				}
				x := float64(*it.LastRelease) + 0.5
				marks.lines = append(marks.lines, [2]plotter.XY{{X: x, Y: float64(base) - 0.45}, {X: x, Y: float64(base+c.Ranks-1) + 0.45}})
			}
		}
		base += c.Ranks
	}
	if len(marks.lines) > 0 {
		p.Add(marks)
		p.Legend.Add("iteration end", marks)
	}
}

// maxIterationMarks is the most iterations a loop's marks show.
const maxIterationMarks = 200
