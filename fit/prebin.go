package fit

import (
	"math"
	"sync"

	"github.com/pollfit/pollfit/internal/bulk"
)

// Pre-binning of large samples.
//
// Above preBinAbove settled items, smooth does not materialise the
// transformed times and their masses (two more arrays the size of the
// sample) in the log domain: one pass on all cores de-rounds each item,
// takes the spikes' shares, and bins it on a grid of preBinCells cells
// spanning the data in ln t. (The linear domains are fitted item by item:
// 2¹⁶ cells over a range of hours are too coarse against their
// bandwidths of hundredths of a second.) The bandwidth rules and the
// KDE then run on the weighted sample of the cells' centres, with the
// effective sample size of the items themselves. Linear binning moves an
// item by less than a cell, range/65535 (2·10⁻⁴ for data spanning 1 ms to
// 1 h in ln t), against bandwidths of 10⁻² and more at these sample sizes:
// the density changes by O((cell/h)²) < 10⁻³ relative (Wand & Jones 1995,
// Kernel Smoothing, appendix D, on the error of binned KDE). Smaller
// samples are used item by item, as R's density() does.
const preBinCells = 1 << 16

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
func deround(v, delta float64, i int) float64 { return deroundBy(v, delta, weyl(i)) }

// deroundBy is deround with the Weyl offset w given (preBin steps it).
func deroundBy(v, delta, w float64) float64 {
	if delta <= 0 {
		return v
	}
	floor := min(v, delta) / 2
	v += delta * (w - 0.5)
	if v < floor {
		v = floor
	}
	return v
}

// preBin transforms and bins the settled items t (masses m in any form of
// masses, read in index order by a cursor per chunk; counts of real items
// cw, nil: 1 each) as described above, taking the spikes' shares (spikes
// may be nil) and setting their masses. It returns the weighted sample of the
// non-empty cells and the total mass left in it.
func preBin(t []float64, m masses, cw []float64, delta float64, spikes *spikeSet) (wsample, float64) {
	n := len(t)
	tmin, tmax := minMax(t)
	lo, hi := max(tmin-delta/2, min(tmin, delta)/2), tmax+delta/2
	if delta <= 0 {
		lo, hi = tmin, tmax
	}
	// Items go first into buckets of their float bits
	// (2¹⁴ per binade, of relative width 6·10⁻⁵), without a logarithm per
	// item; each bucket's mass is then spread over its extent in ln t and
	// binned. 10⁷ logarithms were most of the time. (2¹² per binade moved
	// ISJ's bandwidth by 3 % on 1.2M items: too coarse.)
	base, buckets := 0, 0
	if lo > 0 {
		base = int(math.Float64bits(lo) >> bucketShift)
		buckets = int(math.Float64bits(hi)>>bucketShift) - base + 1
	}
	bucketed := buckets > 0 && buckets <= 1<<20
	lo, hi = math.Log(lo), math.Log(hi)
	if !(hi > lo) {
		hi = lo + 1 // all equal: the bandwidth rules say so
	}
	dx := (hi - lo) / (preBinCells - 1)
	invDx := 1 / dx
	size := preBinCells
	if bucketed {
		size = buckets
	}
	chunks := bulk.NumChunks(n)
	// Chunks are added up in chunk order as they finish (the sums then do
	// not depend on the schedule), and their bins reused: a fresh set per
	// chunk cost more in page faults than the binning.
	acc := make([]float64, size)
	var sum, sumSq float64
	spikeSums := make([][]float64, chunks)
	var mu sync.Mutex
	turn := sync.NewCond(&mu)
	next := 0
	free := make(chan []float64, 2)
	// Items outside the span of the spikes' regions, nearly all of them,
	// skip take, which leaves their mass as it is (a call per item was a
	// fifth of this pass's instructions).
	spikeLo, spikeHi := math.Inf(1), math.Inf(-1)
	if spikes != nil {
		for _, r := range spikes.region {
			spikeLo, spikeHi = min(spikeLo, r.lo), max(spikeHi, r.hi)
		}
	}
	bulk.Chunks(n, func(ch, a, b int) {
		var bins, spike []float64
		select {
		case bins = <-free:
		default:
			bins = make([]float64, size)
		}
		if spikes != nil {
			spike = make([]float64, len(spikes.atoms))
		}
		// The Weyl offsets of deround, stepped instead of recomputed:
		// frac((i+1)φ) = frac(frac(iφ) + φ), to rounding.
		wy := weyl(a)
		var psum, psumSq float64
		mc := m.cursor(t, a)
		for i := a; i < b; i++ {
			v, w := t[i], mc.of(i)
			if v >= spikeLo && v < spikeHi {
				w = spikes.take(v, w, spike)
			}
			y := deroundBy(v, delta, wy)
			if wy += weylStep; wy >= 1 {
				wy--
			}
			if w == 0 {
				continue
			}
			psum += w
			if cw == nil {
				psumSq += w * w
			} else if cw[i] > 0 {
				psumSq += w * w / cw[i] // see wsample.cw
			}
			if bucketed {
				bins[int(math.Float64bits(y)>>bucketShift)-base] += w
				continue
			}
			// Spans beyond 2²⁰ buckets (64 binades): straight to the cells.
			j, f := cellOf(math.Log(y), lo, invDx)
			bins[j] += w * (1 - f)
			bins[j+1] += w * f
		}
		mu.Lock()
		for next != ch {
			turn.Wait()
		}
		for j, v := range bins {
			acc[j] += v
		}
		sum += psum
		sumSq += psumSq
		spikeSums[ch] = spike
		next++
		turn.Broadcast()
		mu.Unlock()
		clear(bins)
		select {
		case free <- bins:
		default:
		}
	})
	if spikes != nil {
		spikes.setMasses(spikeSums)
	}
	bins := acc
	if bucketed {
		// Each bucket's mass spread evenly over its extent in ln t (at 4
		// points, binned linearly): its items fill it about evenly, and a
		// point mass per bucket would be a comb that ISJ resolves.
		bins = make([]float64, preBinCells)
		for k, v := range acc {
			if v == 0 {
				continue
			}
			from := math.Log(math.Float64frombits(uint64(base+k) << bucketShift))
			to := math.Log(math.Float64frombits(uint64(base+k+1) << bucketShift))
			for q := range bucketPoints {
				j, f := cellOf(from+(float64(q)+0.5)*(to-from)/bucketPoints, lo, invDx)
				bins[j] += v / bucketPoints * (1 - f)
				bins[j+1] += v / bucketPoints * f
			}
		}
	}
	// A cell of mass v stands for v·Σm/Σm² items: the cells then have the
	// items' Σm²/Σm per unit of mass, and their effective sample size is
	// the items' (Σm)²/Σm² (wsample.cw), n for equal masses.
	perMass := float64(n) / sum
	if m.T != nil || m.item != nil || spikes != nil || cw != nil {
		perMass = sum / sumSq
	}
	var s wsample
	for j, v := range bins {
		if v > 0 {
			s.x = append(s.x, lo+float64(j)*dx)
			s.w = append(s.w, v)
			s.cw = append(s.cw, v*perMass)
		}
	}
	return s, sum
}

// bucketPoints is how many points spread a bucket's mass.
const bucketPoints = 4

// bucketShift keeps the exponent and 14 mantissa bits of a float64: the
// buckets of preBin's log domain.
const bucketShift = 52 - 14

// cellOf returns the pre-binning cell j below y and y's fraction of the
// way to cell j+1 (linear binning), clamped to the grid.
func cellOf(y, lo, invDx float64) (int, float64) {
	pos := (y - lo) * invDx
	if pos < 0 {
		pos = 0
	}
	j := int(pos)
	if j > preBinCells-2 {
		j = preBinCells - 2
	}
	return j, min(pos-float64(j), 1)
}
