package testbench

import (
	"strings"
	"testing"

	"github.com/hxbar/hxbar/barrierunit"
	"github.com/hxbar/hxbar/sim"
)

func TestParseEventRoundTrip(t *testing.T) {
	for _, line := range []string{
		"0 n0 arrive rank=0 value=0000000000000000",
		"12 n3 gate g=2 value=00000000deadbeef",
		"9 n0 release rank=5 value=ffffffffffffffff",
		"1 n0 send to=1 gate=2",
		"1099511627775 n16777215 recv from=16777214 gate=63 value=0123456789abcdef",
		"40 n14 error code=6 name=CRC gate=2 from=4",
		"1050 n3 error code=8 name=TIMEOUT gate=3 from=0",
		"7 n0 error code=200 name=code200 gate=0 from=0",
	} {
		e, err := ParseEvent(line)
		if err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		if got := FormatEvent(e); got != line {
			t.Errorf("round trip %q -> %q", line, got)
		}
	}
}

func TestParseEventRejects(t *testing.T) {
	for _, line := range []string{
		"",
		"PASS 8 events 10 cycles",
		"FAIL event #3: ...",
		"x n0 arrive rank=0 value=0000000000000000",
		"-1 n0 arrive rank=0 value=0000000000000000",
		"1 0 arrive rank=0 value=0000000000000000",
		"1 n0 leave rank=0 value=0000000000000000",
		"1 n0 arrive rank=0",
		"1 n0 arrive rank=0 value=00000000000000000",     // 17 digits
		"1 n0 arrive rank=0 value=000000000000000G",      // not hex
		"1 n0 arrive rank=0 value=0000000000000000 x",    // extra field
		"1 n0 arrive value=0000000000000000 rank=0",      // field order
		"1  n0 send to=1 gate=2",                         // not canonical spacing
		"01 n0 send to=1 gate=2",                         // leading zero
		"1 n0 send to=1 gate=64",                         // gate past 6 bits
		"1 n0 recv from=1 gate=2 value=ABCDEF0123456789", // upper case
		"40 n14 error code=6 gate=2 from=4",              // no name
		"40 n14 error code=6 name=OVER gate=2 from=4",    // the name of another code
		"40 n14 error code=6 name=crc gate=2 from=4",     // not the name's case
		"40 n14 error name=CRC code=6 gate=2 from=4",     // field order
		"- tb.v:276: Verilog $finish",
		"FATAL: tb.v:271: hx_tb: the RTL trace differs",
	} {
		if _, err := ParseEvent(line); err == nil {
			t.Errorf("%q accepted", line)
		}
	}
}

func TestParseTraceOrder(t *testing.T) {
	ok := "1 n0 arrive rank=0 value=0000000000000000\n1 n0 send to=1 gate=2\n1 n1 arrive rank=1 value=0000000000000000\n2 n0 recv from=1 gate=2 value=0000000000000000\n"
	evs, err := ParseTrace([]byte(ok))
	if err != nil || len(evs) != 4 {
		t.Fatalf("ParseTrace: %d events, %v", len(evs), err)
	}
	for _, bad := range []string{
		"2 n0 arrive rank=0 value=0000000000000000\n1 n0 send to=1 gate=2\n", // cycle goes back
		"1 n1 arrive rank=1 value=0000000000000000\n1 n0 send to=1 gate=2\n", // node goes back
		"1 n0 send to=1 gate=2\n1 n0 arrive rank=0 value=0000000000000000\n", // kind order
		"1 n0 send to=1 gate=2\n1 n0 send to=2 gate=2\n",                     // two of a kind
		"1 n0 send to=1 gate=2\n\n",                                          // empty line
	} {
		if _, err := ParseTrace([]byte(bad)); err == nil {
			t.Errorf("accepted:\n%s", bad)
		}
	}
	// A node with channels has several events of a kind in a cycle, and
	// no other order may give.
	two := "1 n0 send to=1 gate=2\n1 n0 send to=2 gate=2\n1 n0 recv from=3 gate=2 value=0000000000000000\n"
	if evs, err := ParseChannelTrace([]byte(two)); err != nil || len(evs) != 3 {
		t.Errorf("ParseChannelTrace: %d events, %v", len(evs), err)
	}
	if _, err := ParseChannelTrace([]byte("1 n0 send to=1 gate=2\n1 n0 arrive rank=0 value=0000000000000000\n")); err == nil {
		t.Errorf("ParseChannelTrace accepted a kind going back")
	}
}

// The model's own trace parses and re-formats byte for byte.
func TestModelTraceParses(t *testing.T) {
	sys := system(t, "parse", []int{4, 4}, 0, "butterfly", "sum", 2, 2, 32)
	sys.Seed = 11
	_, trace, _, err := RunModel(sys)
	if err != nil {
		t.Fatal(err)
	}
	evs, err := ParseTrace(trace)
	if err != nil {
		t.Fatal(err)
	}
	var b []byte
	for _, e := range evs {
		b = sim.AppendEvent(b, e)
	}
	if string(b) != string(trace) {
		t.Fatal("parsed trace does not format back to the model's trace")
	}
}

func TestCompare(t *testing.T) {
	a := []string{"a0", "a1", "a2", "a3", "a4", "a5", "a6", "a7", "a8", "a9"}
	if d := Compare(a, append([]string(nil), a...)); d != nil {
		t.Fatalf("identical traces: %v", d)
	}
	if d := Compare(nil, nil); d != nil {
		t.Fatalf("empty traces: %v", d)
	}
	b := append([]string(nil), a...)
	b[6] = "b6"
	d := Compare(a, b)
	if d == nil || d.Index != 6 || d.Start != 3 || len(d.Model) != 7 || len(d.RTL) != 7 || d.Model[3] != "a6" || d.RTL[3] != "b6" {
		t.Fatalf("diff at 6: %+v", d)
	}
	s := d.String()
	for _, want := range []string{"first difference at event #6", " > #6     a6", " > #6     b6", "   #3     a3", "   #9     a9"} {
		if !strings.Contains(s, want) {
			t.Errorf("String lacks %q:\n%s", want, s)
		}
	}
	if !strings.Contains(d.Summary(), `the model has "a6", the RTL has "b6"`) {
		t.Errorf("Summary: %s", d.Summary())
	}
	// The RTL trace stops early.
	d = Compare(a, a[:4])
	if d == nil || d.Index != 4 || d.Start != 1 || len(d.RTL) != 3 || len(d.Model) != 7 {
		t.Fatalf("short RTL: %+v", d)
	}
	if !strings.Contains(d.String(), "(end of trace: 4 events)") || !strings.Contains(d.Summary(), "the RTL trace ends after 4 events") {
		t.Errorf("short RTL:\n%s\n%s", d.String(), d.Summary())
	}
	// The RTL has an extra line.
	d = Compare(a[:2], a[:3])
	if d == nil || d.Index != 2 || !strings.Contains(d.Summary(), "the model's trace ends after 2 events") {
		t.Fatalf("long RTL: %+v", d)
	}
	// Difference in the first line: no context before.
	d = Compare([]string{"x"}, []string{"y"})
	if d == nil || d.Index != 0 || d.Start != 0 {
		t.Fatalf("first line: %+v", d)
	}
}

// The expected.hex words carry every field at the documented bit
// positions, and the checksum covers the words after it.
func TestExpectedWordLayout(t *testing.T) {
	e := barrierunit.Event{Cycle: 0x123456789a, Node: 0x00abcdef, Kind: barrierunit.EvRecv, Gate: 0x2a, Rank: 0x00fedcba, Value: 0x0123456789abcdef}
	w := eventWord(e)
	got := strings.Join([]string{hex64(w[0]), hex64(w[1]), hex64(w[2])}, "")
	//           cycle[191:144] node[143:112] kind gate rank[95:64] value[63:0]
	want := "00123456789a" + "00abcdef" + "04" + "2a" + "00fedcba" + "0123456789abcdef"
	if got != want {
		t.Fatalf("event word\n got %s\nwant %s", got, want)
	}
	// rotlXor over 192 bits: the top bit wraps into bit 0.
	c := rotlXor(word{1 << 63, 0, 0}, word{}, 3)
	if c != (word{0, 0, 1}) {
		t.Fatalf("rotl192 wrap: %x", c)
	}
	c = rotlXor(word{0, 1 << 63, 1 << 63}, word{0, 0, 4}, 3)
	if c != (word{1, 1, 4}) {
		t.Fatalf("rotl192 carries: %x", c)
	}
	c = rotlXor(word{1 << 63, 1 << 63, 0}, word{}, 2)
	if c != (word{1, 1, 0}) {
		t.Fatalf("rotl128: %x", c)
	}
}

func hex64(v uint64) string {
	const digits = "0123456789abcdef"
	b := make([]byte, 16)
	for i := range b {
		b[i] = digits[v>>(60-4*uint(i))&0xf]
	}
	return string(b)
}
