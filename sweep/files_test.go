package sweep

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hxbar/hxbar/internal/gendir"
)

// Issue 24: the sweep's files go through the one writer and the one reader.

const twoPoints = "base: {skew: 0}\nvary:\n  duplex: [full, half]\n"

// The run log is appended in place and recorded by its streamed hash: a
// resume keeps its inode (the lock stays on the file that is the log).
func TestLogAdoptedNotRewritten(t *testing.T) {
	s := mustParse(t, twoPoints)
	dir := filepath.Join(t.TempDir(), "out")
	if _, err := Run(s, dir, Options{}); err != nil {
		t.Fatal(err)
	}
	log := filepath.Join(dir, LogName)
	before, _ := os.Stat(log)
	data := read(t, log)
	// One point forgotten: the resume runs it again and appends it.
	lines := strings.SplitAfter(string(data), "\n")
	if err := os.WriteFile(log, []byte(lines[0]), 0o644); err != nil {
		t.Fatal(err)
	}
	sum, err := Run(s, dir, Options{})
	if err != nil || sum.Ran != 1 || sum.Skipped != 1 {
		t.Fatalf("resume: %+v, %v", sum, err)
	}
	after, _ := os.Stat(log)
	if !os.SameFile(before, after) {
		t.Error("the resume replaced the log instead of appending to it")
	}
	if n := strings.Count(string(read(t, log)), "\n"); n != 2 {
		t.Errorf("log has %d lines after the resume, want 2", n)
	}
	if _, err := ownedSum(dir, LogName); err != nil {
		t.Errorf("log not owned after the resume: %v", err)
	}
}

// A points.jsonl with another name (a hard link) or a symlink is refused:
// no record goes into the user's file.
func TestLogLinksRefused(t *testing.T) {
	s := mustParse(t, twoPoints)
	for _, c := range []struct {
		name, want string
		link       func(target, log string) error
	}{
		{"hard link", "a file with 2 hard links", os.Link},
		{"symlink", "a symlink, not followed", os.Symlink},
	} {
		d := t.TempDir()
		dir := filepath.Join(d, "out")
		if _, err := Run(s, dir, Options{}); err != nil {
			t.Fatal(err)
		}
		log := filepath.Join(dir, LogName)
		mine := filepath.Join(d, "mine.jsonl")
		os.Rename(log, mine)
		if err := c.link(mine, log); err != nil {
			t.Fatal(err)
		}
		was := string(read(t, mine))
		if _, err := Run(s, dir, Options{}); err == nil || !strings.Contains(err.Error(), log+": "+c.want) {
			t.Errorf("%s: %v", c.name, err)
		}
		if string(read(t, mine)) != was {
			t.Errorf("%s: the user's file changed", c.name)
		}
	}
}

// --shard refuses a symlinked DIR/shards/i: the shard would write wherever
// it points.
func TestShardDirSymlinkRefused(t *testing.T) {
	d := t.TempDir()
	dir := filepath.Join(d, "out")
	if err := os.MkdirAll(filepath.Join(d, "elsewhere"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := EnsureDir(dir); err != nil {
		t.Fatal(err)
	}
	os.Mkdir(filepath.Join(dir, ShardsDir), 0o755)
	p := filepath.Join(dir, ShardsDir, "0")
	os.Symlink(filepath.Join(d, "elsewhere"), p)
	if _, err := ShardDir(dir, 0); err == nil || !strings.Contains(err.Error(), p+": a symlink, not followed") {
		t.Errorf("ShardDir over a symlink: %v", err)
	}
	os.Remove(p)
	os.WriteFile(p, nil, 0o644)
	if _, err := ShardDir(dir, 0); err == nil || !strings.Contains(err.Error(), p+": not a directory") {
		t.Errorf("ShardDir over a file: %v", err)
	}
	if got, err := ShardDir(dir, 1); err != nil || got != filepath.Join(dir, ShardsDir, "1") {
		t.Errorf("ShardDir(1) = %q, %v", got, err)
	}
}

// sparse makes p an 8 GiB file that uses no disk, or skips the test.
func sparse(t *testing.T, p string) {
	t.Helper()
	if err := os.Truncate(p, 8<<30); err != nil {
		t.Skip("no sparse files here:", err)
	}
}

// An 8 GiB file where the sweep's files are is a one-line error naming it
// and its size, not an out-of-memory crash.
func TestHugeFilesRefused(t *testing.T) {
	s := mustParse(t, twoPoints)
	for name, want := range map[string]string{
		LogName: "line 1: longer than 1048576 bytes",
		CSVName: "8589934592 bytes (allowed: at most 1024 MiB)",
	} {
		dir := filepath.Join(t.TempDir(), "out")
		if _, err := Run(s, dir, Options{}); err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, name)
		os.WriteFile(p, nil, 0o644)
		sparse(t, p)
		_, err := Run(s, dir, Options{})
		if err == nil || !strings.Contains(err.Error(), p+": ") || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s of 8 GiB: %v; want %q", name, err, want)
		}
	}
	// --collect: a shard's results listed in its manifest.
	dir := filepath.Join(t.TempDir(), "out")
	sd, err := ShardDir(dir, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Run(s, sd, Options{Shard: 0, Shards: 1}); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(sd, JSONLName)
	sparse(t, p)
	if _, err := Collect(dir); err == nil || !strings.Contains(err.Error(), p+": 8589934592 bytes (allowed: at most 1024 MiB)") {
		t.Errorf("collect over an 8 GiB shard file: %v", err)
	}
}

// A sweep refused by the lock writes nothing even when sweep.json is
// missing (the lock is taken before gendir.Write would make it).
func TestLockedSweepWithoutMeta(t *testing.T) {
	s := mustParse(t, twoPoints)
	dir := filepath.Join(t.TempDir(), "out")
	if _, err := Run(s, dir, Options{}); err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(dir, MetaName))
	lg, err := openLog(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer lg.close()
	if _, err := Run(s, dir, Options{}); err == nil || !strings.Contains(err.Error(), "another hxbar sweep is running") {
		t.Fatalf("second sweep: %v", err)
	}
	if _, err := os.Lstat(filepath.Join(dir, MetaName)); err == nil {
		t.Errorf("the refused sweep wrote %s", MetaName)
	}
}

// --collect locks DIR's log as a run does: refused while a sweep runs in
// DIR, and a log with another name (a hard link) is refused.
func TestCollectLocksLog(t *testing.T) {
	s := mustParse(t, twoPoints)
	d := t.TempDir()
	dir := filepath.Join(d, "out")
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
	lg, err := openLog(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Collect(dir); err == nil || !strings.Contains(err.Error(), "another hxbar sweep is running") {
		t.Errorf("collect while a sweep holds the lock: %v", err)
	}
	lg.close()
	log := filepath.Join(dir, LogName)
	if err := os.Link(log, filepath.Join(d, "mine.jsonl")); err != nil {
		t.Fatal(err)
	}
	if _, err := Collect(dir); err == nil || !strings.Contains(err.Error(), log+": a file with 2 hard links") {
		t.Errorf("collect over a hard-linked log: %v", err)
	}
}

// TestCollectRefusesForeignShards: --collect refuses a shard that is a
// symlink (it would merge whatever it points to, or call it missing) and a
// directory another tool owns (the sweep's DIR or a shard: a design of
// hxbar gen), naming it, instead of calling it missing or not started.
func TestCollectRefusesForeignShards(t *testing.T) {
	s := mustParse(t, small)
	d := t.TempDir()
	dir := filepath.Join(d, "out")
	for i := range 2 {
		sd, err := ShardDir(dir, i)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Run(s, sd, Options{Shard: i, Shards: 2}); err != nil {
			t.Fatal(err)
		}
	}
	shard1 := filepath.Join(dir, ShardsDir, "1")
	moved := filepath.Join(d, "moved")
	os.Rename(shard1, moved)
	os.Symlink(moved, shard1)
	if _, err := Collect(dir); err == nil || !strings.Contains(err.Error(), shard1+": a symlink, not followed") {
		t.Errorf("collect with a symlinked shard: %v", err)
	}
	os.Remove(shard1)
	if _, err := gendir.Write(shard1, []gendir.File{{Name: "x.v", Data: []byte("module x; endmodule\n")}}, gendir.Options{Tool: "hxbar gen"}); err != nil {
		t.Fatal(err)
	}
	if _, err := Collect(dir); err == nil || !strings.Contains(err.Error(), shard1+": a gen directory (hxbar gen)") {
		t.Errorf("collect with a gen directory as a shard: %v", err)
	}
	if _, err := Collect(shard1); err == nil || !strings.Contains(err.Error(), "a gen directory (hxbar gen), not a sweep's") {
		t.Errorf("collect of a gen directory: %v", err)
	}
}
