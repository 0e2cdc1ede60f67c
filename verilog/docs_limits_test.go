package verilog_test

import (
	"math/big"
	"math/bits"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/hxbar/hxbar/barrierunit/regmap"
	"github.com/hxbar/hxbar/hw"
	"github.com/hxbar/hxbar/noc"
	"github.com/hxbar/hxbar/sim"
	"github.com/hxbar/hxbar/verilog"
)

// limitConsts are the Go constants whose values the docs state. Every
// reference to a constant is in this table: when a constant moves or is
// renamed, only the right-hand side changes here. A key may name several
// constants that must agree (a limit still defined in two packages): the
// statements below list every key that a stated value must equal.
var limitConsts = map[string]int64{
	"hw.MinDims":            hw.MinDims,
	"hw.MaxDims":            hw.MaxDims,
	"hw.MinDimSize":         hw.MinDimSize,
	"hw.MaxDimSize":         hw.MaxDimSize,
	"hw.MinFlitWidth":       hw.MinFlitWidth,
	"hw.MaxFlitWidth":       hw.MaxFlitWidth,
	"hw.MaxLinkLatency":     hw.MaxLinkLatency,
	"hw.MaxBufferDepth":     hw.MaxBufferDepth,
	"hw.MaxSkew":            hw.MaxSkew,
	"hw.MaxMaxCycles":       hw.MaxMaxCycles,
	"hw.MaxItemFlits":       hw.MaxItemFlits,
	"hw.MaxCollectiveRanks": hw.MaxCollectiveRanks,
	"hw.MaxNameLen":         hw.MaxNameLen,
	"hw.GateBits":           hw.GateBits,
	"hw.MaxGates":           hw.MaxGates,
	"hw.MaxNeed":            hw.MaxNeed,
	"hw.MaxRouteIndex":      hw.MaxRouteIndex,
	"hw.MaxDataRanks":       hw.MaxDataRanks,
	"hw.MaxItems":           hw.MaxItems,
	"verilog.MaxNodes":      verilog.MaxNodes,
	"verilog.MaxDims":       verilog.MaxDims,
	"regmap.MaxItemList":    regmap.MaxItemList,
	"noc.MaxFatTreeArity":   noc.MaxFatTreeArity,
	"noc.MaxFabricNodes":    noc.MaxFabricNodes,
	"noc.MaxCheckNodes":     noc.MaxCheckNodes,
	"sim.MaxModelNodes":     sim.MaxModelNodes,

	// Values derived from the constants above.
	"hw.MaxRouteIndex+1":                   hw.MaxRouteIndex + 1,
	"hw.MaxDimSize+1":                      hw.MaxDimSize + 1,
	"hw.MaxDimSize^4":                      pow(hw.MaxDimSize, 4),
	"width of ranks below hw.MaxDataRanks": int64(bits.Len(uint(hw.MaxDataRanks - 1))),
}

func pow(b, e int64) int64 {
	r := int64(1)
	for range e {
		r *= b
	}
	return r
}

// limitStatement is one statement of a limit in a doc: the regexp's groups
// are the stated values, and group i must equal every constant named in
// consts[i] (keys of limitConsts joined by "|"). The doc's white space is
// collapsed to single spaces before matching, so a statement may be broken
// across lines; "\x60" is a backquote. Every statement must be found at
// least once, and every occurrence must give the constants' values.
type limitStatement struct {
	doc    string
	re     string
	consts []string
}

const (
	gates     = "hw.MaxGates"
	need      = "hw.MaxNeed"
	itemFlits = "hw.MaxItemFlits"
)

var limitStatements = []limitStatement{
	// microarchitecture.md: the topology, the field widths and the limits table.
	{"microarchitecture.md", `\x601 <= n <= (\S+)\x60 in the model`, []string{"hw.MaxDims"}},
	{"microarchitecture.md", `\x601 <= n <= (\S+)\x60 in the RTL`, []string{"verilog.MaxDims"}},
	{"microarchitecture.md", `\x60(\S+) <= n <= \S+\x60`, []string{"hw.MinDims"}},
	{"microarchitecture.md", `\x60(\S+) <= Ki <= (\S+)\x60`, []string{"hw.MinDimSize", "hw.MaxDimSize"}},
	{"microarchitecture.md", `\*\*GateBits\*\* = (\S+):`, []string{"hw.GateBits"}},
	{"microarchitecture.md", `\x60FW >= AB \+ RB \+ (\S+)\x60`, []string{"hw.GateBits"}},
	{"microarchitecture.md", `\x60(\S+) <= FW <= (\S+)\x60`, []string{"hw.MinFlitWidth", "hw.MaxFlitWidth"}},
	{"microarchitecture.md", `\x60G <= (\S+)\x60`, []string{gates}},
	{"microarchitecture.md", `\| at most (\S+) \| the receive count \x60rxcnt\[g\]\x60 is an (\S+)-bit counter`, []string{need, "bits(hw.MaxNeed)"}},
	{"microarchitecture.md", `\| at most (\S+) each \| (\S+)-bit count and start fields`, []string{"hw.MaxRouteIndex", "bits(hw.MaxRouteIndex)"}},

	// rtl.md: module parameters, refused systems, decision 11.
	{"rtl.md", `\x60FW >= AB \+ RB \+ (\S+)\x60`, []string{"hw.GateBits"}},
	{"rtl.md", `\| \x60B\x60 \| depth, 1\.\.(\S+) \|`, []string{"hw.MaxBufferDepth"}},
	{"rtl.md", `number of dimensions \x60n\x60, (\S+)\.\.(\S+) \|`, []string{"hw.MinDims", "verilog.MaxDims"}},
	{"rtl.md", `\x60G\x60 of the table, 0\.\.(\S+) \(`, []string{gates}},
	{"rtl.md", `flits per item \x60F\x60, 1\.\.(\S+) \(`, []string{itemFlits}},
	{"rtl.md", `\x60RB <= (\S+)\x60; checked\)`, []string{"width of ranks below hw.MaxDataRanks"}},
	{"rtl.md", `more than (\S+) nodes \(\x60dims\x60`, []string{"verilog.MaxNodes"}},
	{"rtl.md", `\x60gates\x60 above (\S+), more than (\S+) routes into one gate`, []string{gates, need}},
	{"rtl.md", `route count or route list index above (\S+) \(\x60routes\x60\)`, []string{"hw.MaxRouteIndex"}},
	{"rtl.md", `more than (\S+) ranks \(\x60ranks\x60\) or items \(\x60items\x60\)`, []string{"hw.MaxDataRanks|hw.MaxItems"}},
	{"rtl.md", `\x60item_flits\x60 above (\S+),`, []string{itemFlits}},
	{"rtl.md", `more than (\S+(?: - \S+)?) item-list words`, []string{"regmap.MaxItemList"}},
	{"rtl.md", `\x60G <= (\S+)\x60 \(end gate fits (\S+) bits\), \x60need <= (\S+)\x60, routes per gate and route list index \x60< (\S+)\x60`,
		[]string{gates, "hw.GateBits", need, "hw.MaxRouteIndex+1"}},

	// config.md: the keys table, the text and the error examples.
	{"config.md", `or 1\.\.(\S+) characters from`, []string{"hw.MaxNameLen"}},
	{"config.md", `\| (\S+) to (\S+) sizes, each (\S+)\.\.(\S+),`, []string{"hw.MinDims", "hw.MaxDims", "hw.MinDimSize", "hw.MaxDimSize"}},
	{"config.md", `a fat tree's all equal and at most (\S+);`, []string{"noc.MaxFatTreeArity"}},
	{"config.md", `takes at most (\S+) \((\S+)\) nodes`, []string{"sim.MaxModelNodes", "sim.MaxModelNodes"}},
	{"config.md", `(\S+) \(2\^21\) nodes \(any topology\)`, []string{"noc.MaxFabricNodes"}},
	{"config.md", `\x60check\x60 at most (\S+) \(`, []string{"noc.MaxCheckNodes"}},
	{"config.md", `a hyper-crossbar of 1 to (\S+) dimensions and at most (\S+) nodes`, []string{"verilog.MaxDims", "verilog.MaxNodes"}},
	{"config.md", `at most (\S+) with \x60allgather\x60 or \x60broadcast\x60`, []string{"hw.MaxCollectiveRanks"}},
	{"config.md", `A data collective needs \x60op: barrier\x60 and at most (\S+) ranks`, []string{"hw.MaxCollectiveRanks"}},
	{"config.md", `\| \x60item_flits\x60 \|[^|]*\|[^|]*\| 1\.\.(\S+) \|`, []string{itemFlits}},
	{"config.md", `\| \x60skew\x60 \|[^|]*\|[^|]*\| 0\.\.(\S+) \((\S+)\) \|`, []string{"hw.MaxSkew", "hw.MaxSkew"}},
	{"config.md", `\| \x60link_latency\x60 \|[^|]*\|[^|]*\| 1\.\.(\S+) \|`, []string{"hw.MaxLinkLatency"}},
	{"config.md", `\| \x60buffer_depth\x60 \|[^|]*\|[^|]*\| 1\.\.(\S+) \|`, []string{"hw.MaxBufferDepth"}},
	{"config.md", `\| \x60flit_width\x60 \|[^|]*\|[^|]*\| (\S+)\.\.(\S+), and at least`, []string{"hw.MinFlitWidth", "hw.MaxFlitWidth"}},
	{"config.md", `\| \x60max_cycles\x60 \|[^|]*\|[^|]*\| 1\.\.(\S+) \((\S+)\) \|`, []string{"hw.MaxMaxCycles", "hw.MaxMaxCycles"}},
	{"config.md", `invalid dims\[1\]: (\S+) \(allowed: (\S+)\.\.(\S+)\)`, []string{"hw.MaxDimSize+1", "hw.MinDimSize", "hw.MaxDimSize"}},
	{"config.md", `a list of 1 to (\S+) integers, each (\S+)\.\.(\S+),`, []string{"hw.MaxDims", "hw.MinDimSize", "hw.MaxDimSize"}},
	{"config.md", `= (\S+) nodes \(allowed: at most (\S+) nodes for the cycle model`, []string{"hw.MaxDimSize^4", "sim.MaxModelNodes"}},
	{"config.md", `invalid link_latency: 0 \(allowed: 1\.\.(\S+)\)`, []string{"hw.MaxLinkLatency"}},
	{"config.md", `the cycle model's (\S+) nodes, \x60check\x60's (\S+),`, []string{"sim.MaxModelNodes", "noc.MaxCheckNodes"}},

	// transfers.md: ItemWord's fields and the data table.
	{"transfers.md", `\(o, i < (\S+); j <`, []string{"hw.MaxDataRanks|hw.MaxItems"}},
	{"transfers.md", `\| \x60F\x60, flits per item \(1\.\.(\S+)\) \|`, []string{itemFlits}},
	{"transfers.md", `Limits: ranks and items below (\S+), \x60F\x60 up to (\S+), at most (\S+(?: - \S+)?) item-list words`,
		[]string{"hw.MaxDataRanks|hw.MaxItems", itemFlits, "regmap.MaxItemList"}},
}

// docNumber reads a number as the docs write it: 4096, 4,096, 2^16,
// 2^24 - 1, 64^4, with backquotes or a trailing comma or period around it.
func docNumber(s string) (int64, bool) {
	s = strings.Trim(s, "\x60,.;:")
	s = strings.ReplaceAll(strings.ReplaceAll(s, ",", ""), " ", "")
	sub := int64(0)
	if base, minus, ok := strings.Cut(s, "-"); ok {
		n, ok := docNumber(minus)
		if !ok {
			return 0, false
		}
		s, sub = base, n
	}
	if b, e, ok := strings.Cut(s, "^"); ok {
		x, ok1 := new(big.Int).SetString(b, 10)
		y, ok2 := new(big.Int).SetString(e, 10)
		if !ok1 || !ok2 {
			return 0, false
		}
		v := new(big.Int).Exp(x, y, nil)
		if !v.IsInt64() {
			return 0, false
		}
		return v.Int64() - sub, true
	}
	v, ok := new(big.Int).SetString(s, 10)
	if !ok || !v.IsInt64() {
		return 0, false
	}
	return v.Int64() - sub, true
}

// constValue resolves a key of a statement: a key of limitConsts, or
// "bits(key)", the number of bits that hold the values 0..value.
func constValue(key string) (int64, bool) {
	if inner, ok := strings.CutPrefix(key, "bits("); ok {
		v, ok := limitConsts[strings.TrimSuffix(inner, ")")]
		return int64(bits.Len64(uint64(v))), ok
	}
	v, ok := limitConsts[key]
	return v, ok
}

// TestDocsStateTheLimits keeps the limit values stated in
// docs/microarchitecture.md, rtl.md, config.md and transfers.md equal to
// the Go constants that enforce them.
func TestDocsStateTheLimits(t *testing.T) {
	docs := map[string]string{}
	for _, st := range limitStatements {
		if _, ok := docs[st.doc]; ok {
			continue
		}
		b, err := os.ReadFile(filepath.Join("..", "docs", st.doc))
		if err != nil {
			t.Fatal(err)
		}
		docs[st.doc] = strings.Join(strings.Fields(string(b)), " ")
	}
	used := map[string]bool{}
	for _, st := range limitStatements {
		for _, keys := range st.consts {
			for key := range strings.SplitSeq(keys, "|") {
				used[strings.TrimSuffix(strings.TrimPrefix(key, "bits("), ")")] = true
			}
		}
	}
	for key := range limitConsts {
		if !used[key] {
			t.Errorf("limitConsts has %s, which no statement uses", key)
		}
	}
	for _, st := range limitStatements {
		re := regexp.MustCompile(st.re)
		if re.NumSubexp() != len(st.consts) {
			t.Fatalf("%s: %s has %d groups for %d constants", st.doc, st.re, re.NumSubexp(), len(st.consts))
		}
		found := re.FindAllStringSubmatch(docs[st.doc], -1)
		if len(found) == 0 {
			t.Errorf("docs/%s no longer has the statement %s: restate it or update limitStatements", st.doc, st.re)
			continue
		}
		for _, m := range found {
			for i, keys := range st.consts {
				got, ok := docNumber(m[i+1])
				if !ok {
					t.Errorf("docs/%s: %q: %q is not a number", st.doc, m[0], m[i+1])
					continue
				}
				for key := range strings.SplitSeq(keys, "|") {
					want, ok := constValue(key)
					if !ok {
						t.Fatalf("statement %s: no constant %s in limitConsts", st.re, key)
					}
					if got != want {
						t.Errorf("docs/%s says %d in %q, but %s = %d", st.doc, got, m[0], key, want)
					}
				}
			}
		}
	}
}
