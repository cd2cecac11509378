package fit

import (
	"fmt"
	"math"
	"slices"

	"github.com/pollfit/pollfit/internal/bulk"
)

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
