package testbench

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/hxbar/hxbar/hw"
	"github.com/hxbar/hxbar/sim"
	"github.com/hxbar/hxbar/verilog"
)

// needTools skips the test when a simulator is missing, unless the
// environment variable CI is set: in CI a missing simulator is a failure.
func needTools(t testing.TB, simulator string) {
	t.Helper()
	tools := map[string][]string{Icarus: {"iverilog", "vvp"}, Verilator: {"verilator", "make", "g++"}}[simulator]
	for _, tool := range tools {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv("CI") == "" {
				t.Skipf("%s not installed (%s); set CI=1 to make this a failure", tool, map[string]string{Icarus: installIcarus, Verilator: installVerilat}[simulator])
			}
			t.Fatalf("%s not installed and CI is set: %v", tool, err)
		}
	}
}

// system returns the default system with the given changes applied and
// validated.
func system(t testing.TB, name string, dims []int, ranks int, algo hw.Algorithm, op hw.OpName, lat, buf, fw int) hw.System {
	t.Helper()
	s := hw.Default()
	s.Name, s.Dims, s.Ranks, s.Algo, s.Op = name, dims, ranks, algo, op
	s.LinkLatency, s.BufferDepth, s.FlitWidth = lat, buf, fw
	s.Placement = nil
	if err := s.Validate(); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return s
}

// generate writes the design and the testbench for sys into dir, as
// 'hxbar gen' does (each @first fault resolved to the cycle the model met
// it), and returns the model system and its trace.
func generate(t testing.TB, dir string, sys hw.System) (*sim.System, []byte) {
	t.Helper()
	s, trace, _, err := RunModel(sys)
	if err != nil {
		t.Fatalf("%s: model: %v", sys.Name, err)
	}
	writeResolved(t, dir, s, trace)
	return s, trace
}

// writeResolved writes the RTL and the testbench of a model's run, each
// fault's @first resolved to the cycle the model met it.
func writeResolved(t testing.TB, dir string, s *sim.System, trace []byte) {
	t.Helper()
	if _, err := verilog.Generate(dir, s.Design); err != nil {
		t.Fatalf("%s: verilog.Generate: %v", s.Sys.Name, err)
	}
	if err := Generate(dir, Resolved(s), trace); err != nil {
		t.Fatalf("%s: testbench.Generate: %v", s.Sys.Name, err)
	}
}

// ctxFor is a context that guards a simulator run against a hang: at
// least 5 minutes whatever d says, since a run that takes 5 s alone takes
// minutes on a loaded 2-core machine (the guard is not a speed limit).
func ctxFor(t testing.TB, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), max(d, 5*time.Minute))
	t.Cleanup(cancel)
	return ctx
}

// saveFile returns a function that restores the file's current content.
func saveFile(t testing.TB, path string) func() {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return func() {
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func join(dir, name string) string { return filepath.Join(dir, name) }

// fullMatrix reports whether the long co-simulation matrices run whole
// (HXBAR_FULL_MATRIX set, as make bench does). make test runs a sample of
// each, so that it stays under 15 minutes on a 2-core machine.
func fullMatrix() bool { return os.Getenv("HXBAR_FULL_MATRIX") != "" }
