package fit

import (
	"cmp"
	"math"
	"math/rand/v2"
	"slices"
	"sync"
)

// Cross-validated spikes.
//
// The spike rule (spikes.go) finds cells of ln t far denser than their
// neighbours. That is what a deadline does, but also what a narrow smooth
// mode does: the cold starts of a latency log, lognormal with σ = 0.03
// around 4.9 s, filled a few cells with 36 % of the items and were taken
// as a uniform spike over 4.66–5.08 s, whose fitted CDF reached 0.992 at
// 5.08 s where the data had 0.971. A KDE with a bandwidth chosen on the
// whole sample (ISJ picks 0.009 there) follows such a mode; a deadline's
// pile-up, narrower than any bandwidth the rest of the density allows, it
// cannot. So a flagged cell stays a spike only where the fit with it
// predicts data not used to fit it better than the fit without it.
//
// The test is 2-fold cross-validation of the log-likelihood (Stone 1974,
// "Cross-validatory choice and assessment of statistical predictions",
// JRSS B 36(2)), candidate by candidate, largest excess mass first
// (forward selection): on an evenly strided subsample of at most
// spikeCVItems items split at random (fixed seed) into halves A and B,
// the whole estimate — spike shares and extent, bandwidth, KDE — is
// fitted on A with the spikes kept so far, and again with the candidate
// added, and both are scored on B; then the other way round. Each item
// is held out once and gives the difference d of its log-likelihood under
// the two fits (the probability of its resolution cell, as
// HoldoutLogLik). The candidate is kept when the mean difference is more
// than spikeKeepZ standard errors above 0:
//
//	z = mean(d) / (sd(d) / √n) > spikeKeepZ
//
// which is Vuong's (1989) test of two non-nested models on held-out
// rather than in-sample likelihoods (weighted by the items' masses, n
// Kish's effective size, when Kaplan–Meier weights them). The
// cells' places come from the whole sample (the rule's Bonferroni-
// corrected Poisson test keeps chance cells out); everything the spike
// takes or leaves is measured on the training half only.
const spikeKeepZ = 2.0

// spikeCVItems bounds the cross-validation subsample: each fit of a half
// is then an item-by-item fit of 2¹⁴ items, and a spike of the least mass
// the rule admits (0.5 %) has about 80 items in each half. (2¹⁶ cost the
// default fit of 10⁷ payments 20 % more CPU than before the
// cross-validation; 2¹⁵ with ISJ on 2¹² bins in these fits, 6 %.)
const spikeCVItems = 1 << 15

// keepSpikes finds the candidate spikes of the settled items t (masses m,
// count weights k; see spikeCandidates) and returns those the
// cross-validation above keeps, measured on the whole (screened) sample,
// or nil. d holds the resolution and the exact atoms.
func (d *Density) keepSpikes(t []float64, m masses, k []float64, opt Options) *spikeSet {
	cells, st, sm, sk := spikeCandidates(t, m, k, d.Resolution)
	if len(cells) == 0 {
		return nil
	}
	cv := newSpikeCV(t, m, k, d, opt)
	slices.SortStableFunc(cells, func(a, b spikeCell) int { return cmp.Compare(b.excess, a.excess) })
	var kept []spikeCell
	base := cv.logLiks(nil)
	for _, c := range cells {
		with := append(slices.Clone(kept), c)
		ll := cv.logLiks(with)
		if cv.z(ll, base) > spikeKeepZ {
			kept, base = with, ll
		}
	}
	if len(kept) == 0 {
		return nil
	}
	slices.SortFunc(kept, func(a, b spikeCell) int { return cmp.Compare(a.lo, b.lo) })
	return spikesOf(kept, st, sm, sk)
}

// spikeCV holds the two halves of the cross-validation subsample.
type spikeCV struct {
	half [2]spikeHalf
	base *Density // resolution and exact atoms
	opt  Options
}

// spikeHalf is one half: times, masses scaled to the whole, count
// weights, and the weights of its items as held-out items.
type spikeHalf struct {
	t, m, k, w []float64
}

func newSpikeCV(t []float64, m masses, k []float64, d *Density, opt Options) *spikeCV {
	n := len(t)
	ncv := min(n, spikeCVItems)
	step := float64(n) / float64(ncv)
	perm := rand.New(rand.NewPCG(11, 0x73706b)).Perm(ncv) // "spk"
	inA := make([]bool, ncv)
	for _, j := range perm[:ncv/2] {
		inA[j] = true
	}
	cv := &spikeCV{base: d, opt: opt}
	for j := range ncv {
		i := int(float64(j) * step)
		h := &cv.half[0]
		if !inA[j] {
			h = &cv.half[1]
		}
		h.t = append(h.t, t[i])
		mi := m.one(t, i)
		h.m = append(h.m, mi)
		h.w = append(h.w, mi*float64(n))
		ki := 1.0
		if k != nil {
			ki = k[i]
		}
		h.k = append(h.k, ki)
	}
	for f := range cv.half {
		h := &cv.half[f]
		// A half's items stand for n/len(h.t) items each.
		scale := float64(n) / float64(len(h.t))
		for i := range h.m {
			h.m[i] *= scale
		}
	}
	return cv
}

// logLiks fits each half with the spikes of cells and returns the
// log-likelihoods of the other half's items, half B's items first (as
// fitted on A), then half A's. A fit that fails gives NaN.
func (cv *spikeCV) logLiks(cells []spikeCell) []float64 {
	var part [2][]float64
	var wg sync.WaitGroup
	for f := range cv.half {
		wg.Go(func() { // the halves' fits are independent: on both cores
			train, test := &cv.half[f], &cv.half[1-f]
			d := &Density{Resolution: cv.base.Resolution, Atoms: slices.Clone(cv.base.Atoms), Warnings: []string{}}
			var sp *spikeSet
			if len(cells) > 0 {
				sp = spikesOf(cells, train.t, train.m, train.k)
			}
			err := d.smoothPart(train.t, masses{item: train.m}, nil, nil, sp, cv.opt, false)
			ll := make([]float64, len(test.t))
			for i, v := range test.t {
				ll[i] = math.NaN()
				if err == nil {
					ll[i], _ = cellLogLik(d, v)
				}
			}
			part[f] = ll
		})
	}
	wg.Wait()
	return append(part[0], part[1]...)
}

// z returns Vuong's statistic of the held-out log-likelihoods ll against
// base (see spikeKeepZ); −Inf when a fit failed.
func (cv *spikeCV) z(ll, base []float64) float64 {
	w := append(slices.Clone(cv.half[1].w), cv.half[0].w...)
	var sw, sw2, mean float64
	for i, v := range ll {
		dv := v - base[i]
		if math.IsNaN(dv) {
			return math.Inf(-1)
		}
		sw += w[i]
		sw2 += w[i] * w[i]
		mean += w[i] * dv
	}
	mean /= sw
	var ss float64
	for i, v := range ll {
		ss += w[i] * sq(v-base[i]-mean)
	}
	sd := math.Sqrt(ss / sw)
	neff := sw * sw / sw2
	if sd == 0 {
		if mean > 0 {
			return math.Inf(1)
		}
		return 0
	}
	return mean / (sd / math.Sqrt(neff))
}
