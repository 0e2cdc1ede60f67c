package barrierunit

import (
	"io"

	"github.com/hxbar/hxbar/internal/strictjson"
)

// ReadSchedule decodes one schedule in the JSON of `hxbar schedule --format
// json` (the keys of Schedule and Route; unknown keys are errors) and
// returns it only if it passes Check.
func ReadSchedule(r io.Reader) (*Schedule, error) {
	var s Schedule
	if err := strictjson.DecodeOne(r, &s, "gate schedule"); err != nil {
		return nil, err
	}
	if err := s.Check(); err != nil {
		return nil, err
	}
	return &s, nil
}
