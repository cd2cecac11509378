package fit

import (
	"fmt"
	"math"
)

// isjBins is the number of bins of the ISJ rule, as Botev's kde.m.
const isjBins = 1 << 14

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
