package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hxbar/hxbar/internal/gendir"
	"github.com/hxbar/hxbar/testbench"
	"github.com/hxbar/hxbar/verilog"
)

// hxbar gen never loses a user's file (issue 9): it owns exactly what its
// manifest lists. Each case's snapshot proves that nothing outside owns
// changed: a user's files with generated-looking names, symlink targets,
// the directory's neighbours.

// genNames are the files gen may write into a directory of at most 4 nodes
// and 8 switches, under dir, except those in but.
func genNames(dir string, but ...string) []string {
	names := append(verilog.Library(), verilog.TopFile, verilog.ParamsFile, verilog.SystemFile,
		gendir.ManifestName, testbench.ScheduleFile, testbench.DataScheduleFile)
	names = append(names, testbench.Files()...)
	for n := 0; n < 4; n++ {
		names = append(names, verilog.GateTableFile(n), verilog.DataTableFile(n))
	}
	for sw := 0; sw < 8; sw++ {
		names = append(names, verilog.RouteTableFile(sw))
	}
	var out []string
	for _, n := range names {
		if !slices.Contains(but, n) {
			out = append(out, dir+"/"+n)
		}
	}
	return out
}

// genInto runs hxbar gen for a setup, failing the test on a non-zero exit.
func genInto(t *testing.T, args ...string) {
	t.Helper()
	if code, _, errs := hx(t, append([]string{"gen"}, args...)...); code != 0 {
		t.Fatalf("setup: gen %v: exit %d: %s", args, code, errs)
	}
}

// edit appends a line to the file d/name.
func edit(t *testing.T, d, name, line string) {
	t.Helper()
	f, err := os.OpenFile(filepath.Join(d, name), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(line + "\n"); err != nil {
		t.Fatal(err)
	}
}

// writeSchedule writes the JSON of 'hxbar schedule' for 4 ranks to d/s.json.

// cosimOK co-simulates dir and requires a match (skipped without Icarus).
func cosimOK(t *testing.T, dir string) {
	t.Helper()
	if _, err := exec.LookPath("iverilog"); err != nil {
		return
	}
	if code, out, errs := hx(t, "cosim", "--dir", dir); code != 0 || !strings.Contains(out, "cycle-exact") {
		t.Fatalf("cosim --dir %s: exit %d: %s%s", dir, code, out, errs)
	}
}

func isManaged(t *testing.T, dir string) {
	t.Helper()
	if _, err := gendir.ReadManifest(dir); err != nil {
		t.Fatalf("%s: %v", dir, err)
	}
}

var _ = registerContract("gen",
	contractCase{
		name: "a new directory: written whole, with its manifest and source list", exit: 0,
		args:   []string{"gen", "--out", "$D/out", "--dims", "2"},
		owns:   []string{"out"},
		stdout: []string{"hxbar-manifest.json lists the", "hx_sources.f"},
		check: func(t *testing.T, d string) {
			isManaged(t, filepath.Join(d, "out"))
			src, _ := os.ReadFile(filepath.Join(d, "out", testbench.SourcesFile))
			if want := strings.Join(testbench.Sources(), "\n") + "\n"; string(src) != want {
				t.Errorf("hx_sources.f: %q, want %q", src, want)
			}
		},
	},
	contractCase{
		name: "an empty directory is used", exit: 0,
		setup: func(t *testing.T, d string) { os.Mkdir(filepath.Join(d, "out"), 0o755) },
		args:  []string{"gen", "--out", "$D/out", "--dims", "2"},
		owns:  genNames("out"),
		check: func(t *testing.T, d string) { isManaged(t, filepath.Join(d, "out")) },
	},
	contractCase{
		name: "a user's files with table-like names survive a regenerate", exit: 0,
		setup: func(t *testing.T, d string) {
			genInto(t, "--out", filepath.Join(d, "out"), "--dims", "2,2", "--collective", "allgather", "--items", "2")
			writeFiles(t, d, map[string]string{
				"out/gt_n5_backup.hex": "mine", "out/rt_s_orig.hex": "mine", "out/dt_n9.hex": "mine",
				"out/notes.txt": "mine", "out/mine.v": "module broken(", "out/obj_dir/x": "build", "out/hx.vcd": "wave",
			})
		},
		args:   []string{"gen", "--out", "$D/out", "--dims", "2"},
		owns:   genNames("out"),
		stdout: []string{"removed:"},
		check: func(t *testing.T, d string) {
			for _, gone := range []string{"gt_n3.hex", "rt_s7.hex", "dt_n0.hex"} {
				if _, err := os.Stat(filepath.Join(d, "out", gone)); err == nil {
					t.Errorf("%s of the earlier design left behind", gone)
				}
			}
		},
	},
	contractCase{
		name: "a non-empty directory hxbar did not write is refused", exit: 2,
		setup: func(t *testing.T, d string) {
			writeFiles(t, d, map[string]string{
				"out/Makefile": "all:\n", "out/tb.v": "module mine;", "out/system.yaml": "dims: [2]\n",
				"out/schedule.json": "{}", "out/data-schedule.json": "{}", "out/gt_n0.hex": "mine",
			})
		},
		args:   []string{"gen", "--out", "$D/out", "--dims", "2"},
		stderr: []string{"$D/out: not empty and not written by hxbar (no hxbar-manifest.json)", "--force"},
	},
	contractCase{
		name: "--force writes into it, replacing files of the same names only", exit: 0,
		setup: func(t *testing.T, d string) {
			writeFiles(t, d, map[string]string{
				"out/Makefile": "all:\n", "out/tb.v": "module mine;", "out/gt_n0.hex": "mine", "out/notes": "mine", "out/sub/x": "mine",
			})
		},
		args:   []string{"gen", "--out", "$D/out", "--dims", "2", "--force"},
		owns:   genNames("out"),
		stdout: []string{"replaced:   Makefile, gt_n0.hex, tb.v (--force"},
	},
	contractCase{
		name: "--force does not make gen drop a user's schedule.json it does not write", exit: 2,
		setup: func(t *testing.T, d string) {
			genInto(t, "--out", filepath.Join(d, "out"), "--dims", "2")
			writeFiles(t, d, map[string]string{"out/schedule.json": "{}"})
		},
		args:   []string{"gen", "--out", "$D/out", "--dims", "2", "--force"},
		stderr: []string{"schedule.json is not hxbar's", "--schedule $D/out/schedule.json"},
	},
	contractCase{
		name: "an edited generated file is not overwritten", exit: 2,
		setup: func(t *testing.T, d string) {
			genInto(t, "--out", filepath.Join(d, "out"), "--dims", "2,2")
			edit(t, filepath.Join(d, "out"), "gt_n0.hex", "// my note")
			edit(t, filepath.Join(d, "out"), "Makefile", "# mine")
		},
		args:   []string{"gen", "--out", "$D/out", "--dims", "2,2", "--op", "sum"},
		stderr: []string{`"Makefile", "gt_n0.hex" are not written by hxbar or edited since`, "--force overwrites them"},
	},
	contractCase{
		name: "an edited generated file: --force overwrites it", exit: 0,
		setup: func(t *testing.T, d string) {
			genInto(t, "--out", filepath.Join(d, "out"), "--dims", "2,2")
			edit(t, filepath.Join(d, "out"), "gt_n0.hex", "// my note")
		},
		args:   []string{"gen", "--out", "$D/out", "--dims", "2,2", "--op", "sum", "--force"},
		owns:   genNames("out"),
		stdout: []string{"replaced:   gt_n0.hex"},
	},
	contractCase{
		name: "an edited table the new design does not have is left alone", exit: 0,
		setup: func(t *testing.T, d string) {
			genInto(t, "--out", filepath.Join(d, "out"), "--dims", "2,2")
			edit(t, filepath.Join(d, "out"), "gt_n3.hex", "// my note")
		},
		args:   []string{"gen", "--out", "$D/out", "--dims", "2"},
		owns:   genNames("out", "gt_n3.hex"),
		stdout: []string{"left alone: gt_n3.hex"},
	},
	contractCase{
		name: "a symlinked Makefile: its target outside is never written", exit: 2,
		setup: func(t *testing.T, d string) {
			genInto(t, "--out", filepath.Join(d, "out"), "--dims", "2")
			writeFiles(t, d, map[string]string{"precious": "keep me\n"})
			os.Remove(filepath.Join(d, "out", "Makefile"))
			if err := os.Symlink(filepath.Join(d, "precious"), filepath.Join(d, "out", "Makefile")); err != nil {
				t.Fatal(err)
			}
		},
		args:   []string{"gen", "--out", "$D/out", "--dims", "2"},
		stderr: []string{`"Makefile" is not written by hxbar`},
	},
	contractCase{
		name: "a symlinked Makefile with --force: the link is replaced, not its target", exit: 0,
		setup: func(t *testing.T, d string) {
			genInto(t, "--out", filepath.Join(d, "out"), "--dims", "2")
			writeFiles(t, d, map[string]string{"precious": "keep me\n"})
			os.Remove(filepath.Join(d, "out", "Makefile"))
			os.Symlink("../precious", filepath.Join(d, "out", "Makefile"))
		},
		args: []string{"gen", "--out", "$D/out", "--dims", "2", "--force"},
		owns: genNames("out"),
		check: func(t *testing.T, d string) {
			if st, err := os.Lstat(filepath.Join(d, "out", "Makefile")); err != nil || !st.Mode().IsRegular() {
				t.Errorf("Makefile is not a regular file now: %v", err)
			}
		},
	},
	contractCase{
		name: "a directory in the way is never replaced, even with --force; nothing changes", exit: 2,
		setup: func(t *testing.T, d string) {
			genInto(t, "--out", filepath.Join(d, "out"), "--dims", "2,2")
			os.Remove(filepath.Join(d, "out", "tb.v"))
			writeFiles(t, d, map[string]string{"out/tb.v/keep": "x"})
		},
		args:   []string{"gen", "--out", "$D/out", "--dims", "2", "--force"},
		stderr: []string{`"tb.v" is a directory`},
	},
	contractCase{
		name: "a read-only generated file is replaced (by rename), the design stays whole", exit: 0,
		setup: func(t *testing.T, d string) {
			genInto(t, "--out", filepath.Join(d, "out"), "--dims", "2,2")
			os.Chmod(filepath.Join(d, "out", "gt_n0.hex"), 0o444)
			os.Chmod(filepath.Join(d, "out", "tb.v"), 0o444)
		},
		args:  []string{"gen", "--out", "$D/out", "--dims", "2,2", "--op", "sum"},
		owns:  append(genNames("out"), "out/sim.vvp", "out/sim.vvp.stamp"),
		slow:  true,
		check: func(t *testing.T, d string) { cosimOK(t, filepath.Join(d, "out")) },
	},
	contractCase{
		name: "an unreadable manifest is refused", exit: 2,
		setup: func(t *testing.T, d string) {
			genInto(t, "--out", filepath.Join(d, "out"), "--dims", "2")
			writeFiles(t, d, map[string]string{"out/hxbar-manifest.json": "{"})
		},
		args:   []string{"gen", "--out", "$D/out", "--dims", "2"},
		stderr: []string{"unreadable manifest", "--force"},
	},
	contractCase{
		name: "the filesystem root is refused, even with --force", exit: 2,
		args:   []string{"gen", "--out", "/", "--dims", "2", "--force"},
		stderr: []string{"refusing to write into the filesystem root"},
		check: func(t *testing.T, d string) {
			if _, err := os.Stat("/" + gendir.ManifestName); err == nil {
				t.Errorf("wrote into /")
			}
		},
	},
	contractCase{
		name: "a file as --out", exit: 2,
		setup:  func(t *testing.T, d string) { writeFiles(t, d, map[string]string{"f": "x"}) },
		args:   []string{"gen", "--out", "$D/f", "--dims", "2"},
		stderr: []string{"not a directory"},
	},
	contractCase{
		name: "a symlink to a directory as --out: the directory it names is written", exit: 0,
		setup: func(t *testing.T, d string) {
			os.Mkdir(filepath.Join(d, "real"), 0o755)
			os.Symlink("real", filepath.Join(d, "link"))
		},
		args:  []string{"gen", "--out", "$D/link", "--dims", "2"},
		owns:  []string{"real"},
		check: func(t *testing.T, d string) { isManaged(t, filepath.Join(d, "real")) },
	},
	contractCase{
		name: "gen --config DIR/system.yaml --out DIR: the edited input is read, then regenerated", exit: 0,
		setup: func(t *testing.T, d string) {
			genInto(t, "--out", filepath.Join(d, "out"), "--dims", "2,2")
			p := filepath.Join(d, "out", "system.yaml")
			y, _ := os.ReadFile(p)
			os.WriteFile(p, []byte(strings.Replace(string(y), "\nop: barrier", "\nop: sum", 1)), 0o644)
		},
		args: []string{"gen", "--config", "$D/out/system.yaml", "--out", "$D/out"},
		owns: append(genNames("out"), "out/sim.vvp", "out/sim.vvp.stamp"),
		slow: true,
		check: func(t *testing.T, d string) {
			y, _ := os.ReadFile(filepath.Join(d, "out", "system.yaml"))
			if !strings.Contains(string(y), "\nop: sum") || !strings.HasPrefix(string(y), "# generated by hxbar") {
				t.Fatalf("system.yaml: %.300s", y)
			}
			if !gendir.Owns(filepath.Join(d, "out"), "system.yaml") {
				t.Error("the regenerated system.yaml is not in the manifest")
			}
			cosimOK(t, filepath.Join(d, "out"))
		},
	},
	contractCase{
		name: "gen --config DIR/system.yaml --schedule DIR/schedule.json --out DIR keeps the schedule", exit: 0,
		setup: func(t *testing.T, d string) {
			writeSchedule(t, d, "s.json", "butterfly-near-first", 4)
			genInto(t, "--out", filepath.Join(d, "out"), "--dims", "2,2", "--schedule", filepath.Join(d, "s.json"))
		},
		args: []string{"gen", "--config", "$D/out/system.yaml", "--schedule", "$D/out/schedule.json", "--out", "$D/out"},
		owns: append(genNames("out"), "out/sim.vvp", "out/sim.vvp.stamp"),
		slow: true,
		check: func(t *testing.T, d string) {
			if !gendir.Owns(filepath.Join(d, "out"), testbench.ScheduleFile) {
				t.Fatal("schedule.json lost or not owned")
			}
			cosimOK(t, filepath.Join(d, "out"))
		},
	},
	contractCase{
		name: "an edited schedule.json regenerates from itself", exit: 0,
		setup: func(t *testing.T, d string) {
			writeSchedule(t, d, "s.json", "butterfly-near-first", 4)
			genInto(t, "--out", filepath.Join(d, "out"), "--dims", "2,2", "--schedule", filepath.Join(d, "s.json"))
			edit(t, filepath.Join(d, "out"), "schedule.json", " ")
		},
		args: []string{"gen", "--config", "$D/out/system.yaml", "--schedule", "$D/out/schedule.json", "--out", "$D/out"},
		owns: genNames("out"),
	},
	contractCase{
		name: "an edited schedule.json is not dropped by a gen without --schedule", exit: 2,
		setup: func(t *testing.T, d string) {
			writeSchedule(t, d, "s.json", "butterfly-near-first", 4)
			genInto(t, "--out", filepath.Join(d, "out"), "--dims", "2,2", "--schedule", filepath.Join(d, "s.json"))
			edit(t, filepath.Join(d, "out"), "schedule.json", " ")
		},
		args:   []string{"gen", "--config", "$D/out/system.yaml", "--out", "$D/out"},
		stderr: []string{"schedule.json is not hxbar's", "--schedule $D/out/schedule.json"},
	},
	contractCase{
		name: "cosim's advice for a stale testbench names the recorded schedule", exit: 2,
		setup: func(t *testing.T, d string) {
			writeSchedule(t, d, "s.json", "butterfly-near-first", 4)
			genInto(t, "--out", filepath.Join(d, "out"), "--dims", "2,2", "--schedule", filepath.Join(d, "s.json"))
			p := filepath.Join(d, "out", "system.yaml")
			y, _ := os.ReadFile(p)
			os.WriteFile(p, []byte(strings.Replace(string(y), "\nseed: ", "\nseed: 1", 1)), 0o644)
		},
		args:   []string{"cosim", "--dir", "$D/out"},
		stderr: []string{"stale", "regenerate with 'hxbar gen --config $D/out/system.yaml --schedule $D/out/schedule.json --out $D/out'"},
		check: func(t *testing.T, d string) {
			// The advice works and leaves a consistent directory.
			genInto(t, "--config", filepath.Join(d, "out", "system.yaml"), "--schedule", filepath.Join(d, "out", "schedule.json"), "--out", filepath.Join(d, "out"))
			if _, err := os.Stat(filepath.Join(d, "out", testbench.ScheduleFile)); err != nil {
				t.Fatal(err)
			}
		},
	},
	contractCase{
		name: "cosim's advice for an edited testbench file adds --force, and following it works", exit: 2,
		setup: func(t *testing.T, d string) {
			genInto(t, "--out", filepath.Join(d, "out"), "--dims", "2,2")
			edit(t, filepath.Join(d, "out"), "tb.v", "\n")
		},
		args:   []string{"cosim", "--dir", "$D/out"},
		stderr: []string{"regenerate with 'hxbar gen --config $D/out/system.yaml --out $D/out --force' (--force because tb.v differs"},
		check: func(t *testing.T, d string) {
			genInto(t, "--config", filepath.Join(d, "out", "system.yaml"), "--out", filepath.Join(d, "out"), "--force")
			if !gendir.Owns(filepath.Join(d, "out"), testbench.TBFile) {
				t.Fatal("tb.v not regenerated")
			}
		},
	},
	contractCase{
		name: "cosim on a directory with a table missing names the file", exit: 2,
		setup: func(t *testing.T, d string) {
			genInto(t, "--out", filepath.Join(d, "out"), "--dims", "2,2")
			os.Remove(filepath.Join(d, "out", "gt_n3.hex"))
		},
		args:   []string{"cosim", "--dir", "$D/out"},
		stderr: []string{"$D/out: no gt_n3.hex (the gate table of node 3): regenerate with 'hxbar gen --config $D/out/system.yaml --out $D/out'"},
	},
	contractCase{
		name: "cosim compiles only the listed sources, not a user's .v file", exit: 0,
		setup: func(t *testing.T, d string) {
			genInto(t, "--out", filepath.Join(d, "out"), "--dims", "2")
			writeFiles(t, d, map[string]string{"out/mine.v": "module broken(", "out/zz_tb.v": "module hx_tb; endmodule\n"})
		},
		args:   []string{"cosim", "--dir", "$D/out"},
		owns:   []string{"out/sim.vvp", "out/sim.vvp.stamp"},
		stdout: []string{"RTL matches the model, cycle-exact"},
		slow:   true,
	},
)

// TestGenRemovesStaleTables: generating a smaller design into a directory
// hxbar wrote leaves no table of the earlier one behind, and removes only
// what its manifest owns: a user's backup of a table and a table edited
// since are kept.
func TestGenRemovesStaleTables(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	if code, _, errs := hx(t, "gen", "--out", dir, "--collective", "allgather", "--items", "4"); code != 0 {
		t.Fatal(errs)
	}
	backup, _ := os.ReadFile(filepath.Join(dir, "gt_n5.hex"))
	os.WriteFile(filepath.Join(dir, "gt_n5_backup.hex"), backup, 0o644)
	edit(t, dir, "rt_s20.hex", "// edited")
	if code, _, errs := hx(t, "gen", "--out", dir, "--dims", "2,2"); code != 0 {
		t.Fatal(errs)
	}
	for _, pattern := range []string{"gt_n*.hex", "rt_s*.hex", "dt_n*.hex"} {
		files, _ := filepath.Glob(filepath.Join(dir, pattern))
		want := map[string]int{"gt_n*.hex": 4 + 1, "rt_s*.hex": 8 + 1, "dt_n*.hex": 0}[pattern]
		if len(files) != want {
			t.Errorf("%s: %d files, want %d: %v", pattern, len(files), want, files)
		}
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "gt_n5_backup.hex")); string(got) != string(backup) {
		t.Error("the user's backup changed")
	}
	if gendir.Owns(dir, "rt_s20.hex") {
		t.Error("the edited rt_s20.hex is still in the manifest")
	}
}

// TestRunShWithoutGo: run.sh names its system, compiles only hx_sources.f
// (a user's broken .v file is ignored), and refuses a stale testbench with
// one line naming the file and the regenerate command; an edited table is
// the design under test and is run.
func TestRunShWithoutGo(t *testing.T) {
	needIcarus(t)
	dir := filepath.Join(t.TempDir(), "out")
	if code, _, errs := hx(t, "gen", "--out", dir, "--dims", "2", "--name", "runsh-2"); code != 0 {
		t.Fatal(errs)
	}
	writeFiles(t, dir, map[string]string{"mine.v": "module broken("})
	runSh := func(args ...string) (string, string, int) {
		cmd := exec.Command("sh", append([]string{filepath.Join(dir, "run.sh")}, args...)...)
		var o, e strings.Builder
		cmd.Stdout, cmd.Stderr = &o, &e
		err := cmd.Run()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return o.String(), e.String(), code
	}
	out, errs, code := runSh()
	if code != 0 || !strings.Contains(out, "\nPASS ") || !strings.Contains(errs, "system runsh-2") {
		t.Fatalf("run.sh: exit %d\n%s\n%s", code, out, errs)
	}
	if _, err := exec.LookPath("make"); err == nil {
		cmd := exec.Command("make", "-s")
		cmd.Dir = dir
		if b, err := cmd.CombinedOutput(); err != nil || !strings.Contains(string(b), "PASS ") {
			t.Fatalf("make: %v\n%s", err, b)
		}
	}
	// An unnamed system (the default's name is "") runs under its title.
	unnamed := filepath.Join(t.TempDir(), "unnamed")
	if code, _, errs := hx(t, "gen", "--out", unnamed, "--dims", "2"); code != 0 {
		t.Fatal(errs)
	}
	cmd := exec.Command("sh", filepath.Join(unnamed, "run.sh"))
	if b, err := cmd.CombinedOutput(); err != nil || !strings.Contains(string(b), "run.sh: system hyperxbar-2-butterfly-barrier, Icarus") || !strings.Contains(string(b), "\nPASS ") {
		t.Fatalf("run.sh of an unnamed system: %v\n%s", err, b)
	}
	gt := filepath.Join(dir, "gt_n1.hex")
	keep, _ := os.ReadFile(gt)
	os.Remove(gt)
	if _, errs, code := runSh(); code != 2 || errs != dir+": no gt_n1.hex (a file of the design): regenerate with 'hxbar gen --config "+dir+"/system.yaml --out "+dir+"'\n" {
		t.Fatalf("missing table: exit %d, stderr %q", code, errs)
	}
	os.WriteFile(gt, keep, 0o644)
	edit(t, dir, "expected.hex", "")
	out, errs, code = runSh()
	want := dir + ": expected.hex is not the one generated for system runsh-2 (stale or edited); regenerate with 'hxbar gen --config " + dir + "/system.yaml --out " + dir + "'\n"
	if code != 2 || errs != want || out != "" {
		t.Fatalf("stale expected.hex: exit %d, stderr %q, want %q", code, errs, want)
	}
	if _, err := exec.LookPath("make"); err == nil {
		cmd := exec.Command("make", "-s", "icarus")
		cmd.Dir = dir
		if b, err := cmd.CombinedOutput(); err == nil || !strings.Contains(string(b), "expected.hex is not the one generated") {
			t.Fatalf("make with a stale expected.hex: %v\n%s", err, b)
		}
	}
}

// The contract cases above cover gen's options; keep the usage text exact.
func TestGenForceUsage(t *testing.T) {
	_, _, errs := hx(t, "gen", "-h")
	for _, want := range []string{"-force", "never written through", "never the filesystem root", "-out DIR"} {
		if !strings.Contains(errs, want) {
			t.Errorf("gen -h lacks %q:\n%s", want, errs)
		}
	}
}
