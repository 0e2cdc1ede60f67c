package verilog

import (
	"regexp"
	"slices"
	"strings"
	"testing"
)

// memArrayRe matches the declaration of a Verilog array (a memory): reg,
// an optional packed range, a name, then an unpacked range.
var memArrayRe = regexp.MustCompile(`\b(?:reg|logic|bit|integer)\s+(?:signed\s+)?(?:\[[^\]]*\]\s*)?([A-Za-z_]\w*)\s*\[`)

// memAllowed are the arrays allowed outside the memory wrapper
// (hx_mem*.v), file:name -> why. docs/rtl.md ("Memories") lists the same.
var memAllowed = map[string]string{
	"hx_barrier_unit.v:il_sim": "simulation only (ifndef SYNTHESIS): the payload check's copy of the item list, read at any index in the cycle it checks a flit",
	"hx_barrier_unit.v:e_sim":  "simulation only (ifndef SYNTHESIS): the payload check's copy of the expected-message words",
}

// stripComments removes // and /* */ comments (the library has no string
// containing either).
func stripComments(src string) string {
	var b strings.Builder
	for i := 0; i < len(src); {
		switch {
		case strings.HasPrefix(src[i:], "//"):
			j := strings.IndexByte(src[i:], '\n')
			if j < 0 {
				return b.String()
			}
			i += j
		case strings.HasPrefix(src[i:], "/*"):
			j := strings.Index(src[i+2:], "*/")
			if j < 0 {
				return b.String()
			}
			i += j + 4
		default:
			b.WriteByte(src[i])
			i++
		}
	}
	return b.String()
}

// libraryArrays returns every array declared in the library outside
// hx_mem*.v, as "file:name".
func libraryArrays(t *testing.T) []string {
	t.Helper()
	var found []string
	for _, f := range Library() {
		if strings.HasPrefix(f, "hx_mem") {
			continue
		}
		src, err := LibrarySource(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range memArrayRe.FindAllStringSubmatch(stripComments(string(src)), -1) {
			found = append(found, f+":"+m[1])
		}
	}
	return found
}

// TestMemoriesOnlyInWrapper: every table, FIFO and replay buffer of the
// RTL lives in hx_mem_1r1w (docs/rtl.md, "Memories"), so an integrator
// swaps one module for an SRAM macro or a block RAM. An array declared
// anywhere else fails the test, unless memAllowed names it with its
// reason; an allowed array that is gone fails it too (the list must stay
// true).
func TestMemoriesOnlyInWrapper(t *testing.T) {
	found := libraryArrays(t)
	var bad []string
	for _, a := range found {
		if _, ok := memAllowed[a]; !ok {
			bad = append(bad, a)
		}
	}
	if len(bad) > 0 {
		t.Errorf("arrays outside hx_mem*.v (put them behind hx_mem_1r1w, or allow them in memAllowed with the reason): %s", strings.Join(bad, ", "))
	}
	for a := range memAllowed {
		if !slices.Contains(found, a) {
			t.Errorf("memAllowed lists %s, which the library no longer declares", a)
		}
	}
	if !slices.Contains(Library(), "hx_mem_1r1w.v") {
		t.Fatal("the library has no hx_mem_1r1w.v")
	}
}

// TestMemArrayScanner: the scanner sees the declarations the library
// might use, and not comments or indexed uses.
func TestMemArrayScanner(t *testing.T) {
	src := `
    reg  [XW-1:0] xmem [0:XDEP-1];
    reg mem1[0:3];
    reg signed [7:0] s [0:1];
    integer tab [0:7];
    // reg [3:0] incomment [0:1];
    /* reg [3:0] inblock [0:1]; */
    reg [3:0] plain;
    wire [3:0] w = mem1[2];
    always @(posedge clk) q <= xmem[ra];
`
	var got []string
	for _, m := range memArrayRe.FindAllStringSubmatch(stripComments(src), -1) {
		got = append(got, m[1])
	}
	want := []string{"xmem", "mem1", "s", "tab"}
	if !slices.Equal(got, want) {
		t.Errorf("arrays found %v, want %v", got, want)
	}
}
