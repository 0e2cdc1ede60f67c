package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hxbar/hxbar/hw"
)

// TestBudgetUnderAddressLimit runs the documented maxima with the address
// space capped at 4 GB (ulimit -v 4000000): each ends in seconds with a
// one-line refusal naming the estimate and the limit, or runs; never the
// runtime's out-of-memory crash or a panic. The schedule and channel list
// outputs are streamed (cut short by head: the test checks that they start
// and stay small, not their gigabytes).
func TestBudgetUnderAddressLimit(t *testing.T) {
	bin := hxbarBinary(t)
	d := t.TempDir()
	spec := filepath.Join(d, "big.yaml")
	os.WriteFile(spec, []byte("vary:\n  dims: [[64,64,64,8]]\nmeasure: [cycles]\n"), 0o644)
	cases := []struct {
		name, cmd, want string
	}{
		{"sim 1 Mi ranks", "sim --dims 32,32,32,32 --trace-format chrome --trace /dev/null", "the cycle model of 1048576 nodes needs about"},
		{"sim 2^21", "sim --dims 64,64,64,8 --format json", "the cycle model of 2097152 nodes needs about"},
		{"faults 2^21", "faults --dims 64,64,64,8", "a fault campaign on 2097152 nodes needs about"},
		{"traffic 2^21", "traffic --dims 64,64,64,8", "the network model of 2097152 nodes needs about"},
		{"channel table 2^21", "check --channels --dims 64,64,64,8", "--format json streams the list"},
		{"sweep 2^21", "sweep " + spec + " --out " + filepath.Join(d, "out"), "the sweep's cycle model of 2097152 nodes needs about"},
		{"schedule 4194303", "schedule --ranks 4194303 --format json | head -c 1000000 | tail -c 100", ""},
		{"channels 2^21 json", "check --channels --dims 64,64,64,8 --format json | head -c 1000000 | tail -c 100", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			sh := "ulimit -v 4000000 && " + bin + " " + c.cmd
			out, err := exec.Command("bash", "-o", "pipefail", "-c", sh).CombinedOutput()
			s := string(out)
			if strings.Contains(s, "out of memory") || strings.Contains(s, "panic") || strings.Contains(s, "goroutine") {
				t.Fatalf("%s: crashed: %.300s", c.cmd, s)
			}
			if c.want == "" {
				// Streamed: head closed the pipe; hxbar ends by EPIPE (141).
				if ee, ok := err.(*exec.ExitError); err != nil && (!ok || ee.ExitCode() != exitPipe) {
					t.Fatalf("%s: %v: %.300s", c.cmd, err, s)
				}
				return
			}
			if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 2 {
				t.Fatalf("%s: %v, want exit 2: %.300s", c.cmd, err, s)
			}
			line := strings.TrimSuffix(s, "\n")
			if strings.Contains(line, "\n") || !strings.Contains(line, c.want) || !strings.Contains(line, "over the budget of") {
				t.Errorf("%s: got %q, want one line with %q and the budget", c.cmd, s, c.want)
			}
		})
	}
}

// TestSweepBudgetCountsWorkers: a sweep's points run --workers at a time,
// so their cycle models are counted side by side; the refusal names the
// workers and leaves no directory behind.
func TestSweepBudgetCountsWorkers(t *testing.T) {
	d := t.TempDir()
	spec := filepath.Join(d, "s.yaml")
	os.WriteFile(spec, []byte("vary:\n  dims: [[64,64,64]]\n  seed: [1, 2]\nmeasure: [cycles]\n"), 0o644)
	out := filepath.Join(d, "out")
	code, _, errs := hx(t, "sweep", spec, "--out", out, "--workers", "2", "--max-memory", "2GiB")
	if code != 2 || !strings.Contains(errs, "2 points at once (the largest of 262144 nodes) needs about") || !strings.Contains(errs, "--workers runs fewer") {
		t.Errorf("exit %d, stderr %q, want exit 2 naming the points at once", code, errs)
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("the refused sweep made its --out directory")
	}
	code, _, errs = hx(t, "sweep", spec, "--out", out, "--max-memory", "1GiB", "--slurm", "--dry-run")
	if code != 2 || !strings.Contains(errs, "--max-memory does not apply to sweep --slurm") {
		t.Errorf("--max-memory with --slurm: exit %d, stderr %q", code, errs)
	}
}

// TestModelBytesCountsEpisodes: every episode keeps a release cycle per
// rank (measured 24 bytes resident), so the estimate grows with --repeat:
// 524,288 nodes repeated 10,000 times need far more than one episode's
// model (a run would otherwise pass the budget and die out of memory hours
// later).
func TestModelBytesCountsEpisodes(t *testing.T) {
	one := hw.Default()
	one.Dims = []int{32, 32, 32, 16}
	many := one
	many.Repeat = 10000
	grow := int64(modelBytes(&many, 0) - modelBytes(&one, 0))
	if want := int64(one.Nodes()) * 9999 * 24; grow < want {
		t.Errorf("10000 episodes add %d bytes to the estimate, want at least %d (24 bytes a rank an episode)", grow, want)
	}
}

// TestModelBytesCountsCommunicators: a split into thousands of looping
// communicators keeps a record per communicator and iteration (2.4 GB
// for 4,096 x 1,000 with --format json), and extra channels keep a unit
// and a result each: the estimate grows with both, so the budget refuses
// a run that would die out of memory.
func TestModelBytesCountsCommunicators(t *testing.T) {
	one := hw.Default()
	one.Dims = []int{2, 16, 16, 16}
	loop := one
	it := 1000
	loop.Communicators = []hw.Communicator{{Name: "p", Split: "dim:0", Iterations: &it}}
	grow := int64(modelBytes(&loop, 512) - modelBytes(&one, 512))
	if want := int64(4096*1000) * 570; grow < want {
		t.Errorf("4,096 communicators x 1,000 iterations add %d bytes to the JSON estimate, want at least %d", grow, want)
	}
	chans := one
	chans.Dims = []int{32, 32, 32}
	chans.Channels = 8
	world := chans
	for k := range 8 {
		chans.Communicators = append(chans.Communicators, hw.Communicator{Name: fmt.Sprintf("c%d", k), Split: "plane:0,1"})
	}
	if grow := int64(modelBytes(&chans, 512) - modelBytes(&world, 512)); grow < 7*32768*1000 {
		t.Errorf("8 channels of 32,768 nodes add %d bytes to the estimate, want at least 7 KB a node", grow)
	}
}
