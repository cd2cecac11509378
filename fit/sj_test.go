package fit

import (
	"math"
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

// TestPhiStop: phi4 and phi6, which stop once the bins left
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

// phiFull is phi4 (deg 6) or phi6 (deg 15) without the early stop: every
// bin up to δ = 1000.
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
