package sweep

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// small is a 24-point sweep of a 16-rank all-gather.
const small = `base:
  collective: allgather
  items: 4
  skew: 0
vary:
  order: [OOMM, OMOM, OMMO, MMOO, MOMO, MOOM]
  item_flits: [1, 8]
  duplex: [full, half]
measure: [cycles, latency, packets, flit_hops, complete]
`

func mustParse(t *testing.T, spec string) *Spec {
	t.Helper()
	s, err := Parse([]byte(spec), "spec.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestSpecErrors(t *testing.T) {
	for _, c := range []struct{ spec, want string }{
		{"bsae: {}\n", `spec.yaml: line 1: unknown key "bsae" (allowed keys: base, vary, zip, measure)`},
		{"bse: {}\n", `spec.yaml: line 1: unknown key "bse" (allowed keys: base, vary, zip, measure; did you mean "base"?)`},
		{"base: {skwe: 3}\n", `spec.yaml: line 1: base: unknown system key "skwe" (allowed keys: name, topology`},
		{"vary: {linklatency: [1, 2]}\n", `spec.yaml: line 1: vary: unknown system key "linklatency"`},
		{"vary:\n  skew: []\n", `spec.yaml: line 2: vary: skew must be a non-empty list of values, not an empty list`},
		{"vary:\n  skew: [1]\nzip: [[skew]]\n", `spec.yaml: line 3: zip[0] must be a list of at least two varied keys, not a list of one`},
		{"vary: {fault: [[]]}\n", `; did you mean "faults"?)`},
		{"base: {skw: 3}\n", `; did you mean "skew"?)`},
		{"measure: [cycles, latncy]\n", `; did you mean "latency"?)`},
		{"vary:\n  skew: 3\n", `vary: skew must be a non-empty list of values, not "3"`},
		// A bad value names the point, its values, the key and its line.
		{"vary:\n  skew: [0, 4]\n  duplex: [full,\n    quarter]\n", `spec.yaml: point 1 (skew=0, duplex=quarter): line 4: invalid duplex: "quarter" (allowed: full, half)`},
		{"vary:\n  link_latency: [1, 0]\n", `spec.yaml: point 1 (link_latency=0): line 2: invalid link_latency: 0 (allowed: 1..64)`},
		{"base:\n  collective: allgather\n  items: 4\nvary:\n  order: [OOMM, OMX]\n", `point 1 (order=OMX): line 5: invalid order`},
		{"vary:\n  skew: [1, 2]\n  seed: [1]\nzip: [[skew, seed]]\n", `spec.yaml: line 4: zip[0]: vary seed has 1 values but skew has 2`},
		{"vary:\n  skew: [1, 2]\nzip: [[skew, seed]]\n", `zip[0]: "seed" is not a key of vary (allowed: skew)`},
		{"measure: [cycles, latncy]\n", `spec.yaml: line 1: measure: unknown field "latncy" (allowed: cycles, ranks, complete, error, released, episodes, last_arrival, latency, release_spread, packets, flits, flit_hops, channels, mean_channel_load, busiest_channel, busiest_channel_load, items_moved, items_received, cost, iterations, avg_period, avg_latency; did you mean "latency"?)`},
		{"vary: {ranks: [4, 8]}\nmeasure: [ranks]\n", `measure: "ranks" is also a varied key`},
		{"vary:\n  seed: [1, 2, 0x1]\n", `spec.yaml: point 2 (seed=0x1): line 2: vary: the same system as point 0 (seed=1): each point must be a different system`},
		{"vary:\n  skew: [3, 3]\n", `point 1 (skew=3): line 2: vary: the same system as point 0 (skew=3)`},
		{"vary: {skew: [1]}\n---\nvary: {skew: [2]}\n", `a second YAML document`},
		{"- 1\n", `the spec must be a mapping of base, vary, zip, measure, not a list`},
	} {
		_, err := Parse([]byte(c.spec), "spec.yaml")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("spec %q:\n got  %v\n want %s", c.spec, err, c.want)
		}
	}
}

// A point the system file accepts but the model refuses (an order with
// fewer items than ranks needs) is caught by Check before anything runs.
func TestCheckNamesPoint(t *testing.T) {
	s := mustParse(t, "base: {collective: allgather, items: 16}\nvary:\n  order: ['', OOMM]\n")
	if err := Check(&s.Points[0]); err != nil {
		t.Fatal(err)
	}
	err := Check(&s.Points[1])
	if err == nil || !strings.Contains(err.Error(), "order") {
		t.Fatalf("point 1: %v", err)
	}
	if got := s.Label(&s.Points[1]); got != "point 1 (order=OOMM)" {
		t.Errorf("label %q", got)
	}
}

func TestProductAndZipOrder(t *testing.T) {
	s := mustParse(t, "vary:\n  skew: [0, 10, 20]\n  seed: [1, 2]\n  link_latency: [1, 2, 3]\nzip: [[skew, link_latency]]\n")
	if !slices.Equal(s.Keys, []string{"skew", "seed", "link_latency"}) {
		t.Fatalf("keys %v", s.Keys)
	}
	// The zip group is one axis at the place of its first key (skew): it
	// varies slowest, seed fastest.
	var got []string
	for _, p := range s.Points {
		got = append(got, strings.Join([]string{strconv.Itoa(p.Sys.Skew), strconv.FormatUint(p.Sys.Seed, 10), strconv.Itoa(p.Sys.LinkLatency)}, "/"))
	}
	want := []string{"0/1/1", "0/2/1", "10/1/2", "10/2/2", "20/1/3", "20/2/3"}
	if !slices.Equal(got, want) {
		t.Errorf("points %v, want %v", got, want)
	}
	// Without zip: the product, the last key fastest.
	s = mustParse(t, "vary:\n  skew: [0, 10]\n  seed: [1, 2, 3]\n")
	if len(s.Points) != 6 || s.Points[1].Sys.Seed != 2 || s.Points[3].Sys.Skew != 10 || s.Points[3].Sys.Seed != 1 {
		t.Errorf("product order wrong: %+v", s.Points)
	}
	// base keys a point does not vary stay; the hash is of the whole system.
	// (Two points of one system are refused: TestSpecErrors.)
	s = mustParse(t, "base: {skew: 7}\nvary: {seed: [1, 2]}\n")
	if s.Points[0].Sys.Skew != 7 || s.Points[0].Hash == s.Points[1].Hash || s.Points[0].Hash != Hash(&s.Points[0].Sys) {
		t.Errorf("base or hash: %+v", s.Points)
	}
}

// withoutWall drops the wall_ms column of a results.csv.
func withoutWall(t *testing.T, data []byte) string {
	t.Helper()
	recs, err := csv.NewReader(bytes.NewReader(data)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := slices.Index(recs[0], "wall_ms")
	var b strings.Builder
	for _, r := range recs {
		b.WriteString(strings.Join(slices.Delete(slices.Clone(r), col, col+1), ",") + "\n")
	}
	return b.String()
}

// withoutWallJSON drops "wall_ms":... from each results.jsonl row.
func withoutWallJSON(data []byte) string {
	var b strings.Builder
	for line := range strings.Lines(string(data)) {
		i := strings.Index(line, `"wall_ms":`)
		j := i + strings.Index(line[i:], ",")
		b.WriteString(line[:i] + line[j+1:])
	}
	return b.String()
}

func read(t *testing.T, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestDeterministicAcrossWorkers(t *testing.T) {
	s := mustParse(t, small)
	var csvs, jsons []string
	for _, w := range []int{1, 3, 8} {
		dir := filepath.Join(t.TempDir(), "out")
		sum, err := Run(s, dir, Options{Workers: w})
		if err != nil {
			t.Fatal(err)
		}
		if sum.Ran != 24 || len(sum.Failed) != 0 {
			t.Fatalf("workers %d: %+v", w, sum)
		}
		csvs = append(csvs, withoutWall(t, read(t, filepath.Join(dir, CSVName))))
		jsons = append(jsons, withoutWallJSON(read(t, filepath.Join(dir, JSONLName))))
	}
	for i := 1; i < len(csvs); i++ {
		if csvs[i] != csvs[0] || jsons[i] != jsons[0] {
			t.Errorf("results differ between 1 worker and more:\n%s\n%s", csvs[0], csvs[i])
		}
	}
	if !strings.HasPrefix(csvs[0], "point,order,item_flits,duplex,cycles,latency,packets,flit_hops,complete,error,hash,hxbar_version\n0,OOMM,1,full,") {
		t.Errorf("csv:\n%s", csvs[0])
	}
	if n := strings.Count(csvs[0], "\n"); n != 25 {
		t.Errorf("%d lines, want a header and 24 rows", n)
	}
}

func TestResumeSkipsDonePoints(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	s := mustParse(t, small)
	if _, err := Run(s, dir, Options{Workers: 2}); err != nil {
		t.Fatal(err)
	}
	first := read(t, filepath.Join(dir, CSVName))
	sum, err := Run(s, dir, Options{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Ran != 0 || sum.Skipped != 24 {
		t.Errorf("re-run: %+v, want every point skipped", sum)
	}
	if again := read(t, filepath.Join(dir, CSVName)); !bytes.Equal(first, again) {
		t.Errorf("a re-run that skips every point changed the results")
	}
	// A spec with one more link latency: only the new points run, and the
	// old ones keep their rows (under new point numbers).
	s2 := mustParse(t, strings.Replace(small, "  duplex: [full, half]\n", "  duplex: [full, half]\n  link_latency: [1, 3]\n", 1))
	sum, err = Run(s2, dir, Options{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Ran != 24 || sum.Skipped != 24 {
		t.Errorf("extended spec: %+v, want 24 run and 24 skipped", sum)
	}
	// A log line cut short by a crash is skipped, and the point reruns.
	logp := filepath.Join(dir, LogName)
	data := read(t, logp)
	lines := bytes.SplitAfter(data, []byte("\n"))
	cut := append(bytes.Join(lines[:len(lines)-2], nil), lines[len(lines)-2][:20]...)
	if err := os.WriteFile(logp, cut, 0o644); err != nil {
		t.Fatal(err)
	}
	sum, err = Run(s2, dir, Options{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Ran != 1 || sum.Skipped != 47 {
		t.Errorf("after a cut log line: %+v, want 1 run", sum)
	}
}

func TestRefusesForeignDirectory(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("mine"), 0o644)
	if _, err := Run(mustParse(t, "vary: {skew: [1]}\n"), dir, Options{}); err == nil || !strings.Contains(err.Error(), "not written by hxbar") {
		t.Errorf("a directory with a user's file: %v", err)
	}
	// A log that is a symlink is never followed.
	dir = filepath.Join(t.TempDir(), "out")
	s := mustParse(t, "vary: {skew: [1]}\n")
	if _, err := Run(s, dir, Options{}); err != nil {
		t.Fatal(err)
	}
	target := filepath.Join(t.TempDir(), "elsewhere")
	os.WriteFile(target, nil, 0o644)
	os.Remove(filepath.Join(dir, LogName))
	os.Symlink(target, filepath.Join(dir, LogName))
	if _, err := Run(s, dir, Options{}); err == nil || !strings.Contains(err.Error(), "symlink") {
		t.Errorf("symlinked log: %v", err)
	}
	if b := read(t, target); len(b) != 0 {
		t.Errorf("the symlink's target was written: %q", b)
	}
}

// The shards of a sweep, collected, give a local run's files: equal with
// the wall_ms column removed (the shards ran the points again), and equal
// byte for byte to a local run that reuses the shards' records (same
// wall_ms): collect copies the rows as they are.
func TestShardsCollectEqualLocal(t *testing.T) {
	s := mustParse(t, small)
	local := filepath.Join(t.TempDir(), "local")
	if _, err := Run(s, local, Options{Workers: 2}); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "sharded")
	const n = 5 // 24 points over 5 shards: uneven
	for i := range n {
		if i == 3 {
			continue
		}
		sd, err := ShardDir(dir, i)
		if err != nil {
			t.Fatal(err)
		}
		sum, err := Run(s, sd, Options{Workers: 2, Shard: i, Shards: n})
		if err != nil {
			t.Fatal(err)
		}
		if want := (24 - i + n - 1) / n; sum.Points != want {
			t.Errorf("shard %d: %d points, want %d", i, sum.Points, want)
		}
	}
	if _, err := Collect(dir); err == nil || !strings.Contains(err.Error(), "shards 3 of 0..4 are missing") {
		t.Fatalf("collect with shard 3 missing: %v", err)
	}
	if _, err := Run(s, filepath.Join(dir, ShardsDir, "3"), Options{Shard: 3, Shards: n}); err != nil {
		t.Fatal(err)
	}
	if _, err := Collect(dir); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{CSVName, JSONLName} {
		a, b := read(t, filepath.Join(local, f)), read(t, filepath.Join(dir, f))
		if f == CSVName && withoutWall(t, a) != withoutWall(t, b) || f == JSONLName && withoutWallJSON(a) != withoutWallJSON(b) {
			t.Errorf("%s: collected differs from local:\n%s\n%s", f, a, b)
		}
	}
	collected := map[string][]byte{}
	for _, f := range []string{CSVName, JSONLName} {
		collected[f] = read(t, filepath.Join(dir, f))
	}
	sum, err := Run(s, dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Ran != 0 {
		t.Errorf("a local run after collect ran %d points: the merged log should hold them all", sum.Ran)
	}
	for f, want := range collected {
		if got := read(t, filepath.Join(dir, f)); !bytes.Equal(got, want) {
			t.Errorf("%s: a local run with the shards' records is not byte-for-byte the collected file", f)
		}
	}
	// Shards of another spec are not merged.
	other := mustParse(t, strings.Replace(small, "[1, 8]", "[1, 4]", 1))
	if _, err := Run(other, filepath.Join(dir, ShardsDir, "2"), Options{Shard: 2, Shards: n}); err != nil {
		t.Fatal(err)
	}
	if _, err := Collect(dir); err == nil || !strings.Contains(err.Error(), "different sweeps") {
		t.Errorf("mixed shards: %v", err)
	}
}

func TestPlot(t *testing.T) {
	s := mustParse(t, small)
	dir := filepath.Join(t.TempDir(), "out")
	if _, err := Run(s, dir, Options{}); err != nil {
		t.Fatal(err)
	}
	data := read(t, filepath.Join(dir, JSONLName))
	for _, spec := range []string{"x=order,y=cycles,series=item_flits", "x=item_flits,y=latency,series=order", "x=duplex,y=flit_hops"} {
		ps, err := ParsePlotSpec(spec)
		if err != nil {
			t.Fatal(err)
		}
		svg, err := Plot(data, ps, "t")
		if err != nil || !bytes.Contains(svg, []byte("<svg")) {
			t.Errorf("%s: %v", spec, err)
		}
	}
	ps, _ := ParsePlotSpec("x=order,y=cylces")
	if _, err := Plot(data, ps, "t"); err == nil || !strings.Contains(err.Error(), "y=cylces: no such column (allowed: point, order,") {
		t.Errorf("bad column: %v", err)
	}
	if _, err := ParsePlotSpec("x=order"); err == nil {
		t.Error("a plot without y accepted")
	}
}

func TestSlurmScript(t *testing.T) {
	s := &Slurm{Hxbar: "/opt/hx bar/hxbar", Spec: "/work/s.yaml", Dir: "/scratch/out", Tasks: 4, Partition: "debug", Time: "1:00:00", JobName: "hxbar-sweep-s"}
	got := s.Script()
	for _, want := range []string{"#SBATCH --array=0-3\n", "#SBATCH --partition=debug\n", "#SBATCH --time=1:00:00\n",
		"#SBATCH --output=/scratch/out/logs/task-%a.out\n",
		`exec '/opt/hx bar/hxbar' sweep /work/s.yaml --out /scratch/out --shard "$SLURM_ARRAY_TASK_ID/4" --workers 1`} {
		if !strings.Contains(got, want) {
			t.Errorf("script lacks %q:\n%s", want, got)
		}
	}
	if !checkTime("2-12:00:00") || !checkTime("30") || checkTime("1h") || !checkPartition("a,b") || checkPartition("a b") {
		t.Error("time or partition check")
	}
	// A program that fills Slurm itself gets the same refusals as the
	// flags: nothing reaches an #SBATCH line that sbatch would misread.
	for _, bad := range []Slurm{{Partition: "debug\necho pwned"}, {Time: "1h"}} {
		job := *s
		job.Partition, job.Time = bad.Partition, bad.Time
		if err := job.Check(); err == nil || !strings.Contains(err.Error(), "invalid --") {
			t.Errorf("Check of partition %q time %q: %v", bad.Partition, bad.Time, err)
		}
	}
	if err := s.Check(); err != nil {
		t.Errorf("Check of a good job: %v", err)
	}
}

// Every spec in examples/sweeps parses, and every point passes Check.
func TestExampleSpecs(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("..", "examples", "sweeps", "*.yaml"))
	if len(files) < 2 {
		t.Fatalf("examples/sweeps: %d specs", len(files))
	}
	for _, f := range files {
		s, err := Load(f)
		if err != nil {
			t.Fatal(err)
		}
		for i := range s.Points {
			if err := Check(&s.Points[i]); err != nil {
				t.Errorf("%s: %s: %v", f, s.Label(&s.Points[i]), err)
			}
		}
		if filepath.Base(f) == "orders.yaml" && len(s.Points) < 200 {
			t.Errorf("%s: %d points, the issue asks for at least 200", f, len(s.Points))
		}
	}
}

// The spec of docs/sweeps.md parses to the points the page says, in the
// order it says, and runs.
func TestDocSpec(t *testing.T) {
	doc := string(read(t, filepath.Join("..", "docs", "sweeps.md")))
	_, rest, ok := strings.Cut(doc, "```yaml\n")
	block, _, ok2 := strings.Cut(rest, "```")
	if !ok || !ok2 {
		t.Fatal("docs/sweeps.md: no yaml block")
	}
	s := mustParse(t, block)
	if len(s.Points) != 24 {
		t.Fatalf("%d points, the page says 24", len(s.Points))
	}
	p := s.Points[2] // order OOMM, zip axis 1 (8 flits, 16-flit buffers), full
	if p.Sys.Order != "OOMM" || p.Sys.ItemFlits != 8 || p.Sys.BufferDepth != 16 || p.Sys.Duplex != "full" {
		t.Errorf("point 2: %+v", p.Sys)
	}
	if _, err := Run(s, filepath.Join(t.TempDir(), "out"), Options{}); err != nil {
		t.Fatal(err)
	}
	// Lists and mappings as values: dims, episodes.
	s = mustParse(t, "vary:\n  dims: [[4, 4], [2, 2, 2]]\n  episodes: [[], [{op: sum}, {op: max}]]\n")
	if len(s.Points) != 4 || s.Points[2].Sys.Nodes() != 8 || len(s.Points[3].Sys.Episodes) != 2 {
		t.Fatalf("points %+v", s.Points)
	}
	if got := s.Label(&s.Points[3]); got != `point 3 (dims=[2,2,2], episodes=[{"op":"sum"},{"op":"max"}])` {
		t.Errorf("label %s", got)
	}
	if _, err := Run(s, filepath.Join(t.TempDir(), "out"), Options{}); err != nil {
		t.Fatal(err)
	}
}

// A point's label is one line whatever the spec's values: a control
// character is quoted, a long value cut (FuzzParseSpec found the newline).
func TestLabelOneLine(t *testing.T) {
	for spec, want := range map[string]string{
		"vary: {name: [\"\\n\"]}\n":                              `point 0 (name="\n"): line 1: invalid name`,
		"vary: {name: [\"" + strings.Repeat("x", 100) + "\"]}\n": `point 0 (name=` + strings.Repeat("x", 40) + `...): line 1: invalid name`,
		"vary: {duplex: [full, \"q\\tr\"]}\n":                    `point 1 (duplex="q\tr"): line 1: invalid duplex`,
	} {
		_, err := Parse([]byte(spec), "spec.yaml")
		if err == nil || !strings.Contains(err.Error(), want) || strings.ContainsAny(err.Error(), "\n\t") {
			t.Errorf("%q: %v, want %s", spec, err, want)
		}
	}
}

// scaling is a results.jsonl of a scaling curve from 64 to 65,536 ranks.
func scaling(zeroAt int) []byte {
	var b bytes.Buffer
	for i, r := range []int{64, 256, 1024, 4096, 16384, 65536} {
		y := 10 * (i + 1)
		if r == zeroAt {
			y = 0
		}
		fmt.Fprintf(&b, `{"point":%d,"ranks":%d,"order":"a","cycles":%d}`+"\n", i, r, y)
	}
	return b.Bytes()
}

// TestPlotLog: logx puts the decades of a scaling curve on the x axis as
// labelled ticks (a linear axis labels 0, 20000, ... and squashes 64 to
// 4096 against its left edge).
func TestPlotLog(t *testing.T) {
	ps, err := ParsePlotSpec("x=ranks,y=cycles,logx,logy,series=order")
	if err != nil || !ps.LogX || !ps.LogY || ps.Series != "order" {
		t.Fatalf("parse: %+v %v", ps, err)
	}
	p, _, _, err := buildPlot(scaling(-1), ps, "t")
	if err != nil {
		t.Fatal(err)
	}
	var labels []string
	for _, tk := range p.X.Tick.Marker.Ticks(p.X.Min, p.X.Max) {
		if tk.Label != "" {
			labels = append(labels, tk.Label)
		}
	}
	if want := []string{"100", "1000", "10000"}; !slices.Equal(labels, want) {
		t.Errorf("logx tick labels %v, want the decades %v", labels, want)
	}
	if p.X.Min != 64 || p.X.Max != 65536 {
		t.Errorf("x axis %g..%g, want the data's 64..65536", p.X.Min, p.X.Max)
	}
	svg, err := Plot(scaling(-1), ps, "t")
	if err != nil || !bytes.Contains(svg, []byte(">10000<")) {
		t.Errorf("SVG has no tick label 10000: %v", err)
	}
	// A narrow range still gets two labels at least.
	var n int
	for _, tk := range (logTicks{}).Ticks(3, 8) {
		if tk.Label != "" {
			n++
		}
	}
	if n < 2 {
		t.Errorf("3..8 on a log axis: %d labels", n)
	}
}

func TestPlotLogRefused(t *testing.T) {
	for spec, want := range map[string]string{
		"x=ranks,y=cycles,logx,logx": "logx given twice",
		"x=ranks,y=cycles,logx=yes":  "logx takes no value (allowed: x=KEY,y=FIELD[,series=KEY][,logx][,logy])",
		"x=ranks,y=cycles,logz":      `"logz" is not NAME=COLUMN, logx or logy (allowed: x=KEY,y=FIELD[,series=KEY][,logx][,logy])`,
		"x=ranks,y=cycles,log=x":     `unknown "log" (allowed: x, y, series, logx, logy)`,
	} {
		if _, err := ParsePlotSpec(spec); err == nil || err.Error() != want {
			t.Errorf("%s: %v, want %s", spec, err, want)
		}
	}
	for spec, want := range map[string]string{
		"x=ranks,y=cycles,logy": "logy: y=cycles has the value 0 at ranks=1024 (allowed: values > 0 on a log axis)",
		"x=order,y=cycles,logx": "logx: x=order is not numeric (allowed: logx with a numeric x)",
		"x=point,y=cycles,logx": "logx: x=point has the value 0 (allowed: values > 0 on a log axis)",
	} {
		ps, err := ParsePlotSpec(spec)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Plot(scaling(1024), ps, "t"); err == nil || err.Error() != want {
			t.Errorf("%s: %v, want %s", spec, err, want)
		}
	}
}

// TestPlotNullX: a row whose x does not apply (latency null: an
// incomplete run) is left out like one whose y does not, not drawn at an
// empty category with the mean of the incomplete runs' cycles; the other
// rows keep a numeric x, so logx takes it.
func TestPlotNullX(t *testing.T) {
	rows := []byte(`{"point":0,"latency":24,"cycles":63}
{"point":1,"latency":48,"cycles":66}
{"point":2,"latency":null,"cycles":1000000}
`)
	for _, spec := range []string{"x=latency,y=cycles", "x=latency,y=cycles,logx"} {
		ps, err := ParsePlotSpec(spec)
		if err != nil {
			t.Fatal(err)
		}
		p, _, _, err := buildPlot(rows, ps, "t")
		if err != nil {
			t.Fatalf("%s: %v", spec, err)
		}
		if p.X.Min != 24 || p.X.Max != 48 || p.Y.Max >= 1000000 {
			t.Errorf("%s: x %g..%g, y up to %g: want x 24..48 and no point of the null row", spec, p.X.Min, p.X.Max, p.Y.Max)
		}
	}
}

// TestPlotSaysWhatItOmits: rows whose x or y is null are left out, and
// the plot says how many and why under its title (and Omitted returns
// the same), never silently; a plot that omits nothing says nothing.
func TestPlotSaysWhatItOmits(t *testing.T) {
	rows := []byte(`{"point":0,"ranks":4,"latency":24,"complete":true,"error":""}
{"point":1,"ranks":8,"latency":null,"complete":false,"error":""}
{"point":2,"ranks":16,"latency":null,"complete":true,"error":"TIMEOUT"}
{"point":3,"ranks":null,"latency":30,"complete":true,"error":""}
{"point":4,"ranks":32,"latency":40,"complete":true,"error":""}
`)
	ps, err := ParsePlotSpec("x=ranks,y=latency")
	if err != nil {
		t.Fatal(err)
	}
	svg, om, err := PlotOmitting(rows, ps, "t", "svg")
	if err != nil {
		t.Fatal(err)
	}
	want := Omitted{Rows: 5, X: "ranks", Y: "latency", NullX: 1, NullY: 2, Errors: 1, Incomplete: 1}
	if om != want {
		t.Errorf("omitted %+v, want %+v", om, want)
	}
	note := "3 of 5 rows not drawn: ranks is null in 1; latency is null in 2 (1 ended in an error, 1 did not complete)"
	if om.String() != note {
		t.Errorf("note %q, want %q", om.String(), note)
	}
	if !bytes.Contains(svg, []byte("3 of 5 rows not drawn")) {
		t.Errorf("the SVG does not say which rows it left out")
	}
	full := []byte(`{"point":0,"ranks":4,"latency":24}` + "\n" + `{"point":1,"ranks":8,"latency":30}` + "\n")
	svg, om, err = PlotOmitting(full, ps, "t", "svg")
	if err != nil || om.Total() != 0 || om.String() != "" || bytes.Contains(svg, []byte("not drawn")) {
		t.Errorf("a plot omitting nothing: %v, %+v", err, om)
	}
}
