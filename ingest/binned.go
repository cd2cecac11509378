package ingest

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"unicode/utf8"
)

// BinColumns names the columns of pre-binned input (ReadOptions.Binned):
// one row per bin, as a GROUP BY over the raw rows gives it (docs/scale.md
// has the queries for Spark SQL, DuckDB, BigQuery and Trino).
//
//   - Lower, Upper: the bin's bounds in seconds (or ReadOptions.Unit, or
//     the unit their names say: lower_ms, upper_ms), or Go durations; the
//     bin holds times t with Lower ≤ t < Upper. Lower =
//     Upper is a point bin (an atom, such as instant settles at 0). An
//     empty Upper, "inf" or "+Inf" is an open last bin [Lower, ∞). The
//     bins of a segment must not overlap: two bins [a, b) and [c, d) with
//     c < b and a < d, or two point bins at one value, are an error (a
//     query run twice, or bins of two widths mixed), as is a bound above
//     MaxSeconds. A point bin may lie inside another bin: its items are
//     the ones settling at exactly that value.
//   - Count: the number of items in the bin, censored ones included; a
//     whole number from 0 to MaxBinCount.
//   - Censored (optional): how many of those were still pending at the
//     end of observation, a whole number, 0 ≤ Censored ≤ Count.
//
// All the bins together hold at most MaxBinCount items.
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

// MaxBinCount is the most items the bins of an input may hold, 2⁵³: the
// counts add up exactly in a float64 below it (a count of 1e300 was once
// reported as -9223372036854775808 rows).
const MaxBinCount = 1 << 53

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
	if lower > MaxSeconds {
		return roleLower, tooLong(lower)
	}
	upper := math.Inf(1)
	if u := &c[roleUpper]; !isOpenBound(u) {
		if upper, err = p.seconds(u); err != nil {
			return roleUpper, err
		}
		if upper < lower {
			return roleUpper, fmt.Errorf("%w: upper %v < lower %v", ErrBadBin, upper, lower)
		}
		if upper > MaxSeconds {
			return roleUpper, tooLong(upper)
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
		if !utf8.Valid(s) {
			return roleSegment, fmt.Errorf("%w: found %s", ErrNotUTF8, quote(s))
		}
		seg = b.segment(s) // "" for an empty value: Segmentation names it
	}
	b.used++
	b.items += count
	b.censored += int(cens)
	b.bins = append(b.bins, binRow{lower: lower, upper: upper, seg: seg, row: b.at})
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
			return 0, fmt.Errorf("%w: want a count, found %s", ErrBadBin, quote(s))
		}
	default:
		return 0, fmt.Errorf("%w: want a count, found a duration", ErrBadBin)
	}
	switch {
	case !(v >= 0) || math.IsInf(v, 0):
		return 0, fmt.Errorf("%w: want a count ≥ 0, found %v", ErrBadBin, v)
	case v > MaxBinCount:
		return 0, fmt.Errorf("%w: count %v is above %d, the most items counted exactly", ErrOutOfRange, v, int64(MaxBinCount))
	case v != math.Trunc(v):
		return 0, fmt.Errorf("%w: count %v is not a whole number of items", ErrBadBin, v)
	}
	return v, nil
}

// binRow is a bin as read, for the overlap check: its bounds in seconds,
// batch-local segment, and batch-local row (batch.at).
type binRow struct {
	lower, upper float64
	seg          int32
	row          int
}

// placedBin is a bin with its place in the input, for errors.
type placedBin struct {
	binRow
	file     string
	rowGroup int // -1 for CSV
}

// at names the bin's row as a ParseError does.
func (b placedBin) at() string {
	e := ParseError{File: b.file, Row: b.row, RowGroup: b.rowGroup, Err: errors.New("")}
	return strings.TrimSuffix(e.Error(), ": ")
}

// checkBins fails when two bins of a segment overlap (see BinColumns):
// the bins sorted by segment, lower and upper bound, a range bin starting
// before the furthest upper bound of the range bins before it overlaps
// the bin that reaches there, and equal point bins repeat one another.
func (m *merger) checkBins(p *plan) error {
	bins := m.bins
	slices.SortFunc(bins, func(a, b placedBin) int {
		return cmp.Or(cmp.Compare(a.seg, b.seg), cmp.Compare(a.lower, b.lower), cmp.Compare(a.upper, b.upper))
	})
	var reach *placedBin // the range bin of the segment reaching furthest
	for i := range bins {
		b := &bins[i]
		if i > 0 && bins[i-1].seg != b.seg {
			reach = nil
		}
		var other *placedBin
		switch {
		case b.lower == b.upper:
			if i > 0 && bins[i-1].seg == b.seg && bins[i-1].lower == b.lower && bins[i-1].upper == b.upper {
				other = &bins[i-1]
			}
		case reach != nil && b.lower < reach.upper:
			other = reach
		}
		if other != nil {
			what := ""
			if p.hasSeg {
				what = fmt.Sprintf(" of segment %s", quote(m.s.SegmentNames[b.seg]))
			}
			return &ParseError{File: b.file, Row: b.row, RowGroup: b.rowGroup, Column: p.names[roleLower],
				Err: fmt.Errorf("%w: bin %s overlaps bin %s%s (%s): each item must be counted in one bin", ErrBadBin, fmtBin(b.binRow), fmtBin(other.binRow), what, other.at())}
		}
		if b.lower < b.upper && (reach == nil || b.upper > reach.upper) {
			reach = b
		}
	}
	return nil
}

// fmtBin writes a bin's bounds in seconds: "[0, 10) s", "[5, ∞) s", "{0} s".
func fmtBin(b binRow) string {
	if b.lower == b.upper {
		return fmt.Sprintf("{%s} s", formatFloat(b.lower))
	}
	up := "∞"
	if !math.IsInf(b.upper, 1) {
		up = formatFloat(b.upper)
	}
	return fmt.Sprintf("[%s, %s) s", formatFloat(b.lower), up)
}
