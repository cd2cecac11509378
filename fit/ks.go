package fit

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/pollfit/pollfit/sample"
)

// KS is the Kolmogorov–Smirnov distance of a fitted distribution from a
// sample: how far the fitted CDF F̂ is from the sample's empirical CDF
// F_n at the worst time, and where that is.
//
//	D = sup_{0 ≤ t ≤ H} |F̂(t) − F_n(t)|
//
// (Kolmogorov 1933). F_n is the empirical CDF, weighted for weighted
// (binned) samples; with right-censored items it is 1 − S_KM, the
// Kaplan–Meier estimate, which gives the censored-data form of the
// distance (Koziol & Green 1976; Fleming, O'Fallon, O'Brien & Harrington
// 1980). H is the density's horizon: beyond it F̂ places no mass (that is
// the stuck share), so the distance is taken up to it.
//
// The distance is a description, and Band95 is the yardstick it is
// judged against (ScoreHoldout, ScoreInSample).
//
// On rows not used in the fit (held out), both samples carry sampling
// error: the fit's, from the n rows it was drawn from, and the held-out
// empirical CDF's, from its m rows. The band is the two-sample
// Kolmogorov–Smirnov one (Smirnov 1939; KSBand),
//
//	c(α)·sqrt(1/n + 1/m),  c(α) = sqrt(ln(2/α)/2),  c(0.05) = 1.358,
//
// which holds a fit as close to the truth as an empirical CDF of its n
// rows (KDE) and is wide for a parametric fit of the true family, whose
// two or three parameters pin F̂ down more tightly. The one-sample band
// of the held-out rows alone (DKW95, 1.358/√m) leaves out the fit's
// error: a fit on 50 rows scored on 4950 was called a misfit (0.0857
// against 0.0193; the two-sample band is 0.193), and good fits exceeded
// it in 17% of re-splits (TestHoldoutBandCalibration).
//
// On the rows fitted, the classical p-values do not apply (Lilliefors
// 1967): the fit has been drawn towards those rows, so the distance is
// biased low, and the one-sample band c(α)/√N of the true F against F_N
// (the Dvoretzky–Kiefer–Wolfowitz bound, DKWBand) is conservative for
// it: a fitted family whose in-sample distance exceeds it misses the
// data beyond sampling error (Lilliefors' 95% point for a fitted normal
// is 0.886/√N against 1.358/√N), while one within it may still miss.
type KS struct {
	// D is the distance, a probability in [0, 1].
	D float64 `json:"d"`
	// Diff is F̂ − F_n where the distance is attained: positive when the
	// fit has settled more items by then than the data.
	Diff float64 `json:"diff"`
	// At is a time where the distance is attained, seconds. From and To
	// bound the stretch around it where F̂ − F_n keeps its sign and at
	// least half its size: where the fit and the data part (read on the
	// density's grid).
	At   float64 `json:"at_s"`
	From float64 `json:"from_s"`
	To   float64 `json:"to_s"`
	// N is the number of items F_n rests on: all of the sample's (their
	// total weight when weighted), or the evenly strided subsample of
	// KSMaxItems taken from a larger sample; with censoring, the settled
	// ones among them.
	N float64 `json:"n"`
	// Subsample, when > 0, is the number of items of the evenly strided
	// subsample (subsample) the distance was computed on, out of a sample
	// of more than KSMaxItems: F_n then carries the sampling error of
	// Subsample items, not of Rows, which dominates the distance when the
	// fit is close (DKWBand(KSMaxItems, 0.05) = 0.0053); 0 when every
	// item was compared (also the exact Kaplan–Meier distance in-sample).
	Subsample int `json:"subsample,omitempty"`
	// Rows is the number of items in the sample: rows, or for weighted
	// (binned) input their total weight rounded, the items the bins
	// count.
	Rows int `json:"rows"`
	// Band95 is the 95% band the distance is judged against: on
	// held-out rows the two-sample band KSBand(FittedN, N, 0.05), on the
	// rows fitted the one-sample DKWBand(N, 0.05), which is conservative
	// there (see above); 0 when not judged.
	Band95 float64 `json:"band_95,omitempty"`
	// FittedN is the effective size of the sample the fit was drawn
	// from, as N counts it (settled items, their weight when weighted,
	// all rows fitted rather than a KS subsample), set on held-out
	// distances; 0 for a model given without data.
	FittedN float64 `json:"n_fitted,omitempty"`
	// DKW95 is the one-sample band of the held-out rows alone,
	// DKWBand(N, 0.05): their own sampling error, without the fit's, so
	// not the band to judge by (Band95); set on held-out distances, 0
	// otherwise.
	DKW95 float64 `json:"dkw_95,omitempty"`
}

// String reads "0.0123 at 4.9s (fit above the data over 4.66s–5.04s)".
func (k KS) String() string {
	return fmt.Sprintf("%.3g at %s (fit %s the data over %s–%s)", k.D, secs(k.At), k.side(), secs(k.From), secs(k.To))
}

// side is "above" when the fitted CDF is above the data's where the
// distance is attained, else "below".
func (k KS) side() string {
	if k.Diff < 0 {
		return "below"
	}
	return "above"
}

// secs formats seconds with 3 significant digits: "4.9s", "0.0123s".
func secs(t float64) string { return fmt.Sprintf("%.3gs", t) }

// KSMaxItems is the largest sample whose distance is computed on every
// item. A larger sample is compared on an evenly spread subsample of this
// many items (runs of 8 consecutive items, see subsample): gathering,
// sorting (by the floats' bits, a radix sort) and walking 2¹⁶ items takes
// about 2 ms of CPU, 2–4 % of the default fit of 10⁶ or 10⁷ items
// (docs/performance.md; 2¹⁷ cost 10 % at 10⁶). The subsample's distance
// differs from the full sample's by at most DKWBand(KSMaxItems, α) =
// 0.0053 at α = 0.05 when the rows are in an order unrelated to their
// times (TestKSSubsample); if they are sorted by time, the subsample is
// closer still, within 16/KSMaxItems (a run's items, and a run's share).
const KSMaxItems = 1 << 16

// KSWarnFloor is the least held-out distance warned about, whatever the
// sample size: on 10⁶ held-out rows the DKW band is 0.0014, and a fit
// that close has schedules whose expected lag moves little.
const KSWarnFloor = 0.01

// DKWBand returns the half-width ε of the band that holds the empirical
// CDF of n independent draws within ε of the true CDF everywhere with
// probability at least 1 − α:
//
//	P(sup_t |F_n(t) − F(t)| > ε) ≤ 2 exp(−2nε²),  ε = sqrt(ln(2/α) / (2n))
//
// (Dvoretzky, Kiefer & Wolfowitz 1956, with Massart's 1990 constant 2).
// For a fitted F̂ it is the sampling error a distance on held-out rows can
// show when F̂ equals the true distribution; on the rows fitted it is not
// a valid reference (KS). With censoring the inequality holds for the
// Kaplan–Meier estimate only approximately (Bitouzé, Laurent & Massart
// 1999 give a version with a censoring-dependent constant); KS then uses
// the settled items as n, which widens the band. It returns +Inf for
// n ≤ 0.
func DKWBand(n, alpha float64) float64 {
	if !(n > 0) {
		return math.Inf(1)
	}
	return math.Sqrt(math.Log(2/alpha) / (2 * n))
}

// KSBand returns the half-width of the band that holds the
// Kolmogorov–Smirnov distance between the empirical CDFs of two
// independent samples of n and m draws from one distribution with
// probability about 1 − α (Smirnov 1939, the large-sample limit):
//
//	c(α)·sqrt(1/n + 1/m),  c(α) = sqrt(ln(2/α)/2)  (1.358 at α = 0.05)
//
// ScoreHoldout judges a fit on n rows against m held-out rows by it (see
// KS). c(α) is DKWBand's constant: as n → ∞ the band is DKWBand(m, α).
// For n ≤ 0 (no fitted sample: a given model) it is DKWBand(m, α).
func KSBand(n, m, alpha float64) float64 {
	if !(n > 0) {
		return DKWBand(m, alpha)
	}
	if !(m > 0) {
		return math.Inf(1)
	}
	return math.Sqrt(math.Log(2/alpha) / 2 * (1/n + 1/m))
}

// KSDistance returns the Kolmogorov–Smirnov distance of d from the
// sample's empirical CDF (Kaplan–Meier with censoring), over [0,
// d.Horizon()].
//
// The supremum is found exactly: between two jumps of F_n, F_n is
// constant and F̂ rises, so the largest difference there is at one end,
// and both sides of every jump are evaluated (an atom of F̂ between jumps
// only moves F̂ within that stretch, so the ends still bound it). When the
// data have a resolution δ (d.Resolution: recorded times are multiples of
// it), a recorded time k stands for the cell [k − δ/2, k + δ/2), which is
// how the fit spread it, so F̂ is read as the distribution of the rounded
// times: F̂(k + δ/2) against F_n(k). (Compared raw, times rounded to δ sit
// half a cell's mass from any continuous F̂.) Samples larger than
// KSMaxItems are compared on an evenly strided subsample. Band95 and
// DKW95 are left 0.
//
// It panics if d has no grid.
func KSDistance(d *Density, s *sample.Sample) KS {
	if len(d.T) == 0 {
		panic("fit: KSDistance: density has no grid")
	}
	x, F, n, free := ksEmpirical(s)
	k := ksSteps(d, x, F, false)
	free()
	k.N, k.Rows, k.Subsample = n, rowsOf(s), subsampled(s)
	return k
}

// subsampled is KS.Subsample for a sample: the length of its KS
// subsample when it has more than KSMaxItems items, else 0.
func subsampled(s *sample.Sample) int {
	if s.Len() <= KSMaxItems {
		return 0
	}
	return KSMaxItems / subsampleRun * subsampleRun
}

// ksEmpirical is empiricalSteps of the sample's KS subsample
// (subsample(s, KSMaxItems)); free gives its buffers back (scratchPool)
// once x and F are no longer read.
func ksEmpirical(s *sample.Sample) (x, F []float64, n float64, free func()) {
	if s.Weights != nil || s.Censored != nil || s.Len() == 0 {
		sub := subsample(s, KSMaxItems)
		x, F, n = empiricalSteps(sub, sub != s)
		return x, F, n, func() {}
	}
	m := s.Len()
	if m > KSMaxItems {
		m = KSMaxItems / subsampleRun * subsampleRun // subsample's length
	}
	a, b := floatScratch.get(m), floatScratch.get(m)
	if s.Len() > m {
		gatherRuns(a, s.Times, m)
	} else {
		copy(a, s.Times)
	}
	x, F, n = sortedSteps(a, b)
	return x, F, n, func() {
		floatScratch.put(a)
		floatScratch.put(b)
	}
}

// startKS starts the half of KSDistance(·, s) that does not depend on the
// fit — gathering and sorting the sample's times — on another goroutine,
// so that it runs beside the fit on a second core (a quarter of the fit
// of 10⁵ items), and returns the function that finishes it for the
// fitted density.
func startKS(s *sample.Sample) func(d *Density) KS {
	type steps struct {
		x, F []float64
		n    float64
		free func()
	}
	ch := make(chan steps, 1)
	go func() {
		x, F, n, free := ksEmpirical(s)
		ch <- steps{x, F, n, free}
	}()
	return func(d *Density) KS {
		if len(d.T) == 0 {
			panic("fit: KSDistance: density has no grid")
		}
		st := <-ch
		k := ksSteps(d, st.x, st.F, false)
		st.free()
		k.N, k.Rows, k.Subsample = st.n, rowsOf(s), subsampled(s)
		return k
	}
}

// rowsOf is KS.Rows of the sample.
func rowsOf(s *sample.Sample) int {
	if s.Weights == nil {
		return s.Len()
	}
	return int(math.Round(s.TotalWeight()))
}

// kmDistance is KSDistance on the Kaplan–Meier estimate km of the rows
// fitted, which Estimate has already computed on all of them: exact at
// any size.
func kmDistance(d *Density, km *KaplanMeier, rows int, settled float64) KS {
	k := ksSteps(d, km.T, km.Survival, true)
	k.N, k.Rows = settled, rows
	return k
}

// ScoreHoldout scores d on rows not used to fit it: it sets HoldoutLogLik,
// HoldoutN and HoldoutKS (with its two-sample Band95, KSBand of the rows
// fitted, d.N − d.Censored, and the held-out ones) and adds warnings for
// held-out items floored in the likelihood and for a distance beyond both
// the band and KSWarnFloor; that warning replaces ScoreInSample's, which
// the held-out one supersedes. Estimate calls it with Options.Holdout;
// callers that split the rows themselves (pollfit plan) call it with
// theirs. It panics if d has no grid.
func (d *Density) ScoreHoldout(s *sample.Sample) {
	if s.Len() == 0 {
		return
	}
	ll, floored := HoldoutLogLik(d, s)
	d.HoldoutLogLik, d.HoldoutN = ll, s.Len()
	if floored > 0 {
		d.warn("%d held-out %s had a density t·f(t) below %g (floored there)", floored, plural(floored, "item"), minLik)
	}
	k := KSDistance(d, s)
	k.FittedN = float64(d.N - d.Censored)
	if d.KS == nil {
		k.FittedN = 0 // a model given without data
	}
	k.Band95 = KSBand(k.FittedN, k.N, 0.05)
	k.DKW95 = DKWBand(k.N, 0.05)
	d.HoldoutKS = &k
	if d.inSampleWarning != "" {
		d.Warnings = slices.DeleteFunc(d.Warnings, func(w string) bool { return w == d.inSampleWarning })
		d.inSampleWarning = ""
	}
	if w := d.ksWarning(k, "held-out"); w != "" {
		d.Warnings = append(d.Warnings, w)
	}
}

// ScoreInSample judges d.KS, the distance from the rows fitted, against
// the one-sample band DKWBand(N, 0.05), which is conservative for it
// (see KS): it sets d.KS.Band95 and warns when the distance is beyond
// both the band and KSWarnFloor. Estimate calls it; ScoreHoldout replaces
// the warning with its own.
func (d *Density) ScoreInSample() {
	if d.KS == nil {
		return
	}
	d.KS.Band95 = DKWBand(d.KS.N, 0.05)
	if w := d.ksWarning(*d.KS, "in-sample"); w != "" {
		d.Warnings = append(d.Warnings, w)
		d.inSampleWarning = w
	}
}

// ksWarning returns the warning for a distance (what: "held-out" or
// "in-sample") beyond its band and KSWarnFloor, naming where the fit and
// the data part and what to try; "" when there is none.
func (d *Density) ksWarning(k KS, what string) string {
	if !(k.D > k.Band95 && k.D > KSWarnFloor) {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s KS distance %.3g is beyond its 95%% band %.3g: the fitted CDF is %s the data's by up to %.3g over %s–%s",
		what, k.D, k.Band95, k.side(), math.Abs(k.Diff), secs(k.From), secs(k.To))
	fmt.Fprintf(&b, "; %s", d.ksAdvice(k))
	return b.String()
}

// ksAdvice says what to try where the fit parts from the data over
// [k.From, k.To].
func (d *Density) ksAdvice(k KS) string {
	lo, hi := k.From, k.To
	for _, a := range d.Atoms {
		if a.T >= lo && a.T-a.Width <= hi {
			return fmt.Sprintf("the %s %s sits there: try --atoms off", a.Kind(), a)
		}
	}
	switch {
	case d.Mixture != nil:
		return fmt.Sprintf("the mixture of %d lognormals does not follow the data there: try more components (lognormal-mixture:K) or the kde method", len(d.Mixture.Components))
	case d.Params != nil:
		return fmt.Sprintf("the %s family does not follow the data there: try the kde method", d.Method)
	case d.Method == "histogram":
		return "the histogram's grid is too coarse there: try the kde method or a finer --grid"
	case d.Bandwidth > 0:
		return fmt.Sprintf("the kernel (bandwidth %.3g) smooths over it: try a smaller --bandwidth", d.Bandwidth)
	}
	return "try another method"
}

// subsample returns s, or when it has more than m items an evenly spread
// subsample of m: runs of subsampleRun consecutive items starting at
// ⌊j·n/r⌋ for j = 0 … r − 1, r = m/subsampleRun runs. Runs of a cache
// line's worth of items read a tenth of the memory lines single items
// would: gathering 2¹⁸ single items from 10⁷ took 5 ms, as long as the
// rest of the distance. Segment labels are dropped.
func subsample(s *sample.Sample, m int) *sample.Sample {
	n := s.Len()
	if n <= m {
		return s
	}
	const run = subsampleRun
	r := m / run
	q, rem := n/r, n%r // ⌊j·n/r⌋ stepped without a division per run
	out := &sample.Sample{Times: make([]float64, r*run)}
	gatherRuns(out.Times, s.Times, m)
	if s.Weights != nil {
		out.Weights = make([]float64, r*run)
		gatherRuns(out.Weights, s.Weights, m)
	}
	if s.Censored != nil {
		out.Censored = make([]bool, r*run)
		for j, i, frac := 0, 0, 0; j < r; j++ {
			copy(out.Censored[j*run:(j+1)*run], s.Censored[i:])
			i += q
			if frac += rem; frac >= r {
				frac -= r
				i++
			}
		}
	}
	return out
}

// subsampleRun is the length of subsample's runs: 8 float64s, a cache line.
const subsampleRun = 8

// gatherRuns writes subsample's runs of src (m < len(src) items in all,
// m/subsampleRun runs) to dst[:m/subsampleRun·subsampleRun].
func gatherRuns(dst, src []float64, m int) {
	const run = subsampleRun
	r := m / run
	q, rem := len(src)/r, len(src)%r // ⌊j·n/r⌋ stepped without a division per run
	for j, i, frac := 0, 0, 0; j < r; j++ {
		copy(dst[j*run:(j+1)*run], src[i:])
		i += q
		if frac += rem; frac >= r {
			frac -= r
			i++
		}
	}
}

// EmpiricalSteps returns the jumps of the sample's empirical CDF F_n, the
// curve KSDistance measures the estimate against (1 − Kaplan–Meier with
// censoring), on the same evenly strided subsample of at most KSMaxItems
// items: t holds the distinct settle times in seconds, ascending, and
// F[j] is F_n just after t[j]. Both are nil for an empty sample.
func EmpiricalSteps(s *sample.Sample) (t, F []float64) {
	sub := subsample(s, KSMaxItems)
	t, F, _ = empiricalSteps(sub, sub != s)
	return t, F
}

// empiricalSteps returns the jumps of the sample's empirical CDF F_n
// (1 − Kaplan–Meier with censoring): the distinct settle times x,
// ascending, and F_n just after each, with the number of items it rests
// on (the settled items' weight with censoring, all items' without).
// With own, s.Times may be sorted in place (s is a copy).
func empiricalSteps(s *sample.Sample, own bool) (x, F []float64, n float64) {
	if s.Len() == 0 {
		return nil, nil, 0
	}
	if s.Weights == nil && s.Censored == nil {
		x = s.Times
		if !own {
			x = slices.Clone(s.Times)
		}
		return sortedSteps(x, make([]float64, len(x)))
	}
	km, _, _ := kaplanMeier(s)
	F = make([]float64, len(km.Survival))
	for i, sv := range km.Survival {
		F[i] = 1 - sv
	}
	for i := range s.Times {
		if !s.IsCensored(i) {
			n += s.Weight(i)
		}
	}
	return km.T, F, n
}

// sortedSteps is empiricalSteps of the unweighted, uncensored times x,
// which it sorts in place, with buf (as long as x, contents arbitrary)
// for scratch; x and F are views of the two.
func sortedSteps(x, buf []float64) (xs, F []float64, n float64) {
	for i, v := range x {
		if v == 0 {
			x[i] = 0 // −0 sorts last by its bits
		}
	}
	if sorted := radixSort(x, buf); &sorted[0] != &x[0] {
		x, buf = sorted, x
	}
	// F_n after each distinct time, written into the free buffer.
	m := len(x)
	F = buf[:0]
	j := 0
	for i := 0; i < m; {
		k := i
		for k < m && x[k] == x[i] {
			k++
		}
		x[j] = x[i]
		F = append(F, float64(k)/float64(m))
		j++
		i = k
	}
	return x[:j], F, float64(m)
}

// ksSteps returns the distance of d from the step function with jumps at
// x (ascending) to y[j] after x[j] — F_n, or the survival 1 − F_n when
// surv — over [0, d.Horizon()], with At, From and To; N and Rows are left
// to the caller.
//
// D and At are exact (both sides of every jump, and the horizon). The
// stretch From–To is read on d's grid, which is fine enough to name it:
// from At, grid points are added on either side while F̂ − F_n keeps its
// sign and half its size.
func ksSteps(d *Density, x, y []float64, surv bool) KS {
	H := d.Horizon()
	half := d.Resolution / 2
	J := sort.SearchFloat64s(x, math.Nextafter(H, math.Inf(1))) // jumps at or before H
	fn := func(j int) float64 {
		switch {
		case j < 0:
			return 0
		case surv:
			return 1 - y[j]
		}
		return y[j]
	}
	k := KS{D: -1}
	w := newCDFWalk(d)
	defer floatScratch.put(w.slope)
	prev := 0.0
	// Without atoms F̂ is the continuous part alone, and without a
	// resolution each jump reads it once: that case steps along the grid
	// here, as cdfWalk.eval would (the same operations, so the same
	// values), without two calls and an atom loop a jump (2¹⁶ jumps: a
	// tenth of a fit of 10⁵ values).
	plain := half == 0 && len(w.atoms) == 0
	T, c, slope := w.T, w.c, w.slope
	last := len(T) - 1
	for j, t := range x[:J] {
		var lo, hi float64 // F̂ just before and just after the jump
		switch {
		case plain && t >= 0:
			v := c[last]
			if t < T[last] {
				i := w.i
				if t < T[i] {
					i = max(0, sort.SearchFloat64s(T, t)-1)
				}
				for T[i+1] <= t {
					i++
				}
				w.i = i
				v = c[i] + (t-T[i])*slope[i]
			}
			lo, hi = min1(v), min1(v+0) // eval's v + point
		case half > 0:
			lo, _ = w.eval(t - half)
			hi, _ = w.eval(t + half)
		default:
			lo, hi = w.eval(t)
		}
		Fj := fn(j)
		if v := lo - prev; math.Abs(v) > k.D {
			k.D, k.Diff, k.At = math.Abs(v), v, t-half
		}
		if v := hi - Fj; math.Abs(v) > k.D {
			k.D, k.Diff, k.At = math.Abs(v), v, t+half
		}
		prev = Fj
	}
	if _, at := w.eval(H); math.Abs(at-prev) > k.D {
		v := at - prev
		k.D, k.Diff, k.At = math.Abs(v), v, H
	}
	if k.D < 1e-12 {
		k.D, k.Diff = 0, 0 // float64 rounding of equal CDFs (one atom and nothing else)
	}
	// The stretch, on the grid: F̂(t) against F_n(t − δ/2), as above.
	k.From, k.To = k.At, k.At
	ok := func(i int) bool {
		t := d.T[i]
		v := d.CDFs[i] - fn(sort.SearchFloat64s(x[:J], math.Nextafter(t-half, math.Inf(1)))-1)
		return (v > 0) == (k.Diff > 0) && math.Abs(v) >= k.D/2
	}
	i0 := sort.SearchFloat64s(d.T, k.At) // first grid point ≥ At
	for i := i0 - 1; i >= 0 && ok(i); i-- {
		k.From = d.T[i]
	}
	for i := i0; i < len(d.T) && d.T[i] <= H && ok(i); i++ {
		k.To = d.T[i]
	}
	return k
}

// cdfWalk evaluates a density's CDF at times that mostly increase,
// stepping along the grid instead of searching it for each time.
type cdfWalk struct {
	T, c  []float64 // the grid and the continuous part's CDF on it
	slope []float64 // (c[i+1] − c[i]) / (T[i+1] − T[i])
	atoms []Atom
	i     int // T[i] ≤ the last time, or 0
}

func newCDFWalk(d *Density) *cdfWalk {
	// slope from floatScratch (ksSteps gives it back), written whole.
	w := &cdfWalk{T: d.T, c: d.continuous(), atoms: d.Atoms, slope: floatScratch.get(len(d.T))}
	for i := range len(w.T) - 1 {
		w.slope[i] = (w.c[i+1] - w.c[i]) / (w.T[i+1] - w.T[i])
	}
	if len(w.T) > 0 {
		w.slope[len(w.T)-1] = 0
	}
	return w
}

// cont returns the continuous part's CDF at t ≥ 0, as Density.CDF
// interpolates it.
func (w *cdfWalk) cont(t float64) float64 {
	T, n := w.T, len(w.T)
	if t >= T[n-1] {
		return w.c[n-1]
	}
	if t < T[w.i] {
		w.i = max(0, sort.SearchFloat64s(T, t)-1)
	}
	for T[w.i+1] <= t {
		w.i++
	}
	i := w.i
	return w.c[i] + (t-T[i])*w.slope[i]
}

// eval returns F̂(t−) and F̂(t) (Density.CDF): they differ by the point
// masses at t.
func (w *cdfWalk) eval(t float64) (before, at float64) {
	if t < 0 || math.IsNaN(t) {
		return 0, 0
	}
	v := w.cont(t)
	var point float64
	for _, a := range w.atoms {
		if a.Width == 0 && a.T == t {
			point += a.Mass
		} else {
			v += a.CDF(t)
		}
	}
	return min1(v), min1(v + point)
}

// min1 is math.Min(1, v) for every v (NaN, ±0 and ±Inf included), as a
// comparison: math.Min is a call, a sixth of ksSteps' time.
func min1(v float64) float64 {
	if v > 1 {
		return 1
	}
	return v
}

// radixSort sorts x, whose values are ≥ 0 and not −0, by their float
// bits — for non-negative floats the bits order as the values. An LSD
// radix sort (Knuth, TAOCP vol. 3, §5.2.5) on the top 32 bits (sign,
// exponent and 20 bits of mantissa: values apart by more than a
// millionth of themselves) in passes of 11 bits, skipping passes whose
// digit is the same for every value, orders all but the values that close;
// an insertion sort then finishes those, which sit side by side. buf is
// scratch space as long as x; it returns whichever of the two holds the
// result. For 2¹⁶ values it takes 0.6–1 ms, an eighth of slices.Sort's
// time (BenchmarkRadixSort); below 2¹² values it calls slices.Sort.
func radixSort(x, buf []float64) []float64 {
	const bits = 11
	const size = 1 << bits
	const low = 32 // the bits below are left to the insertion sort
	const passes = (64 - low + bits - 1) / bits
	if len(x) < 1<<12 {
		slices.Sort(x) // the count tables would outweigh the sort
		return x
	}
	var counts [passes][size]int
	for _, v := range x {
		k := math.Float64bits(v) >> low
		for p := range passes {
			counts[p][(k>>(p*bits))&(size-1)]++
		}
	}
	src, dst := x, buf
	for p := range passes {
		c := &counts[p]
		shift := uint(low + p*bits)
		if c[(math.Float64bits(x[0])>>shift)&(size-1)] == len(x) {
			continue // one digit for all: the pass would not move anything
		}
		sum := 0
		for i, n := range c {
			c[i] = sum
			sum += n
		}
		for _, v := range src {
			dg := (math.Float64bits(v) >> shift) & (size - 1)
			dst[c[dg]] = v
			c[dg]++
		}
		src, dst = dst, src
	}
	for i := 1; i < len(src); i++ {
		for j := i; j > 0 && src[j] < src[j-1]; j-- {
			src[j], src[j-1] = src[j-1], src[j]
		}
	}
	return src
}
