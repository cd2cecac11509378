package fit

import (
	"cmp"
	"math"
	"slices"
	"testing"
)

// sortedQuantiles is wsample.quantiles by a full sort: type 7 without
// weights, and with them the positions (Σ_{j≤i} w_j − w_i)/(Σw − w_last)
// over the values sorted (ties by sample order).
func sortedQuantiles(s wsample, ps ...float64) []float64 {
	out := make([]float64, len(ps))
	idx := make([]int, len(s.x))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(s.x[a], s.x[b]) })
	n := len(idx)
	if s.w == nil {
		for k, p := range ps {
			h := float64(n-1) * p
			j := int(math.Floor(h))
			v := s.x[idx[j]]
			if f := h - float64(j); f > 0 {
				v += f * (s.x[idx[j+1]] - v)
			}
			out[k] = v
		}
		return out
	}
	var W float64
	for _, w := range s.w {
		W += w
	}
	den := W - s.w[idx[n-1]]
	pos := make([]float64, n)
	cum := 0.0
	for k, i := range idx {
		pos[k] = cum / den
		cum += s.w[i]
	}
	for k, p := range ps {
		j, _ := slices.BinarySearch(pos, p)
		switch {
		case j >= n:
			out[k] = s.x[idx[n-1]]
		case j == 0 || pos[j] == p:
			out[k] = s.x[idx[j]]
		default:
			f := (p - pos[j-1]) / (pos[j] - pos[j-1])
			out[k] = s.x[idx[j-1]] + f*(s.x[idx[j]]-s.x[idx[j-1]])
		}
	}
	return out
}

// TestQuantilesBySelection: above quantileSelectAbove values, the
// quantiles selected by buckets (quantile.go) equal those of a full sort:
// exactly without weights, to rounding with them (the weight before a
// window is summed bucket by bucket, not item by item), on continuous
// data, ties, a far outlier (all but one value in one bucket), values
// spanning 20 decades and four distinct values.
func TestQuantilesBySelection(t *testing.T) {
	r := pcg(9)
	shapes := []struct {
		name string
		draw func(i int) float64
	}{
		{"lognormal", func(int) float64 { return math.Exp(r.NormFloat64()) }},
		{"ties", func(int) float64 { return math.Round(3 * r.NormFloat64()) }},
		{"outlier", func(i int) float64 {
			if i == 7 {
				return 1e12
			}
			return r.Float64()
		}},
		{"decades", func(int) float64 { return math.Exp(5 * r.NormFloat64()) }},
		{"four values", func(int) float64 { return float64(r.IntN(4)) }},
	}
	for _, sh := range shapes {
		for _, weighted := range []bool{false, true} {
			n := quantileSelectAbove + 1 + r.IntN(200_000)
			s := wsample{x: make([]float64, n)}
			for i := range s.x {
				s.x[i] = sh.draw(i)
			}
			tol := 0.0
			if weighted {
				s.w = make([]float64, n)
				for i := range s.w {
					if r.IntN(10) > 0 { // some zero weights
						s.w[i] = r.Float64()
					}
				}
				tol = 1e-9
			}
			ps := []float64{0, 0.001, 0.25, 0.5, 0.75, 0.9}
			got, want := s.quantiles(ps...), sortedQuantiles(s, ps...)
			for k, p := range ps {
				if math.Abs(got[k]-want[k]) > tol*math.Max(1, math.Abs(want[k])) {
					t.Errorf("%s (n %d, weighted %v): quantile(%g) = %.17g, want %.17g (sort)", sh.name, n, weighted, p, got[k], want[k])
				}
			}
		}
	}
}
