package barrierunit

import (
	"encoding/json"
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
	s.normalize()
	return &s, nil
}

// normalize makes a schedule without routes hold an empty list, not nil, so
// that it writes "routes": [] (a null is refused when read back).
func (s *Schedule) normalize() {
	if s.Routes == nil {
		s.Routes = []Route{}
	}
}

// MarshalJSON writes the schedule with "routes": [] when it has none.
func (s Schedule) MarshalJSON() ([]byte, error) {
	type plain Schedule
	p := plain(s)
	if p.Routes == nil {
		p.Routes = []Route{}
	}
	return json.Marshal(p)
}
