package testbench

import (
	"fmt"
	"strings"
)

// DiffContext is the number of lines Compare keeps on each side of the first
// difference.
const DiffContext = 3

// Diff is the first place where two traces differ.
type Diff struct {
	Index int // 0-based index of the first differing line (event #Index)
	Start int // index of Model[0] and RTL[0]: Index - DiffContext, or 0

	// Lines Start .. Index+DiffContext of each side (fewer where a trace
	// ends); the line at Index is missing on the side that ended first.
	Model []string
	RTL   []string

	ModelLen int // lines in the whole model trace
	RTLLen   int // lines in the whole RTL trace
}

// Compare returns nil when the two traces are identical, else the first
// diverging line with DiffContext lines of context from both sides.
func Compare(model, rtl []string) *Diff {
	i := 0
	for i < len(model) && i < len(rtl) && model[i] == rtl[i] {
		i++
	}
	if i == len(model) && i == len(rtl) {
		return nil
	}
	start := max(0, i-DiffContext)
	end := i + DiffContext + 1
	clip := func(l []string) []string {
		return append([]string(nil), l[min(start, len(l)):min(end, len(l))]...)
	}
	return &Diff{Index: i, Start: start, Model: clip(model), RTL: clip(rtl), ModelLen: len(model), RTLLen: len(rtl)}
}

// Summary is a one-line description of the first difference.
func (d *Diff) Summary() string {
	m, r := d.at(d.Model), d.at(d.RTL)
	switch {
	case r == "":
		return fmt.Sprintf("event #%d: the model has %q, the RTL trace ends after %d events", d.Index, m, d.RTLLen)
	case m == "":
		return fmt.Sprintf("event #%d: the RTL has %q, the model's trace ends after %d events", d.Index, r, d.ModelLen)
	}
	return fmt.Sprintf("event #%d: the model has %q, the RTL has %q", d.Index, m, r)
}

// at returns the line at d.Index of one side, "" when that side has ended.
func (d *Diff) at(side []string) string {
	if k := d.Index - d.Start; k < len(side) {
		return side[k]
	}
	return ""
}

// String prints the first difference with the context of both sides, the
// diverging line marked with '>':
//
//	first difference at event #5 (line 6):
//	  model                                     rtl
//	    #3  4 n1 send to=0 gate=2                 #3  4 n1 send to=0 gate=2
//	  > #5  ...
func (d *Diff) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "first difference at event #%d (line %d of the traces; the model has %d events, the RTL %d)\n",
		d.Index, d.Index+1, d.ModelLen, d.RTLLen)
	side := func(name string, lines []string, total int) {
		fmt.Fprintf(&b, "  %s:\n", name)
		for k, l := range lines {
			i := d.Start + k
			mark := "   "
			if i == d.Index {
				mark = " > "
			}
			fmt.Fprintf(&b, "  %s#%-5d %s\n", mark, i, l)
		}
		if d.Start+len(lines) <= d.Index {
			fmt.Fprintf(&b, "   > #%-5d (end of trace: %d events)\n", d.Index, total)
		}
	}
	side("model", d.Model, d.ModelLen)
	side("rtl", d.RTL, d.RTLLen)
	return strings.TrimSuffix(b.String(), "\n")
}
