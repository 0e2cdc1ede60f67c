// Command area measures the figures of docs/area.md: it runs 'hxbar synth
// --format json' for each design point (at most -timeout each, points that
// take longer are left out and listed), caches the results in -cache, and
// prints the Markdown tables and writes the plot (docs/img/area-ports.svg).
// A point over the bound is recorded as NAME.timeout in the cache and left
// out of later runs too (delete the file to try again).
//
// Usage: go run ./tools/area -hxbar ./hxbar -cache /tmp/hxbar-area -img docs/img
// (make area). Synthesis of the 16-port points takes minutes each.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"image/color"
	"math"
	"os"
	"os/exec"
	"path/filepath"
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
	// Gates: a unit's figures depend on G (and on the rank and address
	// bits), hardly on the network; ranks 2..8 on one 8-port crossbar,
	// 16 on one 16-port crossbar and on the binary hypercube, 32 and 64
	// on 4-dimensional networks (hxbar allows at most 4 dimensions).
	gates = []point{
		{"ranks-2", []string{"--dims", "8", "--ranks", "2"}},
		{"ranks-4", []string{"--dims", "8", "--ranks", "4"}},
		{"ports-8", []string{"--dims", "8"}},
		{"ports-16", []string{"--dims", "16"}},
		{"hcube-16", []string{"--dims", "2,2,2,2"}},
		{"hcube-32", []string{"--dims", "2,2,2,4"}},
		{"hcube-64", []string{"--dims", "2,2,4,4"}},
	}
	widths = []point{
		{"fw16", []string{"--dims", "4", "--flit-width", "16"}},
		{"fw32", []string{"--dims", "4", "--flit-width", "32"}},
		{"ports-4", []string{"--dims", "4"}},
		{"fw128", []string{"--dims", "4", "--flit-width", "128"}},
	}
)

// Module groups of the tables and the plot.
var groups = []string{"hx_barrier_unit", "hx_switch", "hx_fifo", "hx_credit"}

func main() {
	hxbar := flag.String("hxbar", "./hxbar", "the hxbar binary")
	cache := flag.String("cache", filepath.Join(os.TempDir(), "hxbar-area"), "directory of the JSON results (reused)")
	img := flag.String("img", "docs/img", "directory of the plot")
	timeout := flag.Duration("timeout", 5*time.Minute, "longest synthesis of a point")
	flag.Parse()
	if err := run(*hxbar, *cache, *img, *timeout); err != nil {
		fmt.Fprintln(os.Stderr, "area:", err)
		os.Exit(1)
	}
}

// result is a point's report with the figures summed per module.
type result struct {
	rep   *synth.Report
	sum   map[string]synth.Module // per module name: Instances and instances × figures; Depth max
	nodes int
}

func measure(hxbar, cache string, p point, timeout time.Duration) (*result, error) {
	file := filepath.Join(cache, p.name+".json")
	over := filepath.Join(cache, p.name+".timeout") // the point took longer than the bound once
	if _, err := os.Stat(over); err == nil {
		return nil, nil
	}
	data, err := os.ReadFile(file)
	if err != nil {
		fmt.Fprintf(os.Stderr, "area: %s: hxbar synth %s\n", p.name, strings.Join(p.flags, " "))
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		defer cancel()
		cmd := exec.CommandContext(ctx, hxbar, append(append([]string{"synth"}, p.flags...), "--format", "json")...)
		cmd.Stderr = os.Stderr
		// SIGTERM, not SIGKILL: hxbar synth then stops its Yosys.
		cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
		cmd.WaitDelay = 10 * time.Second
		out, err := cmd.Output()
		if ctx.Err() != nil {
			// Over the time bound: left out, now and in later runs with
			// this cache.
			return nil, os.WriteFile(over, []byte(timeout.String()+"\n"), 0o644)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p.name, err)
		}
		if err := os.WriteFile(file, out, 0o644); err != nil {
			return nil, err
		}
		data = out
	}
	var rep synth.Report
	if err := json.Unmarshal(data, &rep); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	r := &result{rep: &rep, sum: map[string]synth.Module{}}
	for _, m := range rep.Modules {
		s := r.sum[m.Module]
		s.Module = m.Module
		s.Instances += m.Instances
		s.Cells += m.Instances * m.Cells
		s.Flops += m.Instances * m.Flops
		s.MemoryBits += m.Instances * m.MemoryBits
		s.Depth = max(s.Depth, m.Depth)
		r.sum[m.Module] = s
	}
	r.nodes = r.sum["hx_barrier_unit"].Instances
	return r, nil
}

func run(hxbar, cache, img string, timeout time.Duration) error {
	if err := os.MkdirAll(cache, 0o755); err != nil {
		return err
	}
	results := map[string]*result{}
	var left []string
	get := func(ps []point) error {
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
		return nil
	}
	for _, ps := range [][]point{ports, widths, gates} {
		if err := get(ps); err != nil {
			return err
		}
	}
	k := func(n int) string { return fmt.Sprintf("%.1fk", float64(n)/1000) }
	row := func(lead string, r *result) string {
		t := r.rep.Total
		s := fmt.Sprintf("| %s | %d | %s | %s | %s | %d |", lead, r.sum["hx_switch"].Instances, k(t.Cells), k(t.Flops), k(t.MemoryBits), t.Depth)
		for _, g := range groups {
			s += fmt.Sprintf(" %s |", k(r.sum[g].Cells))
		}
		return s + fmt.Sprintf(" %s |", k(largest(r, "hx_switch").Cells))
	}
	head := "| switches | cells | flops | memory bits | depth |"
	for _, g := range groups {
		head += " " + g + " cells |"
	}
	head += " largest hx_switch (one) |"

	fmt.Println("Ports (`--dims N`: one N-port crossbar, N nodes, every node a rank, flit width 64):")
	fmt.Println()
	fmt.Println("| --dims " + head)
	fmt.Println(strings.Repeat("|---", strings.Count(head, "|")) + "|")
	for _, p := range ports {
		if r := results[p.name]; r != nil {
			fmt.Println(row(strings.Join(p.flags[1:], " "), r))
		}
	}
	fmt.Println()
	fmt.Println("Gates (ranks R on the first nodes, G = ceil(log2 R) gates of the butterfly; flit width 64). The unit is the largest")
	fmt.Println("hx_barrier_unit variant (a unit with a rank); the design total includes the network:")
	fmt.Println()
	fmt.Println("| --dims | nodes | ranks | G | unit cells | unit flops | unit memory bits | unit depth | design cells | design depth |")
	fmt.Println("|---|---|---|---|---|---|---|---|---|---|")
	for _, p := range gates {
		r := results[p.name]
		if r == nil {
			continue
		}
		ranks := r.nodes
		for i, f := range p.flags {
			if f == "--ranks" {
				fmt.Sscan(p.flags[i+1], &ranks)
			}
		}
		unit := largest(r, "hx_barrier_unit")
		g := int(math.Ceil(math.Log2(float64(ranks))))
		fmt.Printf("| %s | %d | %d | %d | %d | %d | %d | %d | %s | %d |\n", p.flags[1], r.nodes, ranks, g,
			unit.Cells, unit.Flops, unit.MemoryBits, unit.Depth, k(r.rep.Total.Cells), r.rep.Total.Depth)
	}
	fmt.Println()
	fmt.Println("Flit width (`--dims 4`):")
	fmt.Println()
	fmt.Println("| flit width " + head)
	fmt.Println(strings.Repeat("|---", strings.Count(head, "|")) + "|")
	for _, p := range widths {
		if r := results[p.name]; r != nil {
			w := "64"
			if len(p.flags) > 2 {
				w = p.flags[3]
			}
			fmt.Println(row(w, r))
		}
	}
	if len(left) > 0 {
		fmt.Printf("\nLeft out (synthesis over %s): %s\n", timeout, strings.Join(left, ", "))
	}
	return plotPorts(results, filepath.Join(img, "area-ports.svg"))
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
}

// plotPorts draws the cells of each module group, stacked, against the
// crossbar's ports.
func plotPorts(results map[string]*result, file string) error {
	var names []string
	vals := make([]plotter.Values, len(groups))
	for _, p := range ports {
		r := results[p.name]
		if r == nil {
			continue
		}
		names = append(names, p.flags[1]+" ports")
		for i, g := range groups {
			vals[i] = append(vals[i], float64(r.sum[g].Cells)/1000)
		}
	}
	if len(names) == 0 {
		return errors.New("no ports point measured")
	}
	p := plot.New()
	p.Title.Text = "Generic cells by module, --dims N (one N-port crossbar), flit width 64"
	p.Y.Label.Text = "thousand Yosys generic cells"
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
		b.Color = palette[i]
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
