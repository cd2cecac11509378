package fit

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"testing"

	"github.com/pollfit/pollfit/sample"
	"gonum.org/v1/gonum/floats/scalar"
	"gonum.org/v1/gonum/stat/distuv"
)

// scaleSamples are the samples of TestScaleFree, in seconds.
func scaleSamples() map[string]*sample.Sample {
	const n = 4000
	ln := func(seed uint64) distuv.LogNormal { return distuv.LogNormal{Mu: 0, Sigma: 1, Src: pcg(seed)} }
	ms := func(v float64) float64 { return math.Round(v*1000) / 1000 }

	cont := sampleOf(ln(71), n, 0)
	rounded := sampleOf(ln(72), n, 0.001)

	// 8 % instant settles, 10 % exactly at 2.5 s, the rest whole ms.
	atoms := sampleOf(ln(73), n, 0.001)
	r := pcg(74)
	for i := range atoms {
		switch u := r.Float64(); {
		case u < 0.08:
			atoms[i] = 0
		case u < 0.18:
			atoms[i] = 2.5
		}
	}

	// Right-censored by an independent follow-up uniform on (0, 4 s).
	// (Both rounded alike: 0.001·k and k/1000 can differ by an ulp, a tie
	// at one scale and none at another.)
	cens := &sample.Sample{Times: sampleOf(ln(75), n, 0), Censored: make([]bool, n)}
	fu := distuv.Uniform{Min: 0, Max: 4, Src: pcg(76)}
	for i, v := range cens.Times {
		cens.Times[i] = ms(v)
		if f := ms(fu.Rand()); f < cens.Times[i] {
			cens.Times[i], cens.Censored[i] = f, true
		}
	}

	// A deadline: 6 % settle 3 s + Exp(mean 0.03 s) in, continuous.
	spike := spikeMixture(77, n, 0.06, 3, 0.03, ln(78))

	return map[string]*sample.Sample{
		"continuous":   {Times: cont},
		"whole ms":     {Times: rounded},
		"atoms":        {Times: atoms},
		"censored":     cens,
		"spike":        {Times: spike},
		"tie-heavy ms": {Times: []float64{1, 1, 1, 1, 2.001}},
	}
}

// scaled returns s with every time multiplied by c.
func scaled(s *sample.Sample, c float64) *sample.Sample {
	out := &sample.Sample{Times: make([]float64, len(s.Times)), Censored: s.Censored}
	for i, v := range s.Times {
		out.Times[i] = v * c
	}
	return out
}

var number = regexp.MustCompile(`[-+]?[0-9]*\.?[0-9]+(e[-+]?[0-9]+)?`)

// TestScaleFree fits the same samples (continuous, whole ms, with
// atoms at 0 and 2.5 s, right-censored, with a deadline spike, and the
// issue's tie case) in units from microseconds to days: times multiplied
// by 10⁻⁶, 10⁻³, 3600 and 86400 give the fit at scale 1 up to the scale.
// In the log domain the bandwidth (ln s) is the same, the resolution,
// atoms' times, spikes' extents are scaled (rates divided), masses and the
// stuck share equal, the CDF at scaled points equal to 1e-9 relative, and
// the warnings the same but for their numbers; in the linear domain the
// bandwidth scales too. (Before, data under 3.6 ms were "rounded to
// 3600s", and the spike cells, fixed in ln t, fell differently per unit.)
func TestScaleFree(t *testing.T) {
	const tol = 1e-9
	for name, s := range scaleSamples() {
		for _, dom := range []string{DomainLog, DomainLinear} {
			opt := Options{Domain: dom}
			ref, err := Estimate(s, opt)
			if err != nil {
				t.Fatal(err)
			}
			// The features each sample is there for, at scale 1.
			if w, ok := map[string]struct {
				res   float64
				atoms int
			}{
				"continuous": {0, 0}, "whole ms": {0.001, 0}, "atoms": {0.001, 2}, "censored": {0.001, 0},
				"spike": {0, 1}, "tie-heavy ms": {0.001, 0},
			}[name]; !ok || !scalar.EqualWithinRel(ref.Resolution, w.res, 1e-12) || len(ref.Atoms) != w.atoms {
				t.Fatalf("%s/%s at scale 1: resolution %g, atoms %v; want %g and %d atoms", name, dom, ref.Resolution, ref.Atoms, w.res, w.atoms)
			}
			// Points to compare the CDF at: the sample's own times and the
			// grid's, as found at scale 1.
			pts := append(slices.Clone(s.Times), ref.T...)
			for _, c := range []float64{1e-6, 1e-3, 3600, 86400} {
				t.Run(fmt.Sprintf("%s/%s/x%g", name, dom, c), func(t *testing.T) {
					d, err := Estimate(scaled(s, c), opt)
					if err != nil {
						t.Fatal(err)
					}
					// Relative 1e-9; probabilities (masses, CDF) also within
					// 1e-15 absolute (round-off of a CDF of 0).
					eq := func(what string, got, want float64) {
						t.Helper()
						if !scalar.EqualWithinAbsOrRel(got, want, 1e-300, tol) {
							t.Errorf("%s = %.12g, want %.12g (scale 1, rel tol 1e-9)", what, got, want)
						}
					}
					eqP := func(what string, got, want float64) {
						t.Helper()
						if !scalar.EqualWithinAbsOrRel(got, want, 1e-15, tol) {
							t.Errorf("%s = %.12g, want %.12g (scale 1, rel tol 1e-9)", what, got, want)
						}
					}
					eq("resolution", d.Resolution, c*ref.Resolution)
					hScale := 1.0
					if dom != DomainLog {
						hScale = c
					}
					eq("bandwidth", d.Bandwidth, hScale*ref.Bandwidth)
					if d.BandwidthRule != ref.BandwidthRule {
						t.Errorf("bandwidth rule %s, want %s", d.BandwidthRule, ref.BandwidthRule)
					}
					if len(d.Atoms) != len(ref.Atoms) {
						t.Fatalf("atoms %v, want %v scaled", d.Atoms, ref.Atoms)
					}
					for i, a := range d.Atoms {
						b := ref.Atoms[i]
						eq(fmt.Sprintf("atom %d T", i), a.T, c*b.T)
						eq(fmt.Sprintf("atom %d width", i), a.Width, c*b.Width)
						eq(fmt.Sprintf("atom %d rate", i), a.Rate, b.Rate/c)
						eqP(fmt.Sprintf("atom %d mass", i), a.Mass, b.Mass)
					}
					eqP("stuck share", d.StuckShare, ref.StuckShare)
					for _, x := range pts {
						eqP(fmt.Sprintf("CDF(%g·%g)", c, x), d.CDF(c*x), ref.CDF(x))
					}
					strip := func(w []string) []string {
						out := make([]string, len(w))
						for i, v := range w {
							out[i] = number.ReplaceAllString(v, "#")
						}
						return out
					}
					if got, want := strip(d.Warnings), strip(ref.Warnings); !slices.Equal(got, want) {
						t.Errorf("warnings %q, want %q (scale 1)", d.Warnings, ref.Warnings)
					}
				})
			}
		}
	}
}
