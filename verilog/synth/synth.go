// Package synth measures the area and logic depth of a generated design
// with Yosys: per module (kept hierarchical) and in total, in generic
// cells, flip-flops, memory bits and gate levels (docs/area.md).
//
// One Yosys run, in a directory of its own (the RTL reads no file), does:
//
//	read_verilog -defer -DSYNTHESIS <sources>; hierarchy -top hx_top
//	synth -top hx_top -run begin:fine; the fine steps but memory_map
//	                            -> generic gates, memories kept as $mem_v2 cells
//	check -assert               -> no driver conflicts, undriven wires or loops
//	stat -json                  -> cells and flip-flops per module
//	dump -m t:$mem_v2           -> memory bits (SIZE x WIDTH of each $mem_v2)
//	dump -n                     -> module headers: each variant's parameters (labels)
//	memory_map; techmap; flatten -> each module with its submodules and its
//	                               memories' read logic inlined
//	ltp -noff                   -> logic depth per module and of hx_top
//
// The top attribute is removed before stat, so that Yosys prints no
// hierarchy summary (which in Yosys 0.23 breaks the JSON) and flatten
// keeps every module (it inlines submodules into each one).
package synth

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/hxbar/hxbar/internal/inputfile"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/hxbar/hxbar/internal/procgroup"
	"github.com/hxbar/hxbar/verilog"
)

// Yosys is the program run.
const Yosys = "yosys"

// SourcesFile lists a generated directory's Verilog sources, one a line
// (testbench.SourcesFile); the testbench, TBFile, is not synthesized.
const (
	SourcesFile = "hx_sources.f"
	TBFile      = "tb.v"
)

// ErrNoYosys is returned when yosys is not on PATH.
var ErrNoYosys = errors.New("yosys not found: install it with 'apt-get install -y yosys'")

// YosysError is a Yosys run that failed: Msg holds the ERROR lines of its
// log (or its output).
type YosysError struct {
	Dir string
	Err error
	Msg string
}

func (e *YosysError) Error() string {
	return fmt.Sprintf("yosys failed in %s (%v): %s", e.Dir, e.Err, e.Msg)
}

func (e *YosysError) Unwrap() error { return e.Err }

// Module is one synthesized module: the figures are per instance, and
// Instances is how many times it occurs in the hierarchy under hx_top.
// Parametrisations of a module with equal figures are merged into one row
// (Variants of them); ones that differ are separate rows of the same name.
type Module struct {
	Module string `json:"module"` // Verilog module name, e.g. hx_switch
	// Label names the row's parametrisation by the parameters in which
	// the module's variants differ, e.g. hx_switch[P=4,MODE=1,XDIM=0|1]
	// (values of merged variants joined by |); the module name alone when
	// it has one variant (SetLabels).
	Label      string   `json:"label"`
	Instances  int      `json:"instances"`   // instances in the design (hx_top: 1)
	Cells      int      `json:"cells"`       // generic cells (gates and flip-flops) outside memories, submodules excluded
	Flops      int      `json:"flops"`       // single-bit flip-flops among Cells
	MemoryBits int      `json:"memory_bits"` // bits of the memories ($mem_v2 cells: SIZE x WIDTH), not in Cells
	Depth      int      `json:"depth"`       // longest flop-to-flop/port path in generic cells, submodules inlined
	Variants   int      `json:"variants"`    // Yosys parametrisations merged into this row
	yosys      []string // the Yosys names of the variants merged into this row
	// With Options.PnR: the row's first variant, with its submodules,
	// placed and routed in a port-registering wrapper (fmax_mhz,
	// logic_cells, rams, ... beside the fields above; pnr.go).
	*Placement
}

// Total is the whole design: Cells, Flops and MemoryBits are the sums of
// the modules' figures times their instances, Instances the number of
// module instances (hx_top included), Depth the depth of hx_top (its
// longest path, across module boundaries).
type Total struct {
	Instances  int `json:"instances"`
	Cells      int `json:"cells"`
	Flops      int `json:"flops"`
	MemoryBits int `json:"memory_bits"`
	Depth      int `json:"depth"`
	// With Options.PnR: the whole design (hx_top's row) placed and routed,
	// or the cells it needs when it does not fit.
	*Placement
}

// Report is the result of a synthesis run.
type Report struct {
	System   string   `json:"system,omitempty"` // the title of the system synthesized, when the caller knows it
	Modules  []Module `json:"modules"`
	Total    Total    `json:"total"`
	Warnings []string `json:"warnings,omitempty"` // Yosys's "Warning:" lines (a clean design has none)
	Yosys    string   `json:"yosys,omitempty"`    // yosys -V
}

// StatModule is one module of Yosys's `stat -json`.
type StatModule struct {
	Cells       int            `json:"num_cells"`
	MemoryBits  int            `json:"num_memory_bits"`
	CellsByType map[string]int `json:"num_cells_by_type"`
}

// ParseStat reads the "modules" object of Yosys's `stat -json` output,
// with names as ltp prints them (no leading backslash). It
// stops after that object: Yosys 0.23 follows it with a trailing comma, or
// with a non-JSON hierarchy listing when the design has a top module.
func ParseStat(r io.Reader) (map[string]StatModule, error) {
	dec := json.NewDecoder(r)
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, fmt.Errorf("yosys stat -json: not a JSON object (%v)", err)
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, fmt.Errorf("yosys stat -json: %w", err)
		}
		key, _ := t.(string)
		if key == "modules" {
			var mods map[string]StatModule
			if err := dec.Decode(&mods); err != nil {
				return nil, fmt.Errorf("yosys stat -json: modules: %w", err)
			}
			// Public names are escaped (\hx_top); ltp prints them bare.
			out := make(map[string]StatModule, len(mods))
			for name, m := range mods {
				by := make(map[string]int, len(m.CellsByType))
				for t, n := range m.CellsByType {
					by[strings.TrimPrefix(t, `\`)] += n
				}
				m.CellsByType = by
				out[strings.TrimPrefix(name, `\`)] = m
			}
			return out, nil
		}
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return nil, fmt.Errorf("yosys stat -json: %s: %w", key, err)
		}
	}
	return nil, errors.New(`yosys stat -json: no "modules"`)
}

var ltpRE = regexp.MustCompile(`(?m)^Longest topological path in (\S+) \(length=(\d+)\)`)

// ParseLTP reads the lengths of Yosys's `ltp` output, by module.
func ParseLTP(text string) map[string]int {
	out := map[string]int{}
	for _, m := range ltpRE.FindAllStringSubmatch(text, -1) {
		n, _ := strconv.Atoi(m[2])
		out[m[1]] = n
	}
	return out
}

var (
	dumpModRE  = regexp.MustCompile(`^module (\S+)`)
	dumpCellRE = regexp.MustCompile(`^\s*cell \$mem(_v2)? `)
	dumpParRE  = regexp.MustCompile(`^\s*parameter \\(SIZE|WIDTH) (\d+)`)
)

// ParseMemories reads Yosys's `dump` of the $mem_v2 cells (RTLIL) and
// returns the memory bits (SIZE x WIDTH summed over the cells) by module,
// with names as ltp prints them. After `memory -nomap` a memory is a cell,
// not an RTLIL memory, so `stat` counts no memory bits for it.
func ParseMemories(text string) (map[string]int, error) {
	out := map[string]int{}
	mod := ""
	in := false
	size, width := -1, -1
	flush := func() error {
		if !in {
			return nil
		}
		if size < 0 || width < 0 {
			return fmt.Errorf("yosys dump: a memory cell of %s without SIZE or WIDTH", mod)
		}
		out[mod] += size * width
		in, size, width = false, -1, -1
		return nil
	}
	for _, l := range strings.Split(text, "\n") {
		switch {
		case dumpModRE.MatchString(l):
			if err := flush(); err != nil {
				return nil, err
			}
			mod = strings.TrimPrefix(dumpModRE.FindStringSubmatch(l)[1], `\`)
		case dumpCellRE.MatchString(l):
			if err := flush(); err != nil {
				return nil, err
			}
			if mod == "" {
				return nil, errors.New("yosys dump: a memory cell outside a module")
			}
			in = true
		case strings.HasPrefix(strings.TrimSpace(l), "cell "), strings.TrimSpace(l) == "end":
			if err := flush(); err != nil {
				return nil, err
			}
		default:
			if m := dumpParRE.FindStringSubmatch(l); m != nil && in {
				n, _ := strconv.Atoi(m[2])
				if m[1] == "SIZE" {
					size = n
				} else {
					width = n
				}
			}
		}
	}
	if err := flush(); err != nil {
		return nil, err
	}
	return out, nil
}

// ModuleParam is one parameter of a Yosys module and its value as
// RTLIL prints it (a decimal number for a 32-bit integer; a string
// without its quotes).
type ModuleParam struct {
	Name, Value string
}

var dumpParamRE = regexp.MustCompile(`^\s*parameter\s+(?:signed\s+|real\s+)*\\?(\S+)(?:\s+(.*))?$`)

// ParseParams reads the module headers of Yosys's `dump -n` (RTLIL) and
// returns each module's parameters, in declaration order, by module name
// as ltp prints it. A derived module ($paramod...) holds the values it was
// built with, which its name may hide behind a hash.
func ParseParams(text string) map[string][]ModuleParam {
	out := map[string][]ModuleParam{}
	mod := ""
	for _, l := range strings.Split(text, "\n") {
		if m := dumpModRE.FindStringSubmatch(l); m != nil {
			mod = strings.TrimPrefix(m[1], `\`)
			continue
		}
		if m := dumpParamRE.FindStringSubmatch(l); m != nil && mod != "" {
			v := strings.TrimSpace(m[2])
			if uq, err := strconv.Unquote(v); err == nil {
				v = uq
			}
			out[mod] = append(out[mod], ModuleParam{Name: m[1], Value: v})
		}
	}
	return out
}

// SetLabels labels each row by the parameters in which the variants of
// its module differ (params from ParseParams), e.g. two hx_switch rows
// hx_switch[P=3,MODE=0] and hx_switch[P=4,MODE=1]; a row merging variants
// that differ joins their values (XDIM=0|1). A module with one variant is
// labelled by its name.
func (r *Report) SetLabels(params map[string][]ModuleParam) {
	// The parameters, in declaration order, whose values differ among a
	// module's variants.
	differ := map[string][]string{}
	first := map[string]map[string]string{}
	for _, m := range r.Modules {
		for _, y := range m.yosys {
			f, seen := first[m.Module]
			if !seen {
				f = map[string]string{}
				for _, p := range params[y] {
					f[p.Name] = p.Value
				}
				first[m.Module] = f
				continue
			}
			for _, p := range params[y] {
				if v, ok := f[p.Name]; (!ok || v != p.Value) && !slices.Contains(differ[m.Module], p.Name) {
					differ[m.Module] = append(differ[m.Module], p.Name)
				}
			}
		}
	}
	for i := range r.Modules {
		m := &r.Modules[i]
		m.Label = m.Module
		names := differ[m.Module]
		if len(names) == 0 {
			continue
		}
		order := paramOrder(params, m.yosys, names)
		var parts []string
		for _, n := range order {
			var vals []string
			for _, y := range m.yosys {
				for _, p := range params[y] {
					if p.Name == n && !slices.Contains(vals, p.Value) {
						vals = append(vals, p.Value)
					}
				}
			}
			slices.SortFunc(vals, compareValues)
			parts = append(parts, n+"="+strings.Join(vals, "|"))
		}
		m.Label = m.Module + "[" + strings.Join(parts, ",") + "]"
	}
}

// paramOrder is names in the declaration order of the variants' parameters.
func paramOrder(params map[string][]ModuleParam, yosys []string, names []string) []string {
	var out []string
	for _, y := range yosys {
		for _, p := range params[y] {
			if slices.Contains(names, p.Name) && !slices.Contains(out, p.Name) {
				out = append(out, p.Name)
			}
		}
	}
	return out
}

// compareValues orders parameter values numerically when both are
// numbers, else as text.
func compareValues(a, b string) int {
	x, errA := strconv.ParseInt(a, 10, 64)
	y, errB := strconv.ParseInt(b, 10, 64)
	if errA == nil && errB == nil {
		return cmp.Compare(x, y)
	}
	return strings.Compare(a, b)
}

// IsMemory says whether a cell type is a memory left unmapped ($mem_v2).
func IsMemory(typ string) bool { return typ == "$mem_v2" || typ == "$mem" }

// BaseName is the Verilog name of a Yosys module name:
// `$paramod$<hash>\hx_fifo` and `$paramod\hx_credit\B=...` are hx_fifo and
// hx_credit.
func BaseName(y string) string {
	s := strings.TrimPrefix(y, `\`)
	if rest, ok := strings.CutPrefix(s, "$paramod"); ok {
		parts := strings.Split(rest, `\`)
		if len(parts) >= 2 {
			return parts[1]
		}
	}
	return s
}

// IsFlop says whether a generic cell type is a flip-flop (one bit after
// synth's techmap: $_DFF_P_, $_DFFE_PP_, $_SDFF_PP0_, $_SDFFCE_PN0P_,
// $_ALDFF_*, $_DFFSR_*, ...).
func IsFlop(typ string) bool {
	for _, p := range []string{"$_DFF", "$_SDFF", "$_ALDFF"} {
		if strings.HasPrefix(typ, p) {
			return true
		}
	}
	return false
}

// Build computes the report from the memory bits by module
// (ParseMemories), the synthesized stat and the ltp depths of the flattened
// modules; top is the top module's Yosys name. Memory cells are counted in
// MemoryBits, not in Cells.
func Build(mem map[string]int, stat map[string]StatModule, depth map[string]int, top string) (*Report, error) {
	if _, ok := stat[top]; !ok {
		return nil, fmt.Errorf("yosys stat: no top module %s", top)
	}
	// Instances: top once, each child as often as its parents times the
	// count in each; a module is counted once all its parents are.
	inst := map[string]int{top: 1}
	parents := map[string]int{}
	for _, s := range stat {
		for t := range s.CellsByType {
			if _, ok := stat[t]; ok {
				parents[t]++
			}
		}
	}
	queue := []string{top}
	for len(queue) > 0 {
		m := queue[0]
		queue = queue[1:]
		for t, n := range stat[m].CellsByType {
			if _, ok := stat[t]; !ok {
				continue
			}
			inst[t] += inst[m] * n
			if parents[t]--; parents[t] == 0 {
				queue = append(queue, t)
			}
		}
	}
	type key struct {
		base                         string
		cells, flops, memBits, depth int
	}
	rows := map[key]*Module{}
	rep := &Report{}
	for name, s := range stat {
		n := inst[name]
		if n == 0 {
			continue // not under top (hierarchy removes these)
		}
		if parents[name] > 0 {
			return nil, fmt.Errorf("yosys stat: the hierarchy under %s is not a tree of modules (%s)", top, name)
		}
		cells, flops := 0, 0
		for t, c := range s.CellsByType {
			if _, sub := stat[t]; sub || IsMemory(t) {
				continue
			}
			cells += c
			if IsFlop(t) {
				flops += c
			}
		}
		d, ok := depth[name]
		if !ok {
			return nil, fmt.Errorf("yosys ltp: no depth for module %s", name)
		}
		k := key{BaseName(name), cells, flops, mem[name], d}
		r := rows[k]
		if r == nil {
			r = &Module{Module: k.base, Label: k.base, Cells: cells, Flops: flops, MemoryBits: k.memBits, Depth: d}
			rows[k] = r
		}
		r.yosys = append(r.yosys, name)
		r.Instances += n
		r.Variants++
		rep.Total.Instances += n
		rep.Total.Cells += n * cells
		rep.Total.Flops += n * flops
		rep.Total.MemoryBits += n * k.memBits
	}
	rep.Total.Depth = depth[top]
	for _, r := range rows {
		rep.Modules = append(rep.Modules, *r)
	}
	sort.Slice(rep.Modules, func(i, j int) bool {
		a, b := rep.Modules[i], rep.Modules[j]
		if a.Module != b.Module {
			return a.Module < b.Module
		}
		if a.Cells != b.Cells {
			return a.Cells > b.Cells
		}
		return a.Depth > b.Depth
	})
	return rep, nil
}

// WriteTable prints the report as an aligned table.
func (r *Report) WriteTable(w io.Writer) error {
	var b bytes.Buffer
	if r.System != "" {
		fmt.Fprintf(&b, "system %q\n", r.System)
	}
	names := make([]string, len(r.Modules))
	wid := 18
	for i, m := range r.Modules {
		names[i] = m.Label
		if names[i] == "" {
			names[i] = m.Module
		}
		if m.Variants > 1 {
			names[i] = fmt.Sprintf("%s (%d)", names[i], m.Variants)
		}
		wid = max(wid, len(names[i]))
	}
	placed := r.Total.Placement != nil
	for _, m := range r.Modules {
		placed = placed || m.Placement != nil
	}
	fmt.Fprintf(&b, "%-*s %9s %9s %9s %11s %6s", wid, "module", "instances", "cells", "flops", "memory_bits", "depth")
	if placed {
		fmt.Fprintf(&b, " %8s %11s %4s", "fmax_mhz", "logic_cells", "rams")
	}
	b.WriteString("\n")
	var notes []string
	for i, m := range r.Modules {
		fmt.Fprintf(&b, "%-*s %9d %9d %9d %11d %6d", wid, names[i], m.Instances, m.Cells, m.Flops, m.MemoryBits, m.Depth)
		notes = placementColumns(&b, m.Placement, placed, names[i], notes)
	}
	t := r.Total
	fmt.Fprintf(&b, "%-*s %9d %9d %9d %11d %6d", wid, "total", t.Instances, t.Cells, t.Flops, t.MemoryBits, t.Depth)
	notes = placementColumns(&b, t.Placement, placed, "total", notes)
	fmt.Fprintln(&b, "(per module: per instance, submodules excluded, depth with them; cells and flops outside memories; total: times instances, depth of the whole design)")
	if placed {
		fmt.Fprintf(&b, "(fmax_mhz, logic_cells, rams: iCE40-%s, each module with its submodules in a wrapper that registers its ports (wrapper flip-flops included), nextpnr-ice40 --seed %d; total: hx_top)\n",
			strings.ToUpper(PnRDevice), PnRSeed)
	}
	for _, n := range notes {
		fmt.Fprintln(&b, n)
	}
	for _, w := range r.Warnings {
		fmt.Fprintf(&b, "yosys: %s\n", w)
	}
	if r.Yosys != "" {
		fmt.Fprintf(&b, "(%s)\n", r.Yosys)
	}
	_, err := w.Write(b.Bytes())
	return err
}

// placementColumns ends a table row with a placement's columns (when any
// row was placed) and returns notes with the row's note added.
func placementColumns(b *bytes.Buffer, p *Placement, placed bool, name string, notes []string) []string {
	switch {
	case !placed:
	case p == nil:
		fmt.Fprintf(b, " %8s %11s %4s", "-", "-", "-")
	case p.Fits && p.FmaxMHz > 0:
		fmt.Fprintf(b, " %8.1f %11d %4d", p.FmaxMHz, p.LogicCells, p.RAMs)
	case p.LogicCells > 0: // does not fit: the cells it needs
		fmt.Fprintf(b, " %8s %11d %4s", "-", p.LogicCells, "-")
	default:
		fmt.Fprintf(b, " %8s %11s %4s", "-", "-", "-")
	}
	b.WriteString("\n")
	if p != nil && p.Note != "" && (name != "total" || !slices.Contains(notes, "hx_top: "+p.Note)) {
		notes = append(notes, name+": "+p.Note)
	}
	return notes
}

// ownFileCap bounds what synth reads back of the files its tools wrote in
// its work directory (stat, memories, ports, nextpnr's report): tens of
// MB for the largest designs.
const ownFileCap = 512 << 20

// readOwn reads a file a tool wrote for this run, refusing a link, a
// device or more than ownFileCap bytes.
func readOwn(path string) ([]byte, error) { return inputfile.ReadCapped(path, ownFileCap) }

// logTail is how much of a tool's log is searched for its ERROR lines:
// the error is at the end of the log.
const logTail = 1 << 20

// readLogTail returns the last logTail bytes of a tool's log.
func readLogTail(path string) ([]byte, error) {
	f, err := inputfile.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.Size() > logTail {
		if _, err := f.Seek(st.Size()-logTail, io.SeekStart); err != nil {
			return nil, err
		}
	}
	return io.ReadAll(io.LimitReader(f, logTail))
}

// Sources returns the design sources of a generated directory: its
// SourcesFile without the testbench.
func Sources(dir string) ([]string, error) {
	list, err := inputfile.ReadCapped(filepath.Join(dir, SourcesFile), 1<<20) // a list of names
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("%s: no %s (the list of the sources): write the directory with 'hxbar gen --out %s'", dir, SourcesFile, dir)
	}
	if err != nil {
		return nil, err // names the file: a FIFO, a device, over the cap
	}
	var srcs []string
	for _, l := range strings.Split(string(list), "\n") {
		l = strings.TrimSpace(l)
		if l == "" || l == TBFile {
			continue
		}
		if filepath.Base(l) != l || !strings.HasSuffix(l, ".v") || strings.ContainsAny(l, " \t;\"") {
			return nil, fmt.Errorf("%s: %s names %q: only .v files of the directory may be listed", dir, SourcesFile, l)
		}
		if err := inputfile.Check(filepath.Join(dir, l), inputfile.MaxSize); errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("%s: no %s (a source listed in %s)", dir, l, SourcesFile)
		} else if err != nil {
			return nil, err // a FIFO Yosys would block on, a device, over the cap
		}
		srcs = append(srcs, l)
	}
	if len(srcs) == 0 {
		return nil, fmt.Errorf("%s: %s lists no design sources", dir, SourcesFile)
	}
	return srcs, nil
}

// Script is the Yosys script: it writes stat.json, mem.il and ltp.txt
// into out (a directory without whitespace in its name). It is synth
// without memory_map, so that memories stay $mem_v2 cells (their bits are
// counted apart from the logic), with check -assert after it; for the depth
// the memories are then mapped (read multiplexers, read registers) and
// every module flattened.
// Params, if any, set parameters of the top module (hierarchy -chparam).
func Script(sources []string, top string, params []Param, out string) string {
	o := func(f string) string { return filepath.Join(out, f) }
	hier := "hierarchy -top " + top
	for _, p := range params {
		hier += fmt.Sprintf(" -chparam %s %d", p.Name, p.Value)
	}
	return strings.Join([]string{
		"read_verilog -defer -DSYNTHESIS " + strings.Join(sources, " "),
		hier,
		"synth -top " + top + " -run begin:fine",
		// synth's fine and check steps, without memory_map
		"opt -fast -full",
		"opt -full",
		"techmap",
		"opt -fast",
		"abc -fast",
		"opt -fast",
		"hierarchy -check",
		"check -assert",
		"setattr -mod -unset top",
		"tee -q -o " + o("stat.json") + " stat -json",
		// -m: the module headers even when one module holds every memory
		// (Yosys omits them then: a router or a FIFO alone).
		"tee -q -o " + o("mem.il") + " dump -m t:$mem_v2",
		"tee -q -o " + o("params.il") + " dump -n",
		"tee -q -o " + o("ports.il") + " dump */x:*",
		"memory_map",
		"techmap",
		"opt_clean",
		"flatten",
		"tee -q -o " + o("ltp.txt") + " ltp -noff",
	}, "; ")
}

// Param is a parameter of the top module set for a synthesis run
// (RunModule).
type Param struct {
	Name  string
	Value int
}

// Options tune Run.
type Options struct {
	Progress io.Writer     // if set, a line every Interval: elapsed time and Yosys's current pass
	Interval time.Duration // default 15 s
	// PnR, if set (one of PnRTargets), places and routes each row (pnr.go);
	// PnRModule, if set, selects the rows placed (the others get no
	// Placement).
	PnR       string
	PnRModule func(Module) bool
}

// Run synthesizes the design in dir (written by 'hxbar gen') and reports.
// A missing yosys is ErrNoYosys, a failed Yosys run a *YosysError.
func Run(ctx context.Context, dir string, opt Options) (*Report, error) {
	srcs, err := Sources(dir)
	if err != nil {
		return nil, err
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	paths := make([]string, len(srcs))
	for i, f := range srcs {
		paths[i] = filepath.Join(abs, f)
	}
	return run(ctx, paths, verilog.TopModule, nil, opt)
}

// RunModule synthesizes one module of the given sources (files, e.g. the
// RTL library's) as the top, with the parameters set, and reports it like
// Run (docs/area.md uses it for a barrier unit against its gate capacity).
func RunModule(ctx context.Context, sources []string, top string, params []Param, opt Options) (*Report, error) {
	paths := make([]string, len(sources))
	for i, f := range sources {
		abs, err := filepath.Abs(f)
		if err != nil {
			return nil, err
		}
		paths[i] = abs
	}
	return run(ctx, paths, top, params, opt)
}

func run(ctx context.Context, paths []string, top string, params []Param, opt Options) (*Report, error) {
	ys, err := exec.LookPath(Yosys)
	if err != nil {
		return nil, ErrNoYosys
	}
	if opt.PnR != "" {
		if err := CheckPnR(opt.PnR); err != nil {
			return nil, err
		}
	}
	for _, p := range paths {
		if strings.ContainsAny(p, " \t;\"") {
			return nil, fmt.Errorf("%s: whitespace, ';' or '\"' in the path (Yosys's script cannot name it)", p)
		}
	}
	work, err := os.MkdirTemp("", "hxbar-synth-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(work)
	if strings.ContainsAny(work, " \t;\"") {
		return nil, fmt.Errorf("temporary directory %q: whitespace in its name", work)
	}
	// Yosys runs in its own directory: the design may read no file (no
	// table) beside its sources.
	logFile := filepath.Join(work, "yosys.log")
	cmd := procgroup.Command(ctx, ys, "-q", "-l", logFile, "-p", Script(paths, top, params, work))
	cmd.Dir = work
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stderr, &stderr
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	// Whatever way run returns, nothing of Yosys's group is left running.
	defer procgroup.Kill(cmd)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	start := time.Now()
	iv := opt.Interval
	if iv <= 0 {
		iv = 15 * time.Second
	}
	tick := time.NewTicker(iv)
	defer tick.Stop()
	var runErr error
wait:
	for {
		select {
		case runErr = <-done:
			break wait
		case <-tick.C:
			if opt.Progress != nil {
				fmt.Fprintf(opt.Progress, "synth: %s, yosys at: %s\n", time.Since(start).Round(time.Second), lastPass(logFile))
			}
		}
	}
	if runErr != nil && ctx.Err() != nil {
		return nil, fmt.Errorf("yosys stopped: %w", ctx.Err())
	}
	if runErr != nil {
		log, _ := readLogTail(logFile)
		msg := strings.TrimSpace(stderr.String())
		if e := errorLines(string(log)); e != "" {
			msg = e
		}
		return nil, &YosysError{Dir: filepath.Dir(paths[0]), Err: runErr, Msg: msg}
	}
	read := func(f string) ([]byte, error) { return readOwn(filepath.Join(work, f)) }
	memIL, err := read("mem.il")
	if err != nil {
		return nil, err
	}
	statJSON, err := read("stat.json")
	if err != nil {
		return nil, err
	}
	ltp, err := read("ltp.txt")
	if err != nil {
		return nil, err
	}
	mem, err := ParseMemories(string(memIL))
	if err != nil {
		return nil, err
	}
	stat, err := ParseStat(bytes.NewReader(statJSON))
	if err != nil {
		return nil, err
	}
	rep, err := Build(mem, stat, ParseLTP(string(ltp)), top)
	if err != nil {
		return nil, err
	}
	paramsIL, err := read("params.il")
	if err != nil {
		return nil, err
	}
	rep.SetLabels(ParseParams(string(paramsIL)))
	if log, err := read("yosys.log"); err == nil {
		rep.Warnings = warningLines(string(log))
	}
	if v, err := procgroup.Command(ctx, ys, "-V").Output(); err == nil {
		rep.Yosys = strings.TrimSpace(string(v))
	}
	if opt.PnR != "" {
		if err := placeDesign(ctx, rep, stat, paths, top, params, work, opt); err != nil {
			return nil, err
		}
	}
	return rep, nil
}

// placeDesign places and routes the report's rows (placeAll), with the
// ports the synthesis run dumped.
func placeDesign(ctx context.Context, rep *Report, stat map[string]StatModule, paths []string, top string, params []Param, work string, opt Options) error {
	portsIL, err := readOwn(filepath.Join(work, "ports.il"))
	if err != nil {
		return err
	}
	ports, err := ParsePorts(string(portsIL))
	if err != nil {
		return err
	}
	return placeAll(ctx, rep, paths, top, params, ports, withLogic(stat), work, opt)
}

// withLogic returns the modules of stat that hold a cell or a memory bit
// themselves or in a submodule, at any depth: the others are wiring
// alone (hx_link of a 1-cycle link without retry is hx_chan's wires), and
// nextpnr has no clocked path in them to time.
func withLogic(stat map[string]StatModule) map[string]bool {
	logic := map[string]bool{}
	var has func(name string) bool
	has = func(name string) bool {
		if v, done := logic[name]; done {
			return v
		}
		logic[name] = false // a module does not contain itself
		s := stat[name]
		v := s.MemoryBits > 0
		for t, n := range s.CellsByType {
			if _, sub := stat[t]; n > 0 && (!sub || has(t)) {
				v = true
			}
		}
		logic[name] = v
		return v
	}
	for name := range stat {
		has(name)
	}
	return logic
}

// passRE matches Yosys's log headers: "5.10. Executing OPT_MERGE pass (detect identical cells)."
var passRE = regexp.MustCompile(`^([0-9.]+?)\.? Executing (.*?)\.?$`)

// lastPass is the last "Executing ..." header of Yosys's log, shortened:
// "step 5.10 OPT_MERGE pass (detect identical cells)".
func lastPass(logFile string) string {
	f, err := os.Open(logFile)
	if err != nil {
		return "starting"
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.Size() > 1<<16 {
		f.Seek(st.Size()-1<<16, io.SeekStart)
	}
	last := "starting"
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<16), 1<<20)
	for sc.Scan() {
		l := strings.TrimSpace(sc.Text())
		if m := passRE.FindStringSubmatch(l); m != nil {
			last = "step " + m[1] + " " + m[2]
		}
	}
	return last
}

// errorLines are the ERROR lines of a Yosys log.
func errorLines(log string) string {
	var out []string
	for _, l := range strings.Split(log, "\n") {
		if strings.Contains(l, "ERROR") {
			out = append(out, strings.TrimSpace(l))
		}
	}
	return strings.Join(out, "; ")
}

// warningLines are the "Warning:" lines of a Yosys log, each once.
func warningLines(log string) []string {
	var out []string
	seen := map[string]bool{}
	for _, l := range strings.Split(log, "\n") {
		l = strings.TrimSpace(l)
		if strings.HasPrefix(l, "Warning:") && !seen[l] {
			seen[l] = true
			out = append(out, l)
		}
	}
	return out
}
