package main

import (
	"fmt"
	"io"

	"github.com/hxbar/hxbar/sim/experiments"
)

// runExperiments measures the seeds' claims and writes docs/experiments.md
// with its plots (make experiments).
func runExperiments(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("experiments", stderr)
	doc := fs.String("doc", "docs/experiments.md", "write the report to `FILE`, in an existing directory (an existing file only if hxbar experiments wrote it)")
	img := fs.String("img", "docs/img", "write the SVG plots into `DIR`, created only in an existing directory (its plots overwritten only if hxbar experiments wrote them)")
	if err := parseFlags(fs, args, 0); err != nil {
		return err
	}
	opt := experiments.Default()
	opt.Progress = stderr
	if err := experiments.Write(opt, *doc, *img); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %s and its plots in %s\n", *doc, *img)
	return nil
}
