package fit

import (
	"strings"
	"testing"

	"github.com/pollfit/pollfit/ingest"
	"gonum.org/v1/gonum/floats/scalar"
)

// TestItemWidths: binned input's items stand for the sub-intervals of
// their bin (ingest.BinSpread of them), apart for each segment and for
// the censored rows: two segments' bins with the same bounds, whose items
// interleave, keep their own widths, and a point bin's repeated items
// are points.
func TestItemWidths(t *testing.T) {
	bins := "method,lower,upper,count,censored\na,1,2,32,16\nb,1,2,3,0\na,5,5,4,0\n"
	s, _, err := ingest.ReadCSV(strings.NewReader(bins), "bins.csv", ingest.ReadOptions{Binned: true, Segment: "method"})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string][]float64{}
	for i, w := range itemWidths(s, false) {
		key := s.SegmentNames[s.SegmentOf(i)]
		switch {
		case s.Times[i] == 5:
			key += " point"
		case s.IsCensored(i):
			key += " censored"
		}
		got[key] = append(got[key], w)
	}
	for key, want := range map[string]struct {
		n int
		w float64
	}{"a": {16, 1.0 / 16}, "a censored": {16, 1.0 / 16}, "b": {3, 1.0 / 3}, "a point": {4, 0}} {
		if len(got[key]) != want.n {
			t.Fatalf("%s: %d items, want %d", key, len(got[key]), want.n)
		}
		for _, w := range got[key] {
			if !scalar.EqualWithinAbs(w, want.w, 1e-12) {
				t.Errorf("%s: width %v, want %v", key, w, want.w)
			}
		}
	}
}
