package hw

import (
	"bytes"
	"fmt"
)

// MaxYAMLValues bounds the values (keys, scalars, list entries) of a
// system file. The YAML library builds a tree of about 150 bytes a value
// before hxbar sees any of it (up to 400 bytes a value in a flow list), so
// a 54 MB list of ones took 6.5 GB: the bound keeps a parse under about
// 2 GB and 15 s while leaving room for a placement of two million ranks
// (a block list counts a dash and a line break an entry).
const MaxYAMLValues = 1 << 22

// checkYAMLBudget refuses, before parsing, a document that may hold more
// than MaxYAMLValues values. Every YAML node after the first is introduced
// by one of the bytes counted here (a line break, a flow separator or
// bracket, a block indicator), so their count bounds the nodes from above;
// commas and dashes in comments or strings only make it more cautious.
func checkYAMLBudget(data []byte) error {
	n := 0
	for _, c := range []byte{'\n', '\r', ',', '[', '{', '-', ':', '?'} {
		n += bytes.Count(data, []byte{c})
	}
	if n > MaxYAMLValues {
		return fmt.Errorf("too many values to parse: %d line breaks, commas, brackets, dashes and colons (allowed: at most %d)", n, MaxYAMLValues)
	}
	return nil
}

// CheckYAMLBudget applies the bound of system files (MaxYAMLValues) to
// another YAML document read by hxbar: a sweep spec.
func CheckYAMLBudget(data []byte) error { return checkYAMLBudget(data) }
