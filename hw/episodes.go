package hw

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// A run is a list of episodes run back to back on the same network
// (docs/microarchitecture.md, "Episodes"). Without an episodes list the run
// is the system's collective Repeat times; with one, it is the list, Repeat
// times over.

// MaxEpisodes bounds repeat, and the episodes of a run in total (repeat
// times the length of the episodes list).
const MaxEpisodes = 10000

// EpisodeKeys are the keys an entry of episodes may set: what the barrier
// units run and how the ranks arrive. The network, the ranks and their
// placement, the seed and max_cycles belong to the whole run.
var EpisodeKeys = []string{"collective", "op", "algo", "items", "item_flits", "order", "item_placement", "skew"}

// Episode is one entry of a system's episodes list: the keys it sets
// override the system's for that episode (nil: the system's value). Each
// entry overrides the system itself, not the entry before it.
type Episode struct {
	Collective *Collective `yaml:"collective,omitempty" json:"collective,omitempty"`
	Op         *OpName     `yaml:"op,omitempty" json:"op,omitempty"`
	Algo       *Algorithm  `yaml:"algo,omitempty" json:"algo,omitempty"`
	Items      *int        `yaml:"items,omitempty" json:"items,omitempty"`
	ItemFlits  *int        `yaml:"item_flits,omitempty" json:"item_flits,omitempty"`
	Order      *string     `yaml:"order,omitempty" json:"order,omitempty"`
	ItemPlace  *[]int      `yaml:"item_placement,omitempty" json:"item_placement,omitempty"`
	Skew       *int        `yaml:"skew,omitempty" json:"skew,omitempty"`
}

// RepeatCount is Repeat, with 0 (a System literal that does not set it)
// read as 1.
func (s *System) RepeatCount() int { return max(s.Repeat, 1) }

// NumEpisodes is the number of episodes of a run: Repeat, times the length
// of Episodes when there is a list.
func (s *System) NumEpisodes() int {
	if len(s.Episodes) == 0 {
		return s.RepeatCount()
	}
	return s.RepeatCount() * len(s.Episodes)
}

// MultiEpisode reports whether the run has more than one episode, or an
// episodes list at all.
func (s *System) MultiEpisode() bool { return s.NumEpisodes() > 1 || len(s.Episodes) > 0 }

// EpisodeSystem returns the system of episode k (1-based, 1..NumEpisodes):
// s with the overrides of its episodes entry applied (entry (k-1) mod the
// list's length), Repeat 1 and no Episodes. It is not validated.
func (s *System) EpisodeSystem(k int) System {
	e := *s
	e.Repeat, e.Episodes = 1, nil
	e.Dims = slices.Clone(s.Dims)
	e.Placement = slices.Clone(s.Placement)
	e.ItemPlace = slices.Clone(s.ItemPlace)
	if len(s.Episodes) == 0 {
		return e
	}
	ep := &s.Episodes[(k-1)%len(s.Episodes)]
	if ep.Collective != nil {
		e.Collective = *ep.Collective
	}
	if ep.Op != nil {
		e.Op = *ep.Op
	}
	if ep.Algo != nil {
		e.Algo = *ep.Algo
	}
	if ep.Items != nil {
		e.Items = *ep.Items
	}
	if ep.ItemFlits != nil {
		e.ItemFlits = *ep.ItemFlits
	}
	if ep.Order != nil {
		e.Order = *ep.Order
	}
	if ep.ItemPlace != nil {
		e.ItemPlace = slices.Clone(*ep.ItemPlace)
		if len(e.ItemPlace) == 0 {
			e.ItemPlace = nil
		}
	}
	if ep.Skew != nil {
		e.Skew = *ep.Skew
	}
	return e
}

// EpisodeArrivals draws the arrival offsets and operands of episode k
// (1-based) from Seed: PCG(Seed, 0x9e3779b97f4a7c15 XOR (k-1)), per rank an
// offset in [0, Skew] then a 64-bit operand, with the Skew of episode k. For
// k = 1 this is exactly Arrivals. The offsets count from the episode's
// start (cycle 0 for episode 1; docs/microarchitecture.md, "Episodes").
func (s *System) EpisodeArrivals(k int) []Arrival {
	e := s.EpisodeSystem(k)
	return arrivals(e.Seed, uint64(k-1), e.Skew, e.NumRanks())
}

func arrivals(seed, episode uint64, skew, ranks int) []Arrival {
	rng := rand.New(rand.NewPCG(seed, arrivalStream^episode))
	out := make([]Arrival, ranks)
	for r := range out {
		out[r].Cycle = int64(rng.IntN(skew + 1))
		out[r].Operand = rng.Uint64()
	}
	return out
}

// arrivalStream is the PCG stream of episode 1's arrivals.
const arrivalStream = 0x9e3779b97f4a7c15

// validateEpisodes checks repeat and every episode's system; an error in an
// episode names the entry (episodes[i].key) and the episode.
func (s *System) validateEpisodes() error {
	if s.Repeat != 0 { // 0: a System literal that does not set it, read as 1
		if err := inRange("repeat", s.Repeat, 1, MaxEpisodes); err != nil {
			return err
		}
	}
	if len(s.Episodes) == 0 {
		return nil
	}
	if n := s.RepeatCount() * len(s.Episodes); n > MaxEpisodes {
		return &FieldError{Field: "episodes", Value: fmt.Sprintf("%d entries x repeat %d = %d episodes", len(s.Episodes), s.RepeatCount(), n),
			Allowed: fmt.Sprintf("at most %d episodes in a run", MaxEpisodes)}
	}
	for i := range s.Episodes {
		e := s.EpisodeSystem(i + 1)
		if err := e.Validate(); err != nil {
			return episodeError(i, err)
		}
	}
	return nil
}

// episodeError renames a field error of episode entry i's system to
// episodes[i].field, and says which episode it is.
func episodeError(i int, err error) error {
	fe, ok := err.(*FieldError)
	if !ok {
		return fmt.Errorf("episodes[%d] (episode %d): %w", i, i+1, err)
	}
	g := *fe
	g.Field = fmt.Sprintf("episodes[%d].%s", i, fe.Field)
	g.Allowed += fmt.Sprintf(", in episode %d", i+1)
	return &g
}

// EpisodeFieldError wraps an error found in episode k's system (for
// instance by the model when it builds that episode's schedule) so that it
// names the episode: a *FieldError's field becomes episodes[i].field when
// the system has an episodes list, else the message says "episode k".
func (s *System) EpisodeFieldError(k int, err error) error {
	if len(s.Episodes) > 0 {
		if _, ok := err.(*FieldError); ok {
			return episodeError((k-1)%len(s.Episodes), err)
		}
		return fmt.Errorf("episode %d (episodes[%d]): %w", k, (k-1)%len(s.Episodes), err)
	}
	return fmt.Errorf("episode %d: %w", k, err)
}

var episodesAllowed = "a list of mappings, each setting some of " + strings.Join(EpisodeKeys, ", ")

// decodeEpisodes reads the episodes list: a sequence of mappings whose keys
// are EpisodeKeys, each at most once and with a value.
func decodeEpisodes(n *yaml.Node) ([]Episode, error) {
	r := resolve(n)
	if r == nil || r.Kind != yaml.SequenceNode {
		return nil, typeError(n, "episodes", episodesAllowed)
	}
	out := make([]Episode, len(r.Content))
	for i, en := range r.Content {
		m := resolve(en)
		field := fmt.Sprintf("episodes[%d]", i)
		if m == nil || m.Kind != yaml.MappingNode {
			return nil, typeError(en, field, "a mapping of some of "+strings.Join(EpisodeKeys, ", ")+", e.g. {collective: barrier, op: sum}")
		}
		seen := map[string]int{}
		ep := &out[i]
		for j := 0; j+1 < len(m.Content); j += 2 {
			kn, vn := m.Content[j], m.Content[j+1]
			k := resolve(kn)
			if k == nil || k.Kind != yaml.ScalarNode {
				return nil, &ParseError{Line: kn.Line, Err: fmt.Errorf("%s (episode %d): a key must be a plain name, not %s (allowed keys: %s)", field, i+1, show(kn), strings.Join(EpisodeKeys, ", "))}
			}
			if !slices.Contains(EpisodeKeys, k.Value) {
				msg := fmt.Sprintf("%s (episode %d): unknown key %s (allowed keys: %s)", field, i+1, showString(k.Value), strings.Join(EpisodeKeys, ", "))
				if specOf(k.Value) != nil {
					msg = fmt.Sprintf("%s (episode %d): key %s cannot change between episodes, it belongs to the whole run (allowed keys: %s)", field, i+1, showString(k.Value), strings.Join(EpisodeKeys, ", "))
				}
				return nil, &ParseError{Line: kn.Line, Err: errors.New(msg)}
			}
			if l, dup := seen[k.Value]; dup {
				return nil, &ParseError{Line: kn.Line, Err: fmt.Errorf("%s (episode %d): key %q given twice (first on line %d)", field, i+1, k.Value, l)}
			}
			seen[k.Value] = kn.Line
			// Decode with the system key's own decoder into a scratch
			// system, then keep the field as this episode's override.
			var s System
			if err := specOf(k.Value).decode(&s, vn); err != nil {
				if pe, ok := err.(*ParseError); ok {
					if fe, ok := pe.Err.(*FieldError); ok {
						g := *fe
						g.Field = field + "." + fe.Field
						pe.Err = &g
					}
				}
				return nil, err
			}
			switch k.Value {
			case "collective":
				ep.Collective = &s.Collective
			case "op":
				ep.Op = &s.Op
			case "algo":
				ep.Algo = &s.Algo
			case "items":
				ep.Items = &s.Items
			case "item_flits":
				ep.ItemFlits = &s.ItemFlits
			case "order":
				ep.Order = &s.Order
			case "item_placement":
				p := s.ItemPlace
				if p == nil {
					p = []int{}
				}
				ep.ItemPlace = &p
			case "skew":
				ep.Skew = &s.Skew
			}
		}
	}
	return out, nil
}

// writeEpisodes writes the episodes list in flow style, one entry a line.
func writeEpisodes(s *System) string {
	if len(s.Episodes) == 0 {
		return "[]"
	}
	var b strings.Builder
	for _, ep := range s.Episodes {
		b.WriteString("\n  - {")
		var parts []string
		if ep.Collective != nil {
			parts = append(parts, "collective: "+string(*ep.Collective))
		}
		if ep.Op != nil {
			parts = append(parts, "op: "+string(*ep.Op))
		}
		if ep.Algo != nil {
			parts = append(parts, "algo: "+string(*ep.Algo))
		}
		if ep.Items != nil {
			parts = append(parts, "items: "+strconv.Itoa(*ep.Items))
		}
		if ep.ItemFlits != nil {
			parts = append(parts, "item_flits: "+strconv.Itoa(*ep.ItemFlits))
		}
		if ep.Order != nil {
			parts = append(parts, "order: "+strconv.Quote(*ep.Order))
		}
		if ep.ItemPlace != nil {
			parts = append(parts, "item_placement: "+writeInts(*ep.ItemPlace, "      "))
		}
		if ep.Skew != nil {
			parts = append(parts, "skew: "+strconv.Itoa(*ep.Skew))
		}
		b.WriteString(strings.Join(parts, ", "))
		b.WriteString("}")
	}
	return b.String()
}

// episodeLine finds, for an error naming episodes[i].key, the line of that
// key in the file's episodes list (0 when it is not there).
func episodeLine(n *yaml.Node, field string) int { return entryLine(n, "episodes", field) }

// entryLine is the line of field list[i].key (or of entry i) in the list
// n of mappings (episodes, communicators); 0 when it is not there.
func entryLine(n *yaml.Node, list, field string) int {
	rest, ok := strings.CutPrefix(field, list+"[")
	if !ok {
		return 0
	}
	idxS, key, _ := strings.Cut(rest, "].")
	i, err := strconv.Atoi(idxS)
	r := resolve(n)
	if err != nil || r == nil || r.Kind != yaml.SequenceNode || i < 0 || i >= len(r.Content) {
		return 0
	}
	en := r.Content[i]
	m := resolve(en)
	line := en.Line
	if m == nil || m.Kind != yaml.MappingNode {
		return line
	}
	key, _ = splitField(key)
	for j := 0; j+1 < len(m.Content); j += 2 {
		if k := resolve(m.Content[j]); k != nil && k.Value == key {
			return m.Content[j+1].Line
		}
	}
	return line
}
