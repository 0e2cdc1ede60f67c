package formal

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"slices"
	"strings"

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

// key is what must be equal for steps to add up, besides the digest: the
// free groups and the tools, unambiguously (JSON).
func (p Proof) key() string { return ProofKey(p.Free, p.Tools) }

// ProofKey is the key of a proof with free groups free (sorted) and tools.
func ProofKey(free []string, tools string) string {
	b, _ := json.Marshal([]any{free, tools}) // strings and a list: cannot fail
	return string(b)
}

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
	if err := CheckProofs(ps); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return ps, nil
}

// CheckProofs refuses a record a ledger must not hold, naming it: one
// without its system, a step of it, a 64-hex-digit digest, its tools, or
// with free groups unsorted, repeated, empty or holding a comma.
func CheckProofs(ps []Proof) error {
	for i, p := range ps {
		_, herr := hex.DecodeString(p.Inputs)
		groupsOK := slices.IsSorted(p.Free) && len(slices.Compact(slices.Clone(p.Free))) == len(p.Free) &&
			!slices.ContainsFunc(p.Free, func(g string) bool { return g == "" || strings.Contains(g, ",") })
		if p.System == "" || !strings.HasPrefix(p.Step, p.System+"-") || len(p.Inputs) != 64 || herr != nil || p.Tools == "" || !groupsOK {
			return fmt.Errorf("proof %d (%q): wants system, a step of it, a 64-hex-digit inputs_sha256, tools, and free_groups sorted, distinct, without commas", i, p.Step)
		}
	}
	return nil
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
	seen := map[string]bool{} // the first of the records proving one thing (the earliest)
	ps = slices.DeleteFunc(ps, func(p Proof) bool {
		k := p.Step + " " + p.Inputs + " " + p.key()
		defer func() { seen[k] = true }()
		return seen[k]
	})
	data, err := json.MarshalIndent(ps, "", "  ")
	if err != nil {
		return err
	}
	return outfile.WriteFile(path, append(data, '\n'), 0o644)
}

// StepDigests returns the digest (StepDigest) of every step of system s
// with the library's RTL, by name (e.g. line4-b.b), without running a
// tool: the jobs are built as PrepareSteps builds them.
func StepDigests(s Spec) (map[string]string, error) {
	cls, plan, err := planSteps(s)
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for _, p := range plan {
		j, err := Build(stepSpec(s, p.rep, p.x), nil, "")
		if err != nil {
			return nil, err
		}
		out[j.Name] = StepDigest(j, cls[p.into].Rep)
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
