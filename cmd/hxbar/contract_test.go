package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"
)

// The CLI contract every command is held to (docs/config.md, "Rules for
// files and exit codes"): exit 0 success, 1 a run that found a problem, 2
// bad usage or input; a failure is one line on stderr naming what was wrong;
// no panic, no hang; and nothing on disk that the run did not own changes.
//
// Each group of adversarial cases registers its table with
// registerContract (one file a group); TestCLIContract runs them all through
// one runner, so a new command is held to the same rules by adding rows.

// contractCase is one command line tried against the contract.
type contractCase struct {
	name string
	// args: "$D" in an argument is replaced by the case's own directory.
	args []string
	// setup lays out files in the case's directory d before the run.
	setup func(t *testing.T, d string)
	exit  int
	// stderr and stdout: substrings the outputs must contain ("$D" replaced).
	stderr []string
	stdout []string
	// owns: paths relative to d that the run may create, change or remove
	// (a directory name covers everything under it). Every other entry of
	// d, files, directories and symlinks, must be exactly as setup left it.
	owns []string
	// check: more checks after the run.
	check func(t *testing.T, d string)
	// slow cases (a simulator run, large inputs) are skipped with -short.
	slow bool
}

var contractGroups = map[string][]contractCase{}

// registerContract adds a group of cases to TestCLIContract; it is called
// from package-level variable initialisers, one group a file.
func registerContract(group string, cases ...contractCase) bool {
	if _, dup := contractGroups[group]; dup {
		panic("contract group registered twice: " + group)
	}
	contractGroups[group] = cases
	return true
}

// contractTimeout bounds one case: a hang is a failure, not a stuck test.
const contractTimeout = 60 * time.Second

func TestCLIContract(t *testing.T) {
	groups := make([]string, 0, len(contractGroups))
	for g := range contractGroups {
		groups = append(groups, g)
	}
	sort.Strings(groups)
	for _, g := range groups {
		t.Run(g, func(t *testing.T) {
			for _, c := range contractGroups[g] {
				t.Run(c.name, func(t *testing.T) { runContractCase(t, c) })
			}
		})
	}
}

func runContractCase(t *testing.T, c contractCase) {
	if c.slow && testing.Short() {
		t.Skip("slow case")
	}
	d := t.TempDir()
	if c.setup != nil {
		c.setup(t, d)
	}
	before := snapshot(t, d)
	args := make([]string, len(c.args))
	for i, a := range c.args {
		args[i] = strings.ReplaceAll(a, "$D", d)
	}
	type outcome struct {
		code           int
		stdout, stderr string
	}
	done := make(chan outcome, 1)
	go func() {
		var o, e bytes.Buffer
		code := run(args, &o, &e)
		done <- outcome{code, o.String(), e.String()}
	}()
	var got outcome
	select {
	case got = <-done:
	case <-time.After(contractTimeout):
		t.Fatalf("hxbar %s: no answer within %v (a hang)", strings.Join(args, " "), contractTimeout)
	}
	cmd := "hxbar " + strings.Join(args, " ")
	if got.code != c.exit {
		t.Errorf("%s: exit %d, want %d\nstderr: %s", cmd, got.code, c.exit, got.stderr)
	}
	if strings.Contains(got.stderr, "goroutine ") || strings.Contains(got.stderr, "panic") {
		t.Errorf("%s: a panic on stderr: %s", cmd, got.stderr)
	}
	if got.code != 0 {
		if lines := strings.Split(strings.TrimRight(got.stderr, "\n"), "\n"); len(lines) != 1 || lines[0] == "" {
			t.Errorf("%s: exit %d with %d lines on stderr, want one line: %q", cmd, got.code, len(lines), got.stderr)
		}
	}
	for _, s := range c.stderr {
		if s = strings.ReplaceAll(s, "$D", d); !strings.Contains(got.stderr, s) {
			t.Errorf("%s: stderr lacks %q: %q", cmd, s, got.stderr)
		}
	}
	for _, s := range c.stdout {
		if s = strings.ReplaceAll(s, "$D", d); !strings.Contains(got.stdout, s) {
			t.Errorf("%s: stdout lacks %q: %.2000s", cmd, s, got.stdout)
		}
	}
	after := snapshot(t, d)
	owned := func(p string) bool {
		for _, o := range c.owns {
			if p == o || strings.HasPrefix(p, o+"/") {
				return true
			}
		}
		return false
	}
	for p, was := range before {
		if owned(p) {
			continue
		}
		if now, ok := after[p]; !ok {
			t.Errorf("%s: removed %s, which it does not own", cmd, p)
		} else if now != was {
			t.Errorf("%s: changed %s, which it does not own (%s -> %s)", cmd, p, was, now)
		}
	}
	for p := range after {
		if _, ok := before[p]; !ok && !owned(p) {
			t.Errorf("%s: created %s, which it does not own", cmd, p)
		}
	}
	if c.check != nil && !t.Failed() {
		c.check(t, d)
	}
}

// snapshotHashMax: a regular file larger than this is described by its
// size and modification time instead of its content's hash.
const snapshotHashMax = 256 << 20

// snapshot describes every entry under d, without following symlinks: its
// kind, permission bits and content hash (a symlink: its target; a file
// over snapshotHashMax: its size and modification time).
func snapshot(t *testing.T, d string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(d, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(d, p)
		if rel == "." {
			return nil
		}
		info, err := e.Info()
		if err != nil {
			return err
		}
		switch {
		case info.Mode()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			out[rel] = "symlink -> " + target
		case info.IsDir():
			out[rel] = fmt.Sprintf("dir %v", info.Mode().Perm())
		case info.Mode().IsRegular() && info.Size() > snapshotHashMax:
			// A huge (sparse) file of a case: its size and time, not its
			// content, which would take seconds to read.
			out[rel] = fmt.Sprintf("file %v %d bytes %v", info.Mode().Perm(), info.Size(), info.ModTime().UnixNano())
		case info.Mode().IsRegular():
			f, err := os.Open(p)
			if err != nil {
				return err
			}
			h := sha256.New()
			_, err = io.Copy(h, f)
			f.Close()
			if err != nil {
				return err
			}
			out[rel] = fmt.Sprintf("file %v %s", info.Mode().Perm(), hex.EncodeToString(h.Sum(nil)[:8]))
		default:
			out[rel] = "special " + info.Mode().String()
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// writeFiles lays out files (path relative to d -> content) for a setup.
func writeFiles(t *testing.T, d string, files map[string]string) {
	t.Helper()
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		p := filepath.Join(d, n)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(files[n]), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// The runner's own rules, held by cases that must pass and by the
// snapshot catching a change.
var _ = registerContract("runner",
	contractCase{
		name: "unknown command", args: []string{"nonsense"}, exit: 2,
		stderr: []string{"unknown command", "allowed:"},
	},
	contractCase{
		name: "sim reads its config and writes only its trace", exit: 0,
		setup: func(t *testing.T, d string) {
			writeFiles(t, d, map[string]string{"in/system.yaml": "dims: [2, 2]\n"})
		},
		args: []string{"sim", "--config", "$D/in/system.yaml", "--trace", "$D/run.trace"},
		owns: []string{"run.trace"},
		check: func(t *testing.T, d string) {
			if st, err := os.Stat(filepath.Join(d, "run.trace")); err != nil || st.Size() == 0 {
				t.Errorf("no trace written: %v", err)
			}
		},
	},
)

func TestContractSnapshotSeesChanges(t *testing.T) {
	d := t.TempDir()
	writeFiles(t, d, map[string]string{"a": "1", "sub/b": "2"})
	os.Symlink("a", filepath.Join(d, "link"))
	before := snapshot(t, d)
	os.WriteFile(filepath.Join(d, "sub/b"), []byte("3"), 0o644)
	os.Remove(filepath.Join(d, "link"))
	os.Symlink("sub/b", filepath.Join(d, "link"))
	after := snapshot(t, d)
	if before["sub/b"] == after["sub/b"] || before["link"] == after["link"] || before["a"] != after["a"] {
		t.Fatalf("snapshot misses a change or sees one that is not there:\n%v\n%v", before, after)
	}
}
