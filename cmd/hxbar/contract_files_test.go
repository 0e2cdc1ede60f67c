package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// Issue 24, one writer: a run writes no file through a symlink or a hard
// link, onto a FIFO, or into a directory another tool owns. Each case's
// snapshot proves the user's file (the link's target, the other name) and
// the other tool's directory are unchanged.

// ranCLI is a setup step: hxbar args must succeed ("$D" is d).
func ranCLI(t *testing.T, d string, args ...string) {
	t.Helper()
	for i, a := range args {
		args[i] = strings.ReplaceAll(a, "$D", d)
	}
	var o, e strings.Builder
	if code := run(args, &o, &e); code != 0 {
		t.Fatalf("setup hxbar %s: exit %d: %s", strings.Join(args, " "), code, e.String())
	}
}

// then chains setup steps.
func then(steps ...func(t *testing.T, d string)) func(t *testing.T, d string) {
	return func(t *testing.T, d string) {
		for _, s := range steps {
			s(t, d)
		}
	}
}

func symlinked(link, target string) func(t *testing.T, d string) {
	return func(t *testing.T, d string) {
		if err := syscall.Symlink(filepath.Join(d, target), filepath.Join(d, link)); err != nil {
			t.Fatal(err)
		}
	}
}

func hardLinked(link, target string) func(t *testing.T, d string) {
	return func(t *testing.T, d string) {
		if err := syscall.Link(filepath.Join(d, target), filepath.Join(d, link)); err != nil {
			t.Fatal(err)
		}
	}
}

func sweptInto(dir string) func(t *testing.T, d string) {
	return then(sweepSetup(map[string]string{"s.yaml": sweepSpec}), func(t *testing.T, d string) {
		ranCLI(t, d, "sweep", "$D/s.yaml", "--out", "$D/"+dir)
	})
}

var _ = registerContract("files",
	contractCase{
		name: "gen refuses a sweep directory", args: []string{"gen", "--out", "$D/out", "--dims", "2"},
		setup: sweptInto("out"), exit: 2,
		stderr: []string{"$D/out: a sweep directory (hxbar sweep)", "allowed: a new or empty directory, or one hxbar gen wrote"},
	},
	contractCase{
		name: "gen --force refuses a sweep directory", args: []string{"gen", "--out", "$D/out", "--dims", "2", "--force"},
		setup: sweptInto("out"), exit: 2, stderr: []string{"a sweep directory (hxbar sweep)"},
	},
	contractCase{
		name: "sweep refuses a gen directory", args: []string{"sweep", "$D/s.yaml", "--out", "$D/out"},
		setup: then(sweepSetup(map[string]string{"s.yaml": sweepSpec}), func(t *testing.T, d string) {
			ranCLI(t, d, "gen", "--out", "$D/out", "--dims", "2")
		}),
		exit: 2, stderr: []string{"$D/out: a gen directory (hxbar gen)", "allowed: a new or empty directory, or one hxbar sweep wrote"},
	},
	contractCase{
		name: "sim --plot through a symlink", args: []string{"sim", "--plot", "$D/t.svg"},
		setup: then(files("mine.txt", "user data\n"), symlinked("t.svg", "mine.txt")), exit: 2,
		stderr: []string{"$D/t.svg: a symlink, not followed (allowed: a new file or a regular file with no other hard link)"},
	},
	contractCase{
		name: "sim --trace through a hard link", args: []string{"sim", "--trace", "$D/t.txt"},
		setup: then(files("mine.txt", "user data\n"), hardLinked("t.txt", "mine.txt")), exit: 2,
		stderr: []string{"$D/t.txt: a file with 2 hard links"},
	},
	contractCase{
		name: "sim --vcd onto a FIFO", args: []string{"sim", "--vcd", "$D/w.vcd"},
		setup: fifo("w.vcd"), exit: 2, stderr: []string{"$D/w.vcd: a named pipe"},
	},
	contractCase{
		name: "sim: a refused output leaves an existing trace whole", args: []string{"sim", "--trace", "$D/t.txt", "--vcd", "$D/w.vcd"},
		setup: then(files("t.txt", "old trace\n"), fifo("w.vcd")), exit: 2, stderr: []string{"$D/w.vcd: a named pipe"},
	},
	contractCase{
		name: "sim --trace replaces its old trace", args: []string{"sim", "--trace", "$D/t.txt"},
		setup: files("t.txt", "old trace\n"), exit: 0, owns: []string{"t.txt"},
		check: func(t *testing.T, d string) {
			if b := readFile(t, filepath.Join(d, "t.txt")); b == "old trace\n" || b == "" {
				t.Errorf("t.txt not rewritten: %q", b)
			}
		},
	},
	contractCase{
		name: "sweep --plot-out onto a FIFO", args: []string{"sweep", "--plot", "x=order,y=cycles", "$D/out", "--plot-out", "$D/p.svg"},
		setup: then(sweptInto("out"), fifo("p.svg")), exit: 2, stderr: []string{"--plot-out $D/p.svg: a named pipe"},
	},
	contractCase{
		name: "sweep --plot-out onto /dev/full", args: []string{"sweep", "--plot", "x=order,y=cycles", "$D/out", "--plot-out", "/dev/full"},
		setup: sweptInto("out"), exit: 2, stderr: []string{"--plot-out /dev/full: a character device"},
	},
	contractCase{
		name: "sweep --plot-out through a hard link", args: []string{"sweep", "--plot", "x=order,y=cycles", "$D/out", "--plot-out", "$D/p.svg"},
		setup: then(sweptInto("out"), func(t *testing.T, d string) {
			ranCLI(t, d, "sweep", "--plot", "x=order,y=cycles", "$D/out", "--plot-out", "$D/mine.svg")
		}, hardLinked("p.svg", "mine.svg")),
		exit: 2, stderr: []string{"--plot-out $D/p.svg: a file with 2 hard links"},
	},

	// One reader: a file a manifest lists is hashed streamed and capped; a
	// FIFO is never opened.
	contractCase{
		name: "gen over an 8 GiB file its manifest lists", args: []string{"gen", "--out", "$D/out", "--dims", "2"},
		setup: then(generatedInto("out"), sparse("out/hx_top.v", 8<<30)), exit: 2,
		stderr: []string{"$D/out/hx_top.v: 8589934592 bytes (allowed: at most 1024 MiB)"},
	},
	contractCase{
		name: "gen over an 8 GiB manifest", args: []string{"gen", "--out", "$D/out", "--dims", "2"},
		setup: then(generatedInto("out"), sparse("out/hxbar-manifest.json", 8<<30)), exit: 2,
		stderr: []string{"unreadable manifest", "8589934592 bytes (allowed: at most 16 MiB)"},
	},
	contractCase{
		name: "cosim: a FIFO hx_sources.f", args: []string{"cosim", "--dir", "$D/out"},
		setup: then(generatedInto("out"), removed("out/hx_sources.f"), fifo("out/hx_sources.f")), exit: 2,
		stderr: []string{"$D/out/hx_sources.f: not a regular file (a named pipe; allowed: a regular file)"},
	},
	contractCase{
		name: "synth: a FIFO hx_sources.f", args: []string{"synth", "--dir", "$D/out"},
		setup: then(generatedInto("out"), removed("out/hx_sources.f"), fifo("out/hx_sources.f")), exit: 2,
		stderr: []string{"$D/out/hx_sources.f: not a regular file (a named pipe; allowed: a regular file)"},
	},
	contractCase{
		name: "sweep over an 8 GiB results.csv", args: []string{"sweep", "$D/s.yaml", "--out", "$D/out"},
		setup: then(sweptInto("out"), sparse("out/results.csv", 8<<30)), exit: 2,
		stderr: []string{"$D/out/results.csv: 8589934592 bytes (allowed: at most 1024 MiB)"},
	},
	contractCase{
		name: "sweep --collect over an 8 GiB shard file", args: []string{"sweep", "--collect", "$D/out"},
		setup: then(sweepSetup(map[string]string{"s.yaml": sweepSpec}), func(t *testing.T, d string) {
			ranCLI(t, d, "sweep", "$D/s.yaml", "--out", "$D/out", "--shard", "0/1")
		}, sparse("out/shards/0/results.jsonl", 8<<30)), exit: 2,
		stderr: []string{"$D/out/shards/0/results.jsonl: 8589934592 bytes (allowed: at most 1024 MiB)"},
	},
	contractCase{
		name: "sweep --plot over an 8 GiB results.jsonl", args: []string{"sweep", "--plot", "x=order,y=cycles", "$D/out"},
		setup: then(sweptInto("out"), sparse("out/results.jsonl", 8<<30)), exit: 2,
		stderr: []string{"$D/out/results.jsonl: 8589934592 bytes (allowed: at most 1024 MiB)"},
	},
	contractCase{
		name: "sweep: a log line over 1 MiB names its line", args: []string{"sweep", "$D/s.yaml", "--out", "$D/out"},
		setup: then(sweptInto("out"), appended("out/points.jsonl", strings.Repeat("x", 2<<20)+"\n")), exit: 2,
		stderr: []string{"$D/out/points.jsonl: line 5: longer than 1048576 bytes (allowed: at most 1 MiB a line)"},
	},

	// The run log and the shards: never written through a link.
	contractCase{
		name: "sweep: a hard-linked points.jsonl", args: []string{"sweep", "$D/s2.yaml", "--out", "$D/out"},
		setup: then(sweptInto("out"), files("s2.yaml", sweepSpec2), hardLinked("mine.jsonl", "out/points.jsonl")), exit: 2,
		stderr: []string{"$D/out/points.jsonl: a file with 2 hard links"},
	},
	contractCase{
		name: "sweep --shard: a symlinked DIR/shards/i", args: []string{"sweep", "$D/s.yaml", "--out", "$D/out", "--shard", "0/2"},
		setup: then(sweepSetup(map[string]string{"s.yaml": sweepSpec}), func(t *testing.T, d string) {
			ranCLI(t, d, "sweep", "$D/s.yaml", "--out", "$D/out", "--shard", "1/2")
			if err := os.Mkdir(filepath.Join(d, "elsewhere"), 0o755); err != nil { // empty: a sweep would write into it
				t.Fatal(err)
			}
		}, symlinked("out/shards/0", "elsewhere")), exit: 2,
		stderr: []string{"$D/out/shards/0: a symlink, not followed"},
	},
	contractCase{
		name: "sweep refused by the lock changes nothing", args: []string{"sweep", "$D/s2.yaml", "--out", "$D/out"},
		setup: then(sweptInto("out"), files("s2.yaml", sweepSpec2), locked("out/points.jsonl")), exit: 2,
		stderr: []string{"$D/out/points.jsonl: another hxbar sweep is running in this directory"},
	},
)

// sweepSpec2 is sweepSpec with other points: a run of it would rewrite
// sweep.json.
const sweepSpec2 = "base: {collective: allgather, items: 4, skew: 0}\nvary:\n  order: [OOMM]\nmeasure: [cycles]\n"

func generatedInto(dir string) func(t *testing.T, d string) {
	return func(t *testing.T, d string) { ranCLI(t, d, "gen", "--out", "$D/"+dir, "--dims", "2") }
}

func removed(name string) func(t *testing.T, d string) {
	return func(t *testing.T, d string) {
		if err := os.Remove(filepath.Join(d, name)); err != nil {
			t.Fatal(err)
		}
	}
}

func appended(name, text string) func(t *testing.T, d string) {
	return func(t *testing.T, d string) {
		f, err := os.OpenFile(filepath.Join(d, name), os.O_APPEND|os.O_WRONLY, 0)
		if err == nil {
			_, err = f.WriteString(text)
			f.Close()
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

// locked holds an exclusive flock on name until the case ends, as a sweep
// running in the directory does.
func locked(name string) func(t *testing.T, d string) {
	return func(t *testing.T, d string) {
		f, err := os.Open(filepath.Join(d, name))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
			t.Fatal(err)
		}
	}
}

func readFile(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
