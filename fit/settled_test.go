package fit

import (
	"math"
	"slices"
	"testing"

	"github.com/pollfit/pollfit/ingest"
)

// TestIssue18SettledQuantile: SettledQuantile selects among the settled
// times in place, by buckets above quantileSelectAbove items; it must
// give the same float as R's type 7 computed the plain way, on a sorted
// copy of the settled times, x[j] + (h − j)·(x[j+1] − x[j]) with
// h = (n − 1)p and j = ⌊h⌋. The cases put censored times outside the
// settled range (they must not widen the buckets), ties, one distinct
// settled value, and a far outlier that squeezes the rest into one bucket.
func TestIssue18SettledQuantile(t *testing.T) {
	r := pcg(18)
	type tc struct {
		name string
		s    *ingest.Sample
	}
	sample := func(n int, cens float64, at func(i int) float64) *ingest.Sample {
		s := &ingest.Sample{Times: make([]float64, n), Censored: make([]bool, n)}
		for i := range n {
			s.Times[i] = at(i)
			s.Censored[i] = r.Float64() < cens
		}
		return s
	}
	big := 3 * quantileSelectAbove
	cases := []tc{
		{"small", sample(1000, 0.2, func(int) float64 { return r.ExpFloat64() })},
		{"large lognormal", sample(big, 0.1, func(int) float64 { return math.Exp(r.NormFloat64()) })},
		{"large ms ties", sample(big, 0.3, func(int) float64 { return math.Round(r.ExpFloat64()*1000) / 1000 })},
		{"censored outside", sample(big, 0, func(i int) float64 { return 1 + r.Float64() })},
		{"one value", sample(big, 0.5, func(int) float64 { return 7 })},
		{"far outlier", sample(big, 0.05, func(i int) float64 {
			if i == 17 {
				return 1e12
			}
			return r.Float64()
		})},
		{"no censoring", &ingest.Sample{Times: sample(big, 0, func(int) float64 { return r.ExpFloat64() }).Times}},
		{"one settled", &ingest.Sample{Times: []float64{3, 9, 1}, Censored: []bool{true, false, true}}},
	}
	// Censored items far below and above the settled ones.
	co := cases[3].s
	for i := 0; i < len(co.Times); i += 3 {
		co.Censored[i] = true
		co.Times[i] = []float64{0, 1e9}[i%2]
	}
	for _, c := range cases {
		var x []float64
		for i, v := range c.s.Times {
			if !c.s.IsCensored(i) {
				x = append(x, v)
			}
		}
		slices.Sort(x)
		for _, p := range []float64{0, 0.01, 0.25, 0.5, 0.9, 0.99, 0.999, 1} {
			h := float64(len(x)-1) * p
			j := int(math.Floor(h))
			want := x[j]
			if f := h - float64(j); f > 0 {
				want = x[j] + f*(x[j+1]-x[j])
			}
			if got, n := SettledQuantile(c.s, p); got != want || n != len(x) {
				t.Errorf("%s: SettledQuantile(%g) = %v, %d; want %v, %d", c.name, p, got, n, want, len(x))
			}
		}
	}
}
