package sim

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hxbar/hxbar/hw"
)

// FuzzRunSystem: a system file, with episodes, repeat, faults and avoid
// lists, through the model end to end (hw.Parse, Build, Run), as hxbar sim
// runs it. Whatever the file: no panic; every refusal, and every run's
// error, is one line; a run ends complete, at max_cycles (*StuckError) or
// in a unit's error (*UnitError), nothing else; a run without faults or
// watchdog (a watchdog of 1 cycle times out, as documented), with 20,000
// cycles for a skew of at most 1,000, completes with every rank released. Systems too big to run cheaply are
// skipped (FuzzParse covers their parsing).
func FuzzRunSystem(f *testing.F) {
	for _, name := range []string{"default-4x4.yaml", "episodes-4x4.yaml"} {
		data, err := os.ReadFile(filepath.Join("..", "examples", name))
		if err != nil {
			f.Fatal(err)
		}
		var keep []string
		for l := range strings.Lines(string(data)) {
			if !strings.HasPrefix(l, "#") && strings.TrimSpace(l) != "" {
				keep = append(keep, l)
			}
		}
		f.Add([]byte(strings.Join(keep, "")))
	}
	for _, s := range []string{
		"dims: [4]\nrepeat: 3\nepisodes:\n  - {op: sum}\n  - {collective: allgather, items: 2, item_flits: 2}\n",
		"dims: [4]\nfaults: [\"flip:n0.d0.up@3:1\", \"drop:n1.eject@5\"]\nwatchdog: 500\n",
		"dims: [4]\nfaults: [\"stuck:3\"]\nwatchdog: 300\nmax_cycles: 2000\n",
		"dims: [4]\nfaults: [\"dead:n0.d0.up@0\"]\nmax_cycles: 3000\n",
		"dims: [4]\nfaults: [\"ackflip:n0.d0.up@4\"]\nlink_retry: 4\n",
		"dims: [4]\nfaults: [\"creditdrop:n2.d0.up@6\"]\nmax_cycles: 5000\n",
		"watchdog: 1\n", // times out at once, as documented: not a fault-free completion
		"dims: [4]\nfaults: [\"drop:n9.eject@5\"]\n", "dims: [4]\nfaults: [\"flip:n0.eject@3:99\"]\n",
		"dims: [3, 3]\navoid: [n0.d0.up]\n", "dims: [3, 3]\navoid: [n0.inject]\n", "dims: [3, 3]\navoid: [n0.d0.up, n0.d1.up]\n",
		"dims: [3, 3]\navoid: [N0.D0.UP]\n", "topology: torus\ndims: [3, 3]\navoid: [n0.d0+.vc0]\n",
		"topology: fattree\ndims: [4, 2]\nfaults: [\"drop:l0.w0.up0@4\"]\n",
		"dims: [4]\ncollective: allgather\nitems: 4\nitem_flits: 3\nrepeat: 2\nfaults: [\"flip:n1.d0.up@9:2\"]\ncrc_bits: 32\nwatchdog: 400\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		sys, err := hw.Parse(data)
		if err != nil || sys.Nodes() > 16 || sys.NumRanks() > 32 || sys.NumEpisodes() > 6 ||
			sys.Items*sys.ItemFlits > 64 || len(sys.Episodes) > 0 && manyItems(&sys) {
			return
		}
		// A shorter limit than the default million cycles keeps a stuck run
		// cheap; a system it makes invalid (a fault after it) is skipped.
		if sys.MaxCycles > 20_000 {
			if sys.MaxCycles = 20_000; sys.Validate() != nil {
				return
			}
		}
		s, err := Build(sys, nil)
		if err != nil {
			oneLineError(t, "Build", err)
			return
		}
		res, err := s.Run(Options{})
		_, stuck := errors.AsType[*StuckError](err)
		_, unit := errors.AsType[*UnitError](err)
		switch {
		case err != nil && !stuck && !unit:
			t.Fatalf("Run: %T %v, not a *StuckError or *UnitError", err, err)
		case err != nil:
			oneLineError(t, "Run", err)
		case res == nil || !res.Complete || res.Released != sys.NumRanks():
			t.Fatalf("Run without error: %+v, not complete", res)
		}
		if err != nil && len(sys.Faults) == 0 && sys.Watchdog == 0 && sys.MaxCycles == 20_000 && maxSkew(&sys) <= 1000 {
			t.Fatalf("a run without faults or watchdog, 20,000 cycles long: %v", err)
		}
	})
}

// maxSkew is the largest skew of s's episodes.
func maxSkew(s *hw.System) int {
	m := s.Skew
	for _, e := range s.Episodes {
		if e.Skew != nil {
			m = max(m, *e.Skew)
		}
	}
	return m
}

// manyItems says whether an episode of s moves more than 64 item flits.
func manyItems(s *hw.System) bool {
	for _, e := range s.Episodes {
		items, flits := s.Items, s.ItemFlits
		if e.Items != nil {
			items = *e.Items
		}
		if e.ItemFlits != nil {
			flits = *e.ItemFlits
		}
		if items*flits > 64 {
			return true
		}
	}
	return false
}

func oneLineError(t *testing.T, what string, err error) {
	t.Helper()
	if msg := err.Error(); msg == "" || strings.ContainsAny(msg, "\r\n") || len(msg) > 4000 {
		t.Fatalf("%s: error is not one short line (%d bytes): %.400q", what, len(msg), msg)
	}
}
