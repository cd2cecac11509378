package fit

import (
	"encoding/json"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/pollfit/pollfit/ingest"
	"github.com/pollfit/pollfit/sample"
	"gonum.org/v1/gonum/floats/scalar"
)

// drawMixture draws n settle times from the mixture comps (weights are
// shares of all items); an item in none of them (probability 1 − Σπ)
// never settles and has time +Inf.
func drawMixture(r *rand.Rand, n int, comps []Component) []float64 {
	t := make([]float64, n)
	for i := range t {
		u := r.Float64()
		t[i] = math.Inf(1)
		for _, c := range comps {
			if u < c.Weight {
				t[i] = math.Exp(c.Mu + c.Sigma*r.NormFloat64())
				break
			}
			u -= c.Weight
		}
	}
	return t
}

// censorAt censors the times at the ages drawn uniform on [lo, hi].
func censorAt(r *rand.Rand, t []float64, lo, hi float64) *sample.Sample {
	s := &sample.Sample{Times: make([]float64, len(t)), Censored: make([]bool, len(t))}
	for i, v := range t {
		age := lo + (hi-lo)*r.Float64()
		if v > age {
			s.Times[i], s.Censored[i] = age, true
		} else {
			s.Times[i] = v
		}
	}
	return s
}

// checkRecovered compares the fitted components with the true ones, in
// median order, within 5 standard errors of a sample of n items with
// well-separated components: SE(π) = √(π(1−π)/n), SE(μ) = σ/√(nπ),
// SE(σ) = σ/√(2nπ) (the complete-data information; McLachlan & Peel
// 2000, §2.15, for separated components). factor widens them where
// censoring or grouping loses information.
func checkRecovered(t *testing.T, m *Mixture, want []Component, n, factor float64) {
	t.Helper()
	if m.K() != len(want) {
		t.Fatalf("K = %d, want %d (%s)", m.K(), len(want), m)
	}
	for k, w := range want {
		g := m.Components[k]
		seW := math.Sqrt(w.Weight * (1 - w.Weight) / n)
		seMu := w.Sigma / math.Sqrt(n*w.Weight)
		seSg := w.Sigma / math.Sqrt(2*n*w.Weight)
		if d := math.Abs(g.Weight - w.Weight); d > 5*factor*seW {
			t.Errorf("component %d: weight = %.4f, want %.4f ± %.4f", k, g.Weight, w.Weight, 5*factor*seW)
		}
		if d := math.Abs(g.Mu - w.Mu); d > 5*factor*seMu {
			t.Errorf("component %d: mu = %.4f, want %.4f ± %.4f", k, g.Mu, w.Mu, 5*factor*seMu)
		}
		if d := math.Abs(g.Sigma - w.Sigma); d > 5*factor*seSg {
			t.Errorf("component %d: sigma = %.4f, want %.4f ± %.4f", k, g.Sigma, w.Sigma, 5*factor*seSg)
		}
	}
}

// TestMixtureRecovery samples known mixtures (fixed-seed PCG) and checks
// that BIC finds their K and EM their parameters.
func TestMixtureRecovery(t *testing.T) {
	ln := math.Log
	cases := []struct {
		name   string
		n      int
		comps  []Component
		sample func(r *rand.Rand, t []float64) *sample.Sample
		stuck  float64 // the share that never settles
		factor float64
	}{
		{
			name:  "two, exact times",
			n:     4000,
			comps: []Component{{0.3, ln(0.5), 0.4}, {0.7, ln(8), 0.6}},
		},
		{
			// The payments model (40/50/7 %) as a pure mixture, with 3 %
			// never settling and observation ages of 5 min to 1 h; 20,000
			// rows, so the settled times are binned.
			name:   "payments-like, censored, binned",
			n:      20000,
			comps:  []Component{{0.40, ln(1.5), 0.5}, {0.50, ln(14), 0.45}, {0.07, ln(150), 0.8}},
			stuck:  0.03,
			sample: func(r *rand.Rand, t []float64) *sample.Sample { return censorAt(r, t, 300, 3600) },
			factor: 1.5,
		},
		{
			name:  "four, a decade apart",
			n:     8000,
			comps: []Component{{0.25, ln(0.1), 0.3}, {0.25, ln(1), 0.3}, {0.25, ln(10), 0.3}, {0.25, ln(100), 0.3}},
		},
		{
			// Binned input: times at 0.1 s resolution with counts as
			// weights; below 100 s every time is its resolution cell.
			name:  "weighted counts at 0.1 s",
			n:     10000,
			comps: []Component{{0.5, ln(2), 0.3}, {0.5, ln(20), 0.5}},
			sample: func(_ *rand.Rand, t []float64) *sample.Sample {
				counts := map[float64]float64{}
				for _, v := range t {
					counts[math.Round(v*10)/10]++
				}
				s := &sample.Sample{}
				for v, c := range counts {
					s.Times = append(s.Times, v)
					s.Weights = append(s.Weights, c)
				}
				return s
			},
			factor: 1.2,
		},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(uint64(i+1), 11))
			times := drawMixture(r, tc.n, tc.comps)
			var s *sample.Sample
			if tc.sample != nil {
				s = tc.sample(r, times)
			} else {
				s = &sample.Sample{Times: times}
			}
			if tc.factor == 0 {
				tc.factor = 1
			}
			m, err := MixtureEM(s, MixtureOptions{})
			if err != nil {
				t.Fatal(err)
			}
			t.Log(m, m.Candidates)
			checkRecovered(t, m, tc.comps, float64(tc.n), tc.factor)
			se := math.Sqrt(tc.stuck*(1-tc.stuck)/float64(tc.n)) + 1e-9
			if math.Abs(m.Stuck-tc.stuck) > 5*tc.factor*se {
				t.Errorf("stuck = %.4f, want %.4f ± %.4f", m.Stuck, tc.stuck, 5*tc.factor*se)
			}
			if !m.Converged {
				t.Errorf("not converged after %d iterations", m.Iterations)
			}
		})
	}
}

// mixtureReference is testdata/mixture_reference.json, written by
// testdata/mixture_reference.R.
type mixtureReference struct {
	Cases []struct {
		Name        string
		X           []float64
		Settled     []bool
		Delta       float64
		K           int
		StuckFitted bool `json:"stuck_fitted"`
		Weight      []float64
		Mu          []float64
		Sigma       []float64
		Stuck       float64
		LogLik      float64
	}
}

// TestMixtureMatchesR compares the EM's maximum with R's optim on the
// same log-likelihood (exact times; a share that never settles with
// censoring; times rounded to 0.01 s as grouped data).
func TestMixtureMatchesR(t *testing.T) {
	b, err := os.ReadFile("testdata/mixture_reference.json")
	if err != nil {
		t.Fatal(err)
	}
	var ref mixtureReference
	if err := json.Unmarshal(b, &ref); err != nil {
		t.Fatal(err)
	}
	for _, c := range ref.Cases {
		t.Run(c.Name, func(t *testing.T) {
			s := &sample.Sample{Times: c.X, Censored: make([]bool, len(c.X))}
			for i, ok := range c.Settled {
				s.Censored[i] = !ok
			}
			if got := resolution(s.Times); got != c.Delta {
				t.Fatalf("resolution = %g, want %g", got, c.Delta)
			}
			// A tight tolerance: this checks the likelihood, not the
			// stopping rule.
			m, err := MixtureEM(s, MixtureOptions{K: c.K, NoStuck: !c.StuckFitted, Tol: 1e-13})
			if err != nil {
				t.Fatal(err)
			}
			if !scalar.EqualWithinAbsOrRel(m.LogLik, c.LogLik, 1e-6, 1e-9) {
				t.Errorf("loglik = %.10g, want %.10g (R)", m.LogLik, c.LogLik)
			}
			for k, g := range m.Components {
				if !scalar.EqualWithinAbs(g.Weight, c.Weight[k], 2e-5) ||
					!scalar.EqualWithinAbs(g.Mu, c.Mu[k], 2e-5) ||
					!scalar.EqualWithinAbs(g.Sigma, c.Sigma[k], 2e-5) {
					t.Errorf("component %d = %+v, want weight %.6f mu %.6f sigma %.6f (R)", k, g, c.Weight[k], c.Mu[k], c.Sigma[k])
				}
			}
			if !scalar.EqualWithinAbs(m.Stuck, c.Stuck, 2e-5) {
				t.Errorf("stuck = %.6f, want %.6f (R)", m.Stuck, c.Stuck)
			}
			// BIC from its definition.
			p := 3*c.K - 1
			if c.StuckFitted {
				p++
			}
			if want := -2*c.LogLik + float64(p)*math.Log(float64(len(c.X))); !scalar.EqualWithinAbsOrRel(m.BIC, want, 1e-5, 1e-9) {
				t.Errorf("BIC = %.10g, want %.10g", m.BIC, want)
			}
		})
	}
}

// TestMixtureOneComponent: K = 1 is the lognormal, whose MLE
// MaxLikelihood computes independently (closed form without censoring,
// Nelder–Mead on the censored likelihood, checked against survreg).
func TestMixtureOneComponent(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	times := drawMixture(r, 3000, []Component{{1, 1.2, 0.8}})
	for _, tc := range []struct {
		name string
		s    *sample.Sample
		tol  float64
	}{
		{"exact times", &sample.Sample{Times: times}, 1e-9},
		{"censored", censorAt(r, times, 1, 20), 2e-5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := MixtureEM(tc.s, MixtureOptions{K: 1, NoStuck: true, Tol: 1e-14})
			if err != nil {
				t.Fatal(err)
			}
			want, err := MaxLikelihood(LogNormal, tc.s)
			if err != nil {
				t.Fatal(err)
			}
			g := m.Components[0]
			if !scalar.EqualWithinAbs(g.Mu, want.Params["mu"], tc.tol) || !scalar.EqualWithinAbs(g.Sigma, want.Params["sigma"], tc.tol) || g.Weight != 1 {
				t.Errorf("MixtureEM K=1 = %+v, want %s", g, want)
			}
			if wantLL := logLik(want, tc.s, 0); !scalar.EqualWithinAbsOrRel(m.LogLik, wantLL, 1e-6, 1e-10) {
				t.Errorf("loglik = %.10g, want %.10g", m.LogLik, wantLL)
			}
		})
	}
}

// TestMixtureEMMonotone: every EM iteration raises the log-likelihood
// (Dempster, Laird & Rubin 1977, Theorem 1), here on censored, rounded
// data from a poor start, where the interval and censoring E-steps are
// all exercised.
func TestMixtureEMMonotone(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 3))
	times := drawMixture(r, 3000, []Component{{0.3, math.Log(0.4), 0.5}, {0.5, math.Log(6), 0.4}, {0.15, math.Log(90), 0.9}})
	s := censorAt(r, times, 30, 600)
	for i, v := range s.Times {
		if !s.Censored[i] {
			s.Times[i] = math.Max(0.01, math.Round(v*100)/100)
		}
	}
	d := mixtureData(s, true)
	if len(d.ia) == 0 || !d.cured {
		t.Fatalf("want resolution cells and censored items; have %d intervals, cured %v", len(d.ia), d.cured)
	}
	p := d.quantileStart(3, 0.02)
	var lls []float64
	d.run(p, 500, 0, func(_ int, ll, _ float64) bool { lls = append(lls, ll); return false })
	for i := 1; i < len(lls); i++ {
		if lls[i] < lls[i-1]-1e-9*math.Abs(lls[i-1]) {
			t.Fatalf("iteration %d: loglik %.12g < %.12g", i, lls[i], lls[i-1])
		}
	}
	if lls[len(lls)-1]-lls[0] < 100 {
		t.Errorf("loglik rose only from %.6g to %.6g: a poor start should gain more", lls[0], lls[len(lls)-1])
	}
}

// TestMixtureZeros: settled times of 0 are an atom at 0 with their share
// as mass; the components fit the rest.
func TestMixtureZeros(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 4))
	s := &sample.Sample{Times: drawMixture(r, 2000, []Component{{1, 1, 0.5}})}
	for i := range 200 {
		s.Times[i*10] = 0
	}
	m, err := MixtureEM(s, MixtureOptions{K: 1})
	if err != nil {
		t.Fatal(err)
	}
	if m.Zero != 0.1 || !scalar.EqualWithinAbs(m.Components[0].Weight, 0.9, 1e-12) {
		t.Errorf("zero %g, component weight %g: want 0.1 and 0.9", m.Zero, m.Components[0].Weight)
	}
	// The components' fit is that of the positive times alone.
	pos := s.Subset(func(i int) bool { return s.Times[i] > 0 })
	want, _ := MaxLikelihood(LogNormal, pos)
	if !scalar.EqualWithinAbs(m.Components[0].Mu, want.Params["mu"], 1e-9) {
		t.Errorf("mu = %g, want %g", m.Components[0].Mu, want.Params["mu"])
	}
	// ln L = 200 ln 0.1 + 1800 ln 0.9 + the lognormal's.
	if wantLL := 200*math.Log(0.1) + 1800*math.Log(0.9) + logLik(want, pos, 0); !scalar.EqualWithinAbsOrRel(m.LogLik, wantLL, 1e-6, 1e-10) {
		t.Errorf("loglik = %.10g, want %.10g", m.LogLik, wantLL)
	}
	d := m.Density(60, 512)
	if len(d.Atoms) != 1 || d.Atoms[0] != (Atom{T: 0, Mass: 0.1}) || d.CDF(0) != 0.1 {
		t.Errorf("density atoms %v, CDF(0) = %g: want one atom of 0.1 at 0", d.Atoms, d.CDF(0))
	}
	if m.Quantile(0.05) != 0 {
		t.Errorf("Quantile(0.05) = %g, want 0 (inside the atom)", m.Quantile(0.05))
	}
}

// TestMixtureMethod: the method names Estimate accepts and what it
// returns for them.
func TestMixtureMethod(t *testing.T) {
	for _, tc := range []struct {
		method string
		ok     bool
	}{
		{"lognormal-mixture", true}, {"Lognormal-Mixture:3", true}, {"lognormal-mixture:20", true},
		{"lognormal-mixture:0", false}, {"lognormal-mixture:21", false}, {"lognormal-mixture:x", false},
		{"lognormal-mixture:", false}, {"lognormal-mixtures", false},
	} {
		err := Options{Method: tc.method}.Check()
		if (err == nil) != tc.ok || (err != nil && !errors.Is(err, ErrOption)) {
			t.Errorf("Check(%q) = %v, want ok %v", tc.method, err, tc.ok)
		}
		if err != nil && !strings.Contains(err.Error(), "lognormal-mixture") {
			t.Errorf("Check(%q) = %v: the message should name the method", tc.method, err)
		}
	}
	r := rand.New(rand.NewPCG(8, 8))
	s := censorAt(r, drawMixture(r, 1500, []Component{{0.5, 0, 0.5}, {0.45, 3, 0.5}}), 100, 400)
	d, err := Estimate(s, Options{Method: "lognormal-mixture:2"})
	if err != nil {
		t.Fatal(err)
	}
	if d.Mixture == nil || d.Mixture.K() != 2 || d.Method != "lognormal-mixture:2" || d.Censored != s.CensoredCount() || d.KM == nil {
		t.Fatalf("Estimate: method %q, mixture %v, censored %d", d.Method, d.Mixture, d.Censored)
	}
	if H := d.Horizon(); !scalar.EqualWithinAbs(d.StuckShare, d.Mixture.Survival(H), 1e-12) {
		t.Errorf("stuck share %g, want S(%g) = %g", d.StuckShare, H, d.Mixture.Survival(H))
	}
	b, err := json.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	var back struct {
		Mixture struct {
			Components []map[string]float64
			Candidates []MixtureCandidate
		}
	}
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	c := back.Mixture.Components[1]
	if c["median_s"] != math.Exp(c["mu"]) || c["weight"] != d.Mixture.Components[1].Weight || back.Mixture.Candidates != nil {
		t.Errorf("JSON component %v (candidates %v)", c, back.Mixture.Candidates)
	}
}

// TestMixtureErrors: samples a mixture cannot be fitted to.
func TestMixtureErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		s    *sample.Sample
		k    int
		want string
	}{
		{"all zero", &sample.Sample{Times: []float64{0, 0, 0}}, 0, "settled items with time > 0"},
		{"all censored", &sample.Sample{Times: []float64{1, 2}, Censored: []bool{true, true}}, 0, "settled items with time > 0"},
		{"too few for K", &sample.Sample{Times: []float64{1, 2, 3, 4, 5}}, 3, "at least 6 distinct settled times"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := MixtureEM(tc.s, MixtureOptions{K: tc.k})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want it to say %q", err, tc.want)
			}
		})
	}
}

// TestMixturePayments: on the payments fixture (20,000 rows, 216
// pending), the mixture chosen by BIC recovers the generator's main
// components (fixtures/gen/main.go; shares of all items):
//
//	wallet instant  0.30·0.955 = 28.65%, 0.1 + LogNormal(0.4 s, 0.5): median 0.5 s
//	1–10 s          card frictionless 10.4% (3.5 s), momo declined 2% (6 s),
//	                wallet slow 1.05% (4 s): 13.45%
//	10–40 s         momo approved 39.25% (1.5 + LogNormal(13 s, 0.5): median
//	                14.5 s), bank cleared 4.34% (20 s), card challenge 1.95%
//	                (25 s): 45.54%
//	timeouts        6%, 60.5 s + Exp(0.5 s)
//	drags           5.29% (150–240 s)
//	stuck           1.07%
//
// and the model's summary, 40/50/7% in the fast (< 5 s), middle and slow
// (> 100 s) groups. Tolerances: 5 standard errors of a share of n =
// 20,000 (0.016 at 29%) where a group is one lognormal; wider where the
// generator's laws are not lognormal (offsets, the exponential timeout
// tail) or overlap (the bank's σ = 0.9 component spreads into the drags,
// which the fit's slow component absorbs: 7.0% against 5.3%).
func TestMixturePayments(t *testing.T) {
	s, _, err := ingest.Read([]string{"../fixtures/payments.csv"}, ingest.ReadOptions{Column: "settle_s", Status: "status", Pending: []string{"pending"}})
	if err != nil {
		t.Skip("fixtures/payments.csv:", err)
	}
	m, err := MixtureEM(s, MixtureOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Log(m)
	share := func(lo, hi float64) (w, median float64) {
		var top float64
		for _, c := range m.Components {
			if med := c.Median(); med >= lo && med < hi {
				w += c.Weight
				if c.Weight > top {
					top, median = c.Weight, med
				}
			}
		}
		return w, median
	}
	for _, g := range []struct {
		name         string
		lo, hi       float64
		want, tol    float64
		median, mtol float64 // of the group's largest component; 0: not checked
	}{
		{"wallet instant", 0, 1, 0.2865, 0.016, 0.5, 0.03},
		{"1–10 s", 1, 10, 0.1345, 0.025, 3.5, 0.5},
		{"10–40 s", 10, 40, 0.4554, 0.02, 14.5, 0.7},
		{"timeouts", 55, 65, 0.06, 0.005, 0, 0},
		{"drags", 100, math.Inf(1), 0.0529, 0.025, 0, 0},
		{"issue: fast", 0, 5, 0.40, 0.02, 0, 0},
		{"issue: middle", 5, 100, 0.50, 0.02, 0, 0},
		{"issue: slow", 100, math.Inf(1), 0.07, 0.01, 0, 0},
	} {
		w, med := share(g.lo, g.hi)
		if math.Abs(w-g.want) > g.tol {
			t.Errorf("%s: share %.4f, want %.4f ± %.3f", g.name, w, g.want, g.tol)
		}
		if g.median > 0 && math.Abs(med-g.median) > g.mtol {
			t.Errorf("%s: median %.3gs, want %.3gs ± %.2g", g.name, med, g.median, g.mtol)
		}
	}
	// The pending rows are all older than every settle: they are the
	// share that never settles, 216/20,000 up to the tails' share.
	if math.Abs(m.Stuck-0.0107) > 0.002 {
		t.Errorf("stuck = %.4f, want 0.0107 ± 0.002", m.Stuck)
	}
}

// TestMixtureWarnings: the fit says when it stopped short, when BIC
// wanted more components than allowed, and when a component is a point
// mass in disguise.
func TestMixtureWarnings(t *testing.T) {
	r := rand.New(rand.NewPCG(12, 12))
	two := drawMixture(r, 2000, []Component{{0.5, 0, 0.4}, {0.5, 3, 0.4}})
	ties := drawMixture(r, 2000, []Component{{1, 2, 0.8}})
	for i := range 300 {
		ties[i] = 60 // a timeout recorded exactly
	}
	seconds := drawMixture(r, 3000, []Component{{1, 3, 0.7}})
	for i := range seconds {
		seconds[i] = math.Max(1, math.Round(seconds[i]))
		if i%10 == 0 {
			seconds[i] = 2 // an excess of 2 s beyond the smooth law
		}
	}
	for _, tc := range []struct {
		name string
		s    *sample.Sample
		o    MixtureOptions
		want string
	}{
		{"iteration cap", &sample.Sample{Times: two}, MixtureOptions{K: 3, MaxIter: 2}, "short of convergence (K=3)"},
		{"largest K", &sample.Sample{Times: two}, MixtureOptions{MaxK: 1}, "BIC chose the largest K tried (1)"},
		{"ties", &sample.Sample{Times: ties}, MixtureOptions{}, "at 60s is as narrow as allowed"},
		{"one resolution cell", &sample.Sample{Times: seconds}, MixtureOptions{}, "at 1.936s is narrower than the data's resolution (1s)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := MixtureEM(tc.s, tc.o)
			if err != nil {
				t.Fatal(err)
			}
			found := false
			for _, w := range m.Warnings {
				found = found || strings.Contains(w, tc.want)
			}
			if !found {
				t.Errorf("warnings %q, want one saying %q (%s)", m.Warnings, tc.want, m)
			}
		})
	}
}

// TestMixtureLatency: fixtures/latency.csv (5000 calls in whole
// ms, generator in fixtures/gen/main.go) is a mixture of three
// lognormals — warm 63.5% LogNormal(0.9 s, 0.25), cold 35.5%
// LogNormal(4.9 s, 0.03), slow 1% LogNormal(20 s, 0.5) — and the fit
// recovers it: BIC chooses 3, and every parameter is within 5 standard
// errors of n = 5000 (the millisecond rounding is a cell of 0.1% at
// 0.9 s, within the σ floor: no information lost).
func TestMixtureLatency(t *testing.T) {
	s, _, err := ingest.Read([]string{"../fixtures/latency.csv"}, ingest.ReadOptions{Column: "Latency(ms)", Unit: ingest.Millisecond})
	if err != nil {
		t.Skip("fixtures/latency.csv:", err)
	}
	m, err := MixtureEM(s, MixtureOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Log(m)
	checkRecovered(t, m, []Component{{0.635, math.Log(0.9), 0.25}, {0.355, math.Log(4.9), 0.03}, {0.01, math.Log(20), 0.5}}, float64(s.Len()), 1)
}
