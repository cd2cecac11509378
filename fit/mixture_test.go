package fit

import (
	"math"
	"strings"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"
)

// TestMixtureDistribution checks CDF, Survival, PDF, Quantile and Density
// against each other and by hand.
func TestMixtureDistribution(t *testing.T) {
	m := &Mixture{Components: []Component{{0.3, 0, 0.5}, {0.6, math.Log(20), 0.4}}, Stuck: 0.1}
	// At the first median: 0.3·½ + 0.6·Φ((0 − ln 20)/0.4) = 0.15 + 0.6·Φ(−7.49).
	if got, want := m.CDF(1), 0.15+0.6*normCDF(-math.Log(20)/0.4); !scalar.EqualWithinAbs(got, want, 1e-15) {
		t.Errorf("CDF(1) = %g, want %g", got, want)
	}
	for _, x := range []float64{0.01, 0.5, 1, 7, 20, 300, 1e5} {
		if got := m.CDF(x) + m.Survival(x); !scalar.EqualWithinAbs(got, 1, 1e-14) {
			t.Errorf("CDF + Survival at %g = %g", x, got)
		}
		// (Beyond 100 s the CDF is flat to 10⁻⁹: its quantile is not
		// defined to better than that.)
		if q := m.Quantile(m.CDF(x)); !scalar.EqualWithinRel(q, x, 1e-9) && x < 100 {
			t.Errorf("Quantile(CDF(%g)) = %g", x, q)
		}
		// PDF against the CDF's central difference.
		h := x * 1e-5
		if num := (m.CDF(x+h) - m.CDF(x-h)) / (2 * h); !scalar.EqualWithinAbsOrRel(m.PDF(x), num, 1e-12, 1e-6) {
			t.Errorf("PDF(%g) = %g, CDF slope %g", x, m.PDF(x), num)
		}
	}
	if !math.IsInf(m.Quantile(0.95), 1) {
		t.Errorf("Quantile(0.95) = %g, want +Inf (10%% never settle)", m.Quantile(0.95))
	}
	d := m.Density(120, 256)
	for i, x := range d.T {
		if !scalar.EqualWithinAbs(d.CDFs[i], m.CDF(x), 1e-12) {
			t.Fatalf("Density CDF at %g = %g, want %g", x, d.CDFs[i], m.CDF(x))
		}
	}
	if !scalar.EqualWithinAbs(d.StuckShare, m.Survival(120), 1e-12) || d.Mixture != m {
		t.Errorf("stuck share %g, want S(120) = %g", d.StuckShare, m.Survival(120))
	}
	want := "lognormal mixture of 2: 30% at 1s (σ 0.5), 60% at 20s (σ 0.4); 10% never settle"
	if got := m.String(); got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
	// A stuck share EM ran down to nothing is said in words.
	tiny := *m
	tiny.Stuck = 5.49e-57
	if got, want := tiny.String(), "; under 0.01% never settle"; !strings.HasSuffix(got, want) {
		t.Errorf("String() = %q, want it to end %q", got, want)
	}
}
