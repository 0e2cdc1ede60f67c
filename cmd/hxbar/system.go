package main

import (
	"flag"

	"github.com/hxbar/hxbar/hw"
)

// bindSystem registers --config and the system flags on fs; the returned
// function, called after parsing, gives the system they describe.
func bindSystem(fs *flag.FlagSet) func() (hw.System, error) {
	config := fs.String("config", "", "system description `FILE` (YAML, see docs/config.md); flags override it")
	flags := hw.BindFlags(fs)
	return func() (hw.System, error) { return flags.Load(*config) }
}
