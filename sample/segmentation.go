package sample

import (
	"fmt"
	"slices"
	"strings"
	"unsafe"

	"github.com/pollfit/pollfit/internal/bulk"
)

// Segments splits the sample by segment. Segments with fewer than minRows
// items are folded into one segment (listed in folded), named "other"
// unless a segment of the data is (see Segmentation.Other). The
// result is ordered by segment name; it is empty when the sample has no
// segment labels. Each part keeps its items in their order, with their
// censoring flags, weights and creation instants, without labels.
func (s *Sample) Segments(minRows int) (names []string, parts []*Sample, folded []string) {
	g := s.Segmentation(minRows)
	if g == nil {
		return nil, nil, nil
	}
	return g.Names, g.Parts(0, len(g.Names)), g.Folded
}

// Segmentation is how a sample divides by segment (see Segments), whose
// parts it copies out one at a time: a caller done with each part before
// the next then holds one copy besides the sample, not all of them. It
// keeps each item's part in the narrowest unsigned integer that holds
// the parts' indexes (a byte for up to 256 parts) and reads the sample's
// labels no more once made: a caller may drop them (4 bytes an item)
// before copying the parts out. Where the labels are as wide as that
// index (a byte an item, Segment8, or Segment beyond 65,536 parts) the
// index is their memory, each label rewritten to its part, and the
// sample has no labels after: no second array a row.
type Segmentation struct {
	// Names are the parts' names, sorted (Other for the folded ones).
	Names []string
	// Folded are the segments with fewer than minRows items, folded
	// into one part named Other, sorted.
	Folded []string
	// Other names the part of the folded segments, "" when none is:
	// "other", or when the data has a segment so named, the first of
	// "other (folded)", "other (folded 2)", … that none has, so that
	// a segment of the data is never merged with the folded ones.
	Other string
	s     *Sample
	index any   // []uint8, []uint16 or []uint32: each item's part
	size  []int // by part: its number of items
}

// Segmentation returns how s divides by segment, segments with fewer than
// minRows items folded into one part (Segmentation.Other), or nil when s
// has no segment labels. When the index is made in the labels' memory
// (see Segmentation), s's labels and names are dropped (Segment8 or
// Segment, and SegmentNames, set to nil): a caller that needs them after
// clones them first.
func (s *Sample) Segmentation(minRows int) *Segmentation {
	if !s.HasSegments() {
		return nil
	}
	counts := make([]int, len(s.SegmentNames))
	if s.Segment8 != nil {
		for _, g := range s.Segment8 {
			counts[g]++
		}
	} else {
		for _, g := range s.Segment {
			counts[g]++
		}
	}
	display := displayNames(s.SegmentNames, counts)
	other := freeName(display, counts, "other", "other (folded)")
	var names, folded []string
	label := make([]string, len(s.SegmentNames))
	size := map[string]int{}
	for g, name := range display {
		label[g] = name
		if counts[g] < minRows {
			label[g] = other
			if counts[g] > 0 {
				folded = append(folded, name)
			}
		}
		if counts[g] > 0 {
			size[label[g]] += counts[g]
		}
	}
	for name := range size {
		names = append(names, name)
	}
	slices.Sort(names)
	slices.Sort(folded)
	g := &Segmentation{Names: names, Folded: folded, s: s}
	if len(folded) > 0 {
		g.Other = other
	}
	// Each segment's part (a segment without items has none: it maps
	// to where its name would be, which no item reads).
	partOf := make([]int, len(label))
	for i, name := range label {
		partOf[i], _ = slices.BinarySearch(g.Names, name)
	}
	for _, name := range g.Names {
		g.size = append(g.size, size[name])
	}
	switch {
	case s.Segment8 != nil: // at most 256 names, so parts
		g.index = remapParts(s.Segment8, partOf)
		s.DropLabels()
	case len(names) <= 1<<8:
		g.index = indexParts[uint8](s.Segment, partOf)
	case len(names) <= 1<<16:
		g.index = indexParts[uint16](s.Segment, partOf)
	default:
		// int32 labels and uint32 parts: the same words.
		g.index = remapParts(unsafe.Slice((*uint32)(unsafe.Pointer(unsafe.SliceData(s.Segment))), len(s.Segment)), partOf)
		s.DropLabels()
	}
	return g
}

// EmptySegment names the segment of rows whose segment value is empty,
// unless the data has a segment so named (see displayNames).
const EmptySegment = "(empty)"

// displayNames returns the segments' names as reported: the empty value
// (as read, "") is EmptySegment, or when a segment with items is so
// named, the first of "(empty value)", "(empty value 2)", … that none
// has, so that the rows of no value are never merged with those of the
// value "(empty)".
func displayNames(names []string, counts []int) []string {
	i := slices.Index(names, "")
	if i < 0 {
		return names
	}
	out := slices.Clone(names)
	out[i] = freeName(names, counts, EmptySegment, "(empty value)")
	return out
}

// freeName returns base, or when a segment with items (counts[g] > 0) is
// so named, the first of alt, "alt 2" (inside the parentheses when alt
// ends in one: "other (folded 2)"), … that no segment with items has.
func freeName(names []string, counts []int, base, alt string) string {
	taken := map[string]bool{}
	for g, name := range names {
		if counts[g] > 0 {
			taken[name] = true
		}
	}
	name := base
	for k := 1; taken[name]; k++ {
		name = alt
		if k > 1 {
			if a, ok := strings.CutSuffix(alt, ")"); ok {
				name = fmt.Sprintf("%s %d)", a, k)
			} else {
				name = fmt.Sprintf("%s %d", alt, k)
			}
		}
	}
	return name
}

// indexParts returns each item's part, partOf[its segment].
func indexParts[I uint8 | uint16 | uint32](seg []int32, partOf []int) []I {
	out := bulk.Make[I](len(seg), len(seg))
	for j, g := range seg {
		out[j] = I(partOf[g])
	}
	return out
}

// remapParts rewrites each item's segment in seg as its part,
// partOf[its segment], and returns seg, now the index.
func remapParts[I uint8 | uint32](seg []I, partOf []int) []I {
	if len(partOf) <= 1<<8 {
		// A table of the width of the labels: a byte's worth is 256
		// entries, which stay in the cache.
		var to [1 << 8]I
		for g, p := range partOf {
			to[g] = I(p)
		}
		for j, g := range seg {
			seg[j] = to[uint8(g)]
		}
		return seg
	}
	for j, g := range seg {
		seg[j] = I(partOf[g])
	}
	return seg
}

// Parts returns copies of parts from to to−1 (of Names[from:to]), in one
// pass over the sample: each with its items in their order, their
// censoring flags, weights and creation instants, without labels; the
// columns are sized once (appending 10⁷ items grew them to twice their
// size: docs/performance.md, Memory).
func (g *Segmentation) Parts(from, to int) []*Sample {
	parts := make([]*Sample, to-from)
	for i := range parts {
		parts[i] = g.s.newLike(g.size[from+i], false)
	}
	switch ix := g.index.(type) {
	case []uint8:
		copyParts(parts, g.s, ix, from)
	case []uint16:
		copyParts(parts, g.s, ix, from)
	case []uint32:
		copyParts(parts, g.s, ix, from)
	}
	return parts
}

// copyParts appends each item of s to parts[its part − from], when there.
func copyParts[I uint8 | uint16 | uint32](parts []*Sample, s *Sample, index []I, from int) {
	for j, k := range index {
		if i := int(k) - from; i >= 0 && i < len(parts) {
			parts[i].appendItem(s, j)
		}
	}
}

// PartitionInPlace reorders the sample's items in place so that each
// part's items are together, each part's items in their order (a stable
// partition), and returns the parts, in the order of Names, as views of
// the sample (Slice) with the columns the sample has but its segment
// labels. The sample's own order is lost: a caller that still needs it
// uses Parts.
//
// The largest part goes first (the first of them on a tie), and the
// others follow in the order of Names: it moves one part at a time to
// the end of the items not yet placed, from the last of them to the
// second (split.go's partition, through a buffer of that part's items, 8
// bytes an item), so that the parts need no copy besides the sample
// (plan's and fit's segments). The sample's labels, which the
// segmentation reads no more, are dropped, and when the sample still has
// them as Segment their memory is that buffer (4 bytes an item: room for
// any part but the largest, which is at most half the items); else the
// buffer is allocated (labels of a byte an item, Segment8, are the
// segmentation's index already). It passes over the items once per
// part: callers with many parts copy them out (Parts) instead.
func (g *Segmentation) PartitionInPlace() []*Sample {
	labels := g.s.Segment
	g.s.DropLabels()
	var order []int
	switch ix := g.index.(type) {
	case []uint8:
		order = partitionParts(g, ix, labels)
	case []uint16:
		order = partitionParts(g, ix, labels)
	case []uint32:
		order = partitionParts(g, ix, labels)
	}
	views := make([]*Sample, len(g.Names))
	lo := 0
	for _, p := range order {
		views[p] = g.s.Slice(lo, lo+g.size[p])
		lo += g.size[p]
	}
	return views
}

// partitionParts is PartitionInPlace's reordering of g's sample, with
// index, each item's part, reordered along, and the sample's labels
// (dropped, maybe nil) as the buffer where they are long enough. It
// returns the parts in the order placed.
func partitionParts[I uint8 | uint16 | uint32](g *Segmentation, index []I, labels []int32) []int {
	n := len(index)
	first := 0
	for p, k := range g.size {
		if k > g.size[first] {
			first = p
		}
	}
	order := []int{}
	if len(g.size) > 0 {
		order = append(order, first)
	}
	most := 0
	for p, k := range g.size {
		if p != first {
			order = append(order, p)
			most = max(most, k)
		}
	}
	var buf []uint32
	if len(labels) >= 2*most && most > 0 {
		// The labels' memory, read as words: no item's label is read again.
		buf = unsafe.Slice((*uint32)(unsafe.Pointer(&labels[0])), len(labels))
	} else {
		buf = bulk.Make[uint32](2*most, 2*most)
	}
	held := make(heldSet, (n+63)/64)
	hi := n // the items before hi are the parts not yet placed
	for j := len(order) - 1; j >= 1; j-- {
		p := order[j]
		k := g.size[p]
		clear(held)
		for i, q := range index[:hi] {
			if int(q) == p {
				held.set(i)
			}
		}
		s := g.s.Slice(0, hi)
		s.eachColumn(func(c column) { c.partition(held, k, buf) })
		partition(index[:hi], held, k, buf, 1, func(v I) uint64 { return uint64(v) }, func(u uint64) I { return I(u) })
		hi -= k
	}
	return order
}
