package ingest

import (
	"fmt"
	"slices"
	"testing"
)

func splitSample(n int) *Sample {
	s := &Sample{SegmentNames: []string{"a", "b"}}
	for i := range n {
		s.Times = append(s.Times, float64(i)) // the time names the item
		s.Censored = append(s.Censored, i%7 == 0)
		s.Weights = append(s.Weights, float64(1+i%3))
		s.Segment = append(s.Segment, int32(i%2))
	}
	return s
}

func TestSplit(t *testing.T) {
	tests := []struct {
		n        int
		holdout  float64
		wantTest int // round(holdout·n)
	}{
		{1000, 0.3, 300},
		{10, 0.25, 3}, // 2.5 rounds away from zero
		{7, 0, 0},
		{20000, 0.3, 6000},
		{1, 0.5, 1},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%d/%g", tt.n, tt.holdout), func(t *testing.T) {
			s := splitSample(tt.n)
			train, test := s.Split(tt.holdout, 1)
			if test.Len() != tt.wantTest || train.Len() != tt.n-tt.wantTest {
				t.Fatalf("Split(%g) sizes = %d train, %d test; want %d, %d", tt.holdout, train.Len(), test.Len(), tt.n-tt.wantTest, tt.wantTest)
			}
			// Every item lands in exactly one part, with its own flags.
			seen := make([]int, tt.n)
			for _, p := range []*Sample{train, test} {
				if p.Validate() != nil || !slices.Equal(p.SegmentNames, s.SegmentNames) {
					t.Fatalf("part invalid or labels lost: %v", p.Validate())
				}
				if !slices.IsSorted(p.Times) {
					t.Errorf("part not in original order: %v", p.Times)
				}
				for j, v := range p.Times {
					i := int(v)
					seen[i]++
					if p.Censored[j] != s.Censored[i] || p.Weights[j] != s.Weights[i] || p.Segment[j] != s.Segment[i] {
						t.Errorf("item %d: censored %v weight %v segment %v, want %v %v %v", i,
							p.Censored[j], p.Weights[j], p.Segment[j], s.Censored[i], s.Weights[i], s.Segment[i])
					}
				}
			}
			for i, c := range seen {
				if c != 1 {
					t.Fatalf("item %d is in %d parts, want 1", i, c)
				}
			}
		})
	}
}

func TestSplitSeeded(t *testing.T) {
	s := splitSample(500)
	_, a := s.Split(0.3, 42)
	_, b := s.Split(0.3, 42)
	_, c := s.Split(0.3, 43)
	if !slices.Equal(a.Times, b.Times) {
		t.Error("Split with the same seed gave different test parts")
	}
	if slices.Equal(a.Times, c.Times) {
		t.Error("Split with seeds 42 and 43 gave the same test part")
	}
}

// A uniform random split holds out each item with probability holdout:
// the mean of the held-out indexes is near (n−1)/2, within 4 standard
// errors (σ of one index ≈ n/√12, of a mean of k of them ≈ n/√(12k)).
func TestSplitUniform(t *testing.T) {
	const n = 10000
	s := splitSample(n)
	_, test := s.Split(0.3, 7)
	mean := 0.0
	for _, v := range test.Times {
		mean += v
	}
	mean /= float64(test.Len())
	se := float64(n) / 3.4641016 / 54.77 // √12, √3000
	if d := mean - (n-1)/2.0; d > 4*se || d < -4*se {
		t.Errorf("mean held-out index = %v, want %v ± %v", mean, (n-1)/2.0, 4*se)
	}
}

func TestSplitUnlabelled(t *testing.T) {
	s := &Sample{Times: []float64{1, 2, 3, 4}}
	train, test := s.Split(0.5, 1)
	if train.Censored != nil || train.Weights != nil || test.Segment != nil {
		t.Errorf("Split of a plain sample added columns: %+v %+v", train, test)
	}
}

func ExampleSample_Split() {
	s := &Sample{Times: []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}}
	train, test := s.Split(0.3, 1)
	fmt.Println(train.Len(), test.Len())
	// Output:
	// 7 3
}
