package formal

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
)

// TestBuild renders every proof with the library's unit and with the
// old (parity-tagged) unit; HXBAR_FORMAL_DIR keeps the files to run by
// hand (yosys -s formal.ys; yosys-abc bmc3: docs/testing.md).
func TestBuild(t *testing.T) {
	old, err := os.ReadFile("testdata/hx_barrier_unit_01691af.v")
	if err != nil {
		t.Fatal(err)
	}
	keep := os.Getenv("HXBAR_FORMAL_DIR")
	for _, s := range Systems() {
		for _, unit := range [][]byte{nil, old} {
			j, err := Build(s, unit, "")
			if err != nil {
				t.Fatal(err)
			}
			h := j.Files[HarnessFile]
			for _, want := range []string{"assign early   = !init && (rise | (released & arrived))", "module hx_formal", "hx_top dut"} {
				if !bytes.Contains(h, []byte(want)) {
					t.Errorf("%s: harness lacks %q", s.Name, want)
				}
			}
			if unit != nil {
				inst := unitInstance.Find(j.Files["hx_tile.v"])
				if !bytes.Equal(j.Files["hx_barrier_unit.v"], old) || inst == nil {
					t.Fatalf("%s: the old unit was not substituted, or the tile has no unit instance", s.Name)
				}
				for _, p := range []string{".UP(", ".K4(", ".NBANK(", ".CRC_POLY("} {
					if bytes.Contains(inst, []byte(p)) {
						t.Errorf("%s: the tile passes the old unit %s, which it does not declare", s.Name, p)
					}
				}
				if !bytes.Contains(inst, []byte("#(.FW(FW), .B(B)")) {
					t.Errorf("%s: the old unit's own parameters lost: %s", s.Name, inst)
				}
			}
			if keep == "" {
				continue
			}
			d := filepath.Join(keep, s.Name)
			if unit != nil {
				d += "-old"
			}
			if err := os.MkdirAll(d, 0o755); err != nil {
				t.Fatal(err)
			}
			for n, b := range j.Files {
				if err := os.WriteFile(filepath.Join(d, n), b, 0o644); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
}

// TestOldUnitElaborates reads the old unit's proof files as the proof's
// Yosys script does: Yosys refuses a parameter its module lacks, so a
// parameter the tile gained since 01691af stops make formal's proof of
// the proof (it did: UP, K4 and K5).
func TestOldUnitElaborates(t *testing.T) {
	if _, err := exec.LookPath("yosys"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("yosys not found (CI is set)")
		}
		t.Skip("no yosys")
	}
	j := oldUnitJob(t, "line3-bdb")
	dir := t.TempDir()
	script := ""
	for name, data := range j.Files {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, s := range j.Sources {
		script += "read_verilog " + s + "; "
	}
	script += "hierarchy -check -top " + HarnessTop
	cmd := exec.Command("yosys", "-q", "-p", script)
	cmd.Dir = dir
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("yosys: %v: %s", err, msg)
	}
}

// TestRTLDigest: the digest names the RTL, not the harness: the proofs of
// one system share it, another system's RTL and a changed byte differ.
func TestRTLDigest(t *testing.T) {
	build := func(name string) *Job {
		j, err := Build(spec(t, name), nil, "")
		if err != nil {
			t.Fatal(err)
		}
		return j
	}
	bbb, bdb, line4 := build("line3-bbb"), build("line3-bdb"), build("line4-bbb")
	if bytes.Equal(bbb.Files[HarnessFile], bdb.Files[HarnessFile]) {
		t.Fatal("two proofs with one harness: the test proves nothing")
	}
	if bbb.RTLDigest() != bdb.RTLDigest() {
		t.Error("line3-bbb and line3-bdb: one RTL, two digests")
	}
	if bbb.RTLDigest() == line4.RTLDigest() {
		t.Error("line3 and line4: one digest for two RTLs")
	}
	if bbb.InputsDigest() == bdb.InputsDigest() {
		t.Error("line3-bbb and line3-bdb: two harnesses, one inputs digest")
	}
	w := spec(t, "line3-bdb")
	w.Window++
	wider, err := Build(w, nil, "")
	if err != nil {
		t.Fatal(err)
	}
	if wider.RTLDigest() != bdb.RTLDigest() || wider.InputsDigest() == bdb.InputsDigest() {
		t.Error("a wider arrival window: the RTL digest must stay, the inputs digest must change")
	}
	d := bbb.RTLDigest()
	bbb.Files["hx_barrier_unit.v"] = append(bytes.Clone(bbb.Files["hx_barrier_unit.v"]), ' ')
	if bbb.RTLDigest() == d {
		t.Error("a changed unit source kept its digest")
	}
}

// TestDeclaredParameters: every parameter form the RTL uses is seen as
// declared (a range, integer), none in a comment or a localparam.
func TestDeclaredParameters(t *testing.T) {
	unit := []byte("    parameter integer FW = 64, // width\n    parameter [31:0]  CRC_POLY = 32'h1EDC6F41,\n" +
		"    parameter signed [3:0] S = 0,\n    localparam integer LP = 2;\n    // parameter integer GHOST = 1\n")
	var got []string
	for _, m := range declared.FindAllSubmatch(lineComment.ReplaceAll(unit, nil), -1) {
		got = append(got, string(m[1]))
	}
	if want := []string{"FW", "CRC_POLY", "S"}; !slices.Equal(got, want) {
		t.Errorf("declared %v, want %v", got, want)
	}
}
