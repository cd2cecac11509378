package fit

import (
	"testing"

	"gonum.org/v1/gonum/stat/distuv"
)

// BenchmarkEstimate10M fits 10,000,000 lognormal settle times held in
// memory with the default options (log domain, ISJ bandwidth, atoms
// auto). bench/fit_vs_r.sh runs it next to R's density() on the same
// distribution; docs/performance.md ("Fit") has the figures.
func BenchmarkEstimate10M(b *testing.B) {
	benchEstimate(b, 10_000_000, Options{})
}

// BenchmarkEstimate1M is the same at 1,000,000 values, for quick checks.
func BenchmarkEstimate1M(b *testing.B) {
	benchEstimate(b, 1_000_000, Options{})
}

func benchEstimate(b *testing.B, n int, opt Options) {
	s := &Sample{Times: sampleOf(distuv.LogNormal{Mu: 3, Sigma: 1, Src: pcg(1)}, n, 0)}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Estimate(s, opt); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "values/s")
}
