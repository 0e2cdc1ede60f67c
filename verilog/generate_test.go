package verilog

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hxbar/hxbar/barrierunit"
	"github.com/hxbar/hxbar/design"
	"github.com/hxbar/hxbar/hw"
	"github.com/hxbar/hxbar/internal/gendir"
	"github.com/hxbar/hxbar/internal/version"
	"github.com/hxbar/hxbar/sim"
)

// testSystem is a small system for the generator tests.
func testSystem(name string, dims []int, mod func(*hw.System)) hw.System {
	s := hw.Default()
	s.Name = name
	s.Dims = dims
	s.Ranks = 0
	s.Skew = 12
	s.BufferDepth = 2
	if mod != nil {
		mod(&s)
	}
	return s
}

// goldenSystems cover 1-D to 4-D, ranks < nodes, custom placement and
// every algorithm; every op is covered by TestGenerateEveryOp.
func goldenSystems() []hw.System {
	return []hw.System{
		testSystem("line2", []int{2}, nil),
		testSystem("line5", []int{5}, func(s *hw.System) { s.Algo = "butterfly-near-first"; s.Op = "sum" }),
		testSystem("grid4x4", []int{4, 4}, nil),
		testSystem("grid2x3-sum-fw16", []int{2, 3}, func(s *hw.System) { s.Op = "sum"; s.FlitWidth = 16 }),
		testSystem("cube2-max", []int{2, 2, 2}, func(s *hw.System) { s.Op = "max" }),
		testSystem("line8-r5", []int{8}, func(s *hw.System) { s.Ranks = 5 }),
		testSystem("grid3x3-placed", []int{3, 3}, func(s *hw.System) {
			s.Ranks = 4
			s.Placement = []int{8, 0, 4, 2}
			s.Algo = "dissemination"
			s.Op = "min"
		}),
		testSystem("hyper2x3x2x2", []int{2, 3, 2, 2}, func(s *hw.System) { s.Ranks = 20; s.Op = "xor"; s.FlitWidth = 24 }),
		testSystem("grid5x3-r1", []int{5, 3}, func(s *hw.System) { s.Ranks = 1; s.Placement = []int{7} }),
	}
}

func build(t testing.TB, sys hw.System, sched *barrierunit.Schedule) *sim.System {
	t.Helper()
	s, err := sim.Build(sys, sched)
	if err != nil {
		t.Fatalf("sim.Build(%s): %v", sys.Name, err)
	}
	return s
}

func generate(t testing.TB, s *sim.System) (string, *Manifest) {
	t.Helper()
	dir := t.TempDir()
	m, err := Generate(dir, s.Design)
	if err != nil {
		t.Fatalf("Generate(%s): %v", s.Sys.Name, err)
	}
	return dir, m
}

// checkGolden parses every generated table back and compares it, entry for
// entry, with the model's: s.Topo.Table for switches, s.Table and
// s.Units.NodeOf for barrier units.
func checkGolden(t *testing.T, s *sim.System, dir string, m *Manifest) {
	t.Helper()
	topo, tab := s.Topo, s.Table
	if len(m.GateTables) != topo.Nodes || len(m.RouteTables) != topo.Switches {
		t.Fatalf("manifest: %d gate tables, %d routing tables; want %d, %d", len(m.GateTables), len(m.RouteTables), topo.Nodes, topo.Switches)
	}
	rankOf := map[int]int{}
	for r, n := range s.Units.NodeOf {
		rankOf[int(n)] = r
	}
	st := tab.Stride()
	for n := 0; n < topo.Nodes; n++ {
		magic, body, err := ReadTable(filepath.Join(dir, GateTableFile(n)))
		if err != nil || magic != MagicGate {
			t.Fatalf("node %d: %q %v", n, magic, err)
		}
		g, err := DecodeGateTable(body)
		if err != nil {
			t.Fatalf("node %d: %v", n, err)
		}
		r, has := rankOf[n]
		if !has {
			if g.Rank != -1 || len(body) != 1 {
				t.Errorf("node %d hosts no rank, its table is %x", n, body)
			}
			continue
		}
		if g.Rank != r || g.Gates != tab.Gates {
			t.Fatalf("node %d: rank %d G %d, want rank %d G %d", n, g.Rank, g.Gates, r, tab.Gates)
		}
		total := 0
		for gate := 1; gate <= tab.Gates+1; gate++ {
			k := r*st + gate
			if g.Self[gate] != tab.Self[k] || g.Need[gate] != int(tab.Need[k]) {
				t.Errorf("node %d rank %d gate %d: self %v need %d, model self %v need %d",
					n, r, gate, g.Self[gate], g.Need[gate], tab.Self[k], tab.Need[k])
			}
			var want []GateRoute
			for _, d := range tab.OutDst[tab.OutStart[k]:tab.OutEnd[k]] {
				want = append(want, GateRoute{Rank: int(d), Addr: topo.Addr(int(s.Units.NodeOf[d]))})
			}
			if got := g.Out(gate); !slices.Equal(got, want) {
				t.Errorf("node %d rank %d out[%d] = %v, model %v", n, r, gate, got, want)
			}
			total += len(want)
		}
		if len(g.Routes) != total {
			t.Errorf("node %d: %d route words, model %d routes", n, len(g.Routes), total)
		}
	}
	for sw := 0; sw < topo.Switches; sw++ {
		magic, body, err := ReadTable(filepath.Join(dir, RouteTableFile(sw)))
		if err != nil || magic != MagicRoute {
			t.Fatalf("switch %d: %q %v", sw, magic, err)
		}
		e, err := DecodeRouteTable(body)
		if err != nil {
			t.Fatal(err)
		}
		if want := topo.Table(sw); !slices.Equal(e, want) {
			t.Errorf("switch %d: table %v, model %v", sw, e, want)
		}
	}
}

func TestGenerateGolden(t *testing.T) {
	for _, sys := range goldenSystems() {
		t.Run(sys.Name, func(t *testing.T) {
			s := build(t, sys, nil)
			dir, m := generate(t, s)
			checkGolden(t, s, dir, m)
			checkManifest(t, s, dir, m)
		})
	}
}

func TestGenerateEveryOp(t *testing.T) {
	for _, op := range hw.Ops {
		sys := testSystem("ops-"+string(op), []int{3, 2}, func(s *hw.System) { s.Op = op; s.Ranks = 5 })
		if op == "sum" || op == "xor" {
			sys.Algo = "butterfly"
		} else {
			sys.Algo = "dissemination"
		}
		s := build(t, sys, nil)
		dir, m := generate(t, s)
		checkGolden(t, s, dir, m)
		want, _ := barrierunit.ParseOp(string(op))
		params, _ := os.ReadFile(filepath.Join(dir, ParamsFile))
		if !strings.Contains(string(params), fmt.Sprintf("`define HX_OP      %d ", int(want))) {
			t.Errorf("%s: hx_params.vh has no HX_OP %d:\n%s", op, want, params)
		}
		// The op is a register (CTRL.OP, written through the configuration
		// port: docs/registers.md), not an elaboration parameter: the
		// generated top must not fix it (testbench's config.hex carries it).
		top, _ := os.ReadFile(filepath.Join(dir, TopFile))
		if strings.Contains(string(top), ".OP(") || strings.Contains(string(top), "integer OP ") {
			t.Errorf("%s: hx_top.v fixes the op at elaboration (an OP parameter)", op)
		}
	}
}

// checkManifest: the files listed exist, every file on disk is listed, every
// file starts with the header, system.yaml reads back to the system.
func checkManifest(t *testing.T, s *sim.System, dir string, m *Manifest) {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var onDisk []string
	for _, e := range ents {
		if e.Name() != gendir.ManifestName {
			onDisk = append(onDisk, e.Name())
		}
	}
	if !slices.Equal(onDisk, m.Files) {
		t.Errorf("files on disk %v, manifest %v", onDisk, m.Files)
	}
	want := s.Topo.Nodes + s.Topo.Switches + len(Library()) + 3
	if s.Data != nil {
		want += s.Topo.Nodes // dt_n<node>.hex
	}
	if len(m.Files) != want {
		t.Errorf("%d files, want %d", len(m.Files), want)
	}
	for _, f := range m.Files {
		data, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		c := "// "
		if f == SystemFile {
			c = "# "
		}
		head := c + "generated by hxbar — do not edit\n" + c + "hxbar version: " + version.String() + "\n" + c + "configuration: " + s.Sys.Name + "\n" + c + "system: hyperxbar "
		if !bytes.HasPrefix(data, []byte(head)) {
			t.Errorf("%s does not start with the header:\n%s", f, data[:min(len(data), 300)])
		}
	}
	back, err := hw.Load(filepath.Join(dir, SystemFile))
	if err != nil {
		t.Fatalf("system.yaml: %v", err)
	}
	if fmt.Sprintf("%+v", back) != fmt.Sprintf("%+v", s.Sys) {
		t.Errorf("system.yaml reads back as %+v, want %+v", back, s.Sys)
	}
	if !slices.Equal(m.Sources, append(Library(), TopFile)) || m.Top != "hx_top" || m.Dir != dir ||
		m.Nodes != s.Topo.Nodes || m.RankBits != s.Sys.RankBits() || m.Ranks != s.Table.Ranks {
		t.Errorf("manifest %+v", m)
	}
	for _, name := range Library() {
		src, _ := LibrarySource(name)
		data, _ := os.ReadFile(filepath.Join(dir, name))
		if !bytes.HasSuffix(data, src) {
			t.Errorf("%s is not the library file after its header", name)
		}
	}
}

func TestGenerateDeterministic(t *testing.T) {
	for _, sys := range goldenSystems()[3:6] {
		a, ma := generate(t, build(t, sys, nil))
		b, mb := generate(t, build(t, sys, nil))
		if !slices.Equal(ma.Files, mb.Files) {
			t.Fatalf("%s: file lists differ", sys.Name)
		}
		for _, f := range ma.Files {
			x, _ := os.ReadFile(filepath.Join(a, f))
			y, _ := os.ReadFile(filepath.Join(b, f))
			if !bytes.Equal(x, y) {
				t.Errorf("%s: %s differs between two runs", sys.Name, f)
			}
		}
	}
}

// The hand-checked tables of the RTL smoke tests (verilog/rtl/test/<dir>)
// are what the generator writes for the same systems: compare the words.
func TestGenerateMatchesHandTables(t *testing.T) {
	gather, diag := gatherSchedule(), diagSchedule()
	for _, c := range []struct {
		dir   string
		sys   hw.System
		sched *barrierunit.Schedule
	}{
		{"bfly2", testSystem("bfly2", []int{2}, nil), nil},
		{"line3norank", testSystem("line3norank", []int{3}, func(s *hw.System) { s.Ranks = 2 }), nil},
		{"single_g0", testSystem("single_g0", []int{2}, func(s *hw.System) { s.Ranks = 1 }),
			&barrierunit.Schedule{Ranks: 1, Algo: "none", Gates: 0}},
		{"single_g1", testSystem("single_g1", []int{2}, func(s *hw.System) { s.Ranks = 1 }), nil},
		{"grid2", testSystem("grid2", []int{2, 2}, nil), nil},
		{"gather4", testSystem("gather4", []int{4}, nil), gather},
		{"grid2diag", testSystem("grid2diag", []int{2, 2}, nil), diag},
		{"ag4", dataTestSystem("ag4", []int{4}, 4, "allgather", 2, 2, func(s *hw.System) {
			s.FlitWidth, s.LinkLatency, s.BufferDepth, s.Skew = 32, 2, 1, 0
		}), nil},
	} {
		t.Run(c.dir, func(t *testing.T) {
			s := build(t, c.sys, c.sched)
			dir, m := generate(t, s)
			checkGolden(t, s, dir, m)
			hand := filepath.Join("rtl", "test", c.dir)
			ents, err := os.ReadDir(hand)
			if err != nil {
				t.Fatal(err)
			}
			if len(ents) != len(m.GateTables)+len(m.RouteTables)+len(m.DataTables) {
				t.Errorf("%d hand tables, %d generated", len(ents), len(m.GateTables)+len(m.RouteTables)+len(m.DataTables))
			}
			for _, e := range ents {
				hm, hb, err := ReadTable(filepath.Join(hand, e.Name()))
				if err != nil {
					t.Fatal(err)
				}
				gm, gb, err := ReadTable(filepath.Join(dir, e.Name()))
				if err != nil {
					t.Fatal(err)
				}
				if hm != gm || !slices.Equal(hb, gb) {
					t.Errorf("%s: generated %s %x, hand-written %s %x", e.Name(), gm, gb, hm, hb)
				}
			}
		})
	}
}

func TestGenerateRefuses(t *testing.T) {
	half := testSystem("half", []int{2, 2}, func(s *hw.System) { s.Duplex = "half" })
	s := build(t, half, nil)
	dir := filepath.Join(t.TempDir(), "out")
	_, err := Generate(dir, s.Design)
	var fe *hw.FieldError
	if !errors.As(err, &fe) || fe.Field != "duplex" ||
		!strings.Contains(err.Error(), `duplex: "half" (allowed: full; half duplex is a model-only what-if)`) {
		t.Fatalf("half duplex: err = %v", err)
	}
	if _, statErr := os.Stat(dir); !os.IsNotExist(statErr) {
		t.Errorf("a refused system created %s", dir)
	}

	// Five and six dimensions build (MaxDims = hw.MaxDims, K0..K5); a
	// design with more (only a broken one: the model refuses a seventh)
	// is refused naming dims.
	for _, dims := range [][]int{{2, 2, 2, 2, 3}, {2, 2, 2, 2, 3, 2}} {
		s := build(t, testSystem("six", dims, nil), nil)
		if err := Check(s.Design); err != nil {
			t.Errorf("%v: %v", dims, err)
		}
	}
	seven := breakable(build(t, testSystem("seven", []int{2, 2, 2, 2, 2, 2}, nil), nil).Design)
	seven.Sys.Dims = []int{2, 2, 2, 2, 2, 2, 2}
	if err := check(seven); !errors.As(err, &fe) || fe.Field != "dims" ||
		!strings.Contains(err.Error(), fmt.Sprintf("1 to %d dimensions for generated RTL", MaxDims)) {
		t.Errorf("7 dims: err = %v", err)
	}

	// More gates than the 6-bit gate field holds (a user schedule could ask).
	ok := build(t, testSystem("deep", []int{2}, func(s *hw.System) { s.Ranks = 1 }), nil)
	deep := breakable(ok.Design)
	const G = 63
	ft := &barrierunit.FlatTable{Ranks: 1, Gates: G, Self: make([]bool, G+2), Need: make([]uint8, G+2),
		OutStart: make([]int32, G+2), OutEnd: make([]int32, G+2)}
	deep.Table = ft
	if err := check(deep); !errors.As(err, &fe) || fe.Field != "gates" || !strings.Contains(err.Error(), "0..62") {
		t.Errorf("63 gates: err = %v", err)
	}

	// A route list longer than the 16-bit route count.
	long := breakable(build(t, testSystem("long", []int{2}, nil), nil).Design)
	const nr = hw.MaxRouteIndex + 1
	ft = &barrierunit.FlatTable{Ranks: 2, Gates: 1, Self: make([]bool, 6), Need: make([]uint8, 6),
		OutStart: []int32{0, 0, nr, nr, nr, nr}, OutEnd: []int32{0, nr, nr, nr, nr, nr}, OutDst: make([]int32, nr)}
	for i := range ft.OutDst {
		ft.OutDst[i] = 1
	}
	long.Table = ft
	if _, err := gateBody(long, 0); !errors.As(err, &fe) || fe.Field != "routes" || !strings.Contains(err.Error(), "65536 routes") {
		t.Errorf("65536 routes: err = %v", err)
	}

	// Malformed designs (which design.New never builds): errors, no panics.
	base := build(t, testSystem("base", []int{2}, nil), nil)
	for name, mod := range map[string]func(s *design.Episode){
		"nil topo":   func(s *design.Episode) { s.Topo = nil },
		"nil table":  func(s *design.Episode) { s.Table = nil },
		"nil design": func(s *design.Episode) { s.Design = nil },
		"bad name":   func(s *design.Episode) { s.Sys.Name = "a b" },
		"torus":      func(s *design.Episode) { s.Sys.Topology = "torus" },
		"ranks":      func(s *design.Episode) { s.Sys.Ranks = 1 },
		"dims":       func(s *design.Episode) { s.Sys.Dims = []int{3} },
		"short self": func(s *design.Episode) { t2 := *s.Table; t2.Self = nil; s.Table = &t2 },
	} {
		c := breakable(base.Design)
		mod(c)
		if err := check(c); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	if err := check(nil); err == nil {
		t.Error("nil episode accepted")
	}
	if _, err := Generate(t.TempDir(), nil); err == nil {
		t.Error("nil system accepted")
	}
	if _, err := Generate("", base.Design); err == nil {
		t.Error("empty directory name accepted")
	}
	if _, err := GateTableBody(base.Design, 5); err == nil {
		t.Error("GateTableBody(node 5 of 2) accepted")
	}
	if _, err := RouteTableBody(base.Design, -1); err == nil {
		t.Error("RouteTableBody(-1) accepted")
	}
	if b, err := GateTableBody(base.Design, 1); err != nil || len(b) != 4 || b[0] != 0x8000000100000001 {
		t.Errorf("GateTableBody(1) = %x, %v", b, err)
	}
}

// The port list of hx_top is a contract with the testbench: names, order,
// directions and widths.
func TestTopPorts(t *testing.T) {
	s := build(t, testSystem("ports", []int{3, 2}, func(s *hw.System) { s.Ranks = 5 }), nil)
	dir, _ := generate(t, s)
	src, err := os.ReadFile(filepath.Join(dir, TopFile))
	if err != nil {
		t.Fatal(err)
	}
	text := string(src)
	i := strings.Index(text, "module hx_top (\n")
	j := strings.Index(text, "\n);\n")
	if i < 0 || j < i {
		t.Fatalf("no module header in hx_top.v")
	}
	N, RB := 6, s.Sys.RankBits()
	type port struct {
		dir   string
		width int
		name  string
	}
	var got []port
	for _, line := range strings.Split(text[i+len("module hx_top (\n"):j], "\n") {
		if k := strings.Index(line, "//"); k >= 0 {
			line = line[:k]
		}
		f := strings.Fields(strings.ReplaceAll(line, ",", " "))
		if len(f) == 0 {
			continue // a comment line
		}
		if len(f) < 2 {
			t.Fatalf("port line %q", line)
		}
		w, names := 1, f[1:]
		if strings.HasPrefix(f[1], "[") {
			var hi int
			if _, err := fmt.Sscanf(f[1], "[%d:0]", &hi); err != nil {
				t.Fatalf("port line %q: %v", line, err)
			}
			w, names = hi+1, f[2:]
		}
		for _, n := range names {
			got = append(got, port{f[0], w, n})
		}
	}
	var want []port
	add := func(dir string, w int, names ...string) {
		for _, n := range names {
			want = append(want, port{dir, w, n})
		}
	}
	add("input", 1, "clk", "rst")
	add("input", N, "arrive")
	add("input", N*64, "operand")
	add("output", N, "released")
	add("output", N*64, "result")
	// per-node APB configuration ports, then the fabric's; no debug pins
	add("input", N, "cfg_psel", "cfg_penable", "cfg_pwrite")
	add("input", N*32, "cfg_paddr", "cfg_pwdata")
	add("output", N*32, "cfg_prdata")
	add("output", N, "cfg_pready", "cfg_pslverr")
	add("output", N, "irq")
	add("input", 1, "fab_psel", "fab_penable", "fab_pwrite")
	add("input", 32, "fab_paddr", "fab_pwdata")
	add("output", 32, "fab_prdata")
	add("output", 1, "fab_pready", "fab_pslverr")
	if !slices.Equal(got, want) {
		t.Errorf("hx_top ports\n%v\nwant\n%v", got, want)
	}
	params, _ := os.ReadFile(filepath.Join(dir, ParamsFile))
	for _, d := range []string{
		fmt.Sprintf("`define HX_NODES   %d ", N), fmt.Sprintf("`define HX_RB      %d ", RB),
		"`define HX_FW      64 ", "`define HX_RANKS   5 ", "`define HX_OP      0 ", "`define HX_NAME    \"ports\" ",
	} {
		if !strings.Contains(string(params), d) {
			t.Errorf("hx_params.vh lacks %q:\n%s", d, params)
		}
	}
}

// docs/rtl.md, "Generated directory", lists every file the generator writes.
func TestDocsListGeneratedFiles(t *testing.T) {
	doc, err := os.ReadFile("../docs/rtl.md")
	if err != nil {
		t.Fatal(err)
	}
	i := bytes.Index(doc, []byte("## Generated directory"))
	if i < 0 {
		t.Fatal("docs/rtl.md has no section \"Generated directory\"")
	}
	sec := string(doc[i:])
	if j := strings.Index(sec[3:], "\n## "); j >= 0 {
		sec = sec[:j+3]
	}
	names := append(Library(), TopFile, ParamsFile, SystemFile, "gt_n<node>.hex", "rt_s<switch>.hex",
		"HX_NODES", "HX_RB", "HX_FW", "HX_RANKS", "HX_OP", "HX_NAME", "HX_AB", "HX_GATES", "HX_L", "HX_B",
		"dt_n<node>.hex", "HX_DATA", "HX_ITEMS", "HX_IF")
	for _, n := range names {
		if !strings.Contains(sec, "`"+n+"`") {
			t.Errorf("docs/rtl.md \"Generated directory\" does not list `%s`", n)
		}
	}
}

// breakable is a copy of d's episode 1 (and of d) that a test may change
// to make a malformed design for check.
func breakable(d *design.Design) *design.Episode {
	dc := *d
	e := *d.Episode(1)
	e.Design = &dc
	return &e
}
