// Package sample holds settle times as the estimators take them: a
// Sample of items, each with its time, censoring flag, weight, segment
// label and creation instant, in columns.
//
// It does no I/O. Package ingest reads logs into a Sample; package fit
// estimates the distribution of one. Both import this package, so that a
// program that fits a sample it built does not link the readers (Arrow,
// Parquet codecs, progress bars). The methods here copy, view, split and
// segment a sample without losing an item or a column: holdout splits
// (Split, SplitInPlace), per-segment parts (Segmentation) and a digest
// that tells whether two reads gave the same rows (Digest).
package sample

import (
	"fmt"

	"github.com/pollfit/pollfit/internal/bulk"
)

// Sample is a set of observed settle times, one entry per item (row).
//
// Times are seconds since the item was created, ≥ 0. For a right-censored
// item (still pending when observation ended) the time is its age then.
// Censored and Weights are nil when no item is censored and every item
// weighs 1 (binned input carries counts as weights).
//
// Segment labels, when the sample has them (HasSegments), give each
// item's segment as an index into SegmentNames, in one of two columns:
// Segment8, a byte an item, or Segment, four. ingest's reader fills Segment8
// while the input has at most 256 distinct segment names, and widens it
// once into Segment when a 257th appears: at 10⁷ rows the labels are 10 MB
// instead of 40, which was most of what a segmented read held beyond the
// times. Samples built by hand set either; at most one is not
// nil. Read a label with SegmentOf.
//
// Created, when not nil, gives each item's creation instant in Unix
// nanoseconds (UTC); it is set when the input has timestamps
// (ingest.ReadOptions.Start or End), nil otherwise (a duration column alone,
// binned input). Item i then settled at
//
//	Created[i] + Times[i]·10⁹ ns
//
// (rounded to the nanosecond), or, when censored, was still pending then.
// Every method that copies or filters a sample keeps Created aligned with
// Times.
type Sample struct {
	Times    []float64
	Censored []bool
	// Lower holds interval-censored items' lower bounds, seconds: item i
	// settled after Lower[i] and by Times[i] (Turnbull 1976). Nil when every
	// time is exact; Lower[i] == Times[i] for an exact item in a sample that
	// has intervals. A right-censored item (Censored[i]) is pending at
	// Times[i] and its Lower[i] equals Times[i].
	Lower        []float64
	Weights      []float64
	Segment      []int32
	Segment8     []uint8
	SegmentNames []string
	Created      []int64
}

// Len returns the number of items.
func (s *Sample) Len() int { return len(s.Times) }

// HasSegments reports whether the items have segment labels (Segment or
// Segment8).
func (s *Sample) HasSegments() bool { return s.Segment != nil || s.Segment8 != nil }

// DropLabels drops the sample's segment labels and names (both
// columns), which a caller done with them frees.
func (s *Sample) DropLabels() { s.Segment, s.Segment8, s.SegmentNames = nil, nil, nil }

// SegmentOf returns item i's segment, an index into SegmentNames. It
// panics when the sample has no segment labels.
func (s *Sample) SegmentOf(i int) int {
	if s.Segment8 != nil {
		return int(s.Segment8[i])
	}
	return int(s.Segment[i])
}

// Weight returns the weight of item i (1 when Weights is nil).
func (s *Sample) Weight(i int) float64 {
	if s.Weights == nil {
		return 1
	}
	return s.Weights[i]
}

// IsCensored reports whether item i is right-censored.
func (s *Sample) IsCensored(i int) bool { return s.Censored != nil && s.Censored[i] }

// CensoredCount returns the number of right-censored items.
func (s *Sample) CensoredCount() int {
	n := 0
	for _, c := range s.Censored {
		if c {
			n++
		}
	}
	return n
}

// TotalWeight returns the sum of the items' weights.
func (s *Sample) TotalWeight() float64 {
	if s.Weights == nil {
		return float64(len(s.Times))
	}
	t := 0.0
	for _, w := range s.Weights {
		t += w
	}
	return t
}

// Slice returns items lo to hi−1 of s as a sample that shares s's storage
// (a view: changing an item of one changes it in the other), with the
// segment labels and names. It panics unless 0 ≤ lo ≤ hi ≤ s.Len().
func (s *Sample) Slice(lo, hi int) *Sample {
	if lo < 0 || lo > hi || hi > s.Len() {
		panic(fmt.Sprintf("sample: Slice(%d, %d) of %d items", lo, hi, s.Len()))
	}
	return &Sample{
		Times:        s.Times[lo:hi:hi],
		Censored:     cut(s.Censored, lo, hi),
		Weights:      cut(s.Weights, lo, hi),
		Segment:      cut(s.Segment, lo, hi),
		Segment8:     cut(s.Segment8, lo, hi),
		SegmentNames: s.SegmentNames,
		Created:      cut(s.Created, lo, hi),
	}
}

// cut is col[lo:hi], capped there, or nil for a nil column.
func cut[T any](col []T, lo, hi int) []T {
	if col == nil {
		return nil
	}
	return col[lo:hi:hi]
}

// Subset returns the items whose indexes keep returns true for, in their
// order, with the segment labels dropped (creation instants kept).
func (s *Sample) Subset(keep func(i int) bool) *Sample { return s.pick(keep, false) }

// pick returns the items i with keep(i), sized once (a sample of 10⁷ is
// copied in holdout splits); with labels, their segments too.
func (s *Sample) pick(keep func(i int) bool, labels bool) *Sample {
	m := 0
	for i := range s.Times {
		if keep(i) {
			m++
		}
	}
	out := s.newLike(m, labels)
	for i := range s.Times {
		if keep(i) {
			out.appendItem(s, i)
		}
	}
	return out
}

// newLike returns an empty sample with room for n items and the columns
// s has (the segment labels only with labels).
func (s *Sample) newLike(n int, labels bool) *Sample {
	out := &Sample{Times: bulk.Make[float64](0, n)}
	if s.Censored != nil {
		out.Censored = bulk.Make[bool](0, n)
	}
	if s.Weights != nil {
		out.Weights = bulk.Make[float64](0, n)
	}
	if labels && s.Segment != nil {
		out.SegmentNames = s.SegmentNames
		out.Segment = bulk.Make[int32](0, n)
	}
	if labels && s.Segment8 != nil {
		out.SegmentNames = s.SegmentNames
		out.Segment8 = bulk.Make[uint8](0, n)
	}
	if s.Created != nil {
		out.Created = bulk.Make[int64](0, n)
	}
	return out
}

// appendItem appends item i of s to the columns dst has (see newLike).
func (dst *Sample) appendItem(s *Sample, i int) {
	dst.Times = append(dst.Times, s.Times[i])
	if dst.Censored != nil {
		dst.Censored = append(dst.Censored, s.Censored[i])
	}
	if dst.Weights != nil {
		dst.Weights = append(dst.Weights, s.Weights[i])
	}
	if dst.Segment != nil {
		dst.Segment = append(dst.Segment, s.Segment[i])
	}
	if dst.Segment8 != nil {
		dst.Segment8 = append(dst.Segment8, s.Segment8[i])
	}
	if dst.Created != nil {
		dst.Created = append(dst.Created, s.Created[i])
	}
}

// MaxSeconds is the longest settle time read, in seconds: beyond it the
// sums of squares of the estimators overflow a float64. A longer value is
// refused by the reader (ingest.ErrOutOfRange) and by Sample.Validate,
// so that whatever the reader gives the estimators take (values of 1e300
// and more used to pass the reader and fail in the fit, without file or
// row).
const MaxSeconds = 1e300

// Validate checks the sample's invariants: equal lengths, times finite and
// ≥ 0, weights finite and ≥ 0.
func (s *Sample) Validate() error {
	n := len(s.Times)
	if (s.Censored != nil && len(s.Censored) != n) || (s.Weights != nil && len(s.Weights) != n) || (s.Segment != nil && len(s.Segment) != n) || (s.Segment8 != nil && len(s.Segment8) != n) || (s.Created != nil && len(s.Created) != n) {
		return fmt.Errorf("sample columns have different lengths")
	}
	if s.Segment != nil && s.Segment8 != nil {
		return fmt.Errorf("sample has segment labels in both Segment and Segment8")
	}
	for i, t := range s.Times {
		if !(t >= 0) || t > MaxSeconds {
			return fmt.Errorf("item %d: settle time %v is not a finite number ≥ 0", i, t)
		}
	}
	for i, w := range s.Weights {
		if !(w >= 0) || w > 1e300 {
			return fmt.Errorf("item %d: weight %v is not a finite number ≥ 0", i, w)
		}
	}
	return nil
}
