package fit

import (
	"cmp"
	"math"
	"slices"
	"sync"

	"github.com/pollfit/pollfit/internal/bulk"
	"gonum.org/v1/gonum/mathext"
)

// Spike detection.
//
// A deadline (a prompt that times out at 60 s, a job killed at its time
// limit) piles items into a narrow stretch just after it: not one repeated
// value, so the exact-value atom test (atoms.go) does not see it, yet far
// narrower than any kernel bandwidth, so a KDE smooths it away. The spike
// test is the atom test on cells of constant relative width: cells of
// width c in ln t (c = 0.01, 0.02, 0.04, each at offsets 0 and c/2, laid
// from the smallest time up so that they fall alike in every unit), so a
// cell at t spans about c·t seconds. A cell is a candidate when, with c items
// in it and μ the smooth expectation from the least-squares line through
// the counts of the 5 neighbouring cells on each side,
//
//	c ≥ AtomMinCount, c ≥ SpikeMinRatio·μ (3), (c − μ) mass ≥ AtomMinMass,
//	P(Poisson(μ) ≥ c) ≤ AtomAlpha/m  (Bonferroni over the m cells tested).
//
// The ratio is 3, not the atom test's 2, because a step in the density
// (every item settles after 5 s, none before) gives a cell at the step at
// most twice the line through its neighbours; a spike, whose excess sits
// in one cell with low neighbours on both sides, gives far more. Cells
// narrower than 10 data resolutions are not tested, so that whole-second
// data do not alias (one or two whole seconds per cell). Of the flagged
// cells, the one with the largest excess mass is kept first, then the
// next that does not overlap a kept one, and so on; the widest cells
// catch a spike whole. A candidate stays a spike only where it brings the
// fit closer to data not used to fit it (spikecv.go): a narrow smooth
// mode flags cells too. The mass above the background around the cell
// then leaves the smooth part (spikeSet) and becomes an Atom of Width > 0
// over the 5 % to 95 % range of that mass, shaped as the truncated
// exponential with that mass's mean (see Atom).
const SpikeMinRatio = 3.0

// spikeCells are the cell widths in ln t; the widest is about 4 % of t.
var spikeCellWidths = []float64{0.01, 0.02, 0.04}

// spikeScreen is the sample size above which the cells are tested on a
// subsample: the cell counts decide the spike's share of its cell's items,
// so it is larger than the atom screen, which only finds candidates.
const spikeScreen = 1 << 18

// spikeMinCell is the least cell width, in data resolutions, tested.
const spikeMinCell = 10

// spikeCell is a cell of ln t flagged by the spike rule.
type spikeCell struct {
	lo, hi float64 // ln t bounds, [lo, hi)
	excess float64 // the spike's mass
	p      float64 // P(Poisson(μ) ≥ c)
}

// spikeSet is the spikes found and, for each, the region of t whose items
// give it a share.
//
// A spike takes the mass above the smooth background: over its region
// (its cell and one more on each side, for the tails), in spikeSub
// sub-cells per cell, an item keeps the share bg/c of its sub-cell, where c
// is the sub-cell's count and bg the background there, the least-squares
// line through the counts of the cells 2 to 5 away on each side (all from
// the screened sample). What stays in the smooth part then follows that
// line across the region: scaling every item in the cell by one factor
// left the spike's own shape, shrunk, which ISJ resolved on 10⁷ items
// (bandwidth 0.0036 on the payments generator's 10M rows, against 0.013
// with the spike's stretch left out of the data).
type spikeSet struct {
	atoms  []Atom // Width and T set; Mass set by take's callers
	region []spikeRegion
}

// spikeRegion is where one spike takes its share.
type spikeRegion struct {
	lo, hi float64   // bounds in t, [lo, hi)
	lnLo   float64   // ln lo
	perLn  float64   // sub-cells per unit of ln t
	keep   []float64 // share an item keeps, by sub-cell
	// edges are the sub-cells' inner bounds in t, exp(lnLo + j/perLn) for
	// j = 1 … len(keep) − 1: take finds an item's sub-cell by binary
	// search on them rather than by a logarithm per item (on 10⁷ items
	// that logarithm was a tenth of the fit's CPU).
	edges []float64
}

// spikeSub is the number of sub-cells per cell of a spike's region.
const spikeSub = 16

// take returns what is left of mass w of an item at v once the spikes
// have their share, and adds each spike's share to sum[k].
func (s *spikeSet) take(v, w float64, sum []float64) float64 {
	for k := range s.region {
		r := &s.region[k]
		if v >= r.lo && v < r.hi {
			// j: the number of inner edges at or below v.
			j, n := 0, len(r.edges)
			for j < n {
				h := int(uint(j+n) >> 1)
				if r.edges[h] <= v {
					j = h + 1
				} else {
					n = h
				}
			}
			sum[k] += w * (1 - r.keep[j])
			w *= r.keep[j]
		}
	}
	return w
}

// apply returns the masses of items t (m nil: 1/len(t) each) with the
// spikes' shares taken out, on all cores, and sets the spikes' masses;
// the masses are summed per chunk, then in chunk order.
func (s *spikeSet) apply(t, m []float64) []float64 {
	n := len(t)
	out := bulk.Make[float64](n, n)
	part := make([][]float64, bulk.NumChunks(n))
	unit := 1 / float64(n)
	bulk.Chunks(n, func(ch, a, b int) {
		sum := make([]float64, len(s.atoms))
		for i := a; i < b; i++ {
			w := unit
			if m != nil {
				w = m[i]
			}
			out[i] = s.take(t[i], w, sum)
		}
		part[ch] = sum
	})
	s.setMasses(part)
	return out
}

// setMasses sets each spike's mass to the sum of the chunks' shares.
func (s *spikeSet) setMasses(part [][]float64) {
	for k := range s.atoms {
		s.atoms[k].Mass = 0
		for _, sum := range part {
			s.atoms[k].Mass += sum[k]
		}
	}
}

// spikeCandidates applies the spike rule to settled items t with masses
// m (see masses) and count weights k (nil: 1 each; an item partly
// taken by an exact atom counts for the share left in the smooth part),
// at data resolution delta, and returns the cells flagged and the sample
// they were tested on: for n > 2¹⁸ an evenly strided subsample of 2¹⁸
// items (the masses scaled to the whole), on which the regions' shares and
// the spikes' extents are then measured too. Items at t ≤ 0 are never in
// a spike. Which of the cells stay spikes is for keepSpikes to decide.
func spikeCandidates(t []float64, m masses, k []float64, delta float64) (cells []spikeCell, st, sm, sk []float64) {
	n := len(t)
	if n < AtomMinCount {
		return nil, nil, nil, nil
	}
	if n <= spikeScreen {
		st, sm, sk = t, m.perItem(t), k
	} else {
		st, sm, sk = make([]float64, spikeScreen), make([]float64, spikeScreen), make([]float64, spikeScreen)
		step := float64(n) / spikeScreen
		// A strided read of a large sample misses the cache at every
		// item: on both cores.
		var wg sync.WaitGroup
		for half := range 2 {
			wg.Go(func() {
				j0 := half * spikeScreen / 2
				mc := m.cursor(t, int(float64(j0)*step))
				for j := j0; j < (half+1)*spikeScreen/2; j++ {
					i := int(float64(j) * step)
					st[j], sm[j], sk[j] = t[i], mc.of(i)*step, 1
					if k != nil {
						sk[j] = k[i]
					}
				}
			})
		}
		wg.Wait()
	}
	return flagSpikeCells(st, sm, sk, delta), st, sm, sk
}

// spikesOf measures the spikes of the cells on the sample t with masses m
// and count weights k (spikeRegionOf) and returns them, or nil when none
// has mass above the background there. The spikes' masses are set when
// their share is taken (spikeSet.apply, preBin).
func spikesOf(cells []spikeCell, t, m, k []float64) *spikeSet {
	s := &spikeSet{}
	for _, c := range cells {
		if r, atom, ok := spikeRegionOf(c, t, m, k); ok {
			s.atoms = append(s.atoms, atom)
			s.region = append(s.region, r)
		}
	}
	if len(s.atoms) == 0 {
		return nil
	}
	return s
}

// spikeRegionOf measures the region around flagged cell c on the sample
// (t, masses m, count weights k): the share each sub-cell keeps (see
// spikeSet) and the spike's extent. It reports false when no mass stands
// above the background there.
func spikeRegionOf(c spikeCell, t, m, k []float64) (spikeRegion, Atom, bool) {
	w := c.hi - c.lo // cell width in ln t
	const near, far = 1, 5
	lnLo := c.lo - near*w
	nsub := (2*near + 1) * spikeSub
	cnt := make([]float64, nsub)
	mass := make([]float64, nsub)
	var cells [2*far + 1]float64 // counts by offset −far…far from c
	lo, hi := math.Exp(c.lo-far*w), math.Exp(c.hi+far*w)
	n := len(t)
	type item struct {
		t, m float64
		j    int // sub-cell
	}
	var items []item // in the region
	for i, v := range t {
		if v < lo || v >= hi {
			continue
		}
		y := math.Log(v)
		kw := 1.0
		if k != nil {
			kw = k[i]
		}
		off := int(math.Floor((y - c.lo) / w))
		if off < -far || off > far {
			continue
		}
		cells[off+far] += kw
		if off >= -near && off <= near {
			j := min(max(int((y-lnLo)/w*spikeSub), 0), nsub-1)
			cnt[j] += kw
			mass[j] += massOf(m, i, n)
			items = append(items, item{v, massOf(m, i, n), j})
		}
	}
	// The background line a + b·x (count per cell at offset x, in cells)
	// through the cells near+1…far away on each side.
	var sx, sy, sxx, sxy, np float64
	for off := -far; off <= far; off++ {
		if off >= -near && off <= near {
			continue
		}
		x, y := float64(off), cells[off+far]
		sx, sy, sxx, sxy, np = sx+x, sy+y, sxx+x*x, sxy+x*y, np+1
	}
	b := (np*sxy - sx*sy) / (np*sxx - sx*sx)
	a := (sy - b*sx) / np
	r := spikeRegion{lo: math.Exp(lnLo), hi: math.Exp(c.hi + near*w), lnLo: lnLo, perLn: spikeSub / w, keep: make([]float64, nsub)}
	r.edges = make([]float64, nsub-1)
	for j := range r.edges {
		r.edges[j] = math.Exp(lnLo + float64(j+1)/r.perLn)
	}
	taken := make([]float64, nsub)
	total := 0.0
	for j := range nsub {
		x := -float64(near) - 0.5 + (float64(j)+0.5)/spikeSub // sub-cell centre, in cells from c's centre
		bg := max(0, a+b*x) / spikeSub
		r.keep[j] = 1
		if cnt[j] > bg {
			r.keep[j] = bg / cnt[j]
		}
		taken[j] = mass[j] * (1 - r.keep[j])
		total += taken[j]
	}
	if total <= 0 {
		return r, Atom{}, false
	}
	// The extent: where the mass taken passes 5 % and 95 %, item by item
	// (a sub-cell, 1/16 of a cell, is up to 0.15 s at 60 s: ends snapped to
	// sub-cells put a deadline's onset 0.1 s early).
	slices.SortFunc(items, func(a, b item) int { return cmp.Compare(a.t, b.t) })
	var cum float64
	start, end := math.NaN(), items[len(items)-1].t
	for _, it := range items {
		cum += it.m * (1 - r.keep[it.j])
		if math.IsNaN(start) && cum >= 0.05*total {
			start = it.t
		}
		if cum >= 0.95*total {
			end = it.t
			break
		}
	}
	if !(end > start) {
		return r, Atom{}, false
	}
	// The shape: the truncated exponential on [start, end] whose mean is
	// that of the mass taken there.
	var sum, mean float64
	for _, it := range items {
		if it.t >= start && it.t <= end {
			v := it.m * (1 - r.keep[it.j])
			sum += v
			mean += v * (it.t - start)
		}
	}
	rate := truncExpRate(mean/sum/(end-start)) / (end - start)
	return r, Atom{T: end, Width: end - start, Rate: rate}, true
}

// truncExpRate returns the u for which the exponential density ∝ e^(−u·x)
// truncated to [0, 1] has mean m: the maximum-likelihood rate (times the
// width) of a truncated exponential whose sample mean is m·width, an
// exponential family on the interval (Johnson, Kotz & Balakrishnan 1994,
// Continuous Univariate Distributions 1, §19.5). Its mean 1/u − 1/(eᵘ − 1)
// falls from 1 (u → −∞) through ½ (u = 0: even) to 0 (u → ∞); u is
// bounded to ±50 (a mean within 2 % of an end).
func truncExpRate(m float64) float64 {
	mean := func(u float64) float64 {
		if math.Abs(u) < 1e-6 {
			return 0.5 - u/12 // the series 1/2 − u/12 + O(u³)
		}
		return 1/u - 1/math.Expm1(u)
	}
	lo, hi := -50.0, 50.0
	switch {
	case m >= mean(lo):
		return lo
	case m <= mean(hi):
		return hi
	}
	return bisect(func(u float64) float64 { return mean(u) - m }, lo, hi, 1e-9)
}

// flagSpikeCells returns the cells of ln t that pass the spike rule, none
// overlapping another, in ascending order; see findSpikes for arguments.
func flagSpikeCells(t, m, k []float64, delta float64) []spikeCell {
	n := len(t)
	// The cells are laid from the smallest time up, in y = ln(t/tmin), so
	// that they fall alike on data in any unit (cells at multiples of c
	// in ln t fell differently on the same data in ms and in s).
	tmin, tmax := math.Inf(1), 0.0
	for _, v := range t {
		// Plain comparisons: min and max handle NaN and ±0, which v > 0
		// excludes, at three times the cost (a third of this pass).
		if v > 0 {
			if v < tmin {
				tmin = v
			}
			if v > tmax {
				tmax = v
			}
		}
	}
	if math.IsInf(tmin, 1) {
		return nil
	}
	y0 := math.Log(tmin)
	// Every cell comes from one index per item: with c₀ the narrowest
	// width and F = ⌊2·y/c₀⌋, the cell of width c₀·2^s at offset 0 is
	// F >> (s+1) and at offset c/2 it is (F − 2^s) >> (s+1), the same
	// floors as ⌊y/c − off⌋ (y/(2^s·c₀) is (y/c₀)/2^s exactly, and so is
	// the half-cell shift). F < 0 marks items at t ≤ 0. On both cores.
	c0 := spikeCellWidths[0]
	F := int32Scratch.get(n) // every F[i] is written below
	defer int32Scratch.put(F)
	// Each part also notes its largest F (fhi, at least 0), so that F is
	// not read again for it.
	var wg sync.WaitGroup
	var tops [2]int32
	cell := func(a, b int, top *int32) {
		hi := int32(0)
		for i := a; i < b; i++ {
			f := int32(-1)
			if v := t[i]; v > 0 {
				f = int32(math.Floor(2 * (math.Log(v/tmin) / c0)))
			}
			F[i] = f
			hi = max(hi, f)
		}
		*top = hi
	}
	if hc := newHalfCells(tmin, tmax, c0/2, n); hc != nil {
		cell = func(a, b int, top *int32) {
			hi := int32(0)
			for i := a; i < b; i++ {
				f := int32(-1)
				if v := t[i]; v > 0 {
					f = int32(hc.of(v))
				}
				F[i] = f
				hi = max(hi, f)
			}
			*top = hi
		}
	}
	if n >= 1<<15 {
		wg.Go(func() { cell(0, n/2, &tops[0]) })
		cell(n/2, n, &tops[1])
		wg.Wait()
	} else {
		cell(0, n, &tops[0])
	}
	fhi := int64(max(tops[0], tops[1]))
	var flagged []spikeCell
	tests := 0
	const K = atomCells
	type config struct {
		c, off    float64
		shift     uint
		sub, base int64
		cnt, mass []float64
	}
	var cfgs []config
	for _, c := range spikeCellWidths {
		s := uint(math.Round(math.Log2(c / c0)))
		if c != c0*float64(int64(1)<<s) {
			panic("fit: spike cell widths must be the first times powers of 2")
		}
		for _, off := range []float64{0, 0.5} {
			sub := int64(0)
			if off > 0 {
				sub = 1 << s
			}
			// K empty cells of margin below the cell of y = 0.
			base := ((0 - sub) >> (s + 1)) - K
			hiCell := (fhi - sub) >> (s + 1)
			nc := hiCell - base + K + 1
			if nc > 1<<22 { // absurd spans (1e-300 s to 1e300 s): nothing to learn
				continue
			}
			cfgs = append(cfgs, config{c: c, off: off, shift: s + 1, sub: sub, base: base,
				cnt: zeroed(int(nc)), mass: zeroed(int(nc))})
		}
	}
	// Counts and masses by half-cell of c₀/2 (F), then each cell's as the
	// sum of its half-cells.
	hc, hm := zeroed(int(fhi)+1), zeroed(int(fhi)+1)
	defer func() {
		for _, cf := range cfgs {
			floatScratch.put(cf.cnt)
			floatScratch.put(cf.mass)
		}
		floatScratch.put(hc)
		floatScratch.put(hm)
	}()
	unit := 1 / float64(n) // massOf's mass when m is nil, divided once
	for i, f := range F {
		if f < 0 {
			continue
		}
		ki, mi := 1.0, unit
		if k != nil {
			ki = k[i]
		}
		if m != nil {
			mi = m[i]
		}
		hc[f] += ki
		hm[f] += mi
	}
	for q := range cfgs {
		cf := &cfgs[q]
		for f := range hc {
			j := (int64(f)-cf.sub)>>cf.shift - cf.base
			cf.cnt[j] += hc[f]
			cf.mass[j] += hm[f]
		}
	}
	for _, cf := range cfgs {
		c, off, cnt, mass := cf.c, cf.off, cf.cnt, cf.mass
		base, nc := float64(cf.base), len(cnt)
		for j := K; j < nc-K; j++ {
			if cnt[j] < AtomMinCount {
				continue
			}
			lo := (float64(j)+base+off)*c + y0
			if delta > 0 && math.Exp(lo)*math.Expm1(c) < spikeMinCell*delta {
				continue
			}
			tests++
			mu := lineAtZero(cnt[j-K:j+K+1], K)
			share := (cnt[j] - mu) / cnt[j]
			if cnt[j] < SpikeMinRatio*mu || mass[j]*share < AtomMinMass {
				continue
			}
			p := 0.0
			if mu > 0 {
				p = mathext.GammaIncReg(cnt[j], mu)
			}
			flagged = append(flagged, spikeCell{lo: lo, hi: lo + c, excess: mass[j] * share, p: p})
		}
	}
	slices.SortStableFunc(flagged, func(a, b spikeCell) int { return cmp.Compare(b.excess, a.excess) })
	var kept []spikeCell
	for _, f := range flagged {
		if f.p > AtomAlpha/float64(tests) ||
			slices.ContainsFunc(kept, func(g spikeCell) bool { return f.lo < g.hi && g.lo < f.hi }) {
			continue
		}
		kept = append(kept, f)
	}
	slices.SortFunc(kept, func(a, b spikeCell) int { return cmp.Compare(a.lo, b.lo) })
	return kept
}

// halfCells finds the half-cell F = ⌊ln(v/tmin)/e⌋ of a time v in
// [tmin, tmax] without a logarithm (a tenth of the spike screen's time):
// the half-cells' lower ends tmin·e^(F·e) are tabled, and so is the
// half-cell of the lower end of each bucket of v's float bits (2⁹ per
// binade, of relative width 0.002 or less, under e^e − 1 for e ≥ 0.002:
// a bucket holds at most one cell end, one comparison). At the cell ends
// the two ways round apart, so an item within 10⁻¹⁶ of an end may fall
// on its other side.
type halfCells struct {
	ends  []float64 // tmin·e^(F·e), F = 0 … last + 1
	start []int64   // half-cell of each bucket's lower end
	k0    uint64
}

// halfCellShift keeps the exponent and 9 mantissa bits of a float64.
const halfCellShift = 52 - 9

// newHalfCells returns the table for half-cells of width e to look up n
// times, or nil when it would cost more than n logarithms (more buckets
// than n/4: 512 a binade) or e is too narrow for the buckets.
func newHalfCells(tmin, tmax, e float64, n int) *halfCells {
	k0, k1 := math.Float64bits(tmin)>>halfCellShift, math.Float64bits(tmax)>>halfCellShift
	if k1-k0 >= uint64(n/4) || math.Expm1(e) < 1.0/(1<<9) {
		return nil
	}
	last := int64(math.Floor(math.Log(tmax/tmin)/e)) + 1
	hc := &halfCells{ends: make([]float64, last+2), start: make([]int64, k1-k0+1), k0: k0}
	for f := range hc.ends {
		hc.ends[f] = tmin * math.Exp(float64(f)*e)
	}
	f := int64(0)
	for k := range hc.start {
		lo := math.Float64frombits((k0 + uint64(k)) << halfCellShift)
		for f+1 < int64(len(hc.ends)) && hc.ends[f+1] <= lo {
			f++
		}
		hc.start[k] = f
	}
	return hc
}

// of returns the half-cell of v in [tmin, tmax].
func (hc *halfCells) of(v float64) int64 {
	f := hc.start[math.Float64bits(v)>>halfCellShift-hc.k0]
	for f+1 < int64(len(hc.ends)) && hc.ends[f+1] <= v {
		f++
	}
	return f
}
