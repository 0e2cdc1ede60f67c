package formal

import (
	"bytes"
	"os"
	"path/filepath"
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
			if unit != nil && (!bytes.Equal(j.Files["hx_barrier_unit.v"], old) || bytes.Contains(j.Files["hx_top.v"], []byte("CRC_POLY("))) {
				t.Errorf("%s: the old unit was not substituted, or the top still passes CRC_POLY", s.Name)
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
