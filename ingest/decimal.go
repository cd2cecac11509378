package ingest

import (
	"errors"
	"fmt"
	"math"
	"math/bits"
	"strconv"
	"strings"
	"time"
)

// parseSecondsBytes parses a duration value as seconds, without
// allocating unless the value is bad; the result may be negative.
func parseSecondsBytes(b []byte, sc *scale) (float64, error) {
	b = trimSpace(b)
	if len(b) == 0 {
		return 0, ErrEmptyValue
	}
	if v, ok := parseSimpleDecimal(b, sc.shift); ok {
		return v * sc.mul, nil // mul is 1 when shift is not 0
	}
	return parseSigned(unsafeString(b), *sc)
}

// parseSimpleDecimal parses digits with at most one '.' and up to 15
// significant digits, divided by 10^shift, exactly: the digits as an
// integer and the power of ten are both exact in float64 (up to 10²²), so
// one correctly rounded division gives the nearest float, as strconv
// would. It reports false for anything else, which then takes the general
// path.
func parseSimpleDecimal(b []byte, shift int) (float64, bool) {
	if len(b) == 0 || len(b) > 16 {
		return 0, false
	}
	// The integer digits, then the point and the fraction's: a loop per
	// part, not a switch per byte (a third of the cost on 10M fields).
	var mant uint64
	i := 0
	for ; i < len(b); i++ {
		d := b[i] - '0'
		if d > 9 {
			break
		}
		mant = mant*10 + uint64(d)
	}
	if i == len(b) { // digits only, at most 15
		if len(b) > 15 {
			return 0, false
		}
		if shift == 0 {
			return float64(mant), true
		}
		return float64(mant) / pow10[shift], true
	}
	if b[i] != '.' || len(b) == 1 { // "." alone has no digit
		return 0, false
	}
	for _, c := range b[i+1:] {
		d := c - '0'
		if d > 9 {
			return 0, false
		}
		mant = mant*10 + uint64(d)
	}
	// len(b) − 1 digits, at most 15.
	n := shift + len(b) - i - 1
	if n >= len(pow10) {
		return 0, false
	}
	return float64(mant) / pow10[n], true
}

// parseShortDecimal is parseSimpleDecimal for text of n ≤ 8 bytes held in
// the low lanes of v (the first byte in the lowest), its other lanes
// zero: the point is taken out and the digits checked and combined 8 at
// a time (docs/performance.md, Ingest), the combination of Lemire,
// "Quickly parsing eight digits" (2018), on digits right-aligned behind
// zeros. It accepts exactly what parseSimpleDecimal accepts and gives the
// same value.
func parseShortDecimal(v uint64, n, shift int) (float64, bool) {
	// The masks on shift counts tell the compiler they are below 64 (no
	// test for Go's semantics of wider shifts).
	if n <= 0 || n > 8 {
		return 0, false
	}
	frac := 0
	if dot := equalBytes(v, '.'*lanes01); dot != 0 { // lanes above n are 0, never '.'
		if dot&(dot-1) != 0 || n == 1 {
			return 0, false // two points, or no digit
		}
		p := bits.TrailingZeros64(dot) >> 3
		lo := uint64(1)<<(8*p&63) - 1
		v = v&lo | v>>8&^lo
		n--
		frac = n - p
	}
	m := ^uint64(0) >> ((64 - 8*n) & 63) // the n lanes in use
	// A lane is not a digit when its bit 7 is set, when its low 7 bits
	// plus 0x46 reach 0x80 (above '9'), or when with bit 7 set it loses
	// it by subtracting '0' (below '0'); no carry or borrow crosses lanes.
	if ((v&lanes7f+0x4646464646464646)|v|^(v|lanes80-lanes30))&lanes80&m != 0 {
		return 0, false
	}
	d := (v - lanes30) & m // the borrows go from lane n up, cleared
	d <<= (64 - 8*n) & 63  // leading zeros: the first digit's lane is the most significant
	d = d*10 + d>>8
	d = ((d&0x000000ff000000ff)*(100+1000000<<32) + (d>>16&0x000000ff000000ff)*(1+10000<<32)) >> 32
	// At most 8 digits: exact in an int64 and a float64.
	if e := shift + frac; e > 0 {
		return float64(int64(d)) / pow10[e&31], true
	}
	return float64(int64(d)), true
}

var pow10 = [...]float64{1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
	1e17, 1e18, 1e19, 1e20, 1e21, 1e22}

// ParseSeconds parses one duration value: a number in units of
// unitSeconds seconds, or a Go duration string ("1.5s", "2m"). It rejects
// empty, NaN, infinite and negative values with the matching sentinel
// error. Numbers in units shorter than a second are divided, not
// multiplied: ParseSeconds("1234", 0.001) is exactly ParseSeconds("1.234", 1).
func ParseSeconds(s string, unitSeconds float64) (float64, error) {
	v, err := parseSigned(s, newScale(unitSeconds))
	if err == nil && v < 0 {
		return 0, fmt.Errorf("%w: %s", ErrNegative, quote(strings.TrimSpace(s)))
	}
	return v, err
}

// parseSigned is ParseSeconds without the sign check. A decimal number in
// a unit of 10^-k s is parsed with its decimal point moved k places (its
// exponent lowered by k), so that it rounds once, as the same value
// written in seconds does.
func parseSigned(s string, sc scale) (float64, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, ErrEmptyValue
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		var ne *strconv.NumError
		if errors.As(err, &ne) && ne.Err == strconv.ErrRange {
			return 0, fmt.Errorf("%w: %s", ErrNotFinite, quote(s))
		}
		d, derr := time.ParseDuration(s)
		if derr != nil {
			return 0, fmt.Errorf("%w: %s%s", ErrNotNumber, quote(s), decimalCommaHint(s))
		}
		return d.Seconds(), nil
	}
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("%w: %s", ErrNotFinite, quote(s))
	}
	if sc.shift > 0 {
		if w, ok := shiftDecimal(s, sc.shift); ok {
			return w, nil
		}
	}
	v = sc.of(v)
	if math.IsInf(v, 0) {
		return 0, fmt.Errorf("%w: %s", ErrNotFinite, quote(s))
	}
	return v, nil
}

// decimalCommaHint says how to write s, a number that failed to parse,
// when it looks written with a decimal comma ("1,5", "-0,25"), as
// European spreadsheets export it; "" otherwise. Three digits after the
// comma may be a thousands separator instead ("1,234").
func decimalCommaHint(s string) string {
	t := strings.TrimLeft(s, "+-")
	i := strings.IndexByte(t, ',')
	if i < 0 || len(s)-len(t) > 1 {
		return ""
	}
	whole, frac := t[:i], t[i+1:]
	for _, part := range []string{whole, frac} {
		if part == "" || strings.Trim(part, "0123456789") != "" {
			return ""
		}
	}
	point := s[:len(s)-len(t)] + whole + "." + frac
	if len(frac) == 3 {
		return fmt.Sprintf(": a decimal comma or a thousands separator? write %s or %s", point, s[:len(s)-len(t)]+whole+frac)
	}
	return fmt.Sprintf(": a decimal comma? write decimal points, as in %s", point)
}

// shiftDecimal parses the decimal number s divided by 10^k, rounding once;
// ok is false for what is not a plain decimal (hex, inf, nan).
func shiftDecimal(s string, k int) (float64, bool) {
	mant, exp := s, 0
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		e, err := strconv.Atoi(s[i+1:])
		if err != nil || e < -1e6 || e > 1e6 {
			return 0, false
		}
		mant, exp = s[:i], e
	}
	for i := 0; i < len(mant); i++ {
		c := mant[i]
		if !(c >= '0' && c <= '9' || c == '.' || (i == 0 && (c == '-' || c == '+'))) {
			return 0, false
		}
	}
	v, err := strconv.ParseFloat(mant+"e"+strconv.Itoa(exp-k), 64)
	return v, err == nil
}
