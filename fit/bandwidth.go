package fit

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"math/cmplx"
	"slices"
	"strconv"
	"strings"

	"sync"

	"github.com/pollfit/pollfit/internal/bulk"
	"github.com/pollfit/pollfit/sample"
)

// Bandwidth rules accepted by Options.Bandwidth (besides a positive
// number, which is used as the bandwidth itself).
const (
	// BandwidthSilverman is Silverman's rule of thumb
	// 0.9·min(sd, IQR/1.34)·n^(−1/5), as R's bw.nrd0 (Silverman 1986,
	// eq. 3.31).
	BandwidthSilverman = "silverman"
	// BandwidthScott is Scott's variant 1.06·min(sd, IQR/1.34)·n^(−1/5),
	// as R's bw.nrd (Scott 1992).
	BandwidthScott = "scott"
	// BandwidthSJ is the Sheather–Jones solve-the-equation plug-in
	// bandwidth (Sheather & Jones 1991), computed as R's bw.SJ(method =
	// "ste") with nb = 1000 bins.
	BandwidthSJ = "sj"
	// BandwidthISJ is Botev's improved Sheather–Jones plug-in bandwidth
	// (Botev, Grotowski & Kroese 2010, "Kernel density estimation via
	// diffusion", Ann. Statist. 38(5)), which needs no normal reference.
	BandwidthISJ = "isj"
)

// DefaultBandwidth is the bandwidth rule used when Options.Bandwidth is
// empty. It had the best held-out log-likelihood on the real datasets
// (docs/fit.md, "Choosing the defaults").
const DefaultBandwidth = BandwidthISJ

// ErrBandwidth is returned (wrapped) for an unknown bandwidth rule or a
// sample on which a rule is not defined.
var ErrBandwidth = errors.New("bandwidth")

// isjBins is the number of bins of the ISJ rule, as Botev's kde.m.
const isjBins = 1 << 14

// wsample is a set of values with optional weights (nil: all 1).
type wsample struct {
	x []float64
	w []float64
	// cw, when not nil (only with w), holds how many real items each
	// value stands for: a binned input's item stands for count/16 rows, a
	// pre-binned cell (preBin) for the items in it. The cw[i] items
	// behind value i each weigh w[i]/cw[i], so they add w[i]²/cw[i] to
	// the sum of squared weights of the real items, Σw²; nil: each value
	// is one item and adds w[i]². The effective sample size (total) and
	// the sheather–jones pairs within a bin (pairCounts) count those.
	cw []float64
	// width, when not nil, holds the width of the interval each value's
	// rows are spread evenly over, centred on it: binned input's items
	// stand for the rows of a sub-interval of their bin (ingest.BinColumns,
	// itemWidths). sj and isj spread them so (tabulateSpread,
	// spreadPoints), and no rule's bandwidth is taken below their median
	// width (smoothPart); nil: points, as are pre-binned cells (preBin),
	// binned input's too.
	width []float64
	// rec, when not nil, holds the values as recorded, before de-rounding
	// (deround), in the same units and with the same weights. The scale of
	// the rules (sd and quartiles: silverman, scott, sj) comes from them,
	// as R's bw.* compute it on the data as given: de-rounded ties are no
	// longer ties, so their quartiles differ by a fraction of the
	// resolution and bw.nrd0's fallback to the sd when the IQR is 0 never
	// applied (1000, 1000, 1000, 1000, 2001 ms gave 0.0003 s; R 0.292 s).
	rec *wsample
	// snapLog, when > 0 and rec is nil, is the resolution δ of the times
	// behind a pre-binned log-domain sample (x = ln of de-rounded times):
	// its quartiles are snapped to the recorded values ln(kδ) instead.
	snapLog float64
	// log says x is ln t: a sample of one repeated value then falls back
	// to a scale of 1 (a factor e), not R's |x₀|, which in ln t depends on
	// the unit of t.
	log bool
	// isjBins, when > 0, is the number of bins of the ISJ rule (0:
	// isjBins).
	isjBins int
	// bounds, when not nil, holds the smallest and largest of x: a pass
	// over 10⁸ values that the rules and the KDE would each repeat.
	bounds *[2]float64
}

// minMax returns the smallest and largest of s.x.
func (s wsample) minMax() (lo, hi float64) {
	if s.bounds != nil {
		return s.bounds[0], s.bounds[1]
	}
	return minMax(s.x)
}

// withBounds returns s with its bounds computed.
func (s wsample) withBounds() wsample {
	lo, hi := s.minMax()
	s.bounds = &[2]float64{lo, hi}
	return s
}

// total returns Σw and the effective sample size (Σw)²/Σw² of the real
// items (Kish 1965, Survey Sampling, §11.7; see wsample.cw), which is n
// when w is nil, and the number of rows behind frequency weights.
func (s wsample) total() (sum, neff float64) {
	if s.w == nil {
		return float64(len(s.x)), float64(len(s.x))
	}
	var s2 float64
	for i, w := range s.w {
		sum += w
		s2 += s.sqMass(i)
	}
	if s2 == 0 {
		return 0, 0
	}
	return sum, sum * sum / s2
}

// sqMass returns the sum of the squared weights of the real items behind
// value i, w[i]²/cw[i] (see wsample.cw).
func (s wsample) sqMass(i int) float64 {
	w := s.w[i]
	if s.cw == nil {
		return w * w
	}
	if !(s.cw[i] > 0) {
		return 0
	}
	return w * w / s.cw[i]
}

// sd returns the standard deviation with the n−1 divisor (R's sd); with
// weights, the reliability-weighted variance with divisor Σw − Σw²/Σw.
func (s wsample) sd() float64 {
	var sum, mean float64
	if s.w == nil {
		for _, v := range s.x {
			mean += v
		}
		mean /= float64(len(s.x))
		for _, v := range s.x {
			sum += sq(v - mean)
		}
		return math.Sqrt(sum / float64(len(s.x)-1))
	}
	var wsum, w2 float64
	for i, v := range s.x {
		mean += s.w[i] * v
		wsum += s.w[i]
		w2 += s.sqMass(i) // of the real items (wsample.cw)
	}
	mean /= wsum
	for i, v := range s.x {
		sum += s.w[i] * sq(v-mean)
	}
	return math.Sqrt(sum / (wsum - w2/wsum))
}

// quantilesInPlace returns the p-quantiles (p ascending) of x by R's type
// 7, as quantiles does, selecting in O(n) in x itself, which it reorders.
func quantilesInPlace(x []float64, ps ...float64) []float64 {
	out := make([]float64, len(ps))
	n := len(x)
	lo := 0
	for k, p := range ps {
		h := float64(n-1) * p
		j := int(math.Floor(h))
		a := selectK(x[lo:], j-lo) // x[lo:] holds order statistics ≥ lo
		v := a
		if f := h - float64(j); f > 0 && j+1 < n {
			b := minOf(x[j+1:])
			v = a + f*(b-a)
		}
		out[k] = v
		lo = j
	}
	return out
}

// quantiles returns the p-quantiles (p ascending) by R's default type 7
// (Hyndman & Fan 1996): the order statistics interpolated at (n−1)p.
// With weights, the positions are (Σ_{j≤i} w_j − w_i)/(Σw − w_last),
// which is i/(n−1) for equal weights. Without weights it selects in
// O(n) on a copy instead of sorting; above quantileSelectAbove values it
// selects by buckets (quantile.go), with or without weights.
func (s wsample) quantiles(ps ...float64) []float64 {
	if len(s.x) > quantileSelectAbove {
		return s.quantilesLarge(ps)
	}
	if s.w == nil {
		return quantilesInPlace(slices.Clone(s.x), ps...)
	}
	out := make([]float64, len(ps))
	idx := make([]int, len(s.x))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int { return cmp.Compare(s.x[a], s.x[b]) })
	var W float64
	for _, w := range s.w {
		W += w
	}
	den := W - s.w[idx[len(idx)-1]]
	pos := make([]float64, len(idx))
	cum := 0.0
	for k, i := range idx {
		cum += s.w[i]
		pos[k] = (cum - s.w[i]) / den
	}
	for k, p := range ps {
		j, _ := slices.BinarySearch(pos, p)
		switch {
		case j >= len(idx):
			out[k] = s.x[idx[len(idx)-1]]
		case j == 0 || pos[j] == p:
			out[k] = s.x[idx[j]]
		default:
			f := (p - pos[j-1]) / (pos[j] - pos[j-1])
			out[k] = s.x[idx[j-1]] + f*(s.x[idx[j]]-s.x[idx[j-1]])
		}
	}
	return out
}

func minOf(x []float64) float64 {
	m := math.Inf(1)
	for _, v := range x {
		m = math.Min(m, v)
	}
	return m
}

// selectK reorders x so that x[k] is its k-th smallest value, everything
// before it ≤ and everything after it ≥, and returns x[k] (Hoare's
// FIND, median-of-three pivots). Expected O(len(x)).
func selectK(x []float64, k int) float64 {
	lo, hi := 0, len(x)-1
	for hi > lo {
		if hi-lo < 16 {
			slices.Sort(x[lo : hi+1])
			break
		}
		mid := lo + (hi-lo)/2
		a, b, c := x[lo], x[mid], x[hi]
		p := max(min(a, b), min(max(a, b), c))
		i, j := lo, hi
		for i <= j {
			for x[i] < p {
				i++
			}
			for x[j] > p {
				j--
			}
			if i <= j {
				x[i], x[j] = x[j], x[i]
				i++
				j--
			}
		}
		switch {
		case k <= j:
			hi = j
		case k >= i:
			lo = i
		default:
			return x[k]
		}
	}
	return x[k]
}

// spread returns the standard deviation and the interquartile range
// (type 7) of the values as recorded (see wsample.rec).
func (s wsample) spread() (sd, iqr float64) {
	r := s
	if s.rec != nil {
		r = *s.rec
	}
	q := r.quantiles(0.25, 0.75)
	if s.rec == nil && s.snapLog > 0 {
		// A pre-binned sample's items are not at hand: its quartiles, of
		// 2²⁰ items and more, lie within a resolution cell of the
		// recorded ones, which are multiples of δ.
		for i, v := range q {
			q[i] = math.Log(s.snapLog * max(1, math.Round(math.Exp(v)/s.snapLog)))
		}
	}
	return r.sd(), q[1] - q[0]
}

// iqrScale returns min(sd, IQR/div) of the values as recorded, falling
// back as R's bw.nrd0 does when it is 0: to the sd, then (all values
// equal) to the spread of the de-rounded values over their resolution
// cell, then to |x₀| (linear domain only; see wsample.log), then to 1.
func (s wsample) iqrScale(div float64) float64 {
	sd, iqr := s.spread()
	lo := math.Min(sd, iqr/div)
	if !(lo > 0) {
		lo = sd
	}
	if !(lo > 0) && s.rec != nil {
		lo = s.sd()
	}
	if !(lo > 0) && !s.log {
		lo = math.Abs(s.x[0])
	}
	if !(lo > 0) {
		lo = 1
	}
	return lo
}

// silverman is R's bw.nrd0.
func (s wsample) silverman() float64 {
	_, n := s.total()
	return 0.9 * s.iqrScale(1.34) * math.Pow(n, -0.2)
}

// scott is R's bw.nrd.
func (s wsample) scott() float64 {
	_, n := s.total()
	return 1.06 * s.iqrScale(1.34) * math.Pow(n, -0.2)
}

// selectBandwidth returns the bandwidth for rule (a rule name or a
// positive number) on the sample.
func selectBandwidth(rule string, s wsample) (float64, error) {
	if len(s.x) < 2 {
		if v, err := strconv.ParseFloat(rule, 64); err == nil && v > 0 && !math.IsInf(v, 0) {
			return v, nil
		}
		return 0, fmt.Errorf("%w: need at least 2 values to select a bandwidth", ErrBandwidth)
	}
	switch strings.ToLower(rule) {
	case BandwidthSilverman, "nrd0":
		return s.silverman(), nil
	case BandwidthScott, "nrd":
		return s.scott(), nil
	case BandwidthSJ, "sj-ste":
		return s.sheatherJones(1000)
	case BandwidthISJ:
		m := s.isjBins
		if m == 0 {
			m = isjBins
		}
		if isjFixedBins {
			return s.botev(m)
		}
		return s.isj(m)
	}
	v, err := strconv.ParseFloat(rule, 64)
	if err != nil || !(v > 0) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("%w: unknown rule %q (want silverman, scott, sj, isj or a positive number)", ErrBandwidth, rule)
	}
	return v, nil
}

// sjCounts holds the binned pair counts of R's bw.SJ: cnt[k] is the
// (weighted) number of pairs whose bins are k apart, d the bin width.
type sjCounts struct {
	n   float64
	d   float64
	cnt []float64
	// cmax[k] is the largest of cnt[k:], for phi4's and phi6's stop.
	cmax []float64
}

// withMax returns c with cmax set.
func (c sjCounts) withMax() sjCounts {
	c.cmax = slices.Clone(c.cnt)
	for k := len(c.cmax) - 2; k >= 0; k-- {
		c.cmax[k] = max(c.cmax[k], c.cmax[k+1])
	}
	return c
}

// pairCounts reproduces R's bw_pair_cnts (R's src/library/stats/src/
// bandwidths.c, bw_den and bw_den_binned): exact pairs for n ≤ nb/2,
// otherwise counts of values truncated to nb bins of width range·1.01/nb,
// with cnt[0] = Σ_b c_b(c_b − 1)/2 over the bins' counts c_b: pairs of
// distinct items, since phi4 and phi6 add the n diagonal terms apart.
//
// With weights, the counts are those of the real items (wsample.cw), each
// weighing v = w·n/Σw with n the effective sample size (total), so that
// Σv = Σv² = n:
//
//	cnt[k] = Σ_{pairs i<j of real items k bins apart} v_i·v_j
//	cnt[0] = Σ_b ((Σ_{i∈b} v_i)² − Σ_{i∈b} v_i²)/2
//
// The weighted functional phi4 is then, in weights normalised to 1,
//
//	ψ̂ = (Σ_i w_i²·L(0) + Σ_{i≠j} w_i w_j L(x_i − x_j)) / (1 − Σw²)
//
// whose off-diagonal sum has expectation (1 − Σw²)·ψ for independent
// items and fixed weights: R's n(n−1) divisor with n = (Σw)²/Σw². Equal
// weights give R's counts. Frequency weights (binned input: an item
// stands for cw rows) give R's counts on the rows, c_b(c_b − 1)/2 in a
// bin: each row is an item of v = 1, and the self-pairs removed are c_b,
// not the squares of the items' counts, which left out the pairs of rows
// behind one item (docs/scale.md's bins of 200k rows had 0.116 in ln s
// for the rows' 0.063, and no solution, "no TD", on each segment). Binned
// input's rows are spread over their items' sub-intervals
// (tabulateSpread). Kaplan–Meier masses weigh one row each, and their
// self-pairs are Σv². (Sheather & Jones 1991, JRSS B 53(3), §2 and
// eq. 6; Jones & Sheather 1991, Statist. Probab. Lett. 11, on keeping the
// diagonal terms; Wand & Jones 1995, Kernel Smoothing, §3.5 and appendix
// D on binned functionals.)
func (s wsample) pairCounts(nb int) sjCounts {
	sum, neff := s.total()
	lo, hi := s.minMax()
	d := (hi - lo) * 1.01 / float64(nb)
	cnt := make([]float64, nb)
	if s.w == nil && len(s.x) <= nb/2 {
		for i := 1; i < len(s.x); i++ {
			ii := int(s.x[i] / d)
			for j := range i {
				jj := int(s.x[j] / d)
				cnt[abs(ii-jj)]++
			}
		}
		return sjCounts{n: neff, d: d, cnt: cnt}.withMax()
	}
	// trunc(|x|/d)·sign(x) − min + 1, as R, so bins are counted from the
	// smallest value's bin.
	bin := func(v float64) int { return int(math.Trunc(v / d)) }
	b0 := bin(lo)
	wb := make([]float64, nb)
	qb := make([]float64, nb)
	scale := 1.0
	if s.w != nil {
		scale = neff / sum
	}
	if s.width != nil {
		s.tabulateSpread(wb, qb, d, b0, scale)
		return pairsOfBins(wb, qb, neff, d)
	}
	// On all cores, chunk by chunk, the chunks' sums added in order.
	chunks := (len(s.x) + bulk.ChunkItems - 1) / bulk.ChunkItems
	parts := make([][2][]float64, chunks)
	bulk.Chunks(len(s.x), func(c, a, b int) {
		pw, pq := wb, qb
		if chunks > 1 {
			pw, pq = make([]float64, nb), make([]float64, nb)
		}
		for i := a; i < b; i++ {
			k := bin(s.x[i]) - b0
			if k < 0 || k >= nb {
				continue // R's tabulate drops them too
			}
			w, q := scale, scale*scale
			if s.w != nil {
				w, q = s.w[i]*scale, s.sqMass(i)*scale*scale
			}
			pw[k] += w
			pq[k] += q
		}
		parts[c] = [2][]float64{pw, pq}
	})
	if chunks > 1 {
		for _, p := range parts {
			for k := range nb {
				wb[k] += p[0][k]
				qb[k] += p[1][k]
			}
		}
	}
	return pairsOfBins(wb, qb, neff, d)
}

// pairsOfBins returns the pair counts of bins holding masses wb whose
// real items' squared masses add up to qb (see pairCounts).
func pairsOfBins(wb, qb []float64, n, d float64) sjCounts {
	cnt := make([]float64, len(wb))
	// The pairs of bins, over the occupied ones only: an empty bin adds
	// 0 to each count it meets, so leaving it out changes no sum, and in
	// ln t or on a long-tailed linear range half the bins or more are
	// empty at small n (the nb²/2 products were a fifth of sj at 10³).
	occ := make([]int32, 0, len(wb))
	for ii := range wb {
		if wb[ii] == 0 {
			continue
		}
		cnt[0] += (wb[ii]*wb[ii] - qb[ii]) / 2
		w := wb[ii]
		for _, jj := range occ {
			cnt[ii-int(jj)] += w * wb[jj]
		}
		occ = append(occ, int32(ii))
	}
	return sjCounts{n: n, d: d, cnt: cnt}.withMax()
}

// tabulateSpread adds the masses of the values (times scale) and their
// real items' squared masses (times scale²) into bins wb and qb of width d
// counted from bin b0 (as pairCounts numbers them), each value's spread
// evenly over its interval (wsample.width), in proportion to its overlap
// with each bin. Points on a lattice would make a comb of the bins'
// masses wherever the lattice's step is not a whole number of bins, and a
// sample of millions of items then has a sheather–jones bandwidth that
// resolves it: 0.0042 in ln s against the raw rows' 0.026 for momo's
// 5·10⁶ rows (docs/scale.md's DuckDB check) in 30 log-spaced bins per
// decade.
func (s wsample) tabulateSpread(wb, qb []float64, d float64, b0 int, scale float64) {
	nb := len(wb)
	// Bin j of R's trunc(x/d) holds [jd, (j+1)d) for j > 0, ((j−1)d, jd]
	// for j < 0, and (−d, d) for j = 0.
	edges := func(j int) (float64, float64) {
		switch {
		case j > 0:
			return float64(j) * d, float64(j+1) * d
		case j < 0:
			return float64(j-1) * d, float64(j) * d
		}
		return -d, d
	}
	add := func(k int, w, q float64) {
		if k >= 0 && k < nb {
			wb[k] += w
			qb[k] += q
		}
	}
	for i, x := range s.x {
		w, q := scale, scale*scale
		if s.w != nil {
			w, q = s.w[i]*scale, s.sqMass(i)*scale*scale
		}
		r := s.width[i] / 2
		if !(r > 0) {
			add(int(math.Trunc(x/d))-b0, w, q)
			continue
		}
		a, b := x-r, x+r
		for j := int(math.Trunc(a / d)); j <= int(math.Trunc(b/d)); j++ {
			lo, hi := edges(j)
			if f := (min(b, hi) - max(a, lo)) / (b - a); f > 0 {
				add(j-b0, w*f, q*f)
			}
		}
	}
}

// minMax returns the smallest and largest of x.
func minMax(x []float64) (lo, hi float64) {
	if len(x) >= 2*bulk.ChunkItems {
		// On all cores: the extremes of the chunks' extremes are exact.
		parts := make([][2]float64, bulk.NumChunks(len(x)))
		bulk.Chunks(len(x), func(k, a, b int) {
			l, h := minMax(x[a:b])
			parts[k] = [2]float64{l, h}
		})
		lo, hi = math.Inf(1), math.Inf(-1)
		for _, p := range parts {
			lo, hi = min(lo, p[0]), max(hi, p[1])
		}
		return lo, hi
	}
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, v := range x {
		// Plain comparisons: math.Min's NaN and ±0 handling costs 3× here,
		// and the samples hold neither NaN nor −0.
		if v < lo {
			lo = v
		}
		if v > hi {
			hi = v
		}
	}
	return lo, hi
}

func abs(i int) int {
	if i < 0 {
		return -i
	}
	return i
}

// phi4 and phi6 are R's bw_phi4 and bw_phi6: binned estimates of the
// density functionals ψ4 = ∫ (f⁽²⁾)² and ψ6 with a Gaussian pilot of
// bandwidth h (Wand & Jones 1995, §3.5). The exponentials e^(−δ_i/2),
// δ_i = (i·d/h)², come by recurrence (gaussSteps), not one math.Exp a bin:
// sj's root search calls phi4 some forty times.
func (c sjCounts) phi4(h float64) float64 {
	sum := 0.0
	g := newGaussSteps(c.d / h)
	for i, x := range c.cnt {
		delta := sq(float64(i) * c.d / h)
		if delta >= 1000 {
			break
		}
		e := g.next(i)
		if i%sumCheck == 0 && c.restBelow(i, delta, e, 6, sum) {
			break
		}
		sum += e * (delta*delta - 6*delta + 3) * x
	}
	sum = 2*sum + c.n*3
	return sum / (c.n * (c.n - 1) * math.Pow(h, 5) * math.Sqrt(2*math.Pi))
}

func (c sjCounts) phi6(h float64) float64 {
	sum := 0.0
	g := newGaussSteps(c.d / h)
	for i, x := range c.cnt {
		delta := sq(float64(i) * c.d / h)
		if delta >= 1000 {
			break
		}
		e := g.next(i)
		if i%sumCheck == 0 && c.restBelow(i, delta, e, 15, sum) {
			break
		}
		sum += e * (delta*delta*delta - 15*delta*delta + 45*delta - 15) * x
	}
	sum = 2*sum - 15*c.n
	return sum / (c.n * (c.n - 1) * math.Pow(h, 7) * math.Sqrt(2*math.Pi))
}

// restBelow says whether the terms of phi4 (deg 6: |δ² − 6δ + 3| ≤ P(δ) =
// δ² + 6δ + 3) or phi6 (deg 15: P(δ) = δ³ + 15δ² + 45δ + 15) from bin i
// on, at δ = (i·d/h)² with e = e^(−δ/2), can no longer change their sum:
// each is at most cmax[i]·e^(−δ/2)·P(δ) (counts are ≥ 0), which falls with δ once δ > 9
// (the derivative of e^(−δ/2)·P(δ) is negative from δ ≈ 2.2 for phi4 and
// 3.2 for phi6), so when that bound at i is below 2⁻⁵⁶·|sum|, under an
// eighth of an ulp of the sum, adding any of them rounds back to the same
// sum (also across a power of 2, where the spacing below halves), and the
// sum is bit for bit the one over every bin (TestPhiStop).
func (c sjCounts) restBelow(i int, delta, e float64, deg int, sum float64) bool {
	if delta <= 9 {
		return false
	}
	p := delta*delta + 6*delta + 3
	if deg == 15 {
		p = delta*delta*delta + 15*delta*delta + 45*delta + 15
	}
	return c.cmax[i]*e*p < 0x1p-56*math.Abs(sum)
}

// gaussSteps yields e^(−(i·u)²/2) for i = 0, 1, 2, … in turn, by the
// recurrence of sumExpTerms: with a = u²/2, e^(−a·i²) =
// e^(−a·(i−1)²)·e^(−a·(2i−1)) and e^(−a·(2i+1)) = e^(−a·(2i−1))·e^(−2a),
// from math.Exp again every sumRestart steps.
type gaussSteps struct {
	a, step, e, f float64
}

func newGaussSteps(u float64) gaussSteps {
	a := u * u / 2
	return gaussSteps{a: a, step: math.Exp(-2 * a)}
}

// next returns e^(−a·i²); i must count up from 0 by 1.
func (g *gaussSteps) next(i int) float64 {
	if i%sumRestart == 0 {
		j := float64(i)
		g.e, g.f = math.Exp(-g.a*j*j), math.Exp(-g.a*(2*j+1))
		return g.e
	}
	g.e *= g.f
	g.f *= g.step
	return g.e
}

// sheatherJones is R's bw.SJ(x, nb, method = "ste") of the values
// smoothed (de-rounded, when the data have a resolution: on the recorded
// ties R's pair counts see a comb and it fits the rounding grid, 0.014 s
// on 300 whole seconds of five distinct values). R stops uniroot at tol =
// 0.1·lower (about 1% of the bandwidth); this solves to 1e-10 relative,
// so results agree with R's to within R's tolerance. Like R, it fails
// when the interquartile range of the values as recorded is 0.
func (s wsample) sheatherJones(nb int) (float64, error) {
	c := s.pairCounts(nb)
	n := c.n
	sd, iqr := s.spread()
	if !(iqr > 0) {
		// R's bw.SJ stops on such data ("sample is too sparse to find
		// TD"): its pilot bandwidths are multiples of the IQR. De-rounded,
		// the ties would give an IQR of a resolution or less and pilots
		// that resolve the spread inside one resolution cell.
		return 0, fmt.Errorf("%w: sheather-jones needs a spread: half the sample or more is one recorded value (interquartile range 0)", ErrBandwidth)
	}
	if s.rec != nil || s.snapLog > 0 {
		// The scale is of the values smoothed (spread's, when they are
		// the values as recorded).
		q := s.quantiles(0.25, 0.75)
		sd, iqr = s.sd(), q[1]-q[0]
	}
	scale := math.Min(sd, iqr/1.349)
	a := 1.24 * scale * math.Pow(n, -1.0/7)
	b := 1.23 * scale * math.Pow(n, -1.0/9)
	c1 := 1 / (2 * math.Sqrt(math.Pi) * n)
	td := -c.phi6(b)
	if !(td > 0) || math.IsInf(td, 0) {
		return 0, fmt.Errorf("%w: sample is too sparse for sheather-jones (no TD)", ErrBandwidth)
	}
	alph2 := 1.357 * math.Pow(c.phi4(a)/td, 1.0/7)
	if math.IsNaN(alph2) || math.IsInf(alph2, 0) {
		return 0, fmt.Errorf("%w: sample is too sparse for sheather-jones (no alpha2)", ErrBandwidth)
	}
	fSD := func(h float64) float64 { return math.Pow(c1/c.phi4(alph2*math.Pow(h, 5.0/7)), 0.2) - h }
	hmax := 1.144 * scale * math.Pow(n, -0.2)
	lower, upper := 0.1*hmax, hmax
	for itry := 1; fSD(lower)*fSD(upper) > 0; itry++ {
		if itry > 99 {
			return 0, fmt.Errorf("%w: no sheather-jones solution", ErrBandwidth)
		}
		if itry%2 == 1 {
			upper *= 1.2
		} else {
			lower /= 1.2
		}
	}
	return bisect(fSD, lower, upper, 1e-10*upper), nil
}

// brent returns a root of f in [a, b], where f(a) and f(b) differ in
// sign, to within tol + 4·ε·|root| (Brent 1973, Algorithms for
// Minimization without Derivatives, ch. 4, "zero"): bisection safeguarded
// inverse quadratic interpolation, some ten evaluations where bisection
// takes forty.
func brent(f func(float64) float64, a, b, tol float64) float64 {
	return brentFrom(f, a, b, f(a), f(b), tol)
}

// brentFrom is brent given fa = f(a) and fb = f(b), for a caller that has
// evaluated them already.
func brentFrom(f func(float64) float64, a, b, fa, fb, tol float64) float64 {
	const eps = 0x1p-52
	c, fc := a, fa
	d := b - a
	e := d
	for range 200 {
		if (fb > 0) == (fc > 0) {
			c, fc = a, fa
			d = b - a
			e = d
		}
		if math.Abs(fc) < math.Abs(fb) {
			a, b, c = b, c, b
			fa, fb, fc = fb, fc, fb
		}
		tol1 := 2*eps*math.Abs(b) + tol/2
		xm := (c - b) / 2
		if math.Abs(xm) <= tol1 || fb == 0 {
			return b
		}
		if math.Abs(e) >= tol1 && math.Abs(fa) > math.Abs(fb) {
			// Inverse quadratic interpolation, or the secant with two points.
			var p, q float64
			s := fb / fa
			if a == c {
				p = 2 * xm * s
				q = 1 - s
			} else {
				q0, r := fa/fc, fb/fc
				p = s * (2*xm*q0*(q0-r) - (b-a)*(r-1))
				q = (q0 - 1) * (r - 1) * (s - 1)
			}
			if p > 0 {
				q = -q
			} else {
				p = -p
			}
			if 2*p < math.Min(3*xm*q-math.Abs(tol1*q), math.Abs(e*q)) {
				e, d = d, p/q
			} else {
				d, e = xm, xm
			}
		} else {
			d, e = xm, xm
		}
		a, fa = b, fb
		if math.Abs(d) > tol1 {
			b += d
		} else if xm > 0 {
			b += tol1
		} else {
			b -= tol1
		}
		fb = f(b)
	}
	return b
}

// bisect returns a root of f in [a, b], where f(a) and f(b) differ in
// sign, to within tol.
func bisect(f func(float64) float64, a, b, tol float64) float64 {
	fa := f(a)
	for range 200 {
		m := (a + b) / 2
		if b-a <= tol {
			return m
		}
		fm := f(m)
		if fm == 0 {
			return m
		}
		if (fm < 0) == (fa < 0) {
			a, fa = m, fm
		} else {
			b = m
		}
	}
	return (a + b) / 2
}

// botev is the improved Sheather–Jones bandwidth of Botev, Grotowski &
// Kroese (2010), following their reference implementation kde.m: the
// data are binned on m points over [min − range/10, max + range/10], the
// functionals ‖f^(j)‖² come from the discrete cosine transform of the
// bins, and t* solves t = ξγ^[l](t) with l = 7 stages (their eq. 29).
// The bandwidth is √t*·R. Deviations from kde.m: linear instead of simple
// binning, and N is the (effective) sample size as in the paper, not the
// number of distinct values.
func (s wsample) botev(m int) (float64, error) { return s.botevOn(m, 0, 0) }

// botevOn is botev on M bins with the fixed-point search seeded by guess
// (botevBins).
func (s wsample) botevOn(M int, guess, spread float64) (float64, error) {
	_, N := s.total()
	lo, hi, R, err := s.isjDomain()
	if err != nil {
		return 0, err
	}
	// Every array here comes from floatScratch and goes back on return
	// (1.6 MB a fit, which the garbage collector cost more to reclaim
	// than to fill at 10³ values).
	bins := s.isjBinned(M, lo, hi)
	defer floatScratch.put(bins)
	return botevBins(bins, R, N, guess, spread)
}

// isjDomain returns kde.m's bin domain [lo, hi], the data's range widened
// by a tenth on either side, and its length R.
func (s wsample) isjDomain() (lo, hi, R float64, err error) {
	lo, hi = s.minMax()
	r := hi - lo
	if !(r > 0) {
		return 0, 0, 0, fmt.Errorf("%w: all values are equal", ErrBandwidth)
	}
	lo, hi = lo-r/10, hi+r/10
	return lo, hi, hi - lo, nil
}

// isjBinned returns the values binned linearly on m points over [lo, hi]
// (binned input's spread over their intervals first), in a buffer of
// floatScratch.
func (s wsample) isjBinned(m int, lo, hi float64) []float64 {
	bins := zeroed(m)
	x, w := s.x, s.w
	if s.width != nil {
		x, w = s.spreadPoints((hi - lo) / float64(m-1))
	}
	binLinear(bins, x, w, 1, lo, hi, false)
	return bins
}

// botevBins is botev's bandwidth from the masses binned on its m points
// over a domain of length R (the bins are normalised in place), for
// samples of effective size N.
//
// With guess > 0, a bandwidth found on coarser bins whose relative error
// is thought below spread, the fixed point is first sought between
// guess/(1 + 2·spread)² and guess·(1 + 2·spread)² (in t = (h/R)²): where
// the fixed-point function changes sign there, Brent's method needs a
// few evaluations near t* instead of the twenty-odd from t = 0, where
// every one of the m − 1 terms of each sum counts. The root is the same
// to Brent's tolerance, a few ulps of t, wherever the function has one
// root; elsewhere the search starts from t = 0 as without a guess.
func botevBins(bins []float64, R, N, guess, spread float64) (float64, error) {
	m := len(bins)
	tot := 0.0
	for _, v := range bins {
		tot += v
	}
	for i := range bins {
		bins[i] /= tot
	}
	a := dct2(bins)
	defer floatScratch.put(a)
	// The sums' coefficients I_k^s·a2_k for s = 2…7, made once for the
	// forty-odd calls of fixed (I_k = k², a2_k = (a_k/2)² with kde.m's
	// a_k = 2·Σ x_j cos(…)).
	const l = 7
	var terms [l + 1][]float64
	for s := 2; s <= l; s++ {
		terms[s] = floatScratch.get(m - 1) // written whole below
		defer floatScratch.put(terms[s])
	}
	amax := floatScratch.get(m - 1) // amax[k−1] = max a2_j over j ≥ k
	defer floatScratch.put(amax)
	for k := 1; k < m; k++ {
		i := float64(k) * float64(k)
		a2 := sq(a[k])
		amax[k-1] = a2
		p := i
		for s := 2; s <= l; s++ {
			p *= i // i^s, multiplied up as kde.m's I.^s
			terms[s][k-1] = p * a2
		}
	}
	for k := m - 3; k >= 0; k-- {
		amax[k] = max(amax[k], amax[k+1])
	}
	sumTerms := func(s int, t float64) float64 { return sumExpTerms(terms[s], amax, s, t) }
	fixed := func(t float64) float64 {
		f := 2 * math.Pow(math.Pi, 2*l) * sumTerms(l, t)
		for s := l - 1; s >= 2; s-- {
			k0 := 1.0
			for j := 1; j <= 2*s-1; j += 2 {
				k0 *= float64(j)
			}
			k0 /= math.Sqrt(2 * math.Pi)
			cst := (1 + math.Pow(0.5, float64(s)+0.5)) / 3
			time := math.Pow(2*cst*k0/N/f, 2/(3+2*float64(s)))
			f = 2 * math.Pow(math.Pi, 2*float64(s)) * sumTerms(s, time)
		}
		return t - math.Pow(2*N*math.Sqrt(math.Pi)*f, -0.4)
	}
	if guess > 0 && spread < 0.5 {
		g := sq(guess / R)
		a, b := g/sq(1+2*spread), g*sq(1+2*spread)
		if fa := fixed(a); fa < 0 {
			if fb := fixed(b); fb > 0 {
				return math.Sqrt(brentFrom(fixed, a, b, fa, fb, 1e-300)) * R, nil
			}
		}
	}
	nc := math.Min(1050, math.Max(50, N))
	tol := 1e-12 + 0.01*(nc-50)/1000
	// fixed(1e-300), the bracket's low end, is also brent's f(0): at
	// t = 1e-300 every e^(−k²π²t) rounds to 1 as at t = 0, so both are
	// t − X for the same X, and 1e-300 − X rounds to −X once X > 10⁻²⁸⁴,
	// which holds whenever X > 0 (X = (2N√π·f)^(−0.4) with f finite is at
	// least 10⁻¹²⁷). Passing it on saves brent two of its twenty-odd
	// evaluations (the other: fixed(tol)), with the same result.
	low := fixed(1e-300) // the same at every tol
	for low < 0 {
		if high := fixed(tol); high > 0 {
			// kde.m solves with fzero, Brent's method, to about the
			// rounding of t; so does this (a bisection to tol·10⁻⁹
			// stopped up to 10⁻⁴ of the bandwidth off where t is small,
			// as in the linear domain's hour-long ranges).
			t := brentFrom(fixed, 0, tol, low, high, 1e-300)
			return math.Sqrt(t) * R, nil
		}
		if tol >= 0.1 {
			break
		}
		tol = math.Min(2*tol, 0.1)
	}
	// kde.m falls back to minimising |fixed| on [0, 0.1]; a failed
	// bracket almost always means too few distinct values.
	return 0, fmt.Errorf("%w: improved sheather-jones found no fixed point", ErrBandwidth)
}

// sumExpTerms returns Σ_k c_k e^(−I_k π² t) over I_k = k², k = 1, 2, …
// with c_k = I_k^s·a2_k (kde.m's fixed_point sums), coef[k−1] = c_k and
// amax[k−1] ≥ a2_j for every j ≥ k. The exponentials come by recurrence,
// not one math.Exp each (most of ISJ's time): with c = π²t,
// e^(−k²c) = e^(−(k−1)²c)·e^(−(2k−1)c) and e^(−(2k+1)c) =
// e^(−(2k−1)c)·e^(−2c). The recurrence restarts from math.Exp every
// sumRestart terms: a rounding error r in e^(−2c) grows to k²r after k
// steps, and r is large against c itself when c is tiny (e^(−2c) = 1 − 2c
// to within 10⁻¹⁶).
//
// The sum stops where the terms left cannot change it. Past term k they
// are at most amax·g(k)·ρ^(j−k), g(k) = k^(2s)·e^(−k²c) and ρ =
// (1 + 1/k)^(2s)·e^(−(2k+1)c), the ratio g(k+1)/g(k), which falls as k
// grows; so once ρ < 1 the tail is at most amax·g(k)/(1 − ρ). When that is
// below 2⁻⁵⁶ of the sum so far, each term left is under a quarter of half
// an ulp of the sum (an ulp of S is at least S·2⁻⁵³), and adding it
// would round back to the same sum: the result is bit for bit the full
// sum's (TestSumExpTermsStop), while the recurrence's error of 10⁻¹¹ at
// most in the terms left is far inside that factor of 4. At the bandwidths
// ISJ ends at, a few hundred of the 2¹⁴ terms matter.
func sumExpTerms(coef, amax []float64, s int, t float64) float64 {
	sum := 0.0
	c := math.Pi * math.Pi * t
	step := math.Exp(-2 * c)
	var e, f float64 // e^(−(k−1)²c), e^(−(2k−1)c)
	for i, ck := range coef {
		if i%sumRestart == 0 {
			j := float64(i + 1)
			e, f = math.Exp(-(j-1)*(j-1)*c), math.Exp(-(2*j-1)*c)
		}
		e *= f
		f *= step
		if e == 0 {
			break
		}
		if i%sumCheck == sumCheck-1 && sumTailBelow(amax[i], e, f, float64(i+1), s, 0x1p-56*sum) {
			break
		}
		sum += ck * e
	}
	return sum
}

// sumTailBelow says whether amax·g(k)/(1 − ρ), sumExpTerms' bound on the
// terms from k on, is below tol, given e = e^(−k²c) and f = e^(−(2k+1)c).
func sumTailBelow(amax, e, f, k float64, s int, tol float64) bool {
	k2, q := k*k, sq(1+1/k)
	g, rho := e*amax, f
	for range s {
		g *= k2
		rho *= q
	}
	return rho < 1 && g <= tol*(1-rho)
}

// sumCheck is how often, in terms, sumExpTerms tests whether the rest of
// its sum can still count: the test costs about as much as ten terms.
const sumCheck = 16

// sumRestart is how many terms of sumTerms' recurrence run between exact
// exponentials: 64 keeps its relative error under 10⁻¹² (64² steps of
// 2·10⁻¹⁶) at 1/32 of the exponentials.
const sumRestart = 64

// dct2 returns c_k = Σ_j x_j cos(πk(2j+1)/(2m)), the unnormalised DCT-II,
// from one real FFT of m points of the reordered sequence v_j = x_{2j},
// v_{m−1−j} = x_{2j+1}: c_k = Re(e^(−iπk/(2m))·V_k) (Makhoul 1980, "A
// fast cosine transform in one and two dimensions", IEEE Trans. ASSP
// 28(1)). m must be even. The result comes from floatScratch.
func dct2(x []float64) []float64 {
	m := len(x)
	v := floatScratch.get(m) // written whole
	for j := range m / 2 {
		v[j] = x[2*j]
		v[m-1-j] = x[2*j+1]
	}
	fft := getFFT(m)
	fv := fft.Coefficients(complexScratch.get(m/2+1), v)
	putFFT(fft)
	defer complexScratch.put(fv)
	tw := dctTwiddles(m)
	out := v // v is no longer needed
	for k := range m {
		var c complex128
		if k <= m/2 {
			c = fv[k]
		} else {
			c = cmplx.Conj(fv[m-k])
		}
		out[k] = real(c)*tw[k][0] + imag(c)*tw[k][1]
	}
	return out
}

// dctTwiddles returns cos and sin of πk/(2m), k < m, made once per m.
func dctTwiddles(m int) [][2]float64 {
	if t, ok := dctTwiddleCache.Load(m); ok {
		return t.([][2]float64)
	}
	tw := make([][2]float64, m)
	for k := range tw {
		s, c := math.Sincos(math.Pi * float64(k) / float64(2*m))
		tw[k] = [2]float64{c, s}
	}
	dctTwiddleCache.Store(m, tw)
	return tw
}

var dctTwiddleCache sync.Map // m → [][2]float64

// spreadPoints returns the values spread over their intervals
// (wsample.width) as points at most step apart, each value's mass shared
// evenly among its points at the midpoints of equal parts of its
// interval: binned linearly on a grid of that step, they fill the
// interval evenly, where the values alone would be a comb.
func (s wsample) spreadPoints(step float64) (x, w []float64) {
	x = make([]float64, 0, len(s.x))
	w = make([]float64, 0, len(s.x))
	for i, v := range s.x {
		m := 1.0
		if s.w != nil {
			m = s.w[i]
		}
		k := max(1, int(math.Ceil(s.width[i]/step)))
		for j := range k {
			x = append(x, v+s.width[i]*((float64(j)+0.5)/float64(k)-0.5))
			w = append(w, m/float64(k))
		}
	}
	return x, w
}

// itemWidth returns the mass-weighted median of the values' widths
// (wsample.width), 0 without them: below it a kernel shows binned input's
// items one by one, a comb where the bins say the rows are spread evenly.
func (s wsample) itemWidth() float64 {
	if s.width == nil {
		return 0
	}
	return wsample{x: s.width, w: s.w}.quantiles(0.5)[0]
}

// itemWidths returns the widths of the intervals binned input's items
// stand for (wsample.width), in ln t when logDom: each item's distance to
// the nearest other time among the items of its segment and censoring
// status. The reader spreads a bin's settled rows (and apart, its
// censored ones) over up to ingest.BinSpread items at the midpoints of
// equal sub-intervals, and a segment's bins do not overlap, so that
// neighbour is the next sub-interval's item, one sub-interval away, or
// the next bin's where the bin has one item. A point bin's items repeat
// one time: their width is 0, as is that of a time ≤ 0 in ln t.
func itemWidths(s *sample.Sample, logDom bool) []float64 {
	width := make([]float64, s.Len())
	groups := map[int64][]int{}
	for i := range s.Times {
		var g int64
		if s.HasSegments() {
			g = 2 * int64(s.SegmentOf(i))
		}
		if s.IsCensored(i) {
			g++
		}
		groups[g] = append(groups[g], i)
	}
	x := func(i int) float64 {
		if logDom {
			return math.Log(s.Times[i])
		}
		return s.Times[i]
	}
	for _, idx := range groups {
		vals := make([]float64, 0, len(idx))
		for _, i := range idx {
			if v := x(i); !math.IsInf(v, 0) {
				vals = append(vals, v)
			}
		}
		slices.Sort(vals)
		for _, i := range idx {
			v := x(i)
			p, ok := slices.BinarySearch(vals, v)
			if !ok || p+1 < len(vals) && vals[p+1] == v {
				continue // repeated: a point bin
			}
			g := math.Inf(1)
			if p > 0 {
				g = v - vals[p-1]
			}
			if p+1 < len(vals) {
				g = min(g, vals[p+1]-v)
			}
			if !math.IsInf(g, 0) {
				width[i] = g
			}
		}
	}
	return width
}

// isj returns the ISJ bandwidth of botev on M bins (isjBins, kde.m's
// 2¹⁴), computed on fewer bins where they are fine against the bandwidth
// found: first on isjFirstBins, then, while the bandwidth spans fewer
// than isjCellsPerBandwidth bins, on the power of two that it would span
// that many of, up to M. The data are binned once, on the M bins; the
// fewer bins take their masses (coarsen), laid so that the DCT sees the
// same domain, and the bandwidth is √t*·R as with M bins: kde.m's DCT sees
// its m bins as the cells of width 1/m of [0, 1], that is of
// [lo − dx/2, hi + dx/2] with dx = R/(m − 1), and its bandwidth
// √t*·R = √t*·L·(m − 1)/m has a bias of −1/m against that domain's
// length L (−6·10⁻⁵ at 2¹⁴ bins, −10⁻³ at 2¹⁰), which coarser bins on
// M's domain share. What is left between the two is the binning, second
// order in step/h: below 0.1 % of the M-bin bandwidth over
// TestISJAdaptiveBins' battery (about 0.3·(step/h)² at most, 3·10⁻⁴ at
// 32 bins per bandwidth) and below the bandwidth's sampling error at
// every n (docs/performance.md, "Fit"). At 10³ lognormal values in ln t
// that is 2¹⁰ bins, at 10⁵ 2¹², at 10⁶ 2¹³: a sixteenth to a half of the
// DCT and of the sums' coefficients, and the fixed-point search on M
// bins, where it comes to that, starts from the coarser answer
// (botevBins). A failed fixed point on fewer bins is tried again on M.
func (s wsample) isj(M int) (float64, error) {
	_, N := s.total()
	lo, hi, R, err := s.isjDomain()
	if err != nil {
		return 0, err
	}
	fine := s.isjBinned(M, lo, hi)
	defer floatScratch.put(fine)
	m := min(M, isjFirstBins)
	var guess, spread float64
	for m < M {
		bins := coarsen(fine, m)
		h, err := botevBins(bins, R, N, guess, spread)
		floatScratch.put(bins)
		if err != nil {
			guess = 0
			break
		}
		step := R * float64(M) / float64(M-1) / float64(m)
		if h >= isjCellsPerBandwidth*step {
			return h, nil
		}
		// The bandwidth at finer bins is close to this one (within about
		// 0.3·(step/h)²) or smaller (a spike's): refine to span it, and
		// check again there.
		guess, spread = h, sq(step/h)
		for m < M && h < isjCellsPerBandwidth*step {
			m *= 2
			step /= 2
		}
	}
	return botevBins(fine, R, N, guess, spread)
}

// coarsen returns the masses of the M points fine, lo + i·dx, moved onto
// m points (M/m = r a power of two) over the same DCT domain: cells of
// width r·dx centred on lo + (r − 1)·dx/2 + j·r·dx, each fine point
// shared linearly between the two coarse points about it (at coarse
// position (i + ½)/r − ½), as linear binning shares a value; the few
// points below the first coarse point or above the last hold no data
// (kde.m's domain runs a tenth of the range past it). The result comes
// from floatScratch.
func coarsen(fine []float64, m int) []float64 {
	M := len(fine)
	r := M / m
	out := zeroed(m)
	for i, v := range fine {
		if v == 0 {
			continue
		}
		pos := (float64(i)+0.5)/float64(r) - 0.5
		if pos < 0 || pos > float64(m-1) {
			continue
		}
		j := int(pos)
		if j >= m-1 {
			out[m-1] += v
			continue
		}
		f := pos - float64(j)
		out[j] += v * (1 - f)
		out[j+1] += v * f
	}
	return out
}

// isjFixedBins makes the ISJ rule bin on all its bins at once (botev), as
// before isj: TestISJAdaptiveBins compares the two.
var isjFixedBins = false

// isjFirstBins is the number of bins isj tries first, and
// isjCellsPerBandwidth how many of them the bandwidth must span to be
// kept (TestISJAdaptiveBins).
const (
	isjFirstBins         = 1 << 10
	isjCellsPerBandwidth = 32
)
