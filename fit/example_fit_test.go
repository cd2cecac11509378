package fit_test

import (
	"fmt"

	"github.com/pollfit/pollfit/fit"
)

// Estimate finds the instant settles as an atom at 0 and keeps them out
// of the smooth part. (The histogram method is used so that the median
// can be checked by hand: 10 of 50 items at 0 and 15 more at 5…19 s
// make P(T ≤ 19 s) = 0.5.)
func ExampleEstimate() {
	// 10 instant settles and 40 spread between 5 s and 44 s.
	s := &fit.Sample{}
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
	s := &fit.Sample{
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
