package pictures

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/hxbar/hxbar/barrierunit"
	"github.com/hxbar/hxbar/hw"
	"github.com/hxbar/hxbar/sim"
)

// pics runs sys and draws its three pictures.
func pics(t *testing.T, sys hw.System) (timeline, chrome, load []byte, res *sim.Result) {
	t.Helper()
	s, err := sim.Build(sys, nil)
	if err != nil {
		t.Fatal(err)
	}
	run := RunOf(s, "test "+sys.Name)
	tl := NewTimeline(run)
	var cb, tb, lb bytes.Buffer
	ch := NewChrome(&cb, run)
	var l sim.ChannelLoad
	res, err = s.Run(sim.Options{Load: &l, Events: func(evs []barrierunit.Event) {
		tl.Add(evs)
		ch.Add(evs)
	}})
	var stuck *sim.StuckError
	var unit *sim.UnitError
	if err != nil && !errors.As(err, &stuck) && !errors.As(err, &unit) {
		t.Fatal(err)
	}
	if err := ch.Close(res); err != nil {
		t.Fatal(err)
	}
	if err := tl.WriteSVG(&tb, res); err != nil {
		t.Fatal(err)
	}
	if err := LoadSVG(&lb, &l, res, "test"); err != nil {
		t.Fatal(err)
	}
	if dir := os.Getenv("PICTURES_OUT"); dir != "" { // to look at them
		for n, b := range map[string][]byte{"timeline.svg": tb.Bytes(), "trace.json": cb.Bytes(), "load.svg": lb.Bytes()} {
			os.WriteFile(dir+"/"+sys.Name+"-"+n, b, 0o644)
		}
	}
	return tb.Bytes(), cb.Bytes(), lb.Bytes(), res
}

func systems() map[string]hw.System {
	def := hw.Default()
	ag := hw.Default()
	ag.Name, ag.Collective, ag.Items, ag.ItemFlits = "allgather", hw.CollAllGather, 4, 64
	rep := hw.Default()
	rep.Name, rep.Repeat, rep.Op = "repeat", 3, "sum"
	torus := hw.Default()
	torus.Name, torus.Topology, torus.Dims, torus.Ranks = "torus", "torus", []int{8}, 0
	big := hw.Default()
	big.Name, big.Dims, big.Ranks = "big", []int{16, 16}, 0
	stuck := hw.Default()
	stuck.Name, stuck.MaxCycles = "stuck", 30
	return map[string]hw.System{"default": def, "allgather": ag, "repeat": rep, "torus": torus, "big": big, "stuck": stuck, "faults": faulty()}
}

// faulty has a flip that the check code reports (CRC at node 5, the fault's
// first hit at cycle 14), a stuck rank that the others' watchdogs report
// (TIMEOUT) and a drop aimed past the run's end (it hits nothing).
func faulty() hw.System {
	sys := hw.Default()
	sys.Name, sys.Op, sys.Watchdog = "faults", "sum", 50
	sys.Faults = []string{"flip:n5.d1.up@14:3", "stuck:7", "drop:n2.d0.up@5000"}
	return sys
}

// TestPictures: every picture of every system is deterministic, the SVGs
// are well-formed XML and the trace keeps the trace-event format's rules.
func TestPictures(t *testing.T) {
	for name, sys := range systems() {
		t.Run(name, func(t *testing.T) {
			tl, ch, ld, res := pics(t, sys)
			tl2, ch2, ld2, _ := pics(t, sys)
			for _, p := range []struct {
				what string
				a, b []byte
			}{{"timeline", tl, tl2}, {"trace", ch, ch2}, {"load", ld, ld2}} {
				if !bytes.Equal(p.a, p.b) {
					t.Errorf("%s: two runs differ", p.what)
				}
			}
			for what, svg := range map[string][]byte{"timeline": tl, "load": ld} {
				if err := checkXML(svg); err != nil {
					t.Errorf("%s: %v", what, err)
				}
			}
			if err := checkChrome(ch, sys.NumRanks()); err != nil {
				t.Errorf("trace: %v", err)
			}
			for what, svg := range map[string][]byte{"timeline": tl, "load": ld} {
				boundary := bytes.Contains(svg, []byte("episode boundary"))
				if want := len(res.Episodes) > 1; boundary != want {
					t.Errorf("%s shows episode boundaries: %v, want %v", what, boundary, want)
				}
			}
			faults := bytes.Contains(tl, []byte("fault (labelled with its spec)"))
			if want := len(res.Faults) > 0; faults != want {
				t.Errorf("timeline shows faults: %v, want %v", faults, want)
			}
			density := bytes.Contains(tl, []byte("events per"))
			if want := sys.NumRanks() > MaxDetailRanks; density != want {
				t.Errorf("density view: %v, want %v", density, want)
			}
		})
	}
}

// TestTimelineMessages: the detailed view draws one line per message.
func TestTimelineMessages(t *testing.T) {
	s, err := sim.Build(hw.Default(), nil)
	if err != nil {
		t.Fatal(err)
	}
	tl := NewTimeline(RunOf(s, "x"))
	if _, err := s.Run(sim.Options{Events: tl.Add}); err != nil {
		t.Fatal(err)
	}
	sends, recvs := 0, 0
	for _, e := range tl.evs {
		switch e.kind {
		case barrierunit.EvSend:
			sends++
		case barrierunit.EvRecv:
			recvs++
		}
	}
	if sends == 0 || sends != recvs {
		t.Fatalf("%d sends, %d recvs", sends, recvs)
	}
}

func checkXML(b []byte) error {
	d := xml.NewDecoder(bytes.NewReader(b))
	root := ""
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		if se, ok := tok.(xml.StartElement); ok && root == "" {
			root = se.Name.Local
		}
	}
	if root != "svg" {
		return fmt.Errorf("root element %q, want svg", root)
	}
	return nil
}

// checkChrome holds a trace to the rules of the trace-event format's JSON
// Object Format, and to what Chrome says of the run: JSON of one object
// with traceEvents; every event has name, ph, ts, pid and tid; ph is one
// the writer uses (X, i, M, s, f); X has dur >= 0; i has scope g, p or t;
// every flow start has exactly one finish with the same id and cat (and
// name), not before it; every tid used is named by a thread_name M event;
// displayTimeUnit is ms or ns.
func checkChrome(b []byte, ranks int) error {
	if !json.Valid(b) {
		return errors.New("not valid JSON")
	}
	var doc struct {
		TraceEvents     []map[string]any `json:"traceEvents"`
		DisplayTimeUnit string           `json:"displayTimeUnit"`
	}
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	if err := d.Decode(&doc); err != nil {
		return err
	}
	if doc.TraceEvents == nil {
		return errors.New("no traceEvents")
	}
	if doc.DisplayTimeUnit != "ms" && doc.DisplayTimeUnit != "ns" {
		return fmt.Errorf("displayTimeUnit %q", doc.DisplayTimeUnit)
	}
	type flow struct {
		cat, name string
		ts        float64
		n         int
	}
	starts := map[string]*flow{}
	finishes := map[string]*flow{}
	named := map[string]bool{}
	used := map[string]bool{}
	num := func(e map[string]any, k string) (float64, error) {
		n, ok := e[k].(json.Number)
		if !ok {
			return 0, fmt.Errorf("event %v: %s is not a number", e, k)
		}
		return n.Float64()
	}
	for _, e := range doc.TraceEvents {
		for _, k := range []string{"name", "ph", "ts", "pid", "tid"} {
			if _, ok := e[k]; !ok {
				return fmt.Errorf("event %v has no %s", e, k)
			}
		}
		name, _ := e["name"].(string)
		ph, _ := e["ph"].(string)
		cat, _ := e["cat"].(string)
		ts, err := num(e, "ts")
		if err != nil {
			return err
		}
		if _, err := num(e, "pid"); err != nil {
			return err
		}
		if _, err := num(e, "tid"); err != nil {
			return err
		}
		tid := fmt.Sprint(e["pid"], "/", e["tid"])
		switch ph {
		case "X":
			dur, err := num(e, "dur")
			if err != nil || dur < 0 {
				return fmt.Errorf("X event %v: dur must be a number >= 0", e)
			}
			used[tid] = true
		case "i":
			if s := e["s"]; s != "g" && s != "p" && s != "t" {
				return fmt.Errorf("instant event %v: scope %v", e, s)
			}
			if e["s"] == "t" {
				used[tid] = true
			}
		case "M":
			if name == "thread_name" {
				args, _ := e["args"].(map[string]any)
				if n, _ := args["name"].(string); n == "" {
					return fmt.Errorf("thread_name %v names nothing", e)
				}
				named[tid] = true
			}
		case "s", "f":
			id := fmt.Sprint(e["id"])
			if e["id"] == nil {
				return fmt.Errorf("flow event %v has no id", e)
			}
			m := starts
			if ph == "f" {
				m = finishes
				if bp, ok := e["bp"]; ok && bp != "e" {
					return fmt.Errorf("flow finish %v: bp %v", e, bp)
				}
			}
			if m[id] != nil {
				return fmt.Errorf("flow id %s has two %q events", id, ph)
			}
			m[id] = &flow{cat: cat, name: name, ts: ts}
			used[tid] = true
		default:
			return fmt.Errorf("event %v: ph %q (allowed: X, i, M, s, f)", e, ph)
		}
	}
	for id, s := range starts {
		f := finishes[id]
		if f == nil {
			return fmt.Errorf("flow %s starts and never finishes", id)
		}
		if f.cat != s.cat || f.name != s.name {
			return fmt.Errorf("flow %s: start %s/%s, finish %s/%s", id, s.cat, s.name, f.cat, f.name)
		}
		if f.ts < s.ts {
			return fmt.Errorf("flow %s finishes at %v before it starts at %v", id, f.ts, s.ts)
		}
	}
	for id := range finishes {
		if starts[id] == nil {
			return fmt.Errorf("flow %s finishes and never starts", id)
		}
	}
	for tid := range used {
		if !named[tid] {
			return fmt.Errorf("thread %s has events and no thread_name", tid)
		}
	}
	if len(named) != ranks {
		return fmt.Errorf("%d threads named, want one per rank (%d)", len(named), ranks)
	}
	if !strings.Contains(string(b), `"ph":"X"`) {
		return errors.New("no gate slices")
	}
	return nil
}

// legendValues reads the values of the legend entries "V unit" of an SVG.
func legendValues(t *testing.T, svg []byte, unit string) []float64 {
	t.Helper()
	var vs []float64
	for _, m := range regexp.MustCompile(`>([^<> ]+) `+unit+`<`).FindAllSubmatch(svg, -1) {
		v, err := strconv.ParseFloat(string(m[1]), 64)
		if err != nil {
			t.Fatalf("legend %q: %v", m[0], err)
		}
		vs = append(vs, v)
	}
	return vs
}

// TestLoadScale: the load map's colour scale ends at the run's busiest
// cell, not at 1 flit per cycle: its legend's top value is that load and
// some cell is drawn in the darkest colour.
func TestLoadScale(t *testing.T) {
	for _, name := range []string{"default", "big", "allgather", "repeat"} {
		t.Run(name, func(t *testing.T) {
			s, err := sim.Build(systems()[name], nil)
			if err != nil {
				t.Fatal(err)
			}
			var l sim.ChannelLoad
			res, err := s.Run(sim.Options{Load: &l})
			if err != nil {
				t.Fatal(err)
			}
			var b bytes.Buffer
			if err := LoadSVG(&b, &l, res, "x"); err != nil {
				t.Fatal(err)
			}
			vs := legendValues(t, b.Bytes(), "flits/cycle")
			if len(vs) == 0 {
				t.Fatal("no legend entry in flits/cycle")
			}
			top := slices.Max(vs)
			cells, _ := loadCells(&l)
			if want, _ := strconv.ParseFloat(fmt.Sprintf("%.3g", busiest(cells)), 64); top != want {
				t.Errorf("legend runs to %g flits/cycle, the busiest cell has %g", top, want)
			}
			// The busiest channel's mean over the whole run is a lower bound
			// of its busiest bucket, whatever the bucketing.
			var mean float64
			for _, row := range l.Flits {
				var f uint32
				for _, v := range row {
					f += v
				}
				mean = max(mean, float64(f)/float64(max(l.Cycles, 1))/float64(l.PerRow))
			}
			if top < mean*0.999 || top > 1 || top == 0 {
				t.Errorf("legend top %g flits/cycle, want in [%g, 1]", top, mean)
			}
			dark := heatAt(1)
			if c := fmt.Sprintf("fill:#%02X%02X%02X", dark.R, dark.G, dark.B); bytes.Count(b.Bytes(), []byte(c)) < 2 {
				t.Errorf("no cell in the darkest colour %s (only its legend swatch)", c)
			}
		})
	}
}

// TestDensityLegend: the density view's legend counts whole events, up
// to the busiest cell's count.
func TestDensityLegend(t *testing.T) {
	s, err := sim.Build(systems()["big"], nil)
	if err != nil {
		t.Fatal(err)
	}
	tl := NewTimeline(RunOf(s, "x"))
	res, err := s.Run(sim.Options{Events: tl.Add})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := tl.WriteSVG(&b, res); err != nil {
		t.Fatal(err)
	}
	vs := append(legendValues(t, b.Bytes(), "events"), legendValues(t, b.Bytes(), "event")...)
	if len(vs) < 2 {
		t.Fatalf("legend %v: want 0 and the top at least", vs)
	}
	var top uint32
	for _, row := range tl.counts {
		top = max(top, slices.Max(append(row, 0)))
	}
	for _, v := range vs {
		if v != float64(int64(v)) {
			t.Errorf("legend entry %g events is not a whole count", v)
		}
	}
	if got := slices.Max(vs); got != float64(top) {
		t.Errorf("legend runs to %g events, the busiest cell has %d", got, top)
	}
}

func TestCountSteps(t *testing.T) {
	for top, want := range map[uint32][]float64{0: {0}, 1: {0, 1}, 2: {0, 1, 2}, 6: {0, 2, 3, 5, 6}, 100: {0, 25, 50, 75, 100}} {
		if got := countSteps(top, 4); !slices.Equal(got, want) {
			t.Errorf("countSteps(%d, 4) = %v, want %v", top, got, want)
		}
	}
}

// TestFaultsDrawn: the Chrome trace has an instant event per injected
// fault at its first hit (a stuck rank on its thread at cycle 0, a fault
// that hit nothing at its own cycle, first null) and per unit error at
// the error's cycle on its rank, named by its code's name; the timeline
// labels each fault within the run with its spec and marks the errors,
// one legend entry per code.
func TestFaultsDrawn(t *testing.T) {
	tl, ch, _, res := pics(t, faulty())
	var doc struct {
		TraceEvents []struct {
			Name string         `json:"name"`
			Ph   string         `json:"ph"`
			S    string         `json:"s"`
			Ts   int64          `json:"ts"`
			Tid  int32          `json:"tid"`
			Args map[string]any `json:"args"`
		} `json:"traceEvents"`
	}
	if err := json.Unmarshal(ch, &doc); err != nil {
		t.Fatal(err)
	}
	type mark struct {
		s    string
		ts   int64
		tid  int32
		args string
	}
	got := map[string]mark{}
	var errs []string
	for _, e := range doc.TraceEvents {
		if strings.HasPrefix(e.Name, "fault ") || strings.HasPrefix(e.Name, "error ") {
			if e.Ph != "i" {
				t.Errorf("%s: ph %q, want an instant event", e.Name, e.Ph)
			}
			args, _ := json.Marshal(e.Args)
			got[e.Name] = mark{e.S, e.Ts, e.Tid, string(args)}
		}
		if strings.HasPrefix(e.Name, "error ") {
			errs = append(errs, fmt.Sprintf("%s@%d/%d", e.Name, e.Ts, e.Tid))
		}
	}
	for name, want := range map[string]mark{
		"fault flip:n5.d1.up@14:3": {"p", 14, 0, `{"first":14,"hits":1,"spec":"flip:n5.d1.up@14:3"}`},
		"fault stuck:7":            {"t", 0, 7, `{"first":null,"hits":0,"spec":"stuck:7"}`},
		"fault drop:n2.d0.up@5000": {"p", 5000, 0, `{"first":null,"hits":0,"spec":"drop:n2.d0.up@5000"}`},
	} {
		if got[name] != want {
			t.Errorf("%s: %+v, want %+v", name, got[name], want)
		}
	}
	// Every error of the result, at its cycle on its rank's thread.
	var want []string
	crc := 0
	for _, e := range res.Errors {
		want = append(want, fmt.Sprintf("error %s@%d/%d", e.Code, e.Cycle, e.Rank))
		if e.Code == "CRC" {
			crc++
			if a := got["error CRC"].args; a != fmt.Sprintf(`{"code":6,"from":%d,"gate":%d,"name":"CRC","node":%d}`, e.From, e.Gate, e.Node) {
				t.Errorf("error CRC args %s", a)
			}
		}
	}
	slices.Sort(want)
	slices.Sort(errs)
	if crc != 1 || len(want) < 2 || !slices.Equal(errs, want) {
		t.Errorf("error events %v, want %v (one CRC, TIMEOUTs)", errs, want)
	}
	if err := checkChrome(ch, 16); err != nil {
		t.Error(err)
	}
	svg := string(tl)
	for _, s := range []string{">flip:n5.d1.up@14:3</text>", ">stuck:7 (never arrives)</text>", ">error CRC (code 6)<", ">error TIMEOUT (code 8)<",
		"fill:none;stroke:#C01CC0", "stroke-dasharray:2,2"} {
		if !strings.Contains(svg, s) {
			t.Errorf("timeline lacks %q", s)
		}
	}
	if strings.Contains(svg, "n2.d0.up@5000") {
		t.Error("timeline marks a fault aimed past the run's end")
	}
	// A cross is two strokes; the legend has one more.
	c := errorColor(barrierunit.ErrCRC)
	if n := strings.Count(svg, fmt.Sprintf("stroke:#%02X%02X%02X", c.R, c.G, c.B)); n != 2*(crc+1) {
		t.Errorf("%d strokes in CRC's colour, want %d (a cross per CRC error and the legend's)", n, 2*(crc+1))
	}
	if err := checkXML(tl); err != nil {
		t.Error(err)
	}
}

// TestChromeErrorNamesNoMadeUpSource: an OVER the gate check finds (one
// signal more than a gate needs) names its gate but no source in the
// Chrome trace, "from": null as in sim's JSON, not rank 0; the trace's
// own from=0 is the RTL's, not a rank. An error of no gate has both null.
func TestChromeErrorNamesNoMadeUpSource(t *testing.T) {
	sys := hw.Default()
	sys.Dims = []int{2, 2}
	s, err := sim.Build(sys, nil)
	if err != nil {
		t.Fatal(err)
	}
	s.Table.Need[0*s.Table.Stride()+2]-- // rank 0 gets a signal more than gate 2 needs
	u := s.Units
	s.Units = barrierunit.NewUnits(s.Table, u.Op, sys.FlitWidth, u.NodeOf, u.Arrive, u.Operand)
	s.Units.SetNodes(s.Topo.Nodes)
	var cb bytes.Buffer
	ch := NewChrome(&cb, RunOf(s, "over"))
	res, _ := s.Run(sim.Options{Events: ch.Add})
	if err := ch.Close(res); err != nil {
		t.Fatal(err)
	}
	if len(res.Errors) == 0 || res.Errors[0].Code != "OVER" || !res.Errors[0].NoFrom {
		t.Fatalf("errors %+v, want a gate-check OVER first", res.Errors)
	}
	if !bytes.Contains(cb.Bytes(), []byte(`"args":{"code":5,"from":null,"gate":2,"name":"OVER","node":0}`)) {
		t.Errorf("the OVER event names a source:\n%s", cb.Bytes())
	}
	noGate := errorArgs(barrierunit.Event{Cycle: 3, Node: 1, Kind: barrierunit.EvError, Value: uint64(barrierunit.ErrBadGate)}, nil)
	if noGate["gate"] != nil || noGate["from"] != nil {
		t.Errorf("an error of no gate: args %v", noGate)
	}
}
