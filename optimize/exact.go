package optimize

import (
	"fmt"
	"math"
	"slices"
	"time"
)

// Result is a schedule a solver derived, with its expected figures.
type Result struct {
	Method   string // "exact", "sqrt" or "phased"
	Schedule Schedule
	Polls    []time.Duration // Schedule.Polls(), the last at the horizon
	Expected Expectation
	// Lambda1 and Lambda2 are the Lagrange multipliers of the stuck and
	// the expected polls at the solution, in seconds of E[lag; T ≤ H] per
	// poll: the objective minimised is
	//
	//	E[lag; T ≤ H] + Lambda1·stuck polls + Lambda2·expected polls.
	//
	// A budget that does not bind has multiplier 0; with Budget.PollCost,
	// Lambda2 = PollCost.
	Lambda1, Lambda2 float64
	// MarginalPrice is Lambda2/F(H): the seconds of mean lag (of items
	// settling by the horizon H) that one more expected poll per item
	// buys, near the solution. StuckPrice is Lambda1/F(H), the same for
	// one more stuck poll.
	MarginalPrice, StuckPrice float64
	// Optimum is, for SqrtRule and Phased, the exact optimum at the same
	// budget, for comparison; nil for Exact.
	Optimum *Expectation
	// Phases is the number of phases of a Phased schedule.
	Phases int
	// Options are the settings the solver used, every default resolved
	// (see Options.Resolve).
	Options  Options
	Warnings []string
}

// Exact returns the schedule with the least expected lag under budget b,
// polling at multiples of o.Resolution, and at the horizon: the first poll
// may be at age 0 or later, whichever is better.
//
// The model reads d at every grid point (right limit and left limit, so
// atoms at grid points are kept) and takes the CDF linear in between. The
// lag of the items caught at poll b after poll a is then
//
//	w(a, b) = ∫_a^b (F(t) − F(a)) dt,
//
// O(1) from prefix sums of F, and w has the Monge (quadrangle) property:
// for a < b < c < d,
//
//	w(a,c) + w(b,d) − w(a,d) − w(b,c) = −(t_d − t_c)(F(b) − F(a)) ≤ 0.
//
// The budget is relaxed with Lagrange multipliers λ1 (per stuck poll) and
// λ2 (per expected poll: the poll at t_j after one at t_i is made with
// probability P(T > t_i)), leaving the 1D/1D recurrence
//
//	D[j] = min_i D[i] + w(i, j) + λ2·P(T > t_i) + λ1
//
// (the term in i alone keeps the Monge property)
// whose best predecessor moves monotonically with j; it is solved in
// O(m log m) for m grid points by the candidate queue with binary search
// (Galil & Park 1990, "A linear-time algorithm for concave one-dimensional
// dynamic programming", IPL 33; Hirschberg & Larmore 1987). MinGap delays
// each candidate's entry into the queue, MaxGap makes w infinite beyond it,
// which keeps the Monge property. The multipliers are searched (search1)
// until the stuck budget is met exactly (or to one poll when a price sits
// on a tie) and the mean budget to 0.5%; every solution is optimal for the
// budget it spends (Everett 1963), and the stuck-poll optimum is convex in
// the number of polls for Monge weights (Aggarwal, Schieber & Tokuyama
// 1994), so no stuck budget is missed. Both budgets at once are met by
// nested searches, λ2 outside, λ1 inside.
//
// Errors wrap ErrOptions, ErrInvalidBudget or ErrInfeasible (with the feasible
// range in the message).
func Exact(d Distribution, b Budget, o Options) (*Result, error) {
	pr, err := prepare(d, b, o)
	if err != nil {
		return nil, err
	}
	return pr.exact()
}

// problem is the prepared input shared by the solvers.
type problem struct {
	md *model
	b  Budget
	o  Options
	// exactRes caches the exact optimum for the comparisons.
	exactRes *Result
	// shared is the phased search's space, which no budget enters (see
	// Problem.WithBudget).
	shared *spaceOnce
}

func prepare(d Distribution, b Budget, o Options) (*problem, error) {
	if err := b.validate(); err != nil {
		return nil, err
	}
	o, err := o.Resolve(d)
	if err != nil {
		return nil, err
	}
	md, err := newModel(d, o.Horizon, o.Resolution)
	if err != nil {
		return nil, err
	}
	return &problem{md: md, b: b, o: o}, nil
}

// gaps returns MinGap and MaxGap in grid cells for the exact DP (MinGap at
// least one cell, MaxGap 0 for none).
func (pr *problem) gaps(minGap time.Duration) (lo, hi int, err error) {
	res := pr.o.Resolution
	lo = int((minGap + res - 1) / res)
	lo = max(lo, 1)
	if pr.o.MaxGap > 0 {
		hi = int(pr.o.MaxGap / res)
		if hi < lo {
			return 0, 0, fmt.Errorf("%w: no multiple of the resolution %s lies between min gap %s and max gap %s", ErrOptions,
				FormatDuration(res), FormatDuration(minGap), FormatDuration(pr.o.MaxGap))
		}
	}
	return lo, hi, nil
}

// guesses returns the multipliers the √ rule predicts for the budget:
// with rate r = √(f/(2λ)) the stuck polls are ∫√(f/(2λ)) dt, so
// λ1 = (∫√f)²/(2N²); with r = √(f/(2λS)) the expected polls are
// ∫√(fS/(2λ)) dt, so λ2 = (∫√(fS))²/(2M²).
func (pr *problem) guesses() (g1, g2 float64) {
	md := pr.md
	var sf, sfs float64
	for k := 1; k < md.n(); k++ {
		mass := md.F[k] - md.F[k-1]
		sf += math.Sqrt(mass * md.res)
		sfs += math.Sqrt(mass * md.res * (1 - md.F[k]))
	}
	if n := float64(pr.b.StuckPolls); n > 0 {
		g1 = sf * sf / (2 * n * n)
	}
	if m := pr.b.MeanPolls; m > 0 {
		g2 = sfs * sfs / (2 * m * m)
	}
	return g1, g2
}

func (pr *problem) exact() (*Result, error) {
	if pr.exactRes != nil {
		return pr.exactRes, nil
	}
	lo, hi, err := pr.gaps(pr.o.MinGap)
	if err != nil {
		return nil, err
	}
	dp := newMongeDP(pr.md, lo, hi)
	g1, g2 := pr.guesses()
	c, err := meetBudget(func(l1, l2 float64) cand {
		p := dp.solve(l1, l2)
		return cand{lag: p.lag, mean: p.mean, polls: p.polls, sol: p.idx}
	}, pr.b, g1, g2, exactTol)
	if err != nil {
		return nil, err
	}
	idx := c.sol.([]int)
	if c.near != nil && !pr.spent(c) {
		idx = pr.splice(idx, c.near.sol.([]int))
	}
	polls := make([]time.Duration, len(idx))
	for i, k := range idx {
		polls[i] = time.Duration(k) * pr.o.Resolution
	}
	r := &Result{
		Method:   "exact",
		Schedule: FromPolls(polls),
		Polls:    polls,
		Expected: pr.md.expectIdx(idx),
		Options:  pr.o,
	}
	pr.setPrices(r, c)
	pr.exactRes = r
	return r, nil
}

func (pr *problem) setPrices(r *Result, c cand) {
	if c.l1 > tieBreak {
		r.Lambda1 = c.l1
	}
	r.Lambda2 = c.l2
	if fh := pr.md.fh; fh > 0 {
		r.MarginalPrice = r.Lambda2 / fh
		r.StuckPrice = r.Lambda1 / fh
	}
}

// mongeDP holds the work arrays of the recurrence, reused across
// multipliers.
type mongeDP struct {
	md             *model
	minGap, maxGap int     // cells; maxGap 0 means none
	l2             float64 // price of a poll made, in val
	D              []float64
	// A[x] = D_x − G(t_x) + t_x·F(t_x) + λ2·(1 − F(t_x)), set when x
	// becomes a candidate: val(x, j) = A[x] + G(t_j) − t_j·F(t_x).
	A      []float64
	par    []int32 // best predecessor; −1 creation, −2 unreachable
	qc, qs []int32 // queue: candidate, first index where it is best
}

func newMongeDP(md *model, minGap, maxGap int) *mongeDP {
	n := md.n()
	return &mongeDP{md: md, minGap: minGap, maxGap: maxGap,
		D: make([]float64, n), A: make([]float64, n), par: make([]int32, n),
		qc: make([]int32, 0, n), qs: make([]int32, 0, n)}
}

// val is the cost of reaching poll j from candidate i, +Inf beyond
// MaxGap: D_i + w(i, j) + λ2·P(T > t_i), as A[i] + G(t_j) − t_j·F(t_i).
func (dp *mongeDP) val(i, j int) float64 {
	if dp.maxGap > 0 && j-i > dp.maxGap {
		return math.Inf(1)
	}
	md := dp.md
	return dp.A[i] + md.G[j] - md.t[j]*md.F[i]
}

// takeover returns the first p ≥ from at which candidate i beats b, the
// queue's last, val(i, p) ≤ val(b, p); n when it never does. Within
// MaxGap, val(x, p) = A_x + G(t_p) − t_p·F(t_x) with A_x = D_x − G(t_x) +
// t_x·F(t_x) + λ2·(1 − F(t_x)): lines in t_p whose slopes −F(t_x) fall as
// x grows (the convex hull trick of the 1D/1D recurrence), so
// val(i, p) − val(b, p) = (A_i − A_b) − t_p·(F_i − F_b) falls with p and
// the crossing is read off the two lines, then checked on val itself
// (rounding moves it by a cell at most): O(1) instead of a binary search
// of log₂ m steps, which made this DP the cost of plan at a 1 ms grid.
func (dp *mongeDP) takeover(i, b, from int) int {
	md := dp.md
	n := md.n()
	if from >= n {
		return n
	}
	dA, dF := dp.A[i]-dp.A[b], md.F[i]-md.F[b]
	p := n
	switch {
	case dF > 0:
		if c := math.Ceil(dA / dF / md.res); c < float64(n) {
			p = max(int(c), from)
		}
	case dA <= 0:
		p = from
	}
	if dp.maxGap > 0 { // b is +Inf beyond its MaxGap, i still finite there
		p = min(p, b+dp.maxGap+1)
	}
	p = min(max(p, from), n)
	for p > from && dp.val(i, p-1) <= dp.val(b, p-1) {
		p--
	}
	for p < n && dp.val(i, p) > dp.val(b, p) {
		p++
	}
	return p
}

// solve runs the recurrence for multipliers (l1, l2) and returns the path
// ending with a poll at the horizon.
//
// The queue holds candidates i in increasing order, each with the first j
// from which it beats the one before it. By the Monge property, once a
// later candidate b beats an earlier a at some j it beats it at every
// later j (ties go to the later one, and +Inf beyond MaxGap only ever
// hurts the earlier one), so each new candidate pops the tail it beats
// everywhere and finds where it takes over from the rest (takeover).
func (dp *mongeDP) solve(l1, l2 float64) path {
	md := dp.md
	n := md.n()
	inf := math.Inf(1)
	dp.l2 = l2
	qc, qs := dp.qc[:0], dp.qs[:0]
	head := 0
	for j := range n {
		if i := j - dp.minGap; i >= 0 && dp.D[i] < inf {
			dp.A[i] = dp.D[i] - md.G[i] + md.t[i]*md.F[i] + l2*(1-md.F[i])
			for len(qc) > head {
				b := len(qc) - 1
				p := max(int(qs[b]), j)
				if dp.val(i, p) <= dp.val(int(qc[b]), p) {
					qc, qs = qc[:b], qs[:b]
					continue
				}
				break
			}
			if len(qc) == head {
				qc, qs = append(qc, int32(i)), append(qs, int32(j))
			} else {
				b := int(qc[len(qc)-1])
				if lo := dp.takeover(i, b, max(int(qs[len(qs)-1]), j)+1); lo < n {
					qc, qs = append(qc, int32(i)), append(qs, int32(lo))
				}
			}
		}
		for len(qc)-head >= 2 && int(qs[head+1]) <= j {
			head++
		}
		best, arg := inf, int32(-2)
		if len(qc) > head {
			best, arg = dp.val(int(qc[head]), j), qc[head]
		}
		// The first poll: from creation, F(0⁻) = 0, always made. MaxGap
		// bounds it too.
		if dp.maxGap == 0 || j <= dp.maxGap {
			if s := md.G[j] + l2; s <= best {
				best, arg = s, -1
			}
		}
		if best == inf {
			dp.D[j], dp.par[j] = inf, -2
			continue
		}
		dp.D[j] = best + l1
		dp.par[j] = arg
	}
	dp.qc, dp.qs = qc, qs
	var idx []int
	for j := n - 1; j >= 0; j = int(dp.par[j]) {
		idx = append(idx, j)
		if dp.par[j] == -2 {
			panic("optimize: horizon unreachable under min/max gap") // prevented by withDefaults and gaps
		}
	}
	slices.Reverse(idx)
	return md.evalIdx(idx)
}

// spent reports whether c spends the budget as closely as Exact promises.
func (pr *problem) spent(c cand) bool {
	b := pr.b
	return (b.StuckPolls == 0 || c.polls == b.StuckPolls) && (b.MeanPolls == 0 || c.mean >= b.MeanPolls*(1-meanTol))
}

// splice narrows the gap between two Lagrangian solutions a (within the
// budget) and z (just over it) found at nearly the same multipliers, when
// the multiplier search cannot land between them. They differ in a few
// stretches (often z polls a cell earlier early on); a schedule that
// follows one before a cut time τ and the other from τ on spends in
// between and is near-optimal, and may be strictly better than a within
// the budget. It tries every cut at a poll of either and returns the
// schedule with the least lag within the budget and the gap limits.
func (pr *problem) splice(a, z []int) []int {
	md, b := pr.md, pr.b
	lo, hi, _ := pr.gaps(pr.o.MinGap)
	best, bestP := a, md.evalIdx(a)
	try := func(p []int) {
		for i, k := range p {
			g := k
			if i > 0 {
				g = k - p[i-1]
			}
			if i > 0 && g < lo || hi > 0 && g > hi {
				return
			}
		}
		e := md.evalIdx(p)
		if (b.StuckPolls == 0 || e.polls <= b.StuckPolls) && (b.MeanPolls == 0 || e.mean <= b.MeanPolls) && e.lag < bestP.lag {
			best, bestP = p, e
		}
	}
	cut := func(x, y []int, tau int) []int {
		i, _ := slices.BinarySearch(x, tau)
		j, _ := slices.BinarySearch(y, tau)
		return slices.Concat(x[:i], y[j:])
	}
	for _, tau := range slices.Concat(a, z) {
		try(cut(a, z, tau))
		try(cut(z, a, tau))
	}
	return best
}
