package testbench

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hxbar/hxbar/noc"
	"github.com/hxbar/hxbar/sim"
	"github.com/hxbar/hxbar/verilog"
)

// usedRouteEntries lists the routing-table entries the scenario's packets
// consult, as (switch, entry) pairs in switch order: along the path of every
// route between two nodes, each exchanger reads the entries of dimensions
// 0, 1, ... up to the first one that is not PASS, each crossbar the entry of
// the destination's coordinate.
func usedRouteEntries(s *sim.System) [][2]int {
	t := s.Topo
	tab := s.Table
	seen := map[[2]int]bool{}
	st := tab.Stride()
	for r := 0; r < tab.Ranks; r++ {
		for g := 1; g <= tab.Gates; g++ {
			for i := tab.OutStart[r*st+g]; i < tab.OutEnd[r*st+g]; i++ {
				src, dst := int(s.Units.NodeOf[r]), int(s.Units.NodeOf[tab.OutDst[i]])
				sw := src
				for hops := 0; sw >= 0 && hops < 4*len(t.Dims)+2; hops++ {
					rt := t.Table(sw)
					p := 0
					if t.IsCrossbar(sw) {
						e := t.Coord(dst, t.XbarDim(sw))
						seen[[2]int{sw, e}] = true
						p = int(rt[e])
					} else {
						for k := range t.Dims {
							e := t.Off[k] + t.Coord(dst, k)
							seen[[2]int{sw, e}] = true
							if rt[e] != noc.Pass {
								p = int(rt[e])
								break
							}
						}
						if p == 0 {
							break // ejected at dst
						}
					}
					sw, _ = t.Neighbor(sw, p)
				}
			}
		}
	}
	out := make([][2]int, 0, len(seen))
	for k := range seen {
		out = append(out, k)
	}
	slices.SortFunc(out, func(a, b [2]int) int {
		if a[0] != b[0] {
			return a[0] - b[0]
		}
		return a[1] - b[1]
	})
	return out
}

// sample picks n items spread over list (all of them when fewer).
func sample[T any](list []T, n int) []T {
	if len(list) <= n {
		return list
	}
	out := make([]T, 0, n)
	for i := 0; i < n; i++ {
		out = append(out, list[i*len(list)/n])
	}
	return out
}

// mutation is one semantic change of a table, written with a matching
// checksum, so that the RTL loads it without complaint.
type mutation struct {
	what string
	file string
	edit func(body []uint64)
}

// routeMutations flips used routing-table entries to another legal value: an
// exchanger entry between PASS and its dimension's port, a crossbar entry to
// the next port.
func routeMutations(s *sim.System, n int) []mutation {
	t := s.Topo
	var ex, xb [][2]int
	for _, u := range usedRouteEntries(s) {
		if t.IsCrossbar(u[0]) {
			xb = append(xb, u)
		} else {
			ex = append(ex, u)
		}
	}
	var out []mutation
	for _, u := range append(sample(ex, n-n/3), sample(xb, n/3)...) {
		sw, e := u[0], u[1]
		old := t.Table(sw)[e]
		var nv uint8
		switch {
		case t.IsCrossbar(sw):
			nv = uint8((int(old) + 1) % t.Ports(sw))
		case old == noc.Pass:
			k := 0
			for k+1 < len(t.Dims) && e >= t.Off[k+1] {
				k++
			}
			nv = uint8(k + 1)
		default:
			nv = noc.Pass
		}
		out = append(out, mutation{
			what: fmt.Sprintf("switch %d entry %d: %#x -> %#x", sw, e, old, nv),
			file: verilog.RouteTableFile(sw),
			edit: func(body []uint64) { body[e] = uint64(nv) },
		})
	}
	return out
}

// gateMutations changes gate-table fields of ranked nodes, each to a value
// the RTL's load checks accept: need +1 / -1, the self bit, a route's
// destination rank or node address, a gate's route count -1.
func gateMutations(s *sim.System) []mutation {
	t := s.Topo
	G := s.Table.Gates
	var out []mutation
	add := func(node int, what string, edit func(body []uint64) bool) {
		// Only keep a mutation that applies to this node's table.
		body, err := verilog.GateTableBody(s.Design, node)
		if err != nil || !edit(slices.Clone(body)) {
			return
		}
		out = append(out, mutation{what: fmt.Sprintf("node %d %s", node, what), file: verilog.GateTableFile(node),
			edit: func(b []uint64) { edit(b) }})
	}
	const selfBit, needPos, countPos = 40, 32, 16
	R := s.Table.Ranks
	for i, r := range []int{0, R / 2, R - 1} {
		node := int(s.Units.NodeOf[r])
		g := 2 + i%G
		add(node, fmt.Sprintf("gate %d need+1", g), func(b []uint64) bool {
			if b[g]>>needPos&0xff == 0xff {
				return false
			}
			b[g] += 1 << needPos
			return true
		})
		add(node, fmt.Sprintf("gate %d need-1", G+1), func(b []uint64) bool {
			if b[G+1]>>needPos&0xff == 0 {
				return false
			}
			b[G+1] -= 1 << needPos
			return true
		})
		add(node, fmt.Sprintf("gate %d self flipped", G+1), func(b []uint64) bool {
			b[G+1] ^= 1 << selfBit
			return true
		})
		add(node, "route 0 to another rank", func(b []uint64) bool {
			if len(b) <= G+2 {
				return false
			}
			rank := b[G+2] >> 32
			b[G+2] = (rank+1)%uint64(R)<<32 | b[G+2]&0xffffffff
			return true
		})
		add(node, "route 0 to another node's address", func(b []uint64) bool {
			if len(b) <= G+2 {
				return false
			}
			rank := b[G+2] >> 32
			other := t.Addr(int(s.Units.NodeOf[(rank+1)%uint64(R)]))
			b[G+2] = rank<<32 | other
			return true
		})
		add(node, "gate 1 route count-1", func(b []uint64) bool {
			if b[1]>>countPos&0xffff == 0 {
				return false
			}
			b[1] -= 1 << countPos
			return true
		})
	}
	return out
}

// TestMutationsDetected damages one table entry at a time (an entry the
// scenario uses) where the RTL reads it: in the configuration writes of
// config.hex that carry it, with a correct checksum so that the
// testbench's file checks pass; Cosim must report that the RTL differs from
// the model. A flip without the checksum update must be caught by tb.v's
// check of config.hex at time 0, by name.
func TestMutationsDetected(t *testing.T) {
	needTools(t, Icarus)
	t.Parallel()
	sys := system(t, "mutants", []int{2, 4}, 0, "butterfly", "sum", 1, 2, 32)
	sys.Seed, sys.Skew = 21, 12
	dir := t.TempDir()
	s, _ := generate(t, dir, sys)
	ctx := ctxFor(t, 10*time.Minute)
	if rep, err := Cosim(ctx, dir, Icarus); err != nil {
		t.Fatalf("pristine: %v", err)
	} else if !rep.OK() {
		t.Fatalf("pristine: %s", rep)
	}

	muts := append(routeMutations(s, 9), gateMutations(s)...)
	if len(muts) < 20 {
		t.Fatalf("only %d mutations", len(muts))
	}
	kinds := map[string]int{}
	for _, m := range muts {
		rep, ok := runMutation(t, ctx, dir, m)
		if !ok {
			continue
		}
		p := rep.Problem()
		if strings.Contains(p, "checksum") || strings.Contains(p, "magic") {
			t.Errorf("%s: caught by a header check, not by the comparison: %s", m.what, p)
		}
		kind := "trace difference"
		switch {
		case len(rep.Run.Verdicts) == 0:
			kind = "RTL assertion"
		case rep.Diff == nil:
			kind = "testbench FAIL only"
		}
		kinds[kind]++
		t.Logf("%-45s -> %s: %s", m.what, kind, firstLine(p))
	}
	t.Logf("%d mutations detected: %v", len(muts), kinds)
	if kinds["trace difference"] < len(muts)/2 {
		t.Errorf("most mutations should show as a trace difference: %v", kinds)
	}

	// Flips without the checksum (a node's write, a fabric write): tb.v's
	// check of config.hex stops the run at time 0 with a FAIL line naming
	// the file; Cosim reports it.
	_, writes := readConfig(t, dir)
	for _, w := range []int{slices.IndexFunc(writes, func(w cfgWrite) bool { return w.Port == 3 }), len(writes) - 1} {
		restore := saveFile(t, filepath.Join(dir, ConfigFile))
		flipConfigWord(t, dir, w)
		rep, err := Cosim(ctx, dir, Icarus)
		restore()
		var mm *MismatchError
		if !errors.As(err, &mm) {
			t.Fatalf("write %d flipped without checksum: err %v", w, err)
		}
		if p := rep.Problem(); !strings.Contains(p, "FAIL "+ConfigFile+": checksum") {
			t.Errorf("write %d flipped without checksum: %s", w, p)
		}
		if rep.Run.ExitCode == 0 || len(rep.Run.Trace) != 0 {
			t.Errorf("write %d flipped without checksum: exit %d, %d trace lines", w, rep.Run.ExitCode, len(rep.Run.Trace))
		}
		if !strings.Contains(err.Error(), ConfigFile) {
			t.Errorf("error does not name %s: %v", ConfigFile, err)
		}
	}
	if rep, err := Cosim(ctx, dir, Icarus); err != nil || !rep.OK() {
		t.Fatalf("restored: %v", err)
	}
}

// readConfig reads config.hex in dir: its episodes and its writes.
func readConfig(t *testing.T, dir string) (episodes int, writes []cfgWrite) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, ConfigFile))
	if err != nil {
		t.Fatal(err)
	}
	var words []word
	for _, line := range strings.Split(string(data), "\n") {
		if k := strings.Index(line, "//"); k >= 0 {
			line = line[:k]
		}
		for _, f := range strings.Fields(line) {
			hi, err1 := strconv.ParseUint(f[:16], 16, 64)
			lo, err2 := strconv.ParseUint(f[16:], 16, 64)
			if len(f) != 32 || err1 != nil || err2 != nil {
				t.Fatalf("%s: word %q", ConfigFile, f)
			}
			words = append(words, word{hi, lo})
		}
	}
	if len(words) < 3 || words[0][0]>>32 != magic32(MagicConfig) || int(words[0][1]&0xffffffff) != len(words)-3 {
		t.Fatalf("%s: %d words, header %x", ConfigFile, len(words), words[0])
	}
	for _, w := range words[2 : len(words)-1] {
		writes = append(writes, cfgWrite{Episode: int(w[0] >> 48), Port: int(w[0] >> 32 & 0xffff), Addr: uint32(w[1] >> 32), Data: uint32(w[1])})
	}
	return int(words[0][1] >> 32), writes
}

// writeConfig writes config.hex in dir (checksum computed).
func writeConfig(t *testing.T, dir string, episodes int, writes []cfgWrite) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, ConfigFile), configFile("mutated", episodes, writes), 0o644); err != nil {
		t.Fatal(err)
	}
}

// configMutation turns m, an edit of a table body as the table file in dir
// holds it, into an edit of config.hex: every table word the edit changes
// is rewritten in the writes that carry it (docs/registers.md: a gate or
// route word as two 32-bit halves, a data-route or expected-message word
// likewise, an item-list word as its upper half, a routing-table entry as
// one fabric write). The RTL reads config.hex only; the tables stay as
// they are.
func configMutation(t *testing.T, dir string, m mutation, writes []cfgWrite) []cfgWrite {
	t.Helper()
	_, body, err := verilog.ReadTable(filepath.Join(dir, m.file))
	if err != nil {
		t.Fatal(err)
	}
	mut := slices.Clone(body)
	m.edit(mut)
	out := slices.Clone(writes)
	set := func(port int, addr, data uint32) {
		for i, w := range out {
			if w.Episode == 1 && w.Port == port && w.Addr == addr {
				out[i].Data = data
				return
			}
		}
		t.Fatalf("%s: no write of port %#x at %#08x in %s", m.what, port, addr, ConfigFile)
	}
	word64 := func(port int, addr uint32, v uint64) {
		set(port, addr, uint32(v))
		set(port, addr+4, uint32(v>>32))
	}
	var node, sw int
	switch {
	case strings.HasPrefix(m.file, "rt_s"):
		fmt.Sscanf(m.file, "rt_s%d.hex", &sw)
		for e := range body {
			if mut[e] != body[e] {
				// An exchanger (switch = node) is loaded through its
				// node's port (paddr[31] = 1), a crossbar through the
				// fabric port.
				if n := nodesOf(out); sw < n {
					set(sw, 0x8000_0000|0x1000+4*uint32(e), uint32(mut[e]))
				} else {
					set(FabricPort, uint32(sw)<<16|0x1000+4*uint32(e), uint32(mut[e]))
				}
			}
		}
		return out
	case strings.HasPrefix(m.file, "gt_n"):
		fmt.Sscanf(m.file, "gt_n%d.hex", &node)
		G := int(body[0] >> 32 & 63)
		for i := 1; i < len(body); i++ {
			switch {
			case mut[i] == body[i]:
			case i <= G+1:
				word64(node, 0x1000_0000+8*uint32(i), mut[i])
			default:
				word64(node, 0x2000_0000+8*uint32(i-G-2), mut[i])
			}
		}
	case strings.HasPrefix(m.file, "dt_n"):
		fmt.Sscanf(m.file, "dt_n%d.hex", &node)
		_, gate, err := verilog.ReadTable(filepath.Join(dir, verilog.GateTableFile(node)))
		if err != nil {
			t.Fatal(err)
		}
		G := int(gate[0] >> 32 & 63)
		nr := len(gate) - G - 2
		for i := 1; i < len(body); i++ {
			switch {
			case mut[i] == body[i]:
			case i <= nr:
				word64(node, 0x3000_0000+8*uint32(i-1), mut[i])
			case i <= nr+G:
				word64(node, 0x4000_0000+8*uint32(i-1-nr+2), mut[i])
			default:
				if uint32(mut[i]) != uint32(body[i]) {
					t.Fatalf("%s: item-list word %d: the low half is not written", m.what, i)
				}
				set(node, 0x5000_0000+4*uint32(i-1-nr-G), uint32(mut[i]>>32))
			}
		}
	default:
		t.Fatalf("%s: table %s", m.what, m.file)
	}
	if mut[0] != body[0] {
		t.Fatalf("%s: edits the header word", m.what)
	}
	return out
}

// runMutation applies m to the writes of config.hex in dir that carry the
// table words it changes (checksum recomputed), runs the co-simulation,
// restores config.hex, and returns the report of the mismatch it must
// cause; ok is false (and the test marked failed) when it is not detected.
func runMutation(t *testing.T, ctx context.Context, dir string, m mutation) (rep *Report, ok bool) {
	return runMutationWith(t, ctx, dir, Icarus, m)
}

func runMutationWith(t *testing.T, ctx context.Context, dir, simulator string, m mutation) (rep *Report, ok bool) {
	t.Helper()
	restore := saveFile(t, filepath.Join(dir, ConfigFile))
	defer restore()
	ep, writes := readConfig(t, dir)
	mutated := configMutation(t, dir, m, writes)
	if slices.Equal(mutated, writes) {
		t.Fatalf("%s: changes no write", m.what)
	}
	writeConfig(t, dir, ep, mutated)
	rep, err := Cosim(ctx, dir, simulator)
	var mm *MismatchError
	if !errors.As(err, &mm) {
		t.Errorf("%s: not detected under %s (err %v)", m.what, simulator, err)
		return nil, false
	}
	return rep, true
}

// flipConfigWord flips bit 0 of write w's data in config.hex in dir without
// recomputing the checksum.
func flipConfigWord(t *testing.T, dir string, w int) {
	t.Helper()
	path := filepath.Join(dir, ConfigFile)
	data, _ := os.ReadFile(path)
	lines := strings.SplitAfter(string(data), "\n")
	k := -1
	for i, l := range lines {
		if l != "" && !strings.HasPrefix(l, "//") {
			if k++; k == w+2 {
				v, _ := strconv.ParseUint(l[31:32], 16, 8)
				b := []byte(l)
				b[31] = strconv.FormatUint(v^1, 16)[0]
				lines[i] = string(b)
				break
			}
		}
	}
	if err := os.WriteFile(path, []byte(strings.Join(lines, "")), 0o644); err != nil {
		t.Fatal(err)
	}
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// nodesOf is the number of node ports the writes use (the highest node
// port + 1): the exchangers are switches 0..nodes-1.
func nodesOf(writes []cfgWrite) int {
	n := 0
	for _, w := range writes {
		if w.Port != FabricPort {
			n = max(n, w.Port+1)
		}
	}
	return n
}
