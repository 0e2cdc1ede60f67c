package barrierunit

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// ReadSchedule decodes one schedule in the JSON of `hxbar schedule --format
// json` (the keys of Schedule and Route; unknown keys are errors) and
// returns it only if it passes Check.
func ReadSchedule(r io.Reader) (*Schedule, error) {
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	var s Schedule
	if err := dec.Decode(&s); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, errors.New("invalid schedule JSON: empty input")
		}
		return nil, fmt.Errorf("invalid schedule JSON: %w", err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("invalid schedule JSON: more data after the schedule object")
	}
	if err := s.Check(); err != nil {
		return nil, err
	}
	return &s, nil
}
