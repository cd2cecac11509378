package fit

import (
	"math"

	"github.com/pollfit/pollfit/sample"
)

// SettledQuantile returns the p-quantile (0 ≤ p ≤ 1) of the settle times
// among items that settle, by the Kaplan–Meier estimate of the sample, and
// the number of settled items; it is 0, 0 when every item is censored.
// That quantile is the smallest t with
//
//	F_KM(t) ≥ p·F_KM(t_max)        (t_max the last settle)
//
// interpolated as R's type 7 (Hyndman & Fan 1996) in the weighted form of
// wsample.quantiles, each settled item weighing its Kaplan–Meier mass
// S(t_j−)/n_j (Efron's redistribution to the right). A pending item
// younger than some settle is thus not left out as though it would never
// settle: its mass goes to the settles after its age (pending items
// censored at 0–60 s put the 99th percentile of the settled rows
// alone at 40.9 s, where the estimate still has 6.6 % to settle).
//
// When no item is censored, or every censored time is at or beyond the
// last settle (or before the first), the masses are equal (with Weights, proportional to the
// weights) and the quantile is the type 7 quantile of the settled times
// alone, computed as before this estimate: the same float.
func SettledQuantile(s *sample.Sample, p float64) (float64, int) {
	n := s.Len() - s.CensoredCount()
	if n == 0 {
		return 0, 0
	}
	if !censoredAmongSettles(s) {
		return settledQuantileEqual(s, p), n
	}
	if s.Weights != nil {
		// Weighted (binned) samples are small: their masses one an item.
		_, times, mass := kaplanMeier(s)
		return wsample{x: times, w: mass.perItem(times)}.quantiles(p)[0], n
	}
	return kmQuantile(s.Times, s.Censored, p, kmWindow(s.Len())), n
}

// censoredAmongSettles reports whether some censored item of s lies
// among the settles, at or after the first and before the last, which
// makes the Kaplan–Meier masses of the settled items unequal: censored
// before the first settle, items leave the risk set before any jump
// (each settle then carries 1/(n − those)); at or beyond the last, after
// every jump.
func censoredAmongSettles(s *sample.Sample) bool {
	if s.CensoredCount() == 0 {
		return false
	}
	first, last := math.Inf(1), math.Inf(-1)
	for i, t := range s.Times {
		if !s.Censored[i] {
			first, last = min(first, t), max(last, t)
		}
	}
	for i, t := range s.Times {
		if s.Censored[i] && t >= first && t < last {
			return true
		}
	}
	return false
}

// settledQuantileEqual is SettledQuantile when the settled items' masses
// are equal: the type 7 quantile of their times.
func settledQuantileEqual(s *sample.Sample, p float64) float64 {
	if s.Weights == nil {
		n := s.Len() - s.CensoredCount()
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
		return q
	}
	var ws wsample
	for i, t := range s.Times {
		if !s.IsCensored(i) {
			ws.x = append(ws.x, t)
			ws.w = append(ws.w, s.Weights[i])
		}
	}
	return ws.quantiles(p)[0]
}
