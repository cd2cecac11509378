package fit

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"github.com/pollfit/pollfit/sample"
)

// MixtureOptions configures MixtureEM. The zero value chooses the number
// of components by BIC among 1…DefaultMaxComponents with the default
// tolerance and iteration cap.
type MixtureOptions struct {
	// K is the number of components; 0 chooses it by BIC.
	K int
	// MaxK is the largest K tried by BIC; 0 means DefaultMaxComponents.
	MaxK int
	// Tol stops EM when the Aitken-extrapolated limit of the
	// log-likelihood is within Tol·n of its current value (n items);
	// 0 means DefaultMixtureTol.
	Tol float64
	// MaxIter caps the EM iterations of the final run for each K; 0 means
	// DefaultMixtureIter. A run stopped by it is reported in Warnings.
	MaxIter int
	// NoStuck fits no share that never settles: censored items are then
	// explained by the components' upper tails alone, as in the other
	// parametric fits (MaxLikelihood). The default fits one whenever the
	// sample has censored items.
	NoStuck bool
}

// Defaults of MixtureOptions.
const (
	DefaultMaxComponents = 6
	DefaultMixtureTol    = 1e-8
	DefaultMixtureIter   = 3000
)

// Guards of the EM against degenerate components.
const (
	// mixSigmaMin is the floor of σ_k, ln s: a component at least 0.1 %
	// wide. Narrower, it is a point mass, and at points that are ties its
	// density would grow without bound.
	mixSigmaMin = 1e-3
	// mixWeightMin is the floor of π_k.
	mixWeightMin = 1e-6
	// mixCells is the number of ln t cells that large samples' settled
	// times are binned into (fine enough for a timeout spike of σ 0.002
	// among times spanning 0.1 s to 45 min), mixCensoredCells that of
	// their censored times.
	mixCells         = 1 << 13
	mixCensoredCells = 1 << 11
	// mixShortIter is the length of the short runs that rank the
	// starts: 20 found better optima than 10 on the payments fixture
	// (K = 5, 6), where 30 found no better ones.
	mixShortIter = 20
	// mixKMeansStarts is the number of k-means++ starts per K.
	mixKMeansStarts = 3
)

// MixtureEM fits a finite mixture of lognormals to the sample by maximum
// likelihood with the EM algorithm (Dempster, Laird & Rubin 1977, JRSS B
// 39:1–38; for mixtures McLachlan & Peel 2000, Finite Mixture Models,
// ch. 2–3), as a mixture of normals of y = ln t.
//
// Data. A settled item at t > 0 contributes w·ln f(t), a right-censored
// one w·ln S(c), with weights w (sample.Sample.Weights; binned input). Times
// rounded to a resolution δ (see Density.Resolution) are grouped data:
// an item recorded as v lies in [v − δ/2, v + δ/2], and where that cell
// is wider than the σ floor in ln t (v below about δ/σ_min = 1000δ) it
// contributes the cell's probability, not a density, so that a
// component cannot collapse onto tied values. Settled times of 0 are an
// atom at 0 (Mixture.Zero, its maximum-likelihood mass is their share),
// as in the log-domain KDE; items censored at 0 carry no information.
//
// Censoring. With censored items the model is a mixture cure model: a
// share Stuck never settles (Farewell 1982), which a censored item
// belongs to with probability ∝ Stuck, and component k with probability
// ∝ π_k·S_k(c). The M-step uses the conditional moments of ln T and
// (ln T)² given ln T in the item's interval (c, ∞) (or its resolution
// cell) under component k, the truncated-normal moments (Johnson, Kotz
// & Balakrishnan 1994, §10.1): the EM for censored and grouped normal
// mixtures of McLachlan & Jones (1988, Biometrics 44:571–578) and
// Chauveau (1995, Statistics & Probability Letters 22:147–157).
//
// Fitting. K = 1, 2, … are fitted in turn (up to the given K, or as
// below). For each K, EM runs from several deterministic starts for 20
// iterations: equal-weight quantile groups of ln t; each component of
// the K−1 fit split in two; the K−1 fit grown by a component where it
// falls shortest of the data (greedy mixture learning, Verbeek, Vlassis
// & Kröse 2003, Neural Computation 15:469–485), which finds narrow modes
// such as a timeout spike; and k-means++ seeds (Arthur & Vassilvitskii
// 2007) drawn from a PCG seeded with K. The best of them is iterated to
// convergence (the "emEM" strategy of Biernacki, Celeux & Govaert 2003,
// CSDA 41:561–575), judged by Aitken's acceleration (Böhning et al.
// 1994, AISM 46:373–388): the extrapolated log-likelihood within Tol·n
// of the current one. σ_k ≥ 10⁻³ and π_k ≥ 10⁻⁶ keep components from
// degenerating.
//
// Choosing K. Without Options.K, the K of least BIC = −2·ln L + p·ln n
// (Schwarz 1978, Ann. Stat. 6:461–464) among K = 1 … MaxK is kept, with
// p = 3K − 1 parameters, one more for Stuck when fitted and one for Zero
// when there are zeros, and n the number of items (the sum of the
// weights). The search stops once BIC has not improved for two K in a
// row, and a K is abandoned before convergence once the Aitken limit of
// its log-likelihood shows it losing by more than 10 (needless
// components converge slowly).
//
// Large samples. With more than 8192 settled items with exact times,
// their times are binned into 8192 cells of equal width Δ in ln t
// spanning them; each cell keeps its weight, mean and variance of
// ln t, so the M-step's sums are exact wherever a cell's
// responsibilities are constant; the E-step takes a cell's
// responsibilities at its mean and its log-likelihood to second order in
// its spread (O(Δ³) per item). A component of σ ≫ Δ sees its
// responsibilities change by O(Δ/σ) across a cell, so the parameters
// move by O((Δ/σ)²) relative: Δ = 0.0017 for data spanning 1 ms to 1 h,
// against σ of 0.1 and more (TestMixtureBinning: 30,000 items, binned
// and exact fits within 10⁻⁴). More than 8192 censored items are binned
// on their own grid of 2048 cells, each taken at its mean ln c. The binning is one pass over
// the sample, so 10⁷ items cost about as much as 10⁴ in EM.
//
// Errors: no settled item with t > 0, or fewer distinct settled times
// than 2K.
func MixtureEM(s *sample.Sample, o MixtureOptions) (*Mixture, error) {
	if o.MaxK <= 0 {
		o.MaxK = DefaultMaxComponents
	}
	if o.Tol <= 0 {
		o.Tol = DefaultMixtureTol
	}
	if o.MaxIter <= 0 {
		o.MaxIter = DefaultMixtureIter
	}
	d := mixtureData(s, !o.NoStuck)
	if d.distinct == 0 {
		return nil, fmt.Errorf("%s needs settled items with time > 0", LogNormalMixture)
	}
	if o.K > 0 && d.distinct < 2*o.K {
		return nil, fmt.Errorf("%s:%d needs at least %d distinct settled times > 0, the sample has %d", LogNormalMixture, o.K, 2*o.K, d.distinct)
	}
	if o.K == 0 && d.distinct < 2 {
		return nil, fmt.Errorf("%s needs at least 2 distinct settled times > 0", LogNormalMixture)
	}
	tol := o.Tol * d.wAll

	type fitted struct {
		p     *emParams
		ll    float64
		iters int
		conv  bool
		bic   float64
		nPar  int
	}
	var best, prev *fitted
	var cands []MixtureCandidate
	// K = 1, 2, …: each fit starts, among others, from the one before
	// (split or grown where it falls short), also when K is given.
	var ks []int
	for k := 1; k <= o.K || (o.K == 0 && k <= o.MaxK && d.distinct >= 3*k-1); k++ {
		ks = append(ks, k)
	}
search:
	for _, K := range ks {
		var from *emParams
		if prev != nil {
			from = prev.p
		}
		nPar := 3*K - 1
		if d.cured {
			nPar++
		}
		if d.zero > 0 {
			nPar++
		}
		penalty := float64(nPar) * math.Log(d.wAll)
		// A K whose log-likelihood, extrapolated to its limit, would
		// still lose to the best BIC by more than 10 is abandoned after
		// 100 iterations: needless components converge slowly.
		abandoned := false
		var watch func(int, float64, float64) bool
		if o.K == 0 && best != nil {
			watch = func(it int, _, limit float64) bool {
				abandoned = it >= 100 && -2*(limit+d.llConst)+penalty > best.bic+10
				return abandoned
			}
		}
		p, short := d.bestStart(K, from, tol)
		ll, iters, conv := d.run(p, o.MaxIter, tol, watch)
		iters += short
		ll += d.llConst
		f := &fitted{p: p, ll: ll, iters: iters, conv: conv, nPar: nPar}
		f.bic = -2*ll + penalty
		cands = append(cands, MixtureCandidate{K: K, LogLik: ll, BIC: f.bic, Iterations: iters, Converged: conv, Abandoned: abandoned})
		prev = f
		switch {
		case o.K > 0:
			best = f // the last
		case best == nil || f.bic < best.bic:
			best = f
		case K >= best.p.k()+2:
			break search // BIC has not improved for two K in a row
		}
	}

	m := &Mixture{Zero: d.zero / d.wAll, LogLik: best.ll, BIC: best.bic, NParams: best.nPar,
		Iterations: best.iters, Converged: best.conv, Cells: d.cells}
	m.SelectedBy = "given"
	if o.K == 0 {
		m.SelectedBy = "bic"
		m.Candidates = cands
	}
	scale := 1 - m.Zero
	for k := range best.p.pi {
		m.Components = append(m.Components, Component{Weight: scale * best.p.pi[k], Mu: best.p.mu[k], Sigma: best.p.sigma[k]})
	}
	slices.SortStableFunc(m.Components, func(a, b Component) int { return cmp.Compare(a.Mu, b.Mu) })
	m.Stuck = scale * best.p.stuck
	if !best.conv {
		m.Warnings = append(m.Warnings, fmt.Sprintf("lognormal mixture: EM stopped after %d iterations short of convergence (K=%d): the fit may not be the maximum", best.iters, best.p.k()))
	}
	if o.K == 0 && best.p.k() == o.MaxK {
		m.Warnings = append(m.Warnings, fmt.Sprintf("lognormal mixture: BIC chose the largest K tried (%d): more components may fit better (give %s:K)", best.p.k(), LogNormalMixture))
	}
	for _, c := range m.Components {
		med := strconv.FormatFloat(c.Median(), 'g', 4, 64)
		switch {
		case c.Sigma <= mixSigmaMin*(1+1e-9):
			m.Warnings = append(m.Warnings, fmt.Sprintf("lognormal mixture: the component of %.3g%% at %ss is as narrow as allowed (σ %g): a point mass rather than a lognormal (--method kde keeps atoms apart)",
				100*c.Weight, med, mixSigmaMin))
		case d.delta > 0 && c.Median()*2*math.Sinh(2*c.Sigma) < d.delta:
			// Its central 95 % fits in one resolution cell.
			m.Warnings = append(m.Warnings, fmt.Sprintf("lognormal mixture: the component of %.3g%% at %ss is narrower than the data's resolution (%gs): it stands for the items recorded at one value",
				100*c.Weight, med, d.delta))
		}
	}
	return m, nil
}

// parseMixtureMethod reads "lognormal-mixture" (k 0: by BIC) and
// "lognormal-mixture:K"; ok is false for other methods.
func parseMixtureMethod(method string) (k int, ok bool, err error) {
	rest, found := strings.CutPrefix(method, LogNormalMixture)
	if !found || (rest != "" && rest[0] != ':') {
		return 0, false, nil
	}
	if rest == "" {
		return 0, true, nil
	}
	k, err = strconv.Atoi(rest[1:])
	if err != nil || k < 1 || k > MaxMixtureComponents {
		return 0, true, fmt.Errorf("%w: method %q: want %s or %s:K with K from 1 to %d components", ErrOption, method, LogNormalMixture, LogNormalMixture, MaxMixtureComponents)
	}
	return k, true, nil
}

// emData is the sample as EM sees it, in y = ln t: points (exact times,
// or cells of binned ones) and intervals (a, b] (resolution cells, and
// (ln c, +∞) for censored items).
type emData struct {
	// Points, ascending in py: mean ln t, weight, and the weighted
	// variance of ln t within the point (0 unless binned).
	py, pw, pv []float64
	// Intervals: bounds in ln t (ib may be +Inf), weights, and ln(ib − ia).
	ia, ib, iw, lw []float64
	// w is the weight of points and intervals; wAll that of all items,
	// zeros and items censored at 0 included; zero that of the zeros.
	w, wAll, zero float64
	// llConst is the part of the log-likelihood that EM does not change:
	// the Jacobian −Σ w·ln t of the points and the atom at 0's terms.
	llConst float64
	// cured: some item is right-censored, so Stuck is fitted.
	cured bool
	// delta is the data's resolution, seconds (0: continuous).
	delta float64
	// distinct is the number of distinct settled times > 0 (points and
	// resolution cells); cells the number of binning cells (0: none).
	distinct, cells int
	// Starting points: points and resolution cells' midpoints, ascending.
	sx, sw []float64
}

// emParams are the mixture's parameters within the positive part:
// Σπ + stuck = 1.
type emParams struct {
	pi, mu, sigma []float64
	stuck         float64
}

func (p *emParams) k() int { return len(p.pi) }

func (p *emParams) clone() *emParams {
	return &emParams{pi: slices.Clone(p.pi), mu: slices.Clone(p.mu), sigma: slices.Clone(p.sigma), stuck: p.stuck}
}

// emScratch holds one EM step's sums.
type emScratch struct {
	lp, c, h, l, e, n, s1, s2 []float64
	m1, m2                    []float64
}

func newScratch(K int) *emScratch {
	f := func() []float64 { return make([]float64, K) }
	return &emScratch{lp: f(), c: f(), h: f(), l: f(), e: f(), n: f(), s1: f(), s2: f(), m1: f(), m2: f()}
}

// step is one EM iteration: it returns the log-likelihood at p (without
// llConst) and writes the updated parameters to next.
func (d *emData) step(p, next *emParams, sc *emScratch) float64 {
	K := p.k()
	const halfLog2Pi = 0.9189385332046727 // ½·ln 2π
	for k := range K {
		sc.lp[k] = math.Log(p.pi[k])
		sc.c[k] = sc.lp[k] - math.Log(p.sigma[k]) - halfLog2Pi
		sc.h[k] = 1 / (2 * p.sigma[k] * p.sigma[k])
		sc.n[k], sc.s1[k], sc.s2[k] = 0, 0, 0
	}
	var ll, n0 float64
	for i, y := range d.py {
		mx := math.Inf(-1)
		for k := range K {
			dy := y - p.mu[k]
			sc.l[k] = sc.c[k] - dy*dy*sc.h[k]
			mx = max(mx, sc.l[k])
		}
		sum := 0.0
		for k := range K {
			// e^−40 is below the sum's rounding: skip the exponential.
			e := 0.0
			if x := sc.l[k] - mx; x > -40 {
				e = math.Exp(x)
			}
			sc.e[k] = e
			sum += e
		}
		w := d.pw[i]
		ll += w * (mx + math.Log(sum))
		v := d.pv[i]
		if v > 0 {
			// A cell of binned items with variance v about its mean y:
			// E[ln f(Y)] ≈ ln f(y) + v/2·(ln f)''(y), with (ln f)'' =
			// Σ r_k·((y − μ_k)²/σ_k⁴ − 1/σ_k²) − (Σ r_k·(y − μ_k)/σ_k²)²,
			// so the log-likelihood is right to O(Δ³) per item.
			var g1, g2 float64
			for k := range K {
				if sc.e[k] == 0 {
					continue
				}
				r := sc.e[k] / sum
				z := (y - p.mu[k]) * 2 * sc.h[k] // (y − μ)/σ²
				g1 += r * z
				g2 += r * (z*z - 2*sc.h[k])
			}
			ll += w * v / 2 * (g2 - g1*g1)
		}
		f := w / sum
		yy := y*y + v
		for k := range K {
			if sc.e[k] == 0 {
				continue
			}
			r := sc.e[k] * f
			sc.n[k] += r
			sc.s1[k] += r * y
			sc.s2[k] += r * yy
		}
	}
	logStuck := math.Inf(-1)
	if p.stuck > 0 {
		logStuck = math.Log(p.stuck)
	}
	for i, a := range d.ia {
		b := d.ib[i]
		mx := math.Inf(-1)
		for k := range K {
			inv := 1 / p.sigma[k]
			lo, hi := (a-p.mu[k])*inv, (b-p.mu[k])*inv
			var lz, m1, m2 float64
			if h, m := hi-lo, (lo+hi)/2; h < 0.01 && math.Abs(m) < 6 {
				// A narrow cell (most resolution cells), by the midpoint
				// expansions P = φ(m)·h·(1 + (m² − 1)h²/24 + O(h⁴)),
				// E[Z] = m(1 − h²/12), E[Z²] = m² + h²/12 − m²h²/6, to
				// O(h⁴) (below 10⁻⁸ relative here): a fraction of
				// truncNormal's cost.
				h2 := h * h / 12
				x := (m*m - 1) * h2 / 2
				lz = sc.c[k] - sc.lp[k] - m*m/2 + d.lw[i] + x - x*x/2
				m1, m2 = m*(1-h2), m*m+h2-2*m*m*h2
			} else {
				lz, m1, m2 = truncNormal(lo, hi)
			}
			sc.l[k] = sc.lp[k] + lz
			sc.m1[k], sc.m2[k] = m1, m2
			mx = max(mx, sc.l[k])
		}
		l0 := math.Inf(-1)
		if math.IsInf(b, 1) {
			l0 = logStuck
			mx = max(mx, l0)
		}
		if math.IsInf(mx, -1) {
			continue // no component reaches the interval: nothing to learn
		}
		sum := math.Exp(l0 - mx)
		for k := range K {
			sc.e[k] = math.Exp(sc.l[k] - mx)
			sum += sc.e[k]
		}
		w := d.iw[i]
		ll += w * (mx + math.Log(sum))
		f := w / sum
		n0 += math.Exp(l0-mx) * f
		for k := range K {
			r := sc.e[k] * f
			if r == 0 {
				continue
			}
			mu, sg := p.mu[k], p.sigma[k]
			ey := mu + sg*sc.m1[k]
			ey2 := mu*mu + 2*mu*sg*sc.m1[k] + sg*sg*sc.m2[k]
			sc.n[k] += r
			sc.s1[k] += r * ey
			sc.s2[k] += r * ey2
		}
	}
	// M-step. σ_k at its floor is the constrained maximum when the
	// weighted variance is below it, so EM stays monotone.
	tot := n0
	for k := range K {
		tot += sc.n[k]
	}
	for k := range K {
		next.pi[k] = sc.n[k] / tot
		if sc.n[k] > 1e-300*tot {
			mu := sc.s1[k] / sc.n[k]
			next.mu[k] = mu
			next.sigma[k] = max(mixSigmaMin, math.Sqrt(max(0, sc.s2[k]/sc.n[k]-mu*mu)))
		} else {
			next.mu[k], next.sigma[k] = p.mu[k], p.sigma[k]
		}
	}
	next.stuck = n0 / tot
	floorWeights(next)
	return ll
}

// floorWeights raises every π_k to mixWeightMin, taking the mass from the
// others in proportion.
func floorWeights(p *emParams) {
	var low, rest float64
	for _, v := range p.pi {
		if v < mixWeightMin {
			low += mixWeightMin
		} else {
			rest += v
		}
	}
	if low == 0 {
		return
	}
	rest += p.stuck
	f := (1 - low) / rest
	for k, v := range p.pi {
		if v < mixWeightMin {
			p.pi[k] = mixWeightMin
		} else {
			p.pi[k] = v * f
		}
	}
	p.stuck *= f
}

// run iterates EM from p (updated in place) until the Aitken criterion
// holds within tol or maxIter iterations, and returns the log-likelihood
// at p (without llConst). watch, if not nil, sees every iteration's
// log-likelihood and its Aitken limit (NaN while there is none), and
// stops the run by returning true.
func (d *emData) run(p *emParams, maxIter int, tol float64, watch func(it int, ll, limit float64) bool) (ll float64, iters int, converged bool) {
	sc := newScratch(p.k())
	next := p.clone()
	var hist [3]float64 // the last three log-likelihoods, oldest first
	for it := 1; ; it++ {
		ll = d.step(p, next, sc)
		hist[0], hist[1], hist[2] = hist[1], hist[2], ll
		limit := math.NaN()
		if it >= 3 {
			// Aitken: the increments shrink by a; the limit is
			// l₋₁ + (l − l₋₁)/(1 − a).
			inc, prev := hist[2]-hist[1], hist[1]-hist[0]
			if math.Abs(inc) <= tol*1e-3 {
				return ll, it, true
			}
			if a := inc / prev; prev > 0 && a >= 0 && a < 1 {
				if inc/(1-a) < tol {
					return ll, it, true
				}
				limit = hist[1] + inc/(1-a)
			}
		}
		if watch != nil && watch(it, ll, limit) {
			return ll, it, false
		}
		if it >= maxIter {
			return ll, it, false // p stays where ll was computed
		}
		*p, *next = *next, *p
	}
}

// bestStart returns the start for K components whose short EM run
// reached the highest log-likelihood (see MixtureEM), and the number of
// iterations of that run. prev is the fit for K − 1 (nil for K = 1).
func (d *emData) bestStart(K int, prev *emParams, tol float64) (*emParams, int) {
	stuck0 := 0.0
	if d.cured {
		var c float64
		for i, b := range d.ib {
			if math.IsInf(b, 1) {
				c += d.iw[i]
			}
		}
		stuck0 = 0.5 * c / d.w
	}
	starts := []*emParams{d.quantileStart(K, stuck0)}
	if K == 1 {
		return starts[0], 0
	}
	if prev != nil {
		for j := range prev.pi {
			p := &emParams{stuck: prev.stuck}
			for k := range prev.pi {
				if k != j {
					p.pi, p.mu, p.sigma = append(p.pi, prev.pi[k]), append(p.mu, prev.mu[k]), append(p.sigma, prev.sigma[k])
					continue
				}
				s := max(prev.sigma[k], 10*mixSigmaMin)
				p.pi = append(p.pi, prev.pi[k]/2, prev.pi[k]/2)
				p.mu = append(p.mu, prev.mu[k]-s/2, prev.mu[k]+s/2)
				p.sigma = append(p.sigma, s*0.7, s*0.7)
			}
			starts = append(starts, p)
		}
		starts = append(starts, d.excessStarts(prev)...)
	}
	for r := range mixKMeansStarts {
		if p := d.kmeansStart(K, stuck0, uint64(r)); p != nil {
			starts = append(starts, p)
		}
	}
	var best *emParams
	var bestIters int
	bestLL := math.Inf(-1)
	for _, p := range starts {
		// Running one start to convergence from the second best after
		// the short runs cost 10 times as long on the payments fixture
		// and found no better optimum.
		ll, iters, _ := d.run(p, mixShortIter, tol, nil)
		if best == nil || ll > bestLL {
			best, bestLL, bestIters = p, ll, iters
		}
	}
	return best, bestIters
}

// excessStarts returns starts that add a component to prev where prev
// falls shortest of the data, as greedy mixture learning does (Verbeek,
// Vlassis & Kröse 2003, Neural Computation 15:469–485): for windows of
// width ω = 0.01, 0.04, 0.16 and 0.64 in ln t centred on each starting
// point, the observed weight o and the weight e that prev puts there are
// compared by the Poisson deviance o·ln(o/e) − (o − e), and the window
// of largest deviance for each ω gives the new component: the window's
// mean and spread, with its excess o − e as weight. Narrow modes that
// splitting a wide component would not reach (a timeout spike) are
// found this way.
func (d *emData) excessStarts(prev *emParams) []*emParams {
	n := len(d.sx)
	cum := make([]float64, n+1)
	for i, w := range d.sw {
		cum[i+1] = cum[i] + w
	}
	cdf := func(y float64) float64 {
		c := 0.0
		for k := range prev.pi {
			c += prev.pi[k] * normCDF((y-prev.mu[k])/prev.sigma[k])
		}
		return c
	}
	var out []*emParams
	for _, width := range []float64{0.01, 0.04, 0.16, 0.64} {
		best, bestDev := -1, 0.0
		var bestLo, bestHi int
		lo, hi := 0, 0
		for i, x := range d.sx {
			for lo < n && d.sx[lo] < x-width/2 {
				lo++
			}
			for hi < n && d.sx[hi] <= x+width/2 {
				hi++
			}
			o := cum[hi] - cum[lo]
			e := d.w * (cdf(x+width/2) - cdf(x-width/2))
			if !(o > e) {
				continue
			}
			dev := o - e
			if e > 0 {
				dev = o*math.Log(o/e) - (o - e)
			}
			if dev > bestDev {
				best, bestDev, bestLo, bestHi = i, dev, lo, hi
			}
		}
		if best < 0 {
			continue
		}
		var sw, s1, s2 float64
		for j := bestLo; j < bestHi; j++ {
			sw += d.sw[j]
			s1 += d.sw[j] * d.sx[j]
			s2 += d.sw[j] * d.sx[j] * d.sx[j]
		}
		m := s1 / sw
		sg := max(2*mixSigmaMin, math.Sqrt(max(0, s2/sw-m*m)))
		e := d.w * (cdf(m+width/2) - cdf(m-width/2))
		add := min(0.5, max(mixWeightMin, (sw-e)/d.w))
		p := prev.clone()
		for k := range p.pi {
			p.pi[k] *= 1 - add
		}
		p.stuck *= 1 - add
		p.pi, p.mu, p.sigma = append(p.pi, add), append(p.mu, m), append(p.sigma, sg)
		out = append(out, p)
	}
	return out
}

// spreadFloor is the smallest σ a start gives a component: a tenth of
// the sample's spread in ln t, so that no start sits on a single value.
func (d *emData) spreadFloor() float64 {
	var sw, s1, s2 float64
	for i, x := range d.sx {
		sw += d.sw[i]
		s1 += d.sw[i] * x
		s2 += d.sw[i] * x * x
	}
	m := s1 / sw
	return max(mixSigmaMin, 0.1*math.Sqrt(max(0, s2/sw-m*m)))
}

// groupStart makes a start from a grouping of the starting points:
// group g holds the points with label[i] == g.
func (d *emData) groupStart(K int, stuck0 float64, label []int) *emParams {
	floor := d.spreadFloor()
	sw, s1, s2 := make([]float64, K), make([]float64, K), make([]float64, K)
	var tot float64
	for i, x := range d.sx {
		g, w := label[i], d.sw[i]
		sw[g] += w
		s1[g] += w * x
		s2[g] += w * x * x
		tot += w
	}
	p := &emParams{stuck: stuck0}
	for g := range K {
		if sw[g] == 0 {
			return nil
		}
		m := s1[g] / sw[g]
		p.pi = append(p.pi, (1-stuck0)*sw[g]/tot)
		p.mu = append(p.mu, m)
		p.sigma = append(p.sigma, max(floor, math.Sqrt(max(0, s2[g]/sw[g]-m*m))))
	}
	floorWeights(p)
	return p
}

// quantileStart groups the starting points into K runs of equal weight
// in ln t.
func (d *emData) quantileStart(K int, stuck0 float64) *emParams {
	var tot float64
	for _, w := range d.sw {
		tot += w
	}
	label := make([]int, len(d.sx))
	cum := 0.0
	for i, w := range d.sw {
		label[i] = min(K-1, int(float64(K)*(cum+w/2)/tot))
		cum += w
	}
	if p := d.groupStart(K, stuck0, label); p != nil {
		return p
	}
	// Heavy ties leave a group empty: spread K components evenly over
	// the range instead.
	floor := d.spreadFloor()
	lo, hi := d.sx[0], d.sx[len(d.sx)-1]
	p := &emParams{stuck: stuck0}
	for k := range K {
		p.pi = append(p.pi, (1-stuck0)/float64(K))
		p.mu = append(p.mu, lo+(hi-lo)*(float64(k)+0.5)/float64(K))
		p.sigma = append(p.sigma, max(floor, (hi-lo)/float64(2*K)))
	}
	return p
}

// kmeansStart seeds K centres by k-means++ (Arthur & Vassilvitskii 2007:
// each next centre drawn with probability ∝ w·D², D the distance to the
// nearest centre so far) from a PCG seeded with (K, r), refines them by
// three Lloyd steps, and starts from the groups. It returns nil when a
// group is empty.
func (d *emData) kmeansStart(K int, stuck0 float64, r uint64) *emParams {
	rng := rand.New(rand.NewPCG(uint64(K), 0x6d6978747572+r))
	n := len(d.sx)
	dist := make([]float64, n)
	for i := range dist {
		dist[i] = math.Inf(1)
	}
	centres := make([]float64, 0, K)
	pick := func(score func(i int) float64) float64 {
		var tot float64
		for i := range n {
			tot += score(i)
		}
		u := rng.Float64() * tot
		for i := range n {
			if u -= score(i); u < 0 {
				return d.sx[i]
			}
		}
		return d.sx[n-1]
	}
	centres = append(centres, pick(func(i int) float64 { return d.sw[i] }))
	for len(centres) < K {
		c := centres[len(centres)-1]
		for i, x := range d.sx {
			dist[i] = min(dist[i], (x-c)*(x-c))
		}
		centres = append(centres, pick(func(i int) float64 { return d.sw[i] * dist[i] }))
	}
	label := make([]int, n)
	for range 3 {
		slices.Sort(centres)
		sw, s1 := make([]float64, K), make([]float64, K)
		for i, x := range d.sx {
			g := 0
			for k := 1; k < K; k++ {
				if math.Abs(x-centres[k]) < math.Abs(x-centres[g]) {
					g = k
				}
			}
			label[i] = g
			sw[g] += d.sw[i]
			s1[g] += d.sw[i] * x
		}
		for k := range K {
			if sw[k] > 0 {
				centres[k] = s1[k] / sw[k]
			}
		}
	}
	return d.groupStart(K, stuck0, label)
}
