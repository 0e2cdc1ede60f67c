package main

import (
	"strings"
	"testing"
)

// TestSummarize: package lines as plain go test prints them, the whole
// output of a failed test (and of a test a package timeout cut off), no
// output of a passing one, the slowest tests first by the summed time
// of their leaf subtests (a parent's own clock leaves out its parallel
// subtests: TestPar, 0.1 s itself, is 100 s of work), and failed
// set exactly when something failed.
func TestSummarize(t *testing.T) {
	in := `{"Action":"run","Package":"a","Test":"TestQuick"}
{"Action":"output","Package":"a","Test":"TestQuick","Output":"quiet detail\n"}
{"Action":"pass","Package":"a","Test":"TestQuick","Elapsed":0.5}
{"Action":"output","Package":"a","Test":"TestSlow/sub","Output":"sub line\n"}
{"Action":"pass","Package":"a","Test":"TestSlow/sub","Elapsed":99}
{"Action":"pass","Package":"a","Test":"TestSlow","Elapsed":12.25}
{"Action":"pass","Package":"a","Test":"TestPar/x","Elapsed":60}
{"Action":"pass","Package":"a","Test":"TestPar/y/z","Elapsed":40}
{"Action":"pass","Package":"a","Test":"TestPar/y","Elapsed":40}
{"Action":"pass","Package":"a","Test":"TestPar","Elapsed":0.1}
{"Action":"pass","Package":"a","Elapsed":13}
{"Action":"output","Package":"b","Test":"TestBroken","Output":"why it broke\n"}
{"Action":"fail","Package":"b","Test":"TestBroken","Elapsed":2}
{"Action":"output","Package":"b","Test":"TestHung","Output":"hung here\n"}
{"Action":"output","Package":"b","Output":"panic: test timed out\nFAIL\tb\t40.0s\n"}
{"Action":"fail","Package":"b","Elapsed":40}
`
	var out strings.Builder
	failed, err := summarize(strings.NewReader(in), &out, 2)
	if err != nil || !failed {
		t.Fatalf("failed %v, err %v", failed, err)
	}
	got := out.String()
	for _, want := range []string{"ok  \ta\t13.0s\n", "why it broke\n", "hung here\n", "panic: test timed out\nFAIL\tb\t40.0s\n",
		"slowest tests (the wall time of each test's leaf subtests summed; parallel ones overlap):\n   100.0s  a TestPar\n    99.0s  a TestSlow\n"} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
	for _, not := range []string{"quiet detail", "sub line", "TestQuick"} {
		if strings.Contains(got, not) {
			t.Errorf("output has %q:\n%s", not, got)
		}
	}
	out.Reset()
	failed, err = summarize(strings.NewReader(`{"Action":"pass","Package":"a","Test":"TestX","Elapsed":1}`+"\n"), &out, 2)
	if err != nil || failed || !strings.Contains(out.String(), "a TestX") {
		t.Errorf("a passing run: failed %v, err %v, output %q", failed, err, out.String())
	}
}
