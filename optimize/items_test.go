package optimize

import (
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
)

// TestNewItemsReorder: sorting the caller's rows in place gives
// the Items of sorted copies, field for field (the same floats, summed in
// the same order), with ties, censored rows at settle times and weights
// (which take NewItems's own path), and leaves the settled times first,
// each part by time, with their flags.
func TestNewItemsReorder(t *testing.T) {
	rng := rand.New(rand.NewPCG(18, 4))
	for _, c := range []struct {
		n        int
		censored float64
		weighted bool
	}{{0, 0, false}, {1, 0, false}, {1, 1, false}, {50, 0, false}, {50, 0.3, false}, {5000, 0.1, false}, {5000, 0.99, false}, {300, 0.2, true}} {
		times := make([]float64, c.n)
		var cens []bool
		var w []float64
		if c.censored > 0 {
			cens = make([]bool, c.n)
		}
		if c.weighted {
			w = make([]float64, c.n)
		}
		for i := range times {
			times[i] = math.Round(rng.ExpFloat64()*20) / 4 // ties
			if cens != nil {
				cens[i] = rng.Float64() < c.censored
			}
			if w != nil {
				w[i] = float64(1 + rng.IntN(4))
			}
		}
		want := NewItems(times, cens, w)
		tc, cc, wc := slices.Clone(times), slices.Clone(cens), slices.Clone(w)
		got := NewItemsReorder(tc, cc, wc)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("n %d, censored %v, weighted %v: NewItemsReorder's Items differ from NewItems's", c.n, c.censored, c.weighted)
		}
		if w != nil {
			continue
		}
		m := 0
		for _, v := range cens {
			if !v {
				m++
			}
		}
		if cens == nil {
			m = c.n
		}
		if !slices.IsSorted(tc[:m]) || !slices.IsSorted(tc[m:]) {
			t.Errorf("n %d: the settled and censored times are not each sorted", c.n)
		}
		for i, v := range cc {
			if v != (i >= m) {
				t.Fatalf("n %d: flag %d is %v, want the %d settled first", c.n, i, v, m)
			}
		}
	}
}
