package fit

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"github.com/pollfit/pollfit/sample"
	"gonum.org/v1/gonum/floats/scalar"
	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

// sampleOf returns n draws of dist from a fixed-seed PCG, rounded to res
// seconds when res > 0.
func sampleOf(dist interface{ Rand() float64 }, n int, res float64) []float64 {
	x := make([]float64, n)
	for i := range x {
		v := dist.Rand()
		if res > 0 {
			v = res * math.Round(v/res)
		}
		x[i] = v
	}
	return x
}

func pcg(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 1)) }

// readColumn reads one numeric column of a fixtures CSV (the readers are
// tested elsewhere; this keeps the estimator's tests independent of them).
func readColumn(t *testing.T, path, col string) []float64 {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Skipf("fixture not available: %v", err)
	}
	rows, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	ci := -1
	for i, h := range rows[0] {
		if h == col {
			ci = i
		}
	}
	var out []float64
	for _, r := range rows[1:] {
		if v, err := strconv.ParseFloat(r[ci], 64); err == nil {
			out = append(out, math.Max(0, v))
		}
	}
	return out
}

func TestResolution(t *testing.T) {
	for _, c := range []struct {
		name string
		x    []float64
		want float64
	}{
		{"whole seconds", []float64{0, 1, 7, 12, 300}, 1},
		{"milliseconds", []float64{0.001, 1.234, 7.5}, 0.001},
		{"half seconds", []float64{0.5, 1, 2.5, 10}, 0.5},
		{"minutes", []float64{60, 120, 600, 3600}, 3600 / 60},
		{"continuous", []float64{math.Pi, math.E, math.Sqrt2}, 0},
		// Relative and scale-free. Values under 3.6 ms were
		// "multiples" (k = 0) of 3600 s, 37 µs steps of 5000 s.
		{"microseconds under 3.6 ms", []float64{12e-6, 0.000347, 0.0021, 0.003599}, 1e-6},
		{"37 µs steps", []float64{37e-6, 74e-6, 37e-6 * 5, 37e-6 * 12}, 37e-6},
		{"nanoseconds", []float64{3e-9, 1.234567e-3, 12e-9}, 1e-9},
		{"whole ms in hours", []float64{1.234 * 3600, 0.5 * 3600, 0.001 * 3600}, 3.6},
		{"whole days", []float64{86400, 3 * 86400, 10 * 86400}, 86400},
		{"5 % of an hour", []float64{180, 360, 1800, 3600, 5400}, 180},
		{"one value is no lattice", []float64{5, 5, 5, 5}, 0},
		{"99 times 3 s and once 7 s", append(slices.Repeat([]float64{3}, 99), 7), 1},
		{"1 % off whole seconds", append(slices.Repeat([]float64{1, 2, 4, 8}, 50), 2.5, 3.25), 1},
	} {
		if got := resolution(c.x); !scalar.EqualWithinAbsOrRel(got, c.want, 0, 1e-12) {
			t.Errorf("resolution(%s) = %g, want %g", c.name, got, c.want)
		}
	}
}

// TestSubMillisecond fits a service latency recorded in whole
// microseconds (lognormal, median 120 µs, σ = 0.6, so 10–900 µs; 20,000
// items): the resolution is 1 µs (it was "3600 s", which spread each
// item over an hour), there is no atom, spike or tie warning, and the fit
// follows the data: KS distance ≤ 0.01 (DKW at 95 %: 0.0096) and the
// median within 1 %.
func TestSubMillisecond(t *testing.T) {
	x := sampleOf(distuv.LogNormal{Mu: math.Log(120e-6), Sigma: 0.6, Src: pcg(81)}, 20000, 0)
	for i, v := range x {
		x[i] = math.Round(v*1e6) / 1e6 // whole µs, as a reader dividing by 10⁶ gives them
	}
	lo, hi := minMax(x)
	if lo < 8e-6 || hi > 2e-3 {
		t.Fatalf("sample spans %g–%g s, want about 10–900 µs", lo, hi)
	}
	d, err := Estimate(&sample.Sample{Times: x}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !scalar.EqualWithinRel(d.Resolution, 1e-6, 1e-12) {
		t.Errorf("resolution = %g s, want 1e-06", d.Resolution)
	}
	if len(d.Atoms) != 0 || len(d.Warnings) != 0 {
		t.Errorf("atoms %v, warnings %q; want none", d.Atoms, d.Warnings)
	}
	if ks := uncensoredKS(d, x); ks > 0.01 {
		t.Errorf("KS distance to the data = %.4f, want ≤ 0.01", ks)
	}
	med := stat.Quantile(0.5, stat.Empirical, slices.Sorted(slices.Values(x)), nil)
	if got := d.Quantile(0.5); !scalar.EqualWithinRel(got, med, 0.01) {
		t.Errorf("median = %.4g s, want the data's %.4g s ± 1 %%", got, med)
	}
}

// TestAtoms checks the atom rule: known point masses are found with
// their masses; smooth data, rounded to whole seconds or not, give none.
func TestAtoms(t *testing.T) {
	const n = 20000
	r := pcg(4)
	ln := distuv.LogNormal{Mu: 3, Sigma: 1, Src: r}
	// 20 % instant settles, 10 % at a 60 s deadline, the rest lognormal,
	// all rounded to 1 s.
	mixed := make([]float64, n)
	for i := range mixed {
		switch u := r.Float64(); {
		case u < 0.2:
			mixed[i] = 0
		case u < 0.3:
			mixed[i] = 60
		default:
			mixed[i] = math.Round(ln.Rand())
		}
	}
	// Binomial sd of a 0.1 share at n = 20000 is 0.0021; the smooth part
	// adds its own ~0.0006 (lognormal density at 60 s × 1 s × 0.7) at 60
	// and ≈ 0.0002 below 0.5 s: tolerance 0.01 is ≈ 5 sd.
	for _, dom := range []string{DomainLog, DomainLinear, DomainReflect} {
		d, err := Estimate(&sample.Sample{Times: mixed}, Options{Domain: dom})
		if err != nil {
			t.Fatal(err)
		}
		want := []Atom{{T: 0, Mass: 0.2}, {T: 60, Mass: 0.1}}
		if len(d.Atoms) != len(want) {
			t.Fatalf("%s: atoms = %v, want %v", dom, d.Atoms, want)
		}
		for i, a := range d.Atoms {
			if a.T != want[i].T || math.Abs(a.Mass-want[i].Mass) > 0.01 {
				t.Errorf("%s: atom %d = %+v, want %+v ± 0.01", dom, i, a, want[i])
			}
		}
		// The atoms are in the CDF: the jump at 60 s.
		if jump := d.CDF(60) - d.CDF(59.999); math.Abs(jump-0.1) > 0.01 {
			t.Errorf("%s: CDF jump at 60 = %.4f, want 0.1 ± 0.01", dom, jump)
		}
	}

	smooth := map[string][]float64{
		"lognormal rounded to 1s": sampleOf(distuv.LogNormal{Mu: 3, Sigma: 1, Src: pcg(5)}, n, 1),
		"gamma rounded to 1s":     sampleOf(distuv.Gamma{Alpha: 2, Beta: 0.1, Src: pcg(6)}, n, 1),
		"weibull continuous":      sampleOf(distuv.Weibull{K: 0.8, Lambda: 30, Src: pcg(7)}, n, 0),
		"exponential rounded 0.1": sampleOf(distuv.Exponential{Rate: 0.5, Src: pcg(8)}, n, 0.1),
	}
	for name, x := range smooth {
		for _, dom := range []string{DomainLinear, DomainReflect} {
			d, err := Estimate(&sample.Sample{Times: x}, Options{Domain: dom})
			if err != nil {
				t.Fatal(err)
			}
			if len(d.Atoms) != 0 {
				t.Errorf("%s, %s domain: atoms = %v, want none", name, dom, d.Atoms)
			}
		}
	}
}

// TestAtomsJuliaCI: the Julia CI durations are whole seconds, so every
// value repeats; that must not make atoms.
func TestAtomsJuliaCI(t *testing.T) {
	x := readColumn(t, filepath.Join("..", "fixtures", "julia_ci_job_durations.csv"), "duration_s")
	d, err := Estimate(&sample.Sample{Times: x}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Atoms) != 0 {
		t.Errorf("Julia CI atoms = %v, want none", d.Atoms)
	}
	if d.Resolution != 1 {
		t.Errorf("Julia CI resolution = %g, want 1", d.Resolution)
	}
}

// TestEstimateRecovers checks each domain and method against the CDF of
// the distribution sampled: the sup distance at the true deciles is
// within 0.02 (the DKW bound at n = 5000 and 95 % is 0.019, plus
// smoothing bias).
func TestEstimateRecovers(t *testing.T) {
	truth := distuv.LogNormal{Mu: 3, Sigma: 0.8, Src: pcg(9)}
	x := sampleOf(truth, 5000, 0)
	for _, opt := range []Options{
		{},
		{Domain: DomainLinear},
		{Domain: DomainReflect},
		{Bandwidth: "sj"},
		{Bandwidth: "silverman"},
		{Bandwidth: "scott"},
		{Bandwidth: "0.1"},
		{Method: "histogram"},
		{Method: "lognormal"},
	} {
		d, err := Estimate(&sample.Sample{Times: x}, opt)
		if err != nil {
			t.Fatalf("Estimate(%+v): %v", opt, err)
		}
		for p := 0.1; p < 0.95; p += 0.1 {
			q := truth.Quantile(p)
			if got := d.CDF(q); math.Abs(got-p) > 0.02 {
				t.Errorf("Estimate(%+v).CDF(%.4g) = %.4f, want %.2f ± 0.02", opt, q, got, p)
			}
		}
	}
}

// TestStuckShare: with a horizon at the true 0.8 quantile, the stuck
// share is ≈ 0.2 (binomial sd 0.0057 at n = 5000).
func TestStuckShare(t *testing.T) {
	truth := distuv.Exponential{Rate: 0.1, Src: pcg(10)}
	x := sampleOf(truth, 5000, 0)
	H := truth.Quantile(0.8)
	for _, m := range []string{"kde", "histogram", "exponential"} {
		d, err := Estimate(&sample.Sample{Times: x}, Options{Horizon: H, Method: m})
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(d.StuckShare-0.2) > 0.02 {
			t.Errorf("%s: StuckShare = %.4f, want 0.2 ± 0.02", m, d.StuckShare)
		}
		if d.Horizon() != H {
			t.Errorf("%s: Horizon() = %g, want %g", m, d.Horizon(), H)
		}
	}
}

// TestCensoredEstimate: exponential settle times (rate 0.05/s) observed
// for a uniform(0, 60 s) follow-up. The KM-weighted estimate must follow
// the true CDF, not the naive one that drops censored items.
func TestCensoredEstimate(t *testing.T) {
	r := pcg(11)
	truth := distuv.Exponential{Rate: 0.05, Src: r}
	const n = 5000
	s := &sample.Sample{Times: make([]float64, n), Censored: make([]bool, n)}
	for i := range n {
		v, c := truth.Rand(), 60*r.Float64()
		s.Times[i], s.Censored[i] = math.Min(v, c), c < v
	}
	d, err := Estimate(s, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if d.KM == nil || d.Censored != s.CensoredCount() {
		t.Fatalf("KM = %v, Censored = %d, want KM and %d", d.KM != nil, d.Censored, s.CensoredCount())
	}
	for _, q := range []float64{5, 10, 20, 40} {
		want := truth.CDF(q)
		if got := d.CDF(q); math.Abs(got-want) > 0.03 {
			t.Errorf("CDF(%g) = %.4f, want %.4f ± 0.03 (true exponential)", q, got, want)
		}
	}
	// Mass past the last settle (S_KM there > 0) is stuck, not lost.
	last := d.KM.Survival[len(d.KM.Survival)-1]
	if d.StuckShare < last-0.01 {
		t.Errorf("StuckShare = %.4f, want ≥ S_KM(last) = %.4f", d.StuckShare, last)
	}
	w, err := MaxLikelihood(Exponential, s)
	if err != nil {
		t.Fatal(err)
	}
	if got := w.Params["rate"]; !scalar.EqualWithinRel(got, 0.05, 0.05) {
		t.Errorf("censored exponential rate = %.4g, want 0.05 ± 5%%", got)
	}
}

// TestMaxLikelihoodRecovers samples each family with known parameters
// (n = 5000, about a third censored) and recovers them within 5 %
// (standard errors are 1–2 % at this n).
func TestMaxLikelihoodRecovers(t *testing.T) {
	for _, c := range []struct {
		spec string
		d    interface{ Rand() float64 }
	}{
		{"lognormal:mu=3,sigma=0.7", distuv.LogNormal{Mu: 3, Sigma: 0.7, Src: pcg(12)}},
		{"weibull:k=1.5,lambda=30", distuv.Weibull{K: 1.5, Lambda: 30, Src: pcg(13)}},
		{"gamma:alpha=2,beta=0.1", distuv.Gamma{Alpha: 2, Beta: 0.1, Src: pcg(14)}},
		{"exponential:rate=0.05", distuv.Exponential{Rate: 0.05, Src: pcg(15)}},
	} {
		want, err := ParseDist(c.spec)
		if err != nil {
			t.Fatal(err)
		}
		r := pcg(16)
		const n = 5000
		s := &sample.Sample{Times: make([]float64, n), Censored: make([]bool, n)}
		for i := range n {
			v, cut := c.d.Rand(), want.Quantile(0.5)+want.Quantile(0.9)*r.Float64()
			s.Times[i], s.Censored[i] = math.Min(v, cut), cut < v
		}
		got, err := MaxLikelihood(want.Family, s)
		if err != nil {
			t.Fatal(err)
		}
		for k, w := range want.Params {
			if g := got.Params[k]; !scalar.EqualWithinAbsOrRel(g, w, 0, 0.05) {
				t.Errorf("MaxLikelihood(%s).%s = %.4g, want %.4g ± 5%%", c.spec, k, g, w)
			}
		}
	}
}

func TestParseDist(t *testing.T) {
	for _, c := range []struct {
		in   string
		want string // String() of the result; "" for an error
	}{
		{"lognormal:mu=3,sigma=1.2", "lognormal:mu=3,sigma=1.2"},
		{"weibull:lambda=40,k=1.5", "weibull:k=1.5,lambda=40"},
		{" Gamma: alpha=2 , beta=0.1 ", "gamma:alpha=2,beta=0.1"},
		{"exponential:rate=0.05", "exponential:rate=0.05"},
		{"lognormal:mu=-1,sigma=1", "lognormal:mu=-1,sigma=1"},
		{"lognormal", ""},
		{"lognormal:mu=3", ""},
		{"lognormal:mu=3,sigma=0", ""},
		{"lognormal:mu=3,sigma=1,sigma=2", ""},
		{"weibull:k=1,scale=2", ""},
		{"pareto:a=1", ""},
		{"exponential:rate=inf", ""},
		{"exponential:rate", ""},
	} {
		d, err := ParseDist(c.in)
		switch {
		case c.want == "" && err == nil:
			t.Errorf("ParseDist(%q) = %v, want error", c.in, d)
		case c.want != "" && err != nil:
			t.Errorf("ParseDist(%q) error %v, want %s", c.in, err, c.want)
		case c.want != "" && d.String() != c.want:
			t.Errorf("ParseDist(%q) = %s, want %s", c.in, d, c.want)
		}
	}
}

func FuzzParseDist(f *testing.F) {
	for _, s := range []string{"lognormal:mu=3,sigma=1.2", "weibull:k=1.5,lambda=40", "gamma:alpha=2,beta=0.1", "exponential:rate=0.05", "x:", ":=,"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, spec string) {
		d, err := ParseDist(spec)
		if err != nil {
			return
		}
		d2, err := ParseDist(d.String())
		if err != nil {
			t.Fatalf("ParseDist(%q) = %v, and its String %q does not parse: %v", spec, d, d.String(), err)
		}
		if d2.String() != d.String() {
			t.Fatalf("ParseDist(String()) = %s, want %s", d2, d)
		}
	})
}

// TestDistDensity: a parametric Density's CDF at grid points is the
// distribution's, and its stuck share is 1 − F(horizon).
func TestDistDensity(t *testing.T) {
	d, _ := ParseDist("weibull:k=1.5,lambda=30")
	den := d.Density(60, 500)
	want := 1 - math.Exp(-math.Pow(60.0/30, 1.5)) // Weibull CDF
	if got := den.CDF(60); !scalar.EqualWithinAbs(got, want, 1e-12) {
		t.Errorf("CDF(60) = %.12g, want %.12g", got, want)
	}
	if !scalar.EqualWithinAbs(den.StuckShare, 1-want, 1e-12) {
		t.Errorf("StuckShare = %.12g, want %.12g", den.StuckShare, 1-want)
	}
	// Median of the Weibull: λ (ln 2)^(1/k).
	if got, want := den.Quantile(0.5), 30*math.Pow(math.Ln2, 1/1.5); !scalar.EqualWithinRel(got, want, 1e-3) {
		t.Errorf("Quantile(0.5) = %.6g, want %.6g", got, want)
	}
}

// TestDensityAtoms: CDF is right-continuous with the atom's jump and
// Quantile returns the atom for every p inside the jump.
func TestDensityAtoms(t *testing.T) {
	d := &Density{Atoms: []Atom{{T: 0, Mass: 0.25}, {T: 10, Mass: 0.25}}}
	// Continuous part uniform on [0, 20] with mass 0.5.
	d.fill(linGrid(20, 21), func(x float64) (float64, float64) { return 0.5 / 20, 0.5 * x / 20 })
	for _, c := range []struct{ t, want float64 }{
		{-1, 0}, {0, 0.25}, {5, 0.375}, {9.999999, 0.5}, {10, 0.75}, {20, 1}, {30, 1},
	} {
		if got := d.CDF(c.t); !scalar.EqualWithinAbs(got, c.want, 1e-6) {
			t.Errorf("CDF(%g) = %.6g, want %.6g", c.t, got, c.want)
		}
	}
	for _, c := range []struct{ p, want float64 }{
		{0.1, 0}, {0.25, 0}, {0.375, 5}, {0.6, 10}, {0.75, 10}, {0.875, 15},
	} {
		if got := d.Quantile(c.p); !scalar.EqualWithinAbs(got, c.want, 1e-9) {
			t.Errorf("Quantile(%g) = %.9g, want %g", c.p, got, c.want)
		}
	}
	if d.StuckShare != 0 {
		t.Errorf("StuckShare = %g, want 0", d.StuckShare)
	}
}

// TestHoldoutLogLik scores one item by hand: under exponential(0.1) at
// resolution 1 s, a settle at 10 s has probability e^−0.95 − e^−1.05 per
// second, and a censored item at 10 s has S = e^−1.
func TestHoldoutLogLik(t *testing.T) {
	d, _ := ParseDist("exponential:rate=0.1")
	den := d.Density(1000, 4000)
	den.Resolution = 1
	ll, _ := HoldoutLogLik(den, &sample.Sample{Times: []float64{10}})
	if want := math.Log(math.Exp(-0.95) - math.Exp(-1.05)); !scalar.EqualWithinAbs(ll, want, 1e-4) {
		t.Errorf("HoldoutLogLik(settled 10) = %.6g, want %.6g", ll, want)
	}
	ll, _ = HoldoutLogLik(den, &sample.Sample{Times: []float64{10}, Censored: []bool{true}})
	if !scalar.EqualWithinAbs(ll, -1, 1e-5) { // grid interpolation of the CDF
		t.Errorf("HoldoutLogLik(censored 10) = %.6g, want -1", ll)
	}
}

// TestHoldoutSplit: equal seeds give equal results, the held-out count is
// round(F·n), and the fit uses the rest.
func TestHoldoutSplit(t *testing.T) {
	x := sampleOf(distuv.LogNormal{Mu: 2, Sigma: 1, Src: pcg(17)}, 1000, 0)
	a, err := Estimate(&sample.Sample{Times: x}, Options{Holdout: 0.25, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Estimate(&sample.Sample{Times: x}, Options{Holdout: 0.25, Seed: 3})
	c, _ := Estimate(&sample.Sample{Times: x}, Options{Holdout: 0.25, Seed: 4})
	if a.HoldoutN != 250 || a.N != 750 {
		t.Errorf("HoldoutN, N = %d, %d, want 250, 750", a.HoldoutN, a.N)
	}
	if a.HoldoutLogLik != b.HoldoutLogLik {
		t.Errorf("same seed: HoldoutLogLik %v != %v", a.HoldoutLogLik, b.HoldoutLogLik)
	}
	if a.HoldoutLogLik == c.HoldoutLogLik {
		t.Errorf("different seeds gave the same HoldoutLogLik %v", a.HoldoutLogLik)
	}
	// The lognormal's entropy bounds the expected log-likelihood:
	// E[log f] = −(μ + ½ log(2πeσ²)) = −(2 + 1.4189) for μ = 2, σ = 1.
	if want := -(2 + 0.5*math.Log(2*math.Pi*math.E)); math.Abs(a.HoldoutLogLik-want) > 0.15 {
		t.Errorf("HoldoutLogLik = %.4f, want %.4f ± 0.15 (−entropy)", a.HoldoutLogLik, want)
	}
}

// TestSmallSample: every method and domain fits a tiny censored sample
// with ties and a zero, and the result encodes as JSON (no NaN or Inf).
// ISJ has no fixed point on 12 settles; the fallback is reported.
func TestSmallSample(t *testing.T) {
	s := &sample.Sample{
		Times:    []float64{0, 1, 2, 2, 3, 5, 8, 8, 8, 8, 8, 8, 13, 20},
		Censored: []bool{false, false, false, true, false, false, false, false, false, false, false, false, true, false},
	}
	for _, m := range []string{"kde", "histogram", "weibull", "lognormal", "gamma", "exponential"} {
		for _, dom := range []string{DomainLog, DomainLinear, DomainReflect} {
			d, err := Estimate(s, Options{Method: m, Domain: dom, Holdout: 0.2})
			if err != nil {
				t.Errorf("Estimate(%s, %s): %v", m, dom, err)
				continue
			}
			if _, err := json.Marshal(d); err != nil {
				t.Errorf("json.Marshal(Estimate(%s, %s)): %v", m, dom, err)
			}
			if m == "kde" && d.BandwidthRule == BandwidthISJ {
				t.Errorf("Estimate(%s, %s).BandwidthRule = isj, want a fallback", m, dom)
			}
		}
	}
}

// SettledQuantile is R's quantile(type = 7) over the settled items:
// quantile(c(1, 2, 3, 4, 10), 0.9) = 4 + 0.6·6 = 7.6, with a censored 100
// left out; with weights, an item of weight 2 counts twice.
func TestSettledQuantile(t *testing.T) {
	s := &sample.Sample{Times: []float64{10, 1, 100, 3, 2, 4}, Censored: []bool{false, false, true, false, false, false}}
	if q, n := SettledQuantile(s, 0.9); math.Abs(q-7.6) > 1e-12 || n != 5 {
		t.Errorf("SettledQuantile(0.9) = %g, %d; want 7.6, 5", q, n)
	}
	all := &sample.Sample{Times: []float64{5}, Censored: []bool{true}}
	if q, n := SettledQuantile(all, 0.5); q != 0 || n != 0 {
		t.Errorf("all censored: SettledQuantile = %g, %d; want 0, 0", q, n)
	}
}

// TestHeavyValues: the atom screen's hash keeps every copy of each value
// repeated at least `least` times (counted here by a map) and, on
// continuous data, next to nothing else.
func TestHeavyValues(t *testing.T) {
	r := pcg(51)
	for _, n := range []int{1000, 65536} {
		x := make([]float64, n)
		for i := range x {
			x[i] = math.Exp(r.NormFloat64())
			switch i % 50 {
			case 0, 1: // 4 %: an atom at 30 s
				x[i] = 30
			case 2: // 2 %: one at 1 s
				x[i] = 1
			}
		}
		least := n / 200
		count := map[float64]int{}
		for _, v := range x {
			count[v]++
		}
		got := map[float64]int{}
		kept := heavyValues(x, least)
		for _, v := range kept {
			got[v]++
		}
		for v, c := range count {
			if c >= least && got[v] != c {
				t.Errorf("n %d: %d of the %d copies of %g kept, want all", n, got[v], c, v)
			}
		}
		if other := len(kept) - count[30] - count[1]; other > n/100 {
			t.Errorf("n %d: %d continuous values kept besides the atoms, want few", n, other)
		}
	}
}
