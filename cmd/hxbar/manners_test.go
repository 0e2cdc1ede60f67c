package main

import (
	"bytes"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// helpFlags runs "hxbar CMD -h" and returns the flags it lists.
func helpFlags(t *testing.T, cmd string) []string {
	t.Helper()
	var o, e bytes.Buffer
	if code := run([]string{cmd, "-h"}, &o, &e); code != 0 {
		t.Fatalf("%s -h: exit %d, %s", cmd, code, e.String())
	}
	var flags []string
	for _, l := range strings.Split(e.String(), "\n") {
		if strings.HasPrefix(l, "  -") && !strings.HasPrefix(l, "  --") {
			t.Errorf("%s -h: %q spells a flag with one dash", cmd, l)
		}
		if name, ok := strings.CutPrefix(l, "  --"); ok {
			name, _, _ = strings.Cut(name, " ")
			flags = append(flags, name)
		}
	}
	if len(flags) == 0 {
		t.Fatalf("%s -h lists no flags: %q", cmd, e.String())
	}
	return flags
}

// TestHelpListsWhatTheCommandTakes: -h lists only the flags a command
// takes (issue 25, "CLI manners"): a flag it binds with the shared ones
// but always refuses is not listed, and is refused by name when given.
func TestHelpListsWhatTheCommandTakes(t *testing.T) {
	cases := []struct {
		cmd         string
		listed, not []string
	}{
		{"traffic", []string{"rate", "dims", "seed", "max-memory"}, []string{"skew", "max-cycles", "ranks", "plot", "name", "algo"}},
		{"check", []string{"dims", "topology", "avoid", "channels"}, []string{"ranks", "skew", "algo"}},
		{"faults", []string{"campaign", "per-run", "kinds"}, []string{"fault"}},
		{"synth", []string{"dims", "link-retry", "watchdog", "dir"}, []string{"fault", "skew", "seed", "compute", "jitter", "max-cycles"}},
		{"sim", []string{"dims", "fault", "trace", "max-cycles"}, nil},
	}
	for _, c := range cases {
		flags := helpFlags(t, c.cmd)
		for _, f := range c.listed {
			if !contains(flags, f) {
				t.Errorf("%s -h does not list --%s (lists %v)", c.cmd, f, flags)
			}
		}
		for _, f := range c.not {
			if contains(flags, f) {
				t.Errorf("%s -h lists --%s, which %s refuses", c.cmd, f, c.cmd)
			}
			var o, e bytes.Buffer
			code := run([]string{c.cmd, "--" + f, "1"}, &o, &e)
			if code != 2 || !strings.Contains(e.String(), "--"+f+" does not apply to "+c.cmd) {
				t.Errorf("%s --%s 1: exit %d, %q; want it refused by name", c.cmd, f, code, e.String())
			}
		}
	}
}

// TestUnknownFlagSuggests: an unknown flag is one line that spells it
// --name and suggests the nearest flag the command takes; a name near
// nothing gets no suggestion.
func TestUnknownFlagSuggests(t *testing.T) {
	cases := []struct {
		args []string
		want string // "" for no suggestion
	}{
		{[]string{"sim", "--dimz", "4"}, "dims"},
		{[]string{"sim", "-max-cycle", "9"}, "max-cycles"},
		{[]string{"sim", "--max_cycles", "9"}, "max-cycles"},
		{[]string{"sim", "--link-latncy", "2"}, "link-latency"},
		{[]string{"traffic", "--rat", "0.2"}, "rate"},
		{[]string{"traffic", "--paterns", "uniform"}, "pattern"},
		{[]string{"faults", "--campain", "3"}, "campaign"},
		{[]string{"sim", "--zzzzzz"}, ""},
	}
	for _, c := range cases {
		var o, e bytes.Buffer
		code := run(c.args, &o, &e)
		msg := e.String()
		if code != 2 || strings.Count(msg, "\n") != 1 || !strings.Contains(msg, "unknown flag --") {
			t.Errorf("%v: exit %d, %q; want exit 2 and one line naming the unknown flag", c.args, code, msg)
			continue
		}
		hint := regexp.MustCompile(`did you mean --([a-z-]+)\?`).FindStringSubmatch(msg)
		switch {
		case c.want == "" && hint != nil:
			t.Errorf("%v: %q suggests --%s for a name near nothing", c.args, msg, hint[1])
		case c.want != "" && (hint == nil || hint[1] != c.want):
			t.Errorf("%v: %q; want did you mean --%s?", c.args, msg, c.want)
		}
	}
	// Every flag of every command, one letter dropped, is suggested back
	// (or as a flag at least as near): the hint is never a wrong guess.
	for _, cmd := range []string{"sim", "traffic", "gen", "sweep", "faults", "synth"} {
		for _, f := range helpFlags(t, cmd) {
			if len(f) < 6 {
				continue
			}
			typo := f[:len(f)/2] + f[len(f)/2+1:]
			var o, e bytes.Buffer
			run([]string{cmd, "--" + typo, "1"}, &o, &e)
			if !strings.Contains(e.String(), "did you mean --") {
				t.Errorf("%s --%s (for --%s): %q has no suggestion", cmd, typo, f, e.String())
			}
		}
	}
}

// TestFlagErrorsSpellDoubleDash: the flag package's own errors are
// rewritten to the README's spelling.
func TestFlagErrorsSpellDoubleDash(t *testing.T) {
	for _, args := range [][]string{{"sim", "--dims"}, {"sim", "--dims", "x"}, {"sim", "-max-cycles", "y"}, {"traffic", "--progress=maybe"}} {
		var o, e bytes.Buffer
		code := run(args, &o, &e)
		msg := e.String()
		if code != 2 || regexp.MustCompile(`(^|[ :])-[a-z]`).MatchString(strings.TrimPrefix(msg, "hxbar ")) {
			t.Errorf("%v: exit %d, %q; want exit 2, flags spelled --name", args, code, msg)
		}
	}
}

// TestHelpAligned: the command list of 'hxbar help' is two aligned columns.
func TestHelpAligned(t *testing.T) {
	var o, e bytes.Buffer
	if code := run([]string{"help"}, &o, &e); code != 0 {
		t.Fatalf("help: exit %d", code)
	}
	col := -1
	for _, l := range strings.Split(o.String(), "\n") {
		name, ok := strings.CutPrefix(l, "  ")
		if !ok {
			continue
		}
		name, _, _ = strings.Cut(name, " ")
		if _, known := commands[name]; !known {
			t.Errorf("help line %q names no command", l)
			continue
		}
		rest := l[2+len(name):]
		c := 2 + len(name) + len(rest) - len(strings.TrimLeft(rest, " "))
		if col < 0 {
			col = c
		}
		if c != col || len(rest)-len(strings.TrimLeft(rest, " ")) < 2 {
			t.Errorf("help line %q: summary at column %d, others at %d", l, c, col)
		}
	}
	if col < 0 {
		t.Fatal("help lists no command")
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// TestHeartbeat: a long silent child shows it is working, one line per
// period, and nothing once stopped; a short one prints nothing.
func TestHeartbeat(t *testing.T) {
	var b bytes.Buffer
	stop := heartbeat(&b, "building", 20*time.Millisecond)
	time.Sleep(110 * time.Millisecond)
	stop()
	n := strings.Count(b.String(), "building: ")
	if n < 2 || strings.Count(b.String(), "\n") != n {
		t.Errorf("after 5.5 periods: %q; want a line per period", b.String())
	}
	after := b.Len()
	time.Sleep(50 * time.Millisecond)
	if b.Len() != after {
		t.Errorf("wrote after stop: %q", b.String()[after:])
	}
	var quiet bytes.Buffer
	heartbeat(&quiet, "short", time.Hour)()
	if quiet.Len() != 0 {
		t.Errorf("a run shorter than a period printed %q", quiet.String())
	}
}

// TestRefusedValuesSpellTheFlag: a value the library refuses is named as
// the flag that gave it (--rate, not rate), as every other message does.
func TestRefusedValuesSpellTheFlag(t *testing.T) {
	for _, c := range []struct {
		args []string
		flag string
	}{
		{[]string{"traffic", "--rate", "2"}, "rate"},
		{[]string{"traffic", "--pattern", "zz"}, "pattern"},
		{[]string{"traffic", "--packet-flits", "0"}, "packet-flits"},
		{[]string{"traffic", "--cycles", "0"}, "cycles"},
		{[]string{"traffic", "--cycles", "100", "--warmup", "200"}, "warmup"},
		{[]string{"traffic", "--cycles", "100", "--warmup", "-1"}, "warmup"},
		{[]string{"traffic", "--pattern", "hotspot", "--hotspot", "3"}, "hotspot"},
		{[]string{"schedule", "--algo", "foo"}, "algo"},
		{[]string{"schedule", "--algo", "foo", "--format", "json"}, "algo"},
		{[]string{"collective", "--items", "-1"}, "items"},
		{[]string{"collective", "--nodes", "6"}, "nodes"},
		{[]string{"collective", "--algo", "broadcast", "--root", "99"}, "root"},
		{[]string{"collective", "--compare", "--items", "3"}, "items"},
	} {
		var o, e bytes.Buffer
		code := run(c.args, &o, &e)
		if code != 2 || !strings.Contains(e.String(), "invalid --"+c.flag+": ") {
			t.Errorf("%v: exit %d, %q; want exit 2 naming --%s", c.args, code, e.String(), c.flag)
		}
	}
}

// TestHelpSaysWhatTheCommandDoes: every command's -h (and 'hxbar help
// CMD') starts with its one-line summary, the line 'hxbar help' lists,
// before its flags.
func TestHelpSaysWhatTheCommandDoes(t *testing.T) {
	for _, name := range commandNames() {
		for _, args := range [][]string{{name, "-h"}, {"help", name}} {
			var o, e bytes.Buffer
			if code := run(args, &o, &e); code != 0 {
				t.Fatalf("%v: exit %d, %s", args, code, e.String())
			}
			first, _, _ := strings.Cut(e.String(), "\n")
			if want := "hxbar " + name + ": " + summaries[name]; first != want || summaries[name] == "" {
				t.Errorf("%v: first line %q, want %q", args, first, want)
			}
		}
	}
}

// TestSystemErrorNamesTheFlag: an error the model finds in a key given as
// a flag names that flag, also where the flag's name is not the key's
// (--fault for faults).
func TestSystemErrorNamesTheFlag(t *testing.T) {
	var o, e bytes.Buffer
	code := run([]string{"sim", "--topology", "torus", "--fault", "dead:n3.d0.up@0"}, &o, &e)
	if code != 2 || !strings.HasPrefix(e.String(), "hxbar sim: flag --fault: invalid faults[0]: ") {
		t.Errorf("exit %d, %q; want the error under flag --fault", code, e.String())
	}
	// gen and cosim find a bad channel when they build the model; they
	// name the flag all the same (review of issue 20).
	for _, cmd := range [][]string{{"gen", "--out", filepath.Join(t.TempDir(), "d")}, {"cosim"}} {
		var o, e bytes.Buffer
		code := run(append(cmd, "--fault", "flip:n99.d0.up@5:3"), &o, &e)
		if code != 2 || !strings.HasPrefix(e.String(), "hxbar "+cmd[0]+": flag --fault: invalid faults[0]: ") {
			t.Errorf("%s: exit %d, %q; want the error under flag --fault", cmd[0], code, e.String())
		}
	}
}

// TestFaultsRunsIsTableOnly: --runs lists the runs in the table; with
// --format json it is refused by name, not silently dropped.
func TestFaultsRunsIsTableOnly(t *testing.T) {
	var o, e bytes.Buffer
	code := run([]string{"faults", "--campaign", "2", "--runs", "--format", "json"}, &o, &e)
	if code != 2 || !strings.Contains(e.String(), "--runs does not apply to faults --format json") {
		t.Errorf("exit %d, %q", code, e.String())
	}
}

// TestHelpLinesAreTrue: no command's help shows a sentinel default (-1
// meaning "derived"), the commands that take arguments show them, and the
// lines issue 25 found misleading say what the command does: traffic's
// warm-up default and seed, --max-cycles stopping a run incomplete (not
// with a unit's error). A flag's help quoted in an error has no backquotes.
func TestHelpLinesAreTrue(t *testing.T) {
	help := map[string]string{}
	for _, name := range commandNames() {
		var o, e bytes.Buffer
		run([]string{name, "-h"}, &o, &e)
		help[name] = e.String()
		if strings.Contains(help[name], "(default -1)") {
			t.Errorf("%s -h shows a default of -1", name)
		}
	}
	for name, want := range map[string]string{
		"verify": "\n  hxbar verify [flags] FILE ",
		"sweep":  "\n  hxbar sweep SPEC.yaml --out DIR ",
	} {
		if !strings.Contains(help[name], want) {
			t.Errorf("%s -h does not show its arguments (%q):\n%s", name, want, help[name])
		}
	}
	line := func(cmd, flag string) string {
		_, rest, _ := strings.Cut(help[cmd], "\n  --"+flag+" ")
		l, _, _ := strings.Cut(rest, "\n  --")
		return l
	}
	if l := line("traffic", "warmup"); !strings.Contains(l, "(default cycles/10)") {
		t.Errorf("traffic --warmup: %q", l)
	}
	if l := line("traffic", "seed"); strings.Contains(l, "arrival") || strings.Contains(l, "operand") || !strings.Contains(l, "destinations") {
		t.Errorf("traffic --seed: %q", l)
	}
	if l := line("sim", "max-cycles"); strings.Contains(l, "error") || !strings.Contains(l, "incomplete") {
		t.Errorf("sim --max-cycles: %q", l)
	}
	var o, e bytes.Buffer
	if code := run([]string{"traffic", "--warmup", "x"}, &o, &e); code != 2 || strings.Contains(e.String(), "`") {
		t.Errorf("traffic --warmup x: exit %d, %q", code, e.String())
	}
}

// TestFlagValueOfTheWrongKind: a value the flag package cannot parse says
// what the flag takes, not "parse error".
func TestFlagValueOfTheWrongKind(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"sim", "--seed", "-1"}, `invalid value "-1" for flag --seed: not a whole number 0 or above (--seed: `},
		{[]string{"sim", "--skew", "x"}, `invalid value "x" for flag --skew: not an integer (--skew: `},
		{[]string{"traffic", "--rate", "abc"}, `invalid value "abc" for flag --rate: not a number (--rate: `},
	} {
		var o, e bytes.Buffer
		if code := run(c.args, &o, &e); code != 2 || !strings.Contains(e.String(), c.want) || strings.Contains(e.String(), "parse error") {
			t.Errorf("%v: exit %d, %q", c.args, code, e.String())
		}
	}
}
