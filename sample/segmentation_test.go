package sample

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"unsafe"
)

// TestSegmentation: a Segmentation copies out parts, one or a
// range of them in one pass, item by item in order, with their flags,
// weights and creation instants, through an index of a byte (≤ 256
// parts), two (≤ 65,536) or four an item, and reads the sample's labels
// no more once made; against the plain grouping by label, segments below
// minRows folded into "other".
func TestSegmentation(t *testing.T) {
	for _, c := range []struct {
		segments, items, minRows int
	}{
		{3, 1000, 1},
		{5, 1000, 150},     // some folded into "other"
		{300, 3000, 1},     // 300 parts: two bytes an item
		{70000, 140000, 1}, // beyond 2¹⁶ parts
	} {
		t.Run(fmt.Sprint(c.segments), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(18, uint64(c.segments)))
			s := &Sample{}
			for g := range c.segments {
				s.SegmentNames = append(s.SegmentNames, fmt.Sprintf("s%05d", g))
			}
			for i := range c.items {
				g := int32(rng.IntN(c.segments))
				if c.segments == 5 {
					g = int32(min(4, rng.IntN(9))) // s00004 takes over half
				}
				s.Times = append(s.Times, float64(i))
				s.Censored = append(s.Censored, i%3 == 0)
				s.Weights = append(s.Weights, float64(1+i%4))
				s.Created = append(s.Created, int64(i)*7)
				s.Segment = append(s.Segment, g)
			}
			count := map[int32]int{}
			for _, g := range s.Segment {
				count[g]++
			}
			want := map[string][]int{} // part name → its items
			for i, g := range s.Segment {
				name := s.SegmentNames[g]
				if count[g] < c.minRows {
					name = "other"
				}
				want[name] = append(want[name], i)
			}
			labels := slices.Clone(s.Segment)
			seg := s.Segmentation(c.minRows)
			s.Segment = nil // not read by Part
			if len(seg.Names) != len(want) || !slices.IsSorted(seg.Names) {
				t.Fatalf("%d parts %v…, want %d, sorted", len(seg.Names), seg.Names[:min(3, len(seg.Names))], len(want))
			}
			all := seg.Parts(0, len(seg.Names))
			// Every part from the one pass; a few one at a time and as a
			// range in the middle.
			mid := len(seg.Names) / 2
			got := map[int]*Sample{0: seg.Parts(0, 1)[0], len(seg.Names) - 1: seg.Parts(len(seg.Names)-1, len(seg.Names))[0]}
			for k, p := range seg.Parts(mid, min(mid+3, len(seg.Names))) {
				got[mid+k] = p
			}
			for i := range all {
				if g, ok := got[i]; ok && (g.Len() != all[i].Len() || !slices.Equal(g.Times, all[i].Times)) {
					t.Fatalf("part %d alone: %d items, want those of the one pass (%d)", i, g.Len(), all[i].Len())
				}
			}
			for i, name := range seg.Names {
				p := all[i]
				items := want[name]
				if p.Len() != len(items) || p.Segment != nil {
					t.Fatalf("part %s: %d items (labels %v), want %d, none", name, p.Len(), p.Segment != nil, len(items))
				}
				for j, k := range items {
					if p.Times[j] != float64(k) || p.Censored[j] != s.Censored[k] || p.Weights[j] != s.Weights[k] || p.Created[j] != s.Created[k] {
						t.Fatalf("part %s item %d = %v, want item %d", name, j, p.Times[j], k)
					}
				}
			}
			s.Segment = labels
		})
	}
}

// TestPartitionInPlace: PartitionInPlace gives the parts Parts
// copies out, as views of the sample, the largest part first and the
// others in name order, each column moved with its item (every item is
// known by its time: flag i%3 == 0, weight 1+i%4, created 7i), the
// segment labels dropped (their memory was the buffer); with an index of
// one and two bytes an item (four is the same code, and a pass a part
// over 2¹⁶ parts is slow), a part without items, parts folded into
// "other", the largest part last by name, a sample of one part and an
// empty one, and without the labels (the buffer allocated).
func TestPartitionInPlace(t *testing.T) {
	for _, c := range []struct {
		name                     string
		segments, items, minRows int
		skew                     bool // the last segment takes most items
		dropLabels               bool // before PartitionInPlace
	}{
		{"empty", 3, 0, 1, false, false},
		{"one part", 1, 100, 1, false, false},
		{"three", 3, 1000, 1, false, false},
		{"folded", 5, 1000, 150, true, false},
		{"unused label", 6, 1000, 1, true, false}, // s00005 never drawn
		{"two-byte index", 300, 3000, 1, false, false},
		{"labels dropped", 5, 1000, 1, true, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(18, uint64(c.segments)))
			s := &Sample{Segment: []int32{}}
			for g := range c.segments {
				s.SegmentNames = append(s.SegmentNames, fmt.Sprintf("s%05d", g))
			}
			for i := range c.items {
				g := int32(rng.IntN(c.segments))
				if c.skew {
					g = int32(min(4, rng.IntN(9)))
				}
				s.Times = append(s.Times, float64(i))
				s.Censored = append(s.Censored, i%3 == 0)
				s.Weights = append(s.Weights, float64(1+i%4))
				s.Created = append(s.Created, int64(i)*7)
				s.Segment = append(s.Segment, g)
			}
			label := slices.Clone(s.Segment)
			s0names := slices.Clone(s.SegmentNames)
			g := s.Segmentation(c.minRows)
			if g == nil {
				t.Fatal("Segmentation = nil, want the parts")
			}
			want := g.Parts(0, len(g.Names))
			if c.dropLabels {
				s.Segment = nil
			}
			views := g.PartitionInPlace()
			if len(views) != len(want) {
				t.Fatalf("%d views, want %d parts", len(views), len(want))
			}
			if s.Segment != nil || s.SegmentNames != nil {
				t.Errorf("the sample keeps its labels, want them dropped")
			}
			// The layout: the largest part (the first of them), then the
			// others by name.
			var order []int
			for p, v := range want {
				if len(order) == 0 || v.Len() > want[order[0]].Len() {
					order = append([]int{p}, order...)
				} else {
					order = append(order, p)
				}
			}
			if len(order) > 1 {
				rest := slices.Clone(order[1:])
				slices.Sort(rest)
				order = append(order[:1], rest...)
			}
			at := make([]int, len(want))
			lo := 0
			for _, p := range order {
				at[p] = lo
				lo += want[p].Len()
			}
			lo = 0
			for p, v := range views {
				w := want[p]
				if !slices.Equal(v.Times, w.Times) || !slices.Equal(v.Censored, w.Censored) ||
					!slices.Equal(v.Weights, w.Weights) || !slices.Equal(v.Created, w.Created) {
					t.Fatalf("part %s: view %v, want %v", g.Names[p], v.Times, w.Times)
				}
				for j, tm := range v.Times {
					i := int(tm)
					if v.Censored[j] != (i%3 == 0) || v.Weights[j] != float64(1+i%4) || v.Created[j] != int64(i)*7 || v.Segment != nil {
						t.Fatalf("part %s, item %d: columns of another item moved with it", g.Names[p], i)
					}
					if want := g.Names[p]; g.Other == "" && s0names[label[i]] != want {
						t.Fatalf("part %s holds item %d of segment %s", want, i, s0names[label[i]])
					}
				}
				if v.Len() > 0 && &v.Times[0] != &s.Times[at[p]] {
					t.Errorf("part %s is a copy, want a view of the sample at %d", g.Names[p], at[p])
				}
				lo += v.Len()
			}
			if lo != c.items {
				t.Errorf("views hold %d items, want %d", lo, c.items)
			}
		})
	}
}

// A segment of the data named "other" is never merged with the folded
// ones: their part takes the first free name of "other (folded)",
// "other (folded 2)", …; a name held only by a segment without items does
// not count.
func TestSegmentationOtherTaken(t *testing.T) {
	for _, c := range []struct {
		names  []string
		counts []int // items of each segment
		want   []string
		other  string
	}{
		{[]string{"a", "b"}, []int{300, 1}, []string{"a", "other"}, "other"},
		{[]string{"other", "tiny"}, []int{228, 20}, []string{"other", "other (folded)"}, "other (folded)"},
		// "other" itself small: folded with the rest, under the free name.
		{[]string{"a", "other", "tiny"}, []int{300, 20, 20}, []string{"a", "other (folded)"}, "other (folded)"},
		{[]string{"other", "other (folded)", "tiny"}, []int{300, 300, 1}, []string{"other", "other (folded 2)", "other (folded)"}, "other (folded 2)"}, // sorted: ' ' < ')'
		{[]string{"other", "tiny"}, []int{0, 20}, []string{"other"}, "other"},
		{[]string{"other", "big"}, []int{300, 300}, []string{"big", "other"}, ""},
	} {
		seg := sampleOfCounts(c.names, c.counts).Segmentation(200)
		if !slices.Equal(seg.Names, c.want) || seg.Other != c.other {
			t.Errorf("Segmentation(%v with %v items, 200) = parts %q, folded into %q; want %q, %q", c.names, c.counts, seg.Names, seg.Other, c.want, c.other)
			continue
		}
		// The data's "other" keeps its own rows alone.
		if i := slices.Index(seg.Names, "other"); i >= 0 && c.other != "other" {
			if n := seg.Parts(i, i+1)[0].Len(); n != c.counts[slices.Index(c.names, "other")] {
				t.Errorf("%v: part \"other\" has %d items, want the segment's %d", c.names, n, c.counts[slices.Index(c.names, "other")])
			}
		}
	}
}

// TestEmptySegmentApart: rows whose segment value is empty are
// the part "(empty)", unless the data has a value "(empty)": then the
// first free name of "(empty value)", "(empty value 2)", … — they were
// merged into one part of both (found by a fresh user), with the folded
// part named apart from both, and a name held only by a segment without
// items does not count.
func TestEmptySegmentApart(t *testing.T) {
	for _, c := range []struct {
		names  []string
		counts []int
		want   []string // parts, sorted
		sizes  []int    // their items
	}{
		{[]string{"", "card"}, []int{300, 300}, []string{"(empty)", "card"}, []int{300, 300}},
		{[]string{"(empty)", ""}, []int{300, 250}, []string{"(empty value)", "(empty)"}, []int{250, 300}},
		{[]string{"(empty)", "(empty value)", ""}, []int{300, 301, 302}, []string{"(empty value 2)", "(empty value)", "(empty)"}, []int{302, 301, 300}},
		{[]string{"(empty)", ""}, []int{0, 300}, []string{"(empty)"}, []int{300}},
		{[]string{"", "other", "tiny"}, []int{300, 301, 5}, []string{"(empty)", "other", "other (folded)"}, []int{300, 301, 5}},
	} {
		seg := sampleOfCounts(c.names, c.counts).Segmentation(200)
		var sizes []int
		for _, p := range seg.Parts(0, len(seg.Names)) {
			sizes = append(sizes, p.Len())
		}
		if !slices.Equal(seg.Names, c.want) || !slices.Equal(sizes, c.sizes) {
			t.Errorf("Segmentation(%q with %v items) = parts %q of %v items, want %q of %v", c.names, c.counts, seg.Names, sizes, c.want, c.sizes)
		}
	}
}

// sampleOfCounts is a sample of counts[g] items of segment names[g] each,
// all at 1 s.
func sampleOfCounts(names []string, counts []int) *Sample {
	s := &Sample{SegmentNames: names}
	for g, n := range counts {
		for range n {
			s.Times = append(s.Times, 1)
			s.Segment = append(s.Segment, int32(g))
		}
	}
	return s
}

// TestSegmentationInPlace: labels of a byte an item (Segment8) are
// the segmentation's index, each rewritten to its part in place, and the
// sample's labels and names go; the parts are those of the same labels in
// four bytes (Segment), whose index is a second array (up to 2¹⁶ parts)
// and which the sample keeps. With 250 segments below 2 rows folded into "other", a
// segment without items, PartitionInPlace after (its buffer allocated),
// and labels beyond 2¹⁶ parts, whose index is their own memory too.
func TestSegmentationInPlace(t *testing.T) {
	build := func(segments, items int, narrow bool) *Sample {
		s := &Sample{}
		for g := range segments {
			s.SegmentNames = append(s.SegmentNames, fmt.Sprintf("s%05d", g))
		}
		for i := range items {
			g := (i * 7919) % (segments - 1) // the last segment has no items
			if segments <= 256 {
				// Most items in three segments; one in 50 in the others
				// but the last, most of which get one or none.
				g = i % 3
				if i%50 == 0 {
					g = 3 + (i/50*7919)%(segments-4)
				}
			}
			s.Times = append(s.Times, float64(i))
			s.Censored = append(s.Censored, i%3 == 0)
			if narrow {
				s.Segment8 = append(s.Segment8, uint8(g))
			} else {
				s.Segment = append(s.Segment, int32(g))
			}
		}
		return s
	}
	for _, c := range []struct {
		name                     string
		segments, items, minRows int
		narrow                   bool
	}{
		{"a byte an item", 256, 5000, 2, true},
		{"four bytes an item", 256, 5000, 2, false},
		{"beyond 2^16 parts", 70001, 140000, 1, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := build(c.segments, c.items, c.narrow)
			wide := build(c.segments, c.items, false) // the reference: labels kept
			labels, names := labelsOf(s), slices.Clone(s.SegmentNames)
			var mem unsafe.Pointer
			if c.narrow {
				mem = unsafe.Pointer(unsafe.SliceData(s.Segment8))
			} else {
				mem = unsafe.Pointer(unsafe.SliceData(s.Segment))
			}
			g := s.Segmentation(c.minRows)
			ref := wide.Segmentation(c.minRows)
			if c.minRows > 1 && len(g.Folded) < 10 {
				t.Fatalf("%d segments folded, want a test of folding", len(g.Folded))
			}
			if !slices.Equal(g.Names, ref.Names) || !slices.Equal(g.Folded, ref.Folded) || g.Other != ref.Other {
				t.Fatalf("parts %d %v, folded %d into %q; want %d, %d, %q", len(g.Names), g.Names[:3], len(g.Folded), g.Other, len(ref.Names), len(ref.Folded), ref.Other)
			}
			inPlace := c.narrow || c.segments > 1<<16
			var index unsafe.Pointer
			switch ix := g.index.(type) {
			case []uint8:
				index = unsafe.Pointer(unsafe.SliceData(ix))
			case []uint16:
				index = unsafe.Pointer(unsafe.SliceData(ix))
			case []uint32:
				index = unsafe.Pointer(unsafe.SliceData(ix))
			}
			if (index == mem) != inPlace {
				t.Errorf("the index is the labels' memory: %v, want %v", index == mem, inPlace)
			}
			if inPlace == s.HasSegments() || inPlace != (s.SegmentNames == nil) {
				t.Errorf("after Segmentation the sample has labels %v, names %v; want %v", s.HasSegments(), s.SegmentNames != nil, !inPlace)
			}
			if !wide.HasSegments() && c.segments <= 1<<16 {
				t.Errorf("labels of four bytes an item under 2^16 parts dropped, want them kept")
			}
			// Every item in the part of its own segment (names by the
			// labels before), in order.
			partOf := map[string]int{}
			for p, name := range g.Names {
				partOf[name] = p
			}
			parts := g.Parts(0, len(g.Names))
			next := make([]int, len(parts))
			for i, lab := range labels {
				name := names[lab]
				p, ok := partOf[name]
				if !ok {
					p = partOf[g.Other]
				}
				if j := next[p]; j >= parts[p].Len() || parts[p].Times[j] != float64(i) || parts[p].Censored[j] != (i%3 == 0) {
					t.Fatalf("item %d (segment %s) is not item %d of part %s", i, name, j, g.Names[p])
				}
				next[p]++
			}
			for p, part := range parts {
				if next[p] != part.Len() {
					t.Errorf("part %s: %d items, want %d", g.Names[p], part.Len(), next[p])
				}
			}
			if c.segments > 256 {
				return // a pass a part: slow, and the same code
			}
			views := g.PartitionInPlace()
			for p, v := range views {
				if !slices.Equal(v.Times, parts[p].Times) || !slices.Equal(v.Censored, parts[p].Censored) || v.HasSegments() {
					t.Fatalf("PartitionInPlace: part %s: %v, want %v", g.Names[p], v.Times, parts[p].Times)
				}
			}
		})
	}
}

// labelsOf lists each item's label as an int32, whichever column holds
// them; nil when s has none.
func labelsOf(s *Sample) []int32 {
	if !s.HasSegments() {
		return nil
	}
	out := make([]int32, s.Len())
	for i := range out {
		out[i] = int32(s.SegmentOf(i))
	}
	return out
}
