package fit_test

import (
	"fmt"
	"math"

	"github.com/pollfit/pollfit/fit"
	"github.com/pollfit/pollfit/sample"
)

// Estimate finds the instant settles as an atom at 0 and keeps them out
// of the smooth part. (The histogram method is used so that the median
// can be checked by hand: 10 of 50 items at 0 and 15 more at 5…19 s
// make P(T ≤ 19 s) = 0.5.)
func ExampleEstimate() {
	// 10 instant settles and 40 spread between 5 s and 44 s.
	s := &sample.Sample{}
	for i := range 50 {
		t := 0.0
		if i >= 10 {
			t = float64(i - 5)
		}
		s.Times = append(s.Times, t)
	}
	d, err := fit.Estimate(s, fit.Options{Horizon: 60, Method: "histogram", Domain: "linear"})
	if err != nil {
		fmt.Println(err)
		return
	}
	a := d.Atoms[0]
	fmt.Printf("atom at %g s with mass %.4g, P(T ≤ 0) = %.4g, median %.3g s\n", a.T, a.Mass, d.CDF(0), d.Quantile(0.5))
	// Output:
	// atom at 0 s with mass 0.2, P(T ≤ 0) = 0.2, median 19 s
}

// ParseDist gives a distribution directly, in place of data.
func ExampleParseDist() {
	dist, err := fit.ParseDist("weibull:k=1.5,lambda=30")
	if err != nil {
		fmt.Println(err)
		return
	}
	d := dist.Density(120, 512) // 0–120 s on 512 points
	fmt.Printf("%s: median %.4g s, stuck beyond 120 s %.4g\n", dist, d.Quantile(0.5), d.StuckShare)
	// Output:
	// weibull:k=1.5,lambda=30: median 23.5 s, stuck beyond 120 s 0.0003355
}

// MaxLikelihood fits a family, with censored items in the likelihood.
func ExampleMaxLikelihood() {
	s := &sample.Sample{
		Times:    []float64{2, 3, 5, 8, 13, 21, 30, 30},
		Censored: []bool{false, false, false, false, false, false, true, true},
	}
	d, err := fit.MaxLikelihood(fit.Exponential, s)
	if err != nil {
		fmt.Println(err)
		return
	}
	// rate = settled / total time = 6 / 112
	fmt.Printf("%s\n", d)
	// Output:
	// exponential:rate=0.05357142857142857
}

// MixtureEM finds the two modes of a warm/cold latency sample and how
// many items never settled.
func ExampleMixtureEM() {
	// 600 warm starts near 0.8 s and 400 cold ones near 5 s (their
	// quantiles, so the sample is exactly the mixture's shape); 30 more
	// items were still pending after 60 s. Shares of all 1030 items:
	// 600/1030 = 58.3%, 400/1030 = 38.8%, 30/1030 = 2.91%.
	s := &sample.Sample{}
	add := func(n int, median, sigma float64) {
		for i := range n {
			z := normalQuantile((float64(i) + 0.5) / float64(n))
			s.Times = append(s.Times, median*math.Exp(sigma*z))
			s.Censored = append(s.Censored, false)
		}
	}
	add(600, 0.8, 0.3)
	add(400, 5, 0.4)
	for range 30 {
		s.Times = append(s.Times, 60)
		s.Censored = append(s.Censored, true)
	}
	m, err := fit.MixtureEM(s, fit.MixtureOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(m)
	for _, c := range m.Candidates {
		fmt.Printf("K=%d BIC %.1f\n", c.K, c.BIC)
	}
	// Output:
	// lognormal mixture of 2 (BIC): 58.3% at 0.8s (σ 0.3), 38.8% at 5s (σ 0.4); 2.91% never settle
	// K=1 BIC 4070.2
	// K=2 BIC 3314.3
	// K=3 BIC 3327.9
	// K=4 BIC 3342.1
}

// normalQuantile is the standard normal quantile Φ⁻¹(p).
func normalQuantile(p float64) float64 { return -math.Sqrt2 * math.Erfcinv(2*p) }

// KSDistance measures how far a distribution is from a sample: here the
// exponential law with mean 2 s against five items, one still pending
// (censored) at 3 s, so the sample's CDF is 1 − Kaplan–Meier: 0.2 after
// 1 s, 0.6 after 2 s, 1 after 4 s. Just before 2 s the model has settled
// 1 − e⁻¹ = 0.632 against the sample's 0.2.
func ExampleKSDistance() {
	dist, _ := fit.ParseDist("exponential:rate=0.5")
	d := dist.Density(10, 0)
	s := &sample.Sample{Times: []float64{1, 2, 2, 3, 4}, Censored: []bool{false, false, false, true, false}}
	k := fit.KSDistance(d, s)
	fmt.Printf("D = %.4f at %g s\n", k.D, k.At)
	// A given model's distance from 1000 rows stays within this band by
	// sampling error alone (1.358/√1000):
	fmt.Printf("95%% band, model given, 1000 rows: %.4f\n", fit.DKWBand(1000, 0.05))
	// A fit on 2333 rows scored on 1000 held out carries both samples'
	// error (1.358·√(1/2333 + 1/1000)):
	fmt.Printf("95%% band, fit on 2333 rows, 1000 held out: %.4f\n", fit.KSBand(2333, 1000, 0.05))
	// Output:
	// D = 0.4321 at 2 s
	// 95% band, model given, 1000 rows: 0.0429
	// 95% band, fit on 2333 rows, 1000 held out: 0.0513
}
