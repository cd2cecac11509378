package ingest

import (
	"fmt"
	"math"
)

// BinColumns names the columns of pre-binned input (ReadOptions.Binned):
// one row per bin, as a GROUP BY over the raw rows gives it (docs/scale.md
// has the queries for Spark SQL, DuckDB, BigQuery and Trino).
//
//   - Lower, Upper: the bin's bounds in seconds (or ReadOptions.Unit, or
//     the unit their names say: lower_ms, upper_ms), or Go durations; the
//     bin holds times t with Lower ≤ t < Upper. Lower =
//     Upper is a point bin (an atom, such as instant settles at 0). An
//     empty Upper, "inf" or "+Inf" is an open last bin [Lower, ∞).
//   - Count: the number of items in the bin, censored ones included; a
//     finite number ≥ 0 (fractional counts act as weights).
//   - Censored (optional): how many of those were still pending at the
//     end of observation, 0 ≤ Censored ≤ Count.
//
// A bin becomes BinSpread weighted items (fewer when Count is a smaller
// whole number) evenly placed at the midpoints of equal sub-intervals of
// [Lower, Upper), each weighing Count/k: the sample's CDF then rises
// linearly across the bin, which is what the raw data does to within the
// bin's resolution. Censored items are spread the same way, so a censored
// item of a bin is at risk for as long as, on average, the bin's settles.
// Open bins put all their weight at Lower; point bins put their k items
// there, and are the only repeated values, which is how the atom test
// tells a point bin from the spread-out items of the others (fit.Estimate).
type BinColumns struct {
	Lower, Upper, Count, Censored string
}

// DefaultBinColumns are the column names of binned input used when
// ReadOptions.Bins leaves a name empty.
var DefaultBinColumns = BinColumns{Lower: "lower", Upper: "upper", Count: "count", Censored: "censored"}

// BinSpread is the number of items one bin is spread over.
const BinSpread = 16

func (b BinColumns) withDefaults() BinColumns {
	d := DefaultBinColumns
	if b.Lower != "" {
		d.Lower = b.Lower
	}
	if b.Upper != "" {
		d.Upper = b.Upper
	}
	if b.Count != "" {
		d.Count = b.Count
	}
	if b.Censored != "" {
		d.Censored = b.Censored
	}
	return d
}

// bin turns one binned row into weighted items.
func (p *plan) bin(b *batch, c *[nRoles]cell) (role, error) {
	lower, err := p.seconds(&c[roleLower])
	if err != nil {
		return roleLower, err
	}
	if lower < 0 {
		return roleLower, negativeError(&c[roleLower])
	}
	upper := math.Inf(1)
	if u := &c[roleUpper]; !isOpenBound(u) {
		if upper, err = p.seconds(u); err != nil {
			return roleUpper, err
		}
		if upper < lower {
			return roleUpper, fmt.Errorf("%w: upper %v < lower %v", ErrBadBin, upper, lower)
		}
	}
	count, err := binCount(&c[roleCount])
	if err != nil {
		return roleCount, err
	}
	var cens float64
	if c[roleCensCount].kind != cellEmpty && !(c[roleCensCount].kind == cellText && len(trimSpace(c[roleCensCount].b)) == 0) {
		if cens, err = binCount(&c[roleCensCount]); err != nil {
			return roleCensCount, err
		}
		if cens > count {
			return roleCensCount, fmt.Errorf("%w: censored %v > count %v", ErrBadBin, cens, count)
		}
	}
	var seg int32
	hasSeg := p.names[roleSegment] != ""
	if hasSeg {
		s := trimSpace(c[roleSegment].b)
		if len(s) == 0 {
			s = []byte(emptySegment)
		}
		seg = b.segment(s)
	}
	b.used++
	b.items += count
	b.censored += int(math.Round(cens))
	if count == 0 {
		return 0, nil
	}
	k := BinSpread
	if count < BinSpread && count == math.Trunc(count) {
		k = int(count)
	}
	if math.IsInf(upper, 1) {
		k = 1
	}
	width := (upper - lower) / float64(k)
	for _, part := range [2]struct {
		n        float64
		censored bool
	}{{count - cens, false}, {cens, true}} {
		if part.n == 0 {
			continue
		}
		for j := range k {
			t := lower
			if k > 1 {
				t = lower + (float64(j)+0.5)*width
			}
			b.push(t, part.censored, part.n/float64(k), true, seg, hasSeg)
		}
	}
	return 0, nil
}

func isOpenBound(c *cell) bool {
	switch c.kind {
	case cellEmpty:
		return true
	case cellText:
		switch string(trimSpace(c.b)) {
		case "", "inf", "Inf", "+inf", "+Inf", "infinity", "Infinity":
			return true
		}
	case cellNum:
		return math.IsInf(c.f, 1)
	}
	return false
}

func binCount(c *cell) (float64, error) {
	var v float64
	switch c.kind {
	case cellEmpty:
		return 0, ErrEmptyValue
	case cellNum:
		v = c.f
	case cellInt:
		v = float64(c.ns)
	case cellText:
		s := trimSpace(c.b)
		if len(s) == 0 {
			return 0, ErrEmptyValue
		}
		var err error
		if v, err = ParseSeconds(unsafeString(s), 1); err != nil {
			return 0, fmt.Errorf("%w: want a count, found %q", ErrBadBin, s)
		}
	default:
		return 0, fmt.Errorf("%w: want a count, found a duration", ErrBadBin)
	}
	if !(v >= 0) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("%w: want a count ≥ 0, found %v", ErrBadBin, v)
	}
	return v, nil
}
