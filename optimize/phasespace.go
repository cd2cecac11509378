package optimize

import (
	"fmt"
	"math"
	"slices"
	"time"
)

// phaseSpace is the search space of Phased: a first poll, then at most k
// phases "every G until U", G a nice gap, each making n ≥ 1 polls from the
// last poll before it, then — unless the last phase lands on the horizon —
// one closing poll at the horizon (a plain gap in the spec).
//
// Every poll but the closing one lies on the lattice of the greatest
// common divisor of the gaps (in grid cells), and the cost of a phase of
// gap g from lattice point x_i to x_j = x_i + n·g is separable:
//
//	C(x_i, x_j) = Q_g(x_j) − Q_g(x_i),
//	Q_g(x) = G(x) − (g + λ2)·P_g(x − g) + (λ1 + λ2)·x/g,
//
// with G(t) = ∫_0^t F, P_g(x) = Σ F(x − m·g) over the progression ending at
// x (the lag of the items caught by the phase is G(x_j) − G(x_i) − g·ΣF at
// the polls before each gap, its expected polls Σ(1 − F), its stuck polls
// n). So the best value at x_j over every phase of gap g is Q_g(x_j) plus a
// running minimum of best(x_i) − Q_g(x_i) along the progression: one pass
// per gap and layer, O(gaps × lattice points) per layer.
//
// A phase's U may be any time in (x_j − g, x_j]: with Options.NiceBounds
// given it must be one of them (or the horizon), else the roundest
// duration in that interval is printed (roundestIn).
type phaseSpace struct {
	md       *model
	res      time.Duration
	end      int  // horizon, cells
	lat      int  // lattice step, cells
	nl       int  // lattice points 0, lat, …, (nl−1)·lat ≤ end
	endOnLat bool // the horizon is the last lattice point
	gaps     []int
	gl       []int // gaps in lattice steps
	// Per gap, on the lattice: the part of Q_g free of the multipliers,
	// G(x) − g·P_g(x − g), and P_g(x − g) (0 before the first gap).
	qb, pp [][]float64
	// ub[x], with bounds given, is the largest bound ≤ x·lat, cells (−1:
	// none); nil when any phase end is allowed.
	ub             []int
	bounds         []int  // the bounds given (cells, the horizon last); nil for any
	starts         []bool // per lattice point: may the first poll be there
	minGap, maxGap int    // cells; maxGap 0 means none
	// Work arrays of solve, kept across multipliers: per layer (phases
	// used) and lattice point, the least cost and how it was reached.
	best [][]float64
	bk   [][]back
}

// back is how a lattice point was reached at a layer: by a phase of gaps[gap]
// from lattice point from (gap −1: the first poll).
type back struct {
	from int32
	gap  int16
}

func (pr *problem) space() (*phaseSpace, error) {
	o, md := pr.o, pr.md
	res := o.Resolution
	end := int(o.Horizon / res)
	minGap := int((o.MinGap + res - 1) / res)
	var gaps []int
	for _, g := range o.NiceGaps {
		if g > 0 && g%res == 0 && g >= o.MinGap && (o.MaxGap == 0 || g <= o.MaxGap) && g <= o.Horizon {
			gaps = append(gaps, int(g/res))
		}
	}
	slices.Sort(gaps)
	gaps = slices.Compact(gaps)
	if len(gaps) == 0 {
		return nil, fmt.Errorf("%w: no nice gap is a multiple of the resolution %s between min gap %s and max gap %s",
			ErrOptions, FormatDuration(res), FormatDuration(o.MinGap), FormatDuration(o.MaxGap))
	}
	sp := &phaseSpace{md: md, res: res, end: end, gaps: gaps, minGap: max(minGap, 1)}
	if o.MaxGap > 0 {
		sp.maxGap = int(o.MaxGap / res)
	}
	// First polls: at any lattice point without bounds; with bounds, at
	// 0, after a nice gap or at a bound, as people write them.
	var startCells []int
	var bounds []int
	if o.NiceBounds != nil {
		bounds = []int{end}
		for _, u := range o.NiceBounds {
			if u > 0 && u%res == 0 && u < o.Horizon {
				bounds = append(bounds, int(u/res))
			}
		}
		slices.Sort(bounds)
		bounds = slices.Compact(bounds)
		startCells = slices.Concat([]int{0}, gaps, bounds)
	}
	lat := 0
	for _, v := range slices.Concat(gaps, startCells) {
		lat = gcd(lat, v)
	}
	sp.lat = lat
	sp.nl = end/lat + 1
	sp.endOnLat = end%lat == 0
	sp.gl = make([]int, len(gaps))
	sp.qb = make([][]float64, len(gaps))
	sp.pp = make([][]float64, len(gaps))
	pf := make([]float64, sp.nl) // P_g(x) = F(x) + P_g(x − g)
	for gi, g := range gaps {
		gl := g / lat
		sp.gl[gi] = gl
		qb, pp := make([]float64, sp.nl), make([]float64, sp.nl)
		for x := range sp.nl {
			pf[x] = md.F[x*lat]
			if x >= gl {
				pf[x] += pf[x-gl]
				pp[x] = pf[x-gl]
			}
			qb[x] = md.G[x*lat] - md.t[g]*pp[x]
		}
		sp.qb[gi], sp.pp[gi] = qb, pp
	}
	sp.starts = make([]bool, sp.nl)
	maxStart := end
	if sp.maxGap > 0 {
		maxStart = min(end, sp.maxGap)
	}
	if bounds == nil {
		for x := 0; x*lat <= maxStart; x++ {
			sp.starts[x] = true
		}
	} else {
		for _, c := range startCells {
			if c <= maxStart {
				sp.starts[c/lat] = true
			}
		}
		sp.bounds = bounds
		sp.ub = make([]int, sp.nl)
		k := -1
		for x := range sp.nl {
			for k+1 < len(bounds) && bounds[k+1] <= x*lat {
				k++
			}
			sp.ub[x] = -1
			if k >= 0 {
				sp.ub[x] = bounds[k]
			}
		}
	}
	return sp, nil
}

func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// endsAt reports whether a phase of gap index gi may end at lattice point
// x: always without bounds, else when a bound lies in (x·lat − g, x·lat].
func (sp *phaseSpace) endsAt(x, gi int) bool {
	return sp.ub == nil || sp.ub[x] > x*sp.lat-sp.gaps[gi]
}

// until is the U printed for a phase of gap index gi whose last poll is at
// lattice point x: the horizon there, the bound with bounds given, else
// the roundest duration in (x·lat − g, x·lat].
func (sp *phaseSpace) until(x, gi int) time.Duration {
	c := x * sp.lat
	switch {
	case c == sp.end:
		return time.Duration(c) * sp.res
	case sp.ub != nil:
		return time.Duration(sp.ub[x]) * sp.res
	}
	return roundestIn(time.Duration(c-sp.gaps[gi])*sp.res, time.Duration(c)*sp.res)
}

// phase is the phase of gap index gi from lattice point from to x: a plain
// gap when it makes one poll ("3s" reads better than "every 3s until 2s",
// which polls once at 4.9 s from 1.9 s), else "every G until U".
func (sp *phaseSpace) phase(from, x, gi int) Phase {
	g := time.Duration(sp.gaps[gi]) * sp.res
	if (x-from)*sp.lat == sp.gaps[gi] && x*sp.lat != sp.end {
		return Phase{Growth: Once, Gap: g}
	}
	return Phase{Growth: Fixed, Gap: g, Until: sp.until(x, gi)}
}

// roundSteps are the steps roundestIn tries, coarsest first: the clock's
// above a second, then powers of ten (with halves).
var roundSteps = func() []time.Duration {
	out := []time.Duration{24 * time.Hour, 6 * time.Hour, time.Hour, 30 * time.Minute, 15 * time.Minute, 10 * time.Minute,
		5 * time.Minute, time.Minute, 30 * time.Second, 15 * time.Second, 10 * time.Second, 5 * time.Second}
	for p := time.Second; p >= 1; p /= 10 {
		out = append(out, p)
		if p >= 10 {
			out = append(out, p/2)
		}
	}
	return out
}()

// roundestIn returns the roundest duration in (a, b]: the least multiple
// of the coarsest step of roundSteps that has one there (b itself when
// none does, which cannot happen for b > a ≥ 0 as 1 ns is a step).
func roundestIn(a, b time.Duration) time.Duration {
	for _, s := range roundSteps {
		if m := (a/s + 1) * s; m <= b {
			return m
		}
	}
	return b
}

// canClose reports whether a closing poll (one gap to the horizon) may
// follow a poll at cell c: the gap is within [minGap, maxGap].
func (sp *phaseSpace) canClose(c int) bool {
	g := sp.end - c
	return g > 0 && g >= sp.minGap && (sp.maxGap == 0 || g <= sp.maxGap)
}

// closing is the closing poll after a poll at cell c: a single gap to the
// horizon, printed as a plain gap ("…, every 200ms until 5.2s, 4.8s").
// Repeating phases reach the horizon exactly only when their gap divides
// what is left of it; without a closing poll a schedule whose nice gaps
// land elsewhere must spend polls to get there.
func (sp *phaseSpace) closing(c int) Phase {
	return Phase{Growth: Once, Gap: time.Duration(sp.end-c) * sp.res}
}

// solve finds the schedule of at most k phases minimising
// lag + l1·stuck polls + l2·expected polls, by a DP over (phases used,
// last poll) with the separable phase costs above.
func (sp *phaseSpace) solve(k int, l1, l2 float64) cand {
	md, lat, nl := sp.md, sp.lat, sp.nl
	inf := math.Inf(1)
	for len(sp.best) <= k {
		sp.best = append(sp.best, make([]float64, nl))
		sp.bk = append(sp.bk, make([]back, nl))
	}
	best, bk := sp.best[:k+1], sp.bk[:k+1]
	for l := range best {
		for x := range best[l] {
			best[l][x] = inf
		}
	}
	for x, ok := range sp.starts {
		if ok {
			best[0][x] = md.G[x*lat] + l1 + l2 // the first poll is always made
			bk[0][x] = back{from: -1, gap: -1}
		}
	}
	last := nl - 1 // the horizon, when on the lattice: reached, not left
	endBest, endLayer, endFrom, endClose := inf, -1, -1, false
	for l := 0; l <= k; l++ {
		cur := best[l]
		if sp.endOnLat && cur[last] < endBest {
			endBest, endLayer, endFrom, endClose = cur[last], l, last, false
		}
		if l == k {
			break
		}
		for x, v := range cur {
			if c := x * lat; v < inf && c < sp.end && sp.canClose(c) {
				if t := v + md.w(c, sp.end) + l1 + l2*md.madeAfter(c); t < endBest {
					endBest, endLayer, endFrom, endClose = t, l+1, x, true
				}
			}
		}
		next, nb := best[l+1], bk[l+1]
		stop := nl // lattice points a phase may start from: all but the horizon
		if sp.endOnLat {
			stop = last
		}
		for gi, g := range sp.gl {
			qb, pp := sp.qb[gi][:nl], sp.pp[gi][:nl]
			perStep := (l1 + l2) / float64(g)
			for r := 0; r < g && r < nl; r++ {
				m, arg := inf, int32(-1) // inf + q stays inf: no test needed
				for x := r; x < nl; x += g {
					q := qb[x] - l2*pp[x] + perStep*float64(x)
					if m+q < next[x] && (sp.ub == nil || sp.endsAt(x, gi)) {
						next[x] = m + q
						nb[x] = back{from: arg, gap: int16(gi)}
					}
					if x < stop && cur[x]-q < m {
						m, arg = cur[x]-q, int32(x)
					}
				}
			}
		}
	}
	if endLayer < 0 {
		panic("optimize: phased search found no schedule reaching the horizon")
	}
	phases := make([]Phase, endLayer)
	l, x := endLayer, endFrom
	if endClose {
		phases[l-1] = sp.closing(x * lat)
		l--
	}
	for ; l > 0; l-- {
		b := bk[l][x]
		phases[l-1] = sp.phase(int(b.from), x, int(b.gap))
		x = int(b.from)
	}
	sch := Schedule{Start: time.Duration(x*lat) * sp.res, Phases: phases}
	e := md.expect(sch.Polls())
	return cand{lag: e.TotalLag, mean: e.MeanPolls, polls: e.StuckPolls, sol: sch}
}

// The local search (improve) moves between schedules of the space written
// as a start and phases "every gap until until", in cells, as the spec
// reads them: moving one phase's until leaves the later phases' polls
// where they were, or near.

// lsPhase is a phase "every gap until until" (cells); gap 0 is the
// closing poll at the horizon.
type lsPhase struct{ gap, until int }

// lsSched is a schedule of the local search: first poll (cells) and phases.
type lsSched struct {
	start  int
	phases []lsPhase
}

func (x lsSched) clone() lsSched {
	return lsSched{start: x.start, phases: slices.Clone(x.phases)}
}

// walk returns the last poll of each phase of x (cells), and false when x
// is not in the space: a start it allows, nice gaps making at least one
// poll each, phase ends the bounds allow, the last poll at the horizon, the
// closing poll last.
func (sp *phaseSpace) walk(x lsSched, ends []int) ([]int, bool) {
	ends = ends[:0]
	if x.start < 0 || x.start%sp.lat != 0 || x.start > sp.end || !sp.starts[x.start/sp.lat] {
		return ends, false
	}
	prev := x.start
	for i, p := range x.phases {
		if p.gap == 0 {
			if i != len(x.phases)-1 || !sp.canClose(prev) {
				return ends, false
			}
			prev = sp.end
			ends = append(ends, prev)
			continue
		}
		gi, found := slices.BinarySearch(sp.gaps, p.gap)
		if !found || p.until <= prev || prev >= sp.end {
			return ends, false
		}
		prev += (p.until - prev + p.gap - 1) / p.gap * p.gap
		if prev > sp.end || !sp.endsAt(prev/sp.lat, gi) {
			return ends, false
		}
		ends = append(ends, prev)
	}
	return ends, prev == sp.end
}

// toSchedule writes x as a Schedule, each Until the one printed for where
// the phase ends (see until); x must be in the space.
func (sp *phaseSpace) toSchedule(x lsSched) Schedule {
	ends, _ := sp.walk(x, nil)
	s := Schedule{Start: time.Duration(x.start) * sp.res}
	prev := x.start
	for i, p := range x.phases {
		if p.gap == 0 {
			s.Phases = append(s.Phases, sp.closing(prev))
			break
		}
		gi, _ := slices.BinarySearch(sp.gaps, p.gap)
		s.Phases = append(s.Phases, sp.phase(prev/sp.lat, ends[i]/sp.lat, gi))
		prev = ends[i]
	}
	return s
}

// fromSchedule reads a schedule of the space (a solve's result) back: a
// plain gap is a one-poll phase when it is a nice gap, else the closing
// poll.
func (sp *phaseSpace) fromSchedule(s Schedule) lsSched {
	x := lsSched{start: int(s.Start / sp.res)}
	polls := s.Polls()
	k := 0 // index of the last poll before the phase
	for _, p := range s.Phases {
		g := int(p.Gap / sp.res)
		if p.Growth == Once {
			k++
			if _, nice := slices.BinarySearch(sp.gaps, g); nice {
				x.phases = append(x.phases, lsPhase{g, int(polls[k] / sp.res)})
			} else {
				x.phases = append(x.phases, lsPhase{0, sp.end})
			}
			continue
		}
		for k+1 < len(polls) && polls[k] < p.Until {
			k++
		}
		x.phases = append(x.phases, lsPhase{g, int(p.Until / sp.res)})
	}
	return x
}

// lsEval is a schedule of the local search with its figures; ok is false
// when it is not in the space or breaks the budget.
type lsEval struct {
	x     lsSched
	e     Expectation
	obj   float64
	valid bool // in the space
	ok    bool // valid and within the budget
}

// eval evaluates x exactly on the model, as solve does, when it is in the
// space (see walk).
func (sp *phaseSpace) eval(x lsSched, b Budget, buf *lsBuf) lsEval {
	r := lsEval{x: x}
	var ok bool
	if buf.ends, ok = sp.walk(x, buf.ends); !ok {
		return r
	}
	polls := append(buf.polls[:0], time.Duration(x.start)*sp.res)
	prev := x.start
	for i, p := range x.phases {
		for prev < buf.ends[i] {
			if p.gap == 0 {
				prev = sp.end
			} else {
				prev += p.gap
			}
			polls = append(polls, time.Duration(prev)*sp.res)
		}
	}
	buf.polls = polls
	r.valid = true
	r.e = sp.md.expect(polls)
	r.obj = r.e.TotalLag + b.PollCost*r.e.MeanPolls + tieBreak*float64(r.e.StuckPolls)
	r.ok = (b.StuckPolls == 0 || r.e.StuckPolls <= b.StuckPolls) && (b.MeanPolls == 0 || r.e.MeanPolls <= b.MeanPolls*(1+1e-12))
	return r
}

// lsBuf holds eval's work slices.
type lsBuf struct {
	ends  []int
	polls []time.Duration
}

// reland returns x with its last phase's gap changed to the nice gaps
// nearest it (one above, one below) that divide what is left to the
// horizon, so that a move earlier in x that shifted the last phase off the
// horizon can still be tried.
func (sp *phaseSpace) reland(x lsSched, buf *lsBuf) []lsSched {
	n := len(x.phases)
	if n == 0 || x.phases[n-1].gap == 0 {
		return nil
	}
	head := lsSched{start: x.start, phases: x.phases[:n-1]}
	prev := x.start
	if n > 1 {
		ends, _ := sp.walk(head, buf.ends)
		if len(ends) != n-1 {
			return nil
		}
		prev = ends[n-2]
	}
	rest := sp.end - prev
	if rest <= 0 {
		return nil
	}
	g0 := x.phases[n-1].gap
	i, _ := slices.BinarySearch(sp.gaps, g0)
	var out []lsSched
	for _, dir := range []int{-1, 1} {
		for j := i; j >= 0 && j < len(sp.gaps); j += dir {
			if g := sp.gaps[j]; g != g0 && rest%g == 0 {
				y := x.clone()
				y.phases[n-1].gap = g
				y.phases[n-1].until = sp.end
				out = append(out, y)
				break
			}
		}
	}
	return out
}

// maxMoves bounds the moves of one local search, so that it stays well
// under a second however flat the objective.
const maxMoves = 200

// improveAll runs improve from each seed and returns the best schedule
// found, phases merged.
func (sp *phaseSpace) improveAll(seed []Schedule, k int, b Budget) Schedule {
	var best lsEval
	var buf lsBuf
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
// most k phases meeting b. Each step tries every single move — a phase
// ending one poll later or earlier (the next bound, with bounds given),
// its gap one nice step up or down, the first poll a lattice step earlier
// or later — and every pair of them (one spending more, the other less:
// the budget is usually spent), merging two neighbouring phases, splitting
// one, and ending with a closing poll; it takes the best feasible one and
// stops when none improves (a local optimum) or after maxMoves steps. The
// Lagrangian search leaves budget unspent because the set of phased
// schedules is not convex; this spends it.
func (sp *phaseSpace) improve(x lsSched, k int, b Budget, buf *lsBuf) lsEval {
	cur := sp.eval(x, b, buf)
	if !cur.ok {
		return cur
	}
	nearGap := func(g, d int) (int, bool) {
		i, _ := slices.BinarySearch(sp.gaps, g)
		j := i + d
		if j < 0 || j >= len(sp.gaps) {
			return 0, false
		}
		return sp.gaps[j], true
	}
	// moveEnd returns u moved to the next phase end d = ±1 away for a
	// phase of gap g: one gap, or the next bound.
	moveEnd := func(u, g, d int) (int, bool) {
		if sp.bounds == nil {
			return u + d*g, u+d*g > 0
		}
		i, found := slices.BinarySearch(sp.bounds, u)
		if !found && d < 0 {
			i++ // bounds[i-1] < u: one step down is i-1
		}
		if j := i + d; j >= 0 && j < len(sp.bounds) {
			return sp.bounds[j], true
		}
		return 0, false
	}
	single := func(x lsSched) []lsSched {
		var out []lsSched
		for _, d := range []int{-1, 1} {
			y := x.clone()
			y.start += d * sp.lat
			out = append(out, y)
			for i, p := range x.phases {
				if p.gap == 0 {
					continue
				}
				if i < len(x.phases)-1 {
					if u, ok := moveEnd(p.until, p.gap, d); ok {
						y := x.clone()
						y.phases[i].until = u
						out = append(out, y)
					}
				}
				if g, ok := nearGap(p.gap, d); ok {
					y := x.clone()
					y.phases[i].gap = g
					out = append(out, y)
				}
			}
		}
		return out
	}
	for range maxMoves {
		x := cur.x
		ones := single(x)
		cands := slices.Clone(ones)
		for _, y := range ones {
			cands = append(cands, single(y)...)
		}
		n := len(x.phases)
		for i := 0; i+1 < n; i++ { // merge i and i+1 with either gap
			for _, g := range []int{x.phases[i].gap, x.phases[i+1].gap} {
				y := x.clone()
				y.phases[i+1].gap = g
				y.phases = slices.Delete(y.phases, i, i+1)
				cands = append(cands, y)
			}
		}
		if n < k { // split a phase, the first part with a neighbouring gap or the second
			ends, _ := sp.walk(x, buf.ends)
			prev := x.start
			for i, p := range x.phases {
				if p.gap > 0 {
					for _, f := range []int{1, 2, 3} {
						u := prev + (ends[i]-prev)*f/4
						if sp.bounds != nil { // the bound at or below
							j, found := slices.BinarySearch(sp.bounds, u)
							if !found {
								j--
							}
							if j < 0 {
								continue
							}
							u = sp.bounds[j]
						}
						for _, d := range []int{-1, 1} {
							g, ok := nearGap(p.gap, d)
							if !ok {
								continue
							}
							for _, pair := range [][2]lsPhase{{{g, u}, p}, {{p.gap, u}, {g, p.until}}} {
								y := x.clone()
								y.phases = slices.Insert(y.phases, i, pair[0])
								y.phases[i+1] = pair[1]
								cands = append(cands, y)
							}
						}
					}
				}
				prev = ends[i]
			}
		}
		if n > 0 && x.phases[n-1].gap > 0 { // close instead of repeating to the horizon
			y := x.clone()
			y.phases[n-1] = lsPhase{0, sp.end}
			cands = append(cands, y)
			if n < k { // or repeat until one poll less, then close
				ends, _ := sp.walk(x, buf.ends)
				y := x.clone()
				y.phases[n-1].until = ends[n-1] - x.phases[n-1].gap
				y.phases = append(y.phases, lsPhase{0, sp.end})
				cands = append(cands, y)
			}
		}
		next := cur
		try := func(y lsSched) bool {
			r := sp.eval(y, b, buf)
			if r.ok && r.obj < next.obj-1e-12*max(1, math.Abs(next.obj)) {
				next = r
			}
			return r.valid
		}
		for _, y := range cands {
			if !try(y) {
				for _, z := range sp.reland(y, buf) {
					try(z)
				}
			}
		}
		if next.obj == cur.obj {
			break
		}
		cur = next
	}
	return cur
}
