package main

import (
	"os/exec"
	"strings"
	"testing"
)

// TestBudgetUnderAddressLimit runs the documented maxima with the address
// space capped at 4 GB (ulimit -v 4000000): each ends in seconds with a
// one-line refusal naming the estimate and the limit, or runs; never the
// runtime's out-of-memory crash or a panic. The schedule and channel list
// outputs are streamed (cut short by head: the test checks that they start
// and stay small, not their gigabytes).
func TestBudgetUnderAddressLimit(t *testing.T) {
	bin := hxbarBinary(t)
	cases := []struct {
		name, cmd, want string
	}{
		{"sim 1 Mi ranks", "sim --dims 32,32,32,32 --trace-format chrome --trace /dev/null", "the cycle model of 1048576 nodes needs about"},
		{"sim 2^21", "sim --dims 64,64,64,8 --format json", "the cycle model of 2097152 nodes needs about"},
		{"faults 2^21", "faults --dims 64,64,64,8", "a fault campaign on 2097152 nodes needs about"},
		{"traffic 2^21", "traffic --dims 64,64,64,8", "the network model of 2097152 nodes needs about"},
		{"channel table 2^21", "check --channels --dims 64,64,64,8", "--format json streams the list"},
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
