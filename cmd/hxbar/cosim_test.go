package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/hxbar/hxbar/testbench"
	"github.com/hxbar/hxbar/verilog"
)

// needIcarus skips without Icarus, unless CI is set (then it fails).
func needIcarus(t *testing.T) {
	t.Helper()
	for _, tool := range []string{"iverilog", "vvp"} {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv("CI") == "" {
				t.Skipf("%s not installed", tool)
			}
			t.Fatalf("%s not installed and CI is set", tool)
		}
	}
}

func TestGenThenCosim(t *testing.T) {
	needIcarus(t)
	dir := filepath.Join(t.TempDir(), "out")
	code, out, errs := hx(t, "gen", "--out", dir, "--dims", "2,4", "--op", "max", "--flit-width", "32", "--seed", "9")
	if code != 0 {
		t.Fatalf("gen: exit %d: %s", code, errs)
	}
	for _, want := range []string{"wrote " + dir, "hx_top.v", "8 gate tables", "expected.hex (", "events over", "hxbar cosim --dir " + dir} {
		if !strings.Contains(out, want) {
			t.Errorf("gen output lacks %q:\n%s", want, out)
		}
	}
	for _, f := range append(testbench.Files(), "hx_top.v", "hx_params.vh", "system.yaml", "gt_n7.hex", "rt_s11.hex") {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("gen did not write %s", f)
		}
	}
	code, out, errs = hx(t, "cosim", "--dir", dir)
	if code != 0 || errs != "" {
		t.Fatalf("cosim: exit %d: %s%s", code, out, errs)
	}
	if lines := strings.Split(strings.TrimSpace(out), "\n"); len(lines) != 1 ||
		!strings.HasPrefix(lines[0], "RTL matches the model, cycle-exact: ") || !strings.HasSuffix(lines[0], " cycles (icarus)") {
		t.Fatalf("cosim output: %q", out)
	}

	// An edited table file: the RTL reads none (its configuration is
	// config.hex), so cosim refuses it before simulating, exit 2, naming
	// both files.
	rt := filepath.Join(dir, verilog.RouteTableFile(8))
	orig, _ := os.ReadFile(rt)
	if err := verilog.RewriteTable(rt, func(b []uint64) { b[0] = 1 }); err != nil {
		t.Fatal(err)
	}
	code, out, errs = hx(t, "cosim", "--dir", dir)
	if code != 2 || out != "" || !strings.Contains(errs, "rt_s8.hex (the routing table of switch 8) was edited") || !strings.Contains(errs, "config.hex") {
		t.Fatalf("edited table: exit %d: %s%s", code, out, errs)
	}
	os.WriteFile(rt, orig, 0o644)

	// A damaged routing-table entry where the RTL reads it (the fabric
	// write of switch 8 entry 0 in config.hex, checksum recomputed): exit
	// 1, the first diverging event with context from both sides.
	editConfig(t, dir, func(port, addr uint32, data *uint32) {
		if port == 0xffff && addr == 8<<16|0x1000 {
			*data = 1
		}
	})
	code, out, errs = hx(t, "cosim", "--dir", dir)
	if code != 1 {
		t.Fatalf("damaged table: exit %d: %s%s", code, out, errs)
	}
	for _, want := range []string{"RTL differs from the model (icarus): event #", "first difference at event #", "  model:", "  rtl:", " > #", "testbench: FAIL event #"} {
		if !strings.Contains(out, want) {
			t.Errorf("mismatch output lacks %q:\n%s", want, out)
		}
	}
	if !strings.Contains(errs, "hxbar cosim: RTL differs from the model") {
		t.Errorf("stderr: %q", errs)
	}
}

// gen and cosim take the data collective flags: the directory gets a data
// table per node, cosim matches, and a changed item of a data table stops
// the RTL on its payload check.
func TestGenThenCosimData(t *testing.T) {
	needIcarus(t)
	dir := filepath.Join(t.TempDir(), "data")
	code, out, errs := hx(t, "gen", "--out", dir, "--dims", "2,4", "--collective", "allgather", "--items", "2",
		"--order", "MOO", "--item-flits", "3", "--flit-width", "32", "--seed", "5")
	if code != 0 {
		t.Fatalf("gen: exit %d: %s", code, errs)
	}
	if want := "8 data tables dt_n<node>.hex (allgather: 2 items of 3 flits)"; !strings.Contains(out, want) {
		t.Errorf("gen output lacks %q:\n%s", want, out)
	}
	for _, f := range []string{"dt_n0.hex", "dt_n7.hex", "gt_n7.hex"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("gen did not write %s", f)
		}
	}
	code, out, errs = hx(t, "cosim", "--dir", dir)
	if code != 0 || errs != "" || !strings.HasPrefix(out, "RTL matches the model, cycle-exact: ") {
		t.Fatalf("cosim: exit %d: %s%s", code, out, errs)
	}
	// Node 0's item-list words (its writes at 0x5000_0000 + 4n in
	// config.hex) name other items: what it sends no longer is what its
	// receivers expect (their payload checks stop the RTL).
	editConfig(t, dir, func(port, addr uint32, data *uint32) {
		if port == 0 && addr >= 0x5000_0000 && addr < 0x6000_0000 && *data&0xffff != 0 {
			*data ^= 1 << 1
		}
	})
	code, out, _ = hx(t, "cosim", "--dir", dir)
	if code != 1 || !strings.Contains(out, "FATAL") || !strings.Contains(out, ", expected ") {
		t.Fatalf("damaged data tables: exit %d: %s", code, out)
	}
	// The RTL builds data collectives on the hyper-crossbar and the torus.
	code, _, errs = hx(t, "gen", "--out", dir, "--topology", "fattree", "--collective", "broadcast")
	if code != 2 || !strings.Contains(errs, `topology: "fattree" (allowed: hyperxbar or torus`) {
		t.Errorf("fattree: exit %d: %s", code, errs)
	}
}

// editConfig rewrites the writes of dir/config.hex (docs/cosim.md: word
// 2+i is write i, [111:96] port, [63:32] paddr, [31:0] pwdata) through
// edit and recomputes the checksum (word 1: c = rotl(c, 1) ^ w over words
// 2 .. end); comments are kept. It fails the test when no write changed.
func editConfig(t *testing.T, dir string, edit func(port, addr uint32, data *uint32)) {
	t.Helper()
	path := filepath.Join(dir, testbench.ConfigFile)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(data), "\n")
	var idx []int // line of word k
	var hi, lo []uint64
	for i, l := range lines {
		if len(l) < 32 || strings.HasPrefix(l, "//") {
			continue
		}
		h, err1 := strconv.ParseUint(l[:16], 16, 64)
		w, err2 := strconv.ParseUint(l[16:32], 16, 64)
		if err1 != nil || err2 != nil {
			t.Fatalf("config.hex line %d: %q", i+1, l)
		}
		idx, hi, lo = append(idx, i), append(hi, h), append(lo, w)
	}
	changed := false
	for k := 2; k+1 < len(idx); k++ {
		d := uint32(lo[k])
		edit(uint32(hi[k]>>32&0xffff), uint32(lo[k]>>32), &d)
		if d != uint32(lo[k]) {
			lo[k] = lo[k]&^0xffffffff | uint64(d)
			changed = true
		}
	}
	if !changed {
		t.Fatal("editConfig: no write changed")
	}
	var ch, cl uint64
	for k := 2; k < len(idx); k++ {
		ch, cl = ch<<1|cl>>63, cl<<1|ch>>63
		ch, cl = ch^hi[k], cl^lo[k]
	}
	hi[1], lo[1] = ch, cl
	for k, i := range idx {
		lines[i] = fmt.Sprintf("%016x%016x", hi[k], lo[k]) + lines[i][32:]
	}
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestCosimTemporaryDirectory(t *testing.T) {
	needIcarus(t)
	code, out, errs := hx(t, "cosim", "--dims", "4", "--op", "xor", "--keep")
	if code != 0 || !strings.HasPrefix(out, "RTL matches the model, cycle-exact: ") {
		t.Fatalf("exit %d: %s%s", code, out, errs)
	}
	kept := strings.TrimSpace(strings.TrimPrefix(errs, "hxbar cosim: kept "))
	if _, err := os.Stat(filepath.Join(kept, "tb.v")); err != nil || !strings.HasPrefix(errs, "hxbar cosim: kept ") {
		t.Fatalf("--keep: %q", errs)
	}
	os.RemoveAll(kept)
}

func TestGenCosimBadInput(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"gen"}, 2, "--out"},
		{[]string{"gen", "--out", dir, "--dims", "4,x"}, 2, "dims"},
		{[]string{"gen", "--out", dir, "--duplex", "half"}, 2, "duplex"},
		{[]string{"gen", "--out", dir, "--bogus"}, 2, "bogus"},
		{[]string{"gen", "--out", dir, "extra"}, 2, "extra"},
		{[]string{"cosim", "--simulator", "modelsim"}, 2, "--simulator"},
		{[]string{"cosim", "--dir", dir, "--dims", "4,4"}, 2, "--dims cannot be combined with --dir"},
		{[]string{"cosim", "--dir", dir, "--keep"}, 2, "--keep"},
		{[]string{"cosim", "--dir", filepath.Join(dir, "nope")}, 2, "--dir"},
		{[]string{"cosim", "--dir", dir}, 2, "system.yaml"},
		{[]string{"cosim", "--link-latency", "0"}, 2, "link-latency"},
		{[]string{"cosim", "--duplex", "half"}, 2, "duplex"},
		{[]string{"gen", "--out", dir, "--max-cycles", "5"}, 1, "max_cycles"},
	} {
		code, _, errs := hx(t, c.args...)
		if code != c.code || !strings.Contains(errs, c.want) || strings.Count(strings.TrimSpace(errs), "\n") > 0 && c.code == 1 {
			t.Errorf("%v: exit %d (want %d), stderr %q (want it to name %q)", c.args, code, c.code, errs, c.want)
		}
	}
}

// A missing simulator: a clear error with the install command.
func TestCosimMissingSimulator(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	if code, _, errs := hx(t, "gen", "--out", dir, "--dims", "2"); code != 0 {
		t.Fatal(errs)
	}
	t.Setenv("PATH", t.TempDir())
	code, _, errs := hx(t, "cosim", "--dir", dir, "--simulator", "verilator")
	if code != 2 || !strings.Contains(errs, "apt-get install -y verilator") {
		t.Fatalf("exit %d: %q", code, errs)
	}
}

// TestGenWithUserSchedule generates for a user schedule (near-first on 6 of
// 9 nodes), checks the schedule is recorded in the directory and co-simulates
// it; then a schedule that double counts is refused before anything is
// written.
func TestGenWithUserSchedule(t *testing.T) {
	needIcarus(t)
	tmp := t.TempDir()
	sched := filepath.Join(tmp, "s6.json")
	code, out, errs := hx(t, "schedule", "--ranks", "6", "--algo", "butterfly-near-first", "--format", "json")
	if code != 0 {
		t.Fatalf("schedule: exit %d: %s", code, errs)
	}
	// A schedule of the user's own (not an algorithm hxbar generates, which
	// system.yaml would record as its algo).
	os.WriteFile(sched, []byte(strings.Replace(out, `"algo": "butterfly-near-first"`, `"algo": "mine"`, 1)), 0o644)
	dir := filepath.Join(tmp, "out")
	if code, _, errs := hx(t, "gen", "--out", dir, "--dims", "3,3", "--op", "sum", "--schedule", sched); code != 0 {
		t.Fatalf("gen: exit %d: %s", code, errs)
	}
	if _, err := os.Stat(filepath.Join(dir, testbench.ScheduleFile)); err != nil {
		t.Fatalf("schedule not recorded: %v", err)
	}
	if code, out, errs := hx(t, "cosim", "--dir", dir); code != 0 || !strings.Contains(out, "cycle-exact") {
		t.Fatalf("cosim: exit %d: %s %s", code, out, errs)
	}
	// Removing the recorded schedule makes the directory's testbench stale.
	os.Remove(filepath.Join(dir, testbench.ScheduleFile))
	if code, _, errs := hx(t, "cosim", "--dir", dir); code == 0 || !strings.Contains(errs, "stale") {
		t.Fatalf("cosim without the recorded schedule: exit %d, %q", code, errs)
	}
	code, out, _ = hx(t, "schedule", "--ranks", "5", "--algo", "dissemination", "--format", "json")
	os.WriteFile(sched, []byte(strings.Replace(out, `"algo": "dissemination"`, `"algo": "mine"`, 1)), 0o644)
	if code, _, errs := hx(t, "gen", "--out", filepath.Join(tmp, "bad"), "--dims", "5", "--op", "sum", "--schedule", sched); code != 2 || !strings.Contains(errs, "twice") {
		t.Fatalf("double-counting schedule: exit %d, %q", code, errs)
	}
}

// TestGenWithDataSchedule generates for a data schedule written by 'hxbar
// collective', checks it is recorded in the directory and co-simulates it;
// generating again without it removes the record; an incomplete schedule is
// refused.
func TestGenWithDataSchedule(t *testing.T) {
	needIcarus(t)
	tmp := t.TempDir()
	code, out, errs := hx(t, "collective", "--algo", "order", "--nodes", "8", "--items", "2", "--order", "MOO", "--format", "json")
	if code != 0 {
		t.Fatal(errs)
	}
	path := filepath.Join(tmp, "ag.json")
	if err := os.WriteFile(path, []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(tmp, "out")
	if code, _, errs := hx(t, "gen", "--out", dir, "--dims", "8", "--collective", "allgather", "--item-flits", "3", "--schedule", path); code != 0 {
		t.Fatal(errs)
	}
	rec := filepath.Join(dir, testbench.DataScheduleFile)
	if _, err := os.Stat(rec); err != nil {
		t.Fatalf("data schedule not recorded: %v", err)
	}
	if code, out, errs := hx(t, "cosim", "--dir", dir); code != 0 || !strings.Contains(out, "RTL matches the model, cycle-exact") {
		t.Fatalf("cosim: exit %d: %s %s", code, out, errs)
	}
	if code, _, errs := hx(t, "cosim", "--dims", "8", "--collective", "allgather", "--item-flits", "2", "--schedule", path); code != 0 {
		t.Fatalf("cosim with --schedule: exit %d: %s", code, errs)
	}
	if code, _, errs := hx(t, "gen", "--out", dir, "--dims", "8", "--collective", "allgather", "--items", "2"); code != 0 {
		t.Fatal(errs)
	}
	if _, err := os.Stat(rec); !os.IsNotExist(err) {
		t.Fatalf("stale data schedule left behind: %v", err)
	}
	short := `{"nodes":8,"items":2,"placement":[4,5],"steps":[{"kind":"M","transfers":[{"src":4,"dst":5,"items":[0]},{"src":5,"dst":4,"items":[1]}]}]}`
	if err := os.WriteFile(path, []byte(short), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errs = hx(t, "gen", "--out", filepath.Join(tmp, "bad"), "--dims", "8", "--collective", "allgather", "--schedule", path)
	if code != 2 || !strings.Contains(errs, "incomplete") {
		t.Fatalf("incomplete schedule: exit %d, %s", code, errs)
	}
}

// gen and cosim take --avoid (the switches' routing exception CAM): the
// exceptions are written into config.hex and rx_s<switch>.hex, and the RTL
// matches the model; an unknown channel names the field and the nearest
// names; faults stay refused.
func TestGenCosimAvoid(t *testing.T) {
	needIcarus(t)
	dir := filepath.Join(t.TempDir(), "out")
	code, out, errs := hx(t, "gen", "--out", dir, "--avoid", "n6.d1.down", "--op", "sum", "--seed", "3")
	if code != 0 {
		t.Fatalf("gen --avoid: exit %d: %s", code, errs)
	}
	if !strings.Contains(out, "avoid:      n6.d1.down: routing exceptions in ") || !strings.Contains(out, "rx_s<switch>.hex") {
		t.Errorf("gen output lacks the exceptions:\n%s", out)
	}
	if m, _ := filepath.Glob(filepath.Join(dir, "rx_s*.hex")); len(m) == 0 {
		t.Error("no rx_s<switch>.hex written")
	}
	code, out, errs = hx(t, "cosim", "--dir", dir)
	if code != 0 || !strings.Contains(out, "RTL matches the model, cycle-exact") {
		t.Fatalf("cosim --dir: exit %d: %s%s", code, out, errs)
	}
	code, out, errs = hx(t, "cosim", "--avoid", "n1.d0.up", "--dims", "2,4")
	if code != 0 || !strings.Contains(out, "RTL matches the model, cycle-exact") {
		t.Fatalf("cosim --avoid: exit %d: %s%s", code, out, errs)
	}
	code, _, errs = hx(t, "gen", "--out", filepath.Join(t.TempDir(), "x"), "--avoid", "n6.d1.dwn")
	if code != 2 || !strings.Contains(errs, "avoid[0]") || !strings.Contains(errs, "n6.d1.down") {
		t.Errorf("gen --avoid n6.d1.dwn: exit %d: %s", code, errs)
	}
	// The channel dead from cycle 0 and avoided: the RTL routes around it
	// as the model does, cycle for cycle.
	code, out, errs = hx(t, "cosim", "--avoid", "n1.d0.up", "--fault", "dead:n1.d0.up@0", "--dims", "2,4")
	if code != 0 || !strings.Contains(out, "RTL matches the model, cycle-exact") {
		t.Errorf("cosim --avoid with the channel dead: exit %d: %s%s", code, out, errs)
	}
}
