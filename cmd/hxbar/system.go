package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/hxbar/hxbar/hw"
	"github.com/hxbar/hxbar/testbench"
)

// bindSystem registers --config and the system flags on fs; the returned
// function, called after parsing, gives the system they describe.
func bindSystem(fs *flag.FlagSet) func() (hw.System, error) {
	config := fs.String("config", "", "system description `FILE` (YAML, see docs/config.md); flags override it")
	flags := hw.BindFlags(fs)
	return func() (hw.System, error) {
		s, err := flags.Load(*config)
		if errors.Is(err, os.ErrNotExist) {
			err = fmt.Errorf("--config: %w", err) // the file is not there: name the flag
		}
		return s, err
	}
}

// bindPrintConfig registers --print-config on fs.
func bindPrintConfig(fs *flag.FlagSet) *bool {
	return fs.Bool("print-config", false, "print the resolved system (defaults, then --config, then the system flags) as a system file that --config reads back to the same system, and exit without running or writing any file (docs/config.md)")
}

// printConfig writes s as the system file of --print-config: every key,
// so reading it back applies no default (hw.System.YAML).
func printConfig(w io.Writer, s hw.System) error {
	y, err := s.YAML()
	if err != nil {
		return err
	}
	_, err = w.Write(y)
	return err
}

// refuseScheduleConfig refuses --print-config for a run whose schedule comes
// from file (--schedule FILE, or the schedule a cosim --dir records): a
// system file has no key for a schedule, so --config would run another.
func refuseScheduleConfig(file string) error {
	return usagef("--print-config cannot carry the schedule %s: a system file has no key for a schedule, so --config would run the generated one (give --config with --schedule %s)", file, file)
}

// dirSchedule returns the schedule file a generated directory records
// (testbench.ScheduleFile or DataScheduleFile), or "" when it has none.
func dirSchedule(dir string) string {
	for _, f := range []string{testbench.ScheduleFile, testbench.DataScheduleFile} {
		p := filepath.Join(dir, f)
		if _, err := os.Lstat(p); err == nil {
			return p
		}
	}
	return ""
}
