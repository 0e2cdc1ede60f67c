package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/hxbar/hxbar/internal/inputfile"
	"github.com/hxbar/hxbar/internal/outfile"
	"github.com/hxbar/hxbar/internal/strictjson"
	"github.com/hxbar/hxbar/internal/version"
	"github.com/hxbar/hxbar/verilog/formal"
)

// proofSuffix names the record a step run writes beside its files when
// the step is proved; -add merges such records into the ledger.
const proofSuffix = ".proof.json"

// toolsVersion is what the ledger records as the tools: Yosys, whose
// yosys-abc does the bounded check.
func toolsVersion(ctx context.Context) (string, error) {
	out, err := exec.CommandContext(ctx, "yosys", "-V").Output()
	if err != nil {
		return "", fmt.Errorf("yosys -V: %w", err)
	}
	return strings.TrimSpace(string(out)), nil
}

// writeProof records a proved step in dir (one file per step, so a run
// stopped half-way keeps what it proved).
func writeProof(dir string, p formal.Proof) error {
	data, err := json.MarshalIndent(p, "", "  ")
	if err != nil {
		return err
	}
	return outfile.WriteFile(filepath.Join(dir, p.Step+proofSuffix), append(data, '\n'), 0o644)
}

// newProof is the record of step result r of system s.
func newProof(system string, r formal.Result, inputs, rtl string, free []string, tools string) formal.Proof {
	return formal.Proof{
		System: system, Step: r.Name, Inputs: inputs, RTL: rtl,
		Free: slices.Sorted(slices.Values(free)), Tools: tools,
		Depth: r.Depth, Seconds: r.Seconds,
		Build: version.String(), Date: time.Now().UTC().Format(time.DateOnly),
	}
}

// addProofs merges the step records found under paths (directories of a
// -steps run's -out, or record files) into the ledger.
func addProofs(ledgerPath string, paths []string) error {
	if len(paths) == 0 {
		return fmt.Errorf("-add: name the -out directories (or %s files) to merge", proofSuffix)
	}
	ledger, err := formal.ReadLedger(ledgerPath)
	if err != nil {
		return err
	}
	added := 0
	for _, root := range paths {
		// An input: a link naming a directory is read as that directory
		// (WalkDir would not enter it).
		if r, err := filepath.EvalSymlinks(root); err == nil {
			root = r
		}
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, proofSuffix) {
				return err
			}
			data, err := inputfile.ReadCapped(path, 1<<16)
			if err != nil {
				return err
			}
			var p formal.Proof
			if err := strictjson.Unmarshal(data, &p, path); err != nil {
				return err
			}
			ledger = append(ledger, p)
			added++
			return nil
		})
		if err != nil {
			return fmt.Errorf("-add: %w", err)
		}
	}
	if err := formal.CheckProofs(ledger); err != nil {
		return fmt.Errorf("-add: the ledger is left as it was: %w", err)
	}
	if added == 0 {
		fmt.Printf("no step proof (%s) under %s: the ledger is unchanged\n", proofSuffix, strings.Join(paths, ", "))
		return nil
	}
	if err := formal.WriteLedger(ledgerPath, ledger); err != nil {
		return err
	}
	fmt.Printf("%d step proofs merged into %s\n", added, ledgerPath)
	return nil
}

// status prints, for every step system matching only, which of today's
// steps the ledger proves under one free set and one set of tools, and
// fails unless all of them are.
func status(ledgerPath string, only *regexp.Regexp) error {
	ledger, err := formal.ReadLedger(ledgerPath)
	if err != nil {
		return err
	}
	incomplete := 0
	for _, s := range formal.StepSystems() {
		if !only.MatchString(s.Name) {
			continue
		}
		digests, err := formal.StepDigests(s)
		if err != nil {
			return err
		}
		c := formal.Cover(ledger, digests)
		for _, p := range c.Proved {
			fmt.Printf("%-14s proved  %s (inputs %.12s, %d frames, %.0f s, %s)\n", p.Step, p.Date, p.Inputs, p.Depth, p.Seconds, p.Build)
		}
		for _, st := range c.Missing {
			fmt.Printf("%-14s MISSING (inputs %.12s)\n", st, digests[st])
		}
		verdict := "every step proved on today's inputs, one free set and one set of tools"
		if !c.Complete() {
			verdict = fmt.Sprintf("%d of %d steps missing", len(c.Missing), len(digests))
			incomplete++
		}
		fmt.Printf("%s: %s (free %s; %s)\n", s.Name, verdict, strings.Join(c.Free, ","), c.Tools)
	}
	if incomplete > 0 {
		return fmt.Errorf("%d systems not proved on today's RTL (run the missing steps: make formal resumes from %s)", incomplete, ledgerPath)
	}
	return nil
}

// proved returns the steps of digests the ledger proves under the free
// set free (the run's seed) and tools: a -resume run skips them.
func proved(ledger []formal.Proof, digests map[string]string, free []string, tools string) map[string]bool {
	want := formal.ProofKey(slices.Sorted(slices.Values(free)), tools)
	skip := map[string]bool{}
	for _, p := range ledger {
		if digests[p.Step] == p.Inputs && formal.ProofKey(p.Free, p.Tools) == want {
			skip[p.Step] = true
		}
	}
	return skip
}
