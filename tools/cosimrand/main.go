// Command cosimrand co-simulates random designs (docs/testing.md, "Random
// co-simulation"): design i of a run is testbench.RandomDesign(seed+i),
// generated and run under Icarus Verilog (or Verilator) against the
// model. A design whose RTL differs is shrunk to a smaller failing one;
// both system files are written to -out and the seed is printed, so that
// 'cosimrand -seed S -n 1' reproduces it.
//
//	go run ./tools/cosimrand -n 2000 -seed 1 -j 2 -out /tmp/cosimrand
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/hxbar/hxbar/hw"
	"github.com/hxbar/hxbar/testbench"
)

func main() {
	n := flag.Int("n", 100, "number of designs")
	seed := flag.Uint64("seed", 1, "seed of the first design (design i is seed+i)")
	jobs := flag.Int("j", 2, "designs co-simulated at once")
	out := flag.String("out", filepath.Join(os.TempDir(), "hxbar-cosimrand"), "directory for the failing designs' system files and the work directories")
	simulator := flag.String("sim", testbench.Icarus, "simulator: icarus or verilator")
	verbose := flag.Bool("v", false, "print every design's seed, size and time")
	comms := flag.Bool("comms", false, "co-simulate only the designs that run communicators (channels); skip the others")
	torus := flag.Bool("torus", false, "co-simulate only the designs drawn as a torus or mesh; skip the others")
	flag.Parse()
	if *comms && *torus {
		fmt.Fprintln(os.Stderr, "cosimrand: -comms and -torus: one at a time (no torus runs communicators)")
		os.Exit(2)
	}
	keep := func(hw.System) bool { return true }
	switch {
	case *comms:
		keep = func(s hw.System) bool { return s.HasCommunicators() }
	case *torus:
		keep = func(s hw.System) bool { return s.Topology == hw.TopoTorus }
	}
	if err := checkFlags(*n, *jobs, *seed, *simulator); err != nil {
		fmt.Fprintln(os.Stderr, "cosimrand:", err)
		os.Exit(2)
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		fmt.Fprintln(os.Stderr, "cosimrand:", err)
		os.Exit(2)
	}
	if failed := run(*n, *seed, *jobs, *out, *simulator, *verbose, keep); failed > 0 {
		os.Exit(1)
	}
}

// checkFlags checks the flags that main cannot take as given: one line
// naming the flag and the allowed values.
func checkFlags(n, jobs int, seed uint64, simulator string) error {
	switch {
	case n < 1:
		return fmt.Errorf("invalid -n %d (allowed: at least 1)", n)
	case jobs < 1:
		return fmt.Errorf("invalid -j %d (allowed: at least 1)", jobs)
	case simulator != testbench.Icarus && simulator != testbench.Verilator:
		return fmt.Errorf("invalid -sim %q (allowed: %s, %s)", simulator, testbench.Icarus, testbench.Verilator)
	case seed > math.MaxUint64-uint64(n-1):
		return fmt.Errorf("invalid -seed %d with -n %d (allowed: up to %d, so that seed+n-1 does not wrap)", seed, n, uint64(math.MaxUint64)-uint64(n-1))
	}
	return nil
}

// run co-simulates designs seed..seed+n-1 on jobs workers and returns the
// number that failed.
func run(n int, seed uint64, jobs int, out, simulator string, verbose bool, keep func(hw.System) bool) int {
	start := time.Now()
	var next, done, failed, skipped atomic.Int64
	var mu sync.Mutex
	var wg sync.WaitGroup
	for range jobs {
		wg.Go(func() {
			for {
				i := next.Add(1) - 1
				if i >= int64(n) {
					return
				}
				s := seed + uint64(i)
				t0 := time.Now()
				msg, sys := one(s, out, simulator, keep)
				d := done.Add(1)
				mu.Lock()
				if !keep(sys) {
					skipped.Add(1)
				} else if verbose {
					fmt.Printf("seed %d: %d nodes, %d episodes, %d communicators on %d channels, %d faults: %v\n", s, sys.Nodes(), sys.NumEpisodes(), len(sys.Communicators), sys.ChannelCount(), len(sys.Faults), time.Since(t0).Round(time.Millisecond))
				}
				if msg != "" {
					failed.Add(1)
					fmt.Printf("FAIL seed %d: %s\n", s, msg)
				}
				if d%50 == 0 || d == int64(n) {
					fmt.Printf("%d of %d designs, %d failed, %v\n", d, n, failed.Load(), time.Since(start).Round(time.Second))
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	ran := n - int(skipped.Load())
	fmt.Printf("cosimrand: %d designs (seeds %d..%d, %d not of the kind asked skipped) under %s: %d matched the model cycle for cycle, %d failed, in %v\n",
		ran, seed, seed+uint64(n)-1, skipped.Load(), simulator, ran-int(failed.Load()), failed.Load(), time.Since(start).Round(time.Second))
	return int(failed.Load())
}

// one co-simulates the design of seed; on a failure it shrinks the design
// and writes both system files into out. It returns the failure ("" when
// the RTL matched) and the design.
func one(seed uint64, out, simulator string, keep func(hw.System) bool) (string, hw.System) {
	sys, err := testbench.RandomDesign(seed)
	if err != nil {
		return err.Error(), sys
	}
	if !keep(sys) {
		return "", sys
	}
	// A fresh directory of our own under out: removing it touches nothing
	// the user had there.
	work, err := os.MkdirTemp(out, fmt.Sprintf("work-%d-", seed))
	if err != nil {
		return err.Error(), sys
	}
	defer os.RemoveAll(work)
	runs := 0
	check := func(c hw.System) string {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
		defer cancel()
		runs++
		dir := filepath.Join(work, fmt.Sprint(runs))
		rep, err := testbench.CosimSystem(ctx, dir, c, simulator)
		if mm, ok := errors.AsType[*testbench.MismatchError](err); ok {
			return mm.Report.Summary()
		}
		if err != nil {
			return err.Error()
		}
		if !rep.OK() {
			return rep.Summary()
		}
		return ""
	}
	msg := check(sys)
	if msg == "" {
		return "", sys
	}
	small := testbench.Shrink(sys, func(c hw.System) bool { return check(c) != "" }, 60)
	for name, s := range map[string]hw.System{"": sys, "-small": small} {
		if b, err := s.YAML(); err == nil {
			path := filepath.Join(out, fmt.Sprintf("fail-%d%s.yaml", seed, name))
			if werr := writeNew(path, b); werr == nil {
				msg += "\n  system: " + path
			} else {
				msg += "\n  not written: " + werr.Error()
			}
		}
	}
	return msg, sys
}

// writeNew writes a file that must not exist yet: it never replaces a
// file, nor follows a link to one.
func writeNew(path string, b []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		os.Remove(path)
		return err
	}
	return f.Close()
}
