package fit

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/pollfit/pollfit/sample"
	"gonum.org/v1/gonum/mathext"

	"gonum.org/v1/gonum/stat/distuv"
)

// Parametric families, usable as Options.Method and in ParseDist specs.
// Their parameters (all times in seconds):
//
//	lognormal:mu=…,sigma=…    ln T ~ Normal(mu, sigma²)
//	weibull:k=…,lambda=…      S(t) = exp(−(t/lambda)^k); k shape, lambda scale (s)
//	gamma:alpha=…,beta=…      f(t) ∝ t^(alpha−1) e^(−beta·t); beta is the RATE (1/s)
//	exponential:rate=…        S(t) = exp(−rate·t); rate 1/s
const (
	LogNormal   = "lognormal"
	Weibull     = "weibull"
	Gamma       = "gamma"
	Exponential = "exponential"
)

var familyParams = map[string][]string{
	LogNormal:   {"mu", "sigma"},
	Weibull:     {"k", "lambda"},
	Gamma:       {"alpha", "beta"},
	Exponential: {"rate"},
}

// ErrDist is returned (wrapped) for a malformed distribution spec.
var ErrDist = errors.New("bad distribution spec")

// Dist is a parametric settle-time distribution: a family and its
// parameters by name (see LogNormal, Weibull, Gamma, Exponential).
// It is given directly (ParseDist) or fitted (MaxLikelihood), and
// produces a *Density on a grid (Density) so that it can stand in for
// data.
type Dist struct {
	Family string
	Params map[string]float64
}

// univariate is the part of gonum's distuv distributions that Dist uses.
type univariate interface {
	CDF(x float64) float64
	Prob(x float64) float64
	LogProb(x float64) float64
	Survival(x float64) float64
	Quantile(p float64) float64
}

func (d *Dist) dist() univariate {
	p := d.Params
	switch d.Family {
	case LogNormal:
		return distuv.LogNormal{Mu: p["mu"], Sigma: p["sigma"]}
	case Weibull:
		return distuv.Weibull{K: p["k"], Lambda: p["lambda"]}
	case Gamma:
		return distuv.Gamma{Alpha: p["alpha"], Beta: p["beta"]}
	case Exponential:
		return distuv.Exponential{Rate: p["rate"]}
	}
	panic("fit: unknown family " + d.Family)
}

// CDF returns P(T ≤ t).
func (d *Dist) CDF(t float64) float64 {
	if t <= 0 {
		return 0
	}
	return d.dist().CDF(t)
}

// Survival returns P(T > t).
func (d *Dist) Survival(t float64) float64 { return 1 - d.CDF(t) }

// PDF returns the density at t, 1/s.
func (d *Dist) PDF(t float64) float64 {
	if t < 0 {
		return 0
	}
	return d.dist().Prob(t)
}

// Quantile returns the p-quantile, seconds.
func (d *Dist) Quantile(p float64) float64 { return d.dist().Quantile(p) }

// String returns the spec form, e.g. "weibull:k=1.5,lambda=30", which
// ParseDist reads back to the same values.
func (d *Dist) String() string {
	var b strings.Builder
	b.WriteString(d.Family)
	for i, name := range familyParams[d.Family] {
		sep := ","
		if i == 0 {
			sep = ":"
		}
		b.WriteString(sep + name + "=" + strconv.FormatFloat(d.Params[name], 'g', -1, 64))
	}
	return b.String()
}

// ParseDist parses a distribution spec "family:name=value,…" such as
// "lognormal:mu=3,sigma=1.2", "weibull:k=1.5,lambda=40",
// "gamma:alpha=2,beta=0.1" (beta is a rate, 1/s) or
// "exponential:rate=0.05". Every parameter of the family must be given
// once, as a finite number; mu may be any real, the others must be > 0.
// Errors wrap ErrDist.
func ParseDist(spec string) (*Dist, error) {
	fam, rest, ok := strings.Cut(strings.TrimSpace(spec), ":")
	fam = strings.ToLower(strings.TrimSpace(fam))
	names, known := familyParams[fam]
	if !known {
		return nil, fmt.Errorf("%w %q: unknown family %q (want lognormal, weibull, gamma or exponential)", ErrDist, spec, fam)
	}
	if !ok {
		return nil, fmt.Errorf("%w %q: missing parameters (%s:%s=…)", ErrDist, spec, fam, names[0])
	}
	d := &Dist{Family: fam, Params: map[string]float64{}}
	for _, kv := range strings.Split(rest, ",") {
		k, v, ok := strings.Cut(kv, "=")
		k = strings.ToLower(strings.TrimSpace(k))
		if !ok {
			return nil, fmt.Errorf("%w %q: %q is not name=value", ErrDist, spec, kv)
		}
		if !slices.Contains(names, k) {
			return nil, fmt.Errorf("%w %q: %s has no parameter %q (want %s)", ErrDist, spec, fam, k, strings.Join(names, ", "))
		}
		if _, dup := d.Params[k]; dup {
			return nil, fmt.Errorf("%w %q: parameter %q given twice", ErrDist, spec, k)
		}
		x, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if err != nil || math.IsInf(x, 0) || math.IsNaN(x) {
			return nil, fmt.Errorf("%w %q: %s=%q is not a finite number", ErrDist, spec, k, v)
		}
		if k != "mu" && x <= 0 {
			return nil, fmt.Errorf("%w %q: %s must be > 0", ErrDist, spec, k)
		}
		d.Params[k] = x
	}
	for _, k := range names {
		if _, ok := d.Params[k]; !ok {
			return nil, fmt.Errorf("%w %q: missing parameter %q", ErrDist, spec, k)
		}
	}
	return d, nil
}

// DefaultDistHorizon is the quantile used as the horizon when
// Dist.Density is given none.
const DefaultDistHorizon = 0.999

// Density evaluates the distribution on grid points (0 means DefaultGrid)
// from 0 to horizon seconds (0 means the DefaultDistHorizon quantile),
// spaced geometrically from the 1e-6 quantile so that every decade gets
// its share of points. CDF values are exact at the grid points; the
// stuck share is 1 − F(horizon).
func (d *Dist) Density(horizon float64, grid int) *Density {
	if grid <= 0 {
		grid = DefaultGrid
	}
	if grid < 3 {
		panic("fit: grid needs at least 3 points")
	}
	u := d.dist()
	if !(horizon > 0) {
		horizon = u.Quantile(DefaultDistHorizon)
	}
	tmin := math.Min(u.Quantile(1e-6), horizon/1e3)
	out := &Density{Method: d.Family, Domain: "parametric", Params: maps.Clone(d.Params), Atoms: []Atom{}, Warnings: []string{}}
	out.fill(logGrid(tmin, horizon, grid), func(t float64) (float64, float64) {
		if t <= 0 {
			// The density at 0 is infinite for shapes below 1; the grid
			// shows 0 there, and the CDF is exact either way.
			p := u.Prob(0)
			if math.IsInf(p, 0) || math.IsNaN(p) {
				p = 0
			}
			return p, 0
		}
		return u.Prob(t), u.CDF(t)
	})
	return out
}

// MaxLikelihood fits family to the sample by maximum likelihood. Settled
// items contribute w·log f(t), right-censored ones w·log S(t) (Klein &
// Moeschberger 2003, §3.5). A settled time of 0, impossible under the
// lognormal, Weibull and gamma laws, is read as "settled within the
// first zeroCell seconds" and contributes w·log F(zeroCell). zeroCell is
// half the data resolution, or half the smallest positive time when the
// data are continuous.
//
// Closed forms are used where they exist (exponential; lognormal without
// censoring or zeros: mean and sd of ln t with divisor n, as
// MASS::fitdistr; gamma without censoring or zeros: its one-dimensional
// profile equation); otherwise the log-likelihood is maximised by Nelder–Mead on
// log-parameters from moment-based starting values. log S and log F are
// computed in logs, so items pending far beyond every settle, whose S(t)
// is below the smallest float64 at the starting values, count in full.
//
// The model has no share that never settles: pending items older than
// every settle are spread over the family's tail, which may distort its
// body (Estimate warns; MixtureEM fits such a share).
//
// Errors: an unknown family; no settled item; fewer than two distinct
// settled times > 0 (one value: the likelihood has no maximum, its
// spread shrinking to 0; the exponential needs one time > 0); a
// parameter running off to 0 or ∞ (no maximum). Messages carry no
// package prefix; Estimate adds it.
func MaxLikelihood(family string, s *sample.Sample) (*Dist, error) {
	if _, ok := familyParams[family]; !ok {
		return nil, fmt.Errorf("unknown family %q (want lognormal, weibull, gamma or exponential)", family)
	}
	var settled, wSettled, wAll, sumT float64
	var minPos = math.Inf(1)
	var zeros bool
	var logs wsample
	for i, t := range s.Times {
		w := s.Weight(i)
		wAll += w
		sumT += w * t
		if s.IsCensored(i) {
			continue
		}
		settled++
		wSettled += w
		if t > 0 {
			minPos = math.Min(minPos, t)
			logs.x = append(logs.x, math.Log(t))
			if s.Weights != nil {
				logs.w = append(logs.w, w)
			}
		} else {
			zeros = true
		}
	}
	if settled == 0 || wSettled == 0 {
		return nil, fmt.Errorf("%s needs at least one settled item", family)
	}
	if family == Exponential {
		if sumT == 0 {
			return nil, fmt.Errorf("exponential: all times are 0: its rate has no maximum likelihood value; try the kde method")
		}
		return &Dist{Family: family, Params: map[string]float64{"rate": wSettled / sumT}}, nil
	}
	if len(logs.x) < 2 || slices.Min(logs.x) == slices.Max(logs.x) {
		// One value: the spread's estimate is 0, a step, not a member of
		// the family.
		return nil, fmt.Errorf("%s needs at least two distinct settled times > 0: on one value its likelihood has no maximum (the spread shrinks to 0); try the kde method", family)
	}
	// Moments of ln t among settled positive items: the lognormal MLE
	// when nothing is censored or zero, and a start for the others.
	var mean, v, wsum float64
	for i, y := range logs.x {
		w := 1.0
		if logs.w != nil {
			w = logs.w[i]
		}
		mean += w * y
		wsum += w
	}
	mean /= wsum
	for i, y := range logs.x {
		w := 1.0
		if logs.w != nil {
			w = logs.w[i]
		}
		v += w * sq(y-mean)
	}
	sdlog := math.Sqrt(v / wsum)
	censored := s.CensoredCount() > 0
	if family == LogNormal && !censored && !zeros {
		return &Dist{Family: family, Params: map[string]float64{"mu": mean, "sigma": sdlog}}, nil
	}
	if family == Gamma && !censored && !zeros {
		// The profile equation ln α − ψ(α) = ln(mean t) − mean(ln t),
		// β = α/mean t (Choi & Wette 1969); its left side falls from +∞
		// to 0 as α grows, so bisection on ln α finds the one root.
		var mt float64
		for i, t := range s.Times {
			mt += s.Weight(i) * t
		}
		mt /= wSettled
		target := math.Log(mt) - mean
		if !(target > 0) {
			return nil, fmt.Errorf("gamma: all settled times are equal: its likelihood has no maximum (the shape grows without bound); try the kde method")
		}
		la := bisect(func(la float64) float64 {
			a := math.Exp(la)
			return target - (la - mathext.Digamma(a))
		}, -30, 30, 1e-13)
		a := math.Exp(la)
		return &Dist{Family: family, Params: map[string]float64{"alpha": a, "beta": a / mt}}, nil
	}
	zeroCell := resolution(s.Times) / 2
	if zeroCell == 0 {
		zeroCell = minPos / 2
	}
	names := familyParams[family]
	var x0 []float64
	switch family {
	case LogNormal:
		x0 = []float64{mean, math.Log(sdlog)}
	case Weibull:
		k := 1.2 / sdlog // ln T has sd π/(k√6) ≈ 1.28/k under the Weibull
		x0 = []float64{math.Log(k), mean + 0.5772/k}
	case Gamma:
		m := math.Exp(mean + sdlog*sdlog/2)
		a := 1 / math.Max(1e-3, math.Expm1(sdlog*sdlog))
		x0 = []float64{math.Log(a), math.Log(a / m)}
	}
	params := func(x []float64) *Dist {
		p := map[string]float64{}
		switch family {
		case LogNormal:
			p["mu"], p["sigma"] = x[0], math.Exp(x[1])
		case Weibull:
			p["k"], p["lambda"] = math.Exp(x[0]), math.Exp(x[1])
		case Gamma:
			p["alpha"], p["beta"] = math.Exp(x[0]), math.Exp(x[1])
		}
		return &Dist{Family: family, Params: p}
	}
	nll := func(x []float64) float64 {
		d := params(x)
		for _, n := range names {
			if v := d.Params[n]; math.IsInf(v, 0) || v == 0 {
				return math.Inf(1)
			}
		}
		return -logLik(d, s, zeroCell) / wAll
	}
	if f := nll(x0); math.IsInf(f, 0) || math.IsNaN(f) {
		// The log-likelihood is finite wherever the parameters are
		// (logLik works in logs), so this is a bug, not the data.
		panic(fmt.Sprintf("fit: %s log-likelihood %g at the start %v", family, f, x0))
	}
	x, _ := nelderMead(nll, x0, 0.5)
	x, f := nelderMead(nll, x, 0.05) // restart: guards against a collapsed simplex
	d := params(x)
	for _, n := range names {
		// The log-parameters run off when the likelihood climbs forever
		// along a ridge: a scale beyond any time in the data, a shape
		// to 0 or ∞.
		if v := math.Abs(d.Params[n]); math.IsNaN(f) || math.IsInf(f, 0) || v > 1e100 || v < 1e-100 {
			return nil, fmt.Errorf("%s likelihood has no maximum on these data (%s runs off to %g): the family does not describe them; try the kde or lognormal-mixture method", family, n, d.Params[n])
		}
	}
	return d, nil
}

// logLik is the censored log-likelihood of MaxLikelihood.
func logLik(d *Dist, s *sample.Sample, zeroCell float64) float64 {
	u := d.dist()
	ll := 0.0
	for i, t := range s.Times {
		w := s.Weight(i)
		switch {
		case s.IsCensored(i):
			ll += w * d.logSurvival(t)
		case t > 0 || d.Family == Exponential:
			ll += w * u.LogProb(t)
		default:
			ll += w * d.logCDF(zeroCell)
		}
	}
	return ll
}

// logSurvival returns ln S(t) for t > 0, computed in logs: a pending
// item far in the tail has S(t) below the smallest float64 (a Weibull
// with k = 1.5, λ = 30 s at t = 5000 s has ln S = −2151), where
// ln(u.Survival(t)) would be −Inf and stop the likelihood's search.
func (d *Dist) logSurvival(t float64) float64 {
	p := d.Params
	switch d.Family {
	case Weibull:
		return -math.Pow(t/p["lambda"], p["k"])
	case Exponential:
		return -p["rate"] * t
	case LogNormal:
		return logPhi(-(math.Log(t) - p["mu"]) / p["sigma"])
	case Gamma:
		return logGammaIncComp(p["alpha"], p["beta"]*t)
	}
	panic("fit: unknown family " + d.Family)
}

// logCDF returns ln F(t) for t > 0, computed in logs (for a zero
// settled time's first cell, far into the left tail when the shape is
// large).
func (d *Dist) logCDF(t float64) float64 {
	p := d.Params
	switch d.Family {
	case Weibull:
		return math.Log(-math.Expm1(-math.Pow(t/p["lambda"], p["k"])))
	case Exponential:
		return math.Log(-math.Expm1(-p["rate"] * t))
	case LogNormal:
		return logPhi((math.Log(t) - p["mu"]) / p["sigma"])
	case Gamma:
		return logGammaInc(p["alpha"], p["beta"]*t)
	}
	panic("fit: unknown family " + d.Family)
}

// logGammaIncComp returns ln Q(a, x), the log of the regularised upper
// incomplete gamma function: Legendre's continued fraction in logs
// where x > a + 1, ln(1 − P(a, x)) from the series elsewhere
// (gammaContinuedFraction, gammaSeries).
func logGammaIncComp(a, x float64) float64 {
	if x > a+1 {
		return gammaContinuedFraction(a, x)
	}
	return math.Log1p(-math.Exp(gammaSeries(a, x)))
}

// logGammaInc returns ln P(a, x), the log of the regularised lower
// incomplete gamma function: the series in logs where x < a + 1,
// ln(1 − Q(a, x)) from the continued fraction elsewhere.
func logGammaInc(a, x float64) float64 {
	if x < a+1 {
		return gammaSeries(a, x)
	}
	return math.Log1p(-math.Exp(gammaContinuedFraction(a, x)))
}

// gammaContinuedFraction returns ln Q(a, x) for x > a + 1 by Legendre's
// continued fraction, evaluated by the modified Lentz method,
//
//	Q(a, x) = e^(−x) x^a / Γ(a) · 1/(x + 1 − a − 1·(1 − a)/(x + 3 − a − …))
//
// (Press et al., Numerical Recipes 3rd ed. 2007, §6.2, gcf). In logs,
// it stays finite where Q is below the smallest float64.
func gammaContinuedFraction(a, x float64) float64 {
	const tiny = 1e-300
	b := x + 1 - a
	c := 1 / tiny
	d := 1 / b
	h := d
	for i := 1; i < 1000; i++ {
		an := -float64(i) * (float64(i) - a)
		b += 2
		d = an*d + b
		if math.Abs(d) < tiny {
			d = tiny
		}
		c = b + an/c
		if math.Abs(c) < tiny {
			c = tiny
		}
		d = 1 / d
		del := d * c
		h *= del
		if math.Abs(del-1) < 1e-16 {
			break
		}
	}
	lg, _ := math.Lgamma(a)
	return -x + a*math.Log(x) - lg + math.Log(h)
}

// gammaSeries returns ln P(a, x) for x < a + 1 by the series
//
//	P(a, x) = e^(−x) x^a / Γ(a) · Σ_n x^n / (a (a + 1) … (a + n))
//
// (Numerical Recipes 3rd ed., §6.2, gser), in logs.
func gammaSeries(a, x float64) float64 {
	sum, del, ap := 1/a, 1/a, a
	for range 1000 {
		ap++
		del *= x / ap
		sum += del
		if math.Abs(del) < math.Abs(sum)*1e-17 {
			break
		}
	}
	lg, _ := math.Lgamma(a)
	return -x + a*math.Log(x) - lg + math.Log(sum)
}

// nelderMead minimises f from x0 with an initial simplex of side step by
// the Nelder–Mead method with the standard coefficients (reflection 1,
// expansion 2, contraction ½, shrink ½; Nelder & Mead 1965), until the
// simplex's function values agree to 1e-13 or 2000 iterations. The
// likelihoods here have two parameters, where it is reliable.
func nelderMead(f func([]float64) float64, x0 []float64, step float64) ([]float64, float64) {
	n := len(x0)
	pts := make([][]float64, n+1)
	val := make([]float64, n+1)
	for i := range pts {
		pts[i] = slices.Clone(x0)
		if i > 0 {
			pts[i][i-1] += step
		}
		val[i] = f(pts[i])
	}
	at := func(c []float64, p []float64, a float64) []float64 {
		out := make([]float64, n)
		for j := range out {
			out[j] = c[j] + a*(p[j]-c[j])
		}
		return out
	}
	for range 2000 {
		// Order best → worst.
		idx := make([]int, n+1)
		for i := range idx {
			idx[i] = i
		}
		slices.SortFunc(idx, func(a, b int) int { return cmp.Compare(val[a], val[b]) })
		p2 := make([][]float64, n+1)
		v2 := make([]float64, n+1)
		for k, i := range idx {
			p2[k], v2[k] = pts[i], val[i]
		}
		pts, val = p2, v2
		if math.Abs(val[n]-val[0]) <= 1e-13*(math.Abs(val[0])+1e-300) {
			break
		}
		c := make([]float64, n)
		for _, p := range pts[:n] {
			for j := range c {
				c[j] += p[j] / float64(n)
			}
		}
		r := at(c, pts[n], -1)
		fr := f(r)
		switch {
		case fr < val[0]:
			e := at(c, pts[n], -2)
			if fe := f(e); fe < fr {
				pts[n], val[n] = e, fe
			} else {
				pts[n], val[n] = r, fr
			}
		case fr < val[n-1]:
			pts[n], val[n] = r, fr
		default:
			k := at(c, pts[n], 0.5)
			if fr < val[n] {
				k = at(c, r, 0.5)
			}
			if fk := f(k); fk < math.Min(fr, val[n]) {
				pts[n], val[n] = k, fk
				continue
			}
			for i := 1; i <= n; i++ {
				pts[i] = at(pts[0], pts[i], 0.5)
				val[i] = f(pts[i])
			}
		}
	}
	best := 0
	for i := range val {
		if val[i] < val[best] {
			best = i
		}
	}
	return pts[best], val[best]
}
