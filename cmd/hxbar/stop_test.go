package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// A run whose waiting units all time out while a stuck rank never arrives
// ends after the last TIMEOUT and says why, in the table and the JSON; its
// message is printed once, under one prefix (no "error: " stutter).
func TestSimStopsWhenNoUnitCanAct(t *testing.T) {
	args := []string{"sim", "--fault", "stuck:7", "--watchdog", "100"}
	code, out, errs := hx(t, args...)
	if code != 1 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if !strings.HasPrefix(errs, "hxbar sim: cycle ") || strings.Contains(errs, "error: ") || strings.Count(errs, "\n") != 1 {
		t.Errorf("message %q: want one line 'hxbar sim: cycle ...' without 'error: '", errs)
	}
	if !strings.Contains(out, "no unit can act any more and nothing is in flight") || strings.Contains(out, "1000000") {
		t.Errorf("table does not say why the run stopped, or shows max_cycles:\n%s", out)
	}
	code, out, errs = hx(t, append(args, "--format", "json")...)
	if code != 1 {
		t.Fatalf("json: exit %d: %s", code, errs)
	}
	var res struct {
		Cycles int64  `json:"cycles"`
		Stop   string `json:"stop"`
		Errors []struct {
			Cycle int64 `json:"cycle"`
		} `json:"errors"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	if n := len(res.Errors); n == 0 || res.Stop != "no_progress" || res.Cycles != res.Errors[n-1].Cycle+1 {
		t.Errorf("stop %q, cycles %d, errors %+v: want no_progress after the last error", res.Stop, res.Cycles, res.Errors)
	}
}

// A rank that is not released shows no result: "-" in the table, null in
// the JSON, not the 0 its accumulator was reset to.
func TestSimUnreleasedRankShowsNoResult(t *testing.T) {
	args := []string{"sim", "--op", "sum", "--repeat", "2", "--fault", "dead:n5.d1.down@100", "--watchdog", "50"}
	code, out, errs := hx(t, args...)
	if code != 1 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	waiting := 0
	for _, l := range strings.Split(out, "\n") {
		if f := strings.Fields(strings.ReplaceAll(l, "│", " ")); len(f) == 7 && f[3] == "waiting" {
			waiting++
			if f[6] != "-" {
				t.Errorf("unreleased rank %s: result %q, want -", f[0], f[6])
			}
		}
	}
	if waiting == 0 {
		t.Fatalf("no unreleased rank in:\n%s", out)
	}
	_, out, _ = hx(t, append(args, "--format", "json")...)
	var res struct {
		Nodes []struct {
			Release *int64  `json:"release"`
			Result  *string `json:"result"`
		} `json:"nodes"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	for r, n := range res.Nodes {
		if (n.Release == nil) != (n.Result == nil) {
			t.Errorf("rank %d: release %v, result %v: want a result exactly when released", r, n.Release, n.Result)
		}
	}
}

// A traffic run that measured no packet shows no latency (none, null),
// not 0.00 cycles.
func TestTrafficNoPacketShowsNoLatency(t *testing.T) {
	args := []string{"traffic", "--rate", "0.0001", "--cycles", "10"}
	code, out, errs := hx(t, args...)
	if code != 0 || !strings.Contains(out, "│ none ") || strings.Contains(out, "0.00 ") {
		t.Errorf("exit %d %s: want latency none:\n%s", code, errs, out)
	}
}

// The traffic table's headers read as written: "LATENCY P99", not the
// "LATENCY P 99" the table's automatic header format made of "latency p99".
func TestTrafficHeaders(t *testing.T) {
	code, out, errs := hx(t, "traffic", "--cycles", "200")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{"OFFERED (FLITS/NODE/CYCLE)", "LATENCY P99", "PACKETS MEASURED"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in:\n%s", want, out)
		}
	}
}
