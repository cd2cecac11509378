package optimize

import (
	"math"
	"math/rand/v2"
	"time"
)

// DefaultAges are the ages at which Score counts polls when none are given.
var DefaultAges = []time.Duration{30 * time.Second, 2 * time.Minute, 15 * time.Minute}

// ScoreOptions configures Score. The zero value scores at DefaultAges with
// DefaultDraws seeded draws for jittered schedules.
type ScoreOptions struct {
	Ages  []time.Duration // count polls made by each of these ages; nil means DefaultAges
	Draws int             // Monte Carlo draws for jittered schedules; 0 means DefaultDraws
	Seed  uint64          // seed of the draws
}

// DefaultDraws is the number of Monte Carlo draws for a jittered schedule.
const DefaultDraws = 200

// Score is how a schedule does on a set of items. Lags are in seconds, to
// the nanosecond (the resolution of poll times); the lag of an item
// settling at age s is (first poll at or after s) − s, never negative, and
// exactly 0 for an item settling at a poll. An item that settles after the
// last poll, or never, is not caught and costs the stuck polls. The lag
// figures are NaN when no item is caught. For jittered schedules every
// figure is the mean over the draws (quantiles pooled over them), and the
// CI fields give 95% normal intervals half-widths of the means.
type Score struct {
	Name       string
	Spec       string
	Ages       []time.Duration
	PollsBy    []float64 // polls made at ages ≤ Ages[i] (mean over draws when jittered)
	StuckPolls float64   // polls made within the horizon by an item that never settles

	HasData    bool    // false: no items were given; the fields below are zero
	MeanPolls  float64 // expected polls per item
	MeanLag    float64 // mean lag of caught items, seconds
	MedianLag  float64 // seconds
	P95Lag     float64 // seconds
	P99Lag     float64 // seconds
	Caught     float64 // share of all items caught within the horizon
	Draws      int     // Monte Carlo draws; 0 for an unjittered schedule
	MeanLagCI  float64 // jittered: 95% CI half-width of MeanLag
	MeanPollCI float64 // jittered: 95% CI half-width of MeanPolls
}

// ScoreSchedule scores s on the items (nil items: only the figures that
// need no data). Quantiles are of the weighted lag distribution of caught
// items, the smallest lag L with P(lag ≤ L) ≥ q, to 1µs.
func ScoreSchedule(s Schedule, items *Items, opt ScoreOptions) Score {
	ages := opt.Ages
	if ages == nil {
		ages = DefaultAges
	}
	sc := Score{Name: s.Name, Spec: s.String(), Ages: ages, PollsBy: make([]float64, len(ages))}
	draws := 1
	if s.Jitter.Kind != NoJitter {
		draws = opt.Draws
		if draws <= 0 {
			draws = DefaultDraws
		}
		sc.Draws = draws
	}
	seqs := make([][]float64, draws)
	var buf []time.Duration
	for d := range seqs {
		buf = s.AppendPolls(buf[:0], drawRand(s, opt.Seed, d))
		seq := make([]float64, len(buf))
		for i, p := range buf {
			seq[i] = p.Seconds()
		}
		seqs[d] = seq
		for a, age := range ages {
			for _, p := range buf {
				if p <= age {
					sc.PollsBy[a]++
				}
			}
		}
		sc.StuckPolls += float64(len(buf))
	}
	for a := range sc.PollsBy {
		sc.PollsBy[a] /= float64(draws)
	}
	sc.StuckPolls /= float64(draws)
	if items == nil || items.total == 0 {
		return sc
	}
	sc.HasData = true
	lags := make([]float64, draws)
	polls := make([]float64, draws)
	var caught float64
	for d, seq := range seqs {
		c, lagSum, pollSum := items.scoreSeq(seq)
		caught += c
		lags[d] = math.NaN()
		if c > 0 {
			lags[d] = lagSum / c
		}
		polls[d] = pollSum / items.total
		sc.MeanPolls += pollSum
		sc.MeanLag += lagSum
	}
	sc.MeanPolls /= items.total * float64(draws)
	sc.Caught = caught / (items.total * float64(draws))
	if caught > 0 {
		sc.MeanLag = roundNanos(sc.MeanLag / caught)
	} else {
		sc.MeanLag = math.NaN()
	}
	sc.MedianLag = roundNanos(items.lagQuantile(seqs, caught, 0.5))
	sc.P95Lag = roundNanos(items.lagQuantile(seqs, caught, 0.95))
	sc.P99Lag = roundNanos(items.lagQuantile(seqs, caught, 0.99))
	if draws > 1 {
		sc.MeanLagCI = ci95(lags)
		sc.MeanPollCI = ci95(polls)
	}
	return sc
}

// roundNanos rounds seconds to the nanosecond, the resolution of poll
// times: a lag of 4 s − 3.2 s is 0.8, not 0.7999999999999998.
func roundNanos(x float64) float64 { return math.Round(x*1e9) / 1e9 }

// drawRand returns the source of draw d of a jittered schedule, nil for
// an unjittered one. Each draw has its own stream, so draw d uses the same
// random numbers whatever the schedule: schedules are compared on common
// random numbers, and a jittered schedule's cost is monotone in its gaps
// (which Tune's bisection needs).
func drawRand(s Schedule, seed uint64, d int) Rand {
	if s.Jitter.Kind == NoJitter {
		return nil
	}
	return rand.New(rand.NewPCG(seed, 0x706f6c6c666974+uint64(d))) // "pollfit" + d
}

// scoreSeq returns the caught weight, the weighted sum of lags of caught
// items and the weighted sum of polls per item, for poll times seq.
func (it *Items) scoreSeq(seq []float64) (caught, lagSum, pollSum float64) {
	lo := 0
	for i, p := range seq {
		hi := it.firstAbove(p)
		if hi > lo {
			w := it.weightIn(lo, hi)
			caught += w
			lagSum += it.lagIn(lo, hi, w, p)
			pollSum += float64(i+1) * w
		}
		lo = hi
	}
	pollSum += float64(len(seq)) * (it.total - caught)
	return caught, lagSum, pollSum
}

// ci95 returns the half-width of the normal 95% confidence interval of
// the mean of xs.
func ci95(xs []float64) float64 {
	n := float64(len(xs))
	var mean, ss float64
	for _, x := range xs {
		mean += x
	}
	mean /= n
	for _, x := range xs {
		ss += (x - mean) * (x - mean)
	}
	return 1.959963984540054 * math.Sqrt(ss/(n-1)/n)
}
