package fit

import (
	"math"
	"testing"
)

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
