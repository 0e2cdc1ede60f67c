// Command testtime reads 'go test -json' on stdin and prints what plain
// 'go test' prints (a line per package as it finishes, the whole output of
// every failed test), then the slowest tests, so that every 'make test'
// says where its time went (docs/testing.md, "Where the time goes"). It
// exits 1 when a test or package failed.
//
//	go test -json ./... | go run ./tools/testtime -top 15
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
)

// event is one line of 'go test -json' (cmd/test2json).
type event struct {
	Action  string
	Package string
	Test    string
	Elapsed float64
	Output  string
}

// timing is one finished test.
type timing struct {
	pkg, test string
	secs      float64
}

// slowest sums, for each top-level test, the wall time of its leaf tests
// (itself when it has no subtests) and returns the top n, longest first.
// A parent's own time leaves out its parallel subtests (go test stops its
// clock before they run), so the leaves are what measures a test's work;
// parallel leaves overlap, so the sums can exceed the wall clock.
func slowest(all []timing, n int) []timing {
	parent := map[string]bool{}
	for _, t := range all {
		for i := range len(t.test) {
			if t.test[i] == '/' {
				parent[t.pkg+" "+t.test[:i]] = true
			}
		}
	}
	sum := map[string]*timing{}
	var order []*timing
	for _, t := range all {
		if parent[t.pkg+" "+t.test] {
			continue
		}
		top, _, _ := strings.Cut(t.test, "/")
		k := t.pkg + " " + top
		if sum[k] == nil {
			sum[k] = &timing{pkg: t.pkg, test: top}
			order = append(order, sum[k])
		}
		sum[k].secs += t.secs
	}
	out := make([]timing, len(order))
	for i, t := range order {
		out[i] = *t
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].secs > out[j].secs })
	return out[:min(n, len(out))]
}

func main() {
	top := flag.Int("top", 15, "how many of the slowest tests to print")
	flag.Parse()
	failed, err := summarize(os.Stdin, os.Stdout, *top)
	if err != nil {
		fmt.Fprintln(os.Stderr, "testtime:", err)
		os.Exit(2)
	}
	if failed {
		os.Exit(1)
	}
}

// flushUnfinished prints and forgets the output of pkg's tests that have
// not ended, in name order.
func flushUnfinished(w io.Writer, output map[string]*strings.Builder, pkg string) {
	var keys []string
	for k := range output {
		if strings.HasPrefix(k, pkg+" ") && k != pkg+" " {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprint(w, output[k].String())
		delete(output, k)
	}
}

// summarize copies the package results and failed tests' output from r to
// w as they come, then the top slowest tests; failed reports any failure.
func summarize(r io.Reader, w io.Writer, top int) (failed bool, err error) {
	output := map[string]*strings.Builder{} // by package and test, until it ends
	var times []timing
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var e event
		if json.Unmarshal(sc.Bytes(), &e) != nil {
			fmt.Fprintln(w, sc.Text()) // not an event: the build's own words
			continue
		}
		key := e.Package + " " + e.Test
		switch e.Action {
		case "output":
			if output[key] == nil {
				output[key] = &strings.Builder{}
			}
			output[key].WriteString(e.Output)
		case "pass", "skip":
			if e.Test != "" && e.Action == "pass" {
				times = append(times, timing{e.Package, e.Test, e.Elapsed})
			}
			if e.Test == "" {
				fmt.Fprintf(w, "ok  \t%s\t%.1fs\n", e.Package, e.Elapsed)
			}
			delete(output, key)
		case "build-output":
			fmt.Fprint(w, e.Output)
		case "build-fail":
			failed = true
		case "fail":
			failed = true
			if e.Test != "" {
				times = append(times, timing{e.Package, e.Test, e.Elapsed})
			}
			if e.Test == "" {
				// a package that failed as a whole (a timeout, a panic):
				// the output of its tests that never ended too
				flushUnfinished(w, output, e.Package)
			}
			if b := output[key]; b != nil {
				fmt.Fprint(w, b.String()) // a package's ends with its FAIL line
			}
			delete(output, key)
		}
	}
	if err := sc.Err(); err != nil {
		return failed, err
	}
	times = slowest(times, top)
	if len(times) > 0 {
		fmt.Fprintf(w, "slowest tests (the wall time of each test's leaf subtests summed; parallel ones overlap):\n")
	}
	for _, t := range times {
		fmt.Fprintf(w, "%8.1fs  %s %s\n", t.secs, t.pkg, t.test)
	}
	return failed, nil
}
