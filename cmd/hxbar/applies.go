package main

import (
	"flag"
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

// refuseFaults refuses, in a command that builds or runs the RTL, what so
// far only the model has (docs/reliability.md): faults (--fault, key
// faults), routing exceptions (--avoid) and the watchdog. The check code
// (crc_bits) is accepted: it adds no flit and no cycle, and it is only
// checked in runs with faults. Link-level retry (link_retry) is accepted:
// the generated top wraps every channel in hx_link_tx / hx_link_rx, which
// add no cycle without faults.
func refuseFaults(what string, s hw.System) error {
	if len(s.Avoid) > 0 {
		return usagef("avoid (--avoid or key avoid: %s) does not apply to %s yet: the RTL switches have no routing exception list (docs/reliability.md); hxbar check --avoid proves the routes and hxbar sim --avoid runs them in the model", strings.Join(s.Avoid, ", "), what)
	}
	if s.Watchdog > 0 {
		return usagef("watchdog (--watchdog or key watchdog: %d cycles) does not apply to %s yet: the RTL units have no watchdog (docs/reliability.md); it runs in the model (hxbar sim, hxbar faults)", s.Watchdog, what)
	}
	if len(s.Faults) == 0 {
		return nil
	}
	return usagef("faults (--fault or key faults: %s) do not apply to %s: faults are injected into the model only (hxbar sim, hxbar faults), the RTL side is to follow (docs/reliability.md)", strings.Join(s.Faults, ", "), what)
}
