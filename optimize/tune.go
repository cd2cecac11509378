package optimize

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// Tuned is a family member tuned to a budget.
type Tuned struct {
	Schedule Schedule
	// Family is the member's shape: the family tuned, with the parameters
	// Tune freed (Cap, Factor, Exponent, StepRatio, MinGap) set.
	Family     Family
	Base       time.Duration // the base gap found
	StuckPolls float64       // stuck cost; the mean over the draws when jittered
	MeanPolls  float64       // polls per item on the items; NaN without items
	MeanLag    float64       // mean lag of the items caught, seconds; NaN without items
	// Freed says in words how the member differs from the shape as
	// written beyond its base gap ("factor 1.1, cap 4.2s, base held at
	// the min gap 500ms"); "" for the shape as written.
	Freed string
	// BelowMinGap is set when the member's base gap is below the family's
	// MinGap (down to its LeastGap): no member with gaps of MinGap or
	// more spends the budget.
	BelowMinGap bool
	// Short says in words why the member spends less than the budget by
	// more than SpendTolerance ("" when it spends it): the family is then
	// not at the same cost as the schedules tuned to the budget.
	Short string

	x time.Duration // the parameter Tune's search set: the base or the cap
}

// SpendTolerance is how far below its budget a schedule may spend and
// still be compared at the same cost: 1%.
const SpendTolerance = 0.01

// Spent reports whether stuck and mean polls spend budget t: at most t
// (its stuck polls, its mean polls, whichever it holds), and at least
// 1 − SpendTolerance of one of them. With both, the budget binds one of
// them, as it binds the optimum: the other is a limit that the
// schedule's best use of the first does not reach.
func Spent(t Budget, stuck, mean float64) bool {
	const tol = 1e-9
	if t.StuckPolls > 0 && stuck > float64(t.StuckPolls)+tol {
		return false
	}
	if t.MeanPolls > 0 && !(mean <= t.MeanPolls*(1+tol)) {
		return false
	}
	return t.StuckPolls > 0 && stuck >= (1-SpendTolerance)*float64(t.StuckPolls)-tol ||
		t.MeanPolls > 0 && mean >= (1-SpendTolerance)*t.MeanPolls
}

// ErrBudget is wrapped by Tune's errors when no member of a family can
// spend the target budget.
var ErrBudget = errors.New("budget out of reach")

// Tune finds the member of f that spends the budget t over the horizon
// (t.PollCost must be zero: a family is tuned to a budget, not a price)
// with the least mean lag on items: the family's best at that cost, tuned
// over all its parameters, so that a comparison with it is a comparison
// with the best the family can do.
//
// A member spends the budget when it spends no more than t and within
// SpendTolerance of it (see Spent). For each growth, the family's own and
// gentler ones (Family.gentler: exp ×1.5, 1.25, 1.1, 1.05, 1.02; poly ^2,
// 1, 0.5, 0.25; linear steps of 1, 0.5, 0.2, 0.1, 0.05 bases; fixed and
// fib have none), Tune searches two ways:
//
//   - the shape's own cap ratio and the smallest base gap of at least
//     f.MinGap whose cost fits the budget, by bisection: every family's
//     cost falls as its base grows (each gap but the one cut at the
//     horizon is a non-decreasing function of the base, so each poll
//     time before the horizon is too, and the poll at the horizon stays);
//   - the base at f.MinGap and the smallest cap apart from it that fits
//     (Family.Cap), by bisection too: the cost falls as the cap grows.
//     This is how the families spend budgets their shape as written
//     cannot: the default caps of 30 bases make few polls at a 500 ms
//     base (exp spends 48 over 10 minutes).
//
// Bases and caps are whole milliseconds (whole steps of a power of ten at
// most horizon/10⁴ for horizons under 10 s), refined to a thousandth of
// the step (at least 1 ns) when a step moves the cost by more than one
// stuck poll or MeanPollsTolerance of the mean. Of the members found that
// spend the budget, the one of least mean lag on items is kept (without
// items, the first: the shape as written when it spends the budget).
// When none does, the same searches run with bases down to f.LeastGap
// (Tuned.BelowMinGap); when none does still, Tune returns the member that
// spends most, saying why it falls short (Tuned.Short). Tuned.Freed says
// how the member differs from the shape as written.
//
// Jittered families are costed as ScoreSchedule scores them, as the mean
// over opt.Draws seeded draws (opt.Ages is ignored), so the figures Tune
// returns are those ScoreSchedule reports for the same opt. Each draw
// reuses its own random numbers whatever the base (see drawRand), and
// every kind of jitter is non-decreasing in the scheduled gap for fixed
// random numbers, so the jittered cost is monotone in the base and the
// cap too. The searches cost jittered members with searchDraws draws, and
// the one kept is searched again with all of them.
//
// items may be nil when t.MeanPolls is zero. The error wraps ErrBudget
// when even the sparsest member of the shape as written (one gap of the
// whole horizon) spends more than the target.
func Tune(f Family, horizon time.Duration, t Budget, items *Items, opt ScoreOptions) (Tuned, error) {
	if t.PollCost != 0 || t.validate() != nil {
		panic(fmt.Sprintf("optimize: Tune: want a stuck-poll or mean-poll budget, got %+v", t))
	}
	if t.MeanPolls > 0 && (items == nil || items.total == 0) {
		panic("optimize: Tune: a mean-polls target needs items")
	}
	tn := tuner{horizon: horizon, t: t, items: items, opt: opt, step: tuneStep(horizon)}
	// Jittered members are searched with searchDraws draws; the member
	// kept is searched again with all of them, from what the search
	// found.
	fast := tn
	if f.Jitter.Kind != NoJitter && tn.draws() > searchDraws {
		fast.opt.Draws = searchDraws
	}
	if sparse, err := tn.sparsest(f); err != nil {
		return sparse, err
	}
	least := f.minBase(horizon)
	lower := f.LeastGap > 0 && f.LeastGap < f.MinGap
	floor := f
	floor.MinGap = f.LeastGap
	// Each way of tuning is a search of its own (a recipe) of one
	// parameter, the base or the cap, which it records in Tuned.x; hint
	// is where to start. Of the members they find that spend the budget,
	// the one of least mean lag is kept.
	type recipe func(tn *tuner, hint time.Duration) (Tuned, bool)
	byBase := func(g Family) recipe {
		return func(tn *tuner, hint time.Duration) (Tuned, bool) {
			c := tn.byBase(g, hint)
			c.Freed = freedText(f, g, c.Base, false)
			return c, tn.fits(c)
		}
	}
	capped := func(g Family, base time.Duration) recipe {
		return func(tn *tuner, hint time.Duration) (Tuned, bool) {
			c := tn.capped(g, base, hint)
			c.Freed = freedText(f, c.Family, base, true)
			return c, tn.fits(c)
		}
	}
	// First with gaps of f.MinGap or more, as the schedules compared are
	// held to it: each growth (as written, then gentler ones) with its own
	// cap ratio and the base found by bisection, and with the base at the
	// min gap and a cap apart from it. Then, when none of those spends the
	// budget, the same with bases down to the least gap.
	var first, then []recipe
	for _, g := range f.gentler() {
		first = append(first, byBase(g))
		if g.Growth != Fixed {
			first = append(first, capped(g, least))
		}
	}
	if lower {
		fl := floor.minBase(horizon)
		for _, g := range floor.gentler() {
			then = append(then, byBase(g))
			if g.Growth != Fixed {
				then = append(then, capped(g, fl))
			}
		}
	}
	var written, densest Tuned // the shape as written; the member that spends most
	search := func(tn *tuner, rs []recipe) (best Tuned, at int, found bool) {
		for i, rc := range rs {
			c, ok := rc(tn, 0)
			if written.Schedule.Phases == nil {
				written = c // first of all: f by its base
			}
			switch {
			case !ok:
			case !tn.spent(c):
				if densest.Schedule.Phases == nil || tn.fill(c) > tn.fill(densest) {
					densest = c
				}
			case !found || better(c, best):
				best, at, found = c, i, true
			}
		}
		return best, at, found
	}
	for i, rs := range [][]recipe{first, then} {
		c, at, ok := search(&fast, rs)
		if ok && fast.opt.Draws != tn.opt.Draws {
			if c, ok = rs[at](&tn, c.x); !ok || !tn.spent(c) {
				// The draws disagree near the budget: all of them, each
				// recipe.
				c, _, ok = search(&tn, rs)
			}
		}
		if ok {
			c.BelowMinGap = i > 0
			return c, nil
		}
	}
	// None spends the budget: the member that spends most, costed with
	// all the draws.
	best := tn.eval(densest.Family, densest.Base)
	best.Freed = densest.Freed
	if written.Base > least {
		// The shape as written skips the count near the budget.
		denser := tn.eval(f, written.Base-max(tn.step/1000, 1))
		best.Short = fmt.Sprintf("no member spends within %g%% of %s: one spends %s, the next denser %s", 100*SpendTolerance, tn.target(), tn.spendText(best), tn.spendText(denser))
		return best, nil
	}
	if lower {
		least = floor.minBase(horizon)
	}
	best.Short = fmt.Sprintf("spends %s of %s even at its densest, with gaps from %s", tn.spendText(best), tn.target(), FormatDuration(least))
	if f.Jitter.Kind == DecorrelatedJitter {
		best.Short += " (decorrelated jitter draws gaps of up to 3 times the scheduled one)"
	}
	return best, nil
}

// searchDraws is the number of draws Tune costs jittered members with
// while it searches their freed parameters (see Tune); the member found is
// costed with all of them.
const searchDraws = 16

// draws returns the number of draws a jittered member is costed with.
func (tn *tuner) draws() int {
	if tn.opt.Draws > 0 {
		return tn.opt.Draws
	}
	return DefaultDraws
}

// tuner holds what Tune's searches share.
type tuner struct {
	horizon time.Duration
	t       Budget
	items   *Items
	opt     ScoreOptions
	step    time.Duration // the grain of bases and caps (tuneStep)
}

// eval builds and costs the member of f with the given base.
func (tn *tuner) eval(f Family, base time.Duration) Tuned {
	s := f.Schedule(base, tn.horizon)
	stuck, mean, lag := spend(s, tn.items, tn.opt)
	return Tuned{Schedule: s, Family: f, Base: base, StuckPolls: stuck, MeanPolls: mean, MeanLag: lag}
}

// fits reports whether r spends at most the budget.
func (tn *tuner) fits(r Tuned) bool {
	if tn.t.StuckPolls > 0 && r.StuckPolls > float64(tn.t.StuckPolls)+1e-9 {
		return false
	}
	if tn.t.MeanPolls > 0 && r.MeanPolls > tn.t.MeanPolls*(1+1e-12) {
		return false
	}
	return true
}

func (tn *tuner) spent(r Tuned) bool { return Spent(tn.t, r.StuckPolls, r.MeanPolls) }

// fill is the share of the budget r spends: the larger of its shares of
// the stuck and the mean polls given.
func (tn *tuner) fill(r Tuned) float64 {
	var s float64
	if tn.t.StuckPolls > 0 {
		s = r.StuckPolls / float64(tn.t.StuckPolls)
	}
	if tn.t.MeanPolls > 0 && !math.IsNaN(r.MeanPolls) {
		s = max(s, r.MeanPolls/tn.t.MeanPolls)
	}
	return s
}

// close reports whether r is within the refinement tolerances of the
// budget: one stuck poll, MeanPollsTolerance of the mean polls.
func (tn *tuner) close(r Tuned) bool {
	return (tn.t.StuckPolls == 0 || r.StuckPolls >= float64(tn.t.StuckPolls)-1) &&
		(tn.t.MeanPolls == 0 || r.MeanPolls >= tn.t.MeanPolls*(1-MeanPollsTolerance))
}

// target writes the budget: "152 stuck polls", "10 mean polls".
func (tn *tuner) target() string {
	var parts []string
	if n := tn.t.StuckPolls; n > 0 {
		parts = append(parts, fmt.Sprintf("%d stuck polls", n))
	}
	if m := tn.t.MeanPolls; m > 0 {
		parts = append(parts, fmt.Sprintf("%.4g mean polls", m))
	}
	return strings.Join(parts, " and ")
}

// spendText writes what r spends of the budget's kinds: "50", "9.8".
func (tn *tuner) spendText(r Tuned) string {
	var parts []string
	if tn.t.StuckPolls > 0 {
		parts = append(parts, fmt.Sprintf("%.4g", r.StuckPolls))
	}
	if tn.t.MeanPolls > 0 {
		parts = append(parts, fmt.Sprintf("%.4g", r.MeanPolls))
	}
	return strings.Join(parts, " and ")
}

// sparsest returns the sparsest member of f, one gap of the whole
// horizon, and an error wrapping ErrBudget when it spends more than the
// budget.
func (tn *tuner) sparsest(f Family) (Tuned, error) {
	lo := f.minBase(tn.horizon)
	hi := max(tn.horizon.Truncate(tn.step), lo)
	r := tn.eval(f, hi)
	if !tn.fits(r) {
		return r, fmt.Errorf("%w: family %s spends %.4g stuck polls and %.4g polls per item at its sparsest (one gap of %s), more than the target",
			ErrBudget, f.Name, r.StuckPolls, r.MeanPolls, FormatDuration(tn.horizon))
	}
	return r, nil
}

// byBase returns the member of f with the smallest base, of at least
// f.MinGap, whose cost fits the budget (see Tune), or the sparsest member
// when even that spends more; hint, when positive, is where the search
// starts.
func (tn *tuner) byBase(f Family, hint time.Duration) Tuned {
	eval := func(base time.Duration) Tuned {
		r := tn.eval(f, base)
		r.x = base
		return r
	}
	lo := f.minBase(tn.horizon)
	hi := max(tn.horizon.Truncate(tn.step), lo)
	atHi := eval(hi)
	if !tn.fits(atHi) {
		return atHi
	}
	return tn.least(lo, hi, atHi, eval, hint)
}

// least returns eval(x) for the smallest x in [lo, hi], in whole steps,
// whose cost fits the budget, given atHi = eval(hi) that fits; the cost
// falls as x grows. When a step moves the cost by more than the
// refinement tolerances, x is refined to a thousandth of the step. A
// hint in (lo, hi) is where the answer is likely: the bracket grows from
// it in doubling strides.
func (tn *tuner) least(lo, hi time.Duration, atHi Tuned, eval func(time.Duration) Tuned, hint time.Duration) Tuned {
	step := tn.step
	best := atHi
	if hint > lo && hint < hi {
		x := max(hint.Truncate(step), lo+step)
		stride := max(x/256, step).Truncate(step)
		if r := eval(x); tn.fits(r) {
			hi, best = x, r
			for {
				next := hi - stride
				if next <= lo {
					if r := eval(lo); tn.fits(r) {
						return r
					}
					break
				}
				r := eval(next)
				if !tn.fits(r) {
					lo = next
					break
				}
				hi, best = next, r
				stride *= 2
			}
		} else {
			lo = x
			for {
				next := lo + stride
				if next >= hi {
					break
				}
				r := eval(next)
				if tn.fits(r) {
					hi, best = next, r
					break
				}
				lo = next
				stride *= 2
			}
		}
		return tn.bisect(lo, hi, best, eval)
	}
	// Halve down from hi to bracket the answer: costly dense members (a
	// 1ms base makes 900,000 polls over 15m) are never built unless the
	// budget asks for them.
	for {
		next := (hi / 2).Truncate(step)
		if next <= lo {
			if r := eval(lo); tn.fits(r) {
				return r
			}
			break
		}
		r := eval(next)
		if !tn.fits(r) {
			lo = next
			break
		}
		hi, best = next, r
	}
	return tn.bisect(lo, hi, best, eval)
}

// bisect returns eval(x) for the smallest x in (lo, hi] whose cost fits,
// given that lo does not fit and hi does (best = eval(hi)), in whole steps
// (see least).
func (tn *tuner) bisect(lo, hi time.Duration, best Tuned, eval func(time.Duration) Tuned) Tuned {
	bisect := func(step time.Duration) {
		for hi-lo > step {
			mid := lo + ((hi - lo) / 2).Truncate(step)
			if mid == lo {
				mid += step
			}
			r := eval(mid)
			if tn.fits(r) {
				hi, best = mid, r
			} else {
				lo = mid
			}
		}
	}
	bisect(tn.step)
	// Small values (dense budgets) move the cost by more than the
	// tolerance per step: refine to the thousandth then.
	if !tn.close(best) {
		bisect(max(tn.step/1000, 1))
	}
	return best
}

// capped returns the member of f with the base held at base and the
// smallest cap apart from it (Family.Cap, in whole steps) whose cost fits
// the budget: the cost falls as the cap grows. When even the cap of the
// whole horizon spends more, it returns that member, which does not fit.
func (tn *tuner) capped(f Family, base, hint time.Duration) Tuned {
	eval := func(c time.Duration) Tuned {
		g := f
		g.Cap = c
		r := tn.eval(g, base)
		r.x = c
		return r
	}
	hi := max(tn.horizon, base)
	atHi := eval(hi)
	if !tn.fits(atHi) {
		return atHi
	}
	return tn.least(base, hi, atHi, eval, hint)
}

// better reports whether tuned member a lags less than b on the items
// (never without items: the first found stays).
func better(a, b Tuned) bool {
	return !math.IsNaN(a.MeanLag) && (math.IsNaN(b.MeanLag) || a.MeanLag < b.MeanLag)
}

// gentler returns f and the gentler growths Tune tries (see Tune): f
// first.
func (f Family) gentler() []Family {
	out := []Family{f}
	add := func(set func(*Family) bool) {
		g := f
		if set(&g) {
			out = append(out, g)
		}
	}
	switch f.Growth {
	case Linear:
		cur := f.StepRatio
		if cur <= 0 {
			cur = 1
		}
		for _, r := range []float64{0.5, 0.2, 0.1, 0.05} {
			add(func(g *Family) bool { g.StepRatio = r; return r < cur })
		}
	case Exponential:
		for _, x := range []float64{1.25, 1.1, 1.05, 1.02} {
			add(func(g *Family) bool { g.Factor = x; return x < f.Factor })
		}
	case Polynomial:
		for _, e := range []float64{1, 0.5, 0.25} {
			add(func(g *Family) bool { g.Exponent = e; return e < f.Exponent })
		}
	}
	return out
}

// freedText says what member g of family f with the given base changed
// from f as written: "cap 4.2s, factor 1.25, base held at the min gap
// 500ms" (held: the base is f's least) or "base 52ms, below the min gap
// 500ms".
func freedText(f, g Family, base time.Duration, held bool) string {
	var parts []string
	if g.Cap > 0 {
		parts = append(parts, "cap "+FormatDuration(g.Cap))
	}
	num := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	if g.Factor != f.Factor {
		parts = append(parts, "factor "+num(g.Factor))
	}
	if g.Exponent != f.Exponent {
		parts = append(parts, "exponent "+num(g.Exponent))
	}
	if g.StepRatio != f.StepRatio {
		parts = append(parts, "step "+num(g.StepRatio)+" bases")
	}
	switch {
	case base < f.MinGap:
		parts = append(parts, fmt.Sprintf("base %s, below the min gap %s", FormatDuration(base), FormatDuration(f.MinGap)))
	case held:
		parts = append(parts, "base held at the min gap "+FormatDuration(base))
	}
	return strings.Join(parts, ", ")
}

// MeanPollsTolerance is how far below a mean-polls target Tune may land
// before it refines the base gap from milliseconds to microseconds.
const MeanPollsTolerance = 0.005

// spend returns the stuck cost, the mean polls per item of s on items and
// the mean lag of the items caught, seconds (both NaN without items),
// drawing jittered gaps exactly as ScoreSchedule does so that both report
// the same figures for the same options.
func spend(s Schedule, items *Items, opt ScoreOptions) (stuck, mean, lag float64) {
	draws := 1
	if s.Jitter.Kind != NoJitter {
		draws = opt.Draws
		if draws <= 0 {
			draws = DefaultDraws
		}
	}
	var buf []time.Duration
	var seq []float64
	var polls, caught, lags float64
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
		c, l, ps := items.scoreSeq(seq)
		polls += ps
		caught += c
		lags += l
	}
	stuck /= float64(draws)
	if items == nil || items.total == 0 {
		return stuck, math.NaN(), math.NaN()
	}
	lag = math.NaN()
	if caught > 0 {
		lag = lags / caught
	}
	return stuck, polls / (items.total * float64(draws)), lag
}
