package fit

import (
	"errors"
	"strings"
	"testing"

	"github.com/pollfit/pollfit/sample"
	"gonum.org/v1/gonum/stat/distuv"
)

// TestHorizonBeforeSettles: a horizon before every settle time
// (a 1-minute horizon for jobs of 5 minutes to hours, the reviewer's
// batch data) is an option error naming the first settle, in every
// domain and by kde or histogram, instead of the KDE grid's panic
// (makeslice: len out of range when ln H < min − 8h) or a density of
// zeros, and by the parametric families and the mixture, which fit every
// settle but whose density on such a grid said nothing of the data (a
// second fresh user's plan printed "mass beyond the horizon 100.0%" and
// a mean lag of NaN); a horizon past the first settle still fits.
func TestHorizonBeforeSettles(t *testing.T) {
	// Lognormal job times around 30 minutes, shifted by 268 s so that
	// none settles before it.
	x := sampleOf(distuv.LogNormal{Mu: 7.5, Sigma: 0.6, Src: pcg(15)}, 2000, 0)
	first := x[0]
	for i := range x {
		x[i] += 268
		first = min(first, x[i])
	}
	cases := []struct {
		name    string
		opt     Options
		wantErr bool
	}{
		{"log kde, 1m", Options{Horizon: 60}, true},
		{"log kde, 5s", Options{Horizon: 5}, true},
		{"log kde, just before", Options{Horizon: first * 0.999}, true},
		{"linear kde, 1m", Options{Horizon: 60, Domain: DomainLinear}, true},
		{"reflect kde, 1m", Options{Horizon: 60, Domain: DomainReflect}, true},
		{"histogram, 1m", Options{Horizon: 60, Method: "histogram"}, true},
		{"linear histogram, 1m", Options{Horizon: 60, Method: "histogram", Domain: DomainLinear}, true},
		{"lognormal, 1m", Options{Horizon: 60, Method: "lognormal"}, true},
		{"weibull, 1m", Options{Horizon: 60, Method: "weibull"}, true},
		{"mixture, 1m", Options{Horizon: 60, Method: "lognormal-mixture:2"}, true},
		{"log kde, past the first", Options{Horizon: first * 1.5}, false},
		{"weibull, past the first", Options{Horizon: first * 1.5, Method: "weibull"}, false},
		{"histogram, past the first", Options{Horizon: first * 1.5, Method: "histogram"}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d, err := Estimate(&sample.Sample{Times: append([]float64(nil), x...)}, c.opt)
			if !c.wantErr {
				if err != nil {
					t.Fatalf("Estimate(H = %g) = %v, want a fit", c.opt.Horizon, err)
				}
				if d.CDF(c.opt.Horizon) <= 0 {
					t.Errorf("CDF(H = %g) = %g, want > 0: settles lie before it", c.opt.Horizon, d.CDF(c.opt.Horizon))
				}
				return
			}
			if !errors.Is(err, ErrOption) {
				t.Fatalf("Estimate(H = %g) error = %v, want ErrOption", c.opt.Horizon, err)
			}
			if !strings.Contains(err.Error(), "comes before every settle time") {
				t.Errorf("error %q does not say the horizon comes before every settle", err)
			}
		})
	}
}
