package fit

import (
	"math"
	"sync"
)

// Pre-binning of large samples.
//
// Above preBinAbove settled items, smooth does not materialise the
// transformed times and their masses (two more arrays the size of the
// sample): one pass on all cores transforms each item (de-rounding, ln t
// in the log domain), takes the spikes' shares, and bins it linearly on a
// grid of preBinCells cells spanning the data. The bandwidth rules and the
// KDE then run on the weighted sample of the cells' centres, with the
// effective sample size of the items themselves. Linear binning moves an
// item by less than a cell, range/65535 (2·10⁻⁴ for data spanning 1 ms to
// 1 h in ln t), against bandwidths of 10⁻² and more at these sample sizes:
// the density changes by O((cell/h)²) < 10⁻³ relative (Wand & Jones 1995,
// Kernel Smoothing, appendix D, on the error of binned KDE). Smaller
// samples are used item by item, as R's density() does.
const preBinCells = 1 << 16

// altBins holds the second set of bins of a preBin chunk (cleared when
// put back), so that each chunk does not fault in fresh memory for it.
var altBins = sync.Pool{New: func() any { return new([preBinCells]float64) }}

// preBinAbove is a variable only so that tests can compare both paths.
var preBinAbove = 1 << 20

// deround spreads item i, recorded as v at resolution delta, over its
// resolution cell: a time recorded as v lies somewhere in [v − δ/2,
// v + δ/2], and spreading each item over its cell before smoothing keeps
// the bandwidth rules from fitting the rounding grid (ties make SJ and
// ISJ collapse to spikes at whole seconds). It returns v + δ(weyl(i) − ½),
// at least min(v, δ)/2 so that it stays > 0: the offsets are the Weyl
// sequence frac(i·φ) − ½, evenly spread over any run of items, so the
// result is deterministic. (The math package's NaN-aware Max and Min
// doubled the cost of this over 10⁷ items; times are finite ≥ 0.)
func deround(v, delta float64, i int) float64 {
	if delta <= 0 {
		return v
	}
	floor := min(v, delta) / 2
	v += delta * (weyl(i) - 0.5)
	if v < floor {
		v = floor
	}
	return v
}

// preBin transforms and bins the settled items t (masses m, nil: 1/len(t)
// each; counts of real items cw, nil: 1 each) as described above, taking the spikes' shares (spikes may be nil)
// and setting their masses. It returns the weighted sample of the
// non-empty cells and the total mass left in it.
func preBin(t, m, cw []float64, delta float64, logDom bool, spikes *spikeSet) (wsample, float64) {
	n := len(t)
	tmin, tmax := minMax(t)
	lo, hi := max(tmin-delta/2, min(tmin, delta)/2), tmax+delta/2
	if delta <= 0 {
		lo, hi = tmin, tmax
	}
	if logDom {
		lo, hi = math.Log(lo), math.Log(hi)
	}
	if !(hi > lo) {
		hi = lo + 1 // all equal: the bandwidth rules say so
	}
	dx := (hi - lo) / (preBinCells - 1)
	type part struct {
		bins       []float64
		spike      []float64
		sum, sumSq float64
	}
	chunks := (n + itemChunk - 1) / itemChunk
	parts := make([]part, chunks)
	unit := 1 / float64(n)
	invDx := 1 / dx
	parallelChunks(n, func(ch, a, b int) {
		p := part{bins: make([]float64, preBinCells)}
		if spikes != nil {
			p.spike = make([]float64, len(spikes.atoms))
		}
		// Two sets of bins, items alternating between them: consecutive
		// items often land in the same bin, and one set would make each
		// add wait for the last (the loop ran half as fast).
		bins := p.bins[:preBinCells:preBinCells]
		alt := altBins.Get().(*[preBinCells]float64)
		defer altBins.Put(alt)
		// The Weyl offsets of deround, stepped instead of recomputed:
		// frac((i+1)φ) = frac(frac(iφ) + φ), to rounding.
		wy := weyl(a)
		var sum, sumSq float64
		for i := a; i < b; i++ {
			v, w := t[i], unit
			if m != nil {
				w = m[i]
			}
			if spikes != nil {
				w = spikes.take(v, w, p.spike)
			}
			y := v
			if delta > 0 {
				floor := min(v, delta) / 2
				y += delta * (wy - 0.5)
				if y < floor {
					y = floor
				}
			}
			if wy += weylStep; wy >= 1 {
				wy--
			}
			if w == 0 {
				continue
			}
			sum += w
			if cw == nil {
				sumSq += w * w
			} else if cw[i] > 0 {
				sumSq += w * w / cw[i] // see kishCounts
			}
			if logDom {
				y = math.Log(y)
			}
			pos := (y - lo) * invDx
			if pos < 0 {
				pos = 0
			}
			j := int(pos)
			if j > preBinCells-2 {
				j = preBinCells - 2
			}
			f := min(pos-float64(j), 1)
			if i&1 == 0 {
				bins[j] += w * (1 - f)
				bins[j+1] += w * f
			} else {
				alt[j] += w * (1 - f)
				alt[j+1] += w * f
			}
		}
		for j, v := range alt {
			bins[j] += v
		}
		clear(alt[:])
		p.sum, p.sumSq = sum, sumSq
		parts[ch] = p
	})
	bins := make([]float64, preBinCells)
	var sum, sumSq float64
	spikeSums := make([][]float64, chunks)
	for ch, p := range parts {
		for j, v := range p.bins {
			bins[j] += v
		}
		sum += p.sum
		sumSq += p.sumSq
		spikeSums[ch] = p.spike
	}
	if spikes != nil {
		spikes.setMasses(spikeSums)
	}
	s := wsample{neff: float64(n)}
	if m != nil || spikes != nil || cw != nil {
		s.neff = sum * sum / sumSq
	}
	for j, v := range bins {
		if v > 0 {
			s.x = append(s.x, lo+float64(j)*dx)
			s.w = append(s.w, v)
		}
	}
	return s, sum
}
