package formal

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"slices"
	"strings"

	"github.com/hxbar/hxbar/hw"
	"github.com/hxbar/hxbar/internal/inputfile"
	"github.com/hxbar/hxbar/internal/outfile"
	"github.com/hxbar/hxbar/internal/strictjson"
)

// LedgerFile is the repository's record of step proofs (docs/testing.md,
// "The ledger"): a whole make formal takes hours of one core, so the
// steps of one RTL are proved over several runs and kept here.
const LedgerFile = "verilog/formal/ledger.json"

// Proof is one step proved, as the ledger keeps it. Steps of several runs
// add up to one proof of a system when their inputs digests are today's
// and their free groups and tools are equal.
type Proof struct {
	System  string   `json:"system"`
	Step    string   `json:"step"`          // e.g. line4-b.b
	Inputs  string   `json:"inputs_sha256"` // Job.InputsDigest of the step
	RTL     string   `json:"rtl_sha256"`    // Job.RTLDigest: the RTL proved
	Free    []string `json:"free_groups"`   // the register groups free at the proof, sorted
	Tools   string   `json:"tools"`         // yosys -V
	Depth   int      `json:"depth_frames"`
	Seconds float64  `json:"seconds"`
	Build   string   `json:"build"` // the hxbar build that ran it
	Date    string   `json:"date"`  // YYYY-MM-DD
}

// key is what must be equal for steps to add up, besides the digest.
func (p Proof) key() string { return strings.Join(p.Free, ",") + "|" + p.Tools }

// ledgerMax caps the ledger read (a few hundred bytes a step).
const ledgerMax = 4 << 20

// ReadLedger reads a ledger; a missing file is an empty ledger.
func ReadLedger(path string) ([]Proof, error) {
	data, err := inputfile.ReadCapped(path, ledgerMax)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return nil, err
	}
	var ps []Proof
	if err := strictjson.Unmarshal(data, &ps, path); err != nil {
		return nil, err
	}
	for i, p := range ps {
		if p.System == "" || !strings.HasPrefix(p.Step, p.System+"-") || len(p.Inputs) != 64 || p.Tools == "" || !slices.IsSorted(p.Free) {
			return nil, fmt.Errorf("%s: proof %d (%q): wants system, a step of it, a 64-digit inputs_sha256, tools and sorted free_groups", path, i, p.Step)
		}
	}
	return ps, nil
}

// WriteLedger writes ps to path (atomically, no link followed), ordered by
// system, step and date, without exact repeats.
func WriteLedger(path string, ps []Proof) error {
	ps = slices.Clone(ps)
	for i := range ps {
		if ps[i].Free == nil {
			ps[i].Free = []string{} // the ledger's JSON has no nulls
		}
	}
	slices.SortStableFunc(ps, func(a, b Proof) int {
		return strings.Compare(a.System+" "+a.Step+" "+a.Date+" "+a.Inputs+" "+a.key(), b.System+" "+b.Step+" "+b.Date+" "+b.Inputs+" "+b.key())
	})
	ps = slices.CompactFunc(ps, func(a, b Proof) bool {
		return a.Step == b.Step && a.Inputs == b.Inputs && a.key() == b.key()
	})
	data, err := json.MarshalIndent(ps, "", "  ")
	if err != nil {
		return err
	}
	return outfile.WriteFile(path, append(data, '\n'), 0o644)
}

// StepDigests returns the inputs digest of every step of system s with
// the library's RTL, by name (e.g. line4-b.b), without running a tool:
// the jobs are built as PrepareSteps builds them.
func StepDigests(s Spec) (map[string]string, error) {
	cls, err := Classes(s, 8)
	if err != nil {
		return nil, err
	}
	hists := [][]hw.Algorithm{nil}
	for _, c := range cls {
		hists = append(hists, c.Rep)
	}
	out := map[string]string{}
	for _, rep := range hists {
		for _, x := range s.Algos {
			j, err := Build(stepSpec(s, rep, x), nil, "")
			if err != nil {
				return nil, err
			}
			out[j.Name] = j.InputsDigest()
		}
	}
	return out, nil
}

// Coverage is how far a ledger proves one system's steps of today.
type Coverage struct {
	Free    []string
	Tools   string
	Proved  []Proof  // one per step proved, in step order
	Missing []string // steps with no proof of today's inputs under Free and Tools
}

// Complete reports whether every step is proved under one free set and
// one set of tools: the induction of docs/testing.md then holds.
func (c Coverage) Complete() bool { return len(c.Missing) == 0 && len(c.Proved) > 0 }

// Cover finds, among the free set and tools of the ledger's proofs, the
// one under which most of today's steps (digests, from StepDigests) are
// proved, and returns it with the steps still missing under it.
func Cover(ledger []Proof, digests map[string]string) Coverage {
	steps := slices.Sorted(maps.Keys(digests))
	byKey := map[string]map[string]Proof{}
	for _, p := range ledger {
		if digests[p.Step] != p.Inputs {
			continue
		}
		if byKey[p.key()] == nil {
			byKey[p.key()] = map[string]Proof{}
		}
		byKey[p.key()][p.Step] = p
	}
	best := Coverage{Missing: steps}
	for _, k := range slices.Sorted(maps.Keys(byKey)) {
		got := byKey[k]
		if len(got) <= len(best.Proved) {
			continue
		}
		c := Coverage{}
		for _, st := range steps {
			if p, ok := got[st]; ok {
				c.Proved = append(c.Proved, p)
				c.Free, c.Tools = p.Free, p.Tools
			} else {
				c.Missing = append(c.Missing, st)
			}
		}
		best = c
	}
	return best
}
