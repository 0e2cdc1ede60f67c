// Package budget is hxbar's memory budget: a run estimates what it will
// allocate before it allocates it and is refused, with the estimate and
// the limit, when that is over the budget, instead of dying out of memory
// halfway (docs/safety.md, "Budget").
package budget

import (
	"bufio"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// Bytes is a memory size; its flag form takes a unit suffix.
type Bytes int64

var units = []struct {
	suffix string
	mult   int64
}{
	{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"TiB", 1 << 40},
	{"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"TB", 1e12},
	{"K", 1 << 10}, {"M", 1 << 20}, {"G", 1 << 30}, {"T", 1 << 40}, {"B", 1},
}

// Allowed describes the flag's values, for messages.
const Allowed = "a size of 1 B to under 4 EiB: decimal digits with an optional fraction and an optional unit B, KB, MB, GB, TB (powers of 1000) or K, M, G, T, KiB, MiB, GiB, TiB (powers of 1024), e.g. 4GiB or 1.5G"

var sizeRE = regexp.MustCompile(`^[0-9]+(\.[0-9]+)?$`)

// Parse reads "4GiB", "512M", "1000000".
func Parse(s string) (Bytes, error) {
	num, mult := strings.TrimSpace(s), int64(1)
	for _, u := range units {
		if strings.HasSuffix(num, u.suffix) {
			num, mult = strings.TrimSpace(strings.TrimSuffix(num, u.suffix)), u.mult
			break
		}
	}
	// Plain decimals only: ParseFloat alone takes NaN, Inf, hex floats,
	// exponents and underscores, none of which a size is written with.
	if !sizeRE.MatchString(num) {
		return 0, fmt.Errorf("%q is not %s", s, Allowed)
	}
	n, err := strconv.ParseFloat(num, 64)
	if err != nil || n*float64(mult) < 1 || n*float64(mult) >= 1<<62 {
		return 0, fmt.Errorf("%q is not %s", s, Allowed)
	}
	return Bytes(n * float64(mult)), nil
}

func (b Bytes) String() string {
	switch {
	case b >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(b)/(1<<30))
	case b >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20))
	case b >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(b)/(1<<10))
	}
	return fmt.Sprintf("%d B", int64(b))
}

// Default is the budget without --max-memory: half the machine's memory
// (MemTotal), or 90% of the address-space limit (RLIMIT_AS, ulimit -v)
// when that is lower (estimates count address space, the runtime's own
// reservations included); with what it was derived from, for messages.
func Default() (Bytes, string) {
	b, from := Bytes(8<<30), "8 GiB (the machine's memory is unknown)"
	if m, ok := memTotal(); ok {
		b, from = m/2, fmt.Sprintf("half of the machine's %s", m)
	}
	var rl unix.Rlimit
	if unix.Getrlimit(unix.RLIMIT_AS, &rl) == nil && rl.Cur != unix.RLIM_INFINITY && rl.Cur < 1<<62 {
		if as := Bytes(rl.Cur); as/10*9 < b {
			b, from = as/10*9, fmt.Sprintf("90%% of the address-space limit %s", as)
		}
	}
	return b, from
}

func memTotal() (Bytes, bool) {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0, false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var kb int64
		if _, err := fmt.Sscanf(sc.Text(), "MemTotal: %d kB", &kb); err == nil && kb > 0 {
			return Bytes(kb << 10), true
		}
	}
	return 0, false
}

// Limit is a budget and where it came from.
type Limit struct {
	Max  Bytes
	From string // "--max-memory", or how Default derived it
}

// Check refuses what (a run, a list) when its estimate is over the limit:
// one line with the estimate, the limit, where the limit came from and
// what to do (hint, may be empty).
func (l Limit) Check(what string, estimate Bytes, hint string) error {
	if estimate <= l.Max {
		return nil
	}
	msg := fmt.Sprintf("%s needs about %s of memory, over the budget of %s (%s)", what, estimate, l.Max, l.From)
	if hint != "" {
		msg += "; " + hint
	}
	return &Error{msg}
}

// Error is a refusal for memory: bad input for the machine (exit 2).
type Error struct{ msg string }

func (e *Error) Error() string { return e.msg }
