package gendir

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func files(kv ...string) []File {
	var out []File
	for i := 0; i+1 < len(kv); i += 2 {
		out = append(out, File{Name: kv[i], Data: []byte(kv[i+1]), Part: "design"})
	}
	return out
}

func read(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func put(t *testing.T, p, s string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

// names lists dir's entries.
func names(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		out = append(out, e.Name())
	}
	return out
}

// noStaging: no staging directory left next to dir.
func noStaging(t *testing.T, dir string) {
	t.Helper()
	for _, n := range names(t, filepath.Dir(dir)) {
		if strings.Contains(n, ".hxbar-") {
			t.Errorf("staging directory %s left behind", n)
		}
	}
}

func refused(t *testing.T, err error, want ...string) *RefusedError {
	t.Helper()
	var re *RefusedError
	if !errors.As(err, &re) {
		t.Fatalf("err = %v, want a *RefusedError", err)
	}
	for _, w := range want {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q lacks %q", err, w)
		}
	}
	return re
}

func TestFreshDirectory(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "a", "out")
	fs := append(files("x.v", "x", "t.hex", "t"), File{Name: "run.sh", Data: []byte("#!/bin/sh\n"), Mode: 0o755})
	res, err := Write(dir, fs, Options{Tool: "test"})
	if err != nil {
		t.Fatal(err)
	}
	if got := names(t, dir); !slices.Equal(got, []string{ManifestName, "run.sh", "t.hex", "x.v"}) {
		t.Fatalf("entries %v", got)
	}
	if !slices.Equal(res.Written, []string{"run.sh", "t.hex", "x.v"}) {
		t.Errorf("written %v", res.Written)
	}
	if st, _ := os.Stat(filepath.Join(dir, "run.sh")); st.Mode().Perm() != 0o755 {
		t.Errorf("run.sh mode %v", st.Mode())
	}
	if st, _ := os.Stat(dir); st.Mode().Perm() != 0o755 {
		t.Errorf("dir mode %v", st.Mode())
	}
	m, err := ReadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	if e, ok := m.Lookup("x.v"); !ok || e.SHA256 != Hash([]byte("x")) || e.Part != "design" || m.Tool != "test" || m.Format != FormatVersion {
		t.Errorf("manifest %+v", m)
	}
	noStaging(t, dir)
}

func TestEmptyDirectoryAndSymlinkedDir(t *testing.T) {
	tmp := t.TempDir()
	real := filepath.Join(tmp, "real")
	os.Mkdir(real, 0o750)
	link := filepath.Join(tmp, "link")
	os.Symlink("real", link)
	res, err := Write(link, files("a", "1"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Dir != real || read(t, filepath.Join(real, "a")) != "1" {
		t.Fatalf("wrote %s", res.Dir)
	}
	if st, _ := os.Lstat(link); st.Mode()&fs.ModeSymlink == 0 {
		t.Error("the named symlink was replaced")
	}
	if st, _ := os.Stat(real); st.Mode().Perm() != 0o750 {
		t.Errorf("empty dir's mode not kept: %v", st.Mode())
	}
	noStaging(t, real)
}

func TestRegenerate(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	if _, err := Write(dir, files("a", "1", "b", "2", "c", "3", "d", "4"), Options{}); err != nil {
		t.Fatal(err)
	}
	put(t, filepath.Join(dir, "notes.txt"), "mine")
	put(t, filepath.Join(dir, "obj_dir", "x"), "build")
	put(t, filepath.Join(dir, "c"), "edited") // owned, edited: not removed
	res, err := Write(dir, files("a", "1", "b", "22"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(res.Removed, []string{"d"}) || !slices.Equal(res.Left, []string{"c"}) {
		t.Errorf("removed %v, left %v", res.Removed, res.Left)
	}
	if got := names(t, dir); !slices.Equal(got, []string{"a", "b", "c", ManifestName, "notes.txt", "obj_dir"}) {
		t.Fatalf("entries %v", got)
	}
	if read(t, filepath.Join(dir, "b")) != "22" || read(t, filepath.Join(dir, "c")) != "edited" || read(t, filepath.Join(dir, "notes.txt")) != "mine" {
		t.Error("contents")
	}
	m, _ := ReadManifest(dir)
	if len(m.Files) != 2 {
		t.Errorf("manifest %+v: the edited c is no longer owned", m)
	}
	// c is not owned now: writing it again is refused.
	_, err = Write(dir, files("c", "3"), Options{})
	refused(t, err, `"c" is not written by hxbar or edited since`, "--force overwrites them")
	noStaging(t, dir)
}

func TestEditedOwnedFile(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	Write(dir, files("a", "1", "b", "2"), Options{})
	put(t, filepath.Join(dir, "a"), "mine now")
	_, err := Write(dir, files("a", "1", "b", "3"), Options{})
	re := refused(t, err, `"a" is not written by hxbar or edited since`)
	if !slices.Equal(re.Files, []string{"a"}) || read(t, filepath.Join(dir, "b")) != "2" || read(t, filepath.Join(dir, "a")) != "mine now" {
		t.Fatal("a refused write changed something")
	}
	res, err := Write(dir, files("a", "1", "b", "3"), Options{Force: true})
	if err != nil || !slices.Equal(res.Replaced, []string{"a"}) || read(t, filepath.Join(dir, "a")) != "1" || read(t, filepath.Join(dir, "b")) != "3" {
		t.Fatalf("--force: %v %+v", err, res)
	}
	noStaging(t, dir)
}

func TestUserFileWithGeneratedName(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	Write(dir, files("a", "1"), Options{})
	put(t, filepath.Join(dir, "gt_n5_backup.hex"), "backup")
	put(t, filepath.Join(dir, "b"), "user")
	_, err := Write(dir, files("a", "1", "b", "2"), Options{})
	refused(t, err, `"b" is`)
	if _, err := Write(dir, files("a", "1"), Options{}); err != nil {
		t.Fatal(err)
	}
	if read(t, filepath.Join(dir, "gt_n5_backup.hex")) != "backup" || read(t, filepath.Join(dir, "b")) != "user" {
		t.Fatal("user files changed")
	}
}

func TestSymlinkEntryNeverFollowed(t *testing.T) {
	tmp := t.TempDir()
	dir := filepath.Join(tmp, "out")
	outside := filepath.Join(tmp, "precious")
	put(t, outside, "precious")
	Write(dir, files("a", "1", "Makefile", "m"), Options{})
	os.Remove(filepath.Join(dir, "Makefile"))
	os.Symlink(outside, filepath.Join(dir, "Makefile"))
	_, err := Write(dir, files("a", "1", "Makefile", "m2"), Options{})
	refused(t, err, `"Makefile" is`)
	if read(t, outside) != "precious" {
		t.Fatal("target changed")
	}
	// A symlink the manifest names with the target's hash is still not owned.
	m, _ := ReadManifest(dir)
	for i := range m.Files {
		if m.Files[i].Name == "Makefile" {
			m.Files[i].SHA256 = Hash([]byte("precious"))
		}
	}
	os.WriteFile(filepath.Join(dir, ManifestName), m.Encode(), 0o644)
	refused(t, func() error { _, err := Write(dir, files("a", "1", "Makefile", "m2"), Options{}); return err }())
	if _, err := Write(dir, files("a", "1"), Options{}); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Lstat(filepath.Join(dir, "Makefile")); err != nil || st.Mode()&fs.ModeSymlink == 0 {
		t.Fatal("a symlink named in the manifest was removed")
	}
	if _, err := Write(dir, files("a", "1", "Makefile", "m2"), Options{Force: true}); err != nil {
		t.Fatal(err)
	}
	if read(t, outside) != "precious" {
		t.Fatal("--force wrote through the symlink")
	}
	if st, _ := os.Lstat(filepath.Join(dir, "Makefile")); !st.Mode().IsRegular() || read(t, filepath.Join(dir, "Makefile")) != "m2" {
		t.Fatal("--force: the link was not replaced by the file")
	}
}

func TestDirectoryNeverReplaced(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	Write(dir, files("a", "1"), Options{})
	put(t, filepath.Join(dir, "b", "keep"), "x")
	for _, force := range []bool{false, true} {
		_, err := Write(dir, files("a", "1", "b", "2"), Options{Force: force})
		refused(t, err, `"b" is a directory`)
	}
	if read(t, filepath.Join(dir, "b", "keep")) != "x" {
		t.Fatal("directory changed")
	}
}

func TestRootRefused(t *testing.T) {
	for _, force := range []bool{false, true} {
		_, err := Write("/", files("a", "1"), Options{Force: force})
		refused(t, err, "filesystem root")
		_, err = Write("/tmp/..", files("a", "1"), Options{Force: force})
		refused(t, err, "filesystem root")
	}
	if _, err := os.Stat("/a"); err == nil {
		t.Fatal("/a written")
	}
}

func TestUnmanagedNonEmpty(t *testing.T) {
	dir := t.TempDir()
	put(t, filepath.Join(dir, "mine.v"), "mine")
	put(t, filepath.Join(dir, "a"), "user a")
	_, err := Write(dir, files("a", "1"), Options{})
	refused(t, err, "not empty and not written by hxbar", "--force")
	if read(t, filepath.Join(dir, "a")) != "user a" {
		t.Fatal("changed")
	}
	res, err := Write(dir, files("a", "1", "b", "2"), Options{Force: true})
	if err != nil || !slices.Equal(res.Replaced, []string{"a"}) {
		t.Fatalf("%v %+v", err, res)
	}
	if read(t, filepath.Join(dir, "mine.v")) != "mine" || read(t, filepath.Join(dir, "a")) != "1" {
		t.Fatal("contents")
	}
	// A bad manifest: refused, --force writes.
	os.WriteFile(filepath.Join(dir, ManifestName), []byte("{nonsense"), 0o644)
	_, err = Write(dir, files("a", "1"), Options{})
	refused(t, err, "unreadable manifest")
	if _, err := Write(dir, files("a", "1"), Options{Force: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadManifest(dir); err != nil {
		t.Fatal(err)
	}
	// A file that is not a directory.
	_, err = Write(filepath.Join(dir, "mine.v"), files("a", "1"), Options{Force: true})
	refused(t, err, "not a directory")
}

func TestStagingFailureLeavesOldDesign(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	Write(dir, files("a", "1", "b", "2", "c", "3"), Options{})
	before, _ := os.ReadFile(filepath.Join(dir, ManifestName))
	n := 0
	writeFile = func(name string, data []byte, perm fs.FileMode) error {
		if n++; n == 2 {
			return errors.New("disk full")
		}
		return os.WriteFile(name, data, perm)
	}
	defer func() { writeFile = os.WriteFile }()
	_, err := Write(dir, files("a", "10", "b", "20"), Options{})
	if err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Fatalf("err = %v", err)
	}
	after, _ := os.ReadFile(filepath.Join(dir, ManifestName))
	if read(t, filepath.Join(dir, "a")) != "1" || read(t, filepath.Join(dir, "c")) != "3" || string(before) != string(after) {
		t.Fatal("a failed write changed the old design")
	}
	noStaging(t, dir)
	// A fresh directory: nothing is created.
	fresh := filepath.Join(filepath.Dir(dir), "fresh")
	n = 0
	if _, err := Write(fresh, files("a", "10", "b", "20"), Options{}); err == nil {
		t.Fatal("no error")
	}
	if _, err := os.Stat(fresh); !os.IsNotExist(err) {
		t.Fatal("a failed write created the directory")
	}
	noStaging(t, dir)
}

func TestRenameFailureKeepsManifestTrue(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	Write(dir, files("a", "1", "b", "2"), Options{})
	n := 0
	rename = func(o, p string) error {
		if n++; n == 2 {
			return errors.New("EIO")
		}
		return os.Rename(o, p)
	}
	defer func() { rename = os.Rename }()
	if _, err := Write(dir, files("a", "10", "b", "20"), Options{}); err == nil {
		t.Fatal("no error")
	}
	// a was renamed, b not: the manifest says so, and a regenerate works.
	rename = os.Rename
	m, _ := ReadManifest(dir)
	if e, _ := m.Lookup("a"); e.SHA256 != Hash([]byte("10")) {
		t.Fatalf("manifest %+v", m)
	}
	if _, err := Write(dir, files("a", "10", "b", "20"), Options{}); err != nil {
		t.Fatal(err)
	}
	noStaging(t, dir)
}

func TestParts(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	Write(dir, files("d1", "1", "d2", "2"), Options{Parts: []string{"design"}})
	tb := []File{{Name: "tb.v", Data: []byte("tb"), Part: "testbench"}}
	if _, err := Write(dir, tb, Options{Parts: []string{"testbench"}}); err != nil {
		t.Fatal(err)
	}
	// A smaller design: d2 goes, tb.v stays.
	if _, err := Write(dir, files("d1", "1"), Options{Parts: []string{"design"}}); err != nil {
		t.Fatal(err)
	}
	if got := names(t, dir); !slices.Equal(got, []string{"d1", ManifestName, "tb.v"}) {
		t.Fatalf("entries %v", got)
	}
	m, _ := ReadManifest(dir)
	if len(m.Files) != 2 {
		t.Fatalf("manifest %+v", m)
	}
	// The whole directory: tb.v goes.
	if _, err := Write(dir, files("d1", "1"), Options{}); err != nil {
		t.Fatal(err)
	}
	if got := names(t, dir); !slices.Equal(got, []string{"d1", ManifestName}) {
		t.Fatalf("entries %v", got)
	}
}

func TestBadNames(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{"", ".", "..", "a/b", ManifestName} {
		if _, err := Write(dir, files(n, "x"), Options{}); err == nil {
			t.Errorf("%q accepted", n)
		}
	}
	if _, err := Write(dir, files("a", "1", "a", "2"), Options{}); err == nil {
		t.Error("duplicate accepted")
	}
	if _, err := Write("", files("a", "1"), Options{}); err == nil {
		t.Error("empty dir name accepted")
	}
}

func TestInputsReplacedNeverRemoved(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	Write(dir, files("system.yaml", "y1", "schedule.json", "s1", "a", "1"), Options{})
	put(t, filepath.Join(dir, "system.yaml"), "y edited")
	if !Owns(dir, "a") || Owns(dir, "system.yaml") || Owns(dir, "nope") {
		t.Fatal("Owns")
	}
	_, err := Write(dir, files("system.yaml", "y2", "a", "1"), Options{})
	refused(t, err, `"system.yaml" is`)
	// Read as the input: replaced; schedule.json, an input not written
	// again, is kept.
	if _, err := Write(dir, files("system.yaml", "y2", "a", "1"), Options{Inputs: []string{"system.yaml", "schedule.json"}}); err != nil {
		t.Fatal(err)
	}
	if read(t, filepath.Join(dir, "system.yaml")) != "y2" || read(t, filepath.Join(dir, "schedule.json")) != "s1" || !Owns(dir, "schedule.json") {
		t.Fatal("inputs")
	}
	// A symlink is never an input that may be replaced.
	os.Remove(filepath.Join(dir, "system.yaml"))
	os.Symlink("a", filepath.Join(dir, "system.yaml"))
	_, err = Write(dir, files("system.yaml", "y3"), Options{Inputs: []string{"system.yaml"}})
	refused(t, err, `"system.yaml" is`)
}

func TestStagingInsideWhenParentReadOnly(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	Write(dir, files("a", "1", "b", "2"), Options{})
	parent := filepath.Dir(dir)
	mkdirTemp = func(d, pattern string) (string, error) {
		if d == parent {
			return "", fs.ErrPermission
		}
		return os.MkdirTemp(d, pattern)
	}
	defer func() { mkdirTemp = os.MkdirTemp }()
	if _, err := Write(dir, files("a", "10"), Options{}); err != nil {
		t.Fatal(err)
	}
	if got := names(t, dir); !slices.Equal(got, []string{"a", ManifestName}) || read(t, filepath.Join(dir, "a")) != "10" {
		t.Fatalf("entries %v", got)
	}
	// A new directory cannot be staged inside itself: an error, nothing made.
	if _, err := Write(filepath.Join(parent, "new"), files("a", "1"), Options{}); err == nil {
		t.Fatal("no error")
	}
	if _, err := os.Stat(filepath.Join(parent, "new")); !os.IsNotExist(err) {
		t.Fatal("created")
	}
}
