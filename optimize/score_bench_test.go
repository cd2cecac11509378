package optimize

import (
	"math"
	"math/rand/v2"
	"testing"
)

// benchItems are 10M log-normal settle times (median e² ≈ 7.4 s), made
// once: NewItems sorts them, which the benchmark does not time.
var benchItems = func() func() *Items {
	var it *Items
	return func() *Items {
		if it == nil {
			rng := rand.New(rand.NewPCG(10, 10))
			settle := make([]float64, 10_000_000)
			for i := range settle {
				settle[i] = math.Exp(2 + 1.2*rng.NormFloat64())
			}
			it = NewItems(settle, nil, nil)
		}
		return it
	}
}()

// BenchmarkScore10M scores one schedule on 10M items: the brief's "now"
// (152 polls), and exponential backoff with full jitter at 10 draws.
func BenchmarkScore10M(b *testing.B) {
	items := benchItems()
	exp := Family{Name: "exp-full", Growth: Exponential, Factor: DefaultFactor, CapRatio: DefaultCapRatio, Jitter: Jitter{Kind: FullJitter}}
	cases := []struct {
		name string
		s    Schedule
		opt  ScoreOptions
	}{
		{"now", References[3], ScoreOptions{}},
		{"exp-full-10draws", exp.Schedule(1e9, 15*60*1e9), ScoreOptions{Draws: 10, Seed: 1}},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				ScoreSchedule(c.s, items, c.opt)
			}
			b.ReportMetric(float64(items.Len())*float64(b.N)/b.Elapsed().Seconds(), "items/s")
		})
	}
}
