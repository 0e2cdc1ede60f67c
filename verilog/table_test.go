package verilog

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The worked examples of docs/tables.md.
func TestChecksumDocExamples(t *testing.T) {
	for _, c := range []struct {
		body []uint64
		want uint64
	}{
		{[]uint64{0xff, 0x01}, 0x1ff},
		{[]uint64{0, 1}, 1},
		{[]uint64{0x8000000100000000, 0x0000000000010000, 0x0000010100000001, 0x0000000100000001}, 0x0000020b00040007},
		{[]uint64{0}, 0},
		{nil, 0},
	} {
		if got := Checksum(c.body); got != c.want {
			t.Errorf("Checksum(%x) = %016x, want %016x", c.body, got, c.want)
		}
	}
}

func TestFormatTableDocExample(t *testing.T) {
	got, err := FormatTable(MagicGate, []uint64{0x8000000100000000, 0x0000000000010000, 0x0000010100000001, 0x0000000100000001},
		[]string{"gate table of node 0: rank 0 of the butterfly R=2, G=1"},
		[]string{"valid, G=1, rank=0", "gate 1: self=0 need=0 routes 1 from 0", "gate 2: self=1 need=1 routes 0 from 1", "route 0: to rank 1 at address 1"})
	if err != nil {
		t.Fatal(err)
	}
	// Verbatim from docs/tables.md.
	want := `// gate table of node 0: rank 0 of the butterfly R=2, G=1
4858475400000004 // header: magic HXGT, 4 body words
0000020b00040007 // checksum
8000000100000000 // body[0]: valid, G=1, rank=0
0000000000010000 // body[1]: gate 1: self=0 need=0 routes 1 from 0
0000010100000001 // body[2]: gate 2: self=1 need=1 routes 0 from 1
0000000100000001 // body[3]: route 0: to rank 1 at address 1
`
	if string(got) != want {
		t.Errorf("FormatTable:\n%s\nwant:\n%s", got, want)
	}
	one, err := FormatTable(MagicGate, []uint64{0}, nil, []string{"no rank"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(one), "4858475400000001 // header: magic HXGT, 1 body word\n") {
		t.Errorf("single-word table:\n%s", one)
	}
}

func TestParseTable(t *testing.T) {
	good := "// title\n/* block\n comment */ 4858525400000002 // header\n00000000000001FF\n00000000000000ff 0000000000000001 // two on a line\n"
	magic, body, err := ParseTable([]byte(good))
	if err != nil || magic != MagicRoute || !slices.Equal(body, []uint64{0xff, 1}) {
		t.Fatalf("ParseTable(good) = %q, %x, %v", magic, body, err)
	}
	for _, c := range []struct{ name, text, want string }{
		{"empty", "", "0 words"},
		{"header only", "4858525400000000\n", "1 word,"},
		{"bad magic", "4858525500000000\n0000000000000000\n", `bad magic "HXRU"`},
		{"binary magic", "0000000100000000\n0000000000000000\n", `bad magic "00000001"`},
		{"count", "4858525400000002\n0000000000000000\n0000000000000000\n", "3 words, fewer words than count + 2 = 4 (header count 2): file too short"},
		{"checksum", "4858525400000001\n0000000000000000\n0000000000000001\n", "line 2: checksum 0000000000000000 does not match the body (computed 0000000000000001)"},
		{"short word", "4858525400000000\nff\n", `line 2: word "ff" is not 16 hex digits`},
		{"not hex", "4858525400000000\n000000000000000g\n", "is not 16 hex digits"},
		{"address", "@0\n4858525400000000\n0000000000000000\n", `word "@0"`},
		{"underscore", "48585254_00000000\n0000000000000000\n", "is not 16 hex digits"},
		{"unterminated", "4858525400000000\n0000000000000000 /* x\n", "line 2: unterminated /* comment"},
	} {
		_, _, err := ParseTable([]byte(c.text))
		var te *TableError
		if err == nil || !errors.As(err, &te) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want a *TableError containing %q", c.name, err, c.want)
		}
	}
}

func TestHeaderWordErrors(t *testing.T) {
	for _, m := range []string{"", "HXR", "HXRTX", "HX\x00T"} {
		if _, err := HeaderWord(m, 1); err == nil {
			t.Errorf("HeaderWord(%q) accepted", m)
		}
	}
	if _, err := HeaderWord(MagicGate, -1); err == nil {
		t.Error("HeaderWord(-1) accepted")
	}
	if w, err := HeaderWord(MagicRoute, 2); err != nil || w != 0x4858525400000002 {
		t.Errorf("HeaderWord(HXRT, 2) = %016x, %v", w, err)
	}
}

func TestWriteReadRewriteTable(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "t.hex")
	body := []uint64{0x8000000100000000, 0x10000, 0x0000010100000001, 0x0000000100000001}
	if err := WriteTable(p, MagicGate, body, "a title", "second line"); err != nil {
		t.Fatal(err)
	}
	magic, got, err := ReadTable(p)
	if err != nil || magic != MagicGate || !slices.Equal(got, body) {
		t.Fatalf("ReadTable = %q %x %v", magic, got, err)
	}
	before, _ := os.ReadFile(p)

	// A consistent mutation: the file stays valid, comments stay.
	if err := RewriteTable(p, func(b []uint64) { b[3] ^= 1 << 32 }); err != nil {
		t.Fatal(err)
	}
	_, got, err = ReadTable(p)
	if err != nil || got[3] != 0x0000000000000001 {
		t.Fatalf("after RewriteTable: %x %v", got, err)
	}
	after, _ := os.ReadFile(p)
	if len(after) != len(before) || !strings.Contains(string(after), "// a title\n// second line\n") ||
		!strings.Contains(string(after), "// body[3]") {
		t.Errorf("RewriteTable changed the layout:\n%s", after)
	}

	// A raw mutation: the checksum goes stale and ReadTable says so.
	if err := RewriteTableWords(p, func(w []uint64) { w[2] ^= 1 }); err != nil {
		t.Fatal(err)
	}
	if _, _, err := ReadTable(p); err == nil || !strings.Contains(err.Error(), p+": line 4: checksum") {
		t.Errorf("stale checksum: err = %v", err)
	}
	// ... and RewriteTable with a no-op edit repairs it.
	if err := RewriteTable(p, func([]uint64) {}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := ReadTable(p); err != nil {
		t.Errorf("after repair: %v", err)
	}

	if _, _, err := ReadTable(filepath.Join(dir, "missing.hex")); err == nil || !strings.Contains(err.Error(), "missing.hex") {
		t.Errorf("missing file: err = %v", err)
	}
	if err := RewriteTable(filepath.Join(dir, "missing.hex"), func([]uint64) {}); err == nil {
		t.Error("RewriteTable of a missing file succeeded")
	}
	os.WriteFile(filepath.Join(dir, "one.hex"), []byte("4858525400000000\n"), 0o644)
	if err := RewriteTableWords(filepath.Join(dir, "one.hex"), func([]uint64) {}); err == nil {
		t.Error("RewriteTableWords of a 1-word file succeeded")
	}
}

func TestDecodeGateTableErrors(t *testing.T) {
	ok := []uint64{0x8000000100000000, 0x10000, 0x0000010100000001, 0x0000000100000001}
	if g, err := DecodeGateTable(ok); err != nil || g.Rank != 0 || g.Gates != 1 || !g.Self[2] || g.Need[2] != 1 ||
		len(g.Out(1)) != 1 || g.Out(1)[0] != (GateRoute{Rank: 1, Addr: 1}) || len(g.Out(2)) != 0 || g.Out(9) != nil {
		t.Fatalf("DecodeGateTable(ok) = %+v, %v", g, err)
	}
	if g, err := DecodeGateTable([]uint64{0}); err != nil || g.Rank != -1 {
		t.Fatalf("no rank: %+v %v", g, err)
	}
	mod := func(i int, w uint64) []uint64 { b := slices.Clone(ok); b[i] = w; return b }
	for _, c := range []struct {
		name string
		body []uint64
		want string
	}{
		{"empty", nil, "empty body"},
		{"no rank, extra", []uint64{0, 0}, "single body word 0"},
		{"no rank, nonzero", []uint64{5}, "single body word 0"},
		{"reserved 0", mod(0, 0x8000004100000000), "reserved bits 62..38"},
		{"G too big", mod(0, 0x8000003f00000000), "G = 63"},
		{"too short", mod(0, 0x8000000500000000), "cannot hold 6 gate words"},
		{"reserved g", mod(1, 1<<41|0x10000), "reserved bits 63..41"},
		{"past routes", mod(1, 0x20000), "past the 1 route words"},
		{"gate 1 need", mod(1, 0x100010000), "gate 1 (arrival)"},
		{"end routes", mod(2, 0x0000010100010000), "end gate 2 must have no routes"},
	} {
		if _, err := DecodeGateTable(c.body); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want %q", c.name, err, c.want)
		}
	}
	if _, err := DecodeRouteTable([]uint64{1, 0x100}); err == nil || !strings.Contains(err.Error(), "body[1]") {
		t.Errorf("DecodeRouteTable: %v", err)
	}
}

// The word count rule: a table file holds exactly count + 2 words. One word
// appended or removed is refused, with the checksum recomputed over what
// follows it (as a hand edit would) or left stale; the message names the
// count and the words found, and an extra word its line.
func TestCheckTableLength(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "gt_n1.hex")
	body := []uint64{0x8000000100000000, 0x10000, 0x0000010100000001, 0x0000000100000001}
	if err := WriteTable(p, MagicGate, body, "title"); err != nil {
		t.Fatal(err)
	}
	good, _ := os.ReadFile(p)
	if err := CheckTableLength(good); err != nil {
		t.Fatalf("good table: %v", err)
	}
	lines := strings.SplitAfter(string(good), "\n") // title, header, checksum, 4 body words, ""
	for _, c := range []struct {
		name, text string
		resum      bool
		want       string
	}{
		{"extra word", string(good) + "0000000000000000\n", false, "line 8: 7 words, more words than count + 2 = 6 (header count 4): 1 word too many"},
		{"extra word, checksum recomputed", string(good) + "0000000000000005 // extra\n", true, "line 8: 7 words, more words than count + 2 = 6 (header count 4)"},
		{"two extra words on a line", string(good) + "0000000000000000 0000000000000000\n", false, "line 8: 8 words, more words than count + 2 = 6 (header count 4): 2 words too many"},
		{"word missing", strings.Join(lines[:6], ""), false, "case.hex: 5 words, fewer words than count + 2 = 6 (header count 4): file too short"},
		{"word missing, checksum recomputed", strings.Join(lines[:6], ""), true, "5 words, fewer words than count + 2 = 6"},
		{"header only", lines[0] + lines[1], false, "1 word, a table needs at least a header and a checksum"},
		{"no words", "// nothing\n", false, "0 words"},
		{"count 0 with a body", "4858525400000000\n0000000000000000\n0000000000000000\n", false, "3 words, more words than count + 2 = 2"},
		{"bad word", strings.Replace(string(good), "0000000000010000", "00000000000x0000", 1), false, `word "00000000000x0000" is not 16 hex digits`},
	} {
		q := filepath.Join(dir, "case.hex")
		if err := os.WriteFile(q, []byte(c.text), 0o644); err != nil {
			t.Fatal(err)
		}
		if c.resum {
			if err := RewriteTable(q, func([]uint64) {}); err != nil {
				t.Fatal(err)
			}
		}
		data, _ := os.ReadFile(q)
		err := CheckTableLength(data)
		if te, ok := err.(*TableError); ok {
			te.File = "case.hex"
		}
		var te *TableError
		if err == nil || !errors.As(err, &te) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: CheckTableLength = %v, want a *TableError containing %q", c.name, err, c.want)
		}
		// The strict decoder refuses it the same way (with the checksum
		// recomputed the count is the only thing wrong).
		if _, _, err := ReadTable(q); err == nil || !strings.Contains(err.Error(), "case.hex: ") {
			t.Errorf("%s: ReadTable = %v", c.name, err)
		} else if c.resum && !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: ReadTable = %v, want %q", c.name, err, c.want)
		}
	}
	// Only the length: a stale checksum or a bad magic is ParseTable's.
	stale := strings.Replace(string(good), "0000000100000001 // body[3]", "0000000100000003 // body[3]", 1)
	if err := CheckTableLength([]byte(stale)); err != nil {
		t.Errorf("stale checksum, right length: %v", err)
	}
}

// CheckTableFiles checks every gt_n*, rt_s* and dt_n* file of a directory,
// in node/switch order, reports the first refusal by path and how many more
// there are, and ignores other files.
func TestCheckTableFiles(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"gt_n0.hex", "gt_n2.hex", "gt_n10.hex", "rt_s0.hex", "dt_n1.hex"} {
		if err := WriteTable(filepath.Join(dir, name), MagicRoute, []uint64{1, 2}); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(dir, "expected.hex"), []byte("not a table\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "gt_n3.hex.orig"), []byte("not a table\n"), 0o644)
	if err := CheckTableFiles(dir); err != nil {
		t.Fatalf("good directory: %v", err)
	}
	appendWord := func(name string) {
		f, err := os.OpenFile(filepath.Join(dir, name), os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		f.WriteString("0000000000000000\n")
		f.Close()
	}
	appendWord("gt_n10.hex")
	err := CheckTableFiles(dir)
	var te *TableError
	want := filepath.Join(dir, "gt_n10.hex") + ": line 5: 5 words, more words than count + 2 = 4 (header count 2): 1 word too many from here"
	if !errors.As(err, &te) || err.Error() != want {
		t.Fatalf("one extra word: %v\nwant %s", err, want)
	}
	appendWord("gt_n2.hex")
	appendWord("dt_n1.hex")
	err = CheckTableFiles(dir)
	if err == nil || !strings.HasPrefix(err.Error(), filepath.Join(dir, "gt_n2.hex")+": ") || !strings.HasSuffix(err.Error(), "(and 2 more tables refused)") {
		t.Errorf("three tables: %v", err)
	}
	if err := CheckTableFiles(filepath.Join(dir, "nonexistent")); err != nil {
		t.Errorf("a directory without tables: %v", err)
	}
}
