package optimize

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"time"
)

// MaxPhases is the most phases Phased searches.
const MaxPhases = 8

// AutoRatio is how close to the exact optimum Phased with k = 0 must come:
// it returns the fewest phases whose mean lag (under a poll cost, whose
// Budget.Cost) is at most AutoRatio times the exact optimum's at the same
// budget.
const AutoRatio = 1.05

// AutoSlack is the least gain, as a share of the exact optimum's mean
// lag (or cost), that pays for one more phase: auto takes K−1 phases over the K
// that first comes within AutoRatio when K−1 is within AutoSlack of it.
// A fitted density is rarely right to 1% of the lag (its sampling error
// alone is about that on 10⁴ rows), so a smaller gain is as likely to be
// a loss on the next rows.
const AutoSlack = 0.01

// Phased returns the best schedule of at most k phases under budget b: a
// first poll "at S", then phases "every G until U" with G from o.NiceGaps
// within [MinGap, MaxGap], each ending at any of its polls (U is printed
// as the roundest age that says where; with o.NiceBounds, U is one of
// them, and a phase of one poll is a plain gap naming no U), and a
// closing gap to the horizon when the last phase does not land there;
// unless o.ConstantGaps, phases whose gap grows ("exp D xF cap C",
// "linear D+S") too. The closing gap is not counted as a phase
// (Schedule.PhaseCount). k = 0 means the fewest phases (up to MaxPhases)
// within AutoRatio of the exact optimum, or the best of MaxPhases when
// none is (compare Result.Expected with Result.Optimum). Gaps may shrink
// again after growing (deadlines).
//
// What is exact: for given Lagrange multipliers, the search over
// constant-gap phases is exact (see phaseSpace: a DP over (phases used,
// last poll) with separable phase costs along each gap's progressions).
// What is not: the multipliers are searched as for Exact, but the set of
// phased schedules is not convex, so the budget may fall between two
// Lagrangian solutions; a local search from the best few spends what is
// left, and finds the growing phases, starting from the best constant-gap
// schedules (Simplicity.Constant). Result.Optimum gives the exact optimum
// to compare.
//
// The expected figures are those of Schedule.Polls() on the model of Exact.
// Errors wrap ErrOptions, ErrInvalidBudget or ErrInfeasible.
func Phased(d Distribution, b Budget, k int, o Options) (*Result, error) {
	if err := checkPhases(k); err != nil {
		return nil, err
	}
	pr, err := prepare(d, b, o)
	if err != nil {
		return nil, err
	}
	return pr.phased(k)
}

func checkPhases(k int) error {
	if k < 0 || k > MaxPhases {
		return fmt.Errorf("%w: phases %d: want 0 (auto) to %d", ErrOptions, k, MaxPhases)
	}
	return nil
}

// Simplicity compares the best K-phase schedule with the exact optimum at
// the same budget.
type Simplicity struct {
	K       int     // phases
	MeanLag float64 // seconds, of the K-phase schedule
	// Ratio is Budget.Ratio of the K-phase schedule to the exact optimum:
	// MeanLag / the optimum's mean lag under a budget, and the ratio of
	// their Budget.Cost (lag plus PollCost per poll) under a poll cost; 1
	// when both are 0 (every item settles at a poll of each), +Inf when
	// only the optimum's is.
	Ratio  float64
	Result *Result // the schedule of at most K phases, as Phased returns it
	Err    error   // the budget cannot be met with K phases
	// Constant is the best schedule of at most K constant-gap phases
	// ("every G"), which Result improves on with growing phases unless
	// Options.ConstantGaps; ConstantRatio is its Budget.Ratio to the exact
	// optimum.
	Constant      *Result
	ConstantRatio float64
}

// PriceOfSimplicity returns, for K = 1 … MaxPhases, the mean lag of the
// best K-phase schedule (see Phased) and its ratio to the exact optimum
// at budget b (Budget.Ratio: of the cost under a poll cost).
func PriceOfSimplicity(d Distribution, b Budget, o Options) ([]Simplicity, error) {
	pr, err := prepare(d, b, o)
	if err != nil {
		return nil, err
	}
	return pr.priceOfSimplicity()
}

func (pr *problem) priceOfSimplicity() ([]Simplicity, error) {
	ex, err := pr.exact()
	if err != nil {
		return nil, err
	}
	sp, err := pr.space()
	if err != nil {
		return nil, err
	}
	return pr.simplicity(sp, ex, MaxPhases, false), nil
}

// simplicity runs the phased search for K = 1 … kmax, each K seeded with
// the best of fewer phases so that more phases are never worse; with
// stopNear it stops at the first K within AutoRatio of the exact optimum.
func (pr *problem) simplicity(sp *phaseSpace, ex *Result, kmax int, stopNear bool) []Simplicity {
	out := make([]Simplicity, 0, kmax)
	var prev, prevGrown *Result
	var fitted []Schedule // the exact optimum's gaps, fitted by growing phases
	for k := 1; k <= kmax; k++ {
		r, err := pr.phasedK(sp, k, ex, prev)
		s := Simplicity{K: k, Err: err, Result: r, Constant: r}
		if err == nil {
			prev = r
			s.ConstantRatio = pr.b.Ratio(r.Expected, ex.Expected)
			if !pr.o.ConstantGaps {
				seed := []Schedule{r.Schedule}
				if prevGrown != nil {
					seed = append(seed, prevGrown.Schedule)
				}
				if fitted == nil {
					fitted = append(sp.fitPhases(ex.Polls, MaxPhases, true), sp.fitPhases(ex.Polls, MaxPhases, false)...)
				}
				for _, f := range fitted { // k runs (then closed at the horizon)
					if len(f.Phases) == k {
						seed = append(seed, f)
					}
				}
				g := pr.result(sp.improveAll(seed, k, true, pr.b), ex)
				g.Lambda1, g.Lambda2, g.MarginalPrice, g.StuckPrice = r.Lambda1, r.Lambda2, r.MarginalPrice, r.StuckPrice
				if pr.b.Cost(g.Expected) < pr.b.Cost(r.Expected) {
					s.Result = g
				}
				prevGrown = s.Result
			}
			s.MeanLag = s.Result.Expected.MeanLag
			s.Ratio = pr.b.Ratio(s.Result.Expected, ex.Expected)
		}
		out = append(out, s)
		if stopNear && err == nil && s.Ratio <= AutoRatio {
			break
		}
	}
	return out
}

// result is the Result of phased schedule s, the exact optimum ex beside
// it; the multipliers are the caller's to set.
func (pr *problem) result(s Schedule, ex *Result) *Result {
	polls := s.Polls()
	return &Result{
		Method:   "phased",
		Schedule: s,
		Polls:    polls,
		Expected: pr.md.expect(polls),
		Optimum:  &ex.Expected,
		Phases:   s.PhaseCount(),
		Options:  pr.o,
	}
}

// PickPhases returns the schedule Phased returns for k phases (0: auto)
// from the price of simplicity: the best of at most k phases, or for auto
// the one of the fewest phases within AutoRatio of the exact optimum, and
// when none is, the one of the fewest phases within AutoRatio of the best
// of all (more phases would buy less than that). It returns the error of
// the last K when no K met the budget.
func PickPhases(simple []Simplicity, k int) (*Result, error) {
	var last *Result
	var lastErr error
	best := math.Inf(1)
	for _, s := range simple {
		if k > 0 && s.K > k {
			break
		}
		if s.Err != nil {
			lastErr = s.Err
			continue
		}
		last = s.Result
		if k == 0 && s.Ratio <= AutoRatio {
			return fewestNear(simple, s), nil
		}
		best = min(best, s.Ratio)
	}
	if last == nil {
		return nil, lastErr
	}
	if k == 0 {
		for _, s := range simple {
			if s.Err == nil && s.Ratio <= AutoRatio*best {
				return s.Result, nil
			}
		}
	}
	return last, nil
}

// fewestNear returns the schedule of the fewest phases, down from pick's,
// whose ratios are all within AutoSlack of pick's.
func fewestNear(simple []Simplicity, pick Simplicity) *Result {
	best := pick
	for i := len(simple) - 1; i >= 0; i-- {
		s := simple[i]
		if s.K >= pick.K {
			continue
		}
		if s.Err != nil || s.Ratio > pick.Ratio+AutoSlack {
			break
		}
		best = s
	}
	return best.Result
}

func ratio(a, b float64) float64 {
	if b == 0 {
		if a == 0 {
			return 1
		}
		return math.Inf(1)
	}
	return a / b
}

func (pr *problem) phased(k int) (*Result, error) {
	ex, err := pr.exact()
	if err != nil {
		return nil, err
	}
	sp, err := pr.space()
	if err != nil {
		return nil, err
	}
	kmax := k
	if k == 0 {
		kmax = MaxPhases
	}
	return PickPhases(pr.simplicity(sp, ex, kmax, k == 0), k)
}

// Relative widths to which the multiplier searches narrow their brackets
// (see search1): the exact optimum needs its ties found; a phased
// schedule's local search spends what is left of the budget, and its
// search costs a solve of the phased DP per step, nested for two budgets.
const (
	exactTol  = 1e-12
	phasedTol = 1e-4
)

// seeds is how many of the best feasible schedules of the Lagrangian
// search the local search starts from.
const seeds = 4

// phasedK returns the best schedule of at most k phases: the Lagrangian
// search, then a local search (see improve) from its best few feasible
// schedules and from prev, the best of fewer phases (nil if none).
func (pr *problem) phasedK(sp *phaseSpace, k int, ex *Result, prev *Result) (*Result, error) {
	g1, g2 := ex.Lambda1, ex.Lambda2
	s1, s2 := pr.guesses()
	if g1 == 0 {
		g1 = s1
	}
	if g2 == 0 {
		g2 = s2
	}
	tr := &tracker{b: pr.b}
	seen := map[string]cand{} // feasible schedules met, by spec
	solve := func(l1, l2 float64) cand {
		c := sp.solve(k, l1, l2)
		if tr.feasible(c) {
			seen[c.sol.(Schedule).String()] = c
		}
		return c
	}
	c, err := meetBudget(solve, pr.b, g1, g2, phasedTol)
	if err != nil {
		if prev != nil {
			return prev, nil
		}
		return nil, fmt.Errorf("%d phases: %w", k, err)
	}
	if pr.b.StuckPolls > 0 && pr.b.MeanPolls > 0 {
		c = scanDirections(solve, pr.b, c, g1, g2)
	}
	var starts []cand
	if tr.feasible(c) {
		starts = append(starts, c)
	}
	for _, v := range seen {
		starts = append(starts, v)
	}
	slices.SortFunc(starts, func(a, b cand) int { return cmp.Compare(a.lag, b.lag) })
	var seedSch []Schedule
	for _, v := range starts {
		if len(seedSch) == seeds {
			break
		}
		if sch := v.sol.(Schedule); !slices.ContainsFunc(seedSch, func(o Schedule) bool { return o.String() == sch.String() }) {
			seedSch = append(seedSch, sch)
		}
	}
	if prev != nil {
		seedSch = append(seedSch, prev.Schedule)
	}
	s := sp.merge(c.sol.(Schedule))
	if len(seedSch) > 0 {
		s = sp.improveAll(seedSch, k, false, pr.b)
	}
	r := pr.result(s, ex)
	pr.setPrices(r, c)
	return r, nil
}

// scanDirections narrows the duality gap of the phased search under two
// budgets: the multiplier search walks one path of (λ1, λ2), but each
// ratio λ1:λ2 reaches other schedules on the boundary of the budget. For
// ratios u:(1−u), u = 0, 1/4, …, 1 (scaled by the guesses g1, g2), it
// finds the smallest scale meeting the budget by bisection and keeps the
// best schedule met anywhere.
func scanDirections(solve lagrangian, b Budget, c cand, g1, g2 float64) cand {
	tr := &tracker{b: b}
	tr.see(c)
	g1, g2 = max(g1, tieBreak), max(g2, tieBreak)
	for i := 0; i <= 4; i++ {
		u := float64(i) / 4
		eval := func(s float64) cand {
			return solve(max(s*u*g1, tieBreak), s*(1-u)*g2)
		}
		usage := func(c cand) float64 {
			// The larger of the two spends relative to their budgets.
			return max(float64(c.polls)/float64(b.StuckPolls), c.mean/b.MeanPolls)
		}
		r, ok := search1(func(s float64) cand { c := eval(s); tr.see(c); return c }, usage, 1,
			func(c cand) bool { return usage(c) >= 1-meanTol }, 1, 8, phasedTol)
		if ok {
			tr.see(r)
		}
	}
	best := *tr.best
	best.l1, best.l2 = c.l1, c.l2 // the prices at which the budget binds
	return best
}

// merge joins consecutive phases with the same gap: "every G until U1,
// every G until U2" (or "G, every G until U2") polls exactly as "every G
// until U2", since both continue the same progression from the same poll.
// With bounds it keeps them apart when U2 is not one of them (the second
// is a plain gap written as a phase, see repeating): the joined phase
// would end where no bound allows.
func (sp *phaseSpace) merge(s Schedule) Schedule {
	h := time.Duration(sp.end) * sp.res
	var out []Phase
	for _, p := range s.Phases {
		if n := len(out); n > 0 && p.Growth == Fixed && out[n-1].Gap == p.Gap && (out[n-1].Growth == Fixed || out[n-1].Growth == Once) &&
			(sp.bounds == nil || p.Until == h || p.Until%sp.res == 0 && slices.Contains(sp.bounds, int(p.Until/sp.res))) {
			out[n-1].Growth, out[n-1].Until = Fixed, p.Until
			continue
		}
		out = append(out, p)
	}
	s.Phases = out
	return s
}
