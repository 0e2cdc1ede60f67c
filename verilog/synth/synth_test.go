package synth

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// The testdata files are the outputs of this package's Yosys script (Yosys
// 0.23) on 'hxbar gen --dims 2' (2 nodes, 3 switches, flit width 64):
// stat.json after synth without memory_map (top attribute removed: Yosys
// 0.23 ends the JSON with a trailing comma), stat-top.json the same stat
// with the top attribute set (Yosys appends a non-JSON hierarchy listing
// and a "design" total), mem.il the dump of the $mem_v2 cells, ltp.txt
// ltp -noff after memory_map and flatten.
func readTestdata(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func parse(t *testing.T, name string) map[string]StatModule {
	t.Helper()
	m, err := ParseStat(strings.NewReader(string(readTestdata(t, name))))
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return m
}

func TestParseStat(t *testing.T) {
	stat := parse(t, "stat.json")
	top, ok := stat["hx_top"]
	if !ok {
		t.Fatalf("no hx_top (the escaped \\hx_top must be unescaped): %v", keys(stat))
	}
	if len(stat) != 8 {
		t.Errorf("%d modules, want 8: %v", len(stat), keys(stat))
	}
	// hx_top instantiates the 2 barrier units, 3 switches and the channels
	// by their Yosys names, unescaped like the module names; its other
	// cells are gates (the configuration port's address decode).
	subs, gates := 0, 0
	for typ, n := range top.CellsByType {
		if strings.HasPrefix(typ, "$_") {
			gates += n
			continue
		}
		if _, ok := stat[typ]; !ok {
			t.Errorf("hx_top has cell type %q (%d), not a module of the design", typ, n)
		}
		subs += n
	}
	if subs != 13 || subs+gates != top.Cells {
		t.Errorf("hx_top: %d submodule cells (want 13) and %d gates, num_cells %d", subs, gates, top.Cells)
	}
	// The FIFO's storage is a memory cell: its logic is the pointers and
	// the count.
	fifo := stat[`$paramod$1d512a1683beceb7c72f2570e8cf10cfb4f119c2\hx_fifo`]
	if fifo.Cells != 33 || fifo.CellsByType["$mem_v2"] != 1 {
		t.Errorf("hx_fifo: %+v", fifo)
	}
	// The same stat with a hierarchy listing after "modules" parses equally.
	withTop := parse(t, "stat-top.json")
	if len(withTop) != len(stat) {
		t.Errorf("stat-top.json: %d modules, stat.json %d", len(withTop), len(stat))
	}
}

// TestParseMemories: the FIFO's storage (4 x 66) and the barrier unit's
// gate, route and receive RAMs (3 x 41, 1 x 2, 3 x 73), by module.
func TestParseMemories(t *testing.T) {
	mem, err := ParseMemories(string(readTestdata(t, "mem.il")))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int{
		`$paramod$1d512a1683beceb7c72f2570e8cf10cfb4f119c2\hx_fifo`:         4 * 66,
		`$paramod$44078b68cd568098d8e55b41f26ef6f6c04ba4d7\hx_barrier_unit`: 3*41 + 1*2 + 3*73,
	}
	if len(mem) != len(want) {
		t.Errorf("memories %v, want %v", mem, want)
	}
	for m, n := range want {
		if mem[m] != n {
			t.Errorf("%s: %d memory bits, want %d", m, mem[m], n)
		}
	}
	for _, bad := range []string{
		"  cell $mem_v2 \\m\n    parameter \\SIZE 4\n  end\n",                   // outside a module
		"module \\a\n  cell $mem_v2 \\m\n    parameter \\WIDTH 4\n  end\nend\n", // no SIZE
	} {
		if _, err := ParseMemories(bad); err == nil {
			t.Errorf("no error for %q", bad)
		}
	}
}

func TestParseStatErrors(t *testing.T) {
	for _, in := range []string{"", "[]", `{"creator": "x"}`, `{"modules": [}`, `{"modules": 3}`} {
		if _, err := ParseStat(strings.NewReader(in)); err == nil {
			t.Errorf("%q: no error", in)
		}
	}
}

func TestParseLTP(t *testing.T) {
	d := ParseLTP(string(readTestdata(t, "ltp.txt")))
	if d["hx_top"] != 52 || d[`$paramod\hx_credit\B=s32'00000000000000000000000000000100`] != 5 || len(d) != 8 {
		t.Errorf("ltp: %v", d)
	}
}

func TestBaseName(t *testing.T) {
	for in, want := range map[string]string{
		`hx_top`: "hx_top", `\hx_top`: "hx_top",
		`$paramod$1d512a1683beceb7c72f2570e8cf10cfb4f119c2\hx_fifo`: "hx_fifo",
		`$paramod\hx_credit\B=s32'00000000000000000000000000000100`: "hx_credit",
	} {
		if got := BaseName(in); got != want {
			t.Errorf("BaseName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestIsFlop(t *testing.T) {
	for typ, want := range map[string]bool{"$_DFF_P_": true, "$_DFFE_PP_": true, "$_SDFF_PP0_": true, "$_SDFFCE_PN0P_": true,
		"$_ALDFF_PP_": true, "$_DFFSR_PPP_": true, "$_MUX_": false, "$_AND_": false, "$_DLATCH_P_": false} {
		if IsFlop(typ) != want {
			t.Errorf("IsFlop(%s) = %v", typ, !want)
		}
	}
}

// TestBuild checks the report against Yosys's own hierarchical total (the
// "design" section of stat-top.json, less its memory cells) and the
// contract: totals are the sums of the per-module figures times their
// instances.
func TestBuild(t *testing.T) {
	mem, err := ParseMemories(string(readTestdata(t, "mem.il")))
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Build(mem, parse(t, "stat.json"), ParseLTP(string(readTestdata(t, "ltp.txt"))), "hx_top")
	if err != nil {
		t.Fatal(err)
	}
	top := string(readTestdata(t, "stat-top.json"))
	design := regexp.MustCompile(`"design": \{[^}]*"num_cells":\s+(\d+)`).FindStringSubmatch(top)
	mems := regexp.MustCompile(`"design": \{(?s:.*)"\$mem_v2":\s+(\d+)`).FindStringSubmatch(top)
	if design == nil || mems == nil {
		t.Fatal("stat-top.json: no design total")
	}
	want, _ := strconv.Atoi(design[1])
	nmem, _ := strconv.Atoi(mems[1])
	if rep.Total.Cells != want-nmem {
		t.Errorf("total cells %d, Yosys's design total %d less %d memory cells", rep.Total.Cells, want, nmem)
	}
	// 2 units (3 x 41 + 1 x 2 + 3 x 73 bits) and 8 FIFOs (4 x 66).
	if rep.Total.MemoryBits != 2*(3*41+2+3*73)+8*4*66 {
		t.Errorf("total memory bits %d", rep.Total.MemoryBits)
	}
	checkSums(t, rep)
	inst := map[string]int{}
	for _, m := range rep.Modules {
		inst[m.Module] += m.Instances
	}
	// 2 nodes: 2 barrier units, 3 switches with 2 input FIFOs and 2 output
	// credit counters each, plus one FIFO and one credit counter per unit.
	wantInst := map[string]int{"hx_top": 1, "hx_barrier_unit": 2, "hx_switch": 3, "hx_fifo": 8, "hx_credit": 8, "hx_alu": 4, "hx_chan": 8}
	for m, n := range wantInst {
		if inst[m] != n {
			t.Errorf("%s: %d instances, want %d (all: %v)", m, inst[m], n, inst)
		}
	}
	if rep.Total.Depth != 52 || rep.Total.Flops == 0 {
		t.Errorf("total %+v", rep.Total)
	}
	var b strings.Builder
	if err := rep.WriteTable(&b); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"hx_switch", "total", "memory_bits"} {
		if !strings.Contains(b.String(), s) {
			t.Errorf("table lacks %q:\n%s", s, b.String())
		}
	}
}

func TestBuildErrors(t *testing.T) {
	stat := parse(t, "stat.json")
	depth := ParseLTP(string(readTestdata(t, "ltp.txt")))
	if _, err := Build(nil, stat, depth, "nosuch"); err == nil {
		t.Error("no error for a missing top")
	}
	delete(depth, "hx_top")
	if _, err := Build(nil, stat, depth, "hx_top"); err == nil {
		t.Error("no error for a missing depth")
	}
}

// checkSums checks the totals against the modules (the JSON contract).
func checkSums(t *testing.T, rep *Report) {
	t.Helper()
	var sum Total
	for _, m := range rep.Modules {
		sum.Instances += m.Instances
		sum.Cells += m.Instances * m.Cells
		sum.Flops += m.Instances * m.Flops
		sum.MemoryBits += m.Instances * m.MemoryBits
		if m.Flops > m.Cells || m.Depth > rep.Total.Depth {
			t.Errorf("module %+v against total %+v", m, rep.Total)
		}
		if m.Module == "hx_top" {
			sum.Depth = m.Depth
		}
	}
	if sum != rep.Total {
		t.Errorf("total %+v, sum of the modules %+v", rep.Total, sum)
	}
}

func keys(m map[string]StatModule) []string {
	var k []string
	for n := range m {
		k = append(k, n)
	}
	return k
}

func TestLastPass(t *testing.T) {
	f := filepath.Join(t.TempDir(), "yosys.log")
	if got := lastPass(f); got != "starting" {
		t.Errorf("no log: %q", got)
	}
	log := "1. Executing Verilog-2005 frontend: hx_alu.v\n\n5. Executing SYNTH pass.\n\n5.10. Executing OPT_MERGE pass (detect identical cells).\nFinding identical cells in module.\n"
	if err := os.WriteFile(f, []byte(log), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, want := lastPass(f), "step 5.10 OPT_MERGE pass (detect identical cells)"; got != want {
		t.Errorf("lastPass = %q, want %q", got, want)
	}
}

// paramsIL is a `dump -n` of the testdata design's derived modules (the
// header format of Yosys 0.23; the values as the generator sets them: two
// exchangers and one crossbar).
const paramsIL = `
autoidx 3442

attribute \dynports 1
attribute \hdlname "\\hx_switch"
module $paramod$db54381c021b0ff1bcc70679fe6438227fcdd74d\hx_switch

  parameter \P 2
  parameter \FW 64
  parameter \MODE 0
  parameter \XDIM 0
end

attribute \hdlname "\\hx_switch"
module $paramod$35c0c614209931e49893511f7b97dc3057bc636e\hx_switch

  parameter \P 2
  parameter \FW 64
  parameter \MODE 1
  parameter \XDIM 0
end

module $paramod$9d8f9e2bfb3d87c662a34793e549339f32923640\hx_chan

  parameter \W 66
  parameter \NAME "inj"
end

module \hx_top
end
`

// TestLabels: the two hx_switch rows are labelled by the parameter they
// differ in (MODE), in table and JSON; a module with one variant keeps its
// name; a row that merges variants joins their values.
func TestLabels(t *testing.T) {
	ps := ParseParams(paramsIL)
	if got := ps[`$paramod$9d8f9e2bfb3d87c662a34793e549339f32923640\hx_chan`]; len(got) != 2 || got[1] != (ModuleParam{"NAME", "inj"}) {
		t.Fatalf("hx_chan params %+v", got)
	}
	mem, err := ParseMemories(string(readTestdata(t, "mem.il")))
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Build(mem, parse(t, "stat.json"), ParseLTP(string(readTestdata(t, "ltp.txt"))), "hx_top")
	if err != nil {
		t.Fatal(err)
	}
	rep.SetLabels(ps)
	labels := map[string]int{}
	for _, m := range rep.Modules {
		labels[m.Label] += m.Instances
	}
	want := map[string]int{"hx_switch[MODE=0]": 2, "hx_switch[MODE=1]": 1, "hx_chan": 8, "hx_top": 1, "hx_alu": 4}
	for l, n := range want {
		if labels[l] != n {
			t.Errorf("label %s: %d instances, want %d (all: %v)", l, labels[l], n, labels)
		}
	}
	var b strings.Builder
	if err := rep.WriteTable(&b); err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`(?m)^hx_switch\[MODE=0\] +2 `).MatchString(b.String()) {
		t.Errorf("table lacks the labelled exchangers:\n%s", b.String())
	}
	data, _ := json.Marshal(rep)
	if !strings.Contains(string(data), `"module":"hx_switch","label":"hx_switch[MODE=1]"`) {
		t.Errorf("JSON lacks the label: %s", data)
	}

	// Merged variants (equal figures): one row, both values.
	merged := &Report{Modules: []Module{
		{Module: "hx_switch", Variants: 2, yosys: []string{"a", "b"}},
		{Module: "hx_switch", Variants: 1, yosys: []string{"c"}},
	}}
	merged.SetLabels(map[string][]ModuleParam{
		"a": {{"P", "4"}, {"XDIM", "1"}}, "b": {{"P", "4"}, {"XDIM", "0"}}, "c": {{"P", "10"}, {"XDIM", "0"}},
	})
	if l0, l1 := merged.Modules[0].Label, merged.Modules[1].Label; l0 != "hx_switch[P=4,XDIM=0|1]" || l1 != "hx_switch[P=10,XDIM=0]" {
		t.Errorf("labels %q, %q", l0, l1)
	}
}

// TestSourcesRefuseSpecialFiles: a source Yosys would block on (a FIFO),
// read without end (a device) or read whole (a sparse file over the input
// cap) is refused by name before Yosys starts; a regular source is listed.
func TestSourcesRefuseSpecialFiles(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, SourcesFile), []byte("a.v\n"), 0o644)
	src := filepath.Join(dir, "a.v")
	for _, c := range []struct {
		name string
		make func() error
		want string
	}{
		{"fifo", func() error { return syscall.Mkfifo(src, 0o644) }, "a named pipe"},
		{"device", func() error { return os.Symlink("/dev/zero", src) }, "a character device"},
		{"sparse", func() error { return os.Truncate(src, 8<<30) }, "8589934592 bytes"},
	} {
		os.Remove(src)
		if c.name == "sparse" {
			os.WriteFile(src, nil, 0o644)
		}
		if err := c.make(); err != nil {
			t.Fatal(err)
		}
		if _, err := Sources(dir); err == nil || !strings.Contains(err.Error(), "a.v") || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s source: %v, want a refusal naming a.v (%q)", c.name, err, c.want)
		}
	}
	os.Remove(src)
	os.WriteFile(src, []byte("module a; endmodule\n"), 0o644)
	if srcs, err := Sources(dir); err != nil || len(srcs) != 1 {
		t.Errorf("regular source: %v, %v", srcs, err)
	}
}

// TestRunModuleOneMemory synthesizes a FIFO alone: its one memory shape
// sits in one module, where Yosys's dump of the memory cells leaves out
// the module header unless asked (-m), and the run failed with "a memory
// cell outside a module".
func TestRunModuleOneMemory(t *testing.T) {
	if _, err := exec.LookPath(Yosys); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("yosys not found (CI is set)")
		}
		t.Skip("no yosys")
	}
	dir := t.TempDir()
	var src []string
	for _, f := range []string{"hx_fifo.v", "hx_mem_1r1w.v"} {
		b, err := os.ReadFile(filepath.Join("..", "rtl", f))
		if err != nil {
			t.Fatal(err)
		}
		src = append(src, filepath.Join(dir, f))
		if err := os.WriteFile(src[len(src)-1], b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	rep, err := RunModule(t.Context(), src, "hx_fifo", []Param{{"W", 10}, {"B", 4}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Total.MemoryBits != 40 {
		t.Errorf("memory bits %d, want 40 (4 entries of 10 bits)", rep.Total.MemoryBits)
	}
}
