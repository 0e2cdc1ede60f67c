// Command area measures the figures of docs/area.md: it runs 'hxbar synth
// --format json' for each design point (at most -timeout each, points that
// take longer are left out and listed) and synthesizes the barrier unit of
// the RTL library on its own over its gate capacity MAXG (verilog/synth's
// RunModule); it caches the results in -cache, prints the Markdown tables
// and draws the plots docs/img/area-ports.svg, area-gates.svg and
// area-width.svg. A point over the bound is recorded as NAME.timeout in the
// cache and left out of later runs too (delete the file to try again).
//
// Usage: go run ./tools/area -hxbar ./hxbar -cache /tmp/hxbar-area -img docs/img
// (make area, from the repository's root: the unit sweep reads verilog/rtl).
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"image/color"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/hxbar/hxbar/verilog/synth"
)

// point is one design measured.
type point struct {
	name  string
	flags []string
}

var (
	ports = []point{
		{"ports-2", []string{"--dims", "2"}},
		{"ports-4", []string{"--dims", "4"}},
		{"ports-8", []string{"--dims", "8"}},
		{"ports-16", []string{"--dims", "16"}},
	}
	widths = []point{
		{"fw16", []string{"--dims", "4", "--flit-width", "16"}},
		{"fw32", []string{"--dims", "4", "--flit-width", "32"}},
		{"ports-4", []string{"--dims", "4"}},
		{"fw128", []string{"--dims", "4", "--flit-width", "128"}},
	}
	// The default 4x4 design (hxbar gen without flags).
	others = []point{
		{"default-4x4", nil},
	}
	// Gate capacity: a barrier unit alone, MAXG 1..62, the other
	// parameters those of the default 4x4 design's units. The gate and
	// receive RAMs have MAXG + 2 words; their index is log2(MAXG+2) bits,
	// one more after MAXG = 2, 6, 14, 30 (and the ones around 31, 32).
	maxgs      = []int{1, 2, 3, 4, 8, 16, 31, 32, 62}
	unitParams = []synth.Param{{Name: "FW", Value: 64}, {Name: "B", Value: 4}, {Name: "AB", Value: 4}, {Name: "RB", Value: 4}, {Name: "NRT", Value: 4}, {Name: "DATA", Value: 0}, {Name: "NIL", Value: 1}}
	unitRTL    = []string{"hx_mem_1r1w.v", "hx_fifo.v", "hx_credit.v", "hx_alu.v", "hx_barrier_unit.v"}
)

// Module groups of the tables and the plots.
var groups = []string{"hx_barrier_unit", "hx_alu", "hx_switch", "hx_fifo", "hx_credit", "hx_top"}

func main() {
	hxbar := flag.String("hxbar", "./hxbar", "the hxbar binary")
	cache := flag.String("cache", filepath.Join(os.TempDir(), "hxbar-area"), "directory of the JSON results (reused)")
	img := flag.String("img", "docs/img", "directory of the plots")
	rtl := flag.String("rtl", "verilog/rtl", "directory of the RTL library (the unit sweep)")
	timeout := flag.Duration("timeout", 5*time.Minute, "longest synthesis of a point")
	routersOnly := flag.Bool("routers", false, "measure and print only the torus routers' table")
	flag.Parse()
	var err error
	if *routersOnly {
		var left []string
		if err = os.MkdirAll(*cache, 0o755); err == nil {
			left, err = routerTable(*rtl, *cache, *timeout)
		}
		if err == nil && len(left) > 0 {
			err = fmt.Errorf("left out (synthesis over %s): %s", *timeout, strings.Join(left, ", "))
		}
	} else {
		err = run(*hxbar, *cache, *img, *rtl, *timeout)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "area:", err)
		os.Exit(1)
	}
}

// result is a point's report with the figures summed per module.
type result struct {
	rep     *synth.Report
	sum     map[string]synth.Module // per module name: Instances and instances × figures; Depth max
	nodes   int
	seconds float64 // synthesis time (0 if unknown)
}

// cached reads NAME.json from the cache, or measures it with do and
// writes it. A point over the bound once is left out (nil, nil).
func cached(cache, name string, timeout time.Duration, do func(ctx context.Context) ([]byte, error)) (*synth.Report, float64, error) {
	file := filepath.Join(cache, name+".json")
	over := filepath.Join(cache, name+".timeout")
	if _, err := os.Stat(over); err == nil {
		return nil, 0, nil
	}
	data, err := os.ReadFile(file)
	secs := 0.0
	if err != nil {
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		defer cancel()
		start := time.Now()
		out, err := do(ctx)
		if ctx.Err() != nil {
			return nil, 0, os.WriteFile(over, []byte(timeout.String()+"\n"), 0o644)
		}
		if err != nil {
			return nil, 0, fmt.Errorf("%s: %w", name, err)
		}
		secs = time.Since(start).Seconds()
		if err := os.WriteFile(file, out, 0o644); err != nil {
			return nil, 0, err
		}
		_ = os.WriteFile(filepath.Join(cache, name+".seconds"), []byte(fmt.Sprintf("%.1f\n", secs)), 0o644)
		data = out
	} else if b, err := os.ReadFile(filepath.Join(cache, name+".seconds")); err == nil {
		secs, _ = strconv.ParseFloat(strings.TrimSpace(string(b)), 64)
	}
	var rep synth.Report
	if err := json.Unmarshal(data, &rep); err != nil {
		return nil, 0, fmt.Errorf("%s: %w", file, err)
	}
	return &rep, secs, nil
}

func measure(hxbar, cache string, p point, timeout time.Duration) (*result, error) {
	rep, secs, err := cached(cache, p.name, timeout, func(ctx context.Context) ([]byte, error) {
		fmt.Fprintf(os.Stderr, "area: %s: hxbar synth %s\n", p.name, strings.Join(p.flags, " "))
		cmd := exec.CommandContext(ctx, hxbar, append(append([]string{"synth"}, p.flags...), "--format", "json")...)
		cmd.Stderr = os.Stderr
		// SIGTERM, not SIGKILL: hxbar synth then stops its Yosys.
		cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
		cmd.WaitDelay = 10 * time.Second
		return cmd.Output()
	})
	if err != nil || rep == nil {
		return nil, err
	}
	r := &result{rep: rep, sum: map[string]synth.Module{}, seconds: secs}
	for _, m := range rep.Modules {
		key := m.Module
		if key == "hx_alu3" { // the unit's gate ALU: with hx_alu in the ALUs' group
			key = "hx_alu"
		}
		s := r.sum[key]
		s.Module = key
		s.Instances += m.Instances
		s.Cells += m.Instances * m.Cells
		s.Flops += m.Instances * m.Flops
		s.MemoryBits += m.Instances * m.MemoryBits
		s.Depth = max(s.Depth, m.Depth)
		r.sum[key] = s
	}
	r.nodes = r.sum["hx_barrier_unit"].Instances
	return r, nil
}

// unit synthesizes hx_barrier_unit alone with MAXG = g.
func unit(rtl, cache string, g int, timeout time.Duration) (*synth.Report, float64, error) {
	return cached(cache, fmt.Sprintf("unit-maxg-%d", g), timeout, func(ctx context.Context) ([]byte, error) {
		fmt.Fprintf(os.Stderr, "area: hx_barrier_unit MAXG=%d\n", g)
		var src []string
		for _, f := range unitRTL {
			src = append(src, filepath.Join(rtl, f))
		}
		rep, err := synth.RunModule(ctx, src, "hx_barrier_unit", append([]synth.Param{{Name: "MAXG", Value: g}}, unitParams...), synth.Options{})
		if err != nil {
			return nil, err
		}
		if len(rep.Warnings) > 0 {
			return nil, fmt.Errorf("yosys warnings: %s", strings.Join(rep.Warnings, "; "))
		}
		return json.Marshal(rep)
	})
}

func module(rep *synth.Report, name string) synth.Module {
	for _, m := range rep.Modules {
		if m.Module == name {
			return m
		}
	}
	return synth.Module{}
}

func run(hxbar, cache, img, rtl string, timeout time.Duration) error {
	if err := os.MkdirAll(cache, 0o755); err != nil {
		return err
	}
	results := map[string]*result{}
	var left []string
	for _, ps := range [][]point{ports, widths, others} {
		for _, p := range ps {
			if _, ok := results[p.name]; ok {
				continue
			}
			r, err := measure(hxbar, cache, p, timeout)
			if err != nil {
				return err
			}
			if r == nil {
				left = append(left, fmt.Sprintf("%s (%s)", p.name, strings.Join(p.flags, " ")))
			}
			results[p.name] = r
		}
	}
	units := map[int]*synth.Report{}
	unitSecs := map[int]float64{}
	for _, g := range maxgs {
		rep, secs, err := unit(rtl, cache, g, timeout)
		if err != nil {
			return err
		}
		if rep == nil {
			left = append(left, fmt.Sprintf("unit MAXG=%d", g))
		}
		units[g], unitSecs[g] = rep, secs
	}

	k := func(n int) string { return fmt.Sprintf("%.1fk", float64(n)/1000) }
	row := func(lead string, r *result) string {
		t := r.rep.Total
		s := fmt.Sprintf("| %s | %d | %s | %s | %s | %d |", lead, r.sum["hx_switch"].Instances, k(t.Cells), k(t.Flops), k(t.MemoryBits), t.Depth)
		for _, g := range groups {
			s += fmt.Sprintf(" %s |", k(r.sum[g].Cells))
		}
		l := largest(r, "hx_switch")
		return s + fmt.Sprintf(" %d | %d | %.0f s |", l.Cells, l.Depth, r.seconds)
	}
	head := "| switches | cells | flops | memory bits | depth |"
	for _, g := range groups {
		head += " " + g + " |"
	}
	head += " largest hx_switch: cells | its depth | synthesis |"

	fmt.Println("Ports (`--dims N`: one N-port crossbar, N nodes, every node a rank, flit width 64); design totals, then cells by module (all instances):")
	fmt.Println()
	fmt.Println("| --dims " + head)
	fmt.Println(strings.Repeat("|---", strings.Count(head, "|")) + "|")
	for _, p := range ports {
		if r := results[p.name]; r != nil {
			fmt.Println(row(strings.Join(p.flags[1:], " "), r))
		}
	}
	fmt.Println()
	fmt.Println("Flit width (`--dims 4`):")
	fmt.Println()
	fmt.Println("| flit width " + head)
	fmt.Println(strings.Repeat("|---", strings.Count(head, "|")) + "|")
	for _, p := range widths {
		if r := results[p.name]; r != nil {
			fmt.Println(row(fwOf(p), r))
		}
	}
	fmt.Println()
	fmt.Println("The default 4x4 design (`hxbar synth`, no flags):")
	fmt.Println()
	fmt.Println("| design " + head)
	fmt.Println(strings.Repeat("|---", strings.Count(head, "|")) + "|")
	if r := results["default-4x4"]; r != nil {
		fmt.Println(row("4,4", r))
	}
	fmt.Println()
	fmt.Printf("Gate capacity: hx_barrier_unit alone (")
	for i, p := range unitParams {
		if i > 0 {
			fmt.Print(", ")
		}
		fmt.Printf("%s = %d", p.Name, p.Value)
	}
	fmt.Println("); the unit's own figures, then with its submodules (hx_alu and hx_alu3, its ejection hx_fifo, its injection hx_credit):")
	fmt.Println()
	fmt.Println("| MAXG | RAM words | unit cells | unit flops | unit memory bits | with submodules: cells | flops | memory bits | depth | synthesis |")
	fmt.Println("|---|---|---|---|---|---|---|---|---|---|")
	for _, g := range maxgs {
		rep := units[g]
		if rep == nil {
			continue
		}
		u := module(rep, "hx_barrier_unit")
		t := rep.Total
		fmt.Printf("| %d | %d | %d | %d | %d | %d | %d | %d | %d | %.1f s |\n", g, g+2, u.Cells, u.Flops, u.MemoryBits,
			t.Cells, t.Flops, t.MemoryBits, t.Depth, unitSecs[g])
	}
	rleft, err := routerTable(rtl, cache, timeout)
	if err != nil {
		return err
	}
	left = append(left, rleft...)
	if len(left) > 0 {
		fmt.Printf("\nLeft out (synthesis over %s): %s\n", timeout, strings.Join(left, ", "))
	}
	if err := plotStack(results, ports, func(p point) string { return p.flags[1] + " ports" },
		"Generic cells by module, --dims N (one N-port crossbar), flit width 64", filepath.Join(img, "area-ports.svg")); err != nil {
		return err
	}
	if err := plotStack(results, widths, func(p point) string { return "FW " + fwOf(p) },
		"Generic cells by module against flit width FW, --dims 4", filepath.Join(img, "area-width.svg")); err != nil {
		return err
	}
	return plotGates(units, filepath.Join(img, "area-gates.svg"))
}

func fwOf(p point) string {
	for i, f := range p.flags {
		if f == "--flit-width" {
			return p.flags[i+1]
		}
	}
	return "64"
}

// largest is the module's variant with the most cells.
func largest(r *result, module string) synth.Module {
	var l synth.Module
	for _, m := range r.rep.Modules {
		if m.Module == module && m.Cells > l.Cells {
			l = m
		}
	}
	return l
}

var palette = []color.Color{
	color.RGBA{R: 0x1f, G: 0x77, B: 0xb4, A: 0xff},
	color.RGBA{R: 0xff, G: 0x7f, B: 0x0e, A: 0xff},
	color.RGBA{R: 0x2c, G: 0xa0, B: 0x2c, A: 0xff},
	color.RGBA{R: 0xd6, G: 0x27, B: 0x28, A: 0xff},
	color.RGBA{R: 0x94, G: 0x67, B: 0xbd, A: 0xff},
	color.RGBA{R: 0x8c, G: 0x56, B: 0x4b, A: 0xff},
}

// plotStack draws the cells of each module group, stacked, for each point.
func plotStack(results map[string]*result, pts []point, label func(point) string, title, file string) error {
	var names []string
	vals := make([]plotter.Values, len(groups))
	for _, p := range pts {
		r := results[p.name]
		if r == nil {
			continue
		}
		names = append(names, label(p))
		for i, g := range groups {
			vals[i] = append(vals[i], float64(r.sum[g].Cells)/1000)
		}
	}
	if len(names) == 0 {
		return errors.New("no point measured for " + file)
	}
	p := plot.New()
	p.Title.Text = title
	p.Y.Label.Text = "thousand Yosys generic cells (memories excluded)"
	top := 0.0
	for j := range names {
		sum := 0.0
		for i := range groups {
			sum += vals[i][j]
		}
		top = max(top, sum)
	}
	p.Y.Min, p.Y.Max = 0, top*1.1
	p.X.Min, p.X.Max = -0.6, float64(len(names))-0.4
	var below *plotter.BarChart
	var bars []*plotter.BarChart
	for i := range groups {
		b, err := plotter.NewBarChart(vals[i], vg.Points(40))
		if err != nil {
			return err
		}
		b.Color = palette[i%len(palette)]
		b.LineStyle.Width = 0
		if below != nil {
			b.StackOn(below)
		}
		below = b
		bars = append(bars, b)
		p.Add(b)
	}
	for i := len(groups) - 1; i >= 0; i-- { // the legend in the stack's order, top first
		p.Legend.Add(groups[i], bars[i])
	}
	p.Legend.Top = true
	p.Legend.Left = true
	p.NominalX(names...)
	p.Add(plotter.NewGrid())
	return p.Save(7*vg.Inch, 4.5*vg.Inch, file)
}

// plotGates draws a unit's cells (its own, and with its submodules) and its
// memory bits against MAXG.
func plotGates(units map[int]*synth.Report, file string) error {
	var own, all, mem plotter.XYs
	for _, g := range maxgs {
		rep := units[g]
		if rep == nil {
			continue
		}
		u := module(rep, "hx_barrier_unit")
		own = append(own, plotter.XY{X: float64(g), Y: float64(u.Cells) / 1000})
		all = append(all, plotter.XY{X: float64(g), Y: float64(rep.Total.Cells) / 1000})
		mem = append(mem, plotter.XY{X: float64(g), Y: float64(rep.Total.MemoryBits) / 1000})
	}
	if len(own) == 0 {
		return errors.New("no unit measured")
	}
	p := plot.New()
	p.Title.Text = "hx_barrier_unit against its gate capacity MAXG (FW 64, B 4, AB 4, RB 4, NRT 4)"
	p.X.Label.Text = "MAXG (gate RAM and receive RAM: MAXG + 2 words)"
	p.Y.Label.Text = "thousands"
	p.Y.Min = 0
	for i, s := range []struct {
		xy   plotter.XYs
		name string
	}{
		{all, "cells, with its 2 ALUs, FIFO, credit counter"},
		{own, "cells, the unit's own (memories excluded)"},
		{mem, "memory bits (gate, route, receive RAMs, FIFO)"},
	} {
		l, pts, err := plotter.NewLinePoints(s.xy)
		if err != nil {
			return err
		}
		l.Color, pts.Color = palette[i], palette[i]
		p.Add(l, pts)
		p.Legend.Add(s.name, l, pts)
	}
	p.Legend.Top = true
	p.Legend.Left = true
	p.Add(plotter.NewGrid())
	return p.Save(7*vg.Inch, 4.5*vg.Inch, file)
}

// routerPoint is a torus router measured alone: its shape (its
// coordinates and directions are registers, so every router of a network
// is the one measured).
type routerPoint struct {
	name   string
	ports  int // 1 + 4 NDIM
	params []synth.Param
}

func rp(name string, kv ...int) routerPoint {
	ps := []synth.Param{{Name: "FW", Value: 64}, {Name: "B", Value: 4}, {Name: "CB", Value: 32}}
	names := []string{"NDIM", "K0", "K1", "K2", "K3", "K4", "K5", "WRAP"}
	for i, v := range kv {
		ps = append(ps, synth.Param{Name: names[i], Value: v})
	}
	return routerPoint{name, 1 + 4*kv[0], ps}
}

// routers: hx_router alone (issue 23) with the default design's flit
// (FW 64, CB 32, B 4); ports 1 + 4 NDIM.
var (
	routers = []routerPoint{
		rp("ring 8", 1, 8, 0, 0, 0, 0, 0, 1),
		rp("torus 4x4", 2, 4, 4, 0, 0, 0, 0, 3),
		rp("mixed 4x3x2", 3, 4, 3, 2, 0, 0, 0, 3),
		rp("Tofu 3x2x3x2x3x2", 6, 3, 2, 3, 2, 3, 2, 21),
	}
	routerRTL = []string{"hx_mem_1r1w.v", "hx_fifo.v", "hx_credit.v", "hx_drops.v", "hx_router_dir.v", "hx_router.v"}
)

// routerTable measures and prints the routers; it returns those left out.
func routerTable(rtl, cache string, timeout time.Duration) ([]string, error) {
	var left []string
	fmt.Println()
	fmt.Println("The torus router: hx_router alone (FW = 64, CB = 32, B = 4), with its FIFOs and credit counters:")
	fmt.Println()
	fmt.Println("| network | ports | cells | flops | memory bits | depth | router alone: cells | flops | synthesis |")
	fmt.Println("|---|---|---|---|---|---|---|---|---|")
	for _, r := range routers {
		key := "router-" + strings.NewReplacer(" ", "-").Replace(r.name)
		rep, secs, err := cached(cache, key, timeout, func(ctx context.Context) ([]byte, error) {
			fmt.Fprintf(os.Stderr, "area: hx_router %s\n", r.name)
			var src []string
			for _, f := range routerRTL {
				src = append(src, filepath.Join(rtl, f))
			}
			rep, err := synth.RunModule(ctx, src, "hx_router", r.params, synth.Options{})
			if err != nil {
				return nil, err
			}
			if len(rep.Warnings) > 0 {
				return nil, fmt.Errorf("yosys warnings: %s", strings.Join(rep.Warnings, "; "))
			}
			return json.Marshal(rep)
		})
		if err != nil {
			return nil, err
		}
		if rep == nil {
			left = append(left, "router "+r.name)
			continue
		}
		t := rep.Total
		own := module(rep, "hx_router")
		fmt.Printf("| %s | %d | %d | %d | %d | %d | %d | %d | %.0f s |\n", r.name, r.ports, t.Cells, t.Flops, t.MemoryBits, t.Depth, own.Cells, own.Flops, secs)
	}
	return left, nil
}
