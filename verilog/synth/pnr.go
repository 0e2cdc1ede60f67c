package synth

// Place and route on an iCE40-HX8K (docs/area.md, "Place and route"):
// each distinct module, with its submodules, in a wrapper that registers
// every port, through yosys synth_ice40 and nextpnr-ice40, for its Fmax
// and its logic cells and block RAMs.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/hxbar/hxbar/internal/outfile"
	"github.com/hxbar/hxbar/internal/procgroup"
)

// PnRTargets are the values of Options.PnR (hxbar synth --pnr).
var PnRTargets = []string{"ice40"}

// The iCE40 flow: the device, its package, the clock target (low: every
// module meets it, so nextpnr's timing-driven placer is the same for all)
// and the fixed placer seed that makes the figures repeat.
const (
	Nextpnr      = "nextpnr-ice40"
	PnRDevice    = "hx8k"
	PnRPackage   = "ct256"
	PnRFreqMHz   = 12
	PnRSeed      = 1
	WrapperTop   = "hx_pnr_wrap"
	wrappedName  = "hx_pnr_dut"
	maxLogicHX8K = 7680
)

// ErrNoNextpnr is returned when nextpnr-ice40 is not on PATH.
var ErrNoNextpnr = errors.New("nextpnr-ice40 not found: run 'make deps' (it installs nextpnr-ice40 and fpga-icestorm)")

// Placement is a module placed and routed in its wrapper (with its
// submodules), or the reason it was not. Its fields sit beside the
// module's in the JSON (fmax_mhz, logic_cells, rams, ...).
type Placement struct {
	FmaxMHz      float64 `json:"fmax_mhz"`      // nextpnr's Fmax of the clock; 0 when not placed
	LogicCells   int     `json:"logic_cells"`   // ICESTORM_LC used (the wrapper's included), or needed when it does not fit
	RAMs         int     `json:"rams"`          // ICESTORM_RAM (4 kbit block RAMs)
	WrapperFlops int     `json:"wrapper_flops"` // flip-flops of the wrapper: one per input bit, two per output bit
	Fits         bool    `json:"fits"`          // false only when too large for the device (Note says what)
	Note         string  `json:"pnr_note,omitempty"`
	// The path that sets FmaxMHz, as nextpnr names its ends (cells of the
	// iCE40 netlist, under dut. in the module).
	Critical *CriticalPath `json:"critical_path,omitempty"`
}

// CriticalPath is the ends of a clock's critical path and its logic
// elements (LUTs and carry stages: nextpnr's "logic" steps).
type CriticalPath struct {
	From    string  `json:"from"`
	To      string  `json:"to"`
	Logic   int     `json:"logic"`
	DelayNS float64 `json:"delay_ns"`
}

// PnRError is a place-and-route tool that failed on a module for another
// reason than a design too large for the device.
type PnRError struct {
	Tool, Module string
	Err          error
	Msg          string
}

func (e *PnRError) Error() string {
	return fmt.Sprintf("%s failed on %s (%v): %s", e.Tool, e.Module, e.Err, e.Msg)
}

func (e *PnRError) Unwrap() error { return e.Err }

// CheckPnR checks a --pnr value and that its tools are installed.
func CheckPnR(target string) error {
	if !slices.Contains(PnRTargets, target) {
		return fmt.Errorf("invalid --pnr %q: allowed: %s", target, strings.Join(PnRTargets, ", "))
	}
	if _, err := exec.LookPath(Nextpnr); err != nil {
		return ErrNoNextpnr
	}
	return nil
}

// Port is a port of an elaborated module.
type Port struct {
	Name  string
	Width int
	Dir   string // input, output or inout
	index int    // its position in the module's port list
}

var wireRE = regexp.MustCompile(`^\s*wire\s+(.*\S)\s*$`)

// ParsePorts reads Yosys's `dump */x:*` (the port wires of every module,
// RTLIL) and returns each module's ports in declaration order, by module
// name as ltp prints it.
func ParsePorts(text string) (map[string][]Port, error) {
	out := map[string][]Port{}
	mod := ""
	for _, l := range strings.Split(text, "\n") {
		if m := dumpModRE.FindStringSubmatch(l); m != nil {
			mod = strings.TrimPrefix(m[1], `\`)
			continue
		}
		m := wireRE.FindStringSubmatch(l)
		if m == nil || mod == "" {
			continue
		}
		f := strings.Fields(m[1])
		p := Port{Name: strings.TrimPrefix(f[len(f)-1], `\`), Width: 1}
		for i := 0; i+1 < len(f)-1; i++ {
			switch f[i] {
			case "width", "input", "output", "inout":
				n, err := strconv.Atoi(f[i+1])
				if err != nil {
					return nil, fmt.Errorf("yosys dump: %s: %q", mod, l)
				}
				if f[i] == "width" {
					p.Width = n
				} else {
					p.Dir, p.index = f[i], n
				}
			}
		}
		if p.Dir != "" {
			out[mod] = append(out[mod], p)
		}
	}
	for _, ps := range out {
		sort.Slice(ps, func(i, j int) bool { return ps[i].index < ps[j].index })
	}
	return out, nil
}

var identRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// Wrapper is the Verilog of the module that place and route measures:
// the module (renamed wrappedName) with every port registered, so that
// each of its paths runs from a flip-flop to a flip-flop. Its only pins are
// clk, si and so. The input registers form one shift chain from si (each
// bit loadable, so no input is a constant Yosys could fold); the output
// registers feed a signature register (sig[i] <= sig[i-1] ^ out[i]) whose
// last bit is so: every output bit reaches the pin, and two equal outputs
// do not cancel. A port named clk is driven by the wrapper's clock. It
// returns the wrapper's flip-flop count as well.
func Wrapper(ports []Port) (string, int, error) {
	var conns []string
	ni, no := 0, 0
	for _, p := range ports {
		if !identRE.MatchString(p.Name) || p.Width < 1 {
			return "", 0, fmt.Errorf("port %q (width %d): not a plain Verilog name", p.Name, p.Width)
		}
		switch {
		case p.Name == "clk" && p.Dir == "input" && p.Width == 1:
			conns = append(conns, ".clk(clk)")
		case p.Dir == "input":
			conns = append(conns, fmt.Sprintf(".%s(in_q[%d:%d])", p.Name, ni+p.Width-1, ni))
			ni += p.Width
		case p.Dir == "output":
			conns = append(conns, fmt.Sprintf(".%s(out_w[%d:%d])", p.Name, no+p.Width-1, no))
			no += p.Width
		default:
			return "", 0, fmt.Errorf("port %s: %s ports cannot be wrapped (allowed: input, output)", p.Name, p.Dir)
		}
	}
	if no == 0 {
		return "", 0, errors.New("no output port: nothing to measure")
	}
	var b strings.Builder
	fmt.Fprintf(&b, "// hxbar synth --pnr: %s with every port registered (docs/area.md)\n", wrappedName)
	fmt.Fprintf(&b, "module %s (input clk, input si, output so);\n", WrapperTop)
	if ni > 0 {
		fmt.Fprintf(&b, "  reg [%d:0] in_q;\n", ni-1)
		if ni == 1 {
			b.WriteString("  always @(posedge clk) in_q <= si;\n")
		} else {
			fmt.Fprintf(&b, "  always @(posedge clk) in_q <= {in_q[%d:0], si};\n", ni-2)
		}
	}
	fmt.Fprintf(&b, "  wire [%d:0] out_w;\n  reg [%[1]d:0] out_q, sig;\n", no-1)
	b.WriteString("  always @(posedge clk) out_q <= out_w;\n")
	if no == 1 {
		b.WriteString("  always @(posedge clk) sig <= out_q;\n")
	} else {
		fmt.Fprintf(&b, "  always @(posedge clk) sig <= {sig[%d:0], 1'b0} ^ out_q;\n", no-2)
	}
	fmt.Fprintf(&b, "  assign so = sig[%d];\n", no-1)
	fmt.Fprintf(&b, "  %s dut (%s);\nendmodule\n", wrappedName, strings.Join(conns, ", "))
	return b.String(), ni + 2*no, nil
}

// PnRScript is the Yosys script of one module's run: the design elaborated
// under top (as for the area), the module (its Yosys name) renamed and
// wrapped, synth_ice40 writing the netlist to json.
func PnRScript(paths []string, top string, params []Param, module, wrapper, json string) string {
	hier := "hierarchy -top " + top
	for _, p := range params {
		hier += fmt.Sprintf(" -chparam %s %d", p.Name, p.Value)
	}
	return strings.Join([]string{
		"read_verilog -defer -DSYNTHESIS " + strings.Join(paths, " "),
		hier,
		"rename " + module + " " + wrappedName,
		"read_verilog " + wrapper,
		"hierarchy -top " + WrapperTop,
		"synth_ice40 -top " + WrapperTop + " -json " + json,
	}, "\n") + "\n"
}

// pnrReport is the part of nextpnr's --report JSON read here.
type pnrReport struct {
	Fmax map[string]struct {
		Achieved float64 `json:"achieved"`
	} `json:"fmax"`
	CriticalPaths []struct {
		From, To string
		Path     []struct {
			Type  string  `json:"type"`
			Delay float64 `json:"delay"`
			From  struct {
				Cell string `json:"cell"`
			} `json:"from"`
			To struct {
				Cell string `json:"cell"`
			} `json:"to"`
		} `json:"path"`
	} `json:"critical_paths"`
	Utilization map[string]struct {
		Used      int `json:"used"`
		Available int `json:"available"`
	} `json:"utilization"`
}

// ParsePnRReport reads nextpnr's --report JSON: the lowest Fmax of its
// clocks, the logic cells and the block RAMs used.
func ParsePnRReport(b []byte) (*Placement, error) {
	var r pnrReport
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("nextpnr report: %w", err)
	}
	if len(r.Fmax) == 0 {
		return nil, errors.New("nextpnr report: no clock in fmax")
	}
	pl := &Placement{Fits: true}
	for _, f := range r.Fmax {
		if pl.FmaxMHz == 0 || f.Achieved < pl.FmaxMHz {
			pl.FmaxMHz = f.Achieved
		}
	}
	pl.FmaxMHz = float64(int(pl.FmaxMHz*10+0.5)) / 10
	lc, ok := r.Utilization["ICESTORM_LC"]
	if !ok {
		return nil, errors.New("nextpnr report: no ICESTORM_LC in utilization")
	}
	pl.LogicCells, pl.RAMs = lc.Used, r.Utilization["ICESTORM_RAM"].Used
	// The longest path from a clock edge to a clock edge (IO paths are
	// "<async>" at one end).
	for _, c := range r.CriticalPaths {
		if c.From == "<async>" || c.To == "<async>" || len(c.Path) == 0 {
			continue
		}
		cp := &CriticalPath{From: c.Path[0].From.Cell, To: c.Path[len(c.Path)-1].To.Cell}
		for _, st := range c.Path {
			cp.DelayNS += st.Delay
			if st.Type == "logic" {
				cp.Logic++
			}
		}
		cp.DelayNS = float64(int(cp.DelayNS*100+0.5)) / 100
		if pl.Critical == nil || cp.DelayNS > pl.Critical.DelayNS {
			pl.Critical = cp
		}
	}
	return pl, nil
}

// utilRE matches nextpnr's utilisation lines: "ICESTORM_LC:  9000/ 7680  117%".
var utilRE = regexp.MustCompile(`(?m)^Info:\s+(\w+):\s+(\d+)/\s*(\d+)`)

// overflow reads a nextpnr log for a resource the design uses more of than
// the device has, and returns a Placement saying so (nil if none).
func overflow(log string) *Placement {
	var pl *Placement
	var over []string
	used := map[string]int{}
	for _, m := range utilRE.FindAllStringSubmatch(log, -1) {
		u, _ := strconv.Atoi(m[2])
		a, _ := strconv.Atoi(m[3])
		used[m[1]] = u
		if u > a {
			over = append(over, fmt.Sprintf("%d %s of %d", u, m[1], a))
		}
	}
	if len(over) > 0 {
		pl = &Placement{LogicCells: used["ICESTORM_LC"], RAMs: used["ICESTORM_RAM"],
			Note: "does not fit in the iCE40-HX8K: needs " + strings.Join(over, ", ")}
	}
	return pl
}

// placeRoute runs synth_ice40 and nextpnr-ice40 on one module (its Yosys
// name) wrapped by Wrapper, in a directory of its own under work.
func placeRoute(ctx context.Context, paths []string, top string, params []Param, module string, ports []Port, work string) (*Placement, error) {
	wrapper, flops, err := Wrapper(ports)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", module, err)
	}
	dir, err := os.MkdirTemp(work, "pnr-")
	if err != nil {
		return nil, err
	}
	f := func(n string) string { return filepath.Join(dir, n) }
	if err := outfile.WriteFile(f("wrap.v"), []byte(wrapper), 0o644); err != nil {
		return nil, err
	}
	if err := outfile.WriteFile(f("pnr.ys"), []byte(PnRScript(paths, top, params, module, f("wrap.v"), f("ice40.json"))), 0o644); err != nil {
		return nil, err
	}
	if out, err := tool(ctx, dir, Yosys, "-q", "-l", f("yosys.log"), "-s", f("pnr.ys")); err != nil {
		if ctx.Err() != nil {
			return nil, err
		}
		log, _ := readLogTail(f("yosys.log"))
		if e := errorLines(string(log)); e != "" {
			out = e
		}
		return nil, &PnRError{Tool: "yosys synth_ice40", Module: module, Err: err, Msg: out}
	}
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	out, err := tool(ctx, dir, Nextpnr, "--"+PnRDevice, "--package", PnRPackage, "--json", f("ice40.json"),
		"--freq", strconv.Itoa(PnRFreqMHz), "--seed", strconv.Itoa(PnRSeed), "--timing-allow-fail",
		"--report", f("report.json"), "-q", "-l", f("nextpnr.log"))
	log, _ := readLogTail(f("nextpnr.log"))
	if err != nil && ctx.Err() != nil {
		return nil, err
	}
	if err != nil {
		if pl := overflow(string(log)); pl != nil {
			pl.WrapperFlops = flops
			return pl, nil
		}
		if e := errorLines(string(log)); e != "" {
			out = e
		}
		return nil, &PnRError{Tool: Nextpnr, Module: module, Err: err, Msg: out}
	}
	rep, err := readOwn(f("report.json"))
	if err != nil {
		return nil, err
	}
	pl, err := ParsePnRReport(rep)
	if err != nil {
		return nil, err
	}
	pl.WrapperFlops = flops
	return pl, nil
}

// tool runs a program in dir and returns its output (trimmed) on failure;
// a cancelled context is an error saying so.
func tool(ctx context.Context, dir, name string, args ...string) (string, error) {
	cmd := procgroup.Command(ctx, name, args...)
	cmd.Dir = dir
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := procgroup.Run(cmd)
	if err != nil && ctx.Err() != nil {
		return "", fmt.Errorf("%s stopped: %w", name, ctx.Err())
	}
	return strings.TrimSpace(out.String()), err
}

// placedVariant returns the first of a row's merged variants (Yosys
// names) that holds logic, and false when every one is wiring: hx_link
// of 1-cycle links and of 2-cycle ones merge into one row, L = 1 first,
// whose L = 2 variant has the channel's registers.
func placedVariant(variants []string, logic map[string]bool) (string, bool) {
	for _, v := range variants {
		if logic[v] {
			return v, true
		}
	}
	return "", false
}

// placeAll places and routes each row of rep that opt.PnRModule selects,
// by its first variant with logic (placedVariant); a row of wiring alone
// (no cell or memory in any variant or its submodules) is not placed.
// hx_top's row, the whole design, is also the total's.
func placeAll(ctx context.Context, rep *Report, paths []string, top string, params []Param, ports map[string][]Port, logic map[string]bool, work string, opt Options) error {
	var todo []int
	for i, m := range rep.Modules {
		if opt.PnRModule == nil || opt.PnRModule(m) {
			todo = append(todo, i)
		}
	}
	// The whole design last: it is the largest.
	sort.SliceStable(todo, func(a, b int) bool {
		return rep.Modules[todo[a]].yosys[0] != top && rep.Modules[todo[b]].yosys[0] == top
	})
	for n, i := range todo {
		m := &rep.Modules[i]
		y, ok := placedVariant(m.yosys, logic)
		if !ok {
			m.Placement = &Placement{Fits: true, Note: "wiring only: not placed"}
			continue
		}
		if y == top && rep.Total.Flops > maxLogicHX8K {
			// Each logic cell holds one flip-flop: no need for minutes
			// of synth_ice40 to learn that it does not fit.
			m.Placement = &Placement{LogicCells: rep.Total.Flops, Note: fmt.Sprintf(
				"does not fit in the iCE40-%s: its %d flip-flops alone exceed the %d logic cells (not placed)",
				strings.ToUpper(PnRDevice), rep.Total.Flops, maxLogicHX8K)}
			rep.Total.Placement = m.Placement
			if opt.Progress != nil {
				fmt.Fprintf(opt.Progress, "synth: place and route %d/%d: %s: %s\n", n+1, len(todo), m.Label, m.Placement.Note)
			}
			continue
		}
		if opt.Progress != nil {
			fmt.Fprintf(opt.Progress, "synth: place and route %d/%d: %s on iCE40-%s (yosys synth_ice40, nextpnr-ice40)\n", n+1, len(todo), m.Label, strings.ToUpper(PnRDevice))
		}
		start := time.Now()
		pl, err := placeRoute(ctx, paths, top, params, y, ports[y], work)
		var pe *PnRError
		if errors.As(err, &pe) {
			pe.Module = m.Label // hx_switch[P=3,MODE=0], not its Yosys hash
		}
		if err != nil {
			return err
		}
		m.Placement = pl
		if y == top {
			rep.Total.Placement = pl
		}
		if opt.Progress != nil {
			fmt.Fprintf(opt.Progress, "synth: place and route %d/%d: %s: %s (%s)\n", n+1, len(todo), m.Label, pl.Summary(), time.Since(start).Round(time.Second))
		}
	}
	return nil
}

// Summary is a placement in a few words.
func (p *Placement) Summary() string {
	if !p.Fits || p.FmaxMHz == 0 {
		return p.Note
	}
	return fmt.Sprintf("%.1f MHz, %d logic cells, %d RAMs", p.FmaxMHz, p.LogicCells, p.RAMs)
}
