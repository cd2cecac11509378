package optimize

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"time"
)

// ClockResult is a schedule for an upstream that settles in wall-clock
// batches: age phases up to Switch, then a wall-clock phase polling at
// Offsets past every multiple of Period until the horizon.
type ClockResult struct {
	Schedule Schedule
	Period   time.Duration
	Switch   time.Duration   // the age at which the wall-clock phase starts
	Offsets  []time.Duration // its instants within the period
	Age      *Result         // the age part: Phased's schedule up to Switch
	// InSample is the schedule scored on the items it was fitted to
	// (ScoreTimed): the figures the solver compared; held-out figures are
	// the caller's to compute.
	InSample Score
	Warnings []string
}

// ClockOptions configures PlanClock.
type ClockOptions struct {
	Options
	// Phases is the number of age phases, as for Phased: 1 to MaxPhases,
	// or 0 for the fewest within AutoRatio of the exact optimum.
	Phases int
	// MaxOffsets bounds the polls per period the search tries; 0 means 3.
	MaxOffsets int
}

// clockGrainDivisor sets the step offsets are rounded up to: a nice
// duration near period/clockGrainDivisor (100 ms for 5 minutes).
const clockGrainDivisor = 3000

// clockCandidates is the number of weighted quantiles of the items' phase
// in the period that the offset search places polls at.
const clockCandidates = 96

// clockEven is the number of instants evenly through the period added to
// the candidates.
const clockEven = 32

// PlanClock derives a schedule for items that settle in wall-clock batches
// of the given period: the age at which polling by age gives way to
// polling after each boundary, the polls per period and their offsets, and
// the age phases before it, all under budget b.
//
// d is the settle-time distribution of the items (what Phased fits the age
// phases on); td are the same items with their creation instants, which
// place each settle instant in the period. For each candidate switch age a
// (nice durations between 4 min gaps and half the horizon) and each number
// of polls per period m, the offsets minimise the total lag of the items
// settling after a, exactly over candidate instants (a circular dynamic
// programme over clockCandidates weighted quantiles of the settle
// instants' phase, rounded up to a grain of about period/3000, and
// clockEven instants evenly through the period); the polls
// they cost every item are counted on td, and the rest of the budget goes
// to the exact optimum of the age part on d up to a. The best pair's age
// part is then made Phased, and the whole schedule scored on td; when it
// overspends the mean-poll budget there (the age part's model and the
// data disagree a little) the age budget is cut by the excess and solved
// again.
func PlanClock(d Distribution, b Budget, o ClockOptions, td *Timed, period time.Duration) (*ClockResult, error) {
	if err := b.validate(); err != nil {
		return nil, err
	}
	if period <= 0 || td == nil || td.Len() == 0 {
		return nil, fmt.Errorf("%w: a wall-clock schedule needs a positive period and items with creation instants", ErrOptions)
	}
	opt, err := o.Options.Resolve(d)
	if err != nil {
		return nil, err
	}
	h := opt.Horizon
	maxM := o.MaxOffsets
	if maxM <= 0 {
		maxM = 3
	}
	grain := NiceNearest(period / clockGrainDivisor)
	cs := newClockSearch(td, period, grain, h)
	type trial struct {
		a       time.Duration
		offsets []time.Duration
		ageB    Budget
		total   float64 // E[lag; caught], seconds per item
	}
	var best *trial
	var lastErr error
	for _, a := range NiceDurations(4*opt.MinGap, h/2) {
		ph := cs.phases(a)
		for m := 1; m <= maxM; m++ {
			offs, clockLag := ph.offsets(m)
			cost := cs.cost(a, offs)
			ageB, ok := ageBudget(b, cost)
			if !ok {
				continue
			}
			ex, err := ageProblem(d, ageB, opt, a)
			if err == nil {
				var r *Result
				if r, err = ex.Exact(); err == nil {
					t := &trial{a: a, offsets: offs, ageB: ageB, total: r.Expected.TotalLag + clockLag}
					if best == nil || t.total < best.total {
						best = t
					}
					continue
				}
			}
			lastErr = err
		}
	}
	if best == nil {
		if lastErr == nil {
			lastErr = fmt.Errorf("%w: the wall-clock polls alone spend the budget", ErrInfeasible)
		}
		return nil, lastErr
	}
	res := &ClockResult{Period: period, Switch: best.a, Offsets: best.offsets}
	ageB := best.ageB
	for try := 0; ; try++ {
		pr, err := ageProblem(d, ageB, opt, best.a)
		if err != nil {
			return nil, err
		}
		age, err := pr.Phased(o.Phases)
		if err != nil {
			return nil, err
		}
		s := age.Schedule
		s.Phases = append(slices.Clone(s.Phases), Phase{Growth: WallClock, Gap: period, Offsets: best.offsets, Until: h})
		if err := s.Validate(); err != nil {
			return nil, err
		}
		res.Schedule, res.Age = s, age
		res.InSample = ScoreTimed(s, td, ScoreOptions{})
		over := b.MeanPolls > 0 && res.InSample.MeanPolls > b.MeanPolls*(1+meanTol)
		if !over || try == 3 {
			if over {
				res.Warnings = append(res.Warnings, fmt.Sprintf("the schedule makes %.2f polls per item on the fitted items, above the budget of %.2f", res.InSample.MeanPolls, b.MeanPolls))
			}
			break
		}
		ageB.MeanPolls -= res.InSample.MeanPolls - b.MeanPolls
		if ageB.MeanPolls < 1 {
			break
		}
	}
	if b.StuckPolls > 0 {
		if _, hi := res.Schedule.StuckPollsRange(); hi > b.StuckPolls {
			res.Warnings = append(res.Warnings, fmt.Sprintf("an item that never settles makes up to %d poll%s, above the budget of %d, for some creation times", hi, pluralS(hi), b.StuckPolls))
		}
	}
	return res, nil
}

// ageBudget returns what is left of b for the age part once the
// wall-clock phase costs cost; ok is false when nothing is.
func ageBudget(b Budget, c clockCost) (Budget, bool) {
	out := b
	if b.MeanPolls > 0 {
		out.MeanPolls = b.MeanPolls - c.mean
		if out.MeanPolls < 1 {
			return out, false
		}
	}
	if b.StuckPolls > 0 {
		out.StuckPolls = b.StuckPolls - c.stuck
		if out.StuckPolls < 2 {
			return out, false
		}
	}
	return out, true
}

// ageProblem is the problem of the age part: d up to the switch age a,
// the mass beyond it paying every age poll as stuck items do.
func ageProblem(d Distribution, b Budget, o Options, a time.Duration) (*Problem, error) {
	minGap := min(o.MinGap, a)
	res := Options{Horizon: a, MinGap: minGap, MaxGap: o.MaxGap}.DefaultResolution()
	ao := Options{Horizon: a, Resolution: res, MinGap: max(minGap, res), MaxGap: o.MaxGap, ConstantGaps: o.ConstantGaps}
	if o.MaxGap > 0 && o.MaxGap < res {
		ao.MaxGap = 0
	}
	p, err := NewProblem(d, b, ao)
	if err != nil && errors.Is(err, ErrOptions) {
		return nil, fmt.Errorf("the age part up to %s: %w", FormatDuration(a), err)
	}
	return p, err
}

// clockSearch holds the items as the offset search needs them: each
// settled item's settle instant and phase in the period, its weight, and
// its creation instant.
type clockSearch struct {
	period, grain, horizon int64
	created                []int64
	settle                 []int64 // age at settling (or last seen), ns
	w, pend                []float64
	total                  float64
}

func newClockSearch(td *Timed, period, grain, horizon time.Duration) *clockSearch {
	cs := &clockSearch{period: int64(period), grain: int64(grain), horizon: int64(horizon),
		created: td.created, w: td.w, pend: td.pend, total: td.total}
	cs.settle = make([]int64, len(td.settle))
	for i, t := range td.settle {
		cs.settle[i] = int64(math.Round(t * 1e9))
	}
	return cs
}

// phase returns x mod period in [0, period).
func (cs *clockSearch) phase(x int64) int64 { return mod(x, cs.period) }

// offsets returns the m offsets that minimise the weighted lag of the
// items settling after age a and by the horizon, and that lag summed per
// item of all (seconds): the exact optimum over candidate instants.
func (cs *clockSearch) offsets(a time.Duration, m int) ([]time.Duration, float64) {
	return cs.phases(a).offsets(m)
}

// clockPhases are the phases on the clock of the items settling after age
// a and by the horizon, sorted, with their prefix sums and the candidate
// offsets: what offsets needs for every m at one switch age.
type clockPhases struct {
	n        int
	P, total float64
	cw, cwu  []float64 // prefix sums of the weights and weight × phase
	cand     []float64 // candidate offsets, ns, ascending
	idx      []int     // idx[k]: the first item with phase > cand[k]
}

func (cs *clockSearch) phases(a time.Duration) *clockPhases {
	type pt struct{ u, w float64 }
	var pts []pt
	for i, s := range cs.settle {
		if cs.w[i] > 0 && s > int64(a) && s <= cs.horizon {
			pts = append(pts, pt{float64(cs.phase(cs.created[i] + s)), cs.w[i]})
		}
	}
	cp := &clockPhases{n: len(pts), P: float64(cs.period), total: cs.total}
	if len(pts) == 0 {
		return cp
	}
	slices.SortFunc(pts, func(x, y pt) int { return cmp.Compare(x.u, y.u) })
	n := len(pts)
	cw, cwu := make([]float64, n+1), make([]float64, n+1)
	for i, p := range pts {
		cw[i+1] = cw[i] + p.w
		cwu[i+1] = cwu[i] + p.w*p.u
	}
	P, g := cp.P, float64(cs.grain)
	// Candidates: weighted quantiles of the phase, rounded up to the grain.
	var cand []float64
	for q := range clockCandidates {
		target := cw[n] * (float64(q) + 0.5) / clockCandidates
		i := sort.SearchFloat64s(cw[1:], target)
		c := math.Ceil(pts[min(i, n-1)].u/g) * g
		if c >= P {
			c = 0
		}
		cand = append(cand, c)
	}
	// And instants evenly through the period, for items that settle at
	// any time.
	for q := range clockEven {
		cand = append(cand, math.Floor(P*float64(q)/clockEven/g)*g)
	}
	slices.Sort(cand)
	cand = slices.Compact(cand)
	idx := make([]int, len(cand))
	for k, c := range cand {
		idx[k] = sort.Search(n, func(i int) bool { return pts[i].u > c })
	}
	cp.cw, cp.cwu, cp.cand, cp.idx = cw, cwu, cand, idx
	return cp
}

// offsets is clockSearch.offsets on the prepared phases.
func (cp *clockPhases) offsets(m int) ([]time.Duration, float64) {
	if cp.n == 0 {
		return []time.Duration{0}, 0
	}
	n, P, cw, cwu, cand, idx := cp.n, cp.P, cp.cw, cp.cwu, cp.cand, cp.idx
	K := len(cand)
	m = min(m, K)
	// seg(i, j): lag of the items with phase in (cand[i], cand[j]] caught at cand[j].
	seg := func(i, j int) float64 {
		lo, hi := idx[i], idx[j]
		return cand[j]*(cw[hi]-cw[lo]) - (cwu[hi] - cwu[lo])
	}
	// wrap(j, f): items after cand[j] to the period's end and from its
	// start to cand[f], caught at cand[f] (a period later for the first).
	wrap := func(j, f int) float64 {
		lo, hi := idx[j], idx[f]
		return (cand[f]+P)*(cw[n]-cw[lo]) - (cwu[n] - cwu[lo]) + cand[f]*cw[hi] - cwu[hi]
	}
	bestCost := math.Inf(1)
	var bestSet []int
	dp := make([][]float64, m)
	from := make([][]int, m)
	for k := range dp {
		dp[k] = make([]float64, K)
		from[k] = make([]int, K)
	}
	for f := range K {
		if m == 1 {
			if c := wrap(f, f); c < bestCost {
				bestCost, bestSet = c, []int{f}
			}
			continue
		}
		for j := range K {
			dp[0][j] = math.Inf(1)
		}
		dp[0][f] = 0
		for k := 1; k < m; k++ {
			for j := range K {
				dp[k][j] = math.Inf(1)
				if j <= f {
					continue
				}
				for i := f; i < j; i++ {
					if v := dp[k-1][i] + seg(i, j); v < dp[k][j] {
						dp[k][j], from[k][j] = v, i
					}
				}
			}
		}
		for j := f + 1; j < K; j++ {
			if v := dp[m-1][j] + wrap(j, f); v < bestCost {
				bestCost = v
				set := make([]int, m)
				set[m-1] = j
				for k := m - 1; k > 0; k-- {
					set[k-1] = from[k][set[k]]
				}
				bestSet = set
			}
		}
	}
	offs := make([]time.Duration, len(bestSet))
	for k, i := range bestSet {
		offs[k] = time.Duration(cand[i])
	}
	return offs, bestCost / 1e9 / cp.total
}

// clockCost is what a wall-clock phase from age a costs: mean polls per
// item (the weight left on items that never settle paying every poll to
// the horizon) and the most polls an item that never settles makes.
type clockCost struct {
	mean  float64
	stuck int
}

// count returns the instants k·P + o (o in offs) in (x, y].
func (cs *clockSearch) count(x, y int64, offs []time.Duration) int64 {
	if y <= x {
		return 0
	}
	var n int64
	for _, o := range offs {
		n += floorDiv(y-int64(o), cs.period) - floorDiv(x-int64(o), cs.period)
	}
	return n
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

// cost counts the wall-clock polls from age a for every item: up to the
// first instant at or after its settle instant, or to the horizon.
func (cs *clockSearch) cost(a time.Duration, offs []time.Duration) clockCost {
	var sum float64
	for i, s := range cs.settle {
		c := cs.created[i]
		start, end := c+int64(a), c+cs.horizon
		if cs.pend[i] > 0 {
			sum += cs.pend[i] * float64(cs.count(start, end, offs))
		}
		w := cs.w[i]
		if w == 0 || s <= int64(a) {
			continue
		}
		at := c + s
		if s <= cs.horizon {
			// The first instant at or after the settle instant.
			first := int64(math.MaxInt64)
			for _, o := range offs {
				first = min(first, at+cs.phase(int64(o)-at))
			}
			end = min(end, first)
		}
		sum += w * float64(cs.count(start, end, offs))
	}
	L := cs.horizon - int64(a)
	stuck := int(int64(len(offs))*(L/cs.period) + int64(len(offs)))
	return clockCost{mean: sum / cs.total, stuck: stuck}
}
