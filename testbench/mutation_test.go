package testbench

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
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
		body, err := verilog.GateTableBody(s, node)
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
// scenario uses, written with a correct checksum so that the RTL's header
// checks pass) and requires Cosim to report that the RTL differs from the
// model. A flip without the checksum update must be caught by the RTL's
// header check at time 0, by name.
func TestMutationsDetected(t *testing.T) {
	needTools(t, Icarus)
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

	// Flips without the checksum: the RTL's header check stops the run at
	// time 0 and names the file; Cosim reports the simulator's message.
	for _, file := range []string{verilog.RouteTableFile(s.Topo.Switches - 1), verilog.GateTableFile(3)} {
		path := filepath.Join(dir, file)
		restore := saveFile(t, path)
		if err := verilog.RewriteTableWords(path, func(w []uint64) { w[len(w)-1] ^= 1 }); err != nil {
			t.Fatal(err)
		}
		rep, err := Cosim(ctx, dir, Icarus)
		restore()
		var mm *MismatchError
		if !errors.As(err, &mm) {
			t.Fatalf("%s without checksum: err %v", file, err)
		}
		if p := rep.Problem(); !strings.Contains(p, file+": checksum") || !strings.Contains(p, "without PASS or FAIL") {
			t.Errorf("%s without checksum: %s", file, p)
		}
		if rep.Run.ExitCode == 0 || len(rep.Run.Trace) != 0 {
			t.Errorf("%s without checksum: exit %d, %d trace lines", file, rep.Run.ExitCode, len(rep.Run.Trace))
		}
		if !strings.Contains(err.Error(), file) {
			t.Errorf("error does not name %s: %v", file, err)
		}
	}
	if rep, err := Cosim(ctx, dir, Icarus); err != nil || !rep.OK() {
		t.Fatalf("restored: %v", err)
	}
}

// runMutation applies m to its table in dir (checksum recomputed), runs the
// co-simulation, restores the table, and returns the report of the mismatch
// it must cause; ok is false (and the test marked failed) when it is not
// detected.
func runMutation(t *testing.T, ctx context.Context, dir string, m mutation) (rep *Report, ok bool) {
	t.Helper()
	path := filepath.Join(dir, m.file)
	restore := saveFile(t, path)
	if err := verilog.RewriteTable(path, m.edit); err != nil {
		t.Fatalf("%s: %v", m.what, err)
	}
	rep, err := Cosim(ctx, dir, Icarus)
	restore()
	var mm *MismatchError
	if !errors.As(err, &mm) {
		t.Errorf("%s: not detected (err %v)", m.what, err)
		return nil, false
	}
	return rep, true
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
