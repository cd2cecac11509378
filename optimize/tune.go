package optimize

import (
	"errors"
	"fmt"
	"math"
	"time"
)

// Tuned is a family member tuned to a budget.
type Tuned struct {
	Schedule   Schedule
	Base       time.Duration // the base gap found
	StuckPolls float64       // stuck cost; the mean over the draws when jittered
	MeanPolls  float64       // polls per item on the items; NaN without items
}

// ErrBudget is wrapped by Tune's errors when no member of a family can
// spend the target budget.
var ErrBudget = errors.New("budget out of reach")

// Tune finds the member of f that spends the budget t over the horizon
// (t.PollCost must be zero: a family is tuned to a budget, not a price):
// the smallest base gap of at least f.MinGap, in whole milliseconds (in
// whole steps of a power of ten at most horizon/10⁴ for horizons under
// 10 s), whose stuck cost is at most t.StuckPolls and whose mean polls on
// items is at most t.MeanPolls. When a step moves the cost by more than
// one stuck poll or MeanPollsTolerance of the mean (small bases), the base
// is refined to a thousandth of the step (at least 1 ns).
// Every family's cost falls as its base grows (each gap but the one cut
// at the horizon is a non-decreasing function of the base, so each poll
// time before the horizon is too, and the poll at the horizon stays), so
// the smallest such base is found by bisection over integer milliseconds and
// spends the budget as closely as the family allows: stuck polls within
// one poll of the target unless the family skips that count, and mean
// polls, on enough items, within a fraction of a percent.
//
// Jittered families are costed as ScoreSchedule scores them, as the mean
// over opt.Draws seeded draws (opt.Ages is ignored), so the figures Tune
// returns are those ScoreSchedule reports for the same opt. Each draw
// reuses its own random numbers whatever the base (see drawRand), and
// every kind of jitter is non-decreasing in the scheduled gap for fixed
// random numbers, so the jittered cost is monotone in the base too.
//
// items may be nil when t.MeanPolls is zero. The error wraps ErrBudget
// when even the sparsest member (one gap of the whole horizon) spends
// more than the target.
func Tune(f Family, horizon time.Duration, t Budget, items *Items, opt ScoreOptions) (Tuned, error) {
	if t.PollCost != 0 || t.validate() != nil {
		panic(fmt.Sprintf("optimize: Tune: want a stuck-poll or mean-poll budget, got %+v", t))
	}
	if t.MeanPolls > 0 && (items == nil || items.total == 0) {
		panic("optimize: Tune: a mean-polls target needs items")
	}
	eval := func(base time.Duration) Tuned {
		s := f.Schedule(base, horizon)
		stuck, mean := spend(s, items, opt)
		return Tuned{Schedule: s, Base: base, StuckPolls: stuck, MeanPolls: mean}
	}
	fits := func(r Tuned) bool {
		if t.StuckPolls > 0 && r.StuckPolls > float64(t.StuckPolls)+1e-9 {
			return false
		}
		if t.MeanPolls > 0 && r.MeanPolls > t.MeanPolls*(1+1e-12) {
			return false
		}
		return true
	}
	step := tuneStep(horizon)
	lo := f.minBase(horizon)
	hi := horizon.Truncate(step)
	if hi < lo {
		hi = lo
	}
	best := eval(hi)
	if !fits(best) {
		return best, fmt.Errorf("%w: family %s spends %.4g stuck polls and %.4g polls per item at its sparsest (one gap of %s), more than the target",
			ErrBudget, f.Name, best.StuckPolls, best.MeanPolls, FormatDuration(horizon))
	}
	// Halve down from the horizon to bracket the answer: costly dense
	// members (a 1ms base makes 900,000 polls over 15m) are never built
	// unless the budget asks for them.
	for {
		next := (hi / 2).Truncate(step)
		if next <= lo {
			if r := eval(lo); fits(r) {
				return r, nil
			}
			break
		}
		r := eval(next)
		if !fits(r) {
			lo = next
			break
		}
		hi, best = next, r
	}
	// Invariant: lo does not fit, hi fits.
	bisect := func(step time.Duration) {
		for hi-lo > step {
			mid := lo + ((hi - lo) / 2).Truncate(step)
			if mid == lo {
				mid += step
			}
			r := eval(mid)
			if fits(r) {
				hi, best = mid, r
			} else {
				lo = mid
			}
		}
	}
	bisect(step)
	// Small bases (dense budgets) move the cost by more than the
	// tolerance per millisecond: refine to the microsecond then.
	close := (t.StuckPolls == 0 || best.StuckPolls >= float64(t.StuckPolls)-1) &&
		(t.MeanPolls == 0 || best.MeanPolls >= t.MeanPolls*(1-MeanPollsTolerance))
	if !close {
		bisect(max(step/1000, 1))
	}
	return best, nil
}

// MeanPollsTolerance is how far below a mean-polls target Tune may land
// before it refines the base gap from milliseconds to microseconds.
const MeanPollsTolerance = 0.005

// spend returns the stuck cost and the mean polls per item of s on items
// (NaN without items), drawing jittered gaps exactly as ScoreSchedule does
// so that both report the same figures for the same options.
func spend(s Schedule, items *Items, opt ScoreOptions) (stuck, mean float64) {
	draws := 1
	if s.Jitter.Kind != NoJitter {
		draws = opt.Draws
		if draws <= 0 {
			draws = DefaultDraws
		}
	}
	var buf []time.Duration
	var seq []float64
	var polls float64
	for d := range draws {
		buf = s.AppendPolls(buf[:0], drawRand(s, opt.Seed, d))
		stuck += float64(len(buf))
		if items == nil || items.total == 0 {
			continue
		}
		seq = seq[:0]
		for _, p := range buf {
			seq = append(seq, p.Seconds())
		}
		_, _, ps := items.scoreSeq(seq)
		polls += ps
	}
	stuck /= float64(draws)
	if items == nil || items.total == 0 {
		return stuck, math.NaN()
	}
	return stuck, polls / (items.total * float64(draws))
}
