package fit

import (
	"math"
	"testing"

	"github.com/pollfit/pollfit/ingest"
	"github.com/pollfit/pollfit/sample"
	"gonum.org/v1/gonum/stat/distuv"
)

// spikeMixture draws n times: a share w piles up just after a deadline at
// dl (dl + Exp(mean)), the rest from bulk, unrounded.
func spikeMixture(seed uint64, n int, w, dl, mean float64, bulk interface{ Rand() float64 }) []float64 {
	r := pcg(seed)
	exp := distuv.Exponential{Rate: 1 / mean, Src: r}
	x := make([]float64, n)
	for i := range x {
		if r.Float64() < w {
			x[i] = dl + exp.Rand()
		} else {
			x[i] = bulk.Rand()
		}
	}
	return x
}

// TestSpikes: a deadline spike in continuous data is found in every
// domain, with the spike's share as its mass and its extent the spike's
// own 5 %–95 % range (for dl + Exp(0.3): dl + 0.015 to dl + 0.90) to
// within a sub-cell.
func TestSpikes(t *testing.T) {
	for _, n := range []int{20000, 400000} { // 400000 takes the subsample screens (> 2¹⁸)
		x := spikeMixture(11, n, 0.1, 30, 0.3, distuv.LogNormal{Mu: 2.5, Sigma: 1, Src: pcg(12)})
		// Binomial sd of a 0.1 share: 0.0021 at n = 20000; the cell's
		// background (≈ 0.9 × lognormal density at 30 s × 1 s ≈ 0.01) is
		// mostly taken out as μ.
		for _, dom := range []string{DomainLog, DomainLinear, DomainReflect} {
			d, err := Estimate(&sample.Sample{Times: x}, Options{Domain: dom})
			if err != nil {
				t.Fatal(err)
			}
			if len(d.Atoms) != 1 {
				t.Fatalf("n=%d %s: atoms = %v, want one spike", n, dom, d.Atoms)
			}
			a := d.Atoms[0]
			// Extents are measured in sub-cells of 1/16 of a cell (at 30 s
			// up to 0.075 s): one of slack on each side.
			if a.Width <= 0 || a.T-a.Width < 29.9 || a.T > 31.1 || a.T < 30.8 || math.Abs(a.Mass-0.1) > 0.01 {
				t.Errorf("n=%d %s: spike = %+v (from %v), want ≈ 10%% over [30, 30.9]", n, dom, a, a.T-a.Width)
			}
			// The spike's mass is in the CDF, spread over its extent.
			if got := d.CDF(a.T) - d.CDF(a.T-a.Width); got < a.Mass {
				t.Errorf("n=%d %s: CDF rises %.4f over the spike, want ≥ its mass %.4f", n, dom, got, a.Mass)
			}
		}
	}
}

// TestNoSpikes: smooth densities, a step (nothing before 5 s, then flat)
// and a narrow but smooth bump (lognormal, σ = 0.1 in ln t) are not spikes.
func TestNoSpikes(t *testing.T) {
	const n = 20000
	cases := map[string][]float64{
		"lognormal":         sampleOf(distuv.LogNormal{Mu: 3, Sigma: 1, Src: pcg(13)}, n, 0),
		"gamma":             sampleOf(distuv.Gamma{Alpha: 2, Beta: 0.1, Src: pcg(14)}, n, 0),
		"weibull k=0.8":     sampleOf(distuv.Weibull{K: 0.8, Lambda: 30, Src: pcg(15)}, n, 0),
		"step at 5s":        sampleOf(distuv.Uniform{Min: 5, Max: 50, Src: pcg(16)}, n, 0),
		"bump sigma 0.1":    sampleOf(distuv.LogNormal{Mu: 4, Sigma: 0.1, Src: pcg(17)}, n, 0),
		"lognormal 1ms res": sampleOf(distuv.LogNormal{Mu: 1, Sigma: 1.5, Src: pcg(18)}, n, 0.001),
		"lognormal 1s res":  sampleOf(distuv.LogNormal{Mu: 5, Sigma: 1, Src: pcg(19)}, n, 1),
	}
	for name, x := range cases {
		d, err := Estimate(&sample.Sample{Times: x}, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if len(d.Atoms) != 0 {
			t.Errorf("%s: atoms = %v, want none", name, d.Atoms)
		}
	}
}

// TestSpikeCDF: a spike of mass 0.2 over [6, 10] adds a ramp to the CDF
// (by hand: 0.05 per second) and Quantile reads it back.
func TestSpikeCDF(t *testing.T) {
	d := &Density{Atoms: []Atom{{T: 10, Mass: 0.2, Width: 4}}}
	d.fill(linGrid(20, 21), func(x float64) (float64, float64) { return 0.8 / 20, 0.8 * x / 20 })
	for _, c := range []struct{ t, want float64 }{
		{5, 0.2}, {6, 0.24}, {8, 0.32 + 0.1}, {10, 0.4 + 0.2}, {20, 1},
	} {
		if got := d.CDF(c.t); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("CDF(%g) = %.6f, want %.6f", c.t, got, c.want)
		}
	}
	if got := d.Quantile(0.42); math.Abs(got-8) > 1e-9 {
		t.Errorf("Quantile(0.42) = %g, want 8", got)
	}
	if got, want := d.Atoms[0].String(), "20% settle over 6s–10s"; got != want {
		t.Errorf("String = %q, want %q", got, want)
	}

	// The same spike falling off at Rate ln 2 per second: by hand, its
	// mass settled x s into it is 0.2·(1 − 2^−x)/(1 − 2^−4), its density
	// 0.2·ln 2·2^−x/(1 − 2^−4).
	a := Atom{T: 10, Mass: 0.2, Width: 4, Rate: math.Ln2}
	for _, c := range []struct{ t, cdf, pdf float64 }{
		{5, 0, 0}, {6, 0, 0.2 * math.Ln2 * 16 / 15}, {7, 0.2 * 0.5 * 16 / 15, 0.2 * math.Ln2 * 0.5 * 16 / 15},
		{8, 0.2 * 0.75 * 16 / 15, 0.2 * math.Ln2 * 0.25 * 16 / 15}, {10, 0.2, 0.2 * math.Ln2 / 15}, {11, 0.2, 0},
	} {
		if got := a.CDF(c.t); math.Abs(got-c.cdf) > 1e-12 {
			t.Errorf("Atom%+v.CDF(%g) = %.6f, want %.6f", a, c.t, got, c.cdf)
		}
		if got := a.PDF(c.t); math.Abs(got-c.pdf) > 1e-12 {
			t.Errorf("Atom%+v.PDF(%g) = %.6f, want %.6f", a, c.t, got, c.pdf)
		}
	}
}

// TestTruncExpRate: the mean of the exponential density ∝ e^(−u·x) on
// [0, 1] is 1/u − 1/(eᵘ − 1); truncExpRate inverts it (u = 0 at ½, and
// u = 2: 1/2 − 1/(e² − 1) = 0.34348).
func TestTruncExpRate(t *testing.T) {
	for _, c := range []struct{ m, u float64 }{
		{0.5, 0}, {0.5 - 1/math.Expm1(2), 2}, {1 - (0.5 - 1/math.Expm1(2)), -2}, {1/10.0 - 1/math.Expm1(10), 10},
	} {
		if got := truncExpRate(c.m); math.Abs(got-c.u) > 1e-6 {
			t.Errorf("truncExpRate(%.6f) = %.6f, want %g", c.m, got, c.u)
		}
	}
}

// TestSpikePaymentsFixture: the payments fixture's momo timeouts (generated
// as 60.5 s + Exp(mean 0.5 s), 12 % of momo = 6 % of all rows; binomial sd
// 0.0017) are found as one spike, the only atom.
func TestSpikePaymentsFixture(t *testing.T) {
	s, _, err := ingest.Read([]string{"../fixtures/payments.csv"}, ingest.ReadOptions{Column: "settle_s", Status: "status", Pending: []string{"pending"}})
	if err != nil {
		t.Skip("fixtures/payments.csv:", err)
	}
	d, err := Estimate(s, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Atoms) != 1 {
		t.Fatalf("atoms = %v, want one spike", d.Atoms)
	}
	a := d.Atoms[0]
	if a.T-a.Width < 60.3 || a.T < 61.5 || a.T > 62.5 || math.Abs(a.Mass-0.06) > 0.006 {
		t.Errorf("spike = %+v (from %v), want ≈ 6%% over [60.5, 62]", a, a.T-a.Width)
	}
	// Its shape: the CDF follows the Kaplan–Meier curve across
	// the spike to within 0.005 (an even spread was 0.021 off at 61.1 s;
	// the KM's own standard error there is 0.002). The fitted rate is that
	// of the generated delay, 1/0.5 s, to within 25 %.
	km := d.KM
	for j, v := range km.T {
		if v < 60 || v > 63 {
			continue
		}
		if got, want := d.CDF(v), 1-km.Survival[j]; math.Abs(got-want) > 0.005 {
			t.Errorf("CDF(%g) = %.4f, want the KM's %.4f ± 0.005", v, got, want)
		}
	}
	if a.Rate < 1.5 || a.Rate > 2.5 {
		t.Errorf("spike rate = %.3g/s, want ≈ 2/s (Exp(mean 0.5 s) after the deadline)", a.Rate)
	}
}

// TestAtomsBatchesFixture: the batch-settled fixture's three exact atoms
// are found with the share of rows recorded exactly at 60, 120 and 300 s
// (counted here straight from the CSV), and no spike.
func TestAtomsBatchesFixture(t *testing.T) {
	x := readColumn(t, "../fixtures/batches.csv", "settle_s")
	s, _, err := ingest.Read([]string{"../fixtures/batches.csv"}, ingest.ReadOptions{Column: "settle_s", Status: "status", Pending: []string{"pending"}})
	if err != nil {
		t.Fatal(err)
	}
	d, err := Estimate(s, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := []float64{60, 120, 300}
	if len(d.Atoms) != len(want) {
		t.Fatalf("atoms = %v, want exact atoms at %v", d.Atoms, want)
	}
	for i, a := range d.Atoms {
		var at int
		for _, v := range x {
			if v == want[i] {
				at++
			}
		}
		// The smooth part keeps μ of the items at the atom: at 1 ms
		// resolution μ is below one item, < 0.0004 of 3000 rows.
		share := float64(at) / float64(len(x))
		if a.T != want[i] || a.Width != 0 || math.Abs(a.Mass-share) > 0.001 {
			t.Errorf("atom %d = %+v, want %gs with mass %.4f (%d of %d rows)", i, a, want[i], share, at, len(x))
		}
	}
}

// TestSpikeLeavesSmoothBackground: on 6M items the spike's removal leaves
// no shape behind for ISJ to chase: the bandwidth is that of the same
// bulk without the spike, within 20 % (scaling each item in the spike's
// cell by one factor gave 0.0022 here, against 0.057).
func TestSpikeLeavesSmoothBackground(t *testing.T) {
	if testing.Short() {
		t.Skip("6M-item fits")
	}
	const n = 6_000_000
	bulk := func() distuv.LogNormal { return distuv.LogNormal{Mu: 2, Sigma: 1.2, Src: pcg(41)} }
	with := spikeMixture(42, n, 0.06, 60.5, 0.5, bulk())
	without := spikeMixture(42, n, 0, 60.5, 0.5, bulk())
	for _, x := range [][]float64{with, without} {
		for i := range x {
			x[i] = math.Round(x[i]*1000) / 1000
		}
	}
	dw, err := Estimate(&sample.Sample{Times: with}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	do, err := Estimate(&sample.Sample{Times: without}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(dw.Atoms) != 1 || len(do.Atoms) != 0 {
		t.Fatalf("atoms %v with the spike, %v without", dw.Atoms, do.Atoms)
	}
	if r := dw.Bandwidth / do.Bandwidth; r < 0.8 || r > 1.2 {
		t.Errorf("bandwidth %.4g with the spike, %.4g without", dw.Bandwidth, do.Bandwidth)
	}
}

// TestHalfCells: the spike screen's half-cells found from a table of
// cell ends (halfCells) are those of ⌊2·ln(t/tmin)/c₀⌋, item for item, on
// lognormal samples spanning a factor of 5 to 10¹⁷ (the two may differ
// for a time within rounding of a cell end; none here does).
func TestHalfCells(t *testing.T) {
	r := pcg(5)
	for _, sigma := range []float64{0.5, 3, 10} {
		x := make([]float64, 200_000)
		tmin, tmax := math.Inf(1), 0.0
		for i := range x {
			x[i] = math.Exp(sigma * r.NormFloat64())
			tmin, tmax = min(tmin, x[i]), max(tmax, x[i])
		}
		c0 := spikeCellWidths[0]
		hc := newHalfCells(tmin, tmax, c0/2, math.MaxInt)
		for _, v := range x {
			if got, want := hc.of(v), int64(math.Floor(2*(math.Log(v/tmin)/c0))); got != want {
				t.Fatalf("σ = %g: half-cell of %.17g = %d, want %d (the logarithm)", sigma, v, got, want)
			}
		}
	}
}
