package verilog

import (
	"bytes"
	"fmt"
	"github.com/hxbar/hxbar/internal/inputfile"
	"github.com/hxbar/hxbar/internal/outfile"
	"math"
	"math/bits"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// Table magics (docs/tables.md): the four ASCII characters in bits 63..32 of
// a table file's header word.
const (
	MagicRoute = "HXRT" // routing table of a switch
	MagicGate  = "HXGT" // gate table of a barrier unit
	// MagicExcept is the magic of a switch's routing exception table
	// (rx_s<switch>.hex, written only for avoided channels).
	MagicExcept = "HXRX"
)

// TableError reports a table file that cannot be read or is malformed. Line
// is the 1-based line of the offending word, 0 when the problem concerns the
// file as a whole.
type TableError struct {
	File    string
	Line    int
	Problem string
}

func (e *TableError) Error() string {
	var b strings.Builder
	if e.File != "" {
		b.WriteString(e.File)
		b.WriteString(": ")
	}
	if e.Line > 0 {
		fmt.Fprintf(&b, "line %d: ", e.Line)
	}
	b.WriteString(e.Problem)
	return b.String()
}

// Checksum is the table checksum of docs/tables.md: a rotate-left-by-one and
// xor over the body words in file order.
func Checksum(body []uint64) uint64 {
	var c uint64
	for _, w := range body {
		c = bits.RotateLeft64(c, 1) ^ w
	}
	return c
}

// HeaderWord packs a magic and a body word count into a table's word 0.
func HeaderWord(magic string, count int) (uint64, error) {
	if err := checkMagic(magic); err != nil {
		return 0, err
	}
	if count < 0 || count > math.MaxUint32 {
		return 0, fmt.Errorf("table body of %d words (allowed: 0..%d)", count, uint64(math.MaxUint32))
	}
	m := uint64(magic[0])<<24 | uint64(magic[1])<<16 | uint64(magic[2])<<8 | uint64(magic[3])
	return m<<32 | uint64(count), nil
}

func checkMagic(magic string) error {
	if len(magic) != 4 {
		return fmt.Errorf("table magic %q (allowed: 4 ASCII characters, e.g. %s or %s)", magic, MagicRoute, MagicGate)
	}
	for i := 0; i < 4; i++ {
		if magic[i] < 0x20 || magic[i] > 0x7e {
			return fmt.Errorf("table magic %q (allowed: 4 printable ASCII characters, e.g. %s or %s)", magic, MagicRoute, MagicGate)
		}
	}
	return nil
}

// magicOf returns the 4 characters in bits 63..32 of a header word, with
// non-printable bytes escaped.
func magicOf(w uint64) string {
	b := []byte{byte(w >> 56), byte(w >> 48), byte(w >> 40), byte(w >> 32)}
	for _, c := range b {
		if c < 0x20 || c > 0x7e {
			return fmt.Sprintf("%08x", uint32(w>>32))
		}
	}
	return string(b)
}

// FormatTable returns the text of a table file: each title line as a "//"
// comment, the header word (magic, body word count), the checksum and the
// body, one 16-digit lower-case hex word a line. notes[i], when present and
// not empty, is the comment of body[i] (after "body[i]: "). The result reads
// back with ParseTable to the same magic and body.
func FormatTable(magic string, body []uint64, title []string, notes []string) ([]byte, error) {
	hdr, err := HeaderWord(magic, len(body))
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	b.Grow(64 * (len(body) + 2 + len(title)))
	for _, t := range title {
		for _, line := range strings.Split(t, "\n") {
			b.WriteString("//")
			if line != "" {
				b.WriteByte(' ')
				b.WriteString(line)
			}
			b.WriteByte('\n')
		}
	}
	word := func(w uint64, comment string) {
		var d [16]byte
		s := strconv.AppendUint(d[:0], w, 16)
		for i := len(s); i < 16; i++ {
			b.WriteByte('0')
		}
		b.Write(s)
		b.WriteString(" // ")
		b.WriteString(comment)
		b.WriteByte('\n')
	}
	word(hdr, fmt.Sprintf("header: magic %s, %d body %s", magic, len(body), plural(len(body), "word", "words")))
	word(Checksum(body), "checksum")
	for i, w := range body {
		c := "body[" + strconv.Itoa(i) + "]"
		if i < len(notes) && notes[i] != "" {
			c += ": " + strings.ReplaceAll(notes[i], "\n", " ")
		}
		word(w, c)
	}
	return b.Bytes(), nil
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// tword is one word of a table file and where its text is.
type tword struct {
	v    uint64
	line int // 1-based
	off  int // byte offset of its 16 hex digits
}

// scanWords tokenizes a $readmemh file of 64-bit words as docs/tables.md
// allows it: "//" comments to the end of a line, "/* */" comments, and words
// of exactly 16 hex digits separated by white space.
func scanWords(data []byte) ([]tword, *TableError) {
	var out []tword
	line := 1
	for i := 0; i < len(data); {
		c := data[i]
		switch {
		case c == '\n':
			line++
			i++
		case c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v':
			i++
		case c == '/' && i+1 < len(data) && data[i+1] == '/':
			for i < len(data) && data[i] != '\n' {
				i++
			}
		case c == '/' && i+1 < len(data) && data[i+1] == '*':
			start := line
			j := bytes.Index(data[i+2:], []byte("*/"))
			if j < 0 {
				return nil, &TableError{Line: start, Problem: "unterminated /* comment"}
			}
			line += bytes.Count(data[i:i+2+j+2], []byte("\n"))
			i += 2 + j + 2
		default:
			j := i
			for j < len(data) && !isSpace(data[j]) && !(data[j] == '/' && j+1 < len(data) && (data[j+1] == '/' || data[j+1] == '*')) {
				j++
			}
			tok := string(data[i:j])
			if len(tok) != 16 {
				return nil, &TableError{Line: line, Problem: fmt.Sprintf("word %q is not 16 hex digits", clip(tok))}
			}
			v, err := strconv.ParseUint(tok, 16, 64)
			if err != nil {
				return nil, &TableError{Line: line, Problem: fmt.Sprintf("word %q is not 16 hex digits", clip(tok))}
			}
			out = append(out, tword{v: v, line: line, off: i})
			i = j
		}
	}
	return out, nil
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v'
}

func clip(s string) string {
	if len(s) > 24 {
		return s[:24] + "..."
	}
	return s
}

// ParseTable reads the text of a table file and checks it as the RTL does:
// a header word with a known magic (HXRT, HXGT, HXDT or HXRX) and a count equal to the
// number of body words in the file, and the checksum. It does not check the
// fields of the body (see DecodeGateTable, DecodeRouteTable and
// DecodeDataTable).
func ParseTable(data []byte) (magic string, body []uint64, err error) {
	words, terr := scanWords(data)
	if terr != nil {
		return "", nil, terr
	}
	if len(words) < 2 {
		return "", nil, shortTable(len(words))
	}
	h := words[0].v
	magic = magicOf(h)
	if magic != MagicRoute && magic != MagicGate && magic != MagicData && magic != MagicExcept {
		return "", nil, &TableError{Line: words[0].line, Problem: fmt.Sprintf("bad magic %q (allowed: %s, %s, %s, %s)", magic, MagicRoute, MagicGate, MagicData, MagicExcept)}
	}
	if terr := checkLength(words); terr != nil {
		return "", nil, terr
	}
	body = make([]uint64, uint32(h))
	for i := range body {
		body[i] = words[i+2].v
	}
	if c := Checksum(body); c != words[1].v {
		return "", nil, &TableError{Line: words[1].line, Problem: fmt.Sprintf("checksum %016x does not match the body (computed %016x)", words[1].v, c)}
	}
	return magic, body, nil
}

func shortTable(n int) *TableError {
	return &TableError{Problem: fmt.Sprintf("%d %s, a table needs at least a header and a checksum", n, plural(n, "word", "words"))}
}

// checkLength checks the word count rule of docs/tables.md: a table file
// holds exactly count + 2 words, count being the low 32 bits of its first
// word (the header), whatever its magic. The message has the RTL's words
// ("more words than count + 2" / "fewer words than count + 2"); the first
// extra word is reported at its line.
func checkLength(words []tword) *TableError {
	if len(words) < 2 {
		return shortTable(len(words))
	}
	count := uint64(uint32(words[0].v))
	n := uint64(len(words))
	switch {
	case n > count+2:
		extra := n - count - 2
		return &TableError{Line: words[count+2].line, Problem: fmt.Sprintf("%d words, more words than count + 2 = %d (header count %d): %d %s too many from here",
			n, count+2, count, extra, plural(int(extra), "word", "words"))}
	case n < count+2:
		return &TableError{Problem: fmt.Sprintf("%d words, fewer words than count + 2 = %d (header count %d): file too short",
			n, count+2, count)}
	}
	return nil
}

// CheckTableLength checks that the text of a table file is made of 64-bit
// words as docs/tables.md writes them (16 hex digits, comments) and holds
// exactly count + 2 words, count being the header's count field. It checks
// nothing else (not the magic, the checksum or the fields: see ParseTable);
// it is the check co-simulation makes before a simulator reads the file,
// since $readmemh only warns about (Icarus) or aborts on (Verilator) an
// over-long file and leaves a short file's missing words unset.
func CheckTableLength(data []byte) error {
	words, terr := scanWords(data)
	if terr != nil {
		return terr
	}
	if terr := checkLength(words); terr != nil {
		return terr
	}
	return nil
}

// TableFilePatterns are the names of the table files of a generated
// directory: gate, routing, data and routing exception tables
// (docs/tables.md, "File names").
var TableFilePatterns = []string{"gt_n*.hex", "rt_s*.hex", "dt_n*.hex", "rx_s*.hex"}

// CheckTableFiles runs CheckTableLength on every table file in dir (the
// names of TableFilePatterns) and returns the first refusal, a *TableError
// naming the file, or nil. A missing table is not its business: the RTL
// names the file it cannot open.
func CheckTableFiles(dir string) error {
	var first error
	bad := 0
	for _, pat := range TableFilePatterns {
		names, err := filepath.Glob(filepath.Join(dir, pat))
		if err != nil {
			return err
		}
		slices.SortFunc(names, func(a, b string) int { return cmpNatural(filepath.Base(a), filepath.Base(b)) })
		for _, path := range names {
			data, err := inputfile.Read(path)
			if err == nil {
				err = CheckTableLength(data)
			}
			if err == nil {
				continue
			}
			if te, ok := err.(*TableError); ok {
				te.File = path
			} else {
				err = &TableError{File: path, Problem: err.Error()}
			}
			if bad++; first == nil {
				first = err
			}
		}
	}
	if bad > 1 {
		te := first.(*TableError)
		te.Problem += fmt.Sprintf(" (and %d more %s refused)", bad-1, plural(bad-1, "table", "tables"))
	}
	return first
}

// cmpNatural orders names like gt_n2.hex before gt_n10.hex: by length of
// the name first, then by text (the names of one pattern differ only in
// their number).
func cmpNatural(a, b string) int {
	if len(a) != len(b) {
		return len(a) - len(b)
	}
	return strings.Compare(a, b)
}

// ReadTable reads and checks the table file at path (see ParseTable). Errors
// are *TableError values naming the file.
func ReadTable(path string) (magic string, body []uint64, err error) {
	data, err := inputfile.Read(path)
	if err != nil {
		return "", nil, &TableError{File: path, Problem: err.Error()}
	}
	magic, body, err = ParseTable(data)
	if te, ok := err.(*TableError); ok {
		te.File = path
	}
	return magic, body, err
}

// WriteTable writes a valid table file (header, checksum, body) to path,
// with the title lines as comments.
func WriteTable(path, magic string, body []uint64, title ...string) error {
	data, err := FormatTable(magic, body, title, nil)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return outfile.WriteFile(path, data, 0o644)
}

// RewriteTable edits the body of the table file at path in place and writes
// the matching checksum, keeping the header word, the comments and the
// layout of the file. The result is a well-formed table with different
// content (a semantic mutation the RTL's checks cannot see). The file must
// hold a header and a checksum; the body is every word after them, whatever
// the header's count says.
func RewriteTable(path string, edit func(body []uint64)) error {
	return rewrite(path, func(words []uint64) {
		edit(words[2:])
		words[1] = Checksum(words[2:])
	})
}

// RewriteTableWords edits every word of the table file at path in place,
// header (words[0]) and checksum (words[1]) included, and recomputes nothing:
// the way to make a file with a stale checksum, a wrong count or a bad magic.
// Comments and layout are kept.
func RewriteTableWords(path string, edit func(words []uint64)) error {
	return rewrite(path, edit)
}

func rewrite(path string, edit func(words []uint64)) error {
	data, err := inputfile.Read(path)
	if err != nil {
		return &TableError{File: path, Problem: err.Error()}
	}
	words, terr := scanWords(data)
	if terr != nil {
		terr.File = path
		return terr
	}
	if len(words) < 2 {
		return &TableError{File: path, Problem: "no header and checksum words to rewrite"}
	}
	v := make([]uint64, len(words))
	for i, w := range words {
		v[i] = w.v
	}
	edit(v)
	for i, w := range words {
		var d [16]byte
		s := strconv.AppendUint(d[:0], v[i], 16)
		hex := strings.Repeat("0", 16-len(s)) + string(s)
		copy(data[w.off:w.off+16], hex)
	}
	return outfile.WriteFile(path, data, 0o644)
}
