package main

import (
	"bytes"
	"strings"
	"testing"
)

// TestCheckChannelsBesideTheKey: hxbar check --channels lists the
// network's channels although channels is also a system key whose flag
// the other commands take (binding both panicked: "flag redefined").
func TestCheckChannelsBesideTheKey(t *testing.T) {
	var o, e bytes.Buffer
	if code := run([]string{"check", "--channels", "--dims", "2"}, &o, &e); code != 0 || !strings.Contains(o.String(), "n0.d0.up") {
		t.Fatalf("check --channels: exit %d, %q, %q", code, o.String(), e.String())
	}
	o.Reset()
	e.Reset()
	if code := run([]string{"sim", "--channels", "2", "--dims", "2", "--format", "json"}, &o, &e); code != 0 {
		t.Fatalf("sim --channels 2: exit %d, %q", code, e.String())
	}
}
