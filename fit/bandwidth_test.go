package fit

import (
	"math"
	"testing"
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
