package testbench

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hxbar/hxbar/hw"
	"github.com/hxbar/hxbar/sim"
	"github.com/hxbar/hxbar/verilog"
)

// dataSystem is a data collective (docs/transfers.md) on a hyper-crossbar:
// collective "allgather" or "broadcast", items (0: the default), order,
// item_flits, algo, link latency, buffer depth and flit width.
func dataSystem(t testing.TB, name string, dims []int, ranks int, coll hw.Collective, items int, order string, algo hw.Algorithm, flits, lat, buf, fw int) hw.System {
	t.Helper()
	s := hw.Default()
	s.Name, s.Dims, s.Ranks, s.Algo, s.Op = name, dims, ranks, algo, "barrier"
	s.Collective, s.Items, s.Order, s.ItemFlits = coll, items, order, flits
	s.LinkLatency, s.BufferDepth, s.FlitWidth = lat, buf, fw
	s.Placement, s.ItemPlace = nil, nil
	if err := s.Validate(); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return s
}

// dataDesigns are the data schedules of the co-simulation matrix: 4, 8, 12
// and 16 ranks on 1-D to 3-D systems; all-gather with items = ranks
// (recursive doubling near-last and near-first), with fewer items in several
// step orders (the Hitachi schedule), the general all-gather (12 ranks, 3
// items) and the binomial broadcast; item_flits 1, 2, 5 and 16; flit widths
// 16, 32, 64 and 128; link latency 1..3; buffer depth 1..4.
func dataDesigns(t testing.TB) []hw.System {
	d := []hw.System{
		dataSystem(t, "d01-line4-ag-bfly-F1", []int{4}, 4, "allgather", 4, "", "butterfly", 1, 1, 2, 64),
		dataSystem(t, "d02-line8-ag-nearfirst-F2-L2-B1-fw16", []int{8}, 8, "allgather", 8, "", "butterfly-near-first", 2, 2, 1, 16),
		dataSystem(t, "d03-4x4-ag-bfly-F5-B4-fw32", []int{4, 4}, 16, "allgather", 16, "", "butterfly", 5, 1, 4, 32),
		dataSystem(t, "d04-4x4-ag4-OOMM-F2-L3-fw128", []int{4, 4}, 16, "allgather", 4, "OOMM", "butterfly", 2, 3, 2, 128),
		dataSystem(t, "d05-4x4-ag4-MMOO-F1-B3-fw16", []int{4, 4}, 16, "allgather", 4, "MMOO", "butterfly", 1, 1, 3, 16),
		dataSystem(t, "d06-4x4-ag4-OMOM-F5-L2-B1", []int{4, 4}, 16, "allgather", 4, "OMOM", "butterfly", 5, 2, 1, 64),
		dataSystem(t, "d07-2x2x2-ag2-OOM-F16-fw32", []int{2, 2, 2}, 8, "allgather", 2, "OOM", "butterfly", 16, 1, 2, 32),
		dataSystem(t, "d08-2x2x2-ag2-MOO-F2-L3-B4", []int{2, 2, 2}, 8, "allgather", 2, "MOO", "butterfly", 2, 3, 4, 64),
		dataSystem(t, "d09-2x4-bcast-F16-L2-fw16", []int{2, 4}, 8, "broadcast", 0, "", "butterfly", 16, 2, 2, 16),
		dataSystem(t, "d10-4x4-r12-ag3-general-F2-B1-fw32", []int{4, 4}, 12, "allgather", 3, "", "butterfly", 2, 1, 1, 32),
		dataSystem(t, "d11-2x4-ag-nearfirst-F1-L3-B1-fw128", []int{2, 4}, 8, "allgather", 8, "", "butterfly-near-first", 1, 3, 1, 128),
	}
	// A broadcast from rank 5, ranks placed off the identity.
	b := dataSystem(t, "d12-line8-bcast-root5-placed-F5-L2-B3", []int{8}, 8, "broadcast", 0, "", "butterfly", 5, 2, 3, 64)
	b.ItemPlace = []int{5}
	b.Placement = []int{3, 1, 7, 5, 0, 2, 6, 4}
	if err := b.Validate(); err != nil {
		t.Fatal(err)
	}
	return append(d, b)
}

// dataSkews are the arrival skews the seeds of a data design cycle through.
var dataSkews = []int{0, 9, 40}

// TestCosimData co-simulates every data design under Icarus for three seeds
// (arrival skews 0, 9 and 40) and requires every run to match the model
// cycle for cycle: the same events, and every recv event's checksum of the
// message's payload. The RTL checks every payload flit against the data
// table on the way (a wrong flit stops the simulation). One build per
// design; designs run in parallel.
func TestCosimData(t *testing.T) {
	needTools(t, Icarus)
	t.Parallel()
	seeds := len(dataSkews)
	if testing.Short() {
		seeds = 1
	}
	designs := dataDesigns(t)
	checkDataCoverage(t, designs)
	runMatrix(t, "data matrix", designs, seeds, dataSkews, func(i, k int) uint64 { return uint64(7000 + 100*i + k) },
		func(t *testing.T, s *sim.System, rep *Report) {
			if s.Data == nil || s.DataTable == nil {
				t.Fatalf("%s: not a data system", s.Sys.Name)
			}
			if n := strings.Count(strings.Join(rep.Model, "\n"), " recv "); n == 0 {
				t.Fatalf("seed %d: no recv event in the trace", s.Sys.Seed)
			}
		})
}

// checkDataCoverage requires what the data matrix promises.
func checkDataCoverage(t *testing.T, designs []hw.System) {
	ranks, flits, fws, lats, bufs := map[int]bool{}, map[int]bool{}, map[int]bool{}, map[int]bool{}, map[int]bool{}
	kinds := map[string]bool{}
	for _, s := range designs {
		ranks[s.NumRanks()] = true
		flits[s.ItemFlits], fws[s.FlitWidth] = true, true
		lats[s.LinkLatency], bufs[s.BufferDepth] = true, true
		switch {
		case s.Collective == "broadcast":
			kinds["broadcast"] = true
		case s.NumItems() == s.NumRanks():
			kinds["allgather "+string(s.Algo)] = true
		case s.Order != "":
			kinds["order "+s.Order] = true
		default:
			kinds["general"] = true
		}
	}
	var missing []string
	need := func(m map[int]bool, what string, vals ...int) {
		for _, v := range vals {
			if !m[v] {
				missing = append(missing, fmt.Sprintf("%s %d", what, v))
			}
		}
	}
	need(ranks, "ranks", 4, 8, 12, 16)
	need(flits, "item_flits", 1, 2, 5, 16)
	need(fws, "flit width", 16, 32, 64, 128)
	need(lats, "link latency", 1, 2, 3)
	need(bufs, "buffer depth", 1, 2, 3, 4)
	for _, k := range []string{"broadcast", "general", "allgather butterfly", "allgather butterfly-near-first",
		"order OOMM", "order MMOO", "order OMOM", "order OOM", "order MOO"} {
		if !kinds[k] {
			missing = append(missing, k)
		}
	}
	if len(missing) > 0 {
		t.Fatalf("the data matrix lacks: %v", missing)
	}
}

// dataMutation changes a data table field of one node, with the checksum
// recomputed so that the RTL's load checks pass: the payload checks (or the
// trace) must catch it.
func dataMutations(t *testing.T, s *sim.System) []mutation {
	var out []mutation
	for _, r := range []int{0, s.Table.Ranks / 2, s.Table.Ranks - 1} {
		node := int(s.Units.NodeOf[r])
		body, err := verilog.DataTableBody(s.Design, node)
		if err != nil {
			t.Fatal(err)
		}
		gt, err := verilog.GateTableBody(s.Design, node)
		if err != nil {
			t.Fatal(err)
		}
		g, err := verilog.DecodeGateTable(gt)
		if err != nil {
			t.Fatal(err)
		}
		dt, err := verilog.DecodeDataTable(body, g)
		if err != nil {
			t.Fatal(err)
		}
		NR, L := len(dt.Routes), len(dt.Items)
		il := len(body) - L // body index of item-list word 0
		file := verilog.DataTableFile(node)
		add := func(what string, edit func(b []uint64)) {
			out = append(out, mutation{what: fmt.Sprintf("node %d rank %d %s", node, r, what), file: file, edit: edit})
		}
		// An item-list word of a route (what the sender sends) and of a gate
		// (what the receiver expects): another item id, another origin.
		if NR > 0 {
			n := dt.Routes[0].First
			add(fmt.Sprintf("route 0 item-list word %d: item id +1", n), func(b []uint64) { b[il+n] ^= 1 << 32 })
		}
		for gate := 2; gate < len(dt.Gates); gate++ {
			if dt.Gates[gate].Count > 0 {
				n := dt.Gates[gate].First + dt.Gates[gate].Count - 1
				add(fmt.Sprintf("gate %d item-list word %d: origin ^1", gate, n), func(b []uint64) { b[il+n] ^= 1 << 48 })
				break
			}
		}
	}
	return out
}

// TestDataMutationsDetected damages data tables where the RTL reads them
// (the item-list writes of config.hex): an item-list word changed with the
// checksum recomputed must make the RTL stop on its payload check (or the
// trace differ), and an edit without the checksum must be caught by tb.v's
// check of config.hex at time 0, by name.
func TestDataMutationsDetected(t *testing.T) {
	needTools(t, Icarus)
	t.Parallel()
	sys := dataSystem(t, "data-mutants", []int{2, 4}, 8, "allgather", 2, "OMO", "butterfly", 3, 1, 2, 32)
	sys.Seed, sys.Skew = 31, 10
	dir := t.TempDir()
	s, _ := generate(t, dir, sys)
	ctx := ctxFor(t, 10*time.Minute)
	if rep, err := Cosim(ctx, dir, Icarus); err != nil || !rep.OK() {
		t.Fatalf("pristine: %v", err)
	}
	muts := dataMutations(t, s)
	if len(muts) < 4 {
		t.Fatalf("only %d data mutations", len(muts))
	}
	payload := 0
	for _, m := range muts {
		rep, ok := runMutation(t, ctx, dir, m)
		if !ok {
			continue
		}
		p := rep.Problem()
		if strings.Contains(p, "checksum") && strings.Contains(p, ".hex") {
			t.Errorf("%s: caught by a table header check: %s", m.what, p)
		}
		if strings.Contains(p, " is ") && strings.Contains(p, "expected") && strings.Contains(p, "flit") {
			payload++
		}
		t.Logf("%-50s -> %s", m.what, firstLine(p))
	}
	if payload == 0 {
		t.Errorf("no mutation was caught by the RTL's payload check")
	}

	// Without the checksum: tb.v's check of config.hex names the file.
	_, writes := readConfig(t, dir)
	node := int(s.Units.NodeOf[3])
	w := slices.IndexFunc(writes, func(w cfgWrite) bool { return w.Port == node && w.Addr >= 0x5000_0000 })
	if w < 0 {
		t.Fatalf("no item-list write of node %d", node)
	}
	restore := saveFile(t, filepath.Join(dir, ConfigFile))
	flipConfigWord(t, dir, w)
	rep, err := Cosim(ctx, dir, Icarus)
	restore()
	var mm *MismatchError
	if !errors.As(err, &mm) {
		t.Fatalf("%s without checksum: err %v", ConfigFile, err)
	}
	if p := rep.Problem(); !strings.Contains(p, "FAIL "+ConfigFile+": checksum") || rep.Run.ExitCode == 0 || len(rep.Run.Trace) != 0 {
		t.Errorf("%s without checksum: exit %d, %d trace lines: %s", ConfigFile, rep.Run.ExitCode, len(rep.Run.Trace), p)
	}
	if rep, err := Cosim(ctx, dir, Icarus); err != nil || !rep.OK() {
		t.Fatalf("restored: %v", err)
	}
}

// TestCosimDataVerilator co-simulates one data design under Verilator 5
// (two seeds, one build).
func TestCosimDataVerilator(t *testing.T) {
	needTools(t, Verilator)
	if !fullMatrix() {
		t.Skip("make bench runs it (HXBAR_FULL_MATRIX): a 3-minute Verilator build; make test builds Verilator in TestCosimVerilator")
	}
	t.Parallel()
	sys := dataSystem(t, "vd-2x4-ag4-OMM-F5-L2-B1-fw16", []int{2, 4}, 8, "allgather", 4, "OMM", "butterfly", 5, 2, 1, 16)
	dir := filepath.Join(t.TempDir(), sys.Name)
	for k := 0; k < 2; k++ {
		sys.Seed, sys.Skew = uint64(900+k), dataSkews[k]
		generate(t, dir, sys)
		rep, err := Cosim(ctxFor(t, 10*time.Minute), dir, Verilator)
		if err != nil {
			t.Fatalf("seed %d: %v\n%v", sys.Seed, err, rep)
		}
		if !rep.OK() || rep.Run.Compiled != (k == 0) || rep.Run.Simulator != Verilator {
			t.Fatalf("seed %d: ok %v compiled %v", sys.Seed, rep.OK(), rep.Run.Compiled)
		}
		if k == 0 && strings.Contains(rep.Run.CompileOutput, "%Warning") {
			t.Errorf("Verilator warnings:\n%s", compileMessages(Verilator, rep.Run.CompileOutput))
		}
	}
	// config.hex a word too long or too short, or out of order: refused
	// by tb.v under Verilator too (2-state memories: a missing word would
	// read 0, so the words are counted).
	ctx := ctxFor(t, 10*time.Minute)
	for _, c := range configCases(8) {
		if strings.Contains(c.what, "after the end marker") || strings.Contains(c.what, "truncated") || strings.Contains(c.what, "swapped") {
			checkConfigRefused(t, ctx, dir, Verilator, c)
		}
	}
}

// A data directory's system.yaml rebuilds the same data system: the same
// data tables, byte for byte.
func TestDataDirRebuilds(t *testing.T) {
	sys := dataSystem(t, "rebuild", []int{4, 4}, 12, "allgather", 3, "", "butterfly", 2, 1, 2, 64)
	dir := t.TempDir()
	s, _ := generate(t, dir, sys)
	loaded, err := hw.Load(filepath.Join(dir, systemFile))
	if err != nil {
		t.Fatal(err)
	}
	s2, err := sim.Build(loaded, nil)
	if err != nil {
		t.Fatal(err)
	}
	for n := 0; n < s.Topo.Nodes; n++ {
		a, err1 := verilog.DataTableBody(s.Design, n)
		b, err2 := verilog.DataTableBody(s2.Design, n)
		if err1 != nil || err2 != nil || !slices.Equal(a, b) {
			t.Fatalf("node %d: data table %x (%v), from system.yaml %x (%v)", n, a, err1, b, err2)
		}
	}
}
