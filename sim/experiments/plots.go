package experiments

import (
	"fmt"
	"image/color"
	"path/filepath"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/hxbar/hxbar/collective"
	"github.com/hxbar/hxbar/hw"
)

// Plot files, in the order Markdown uses them.
var plotFiles = []string{"exp-orders" + plotExt, "exp-doubling-hops" + plotExt, "exp-doubling-cycles" + plotExt, "exp-duplex" + plotExt, "exp-orders-64" + plotExt}

// plotExt is the image format: SVG, which carries the Marker (savePlot).
const plotExt = ".svg"

var palette = []color.Color{
	color.RGBA{R: 0x1f, G: 0x77, B: 0xb4, A: 0xff},
	color.RGBA{R: 0xff, G: 0x7f, B: 0x0e, A: 0xff},
	color.RGBA{R: 0x2c, G: 0xa0, B: 0x2c, A: 0xff},
	color.RGBA{R: 0xd6, G: 0x27, B: 0x28, A: 0xff},
	color.RGBA{R: 0x94, G: 0x67, B: 0xbd, A: 0xff},
	color.RGBA{R: 0x8c, G: 0x56, B: 0x4b, A: 0xff},
	color.RGBA{R: 0xe3, G: 0x77, B: 0xc2, A: 0xff},
	color.RGBA{R: 0x7f, G: 0x7f, B: 0x7f, A: 0xff},
	color.RGBA{R: 0xbc, G: 0xbd, B: 0x22, A: 0xff},
	color.RGBA{R: 0x17, G: 0xbe, B: 0xcf, A: 0xff},
}

// bars draws groups of bars side by side: one series per entry of values,
// one group per name.
func bars(title, ylabel string, names, series []string, values [][]float64, file string) error {
	p := plot.New()
	p.Title.Text = title
	p.Y.Label.Text = ylabel
	w := vg.Points(14)
	top := 0.0
	for _, v := range values {
		for _, x := range v {
			top = max(top, x)
		}
	}
	p.Y.Min, p.Y.Max = 0, top*1.3 // headroom for the legend
	for i, v := range values {
		b, err := plotter.NewBarChart(plotter.Values(v), w)
		if err != nil {
			return err
		}
		b.Color = palette[i%len(palette)]
		b.LineStyle.Width = 0
		b.Offset = w * vg.Length(2*i-len(values)+1) / 2
		p.Add(b)
		p.Legend.Add(series[i], b)
	}
	p.Legend.Top = true
	p.NominalX(names...)
	p.Add(plotter.NewGrid())
	return savePlot(p, vg.Length(max(5, len(names))*90)*vg.Points(1)+200, 4*vg.Inch, file)
}

// Plots writes the four plots into dir and returns their file names.
func (r *Results) Plots(dir string) ([]string, error) {
	fo := last(r.Opt.OrderFlits)
	fd := last(r.Opt.DoubleFlits)
	var seed, meas []float64
	for _, o := range collective.SeedOrders {
		seed = append(seed, float64(SeedCost[o])/5)
		meas = append(meas, r.OrderRatio(o, fo))
	}
	if err := bars("Six orders, 4x4 hyper-crossbar, 16 ranks, 4 items", "time / time of OOMM",
		collective.SeedOrders, []string{"seed cost ratio", fmt.Sprintf("measured cycles ratio (%d flits/item)", fo)},
		[][]float64{seed, meas}, filepath.Join(dir, plotFiles[0])); err != nil {
		return nil, err
	}

	var names []string
	var hops, cyc []float64
	for _, n := range Networks {
		names = append(names, n.Label)
		hops = append(hops, r.HopRatio(n.Label, fd))
		cyc = append(cyc, r.CycleRatio(n.Label, fd))
	}
	if err := bars(fmt.Sprintf("Recursive doubling, 16 ranks, %d flits/item: near-first / near-last", fd), "ratio",
		names, []string{"flit-hops", "cycles"}, [][]float64{hops, cyc}, filepath.Join(dir, plotFiles[1])); err != nil {
		return nil, err
	}

	p := plot.New()
	p.Title.Text = "Recursive doubling, 16 ranks: near-first cycles / near-last cycles"
	p.X.Label.Text = "flits per item"
	p.Y.Label.Text = "cycle ratio"
	p.X.Scale = plot.LogScale{}
	p.X.Tick.Marker = plot.LogTicks{Prec: -1}
	for i, n := range Networks {
		var xy plotter.XYs
		for _, f := range r.Opt.DoubleFlits {
			xy = append(xy, plotter.XY{X: float64(f), Y: r.CycleRatio(n.Label, f)})
		}
		l, pts, err := plotter.NewLinePoints(xy)
		if err != nil {
			return nil, err
		}
		l.Color, pts.Color = palette[i%len(palette)], palette[i%len(palette)]
		p.Add(l, pts)
		p.Legend.Add(n.Label, l, pts)
	}
	top := 1.0
	for _, n := range Networks {
		for _, f := range r.Opt.DoubleFlits {
			top = max(top, r.CycleRatio(n.Label, f))
		}
	}
	p.Y.Min, p.Y.Max = 0.9, 0.9+(top-0.9)*1.6 // headroom for the legend
	p.Legend.Top = true
	p.Legend.Left = true
	p.Add(plotter.NewGrid())
	if err := savePlot(p, 7*vg.Inch, 4.5*vg.Inch, filepath.Join(dir, plotFiles[2])); err != nil {
		return nil, err
	}

	var full, half []float64
	var labels []string
	for i, c := range r.Cases {
		labels = append(labels, fmt.Sprintf("case %d", i+1))
		full = append(full, float64(r.Duplex[c][hw.DuplexFull].Cycles))
		half = append(half, float64(r.Duplex[c][hw.DuplexHalf].Cycles))
	}
	if err := bars(fmt.Sprintf("Full vs half duplex, %d flits/item (cases in table order)", r.Opt.DuplexFlits), "cycles",
		labels, []string{"full duplex", "half duplex"}, [][]float64{full, half}, filepath.Join(dir, plotFiles[3])); err != nil {
		return nil, err
	}
	p = plot.New()
	p.Title.Text = fmt.Sprintf("Every order, 8x8 hyper-crossbar, 64 ranks, 8 items, %d flits/item", r.Opt.WideFlits)
	p.X.Label.Text = "seed cost (items)"
	p.Y.Label.Text = "cycles"
	var xy plotter.XYs
	for _, w := range r.Wide {
		xy = append(xy, plotter.XY{X: float64(w.Cost), Y: float64(w.Run.Cycles)})
	}
	sc, err := plotter.NewScatter(xy)
	if err != nil {
		return nil, err
	}
	sc.Color = palette[0]
	a, b := r.WideFit()
	fit := plotter.NewFunction(func(x float64) float64 { return a*x + b })
	fit.Color = palette[1]
	p.Add(plotter.NewGrid(), sc, fit)
	p.Legend.Add("one order", sc)
	p.Legend.Add(fmt.Sprintf("%.1f x cost + %.1f", a, b), fit)
	p.Legend.Top, p.Legend.Left = true, true
	if err := savePlot(p, 6*vg.Inch, 4*vg.Inch, filepath.Join(dir, plotFiles[4])); err != nil {
		return nil, err
	}
	return append([]string(nil), plotFiles...), nil
}
