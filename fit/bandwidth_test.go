package fit

import (
	"math"
	"slices"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"
	"gonum.org/v1/gonum/stat/distuv"
)

// TestGaussSteps: the recurrence that phi4 and phi6 take their
// exponentials from stays within 10⁻¹² of math.Exp(−(i·u)²/2) over the
// thousand bins of sj, from pilots wide against a bin to narrow ones.
func TestGaussSteps(t *testing.T) {
	for _, u := range []float64{1e-4, 0.01, 0.3, 1, 3} {
		g := newGaussSteps(u)
		for i := range 1000 {
			got, want := g.next(i), math.Exp(-sq(float64(i)*u)/2)
			if want > 1e-300 && math.Abs(got-want) > 1e-12*want {
				t.Fatalf("gaussSteps(u = %g) at %d = %.17g, want %.17g (math.Exp)", u, i, got, want)
			}
		}
	}
}

// TestDCT2: dct2 (Makhoul's m-point FFT) equals the defining sum
// c_k = Σ_j x_j cos(πk(2j+1)/(2m)) at low, middle and high k.
func TestDCT2(t *testing.T) {
	r := pcg(3)
	for _, m := range []int{16, 1024, 4096} {
		x := make([]float64, m)
		for i := range x {
			x[i] = r.Float64()
		}
		got := dct2(x)
		for _, k := range []int{0, 1, 5, m / 2, m/2 + 1, m - 1} {
			want := 0.0
			for j, v := range x {
				want += v * math.Cos(math.Pi*float64(k)*float64(2*j+1)/float64(2*m))
			}
			if math.Abs(got[k]-want) > 1e-11*float64(m) {
				t.Errorf("dct2 (m = %d) c_%d = %.15g, want %.15g (the sum)", m, k, got[k], want)
			}
		}
	}
}

// TestBrent: brent finds roots to within its tolerance, where one side of
// the bracket is flat (x³), the root is at an end's neighbourhood (e^x −
// 1 on [−1, 10⁻³]) and the function is steep (tan).
func TestBrent(t *testing.T) {
	for _, tc := range []struct {
		name       string
		f          func(float64) float64
		a, b, root float64
	}{
		{"cube", func(x float64) float64 { return x*x*x - 2 }, 0, 4, math.Cbrt(2)},
		{"expm1", math.Expm1, -1, 1e-3, 0},
		{"tan", func(x float64) float64 { return math.Tan(x) - 1 }, 0, 1.5, math.Pi / 4},
		{"cos", math.Cos, 1, 3, math.Pi / 2},
	} {
		got := brent(tc.f, tc.a, tc.b, 1e-300)
		if math.Abs(got-tc.root) > 1e-14*math.Max(1, math.Abs(tc.root)) {
			t.Errorf("brent(%s) = %.17g, want %.17g", tc.name, got, tc.root)
		}
	}
}

// TestSJWeightedPairs pins the sheather–jones functionals on weighted
// samples (pairCounts). Frequency weights (an item of c rows, cw = c, as
// binned input's) give the pair counts of the sample with each item
// repeated c times, which are R's (TestBandwidthMatchesR): c(c−1)/2 pairs
// of rows at distance 0 within an item. Probability weights (Kaplan–Meier
// masses, one row an item) give, in weights w normalised to 1 and for the
// binned distances Δ of R's bw.SJ,
//
//	ψ̂4(g) = (Σ_i w_i² L(0) + Σ_{i≠j} w_i w_j L(Δ_ij)) / (1 − Σw²),  L = φ⁽⁴⁾_g
//
// computed here item by item: the off-diagonal sum has expectation
// (1 − Σw²)·ψ4 for independent items, R's n(n−1) with n Kish's
// (Σw)²/Σw², and the diagonal is R's n·L(0) in the same units.
func TestSJWeightedPairs(t *testing.T) {
	r := pcg(91)
	t.Run("frequency", func(t *testing.T) {
		var x, w, cw, rep []float64
		N := 0.0
		for range 40 {
			v := 2 + 0.7*r.NormFloat64()
			c := float64(1 + r.IntN(50))
			x, cw = append(x, v), append(cw, c)
			N += c
			for range int(c) {
				rep = append(rep, v)
			}
		}
		for _, c := range cw {
			w = append(w, c/N)
		}
		got := wsample{x: x, w: w, cw: cw}.pairCounts(1000)
		want := wsample{x: rep}.pairCounts(1000)
		if got.n != want.n || got.d != want.d {
			t.Fatalf("n %v, d %v; want %v, %v (the rows)", got.n, got.d, want.n, want.d)
		}
		for k := range want.cnt {
			if !scalar.EqualWithinAbsOrRel(got.cnt[k], want.cnt[k], 1e-9, 1e-12) {
				t.Errorf("cnt[%d] = %v, want %v (the rows)", k, got.cnt[k], want.cnt[k])
			}
		}
	})
	t.Run("probability", func(t *testing.T) {
		const n = 300
		x, w := make([]float64, n), make([]float64, n)
		var sw, sw2 float64
		for i := range x {
			x[i] = 0.5 * r.NormFloat64()
			w[i] = 0.2 + 1.6*r.Float64()
			sw += w[i]
		}
		for i := range w {
			w[i] /= sw
			sw2 += w[i] * w[i]
		}
		c := wsample{x: x, w: w}.pairCounts(1000)
		if !scalar.EqualWithinRel(c.n, 1/sw2, 1e-12) {
			t.Errorf("n = %v, want Kish's 1/Σw² = %v", c.n, 1/sw2)
		}
		lo, hi := minMax(x)
		d := (hi - lo) * 1.01 / 1000
		L := func(delta, g float64) float64 {
			u := delta / g
			return (u*u*u*u - 6*u*u + 3) * math.Exp(-u*u/2) / math.Sqrt(2*math.Pi) / math.Pow(g, 5)
		}
		for _, g := range []float64{0.05, 0.2, 0.5} {
			sum := sw2 * L(0, g)
			for i := range x {
				for j := range i {
					k := math.Abs(math.Trunc(x[i]/d) - math.Trunc(x[j]/d))
					sum += 2 * w[i] * w[j] * L(k*d, g)
				}
			}
			want := sum / (1 - sw2)
			if got := c.phi4(g); !scalar.EqualWithinRel(got, want, 1e-9) {
				t.Errorf("phi4(%v) = %.10g, want %.10g", g, got, want)
			}
		}
	})
}

// sumExpTermsFull is sumExpTerms before issue 13: every term until the
// exponential underflows to 0.
func sumExpTermsFull(coef []float64, t float64) float64 {
	sum := 0.0
	c := math.Pi * math.Pi * t
	step := math.Exp(-2 * c)
	var e, f float64
	for k, ck := range coef {
		if k%sumRestart == 0 {
			j := float64(k + 1)
			e, f = math.Exp(-(j-1)*(j-1)*c), math.Exp(-(2*j-1)*c)
		}
		e *= f
		f *= step
		if e == 0 {
			break
		}
		sum += ck * e
	}
	return sum
}

// TestSumExpTermsStop (issue 13): sumExpTerms, which stops once the terms
// left are provably below rounding, returns bit for bit the full sum, for
// ISJ's coefficients on lognormal samples of 100 to 10⁵ values (whose
// high-frequency a2_k sit at the sample's noise floor) and on random ones
// (a2_k uniform on [0, 1): the tail at its largest), over t from 10⁻¹² to
// 10⁻¹, every s of the fixed-point iteration.
func TestSumExpTermsStop(t *testing.T) {
	const m = isjBins
	var sets [][]float64 // a2_k, k = 1 … m−1
	for _, n := range []int{100, 1000, 100_000} {
		x := sampleOf(distuv.LogNormal{Mu: 3, Sigma: 1, Src: pcg(1)}, n, 0)
		for i, v := range x {
			x[i] = math.Log(v)
		}
		lo, hi := minMax(x)
		r := hi - lo
		bins := make([]float64, m)
		binLinear(bins, x, nil, 1/float64(n), lo-r/10, hi+r/10, false)
		a := dct2(bins)
		a2 := make([]float64, m-1)
		for k := range a2 {
			a2[k] = sq(a[k+1])
		}
		sets = append(sets, a2)
	}
	rnd := pcg(5)
	a2 := make([]float64, m-1)
	for k := range a2 {
		a2[k] = rnd.Float64()
	}
	sets = append(sets, a2)
	for si, a2 := range sets {
		amax := slices.Clone(a2)
		for k := len(amax) - 2; k >= 0; k-- {
			amax[k] = max(amax[k], amax[k+1])
		}
		for s := 2; s <= 7; s++ {
			coef := make([]float64, m-1)
			for k := range coef {
				i := float64(k+1) * float64(k+1)
				p := i
				for range s - 1 {
					p *= i
				}
				coef[k] = p * a2[k]
			}
			for e := -12.0; e <= -1; e += 0.25 {
				tt := math.Pow(10, e)
				if got, want := sumExpTerms(coef, amax, s, tt), sumExpTermsFull(coef, tt); got != want {
					t.Errorf("set %d, s = %d: sumExpTerms(t = %g) = %.17g, want %.17g (all terms)", si, s, tt, got, want)
				}
			}
		}
	}
}

// phiFull is phi4 (deg 6) or phi6 (deg 15) before issue 13: every bin up
// to δ = 1000.
func phiFull(c sjCounts, h float64, deg int) float64 {
	sum := 0.0
	g := newGaussSteps(c.d / h)
	for i, x := range c.cnt {
		delta := sq(float64(i) * c.d / h)
		if delta >= 1000 {
			break
		}
		if deg == 6 {
			sum += g.next(i) * (delta*delta - 6*delta + 3) * x
		} else {
			sum += g.next(i) * (delta*delta*delta - 15*delta*delta + 45*delta - 15) * x
		}
	}
	if deg == 6 {
		sum = 2*sum + c.n*3
		return sum / (c.n * (c.n - 1) * math.Pow(h, 5) * math.Sqrt(2*math.Pi))
	}
	sum = 2*sum - 15*c.n
	return sum / (c.n * (c.n - 1) * math.Pow(h, 7) * math.Sqrt(2*math.Pi))
}

// TestPhiStop (issue 13): phi4 and phi6, which stop once the bins left
// cannot change their sums, return bit for bit the sums over every bin
// (to δ = 1000), on sj's pair counts of lognormal samples of 100 to 10⁵
// values in ln t and in t, and on random counts, at pilot bandwidths from
// a bin's width to the range.
func TestPhiStop(t *testing.T) {
	var sets []sjCounts
	for _, n := range []int{100, 1000, 100_000} {
		x := sampleOf(distuv.LogNormal{Mu: 3, Sigma: 1, Src: pcg(uint64(n))}, n, 0)
		sets = append(sets, wsample{x: x}.pairCounts(1000))
		lx := make([]float64, n)
		for i, v := range x {
			lx[i] = math.Log(v)
		}
		sets = append(sets, wsample{x: lx}.pairCounts(1000))
	}
	rnd := pcg(5)
	cnt := make([]float64, 1000)
	for k := range cnt {
		cnt[k] = math.Floor(1e4 * rnd.Float64())
	}
	sets = append(sets, sjCounts{n: 1e4, d: 0.01, cnt: cnt}.withMax())
	for si, c := range sets {
		for e := 0.0; e <= 3; e += 0.125 {
			h := c.d * math.Pow(10, e)
			if got, want := c.phi4(h), phiFull(c, h, 6); got != want {
				t.Errorf("set %d: phi4(%g) = %.17g, want %.17g (every bin)", si, h, got, want)
			}
			if got, want := c.phi6(h), phiFull(c, h, 15); got != want {
				t.Errorf("set %d: phi6(%g) = %.17g, want %.17g (every bin)", si, h, got, want)
			}
		}
	}
}
