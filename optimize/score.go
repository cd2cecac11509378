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
	// LagSE asks for Score.MeanLagSE, which takes one more pass over the
	// caught items per draw (O(n), where the rest of Score is O(log n)).
	LagSE bool
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
	// MeanLagSE (with ScoreOptions.LagSE) is the standard error of
	// MeanLag as an estimate of the mean lag of items like these: the
	// standard deviation of the caught items' lags (weighted; pooled over
	// the draws when jittered) over the square root of the number caught,
	// counted in items as given (rows, or the counts of binned input),
	// before censored items' weight is redistributed:
	//
	//	SE = sd(lag) / sqrt(n caught)
	//
	// Seconds; 0 when fewer than 2 items are caught.
	MeanLagSE float64
	// NCaught is the number of items caught, counted as for MeanLagSE
	// (mean over draws when jittered); set with MeanLagSE.
	NCaught float64
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
	if s.Clocked() && (items == nil || items.total == 0) {
		// Without creation instants, a wall-clock schedule's counts are
		// averaged over items created uniformly on the clock (ScoreTimed
		// scores items with their own).
		return scoreClockAges(s, sc)
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
	if opt.LagSE && caught > 0 {
		var ss, nc float64
		for _, seq := range seqs {
			s2, n := items.lagSpread(seq, sc.MeanLag)
			ss += s2
			nc += n
		}
		sc.NCaught = nc / float64(draws)
		if sc.NCaught >= 2 {
			sd := math.Sqrt(ss / caught * sc.NCaught / (sc.NCaught - 1))
			sc.MeanLagSE = sd / math.Sqrt(sc.NCaught)
		}
	}
	return sc
}

// roundNanos rounds seconds to the nanosecond, the resolution of poll
// times: a lag of 4 s − 3.2 s is 0.8, not 0.7999999999999998.
func roundNanos(x float64) float64 { return math.Round(x*1e9) / 1e9 }

// lagSpread returns Σ w·(lag − mean)² over the items the poll times seq
// catch, and how many items they are (given weights, before
// redistribution).
func (it *Items) lagSpread(seq []float64, mean float64) (ss, n float64) {
	lo := 0
	for _, p := range seq {
		hi := it.firstAbove(p)
		for i := lo; i < hi; i++ {
			d := p - it.t[i] - mean
			ss += (it.cumW[i+1] - it.cumW[i]) * d * d
		}
		lo = hi
	}
	cumN := it.cumN
	if cumN == nil {
		cumN = it.cumW
	}
	return ss, cumN[lo]
}

// PollShare is what one poll of a schedule does, on items (Items.ByPoll)
// or in expectation (ExpectByPoll): Caught is the share of all items it is
// the first to see settled, Lag their lag and LagSq their squared lag
// summed over all items (seconds and s² per item), so that over the polls
// Σ Lag / Σ Caught is the mean lag of the items caught and
// Σ LagSq / Σ Caught − mean² its variance. Comparing the two per poll
// shows which polls a gap between a schedule's expected and realised lag
// comes from.
type PollShare struct {
	At     time.Duration
	Caught float64
	Lag    float64
	LagSq  float64
}

// ByPoll returns what each poll of the unjittered schedule s does on the
// items (see PollShare), in one pass over the items caught. It panics if s
// is jittered: its polls differ from draw to draw.
func (it *Items) ByPoll(s Schedule) []PollShare {
	if s.Jitter.Kind != NoJitter {
		panic("optimize: Items.ByPoll: jittered schedule")
	}
	polls := s.Polls()
	out := make([]PollShare, len(polls))
	lo := 0
	for i, p := range polls {
		t := p.Seconds()
		hi := it.firstAbove(t)
		out[i].At = p
		if hi > lo && it.total > 0 {
			w := it.weightIn(lo, hi)
			out[i].Caught = w / it.total
			out[i].Lag = (t*w - (it.cumWT[hi] - it.cumWT[lo])) / it.total
			for j := lo; j < hi; j++ {
				out[i].LagSq += (it.cumW[j+1] - it.cumW[j]) * (t - it.t[j]) * (t - it.t[j])
			}
			out[i].LagSq /= it.total
		}
		lo = hi
	}
	return out
}

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
