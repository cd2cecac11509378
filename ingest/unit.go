package ingest

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// Unit is the unit of bare numbers in a duration column, or of epoch
// timestamps.
type Unit time.Duration

// Units accepted by --unit (all) and --epoch (Nanosecond to Second).
const (
	Nanosecond  = Unit(time.Nanosecond)
	Microsecond = Unit(time.Microsecond)
	Millisecond = Unit(time.Millisecond)
	Second      = Unit(time.Second)
	Minute      = Unit(time.Minute)
	Hour        = Unit(time.Hour)
	Day         = Unit(24 * time.Hour)
)

// units are the named units, shortest first, with their symbols.
var units = []struct {
	u    Unit
	name string
}{
	{Nanosecond, "ns"}, {Microsecond, "µs"}, {Millisecond, "ms"}, {Second, "s"},
	{Minute, "m"}, {Hour, "h"}, {Day, "d"},
}

// ParseUnit parses a unit symbol: "ns", "us" (or "µs"), "ms", "s", "m" (or
// "min"), "h" or "d". The empty string gives 0, which ReadOptions.Unit
// reads as "infer from the column name" and ReadOptions.Epoch as "not
// epoch numbers".
func ParseUnit(s string) (Unit, error) {
	switch s {
	case "":
		return 0, nil
	case "ns":
		return Nanosecond, nil
	case "us", "µs", "μs": // micro sign U+00B5, Greek mu U+03BC
		return Microsecond, nil
	case "ms":
		return Millisecond, nil
	case "s":
		return Second, nil
	case "m", "min":
		return Minute, nil
	case "h":
		return Hour, nil
	case "d":
		return Day, nil
	}
	return 0, fmt.Errorf("unit %q: want ns, us, ms, s, m, h or d", s)
}

// String returns the unit's symbol ("ms"), or a Go duration for a unit
// without one.
func (u Unit) String() string {
	for _, n := range units {
		if n.u == u {
			return n.name
		}
	}
	return time.Duration(u).String()
}

// MarshalText writes the unit's symbol, as String.
func (u Unit) MarshalText() ([]byte, error) { return []byte(u.String()), nil }

// UnmarshalText reads a symbol ParseUnit accepts.
func (u *Unit) UnmarshalText(b []byte) error {
	v, err := ParseUnit(string(b))
	*u = v
	return err
}

// seconds returns how many seconds one unit is.
func (u Unit) seconds() float64 {
	if u == 0 {
		return 1
	}
	return time.Duration(u).Seconds()
}

// UnitSource says where the unit of a duration column came from
// (Report.UnitFrom).
type UnitSource string

const (
	// UnitFromOption: ReadOptions.Unit (the CLI's --unit) set it.
	UnitFromOption UnitSource = "option"
	// UnitFromName: the column's name says it (UnitInName).
	UnitFromName UnitSource = "column name"
	// UnitFromType: the column is a Parquet (Arrow) duration, whose type
	// holds its unit.
	UnitFromType UnitSource = "column type"
	// UnitFromDefault: nothing said it; bare numbers are seconds.
	UnitFromDefault UnitSource = "default"
)

// unitWords maps the words column names use for units, lower case, to
// units: symbols, pandas and Prometheus/OpenTelemetry spellings (metric
// names end in _seconds, OpenTelemetry's older ones in _milliseconds),
// Java/JavaScript camelCase suffixes (elapsedMillis, latencyMs).
var unitWords = map[string]Unit{
	"ns": Nanosecond, "nsec": Nanosecond, "nsecs": Nanosecond, "nanos": Nanosecond, "nano": Nanosecond,
	"nanosecond": Nanosecond, "nanoseconds": Nanosecond,
	"us": Microsecond, "µs": Microsecond, "μs": Microsecond, "usec": Microsecond, "usecs": Microsecond,
	"micros": Microsecond, "micro": Microsecond, "microsecond": Microsecond, "microseconds": Microsecond,
	"ms": Millisecond, "msec": Millisecond, "msecs": Millisecond, "millis": Millisecond, "milli": Millisecond,
	"millisecond": Millisecond, "milliseconds": Millisecond,
	"s": Second, "sec": Second, "secs": Second, "second": Second, "seconds": Second,
	"m": Minute, "min": Minute, "mins": Minute, "minute": Minute, "minutes": Minute,
	"h": Hour, "hr": Hour, "hrs": Hour, "hour": Hour, "hours": Hour,
	"d": Day, "day": Day, "days": Day,
}

// statWords are words a column name may put after its unit without
// changing it: latency_ms_p99, http_request_duration_seconds_sum. Not
// "count" (ms_count counts things) and not "min", which is a unit too:
// latency_ms_min is ms because the word before "min" is a unit.
var statWords = []string{"sum", "total", "max", "min", "mean", "avg", "average", "median", "med", "value", "val", "raw"}

// UnitInName returns the unit a column's name says its numbers are in,
// or 0 when it says none. It reads the unit as pandas, Prometheus and
// OpenTelemetry users write it:
//
//   - in the last ( ) or [ ] group: "Latency(ms)", "latency [ms]",
//     "wait (in seconds)";
//   - as the last word, words being split at _ - . / : and spaces and at
//     camelCase humps: "settle_ms", "duration_us", "t_ns",
//     "http_request_duration_seconds", "elapsedMillis", "latencyMs",
//     "run time min";
//   - before a last word that keeps it (a statistic: sum, total, max, min,
//     mean, avg, median, value, p99, …): "latency_ms_p99".
//
// Only a whole word counts, so "status", "items" and "ms_count" say
// nothing; one-letter units (s, m, h, d) need a word before them or
// brackets ("settle_s", "(h)"), so a column named "m" says nothing; and a
// word after "per" is a rate ("polls_per_second"), not a unit.
func UnitInName(name string) Unit {
	// The last bracket group, then the name without its groups.
	if i := strings.LastIndexAny(name, "(["); i >= 0 {
		if j := strings.IndexAny(name[i:], ")]"); j > 0 {
			if u := unitOfWords(words(name[i+1:i+j]), true); u != 0 {
				return u
			}
			return unitOfWords(words(name[:i]+" "+name[i+j+1:]), false)
		}
	}
	return unitOfWords(words(name), false)
}

// unitOfWords reads the unit from the end of a name's words; bracketed
// words may be a lone one-letter unit.
func unitOfWords(w []string, bracketed bool) Unit {
	n := len(w)
	unit := func(i int) Unit {
		if i < 0 || i >= n {
			return 0
		}
		s := strings.ToLower(w[i])
		if i > 0 && strings.ToLower(w[i-1]) == "per" {
			return 0
		}
		if utf8.RuneCountInString(s) == 1 && i == 0 && !bracketed {
			return 0
		}
		return unitWords[s]
	}
	if n >= 2 && isStatWord(w[n-1]) {
		if u := unit(n - 2); u != 0 {
			return u
		}
	}
	return unit(n - 1)
}

func isStatWord(s string) bool {
	s = strings.ToLower(s)
	if slices.Contains(statWords, s) {
		return true
	}
	// Percentiles and quantiles: p50, p99, p999, q95.
	if len(s) >= 2 && (s[0] == 'p' || s[0] == 'q') {
		_, err := strconv.Atoi(s[1:])
		return err == nil
	}
	return false
}

// words splits a name at _ - . / : ( ) [ ] and white space, and at
// camelCase humps: "elapsedMillis" → elapsed, Millis; "HTTPLatencyMS" →
// HTTP, Latency, MS.
func words(s string) []string {
	var out []string
	rs := []rune(s)
	start := 0
	flush := func(end int) {
		if end > start {
			out = append(out, string(rs[start:end]))
		}
	}
	for i, r := range rs {
		if r == '_' || r == '-' || r == '.' || r == '/' || r == ':' || r == '(' || r == ')' || r == '[' || r == ']' || unicode.IsSpace(r) {
			flush(i)
			start = i + 1
			continue
		}
		if i > start && unicode.IsUpper(r) {
			prev := rs[i-1]
			nextLower := i+1 < len(rs) && unicode.IsLower(rs[i+1])
			if unicode.IsLower(prev) || unicode.IsDigit(prev) || (unicode.IsUpper(prev) && nextLower) {
				flush(i)
				start = i
			}
		}
	}
	flush(len(rs))
	return out
}

// scale turns bare numbers in a unit into seconds with one correctly
// rounded operation: a division for units shorter than a second (1234 ms
// is 1234/1000, exactly the float64 nearest 1.234, as "1.234" s parses),
// a multiplication for longer ones. Multiplying by 0.001 instead would
// round twice and put values that are a poll time in seconds an ulp off
// it.
//
// Units of 10⁻ᵏ s (ms, µs, ns) divide by 10ᵏ; any other unit multiplies by
// its length in seconds.
type scale struct {
	mul   float64 // seconds per unit, or 1 for units of 10⁻ᵏ s
	div   float64 // 10ᵏ for units of 10⁻ᵏ s, else 1
	shift int     // k (decimal text is divided exactly by moving its point)
}

func newScale(unitSeconds float64) scale {
	for k := 1; k < 10; k++ {
		if unitSeconds == 1/pow10[k] {
			return scale{mul: 1, div: pow10[k], shift: k}
		}
	}
	return scale{mul: unitSeconds, div: 1}
}

// of converts v units to seconds.
func (s scale) of(v float64) float64 {
	if s.div != 1 {
		return v / s.div
	}
	return v * s.mul
}

// Implausible magnitudes (Report.Warnings): a median settle time above a
// day or below a microsecond is far more likely a unit mistake than data.
// Polling for items that take days is not what a poll schedule is for, and
// no network round trip, hence no poll, resolves a microsecond. A unit
// mistake multiplies every value by 1000 (ms read as s), 10⁶ (µs) or 10⁹
// (ns), so the check catches nanoseconds read as seconds whenever the true
// median is above 86 µs, microseconds above 86 ms, milliseconds above
// 86 s, and seconds read as ns whenever it is below 1000 s, as µs below
// 1 s, as ms below 1 ms; a mistake that
// leaves a plausible magnitude needs the column name (UnitInName). The
// median, not the maximum, so that a few stuck items do not warn.
const (
	PlausibleMedianMax = 24 * time.Hour
	PlausibleMedianMin = time.Microsecond
)

// magnitudeSample bounds the items the median of the magnitude check is
// taken on: a strided subsample of 1025 locates the median well within
// the factor of 1000 a unit mistake makes, at no cost on large inputs.
const magnitudeSample = 1024

// stridedMedian returns the weighted median of at most magnitudeSample+1
// items of s taken at a fixed stride, or NaN for an empty sample.
func stridedMedian(s *Sample) float64 {
	n := len(s.Times)
	if n == 0 {
		return math.NaN()
	}
	step := max(1, n/magnitudeSample)
	if s.Weights == nil {
		v := make([]float64, 0, n/step+1)
		for i := 0; i < n; i += step {
			v = append(v, s.Times[i])
		}
		slices.Sort(v)
		return v[(len(v)-1)/2]
	}
	type tw struct{ t, w float64 }
	var v []tw
	total := 0.0
	for i := 0; i < n; i += step {
		v = append(v, tw{s.Times[i], s.Weights[i]})
		total += s.Weights[i]
	}
	slices.SortFunc(v, func(a, b tw) int { return cmp.Compare(a.t, b.t) })
	acc := 0.0
	for _, x := range v {
		acc += x.w
		if acc >= total/2 {
			return x.t
		}
	}
	return v[len(v)-1].t
}

// warnMagnitude warns when the median settle time is implausible, naming
// the units that would put it in the plausible range: named, the unit the
// column's name says (0 for none), first.
func (m *merger) warnMagnitude(named Unit) {
	med := stridedMedian(&m.s)
	if !(med > 0) || math.IsInf(med, 0) {
		return
	}
	lo, hi := PlausibleMedianMin.Seconds(), PlausibleMedianMax.Seconds()
	if med >= lo && med <= hi {
		return
	}
	what := "long"
	if med < lo {
		what = "short"
	}
	// The units nearest the one used that put the median between 1 ms
	// and a day, at most two, and a third of ns, µs, ms and s: those are
	// the units logs count in, 1000 times apart, and all three below
	// seconds can put a median of days there (2·10⁶ read as seconds is 23
	// days: 34 minutes in ms, 2 s in µs, 2 ms in ns).
	var alts []string
	if m.rep.UnitFrom != UnitFromType {
		cur := m.rep.Unit
		near := slices.Clone(units)
		dist := func(u Unit) float64 { return math.Abs(math.Log(u.seconds() / cur.seconds())) }
		slices.SortStableFunc(near, func(a, b struct {
			u    Unit
			name string
		}) int {
			// The unit the name says comes first: it is the likely one.
			return cmp.Or(-cmp.Compare(b2i(a.u == named), b2i(b.u == named)), cmp.Compare(dist(a.u), dist(b.u)))
		})
		for _, c := range near {
			v := med * c.u.seconds() / cur.seconds() // the values read in c
			if c.u != cur && v >= 1e-3 && v <= hi && (len(alts) < 2 || len(alts) < 3 && c.u.seconds() <= 1) {
				why := ""
				if c.u == named {
					why = " (as the column name says)"
				}
				alts = append(alts, fmt.Sprintf("--unit %s%s reads it as %s", unitFlag(c.u), why, fmtDigits(v, 2)))
			}
		}
	}
	fix := ""
	if len(alts) > 0 {
		fix = ": is the unit wrong? " + strings.Join(alts, ", ")
	}
	src := "the default"
	switch m.rep.UnitFrom {
	case UnitFromName:
		src = fmt.Sprintf("as the column name %q says", m.rep.UnitColumn)
	case UnitFromType:
		src = "the column's Parquet type"
	case UnitFromOption:
		src = "as --unit says"
	}
	// The median of a strided subsample: within a few per cent, so two
	// digits, "about".
	m.rep.warn("the median settle time is about %s, implausibly %s (values read as %s, %s)%s",
		fmtDigits(med, 2), what, m.rep.Unit, src, fix)
}

// unitFlag is how --unit and --epoch spell a unit (ASCII "us" for µs).
func unitFlag(u Unit) string {
	if u == Microsecond {
		return "us"
	}
	return u.String()
}

// fmtSeconds formats seconds for messages to 3 digits: "50s", "13.9h",
// "4.2 days", "4975 years".
func fmtSeconds(s float64) string { return fmtDigits(s, 3) }

// fmtDigits formats seconds for messages to the given significant digits,
// never in exponent form: "310ms", not "3.1e+02ms".
func fmtDigits(s float64, digits int) string {
	switch {
	case s < 1e-6:
		return sigDigits(s*1e9, digits) + "ns"
	case s < 1e-3:
		return sigDigits(s*1e6, digits) + "µs"
	case s < 1:
		return sigDigits(s*1e3, digits) + "ms"
	case s < 120:
		return sigDigits(s, digits) + "s"
	case s < 7200:
		return sigDigits(s/60, digits) + "min"
	case s < 2*86400:
		return sigDigits(s/3600, digits) + "h"
	case s < 2*365.25*86400:
		return sigDigits(s/86400, digits) + " days"
	}
	y := s / (365.25 * 86400)
	if y >= math.Pow10(digits) {
		return strconv.FormatFloat(y, 'f', 0, 64) + " years"
	}
	return strconv.FormatFloat(y, 'g', digits, 64) + " years"
}

// sigDigits formats v rounded to the given significant digits, in plain
// decimal notation ('g' would write 310 to 2 digits as 3.1e+02).
func sigDigits(v float64, digits int) string {
	if v == 0 || math.IsNaN(v) || math.IsInf(v, 0) {
		return strconv.FormatFloat(v, 'g', digits, 64)
	}
	e := int(math.Floor(math.Log10(math.Abs(v)))) // v is d.ddd·10^e
	p := math.Pow10(e - digits + 1)
	out := strconv.FormatFloat(math.Round(v/p)*p, 'f', max(digits-1-e, 0), 64)
	if strings.Contains(out, ".") {
		out = strings.TrimRight(strings.TrimRight(out, "0"), ".")
	}
	return out
}

// b2i is 1 for true and 0 for false.
func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// fmtSigned is fmtSeconds with a sign.
func fmtSigned(s float64) string {
	if s < 0 {
		return "-" + fmtSeconds(-s)
	}
	return fmtSeconds(s)
}

// noteUnit records whether the duration columns of an input (or its bin
// bounds) are Parquet durations, whose type gives their unit (durNs, the
// unit in nanoseconds per role, 0 for other types), or bare numbers.
func (m *merger) noteUnit(p *plan, durNs [nRoles]int64) {
	for _, r := range []role{roleDur, roleLower, roleUpper} {
		switch {
		case p.names[r] == "":
		case durNs[r] > 0:
			if m.typed == 0 {
				m.typed, m.typedCol = Unit(durNs[r]), p.names[r]
			}
		default:
			m.untyped = true
		}
	}
}
