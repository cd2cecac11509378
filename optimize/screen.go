package optimize

import (
	"math"
	"slices"
	"sort"
	"time"
)

// Screening the local search's neighbours.
//
// improve tries several hundred neighbours a step, and eval walks each
// one poll by poll (Phase.GapAt, model.at): O(polls) a neighbour, most of
// a plan's time. Nearly all of them lose to the best neighbour found by
// far more than rounding, so screen first estimates each in O(phases) and
// improve evaluates exactly (eval) only those the estimate cannot rule
// out. The moves taken are those of evaluating every neighbour exactly,
// so the schedules found are the same, bit for bit.
//
// The estimate telescopes the gap lags of model.w over the polls
// t_0 < … < t_m = H of a schedule:
//
//	E[lag; T ≤ H] = G(H) − Σ_{i<m} (t_{i+1} − t_i)·F(t_i),
//	E[polls]      = (m + 1) − Σ_{i<m} F(t_i),
//
// and a phase of constant gap g from t_0 making n polls adds to the sums
// F along its progression, Σ_{j<n} F(t_0 + j·g): a difference of prefix
// sums kept per gap on the grid (progTable), plus the CDF's slope in the
// cell times the offset of t_0 in it when the progression lies between
// grid points, as the model is linear there. A growing phase's polls
// (exp, linear) are summed once per rule and start, and kept (growSums).
// A neighbour shares the phases before the first it changes with the
// schedule it moves from, whose walk and sums are recorded phase by
// phase (qrec): it is walked from there. Both sums differ from eval's by rounding only, which
// screenTol bounds.

// screenTol is the relative bound, per poll and per unit of the horizon
// in seconds, on how far screen's figures may lie from eval's: a
// thousand times more than the rounding of either sum (each term of
// either is a few ulps of G(H) ≤ H).
const screenTol = 1e-12

// Limits of what screen keeps: grid cells in prefix-sum tables (16 bytes
// a cell: two tables a gap), growing phases' gaps per phase, and the slots
// of the caches of growing phases' gaps (in front of a map of all) and
// sums (direct-mapped: a phase evicts the one in its slot).
const (
	maxTableCells = 1 << 19
	maxGrowGaps   = 1 << 16
	growSlots     = 1 << 9
	sumSlots      = 1 << 12
)

// screener holds what screen keeps across neighbours for one phaseSpace.
type screener struct {
	tables  map[int]*progTable
	cells   int                 // in tables
	grows   [growSlots]growSlot // in front of growMap
	growMap map[growKey]*growth
	sums    [sumSlots]sumSlot
	segs    []qseg
}

type growSlot struct {
	key  growKey
	gr   *growth // nil: not taken
	full bool
}

type sumSlot struct {
	key growStart
	gs  *growSums
}

// hash mixes a growing phase's rule (and a start) into a slot index.
func (k growKey) hash(t0 time.Duration) uint64 {
	return mix(uint64(k.growth) + uint64(k.gap)*0x9e3779b97f4a7c15 + uint64(k.step)*0xc2b2ae3d27d4eb4f +
		uint64(k.cap)*0x165667b19e3779f9 + math.Float64bits(k.factor)*0x27d4eb2f165667c5 + uint64(t0)*0x94d049bb133111eb)
}

// mix is splitmix64's finalizer (Steele, Lea & Flood 2014): every bit of
// x moves every bit of the result.
func mix(x uint64) uint64 {
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}

// progTable holds prefix sums along the progressions of a gap of c grid
// cells: f[k] = F(t_k) + f[k−c] and s[k] = model.slope(k) + s[k−c] (0
// below 0),
// summed with Neumaier's compensation so that a difference of two is
// within a few ulps.
type progTable struct {
	c    int
	f, s []float64
}

// growKey is a growing phase's rule, which fixes its gaps.
type growKey struct {
	growth         Growth
	gap, step, cap time.Duration
	factor         float64
}

// growth is a growing phase's gaps, GapAt(1), GapAt(2), …, up to the first
// that equals its limit (all later ones do: capped) or until they add up
// past the horizon; cum[i] is the sum of the first i.
type growth struct {
	gaps   []time.Duration
	cum    []time.Duration
	limit  time.Duration
	capped bool
}

// growStart is a growing phase starting from a poll at t0.
type growStart struct {
	growKey
	t0 time.Duration
}

// growSums holds, for a growing phase from t0, f[i] = Σ_{j<i} F(t0 +
// cum[j]) and g[i] = Σ_{j<i} gaps[j]·F(t0 + cum[j]), for as many polls
// as were asked for.
type growSums struct {
	f, g []float64
}

// qseg is one phase of a screened schedule: n polls from a poll at t0, of
// a constant gap or of a growing phase's gaps.
type qseg struct {
	t0  time.Duration
	n   int
	gap time.Duration // Once and Fixed
	gr  *growth       // growing phases
	key growKey
}

func (sp *phaseSpace) screener() *screener {
	if sp.scr != nil {
		return sp.scr
	}
	sc := &screener{tables: map[int]*progTable{}, growMap: map[growKey]*growth{}}
	sp.scr = sc
	return sc
}

// slope is the CDF's slope inside grid cell k, (F(t_{k+1}⁻) − F(t_k))/δ,
// as model.at reads it; 0 in the last.
func (md *model) slope(k int) float64 {
	if k+1 >= md.n() {
		return 0
	}
	return (md.Fm[k+1] - md.F[k]) / md.res
}

// table returns the prefix sums of a gap of c cells, nil when keeping it
// would pass maxTableCells.
func (sc *screener) table(md *model, c int) *progTable {
	if t, ok := sc.tables[c]; ok {
		return t
	}
	n := md.n()
	if sc.cells+n > maxTableCells {
		return nil
	}
	t := &progTable{c: c, f: make([]float64, n), s: make([]float64, n)}
	for r := 0; r < c && r < n; r++ {
		var f, fc, s, sc2 float64
		for k := r; k < n; k += c {
			f, fc = neumaier(f, fc, md.F[k])
			s, sc2 = neumaier(s, sc2, md.slope(k))
			t.f[k], t.s[k] = f+fc, s+sc2
		}
	}
	sc.tables[c] = t
	sc.cells += n
	return t
}

// neumaier adds x to the sum s with compensation c (Neumaier 1974).
func neumaier(s, c, x float64) (float64, float64) {
	t := s + x
	if math.Abs(s) >= math.Abs(x) {
		c += (s - t) + x
	} else {
		c += (x - t) + s
	}
	return t, c
}

// growthOf returns the gaps of growing phase p, nil when screen does not
// take it (gaps that shrink or are not positive, or too many of them):
// eval then decides.
func (sp *phaseSpace) growthOf(sc *screener, p Phase) (*growth, growKey) {
	key := growKey{growth: p.Growth, gap: p.Gap, cap: p.Cap}
	switch p.Growth {
	case Exponential:
		key.factor = p.Factor
	case Linear:
		key.step = p.Step
	default:
		return nil, key
	}
	slot := &sc.grows[key.hash(0)%growSlots]
	if slot.full && slot.key == key {
		return slot.gr, key
	}
	if gr, ok := sc.growMap[key]; ok {
		*slot = growSlot{key: key, gr: gr, full: true}
		return gr, key
	}
	h := time.Duration(sp.end) * sp.res
	gr := &growth{limit: p.limit(), cum: []time.Duration{0}}
	var sum time.Duration
	for kk := 1; ; kk++ {
		g := p.GapAt(kk)
		if g <= 0 || len(gr.gaps) > 0 && g < gr.gaps[len(gr.gaps)-1] || kk > maxGrowGaps {
			gr = nil
			break
		}
		gr.gaps = append(gr.gaps, g)
		sum += g
		gr.cum = append(gr.cum, sum)
		if g == gr.limit {
			gr.capped = true
			break
		}
		if sum > h {
			break
		}
	}
	*slot = growSlot{key: key, gr: gr, full: true}
	sc.growMap[key] = gr
	return gr, key
}

// cumAt returns the sum of the first i gaps; ok is false past the table
// of a phase that is not capped (past the horizon).
func (gr *growth) cumAt(i int) (time.Duration, bool) {
	if i < len(gr.cum) {
		return gr.cum[i], true
	}
	if !gr.capped {
		return 0, false
	}
	m := len(gr.gaps)
	return gr.cum[m] + time.Duration(i-m)*gr.limit, true
}

// gapAt returns the i-th gap (i ≥ 1).
func (gr *growth) gapAt(i int) time.Duration {
	if i <= len(gr.gaps) {
		return gr.gaps[i-1]
	}
	return gr.limit
}

// firstAbove returns the least i ≥ 1 whose cumAt(i) > d, or at least
// strict false the least with cumAt(i) ≥ d; past the table of a phase
// not capped, len(gaps) + 1.
func (gr *growth) firstAbove(d time.Duration, strict bool) int {
	above := func(c time.Duration) bool {
		if strict {
			return c > d
		}
		return c >= d
	}
	m := len(gr.gaps)
	if i := sort.Search(m, func(j int) bool { return above(gr.cum[j+1]) }); i < m {
		return i + 1
	}
	if !gr.capped {
		return m + 1
	}
	// cum[m] + j·limit past d: j > (d − cum[m])/limit.
	rest := d - gr.cum[m]
	j := rest/gr.limit + 1
	if !strict && rest%gr.limit == 0 {
		j = rest / gr.limit
	}
	return m + int(max(j, 1))
}

// qrec is a schedule's quick walk recorded phase by phase, for its
// neighbours to start from: after phase i, its last poll (the phase's
// end), the stuck polls, whether the space's rules for the phases held
// so far (those of the first poll and the number of phases apart), and
// the sums of screen so far.
type qrec struct {
	s      Schedule
	ends   []time.Duration
	stuck  []int
	ok     []bool
	s1, s2 []float64
	fast   bool // false: a phase screen does not take
}

// qwalk is the quick walk's state between phases.
type qwalk struct {
	last  time.Duration
	stuck int
	ok    bool
}

// samePhase reports whether a and b are the same phase.
func samePhase(a, b *Phase) bool {
	return a.Growth == b.Growth && a.Gap == b.Gap && a.Until == b.Until && a.Step == b.Step && a.Factor == b.Factor &&
		a.Cap == b.Cap && a.Exponent == b.Exponent && a.Offsets == nil && b.Offsets == nil
}

// startOK reports whether the first poll and the number of phases of s
// are in the space, as walk checks them.
func (sp *phaseSpace) startOK(s *Schedule, k int) bool {
	h := time.Duration(sp.end) * sp.res
	return s.PhaseCount() <= k && s.Start >= 0 && s.Start <= h && s.Start%(time.Duration(sp.lat)*sp.res) == 0 &&
		sp.starts[int(s.Start/sp.res)/sp.lat]
}

// isNice reports whether g is one of the space's gaps.
func (sp *phaseSpace) isNice(g time.Duration) bool {
	if g%sp.res != 0 {
		return false
	}
	c := int(g / sp.res)
	lo, hi := 0, len(sp.gaps)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if sp.gaps[m] < c {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo < len(sp.gaps) && sp.gaps[lo] == c
}

// step walks phase p from w as walk does, and appends the polls it makes
// to sc.segs (none when it makes none); fast is false when screen does
// not take the phase.
func (sp *phaseSpace) step(sc *screener, w *qwalk, p *Phase, final, grow bool) (fast bool) {
	h := time.Duration(sp.end) * sp.res
	minGap, maxGap := time.Duration(sp.minGap)*sp.res, time.Duration(sp.maxGap)*sp.res
	last := w.last
	switch {
	case p.Growth == Once:
		g := h - last // the closing poll: whatever is left to the horizon
		if !final {
			if !sp.isNice(p.Gap) {
				w.ok = false
			}
			g = p.Gap
		}
		if g <= 0 || g > h-last {
			w.ok = false
			return true
		}
		if g < minGap || maxGap > 0 && g > maxGap {
			w.ok = false
		}
		sc.segs = append(sc.segs, qseg{t0: last, n: 1, gap: g})
		w.last += g
		w.stuck++
		return true
	case p.Growth == Fixed:
		// phaseOK, for a constant gap.
		if !sp.isNice(p.Gap) || last >= p.Until || final != (p.Until == h) {
			w.ok = false
		}
		g := min(p.Gap, MaxGapAt) // GapAt: at most the limit
		if p.Cap > 0 && p.Cap < MaxGapAt && p.Cap < g {
			g = p.Cap
		}
		made := 0
		if d := p.Until - last; d > 0 {
			if g <= 0 {
				w.ok = false
				return true
			}
			if d/g >= MaxPolls {
				return false
			}
			n := int(d / g)
			if d%g != 0 {
				n++
			}
			// The first poll past the horizon is refused, and the phase
			// stops there.
			fail := int((h-last)/g) + 1
			made = min(n, fail-1)
			if fail <= n {
				w.ok = false
			}
		}
		if made > 0 {
			if g < minGap || maxGap > 0 && g > maxGap {
				w.ok = false
			}
			sc.segs = append(sc.segs, qseg{t0: last, n: made, gap: g})
			w.last += time.Duration(made) * g
			w.stuck += made
		}
		if sp.bounds != nil && !final && made != 1 && !slices.Contains(sp.bounds, int(p.Until/sp.res)) {
			w.ok = false
		}
		return true
	}
	if !sp.phaseOK(*p, grow) || last >= p.Until || final != (p.Until == h) {
		w.ok = false
	}
	gr, key := sp.growthOf(sc, *p)
	if gr == nil {
		return false
	}
	made := 0
	if last < p.Until {
		n := gr.firstAbove(p.Until-last, false)
		if n > MaxPolls {
			return false
		}
		fail := gr.firstAbove(h-last, true)
		made = min(n, fail-1)
		if fail <= n {
			w.ok = false
		}
	}
	if made > 0 {
		if gr.gaps[0] < minGap || maxGap > 0 && gr.gapAt(made) > maxGap {
			w.ok = false
		}
		sc.segs = append(sc.segs, qseg{t0: last, n: made, gr: gr, key: key})
		c, _ := gr.cumAt(made)
		w.last += c
		w.stuck += made
	}
	if sp.bounds != nil && !final && !slices.Contains(sp.bounds, int(p.Until/sp.res)) {
		w.ok = false
	}
	return true
}

// prefix returns how many phases s shares with par's schedule, from the
// first, that neither ends (their walk and sums are par's), and the
// walk's state after them; j is 0 without par.
func (sp *phaseSpace) prefix(s *Schedule, par *qrec) (j int, w qwalk, s1, s2 float64) {
	w = qwalk{last: s.Start, stuck: 1, ok: true}
	if par == nil || !par.fast || s.Start != par.s.Start {
		return 0, w, 0, 0
	}
	lim := min(len(s.Phases), len(par.s.Phases)) - 1
	for j < lim && samePhase(&s.Phases[j], &par.s.Phases[j]) {
		j++
	}
	if j == 0 {
		return 0, w, 0, 0
	}
	return j, qwalk{last: par.ends[j-1], stuck: par.stuck[j-1], ok: par.ok[j-1]}, par.s1[j-1], par.s2[j-1]
}

// record walks s from what it shares with par (nil: none) and records
// the walk and the sums phase by phase in rec.
func (sp *phaseSpace) record(s Schedule, grow bool, par, rec *qrec) {
	sc := sp.screener()
	j, w, s1, s2 := sp.prefix(&s, par)
	rec.s, rec.fast = s, true
	rec.ends, rec.stuck, rec.ok, rec.s1, rec.s2 = rec.ends[:0], rec.stuck[:0], rec.ok[:0], rec.s1[:0], rec.s2[:0]
	if j > 0 {
		rec.ends = append(rec.ends, par.ends[:j]...)
		rec.stuck = append(rec.stuck, par.stuck[:j]...)
		rec.ok = append(rec.ok, par.ok[:j]...)
		rec.s1 = append(rec.s1, par.s1[:j]...)
		rec.s2 = append(rec.s2, par.s2[:j]...)
	}
	n := len(s.Phases)
	for i := j; i < n; i++ {
		sc.segs = sc.segs[:0]
		if !sp.step(sc, &w, &s.Phases[i], i == n-1, grow) {
			rec.fast = false
			return
		}
		a, b := sp.sums(sc)
		s1 += a
		s2 += b
		rec.ends = append(rec.ends, w.last)
		rec.stuck = append(rec.stuck, w.stuck)
		rec.ok = append(rec.ok, w.ok)
		rec.s1 = append(rec.s1, s1)
		rec.s2 = append(rec.s2, s2)
	}
}

// sums returns Σ F(t_i) and Σ (t_{i+1} − t_i)·F(t_i) over the polls of
// the phases in sc.segs but the last, seconds for the second.
func (sp *phaseSpace) sums(sc *screener) (s1, s2 float64) {
	for _, sg := range sc.segs {
		if sg.gr == nil {
			f := sp.progF(sc, sg.t0, sg.gap, sg.n)
			s1 += f
			s2 += sg.gap.Seconds() * f
			continue
		}
		n1 := min(sg.n, len(sg.gr.gaps))
		gs := sp.growSumsOf(sc, sg, n1)
		s1 += gs.f[n1]
		s2 += gs.g[n1]
		if rest := sg.n - n1; rest > 0 { // the capped part: a constant gap
			c, _ := sg.gr.cumAt(n1)
			f := sp.progF(sc, sg.t0+c, sg.gr.limit, rest)
			s1 += f
			s2 += sg.gr.limit.Seconds() * f
		}
	}
	return s1, s2
}

// growSumsOf returns the kept sums of growing phase sg from its start,
// for its first n polls at least (made polls: up to the horizon).
func (sp *phaseSpace) growSumsOf(sc *screener, sg qseg, n int) *growSums {
	key := growStart{sg.key, sg.t0}
	slot := &sc.sums[sg.key.hash(sg.t0)%sumSlots]
	if slot.gs == nil {
		slot.gs = &growSums{}
	}
	if slot.key != key || len(slot.gs.f) == 0 { // evict: its memory is reused
		slot.key = key
		slot.gs.f, slot.gs.g = append(slot.gs.f[:0], 0), append(slot.gs.g[:0], 0)
	}
	gs := slot.gs
	gr := sg.gr
	f1, f2 := gs.f[len(gs.f)-1], gs.g[len(gs.g)-1]
	for j := len(gs.f) - 1; j < n; j++ {
		f := sp.fAt(sc, sg.t0+gr.cum[j])
		f1 += f
		f2 += gr.gaps[j].Seconds() * f
		gs.f = append(gs.f, f1)
		gs.g = append(gs.g, f2)
	}
	return gs
}

// fAt returns F(t) on the model, t within the horizon: model.at, from
// the cell's slope where t is not within a billionth of a cell of a grid
// point (see progF).
func (sp *phaseSpace) fAt(sc *screener, t time.Duration) float64 {
	md, res := sp.md, sp.res
	if t < 0 {
		return 0 // before creation (a first poll moved before 0: not in the space)
	}
	k, phi := int(t/res), t%res
	if phi != 0 {
		margin := res/(1<<26) + 2 + t>>50
		if k+1 >= md.n() || phi < margin || res-phi < margin || md.n() > maxTableCells {
			f, _ := md.at(t.Seconds())
			return f
		}
		return md.F[k] + md.slope(k)*phi.Seconds()
	}
	if k >= md.n() || md.n() > maxTableCells {
		f, _ := md.at(t.Seconds())
		return f
	}
	return md.F[k]
}

// progF returns Σ_{j<n} F(t0 + j·g) on the model.
func (sp *phaseSpace) progF(sc *screener, t0, g time.Duration, n int) float64 {
	md := sp.md
	if n <= 2 || g%sp.res != 0 || t0 < 0 {
		return sp.pollF(t0, g, n)
	}
	res := sp.res
	k0, phi := int(t0/res), t0%res
	c := int(g / res)
	kl := k0 + (n-1)*c
	last := md.n() - 1
	// Between grid points, the model reads the cell below unless the
	// offset is within a billionth of a cell of either end (model.at):
	// those, and polls past the grid, are read one by one.
	margin := res/(1<<26) + 2 + (t0+time.Duration(n)*g)>>50
	if kl > last || phi != 0 && (kl >= last || phi < margin || res-phi < margin) {
		return sp.pollF(t0, g, n)
	}
	t := sc.table(md, c)
	if t == nil {
		return sp.pollF(t0, g, n)
	}
	f, s := t.f[kl], t.s[kl]
	if k0 >= c {
		f -= t.f[k0-c]
		s -= t.s[k0-c]
	}
	if phi == 0 {
		return f
	}
	return f + phi.Seconds()*s
}

// pollF is progF poll by poll.
func (sp *phaseSpace) pollF(t0, g time.Duration, n int) float64 {
	var sum float64
	for j := range n {
		f, _ := sp.md.at((t0 + time.Duration(j)*g).Seconds())
		sum += f
	}
	return sum
}

// screen reports whether s is in the space (valid) and whether eval must
// decide on it (exact): when improve's test, that s meets b with an
// objective below thr, could hold, or when screen cannot tell. s is
// ruled out without eval when it is not in the space, spends more stuck
// polls than b, or its estimated mean polls or objective, within
// screenTol, pass b or thr. The phases s shares with par's schedule
// (nil: none) are par's.
func (sp *phaseSpace) screen(s Schedule, k int, grow bool, b Budget, thr float64, par *qrec) (valid, exact bool) {
	sc := sp.screener()
	j, w, s1, s2 := sp.prefix(&s, par)
	sc.segs = sc.segs[:0]
	n := len(s.Phases)
	for i := j; i < n; i++ {
		if !sp.step(sc, &w, &s.Phases[i], i == n-1, grow) {
			return false, true
		}
	}
	if !w.ok || !sp.startOK(&s, k) || w.last != time.Duration(sp.end)*sp.res {
		return false, false
	}
	stuck := w.stuck
	if b.StuckPolls > 0 && stuck > b.StuckPolls {
		return true, false
	}
	a, c := sp.sums(sc)
	s1 += a
	s2 += c
	md := sp.md
	lag := md.G[md.n()-1] - s2
	mean := float64(stuck) - s1
	tolMean := screenTol * float64(stuck+64)
	tolLag := tolMean * max(1, md.t[md.n()-1])
	if b.MeanPolls > 0 && mean-tolMean > b.MeanPolls*(1+1e-12) {
		return true, false
	}
	obj := lag + b.PollCost*mean + tieBreak*float64(stuck)
	if obj-(tolLag+b.PollCost*tolMean) >= thr {
		return true, false
	}
	return true, true
}

// pollsOf returns the polls of s, from its quick walk, appended to
// dst[:0]; ok is false when screen does not take one of its phases.
func (sp *phaseSpace) pollsOf(s Schedule, grow bool, dst []time.Duration) ([]time.Duration, bool) {
	sc := sp.screener()
	sc.segs = sc.segs[:0]
	w := qwalk{last: s.Start, stuck: 1, ok: true}
	n := len(s.Phases)
	for i := range s.Phases {
		if !sp.step(sc, &w, &s.Phases[i], i == n-1, grow) {
			return dst[:0], false
		}
	}
	dst = append(dst[:0], s.Start)
	for _, sg := range sc.segs {
		for j := 1; j <= sg.n; j++ {
			if sg.gr == nil {
				dst = append(dst, sg.t0+time.Duration(j)*sg.gap)
			} else {
				c, _ := sg.gr.cumAt(j)
				dst = append(dst, sg.t0+c)
			}
		}
	}
	return dst, true
}
