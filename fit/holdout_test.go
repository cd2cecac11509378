package fit

import (
	"math"
	"slices"
	"testing"

	"github.com/pollfit/pollfit/sample"
)

// TestSplitMatchesPlan: fit --holdout holds out the rows plan and compare
// hold out for the same share and seed (sample.Sample.Split), and on small
// samples keeps one row to score and two to fit on.
func TestSplitMatchesPlan(t *testing.T) {
	for _, n := range []int{3, 4, 10, 101, 5000} {
		s := &sample.Sample{Times: make([]float64, n)}
		for i := range s.Times {
			s.Times[i] = float64(i) // the time names the row
		}
		for _, frac := range []float64{0.01, 0.3, 0.9} {
			for seed := uint64(1); seed <= 3; seed++ {
				train, test := split(s, frac, seed)
				if train.Len()+test.Len() != n || test.Len() < 1 || train.Len() < 2 {
					t.Fatalf("n %d, holdout %v: %d fitted, %d scored", n, frac, train.Len(), test.Len())
				}
				if k := int(math.Round(frac * float64(n))); k >= 1 && k <= n-2 {
					_, want := s.Split(frac, seed)
					if !slices.Equal(test.Times, want.Times) {
						t.Errorf("n %d, holdout %v, seed %d: fit holds out %v, plan %v", n, frac, seed, test.Times, want.Times)
					}
				}
			}
		}
	}
}
