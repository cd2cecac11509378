package fit

import "github.com/pollfit/pollfit/ingest"

// SettledQuantile returns the p-quantile (0 ≤ p ≤ 1) of the settle times
// of the settled items of s by R's type 7 (Hyndman & Fan 1996; with
// Weights, the weighted form of wsample.quantiles), and the number of
// settled items; it is 0, 0 when every item is censored. Censored items
// are left out, not treated as settling at their age: this is the
// quantile among items that did settle, which a horizon is chosen to
// cover.
func SettledQuantile(s *ingest.Sample, p float64) (float64, int) {
	var ws wsample
	if s.Censored == nil && s.Weights == nil {
		ws.x = s.Times
	} else {
		for i, t := range s.Times {
			if s.IsCensored(i) {
				continue
			}
			ws.x = append(ws.x, t)
			if s.Weights != nil {
				ws.w = append(ws.w, s.Weights[i])
			}
		}
	}
	if len(ws.x) == 0 {
		return 0, 0
	}
	return ws.quantiles(p)[0], len(ws.x)
}
