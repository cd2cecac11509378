package fit

import (
	"math"

	"github.com/pollfit/pollfit/ingest"
)

// SettledQuantile returns the p-quantile (0 ≤ p ≤ 1) of the settle times
// of the settled items of s by R's type 7 (Hyndman & Fan 1996; with
// Weights, the weighted form of wsample.quantiles), and the number of
// settled items; it is 0, 0 when every item is censored. Censored items
// are left out, not treated as settling at their age: this is the
// quantile among items that did settle, which a horizon is chosen to
// cover.
func SettledQuantile(s *ingest.Sample, p float64) (float64, int) {
	if s.Weights == nil {
		n := s.Len() - s.CensoredCount()
		if n == 0 {
			return 0, 0
		}
		// The order statistics are selected among the settled times
		// where they are, by buckets (orderStats), rather than in a copy
		// of them: the copy was the plan's peak, 8 bytes a training row
		// (docs/performance.md, Memory). They are the same values a
		// selection in a copy finds, interpolated by the same formula
		// (quantilesInPlace), so the quantile is the same float.
		var skip []bool
		if n < s.Len() {
			skip = s.Censored
		}
		h := float64(n-1) * p
		j := int(math.Floor(h))
		st := orderStats(s.Times, skip, []int{j, min(j+1, n-1)}, 0, nil)
		q := st[0]
		if f := h - float64(j); f > 0 && j+1 < n {
			q = st[0] + f*(st[1]-st[0])
		}
		return q, n
	}
	var ws wsample
	for i, t := range s.Times {
		if !s.IsCensored(i) {
			ws.x = append(ws.x, t)
			ws.w = append(ws.w, s.Weights[i])
		}
	}
	if len(ws.x) == 0 {
		return 0, 0
	}
	return ws.quantiles(p)[0], len(ws.x)
}
