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
// it returns the fewest phases whose mean lag is at most AutoRatio times
// the exact optimum's at the same budget.
const AutoRatio = 1.05

// Phased returns the best schedule of at most k phases "every G until U",
// with an optional first poll "at S" (S = 0, a nice gap or a nice bound),
// under budget b: G from o.NiceGaps within [MinGap, MaxGap], U from
// o.NiceBounds, the last phase ending at the horizon with a poll exactly
// there. k = 0 means the fewest phases (up to MaxPhases) within AutoRatio
// of the exact optimum. Gaps may shrink again after growing.
//
// The search is exact over that set for given Lagrange multipliers: every
// poll lies on the lattice of the greatest common divisor of the gaps and
// bounds, and a phase started at the last poll s with gap G and bound U
// polls at s+G, s+2G, … up to s' = s + G·⌈(U − s)/G⌉ (Schedule.Polls()
// semantics), so a dynamic program over (phases used, last poll) is exact;
// the cost of a phase is O(1) from prefix sums of F along each gap's
// arithmetic progressions. The multipliers are searched as for
// Exact, but the set of phased schedules is not convex: the result is the
// best schedule meeting the budget among all those the search met, which
// may leave a duality gap (a feasible schedule off the Lagrangian path
// that would be better); Result.Optimum gives the exact optimum to compare.
//
// The expected figures are those of Schedule.Polls() on the model of Exact.
// Errors wrap ErrOptions, ErrInvalidBudget or ErrInfeasible.
func Phased(d Distribution, b Budget, k int, o Options) (*Result, error) {
	if k < 0 || k > MaxPhases {
		return nil, fmt.Errorf("%w: phases %d: want 0 (auto) to %d", ErrOptions, k, MaxPhases)
	}
	pr, err := prepare(d, b, o)
	if err != nil {
		return nil, err
	}
	return pr.phased(k)
}

// Simplicity compares the best K-phase schedule with the exact optimum at
// the same budget.
type Simplicity struct {
	K       int     // phases
	MeanLag float64 // seconds, of the K-phase schedule
	Ratio   float64 // MeanLag / the exact optimum's mean lag
	Err     error   // the budget cannot be met with K phases
}

// PriceOfSimplicity returns, for K = 1 … MaxPhases, the mean lag of the
// best K-phase schedule (see Phased) and its ratio to the exact optimum's
// at budget b.
func PriceOfSimplicity(d Distribution, b Budget, o Options) ([]Simplicity, error) {
	pr, err := prepare(d, b, o)
	if err != nil {
		return nil, err
	}
	ex, err := pr.exact()
	if err != nil {
		return nil, err
	}
	sp, err := pr.space()
	if err != nil {
		return nil, err
	}
	out := make([]Simplicity, 0, MaxPhases)
	var prev *Result
	for k := 1; k <= MaxPhases; k++ {
		r, err := pr.phasedK(sp, k, ex, prev)
		s := Simplicity{K: k, Err: err}
		if err == nil {
			s.MeanLag = r.Expected.MeanLag
			s.Ratio = ratio(s.MeanLag, ex.Expected.MeanLag)
			prev = r
		}
		out = append(out, s)
	}
	return out, nil
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
	// Each K seeds the next with its best, so that more phases are never
	// worse (the best of at most k phases is at least as good as the best
	// of at most k−1).
	var last *Result
	var lastErr error
	for kk := 1; kk <= MaxPhases && (k == 0 || kk <= k); kk++ {
		r, err := pr.phasedK(sp, kk, ex, last)
		if err != nil {
			lastErr = err
			continue
		}
		last = r
		if k == 0 && r.Expected.MeanLag <= AutoRatio*ex.Expected.MeanLag {
			return r, nil
		}
	}
	if last == nil {
		return nil, lastErr
	}
	if k == 0 {
		last.Warnings = append(last.Warnings, fmt.Sprintf("no schedule of at most %d phases comes within %.0f%% of the exact optimum's mean lag; this one has %.4g s against %.4g s",
			MaxPhases, (AutoRatio-1)*100, last.Expected.MeanLag, ex.Expected.MeanLag))
	}
	return last, nil
}

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
	c, err := meetBudget(solve, pr.b, g1, g2)
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
	s := mergePhases(c.sol.(Schedule))
	if len(seedSch) > 0 {
		s = sp.improveAll(seedSch, k, pr.b)
	}
	polls := s.Polls()
	r := &Result{
		Method:   "phased",
		Schedule: s,
		Polls:    polls,
		Expected: pr.md.expect(polls),
		Optimum:  &ex.Expected,
		Phases:   len(s.Phases),
	}
	pr.setPrices(r, c)
	return r, nil
}

// phaseSpace is the graph of the phased search: states are last-poll
// times on the lattice (in grid cells), edges are phases.
type phaseSpace struct {
	md     *model
	res    time.Duration
	end    int       // horizon, cells
	states []int     // cells of each state
	starts []pstart  // first polls
	trans  [][]phase // per state
	best   [][]float64
	bk     [][]back
	// What the local search moves between, cells, increasing: the gaps,
	// the bounds (the horizon last), the first polls; minGap and maxGap
	// bound every gap between polls (maxGap 0: none).
	gaps, bounds, startCells []int
	minGap, maxGap           int
}

// back points from a state at one layer to the state and edge before it.
type back struct{ from, tr int32 }

type pstart struct {
	state     int
	lag, mean float64
}

// phase is one "every gap until until" edge; to is −1 at the horizon.
type phase struct {
	to, gap, until int32 // state, cells, cells
	polls          int32
	lag, mean      float64
}

func (pr *problem) space() (*phaseSpace, error) {
	o, md := pr.o, pr.md
	res := o.Resolution
	end := int(o.Horizon / res)
	minGap := o.MinGap
	if minGap == 0 {
		minGap = DefaultPhasedMinGap
	}
	nice := o.NiceGaps
	if nice == nil {
		nice = DefaultNiceGaps
	}
	var gaps []int
	for _, g := range nice {
		if g > 0 && g%res == 0 && g >= minGap && (o.MaxGap == 0 || g <= o.MaxGap) && g <= o.Horizon {
			gaps = append(gaps, int(g/res))
		}
	}
	slices.Sort(gaps)
	gaps = slices.Compact(gaps)
	if len(gaps) == 0 {
		return nil, fmt.Errorf("%w: no nice gap is a multiple of the resolution %s between min gap %s and max gap %s",
			ErrOptions, FormatDuration(res), FormatDuration(minGap), FormatDuration(o.MaxGap))
	}
	nb := o.NiceBounds
	if nb == nil {
		nb = DefaultNiceBounds
	}
	bounds := []int{end}
	for _, u := range nb {
		if u > 0 && u%res == 0 && u < o.Horizon {
			bounds = append(bounds, int(u/res))
		}
	}
	slices.Sort(bounds)
	bounds = slices.Compact(bounds)
	// The lattice every poll lies on: multiples of the gcd of gaps and
	// bounds; prefix sums are kept on it.
	lat := end
	for _, v := range slices.Concat(gaps, bounds) {
		lat = gcd(lat, v)
	}
	nl := end/lat + 1
	// Per gap, prefix sums along its progressions: pf[x] = F(x) + pf[x−g],
	// x on the lattice (in lattice units).
	pf := make([][]float64, len(gaps))
	for gi, g := range gaps {
		gl := g / lat
		pf[gi] = make([]float64, nl)
		for x := range nl {
			pf[gi][x] = md.F[x*lat]
			if x >= gl {
				pf[gi][x] += pf[gi][x-gl]
			}
		}
	}
	at := func(a []float64, x int) float64 { // a at cell x, 0 before the lattice starts
		if x < 0 {
			return 0
		}
		return a[x/lat]
	}
	sp := &phaseSpace{md: md, res: res, end: end, gaps: gaps, bounds: bounds, minGap: int(minGap / res)}
	if o.MaxGap > 0 {
		sp.maxGap = int(o.MaxGap / res)
	}
	id := map[int]int{}
	var queue []int
	addState := func(c int) int {
		if i, ok := id[c]; ok {
			return i
		}
		id[c] = len(sp.states)
		sp.states = append(sp.states, c)
		sp.trans = append(sp.trans, nil)
		queue = append(queue, c)
		return id[c]
	}
	// First polls: at 0, after a nice gap or at a nice bound.
	maxGap := math.MaxInt
	if o.MaxGap > 0 {
		maxGap = int(o.MaxGap / res)
	}
	for _, s := range slices.Concat([]int{0}, gaps, bounds) {
		if s > maxGap || s > end || slices.ContainsFunc(sp.starts, func(p pstart) bool { return sp.states[p.state] == s }) {
			continue
		}
		sp.starts = append(sp.starts, pstart{state: addState(s), lag: md.G[s], mean: 1})
		sp.startCells = append(sp.startCells, s)
	}
	slices.Sort(sp.startCells)
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		if s == end {
			continue
		}
		var out []phase
		for gi, g := range gaps {
			prevTo := -1
			for _, u := range bounds {
				if u <= s {
					continue
				}
				n := (u - s + g - 1) / g
				to := s + n*g
				if u == end && to != end || u < end && to >= end {
					continue
				}
				if to == prevTo { // same polls: keep the bound nearest the last poll
					out[len(out)-1].until = int32(u)
					continue
				}
				prevTo = to
				// Polls s+g … to; the one after poll x is made with
				// probability 1 − F(x), x = s, s+g, … to−g.
				sumF := at(pf[gi], to-g) - at(pf[gi], s-g)
				lag := md.G[to] - md.G[s] - md.t[g]*sumF
				mean := float64(n) - sumF
				tid := -1
				if to != end {
					tid = addState(to)
				}
				out = append(out, phase{to: int32(tid), gap: int32(g), until: int32(u), polls: int32(n), lag: lag, mean: mean})
			}
		}
		sp.trans[id[s]] = out
	}
	return sp, nil
}

func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// solve finds the schedule of at most k phases minimising
// lag + l1·stuck polls + l2·expected polls, by a DP over (phases used,
// last poll).
func (sp *phaseSpace) solve(k int, l1, l2 float64) cand {
	ns := len(sp.states)
	inf := math.Inf(1)
	for len(sp.best) <= k { // work arrays, kept across multipliers
		sp.best = append(sp.best, make([]float64, ns))
		sp.bk = append(sp.bk, make([]back, ns))
	}
	best, bk := sp.best[:k+1], sp.bk[:k+1]
	for l := range best {
		for i := range best[l] {
			best[l][i] = inf
		}
	}
	// Ending at the horizon is kept apart (state −1): layer, from, edge.
	endBest, endLayer, endFrom, endTr := inf, -1, -1, -1
	for si, st := range sp.starts {
		c := st.lag + l1 + l2*st.mean
		if sp.states[st.state] == sp.end {
			if c < endBest {
				endBest, endLayer, endFrom, endTr = c, 0, -1, si
			}
			continue
		}
		best[0][st.state] = min(best[0][st.state], c)
	}
	for l := 0; l < k; l++ {
		for s := range ns {
			v := best[l][s]
			if v == inf {
				continue
			}
			for ti, p := range sp.trans[s] {
				c := v + p.lag + l1*float64(p.polls) + l2*p.mean
				if p.to < 0 {
					if c < endBest {
						endBest, endLayer, endFrom, endTr = c, l+1, s, ti
					}
					continue
				}
				if l+1 < k && c < best[l+1][p.to] {
					best[l+1][p.to] = c
					bk[l+1][p.to] = back{int32(s), int32(ti)}
				}
			}
		}
	}
	if endLayer < 0 {
		panic("optimize: phased search found no schedule reaching the horizon")
	}
	var sch Schedule
	if endLayer == 0 {
		sch.Start = time.Duration(sp.end) * sp.res
	} else {
		phases := make([]Phase, endLayer)
		s, tr := endFrom, endTr
		for l := endLayer; l >= 1; l-- {
			p := sp.trans[s][tr]
			phases[l-1] = Phase{Growth: Fixed, Gap: time.Duration(p.gap) * sp.res, Until: time.Duration(p.until) * sp.res}
			if l > 1 {
				b := bk[l-1][s]
				s, tr = int(b.from), int(b.tr)
			}
		}
		sch.Start = time.Duration(sp.states[s]) * sp.res
		sch.Phases = phases
	}
	e := sp.md.expect(sch.Polls())
	return cand{lag: e.TotalLag, mean: e.MeanPolls, polls: e.StuckPolls, sol: sch}
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
			func(c cand) bool { return usage(c) >= 1-meanTol }, 1)
		if ok {
			tr.see(r)
		}
	}
	best := *tr.best
	best.l1, best.l2 = c.l1, c.l2 // the prices at which the budget binds
	return best
}

// mergePhases joins consecutive phases with the same gap: "every G until
// U1, every G until U2" polls exactly as "every G until U2", since both
// continue the same progression from the same poll.
func mergePhases(s Schedule) Schedule {
	var out []Phase
	for _, p := range s.Phases {
		if n := len(out); n > 0 && out[n-1].Growth == Fixed && p.Growth == Fixed && out[n-1].Gap == p.Gap {
			out[n-1].Until = p.Until
			continue
		}
		out = append(out, p)
	}
	s.Phases = out
	return s
}

// lsPhase is one phase "every gap until until" of the local search, cells.
type lsPhase struct{ gap, until int }

// lsSched is a schedule of the local search: first poll and phases, cells.
type lsSched struct {
	start  int
	phases []lsPhase
}

func (sp *phaseSpace) toSchedule(x lsSched) Schedule {
	s := Schedule{Start: time.Duration(x.start) * sp.res}
	for _, p := range x.phases {
		s.Phases = append(s.Phases, Phase{Growth: Fixed, Gap: time.Duration(p.gap) * sp.res, Until: time.Duration(p.until) * sp.res})
	}
	return s
}

func (sp *phaseSpace) fromSchedule(s Schedule) lsSched {
	x := lsSched{start: int(s.Start / sp.res)}
	for _, p := range s.Phases {
		x.phases = append(x.phases, lsPhase{int(p.Gap / sp.res), int(p.Until / sp.res)})
	}
	return x
}

// lsEval is a schedule of the local search with its figures; ok is false
// when it is not one the phased search may return.
type lsEval struct {
	x   lsSched
	e   Expectation
	obj float64
	ok  bool
}

// eval checks x is in the search space of solve (phases that each poll
// at least once, gaps within [minGap, maxGap], the last poll exactly at
// the horizon) and evaluates it exactly on the model, as solve does.
func (sp *phaseSpace) eval(x lsSched, b Budget, polls []time.Duration) (lsEval, []time.Duration) {
	r := lsEval{x: x}
	prev := x.start
	for i, p := range x.phases {
		if p.until <= prev || (i == len(x.phases)-1) != (p.until == sp.end) {
			return r, polls
		}
		n := (p.until - prev + p.gap - 1) / p.gap
		prev += n * p.gap
		if prev > sp.end || i < len(x.phases)-1 && prev >= sp.end || p.gap < sp.minGap || sp.maxGap > 0 && p.gap > sp.maxGap {
			return r, polls
		}
	}
	if prev != sp.end || sp.maxGap > 0 && x.start > sp.maxGap {
		return r, polls
	}
	polls = sp.toSchedule(x).AppendPolls(polls[:0], nil)
	r.e = sp.md.expect(polls)
	r.obj = r.e.TotalLag + b.PollCost*r.e.MeanPolls + tieBreak*float64(r.e.StuckPolls)
	r.ok = (b.StuckPolls == 0 || r.e.StuckPolls <= b.StuckPolls) && (b.MeanPolls == 0 || r.e.MeanPolls <= b.MeanPolls*(1+1e-12))
	return r, polls
}

// maxMoves bounds the moves of one local search, so that it stays well
// under a second however flat the objective (each move evaluates a few
// hundred neighbours of O(polls) each).
const maxMoves = 200

// improveAll runs improve from each seed and returns the best schedule
// found, phases merged.
func (sp *phaseSpace) improveAll(seed []Schedule, k int, b Budget) Schedule {
	var best lsEval
	var buf []time.Duration
	for _, s := range seed {
		r := sp.improve(sp.fromSchedule(mergePhases(s)), k, b, &buf)
		if r.ok && (!best.ok || r.obj < best.obj) {
			best = r
		}
	}
	if !best.ok {
		return mergePhases(seed[0])
	}
	return mergePhases(sp.toSchedule(best.x))
}

// improve is a best-improvement local search from x over schedules of at
// most k phases meeting b: each step tries every change of one phase's gap
// to the next nice gap up or down, of one phase's Until to the next nice
// bound, of the first poll to the next first poll, of two neighbouring
// changes of gaps or bounds together (one spending more, the other less:
// the budget is usually spent), splitting a phase at a nice bound with a
// neighbouring gap on one side, and merging two neighbouring phases; it
// takes the feasible one with the least objective, and stops when none
// improves (a local optimum) or after maxMoves steps. The Lagrangian search
// leaves budget unspent because the set of phased schedules is not convex;
// this spends it.
func (sp *phaseSpace) improve(x lsSched, k int, b Budget, buf *[]time.Duration) lsEval {
	cur, polls := sp.eval(x, b, *buf)
	*buf = polls
	if !cur.ok {
		return cur
	}
	near := func(list []int, v, d int) (int, bool) { // the element d steps from v in list
		i, found := slices.BinarySearch(list, v)
		if !found {
			if d > 0 {
				i--
			}
		}
		j := i + d
		if j < 0 || j >= len(list) {
			return 0, false
		}
		return list[j], true
	}
	clone := func(x lsSched) lsSched {
		return lsSched{start: x.start, phases: slices.Clone(x.phases)}
	}
	// single returns the schedules one change of a gap, a bound or the
	// start away from x.
	single := func(x lsSched) []lsSched {
		var out []lsSched
		for _, d := range []int{-1, 1} {
			if v, ok := near(sp.startCells, x.start, d); ok {
				y := clone(x)
				y.start = v
				out = append(out, y)
			}
			for i, p := range x.phases {
				if v, ok := near(sp.gaps, p.gap, d); ok {
					y := clone(x)
					y.phases[i].gap = v
					out = append(out, y)
				}
				if i < len(x.phases)-1 {
					if v, ok := near(sp.bounds, p.until, d); ok && v < sp.end {
						y := clone(x)
						y.phases[i].until = v
						out = append(out, y)
					}
				}
			}
		}
		return out
	}
	for range maxMoves {
		x := cur.x
		var cands []lsSched
		ones := single(x)
		cands = append(cands, ones...)
		for _, y := range ones {
			for _, z := range single(y) {
				cands = append(cands, z)
			}
		}
		for i := range x.phases {
			if i < len(x.phases)-1 { // merge i and i+1 with either gap
				for _, g := range []int{x.phases[i].gap, x.phases[i+1].gap} {
					y := clone(x)
					y.phases[i+1].gap = g
					y.phases = slices.Delete(y.phases, i, i+1)
					cands = append(cands, y)
				}
			}
			if len(x.phases) < k { // split i at a bound
				lo := x.start
				if i > 0 {
					lo = x.phases[i-1].until
				}
				p := x.phases[i]
				for _, u := range sp.bounds {
					if u <= lo || u >= p.until {
						continue
					}
					for _, d := range []int{-1, 1} {
						g, ok := near(sp.gaps, p.gap, d)
						if !ok {
							continue
						}
						for _, pair := range [][2]lsPhase{{{g, u}, p}, {{p.gap, u}, {g, p.until}}} {
							y := clone(x)
							y.phases = slices.Insert(y.phases, i, pair[0])
							y.phases[i+1] = pair[1]
							cands = append(cands, y)
						}
					}
				}
			}
		}
		next := cur
		for _, y := range cands {
			r, p := sp.eval(y, b, *buf)
			*buf = p
			if r.ok && r.obj < next.obj-1e-12*max(1, math.Abs(next.obj)) {
				next = r
			}
		}
		if next.obj == cur.obj {
			break
		}
		cur = next
	}
	return cur
}
