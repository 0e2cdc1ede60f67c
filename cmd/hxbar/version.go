package main

import (
	"fmt"
	"io"

	"github.com/hxbar/hxbar/internal/version"
)

// hxbar version: the module version and VCS revision this binary was built
// from; sweeps record the same string in every row (docs/sweeps.md).
func runVersion(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("version", stderr)
	format := fs.String("format", "table", "output format: table or json")
	if err := parseFlags(fs, args, 0); err != nil {
		return err
	}
	if err := checkFormat(*format); err != nil {
		return err
	}
	v := version.Read()
	if *format == "json" {
		return encodeIndented(stdout, map[string]any{"hxbar_version": v.String(), "module": orUnknown(v.Module),
			"revision": orUnknown(v.Revision), "modified": v.Modified})
	}
	_, err := fmt.Fprintf(stdout, "hxbar %s\n", v)
	return err
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}
