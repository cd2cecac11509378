package fit

import (
	"math"
	"testing"

	"github.com/pollfit/pollfit/sample"
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

// BenchmarkEstimate10MSpike fits 10,000,000 settle times with a deadline
// spike: the lognormal of BenchmarkEstimate10M for 94 %, and 6 % at
// 60.5 s + Exp(mean 0.5 s) (the payments generator's prompt timeouts), so
// that the spike test's cross-validation runs (spikecv.go).
func BenchmarkEstimate10MSpike(b *testing.B) {
	n := 10_000_000
	t := sampleOf(distuv.LogNormal{Mu: 3, Sigma: 1, Src: pcg(1)}, n, 0)
	r := pcg(3)
	for i := range t {
		if i%50 < 3 { // 6 %
			t[i] = 60.5 + 0.5*r.ExpFloat64()
		}
	}
	benchSample(b, &sample.Sample{Times: t}, Options{})
}

// benchEstimate also reports the CPU time per fit (user + system, all
// goroutines), cpu-ms/op: on a machine shared with other jobs it moves far
// less than the wall time, which waits for a core.
func benchEstimate(b *testing.B, n int, opt Options) {
	benchSample(b, &sample.Sample{Times: sampleOf(distuv.LogNormal{Mu: 3, Sigma: 1, Src: pcg(1)}, n, 0)}, opt)
}

func benchSample(b *testing.B, s *sample.Sample, opt Options) {
	n := s.Len()
	b.ReportAllocs()
	cpu0 := cpuTime()
	for b.Loop() {
		if _, err := Estimate(s, opt); err != nil {
			b.Fatal(err)
		}
	}
	if cpu := cpuTime() - cpu0; cpu > 0 {
		b.ReportMetric(cpu.Seconds()*1e3/float64(b.N), "cpu-ms/op")
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "values/s")
}

// BenchmarkMixture10M fits a lognormal mixture, K by BIC, to 10,000,000
// settle times from the payments-like mixture of TestMixtureRecovery
// (40/50/7 % at 1.5 s, 14 s, 150 s; 3 % never settle, observed for 5 min
// to 1 h): one binning pass, then EM on 8192 cells.
func BenchmarkMixture10M(b *testing.B) {
	benchMixture(b, 10_000_000)
}

// BenchmarkMixture20k is the same at the fixtures' 20,000 values.
func BenchmarkMixture20k(b *testing.B) {
	benchMixture(b, 20_000)
}

func benchMixture(b *testing.B, n int) {
	r := pcg(2)
	comps := []Component{{0.40, math.Log(1.5), 0.5}, {0.50, math.Log(14), 0.45}, {0.07, math.Log(150), 0.8}}
	s := censorAt(r, drawMixture(r, n, comps), 300, 3600)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := MixtureEM(s, MixtureOptions{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "values/s")
}

// matrixSizes are the sample sizes of BenchmarkEstimateMatrix and
// BenchmarkKaplanMeierMatrix, by name.
var matrixSizes = []struct {
	name string
	n    int
}{{"1k", 1_000}, {"100k", 100_000}, {"1M", 1_000_000}, {"10M", 10_000_000}, {"100M", 100_000_000}}

// matrixSamples caches the generated samples across -count runs: 10⁸
// lognormal draws take seconds.
var matrixSamples = map[string][]float64{}

// matrixSample returns n lognormal settle times (meanlog 3, sdlog 1, as
// R's rlnorm(n, 3, 1) in bench/fit_matrix.sh), made once per size.
func matrixSample(name string, n int) []float64 {
	if x, ok := matrixSamples[name]; ok {
		return x
	}
	x := sampleOf(distuv.LogNormal{Mu: 3, Sigma: 1, Src: pcg(1)}, n, 0)
	matrixSamples[name] = x
	return x
}

// BenchmarkEstimateMatrix fits n = 1k … 100M lognormal settle times held
// in memory in every domain with every bandwidth rule
// (n=SIZE/DOMAIN/RULE). bench/fit_matrix.sh runs it next to R's
// density() with the matching rule on the same distribution; select
// sizes with -bench, e.g. 'EstimateMatrix/n=1M/'. Data generation is not
// timed.
func BenchmarkEstimateMatrix(b *testing.B) {
	for _, sz := range matrixSizes {
		b.Run("n="+sz.name, func(b *testing.B) {
			s := &sample.Sample{Times: matrixSample(sz.name, sz.n)}
			for _, dom := range []string{DomainLog, DomainLinear, DomainReflect} {
				for _, rule := range []string{BandwidthISJ, BandwidthSJ, BandwidthSilverman, BandwidthScott} {
					b.Run(dom+"/"+rule, func(b *testing.B) {
						benchSample(b, s, Options{Domain: dom, Bandwidth: rule})
					})
				}
			}
		})
	}
}

// BenchmarkEstimateLikeR fits the small sizes of BenchmarkEstimateMatrix
// (log domain, isj and silverman) as Estimate does by default and cut to
// what R's density() computes: 512 grid points (density()'s n) and no
// atom or spike screens (Atoms "off"). The difference is what the fuller
// fit costs where R's density() is faster (docs/performance.md, "Fit").
func BenchmarkEstimateLikeR(b *testing.B) {
	for _, sz := range matrixSizes[:2] {
		s := &sample.Sample{Times: matrixSample(sz.name, sz.n)}
		for _, rule := range []string{BandwidthISJ, BandwidthSilverman} {
			b.Run("n="+sz.name+"/"+rule+"/default", func(b *testing.B) {
				benchSample(b, s, Options{Bandwidth: rule})
			})
			b.Run("n="+sz.name+"/"+rule+"/grid512", func(b *testing.B) {
				benchSample(b, s, Options{Bandwidth: rule, Grid: 512})
			})
			b.Run("n="+sz.name+"/"+rule+"/grid512-atomsoff", func(b *testing.B) {
				benchSample(b, s, Options{Bandwidth: rule, Grid: 512, Atoms: "off"})
			})
		}
	}
}

// BenchmarkKaplanMeierMatrix computes the Kaplan–Meier estimate
// (NewKaplanMeier) of n = 1k … 100M lognormal settle times censored by an
// independent uniform follow-up on [0, 60 s] (about 30 % censored); R's
// survfit(Surv(time, status) ~ 1) is its peer in bench/fit_matrix.sh.
func BenchmarkKaplanMeierMatrix(b *testing.B) {
	for _, sz := range matrixSizes {
		b.Run("n="+sz.name, func(b *testing.B) {
			x := matrixSample(sz.name, sz.n)
			s := &sample.Sample{Times: make([]float64, sz.n), Censored: make([]bool, sz.n)}
			r := pcg(2)
			for i, v := range x {
				f := 60 * r.Float64()
				s.Times[i], s.Censored[i] = min(v, f), f < v
			}
			b.ReportAllocs()
			cpu0 := cpuTime()
			for b.Loop() {
				NewKaplanMeier(s)
			}
			if cpu := cpuTime() - cpu0; cpu > 0 {
				b.ReportMetric(cpu.Seconds()*1e3/float64(b.N), "cpu-ms/op")
			}
			b.ReportMetric(float64(sz.n)*float64(b.N)/b.Elapsed().Seconds(), "values/s")
		})
	}
}
