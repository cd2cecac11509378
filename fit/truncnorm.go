package fit

import (
	"math"
)

// truncNormal returns, for a standard normal Z restricted to (a, b)
// (a < b, either may be infinite), ln P(a < Z < b) and the conditional
// moments E[Z] and E[Z²]:
//
//	P = Φ(b) − Φ(a),  E[Z] = (φ(a) − φ(b))/P,  E[Z²] = 1 + (a·φ(a) − b·φ(b))/P
//
// (Johnson, Kotz & Balakrishnan 1994, Continuous Univariate Distributions
// 1, §10.1). Intervals in the upper tail are reflected into the lower
// one, where Φ keeps its relative precision, and the ratios are taken in
// logs, so that items far in a component's tail (a censored time 40σ
// out) still give finite moments.
func truncNormal(a, b float64) (logP, m1, m2 float64) {
	if a < -8.3 && math.IsInf(b, 1) {
		// A censoring time far below the component: Φ(a) < 10⁻¹⁶, so
		// P = 1 to rounding (most censored items, for most components).
		r := 0.3989422804014327 * math.Exp(-a*a/2)
		return 0, r, 1 + a*r
	}
	flip := a > 0
	if flip {
		a, b = -b, -a
	}
	const invSqrt2Pi = 0.3989422804014327
	ra, rb := 0.0, 0.0 // φ(a)/P, φ(b)/P; 0 at infinite bounds
	if p := 0.5 * (math.Erfc(-b/math.Sqrt2) - math.Erfc(-a/math.Sqrt2)); a > -37 && p > 1e-290 {
		// Φ(a) ≤ ½ keeps its relative precision down to −37, and so
		// does the difference unless the interval is far narrower than
		// those (which the callers' midpoint expansion takes).
		logP = math.Log(p)
		if !math.IsInf(a, 0) {
			ra = invSqrt2Pi * math.Exp(-a*a/2) / p
		}
		if !math.IsInf(b, 0) {
			rb = invSqrt2Pi * math.Exp(-b*b/2) / p
		}
	} else {
		lb, la := logPhi(b), logPhi(a)
		if math.IsInf(lb, -1) {
			return lb, 0, 0 // out of reach: the caller gives it no weight
		}
		logP = lb + math.Log1p(-math.Exp(la-lb))
		if !math.IsInf(a, 0) {
			ra = math.Exp(-a*a/2 - 0.9189385332046727 - logP)
		}
		if !math.IsInf(b, 0) {
			rb = math.Exp(-b*b/2 - 0.9189385332046727 - logP)
		}
	}
	m1 = ra - rb
	m2 = 1
	if ra != 0 {
		m2 += a * ra
	}
	if rb != 0 {
		m2 -= b * rb
	}
	if flip {
		m1 = -m1
	}
	return logP, m1, max(m2, m1*m1)
}

// logPhi returns ln Φ(x): from erfc down to x = −37 (Φ ≈ 10⁻³⁰⁰), below
// by the asymptotic series Φ(x) = φ(x)/|x|·(1 − 1/x² + 3/x⁴ − 15/x⁶ +
// 105/x⁸) (Abramowitz & Stegun 26.2.12), whose error there is below
// 10⁻¹².
func logPhi(x float64) float64 {
	switch {
	case math.IsInf(x, -1):
		return math.Inf(-1)
	case x > 0:
		return math.Log1p(-0.5 * math.Erfc(x/math.Sqrt2))
	case x > -37:
		return math.Log(0.5 * math.Erfc(-x/math.Sqrt2))
	}
	z := 1 / (x * x)
	return -x*x/2 - 0.9189385332046727 - math.Log(-x) + math.Log(1-z*(1-z*(3-z*(15-105*z))))
}
