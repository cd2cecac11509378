package optimize

import (
	"fmt"
	"testing"
	"time"

	"gonum.org/v1/gonum/stat/distuv"
)

// paymentsLike is a lognormal mixture shaped like the brief's payments:
// near-instant wallets, prompts approved within about 30 s, a slow tail,
// and 3% that never settle.
var paymentsLike = cdfFunc(func(t float64) float64 {
	return 0.3*distuv.LogNormal{Mu: 0.5, Sigma: 0.6}.CDF(t) +
		0.55*distuv.LogNormal{Mu: 2.7, Sigma: 0.5}.CDF(t) +
		0.12*distuv.LogNormal{Mu: 4.5, Sigma: 1}.CDF(t)
})

// BenchmarkExact times Exact with both budgets at once (the slowest case:
// nested multiplier searches), model building included, by grid size.
// Run: go test ./optimize -run '^$' -bench 'Exact' -count 6
func BenchmarkExact(b *testing.B) {
	for _, bc := range []struct {
		horizon, res time.Duration
		budget       Budget
	}{
		{15 * time.Minute, 100 * time.Millisecond, Budget{StuckPolls: 152, MeanPolls: 19}},
		{15 * time.Minute, 10 * time.Millisecond, Budget{StuckPolls: 152, MeanPolls: 19}},
		{24 * time.Hour, time.Second, Budget{StuckPolls: 500, MeanPolls: 19}},
		{time.Hour, 10 * time.Millisecond, Budget{StuckPolls: 300, MeanPolls: 19}},
	} {
		n := int(bc.horizon/bc.res) + 1
		b.Run(fmt.Sprintf("%s@%s/points=%d", FormatDuration(bc.horizon), FormatDuration(bc.res), n), func(b *testing.B) {
			o := Options{Horizon: bc.horizon, Resolution: bc.res, MinGap: bc.res}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Exact(paymentsLike, bc.budget, o); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(n), "points")
		})
	}
}

// BenchmarkPhased times the K-phase search, auto K, exact optimum
// included: with the defaults (phases end at any poll), and with the nice
// bounds of the brief's 15 minutes.
func BenchmarkPhased(b *testing.B) {
	for _, bc := range []struct {
		name string
		o    Options
	}{{"defaults", Options{Horizon: 15 * time.Minute}}, {"bounds", phased15m}} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Phased(paymentsLike, Budget{StuckPolls: 152, MeanPolls: 19}, 0, bc.o); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkPriceOfSimplicity times what plan solves for its table: the
// best schedule of K = 1 … MaxPhases phases, constant and growing, exact
// optimum included, with the default options (15 minutes, phases ending
// at any poll), under a stuck-poll budget and under both budgets.
func BenchmarkPriceOfSimplicity(b *testing.B) {
	for _, bc := range []struct {
		name string
		b    Budget
	}{{"stuck", Budget{StuckPolls: 152}}, {"both", Budget{StuckPolls: 152, MeanPolls: 19}}} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := PriceOfSimplicity(paymentsLike, bc.b, Options{Horizon: 15 * time.Minute}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
