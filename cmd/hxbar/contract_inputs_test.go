package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// Inputs and outputs (docs/config.md, "Rules for files and exit codes"):
// an input is a regular file of at most 64 MiB, refused before it is read
// otherwise (no hang on a FIFO, no memory filled by /dev/zero); schedule
// JSON has no key twice and no null, at any depth; no output overwrites an
// input or another output; experiments overwrites only its own files and
// creates no parent directories.

// A valid gate schedule (hxbar schedule --format json --ranks 2) and data
// schedule (hxbar collective --nodes 4 --items 2) for the cases to spoil.
const (
	contractGate   = `{"ranks":2,"algo":"butterfly","gates":1,"routes":[{"from_rank":0,"from_gate":1,"to_rank":0,"to_gate":2,"distance":0},{"from_rank":0,"from_gate":1,"to_rank":1,"to_gate":2,"distance":1},{"from_rank":1,"from_gate":1,"to_rank":0,"to_gate":2,"distance":1},{"from_rank":1,"from_gate":1,"to_rank":1,"to_gate":2,"distance":0}]}`
	contractData   = `{"algo":"hitachi","nodes":4,"items":2,"placement":[0,1],"order":"OM","steps":[{"kind":"O","transfers":[{"src":0,"dst":2,"items":[0]},{"src":1,"dst":3,"items":[1]}]},{"kind":"M","transfers":[{"src":0,"dst":1,"items":[0]},{"src":1,"dst":0,"items":[1]},{"src":2,"dst":3,"items":[0]},{"src":3,"dst":2,"items":[1]}]}]}`
	contractReport = `{"ok":true,"step":null,"transfer":null,"node":null,"peer":null,"item":null,"message":"ok","steps":2,"step_costs":[1,1],"cost":2,"redundant":0}`
)

// files is a setup laying out files (path relative to the case's directory
// -> content).
func files(kv ...string) func(t *testing.T, d string) {
	return func(t *testing.T, d string) {
		m := map[string]string{}
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		writeFiles(t, d, m)
	}
}

// spoil is s with the first old replaced by new (the case's defect).
func spoil(s, old, new string) string {
	if !strings.Contains(s, old) {
		panic("spoil: " + old + " not in the schedule")
	}
	return strings.Replace(s, old, new, 1)
}

// sparse makes a file of n bytes that takes no disk space.
func sparse(name string, n int64) func(t *testing.T, d string) {
	return func(t *testing.T, d string) {
		f, err := os.Create(filepath.Join(d, name))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if err := f.Truncate(n); err != nil {
			t.Fatal(err)
		}
	}
}

func fifo(name string) func(t *testing.T, d string) {
	return func(t *testing.T, d string) {
		if err := syscall.Mkfifo(filepath.Join(d, name), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func symlink(name, target string) func(t *testing.T, d string) {
	return func(t *testing.T, d string) {
		if err := os.Symlink(strings.ReplaceAll(target, "$D", d), filepath.Join(d, name)); err != nil {
			t.Fatal(err)
		}
	}
}

// both runs several setups in order.
func both(fs ...func(t *testing.T, d string)) func(t *testing.T, d string) {
	return func(t *testing.T, d string) {
		for _, f := range fs {
			f(t, d)
		}
	}
}

var _ = registerContract("inputs",
	// Inputs are regular files of at most 64 MiB.
	contractCase{
		name: "oversize config", setup: sparse("system.yaml", 70000000),
		args: []string{"sim", "--config", "$D/system.yaml"}, exit: 2,
		stderr: []string{"$D/system.yaml: 70000000 bytes (allowed: at most 64 MiB)"},
	},
	contractCase{
		name: "config of 64 MiB + 1 byte", setup: sparse("system.yaml", 64<<20+1),
		args: []string{"check", "--config", "$D/system.yaml"}, exit: 2,
		stderr: []string{"67108865 bytes (allowed: at most 64 MiB)"},
	},
	contractCase{
		name: "oversize schedule for verify", setup: sparse("s.json", 65<<20),
		args: []string{"verify", "$D/s.json"}, exit: 2,
		stderr: []string{"$D/s.json: 68157440 bytes (allowed: at most 64 MiB)"},
	},
	contractCase{
		name: "oversize schedule for sim", setup: sparse("s.json", 65<<20),
		args: []string{"sim", "--schedule", "$D/s.json"}, exit: 2,
		stderr: []string{"68157440 bytes (allowed: at most 64 MiB)"},
	},
	contractCase{
		name: "/dev/zero as config", args: []string{"sim", "--config", "/dev/zero"}, exit: 2,
		stderr: []string{"/dev/zero: not a regular file (a character device; allowed: a regular file)"},
	},
	contractCase{
		name: "/dev/zero as verify's file", args: []string{"verify", "/dev/zero"}, exit: 2,
		stderr: []string{"/dev/zero: not a regular file"},
	},
	contractCase{
		name: "/dev/zero as a data schedule", args: []string{"sim", "--collective", "allgather", "--schedule", "/dev/zero"}, exit: 2,
		stderr: []string{"/dev/zero: not a regular file"},
	},
	contractCase{
		name: "/dev/urandom as config", args: []string{"check", "--config", "/dev/urandom"}, exit: 2,
		stderr: []string{"/dev/urandom: not a regular file"},
	},
	contractCase{
		name: "a symlink to /dev/zero as config", setup: symlink("system.yaml", "/dev/zero"),
		args: []string{"sim", "--config", "$D/system.yaml"}, exit: 2,
		stderr: []string{"$D/system.yaml: not a regular file (a character device"},
	},
	contractCase{
		name: "a FIFO as config does not hang", setup: fifo("system.yaml"),
		args: []string{"sim", "--config", "$D/system.yaml"}, exit: 2,
		stderr: []string{"$D/system.yaml: not a regular file (a named pipe; allowed: a regular file)"},
	},
	contractCase{
		name: "a FIFO as verify's file does not hang", setup: fifo("s.json"),
		args: []string{"verify", "$D/s.json"}, exit: 2,
		stderr: []string{"$D/s.json: not a regular file (a named pipe"},
	},
	contractCase{
		name: "a FIFO as schedule does not hang", setup: fifo("s.json"),
		args: []string{"sim", "--schedule", "$D/s.json"}, exit: 2,
		stderr: []string{"$D/s.json: not a regular file (a named pipe"},
	},
	contractCase{
		name: "a directory as config", setup: files("conf/x", ""),
		args: []string{"sim", "--config", "$D/conf"}, exit: 2,
		stderr: []string{"$D/conf: not a regular file (a directory; allowed: a regular file)"},
	},
	contractCase{
		name: "a config of too many values", setup: files("system.yaml", "placement: ["+strings.Repeat("1,", 1<<22)+"1]\n"),
		args: []string{"sim", "--config", "$D/system.yaml"}, exit: 2,
		stderr: []string{"$D/system.yaml: too many values to parse", "(allowed: at most 4194304)"},
	},

	// No output overwrites an input or another output; nothing is written.
	contractCase{
		name: "trace is config", setup: files("system.yaml", "dims: [2, 2]\n"),
		args: []string{"sim", "--config", "$D/system.yaml", "--trace", "$D/system.yaml"}, exit: 2,
		stderr: []string{"--trace $D/system.yaml is the input of --config"},
	},
	contractCase{
		name: "vcd is config by another spelling", setup: files("system.yaml", "dims: [2, 2]\n"),
		args: []string{"sim", "--config", "$D/system.yaml", "--vcd", "$D/sub/../system.yaml"}, exit: 2,
		stderr: []string{"--vcd $D/sub/../system.yaml is the input of --config"},
	},
	contractCase{
		name: "trace is config through a symlink", setup: both(files("system.yaml", "dims: [2, 2]\n"), symlink("out.trace", "system.yaml")),
		args: []string{"sim", "--config", "$D/system.yaml", "--trace", "$D/out.trace"}, exit: 2,
		stderr: []string{"--trace $D/out.trace is the input of --config"},
	},
	contractCase{
		name: "trace is schedule", setup: files("s.json", contractGate),
		args: []string{"sim", "--schedule", "$D/s.json", "--trace", "$D/./s.json"}, exit: 2,
		stderr: []string{"--trace $D/./s.json is the input of --schedule"},
	},
	contractCase{
		name: "vcd is a data schedule", setup: files("d.json", contractData),
		args: []string{"sim", "--collective", "allgather", "--schedule", "$D/d.json", "--vcd", "$D//d.json"}, exit: 2,
		stderr: []string{"is the input of --schedule"},
	},
	contractCase{
		name: "trace is vcd", args: []string{"sim", "--trace", "$D/run.out", "--vcd", "$D/run.out"}, exit: 2,
		stderr: []string{"--trace and --vcd name the same file $D/run.out"},
	},
	contractCase{
		name: "trace is vcd by another spelling", args: []string{"sim", "--trace", "$D/run.out", "--vcd", "$D/./x/../run.out"}, exit: 2,
		stderr: []string{"--trace and --vcd name the same file"},
	},
	contractCase{
		name: "trace is vcd through a symlink", setup: both(files("run.trace", "old"), symlink("run.vcd", "run.trace")),
		args: []string{"sim", "--trace", "$D/run.trace", "--vcd", "$D/run.vcd"}, exit: 2,
		stderr: []string{"--trace and --vcd name the same file $D/run.vcd"},
	},
	contractCase{
		name: "trace and vcd both /dev/null", args: []string{"sim", "--trace", "/dev/null", "--vcd", "/dev/null"}, exit: 0,
	},

	// Schedule JSON: no key twice, no null, at any depth, named.
	contractCase{
		name: "gate schedule: duplicate key", setup: files("s.json", spoil(contractGate, `"gates":1,`, `"gates":1,"ranks":4,`)),
		args: []string{"verify", "$D/s.json"}, exit: 2,
		stderr: []string{`$D/s.json: invalid gate schedule JSON: duplicate key "ranks"`},
	},
	contractCase{
		name: "gate schedule: duplicate nested key", setup: files("s.json", spoil(contractGate, `"to_rank":1,`, `"to_rank":1,"to_rank":0,`)),
		args: []string{"sim", "--schedule", "$D/s.json"}, exit: 2,
		stderr: []string{`invalid gate schedule JSON: routes[1]: duplicate key "to_rank"`},
	},
	contractCase{
		name: "gate schedule: null", setup: files("s.json", spoil(contractGate, `"ranks":2`, `"ranks":null`)),
		args: []string{"verify", "$D/s.json"}, exit: 2,
		stderr: []string{"invalid gate schedule JSON: ranks: null is not allowed"},
	},
	contractCase{
		name: "gate schedule: nested null", setup: files("s.json", spoil(contractGate, `"to_rank":1,`, `"to_rank":null,`)),
		args: []string{"verify", "$D/s.json"}, exit: 2,
		stderr: []string{"invalid gate schedule JSON: routes[1].to_rank: null is not allowed"},
	},
	contractCase{
		name: "data schedule: duplicate key", setup: files("d.json", spoil(contractData, `"items":2,`, `"items":2,"items":1,`)),
		args: []string{"sim", "--collective", "allgather", "--schedule", "$D/d.json"}, exit: 2,
		stderr: []string{`invalid data schedule JSON: duplicate key "items"`},
	},
	contractCase{
		name: "data schedule: duplicate nested key", setup: files("d.json", spoil(contractData, `"dst":2,`, `"dst":2,"dst":3,`)),
		args: []string{"sim", "--collective", "allgather", "--schedule", "$D/d.json"}, exit: 2,
		stderr: []string{`invalid data schedule JSON: steps[0].transfers[0]: duplicate key "dst"`},
	},
	contractCase{
		name: "data schedule: null", setup: files("d.json", spoil(contractData, `"nodes":4`, `"nodes":null`)),
		args: []string{"sim", "--collective", "allgather", "--schedule", "$D/d.json"}, exit: 2,
		stderr: []string{"invalid data schedule JSON: nodes: null is not allowed"},
	},
	contractCase{
		name: "data schedule: nested null", setup: files("d.json", spoil(contractData, `"items":[1]`, `"items":[null]`)),
		args: []string{"sim", "--collective", "allgather", "--schedule", "$D/d.json"}, exit: 2,
		stderr: []string{"invalid data schedule JSON: steps[0].transfers[1].items[0]: null is not allowed"},
	},
	contractCase{
		name:  "wrapped data schedule: duplicate key in the schedule",
		setup: files("d.json", `{"schedule":`+spoil(contractData, `"src":3,`, `"src":3,"src":2,`)+`,"report":`+contractReport+`}`),
		args:  []string{"sim", "--collective", "allgather", "--schedule", "$D/d.json"}, exit: 2,
		stderr: []string{`invalid data schedule JSON: schedule.steps[1].transfers[3]: duplicate key "src"`},
	},
	contractCase{
		name:  "wrapped data schedule: schedule twice",
		setup: files("d.json", `{"schedule":`+contractData+`,"report":`+contractReport+`,"schedule":{}}`),
		args:  []string{"sim", "--collective", "allgather", "--schedule", "$D/d.json"}, exit: 2,
		stderr: []string{`invalid data schedule JSON: duplicate key "schedule"`},
	},
	contractCase{
		// The report is not input: it says null where it names nothing
		// (a good schedule's step, node, ...), and is not read.
		name:  "wrapped data schedule: null report",
		setup: files("d.json", `{"schedule":`+contractData+`,"report":null}`),
		args:  []string{"sim", "--collective", "allgather", "--schedule", "$D/d.json"}, exit: 0,
	},
	contractCase{
		name:  "wrapped data schedule: a null in the schedule",
		setup: files("d.json", `{"schedule":`+spoil(contractData, `"items":2,`, `"items":null,`)+`,"report":`+contractReport+`}`),
		args:  []string{"sim", "--collective", "allgather", "--schedule", "$D/d.json"}, exit: 2,
		stderr: []string{"invalid data schedule JSON: items: null is not allowed"},
	},
	contractCase{
		name: "wrapped data schedule runs", slow: true,
		setup: files("d.json", `{"schedule":`+contractData+`,"report":`+contractReport+`}`),
		args:  []string{"sim", "--collective", "allgather", "--schedule", "$D/d.json", "--trace", "$D/d.trace"}, exit: 0,
		owns: []string{"d.trace"},
	},

	// experiments overwrites only its own files and creates no parents.
	contractCase{
		name: "experiments --doc onto a foreign file", setup: files("notes.md", "# my notes\n"),
		args: []string{"experiments", "--doc", "$D/notes.md", "--img", "$D/img"}, exit: 2,
		stderr: []string{"$D/notes.md: exists and was not written by hxbar experiments, not overwritten"},
	},
	contractCase{
		name: "experiments --img with a foreign plot", setup: files("img/exp-duplex.svg", "<svg/>\n"),
		args: []string{"experiments", "--doc", "$D/x.md", "--img", "$D/img"}, exit: 2,
		stderr: []string{"$D/img/exp-duplex.svg: exists and was not written by hxbar experiments"},
	},
	contractCase{
		name: "experiments into a missing directory",
		args: []string{"experiments", "--doc", "$D/nodir/x.md", "--img", "$D/nodir/img"}, exit: 2,
		stderr: []string{"$D/nodir: the report's directory does not exist"},
	},
	contractCase{
		name: "experiments --img in a missing directory",
		args: []string{"experiments", "--doc", "$D/x.md", "--img", "$D/nodir/img"}, exit: 2,
		stderr: []string{"$D/nodir: the plot directory's parent does not exist"},
	},
	contractCase{
		name:  "experiments outside the repository creates no ./docs",
		setup: func(t *testing.T, d string) { t.Chdir(d) },
		args:  []string{"experiments"}, exit: 2,
		stderr: []string{"docs: the report's directory does not exist"},
	},
	contractCase{
		name: "experiments writes its report and plots, and writes them again", slow: true,
		setup: files("docs/keep.md", "mine\n"),
		args:  []string{"experiments", "--doc", "$D/docs/x.md", "--img", "$D/docs/img"}, exit: 0,
		owns: []string{"docs/x.md", "docs/img"},
		check: func(t *testing.T, d string) {
			var o, e strings.Builder
			if code := run([]string{"experiments", "--doc", d + "/docs/x.md", "--img", d + "/docs/img"}, &o, &e); code != 0 {
				t.Errorf("second run over its own files: exit %d: %s", code, e.String())
			}
		},
	},
)
