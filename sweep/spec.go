// Package sweep runs a design-space sweep: a spec (base system keys, keys
// to vary, fields to measure) expands into points, each a full hw.System;
// every point is validated before any runs; the points run on a pool of
// workers and their results are kept in a log keyed by a hash of the
// point's system, so that a re-run skips the points already done; the rows
// are written in point order whatever the number of workers (docs/sweeps.md).
package sweep

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"

	"github.com/hxbar/hxbar/hw"
	"github.com/hxbar/hxbar/internal/inputfile"
)

// SpecKeys are the keys of a sweep spec, in documentation order.
var SpecKeys = []string{"base", "vary", "zip", "measure"}

// Spec is a parsed sweep spec.
type Spec struct {
	File    string   // the spec's path ("" when parsed from bytes)
	Keys    []string // the varied system keys, in the order of vary: the row columns
	Measure []string // the measured fields, in the order of measure
	Points  []Point  // every point, in point order
}

// Point is one system of the sweep.
type Point struct {
	Index  int
	Values []json.RawMessage // the value of each varied key (Spec.Keys), as the spec wrote it (nodeJSON)
	Sys    hw.System
	Hash   string         // hex SHA-256 of the system's canonical JSON (Hash)
	lines  map[string]int // the spec's line of each key the point sets
}

// Locate turns an error found in the point's system after it was parsed
// (by Check: a system the model refuses) into a *SpecError naming the
// point and, when the error names a system key the spec sets, its line.
func (s *Spec) Locate(p *Point, err error) error {
	return &SpecError{File: s.File, Point: s.Label(p), Line: p.lines[hw.ErrorKey(err)], Err: err}
}

// Label names the point for messages: "point 7 (order=MOOM, item_flits=2)".
func (s *Spec) Label(p *Point) string {
	if len(s.Keys) == 0 {
		return fmt.Sprintf("point %d", p.Index)
	}
	parts := make([]string, len(s.Keys))
	for i, k := range s.Keys {
		parts[i] = k + "=" + labelValue(CSVValue(p.Values[i]))
	}
	return fmt.Sprintf("point %d (%s)", p.Index, strings.Join(parts, ", "))
}

// labelValue is a value for a point's label: as the spec wrote it, but
// quoted when it holds a control character (a newline would split the
// message) and cut after 40 characters.
func labelValue(v string) string {
	const most = 40
	r := []rune(v)
	cut := len(r) > most
	if cut {
		v = string(r[:most])
	}
	if strings.ContainsFunc(v, func(c rune) bool { return unicode.IsControl(c) || c == utf8.RuneError }) {
		v = strconv.Quote(v)
	}
	if cut {
		v += "..."
	}
	return v
}

// Hash is the key of a point in a sweep directory: the hex SHA-256 of the
// JSON encoding of the resolved system (encoding/json of hw.System: its
// fields in declaration order, so the same system always hashes the same).
func Hash(s *hw.System) string {
	data, err := json.Marshal(s)
	if err != nil { // a System always encodes
		panic(err)
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// SpecError is an error in a spec: the file, the line (0: none applies) and
// what is wrong. Errors in one point's system name the point's values.
type SpecError struct {
	File  string
	Line  int
	Point string // the point's label, when one point is at fault
	Err   error
}

func (e *SpecError) Error() string {
	var b strings.Builder
	if e.File != "" {
		b.WriteString(e.File + ": ")
	}
	if e.Point != "" {
		b.WriteString(e.Point + ": ")
	}
	if e.Line > 0 {
		fmt.Fprintf(&b, "line %d: ", e.Line)
	}
	b.WriteString(e.Err.Error())
	return b.String()
}

func (e *SpecError) Unwrap() error { return e.Err }

// Load reads and parses the spec at path (a regular file of at most 64 MiB).
func Load(path string) (*Spec, error) {
	data, err := inputfile.ReadInput(path)
	if err != nil {
		return nil, err
	}
	return Parse(data, path)
}

// Parse reads a spec; file names it in errors. Every point is resolved
// into a validated hw.System (the rules of a system file, docs/config.md):
// the first invalid point is an error naming the point's values, the key
// and its line.
func Parse(data []byte, file string) (*Spec, error) {
	p := &specParser{file: file, s: &Spec{File: file}}
	sec, err := p.sections(data)
	if err != nil {
		return nil, err
	}
	if err := p.parseBase(sec["base"]); err != nil {
		return nil, err
	}
	if err := p.parseVary(sec["vary"]); err != nil {
		return nil, err
	}
	if err := p.parseZip(sec["zip"]); err != nil {
		return nil, err
	}
	if err := p.parseMeasure(sec["measure"]); err != nil {
		return nil, err
	}
	axes, total, err := p.axes()
	if err != nil {
		return nil, err
	}
	if err := p.points(axes, total); err != nil {
		return nil, err
	}
	return p.s, nil
}

// specParser holds what Parse's steps share: the spec being built and
// the YAML nodes of its sections.
type specParser struct {
	file     string
	s        *Spec
	root     *yaml.Node     // the document's mapping
	base     []*yaml.Node   // base's key, value, key, value...
	lists    [][]*yaml.Node // each varied key's values
	keyNodes []*yaml.Node   // each varied key's node
	group    []int          // each varied key's zip group, -1: none
}

func (p *specParser) errAt(line int, format string, a ...any) error {
	return &SpecError{File: p.file, Line: line, Err: fmt.Errorf(format, a...)}
}

// sections decodes the one YAML document and returns its top-level keys'
// values, each key known and given once.
func (p *specParser) sections(data []byte) (map[string]*yaml.Node, error) {
	if err := hw.CheckYAMLBudget(data); err != nil {
		return nil, &SpecError{File: p.file, Err: err}
	}
	var doc yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := decodeSafe(dec, &doc); err != nil && !errors.Is(err, io.EOF) {
		return nil, &SpecError{File: p.file, Err: fmt.Errorf("YAML syntax: %s", strings.TrimPrefix(err.Error(), "yaml: "))}
	}
	var more yaml.Node
	if err := decodeSafe(dec, &more); err == nil {
		return nil, p.errAt(more.Line, "a second YAML document (a sweep spec holds exactly one)")
	}
	if len(doc.Content) == 0 {
		return nil, p.errAt(0, "empty spec (allowed keys: %s)", strings.Join(SpecKeys, ", "))
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		return nil, p.errAt(root.Line, "the spec must be a mapping of %s, not %s", strings.Join(SpecKeys, ", "), kindName(root))
	}
	p.root = root
	sec := map[string]*yaml.Node{}
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		if k.Kind != yaml.ScalarNode || !slices.Contains(SpecKeys, k.Value) {
			return nil, p.errAt(k.Line, "unknown key %q (allowed keys: %s%s)", k.Value, strings.Join(SpecKeys, ", "), didYouMean(k.Value, SpecKeys))
		}
		if _, dup := sec[k.Value]; dup {
			return nil, p.errAt(k.Line, "key %q given twice", k.Value)
		}
		sec[k.Value] = v
	}
	return sec, nil
}

// parseBase takes base: a mapping of system keys.
func (p *specParser) parseBase(b *yaml.Node) error {
	if b == nil || isNull(b) {
		return nil
	}
	if b.Kind != yaml.MappingNode {
		return p.errAt(b.Line, "base must be a mapping of system keys (docs/config.md), not %s", kindName(b))
	}
	p.base = b.Content
	for i := 0; i < len(p.base); i += 2 {
		if !slices.Contains(hw.Keys(), p.base[i].Value) {
			return p.errAt(p.base[i].Line, "base: unknown system key %q (allowed keys: %s%s)", p.base[i].Value, strings.Join(hw.Keys(), ", "), didYouMean(p.base[i].Value, hw.Keys()))
		}
	}
	return nil
}

// parseVary takes vary: system key -> non-empty list of values.
func (p *specParser) parseVary(v *yaml.Node) error {
	if v == nil || isNull(v) {
		return nil
	}
	if v.Kind != yaml.MappingNode {
		return p.errAt(v.Line, "vary must be a mapping of system keys to lists of values, not %s", kindName(v))
	}
	s := p.s
	for i := 0; i+1 < len(v.Content); i += 2 {
		k, l := v.Content[i], v.Content[i+1]
		if !slices.Contains(hw.Keys(), k.Value) {
			return p.errAt(k.Line, "vary: unknown system key %q (allowed keys: %s%s)", k.Value, strings.Join(hw.Keys(), ", "), didYouMean(k.Value, hw.Keys()))
		}
		if slices.Contains(s.Keys, k.Value) {
			return p.errAt(k.Line, "vary: key %q given twice", k.Value)
		}
		if l.Kind != yaml.SequenceNode || len(l.Content) == 0 {
			return p.errAt(l.Line, "vary: %s must be a non-empty list of values, not %s", k.Value, kindName(l))
		}
		s.Keys = append(s.Keys, k.Value)
		p.keyNodes = append(p.keyNodes, k)
		p.lists = append(p.lists, l.Content)
	}
	return nil
}

// parseZip takes zip: groups of varied keys whose lists go together.
func (p *specParser) parseZip(z *yaml.Node) error {
	s := p.s
	p.group = make([]int, len(s.Keys))
	for i := range p.group {
		p.group[i] = -1
	}
	if z == nil || isNull(z) {
		return nil
	}
	if z.Kind != yaml.SequenceNode {
		return p.errAt(z.Line, "zip must be a list of groups of varied keys, e.g. [[order, item_flits]], not %s", kindName(z))
	}
	for g, gn := range z.Content {
		if gn.Kind != yaml.SequenceNode || len(gn.Content) < 2 {
			return p.errAt(gn.Line, "zip[%d] must be a list of at least two varied keys, not %s", g, kindName(gn))
		}
		first := -1
		for _, kn := range gn.Content {
			i := slices.Index(s.Keys, kn.Value)
			switch {
			case kn.Kind != yaml.ScalarNode || i < 0:
				return p.errAt(kn.Line, "zip[%d]: %q is not a key of vary (allowed: %s)", g, kn.Value, strings.Join(s.Keys, ", "))
			case p.group[i] >= 0:
				return p.errAt(kn.Line, "zip[%d]: %s is already in zip[%d] (a key zips with one group)", g, kn.Value, p.group[i])
			}
			p.group[i] = g
			if first < 0 {
				first = i
			} else if len(p.lists[i]) != len(p.lists[first]) {
				return p.errAt(kn.Line, "zip[%d]: vary %s has %d values but %s has %d (keys zipped together need lists of the same length)",
					g, kn.Value, len(p.lists[i]), s.Keys[first], len(p.lists[first]))
			}
		}
	}
	return nil
}

// parseMeasure takes measure: fields of the result (all but the varied
// keys when absent).
func (p *specParser) parseMeasure(m *yaml.Node) error {
	s := p.s
	if m == nil || isNull(m) {
		s.Measure = slices.Clone(Fields())
		s.Measure = slices.DeleteFunc(s.Measure, func(f string) bool { return slices.Contains(s.Keys, f) })
		return nil
	}
	if m.Kind != yaml.SequenceNode || len(m.Content) == 0 {
		return p.errAt(m.Line, "measure must be a non-empty list of result fields (allowed: %s)", strings.Join(Fields(), ", "))
	}
	for _, f := range m.Content {
		switch {
		case f.Kind != yaml.ScalarNode || !slices.Contains(Fields(), f.Value):
			return p.errAt(f.Line, "measure: unknown field %q (allowed: %s%s)", f.Value, strings.Join(Fields(), ", "), didYouMean(f.Value, Fields()))
		case slices.Contains(s.Measure, f.Value):
			return p.errAt(f.Line, "measure: field %q given twice", f.Value)
		case slices.Contains(s.Keys, f.Value):
			return p.errAt(f.Line, "measure: %q is also a varied key (a column holds one of them)", f.Value)
		}
		s.Measure = append(s.Measure, f.Value)
	}
	// Every row says whether its run completed and how it ended: a
	// column of cycles must not hide a TIMEOUT.
	for _, f := range []string{"complete", "error"} {
		if !slices.Contains(s.Measure, f) && !slices.Contains(s.Keys, f) {
			s.Measure = append(s.Measure, f)
		}
	}
	return nil
}

// axes returns the sweep's axes (a key alone, or a zip group at the place
// of its first key; the first axis varies slowest, the last fastest) and
// the number of points, refused beyond MaxPoints or the log's size cap.
func (p *specParser) axes() ([][]int, int, error) {
	var axes [][]int // the keys of each axis
	seen := map[int]bool{}
	for i := range p.s.Keys {
		if p.group[i] < 0 {
			axes = append(axes, []int{i})
			continue
		}
		if seen[p.group[i]] {
			continue
		}
		seen[p.group[i]] = true
		var ax []int
		for j := range p.s.Keys {
			if p.group[j] == p.group[i] {
				ax = append(ax, j)
			}
		}
		axes = append(axes, ax)
	}
	total := 1
	for _, ax := range axes {
		total *= len(p.lists[ax[0]])
		if total > MaxPoints {
			return nil, 0, p.errAt(0, "more than %d points (allowed: at most %d; split the sweep)", MaxPoints, MaxPoints)
		}
	}
	// The log's records alone would outgrow what a sweep reads back: refuse
	// before the points are built (a million of them took 29 s and 1.8 GB
	// to reach CheckSize's refusal).
	if rec := recordBound(); int64(total)*rec > sizeLimit {
		from := sizeLimit / rec
		return nil, 0, p.errAt(0, "%d points: the sweep's %s would exceed %d MiB from point %d on (allowed: at most %d MiB, about %d points of this spec at %d bytes each: split the sweep into several specs)",
			total, LogName, sizeLimit>>20, from, sizeLimit>>20, from, rec)
	}
	return axes, total, nil
}

// points builds every point of the sweep, each a validated system and
// each a different one.
func (p *specParser) points(axes [][]int, total int) error {
	s := p.s
	values := make([][]json.RawMessage, len(s.Keys))
	expand := maxVariedValues
	for i, l := range p.lists {
		values[i] = make([]json.RawMessage, len(l))
		for j, n := range l {
			v, err := nodeJSON(n, 0, &expand)
			if err != nil {
				return p.errAt(n.Line, "vary: %s[%d]: %v", s.Keys[i], j, err)
			}
			values[i][j] = v
		}
	}
	idx := make([]int, len(s.Keys)) // the value index of each key
	// A point is known by its system's hash (the log, resume, collect):
	// two points of one system would run it twice under one key.
	pointOf := make(map[string]int, total)
	for n := range total {
		rest := n
		for a := len(axes) - 1; a >= 0; a-- {
			size := len(p.lists[axes[a][0]])
			for _, k := range axes[a] {
				idx[k] = rest % size
			}
			rest /= size
		}
		pt := Point{Index: n, Values: make([]json.RawMessage, len(s.Keys)), lines: map[string]int{}}
		for k := range s.Keys {
			pt.Values[k] = values[k][idx[k]]
		}
		sys, err := hw.ParseNode(p.pointNode(&pt, idx))
		if err != nil {
			se := &SpecError{File: p.file, Point: s.Label(&pt), Err: err}
			if pe, ok := errors.AsType[*hw.ParseError](err); ok {
				se.Line, se.Err = pe.Line, pe.Err
			}
			return se
		}
		pt.Sys = sys
		pt.Hash = Hash(&sys)
		if q, dup := pointOf[pt.Hash]; dup {
			return &SpecError{File: p.file, Point: s.Label(&pt), Line: pt.lines[s.Keys[len(s.Keys)-1]],
				Err: fmt.Errorf("vary: the same system as %s: each point must be a different system (a value given twice, or two spellings of one value)", s.Label(&s.Points[q]))}
		}
		pointOf[pt.Hash] = n
		s.Points = append(s.Points, pt)
	}
	return nil
}

// pointNode is the system mapping of one point: base's keys not varied,
// then each varied key with its value at idx; it records each key's line
// in pt.
func (p *specParser) pointNode(pt *Point, idx []int) *yaml.Node {
	m := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Line: p.root.Line}
	for i := 0; i < len(p.base); i += 2 {
		if !slices.Contains(p.s.Keys, p.base[i].Value) {
			m.Content = append(m.Content, p.base[i], p.base[i+1])
			pt.lines[p.base[i].Value] = p.base[i+1].Line
		}
	}
	for k := range p.s.Keys {
		m.Content = append(m.Content, p.keyNodes[k], p.lists[k][idx[k]])
		pt.lines[p.s.Keys[k]] = p.lists[k][idx[k]].Line
	}
	return m
}

// MaxPoints bounds the points of one spec.
const MaxPoints = 1_000_000

// decodeSafe decodes one document; a panic in the YAML library is an error.
func decodeSafe(dec *yaml.Decoder, n *yaml.Node) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("YAML parser failed: %v", r)
		}
	}()
	return dec.Decode(n)
}

func isNull(n *yaml.Node) bool { return n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null" }

func kindName(n *yaml.Node) string {
	switch {
	case n.Kind == yaml.SequenceNode && len(n.Content) == 0:
		return "an empty list"
	case n.Kind == yaml.SequenceNode && len(n.Content) == 1:
		return "a list of one"
	case n.Kind == yaml.SequenceNode:
		return "a list"
	case n.Kind == yaml.MappingNode:
		return "a mapping"
	case n.Kind == yaml.AliasNode:
		return "an alias"
	case isNull(n):
		return "null (no value)"
	}
	return quoteCut(n.Value)
}

// maxVariedValues bounds the values of all varied lists written out,
// aliases expanded (nodeJSON): far more than the 64 MiB log of a sweep
// holds (docs/sweeps.md), far less than a parse could build.
const maxVariedValues = 1 << 20

// nodeJSON is a varied value as the spec wrote it, as JSON: a plain
// scalar whose text is a JSON number, true, false or null is that literal;
// every other scalar (0x10, 2024-01-01, a quoted "16") is its text as a
// JSON string, never a value YAML derived from it; lists and mappings are
// built of the same. The CSV cell (CSVValue) is then the spec's text.
//
// left bounds the values written, aliases expanded: a 467-byte spec of
// nested aliases stands for 10^9 values (a "billion laughs").
func nodeJSON(n *yaml.Node, depth int, left *int) (json.RawMessage, error) {
	if depth > 64 {
		return nil, errors.New("nested too deeply (allowed: 64 levels)")
	}
	if *left--; *left < 0 {
		return nil, fmt.Errorf("too many values once aliases are expanded (allowed: at most %d in all varied values)", maxVariedValues)
	}
	switch n.Kind {
	case yaml.ScalarNode:
		if n.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle|yaml.LiteralStyle|yaml.FoldedStyle) == 0 && n.Tag != "!!str" && json.Valid([]byte(n.Value)) && jsonLiteral(n.Value) {
			return json.RawMessage(n.Value), nil
		}
		return jsonText(n.Value), nil
	case yaml.SequenceNode, yaml.MappingNode:
		var b bytes.Buffer
		open, close, step := byte('['), byte(']'), 1
		if n.Kind == yaml.MappingNode {
			open, close, step = '{', '}', 2
		}
		b.WriteByte(open)
		for i := 0; i+step-1 < len(n.Content); i += step {
			if i > 0 {
				b.WriteByte(',')
			}
			if step == 2 {
				b.Write(jsonText(n.Content[i].Value))
				b.WriteByte(':')
			}
			v, err := nodeJSON(n.Content[i+step-1], depth+1, left)
			if err != nil {
				return nil, err
			}
			b.Write(v)
		}
		b.WriteByte(close)
		return b.Bytes(), nil
	case yaml.AliasNode:
		return nodeJSON(n.Alias, depth+1, left)
	}
	return nil, fmt.Errorf("not a value (YAML kind %d)", n.Kind)
}

// jsonLiteral says whether text is a JSON number, true, false or null
// (not a string, list or object, which json.Valid also accepts).
func jsonLiteral(text string) bool {
	return text != "" && text[0] != '"' && text[0] != '[' && text[0] != '{'
}

// jsonText is the JSON encoding of a value of the spec.
func jsonText(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		return json.RawMessage(fmt.Sprintf("%q", fmt.Sprint(v)))
	}
	return b
}

// CSVValue is a JSON value as a CSV cell: a string without its quotes,
// null as an empty cell, anything else (numbers, booleans, lists) as its
// JSON text.
func CSVValue(raw json.RawMessage) string {
	switch {
	case len(raw) == 0 || string(raw) == "null":
		return ""
	case raw[0] == '"':
		var s string
		if json.Unmarshal(raw, &s) == nil {
			return s
		}
	}
	return string(raw)
}

// didYouMean is the hint for an unknown name, as a system file gives one
// ("; did you mean \"faults\"?"), or "" when no name is near.
func didYouMean(typed string, known []string) string {
	if best := hw.Closest(typed, known); best != "" {
		return fmt.Sprintf("; did you mean %q?", best)
	}
	return ""
}
