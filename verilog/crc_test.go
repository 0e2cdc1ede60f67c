package verilog

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hxbar/hxbar/hw"
)

// One source of the polynomials: the hand-written RTL's parameter defaults
// are hw's constants (the generator passes them anyway: a unit or link
// instantiated without them computes the same code), and the generated top
// passes exactly them.
func TestCheckCodeConstants(t *testing.T) {
	want := []struct {
		file, re string
		v        uint32
	}{
		{"hx_barrier_unit.v", `parameter \[31:0\]\s+CRC_POLY = 32'h([0-9A-Fa-f]+)`, hw.PacketCode.Poly},
		{"hx_link_crc.v", `parameter integer CW = (\d+),`, uint32(hw.LinkCode.Width)},
		{"hx_link_crc.v", `parameter \[CW-1:0\] POLY = 16'h([0-9A-Fa-f]+)`, hw.LinkCode.Poly},
		{"hx_link_tx.v", `parameter integer CW = (\d+),`, uint32(hw.LinkCode.Width)},
		{"hx_link_tx.v", `parameter \[CW-1:0\] CPOLY = 16'h([0-9A-Fa-f]+)`, hw.LinkCode.Poly},
		{"hx_link_rx.v", `parameter integer CW = (\d+),`, uint32(hw.LinkCode.Width)},
		{"hx_link_rx.v", `parameter \[CW-1:0\] CPOLY = 16'h([0-9A-Fa-f]+)`, hw.LinkCode.Poly},
		{"hx_link_tx.v", `parameter integer KW = (\d+),`, uint32(hw.CountCode.Width)},
		{"hx_link_tx.v", `parameter \[KW-1:0\] KPOLY = 5'h([0-9A-Fa-f]+)`, hw.CountCode.Poly},
		{"hx_link_rx.v", `parameter integer KW = (\d+),`, uint32(hw.CountCode.Width)},
		{"hx_link_rx.v", `parameter \[KW-1:0\] KPOLY = 5'h([0-9A-Fa-f]+)`, hw.CountCode.Poly},
		{"hx_link.v", `parameter integer KW = (\d+),`, uint32(hw.CountCode.Width)},
		{"hx_link.v", `parameter \[KW-1:0\] KPOLY = 5'h([0-9A-Fa-f]+)`, hw.CountCode.Poly},
		{"hx_tile.v", `parameter integer KW   = (\d+),`, uint32(hw.CountCode.Width)},
		{"hx_tile.v", `parameter \[KW-1:0\] KPOLY = 5'h([0-9A-Fa-f]+)`, hw.CountCode.Poly},
	}
	for _, w := range want {
		src, err := os.ReadFile(filepath.Join("rtl", w.file))
		if err != nil {
			t.Fatal(err)
		}
		m := regexp.MustCompile(w.re).FindSubmatch(src)
		if m == nil {
			t.Fatalf("%s: no %s", w.file, w.re)
		}
		base := 10
		if strings.Contains(w.re, "'h") {
			base = 16
		}
		if v, _ := strconv.ParseUint(string(m[1]), base, 32); uint32(v) != w.v {
			t.Errorf("%s: %s is %#x, hw has %#x", w.file, m[0], v, w.v)
		}
	}
	sys := hw.Default()
	sys.LinkRetry = 4
	dir, _ := generate(t, build(t, sys, nil))
	src, err := os.ReadFile(filepath.Join(dir, TopFile))
	if err != nil {
		t.Fatal(err)
	}
	top := string(src)
	for _, s := range []string{
		fmt.Sprintf("CRC_POLY = 32'h%08X;", hw.PacketCode.Poly), ".CRC_POLY(CRC_POLY)",
		fmt.Sprintf("CW   = %d;", hw.LinkCode.Width), fmt.Sprintf("CPOLY = %d'h%04X;", hw.LinkCode.Width, hw.LinkCode.Poly), ".CW(CW), .CPOLY(CPOLY)",
		fmt.Sprintf("KW   = %d;", hw.CountCode.Width), fmt.Sprintf("KPOLY = %d'h%02X;", hw.CountCode.Width, hw.CountCode.Poly), ".KW(KW), .KPOLY(KPOLY)",
	} {
		if !strings.Contains(top, s) {
			t.Errorf("hx_top.v does not pass %q", s)
		}
	}
}

// The RTL computes the model's codes: Icarus runs hx_barrier_unit's crcf
// (flit width 128, so the wire word is 130 bits) and the XOR rows of its
// CRC_MAT that the unit's logic uses, and hx_link_crc over the
// longest link word the limits allow (170 bits) on random inputs, and each
// result must be what hw.PacketCode and hw.LinkCode give.
func TestCheckCodeRTLMatchesGo(t *testing.T) {
	iv := needTool(t, "iverilog")
	vvp := needTool(t, "vvp")
	const n, fw, lw = 200, 128, hw.MaxFlitWidth + 2 + hw.PacketCodeBits + 8
	rng := rand.New(rand.NewPCG(11, 12))
	var vec strings.Builder
	for range n {
		c := rng.Uint32()
		d := [3]uint64{rng.Uint64(), rng.Uint64(), rng.Uint64() & 3} // {head, tail, data}: 130 bits
		want := hw.PacketCode.Bits(c, d[2], 2)
		want = hw.PacketCode.Word(want, d[0], d[1], fw)
		l := [3]uint64{rng.Uint64(), rng.Uint64(), rng.Uint64() & (1<<(lw-128) - 1)}
		lwant := hw.LinkCode.Bits(0, l[2], lw-128)
		lwant = hw.LinkCode.Word(lwant, l[0], l[1], 128)
		fmt.Fprintf(&vec, "%08x %x%016x%016x %08x %x%016x%016x %04x\n", c, d[2], d[1], d[0], want, l[2], l[1], l[0], lwant)
	}
	dir := t.TempDir()
	tb := fmt.Sprintf(`module crc_tb;
    reg [31:0] c, want, mg; reg [%[1]d:0] d; reg [%[2]d:0] ld; reg [15:0] lwant;
    wire [15:0] lc;
    integer fd, k, bad, got, j;
    hx_barrier_unit #(.FW(%[3]d), .CB(32)) u ();
    hx_link_crc #(.N(%[4]d)) l (.d(ld), .c(lc));
    initial begin
        fd = $fopen("vec.txt", "r"); bad = 0;
        for (k = 0; k < %[5]d; k = k + 1) begin
            got = $fscanf(fd, "%%h %%h %%h %%h %%h\n", c, d, want, ld, lwant);
            #1;
            if (u.crcf(c, d) !== want) begin bad = bad + 1; $display("FAIL packet %%0d: %%h", k, u.crcf(c, d)); end
            for (j = 0; j < 32; j = j + 1)
                mg[j] = ^({c, d} & (u.CRC_MAT >> (j * %[6]d)));
            if (mg !== want) begin bad = bad + 1; $display("FAIL packet matrix %%0d: %%h", k, mg); end
            if (lc !== lwant) begin bad = bad + 1; $display("FAIL link %%0d: %%h", k, lc); end
        end
        $display("crc_tb: %%0d vectors, %%0d bad", k, bad);
        $finish;
    end
endmodule
`, fw+1, lw-1, fw, lw, n, 32+fw+2)
	for name, s := range map[string]string{"crc_tb.v": tb, "vec.txt": vec.String()} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	rtl, _ := filepath.Abs("rtl")
	files := []string{"-g2005", "-o", "crc.vvp", "crc_tb.v", filepath.Join(rtl, "hx_link_crc.v")}
	for _, f := range []string{"hx_barrier_unit.v", "hx_fifo.v", "hx_credit.v", "hx_alu.v", "hx_mem_1r1w.v"} {
		files = append(files, filepath.Join(rtl, f))
	}
	if out, err := run(t, dir, time.Minute, iv, files...); err != nil {
		t.Fatalf("iverilog: %v\n%s", err, out)
	}
	out, err := run(t, dir, time.Minute, vvp, "-n", "crc.vvp")
	if err != nil || !strings.Contains(out, fmt.Sprintf("crc_tb: %d vectors, 0 bad", n)) {
		t.Fatalf("vvp: %v\n%s", err, out)
	}
}

// The ACK and credit words the RTL builds and checks are hw.CountWord's:
// Icarus runs hx_link_crc with hx_link_rx's parameters (N = SB, CW = KW,
// POLY = KPOLY, their defaults) over every count of every SB the limits
// allow (1..8), and the word {code, count} must be hw.CountWord.
func TestCountCodeRTLMatchesGo(t *testing.T) {
	iv := needTool(t, "iverilog")
	vvp := needTool(t, "vvp")
	hi := hw.LinkSeqBits(hw.MaxLinkRetry, hw.MaxBufferDepth)
	var tb strings.Builder
	fmt.Fprintf(&tb, "module cnt_tb;\n    integer v, bad, n;\n")
	for sb := 1; sb <= hi; sb++ {
		fmt.Fprintf(&tb, "    reg [%d:0] d%d; wire [%d:0] c%d;\n", sb-1, sb, hw.CountCodeBits-1, sb)
		fmt.Fprintf(&tb, "    hx_link_crc #(.N(%d), .CW(%d), .POLY(%d'h%02X)) k%d (.d(d%d), .c(c%d));\n",
			sb, hw.CountCodeBits, hw.CountCodeBits, hw.CountCode.Poly, sb, sb, sb)
	}
	fmt.Fprintf(&tb, "    initial begin\n        bad = 0; n = 0;\n")
	for sb := 1; sb <= hi; sb++ {
		fmt.Fprintf(&tb, "        for (v = 0; v < %d; v = v + 1) begin d%d = v; #1 $display(\"%d %%0d %%0d\", v, {c%d, d%d}); n = n + 1; end\n",
			1<<sb, sb, sb, sb, sb)
	}
	fmt.Fprintf(&tb, "        $display(\"done %%0d\", n);\n    end\nendmodule\n")
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "cnt_tb.v"), []byte(tb.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	rtl, _ := filepath.Abs("rtl")
	if out, err := run(t, dir, time.Minute, iv, "-g2005", "-o", "cnt.vvp", "cnt_tb.v", filepath.Join(rtl, "hx_link_crc.v")); err != nil {
		t.Fatalf("iverilog: %v\n%s", err, out)
	}
	out, err := run(t, dir, time.Minute, vvp, "-n", "cnt.vvp")
	if err != nil {
		t.Fatalf("vvp: %v\n%s", err, out)
	}
	n := 0
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var sb int
		var v, w uint64
		if _, err := fmt.Sscanf(line, "%d %d %d", &sb, &v, &w); err != nil {
			continue
		}
		n++
		if want := hw.CountWord(v, sb); w != want {
			t.Errorf("SB %d, count %d: the RTL's word %#x, hw.CountWord %#x", sb, v, w, want)
		}
	}
	if want := 1<<(hi+1) - 2; n != want || !strings.Contains(out, fmt.Sprintf("done %d", want)) {
		t.Fatalf("%d words compared, want %d\n%s", n, want, firstLines(out, 5))
	}
}
