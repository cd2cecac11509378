package sample

import (
	"math"
	"testing"
)

// TestDigest: equal samples have equal digests; a change to any
// column, bit for bit, or to the segment names, or an item moved, changes
// it; a column that is there differs from none.
func TestDigest(t *testing.T) {
	base := func() *Sample {
		return &Sample{
			Times:        []float64{1.5, 2.25, 3, 0.5},
			Censored:     []bool{false, true, false, false},
			Segment:      []int32{0, 1, 0, 1},
			SegmentNames: []string{"card", "momo"},
		}
	}
	want := base().Digest()
	if got := base().Digest(); got != want {
		t.Fatalf("two equal samples: digests %x and %x", got, want)
	}
	changes := map[string]func(s *Sample){
		"a time":            func(s *Sample) { s.Times[1] = math.Nextafter(2.25, 3) },
		"a censoring flag":  func(s *Sample) { s.Censored[0] = true },
		"a segment label":   func(s *Sample) { s.Segment[2] = 1 },
		"a segment name":    func(s *Sample) { s.SegmentNames[1] = "momo2" },
		"names regrouped":   func(s *Sample) { s.SegmentNames = []string{"cardm", "omo"} },
		"two items swapped": func(s *Sample) { s.Times[0], s.Times[1] = s.Times[1], s.Times[0] },
		"no flags":          func(s *Sample) { s.Censored = nil },
		"weights of 1":      func(s *Sample) { s.Weights = []float64{1, 1, 1, 1} },
		"an item fewer":     func(s *Sample) { *s = *s.Slice(0, 3) },
		"byte labels":       func(s *Sample) { s.Segment, s.Segment8 = nil, []uint8{0, 1, 0, 1} },
	}
	zero, negZero := base(), base()
	zero.Times[3], negZero.Times[3] = 0, math.Copysign(0, -1)
	if zero.Digest() == negZero.Digest() {
		t.Errorf("0 and −0: the same digest")
	}
	narrow := base()
	narrow.Segment, narrow.Segment8 = nil, []uint8{0, 1, 0, 1}
	other := base()
	other.Segment, other.Segment8 = nil, []uint8{0, 1, 1, 1}
	if narrow.Digest() == other.Digest() {
		t.Errorf("byte labels changed: the same digest")
	}
	for name, change := range changes {
		s := base()
		change(s)
		if s.Digest() == want {
			t.Errorf("%s: the digest did not change", name)
		}
	}
}
