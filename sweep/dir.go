package sweep

import (
	"bytes"
	"crypto/sha256"
	"encoding/csv"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/hxbar/hxbar/internal/gendir"
	"github.com/hxbar/hxbar/internal/inputfile"
	"github.com/hxbar/hxbar/internal/outfile"
	"github.com/hxbar/hxbar/internal/version"
)

// The files of a sweep directory (docs/sweeps.md). hxbar owns those its
// manifest lists (internal/gendir) and nothing else in the directory.
const (
	MetaName  = "sweep.json"    // what the directory holds: points, columns, shard
	LogName   = "points.jsonl"  // every point run, one Record a line, in the order they finished
	CSVName   = "results.csv"   // one row per point, in point order
	JSONLName = "results.jsonl" // the same rows as JSON objects
	ShardsDir = "shards"        // DIR/shards/i: shard i of a sharded run
	// Tool is the owner a sweep directory's manifest and sweep.json name
	// (Collect checks it); a program that adds files to a sweep directory
	// through gendir, as hxbar sweep --plot and --slurm do, writes them
	// as this tool.
	Tool = "hxbar sweep"
)

// Meta is the content of MetaName.
type Meta struct {
	Tool         string   `json:"tool"`
	Points       int      `json:"points"` // of the whole spec
	PointsSHA256 string   `json:"points_sha256"`
	Columns      []string `json:"columns"`
	Shard        int      `json:"shard"`
	Shards       int      `json:"shards"` // 1: every point
	// HxbarVersion is the version that ran the points (version.String());
	// another version refuses to resume or collect them.
	HxbarVersion string `json:"hxbar_version"`
}

// Columns are the columns of the results: the point's index, the varied
// keys, the measured fields, the wall time, the point's hash and the hxbar
// version that ran it.
func (s *Spec) Columns() []string {
	c := append([]string{"point"}, s.Keys...)
	c = append(c, s.Measure...)
	return append(c, "wall_ms", "hash", "hxbar_version")
}

// PointsHash identifies a spec's points and columns: the SHA-256 of the
// points' hashes and the columns, so that shards of different specs are
// never merged.
func (s *Spec) PointsHash() string {
	h := sha256.New()
	for _, p := range s.Points {
		io.WriteString(h, p.Hash+"\n")
	}
	io.WriteString(h, strings.Join(s.Columns(), ",")+"\n")
	return hex.EncodeToString(h.Sum(nil))
}

func (s *Spec) meta(shard, shards int) []byte {
	m := Meta{Tool: Tool, Points: len(s.Points), PointsSHA256: s.PointsHash(), Columns: s.Columns(), Shard: shard, Shards: shards, HxbarVersion: version.String()}
	b, _ := json.MarshalIndent(m, "", "  ")
	return append(b, '\n')
}

// row is one point's row: its cells as JSON values, in column order.
func (s *Spec) row(p *Point, r *Record) []json.RawMessage {
	out := []json.RawMessage{json.RawMessage(strconv.Itoa(p.Index))}
	out = append(out, p.Values...)
	for _, f := range s.Measure {
		v, ok := r.Result[f]
		if !ok {
			v = json.RawMessage("null")
		}
		out = append(out, v)
	}
	out = append(out, json.RawMessage(strconv.FormatFloat(r.WallMS, 'f', 3, 64)))
	return append(out, jsonText(p.Hash), jsonText(r.Version))
}

// jsonLine is a row as one line of JSONL: an object with the columns in order.
func jsonLine(cols []string, row []json.RawMessage) []byte {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, c := range cols {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(jsonText(c))
		b.WriteByte(':')
		b.Write(row[i])
	}
	b.WriteString("}\n")
	return b.Bytes()
}

func csvRecord(row []json.RawMessage) []string {
	out := make([]string, len(row))
	for i, v := range row {
		out[i] = CSVValue(v)
	}
	return out
}

// Options control a run.
type Options struct {
	Workers int // points run at once; 0: GOMAXPROCS
	// Shard i of Shards runs the points p with p % Shards == i; Shards 0 or
	// 1 runs them all.
	Shard, Shards int
	// Progress, when set, is called after each point finishes (and once
	// before the first) with the points done and to do in this run.
	Progress func(done, total int)
}

// Summary says what a run did.
type Summary struct {
	Dir        string  // the directory written (absolute)
	Points     int     // points of this run (of the shard)
	Ran        int     // points run now
	Skipped    int     // points found in the log (run before)
	Incomplete int     // points whose run stopped at max_cycles
	Errors     int     // points whose run ended in a unit's error (a result: its error column)
	Failed     []error // points that could not run, each naming the point
}

// Run runs the points of the spec (of one shard) that dir's log does not
// hold yet and writes dir's results. dir is created when it does not exist
// (its parent must); an existing one must be a sweep directory (it has the
// manifest) or empty.
func Run(s *Spec, dir string, opt Options) (*Summary, error) {
	shards := max(opt.Shards, 1)
	if opt.Shard < 0 || opt.Shard >= shards {
		return nil, fmt.Errorf("shard %d of %d (allowed: 0..%d)", opt.Shard, shards, shards-1)
	}
	meta := gendir.File{Name: MetaName, Data: s.meta(opt.Shard, shards), Part: "spec"}
	real, lg, err := lockDir(dir, meta)
	if err != nil {
		return nil, err
	}
	defer lg.close()
	for _, r := range lg.done {
		if r.Version != version.String() {
			return nil, fmt.Errorf("%s: points run by hxbar %s, this is hxbar %q (a sweep never mixes rows of two versions: use a new --out DIR, or run the version that wrote it)",
				filepath.Join(real, LogName), versionName(r.Version), version.String())
		}
	}
	sum := &Summary{Dir: real}
	var todo []int
	for i := range s.Points {
		p := &s.Points[i]
		if p.Index%shards != opt.Shard {
			continue
		}
		sum.Points++
		if _, ok := lg.done[p.Hash]; ok {
			sum.Skipped++
			continue
		}
		todo = append(todo, i)
	}
	if err := runPoints(s, todo, lg, opt, sum); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(real, LogName), err)
	}
	slices.SortFunc(sum.Failed, func(a, b error) int { return strings.Compare(a.Error(), b.Error()) })
	jl, cv := s.results(lg, opt.Shard, shards, sum)
	files := []gendir.File{meta,
		{Name: LogName, Adopt: true, Part: "log"}, // as appended: hashed streamed, not rewritten
		{Name: CSVName, Data: cv, Part: "results"},
		{Name: JSONLName, Data: jl, Part: "results"}}
	if _, err := gendir.Write(real, files, gendir.Options{Tool: Tool, Parts: []string{"spec", "log", "results"}, Inputs: []string{LogName}}); err != nil {
		return nil, err
	}
	return sum, nil
}

// runPoints runs the points todo (indexes into s.Points) on opt.Workers
// workers, appending each record to the log as it comes; a point that
// fails is named in sum.Failed. The error is the log's.
func runPoints(s *Spec, todo []int, lg *runLog, opt Options, sum *Summary) error {
	workers := opt.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	type outcome struct {
		i   int
		rec Record
		err error
	}
	jobs := make(chan int)
	results := make(chan outcome)
	var wg sync.WaitGroup
	for range min(workers, max(len(todo), 1)) {
		wg.Go(func() {
			for i := range jobs {
				rec, err := RunPoint(&s.Points[i])
				results <- outcome{i, rec, err}
			}
		})
	}
	go func() {
		for _, i := range todo {
			jobs <- i
		}
		close(jobs)
		wg.Wait()
		close(results)
	}()
	if opt.Progress != nil {
		opt.Progress(0, len(todo))
	}
	var logErr error
	done := 0
	for o := range results {
		done++
		p := &s.Points[o.i]
		switch {
		case o.err != nil:
			sum.Failed = append(sum.Failed, fmt.Errorf("%s: %w", s.Label(p), o.err))
		case logErr == nil:
			logErr = lg.append(o.rec)
			sum.Ran++
		}
		if opt.Progress != nil {
			opt.Progress(done, len(todo))
		}
	}
	return logErr
}

// results are the shard's rows as JSON lines and CSV, in point order,
// from the log's records; it counts the rows that ended in an error or
// incomplete.
func (s *Spec) results(lg *runLog, shard, shards int, sum *Summary) (jsonl, csvData []byte) {
	cols := s.Columns()
	var jl, cv bytes.Buffer
	cw := csv.NewWriter(&cv)
	cw.Write(cols)
	for i := range s.Points {
		p := &s.Points[i]
		if p.Index%shards != shard {
			continue
		}
		r, ok := lg.done[p.Hash]
		if !ok {
			continue // failed: named in sum.Failed
		}
		if e, ok := r.Result["error"]; ok && string(e) != `""` {
			sum.Errors++
		} else if c, ok := r.Result["complete"]; ok && string(c) == "false" {
			sum.Incomplete++
		}
		row := s.row(p, &r)
		jl.Write(jsonLine(cols, row))
		cw.Write(csvRecord(row))
	}
	cw.Flush()
	return jl.Bytes(), cv.Bytes()
}

// versionName quotes a recorded version for messages; none recorded is an
// hxbar older than the record's hxbar_version field.
func versionName(v string) string {
	if v == "" {
		return "of no recorded version (older than hxbar version)"
	}
	return quoteCut(v)
}

// lockDir opens and locks dir's log, reads it, then writes meta: a sweep
// refused by the lock (another runs in dir) or by its log changes nothing.
// A directory that is not a sweep's with a log yet gets meta first, so that
// the owner checks of gendir.Write run before the log is created in it.
func lockDir(dir string, meta gendir.File) (string, *runLog, error) {
	opts := gendir.Options{Tool: Tool, Parts: []string{"spec"}, Inputs: []string{LogName}}
	real, exists, err := gendir.Resolve(dir)
	if err != nil {
		return "", nil, err
	}
	if !exists || !lockFirst(real) {
		if _, err := gendir.Write(dir, []gendir.File{meta}, opts); err != nil {
			return "", nil, err
		}
		if real, _, err = gendir.Resolve(dir); err != nil {
			return "", nil, err
		}
	}
	lg, err := openLog(real)
	if err != nil {
		return "", nil, err
	}
	if _, err := gendir.Write(real, []gendir.File{meta}, opts); err != nil {
		lg.close()
		return "", nil, err
	}
	if err := lg.endLine(); err != nil {
		lg.close()
		return "", nil, err
	}
	return real, lg, nil
}

// lockFirst says whether dir is a sweep's directory whose log can be
// locked before anything is written: its sweep.json is owned, or it has a
// log (opening it creates nothing) and its manifest is a sweep's (the
// sweep.json of another run may be missing or edited; gendir.Write, after
// the lock, decides).
func lockFirst(dir string) bool {
	if gendir.Owns(dir, MetaName) {
		return true
	}
	m, err := gendir.ReadManifest(dir)
	if err != nil || gendir.Owner(m.Tool) != "sweep" {
		return false
	}
	st, err := os.Lstat(filepath.Join(dir, LogName))
	return err == nil && st.Mode().IsRegular()
}

// CheckSize refuses, before any point runs, a spec whose files would not
// fit the 64 MiB a sweep reads back (inputfile.MaxSize): the log, read on
// every resume and by --collect, and the results, read by --collect and
// --plot. The estimate takes each point's varied values as they are and
// every measured field at a size it does not reach in practice (cycles of
// 13 digits, a 24-character channel name), so a spec it accepts fits.
func (s *Spec) CheckSize() error {
	rec, row := recordBound(), rowBound(s)
	var log, rows int64
	for i := range s.Points {
		log += rec
		rows += row + int64(len(strconv.Itoa(i)))
		for k, v := range s.Points[i].Values {
			rows += int64(len(v) + len(s.Keys[k]) + 4) // "key":value, and the CSV cell
		}
		if log > sizeLimit || rows > sizeLimit {
			name, per := LogName, rec
			if rows > sizeLimit {
				name, per = JSONLName, rows/int64(i+1)
			}
			return fmt.Errorf("%d points: the sweep's %s would exceed %d MiB from point %d on (allowed: at most %d MiB, about %d points of this spec at %d bytes each: split the sweep into several specs)",
				len(s.Points), name, sizeLimit>>20, i, sizeLimit>>20, sizeLimit/per, per)
		}
	}
	return nil
}

// sizeLimit is what CheckSize allows a file (a variable for the tests).
var sizeLimit int64 = inputfile.MaxSize

// bigMeasures is a Measures at the sizes CheckSize assumes.
func bigMeasures() Measures {
	big, n, u := int64(9_999_999_999_999), 999_999_999, uint64(9_999_999_999_999)
	ch, load := "l99.w9999999.down999999", 0.123456789012345678
	return Measures{Cycles: big, Ranks: n, Error: "CREDITLOST", Released: n, Episodes: n, LastArrival: &big, Latency: &big,
		ReleaseSpread: &big, Packets: u, Flits: u, FlitHops: u, Channels: n, MeanChannelLoad: 0.123456789012345678,
		BusiestChannel: &ch, BusiestChannelLoad: &load, ItemsMoved: &n, ItemsReceived: &u, Cost: &n}
}

// recordBound is the largest log record of a point, line end included.
func recordBound() int64 {
	data, _ := json.Marshal(bigMeasures())
	var fields map[string]json.RawMessage
	json.Unmarshal(data, &fields)
	r := Record{Hash: strings.Repeat("0", 64), Version: version.String(), WallMS: 99_999_999.999, Result: fields}
	r.Sum = r.sum()
	line, _ := json.Marshal(r)
	return int64(len(line) + 1)
}

// rowBound is the largest row of results.jsonl but for the point's index
// and varied values (CheckSize adds them); results.csv's rows are shorter.
func rowBound(s *Spec) int64 {
	data, _ := json.Marshal(bigMeasures())
	var fields map[string]json.RawMessage
	json.Unmarshal(data, &fields)
	n := int64(len(`{"point":}`) + 1)
	for _, f := range s.Measure {
		n += int64(len(f) + 4 + len(fields[f]))
	}
	return n + int64(len(`,"wall_ms":99999999.999,"hash":"`)+64+len(`","hxbar_version":""`)+len(version.String()))
}

// EnsureDir makes dir a sweep directory (one with a manifest) when it is
// not one yet, so that the shards inside it and the results Collect writes
// later live in a directory hxbar owns. It is part of the sharded-run API
// (ShardDir, Run with Options.Shard, Collect), not a CLI helper. Array tasks may race here; a
// writer that fails finds the manifest another wrote.
func EnsureDir(dir string) error {
	if _, err := gendir.ReadManifest(dir); err == nil {
		return nil
	}
	readme := []byte("Written by hxbar sweep: shards/i holds shard i of a sharded sweep; 'hxbar sweep --collect' merges them here (docs/sweeps.md).\n")
	_, err := gendir.Write(dir, []gendir.File{{Name: "README.sweep", Data: readme, Part: "spec"}}, gendir.Options{Tool: Tool, Parts: []string{"spec"}})
	if err != nil {
		if _, err2 := gendir.ReadManifest(dir); err2 == nil {
			return nil
		}
	}
	return err
}

// ShardDir returns dir/shards/i, creating dir (EnsureDir) and dir/shards:
// where Run writes shard i (Options.Shard) for Collect(dir) to merge. A
// program that runs the shards of a sweep itself lays them out with it.
func ShardDir(dir string, i int) (string, error) {
	if err := EnsureDir(dir); err != nil {
		return "", err
	}
	real, _, err := gendir.Resolve(dir)
	if err != nil {
		return "", err
	}
	sd := filepath.Join(real, ShardsDir)
	if err := os.Mkdir(sd, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
		return "", err
	}
	if st, err := os.Lstat(sd); err != nil || !st.IsDir() {
		return "", fmt.Errorf("%s: not a directory (a symlink is not followed)", sd)
	}
	// The shard's directory is resolved by Run, symlinks followed: refuse
	// one here, or a shard would write wherever the link points.
	p := filepath.Join(sd, strconv.Itoa(i))
	if st, err := os.Lstat(p); err == nil && st.Mode()&fs.ModeSymlink != 0 {
		return "", fmt.Errorf("%s: a symlink, not followed (allowed: a directory, or none: it is made)", p)
	} else if err == nil && !st.IsDir() {
		return "", fmt.Errorf("%s: not a directory (allowed: a directory, or none: it is made)", p)
	}
	return p, nil
}

// runLog is the open log of a directory: the records it holds by hash,
// locked against a second run in the same directory.
type runLog struct {
	f    *os.File
	path string
	done map[string]Record
	recs []Record // as read, in the log's order
}

// openLog opens dir's log (created when missing) through outfile.Append
// (never a symlink, a hard link, a FIFO), locks it and reads its records,
// streamed. It writes nothing into a log that exists.
func openLog(dir string) (*runLog, error) {
	path := filepath.Join(dir, LogName)
	f, err := outfile.Append(path, 0o644)
	if err != nil {
		return nil, err
	}
	l := &runLog{f: f, path: path, done: map[string]Record{}}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: another hxbar sweep is running in this directory (%v)", path, err)
	}
	st, err := f.Stat()
	if err != nil {
		l.close()
		return nil, err
	}
	recs, err := parseLog(io.NewSectionReader(f, 0, st.Size()), path)
	if err != nil {
		l.close()
		return nil, err
	}
	for _, r := range recs {
		l.done[r.Hash] = r
	}
	l.recs = recs
	return l, nil
}

// endLine ends a line cut short by a crash, so the next record starts a
// line of its own.
func (l *runLog) endLine() error {
	st, err := l.f.Stat()
	if err != nil || st.Size() == 0 {
		return err
	}
	var last [1]byte
	if _, err := l.f.ReadAt(last[:], st.Size()-1); err != nil {
		return err
	}
	if last[0] != '\n' {
		_, err = l.f.Write([]byte("\n"))
	}
	return err
}

// maxLogLine bounds one record of a log (a record is well under 4 KiB).
const maxLogLine = 1 << 20

// parseLog reads the records of the log at path from r, one line at a time
// (a log of any size is never held whole). A line cut short by a run
// killed while writing it (a prefix of a record) is skipped; any other bad
// line (not a record, over maxLogLine, a record whose sum does not match:
// edited by hand) is an error naming the file and the line, so no line
// hides the records after it.
func parseLog(r io.Reader, path string) ([]Record, error) {
	var out []Record
	err := inputfile.Lines(r, path, maxLogLine, func(n int, line []byte) error {
		if len(line) == 0 {
			return nil
		}
		var r Record
		err := json.Unmarshal(line, &r)
		switch {
		case err != nil && cutShort(line, err):
			return nil
		case err != nil || len(r.Hash) != 64 || r.Result == nil:
			return fmt.Errorf("%s: line %d: not a record of hxbar sweep (the log is written by hxbar only: move it away to run the points again)", path, n)
		case r.Sum != r.sum() && (r.Sum != "" || r.Version != ""): // neither: an hxbar before versions (refused by version)
			return fmt.Errorf("%s: line %d: the record's sum does not match its content (edited since hxbar wrote it: move the log away to run the points again)", path, n)
		}
		out = append(out, r)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// cutShort says whether line is a record cut short: a prefix of one
// (JSON that ends early) that starts like a record does.
func cutShort(line []byte, err error) bool {
	return bytes.HasPrefix(line, []byte(`{"hash":"`)) && strings.Contains(err.Error(), "unexpected end of JSON input")
}

func (l *runLog) append(r Record) error {
	r.Sum = r.sum()
	line, err := json.Marshal(r)
	if err != nil {
		return err
	}
	if _, err := l.f.Write(append(line, '\n')); err != nil {
		return err
	}
	l.done[r.Hash] = r
	return nil
}

func (l *runLog) close() { l.f.Close() }

// Since is how long ago start was, in whole seconds, for progress lines.
func Since(start time.Time) string { return time.Since(start).Round(time.Second).String() }
