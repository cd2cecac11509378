package fit

import (
	"math"

	"github.com/pollfit/pollfit/sample"
)

// minLik is the floor of a held-out item's likelihood, per unit of ln t
// (t·f(t), which does not depend on the unit of t): one held-out time
// outside the training support must not make the mean −∞ (which JSON
// cannot hold either). Floored items are counted in a warning.
const minLik = 1e-12

// evalCellRel is the width, relative to t, of the cell of an item settled
// at t whose probability scores it when the data are continuous
// (Resolution 0): far finer than any clock that stamps settle times, in
// every unit (a fixed 1 ms cell held the whole of sub-millisecond data).
const evalCellRel = 1e-6

// split draws a seeded random holdout: a share frac of the rows (at least
// one, leaving at least two) goes to test, the rest to train. Rows keep
// their order within each part. They are the rows sample.Sample.Split
// holds out for the same share and seed (plan's, compare's), but on
// samples too small for that share.
func split(s *sample.Sample, frac float64, seed uint64) (train, test *sample.Sample) {
	n := s.Len()
	if n < 3 {
		return s, nil
	}
	k := int(math.Round(frac * float64(n)))
	return s.SplitCount(max(1, min(k, n-2)), seed)
}

// HoldoutLogLik returns the mean log-likelihood per item of the sample
// under d, in log(1/s), and how many items were floored at minLik.
//
// A settled item at t contributes log[(F(t + δ/2) − F(t − δ/2))/δ], the
// probability of its resolution cell per second, with δ = d.Resolution
// (or 10⁻⁶·t for continuous data) and F = d.CDF. The same formula scores
// atoms and the continuous part, so estimates with and without atoms,
// and in every domain, are compared on one scale; as δ → 0 it is log f(t).
// A censored item contributes log S(t); a settled item beyond the horizon
// is scored as censored there, log StuckShare. Weights weigh the mean.
func HoldoutLogLik(d *Density, s *sample.Sample) (mean float64, floored int) {
	H := d.Horizon()
	var sum, W float64
	for i, t := range s.Times {
		w := s.Weight(i)
		var l float64
		low := false
		switch {
		case s.IsCensored(i):
			l, low = flooredLog(d.SurvivalAt(t), 1)
		case t > H:
			l, low = flooredLog(d.StuckShare, 1)
		default:
			l, low = cellLogLik(d, t)
		}
		if low {
			floored++
		}
		sum += w * l
		W += w
	}
	return sum / W, floored
}

// cellLogLik returns the log-likelihood of an item settled at t under d:
// log[(F(t + δ/2) − F(t − δ/2))/δ] (see HoldoutLogLik), and whether it
// was floored at minLik per unit of ln t.
func cellLogLik(d *Density, t float64) (float64, bool) {
	delta := d.Resolution
	if delta == 0 {
		delta = evalCellRel * t
		if t == 0 {
			// An item at 0 of continuous data: only an atom at 0 gives it
			// a likelihood; a cell finer than the grid's first step.
			delta = evalCellRel * d.T[min(1, len(d.T)-1)]
		}
	}
	p := (d.CDF(t+delta/2) - d.CDF(t-delta/2)) / delta
	// The floor per unit of ln t: minLik/t per second, but never above
	// the floor of the item's own cell.
	return flooredLog(p, 1/max(t, delta))
}

// flooredLog returns log p, at least log(minLik·unit), and whether the
// floor applied.
func flooredLog(p, unit float64) (float64, bool) {
	if lo := minLik * unit; !(p >= lo) {
		return math.Log(lo), true
	}
	return math.Log(p), false
}
