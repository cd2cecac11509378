package ingest

import (
	"fmt"
	"math"
	"strconv"
	"time"
	"unsafe"
)

// cellKind says how a cell holds its value: CSV gives text, Parquet gives
// numbers or nanoseconds from typed columns.
type cellKind uint8

const (
	cellEmpty    cellKind = iota
	cellText              // b holds the text
	cellNum               // f holds a bare number (Unit, or Epoch for timestamps)
	cellInt               // ns holds a bare integer (Parquet integer columns)
	cellNanos             // ns holds nanoseconds (Arrow duration or timestamp)
	cellOverflow          // ns holds a value whose nanoseconds (×f) overflow an int64
)

// nanosCell is the cell of v units of unitNs nanoseconds each (an Arrow
// duration, timestamp or date), or a cellOverflow when that overflows an
// int64 (a duration[s] above 292 years was read as under a second).
// lim is math.MaxInt64 / unitNs, computed once per column.
func nanosCell(v, unitNs, lim int64) cell {
	if v > lim || v < -lim {
		return cell{kind: cellOverflow, ns: v, f: float64(unitNs)}
	}
	return cell{kind: cellNanos, ns: v * unitNs}
}

// overflowError is the ErrOutOfRange error of a cellOverflow.
func overflowError(c *cell) error {
	return fmt.Errorf("%w: %d units of %s is beyond ±292 years, the range of nanoseconds in an int64", ErrOutOfRange, c.ns, time.Duration(c.f))
}

// cell is one value of one row, in whatever form the input had it.
type cell struct {
	kind cellKind
	b    []byte
	f    float64
	ns   int64
}

// seconds reads a duration cell as seconds; the result may be negative.
func (p *plan) seconds(c *cell) (float64, error) {
	switch c.kind {
	case cellText:
		return parseSecondsBytes(c.b, &p.scale)
	case cellNum:
		return checkFinite(p.scale.of(c.f), c.f)
	case cellInt:
		return p.scale.of(float64(c.ns)), nil
	case cellNanos:
		return float64(c.ns) / 1e9, nil
	case cellOverflow:
		return 0, overflowError(c)
	}
	return 0, ErrEmptyValue
}

func checkFinite(v, raw float64) (float64, error) {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("%w: %v", ErrNotFinite, raw)
	}
	return v, nil
}

// instant reads a timestamp cell of column r as Unix nanoseconds,
// counting in b the text timestamps without a zone (read as UTC).
func (p *plan) instant(b *batch, r role, c *cell) (int64, error) {
	switch c.kind {
	case cellText:
		s := trimSpace(c.b)
		if len(s) == 0 {
			return 0, ErrEmptyValue
		}
		var epochErr error
		if p.epochNs > 0 {
			// --epoch is about numbers: a column of RFC 3339 text beside
			// one of epoch numbers is read as it says.
			ns, err := parseEpoch(s, p.epochNs)
			if err == nil {
				return ns, nil
			}
			epochErr = err
		}
		ns, zoned, ok := parseTimestampZone(s)
		switch {
		case !ok && epochErr != nil:
			return 0, epochErr
		case !ok:
			return 0, badTimestamp(s)
		case ns == outOfRange:
			return 0, rangeError(s)
		case !zoned:
			if b.zoneless[r] == 0 {
				b.zonelessEx[r] = string(s)
			}
			b.zoneless[r]++
		}
		return ns, nil
	case cellNum:
		if p.epochNs == 0 {
			return 0, fmt.Errorf("%w: found the number %v%s", ErrBadTimestamp, c.f, epochHint(c.f))
		}
		ns := c.f * float64(p.epochNs)
		if math.IsNaN(ns) || math.Abs(ns) >= math.MaxInt64 {
			return 0, fmt.Errorf("%w: epoch %v out of range%s", ErrBadTimestamp, c.f, epochHint(c.f))
		}
		return int64(math.Round(ns)), nil
	case cellInt:
		if p.epochNs == 0 {
			return 0, fmt.Errorf("%w: found the number %d%s", ErrBadTimestamp, c.ns, epochHint(float64(c.ns)))
		}
		ns, ok := mulInt64(c.ns, p.epochNs)
		if !ok {
			return 0, fmt.Errorf("%w: epoch %d out of range%s", ErrBadTimestamp, c.ns, epochHint(float64(c.ns)))
		}
		return ns, nil
	case cellNanos:
		return c.ns, nil
	case cellOverflow:
		return 0, overflowError(c)
	}
	return 0, ErrEmptyValue
}

// mulInt64 returns a·b and whether it fits in an int64.
func mulInt64(a, b int64) (int64, bool) {
	if a == 0 || b == 0 {
		return 0, true
	}
	c := a * b
	if c/b != a || (a == -1 && b == math.MinInt64) || (b == -1 && a == math.MinInt64) {
		return 0, false
	}
	return c, true
}

func fmtNanos(ns int64) string {
	return time.Unix(0, ns).UTC().Format(time.RFC3339Nano)
}

func trimSpace(b []byte) []byte {
	for len(b) > 0 && (b[0] == ' ' || b[0] == '\t') {
		b = b[1:]
	}
	for len(b) > 0 && (b[len(b)-1] == ' ' || b[len(b)-1] == '\t') {
		b = b[:len(b)-1]
	}
	return b
}

// unsafeString views b as a string without copying; the string must not
// outlive b's contents (map lookups and parse calls whose errors we drop).
func unsafeString(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}

// formatFloat formats v so that parsing gives v back.
func formatFloat(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
