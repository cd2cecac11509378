package fit

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"
)

// TestLogPhi and TestTruncNormal compare with R 4.2.2: pnorm(x,
// log.p = TRUE); truncated moments by integrate() (rel.tol 1e-13), and
// in the far tail from pnorm(a, lower.tail = FALSE, log.p = TRUE).
func TestLogPhi(t *testing.T) {
	for _, tc := range []struct{ x, want float64 }{
		{-40, -804.6084420137538}, {-37.5, -707.66898931750723}, {-36.9, -685.33288316535061},
		{-20, -203.91715537109727}, {-5, -15.064998393988725}, {0, -0.69314718055994529},
		{3, -0.0013508099647481938}, {10, -7.6198530241605269e-24},
	} {
		if got := logPhi(tc.x); !scalar.EqualWithinRel(got, tc.want, 1e-12) {
			t.Errorf("logPhi(%g) = %.17g, want %.17g", tc.x, got, tc.want)
		}
	}
}

func TestTruncNormal(t *testing.T) {
	inf := math.Inf(1)
	for _, tc := range []struct{ a, b, logP, m1, m2 float64 }{
		{-1, 2, -0.200166294324463, 0.229637179091329, 0.572495773232557},
		{0.5, 0.51, -5.65162432325205, 0.504995791682465, 0.255029082911939},
		{-inf, -1, -1.84102164500926, -1.52513527616098, 2.52513527616098},
		{1.5, inf, -2.70594440082389, 1.93867716662254, 3.90801574993381},
		{3, 3.5, -6.79686800668344, 3.18559439840069, 10.1662403930329},
		{10, inf, -53.2312851505125, 10.0980932339625, 101.980932339625},
		{40, inf, -804.608442013754, 40.0249688472063, 1601.99875388825},
		// dnorm(-9) = 1.0279773571668917e-18; log P = −1.13e−19.
		{-9, inf, 0, 1.0279773571668917e-18, 1},
	} {
		lp, m1, m2 := truncNormal(tc.a, tc.b)
		if !scalar.EqualWithinAbsOrRel(lp, tc.logP, 1e-18, 1e-11) || !scalar.EqualWithinAbsOrRel(m1, tc.m1, 1e-30, 1e-11) || !scalar.EqualWithinRel(m2, tc.m2, 1e-11) {
			t.Errorf("truncNormal(%g, %g) = %.15g, %.15g, %.15g; want %.15g, %.15g, %.15g", tc.a, tc.b, lp, m1, m2, tc.logP, tc.m1, tc.m2)
		}
	}
}
