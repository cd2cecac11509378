package optimize

import (
	"errors"
	"fmt"
	"math"
)

// Budget is what a schedule may spend. Set StuckPolls, MeanPolls or both
// (then both hold), or PollCost alone; zero fields are unset.
type Budget struct {
	// StuckPolls bounds the polls an item that never settles makes
	// (every poll up to the horizon).
	StuckPolls int
	// MeanPolls bounds the expected polls per item (see
	// Expectation.MeanPolls); it is at least 1.
	MeanPolls float64
	// PollCost prices a poll instead of bounding polls: the solvers then
	// minimise E[lag] + PollCost·E[polls], PollCost in seconds of lag per
	// poll. This is the inspection cost ratio c1/c2 of Barlow, Hunter &
	// Proschan (1963), "Optimum checking procedures", J. SIAM 11(4).
	PollCost float64
}

// Cost returns what the solvers minimise under b for a schedule of
// expectation e, seconds of lag per item: E[lag; T ≤ H] + PollCost·E[polls]
// (e.TotalLag + b.PollCost·e.MeanPolls; Barlow, Hunter & Proschan 1963).
// Under a budget (PollCost 0) it is e.TotalLag, the lag alone: the polls
// are bounded, not priced.
func (b Budget) Cost(e Expectation) float64 { return e.TotalLag + b.PollCost*e.MeanPolls }

// Ratio returns how far a schedule of expectation e is from one of
// expectation opt (usually the exact optimum) on what the solvers
// minimise: under a budget the ratio of mean lags (both schedules poll at
// the horizon, so catch the same share and this is also the ratio of
// TotalLag); under PollCost the ratio of Cost, since a schedule that lags
// less by polling more may cost more. It is 1 when both are 0 and +Inf
// when only opt's is.
func (b Budget) Ratio(e, opt Expectation) float64 {
	return ratio(b.Objective(e), b.Objective(opt))
}

// Objective returns the value schedules compare on under b (see Ratio),
// seconds: e's mean lag under a budget, Cost(e) under a poll cost.
func (b Budget) Objective(e Expectation) float64 {
	if b.PollCost > 0 {
		return b.Cost(e)
	}
	return e.MeanLag
}

// Errors of the solvers; errors.Is finds them in what Exact, SqrtRule and
// Phased return.
var (
	ErrInvalidBudget = errors.New("invalid budget")
	ErrInfeasible    = errors.New("budget cannot be met")
)

func (b Budget) validate() error {
	switch {
	case b.StuckPolls < 0 || b.MeanPolls < 0 || b.PollCost < 0 || math.IsNaN(b.MeanPolls) || math.IsNaN(b.PollCost) ||
		math.IsInf(b.MeanPolls, 0) || math.IsInf(b.PollCost, 0):
		return fmt.Errorf("%w: stuck polls, mean polls and poll cost must be finite and not negative", ErrInvalidBudget)
	case b.PollCost > 0 && (b.StuckPolls > 0 || b.MeanPolls > 0):
		return fmt.Errorf("%w: a poll cost prices polls instead of a budget; give one or the other", ErrInvalidBudget)
	case b.PollCost == 0 && b.StuckPolls == 0 && b.MeanPolls == 0:
		return fmt.Errorf("%w: give a stuck-poll budget, a mean-poll budget or a poll cost", ErrInvalidBudget)
	}
	return nil
}

// outerTol bounds the relative width to which the outer multiplier of two
// budgets is narrowed: each of its steps is a whole search of the inner
// one, and where the expected polls jump past the budget between two
// multipliers (the path of Lagrangian solutions is a staircase), no width
// finds a solution in between; the tracker keeps the best met.
const outerTol = 1e-4

// meanTol is how close to the mean-poll budget the multiplier search gets
// before it stops: the budget is met to 0.5% when the Lagrangian path of
// schedules has a point there.
const meanTol = 0.005

// tieBreak is a negligible price per stuck poll (seconds of lag) that
// makes the solvers drop polls that buy nothing, such as polls after all
// the mass has settled when only expected polls are priced.
const tieBreak = 1e-9

// cand is one schedule found for multipliers (l1, l2), minimising
//
//	lag + l1·stuck polls + l2·expected polls
//
// over a solver's schedules; sol is the solver's own form of it.
type cand struct {
	lag, mean float64
	polls     int
	l1, l2    float64
	sol       any
	// near is the infeasible end of the last bracket of the multiplier
	// search: a solution at nearly the same multipliers spending a little
	// over the budget.
	near *cand
}

// lagrangian solves the relaxed problem for the given multipliers.
type lagrangian func(l1, l2 float64) cand

// tracker remembers the best schedule meeting the budget among all those
// a search evaluates. For Exact every Lagrangian solution is optimal for
// the budget it uses (Everett 1963, "Generalized Lagrange multiplier
// method", Oper. Res. 11(3)), so the last feasible one is the answer; for
// Phased the set of schedules is not convex and the best feasible one
// seen may beat it.
type tracker struct {
	b    Budget
	best *cand
}

func (t *tracker) feasible(c cand) bool {
	return (t.b.StuckPolls == 0 || c.polls <= t.b.StuckPolls) &&
		(t.b.MeanPolls == 0 || c.mean <= t.b.MeanPolls*(1+1e-12))
}

func (t *tracker) see(c cand) {
	if t.feasible(c) && (t.best == nil || c.lag < t.best.lag) {
		cc := c
		t.best = &cc
	}
}

// meetBudget searches the multipliers so that the solutions meet b, and
// returns the best schedule meeting it (from the tracker) and the
// multipliers at which the budget binds. guess1 and guess2 are first
// guesses of the stuck and mean multipliers (from the √ rule); each
// multiplier's bracket is narrowed to a relative width tol (see search1).
func meetBudget(solve lagrangian, b Budget, guess1, guess2, tol float64) (cand, error) {
	tr := &tracker{b: b}
	eval := func(l1, l2 float64) cand {
		c := solve(l1, l2)
		c.l1, c.l2 = l1, l2
		tr.see(c)
		return c
	}
	if b.PollCost > 0 {
		return eval(tieBreak, b.PollCost), nil
	}
	// stuckOnly brackets from the guess by factors of step: 8 from the √
	// rule's guess, less from a nearby solution's multiplier.
	stuckOnly := func(l2, guess, step float64) (cand, bool) {
		return search1(func(x float64) cand { return eval(x, l2) },
			func(c cand) float64 { return float64(c.polls) }, float64(b.StuckPolls),
			func(c cand) bool { return c.polls == b.StuckPolls }, guess, step, tol)
	}
	meanOnly := func(guess float64) (cand, bool) {
		return search1(func(x float64) cand { return eval(tieBreak, x) },
			func(c cand) float64 { return c.mean }, b.MeanPolls,
			func(c cand) bool { return c.mean >= b.MeanPolls*(1-meanTol) }, guess, 8, tol)
	}
	var res cand
	switch {
	case b.MeanPolls == 0:
		c, ok := stuckOnly(0, guess1, 8)
		if !ok {
			return c, fmt.Errorf("%w: stuck budget %d is below the fewest polls possible, %d (one at the horizon, and max gap apart)",
				ErrInfeasible, b.StuckPolls, c.polls)
		}
		res = c
	case b.StuckPolls == 0:
		c, ok := meanOnly(guess2)
		if !ok {
			return c, fmt.Errorf("%w: mean polls budget %.4g is below the least possible, %.4g (every item makes the first poll, and max gap adds more)",
				ErrInfeasible, b.MeanPolls, c.mean)
		}
		res = c
	default:
		cs, ok := stuckOnly(0, guess1, 8)
		if !ok {
			return cs, fmt.Errorf("%w: stuck budget %d is below the fewest polls possible, %d (one at the horizon, and max gap apart)",
				ErrInfeasible, b.StuckPolls, cs.polls)
		}
		if cs.mean <= b.MeanPolls {
			res = cs // the mean budget does not bind
			break
		}
		cm, ok := meanOnly(guess2)
		if !ok {
			return cm, fmt.Errorf("%w: mean polls budget %.4g is below the least possible, %.4g (every item makes the first poll, and max gap adds more)",
				ErrInfeasible, b.MeanPolls, cm.mean)
		}
		if cm.polls <= b.StuckPolls {
			res = cm // the stuck budget does not bind
			break
		}
		// Both bind: for each l2 find the l1 meeting the stuck budget; the
		// expected polls of that solution fall as l2 rises.
		// Each inner search starts from the last one's multiplier, which
		// the next l2 moves little: a bracket of ±25 % holds it.
		g1 := cs.l1
		c, ok := search1(func(x float64) cand {
			c, _ := stuckOnly(x, g1, 1.25)
			g1 = c.l1
			return c
		}, func(c cand) float64 { return c.mean }, b.MeanPolls,
			func(c cand) bool { return c.mean >= b.MeanPolls*(1-meanTol) }, cm.l2, 8, max(tol, outerTol))
		if !ok {
			return c, fmt.Errorf("%w: with at most %d stuck poll%s the expected polls cannot go below %.4g (budget %.4g)",
				ErrInfeasible, b.StuckPolls, pluralS(b.StuckPolls), c.mean, b.MeanPolls)
		}
		res = c
	}
	if tr.best != nil && tr.best.lag < res.lag {
		best := *tr.best
		best.l1, best.l2 = res.l1, res.l2 // the prices at which the budget binds
		return best, nil
	}
	return res, nil
}

// search1 finds a multiplier x > 0 with usage(eval(x)) ≤ target, as small
// as it can: usage falls as x rises (a higher price buys fewer polls). It
// brackets x from the guess by factors of step (8 from a rough guess),
// then narrows the bracket by
// regula falsi on log usage against log x (usage ∝ x^(−1/2) under the √
// rule), alternating with bisection of log x so that it always converges.
// It stops when done holds for the feasible end or the bracket's relative
// width is below tol: 1e-12 for Exact, whose every Lagrangian solution is
// optimal for its budget and ties must be found; coarser for Phased, whose
// local search spends what the multipliers leave. ok is false when even x = 1e15 does not meet the target;
// the result is then the solution there (the least usage possible).
func search1(eval func(float64) cand, usage func(cand) float64, target float64, done func(cand) bool, guess, step, tol float64) (cand, bool) {
	const xMin, xMax = 1e-15, 1e15
	if !(guess > xMin && guess < xMax) {
		guess = 1
	}
	x := guess
	c := eval(x)
	var lo, hi float64 // lo infeasible, hi feasible
	var cLo, cHi cand
	if usage(c) <= target {
		hi, cHi = x, c
		for {
			if done(cHi) {
				return cHi, true
			}
			x /= step
			if x < xMin {
				return cHi, true // the densest schedule fits
			}
			c = eval(x)
			if usage(c) > target {
				lo, cLo = x, c
				break
			}
			hi, cHi = x, c
		}
	} else {
		lo, cLo = x, c
		for {
			x *= step
			if x > xMax {
				return cLo, false
			}
			c = eval(x)
			if usage(c) <= target {
				hi, cHi = x, c
				break
			}
			lo, cLo = x, c
		}
	}
	for it := 0; it < 200 && !done(cHi) && hi/lo > 1+tol; it++ {
		llo, lhi := math.Log(lo), math.Log(hi)
		next := (llo + lhi) / 2
		ulo, uhi := usage(cLo), usage(cHi)
		if it%2 == 0 && uhi > 0 && ulo > uhi && target > 0 {
			f := (math.Log(ulo) - math.Log(target)) / (math.Log(ulo) - math.Log(uhi))
			f = math.Min(0.9, math.Max(0.1, f))
			next = llo + f*(lhi-llo)
		}
		x = math.Exp(next)
		c = eval(x)
		if usage(c) <= target {
			hi, cHi = x, c
		} else {
			lo, cLo = x, c
		}
	}
	cLo.near = nil
	cHi.near = &cLo
	return cHi, true
}

// pluralS is the "s" of a plural noun after the count n: "" for 1.
func pluralS(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
