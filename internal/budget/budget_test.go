package budget

import (
	"strings"
	"testing"
)

// TestParse: units of 1000 and 1024, plain bytes, and refusals of what
// is not a positive size.
func TestParse(t *testing.T) {
	for in, want := range map[string]Bytes{"4GiB": 4 << 30, "512M": 512 << 20, "1000000": 1e6, "2GB": 2e9, "1.5KiB": 1536, "8 MiB": 8 << 20} {
		if got, err := Parse(in); err != nil || got != want {
			t.Errorf("Parse(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "0", "-1G", "12QB", "GiB", "1e30", "NaN", "nan", "NaNGiB", "Inf", "0.1", "1e-300", "0x1p30", "1_000_000", "+1G", "0x100000000", "4194304TiB", "9223372036854775807"} {
		if _, err := Parse(in); err == nil || !strings.Contains(err.Error(), "e.g. 4GiB") {
			t.Errorf("Parse(%q): %v, want a refusal naming the allowed sizes", in, err)
		}
	}
}

// TestCheck: under the limit passes; over it, one line with the estimate,
// the limit and where the limit came from.
func TestCheck(t *testing.T) {
	l := Limit{Max: 1 << 30, From: "set by --max-memory"}
	if err := l.Check("x", 1<<30, ""); err != nil {
		t.Fatal(err)
	}
	err := l.Check("the cycle model of 4 nodes", 3<<29, "try less")
	if err == nil {
		t.Fatal("over the limit accepted")
	}
	want := "the cycle model of 4 nodes needs about 1.5 GiB of memory, over the budget of 1.0 GiB (set by --max-memory); try less"
	if err.Error() != want {
		t.Errorf("got %q\nwant %q", err, want)
	}
	if b, from := Default(); b <= 0 || from == "" {
		t.Errorf("Default() = %d, %q", b, from)
	}
}
