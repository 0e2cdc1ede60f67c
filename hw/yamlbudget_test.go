package hw

import (
	"errors"
	"strings"
	"testing"
)

// TestYAMLBudget: a system file with more values than MaxYAMLValues is
// refused before the YAML library builds its tree (a 54 MB list of ones
// took 6.5 GB), with one line saying what is allowed.
func TestYAMLBudget(t *testing.T) {
	big := "placement: [" + strings.Repeat("1,", MaxYAMLValues) + "1]\n"
	_, err := Parse([]byte(big))
	pe, ok := errors.AsType[*ParseError](err)
	if !ok || !strings.Contains(err.Error(), "too many values to parse") || !strings.Contains(err.Error(), "allowed: at most 4194304") || strings.Contains(err.Error(), "\n") {
		t.Fatalf("Parse of %d values: %v", MaxYAMLValues+1, err)
	}
	if pe.Line != 0 {
		t.Errorf("line %d, want none", pe.Line)
	}
	// Within the bound (commas in a comment count too), the file is parsed.
	_, err = Parse([]byte("dims: [2, 2]\n# " + strings.Repeat(",", MaxYAMLValues-8) + "\n"))
	if err != nil {
		t.Fatalf("a file within the bound: %v", err)
	}
}
