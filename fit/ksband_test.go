package fit

import (
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/pollfit/pollfit/sample"
	"gonum.org/v1/gonum/stat/distuv"
)

// TestKSBand checks KSBand against Smirnov's formula by hand:
// c(0.05) = sqrt(ln(40)/2) = 1.35810, so 1400 fitted and 600 held-out
// rows give 1.35810·sqrt(1/1400 + 1/600) = 1.35810·0.048795 = 0.066269; with no fitted sample
// it is the one-sample DKW band, 1.35810/sqrt(600) = 0.055444.
func TestKSBand(t *testing.T) {
	for _, c := range []struct{ n, m, want float64 }{
		{1400, 600, 0.066269},
		{0, 600, 0.055444},
		{50, 4950, 1.35810 * math.Sqrt(1.0/50+1.0/4950)}, // 0.19302
	} {
		if got := KSBand(c.n, c.m, 0.05); math.Abs(got-c.want) > 2e-6 {
			t.Errorf("KSBand(%g, %g, 0.05) = %.6f, want %.6f", c.n, c.m, got, c.want)
		}
	}
	if got := KSBand(100, 0, 0.05); !math.IsInf(got, 1) {
		t.Errorf("KSBand(100, 0) = %v, want +Inf", got)
	}
}

// bandSample draws n settle times from dist; with censor > 0, each item
// is also given an independent censoring time censor·(another draw), and
// is censored there when that comes first (about 10% for the factors
// used below).
func bandSample(dist func() float64, n int, censor float64) *sample.Sample {
	s := &sample.Sample{Times: make([]float64, n)}
	if censor > 0 {
		s.Censored = make([]bool, n)
	}
	for i := range s.Times {
		t := dist()
		if censor > 0 {
			if c := censor * dist(); c < t {
				t, s.Censored[i] = c, true
			}
		}
		s.Times[i] = t
	}
	return s
}

// TestHoldoutBandCalibration measures how often a fit of the right model
// lands beyond its held-out band: fresh seeded samples of n = 2000 from a
// lognormal and a Weibull, complete and with about 10% censored, each
// fitted by the true family and by the default KDE with 30% held out.
// Beyond the 95% band should happen about 5% of the time or less (the
// two-sample band is wide for a parametric fit, whose error is below an
// empirical CDF's); the test asserts at most 7% over all fits and at most
// 12% for each setting, and that the old one-sample band DKWBand(m) of
// the held-out rows alone is exceeded clearly more often (it was: 12–17%
// on the CLI).
func TestHoldoutBandCalibration(t *testing.T) {
	reps := 60 // 480 fits, 5–6 s on a loaded core
	if testing.Short() {
		reps = 20
	}
	if v, err := strconv.Atoi(os.Getenv("POLLFIT_BAND_REPS")); err == nil && v > 0 {
		reps = v // a longer run: POLLFIT_BAND_REPS=200 go test ./fit -run HoldoutBandCalibration -v
	}
	type dist struct {
		name, family string
		draw         func(seed uint64) func() float64
		censor       float64 // censoring-time factor for ~10% censored
	}
	dists := []dist{
		{"lognormal", "lognormal", func(seed uint64) func() float64 {
			return distuv.LogNormal{Mu: 1.5, Sigma: 0.5, Src: pcg(seed)}.Rand
		}, 2.5},
		{"weibull", "weibull", func(seed uint64) func() float64 {
			return distuv.Weibull{K: 1.5, Lambda: 4, Src: pcg(seed)}.Rand
		}, 4.5},
	}
	var newOut, oldOut, total int
	for _, ds := range dists {
		for _, cens := range []bool{false, true} {
			for _, method := range []string{ds.family, "kde"} {
				name := fmt.Sprintf("%s/censored=%v/%s", ds.name, cens, method)
				var nNew, nOld, nCens, nItems int
				for r := range reps {
					seed := uint64(1000*r + 7)
					f := 0.0
					if cens {
						f = ds.censor
					}
					s := bandSample(ds.draw(seed), 2000, f)
					nCens += s.CensoredCount()
					nItems += s.Len()
					d, err := Estimate(s, Options{Method: method, Holdout: 0.3, Seed: seed})
					if err != nil {
						t.Fatalf("%s rep %d: %v", name, r, err)
					}
					k := d.HoldoutKS
					if k.D > k.Band95 {
						nNew++
					}
					if k.D > DKWBand(k.N, 0.05) {
						nOld++
					}
				}
				newOut += nNew
				oldOut += nOld
				total += reps
				t.Logf("%-32s censored %4.1f%%: beyond the two-sample band %2d/%d (%4.1f%%), beyond the old one-sample band %2d/%d (%4.1f%%)",
					name, 100*float64(nCens)/float64(nItems), nNew, reps, 100*float64(nNew)/float64(reps), nOld, reps, 100*float64(nOld)/float64(reps))
				if float64(nNew) > 0.12*float64(reps) {
					t.Errorf("%s: %d of %d fits beyond the two-sample 95%% band, want at most 12%%", name, nNew, reps)
				}
			}
		}
	}
	rNew, rOld := float64(newOut)/float64(total), float64(oldOut)/float64(total)
	t.Logf("all: beyond the two-sample band %d/%d (%.1f%%), beyond the old band %d/%d (%.1f%%)", newOut, total, 100*rNew, oldOut, total, 100*rOld)
	if rNew > 0.07 {
		t.Errorf("%d of %d fits (%.1f%%) beyond the two-sample 95%% band, want at most 7%%", newOut, total, 100*rNew)
	}
	if !testing.Short() && !(rOld > 0.07 && rOld > 1.5*rNew) {
		t.Errorf("old one-sample band exceeded by %.1f%% of fits, the new by %.1f%%: want the old above 7%% and half again the new", 100*rOld, 100*rNew)
	}
}

// TestKSMisfitWarns: a Weibull fitted to 5000 lognormal draws misses them
// by far more than sampling error (on the CLI: held-out KS 0.0798 against
// a two-sample band of 0.0419, in-sample 0.0674 against 0.0192), and both
// the held-out and the in-sample verdicts say so, once each; the true
// family and the KDE fitted in-sample stay within the band and quiet.
func TestKSMisfitWarns(t *testing.T) {
	x := sampleOf(distuv.LogNormal{Mu: 1.5, Sigma: 0.5, Src: pcg(11)}, 5000, 0)
	countKS := func(d *Density, prefix string) int {
		n := 0
		for _, w := range d.Warnings {
			if strings.HasPrefix(w, prefix) {
				n++
			}
		}
		return n
	}
	d, err := Estimate(&sample.Sample{Times: x}, Options{Method: "weibull", Holdout: 0.3, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	k := d.HoldoutKS
	wantBand := KSBand(3500, 1500, 0.05) // 0.0419
	if math.Abs(k.Band95-wantBand) > 1e-12 || k.FittedN != 3500 || k.N != 1500 {
		t.Errorf("held-out band %.4f on %g fitted, %g held out; want %.4f on 3500, 1500", k.Band95, k.FittedN, k.N, wantBand)
	}
	if !(k.D > 1.5*k.Band95) {
		t.Errorf("held-out KS %.4f, want well beyond the band %.4f", k.D, k.Band95)
	}
	if countKS(d, "held-out KS distance") != 1 || countKS(d, "in-sample KS distance") != 0 {
		t.Errorf("held-out misfit: warnings %q, want one held-out KS warning and no in-sample one", d.Warnings)
	}
	d, err = Estimate(&sample.Sample{Times: x}, Options{Method: "weibull"})
	if err != nil {
		t.Fatal(err)
	}
	if want := 1.358102 / math.Sqrt(5000); math.Abs(d.KS.Band95-want) > 1e-6 { // 0.0192
		t.Errorf("in-sample band %.6f, want %.6f", d.KS.Band95, want)
	}
	if !(d.KS.D > 2*d.KS.Band95) || countKS(d, "in-sample KS distance") != 1 {
		t.Errorf("in-sample misfit: KS %.4f (band %.4f), warnings %q; want one in-sample KS warning", d.KS.D, d.KS.Band95, d.Warnings)
	}
	for _, m := range []string{"lognormal", "kde"} {
		d, err := Estimate(&sample.Sample{Times: x}, Options{Method: m})
		if err != nil {
			t.Fatal(err)
		}
		if d.KS.D > d.KS.Band95 || countKS(d, "in-sample KS distance") != 0 {
			t.Errorf("%s in-sample: KS %.4f (band %.4f), warnings %q; want within the band and no warning", m, d.KS.D, d.KS.Band95, d.Warnings)
		}
	}
}
