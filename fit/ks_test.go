package fit

import (
	"encoding/json"
	"math"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/pollfit/pollfit/sample"
	"gonum.org/v1/gonum/floats/scalar"
	"gonum.org/v1/gonum/stat/distuv"
)

// ksReference holds testdata/ks_reference.json, written by
// testdata/ks_reference.R (stats::ks.test, survival::survfit).
type ksReference struct {
	Cases []struct {
		Name, Dist, Method string
		Horizon            float64
		Resolution         float64
		X, Status, W       []float64
		D                  float64
		Mu, Sigma          float64
	}
}

// TestKSMatchesR compares KSDistance with R: ks.test for a complete
// lognormal sample (model given, and maximum-likelihood fit through
// Estimate), and the distance from survfit's Kaplan–Meier steps for a
// censored sample with ties, a weighted censored one and whole seconds
// (read as rounded: F̂(k ± ½)). The model densities are grids of 2048
// points, linear between them: 2·10⁻⁴ covers that interpolation.
func TestKSMatchesR(t *testing.T) {
	b, err := os.ReadFile("testdata/ks_reference.json")
	if err != nil {
		t.Fatal(err)
	}
	var ref ksReference
	if err := json.Unmarshal(b, &ref); err != nil {
		t.Fatal(err)
	}
	if len(ref.Cases) != 5 {
		t.Fatalf("%d reference cases, want 5", len(ref.Cases))
	}
	for _, c := range ref.Cases {
		t.Run(c.Name, func(t *testing.T) {
			s := &sample.Sample{Times: c.X, Weights: c.W}
			if c.Status != nil {
				s.Censored = make([]bool, len(c.X))
				for i, st := range c.Status {
					s.Censored[i] = st == 0
				}
			}
			var got KS
			if c.Method != "" {
				d, err := Estimate(s, Options{Method: c.Method})
				if err != nil {
					t.Fatal(err)
				}
				if !scalar.EqualWithinAbsOrRel(d.Params["mu"], c.Mu, 1e-9, 1e-9) || !scalar.EqualWithinAbsOrRel(d.Params["sigma"], c.Sigma, 1e-9, 1e-9) {
					t.Fatalf("lognormal fit mu, sigma = %v, %v, want R's %v, %v", d.Params["mu"], d.Params["sigma"], c.Mu, c.Sigma)
				}
				got = *d.KS
			} else {
				dist, err := ParseDist(c.Dist)
				if err != nil {
					t.Fatal(err)
				}
				H := c.Horizon
				if H == 0 {
					_, hi := minMax(c.X)
					H = 2 * hi
				}
				d := dist.Density(H, 0)
				d.Resolution = c.Resolution
				got = KSDistance(d, s)
			}
			if math.Abs(got.D-c.D) > 2e-4 {
				t.Errorf("KS distance = %.6f, want R's %.6f", got.D, c.D)
			}
			rows := float64(len(c.X)) // weighted: the weights' sum, rounded
			if c.W != nil {
				rows = 0
				for _, w := range c.W {
					rows += w
				}
			}
			if got.Rows != int(math.Round(rows)) {
				t.Errorf("Rows = %d, want %v", got.Rows, math.Round(rows))
			}
		})
	}
}

// TestKSHandComputed checks a small censored case with ties by hand.
// Times 1, 2, 2, 3 (censored), 4; model exponential with rate 0.5,
// F(t) = 1 − e^(−t/2), horizon 10. Kaplan–Meier: S = 4/5 after 1,
// (4/5)(1 − 2/4) = 2/5 after 2, 0 after 4 (one at risk), so F_n is 0.2,
// 0.6, 1. The differences F − F_n, both sides of each jump and at 10:
//
//	before 1: 0.39347 − 0   = +0.39347    after 1: 0.39347 − 0.2 = +0.19347
//	before 2: 0.63212 − 0.2 = +0.43212    after 2: 0.63212 − 0.6 = +0.03212
//	before 4: 0.86466 − 0.6 = +0.26466    after 4: 0.86466 − 1   = −0.13534
//	at 10:    0.99326 − 1   = −0.00674
//
// so D = 0.43212 at 2, the fit above. The stretch where F − F_n ≥ D/2:
// before 2, F ≥ 0.2 + 0.21606 from t = −2 ln(0.58394) = 1.0758 (read on
// the grid: the first point at or after it, within 1 %); after 2 the
// difference is under D/2 until 3.39, so the stretch ends at 2.
func TestKSHandComputed(t *testing.T) {
	dist, _ := ParseDist("exponential:rate=0.5")
	d := dist.Density(10, 0)
	s := &sample.Sample{Times: []float64{1, 2, 2, 3, 4}, Censored: []bool{false, false, false, true, false}}
	got := KSDistance(d, s)
	wantD := 1 - math.Exp(-1) - 0.2
	from := -2 * math.Log(1-0.2-wantD/2)
	if math.Abs(got.D-wantD) > 1e-5 || got.Diff != got.D || got.At != 2 || got.To != 2 || got.N != 4 || got.Rows != 5 {
		t.Errorf("KSDistance = %+v, want D = Diff = %.5f at 2, To 2, N 4, Rows 5", got, wantD)
	}
	if got.From < from || got.From > 1.01*from {
		t.Errorf("From = %.5f, want the grid point at or just after %.5f", got.From, from)
	}
}

// TestKSStretch checks where the distance is attained and the stretch
// around it: data at the n quantiles Φ((i + ½)/n) of ln t ~ N(0, 1)
// against the model ln t ~ N(0.1, 1). F̂(t) − F(t) = Φ(z − 0.1) − Φ(z),
// z = ln t, is most negative at z = 0.05, −(Φ(0.05) − Φ(−0.05)) = −0.03988,
// and at least half that where φ-weighted, for |z − 0.05| ≤ z½ with
// Φ(z½ + 0.05) − Φ(z½ − 0.05) = D/2 (solved below by bisection).
func TestKSStretch(t *testing.T) {
	const n = 4000
	std := distuv.UnitNormal
	x := make([]float64, n)
	for i := range x {
		x[i] = math.Exp(std.Quantile((float64(i) + 0.5) / n))
	}
	dist, _ := ParseDist("lognormal:mu=0.1,sigma=1")
	d := dist.Density(200, 8192)
	k := KSDistance(d, &sample.Sample{Times: x})
	wantD := std.CDF(0.05) - std.CDF(-0.05)
	if math.Abs(k.D-wantD) > 1.0/n || k.Diff > 0 {
		t.Fatalf("D, Diff = %.5f, %.5f, want %.5f, negative", k.D, k.Diff, wantD)
	}
	if math.Abs(math.Log(k.At)-0.05) > 0.02 {
		t.Errorf("At = %.4g (ln %.4f), want ln t = 0.05", k.At, math.Log(k.At))
	}
	lo, hi := 0.0, 5.0
	for range 100 {
		mid := (lo + hi) / 2
		if std.CDF(mid+0.05)-std.CDF(mid-0.05) > k.D/2 {
			lo = mid
		} else {
			hi = mid
		}
	}
	zFrom, zTo := 0.05-lo, 0.05+lo
	if math.Abs(math.Log(k.From)-zFrom) > 0.03 || math.Abs(math.Log(k.To)-zTo) > 0.03 {
		t.Errorf("stretch %.4g–%.4g (ln %.3f to %.3f), want ln t from %.3f to %.3f", k.From, k.To, math.Log(k.From), math.Log(k.To), zFrom, zTo)
	}
}

// TestKSSubsample checks that above KSMaxItems the subsample's distance is
// within its DKW band (α = 0.05) of the exact one on lognormal draws in
// random order, and within 16/KSMaxItems on the same draws sorted.
func TestKSSubsample(t *testing.T) {
	n := 3*KSMaxItems + 17
	x := sampleOf(distuv.LogNormal{Mu: 1, Sigma: 0.8, Src: pcg(7)}, n, 0)
	dist, _ := ParseDist("lognormal:mu=1.02,sigma=0.8")
	d := dist.Density(0, 0)
	s := &sample.Sample{Times: x}
	got := KSDistance(d, s)
	xs, F, _ := empiricalSteps(s, false)
	exact := ksSteps(d, xs, F, false)
	if got.N != float64(KSMaxItems) || got.Rows != n {
		t.Errorf("N, Rows = %v, %d, want %d, %d", got.N, got.Rows, KSMaxItems, n)
	}
	if band := DKWBand(KSMaxItems, 0.05); math.Abs(got.D-exact.D) > band {
		t.Errorf("subsample distance %.5f, exact %.5f: apart by more than the band %.5f", got.D, exact.D, band)
	}
	// Rows sorted by time: the runs are evenly spread over the ranks.
	slices.Sort(x)
	if got := KSDistance(d, s); math.Abs(got.D-exact.D) > 16.0/KSMaxItems {
		t.Errorf("sorted rows: subsample distance %.6f, exact %.6f: apart by more than 16/%d", got.D, exact.D, KSMaxItems)
	}
}

// TestKSPathsAgree checks that Estimate's in-sample distance from its
// Kaplan–Meier estimate equals KSDistance on the sample, censored and
// weighted, and that the uncensored sample's steps equal 1 − KM's.
func TestKSPathsAgree(t *testing.T) {
	x := sampleOf(distuv.LogNormal{Mu: 2, Sigma: 1, Src: pcg(3)}, 3000, 0.001)
	cens := make([]bool, len(x))
	w := make([]float64, len(x))
	for i := range x {
		cens[i] = i%7 == 0
		w[i] = 1 + float64(i%3)
	}
	for _, s := range []*sample.Sample{{Times: x, Censored: cens}, {Times: x, Censored: cens, Weights: w}} {
		d, err := Estimate(s, Options{})
		if err != nil {
			t.Fatal(err)
		}
		k := KSDistance(d, s)
		if math.Abs(d.KS.D-k.D) > 1e-12 || d.KS.At != k.At || math.Abs(d.KS.N-k.N) > 1e-9 {
			t.Errorf("Estimate's KS %+v, KSDistance %+v", *d.KS, k)
		}
	}
	s := &sample.Sample{Times: x}
	xs, F, n := empiricalSteps(s, false)
	km := NewKaplanMeier(s)
	if n != float64(len(x)) || len(xs) != len(km.T) {
		t.Fatalf("%d steps on %v items, KM has %d", len(xs), n, len(km.T))
	}
	for j := range xs {
		if xs[j] != km.T[j] || math.Abs(F[j]-(1-km.Survival[j])) > 1e-12 {
			t.Fatalf("step %d: %v, %v; KM %v, %v", j, xs[j], F[j], km.T[j], 1-km.Survival[j])
		}
	}
}

// TestDKWBand checks ε = sqrt(ln(2/α)/(2n)) at n = 1000, α = 0.05:
// sqrt(ln 40 / 2000) = 0.0429469.
func TestDKWBand(t *testing.T) {
	if got := DKWBand(1000, 0.05); math.Abs(got-0.0429469) > 1e-6 {
		t.Errorf("DKWBand(1000, 0.05) = %v, want 0.0429469", got)
	}
	if got := DKWBand(0, 0.05); !math.IsInf(got, 1) {
		t.Errorf("DKWBand(0, 0.05) = %v, want +Inf", got)
	}
}

// TestScoreHoldoutWarns checks the held-out warning: data from
// lognormal(0, 1) against the model lognormal(0.3, 1) (D = 2Φ(0.15) − 1 =
// 0.119 ≫ the band 0.043 at n = 1000) warns and names the family; against
// the true model it stays quiet.
func TestScoreHoldoutWarns(t *testing.T) {
	x := sampleOf(distuv.LogNormal{Mu: 0, Sigma: 1, Src: pcg(5)}, 1000, 0)
	s := &sample.Sample{Times: x}
	for _, c := range []struct {
		spec string
		warn bool
	}{{"lognormal:mu=0.3,sigma=1", true}, {"lognormal:mu=0,sigma=1", false}} {
		dist, _ := ParseDist(c.spec)
		d := dist.Density(100, 0)
		d.ScoreHoldout(s)
		k := d.HoldoutKS
		if k == nil || k.DKW95 != DKWBand(1000, 0.05) {
			t.Fatalf("%s: HoldoutKS = %+v, want DKW95 %v", c.spec, k, DKWBand(1000, 0.05))
		}
		warned := slices.ContainsFunc(d.Warnings, func(w string) bool { return strings.Contains(w, "held-out KS distance") })
		if warned != c.warn {
			t.Errorf("%s: D %.4f, band %.4f: warned %v, want %v (%q)", c.spec, k.D, k.DKW95, warned, c.warn, d.Warnings)
		}
		if c.warn && !slices.ContainsFunc(d.Warnings, func(w string) bool { return strings.Contains(w, "lognormal family") }) {
			t.Errorf("%s: warning does not name the family: %q", c.spec, d.Warnings)
		}
	}
}

// TestRadixSort checks the bit-order sort against slices.Sort on values
// with zeros, ties, subnormals, huge values and one value.
func TestRadixSort(t *testing.T) {
	r := pcg(9)
	cases := map[string][]float64{
		"one":    {3},
		"empty":  {},
		"mixed":  {0, 5e-324, 1e-300, 2, 2, 0, 1e300, math.MaxFloat64, 0.5, 3, 1},
		"same":   {7, 7, 7, 7},
		"random": sampleOf(distuv.LogNormal{Mu: 0, Sigma: 4, Src: r}, 100000, 0),
		"ms":     sampleOf(distuv.LogNormal{Mu: 0, Sigma: 1, Src: r}, 50000, 0.001),
	}
	for name, x := range cases {
		want := slices.Clone(x)
		slices.Sort(want)
		got := radixSort(slices.Clone(x), make([]float64, len(x)))
		if !slices.Equal(got, want) {
			t.Errorf("%s: radixSort differs from slices.Sort", name)
		}
	}
}

// BenchmarkKSDistance times the distance of a model from 10⁴ items, and
// from 10⁶ and 10⁷ (a subsample of KSMaxItems).
func BenchmarkKSDistance(b *testing.B) {
	for _, n := range []int{10_000, 1_000_000, 10_000_000} {
		s := &sample.Sample{Times: sampleOf(distuv.LogNormal{Mu: 3, Sigma: 1, Src: pcg(1)}, n, 0)}
		dist, _ := ParseDist("lognormal:mu=3,sigma=1")
		d := dist.Density(0, 0)
		b.Run(strings.TrimSuffix(strings.ReplaceAll(formatCount(n), ",", "_"), "_"), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				KSDistance(d, s)
			}
		})
	}
}

func formatCount(n int) string {
	switch {
	case n >= 10_000_000:
		return "10M"
	case n >= 1_000_000:
		return "1M"
	}
	return "10k"
}

// BenchmarkRadixSort sorts KSMaxItems lognormal times by radixSort and,
// for comparison, by slices.Sort.
func BenchmarkRadixSort(b *testing.B) {
	x := sampleOf(distuv.LogNormal{Mu: 3, Sigma: 1, Src: pcg(1)}, KSMaxItems, 0.001)
	y, buf := make([]float64, len(x)), make([]float64, len(x))
	b.Run("radix", func(b *testing.B) {
		for b.Loop() {
			copy(y, x)
			radixSort(y, buf)
		}
	})
	b.Run("slices.Sort", func(b *testing.B) {
		for b.Loop() {
			copy(y, x)
			slices.Sort(y)
		}
	})
}

// TestMin1: min1 is math.Min(1, ·) bit for bit, at the special values
// and around 1.
func TestMin1(t *testing.T) {
	for _, v := range []float64{math.NaN(), math.Inf(1), math.Inf(-1), 0, math.Copysign(0, -1), 1, math.Nextafter(1, 2), math.Nextafter(1, 0), 0.5, -3, 1e300, 5e-324} {
		if got, want := min1(v), math.Min(1, v); math.Float64bits(got) != math.Float64bits(want) {
			t.Errorf("min1(%g) = %g, want %g (math.Min)", v, got, want)
		}
	}
}

// TestEmpiricalSteps: the empirical CDF's jumps, by hand. 3, 1, 2, 2
// steps to 1/4, 3/4 and 1; with 2 censored in 1, 2+, 3, Kaplan–Meier
// falls to 2/3 at 1 and to 0 at 3 (one item at risk), so F is 1/3 and 1.
func TestEmpiricalSteps(t *testing.T) {
	for _, tc := range []struct {
		name string
		s    *sample.Sample
		x, F []float64
	}{
		{"ties", &sample.Sample{Times: []float64{3, 1, 2, 2}}, []float64{1, 2, 3}, []float64{0.25, 0.75, 1}},
		{"censored", &sample.Sample{Times: []float64{1, 2, 3}, Censored: []bool{false, true, false}}, []float64{1, 3}, []float64{1.0 / 3, 1}},
		{"empty", &sample.Sample{}, nil, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			x, F := EmpiricalSteps(tc.s)
			if !slices.Equal(x, tc.x) || len(F) != len(tc.F) {
				t.Fatalf("EmpiricalSteps = %v, %v, want %v, %v", x, F, tc.x, tc.F)
			}
			for i := range F {
				if math.Abs(F[i]-tc.F[i]) > 1e-15 {
					t.Errorf("EmpiricalSteps F = %v, want %v", F, tc.F)
					break
				}
			}
		})
	}
}
