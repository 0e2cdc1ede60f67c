package gendir

import (
	"slices"
	"strings"
	"testing"
)

// FuzzParseManifest: the manifest reader never panics; a manifest it
// accepts is written back by Encode as one it reads to the same manifest
// (so what Write records is what a later run reads); one it refuses gives
// one short line naming the manifest (issue 24: hxbar trusts its own files
// only as far as it checks them).
func FuzzParseManifest(f *testing.F) {
	sum := strings.Repeat("ab", 32)
	good := (&Manifest{Tool: "hxbar gen", Format: FormatVersion, Files: []Entry{
		{Name: "hx_top.v", Part: "design", SHA256: sum}, {Name: "points.jsonl", SHA256: sum}}}).Encode()
	f.Add(good)
	for _, s := range []string{
		`{"tool":"hxbar sweep","format":1,"files":[]}`,
		`{"format":1,"files":[]}`,
		`{"tool":"hxbar gen","format":1,"files":[]}{"tool":"x"}`,
		`{"tool":"hxbar gen","tool":"hxbar sweep","format":1,"files":[]}`,
		`{"tool":"hxbar gen","TOOL":"hxbar sweep","format":1,"files":[]}`,
		`{"tool":"hxbar gen","format":1,"files":null}`,
		`{"tool":"hxbar gen","format":2,"files":[]}`,
		`{"tool":"hxbar gen","format":1e12,"files":[]}`,
		`{"tool":"hxbar gen","format":-1,"files":[]}`,
		`{"tool":"hxbar gen","format":"1","files":[]}`,
		`{"tool":"hxbar gen","format":0x10,"files":[]}`,
		`{"tool":"hxbar gen","format":1,"files":[{"name":"../x","sha256":"` + sum + `"}]}`,
		`{"tool":"hxbar gen","format":1,"files":[{"name":"a\nb","sha256":"` + sum + `"}]}`,
		`{"tool":"hxbar gen","format":1,"files":[{"name":"a\u0000","sha256":"` + sum + `"}]}`,
		`{"tool":"hxbar gen","format":1,"files":[{"name":"a","sha256":"` + strings.Repeat("Z", 64) + `"}]}`,
		`{"tool":"hxbar gen","format":1,"files":[{"name":"a","sha256":"` + sum + `"},{"name":"a","sha256":"` + sum + `"}]}`,
		`{"tool":"hxbar gen","format":1,"files":[{"name":"a","sha256":"` + sum + `","size":3}]}`,
		`{"tool":"2024-01-01","format":1,"files":[]}`,
		`{"tool":"hxbar gen","format":1,"files":[],"` + strings.Repeat("k", 400) + `":1}`,
		"", "null", "[]", "{", "\xff",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := parseManifest(data)
		if err != nil {
			msg := err.Error()
			if strings.ContainsAny(msg, "\r\n") || len(msg) > 1000 || !strings.Contains(msg, ManifestName) {
				t.Fatalf("error is not one short line naming %s: %q", ManifestName, msg)
			}
			return
		}
		back, err := parseManifest(m.Encode())
		if err != nil {
			t.Fatalf("Encode of an accepted manifest is refused: %v\n%s", err, m.Encode())
		}
		if back.Tool != m.Tool || back.Format != m.Format || !slices.Equal(back.Files, m.Files) {
			t.Fatalf("round trip changed the manifest:\n%+v\n%+v", m, back)
		}
	})
}
