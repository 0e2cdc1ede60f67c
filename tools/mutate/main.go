//go:build unix

// Command mutate is a small mutation tester for hxbar's model packages.
//
//	go run ./tools/mutate [-pkgs noc,barrierunit,collective] [-n 40] [-seed 1] [-v]
//	go run ./tools/mutate -pkgs noc -only noc/network.go:388   (every mutant of one line)
//
// It copies the repository's files (tracked and untracked, not ignored, as
// they are now) into a temporary directory and mutates only that copy: the
// user's tree is never written, so an interrupted run cannot leave it
// mutated. For each package it lists every mutation site in the package's
// non-test .go files:
//
//	<  <=   >  >=   <= <   >= >   == !=   != ==   +  -   -  +   && ||   || &&
//	+= -=   -= +=   x++ / x-- dropped (x += 0; not in a for statement's post)
//
// shuffles them with a fixed seed, and applies them one at a time: a
// mutant that does not build is skipped (not counted); the others run the
// package's own fast tests (go test -short -count=1 -failfast ./pkg, with a
// timeout; property tests with rapid's seed fixed to -seed, so that a run
// can be repeated).
// A failing run or a timeout kills the mutant; a passing one survived. It
// prints killed/survived per package and every survivor with its position
// (file:line:column, the column telling two operators of a line apart).
// The exit status is 0 whatever the score (it is a measurement), 1 on an
// error; a package whose unmutated tests fail gets no score (its output is
// printed and the other packages still run) and makes the status 1.
package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"math/rand/v2"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// swap is the operator each binary operator becomes.
var swap = map[token.Token]token.Token{
	token.LSS: token.LEQ, token.LEQ: token.LSS,
	token.GTR: token.GEQ, token.GEQ: token.GTR,
	token.EQL: token.NEQ, token.NEQ: token.EQL,
	token.ADD: token.SUB, token.SUB: token.ADD,
	token.LAND: token.LOR, token.LOR: token.LAND,
	token.ADD_ASSIGN: token.SUB_ASSIGN, token.SUB_ASSIGN: token.ADD_ASSIGN,
}

// mutant is one textual replacement in one file.
type mutant struct {
	file      string // relative to the repository root
	line, col int
	off, end  int // byte span replaced
	repl      string
	desc      string
}

func (m mutant) String() string {
	return fmt.Sprintf("%s:%d:%d %s", m.file, m.line, m.col, m.desc)
}

func main() {
	pkgs := flag.String("pkgs", "noc,barrierunit,collective", "comma-separated package directories")
	n := flag.Int("n", 40, "mutants run per package (sampled with -seed)")
	seed := flag.Uint64("seed", 1, "sampling seed")
	timeout := flag.Duration("timeout", 0, "time limit of one mutant's test run (0: 10x the unmutated run, at least 30s)")
	verbose := flag.Bool("v", false, "print every mutant's outcome")
	only := flag.String("only", "", "comma-separated file:line (e.g. noc/torus.go:122): run every mutant on those lines instead of a sample")
	flag.Parse()
	rapidSeed = max(*seed, 1)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, strings.Split(*pkgs, ","), *n, *seed, *timeout, *verbose, *only); err != nil {
		fmt.Fprintln(os.Stderr, "mutate:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, pkgs []string, n int, seed uint64, timeout time.Duration, verbose bool, only string) error {
	lines := map[string]bool{}
	if only != "" {
		for _, l := range strings.Split(only, ",") {
			lines[l] = true
		}
		n = -1
	}
	root, err := output(ctx, "", "git", "rev-parse", "--show-toplevel")
	if err != nil {
		return fmt.Errorf("not in a git tree: %v", err)
	}
	root = strings.TrimSpace(root)
	tmp, err := os.MkdirTemp("", "hxbar-mutate-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	if err := copyTree(ctx, root, tmp); err != nil {
		return err
	}
	if n < 0 {
		fmt.Printf("mutating a copy in %s (every mutant on the -only lines)\n", tmp)
	} else {
		fmt.Printf("mutating a copy in %s (seed %d, %d per package)\n", tmp, seed, n)
	}
	var scores []score
	var broken []string // packages whose unmutated tests fail
	for _, pkg := range pkgs {
		ms, err := sites(filepath.Join(tmp, pkg), tmp)
		if err != nil {
			return err
		}
		if len(lines) > 0 {
			var keep []mutant
			for _, m := range ms {
				if lines[fmt.Sprintf("%s:%d", m.file, m.line)] {
					keep = append(keep, m)
				}
			}
			if len(keep) == 0 {
				continue
			}
			ms = keep
		}
		s, err := mutatePackage(ctx, tmp, pkg, ms, n, seed, timeout, verbose)
		if errors.Is(err, errBaseline) {
			// No score without a passing baseline; the other packages
			// still run, and the exit status says so at the end.
			broken = append(broken, pkg)
			continue
		}
		if err != nil {
			return err
		}
		scores = append(scores, s)
		fmt.Printf("%s: %d killed, %d survived of %d run (%d sites, %d did not build)\n",
			pkg, s.killed, len(s.survivors), s.killed+len(s.survivors), s.sites, s.invalid)
		for _, m := range s.survivors {
			fmt.Printf("  survived: %s\n", m)
		}
	}
	fmt.Println("\npackage      killed  survived  score")
	for _, s := range scores {
		run := s.killed + len(s.survivors)
		pct := 0.0
		if run > 0 {
			pct = 100 * float64(s.killed) / float64(run)
		}
		fmt.Printf("%-12s %6d  %8d  %4.0f%%\n", s.pkg, s.killed, len(s.survivors), pct)
	}
	if len(broken) > 0 {
		return fmt.Errorf("the unmutated tests of %s fail (rapid seed %d)", strings.Join(broken, ", "), rapidSeed)
	}
	return nil
}

// score is one package's outcome.
type score struct {
	pkg                    string
	sites, killed, invalid int
	survivors              []mutant
}

// errBaseline: the package's unmutated tests fail.
var errBaseline = errors.New("the unmutated tests fail")

// mutatePackage runs the package's unmutated tests, then up to n of the
// mutants ms (all if n < 0) in an order shuffled with seed.
func mutatePackage(ctx context.Context, tmp, pkg string, ms []mutant, n int, seed uint64, timeout time.Duration, verbose bool) (score, error) {
	s := score{pkg: pkg, sites: len(ms)}
	start := time.Now()
	if ok, out := test(ctx, tmp, pkg, 10*time.Minute); !ok {
		if ctx.Err() != nil {
			return s, ctx.Err()
		}
		fmt.Printf("%s: the unmutated tests fail (rapid seed %d), no mutant run:\n%s\n", pkg, rapidSeed, out)
		return s, errBaseline
	}
	limit := timeout
	if limit == 0 {
		limit = max(30*time.Second, 10*time.Since(start))
	}
	r := rand.New(rand.NewPCG(seed, 0x68786261))
	r.Shuffle(len(ms), func(i, j int) { ms[i], ms[j] = ms[j], ms[i] })
	for _, m := range ms {
		if s.killed+len(s.survivors) == n {
			break
		}
		if ctx.Err() != nil {
			return s, ctx.Err()
		}
		outcome, err := try(ctx, tmp, pkg, m, limit)
		if err != nil {
			return s, err
		}
		switch outcome {
		case "invalid":
			s.invalid++
		case "survived":
			s.survivors = append(s.survivors, m)
		default:
			s.killed++
		}
		if verbose {
			fmt.Printf("  %-8s %s\n", outcome, m)
		}
	}
	return s, nil
}

// copyTree copies the files git knows of or would add (not ignored ones)
// from root to dst.
func copyTree(ctx context.Context, root, dst string) error {
	list, err := output(ctx, root, "git", "ls-files", "-z", "--cached", "--others", "--exclude-standard")
	if err != nil {
		return err
	}
	for _, f := range strings.Split(strings.TrimRight(list, "\x00"), "\x00") {
		src := filepath.Join(root, f)
		fi, err := os.Lstat(src)
		if errors.Is(err, os.ErrNotExist) {
			continue // deleted in the work tree, still in the index
		}
		if err != nil || !fi.Mode().IsRegular() {
			continue
		}
		b, err := os.ReadFile(src)
		if err != nil {
			return err
		}
		to := filepath.Join(dst, f)
		if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(to, b, fi.Mode().Perm()); err != nil {
			return err
		}
	}
	return nil
}

// sites lists the mutation sites of the non-test files of dir, in file and
// position order.
func sites(dir, root string) ([]mutant, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		return nil, err
	}
	sort.Strings(files)
	var ms []mutant
	for _, path := range files {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path, src, parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		rel, _ := filepath.Rel(root, path)
		posts := map[ast.Stmt]bool{}
		ast.Inspect(f, func(nd ast.Node) bool {
			if fs, ok := nd.(*ast.ForStmt); ok && fs.Post != nil {
				posts[fs.Post] = true
			}
			return true
		})
		add := func(pos, end token.Pos, repl, desc string) {
			p := fset.Position(pos)
			ms = append(ms, mutant{file: rel, line: p.Line, col: p.Column, off: p.Offset, end: fset.Position(end).Offset, repl: repl, desc: desc})
		}
		ast.Inspect(f, func(nd ast.Node) bool {
			switch x := nd.(type) {
			case *ast.BinaryExpr:
				if to, ok := swap[x.Op]; ok {
					add(x.OpPos, x.OpPos+token.Pos(len(x.Op.String())), to.String(), x.Op.String()+" -> "+to.String())
				}
			case *ast.AssignStmt:
				if to, ok := swap[x.Tok]; ok {
					add(x.TokPos, x.TokPos+token.Pos(len(x.Tok.String())), to.String(), x.Tok.String()+" -> "+to.String())
				}
			case *ast.IncDecStmt:
				if !posts[x] {
					lhs := string(src[fset.Position(x.X.Pos()).Offset:fset.Position(x.X.End()).Offset])
					add(x.Pos(), x.End(), lhs+" += 0", "drop "+x.Tok.String())
				}
			}
			return true
		})
	}
	return ms, nil
}

// try applies m to the copy, runs the package's tests and restores the file.
func try(ctx context.Context, tmp, pkg string, m mutant, timeout time.Duration) (string, error) {
	path := filepath.Join(tmp, m.file)
	orig, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	mut := append(append(append([]byte{}, orig[:m.off]...), m.repl...), orig[m.end:]...)
	if err := os.WriteFile(path, mut, 0o644); err != nil {
		return "", err
	}
	defer os.WriteFile(path, orig, 0o644)
	if _, err := output(ctx, tmp, "go", "build", "./"+pkg); err != nil {
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		return "invalid", nil
	}
	ok, _ := test(ctx, tmp, pkg, timeout)
	if ctx.Err() != nil {
		return "", ctx.Err()
	}
	if ok {
		return "survived", nil
	}
	return "killed", nil
}

// test runs the package's fast tests in dir.
func test(ctx context.Context, dir, pkg string, timeout time.Duration) (bool, string) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	args := []string{"test", "-short", "-count=1", "-failfast", "-timeout", timeout.String(), "./" + pkg}
	if usesRapid(filepath.Join(dir, pkg)) {
		// Property tests draw from a fixed seed, so that a score can be
		// reproduced; a failure is not shrunk for long nor saved.
		args = append(args, "-rapid.seed="+strconv.FormatUint(rapidSeed, 10), "-rapid.shrinktime=1s", "-rapid.nofailfile")
	}
	out, err := output(ctx, dir, "go", args...)
	return err == nil, out
}

// rapidSeed is the seed of pgregory.net/rapid's property tests (-seed).
var rapidSeed uint64 = 1

// usesRapid reports whether a test file of dir imports pgregory.net/rapid
// (whose flags its test binary then accepts).
func usesRapid(dir string) bool {
	files, _ := filepath.Glob(filepath.Join(dir, "*_test.go"))
	for _, f := range files {
		if b, err := os.ReadFile(f); err == nil && bytes.Contains(b, []byte(`"pgregory.net/rapid"`)) {
			return true
		}
	}
	return false
}

// output runs a command in its own process group, killed whole when ctx
// ends (go test runs the test binary as a child).
func output(ctx context.Context, dir, name string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	var b bytes.Buffer
	cmd.Stdout, cmd.Stderr = &b, &b
	err := cmd.Run()
	return b.String(), err
}
