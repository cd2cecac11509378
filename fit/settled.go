package fit

import (
	"github.com/pollfit/pollfit/ingest"
	"github.com/pollfit/pollfit/internal/bulk"
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
		// One copy of the settled times, of the exact size, selected in
		// place: appending them and selecting on a clone took three
		// times their size (docs/performance.md, Memory).
		x := bulk.Make[float64](0, s.Len()-s.CensoredCount())
		for i, t := range s.Times {
			if !s.IsCensored(i) {
				x = append(x, t)
			}
		}
		if len(x) == 0 {
			return 0, 0
		}
		return quantilesInPlace(x, p)[0], len(x)
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
