package fit

import (
	"math"
)

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
