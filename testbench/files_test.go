package testbench

import (
	"bytes"
	"errors"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hxbar/hxbar/barrierunit"
	"github.com/hxbar/hxbar/hw"
	"github.com/hxbar/hxbar/sim"
)

// readWords reads a $readmemh file of fixed-width hex words ("//" comments
// allowed), as the testbench does.
func readWords(t *testing.T, path string, digits int) []*big.Int {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []*big.Int
	for i, line := range strings.Split(string(data), "\n") {
		if k := strings.Index(line, "//"); k >= 0 {
			line = line[:k]
		}
		for _, f := range strings.Fields(line) {
			if len(f) != digits {
				t.Fatalf("%s:%d: word %q has %d digits, want %d", path, i+1, f, len(f), digits)
			}
			v, ok := new(big.Int).SetString(f, 16)
			if !ok {
				t.Fatalf("%s:%d: %q is not hex", path, i+1, f)
			}
			out = append(out, v)
		}
	}
	return out
}

// field extracts bits hi..lo of w.
func field(w *big.Int, hi, lo int) uint64 {
	v := new(big.Int).Rsh(w, uint(lo))
	m := new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), uint(hi-lo+1)), big.NewInt(1))
	return v.And(v, m).Uint64()
}

// checksumBig is the rotate-and-xor checksum of docs/cosim.md over words of
// the given width.
func checksumBig(words []*big.Int, width int) *big.Int {
	mask := new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), uint(width)), big.NewInt(1))
	c := new(big.Int)
	for _, w := range words {
		top := new(big.Int).Rsh(c, uint(width-1))
		c.Lsh(c, 1).Or(c, top).And(c, mask).Xor(c, w)
	}
	return c
}

// The data files decode, field by field, to the model's scenario and trace,
// as docs/cosim.md documents them (independently of the Go encoder: the
// words are read as big integers and cut at the documented bit positions).
func TestDataFileFormats(t *testing.T) {
	sys := system(t, "formats", []int{3, 3}, 6, "butterfly", "sum", 1, 2, 64)
	sys.Placement = []int{8, 4, 0, 2, 6, 7}
	sys.Seed, sys.Skew = 5, 30
	dir := t.TempDir()
	s, trace := generate(t, dir, sys)
	evs, err := ParseTrace(trace)
	if err != nil {
		t.Fatal(err)
	}

	ex := readWords(t, filepath.Join(dir, ExpectedFile), 48)
	n := len(evs)
	if len(ex) != n+4 {
		t.Fatalf("expected.hex: %d words, want %d", len(ex), n+4)
	}
	h := ex[0]
	if field(h, 191, 160) != 0x48584556 || field(h, 159, 128) != 1 || field(h, 127, 96) != 9 || field(h, 95, 64) != 6 || field(h, 63, 0) != uint64(n) {
		t.Fatalf("expected.hex header %x", h)
	}
	if c := checksumBig(ex[2:], 192); c.Cmp(ex[1]) != 0 {
		t.Fatalf("expected.hex checksum %x, computed %x", ex[1], c)
	}
	last := evs[n-1].Cycle
	if lim, cyc := field(ex[2], 191, 144), field(ex[2], 143, 96); cyc != uint64(last+1) || lim <= uint64(last)+drainCycles || field(ex[2], 95, 0) != 0 {
		t.Fatalf("limits word: limit %d cycles %d (last event %d)", lim, cyc, last)
	}
	for i, e := range evs {
		w := ex[3+i]
		got := barrierunit.Event{Cycle: int64(field(w, 191, 144)), Node: int32(field(w, 143, 112)), Kind: uint8(field(w, 111, 104)),
			Gate: uint8(field(w, 103, 96)), Rank: int32(field(w, 95, 64)), Value: field(w, 63, 0)}
		if got != e {
			t.Fatalf("event %d: word decodes to %+v, want %+v", i, got, e)
		}
	}
	if end := ex[n+3]; field(end, 191, 160) != 0x454e4421 || field(end, 63, 0) != uint64(n) || field(end, 159, 64) != 0 {
		t.Fatalf("end word %x", end)
	}

	sc := readWords(t, filepath.Join(dir, ScenarioFile), 32)
	if len(sc) != 9+3 {
		t.Fatalf("scenario.hex: %d words", len(sc))
	}
	if field(sc[0], 127, 96) != 0x48585343 || field(sc[0], 95, 64) != 2 || field(sc[0], 63, 32) != 1 || field(sc[0], 31, 0) != 9 {
		t.Fatalf("scenario header %x", sc[0])
	}
	if c := checksumBig(sc[2:], 128); c.Cmp(sc[1]) != 0 {
		t.Fatalf("scenario checksum %x, computed %x", sc[1], c)
	}
	arr := s.Sys.Arrivals()
	for node := 0; node < 9; node++ {
		w := sc[2+node]
		r := -1
		for rr, nn := range sys.Placement {
			if nn == node {
				r = rr
			}
		}
		if r < 0 {
			if w.Sign() != 0 {
				t.Errorf("node %d has no rank but word %x", node, w)
			}
			continue
		}
		if field(w, 127, 127) != 1 || int64(field(w, 126, 64)) != arr[r].Cycle || field(w, 63, 0) != arr[r].Operand {
			t.Errorf("node %d (rank %d): word %x, want cycle %d operand %x", node, r, w, arr[r].Cycle, arr[r].Operand)
		}
	}
	if end := sc[11]; field(end, 127, 96) != 0x454e4421 || field(end, 95, 64) != 0 || field(end, 63, 32) != 1 || field(end, 31, 0) != 9 {
		t.Fatalf("scenario end word %x", end)
	}

	// config.hex: header, checksum, the writes in order (episode, port,
	// address, data), end. Every node's unit gets CTRL first (EN, the op, G
	// for a node with a rank; 0 without), then RANK; every entry of every
	// switch's routing table goes through the fabric port (0xffff) at
	// switch<<16 | 0x1000 + 4*entry.
	cf := readWords(t, filepath.Join(dir, ConfigFile), 32)
	W := len(cf) - 3
	if field(cf[0], 127, 96) != 0x48584346 || field(cf[0], 95, 64) != 1 || field(cf[0], 63, 32) != 1 || field(cf[0], 31, 0) != uint64(W) {
		t.Fatalf("config header %x (%d words)", cf[0], len(cf))
	}
	if c := checksumBig(cf[2:], 128); c.Cmp(cf[1]) != 0 {
		t.Fatalf("config checksum %x, computed %x", cf[1], c)
	}
	if end := cf[W+2]; field(end, 127, 96) != 0x454e4421 || field(end, 95, 64) != 0 || field(end, 63, 32) != 1 || field(end, 31, 0) != uint64(W) {
		t.Fatalf("config end word %x", end)
	}
	type wr struct{ addr, data uint64 }
	ports := map[uint64][]wr{}
	prev := uint64(0)
	for i, w := range cf[2 : W+2] {
		ep, port := field(w, 127, 112), field(w, 111, 96)
		if ep != 1 || field(w, 95, 64) != 0 || (port >= 9 && port != 0xffff) || field(w, 127, 96) < prev {
			t.Fatalf("config write %d: %x", i, w)
		}
		prev = field(w, 127, 96)
		ports[port] = append(ports[port], wr{field(w, 63, 32), field(w, 31, 0)})
	}
	G := uint64(s.Table.Gates)
	for node := 0; node < 9; node++ {
		p := ports[uint64(node)]
		// The node's port ends with its exchanger's routing table
		// (paddr[31] = 1), entry by entry.
		var xchg []wr
		for e, v := range s.Topo.Table(node) {
			xchg = append(xchg, wr{0x8000_0000 | 0x1000 + 4*uint64(e), uint64(v)})
		}
		if len(p) < len(xchg) || !slices.Equal(p[len(p)-len(xchg):], xchg) {
			t.Errorf("node %d: writes %x, want its exchanger's table %x last", node, p, xchg)
			continue
		}
		p = p[:len(p)-len(xchg)]
		r := slices.Index(sys.Placement, node)
		switch {
		case r < 0 && (len(p) != 2 || p[0] != wr{0x8, 0} || p[1] != wr{0xc, 0}):
			t.Errorf("node %d (no rank): unit writes %x, want CTRL <- 0, RANK <- 0 only", node, p)
		case r >= 0 && (len(p) < 2 || p[0] != wr{0x8, 1 | 1<<1 | G<<8} || p[1] != wr{0xc, uint64(r)}):
			t.Errorf("node %d (rank %d): writes %x, want CTRL <- EN|sum|G=%d, RANK <- %d first", node, r, p[:min(len(p), 2)], G, r)
		}
	}
	var fab []wr
	for sw := s.Topo.Nodes; sw < s.Topo.Switches; sw++ {
		for e, v := range s.Topo.Table(sw) {
			fab = append(fab, wr{uint64(sw)<<16 | 0x1000 + 4*uint64(e), uint64(v)})
		}
	}
	if !slices.Equal(ports[0xffff], fab) {
		t.Errorf("fabric writes %x, want every crossbar's routing table entry %x", ports[0xffff], fab)
	}
}

// Generate is deterministic, and tb.v depends only on the system's name,
// size and event count: another seed leaves it unchanged.
func TestGenerateDeterministic(t *testing.T) {
	sys := system(t, "determinism", []int{4, 4}, 0, "butterfly-near-first", "xor", 1, 2, 64)
	d1, d2, d3 := t.TempDir(), t.TempDir(), t.TempDir()
	generate(t, d1, sys)
	generate(t, d2, sys)
	sys.Seed++
	generate(t, d3, sys)
	for _, name := range Files() {
		a, _ := os.ReadFile(filepath.Join(d1, name))
		b, _ := os.ReadFile(filepath.Join(d2, name))
		c, _ := os.ReadFile(filepath.Join(d3, name))
		if !bytes.Equal(a, b) {
			t.Errorf("%s differs between two runs", name)
		}
		same := bytes.Equal(a, c)
		if want := name != ScenarioFile && name != ExpectedFile; same != want {
			t.Errorf("%s: equal across seeds = %v, want %v", name, same, want)
		}
	}
	if st, err := os.Stat(filepath.Join(d1, RunScript)); err != nil || st.Mode()&0o111 == 0 {
		t.Errorf("run.sh not executable: %v", err)
	}
	// run.sh and the Makefile build Verilator as hxbar cosim does (the
	// loops kept as loops: without it the Tofu shape needs > 23 GB).
	for _, name := range []string{RunScript, MakefileName} {
		text, _ := os.ReadFile(filepath.Join(d1, name))
		if strings.Count(string(text), " "+verilatorOptions(paramsNodes(d1))+" --top-module hx_tb ") != 1 || strings.Contains(string(text), "@VERILATOR_OPTIONS@") {
			t.Errorf("%s does not run verilator %s once", name, verilatorOptions(paramsNodes(d1)))
		}
	}
	if paramsNodes(d1) != 16 {
		t.Errorf("paramsNodes = %d, want 16", paramsNodes(d1))
	}
	for _, n := range []int{16, 216} {
		if o := verilatorOptions(n); !strings.Contains(o, "--unroll-count 1") || !strings.Contains(o, "--unroll-stmts 10") {
			t.Errorf("verilator options %q for %d nodes unroll loops (the 216-tile torus then needs > 23 GB)", o, n)
		}
		if o := verilatorOptions(n); strings.Contains(o, "-O0") != (n >= verilatorO0Nodes) {
			t.Errorf("verilator options %q for %d nodes: -O0 from %d nodes only", o, n, verilatorO0Nodes)
		}
	}
}

func TestGenerateRefuses(t *testing.T) {
	sys := system(t, "refuse", []int{2, 2}, 0, "butterfly", "sum", 1, 2, 64)
	s, trace, _, err := RunModel(sys)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	lines := Lines(trace)
	cases := map[string][]byte{
		"released in 0 of 1 episodes": []byte(strings.Join(lines[:len(lines)-1], "\n") + "\n"),
		"not in canonical form":       []byte(strings.Replace(string(trace), " n", "  n", 1)),
		"hosts no rank":               []byte("0 n9 arrive rank=0 value=0000000000000000\n"),
		"node 1 hosts rank 1":         []byte(strings.Replace(string(trace), "n1 arrive rank=1", "n1 arrive rank=2", 1)),
		"out of canonical order":      []byte(lines[1] + "\n" + lines[0] + "\n"),
	}
	for want, data := range cases {
		if err := Generate(dir, s.Design, data); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: err = %v", want, err)
		}
	}
	half := sys
	half.Duplex = "half"
	hs, htrace, _, err := RunModel(half)
	if err != nil {
		t.Fatal(err)
	}
	if err := Generate(dir, hs.Design, htrace); err == nil || !strings.Contains(err.Error(), "full duplex") {
		t.Errorf("half duplex: %v", err)
	}
	if err := Generate("", s.Design, trace); err == nil {
		t.Error("empty dir accepted")
	}
}

// tbDir generates a small design (2x2, sum, 3-flit packets) for the
// testbench's own checks and returns its directory, model and trace.
func tbDir(t *testing.T) (string, *sim.System, []byte) {
	t.Helper()
	sys := system(t, "tbcheck", []int{2, 2}, 0, "butterfly", "sum", 1, 2, 32)
	sys.Seed, sys.Skew = 3, 9
	dir := t.TempDir()
	s, trace := generate(t, dir, sys)
	return dir, s, trace
}

// runTB runs the testbench in dir under the simulator and checks the
// contract every run keeps: exactly one verdict line; exit status 0 exactly
// for PASS.
func runTB(t *testing.T, dir, simulator string, plusargs ...string) *RunResult {
	t.Helper()
	res, err := RunSimulator(ctxFor(t, 5*time.Minute), dir, simulator, plusargs...)
	if err != nil {
		t.Fatalf("%s: %v", simulator, err)
	}
	if len(res.Verdicts) != 1 {
		t.Fatalf("%s: %d verdict lines %q; output:\n%s", simulator, len(res.Verdicts), res.Verdicts, res.Output)
	}
	if pass := strings.HasPrefix(res.Verdicts[0], "PASS "); pass != (res.ExitCode == 0) {
		t.Fatalf("%s: verdict %q with exit status %d", simulator, res.Verdicts[0], res.ExitCode)
	}
	return res
}

// wantFail runs the testbench and requires a FAIL verdict containing every
// want string.
func wantFail(t *testing.T, dir, simulator string, want ...string) *RunResult {
	t.Helper()
	res := runTB(t, dir, simulator)
	if res.Passed() {
		t.Fatalf("%s: passed, want FAIL with %q", simulator, want)
	}
	for _, w := range want {
		if !strings.Contains(res.Verdict(), w) {
			t.Fatalf("%s: verdict %q lacks %q; output:\n%s", simulator, res.Verdict(), w, lastLines(res.Output, 12))
		}
	}
	return res
}

// rewriteExpected writes dir/expected.hex for edited events (a well-formed
// file with the right checksum) and the limit word.
func rewriteExpected(t *testing.T, dir string, s *sim.System, evs []barrierunit.Event, cycles, limit int64) {
	t.Helper()
	data := expectedFile(s.Sys.Name, s.Topo.Nodes, s.Table.Ranks, evs, cycles, limit)
	if err := os.WriteFile(filepath.Join(dir, ExpectedFile), data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// The testbench's own checks, one by one, under Icarus. Each must end in
// exactly one FAIL line naming what is wrong and a non-zero exit status.
func TestTestbenchChecksIcarus(t *testing.T) {
	needTools(t, Icarus)
	t.Parallel()
	dir, s, trace := tbDir(t)
	testbenchChecks(t, Icarus, dir, s, trace, true)
}

// testbenchChecks runs the checks in dir; rebuilds enables the cases that
// need another tb.v (and so another build).
func testbenchChecks(t *testing.T, simulator, dir string, s *sim.System, trace []byte, rebuilds bool) {
	evs, _ := ParseTrace(trace)
	n := len(evs)
	cycles := evs[n-1].Cycle + 1
	limit := cycles + 100
	exp := filepath.Join(dir, ExpectedFile)
	scen := filepath.Join(dir, ScenarioFile)
	restoreExp, restoreScen := saveFile(t, exp), saveFile(t, scen)

	res := runTB(t, dir, simulator)
	if !res.Passed() || res.Events != n || res.Cycles != cycles || Compare(Lines(trace), res.Trace) != nil {
		t.Fatalf("pristine directory: %s", res.Problem())
	}

	t.Run("missing expected.hex", func(t *testing.T) {
		defer restoreExp()
		os.Remove(exp)
		wantFail(t, dir, simulator, "FAIL expected.hex: missing")
		if _, err := Cosim(ctxFor(t, time.Minute), dir, simulator); err == nil || !strings.Contains(err.Error(), "no expected.hex") {
			t.Errorf("Cosim: %v", err)
		}
	})
	t.Run("missing scenario.hex", func(t *testing.T) {
		defer restoreScen()
		os.Remove(scen)
		wantFail(t, dir, simulator, "FAIL scenario.hex: missing")
	})
	t.Run("truncated expected.hex", func(t *testing.T) {
		defer restoreExp()
		truncate(t, exp, 3)
		wantFail(t, dir, simulator, "FAIL expected.hex:", "truncated")
		if _, err := Cosim(ctxFor(t, time.Minute), dir, simulator); err == nil || !strings.Contains(err.Error(), "expected.hex not generated") {
			t.Errorf("Cosim on a stale expected.hex: %v", err)
		}
	})
	t.Run("truncated scenario.hex", func(t *testing.T) {
		defer restoreScen()
		truncate(t, scen, 1)
		wantFail(t, dir, simulator, "FAIL scenario.hex:", "truncated")
	})
	t.Run("bad checksum", func(t *testing.T) {
		defer restoreExp()
		// One digit of an event's value, checksum left alone.
		data, _ := os.ReadFile(exp)
		k := bytes.Index(data, []byte(" // #4: "))
		flipHexDigit(data, k-1)
		os.WriteFile(exp, data, 0o644)
		wantFail(t, dir, simulator, "FAIL expected.hex: checksum")
	})
	t.Run("wrong event count", func(t *testing.T) {
		defer restoreExp()
		rewriteExpected(t, dir, s, evs[:n-1], cycles, limit)
		wantFail(t, dir, simulator, "FAIL expected.hex:", "tb.v was generated for")
	})
	t.Run("event value differs", func(t *testing.T) {
		defer restoreExp()
		e := append([]barrierunit.Event(nil), evs...)
		k := n / 2
		for e[k].Kind == barrierunit.EvSend {
			k++
		}
		e[k].Value ^= 1 << 17
		rewriteExpected(t, dir, s, e, cycles, limit)
		res := wantFail(t, dir, simulator, "FAIL event #", `the RTL printed "`+FormatEvent(evs[k])+`", the model expects "`+FormatEvent(e[k])+`"`)
		// The RTL's trace up to the mismatch, plus a few cycles of context.
		if d := Compare(Lines(trace), res.Trace); d == nil || d.Index <= k {
			t.Errorf("the RTL trace should continue past event %d: %+v", k, d)
		}
	})
	t.Run("event missing in the RTL", func(t *testing.T) {
		if !rebuilds {
			t.Skip("needs another build")
		}
		defer restoreExp()
		// Generate again for the original trace afterwards: through the
		// manifest, since Generate never overwrites a file it did not write.
		defer func() {
			if err := Generate(dir, s.Design, trace); err != nil {
				t.Fatal(err)
			}
		}()
		// The model expects one more event than the RTL produces: a late
		// recv five cycles after the last release.
		last := evs[n-1]
		extra := barrierunit.Event{Cycle: last.Cycle + 5, Node: last.Node, Kind: barrierunit.EvRecv, Gate: 2, Rank: 0, Value: 7}
		if err := Generate(dir, s.Design, append(append([]byte(nil), trace...), FormatEvent(extra)+"\n"...)); err != nil {
			t.Fatal(err)
		}
		wantFail(t, dir, simulator, fmt.Sprintf("FAIL event #%d: the model expects %q, the RTL printed nothing more in cycle %d", n, FormatEvent(extra), extra.Cycle))
	})
	t.Run("event the model lacks", func(t *testing.T) {
		if !rebuilds {
			t.Skip("needs another build")
		}
		defer restoreExp()
		// Generate again for the original trace afterwards: through the
		// manifest, since Generate never overwrites a file it did not write.
		defer func() {
			if err := Generate(dir, s.Design, trace); err != nil {
				t.Fatal(err)
			}
		}()
		// Regenerate the testbench for a trace without its first recv:
		// the RTL then prints an event the model does not expect there.
		var b bytes.Buffer
		dropped := ""
		for _, l := range Lines(trace) {
			if dropped == "" && strings.Contains(l, " recv ") {
				dropped = l
				continue
			}
			b.WriteString(l + "\n")
		}
		if err := Generate(dir, s.Design, b.Bytes()); err != nil {
			t.Fatal(err)
		}
		wantFail(t, dir, simulator, `FAIL event #`, `the RTL printed "`+dropped+`"`)
	})
	t.Run("watchdog", func(t *testing.T) {
		defer restoreExp()
		rewriteExpected(t, dir, s, evs, cycles, 2)
		wantFail(t, dir, simulator, "FAIL watchdog: cycle limit 2 reached")
	})
	t.Run("restored", func(t *testing.T) {
		res := runTB(t, dir, simulator)
		if !res.Passed() {
			t.Fatal(res.Problem())
		}
	})
}

// truncate drops the last k word lines of a data file.
func truncate(t *testing.T, path string, k int) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(data), "\n")
	lines = lines[:len(lines)-1-k] // the last element is "" after the final newline
	if err := os.WriteFile(path, []byte(strings.Join(lines, "")), 0o644); err != nil {
		t.Fatal(err)
	}
}

func flipHexDigit(b []byte, i int) {
	if b[i] == '0' {
		b[i] = '1'
	} else {
		b[i] = '0'
	}
}

func TestPlusargsIcarus(t *testing.T) {
	needTools(t, Icarus)
	dir, _, trace := tbDir(t)
	res := runTB(t, dir, Icarus, "+vcd")
	if !res.Passed() {
		t.Fatal(res.Problem())
	}
	vcd, err := os.ReadFile(filepath.Join(dir, "hx.vcd"))
	if err != nil || !bytes.Contains(vcd, []byte("$enddefinitions")) || !bytes.Contains(vcd, []byte("ev_recv")) {
		t.Fatalf("hx.vcd: %v, %d bytes", err, len(vcd))
	}
	// Other data files by plusarg, from another directory.
	other := t.TempDir()
	sys := system(t, "tbcheck", []int{2, 2}, 0, "butterfly", "sum", 1, 2, 32)
	sys.Seed, sys.Skew = 4, 25
	_, trace2 := generate(t, other, sys)
	res = runTB(t, dir, Icarus, "+scenario="+filepath.Join(other, ScenarioFile), "+expected="+filepath.Join(other, ExpectedFile))
	if !res.Passed() || Compare(Lines(trace2), res.Trace) != nil || Compare(Lines(trace), res.Trace) == nil {
		t.Fatalf("plusarg data files: %s", res.Problem())
	}
	if res.Compiled {
		t.Error("the build should have been reused")
	}
}

// A missing simulator is an error naming the install command.
func TestMissingTool(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	dir := t.TempDir()
	for sim, want := range map[string]string{Icarus: "apt-get install -y iverilog", Verilator: "apt-get install -y verilator"} {
		_, err := RunSimulator(ctxFor(t, time.Minute), dir, sim)
		if !errors.Is(err, ErrToolMissing) || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v", sim, err)
		}
	}
	if _, err := RunSimulator(ctxFor(t, time.Minute), dir, "modelsim"); err == nil || !strings.Contains(err.Error(), "allowed: icarus, verilator") {
		t.Errorf("unknown simulator: %v", err)
	}
}

// A design that does not compile is a CompileError carrying the message.
func TestCompileError(t *testing.T) {
	needTools(t, Icarus)
	dir, _, _ := tbDir(t)
	top := filepath.Join(dir, "hx_top.v")
	data, _ := os.ReadFile(top)
	os.WriteFile(top, bytes.Replace(data, []byte("endmodule"), []byte("wire oops = ;\nendmodule"), 1), 0o644)
	_, err := RunIcarus(ctxFor(t, time.Minute), dir)
	var ce *CompileError
	if !errors.As(err, &ce) || !strings.Contains(err.Error(), "hx_top.v") || !strings.Contains(err.Error(), "syntax error") {
		t.Fatalf("err = %v", err)
	}
	// Cosim passes it on.
	if _, err := Cosim(ctxFor(t, time.Minute), dir, Icarus); !errors.As(err, &ce) {
		t.Fatalf("Cosim: %v", err)
	}
}

func TestCosimNoSystem(t *testing.T) {
	dir := t.TempDir()
	if _, err := Cosim(ctxFor(t, time.Minute), dir, Icarus); err == nil || !strings.Contains(err.Error(), "system.yaml") {
		t.Fatalf("err = %v", err)
	}
	if _, err := Cosim(ctxFor(t, time.Minute), dir, "xsim"); err == nil || !strings.Contains(err.Error(), "allowed") {
		t.Fatalf("err = %v", err)
	}
	// A system whose model never completes.
	sys := hw.Default()
	sys.MaxCycles = 10
	y, _ := sys.YAML()
	os.WriteFile(filepath.Join(dir, "system.yaml"), y, 0o644)
	if _, err := Cosim(ctxFor(t, time.Minute), dir, Icarus); err == nil || !strings.Contains(err.Error(), "does not complete") {
		t.Fatalf("err = %v", err)
	}
}
