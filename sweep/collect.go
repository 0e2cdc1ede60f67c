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
	"slices"
	"strconv"
	"strings"

	"github.com/hxbar/hxbar/hw"
	"github.com/hxbar/hxbar/internal/gendir"
	"github.com/hxbar/hxbar/internal/inputfile"
	"github.com/hxbar/hxbar/internal/strictjson"
	"github.com/hxbar/hxbar/internal/version"
)

// IncompleteError is a collect that found points no shard has run yet.
type IncompleteError struct{ Msg string }

func (e *IncompleteError) Error() string { return e.Msg }

// CollectSummary says what Collect merged.
type CollectSummary struct {
	Dir    string
	Shards int
	Points int
}

// Collect merges the shards in dir/shards/0..N-1 into dir's results.csv
// and results.jsonl. Each shard's rows are copied as they are (wall_ms
// included), in point order, so the files are those a local run of the
// same spec writes, byte for byte, but for the wall_ms column: the rows
// are a function of the points and their results only. The shards' logs
// are merged into dir's log too, so a later local run in dir resumes from
// them. The shards must be of one spec (the same points and columns) and
// hold every point; a point missing is an *IncompleteError.
func Collect(dir string) (*CollectSummary, error) {
	real, exists, err := gendir.Resolve(dir)
	if err != nil {
		return nil, err
	}
	if !exists {
		return nil, fmt.Errorf("%s: no such directory", dir)
	}
	if err := checkSweepOwner(dir); err != nil {
		return nil, err
	}
	sd := filepath.Join(real, ShardsDir)
	metas, err := shardMetas(dir, sd)
	if err != nil {
		return nil, err
	}
	first := metas[0]
	c := &collected{json: make([][]byte, first.Points), csv: make([][]string, first.Points), seenHash: map[string]bool{}}
	if old, err := os.Lstat(filepath.Join(real, LogName)); err == nil && old.Mode().IsRegular() {
		// Locked as a run locks it: no collect while a sweep runs in DIR,
		// and no log with another name (a hard link) is taken for DIR's.
		lg, err := openLog(real)
		if err != nil {
			return nil, err
		}
		defer lg.close()
		if err := mergeRecords(&c.log, lg.recs, lg.path, c.seenHash); err != nil {
			return nil, err
		}
	}
	for _, m := range metas {
		if err := c.addShard(filepath.Join(sd, strconv.Itoa(m.Shard)), m, first); err != nil {
			return nil, err
		}
	}
	if err := c.complete(dir, first.Points); err != nil {
		return nil, err
	}
	if err := c.write(real, first); err != nil {
		return nil, err
	}
	return &CollectSummary{Dir: real, Shards: first.Shards, Points: first.Points}, nil
}

// shardMetas reads the sweep.json of every shard directory under sd (a
// name that is a number): each owned by its run, all of one sweep, every
// shard present.
func shardMetas(dir, sd string) ([]Meta, error) {
	ents, err := os.ReadDir(sd)
	if err != nil {
		return nil, fmt.Errorf("%s: no shards to collect (%v): run 'hxbar sweep SPEC --out %s --shard i/N' for each i, or --slurm", dir, errors.Unwrap(err), dir)
	}
	var metas []Meta
	var names []string
	for _, e := range ents {
		n, err := strconv.Atoi(e.Name())
		if err != nil || n < 0 || strconv.Itoa(n) != e.Name() {
			continue // not a shard (a user's file)
		}
		if e.Type()&fs.ModeSymlink != 0 {
			return nil, fmt.Errorf("%s: a symlink, not followed (allowed: the directory hxbar sweep --shard %d/N wrote)", filepath.Join(sd, e.Name()), n)
		}
		if !e.IsDir() {
			continue // not a shard (a user's file)
		}
		m, err := shardMeta(dir, filepath.Join(sd, e.Name()), n)
		if err != nil {
			return nil, err
		}
		metas = append(metas, m)
		names = append(names, e.Name())
	}
	if len(metas) == 0 {
		return nil, fmt.Errorf("%s: no shards in %s", dir, sd)
	}
	first := metas[0]
	for i, m := range metas {
		if m.Shards != first.Shards || m.Points != first.Points || m.PointsSHA256 != first.PointsSHA256 || !slices.Equal(m.Columns, first.Columns) {
			return nil, fmt.Errorf("%s: shards %s and %s are of different sweeps (points, columns or shard count differ: run every shard of one spec with one N)", dir, names[0], names[i])
		}
	}
	byShard := map[int]bool{}
	for _, m := range metas {
		byShard[m.Shard] = true
	}
	if len(byShard) != first.Shards || len(metas) != first.Shards {
		return nil, &IncompleteError{missingShards(dir, first.Shards, byShard)}
	}
	return metas, nil
}

// shardMeta reads shard n's sweep.json in sdir, as its run wrote it.
func shardMeta(dir, sdir string, n int) (Meta, error) {
	name := filepath.Base(sdir)
	if err := checkSweepOwner(sdir); err != nil {
		return Meta{}, err
	}
	data, err := inputfile.Read(filepath.Join(sdir, MetaName))
	if errors.Is(err, fs.ErrNotExist) {
		return Meta{}, &IncompleteError{fmt.Sprintf("%s: shard %s has not started (no %s)", dir, name, MetaName)}
	}
	if err != nil {
		return Meta{}, err
	}
	m, err := parseMeta(data, n)
	if err != nil {
		return Meta{}, fmt.Errorf("%s: %w", filepath.Join(sdir, MetaName), err)
	}
	// Valid fields are not enough: the shard's manifest records what
	// its run wrote, so a hand-edited sweep.json is refused, not merged.
	if err := gendir.CheckOwned(sdir, MetaName); err != nil {
		return Meta{}, fmt.Errorf("shard %s: %w (re-run the shard: it rewrites it)", name, err)
	}
	return m, nil
}

// collected is what Collect gathers from the shards: each point's JSON
// and CSV row, and the merged log.
type collected struct {
	json     [][]byte
	csv      [][]string
	log      bytes.Buffer
	seenHash map[string]bool
}

// ownedOrIncomplete reads name in a shard's directory as its manifest
// records it; a file it does not own means the shard has not finished.
func ownedOrIncomplete(sdir, name string, shard int) ([]byte, error) {
	data, err := readOwned(sdir, name)
	if _, ok := errors.AsType[*gendir.NotOwnedError](err); ok {
		return nil, &IncompleteError{fmt.Sprintf("shard %d: %v (has it finished?)", shard, err)}
	}
	return data, err
}

// addShard takes shard m's rows (each a point of its own) and its log.
func (c *collected) addShard(sdir string, m, first Meta) error {
	jdata, err := ownedOrIncomplete(sdir, JSONLName, m.Shard)
	if err != nil {
		return err
	}
	for line := range bytes.Lines(jdata) {
		var p struct {
			Point *int `json:"point"`
		}
		if err := json.Unmarshal(line, &p); err != nil || p.Point == nil || *p.Point < 0 || *p.Point >= first.Points || *p.Point%first.Shards != m.Shard {
			return fmt.Errorf("%s: bad row %q", filepath.Join(sdir, JSONLName), bytes.TrimSpace(line))
		}
		c.json[*p.Point] = line
	}
	cdata, err := ownedOrIncomplete(sdir, CSVName, m.Shard)
	if err != nil {
		return err
	}
	recs, err := csv.NewReader(bytes.NewReader(cdata)).ReadAll()
	if err != nil || len(recs) == 0 || !slices.Equal(recs[0], first.Columns) {
		return fmt.Errorf("%s: not the results of this sweep (columns %s)", filepath.Join(sdir, CSVName), strings.Join(first.Columns, ","))
	}
	for _, r := range recs[1:] {
		p, err := strconv.Atoi(r[0])
		if err != nil || p < 0 || p >= first.Points || p%first.Shards != m.Shard {
			return fmt.Errorf("%s: bad row %q", filepath.Join(sdir, CSVName), strings.Join(r, ","))
		}
		c.csv[p] = r
	}
	// The log as the shard's manifest records its hash: an edited log,
	// or one a later interrupted run appended to, is not merged.
	sum, err := ownedSum(sdir, LogName)
	if _, ok := errors.AsType[*gendir.NotOwnedError](err); ok {
		return &IncompleteError{fmt.Sprintf("shard %d: %v (edited, or a run of the shard was interrupted: re-run the shard, it resumes)", m.Shard, err)}
	} else if err != nil {
		return err
	}
	return appendLog(&c.log, filepath.Join(sdir, LogName), sum, c.seenHash)
}

// complete reports the points no shard's results hold.
func (c *collected) complete(dir string, points int) error {
	var absent []string
	for p := range points {
		if c.json[p] == nil || c.csv[p] == nil {
			absent = append(absent, strconv.Itoa(p))
		}
	}
	if len(absent) == 0 {
		return nil
	}
	more := ""
	if len(absent) > 10 {
		more, absent = fmt.Sprintf(" and %d more", len(absent)-10), absent[:10]
	}
	return &IncompleteError{fmt.Sprintf("%s: points %s%s are in no shard's results (a shard failed or has not finished: re-run it, it resumes)", dir, strings.Join(absent, ", "), more)}
}

// write writes the whole sweep's results, log and sweep.json into real.
func (c *collected) write(real string, first Meta) error {
	var jl, cv bytes.Buffer
	cw := csv.NewWriter(&cv)
	cw.Write(first.Columns)
	for p := range first.Points {
		jl.Write(c.json[p])
		cw.Write(c.csv[p])
	}
	cw.Flush()
	meta := first
	meta.Shard, meta.Shards = 0, 1
	mb, _ := json.MarshalIndent(meta, "", "  ")
	files := []gendir.File{{Name: MetaName, Data: append(mb, '\n'), Part: "spec"},
		{Name: LogName, Data: c.log.Bytes(), Part: "log"},
		{Name: CSVName, Data: cv.Bytes(), Part: "results"},
		{Name: JSONLName, Data: jl.Bytes(), Part: "results"}}
	_, err := gendir.Write(real, files, gendir.Options{Tool: Tool, Parts: []string{"spec", "log", "results"}, Inputs: []string{LogName}})
	return err
}

// MaxShards bounds --shard i/N, --tasks and a shard's sweep.json: one
// point a shard at most.
const MaxShards = MaxPoints

// parseMeta reads the sweep.json of shard directory shard: strict JSON (no
// unknown or repeated key, no null, nothing after the object) whose every
// field check accepts.
func parseMeta(data []byte, shard int) (Meta, error) {
	var m Meta
	if err := strictjson.Unmarshal(data, &m, MetaName); err != nil {
		return Meta{}, err
	}
	switch {
	case m.Tool != Tool:
		return Meta{}, fmt.Errorf("invalid tool: %s (allowed: %q; not a shard of hxbar sweep)", quoteCut(m.Tool), Tool)
	case m.Shard != shard:
		return Meta{}, fmt.Errorf("invalid shard: %d (allowed: %d, the shard directory's number)", m.Shard, shard)
	}
	return m, m.check()
}

// check refuses a Meta this hxbar did not write: every field within its
// limits, and the version this one.
func (m *Meta) check() error {
	switch {
	case m.Points < 1 || m.Points > MaxPoints:
		return fmt.Errorf("invalid points: %d (allowed: 1..%d)", m.Points, MaxPoints)
	case m.Shards < 1 || m.Shards > MaxShards:
		return fmt.Errorf("invalid shards: %d (allowed: 1..%d)", m.Shards, MaxShards)
	case m.Shard < 0 || m.Shard >= m.Shards:
		return fmt.Errorf("invalid shard: %d (allowed: 0..%d)", m.Shard, m.Shards-1)
	case len(m.PointsSHA256) != 64 || strings.Trim(m.PointsSHA256, "0123456789abcdef") != "":
		return fmt.Errorf("invalid points_sha256: %s (allowed: 64 hex digits)", quoteCut(m.PointsSHA256))
	case !validColumns(m.Columns):
		return fmt.Errorf("invalid columns: %s (allowed: point, the varied keys, the measured fields, wall_ms, hash, hxbar_version, each once)", showColumns(m.Columns))
	case m.HxbarVersion != version.String():
		return fmt.Errorf("written by hxbar %s, this is hxbar %q (rows of two versions are never mixed: collect with the version that ran the shards)", versionName(m.HxbarVersion), version.String())
	}
	return nil
}

// validColumns says whether c are columns a spec has (Spec.Columns):
// point, then system keys and measured fields, each once, then wall_ms,
// hash and hxbar_version.
func validColumns(c []string) bool {
	if len(c) < 4 || c[0] != "point" || !slices.Equal(c[len(c)-3:], []string{"wall_ms", "hash", "hxbar_version"}) {
		return false
	}
	seen := map[string]bool{}
	for _, k := range c[1 : len(c)-3] {
		if seen[k] || !slices.Contains(hw.Keys(), k) && !slices.Contains(Fields(), k) {
			return false
		}
		seen[k] = true
	}
	return true
}

// showColumns quotes columns for a message, the first few only: a
// sweep.json can hold millions.
func showColumns(c []string) string {
	const most = 8
	q := make([]string, 0, most)
	for _, k := range c[:min(len(c), most)] {
		q = append(q, quoteCut(k))
	}
	if len(c) > most {
		return fmt.Sprintf("[%s] and %d more", strings.Join(q, " "), len(c)-most)
	}
	return "[" + strings.Join(q, " ") + "]"
}

// quoteCut quotes a string read from a file for a message, cut after 64
// characters so that a hostile file cannot make a huge message.
func quoteCut(v string) string {
	const most = 64
	if r := []rune(v); len(r) > most {
		return strconv.Quote(string(r[:most])) + "..."
	}
	return strconv.Quote(v)
}

// readOwned reads a file of a sweep directory that its manifest lists with
// the content it has: a file hxbar wrote and nobody edited since.
func readOwned(dir, name string) ([]byte, error) {
	if err := gendir.CheckOwned(dir, name); err != nil {
		return nil, err
	}
	return inputfile.Read(filepath.Join(dir, name))
}

// ownedSum is the SHA-256 dir's manifest records for name, once it is
// checked to own it.
func ownedSum(dir, name string) (string, error) {
	if err := gendir.CheckOwned(dir, name); err != nil {
		return "", err
	}
	m, err := gendir.ReadManifest(dir)
	if err != nil {
		return "", err
	}
	e, _ := m.Lookup(name)
	return e.SHA256, nil
}

// appendLog adds the records of the log at path whose hash is not in seen.
// The log is read streamed, one line at a time; when sum is set, the bytes
// read must have that SHA-256 (the manifest's), so a log edited after it
// was checked is refused too.
func appendLog(b *bytes.Buffer, path, sum string, seen map[string]bool) error {
	f, err := inputfile.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	h := sha256.New()
	recs, err := parseLog(io.TeeReader(f, h), path)
	if err != nil {
		return err
	}
	if got := hex.EncodeToString(h.Sum(nil)); sum != "" && got != sum {
		return fmt.Errorf("%s: changed while read (not as %s records it: re-run the shard, it resumes)", path, gendir.ManifestName)
	}
	return mergeRecords(b, recs, path, seen)
}

// mergeRecords adds the records recs of the log at path whose hash is not
// in seen; a record of another hxbar version is refused.
func mergeRecords(b *bytes.Buffer, recs []Record, path string, seen map[string]bool) error {
	for i, r := range recs {
		if r.Version != version.String() {
			return fmt.Errorf("%s: record %d: a point run by hxbar %s, this is hxbar %q (rows of two versions are never mixed: collect into a new DIR, or with the version that ran it)", path, i+1, versionName(r.Version), version.String())
		}
		if seen[r.Hash] {
			continue
		}
		seen[r.Hash] = true
		line, _ := json.Marshal(r)
		b.Write(append(line, '\n'))
	}
	return nil
}

// missingShards says which of shards 0..n-1 are not in present: the first
// ten by number and the count of the rest, so a sweep.json claiming a
// million shards makes a line, not megabytes.
func missingShards(dir string, n int, present map[int]bool) string {
	var missing []string
	count := 0
	for i := range n {
		if !present[i] {
			if count++; count <= 10 {
				missing = append(missing, strconv.Itoa(i))
			}
		}
	}
	if count > 10 {
		missing = append(missing, fmt.Sprintf("and %d more", count-10))
	}
	return fmt.Sprintf("%s: shards %s of 0..%d are missing", dir, strings.Join(missing, ", "), n-1)
}

// checkSweepOwner refuses a directory whose manifest names another tool
// than hxbar sweep (a design hxbar gen wrote), by its owner: it holds no
// shards, and the advice to run them into it would be refused.
func checkSweepOwner(dir string) error {
	if m, err := gendir.ReadManifest(dir); err == nil && gendir.Owner(m.Tool) != "sweep" {
		return fmt.Errorf("%s: a %s directory (%s), not a sweep's (allowed: a directory hxbar sweep wrote)", dir, gendir.Owner(m.Tool), m.Tool)
	}
	return nil
}
