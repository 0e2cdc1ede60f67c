// Package strictjson decodes the JSON files users hand to hxbar (gate and
// data schedules) strictly: exactly one object, no unknown keys, no key
// given twice at any depth (encoding/json would keep the last), no null (it
// would read as zero), and errors that say which kind of file was wrong and
// where. It imports nothing of hxbar.
package strictjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"
)

// DecodeOne decodes exactly one JSON object from r into v, rejecting
// unknown keys, duplicate keys, nulls and anything after the object. what
// names the document in errors: "invalid <what> JSON: ...".
func DecodeOne(r io.Reader, v any, what string) error {
	data, err := io.ReadAll(r)
	if err != nil {
		return invalid(what, err)
	}
	return Unmarshal(data, v, what)
}

// Unmarshal is DecodeOne on a document in memory.
func Unmarshal(data []byte, v any, what string) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		if errors.Is(err, io.EOF) {
			return fmt.Errorf("invalid %s JSON: empty input", what)
		}
		return invalid(what, err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return fmt.Errorf("invalid %s JSON: more data after the %s object", what, what)
	}
	return Check(data, what)
}

// Check refuses, in a well-formed JSON document, a key given twice in one
// object at any depth and any null, naming the first with its path (e.g.
// `invalid gate schedule JSON: routes[3].to_rank: null is not allowed`). It
// is for documents decoded loosely first (a wrapper whose parts are decoded
// on their own). Nesting is bounded by encoding/json's own depth limit when
// the document was decoded first; Check itself refuses a syntax error.
func Check(data []byte, what string) error { return check(data, what, false) }

// CheckKeys is Check for duplicate keys only, null allowed: for a wrapper
// whose part that is input is held to Check on its own (the verifier's
// report beside a schedule says null where it names nothing).
func CheckKeys(data []byte, what string) error { return check(data, what, true) }

func check(data []byte, what string, nulls bool) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := scan(dec, "", nulls); err != nil {
		if errors.Is(err, io.EOF) {
			err = errors.New("unexpected end of input")
		}
		return invalid(what, err)
	}
	return nil
}

// maxDetail bounds the part of a message that quotes the document (an
// unknown key, a duplicate key's path): a hostile file cannot make a
// huge message.
const maxDetail = 300

// detailError is err under a one-line message of bounded length.
type detailError struct {
	msg string
	err error
}

func (e *detailError) Error() string { return e.msg }
func (e *detailError) Unwrap() error { return e.err }

// invalid is "invalid <what> JSON: <err>", err's text cut at maxDetail
// bytes (on a character boundary).
func invalid(what string, err error) error {
	d := err.Error()
	if len(d) > maxDetail {
		i := maxDetail
		for i > 0 && !utf8.RuneStart(d[i]) {
			i--
		}
		d = d[:i] + fmt.Sprintf("... (%d more bytes)", len(d)-i)
	}
	return &detailError{msg: fmt.Sprintf("invalid %s JSON: %s", what, d), err: err}
}

// scan walks one value, returning the first duplicate key or null with its
// path (e.g. routes[3].to_rank; the top level is the empty path).
func scan(dec *json.Decoder, path string, nulls bool) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	switch tok {
	case nil:
		if nulls {
			return nil
		}
		if path == "" {
			return errors.New("null is not allowed")
		}
		return fmt.Errorf("%s: null is not allowed", path)
	case json.Delim('{'):
		seen := map[string]bool{}
		for dec.More() {
			kt, err := dec.Token()
			if err != nil {
				return err
			}
			k := kt.(string)
			kp := k
			if path != "" {
				kp = path + "." + k
			}
			// encoding/json matches keys case-insensitively, so "ranks"
			// and "RANKS" are the same field: the second would win.
			fold := strings.ToLower(k)
			if seen[fold] {
				if path == "" {
					return fmt.Errorf("duplicate key %s", strconv.Quote(k))
				}
				return fmt.Errorf("%s: duplicate key %s", path, strconv.Quote(k))
			}
			seen[fold] = true
			if err := scan(dec, kp, nulls); err != nil {
				return err
			}
		}
		_, err = dec.Token() // '}'
		return err
	case json.Delim('['):
		for i := 0; dec.More(); i++ {
			if err := scan(dec, path+"["+strconv.Itoa(i)+"]", nulls); err != nil {
				return err
			}
		}
		_, err = dec.Token() // ']'
		return err
	}
	return nil
}
