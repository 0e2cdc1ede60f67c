package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func hx(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var o, e bytes.Buffer
	code = run(args, &o, &e)
	return code, o.String(), e.String()
}

func TestSimJSONContract(t *testing.T) {
	code, out, errs := hx(t, "sim", "--dims", "4,4", "--op", "sum", "--seed", "3", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var res struct {
		Cycles int64 `json:"cycles"`
		Ranks  int   `json:"ranks"`
		Nodes  []struct {
			Rank    int    `json:"rank"`
			Arrive  int64  `json:"arrive"`
			Operand string `json:"operand"`
			Release int64  `json:"release"`
			Result  string `json:"result"`
		} `json:"nodes"`
		Network struct {
			Packets  uint64 `json:"packets"`
			Flits    uint64 `json:"flits"`
			FlitHops uint64 `json:"flit_hops"`
		} `json:"network"`
	}
	dec := json.NewDecoder(strings.NewReader(out))
	if err := dec.Decode(&res); err != nil {
		t.Fatal(err)
	}
	if res.Ranks != 16 || len(res.Nodes) != 16 || res.Cycles <= 0 || res.Network.Packets != 64 || res.Network.FlitHops == 0 {
		t.Fatalf("unexpected result %+v", res)
	}
	for _, n := range res.Nodes {
		if n.Result != res.Nodes[0].Result || n.Release <= n.Arrive || n.Operand == "" {
			t.Fatalf("node %+v", n)
		}
	}
}

func TestDefaultSimPrintsTables(t *testing.T) {
	code, out, errs := hx(t, "sim")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{"16 ranks on 4x4 hyper-crossbar", "ARRIVE", "RELEASE", "flit hops"} {
		if !strings.Contains(out, want) {
			t.Fatalf("output lacks %q:\n%s", want, out)
		}
	}
}

func TestScheduleJSONRoundTripsThroughVerify(t *testing.T) {
	for _, algo := range []string{"butterfly", "butterfly-near-first", "dissemination"} {
		code, out, errs := hx(t, "schedule", "--ranks", "6", "--algo", algo, "--format", "json")
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", algo, code, errs)
		}
		var s struct {
			Ranks  int    `json:"ranks"`
			Algo   string `json:"algo"`
			Gates  int    `json:"gates"`
			Routes []struct {
				FromRank, FromGate, ToRank, ToGate, Distance int
			} `json:"routes"`
		}
		if err := json.Unmarshal([]byte(out), &s); err != nil || s.Ranks != 6 || s.Algo != algo || len(s.Routes) == 0 {
			t.Fatalf("%s: bad JSON (%v): %s", algo, err, out)
		}
		f := filepath.Join(t.TempDir(), "s.json")
		os.WriteFile(f, []byte(out), 0o644)
		code, out, errs = hx(t, "verify", f)
		want := "correct reduction"
		if algo == "dissemination" {
			want = "correct barrier"
		}
		if code != 0 || !strings.HasPrefix(out, want) {
			t.Fatalf("%s: verify exit %d, out %q, err %q", algo, code, out, errs)
		}
		// Remove one route between ranks: the verifier must refute it.
		var raw map[string]any
		b0, _ := os.ReadFile(f)
		json.Unmarshal(b0, &raw)
		routes := raw["routes"].([]any)
		for i, r := range routes {
			m := r.(map[string]any)
			if m["from_rank"] != m["to_rank"] {
				raw["routes"] = append(routes[:i:i], routes[i+1:]...)
				break
			}
		}
		b, _ := json.Marshal(raw)
		os.WriteFile(f, b, 0o644)
		code, _, errs = hx(t, "verify", f)
		if code != 1 || !strings.Contains(errs, "rank") {
			t.Fatalf("%s: broken schedule: exit %d, %q", algo, code, errs)
		}
	}
}

// TestBadInputNamesTheFieldAndNeverPanics feeds the CLI bad values; each
// must exit 2 with one line naming the flag or field.
func TestBadInputNamesTheFieldAndNeverPanics(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.yaml")
	os.WriteFile(bad, []byte("dims: [4, 99]\n"), 0o644)
	junk := filepath.Join(dir, "junk.json")
	os.WriteFile(junk, []byte("{\"ranks\": 2, \"gates\": 1, \"routes\": [{\"from_rank\": 0, \"from_gate\": 1, \"to_rank\": 5, \"to_gate\": 2, \"distance\": 5}]}"), 0o644)
	cases := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"sim", "--dims", "4,x"}, 2, "dims"},
		{[]string{"sim", "--dims", "1"}, 2, "dims"},
		{[]string{"sim", "--op", "mul"}, 2, "op"},
		{[]string{"sim", "--algo", "dissemination", "--op", "sum"}, 2, "idempotent"},
		{[]string{"sim", "--link-latency", "0"}, 2, "link"},
		{[]string{"sim", "--buffer-depth", "65"}, 2, "buffer"},
		{[]string{"sim", "--duplex", "quarter"}, 2, "duplex"},
		{[]string{"sim", "--ranks", "17"}, 2, "ranks"},
		{[]string{"sim", "--format", "xml"}, 2, "format"},
		{[]string{"sim", "--config", bad}, 2, "dims[1]"},
		{[]string{"sim", "--config", filepath.Join(dir, "missing.yaml")}, 2, "missing.yaml"},
		{[]string{"sim", "--schedule", junk}, 2, "to_rank"},
		{[]string{"sim", "--max-cycles", "45"}, 1, "waits for"},
		{[]string{"schedule", "--ranks", "0"}, 2, "ranks"},
		{[]string{"schedule", "--algo", "ring"}, 2, "algo"},
		{[]string{"verify"}, 2, "FILE"},
		{[]string{"verify", junk}, 2, "to_rank"},
		{[]string{"sim", "--dims", "4,,4"}, 2, "dims"},
		{[]string{"sim", "--seed", "-1"}, 2, "seed"},
		{[]string{"sim", "--foo"}, 2, "foo"},
		{[]string{"traffic", "--pattern", "tornado"}, 2, "pattern"},
		{[]string{"traffic", "--rate", "1.5"}, 2, "rate"},
		{[]string{"traffic", "--dims", "3,3", "--pattern", "transpose"}, 2, "power-of-two"},
		{[]string{"nonsense"}, 2, "unknown command"},
	}
	for _, c := range cases {
		code, _, errs := hx(t, c.args...)
		if code != c.code || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d (want %d), stderr %q (want it to name %q)", c.args, code, c.code, errs, c.want)
		}
		if n := strings.Count(strings.TrimSpace(errs), "\n"); n > 0 || strings.Contains(errs, "goroutine") {
			t.Errorf("%v: error is %d lines, want one: %q", c.args, n+1, errs)
		}
	}
}

func TestTrafficJSONContract(t *testing.T) {
	code, out, errs := hx(t, "traffic", "--pattern", "uniform", "--rate", "0.1", "--packet-flits", "4", "--cycles", "2000", "--dims", "4,4", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var r map[string]any
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"cycles", "offered", "accepted", "latency_avg", "latency_p99"} {
		if _, ok := r[k]; !ok {
			t.Fatalf("JSON lacks %q: %s", k, out)
		}
	}
	if off, acc := r["offered"].(float64), r["accepted"].(float64); off < 0.07 || off > 0.13 || acc < 0.8*off {
		t.Fatalf("offered %v accepted %v at rate 0.1", off, acc)
	}
	// What the table's header line says of the run is in the JSON too:
	// the warm-up as run (default cycles/10) and the packet length.
	if r["warmup"] != float64(200) || r["packet_flits"] != float64(4) {
		t.Errorf("warmup %v, packet_flits %v; want 200 and 4", r["warmup"], r["packet_flits"])
	}
}

// TestCollectiveCompareReproducesTheSeed checks the six orders of the
// Hitachi seed's worked comparison through the CLI.
func TestCollectiveCompareReproducesTheSeed(t *testing.T) {
	code, out, errs := hx(t, "collective", "--compare", "--nodes", "16", "--items", "4", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var costs []struct {
		Order string `json:"order"`
		Cost  int    `json:"cost"`
	}
	if err := json.Unmarshal([]byte(out), &costs); err != nil {
		t.Fatal(err)
	}
	want := map[string]int{"OOMM": 5, "OMOM": 6, "OMMO": 8, "MMOO": 11, "MOMO": 9, "MOOM": 7}
	if len(costs) != len(want) {
		t.Fatalf("%d orders, want 6: %s", len(costs), out)
	}
	for _, c := range costs {
		if want[c.Order] != c.Cost {
			t.Fatalf("order %s costs %d, the seed says %d", c.Order, c.Cost, want[c.Order])
		}
	}
	if code, _, errs := hx(t, "collective", "--algo", "order", "--order", "OOM"); code != 2 || !strings.Contains(errs, "order") {
		t.Fatalf("bad order: exit %d, %q", code, errs)
	}
}
