package testbench

import (
	"bytes"
	"errors"
	"fmt"
	"math/bits"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hxbar/hxbar/hw"
	"github.com/hxbar/hxbar/verilog"
)

// Routing around dead channels in the RTL (docs/reliability.md, "Routing
// around a dead channel"): the switches' exception CAM, written through
// config.hex, must route every packet as noc.Avoid does, cycle for cycle.

// avoidKinds are the four kinds of network channel of a 2-D hyper-crossbar.
var avoidKinds = []string{"d0.up", "d0.down", "d1.up", "d1.down"}

// avoidWorkload is the system of workload w (0 barrier, 1 sum reduction,
// 2 all-gather) on dims, avoiding channel ch, with seed.
func avoidWorkload(t testing.TB, dims []int, w int, ch string, seed uint64) hw.System {
	t.Helper()
	n := dims[0] * dims[1]
	name := fmt.Sprintf("avoid-%dx%d-%s", dims[0], dims[1], ch)
	var s hw.System
	switch w {
	case 0:
		s = system(t, name+"-barrier", dims, n, "butterfly", "barrier", 1, 4, 64)
	case 1:
		s = system(t, name+"-sum-L2-B2-fw32", dims, n, "butterfly", "sum", 2, 2, 32)
	default:
		items := n
		if n > 16 {
			items = 8 // the Hitachi schedule: one-sided, then mutual steps
		}
		s = dataSystem(t, name+"-allgather-F2-B2", dims, n, "allgather", items, "", "butterfly", 2, 1, 2, 64)
	}
	s.Avoid = []string{ch}
	s.Seed, s.Skew = seed, []int{0, 3, 17}[seed%3]
	if err := s.Validate(); err != nil {
		t.Fatalf("%s: %v", s.Name, err)
	}
	return s
}

// avoidDesigns4x4 is a seeded sample of 12 single avoided channels of the
// 4x4 hyper-crossbar, three of each kind (distinct nodes), the workloads
// taken in turn: barrier, sum reduction, all-gather.
func avoidDesigns4x4(t testing.TB) []hw.System {
	rng := rand.New(rand.NewPCG(11, 0xa5))
	var out []hw.System
	for k, kind := range avoidKinds {
		for j, v := range rng.Perm(16)[:3] {
			i := 3*k + j
			out = append(out, avoidWorkload(t, []int{4, 4}, i%3, fmt.Sprintf("n%d.%s", v, kind), uint64(100+i)))
		}
	}
	return out
}

// avoidDesigns8x8 are the fullest cases of the 8x8 hyper-crossbar: a dead
// n.d0.up gives that exchanger (K0-1)*K1 = 56 exceptions, one per
// workload.
func avoidDesigns8x8(t testing.TB) []hw.System {
	return []hw.System{
		avoidWorkload(t, []int{8, 8}, 0, "n27.d0.up", 200),
		avoidWorkload(t, []int{8, 8}, 1, "n0.d0.up", 201),
		avoidWorkload(t, []int{8, 8}, 2, "n63.d0.up", 202),
	}
}

// TestCosimAvoid co-simulates under Icarus designs with one avoided
// channel: 12 of the 4x4 (every kind of channel, barrier, sum and
// all-gather) and the three fullest 8x8 cases (one with -short) (56 exceptions in one
// switch, E = 56 in every switch). Each must match the model cycle for
// cycle, and each model run must differ from the same system without the
// avoided channel (so the exceptions route traffic the workload sends: a
// switch whose CAM hit did not win, or whose address compare matched the
// wrong destinations, would take the table's route and be seen;
// TestCosimAvoidMutants shows it).
func TestCosimAvoid(t *testing.T) {
	needTools(t, Icarus)
	t.Parallel()
	big := avoidDesigns8x8(t)
	if testing.Short() || !fullMatrix() {
		big = big[:1] // make test: one 8x8 case (each takes minutes); make bench all
	}
	designs := append(avoidDesigns4x4(t), big...)
	kinds := map[string]int{}
	for _, sys := range designs {
		for _, k := range avoidKinds {
			if strings.HasSuffix(sys.Avoid[0], "."+k) {
				kinds[k]++
			}
		}
	}
	for _, k := range avoidKinds {
		if kinds[k] < 3 {
			t.Fatalf("the sample has %d avoided %s channels, want at least 3", kinds[k], k)
		}
	}
	var mu sync.Mutex
	runs, events := 0, 0
	start := time.Now()
	t.Cleanup(func() {
		t.Logf("%d co-simulations with avoided channels (%d events) in %v", runs, events, time.Since(start).Round(time.Millisecond))
	})
	for _, sys := range designs {
		t.Run(sys.Name, func(t *testing.T) {
			t.Parallel()
			dir := filepath.Join(t.TempDir(), "d")
			s, trace := generate(t, dir, sys)
			if s.Avoid == nil || s.Avoid.Entries == 0 {
				t.Fatalf("%s: no routing exceptions", sys.Avoid[0])
			}
			if sys.Dims[0] == 8 && s.Avoid.MaxEntries != 56 {
				t.Fatalf("%s: fullest switch has %d exceptions, want 56", sys.Avoid[0], s.Avoid.MaxEntries)
			}
			plain := sys
			plain.Avoid = nil
			_, base, _, err := RunModel(plain)
			if err != nil {
				t.Fatal(err)
			}
			if bytes.Equal(trace, base) {
				t.Fatalf("%s: the model's trace is the same without the avoided channel: the workload takes no rerouted path", sys.Avoid[0])
			}
			rep, err := Cosim(ctxFor(t, 5*time.Minute), dir, Icarus)
			var mm *MismatchError
			if errors.As(err, &mm) {
				t.Fatal(rep.String())
			}
			if err != nil {
				t.Fatal(err)
			}
			if !rep.OK() {
				t.Fatalf("report not OK without an error: %s", rep.String())
			}
			mu.Lock()
			runs++
			events += rep.Events
			mu.Unlock()
		})
	}
}

// TestCosimAvoidMutants breaks the CAM of the generated hx_switch.v and
// requires each mutant to fail the co-simulation of at least one of two
// 4x4 designs: a sum avoiding n5.d0.up (E = 12: exceptions in n5's
// exchanger and two crossbars) and a barrier avoiding n0.d1.up (E = 3;
// entry (0, 2) differs from node 0's own address only in the top bit).
// The mutants: a hit that does not win over the table; an address compare
// that ignores the top address bit, or bit 0; one that ignores the valid
// bit (the unused entries, address 0, then catch node 0's packets).
func TestCosimAvoidMutants(t *testing.T) {
	needTools(t, Icarus)
	t.Parallel()
	ctx := ctxFor(t, 5*time.Minute)
	var dirs []string
	for _, sys := range []hw.System{
		avoidWorkload(t, []int{4, 4}, 1, "n5.d0.up", 7),
		avoidWorkload(t, []int{4, 4}, 0, "n0.d1.up", 8),
	} {
		dir := filepath.Join(t.TempDir(), "d")
		generate(t, dir, sys)
		if rep, err := Cosim(ctx, dir, Icarus); err != nil || !rep.OK() {
			t.Fatalf("%s unmutated: %v", sys.Avoid[0], err)
		}
		dirs = append(dirs, dir)
	}
	for _, m := range []struct{ name, from, to string }{
		{"hit does not win", "assign route[P*i +: P] = xhit[i] ? xr : r;", "assign route[P*i +: P] = r;"},
		{"top address bit ignored", "if (cv[xk] && ca[AB*xk +: AB] == fa) begin", "if (cv[xk] && ca[AB*xk +: AB-1] == fa[AB-2:0]) begin"},
		{"address bit 0 ignored", "if (cv[xk] && ca[AB*xk +: AB] == fa) begin", "if (cv[xk] && ca[AB*xk+1 +: AB-1] == fa[AB-1:1]) begin"},
		{"valid bit ignored", "if (cv[xk] && ca[AB*xk +: AB] == fa) begin", "if (ca[AB*xk +: AB] == fa) begin"},
	} {
		killed := false
		for _, dir := range dirs {
			path := filepath.Join(dir, "hx_switch.v")
			restore := saveFile(t, path)
			src, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if bytes.Count(src, []byte(m.from)) != 1 {
				t.Fatalf("%s: %q not found once in hx_switch.v", m.name, m.from)
			}
			if err := os.WriteFile(path, bytes.Replace(src, []byte(m.from), []byte(m.to), 1), 0o644); err != nil {
				t.Fatal(err)
			}
			rep, err := Cosim(ctx, dir, Icarus)
			restore()
			var mm *MismatchError
			if errors.As(err, &mm) {
				t.Logf("mutant %q killed by %s: %s", m.name, rep.System.Avoid[0], rep.Summary())
				killed = true
				break
			}
			t.Logf("mutant %q survives %s: %v", m.name, rep.System.Avoid[0], err)
		}
		if !killed {
			t.Errorf("mutant %q not detected", m.name)
		}
	}
}

// addrNode decodes a packed address of a K0 x K1 x ... grid into a node
// id: coordinate k in max(1, ceil(log2 Kk)) bits, dimension 0 lowest
// (docs/rtl.md, "Widths"), written here without the generator's code.
func addrNode(dims []int, a uint32) (int, bool) {
	node, mul, shift := 0, 1, 0
	for _, d := range dims {
		b := max(1, bits.Len(uint(d-1)))
		c := int(a>>shift) & (1<<b - 1)
		if c >= d {
			return 0, false
		}
		node += c * mul
		mul *= d
		shift += b
	}
	return node, a>>shift == 0
}

// decodeExceptions reads the routing exceptions out of the writes of
// config.hex: on a node's port, address 0x8000_2000 + 8x (+4) is entry x
// of that node's exchanger; on the fabric port, s<<16 | 0x2000 + 8x (+4)
// of switch s (docs/registers.md, "Switch"). It returns per switch the
// destination node -> port of every valid entry.
func decodeExceptions(t *testing.T, dims []int, writes []cfgWrite) map[int]map[int32]uint8 {
	t.Helper()
	type entry struct {
		addr, ctrl uint32
		has        [2]bool
	}
	ents := map[[2]int]*entry{}
	for _, w := range writes {
		reg := w.Addr & 0xffff
		if reg < 0x2000 || reg >= 0x4000 {
			continue
		}
		sw := int(w.Addr >> 16)
		if w.Port != FabricPort {
			if w.Addr>>16 != 0x8000 {
				t.Fatalf("node %d's port writes %08x: an exception of no exchanger", w.Port, w.Addr)
			}
			sw = w.Port
		}
		if w.Episode != 1 {
			t.Errorf("exception write %08x in episode %d, want 1", w.Addr, w.Episode)
		}
		key := [2]int{sw, int(reg-0x2000) / 8}
		e := ents[key]
		if e == nil {
			e = &entry{}
			ents[key] = e
		}
		half := reg >> 2 & 1
		if half == 1 && !e.has[0] {
			t.Errorf("switch %d entry %d: control word written before the address word", key[0], key[1])
		}
		if e.has[half] {
			t.Errorf("switch %d entry %d: word %d written twice", key[0], key[1], half)
		}
		e.has[half] = true
		if half == 0 {
			e.addr = w.Data
		} else {
			e.ctrl = w.Data
		}
	}
	out := map[int]map[int32]uint8{}
	for key, e := range ents {
		if !e.has[0] || !e.has[1] || e.ctrl&^0x1ff != 0 || e.ctrl&0x100 == 0 {
			t.Errorf("switch %d entry %d: words %v, control %#x (want both words, valid, bits 31..9 zero)", key[0], key[1], e.has, e.ctrl)
			continue
		}
		node, ok := addrNode(dims, e.addr)
		if !ok {
			t.Errorf("switch %d entry %d: address %#x names no node of %v", key[0], key[1], e.addr, dims)
			continue
		}
		if out[key[0]] == nil {
			out[key[0]] = map[int32]uint8{}
		}
		if _, dup := out[key[0]][int32(node)]; dup {
			t.Errorf("switch %d: two entries for node %d", key[0], node)
		}
		out[key[0]][int32(node)] = uint8(e.ctrl)
	}
	return out
}

// TestAvoidConfigExceptions decodes the routing exceptions that config.hex
// writes (and the rx_s<switch>.hex tables) for avoided channels of every
// kind, on 4x4 and 8x8, and requires them to be exactly noc.Avoid's
// exceptions; hx_top.v sizes every switch's CAM with E = the fullest
// switch's count. A design without avoided channels writes no exception,
// no rx_s table and no E.
func TestAvoidConfigExceptions(t *testing.T) {
	t.Parallel()
	cases := []hw.System{
		avoidWorkload(t, []int{4, 4}, 0, "n0.d0.up", 1),
		avoidWorkload(t, []int{4, 4}, 2, "n6.d0.down", 2),
		avoidWorkload(t, []int{4, 4}, 1, "n9.d1.up", 3),
		avoidWorkload(t, []int{4, 4}, 0, "n15.d1.down", 4),
		avoidWorkload(t, []int{8, 8}, 0, "n27.d0.up", 5),
		avoidWorkload(t, []int{8, 8}, 0, "n3.d0.down", 6),
	}
	two := avoidWorkload(t, []int{4, 4}, 0, "n0.d0.up", 1)
	two.Avoid = []string{"n0.d0.up", "n10.d1.down"}
	cases = append(cases, two)
	for _, sys := range cases {
		t.Run(strings.Join(sys.Avoid, "+")+fmt.Sprintf("-%dx%d", sys.Dims[0], sys.Dims[1]), func(t *testing.T) {
			dir := t.TempDir()
			s, _ := generate(t, dir, sys)
			_, writes := readConfig(t, dir)
			got := decodeExceptions(t, sys.Dims, writes)
			want := s.Avoid.Except
			if len(want) != s.Topo.Switches {
				t.Fatalf("noc.Avoid has %d switches, the network %d", len(want), s.Topo.Switches)
			}
			total, most := 0, 0
			for sw, m := range want {
				total += len(m)
				most = max(most, len(m))
				if len(got[sw]) != len(m) {
					t.Errorf("switch %d: config.hex has %d exceptions, noc.Avoid %d", sw, len(got[sw]), len(m))
				}
				for d, p := range m {
					if gp, ok := got[sw][d]; !ok || gp != p {
						t.Errorf("switch %d, node %d: config.hex port %d (written %v), noc.Avoid port %d", sw, d, gp, ok, p)
					}
				}
				// The readable table: rx_s<sw>.hex holds the same entries.
				path := filepath.Join(dir, fmt.Sprintf("rx_s%d.hex", sw))
				magic, body, err := verilog.ReadTable(path)
				if len(m) == 0 {
					if !errors.Is(err, os.ErrNotExist) && !strings.Contains(fmt.Sprint(err), "no such file") {
						t.Errorf("switch %d without exceptions has %s (err %v)", sw, path, err)
					}
					continue
				}
				if err != nil || magic != "HXRX" || len(body) != len(m) {
					t.Fatalf("%s: magic %q, %d words, err %v", path, magic, len(body), err)
				}
				for x, w := range body {
					node, ok := addrNode(sys.Dims, uint32(w))
					if w>>41 != 0 || w>>40&1 != 1 || !ok || m[int32(node)] != uint8(w>>32) {
						t.Errorf("%s: entry %d = %016x, noc.Avoid has node %d -> port %d", path, x, w, node, m[int32(node)])
					}
				}
			}
			if total != s.Avoid.Entries || total == 0 {
				t.Errorf("%d exceptions, Entries = %d", total, s.Avoid.Entries)
			}
			top, err := os.ReadFile(filepath.Join(dir, verilog.TopFile))
			if err != nil {
				t.Fatal(err)
			}
			if want := fmt.Sprintf("localparam integer E    = %d;", most); !bytes.Contains(top, []byte(want)) {
				t.Errorf("hx_top.v lacks %q", want)
			}
			if n := bytes.Count(top, []byte(".E(E)")); n != s.Topo.Switches {
				t.Errorf("hx_top.v passes E to %d switches, want all %d", n, s.Topo.Switches)
			}
		})
	}
	t.Run("none", func(t *testing.T) {
		sys := avoidWorkload(t, []int{4, 4}, 0, "n0.d0.up", 1)
		sys.Avoid = nil
		dir := t.TempDir()
		generate(t, dir, sys)
		_, writes := readConfig(t, dir)
		for _, w := range writes {
			if r := w.Addr & 0xffff; r >= 0x2000 && r < 0x4000 {
				t.Errorf("write %08x without avoided channels", w.Addr)
			}
		}
		if m, _ := filepath.Glob(filepath.Join(dir, "rx_s*.hex")); len(m) > 0 {
			t.Errorf("exception tables without avoided channels: %v", m)
		}
		top, err := os.ReadFile(filepath.Join(dir, verilog.TopFile))
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(top, []byte(".E(")) || bytes.Contains(top, []byte("integer E ")) {
			t.Error("hx_top.v sizes a CAM without avoided channels")
		}
	})
}

// TestAvoidTableEdited: an rx_s table edited by hand is refused by Cosim
// before any simulation, like every table file (the RTL reads config.hex).
func TestAvoidTableEdited(t *testing.T) {
	t.Parallel()
	sys := avoidWorkload(t, []int{4, 4}, 0, "n0.d1.up", 1)
	dir := t.TempDir()
	generate(t, dir, sys)
	path := filepath.Join(dir, "rx_s0.hex")
	if err := verilog.RewriteTable(path, func(b []uint64) { b[0] ^= 1 << 32 }); err != nil {
		t.Fatal(err)
	}
	_, err := Cosim(ctxFor(t, time.Minute), dir, Icarus)
	var de *DirError
	if !errors.As(err, &de) || de.File != "rx_s0.hex" || !strings.Contains(err.Error(), "the routing exceptions of switch 0") ||
		!strings.Contains(err.Error(), ConfigFile) {
		t.Fatalf("edited rx_s0.hex: %v", err)
	}
}

// TestDamagedManifestChecked: a manifest that cannot be read does not turn
// the design and table checks off: Cosim refuses the directory naming the
// manifest, before any simulation (a directory without one is the only
// case left unchecked).
func TestDamagedManifestChecked(t *testing.T) {
	t.Parallel()
	sys := avoidWorkload(t, []int{4, 4}, 0, "n0.d1.up", 1)
	dir := t.TempDir()
	generate(t, dir, sys)
	if err := os.WriteFile(filepath.Join(dir, "rx_s0.hex"), []byte("00\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "hxbar-manifest.json"), []byte("{not json"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Cosim(ctxFor(t, time.Minute), dir, Icarus)
	var de *DirError
	if !errors.As(err, &de) || de.File != "hxbar-manifest.json" || !strings.Contains(err.Error(), "cannot be read") {
		t.Fatalf("damaged manifest with an edited table: %v", err)
	}
}
