package fit

import (
	"testing"

	"github.com/pollfit/pollfit/sample"
	"gonum.org/v1/gonum/stat/distuv"
)

// TestKSSubsampleNamed: a distance computed on the KS subsample
// of a sample of more than KSMaxItems items says so (KS.Subsample, the
// subsample's length, which N also counts), so that the text does not
// present 2¹⁶ items' sampling error (about DKWBand(2¹⁶) = 0.0053) as the
// distance on millions of rows (the fresh user's 2M-row plan printed
// 0.00579 "on the 1400000 rows fitted", against 0.00094 on all of them);
// an exact distance has Subsample 0: every item of a small sample, and
// the Kaplan–Meier distance of a censored one in-sample.
func TestKSSubsampleNamed(t *testing.T) {
	ln := distuv.LogNormal{Mu: 0, Sigma: 0.5, Src: pcg(11)}
	cases := []struct {
		name          string
		n             int
		censored      bool
		wantSubsample int
	}{
		{"small", 1000, false, 0},
		{"at the limit", KSMaxItems, false, 0},
		{"above the limit", KSMaxItems + 1, false, KSMaxItems},
		{"large", 300_000, false, KSMaxItems},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			x := sampleOf(ln, c.n, 0)
			d, err := Estimate(&sample.Sample{Times: append([]float64(nil), x...)}, Options{Horizon: 20})
			if err != nil {
				t.Fatal(err)
			}
			if d.KS.Subsample != c.wantSubsample {
				t.Errorf("in-sample KS.Subsample = %d, want %d", d.KS.Subsample, c.wantSubsample)
			}
			k := KSDistance(d, &sample.Sample{Times: x})
			if k.Subsample != c.wantSubsample {
				t.Errorf("KSDistance(…).Subsample = %d, want %d", k.Subsample, c.wantSubsample)
			}
			if c.wantSubsample > 0 && k.N != float64(c.wantSubsample) {
				t.Errorf("KSDistance(…).N = %g, want the subsample's %d", k.N, c.wantSubsample)
			}
			if k.Rows != c.n {
				t.Errorf("KSDistance(…).Rows = %d, want %d", k.Rows, c.n)
			}
		})
	}
	// Censored in-sample: the Kaplan–Meier distance, on every item.
	x := sampleOf(ln, 200_000, 0)
	cens := make([]bool, len(x))
	for i := range cens {
		if i%10 == 0 {
			cens[i], x[i] = true, x[i]/2
		}
	}
	s := &sample.Sample{Times: x, Censored: cens}
	d, err := Estimate(s, Options{Horizon: 20})
	if err != nil {
		t.Fatal(err)
	}
	if d.KS.Subsample != 0 {
		t.Errorf("censored in-sample KS.Subsample = %d, want 0 (the Kaplan–Meier distance is exact)", d.KS.Subsample)
	}
}
