package fit

import (
	"math"
	"math/rand/v2"
)

// minLik is the floor of a held-out item's likelihood, 1/s: one held-out
// time outside the training support must not make the mean −∞ (which
// JSON cannot hold either). Floored items are counted in a warning.
const minLik = 1e-12

// evalCell is the cell width, seconds, used for the held-out likelihood
// of continuous data (Resolution 0): 1 ms, finer than any clock that
// stamps settle times.
const evalCell = 1e-3

// split draws a seeded random holdout: a share frac of the rows (at least
// one, leaving at least two) goes to test, the rest to train. Rows keep
// their order within each part.
func split(s *Sample, frac float64, seed uint64) (train, test *Sample) {
	n := s.Len()
	k := int(math.Round(frac * float64(n)))
	k = max(1, min(k, n-2))
	if n < 3 {
		return s, nil
	}
	r := rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
	held := make([]bool, n)
	for _, i := range r.Perm(n)[:k] {
		held[i] = true
	}
	return s.Subset(func(i int) bool { return !held[i] }), s.Subset(func(i int) bool { return held[i] })
}

// HoldoutLogLik returns the mean log-likelihood per item of the sample
// under d, in log(1/s), and how many items were floored at minLik.
//
// A settled item at t contributes log[(F(t + δ/2) − F(t − δ/2))/δ], the
// probability of its resolution cell per second, with δ = d.Resolution
// (or 1 ms for continuous data) and F = d.CDF. The same formula scores
// atoms and the continuous part, so estimates with and without atoms,
// and in every domain, are compared on one scale; as δ → 0 it is log f(t).
// A censored item contributes log S(t); a settled item beyond the horizon
// is scored as censored there, log StuckShare. Weights weigh the mean.
func HoldoutLogLik(d *Density, s *Sample) (mean float64, floored int) {
	delta := d.Resolution
	if delta == 0 {
		delta = evalCell
	}
	H := d.Horizon()
	var sum, W float64
	for i, t := range s.Times {
		w := s.Weight(i)
		var l float64
		switch {
		case s.IsCensored(i):
			l = d.SurvivalAt(t)
		case t > H:
			l = d.StuckShare
		default:
			l = (d.CDF(t+delta/2) - d.CDF(t-delta/2)) / delta
		}
		if !(l >= minLik) {
			l = minLik
			floored++
		}
		sum += w * math.Log(l)
		W += w
	}
	return sum / W, floored
}
