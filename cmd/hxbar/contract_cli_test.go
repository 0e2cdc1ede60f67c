package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hxbar/hxbar/barrierunit"
	"github.com/hxbar/hxbar/hw"
)

// Issue 9: what cannot be handled is refused, fast and by name: commands
// and help, flags a command or mode ignores, runs that cannot finish within
// max_cycles, incomplete runs reported as such, messages that locate their
// field, and verify reporting a deadlock rather than refusing it.

// docsDeadlockExample is the JSON block after "The deadlock example" in
// docs/schedules.md: the test runs the page's own example.
func docsDeadlockExample(t *testing.T) string {
	t.Helper()
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "schedules.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(doc), "The deadlock example")
	if ok {
		_, rest, ok = strings.Cut(rest, "```json\n")
	}
	block, _, ok2 := strings.Cut(rest, "```")
	if !ok || !ok2 {
		t.Fatal("docs/schedules.md: no JSON block after \"The deadlock example\"")
	}
	return block
}

func writeSchedule(t *testing.T, d, name string, algo hw.Algorithm, ranks int) {
	t.Helper()
	s, err := barrierunit.Generate(algo, ranks)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(s)
	writeFiles(t, d, map[string]string{name: string(b)})
}

var _ = registerContract("cli",
	// Commands and help.
	contractCase{
		name: "no command", args: []string{}, exit: 2,
		stderr: []string{"usage: hxbar <command> [flags]", "commands: check, collective"},
	},
	contractCase{
		name: "help of an unknown command", args: []string{"help", "bogus"}, exit: 2,
		stderr: []string{`unknown command "bogus"`, "allowed: check, collective, cosim"},
	},
	contractCase{
		name: "help with two commands", args: []string{"help", "sim", "gen"}, exit: 2,
		stderr: []string{"help takes one command"},
	},
	contractCase{
		name: "help of sim is sim -h", args: []string{"help", "sim"}, exit: 0,
		stderr: []string{"usage of hxbar sim:", "-max-cycles", "-collective"},
	},
	contractCase{name: "help", args: []string{"help"}, exit: 0, stdout: []string{"usage: hxbar <command> [flags]", "traffic"}},
	contractCase{name: "-h", args: []string{"-h"}, exit: 0, stdout: []string{"usage: hxbar <command> [flags]"}},

	// Flags that do not apply are refused by name.
	contractCase{
		name: "traffic --max-cycles", args: []string{"traffic", "--max-cycles", "5"}, exit: 2,
		stderr: []string{"--max-cycles does not apply to traffic (it runs --cycles cycles)"},
	},
	contractCase{
		name: "traffic --placement", args: []string{"traffic", "--placement", "0,1"}, exit: 2,
		stderr: []string{"--placement does not apply to traffic"},
	},
	contractCase{
		name: "traffic --op", args: []string{"traffic", "--op", "sum"}, exit: 2,
		stderr: []string{"--op does not apply to traffic"},
	},
	contractCase{
		name: "traffic --hotspot without the hotspot pattern", args: []string{"traffic", "--hotspot", "0.3"}, exit: 2,
		stderr: []string{"--hotspot does not apply to --pattern uniform"},
	},
	contractCase{
		name: "traffic with the flags it reads", exit: 0,
		args:   []string{"traffic", "--dims", "4,4", "--seed", "3", "--link-latency", "2", "--buffer-depth", "2", "--duplex", "half", "--cycles", "200"},
		stdout: []string{"uniform traffic on a 4x4 hyper-crossbar"},
	},
	contractCase{
		name: "traffic on a torus names the torus", exit: 0,
		args:   []string{"traffic", "--topology", "torus", "--dims", "4,4", "--cycles", "200"},
		stdout: []string{"on a 4x4 torus"},
	},
	contractCase{
		name: "check --op", args: []string{"check", "--op", "sum"}, exit: 2,
		stderr: []string{"--op does not apply to check"},
	},
	contractCase{
		name: "collective --compare ignores --algo and --order", exit: 2,
		args:   []string{"collective", "--compare", "--algo", "broadcast", "--order", "OM"},
		stderr: []string{"--algo does not apply to collective --compare"},
	},
	contractCase{
		name: "collective broadcast ignores --order", exit: 2,
		args:   []string{"collective", "--algo", "broadcast", "--order", "OM"},
		stderr: []string{"--order does not apply to collective --algo broadcast (it reads --nodes, --root)"},
	},
	contractCase{
		name: "collective recursive doubling ignores --items", exit: 2,
		args:   []string{"collective", "--algo", "recursive-doubling", "--items", "4"},
		stderr: []string{"--items does not apply to collective --algo recursive-doubling"},
	},
	contractCase{
		name: "collective order with its flags", exit: 0,
		args: []string{"collective", "--algo", "order", "--nodes", "8", "--items", "2", "--order", "MOO"},
	},
	contractCase{
		name: "sim barrier ignores --item-flits", args: []string{"sim", "--item-flits", "8"}, exit: 2,
		stderr: []string{"--item-flits does not apply to a barrier (it applies to --collective allgather or broadcast)"},
	},
	contractCase{
		name: "sim --schedule ignores --algo", exit: 2,
		setup:  func(t *testing.T, d string) { writeSchedule(t, d, "s.json", "butterfly", 16) },
		args:   []string{"sim", "--schedule", "$D/s.json", "--algo", "dissemination"},
		stderr: []string{"--algo does not apply to a run of --schedule $D/s.json (the file is the schedule)"},
	},

	// Runs that cannot finish within max_cycles are refused before they start.
	contractCase{
		name: "allgather whose lower bound exceeds max_cycles", exit: 2, slow: true,
		args:   []string{"sim", "--collective", "allgather", "--dims", "64,64", "--item-flits", "4096"},
		stderr: []string{"invalid max_cycles: 1000000 (allowed: at least 1677", "a lower bound on this run's cycles", "flits", "at most 1 flit a cycle"},
	},
	contractCase{
		name: "the bound names the --max-cycles flag", exit: 2,
		args:   []string{"sim", "--collective", "allgather", "--dims", "8", "--item-flits", "100", "--skew", "0", "--max-cycles", "700"},
		stderr: []string{"flag --max-cycles: invalid max_cycles: 700 (allowed: at least 703", "rank 0 receives 703 flits"},
	},
	contractCase{
		name: "the bound names the file's max_cycles line", exit: 2,
		setup: func(t *testing.T, d string) {
			writeFiles(t, d, map[string]string{"s.yaml": "collective: allgather\nmax_cycles: 700\ndims: [8]\nitem_flits: 100\nskew: 0\n"})
		},
		args:   []string{"sim", "--config", "$D/s.yaml"},
		stderr: []string{"$D/s.yaml: line 2: invalid max_cycles: 700"},
	},
	contractCase{
		name: "gen is refused by the same bound, writing nothing", exit: 2,
		args:   []string{"gen", "--out", "$D/rtl", "--collective", "allgather", "--dims", "8", "--item-flits", "100", "--skew", "0", "--max-cycles", "700"},
		stderr: []string{"invalid max_cycles: 700 (allowed: at least 703"},
	},
	contractCase{
		name: "at the bound the run is accepted", exit: 0,
		args: []string{"sim", "--collective", "allgather", "--dims", "8", "--item-flits", "100", "--skew", "0", "--max-cycles", "2000"},
	},

	// Incomplete runs say so.
	contractCase{
		name: "incomplete run table", args: []string{"sim", "--max-cycles", "1"}, exit: 1,
		stdout: []string{"incomplete: 0 of 16 ranks released by cycle 1 (max_cycles)", "38 (after the run stopped)", "n/a"},
		stderr: []string{"not complete after max_cycles 1"},
	},
	contractCase{
		name: "incomplete run JSON", args: []string{"sim", "--max-cycles", "1", "--format", "json"}, exit: 1,
		stdout: []string{`"cycles": 1,`, `"complete": false,`, `"released": 0,`},
	},
	// A run that waits for good (a rank never arrives, no watchdog) ends
	// where nothing can happen any more, not at max_cycles 1000000.
	contractCase{
		name: "stuck run table", args: []string{"sim", "--op", "sum", "--fault", "stuck:7"}, exit: 1,
		stdout: []string{"│ cycles  ", "│ 66  ", "stuck: 0 of 16 ranks released; nothing can happen after cycle 65 (no_progress)"},
		stderr: []string{"stuck: nothing can happen after cycle 65: ", "rank 7 has not arrived"},
	},
	contractCase{
		name: "stuck run JSON", args: []string{"sim", "--op", "sum", "--fault", "stuck:7", "--format", "json"}, exit: 1,
		stdout: []string{`"cycles": 66,`, `"stop": "no_progress",`, `"waiting": [`, `"rank 7 has not arrived (fault stuck:7: it never arrives)"`},
	},
	contractCase{
		name: "complete run JSON", args: []string{"sim", "--format", "json"}, exit: 0,
		stdout: []string{`"complete": true,`, `"released": 16,`},
	},

	// verify reports a deadlock, as docs/schedules.md says.
	contractCase{
		name: "verify the deadlock example of docs", exit: 1,
		setup: func(t *testing.T, d string) {
			writeFiles(t, d, map[string]string{"deadlock.json": docsDeadlockExample(t)})
		},
		args: []string{"verify", "$D/deadlock.json"},
		stderr: []string{"deadlock: rank 0 is never released: gate 2 waits for a route from rank 1 gate 2 that can never pass " +
			"(cycle: rank 1 gate 2 waits for rank 0 gate 2 waits for rank 1 gate 2)"},
	},
	contractCase{
		name: "verify refuses what it cannot execute", exit: 2,
		setup: func(t *testing.T, d string) {
			writeFiles(t, d, map[string]string{"bad.json": `{"ranks": 2, "gates": 1, "routes": [{"from_rank": 0, "from_gate": 1, "to_rank": 0, "to_gate": 1, "distance": 0}]}`})
		},
		args:   []string{"verify", "$D/bad.json"},
		stderr: []string{"$D/bad.json: invalid routes[0].to_gate: 1 (allowed: 2..2)"},
	},
	contractCase{
		name: "verify of a data schedule says what it is", exit: 2,
		setup: func(t *testing.T, d string) {
			writeFiles(t, d, map[string]string{"data.json": `{"nodes":2,"items":1,"placement":[0],"steps":[{"kind":"O","transfers":[{"src":0,"dst":1,"items":[0]}]}]}`})
		},
		args:   []string{"verify", "$D/data.json"},
		stderr: []string{"$D/data.json:", "this looks like a data schedule"},
	},
	contractCase{
		name: "sim still refuses a schedule that fails Check", exit: 2,
		setup: func(t *testing.T, d string) {
			writeFiles(t, d, map[string]string{"deadlock.json": docsDeadlockExample(t)})
		},
		args:   []string{"sim", "--schedule", "$D/deadlock.json"},
		stderr: []string{"to_gate"},
	},

	// Messages locate their field and state the real limits.
	contractCase{
		name: "dims past the model's limit in a file", exit: 2,
		setup: func(t *testing.T, d string) {
			writeFiles(t, d, map[string]string{"s.yaml": "name: big\ndims: [64, 64, 64, 64]\n"})
		},
		args:   []string{"sim", "--config", "$D/s.yaml"},
		stderr: []string{"$D/s.yaml: line 2: invalid dims: [64 64 64 64] = 16777216 nodes"},
	},
	contractCase{
		name: "dims past the check's limit in a file", exit: 2,
		setup:  func(t *testing.T, d string) { writeFiles(t, d, map[string]string{"s.yaml": "dims: [64, 64, 64]\n"}) },
		args:   []string{"check", "--config", "$D/s.yaml"},
		stderr: []string{"$D/s.yaml: line 1: invalid dims: [64 64 64] is 262144 nodes"},
	},
	contractCase{
		name: "dims past the model's limit as a flag", exit: 2,
		args:   []string{"sim", "--dims", "64,64,64,64"},
		stderr: []string{"flag --dims: invalid dims"},
	},
	contractCase{
		name: "a near key is suggested", exit: 2,
		setup:  func(t *testing.T, d string) { writeFiles(t, d, map[string]string{"s.yaml": "dimz: [4]\n"}) },
		args:   []string{"sim", "--config", "$D/s.yaml"},
		stderr: []string{`$D/s.yaml: line 1: unknown key "dimz"`, `did you mean "dims"?`},
	},
	contractCase{
		name: "schedule --ranks 0 states the table range", args: []string{"schedule", "--ranks", "0"}, exit: 2,
		stderr: []string{"invalid --ranks: 0 (allowed: 1..4096 for --format table"},
	},
	contractCase{
		name: "schedule --ranks past Generate states its real range", exit: 2,
		args:   []string{"schedule", "--ranks", "16777216", "--format", "json"},
		stderr: []string{"invalid --ranks: 16777216 (allowed: 1..4194303 for --algo butterfly"},
	},
	contractCase{
		name: "schedule dissemination range", exit: 2,
		args:   []string{"schedule", "--ranks", "4194303", "--algo", "dissemination", "--format", "json"},
		stderr: []string{"allowed: 1..3050402 for --algo dissemination"},
	},
)
