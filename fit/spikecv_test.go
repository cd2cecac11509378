package fit

import (
	"math"
	"slices"
	"testing"

	"github.com/pollfit/pollfit/sample"
	"gonum.org/v1/gonum/stat/distuv"
)

// uncensoredKS returns sup |F̂(t) − F_n(t)| over the sample x (no
// censoring): the Kolmogorov–Smirnov distance of the fit d to the
// empirical CDF, checked on both sides of every jump of F_n.
func uncensoredKS(d *Density, x []float64) float64 {
	s := slices.Sorted(slices.Values(x))
	n := float64(len(s))
	ks := 0.0
	for i, v := range s {
		if i+1 < len(s) && s[i+1] == v {
			continue
		}
		below := float64(sort0(s, v)) / n // F_n just below v
		f := d.CDF(v)
		ks = max(ks, math.Abs(f-float64(i+1)/n), math.Abs(d.CDF(math.Nextafter(v, 0))-below))
	}
	return ks
}

// sort0 returns how many of the sorted s are below v.
func sort0(s []float64, v float64) int {
	i, _ := slices.BinarySearch(s, v)
	return i
}

// mixture draws n times: with probability w[k] from dists[k].
func mixture(seed uint64, n int, w []float64, dists []interface{ Rand() float64 }) []float64 {
	r := pcg(seed)
	x := make([]float64, n)
	for i := range x {
		u, k := r.Float64(), 0
		for k < len(w)-1 && u >= w[k] {
			u -= w[k]
			k++
		}
		x[i] = dists[k].Rand()
	}
	return x
}

// TestSpikesOnlyWhereTheyFit: the spike rule flags the cells of a
// narrow smooth mode as well as a deadline's pile-up; cross-validation
// (spikecv.go) keeps the deadline and leaves the mode to the KDE.
//
// The latency fixture's cold starts (lognormal, σ = 0.03 in ln t, 35.5 %
// of rows around 4.9 s) were a uniform spike of 36 % over 4.66–5.08 s,
// with the fitted CDF at 5.08 s 0.978 where the data have 0.952. Now
// there is no spike and the CDF there is within 0.01 of the data's; the
// same for synthetic warm/cold mixtures with cold modes of σ = 0.02, 0.03
// and 0.05, whose fits stay within 0.01 of their empirical CDF (KS; the
// DKW bound at n = 20,000 and 95 % is 0.0096, so this is the sampling
// error of the data themselves). A deadline spike with even spread (5 %
// uniform over 30–30.6 s on a lognormal) is kept with its mass
// (binomial sd 0.0015) and extent, and a shape near even.
func TestSpikesOnlyWhereTheyFit(t *testing.T) {
	lat := readColumn(t, "../fixtures/latency.csv", "Latency(ms)")
	for i := range lat {
		lat[i] /= 1000 // whole ms
	}
	warm := func(seed uint64) distuv.LogNormal {
		return distuv.LogNormal{Mu: math.Log(0.9), Sigma: 0.25, Src: pcg(seed)}
	}
	cold := func(seed uint64, sigma float64) distuv.LogNormal {
		return distuv.LogNormal{Mu: math.Log(4.9), Sigma: sigma, Src: pcg(seed)}
	}
	for _, c := range []struct {
		name string
		x    []float64
	}{
		{"latency fixture", lat},
		{"cold sigma 0.02", mixture(51, 20000, []float64{0.64, 0.36}, []interface{ Rand() float64 }{warm(52), cold(53, 0.02)})},
		{"cold sigma 0.03", mixture(54, 20000, []float64{0.64, 0.36}, []interface{ Rand() float64 }{warm(55), cold(56, 0.03)})},
		{"cold sigma 0.05", mixture(57, 20000, []float64{0.64, 0.36}, []interface{ Rand() float64 }{warm(58), cold(59, 0.05)})},
	} {
		t.Run(c.name, func(t *testing.T) {
			d, err := Estimate(&sample.Sample{Times: c.x}, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if len(d.Atoms) != 0 {
				t.Errorf("atoms = %v, want none (a narrow mode, not a spike)", d.Atoms)
			}
			var below float64
			for _, v := range c.x {
				if v <= 5.08 {
					below++
				}
			}
			if got, want := d.CDF(5.08), below/float64(len(c.x)); math.Abs(got-want) > 0.01 {
				t.Errorf("CDF(5.08) = %.4f, want %.4f (the data's) ± 0.01", got, want)
			}
			ks := uncensoredKS(d, c.x)
			if ks > 0.01 {
				t.Errorf("KS distance to the data = %.4f, want ≤ 0.01", ks)
			}
			t.Logf("CDF(5.08) = %.4f, data %.4f; KS %.4f; bandwidth %.4g", d.CDF(5.08), below/float64(len(c.x)), ks, d.Bandwidth)
		})
	}

	t.Run("uniform deadline spike", func(t *testing.T) {
		x := mixture(60, 20000, []float64{0.95, 0.05}, []interface{ Rand() float64 }{
			distuv.LogNormal{Mu: 2.5, Sigma: 1, Src: pcg(61)},
			distuv.Uniform{Min: 30, Max: 30.6, Src: pcg(62)},
		})
		d, err := Estimate(&sample.Sample{Times: x}, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if len(d.Atoms) != 1 {
			t.Fatalf("atoms = %v, want one spike", d.Atoms)
		}
		a := d.Atoms[0]
		// Extents are measured to a sub-cell (at 30 s, 0.02–0.075 s); the
		// 5 %–95 % range of U(30, 30.6) is 30.03–30.57.
		if from := a.T - a.Width; from < 29.95 || from > 30.1 || a.T < 30.5 || a.T > 30.65 || math.Abs(a.Mass-0.05) > 0.006 {
			t.Errorf("spike = %+v (from %.4g), want ≈ 5%% over [30.03, 30.57]", a, from)
		}
		// Even spread: the density at the end within a factor 2 of that at
		// the start (Rate·Width within ±ln 2).
		if u := a.Rate * a.Width; math.Abs(u) > math.Ln2 {
			t.Errorf("spike Rate·Width = %.3f, want |·| ≤ ln 2 (near even)", u)
		}
		ks := uncensoredKS(d, x)
		if ks > 0.01 {
			t.Errorf("KS distance to the data = %.4f, want ≤ 0.01", ks)
		}
		t.Logf("spike %v (from %.4g, Rate·Width %.3f); KS %.4f", a, a.T-a.Width, a.Rate*a.Width, ks)
	})
}
