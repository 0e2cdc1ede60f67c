package main

import (
	"strings"
	"testing"
)

// The one line a run with a detected fault ends with: exit 1, the rank,
// gate, code and cycle, the fault and its channel.
func TestFaultErrorLine(t *testing.T) {
	code, _, errs := hx(t, "sim", "--fault", "dead:n5.d1.up@10", "--watchdog", "300")
	if code != 1 || strings.Count(strings.TrimSpace(errs), "\n") != 0 {
		t.Fatalf("exit %d: %q", code, errs)
	}
	for _, want := range []string{"TIMEOUT at gate", "(rank ", "lost on channel n5.d1.up", "fault dead:n5.d1.up@10 hit at cycle 14", "cycle 3"} {
		if !strings.Contains(errs, want) {
			t.Errorf("%q lacks %q", errs, want)
		}
	}
	code, _, errs = hx(t, "sim", "--op", "sum", "--fault", "stuck:7", "--watchdog", "300")
	if code != 1 || !strings.Contains(errs, "rank 7, which has not arrived") {
		t.Errorf("stuck: exit %d: %s", code, errs)
	}
	code, out, errs := hx(t, "sim", "--op", "sum", "--fault", "flip:n5.d1.up@14:3", "--format", "json")
	if code != 1 || !strings.Contains(out, `"code": "CRC"`) || !strings.Contains(errs, "CRC at gate") {
		t.Errorf("flip: exit %d: %s", code, errs)
	}
}
