package ingest

import (
	"bytes"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// parseTimestamp parses an RFC 3339 timestamp to Unix nanoseconds without
// allocating. Besides strict RFC 3339 (2006-01-02T15:04:05.999999999Z07:00)
// it accepts what database exports write: ' ' instead of 'T', no zone
// (read as UTC), a zone of ±hh, ±hhmm or " UTC", and any number of
// fractional digits (those past nanoseconds dropped). Leap seconds (:60) are rejected, as time.Parse does.
func parseTimestamp(b []byte) (int64, error) {
	ns, ok := parseTimestampOK(b)
	if !ok {
		return 0, badTimestamp(b)
	}
	if ns == outOfRange {
		return 0, rangeError(b)
	}
	return ns, nil
}

// outOfRange is what parseTimestampOK returns for a valid timestamp
// outside the years Unix nanoseconds in an int64 hold (1678–2261): it is
// math.MinInt64, itself outside them.
const outOfRange = math.MinInt64

func rangeError(b []byte) error {
	return fmt.Errorf("%w: timestamp %s is outside 1677-09-21 to 2262-04-11, the instants nanoseconds since 1970 hold", ErrOutOfRange, quote(b))
}

// ParseTime parses an instant as the timestamp columns are read: RFC 3339
// with or without fractional seconds and zone (see parseTimestamp), or,
// with epoch Second, Millisecond, Microsecond or Nanosecond, an epoch
// number. Errors wrap ErrBadTimestamp.
func ParseTime(s string, epoch Unit) (time.Time, error) {
	b := []byte(strings.TrimSpace(s))
	if ns, ok := parseTimestampOK(b); ok {
		if ns == outOfRange {
			return time.Time{}, rangeError(b)
		}
		return time.Unix(0, ns).UTC(), nil
	}
	if epoch == Second || epoch == Millisecond || epoch == Microsecond || epoch == Nanosecond {
		ns, err := parseEpoch(b, int64(epoch))
		if err != nil {
			return time.Time{}, err
		}
		return time.Unix(0, ns).UTC(), nil
	}
	return time.Time{}, badTimestamp(b)
}

// Zoneless reports whether s is an RFC 3339 timestamp without a zone,
// which ParseTime and the timestamp columns read as UTC
// ("2026-11-01 08:00:00"; not "2026-11-01T08:00:00Z").
func Zoneless(s string) bool {
	_, zoned, ok := parseTimestampZone([]byte(strings.TrimSpace(s)))
	return ok && !zoned
}

func badTimestamp(b []byte) error {
	hint := ""
	if v, err := strconv.ParseFloat(string(b), 64); err == nil {
		hint = epochHint(v)
	}
	return fmt.Errorf("%w: want RFC 3339 like 2006-01-02T15:04:05Z, found %s%s", ErrBadTimestamp, quote(b), hint)
}

// epochUnits are the units of epoch numbers, longest first.
var epochUnits = []Unit{Second, Millisecond, Microsecond, Nanosecond}

// Plausible epoch timestamps fall in [1990, 2100): epoch numbers of
// adjacent units differ by a factor of 1000, so at most one unit puts a
// number there.
var (
	epochMin = time.Date(1990, 1, 1, 0, 0, 0, 0, time.UTC).UnixNano()
	epochMax = time.Date(2100, 1, 1, 0, 0, 0, 0, time.UTC).UnixNano()
)

// epochUnitOf returns the epoch unit that makes v a plausible instant,
// or 0.
func epochUnitOf(v float64) Unit {
	for _, u := range epochUnits {
		if ns := v * float64(u); ns >= float64(epochMin) && ns < float64(epochMax) {
			return u
		}
	}
	return 0
}

// epochHint tells how to read the number v as an epoch timestamp.
func epochHint(v float64) string {
	if u := epochUnitOf(v); u != 0 {
		return fmt.Sprintf(" (as epoch %s it is %s: set --epoch %s)", u, time.Unix(0, int64(v*float64(u))).UTC().Format("2006-01-02"), unitFlag(u))
	}
	return " (for epoch numbers set --epoch s, ms, us or ns)"
}

// warnEpoch warns when the first timestamp (of the start column, else of
// the end column), read as epoch numbers, is implausible, naming the unit
// that makes it plausible.
func (m *merger) warnEpoch(p *plan) {
	if p.epochNs == 0 || !m.hasFirst || (m.first >= epochMin && m.first < epochMax) {
		return
	}
	raw := float64(m.first) / float64(p.epochNs)
	fix := ""
	if u := epochUnitOf(raw); u != 0 {
		fix = fmt.Sprintf(": is it in %s? --epoch %s", u, unitFlag(u))
	}
	which := "start"
	if p.names[roleStart] == "" {
		which = "end"
		if p.polls {
			which = "poll"
		}
	}
	m.rep.warn("the first %s timestamp, %s read as epoch %s, is %s%s", which, strconv.FormatFloat(raw, 'f', -1, 64), Unit(p.epochNs), fmtYear(m.first), fix)
}

// fmtYear formats an instant's date for warnings.
func fmtYear(ns int64) string {
	return time.Unix(0, ns).UTC().Format("2006-01-02")
}

// warnZoneless warns, once per timestamp column, that the timestamps
// without a zone were read as UTC, with their count and the first.
func (m *merger) warnZoneless(p *plan) {
	for _, r := range []role{roleStart, roleEnd, roleLower, roleUpper} { // the last two: interval timestamps
		if n := m.zoneless[r]; n > 0 {
			m.rep.warn("column %s: %s without a time zone (the first %s) %s read as UTC; for local times, write the offset (as in 2026-11-01T08:00:00+01:00) or convert to UTC",
				quote(p.names[r]), howMany(n, "timestamp"), quote(m.zonelessEx[r]), wereOf(n))
		}
	}
}

// parseTimestampOK is parseTimestampZone without the zone.
func parseTimestampOK(b []byte) (int64, bool) {
	ns, _, ok := parseTimestampZone(b)
	return ns, ok
}

// parseTimestampZone parses an RFC 3339 timestamp as parseTimestamp
// does; zoned is false when it has no zone and was read as UTC.
func parseTimestampZone(b []byte) (ns int64, zoned, ok bool) {
	if len(b) < 19 || b[4] != '-' || b[7] != '-' || (b[10] != 'T' && b[10] != 't' && b[10] != ' ') || b[13] != ':' || b[16] != ':' {
		return 0, false, false
	}
	year, ok1 := digits(b[0:4])
	month, ok2 := digits(b[5:7])
	day, ok3 := digits(b[8:10])
	hour, ok4 := digits(b[11:13])
	minute, ok5 := digits(b[14:16])
	sec, ok6 := digits(b[17:19])
	if !(ok1 && ok2 && ok3 && ok4 && ok5 && ok6) || month < 1 || month > 12 || day < 1 || day > daysIn(month, year) || hour > 23 || minute > 59 || sec > 59 {
		return 0, false, false
	}
	rest := b[19:]
	var frac int64
	if len(rest) > 0 && (rest[0] == '.' || rest[0] == ',') {
		n := 1
		for n < len(rest) && rest[n] >= '0' && rest[n] <= '9' {
			n++
		}
		if n == 1 {
			return 0, false, false
		}
		// RFC 3339 allows any number of digits; past nanoseconds they
		// are dropped, as time.Parse drops them.
		k := min(n, 10)
		f, _ := digits(rest[1:k])
		frac = int64(f) * int64(math.Pow10(10-k))
		rest = rest[n:]
	}
	var offset int64 // seconds east of UTC
	zoned = len(rest) > 0
	switch {
	case len(rest) == 0, len(rest) == 1 && (rest[0] == 'Z' || rest[0] == 'z'), string(rest) == " UTC":
	case rest[0] == '+' || rest[0] == '-':
		z := rest[1:]
		var h, m int
		var ok bool
		switch {
		case len(z) == 2:
			h, ok = digits(z)
		case len(z) == 4:
			var okm bool
			h, ok = digits(z[:2])
			m, okm = digits(z[2:])
			ok = ok && okm
		case len(z) == 5 && z[2] == ':':
			var okm bool
			h, ok = digits(z[:2])
			m, okm = digits(z[3:])
			ok = ok && okm
		}
		if !ok || h > 23 || m > 59 {
			return 0, false, false
		}
		offset = int64(h*3600 + m*60)
		if rest[0] == '-' {
			offset = -offset
		}
	default:
		return 0, false, false
	}
	days := daysFromCivil(year, month, day)
	secs := days*86400 + int64(hour*3600+minute*60+sec) - offset
	// Years 0000–9999 are ±3.2·10¹¹ s: only the nanoseconds overflow.
	// Before 1970 with a fraction, secs·10⁹ may be below the range that
	// secs·10⁹ + frac is in: add the fraction to secs + 1.
	if secs < 0 && frac > 0 {
		ns, ok := mulInt64(secs+1, 1e9)
		if !ok || ns <= outOfRange+(1e9-frac) {
			return outOfRange, zoned, true
		}
		return ns - (1e9 - frac), zoned, true
	}
	ns, ok = mulInt64(secs, 1e9)
	if !ok || ns > math.MaxInt64-frac || ns+frac == outOfRange {
		return outOfRange, zoned, true
	}
	return ns + frac, zoned, true
}

// digits parses a short run of ASCII digits.
func digits(b []byte) (int, bool) {
	n := 0
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, len(b) > 0
}

func daysIn(month, year int) int {
	switch month {
	case 2:
		if year%4 == 0 && (year%100 != 0 || year%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// daysFromCivil returns the days since 1970-01-01 of a proleptic Gregorian
// date. Source: H. Hinnant, "chrono-Compatible Low-Level Date Algorithms",
// days_from_civil (https://howardhinnant.github.io/date_algorithms.html).
func daysFromCivil(y, m, d int) int64 {
	if m <= 2 {
		y--
	}
	era := y / 400
	if y < 0 {
		era = (y - 399) / 400
	}
	yoe := y - era*400
	mp := (m + 9) % 12 // March = 0
	doy := (153*mp+2)/5 + d - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return int64(era)*146097 + int64(doe) - 719468
}

// parseEpoch parses an epoch number in units of unitNs nanoseconds to Unix
// nanoseconds. Decimal numbers are converted exactly (digits past a
// nanosecond dropped, as time.Parse drops them); exponent notation goes
// through float64.
func parseEpoch(b []byte, unitNs int64) (int64, error) {
	if ns, ok := parseEpochExact(b, unitNs); ok {
		return ns, nil
	}
	f, err := strconv.ParseFloat(unsafeString(b), 64)
	ns := f * float64(unitNs)
	if err != nil || math.IsNaN(ns) || math.Abs(ns) >= math.MaxInt64 {
		hint := ""
		if err == nil {
			hint = epochHint(f)
		}
		return 0, fmt.Errorf("%w: want epoch %s (--epoch %s applies to --start and --end alike) or RFC 3339 like 2006-01-02T15:04:05Z, found %s%s", ErrBadTimestamp, epochUnitWord(unitNs), unitFlag(Unit(unitNs)), quote(b), hint)
	}
	return int64(math.Round(ns)), nil
}

func epochUnitWord(unitNs int64) string {
	switch unitNs {
	case 1:
		return "nanoseconds"
	case 1e3:
		return "microseconds"
	case 1e6:
		return "milliseconds"
	}
	return "seconds"
}

// parseEpochExact parses [-]digits[.digits] exactly; ok is false for
// anything else or a result outside int64.
func parseEpochExact(b []byte, unitNs int64) (int64, bool) {
	neg := len(b) > 0 && b[0] == '-'
	if neg {
		b = b[1:]
	}
	ip, frac := b, []byte(nil)
	if i := bytes.IndexByte(b, '.'); i >= 0 {
		ip, frac = b[:i], b[i+1:]
	}
	if len(ip) == 0 && len(frac) == 0 {
		return 0, false
	}
	var whole int64
	if len(ip) > 0 {
		for _, c := range ip {
			if c < '0' || c > '9' {
				return 0, false
			}
		}
		v, err := strconv.ParseInt(unsafeString(ip), 10, 64)
		if err != nil {
			return 0, false
		}
		var ok bool
		if whole, ok = mulInt64(v, unitNs); !ok {
			return 0, false
		}
	}
	var part int64
	if len(frac) > 0 {
		for _, c := range frac {
			if c < '0' || c > '9' {
				return 0, false
			}
		}
		// Digits past the ninth are below a nanosecond for any unit up to
		// a second: 0.d₁…d₉ × unitNs ≤ 10⁹ × 10⁹ fits in an int64.
		f := frac[:min(len(frac), 9)]
		v, _ := strconv.ParseInt(unsafeString(f), 10, 64)
		part = v * unitNs / int64(pow10[len(f)])
	}
	ns := whole + part
	if ns < whole {
		return 0, false
	}
	if neg {
		ns = -ns
	}
	return ns, true
}

// epochMix explains an end before its start when --epoch read one of them
// to an implausible instant (before 1990 or after 2100): the two columns
// then hold epoch numbers in different units, which one --epoch cannot
// read. It is "" otherwise.
func (p *plan) epochMix(start, end int64) string {
	if p.epochNs == 0 {
		return ""
	}
	for _, x := range []struct {
		role role
		ns   int64
	}{{roleStart, start}, {roleEnd, end}} {
		if x.ns >= epochMin && x.ns < epochMax {
			continue
		}
		raw := float64(x.ns) / float64(p.epochNs)
		fix := ""
		if u := epochUnitOf(raw); u != 0 {
			fix = fmt.Sprintf(" (it fits epoch %s)", u)
		}
		return fmt.Sprintf(", and column %s read as epoch %s is in %s%s: --epoch applies to --start and --end alike, so the two columns must be in one unit; convert one", quote(p.names[x.role]), Unit(p.epochNs), fmtYear(x.ns)[:4], fix)
	}
	return ""
}
