package verilog

import (
	"bytes"
	"embed"
	"fmt"
	"io/fs"
	"slices"
	"strconv"
	"strings"

	"github.com/hxbar/hxbar/barrierunit/regmap"
	"github.com/hxbar/hxbar/design"
	"github.com/hxbar/hxbar/hw"
	"github.com/hxbar/hxbar/internal/gendir"
	"github.com/hxbar/hxbar/internal/version"
	"github.com/hxbar/hxbar/noc"
)

// rtlFS holds the RTL library, verilog/rtl/*.v.
//
//go:embed rtl/*.v
var rtlFS embed.FS

// Names of the generated files (besides the tables and the library).
const (
	TopModule  = "hx_top"       // module name of the generated top level
	TopFile    = "hx_top.v"     // the generated top level
	ParamsFile = "hx_params.vh" // defines for a testbench
	SystemFile = "system.yaml"  // the system the directory was generated from
)

// GateTableFile is the name of node's gate table file.
func GateTableFile(node int) string { return "gt_n" + strconv.Itoa(node) + ".hex" }

// RouteTableFile is the name of switch sw's routing table file.
func RouteTableFile(sw int) string { return "rt_s" + strconv.Itoa(sw) + ".hex" }

// ExceptTableFile is the name of switch sw's routing exception table file
// (written only for a switch with exceptions: avoided channels).
func ExceptTableFile(sw int) string { return "rx_s" + strconv.Itoa(sw) + ".hex" }

// Library returns the file names of the embedded RTL library, sorted.
func Library() []string {
	ents, err := fs.ReadDir(rtlFS, "rtl")
	if err != nil {
		return nil // cannot happen: the directory is embedded
	}
	var out []string
	for _, e := range ents {
		if !e.IsDir() && strings.HasSuffix(e.Name(), ".v") {
			out = append(out, e.Name())
		}
	}
	slices.Sort(out)
	return out
}

// LibrarySource returns the text of one embedded RTL library file, as it is
// in verilog/rtl (without the header Generate adds).
func LibrarySource(name string) ([]byte, error) {
	return rtlFS.ReadFile("rtl/" + name)
}

// Manifest describes a generated directory. Every name is relative to Dir.
type Manifest struct {
	Dir     string   // the directory written ("" from Render)
	Name    string   // configuration name (hw.System.Name)
	Top     string   // top module: TopModule
	Files   []string // every file of the design, sorted (the directory's manifest, gendir.ManifestName, besides)
	Sources []string // Verilog sources of the design: the library, then TopFile
	Library []string // the RTL library files
	Params  string   // ParamsFile
	System  string   // SystemFile

	GateTables  []string // gate table of node n at [n]
	RouteTables []string // routing table of switch sw at [sw]
	DataTables  []string // data table of node n at [n]; nil unless the system runs a data collective
	// ExceptTables are the routing exception tables (rx_s<switch>.hex) of
	// the switches that have exceptions, in switch order; nil without
	// avoided channels. CAMEntries is every switch's CAM size E (0: none).
	ExceptTables []string
	CAMEntries   int

	Nodes     int // N: hx_top's per-node vectors have N entries
	Switches  int
	Ranks     int
	Gates     int // G of the schedule
	RankBits  int // RB: width of a rank field in hx_top's ports
	AddrBits  int
	FlitWidth int
	Data      bool // a data collective: the units run with DATA = 1 (docs/transfers.md)
	ItemFlits int  // F of a data collective, else 0
	Items     int  // items of a data collective, else 0
	// Channels is K of a run of communicators (hx_barrier_node per node;
	// hx_top's CPU vectors have an entry per node and channel, node n
	// channel c at n*K + c; gate tables per channel,
	// ChannelGateTableFile), 0 otherwise.
	Channels int
}

// fieldErr is the error for a system field the RTL cannot build.
func fieldErr(field string, value any, allowed string) error {
	return &hw.FieldError{Field: field, Value: value, Allowed: allowed}
}

// MaxNodes bounds the systems Generate writes RTL for.
const MaxNodes = 4096

// MaxDims is the most dimensions the RTL takes (hx_switch, hx_router and
// the unit have the parameters K0..K5): every dimension count the model
// takes (hw.MaxDims).
const MaxDims = 6

// The RTL takes every dimension count the model does.
var _ = uint(MaxDims - hw.MaxDims)

// Check reports whether the RTL can build d: the system must be valid, a
// hyper-crossbar, full duplex, and every episode's tables must fit the
// RTL's fields (docs/rtl.md: G <= 62, at most 255 routes into a gate, route
// counts and route list indices below 65536). A data collective (an
// episode's Data set by design.New) must have op barrier, at most 2^16
// ranks and items, and item_flits up to 4096 (docs/transfers.md). Errors
// are *hw.FieldError values naming the field (prefixed with the episode
// when the run's episodes list has several entries), or describe a
// malformed design.
func Check(d *design.Design) error {
	if d == nil {
		return fmt.Errorf("no system")
	}
	if UsesChannels(d) {
		if err := checkChannels(d); err != nil {
			return err
		}
	}
	n := d.NumEntries()
	for k := 1; k <= n; k++ {
		if err := check(d.Episode(k)); err != nil {
			if n > 1 {
				return fmt.Errorf("episode %d: %w", k, err)
			}
			return err
		}
	}
	return nil
}

// check is Check for one episode s (its Sys is the episode's system).
func check(s *design.Episode) error {
	// The network first: another topology's system has no hyper-crossbar
	// (s.Topo) to check.
	if s != nil && s.Sys.Topology == hw.TopoTorus {
		if err := checkTorus(s); err != nil {
			return err
		}
	} else if s != nil && s.Sys.Topology != hw.TopoHyperXbar {
		return fieldErr("topology", strconv.Quote(string(s.Sys.Topology)), "hyperxbar or torus (the networks the RTL library builds)")
	}
	if s != nil && len(s.Sys.Dims) > MaxDims {
		return fieldErr("dims", fmt.Sprint(s.Sys.Dims), fmt.Sprintf("1 to %d dimensions for generated RTL (hx_switch has parameters K0..K%d)", MaxDims, MaxDims-1))
	}
	if err := checkShape(s); err != nil {
		return err
	}
	sys := &s.Sys
	if err := sys.Validate(); err != nil {
		return err
	}
	if sys.Duplex != hw.DuplexFull {
		return fieldErr("duplex", strconv.Quote(string(sys.Duplex)), "full; half duplex is a model-only what-if")
	}
	if n := sys.Nodes(); n > MaxNodes {
		return fieldErr("dims", fmt.Sprintf("%v = %d nodes", sys.Dims, n), fmt.Sprintf("at most %d nodes for generated RTL (one table file per node and switch)", MaxNodes))
	}
	if g := Grid(s.Design); !slices.Equal(g.Dims, sys.Dims) {
		return fmt.Errorf("system %q: topology dims %v differ from the system's dims %v", sys.Title(), g.Dims, sys.Dims)
	}
	if s.Table.Ranks != sys.NumRanks() {
		return fmt.Errorf("system %q: gate tables for %d ranks, the system has %d", sys.Title(), s.Table.Ranks, sys.NumRanks())
	}
	if int(s.Op) >= len(hw.Ops) {
		return fieldErr("op", s.Op, hw.Join(hw.Ops))
	}
	if g := s.Table.Gates; g > hw.MaxGates {
		return fieldErr("gates", g, fmt.Sprintf("0..%d in the RTL (the end gate G+1 must fit the 6-bit gate field of a head flit)", hw.MaxGates))
	}
	if rb := sys.RankBits(); rb > 32 {
		return fieldErr("ranks", sys.NumRanks(), "at most 2^32 ranks (32-bit rank field of the gate table)")
	}
	if ab := sys.AddrBits(); ab > 32 {
		return fieldErr("dims", fmt.Sprint(sys.Dims), "at most 32 address bits (32-bit address field of the gate table)")
	}
	if err := checkAvoid(s.Design); err != nil {
		return err
	}
	return checkData(s)
}

// checkAvoid checks the routing exceptions of avoided channels against the
// switches' CAM: one exception list per switch, each destination a node,
// each port one of the switch's, at most regmap.MaxExcept per switch. A
// torus has no CAM: its routers' reversals are bits of their PLUS
// registers, one per coordinate (RouterProgram), with no limit to check.
func checkAvoid(s *design.Design) error {
	a := s.Avoid
	if a == nil || s.Topo == nil {
		return nil
	}
	t := s.Topo
	if len(a.Except) != t.Switches {
		return fmt.Errorf("system %q: routing exceptions for %d switches, the network has %d", s.Sys.Title(), len(a.Except), t.Switches)
	}
	if a.MaxEntries > regmap.MaxExcept {
		return fieldErr("avoid", fmt.Sprintf("%q", s.Sys.Avoid), fmt.Sprintf("at most %d routing exceptions in one switch (the CAM's register region); these channels need %d", regmap.MaxExcept, a.MaxEntries))
	}
	for sw, m := range a.Except {
		for d, p := range m {
			if d < 0 || int(d) >= t.Nodes || int(p) >= t.Ports(sw) {
				return fmt.Errorf("system %q: switch %d: routing exception to node %d by port %d (allowed: nodes 0..%d, ports 0..%d)", s.Sys.Title(), sw, d, p, t.Nodes-1, t.Ports(sw)-1)
			}
		}
	}
	return nil
}

// PartDesign is the gendir part of the files Render returns.
const PartDesign = "design"

// Generate writes the design for d into dir (see Render) through
// gendir.Write: dir is created if needed; an existing directory must be one
// hxbar wrote (it has a manifest, hxbar-manifest.json) or empty, and files
// the manifest does not name, or that were edited since, are never
// overwritten (a *gendir.RefusedError names them). Design files of an
// earlier Generate that this design does not have are removed; the
// testbench's files (testbench.Generate) are kept. See docs/rtl.md,
// "Generated directory".
func Generate(dir string, d *design.Design) (*Manifest, error) {
	m, files, err := Render(d)
	if err != nil {
		return nil, err
	}
	if dir == "" {
		return nil, fmt.Errorf("output directory: empty name")
	}
	if _, err := gendir.Write(dir, files, gendir.Options{Parts: []string{PartDesign}, Tool: "hxbar (verilog.Generate)"}); err != nil {
		return nil, err
	}
	m.Dir = dir
	return m, nil
}

// Render returns the generated design for d, in memory: the RTL library,
// hx_top.v, gt_n<node>.hex for every node, dt_n<node>.hex for every node
// when d runs a data collective, rt_s<switch>.hex for every switch,
// hx_params.vh and system.yaml (part PartDesign), and the manifest
// describing them (its Dir is empty). The same d always gives
// byte-identical files.
func Render(d *design.Design) (*Manifest, []gendir.File, error) {
	// Every episode of the run must fit the RTL; the table files show
	// episode 1's tables (the other episodes' are in the testbench's
	// configuration program), the units are sized for the largest.
	if err := Check(d); err != nil {
		return nil, nil, err
	}
	run := d // the whole run: its system.yaml keeps repeat and episodes
	var eps []*design.Episode
	for k := 1; k <= d.NumEntries(); k++ {
		eps = append(eps, d.Episode(k))
	}
	s := eps[0]
	sys := &s.Sys
	topo := Grid(s.Design) // nodes, coordinates, addresses
	m := &Manifest{
		Name: sys.Title(), Top: TopModule,
		Params: ParamsFile, System: SystemFile,
		Library: Library(),
		Nodes:   topo.Nodes, Switches: s.Fabric.NumSwitches(),
		Ranks: s.Table.Ranks, Gates: s.Table.Gates,
		RankBits: sys.RankBits(), AddrBits: sys.AddrBits(), FlitWidth: sys.FlitWidth,
	}
	if s.Data != nil {
		m.Data, m.ItemFlits, m.Items = true, s.DataTable.ItemFlits, len(s.DataTable.Origin)
	}
	if len(m.Library) == 0 {
		return nil, nil, fmt.Errorf("the embedded RTL library is empty")
	}

	rankOf := make([]int, topo.Nodes)
	for n := range rankOf {
		rankOf[n] = -1
	}
	for r := range s.Ranks() {
		rankOf[s.NodeOf(r)] = r
	}
	gate := make([][]uint64, topo.Nodes)
	for n := range gate {
		if rankOf[n] < 0 {
			gate[n] = []uint64{0}
			continue
		}
		b, err := gateBody(s, rankOf[n])
		if err != nil {
			return nil, nil, err
		}
		gate[n] = b
	}
	var data [][]uint64
	if s.Data != nil {
		data = make([][]uint64, topo.Nodes)
		for n := range data {
			if rankOf[n] < 0 {
				data[n] = []uint64{0}
				continue
			}
			b, err := dataBody(s, rankOf[n])
			if err != nil {
				return nil, nil, err
			}
			data[n] = b
		}
	}

	caps, err := unitCapacities(eps, rankOf)
	if err != nil {
		return nil, nil, err
	}
	var plan *Channels // a run of communicators: channel tables
	var chGate [][][]uint64
	if UsesChannels(d) {
		if plan, chGate, err = channelTables(d, caps); err != nil {
			return nil, nil, err
		}
		m.Channels = plan.K
	}

	hdr := headerLines(s)
	var files []gendir.File
	write := func(name string, data []byte) {
		files = append(files, gendir.File{Name: name, Data: data, Mode: 0o644, Part: PartDesign})
	}

	for _, name := range m.Library {
		src, err := LibrarySource(name)
		if err != nil {
			return nil, nil, err
		}
		var b bytes.Buffer
		comment(&b, "// ", hdr)
		comment(&b, "// ", []string{"copy of the hxbar RTL library file verilog/rtl/" + name + " (see docs/rtl.md)", ""})
		b.Write(src)
		write(name, b.Bytes())
	}

	m.GateTables = make([]string, topo.Nodes)
	for n := 0; n < topo.Nodes; n++ {
		if plan != nil {
			if err := writeChannelTables(s, plan, n, chGate[n], hdr, write); err != nil {
				return nil, nil, err
			}
			m.GateTables[n] = GateTableFile(n)
			continue
		}
		name := GateTableFile(n)
		title, notes := gateNotes(s, n, rankOf[n], gate[n])
		data, err := FormatTable(MagicGate, gate[n], append(slices.Clone(hdr), title...), notes)
		if err != nil {
			return nil, nil, err
		}
		write(name, data)
		m.GateTables[n] = name
	}

	if data != nil {
		m.DataTables = make([]string, topo.Nodes)
		for n := 0; n < topo.Nodes; n++ {
			name := DataTableFile(n)
			title, notes := dataNotes(s, n, rankOf[n], data[n])
			b, err := FormatTable(MagicData, data[n], append(slices.Clone(hdr), title...), notes)
			if err != nil {
				return nil, nil, err
			}
			write(name, b)
			m.DataTables[n] = name
		}
	}

	if s.Topo != nil {
		m.RouteTables = make([]string, s.Topo.Switches)
	}
	for sw := range m.RouteTables { // a torus routes by coordinates: no tables
		name := RouteTableFile(sw)
		body, err := RouteTableBody(d, sw)
		if err != nil {
			return nil, nil, err
		}
		title, notes := routeNotes(s.Topo, sw)
		data, err := FormatTable(MagicRoute, body, append(slices.Clone(hdr), title...), notes)
		if err != nil {
			return nil, nil, err
		}
		write(name, data)
		m.RouteTables[sw] = name
	}

	// Routing exceptions (avoided channels): one table per switch that has
	// any, the readable record of what config.hex writes into the CAMs.
	m.CAMEntries = CAMEntries(s.Design)
	for sw, ex := range Exceptions(s.Design) {
		if len(ex) == 0 {
			continue
		}
		name := ExceptTableFile(sw)
		title, notes := exceptNotes(s.Design, sw, ex)
		data, err := FormatTable(MagicExcept, ExceptionTableBody(ex), append(slices.Clone(hdr), title...), notes)
		if err != nil {
			return nil, nil, err
		}
		write(name, data)
		m.ExceptTables = append(m.ExceptTables, name)
	}

	write(ParamsFile, paramsFile(s, hdr, plan))
	if Torus(s.Design) != nil {
		write(TopFile, torusTopFile(s, hdr, caps))
	} else {
		write(TopFile, topFile(s, hdr, caps, plan))
	}
	y, err := run.Sys.YAML()
	if err != nil {
		return nil, nil, err
	}
	var yb bytes.Buffer
	comment(&yb, "# ", hdr)
	comment(&yb, "# ", []string{"The system this directory was generated from (read it with hxbar --config).", ""})
	yb.Write(y)
	write(SystemFile, yb.Bytes())

	m.Sources = append(slices.Clone(m.Library), TopFile)
	for _, f := range files {
		m.Files = append(m.Files, f.Name)
	}
	slices.Sort(m.Files)
	return m, files, nil
}

// unitCap is what one node's barrier unit is built for: the largest gate
// count, route list and item list over the episodes, and whether any
// episode moves data.
type unitCap struct {
	rank            int // -1: no rank
	maxG, nrt, nil_ int
	data            bool
}

// unitCapacities sizes every node's unit for every episode in eps.
func unitCapacities(eps []*design.Episode, rankOf []int) ([]unitCap, error) {
	caps := make([]unitCap, len(rankOf))
	for n, r := range rankOf {
		c := unitCap{rank: r, maxG: 1, nrt: 1, nil_: 1}
		for _, e := range eps {
			c.data = c.data || e.Data != nil
			if r < 0 {
				continue
			}
			g, err := gateBody(e, r)
			if err != nil {
				return nil, err
			}
			G := int(g[0] >> gtGatesPos & 63)
			c.maxG = max(c.maxG, G)
			c.nrt = max(c.nrt, len(g)-G-2)
			if e.Data != nil {
				d, err := dataBody(e, r)
				if err != nil {
					return nil, err
				}
				c.nil_ = max(c.nil_, int(uint32(d[0])))
			}
		}
		caps[n] = c
	}
	return caps, nil
}

// comment writes each line with the comment prefix (an empty line as the
// bare prefix, trimmed).
func comment(b *bytes.Buffer, prefix string, lines []string) {
	for _, l := range lines {
		if l == "" {
			b.WriteString(strings.TrimRight(prefix, " "))
		} else {
			b.WriteString(prefix)
			b.WriteString(l)
		}
		b.WriteByte('\n')
	}
}

// dimsString writes dims as "4x4x2".
func dimsString(d []int) string {
	s := make([]string, len(d))
	for i, v := range d {
		s[i] = strconv.Itoa(v)
	}
	return strings.Join(s, "x")
}

// algoName is the schedule's name: the user schedule's algo when one was
// given, else the system's.
func algoName(s *design.Episode) string {
	if s.Sched != nil && s.Sched.Algo != "" {
		return s.Sched.Algo
	}
	return string(s.Sys.Algo)
}

// headerLines is the header every generated file starts with.
func headerLines(s *design.Episode) []string {
	sys := &s.Sys
	ranks := fmt.Sprintf("%d ranks", sys.NumRanks())
	if sys.NumRanks() == 1 {
		ranks = "1 rank"
	}
	if len(sys.Placement) > 0 {
		ranks += " (custom placement)"
	}
	lines := []string{
		"generated by hxbar — do not edit",
		"hxbar version: " + version.String(),
		"configuration: " + sys.Title(),
		fmt.Sprintf("system: %s %s (%d nodes, %d switches), %s, algo %s (G = %d), op %s, L = %d, B = %d, FW = %d, %s duplex",
			sys.Topology, dimsString(sys.Dims), s.Fabric.NumNodes(), s.Fabric.NumSwitches(), ranks, algoName(s), s.Table.Gates,
			s.Op, sys.LinkLatency, sys.BufferDepth, sys.FlitWidth, sys.Duplex),
	}
	if d := s.Data; d != nil && s.DataTable != nil {
		order := ""
		if d.Order != "" {
			order = ", order " + d.Order
		}
		lines = append(lines, fmt.Sprintf("data: collective %s, schedule %s%s, %d items of %d flits, %d steps (docs/transfers.md)",
			sys.Collective, d.Algo, order, len(s.DataTable.Origin), s.DataTable.ItemFlits, len(d.Steps)))
	}
	return append(lines, "")
}

// coords writes a node's coordinates as "(c0, c1, ...)".
func coords(t *noc.Topology, node int) string {
	c := make([]string, t.NumDims())
	for k := range c {
		c[k] = strconv.Itoa(t.Coord(node, k))
	}
	return "(" + strings.Join(c, ", ") + ")"
}

func gateNotes(s *design.Episode, node, rank int, body []uint64) (title, notes []string) {
	t := Grid(s.Design)
	if rank < 0 {
		return []string{fmt.Sprintf("gate table of node %d %s, address %#x: no rank", node, coords(t, node), t.Addr(node))},
			[]string{"no rank"}
	}
	G := s.Table.Gates
	nr := len(body) - G - 2
	title = []string{fmt.Sprintf("gate table of node %d %s, address %#x: rank %d of %d, G = %d, %d %s to other ranks",
		node, coords(t, node), t.Addr(node), rank, s.Table.Ranks, G, nr, plural(nr, "route", "routes"))}
	notes = make([]string, len(body))
	notes[0] = fmt.Sprintf("valid, G=%d, rank=%d", G, rank)
	for g := 1; g <= G+1; g++ {
		w := body[g]
		what := "gate " + strconv.Itoa(g)
		if g == G+1 {
			what += " (end)"
		}
		notes[g] = fmt.Sprintf("%s: self=%d need=%d routes %d from %d", what, w>>gtSelf&1, w>>gtNeedPos&0xff, w>>gtCountPos&0xffff, w&0xffff)
	}
	for j := 0; j < nr; j++ {
		w := body[G+2+j]
		d := int(w >> gtRankShift)
		notes[G+2+j] = fmt.Sprintf("route %d: to rank %d at address %#x (node %d)", j, d, w&0xffffffff, s.NodeOf(d))
	}
	return title, notes
}

func routeNotes(t *noc.Topology, sw int) (title, notes []string) {
	tab := t.Table(sw)
	notes = make([]string, len(tab))
	port := func(e uint8) string {
		if e == noc.Pass {
			return "PASS"
		}
		return "port " + strconv.Itoa(int(e))
	}
	if !t.IsCrossbar(sw) {
		title = []string{fmt.Sprintf("switch %d: exchanger of node %d %s, %d ports (0 local, k+1 to the dimension-k crossbar)", sw, sw, coords(t, sw), t.Ports(sw))}
		for k, d := range t.Dims {
			for c := 0; c < d; c++ {
				e := t.Off[k] + c
				notes[e] = fmt.Sprintf("entry %d: dimension %d coordinate %d: %s", e, k, c, port(tab[e]))
			}
		}
		return title, notes
	}
	k := t.XbarDim(sw)
	nodes := make([]string, t.Dims[k])
	for p := range nodes {
		nodes[p] = strconv.Itoa(t.XbarNode(sw, p))
	}
	title = []string{fmt.Sprintf("switch %d: crossbar of dimension %d, line %d, %d ports (port j to node %s)",
		sw, k, sw-t.XbarBase[k], t.Ports(sw), strings.Join(nodes, ", "))}
	for c := range tab {
		notes[c] = fmt.Sprintf("entry %d: coordinate %d: %s", c, c, port(tab[c]))
	}
	return title, notes
}

// exceptNotes describes switch sw's routing exceptions (its CAM entries).
func exceptNotes(s *design.Design, sw int, ex []regmap.Exception) (title, notes []string) {
	t := s.Topo
	what := fmt.Sprintf("exchanger of node %d %s", sw, coords(t, sw))
	if t.IsCrossbar(sw) {
		what = fmt.Sprintf("crossbar of dimension %d, line %d", t.XbarDim(sw), sw-t.XbarBase[t.XbarDim(sw)])
	}
	title = []string{fmt.Sprintf("routing exceptions of switch %d (%s) around %s: %d of the CAM's E = %d entries (valid, port, destination address)",
		sw, what, strings.Join(s.Sys.Avoid, ", "), len(ex), CAMEntries(s))}
	addrNode := make(map[uint32]int, t.Nodes)
	for n := 0; n < t.Nodes; n++ {
		addrNode[uint32(t.Addr(n))] = n
	}
	notes = make([]string, len(ex))
	for x, e := range ex {
		d := addrNode[e.Addr]
		notes[x] = fmt.Sprintf("entry %d: to node %d %s (address %#x): port %d", x, d, coords(t, d), e.Addr, e.Port)
	}
	return title, notes
}

// paramsFile is hx_params.vh: the defines a testbench includes.
func paramsFile(s *design.Episode, hdr []string, plan *Channels) []byte {
	sys := &s.Sys
	var b bytes.Buffer
	comment(&b, "// ", hdr)
	comment(&b, "// ", []string{
		"hx_params.vh: the constants of this system for a testbench (`include \"hx_params.vh\").",
		"hx_top's per-node vectors have HX_NODES entries; rank fields are HX_RB bits wide.",
		"",
	})
	b.WriteString("`ifndef HX_PARAMS_VH\n`define HX_PARAMS_VH\n")
	def := func(name string, v any, what string) {
		fmt.Fprintf(&b, "`define %-10s %v // %s\n", name, v, what)
	}
	def("HX_NODES", s.Fabric.NumNodes(), "nodes N (node id order in every vector of hx_top)")
	def("HX_RB", sys.RankBits(), "rank bits RB (hw.System.RankBits)")
	def("HX_FW", sys.FlitWidth, "flit data width FW")
	def("HX_RANKS", s.Table.Ranks, "ranks taking part")
	def("HX_OP", int(s.Op), "reduction op: 0 barrier, 1 sum, 2 max, 3 min, 4 and, 5 or, 6 xor (this system: "+s.Op.String()+")")
	def("HX_NAME", strconv.Quote(sys.Title()), "configuration name")
	def("HX_AB", sys.AddrBits(), "node address bits AB")
	def("HX_GATES", s.Table.Gates, "gates G of the schedule (end gate G+1)")
	def("HX_L", sys.LinkLatency, "network link latency L")
	def("HX_B", sys.BufferDepth, "buffer depth B")
	if s.Data != nil && s.DataTable != nil {
		def("HX_DATA", 1, "the units run a data collective ("+string(sys.Collective)+"): DATA = 1, tables dt_n<node>.hex")
		def("HX_ITEMS", len(s.DataTable.Origin), "items of the data collective")
		def("HX_IF", s.DataTable.ItemFlits, "flits per item F")
	} else {
		def("HX_DATA", 0, "a barrier: DATA = 0")
	}
	if plan != nil {
		def("HX_NCH", plan.K, "barrier channels per node (hx_barrier_node): CPU vectors have HX_NODES*HX_NCH entries")
	}
	b.WriteString("`endif\n")
	return b.Bytes()
}
