package fit

import (
	"math"
	"testing"
)

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
