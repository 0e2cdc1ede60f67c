// Package gendir writes a generated directory without ever losing a file it
// does not own.
//
// The generator owns exactly the files named in the manifest it writes into
// the directory (ManifestName: every file's name, part and SHA-256). Write
//
//   - refuses the filesystem root, always;
//   - refuses a non-empty directory without a manifest, or with one it
//     cannot read, unless Options.Force is set;
//   - refuses to replace any entry that it does not own: a file not in the
//     manifest (a user's file), a file in the manifest whose content no
//     longer matches its hash (an edited generated file), a symlink, unless
//     Options.Force is set; a directory is never replaced;
//   - refuses a directory another tool owns (Owner of its manifest's tool:
//     a sweep's directory for hxbar gen and the reverse), always;
//   - never follows a symlink inside the directory: a symlink entry is never
//     owned, and with Force it is the link that is replaced, never its
//     target (the directory the caller names may itself be a symlink; it is
//     resolved first);
//   - writes every new file into a temporary sibling directory first (same
//     parent, so that rename(2) moves the files; for an existing directory
//     whose parent is not writable, a hidden directory inside it), so that
//     a write error
//     leaves the directory as it was; then renames the files into place,
//     removes the owned files the new set no longer has (only when their
//     hash still matches: an edited one is left alone) and writes the
//     manifest last. A directory that does not exist yet is the staging
//     directory renamed into place, in one rename; an existing one (empty
//     or managed) keeps its inode, since a shell may be working in it.
//
// Files the user adds to a generated directory (notes, build products) are
// never touched. Every file it reads goes through internal/inputfile: the
// manifest is capped at MaxManifestSize, a listed file is hashed streamed
// and refused over MaxFileSize (its size named), a FIFO or device never
// opened; the manifest is read strictly (internal/strictjson). The
// package imports nothing else of hxbar.
package gendir

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/hxbar/hxbar/internal/inputfile"
	"github.com/hxbar/hxbar/internal/strictjson"
)

// ManifestName is the manifest's file name inside a generated directory.
const ManifestName = "hxbar-manifest.json"

// FormatVersion is the manifest format Write writes and reads.
const FormatVersion = 1

// The caps of what gendir reads. A manifest is about 110 bytes a file (a
// 4,096-node design: about 2 MB). A file the manifest lists is hashed
// streamed, in constant memory; the cap bounds the time and refuses a file
// no hxbar writer makes (every generated file is built in memory, and the
// sweep's files are held to 64 MiB up front), with its size.
const (
	MaxManifestSize = 16 << 20
	MaxFileSize     = 1 << 30
)

// File is one file to write: a plain name (no directory part), its content
// and permission bits (0 means 0644).
type File struct {
	Name string
	Data []byte
	Mode fs.FileMode
	// Part groups files that are written together (e.g. "design",
	// "testbench"); see Options.Parts.
	Part string
	// Adopt records the regular file of this name already in the directory
	// as it is (Data is ignored): hashed streamed, never read whole nor
	// rewritten. For a file the caller appends to itself (a run log); it
	// must be named in Options.Inputs.
	Adopt bool
}

// Options change what Write may do.
type Options struct {
	// Force lets Write replace entries it does not own (a user's file, an
	// edited generated file, a symlink: the link itself, never its target)
	// and write into a non-empty directory that has no valid manifest. It
	// never lets Write replace a directory or write into the filesystem
	// root.
	Force bool
	// Parts, when set, limits what this write replaces to those parts:
	// owned files of other parts are kept (and stay in the manifest). Nil
	// means the whole directory: every owned file not in the new set is
	// removed.
	Parts []string
	// Tool is recorded in the manifest (e.g. "hxbar gen").
	Tool string
	// Inputs names files in the directory that the caller has read in full
	// as its input (e.g. --config DIR/system.yaml): a regular file among
	// them may be replaced by the new file of the same name even when it is
	// not owned (it is the source of the new content), and is never
	// removed.
	Inputs []string
}

// Entry is one file of a manifest.
type Entry struct {
	Name   string `json:"name"`
	Part   string `json:"part,omitempty"`
	SHA256 string `json:"sha256"`
}

// Manifest is what ManifestName holds.
type Manifest struct {
	Tool   string  `json:"tool"`
	Format int     `json:"format"`
	Files  []Entry `json:"files"` // sorted by name
}

// Lookup returns the entry for name.
func (m *Manifest) Lookup(name string) (Entry, bool) {
	if m == nil {
		return Entry{}, false
	}
	for _, e := range m.Files {
		if e.Name == name {
			return e, true
		}
	}
	return Entry{}, false
}

// Result says what Write did. Names are relative to Dir.
type Result struct {
	Dir     string   // the directory written (symlinks resolved)
	Written []string // files written or already identical, sorted
	Removed []string // owned files of the old design removed
	// Replaced lists entries that were not owned and were replaced
	// (only with Force).
	Replaced []string
	// Left lists files of the old manifest that were edited since and so
	// were neither removed nor kept in the manifest.
	Left []string
}

// RefusedError is a write that Write refused before changing anything:
// Reason says why, Files names the entries in the way (if any).
type RefusedError struct {
	Dir    string
	Reason string
	Files  []string
}

func (e *RefusedError) Error() string {
	return e.Dir + ": " + e.Reason
}

// Hash returns the hex SHA-256 of data, as the manifest records it.
func Hash(data []byte) string {
	s := sha256.Sum256(data)
	return hex.EncodeToString(s[:])
}

// Test hooks: file writes and renames go through these.
var (
	writeFile = os.WriteFile
	rename    = os.Rename
	mkdirTemp = os.MkdirTemp
)

// ReadManifest reads dir's manifest. The error wraps fs.ErrNotExist when
// there is none; a manifest that is a symlink or not a regular file, over
// inputfile.MaxSize, does not parse, or names files that are not plain
// names is an error too.
func ReadManifest(dir string) (*Manifest, error) {
	p := filepath.Join(dir, ManifestName)
	st, err := os.Lstat(p)
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", ManifestName)
	}
	data, err := inputfile.ReadCapped(p, MaxManifestSize)
	if err != nil {
		return nil, err
	}
	return parseManifest(data)
}

// parseManifest reads a manifest strictly (one JSON object, no unknown or
// repeated key, no null): a manifest Encode did not write is refused, with
// one short line naming what is wrong.
func parseManifest(data []byte) (*Manifest, error) {
	var m Manifest
	if err := strictjson.Unmarshal(data, &m, ManifestName); err != nil {
		return nil, errors.New(cut(err.Error()))
	}
	if m.Format != FormatVersion {
		return nil, fmt.Errorf("%s: format %d (this hxbar reads format %d)", ManifestName, m.Format, FormatVersion)
	}
	seen := map[string]bool{}
	for i, e := range m.Files {
		if err := checkName(e.Name); err != nil || seen[e.Name] {
			return nil, fmt.Errorf("%s: files[%d]: bad name %s (allowed: a plain file name, once)", ManifestName, i, cut(strconv.Quote(e.Name)))
		}
		if len(e.SHA256) != 64 || strings.Trim(e.SHA256, "0123456789abcdef") != "" {
			return nil, fmt.Errorf("%s: files[%d]: bad sha256 %s for %s (allowed: 64 hex digits)", ManifestName, i, cut(strconv.Quote(e.SHA256)), cut(strconv.Quote(e.Name)))
		}
		seen[e.Name] = true
	}
	return &m, nil
}

// cut shortens a message part read from a file: a hostile manifest cannot
// make a huge message.
func cut(s string) string {
	const most = 200
	if len(s) <= most {
		return s
	}
	for i := most; i > 0; i-- {
		if utf8.RuneStart(s[i]) {
			return s[:i] + "..."
		}
	}
	return s[:most] + "..."
}

// Encode renders the manifest: JSON with one file entry per line, so that
// a shell script can find a file's hash with grep.
func (m *Manifest) Encode() []byte {
	var b bytes.Buffer
	q := func(s string) string { v, _ := json.Marshal(s); return string(v) }
	fmt.Fprintf(&b, "{\n  \"tool\": %s,\n  \"format\": %d,\n  \"files\": [\n", q(m.Tool), m.Format)
	for i, e := range m.Files {
		part := ""
		if e.Part != "" {
			part = ", \"part\": " + q(e.Part)
		}
		fmt.Fprintf(&b, "    {\"name\": %s%s, \"sha256\": %s}", q(e.Name), part, q(e.SHA256))
		if i < len(m.Files)-1 {
			b.WriteByte(',')
		}
		b.WriteByte('\n')
	}
	b.WriteString("  ]\n}\n")
	return b.Bytes()
}

// checkName accepts plain file names only.
func checkName(name string) error {
	if name == "" || name == "." || name == ".." || strings.ContainsAny(name, "/\\\x00\n") {
		return fmt.Errorf("invalid file name %q", name)
	}
	return nil
}

// Resolve returns the absolute, symlink-free name of dir and whether it
// exists. A dir that exists but is not a directory is an error, and so is
// the filesystem root.
func Resolve(dir string) (string, bool, error) {
	if dir == "" {
		return "", false, errors.New("output directory: empty name")
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", false, err
	}
	exists := true
	if _, err := os.Lstat(abs); errors.Is(err, fs.ErrNotExist) {
		exists = false
	} else if err != nil {
		return "", false, err
	}
	if exists {
		if abs, err = filepath.EvalSymlinks(abs); err != nil {
			return "", false, err
		}
		st, err := os.Stat(abs)
		if err != nil {
			return "", false, err
		}
		if !st.IsDir() {
			return "", false, &RefusedError{Dir: dir, Reason: "not a directory"}
		}
	} else if parent, err := filepath.EvalSymlinks(filepath.Dir(abs)); err == nil {
		abs = filepath.Join(parent, filepath.Base(abs))
	}
	if filepath.Dir(abs) == abs {
		return "", false, &RefusedError{Dir: dir, Reason: "refusing to write into the filesystem root (even with --force): name a directory for the generated files"}
	}
	return abs, exists, nil
}

// Write makes dir hold files (see the package comment for the rules) and
// records them in its manifest. Nothing in dir changes when it returns a
// *RefusedError or fails before the first rename.
func Write(dir string, files []File, opts Options) (*Result, error) {
	names, err := checkFiles(files, opts)
	if err != nil {
		return nil, err
	}
	real, exists, err := Resolve(dir)
	if err != nil {
		return nil, err
	}
	tool := opts.Tool
	if tool == "" {
		tool = "hxbar"
	}
	newMan := &Manifest{Tool: tool, Format: FormatVersion}
	if !exists {
		return writeNewDir(dir, real, files, newMan)
	}
	// An existing directory keeps its inode (a shell may be in it): the
	// files are staged and renamed into it one by one.
	old, err := existingManifest(dir, real, tool, opts.Force)
	if err != nil {
		return nil, err
	}
	u := &update{dir: dir, real: real, old: old, files: files, opts: opts, res: &Result{Dir: real}}
	if u.sums, err = fileSums(real, files); err != nil {
		return nil, err
	}
	same, err := u.classify()
	if err != nil {
		return nil, err
	}
	remove, keep, err := u.plan(names)
	if err != nil {
		return nil, err
	}
	return u.apply(newMan, same, remove, keep)
}

// checkFiles checks the new files' names (valid, not the manifest's,
// each once, adopted only as inputs) and returns each name's index.
func checkFiles(files []File, opts Options) (map[string]int, error) {
	names := map[string]int{}
	for i, f := range files {
		if err := checkName(f.Name); err != nil {
			return nil, err
		}
		if f.Name == ManifestName {
			return nil, fmt.Errorf("%s: the manifest's name is reserved", f.Name)
		}
		if _, dup := names[f.Name]; dup {
			return nil, fmt.Errorf("%s: written twice", f.Name)
		}
		if f.Adopt && !slices.Contains(opts.Inputs, f.Name) {
			return nil, fmt.Errorf("%s: adopted but not an input", f.Name)
		}
		names[f.Name] = i
	}
	return names, nil
}

// writeNewDir writes a directory that does not exist: everything is
// staged beside it and renamed into place at once.
func writeNewDir(dir, real string, files []File, newMan *Manifest) (*Result, error) {
	for _, f := range files {
		if f.Adopt {
			return nil, fmt.Errorf("%s: cannot adopt %s: the directory does not exist", dir, f.Name)
		}
	}
	staging, err := stage(real, files, nil, newMan, false)
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(staging)
	if err := finishStaging(staging, real); err != nil {
		return nil, err
	}
	res := &Result{Dir: real}
	for _, f := range files {
		res.Written = append(res.Written, f.Name)
	}
	slices.Sort(res.Written)
	return res, nil
}

// existingManifest returns the manifest of the existing directory real
// (nil when it is empty, or with force when it has no valid one), or the
// refusal: a non-empty directory no hxbar tool wrote, another tool's
// directory, a manifest that is a directory.
func existingManifest(dir, real, tool string, force bool) (*Manifest, error) {
	ents, err := os.ReadDir(real)
	if err != nil {
		return nil, fmt.Errorf("output directory: %w", err)
	}
	old, err := ReadManifest(real)
	switch {
	case len(ents) == 0:
		old = nil
	case errors.Is(err, fs.ErrNotExist):
		if !force {
			return nil, &RefusedError{Dir: dir, Reason: "not empty and not written by hxbar (no " + ManifestName + "); refusing to write into it: name a new or empty directory, or --force writes into it anyway (replacing files of the same names)"}
		}
		old = nil
	case err != nil:
		if !force {
			return nil, &RefusedError{Dir: dir, Reason: fmt.Sprintf("unreadable manifest (%v); refusing to write into it: --force writes into it anyway (replacing files of the same names)", err)}
		}
		old = nil
	}
	if old != nil && Owner(old.Tool) != Owner(tool) {
		return nil, &RefusedError{Dir: dir, Reason: fmt.Sprintf("a %s directory (%s); refusing to write into it (allowed: a new or empty directory, or one %s wrote)", Owner(old.Tool), old.Tool, ownerTool(Owner(tool)))}
	}
	if st, err := os.Lstat(filepath.Join(real, ManifestName)); err == nil && st.IsDir() {
		return nil, &RefusedError{Dir: dir, Reason: ManifestName + " is a directory", Files: []string{ManifestName}}
	}
	return old, nil
}

// update is a write into an existing directory.
type update struct {
	dir, real string
	old       *Manifest // nil: the directory owns nothing yet
	files     []File
	opts      Options
	sums      map[string]string // each new file's SHA-256
	res       *Result
}

// owned reports whether name is a regular file the old manifest names
// with the content it records.
func (u *update) owned(name string) (bool, error) { return owns(u.real, u.old, name) }

// classify sorts the new files' names: absent, owned and identical (not
// rewritten: the map returned), owned and different, or in the way (a
// directory: refused; not owned: refused without Force, Replaced with it).
func (u *update) classify() (map[string]bool, error) {
	var conflicts, dirs []string
	same := map[string]bool{}
	for _, f := range u.files {
		st, err := os.Lstat(filepath.Join(u.real, f.Name))
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		if st.IsDir() {
			dirs = append(dirs, f.Name)
			continue
		}
		if f.Adopt { // a regular file and an input (fileSums, the name checks)
			same[f.Name] = true
			continue
		}
		ok, err := u.owned(f.Name)
		if err != nil {
			return nil, err
		}
		if !ok {
			if !slices.Contains(u.opts.Inputs, f.Name) || !st.Mode().IsRegular() {
				conflicts = append(conflicts, f.Name)
			}
			continue
		}
		if e, _ := u.old.Lookup(f.Name); e.SHA256 == u.sums[f.Name] && st.Mode().Perm() == mode(f) {
			same[f.Name] = true
		}
	}
	slices.Sort(dirs)
	slices.Sort(conflicts)
	if len(dirs) > 0 {
		return nil, &RefusedError{Dir: u.dir, Files: dirs, Reason: fmt.Sprintf("%s in the way: a directory is never replaced (move it away)", list(dirs, "is a directory", "are directories"))}
	}
	if len(conflicts) > 0 && !u.opts.Force {
		return nil, &RefusedError{Dir: u.dir, Files: conflicts, Reason: fmt.Sprintf("%s not written by hxbar or edited since (not as %s records them); refusing to overwrite: move them away, or --force overwrites them",
			list(conflicts, "is", "are"), ManifestName)}
	}
	u.res.Replaced = conflicts
	return same, nil
}

// plan decides the fate of the owned files the new set does not have:
// removed (in the parts written) or kept; edited ones are left alone and
// forgotten (Result.Left).
func (u *update) plan(names map[string]int) (remove []string, keep []Entry, err error) {
	if u.old == nil {
		return nil, nil, nil
	}
	inParts := func(part string) bool { return u.opts.Parts == nil || slices.Contains(u.opts.Parts, part) }
	for _, e := range u.old.Files {
		if _, isNew := names[e.Name]; isNew {
			continue
		}
		ok, err := u.owned(e.Name)
		if err != nil {
			return nil, nil, err
		}
		switch {
		case slices.Contains(u.opts.Inputs, e.Name):
			if ok {
				keep = append(keep, e)
			}
		case !ok:
			if _, err := os.Lstat(filepath.Join(u.real, e.Name)); err == nil {
				u.res.Left = append(u.res.Left, e.Name)
			}
		case inParts(e.Part):
			remove = append(remove, e.Name)
		default:
			keep = append(keep, e)
		}
	}
	return remove, keep, nil
}

// apply stages the files and renames them into the directory, removes
// what plan removes, and rewrites the manifest so that it records what is
// there at every step where it could stop.
func (u *update) apply(newMan *Manifest, same map[string]bool, remove []string, keep []Entry) (*Result, error) {
	staging, err := stage(u.real, u.files, same, nil, true)
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(staging)
	current := map[string]Entry{}
	if u.old != nil {
		for _, e := range u.old.Files {
			if ok, _ := u.owned(e.Name); ok {
				current[e.Name] = e
			}
		}
	}
	commit := func() error {
		m := *newMan
		for _, e := range current {
			m.Files = append(m.Files, e)
		}
		slices.SortFunc(m.Files, func(a, b Entry) int { return strings.Compare(a.Name, b.Name) })
		p := filepath.Join(staging, ManifestName)
		if err := writeFile(p, m.Encode(), 0o644); err != nil {
			return err
		}
		return rename(p, filepath.Join(u.real, ManifestName))
	}
	fail := func(err error) (*Result, error) {
		if cerr := commit(); cerr != nil {
			return nil, fmt.Errorf("%w (and the manifest could not be updated: %v)", err, cerr)
		}
		return nil, err
	}
	res := u.res
	for _, f := range u.files {
		e := Entry{Name: f.Name, Part: f.Part, SHA256: u.sums[f.Name]}
		res.Written = append(res.Written, f.Name)
		if !same[f.Name] {
			if err := rename(filepath.Join(staging, f.Name), filepath.Join(u.real, f.Name)); err != nil {
				return fail(fmt.Errorf("output directory: %w", err))
			}
		}
		current[f.Name] = e
	}
	for _, name := range remove {
		if err := os.Remove(filepath.Join(u.real, name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fail(fmt.Errorf("output directory: %w", err))
		}
		delete(current, name)
		res.Removed = append(res.Removed, name)
	}
	for _, e := range keep {
		current[e.Name] = e
	}
	if err := commit(); err != nil {
		return nil, fmt.Errorf("output directory: %w", err)
	}
	slices.Sort(res.Written)
	return res, nil
}

// owns reports whether the manifest m owns name in dir: a regular file it
// names with the content it records. A file over MaxFileSize, or one that
// cannot be read, is an error naming it.
func owns(dir string, m *Manifest, name string) (bool, error) {
	e, ok := m.Lookup(name)
	if !ok {
		return false, nil
	}
	p := filepath.Join(dir, name)
	st, err := os.Lstat(p)
	if err != nil || !st.Mode().IsRegular() {
		return false, nil
	}
	sum, err := inputfile.Hash(p, MaxFileSize)
	if err != nil {
		return false, err
	}
	return sum == e.SHA256, nil
}

// fileSums is the SHA-256 of each file's new content: its Data, or for an
// adopted file the regular file in dir, hashed streamed.
func fileSums(dir string, files []File) (map[string]string, error) {
	sums := make(map[string]string, len(files))
	for _, f := range files {
		if !f.Adopt {
			sums[f.Name] = Hash(f.Data)
			continue
		}
		p := filepath.Join(dir, f.Name)
		if st, err := os.Lstat(p); err != nil || !st.Mode().IsRegular() {
			return nil, fmt.Errorf("%s: cannot adopt it: not a regular file", p)
		}
		sum, err := inputfile.Hash(p, MaxFileSize)
		if err != nil {
			return nil, err
		}
		sums[f.Name] = sum
	}
	return sums, nil
}

// mode is f's permission bits (0644 by default).
func mode(f File) fs.FileMode {
	if f.Mode == 0 {
		return 0o644
	}
	return f.Mode.Perm()
}

// stage writes files (except those in skip) into a new temporary sibling
// of dir, and the manifest man when it is not nil; it returns the staging
// directory, or removes it and returns the error. When the parent is not
// writable and inside is set (dir exists), the staging directory is a
// hidden directory inside dir instead (the renames stay within one
// filesystem either way).
func stage(dir string, files []File, skip map[string]bool, man *Manifest, inside bool) (string, error) {
	parent := filepath.Dir(dir)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return "", fmt.Errorf("output directory: %w", err)
	}
	staging, err := mkdirTemp(parent, "."+filepath.Base(dir)+".hxbar-")
	if err != nil && inside {
		staging, err = mkdirTemp(dir, ".hxbar-staging-")
	}
	if err != nil {
		return "", fmt.Errorf("output directory: cannot stage the files next to it: %w", err)
	}
	ok := false
	defer func() {
		if !ok {
			os.RemoveAll(staging)
		}
	}()
	for _, f := range files {
		if skip[f.Name] {
			continue
		}
		p := filepath.Join(staging, f.Name)
		if err := writeFile(p, f.Data, mode(f)); err != nil {
			return "", fmt.Errorf("output directory: %w", err)
		}
		if err := os.Chmod(p, mode(f)); err != nil { // umask
			return "", fmt.Errorf("output directory: %w", err)
		}
		if man != nil {
			man.Files = append(man.Files, Entry{Name: f.Name, Part: f.Part, SHA256: Hash(f.Data)})
		}
	}
	if man != nil {
		slices.SortFunc(man.Files, func(a, b Entry) int { return strings.Compare(a.Name, b.Name) })
		if err := writeFile(filepath.Join(staging, ManifestName), man.Encode(), 0o644); err != nil {
			return "", fmt.Errorf("output directory: %w", err)
		}
	}
	ok = true
	return staging, nil
}

// finishStaging renames a complete staging directory to dir, which does
// not exist.
func finishStaging(staging, dir string) error {
	if err := os.Chmod(staging, 0o755); err != nil {
		return fmt.Errorf("output directory: %w", err)
	}
	if err := rename(staging, dir); err != nil {
		return fmt.Errorf("output directory: %w", err)
	}
	return nil
}

// list writes names for a message: "a.hex is", "a.hex, b.hex are".
func list(names []string, one, many string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = strconv.Quote(n)
	}
	if len(names) == 1 {
		return q[0] + " " + one
	}
	const max = 5
	if len(q) > max {
		q = append(q[:max], fmt.Sprintf("and %d more", len(names)-max))
	}
	return strings.Join(q, ", ") + " " + many
}

// Owns reports whether dir's manifest owns name: a regular file that the
// manifest names, with the content it records. A directory without a
// (valid) manifest owns nothing.
func Owns(dir, name string) bool { return CheckOwned(dir, name) == nil }

// CheckOwned is Owns with the reason when dir's manifest does not own name:
// one line naming the file (missing or edited; over MaxFileSize, with its
// size; a manifest that cannot be read).
func CheckOwned(dir, name string) error {
	p := filepath.Join(dir, name)
	m, err := ReadManifest(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return &NotOwnedError{Path: p}
	}
	if err != nil {
		return fmt.Errorf("%s: not owned: %s: %v", p, ManifestName, unwrapPath(err))
	}
	ok, err := owns(dir, m, name)
	if err != nil {
		return err
	}
	if !ok {
		return &NotOwnedError{Path: p}
	}
	return nil
}

// NotOwnedError is CheckOwned's answer for a file that is missing, not a
// regular file, or not as the manifest records it (edited, or not listed).
type NotOwnedError struct{ Path string }

func (e *NotOwnedError) Error() string {
	return e.Path + ": missing, or not as " + ManifestName + " records it"
}

// unwrapPath drops an *fs.PathError's operation and path (the message names
// the file already).
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// Owner is the tool that owns a directory whose manifest names tool: a
// directory belongs to one tool, and another refuses it (hxbar gen must not
// replace a sweep's log, nor a sweep mix its files into a design). "hxbar
// sweep" owns sweeps; every other writer (hxbar gen and the generators it
// runs, which add their parts to its directory, and manifests of older
// versions) is "gen", so an existing generated directory stays gen's.
func Owner(tool string) string {
	if tool == "hxbar sweep" {
		return "sweep"
	}
	return "gen"
}

// ownerTool names the command that makes an owner's directories.
func ownerTool(owner string) string { return "hxbar " + owner }
