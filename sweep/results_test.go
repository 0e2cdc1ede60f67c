package sweep

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/hxbar/hxbar/internal/gendir"
	"github.com/hxbar/hxbar/internal/version"
)

// A point that ends in a watchdog TIMEOUT is a row (complete false, error
// TIMEOUT, latency null), not a failure, and is not re-run on resume.
func TestErrorOutcomeIsARow(t *testing.T) {
	s := mustParse(t, "base: {skew: 0, watchdog: 200}\nvary:\n  faults: [[], ['stuck:5']]\nmeasure: [cycles, latency, last_arrival]\n")
	dir := filepath.Join(t.TempDir(), "out")
	sum, err := Run(s, dir, Options{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Ran != 2 || len(sum.Failed) != 0 || sum.Errors != 1 || sum.Incomplete != 0 {
		t.Fatalf("summary %+v", sum)
	}
	lines := strings.Split(strings.TrimSpace(string(read(t, filepath.Join(dir, JSONLName)))), "\n")
	if len(lines) != 2 {
		t.Fatalf("%d rows, want 2", len(lines))
	}
	var row map[string]any
	if err := json.Unmarshal([]byte(lines[1]), &row); err != nil {
		t.Fatal(err)
	}
	if row["error"] != "TIMEOUT" || row["complete"] != false || row["latency"] != nil || row["hxbar_version"] != version.String() {
		t.Errorf("timed-out row: %s", lines[1])
	}
	if !strings.Contains(lines[0], `"error":""`) || !strings.Contains(lines[0], `"complete":true`) {
		t.Errorf("fault-free row: %s", lines[0])
	}
	if sum, err := Run(s, dir, Options{}); err != nil || sum.Ran != 0 || sum.Skipped != 2 {
		t.Errorf("resume re-ran an error outcome: %+v %v", sum, err)
	}
}

// A resume refuses a log of another hxbar version, naming both.
func TestResumeRefusesOtherVersion(t *testing.T) {
	s := mustParse(t, "base: {skew: 0}\nvary:\n  duplex: [full, half]\n")
	dir := filepath.Join(t.TempDir(), "out")
	if _, err := Run(s, dir, Options{}); err != nil {
		t.Fatal(err)
	}
	log := filepath.Join(dir, LogName)
	data := read(t, log)
	if old := `"hxbar_version":` + string(jsonText(version.String())); !strings.Contains(string(data), old) {
		t.Fatalf("log records no version: %s", data)
	}
	asVersion(t, log, "v0.1.0 abc")
	_, err := Run(s, dir, Options{})
	if err == nil || !strings.Contains(err.Error(), `points run by hxbar "v0.1.0 abc", this is hxbar "`+version.String()+`"`) {
		t.Errorf("resume over another version: %v", err)
	}
}

// asVersion rewrites the log at path as another version would have written
// it: the same records, their sums made anew.
func asVersion(t *testing.T, path, v string) {
	t.Helper()
	recs, err := parseLog(bytes.NewReader(read(t, path)), path)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, r := range recs {
		r.Version = v
		r.Sum = r.sum()
		line, _ := json.Marshal(r)
		b.WriteString(string(line) + "\n")
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// --collect refuses to merge a log of another version into DIR's.
func TestCollectRefusesOtherVersionLog(t *testing.T) {
	s := mustParse(t, "base: {skew: 0}\nvary:\n  duplex: [full, half]\n")
	dir := filepath.Join(t.TempDir(), "out")
	sd, err := ShardDir(dir, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Run(s, sd, Options{Shard: 0, Shards: 1}); err != nil {
		t.Fatal(err)
	}
	if _, err := Collect(dir); err != nil {
		t.Fatal(err)
	}
	asVersion(t, filepath.Join(dir, LogName), "v0.1.0 abc")
	if _, err := Collect(dir); err == nil || !strings.Contains(err.Error(), `record 1: a point run by hxbar "v0.1.0 abc", this is hxbar "`+version.String()+`"`) {
		t.Errorf("collect over another version's log: %v", err)
	}
}

// A sweep refused by the lock has not rewritten sweep.json.
func TestLockedSweepChangesNothing(t *testing.T) {
	s := mustParse(t, "base: {skew: 0}\nvary:\n  duplex: [full, half]\n")
	dir := filepath.Join(t.TempDir(), "out")
	if _, err := Run(s, dir, Options{}); err != nil {
		t.Fatal(err)
	}
	before := read(t, filepath.Join(dir, MetaName))
	lg, err := openLog(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer lg.close()
	other := mustParse(t, "base: {skew: 0}\nvary:\n  duplex: [full]\n")
	if _, err := Run(other, dir, Options{}); err == nil || !strings.Contains(err.Error(), "another hxbar sweep is running") {
		t.Fatalf("second sweep: %v", err)
	}
	if after := read(t, filepath.Join(dir, MetaName)); string(after) != string(before) {
		t.Errorf("the refused sweep rewrote %s:\n%s", MetaName, after)
	}
}

// Collect checks every field of a shard's sweep.json before using it.
func TestCollectValidatesMeta(t *testing.T) {
	s := mustParse(t, "base: {skew: 0}\nvary:\n  duplex: [full, half]\n")
	good := Meta{Tool: Tool, Points: 2, PointsSHA256: s.PointsHash(), Columns: s.Columns(), Shard: 0, Shards: 1, HxbarVersion: version.String()}
	for _, c := range []struct {
		edit func(*Meta)
		want string
	}{
		{func(m *Meta) { m.Points = -1 }, "invalid points: -1 (allowed: 1..1000000)"},
		{func(m *Meta) { m.Shards = 1_000_000_000_000 }, "invalid shards: 1000000000000 (allowed: 1..1000000)"},
		{func(m *Meta) { m.Shards = 0 }, "invalid shards: 0 (allowed: 1..1000000)"},
		{func(m *Meta) { m.PointsSHA256 = "x" }, `invalid points_sha256: "x"`},
		{func(m *Meta) { m.Columns = []string{"point"} }, "invalid columns"},
		{func(m *Meta) { m.HxbarVersion = "v9 deadbeef" }, `written by hxbar "v9 deadbeef", this is hxbar "` + version.String() + `"`},
	} {
		dir := filepath.Join(t.TempDir(), "out")
		sd, err := ShardDir(dir, 0)
		if err != nil {
			t.Fatal(err)
		}
		m := good
		c.edit(&m)
		b, _ := json.Marshal(m)
		if _, err := gendir.Write(sd, []gendir.File{{Name: MetaName, Data: b, Part: "spec"}}, gendir.Options{Tool: Tool}); err != nil {
			t.Fatal(err)
		}
		_, err = Collect(dir)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), MetaName) {
			t.Errorf("%s: got %v", c.want, err)
		}
	}
}

// The batch script refuses control characters and keeps the job name to
// characters an #SBATCH line holds; paths are quoted in comments too.
func TestSlurmScriptInjection(t *testing.T) {
	base := Slurm{Hxbar: "/opt/hxbar", Spec: "/w/s.yaml", Dir: "/scratch/out", Tasks: 2, JobName: "hxbar-sweep-s"}
	for name, edit := range map[string]func(*Slurm){
		"the job name":            func(s *Slurm) { s.JobName = "x\nrm -rf ~" },
		"the hxbar binary's path": func(s *Slurm) { s.Hxbar = "/opt/a\rb" },
		"--out":                   func(s *Slurm) { s.Dir = "/o\x00" },
		"invalid --tasks":         func(s *Slurm) { s.Tasks = 2_000_000 },
	} {
		s := base
		edit(&s)
		if err := s.Check(); err == nil || !strings.Contains(err.Error(), name) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %v", name, err)
		}
	}
	s := base
	s.JobName, s.Hxbar = "hxbar-sweep-a b;$(x)", "/opt/my hxbar"
	if err := s.Check(); err != nil {
		t.Fatal(err)
	}
	got := s.Script()
	for _, want := range []string{"#SBATCH --job-name=hxbar-sweep-a_b___x_\n", "#   '/opt/my hxbar' sweep --collect /scratch/out\n"} {
		if !strings.Contains(got, want) {
			t.Errorf("script lacks %q:\n%s", want, got)
		}
	}
}

// Varied values are written as the spec wrote them: 0x10 stays 0x10, a
// date stays a date, a quoted "16" is the string 16, a plain 16 a number.
func TestValuesAsWritten(t *testing.T) {
	s := mustParse(t, "base: {skew: 0}\nvary:\n  seed: [0x10, 16, 17]\n  name: [2024-01-01, \"16\", n3]\n  faults: [[], ['stuck:5'], [\"stuck:3\"]]\nzip: [[seed, name, faults]]\nmeasure: [cycles]\n")
	want := []string{
		`point 0 (seed=0x10, name=2024-01-01, faults=[]) "0x10" "2024-01-01" []`,
		`point 1 (seed=16, name=16, faults=["stuck:5"]) 16 "16" ["stuck:5"]`,
		`point 2 (seed=17, name=n3, faults=["stuck:3"]) 17 "n3" ["stuck:3"]`,
	}
	if len(s.Points) != len(want) {
		t.Fatalf("%d points", len(s.Points))
	}
	for i := range s.Points {
		p := &s.Points[i]
		got := s.Label(p) + " " + string(p.Values[0]) + " " + string(p.Values[1]) + " " + string(p.Values[2])
		if got != want[i] {
			t.Errorf("got  %s\nwant %s", got, want[i])
		}
	}
	if s.Points[0].Sys.Seed != 16 || s.Points[0].Sys.Name != "2024-01-01" {
		t.Errorf("system: seed %d name %q", s.Points[0].Sys.Seed, s.Points[0].Sys.Name)
	}
	dir := filepath.Join(t.TempDir(), "out")
	if _, err := Run(s, dir, Options{}); err != nil {
		t.Fatal(err)
	}
	if csv := string(read(t, filepath.Join(dir, CSVName))); !strings.Contains(csv, "\n0,0x10,2024-01-01,[],") || !strings.Contains(csv, "\n2,17,n3,"+`"[""stuck:3""]"`+",") {
		t.Errorf("results.csv:\n%s", csv)
	}
}

// A bad channel name in a point too large for Check to assemble is refused
// before any point runs, naming the point, the field and its line.
func TestCheckAllLargePointChannels(t *testing.T) {
	s := mustParse(t, "base: {dims: [64, 64, 2]}\nvary:\n  faults: [['drop:n0.d0.up@5'], ['drop:n9.d7.up@5']]\n  avoid: [[], [n3.d1.down]]\n")
	if s.Points[0].Sys.Nodes() <= checkBuildNodes {
		t.Fatalf("%d nodes: not above the size Check assembles", s.Points[0].Sys.Nodes())
	}
	err := s.CheckAll()
	want := `spec.yaml: point 2 (faults=["drop:n9.d7.up@5"], avoid=[]): line 3: invalid faults[0]: "n9.d7.up" (allowed: a channel of this`
	if err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Fatalf("got  %v\nwant %s", err, want)
	}
	ok := mustParse(t, "base: {dims: [64, 64, 2]}\nvary:\n  faults: [['drop:n0.d0.up@5'], ['drop:n8191.inject@5']]\n  avoid: [[], [n3.d1.down]]\n")
	if err := ok.CheckAll(); err != nil {
		t.Errorf("valid names refused: %v", err)
	}
	bad := mustParse(t, "base: {dims: [64, 64, 2]}\nvary:\n  avoid: [[n3.d1.down], [n3.d3.down]]\n")
	if err := bad.CheckAll(); err == nil || !strings.Contains(err.Error(), `point 1 (avoid=["n3.d3.down"]): line 3: invalid avoid[0]: "n3.d3.down"`) {
		t.Errorf("avoid: %v", err)
	}
}

// The log reader: a line cut short by a crash is skipped, a hand-edited
// record or a line over 1 MiB is refused by its line number, and no line
// hides the records after it.
func TestLogLines(t *testing.T) {
	s := mustParse(t, "base: {skew: 0}\nvary:\n  duplex: [full, half]\n")
	dir := filepath.Join(t.TempDir(), "out")
	if _, err := Run(s, dir, Options{}); err != nil {
		t.Fatal(err)
	}
	log := filepath.Join(dir, LogName)
	data := string(read(t, log))
	lines := strings.SplitAfter(data, "\n")
	for name, c := range map[string]struct{ text, want string }{
		"cut short":  {lines[0][:40] + "\n" + lines[1], ""},
		"edited":     {strings.Replace(lines[0], `"cycles":`, `"cycles":1`, 1) + lines[1], "line 1: the record's sum does not match"},
		"long line":  {lines[0] + `{"hash":"` + strings.Repeat("a", 2<<20) + "\"}\n" + lines[1], "line 2: longer than 1048576 bytes (allowed: at most 1 MiB a line)"},
		"not record": {lines[0] + "hello\n" + lines[1], "line 2: not a record of hxbar sweep"},
	} {
		recs, err := parseLog(strings.NewReader(c.text), log)
		switch {
		case c.want == "" && (err != nil || len(recs) != 1):
			t.Errorf("%s: %d records, %v", name, len(recs), err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), log)):
			t.Errorf("%s: %v", name, err)
		}
	}
	if err := os.WriteFile(log, []byte(strings.Replace(data, `"cycles":`, `"cycles":1`, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Run(s, dir, Options{}); err == nil || !strings.Contains(err.Error(), "sum does not match") {
		t.Errorf("resume over an edited log: %v", err)
	}
}

// A spec whose log would not fit what a resume reads back is refused
// before any point runs, naming the limit; one that fits is accepted.
func TestCheckSize(t *testing.T) {
	seeds := func(n int) string {
		var b strings.Builder
		b.WriteString("base: {skew: 0}\nvary:\n  seed: [")
		for i := range n {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(strconv.Itoa(i))
		}
		b.WriteString("]\n")
		return b.String()
	}
	n := int(sizeLimit / recordBound())
	if testing.Short() { // the same rule on a smaller limit
		defer func(l int64) { sizeLimit = l }(sizeLimit)
		n = 100
		sizeLimit = int64(n) * recordBound()
	}
	if err := mustParse(t, seeds(n)).CheckSize(); err != nil {
		t.Errorf("%d points: %v", n, err)
	}
	// One point more is refused, by Parse already (the log's records alone
	// are over) or else by CheckSize.
	spec, err := Parse([]byte(seeds(n+1)), "spec.yaml")
	if err == nil {
		err = spec.CheckSize()
	}
	if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("%d points: the sweep's points.jsonl would exceed %d MiB from point %d on", n+1, sizeLimit>>20, n)) {
		t.Errorf("%d points: %v", n+1, err)
	}
	// A real run's records are within the bound.
	s := mustParse(t, small)
	dir := filepath.Join(t.TempDir(), "out")
	if _, err := Run(s, dir, Options{}); err != nil {
		t.Fatal(err)
	}
	for i, line := range strings.Split(string(read(t, filepath.Join(dir, LogName))), "\n") {
		if int64(len(line)+1) > recordBound() {
			t.Errorf("record %d: %d bytes, over the bound %d", i, len(line)+1, recordBound())
		}
	}
}

// A log of an hxbar before versions (records without hxbar_version and
// sum) is refused by its version, not called edited.
func TestResumeRefusesUnversionedLog(t *testing.T) {
	s := mustParse(t, "base: {skew: 0}\nvary:\n  duplex: [full, half]\n")
	dir := filepath.Join(t.TempDir(), "out")
	if _, err := Run(s, dir, Options{}); err != nil {
		t.Fatal(err)
	}
	log := filepath.Join(dir, LogName)
	recs, err := parseLog(bytes.NewReader(read(t, log)), log)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, r := range recs {
		line, _ := json.Marshal(map[string]any{"hash": r.Hash, "wall_ms": r.WallMS, "result": r.Result})
		b.WriteString(string(line) + "\n")
	}
	if err := os.WriteFile(log, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Run(s, dir, Options{}); err == nil || !strings.Contains(err.Error(), "points run by hxbar of no recorded version (older than hxbar version), this is hxbar") {
		t.Errorf("resume over an unversioned log: %v", err)
	}
}

// --collect checks each shard's log against the hash its manifest records.
func TestCollectChecksShardLogHash(t *testing.T) {
	s := mustParse(t, "base: {skew: 0}\nvary:\n  duplex: [full, half]\n")
	dir := filepath.Join(t.TempDir(), "out")
	sd, err := ShardDir(dir, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Run(s, sd, Options{Shard: 0, Shards: 1}); err != nil {
		t.Fatal(err)
	}
	log := filepath.Join(sd, LogName)
	data := read(t, log)
	if err := os.WriteFile(log, append(data, data[:40]...), 0o644); err != nil { // a valid log, not the one recorded
		t.Fatal(err)
	}
	_, err = Collect(dir)
	if _, ok := err.(*IncompleteError); !ok || !strings.Contains(err.Error(), log+": missing, or not as hxbar-manifest.json records it") {
		t.Errorf("collect over an edited shard log: %v", err)
	}
}
