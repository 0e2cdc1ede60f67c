package main

import (
	"flag"
	"math"
	"slices"
	"strings"

	"github.com/hxbar/hxbar/hw"
)

// A flag given on the command line but ignored by the command, or by the
// mode the other flags chose, would let a user believe it took effect. Each
// command declares which flags do not apply, and why; a given flag that does
// not apply is refused by name (exit 2):
//
//	hxbar traffic: --max-cycles does not apply to traffic (it runs --cycles cycles)

// notApplicable says that flags (names without dashes) do not apply, why.
type notApplicable struct {
	flags []string
	why   string
}

// refuseFlags returns a usage error for the first given flag (in name
// order, as the flag package visits them) that one of the rules says does
// not apply to what ("traffic", "collective --compare", ...).
func refuseFlags(fs *flag.FlagSet, what string, rules ...notApplicable) error {
	var err error
	fs.Visit(func(f *flag.Flag) {
		if err != nil {
			return
		}
		for _, r := range rules {
			if slices.Contains(r.flags, f.Name) {
				err = usagef("--%s does not apply to %s (%s)", f.Name, what, r.why)
				return
			}
		}
	})
	return err
}

// systemFlags are the flags of the system keys (BindFlags: the key with -
// for _), except those in keep.
func systemFlags(keep ...string) []string {
	var out []string
	for _, k := range hw.Keys() {
		if f := hw.KeyFlag(k); f != "" && !slices.Contains(keep, f) {
			out = append(out, f)
		}
	}
	return out
}

// dataOnlyFlags are the system flags only a data collective reads.
var dataOnlyFlags = []string{"items", "item-flits", "order", "item-placement"}

// refuseFaults refuses, in a command that builds or runs the RTL, what the
// RTL cannot take (docs/reliability.md): faults for synth, a watchdog past
// its register. Faults (--fault, key faults) are injected by the
// generated testbench (gen, cosim; synth has no testbench and refuses
// them); the watchdog is the units' WATCHDOG register, 32 bits; the check
// code (crc_bits) is the flits' sideband; routing exceptions (--avoid) are
// the switches' CAM; link-level retry (link_retry) wraps every channel in
// hx_link_tx / hx_link_rx, which add no cycle without faults.
func refuseFaults(what string, s hw.System) error {
	if s.Watchdog > math.MaxUint32 {
		return usagef("invalid watchdog: %d (allowed for %s: 0..%d, the units' 32-bit WATCHDOG register)", s.Watchdog, what, uint32(math.MaxUint32))
	}
	if len(s.Faults) == 0 || what != "synth" {
		return nil
	}
	return usagef("faults (--fault or key faults: %s) do not apply to synth: the generated testbench injects them (hxbar gen, hxbar cosim); the synthesized design is the same without them", strings.Join(s.Faults, ", "))
}
