// Package strictjson decodes the JSON files users hand to hxbar (gate and
// data schedules) strictly: exactly one object, no unknown keys, and errors
// that say which kind of file was wrong. It imports nothing of hxbar.
package strictjson

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// DecodeOne decodes exactly one JSON object from r into v, rejecting
// unknown keys and anything after the object. what names the document in
// errors: "invalid <what> JSON: ...".
func DecodeOne(r io.Reader, v any, what string) error {
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		if errors.Is(err, io.EOF) {
			return fmt.Errorf("invalid %s JSON: empty input", what)
		}
		return fmt.Errorf("invalid %s JSON: %w", what, err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return fmt.Errorf("invalid %s JSON: more data after the %s object", what, what)
	}
	return nil
}
