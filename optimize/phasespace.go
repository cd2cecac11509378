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
// duration in that interval is printed (roundestIn). A phase of one poll
// is printed as a plain gap ("2s"), which names no U, so it needs no
// bound: with bounds, plain gaps step from one bound onto a progression
// that lands on the next or on the horizon.
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
	// The DP of solve at the multipliers used last (least recently used
	// out), and a clock for it.
	lag      []*lagLayers
	lagClock int
	scr      *screener // the local search's screen, made on first use
	buf      lsBuf     // the local search's work slices
}

// back is how a lattice point was reached at a layer: by a phase of gaps[gap]
// from lattice point from (gap −1: the first poll).
type back struct {
	from int32
	gap  int16
}

// space returns the phased search's space of pr: made once, and shared
// by the problems WithBudget derives from it.
func (pr *problem) space() (*phaseSpace, error) {
	if pr.shared == nil {
		pr.shared = &spaceOnce{}
	}
	if c := pr.shared; !c.done {
		c.sp, c.err = pr.newSpace()
		c.done = true
	}
	return pr.shared.sp, pr.shared.err
}

// spaceOnce holds a problem's phase space once made.
type spaceOnce struct {
	sp   *phaseSpace
	err  error
	done bool
}

func (pr *problem) newSpace() (*phaseSpace, error) {
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
		upto := "max gap " + FormatDuration(o.MaxGap)
		if o.MaxGap == 0 {
			upto = "the horizon " + FormatDuration(o.Horizon) + " (no max gap)"
		}
		var not string
		if dropped := o.DroppedGaps(); len(dropped) > 0 {
			fix := "a resolution dividing them takes them"
			d := o
			d.Resolution = 0
			if r := d.DefaultResolution(); r != res && !slices.ContainsFunc(dropped, func(g time.Duration) bool { return g%r != 0 }) {
				fix = "the resolution " + FormatDuration(r) + " divides them"
			}
			not = fmt.Sprintf(" (%s %s not; %s)", formatDurations(dropped), plural(len(dropped), "is", "are"), fix)
		}
		return nil, fmt.Errorf("%w: no nice gap between min gap %s and %s is a multiple of the resolution %s%s",
			ErrOptions, FormatDuration(o.MinGap), upto, FormatDuration(res), not)
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

// lagLayers is the DP of solve at one pair of multipliers, for as many
// layers (phases used) as were asked for: the layers do not depend on k,
// so the search for k phases goes on from those the searches for fewer
// left at the same multipliers (each starts from the same guesses).
type lagLayers struct {
	l1, l2 float64
	best   [][]float64 // per layer and lattice point, the least cost
	bk     [][]back    // and how it was reached
	ends   []layerEnd  // per layer, its best way to the horizon
	used   int         // when last used, for the least recently used to go
}

// layerEnd is a layer's best way to the horizon: from lattice point x,
// reached there (the horizon itself) or with a closing poll; x −1: none.
type layerEnd struct {
	v     float64
	x     int
	close bool
}

// lagSlots is how many multiplier pairs solve keeps the layers of, at
// most: as many as lagBytes holds (16 bytes a lattice point and layer),
// at least one (a lattice of 900,001 points, --min-gap 0 at 1 ms over 15
// minutes, takes 130 MB a pair).
const (
	lagSlots = 16
	lagBytes = 32 << 20
)

// layers returns the DP at (l1, l2) with layers 0 … k at least, kept.
func (sp *phaseSpace) layers(k int, l1, l2 float64) *lagLayers {
	sp.lagClock++
	var m *lagLayers
	for _, c := range sp.lag {
		if c.l1 == l1 && c.l2 == l2 {
			m = c
			break
		}
	}
	if m == nil {
		if len(sp.lag) < max(1, min(lagSlots, lagBytes/(16*(MaxPhases+1)*sp.nl))) {
			m = &lagLayers{}
			sp.lag = append(sp.lag, m)
		} else { // the least recently used goes; its arrays are reused
			m = sp.lag[0]
			for _, c := range sp.lag {
				if c.used < m.used {
					m = c
				}
			}
		}
		m.l1, m.l2 = l1, l2
		m.best, m.bk, m.ends = m.best[:0], m.bk[:0], m.ends[:0]
	}
	m.used = sp.lagClock
	for l := len(m.best); l <= k; l++ {
		sp.layer(m, l)
	}
	return m
}

// layer computes layer l of m from layer l − 1 (the first poll, for 0)
// and its best end.
func (sp *phaseSpace) layer(m *lagLayers, l int) {
	md, lat, nl := sp.md, sp.lat, sp.nl
	l1, l2 := m.l1, m.l2
	inf := math.Inf(1)
	if cap(m.best) > l && len(m.best[:l+1][l]) == nl {
		m.best, m.bk = m.best[:l+1], m.bk[:l+1]
	} else {
		m.best = append(m.best[:l], make([]float64, nl))
		m.bk = append(m.bk[:l], make([]back, nl))
	}
	next, nb := m.best[l], m.bk[l]
	for x := range next {
		next[x] = inf
	}
	last := nl - 1 // the horizon, when on the lattice: reached, not left
	if l == 0 {
		for x, ok := range sp.starts {
			if ok {
				next[x] = md.G[x*lat] + l1 + l2 // the first poll is always made
				nb[x] = back{from: -1, gap: -1}
			}
		}
	} else {
		cur := m.best[l-1]
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
			if sp.ub == nil {
				continue
			}
			// A phase of one poll is written as a plain gap ("2s"), which
			// names no end, so it needs no bound: with bounds it is how a
			// schedule steps from a bound onto a progression that lands on
			// the horizon ("every 500ms until 3s, 2s, every 5s until 1m30s").
			for x := g; x < nl; x++ {
				from := x - g
				if from >= stop || cur[from] == inf || sp.endsAt(x, gi) {
					continue // no poll to start from, or the phases above cover it
				}
				c := qb[x] - l2*pp[x] - qb[from] + l2*pp[from] + perStep*float64(g)
				if v := cur[from] + c; v < next[x] {
					next[x] = v
					nb[x] = back{from: int32(from), gap: int16(gi)}
				}
			}
		}
	}
	// The layer's best way to the horizon: the first of the least, the
	// horizon itself before the closing polls, which are not phases (one
	// may follow the k-th).
	e := layerEnd{v: inf, x: -1}
	if sp.endOnLat && next[last] < e.v {
		e = layerEnd{v: next[last], x: last}
	}
	for x, v := range next {
		if c := x * lat; v < inf && c < sp.end && sp.canClose(c) {
			if t := v + md.w(c, sp.end) + l1 + l2*md.madeAfter(c); t < e.v {
				e = layerEnd{v: t, x: x, close: true}
			}
		}
	}
	m.ends = append(m.ends[:l], e)
}

// solve finds the schedule of at most k phases minimising
// lag + l1·stuck polls + l2·expected polls, by a DP over (phases used,
// last poll) with the separable phase costs above.
func (sp *phaseSpace) solve(k int, l1, l2 float64) cand {
	md, lat := sp.md, sp.lat
	m := sp.layers(k, l1, l2)
	endBest, endLayer, endFrom, endClose := math.Inf(1), -1, -1, false
	for l, e := range m.ends[:k+1] {
		if e.x >= 0 && e.v < endBest {
			endBest, endLayer, endFrom, endClose = e.v, l, e.x, e.close
		}
	}
	if endLayer < 0 {
		panic("optimize: phased search found no schedule reaching the horizon")
	}
	phases := make([]Phase, endLayer, endLayer+1)
	l, x := endLayer, endFrom
	for ; l > 0; l-- {
		b := m.bk[l][x]
		phases[l-1] = sp.phase(int(b.from), x, int(b.gap))
		x = int(b.from)
	}
	if endClose {
		phases = append(phases, sp.closing(endFrom*lat))
	}
	sch := Schedule{Start: time.Duration(x*lat) * sp.res, Phases: phases}
	e := md.expect(sch.Polls())
	return cand{lag: e.TotalLag, mean: e.MeanPolls, polls: e.StuckPolls, sol: sch}
}

// The local search (improve) moves between schedules of at most k phases
// written as the spec reads them (Schedule): a first poll, repeating
// phases — every G, and with growing phases allowed, linear D+S and exp D
// xF [cap C] — and the closing poll at the horizon (a plain gap, last).
// Moving one phase's Until leaves the later phases' polls where they
// were, or near, since their Untils are ages.

// Ladders of the growing phases' parameters: factors of exp phases, and
// steps of linear ones as shares of their first gap.
var (
	growFactors = []float64{1.01, 1.02, 1.03, 1.05, 1.07, 1.1, 1.15, 1.2, 1.3, 1.5, 2}
	growSteps   = []float64{0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1}
)

// minGrowGap is the least first gap of a growing phase. Gaps round to a
// grain of at most a thousandth of the gap (Phase.GapAt), so any scale
// keeps its growth; the floor only keeps the grain above a nanosecond.
const minGrowGap = time.Microsecond

// lsEval is a schedule of the local search with its figures; ok is false
// when it is not in the space or breaks the budget.
type lsEval struct {
	s     Schedule
	ends  []time.Duration // the last poll of each phase
	e     Expectation
	obj   float64
	valid bool // in the space
	ok    bool // valid and within the budget
}

// lsBuf holds eval's work slices, and improve's: its arena of phases,
// the neighbours and the walks they are screened from.
type lsBuf struct {
	polls         []time.Duration
	next, mine    []time.Duration // improve's polls of the best neighbour and of one tried
	arena         []Phase
	cands, ones   []Schedule
	parents, recs []*qrec
}

// walk returns the last poll of each phase of s by the spec's rule, and
// false when s is not in the space: at most k phases; a first poll the
// space allows; every gap in [minGap, maxGap]; each phase making a poll;
// nice gaps (growing phases only when grow is set, from minGrowGap, with
// factors and steps of the ladders); phase ends the bounds allow; a plain
// gap of any length only as the closing poll, last; the last poll at the
// horizon. polls receives the poll times. The ends are those of the rule
// even when s is not in the space, so that moves can start from it.
func (sp *phaseSpace) walk(s Schedule, k int, grow bool, polls []time.Duration) ([]time.Duration, []time.Duration, bool) {
	polls = polls[:0]
	h := time.Duration(sp.end) * sp.res
	minGap, maxGap := time.Duration(sp.minGap)*sp.res, time.Duration(sp.maxGap)*sp.res
	ok := s.PhaseCount() <= k && s.Start >= 0 && s.Start <= h && s.Start%(time.Duration(sp.lat)*sp.res) == 0 &&
		sp.starts[int(s.Start/sp.res)/sp.lat]
	last := s.Start
	polls = append(polls, last)
	ends := make([]time.Duration, 0, len(s.Phases))
	add := func(g time.Duration) bool {
		if g <= 0 || g > h-last {
			ok = false
			return false
		}
		if g < minGap || maxGap > 0 && g > maxGap {
			ok = false
		}
		last += g
		polls = append(polls, last)
		return true
	}
	for i, p := range s.Phases {
		final := i == len(s.Phases)-1
		switch {
		case p.Growth == Once && final: // the closing poll: whatever is left to the horizon
			add(h - last)
		case p.Growth == Once: // a one-poll phase of a nice gap
			if _, nice := slices.BinarySearch(sp.gaps, int(p.Gap/sp.res)); !nice || p.Gap%sp.res != 0 {
				ok = false
			}
			add(p.Gap)
		default:
			if !sp.phaseOK(p, grow) || last >= p.Until || final != (p.Until == h) {
				ok = false
			}
			from := len(polls)
			for kk := 1; last < p.Until && kk <= MaxPolls; kk++ {
				if !add(p.GapAt(kk)) {
					break
				}
			}
			// With bounds, a phase ends at one of them, but a phase of one
			// poll of a constant gap is the plain gap finish writes, which
			// names no end.
			if sp.bounds != nil && !final && !(p.Growth == Fixed && len(polls)-from == 1) &&
				!slices.Contains(sp.bounds, int(p.Until/sp.res)) {
				ok = false
			}
		}
		ends = append(ends, last)
	}
	return ends, polls, ok && last == h
}

// phaseOK reports whether a repeating phase's kind and parameters are in
// the space.
func (sp *phaseSpace) phaseOK(p Phase, grow bool) bool {
	if p.Gap%sp.res != 0 {
		return false
	}
	if _, nice := slices.BinarySearch(sp.gaps, int(p.Gap/sp.res)); !nice {
		return false
	}
	switch p.Growth {
	case Fixed:
		return true
	case Exponential:
		return grow && p.Gap >= minGrowGap && slices.Contains(growFactors, p.Factor)
	case Linear:
		return grow && p.Gap >= minGrowGap && p.Step > 0
	}
	return false
}

// eval evaluates s exactly on the model, as solve does, when it is in the
// space (see walk).
func (sp *phaseSpace) eval(s Schedule, k int, grow bool, b Budget, buf *lsBuf) lsEval {
	r := lsEval{s: s}
	r.ends, buf.polls, r.valid = sp.walk(s, k, grow, buf.polls)
	if !r.valid || len(r.ends) != len(s.Phases) {
		r.valid = false
		return r
	}
	r.e = sp.md.expect(buf.polls)
	r.obj = r.e.TotalLag + b.PollCost*r.e.MeanPolls + tieBreak*float64(r.e.StuckPolls)
	r.ok = (b.StuckPolls == 0 || r.e.StuckPolls <= b.StuckPolls) && (b.MeanPolls == 0 || r.e.MeanPolls <= b.MeanPolls*(1+1e-12))
	return r
}

// maxMoves bounds the moves of one local search, so that it stays well
// under a second however flat the objective.
const maxMoves = 200

// improveAll runs improve from each seed and returns the best schedule
// found, its phases merged and their Untils rounded (finish).
func (sp *phaseSpace) improveAll(seed []Schedule, k int, grow bool, b Budget) Schedule {
	var best lsEval
	buf := &sp.buf
	for _, s := range seed {
		r := sp.improve(sp.repeating(sp.merge(s)), k, grow, b, buf)
		if r.ok && (!best.ok || r.obj < best.obj) {
			best = r
		}
	}
	if !best.ok {
		return sp.finish(sp.merge(seed[0]), k, grow, buf)
	}
	return sp.finish(sp.merge(best.s), k, grow, buf)
}

// repeating writes each one-poll phase but the closing one ("3s") as the
// repeating phase it stands for ("every 3s until" its poll), so that the
// local search can move its end and gap like any other's.
func (sp *phaseSpace) repeating(s Schedule) Schedule {
	out := s
	out.Phases = slices.Clone(s.Phases)
	last := s.Start
	for i, p := range out.Phases {
		last = addAge(last, p.Gap)
		if p.Growth != Once {
			last = p.end(last - p.Gap)
			continue
		}
		if i < len(out.Phases)-1 {
			out.Phases[i] = Phase{Growth: Fixed, Gap: p.Gap, Until: last}
		}
	}
	return out
}

// finish writes each phase's Until as the one printed for where it ends:
// the roundest duration that gives the same polls (see roundestIn), or
// with bounds given the bound itself; a one-poll phase of a nice gap
// becomes a plain gap.
func (sp *phaseSpace) finish(s Schedule, k int, grow bool, buf *lsBuf) Schedule {
	ends, _, ok := sp.walk(s, k, grow, buf.polls)
	if !ok {
		return s
	}
	out := s
	out.Phases = slices.Clone(s.Phases)
	prev := s.Start
	h := time.Duration(sp.end) * sp.res
	for i, p := range out.Phases {
		if p.Growth == Once && i == len(out.Phases)-1 {
			out.Phases[i].Gap = h - prev // the closing poll
		}
		if p.Growth != Once && p.Until != h {
			if p.Growth == Fixed && ends[i]-prev == p.Gap {
				out.Phases[i] = Phase{Growth: Once, Gap: p.Gap}
			} else if sp.bounds == nil {
				// The poll before the phase's last: Until may be any age
				// after it, up to the last.
				before := ends[i] - p.GapAt(sp.gapsIn(p, prev, ends[i]))
				out.Phases[i].Until = roundestIn(before, ends[i])
			}
		}
		prev = ends[i]
	}
	return out
}

// gapsIn returns how many gaps repeating phase p makes from a poll at from
// to its last poll at end: for a constant gap or a growing phase screen
// takes, from the phase's gaps (see growth), else poll by poll.
func (sp *phaseSpace) gapsIn(p Phase, from, end time.Duration) int {
	if end <= from {
		return 0
	}
	if p.Growth == Fixed {
		if g := p.GapAt(1); g > 0 {
			n := int((end - from) / g)
			if (end-from)%g != 0 {
				n++
			}
			return n
		}
	} else if gr, _ := sp.growthOf(sp.screener(), p); gr != nil {
		if n := gr.firstAbove(end-from, false); n <= len(gr.gaps) || gr.capped {
			return n
		}
	}
	return gapsIn(p, from, end)
}

// gapsIn is sp.gapsIn poll by poll.
func gapsIn(p Phase, from, end time.Duration) int {
	n := 0
	for last := from; last < end; {
		n++
		last += p.GapAt(n)
	}
	return n
}

// improve is a best-improvement local search from s over schedules of at
// most k phases meeting b. Each step tries every single move — a phase
// ending one poll later or earlier (the next bound, with bounds given),
// its first gap one nice step up or down, the first poll a lattice step
// earlier or later, and with grow a phase's growth (fixed, exp with the
// factors of growFactors and a cap on the nice gaps, linear with the steps
// of growSteps) — every pair of the moves of ends, gaps and start (one
// spending more, the other less: the budget is usually spent), merging two
// neighbouring phases (into one of either gap, or an exp phase growing from
// the first's gap towards the second's), splitting one, and ending with a
// closing poll; a move that shifts the last phase off the horizon is also
// tried with that phase's gap re-landing it. It takes the best feasible
// schedule and stops when none improves (a local optimum) or after
// maxMoves steps. The Lagrangian search leaves budget unspent because the
// set of phased schedules is not convex; this spends it.
func (sp *phaseSpace) improve(s Schedule, k int, grow bool, b Budget, buf *lsBuf) (res lsEval) {
	// evalLanded evaluates y, or when it is not in the space, the first
	// of its re-landings (reland) that is.
	evalLanded := func(y Schedule) lsEval {
		r := sp.eval(y, k, grow, b, buf)
		for _, z := range sp.reland(y) {
			if r.valid {
				break
			}
			r = sp.eval(z, k, grow, b, buf)
		}
		return r
	}
	cur := evalLanded(s)
	if !cur.valid {
		return cur
	}
	h := time.Duration(sp.end) * sp.res
	lat := time.Duration(sp.lat) * sp.res
	nearGap := func(g time.Duration, d int) (time.Duration, bool) {
		i, _ := slices.BinarySearch(sp.gaps, int(g/sp.res))
		if j := i + d; j >= 0 && j < len(sp.gaps) {
			return time.Duration(sp.gaps[j]) * sp.res, true
		}
		return 0, false
	}
	// moveEnd moves phase i's Until so that it ends one poll later
	// (d = 1) or earlier (d = −1), or at the next bound.
	moveEnd := func(x lsEval, i, d int) (time.Duration, bool) {
		p := x.s.Phases[i]
		if sp.bounds != nil {
			u := int(p.Until / sp.res)
			j, found := slices.BinarySearch(sp.bounds, u)
			if !found && d < 0 {
				j++
			}
			if j += d; j >= 0 && j < len(sp.bounds)-1 {
				return time.Duration(sp.bounds[j]) * sp.res, true
			}
			return 0, false
		}
		prev := x.s.Start
		if i > 0 {
			prev = x.ends[i-1]
		}
		n := sp.gapsIn(p, prev, x.ends[i])
		if d > 0 {
			return x.ends[i] + 1, true // one more gap
		}
		if n < 2 {
			return 0, false
		}
		return x.ends[i] - p.GapAt(n), true // stops at the poll before
	}
	// The neighbours' phases are cut from one arena, reused each step:
	// only the schedule moved to outlives its step, and it is copied out
	// (three-index slices make an append to a neighbour's phases copy).
	arena := buf.arena[:0]
	defer func() {
		res.s.Phases = slices.Clone(res.s.Phases) // out of the arena, which the next search reuses
		buf.arena = arena[:0]
	}()
	clone := func(s Schedule) Schedule {
		n := len(arena)
		arena = append(arena, s.Phases...)
		s.Phases = arena[n:len(arena):len(arena)]
		return s
	}
	// single appends to out the schedules one move of an end, a gap or the
	// start away from x; with growth, also the moves of a phase's growth.
	single := func(out []Schedule, x lsEval, growth bool) []Schedule {
		for _, d := range []int{-1, 1} {
			y := clone(x.s)
			y.Start += time.Duration(d) * lat
			out = append(out, y)
			for i, p := range x.s.Phases {
				if p.Growth == Once {
					continue
				}
				if p.Until != h {
					if u, ok := moveEnd(x, i, d); ok {
						y := clone(x.s)
						y.Phases[i].Until = u
						out = append(out, y)
					}
				}
				if g, ok := nearGap(p.Gap, d); ok {
					y := clone(x.s)
					y.Phases[i].Gap = g
					out = append(out, y)
				}
			}
		}
		if !growth {
			return out
		}
		for i, p := range x.s.Phases {
			if p.Growth == Once || p.Gap < minGrowGap {
				continue
			}
			with := func(q Phase) {
				y := clone(x.s)
				y.Phases[i] = q
				out = append(out, y)
			}
			fixed := Phase{Growth: Fixed, Gap: p.Gap, Until: p.Until}
			switch p.Growth {
			case Fixed:
				for _, f := range growFactors[:4] {
					with(Phase{Growth: Exponential, Gap: p.Gap, Factor: f, Until: p.Until})
				}
				with(Phase{Growth: Linear, Gap: p.Gap, Step: stepOf(p.Gap, growSteps[2]), Until: p.Until})
			case Exponential:
				with(fixed)
				j := slices.Index(growFactors, p.Factor)
				for _, d := range []int{-1, 1} {
					if jj := j + d; jj >= 0 && jj < len(growFactors) {
						q := p
						q.Factor = growFactors[jj]
						with(q)
					}
					q := p
					if c, ok := nearGap(max(p.Cap, p.Gap), d); ok && (p.Cap > 0 || d > 0) && c > p.Gap {
						q.Cap = c
					} else {
						q.Cap = 0
					}
					with(q)
				}
			case Linear:
				with(fixed)
				for _, d := range []int{-1, 1} {
					q := p
					q.Step = stepOf(p.Gap, nextStep(float64(p.Step)/float64(p.Gap), d))
					with(q)
				}
			}
		}
		return out
	}
	// A seed over the budget (fitPhases' snapped parameters) is repaired
	// first: the single move that overspends least, then lags least, until
	// none overspends.
	for range maxMoves {
		if cur.ok {
			break
		}
		best := cur
		for _, y := range single(nil, cur, grow) {
			if r := evalLanded(y); r.valid && (overspend(r.e, b) < overspend(best.e, b) ||
				overspend(r.e, b) == overspend(best.e, b) && r.obj < best.obj) {
				best = r
			}
		}
		if best.obj == cur.obj && overspend(best.e, b) == overspend(cur.e, b) {
			return cur // no move spends less
		}
		cur = best
	}
	if !cur.ok {
		return cur
	}
	// Each neighbour is screened from the walk of the schedule it moves
	// from (its parent: x, or a single move away for the pairs), whose
	// phases before the first it changes it shares.
	cands, ones, parents, recs := buf.cands, buf.ones, buf.parents, buf.recs // recs[0] is x's
	defer func() { buf.cands, buf.ones, buf.parents, buf.recs = cands[:0], ones[:0], parents[:0], recs }()
	for range maxMoves {
		cur.s.Phases = slices.Clone(cur.s.Phases) // out of the arena
		arena = arena[:0]
		x := cur
		n := len(x.s.Phases)
		phases := x.s.PhaseCount()
		if len(recs) == 0 {
			recs = append(recs, &qrec{})
		}
		sp.record(x.s, grow, nil, recs[0])
		cands = single(cands[:0], x, grow)
		parents = parents[:0]
		for range cands {
			parents = append(parents, recs[0])
		}
		ones = single(ones[:0], x, false)
		for i, y := range ones {
			if len(recs) < i+2 {
				recs = append(recs, &qrec{})
			}
			rec := recs[i+1]
			sp.record(y, grow, recs[0], rec)
			// Its ends, valid or not.
			yy := lsEval{s: y, ends: rec.ends}
			if !rec.fast {
				yy = sp.eval(y, k, grow, b, buf)
				rec = nil
			}
			m := len(cands)
			cands = single(cands, yy, false)
			for range cands[m:] {
				parents = append(parents, rec)
			}
		}
		m := len(cands)
		for i := 0; i+1 < n; i++ { // merge i and i+1
			a, c := x.s.Phases[i], x.s.Phases[i+1]
			if a.Growth == Once {
				continue
			}
			if c.Growth == Once { // the closing poll: close from before i, or repeat i to the horizon
				prev := x.s.Start
				if i > 0 {
					prev = x.ends[i-1]
				}
				y := clone(x.s)
				y.Phases[i] = Phase{Growth: Once, Gap: h - prev}
				y.Phases = y.Phases[:i+1]
				z := clone(x.s)
				z.Phases[i].Until = h
				z.Phases = z.Phases[:i+1]
				cands = append(cands, y, z)
				continue
			}
			for _, g := range []time.Duration{a.Gap, c.Gap} {
				y := clone(x.s)
				y.Phases[i+1] = Phase{Growth: Fixed, Gap: g, Until: c.Until}
				y.Phases = slices.Delete(y.Phases, i, i+1)
				cands = append(cands, y)
			}
			if grow && a.Gap >= minGrowGap && c.Gap > a.Gap {
				prev := x.s.Start
				if i > 0 {
					prev = x.ends[i-1]
				}
				polls := sp.gapsIn(a, prev, x.ends[i])
				f := nearestFactor(math.Pow(float64(c.Gap)/float64(a.Gap), 1/float64(max(polls, 1))))
				y := clone(x.s)
				y.Phases[i+1] = Phase{Growth: Exponential, Gap: a.Gap, Factor: f, Cap: c.Gap, Until: c.Until}
				y.Phases = slices.Delete(y.Phases, i, i+1)
				cands = append(cands, y)
			}
		}
		if phases < k { // split a phase, one part with a neighbouring gap
			prev := x.s.Start
			for i, p := range x.s.Phases {
				if p.Growth == Fixed {
					for _, f := range []time.Duration{1, 2, 3} {
						u := prev + (x.ends[i]-prev)*f/4
						if sp.bounds != nil {
							j, found := slices.BinarySearch(sp.bounds, int(u/sp.res))
							if !found {
								j--
							}
							if j < 0 {
								continue
							}
							u = time.Duration(sp.bounds[j]) * sp.res
						}
						for _, d := range []int{-1, 1} {
							g, ok := nearGap(p.Gap, d)
							if !ok {
								continue
							}
							for _, pair := range [][2]Phase{
								{{Growth: Fixed, Gap: g, Until: u}, p},
								{{Growth: Fixed, Gap: p.Gap, Until: u}, {Growth: Fixed, Gap: g, Until: p.Until}},
							} {
								y := clone(x.s)
								y.Phases = slices.Insert(y.Phases, i, pair[0])
								y.Phases[i+1] = pair[1]
								cands = append(cands, y)
							}
						}
					}
				}
				prev = x.ends[i]
			}
		}
		if n > 0 && x.s.Phases[n-1].Growth != Once { // close instead
			p := x.s.Phases[n-1]
			prev := x.s.Start
			if n > 1 {
				prev = x.ends[n-2]
			}
			y := clone(x.s)
			y.Phases[n-1] = Phase{Growth: Once, Gap: h - prev}
			cands = append(cands, y)
			{ // or repeat until one poll fewer, then close
				if g := sp.gapsIn(p, prev, h); g >= 2 {
					before := h - p.GapAt(g)
					y := clone(x.s)
					y.Phases[n-1].Until = before
					y.Phases = append(y.Phases, Phase{Growth: Once, Gap: h - before})
					cands = append(cands, y)
				}
			}
		}
		for range cands[m:] {
			parents = append(parents, recs[0])
		}
		next := cur
		// A neighbour making the polls of the best one found ties with it
		// (eval's figures are those of the polls): no need to evaluate it.
		nextPolls, _ := sp.pollsOf(cur.s, grow, buf.next)
		try := func(y Schedule, par *qrec) bool {
			thr := next.obj - 1e-12*max(1, math.Abs(next.obj))
			if valid, exact := sp.screen(y, k, grow, b, thr, par); !exact {
				return valid // ruled out
			}
			var fast bool
			if buf.mine, fast = sp.pollsOf(y, grow, buf.mine); fast && slices.Equal(buf.mine, nextPolls) {
				return true
			}
			r := sp.eval(y, k, grow, b, buf)
			if r.ok && r.obj < thr {
				next = r
				nextPolls = append(nextPolls[:0], buf.polls...)
			}
			return r.valid
		}
		for i, y := range cands {
			if !try(y, parents[i]) {
				for _, z := range sp.reland(y) {
					try(z, parents[i])
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

// overspend is how far e spends over budget b, in shares of each budget.
func overspend(e Expectation, b Budget) float64 {
	var o float64
	if b.StuckPolls > 0 {
		o += max(0, float64(e.StuckPolls-b.StuckPolls)) / float64(b.StuckPolls)
	}
	if b.MeanPolls > 0 {
		o += max(0, e.MeanPolls-b.MeanPolls*(1+1e-12)) / b.MeanPolls
	}
	return o
}

// stepOf is the step of a linear phase of first gap g growing by share r
// of it a poll, rounded to the millisecond (at least 1 ms).
func stepOf(g time.Duration, r float64) time.Duration {
	return max(time.Millisecond, time.Duration(math.Round(float64(g)*r/1e6))*time.Millisecond)
}

// nextStep returns the share of growSteps d = ±1 steps from r (the
// nearest at the ends).
func nextStep(r float64, d int) float64 {
	i := 0
	for j, v := range growSteps {
		if math.Abs(v-r) < math.Abs(growSteps[i]-r) {
			i = j
		}
	}
	return growSteps[min(max(i+d, 0), len(growSteps)-1)]
}

// nearestFactor returns the factor of growFactors nearest f on a log
// scale.
func nearestFactor(f float64) float64 {
	best := growFactors[0]
	for _, v := range growFactors {
		if math.Abs(math.Log(v/f)) < math.Abs(math.Log(best/f)) {
			best = v
		}
	}
	return best
}

// reland returns s with its last repeating phase re-landed on the
// horizon, so that a move earlier in s that shifted that phase off the
// horizon (or made it grow) can still be tried: its gap changed to the
// nice gaps nearest it (one above, one below) that divide what is left to
// the horizon, and the phase stopped at its last poll at least the min gap
// before the horizon, then the closing poll.
func (sp *phaseSpace) reland(s Schedule) []Schedule {
	n := len(s.Phases)
	if n == 0 || s.Phases[n-1].Growth == Once {
		return nil
	}
	h := time.Duration(sp.end) * sp.res
	prev := s.Start
	for _, p := range s.Phases[:n-1] {
		if p.Growth == Once {
			prev = addAge(prev, p.Gap)
		} else {
			prev = p.end(prev)
		}
	}
	rest := h - prev
	if rest <= 0 {
		return nil
	}
	var out []Schedule
	last, p := prev, s.Phases[n-1]
	for kk := 1; ; kk++ {
		g := p.GapAt(kk)
		if g > h-time.Duration(sp.minGap)*sp.res-last {
			break
		}
		last += g
	}
	if last > prev {
		y := s
		y.Phases = slices.Clone(s.Phases)
		y.Phases[n-1].Until = last
		y.Phases = append(y.Phases, Phase{Growth: Once, Gap: h - last})
		out = append(out, y)
	}
	if p.Growth != Fixed {
		return out
	}
	g0 := int(s.Phases[n-1].Gap / sp.res)
	i, _ := slices.BinarySearch(sp.gaps, g0)
	for _, dir := range []int{-1, 1} {
		for j := i; j >= 0 && j < len(sp.gaps); j += dir {
			if g := time.Duration(sp.gaps[j]) * sp.res; sp.gaps[j] != g0 && rest%g == 0 {
				y := s
				y.Phases = slices.Clone(s.Phases)
				y.Phases[n-1].Gap = g
				out = append(out, y)
				break
			}
		}
	}
	return out
}
