package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestMessagesNameTheCause: each refusal is one line, exit 2, naming the
// input that is wrong and why (issue 24, "Messages"), not a field it only
// led to (flit_width for a network too large, a channel number for a
// channel given by name) and not without the reason the parser found.
func TestMessagesNameTheCause(t *testing.T) {
	dup := filepath.Join(t.TempDir(), "dup.yaml")
	if err := os.WriteFile(dup, []byte("dims: [4, 4]\ndims: [2, 2]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		args      []string
		want, not []string
	}{
		{[]string{"sim", "--dims", "64,64,64,64,64,64"}, []string{"invalid dims", "68719476736 nodes", "at most 16777216"}, []string{"flit_width"}},
		{[]string{"check", "--dims", "64,64,64,64,64,64"}, []string{"invalid dims", "68719476736 nodes"}, []string{"flit_width"}},
		{[]string{"check", "--avoid", "n0.inject"}, []string{"n0.inject is node 0's injection channel"}, []string{"channel 80"}},
		{[]string{"check", "--topology", "torus", "--avoid", "n5.inject"}, []string{"n5.inject is node 5's injection channel"}, nil},
		{[]string{"sim", "--avoid", "n3.inject"}, []string{"n3.inject", "allowed: channels the network can do without; n3.inject is node 3's injection channel"}, []string{"channel 8", "allowed: avoid:"}},
		{[]string{"sim", "--fault", "flip:n0.eject@x"}, []string{`"flip:n0.eject@x", no :BIT`}, nil},
		{[]string{"sim", "--fault", "flip:n0.eject@x:3"}, []string{`the cycle "x" is not a number`}, nil},
		{[]string{"sim", "--fault", "zap:n0.eject@3"}, []string{`unknown kind "zap"`}, nil},
		// Two equal flips cancel: the second is refused, naming the first.
		{[]string{"sim", "--fault", "flip:n0.eject@3:1", "--fault", "flip:n0.eject@3:1"}, []string{"invalid faults[1]", "faults[0] is the same fault"}, nil},
		{[]string{"sim", "--config", dup}, []string{`line 2: key "dims" given twice`}, nil},
		{[]string{"sim", "--max-memory", "lots"}, []string{"invalid --max-memory", `"lots"`, "e.g. 4GiB"}, nil},
	}
	for _, c := range cases {
		var o, e bytes.Buffer
		code := run(c.args, &o, &e)
		msg := e.String()
		want := 2
		if c.args[0] == "check" && c.args[1] == "--avoid" || c.args[0] == "check" && len(c.args) > 3 && c.args[3] == "--avoid" {
			want = 1 // check reports tables it cannot build around --avoid as a finding
		}
		if code != want || strings.Count(msg, "\n") != 1 {
			t.Errorf("%v: exit %d, %q; want exit %d and one line", c.args, code, msg, want)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(msg, w) {
				t.Errorf("%v: %q lacks %q", c.args, msg, w)
			}
		}
		for _, n := range c.not {
			if strings.Contains(msg, n) {
				t.Errorf("%v: %q names %q, not the cause", c.args, msg, n)
			}
		}
	}
}

// TestOneLine: a multi-line error (a tool's stderr) is printed on one line,
// and one of megabytes (quoting its input) is cut to maxMessage bytes
// saying how much was cut, at a character boundary.
func TestOneLine(t *testing.T) {
	if got := oneLine("yosys failed:\nERROR: syntax error\n\n  near line 3\n"); got != "yosys failed: | ERROR: syntax error | near line 3" {
		t.Errorf("multi-line: %q", got)
	}
	// A file name's control characters never reach the terminal.
	if got := oneLine("stat a\x1b[2Jb\rc\u202ed\x7f: no such file"); got != `stat a\x1b[2Jb\x0dc\u202ed\x7f: no such file` {
		t.Errorf("control characters: %q", got)
	}
	huge := strings.Repeat("é", 4_000_000) // 8 MB, two bytes a character
	got := oneLine("invalid x: " + huge)
	if len(got) > maxMessage+100 || !strings.HasSuffix(got, "more bytes of the message cut)") || !utf8.ValidString(got) {
		t.Errorf("huge: %d bytes, ends %q", len(got), got[len(got)-60:])
	}
	var o, e bytes.Buffer
	if code := run([]string{"sim", "--dims", huge}, &o, &e); code != 2 || e.Len() > maxMessage+200 || strings.Count(e.String(), "\n") != 1 {
		t.Errorf("sim --dims HUGE: exit %d, %d bytes of message", code, e.Len())
	}
}

// TestMissingInputsSayWhatIsMissing: a file or directory that is not there
// is named with the flag that gave it and what is missing, without the
// system call that found it ("stat x: ...").
func TestMissingInputsSayWhatIsMissing(t *testing.T) {
	d := t.TempDir()
	nope := filepath.Join(d, "nope.yaml")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"sim", "--config", nope}, "hxbar sim: --config: " + nope + ": no such file or directory\n"},
		{[]string{"verify", nope}, "hxbar verify: " + nope + ": no such file or directory\n"},
		{[]string{"cosim", "--dir", d}, "hxbar cosim: invalid --dir: \"" + d + "\" has no system.yaml, the system to check the RTL against (allowed: a directory hxbar gen wrote)\n"},
		{[]string{"cosim", "--dir", d, "--print-config"}, "hxbar cosim: invalid --dir: \"" + d + "\" has no system.yaml"},
	} {
		code, _, e := hx(t, c.args...)
		if code != 2 || !strings.HasPrefix(e, c.want) || strings.Contains(e, "stat ") {
			t.Errorf("%v: exit %d, %q; want %q", c.args, code, e, c.want)
		}
	}
}
