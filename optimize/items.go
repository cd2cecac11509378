package optimize

import (
	"fmt"
	"math"
	"slices"
	"sort"
)

// Items is a set of observed items prepared for scoring schedules: their
// distinct settle times, sorted once, with prefix sums of weight and
// weight·time at each, so that scoring a schedule of G polls costs
// O(G log d) whatever the number of items, d the number of distinct
// settle times. Items settling at the same time are caught by the same
// poll, so they are kept as one entry: 10⁷ items at millisecond
// resolution have about 10⁶ distinct times (docs/performance.md, Memory).
//
// Right-censored items (still pending at their last observed age) are
// handled by Efron's redistribute-to-the-right algorithm, which reproduces
// the Kaplan–Meier estimate (Efron 1967, "The two sample problem with
// censored data"): the weight of an item censored at age c moves in equal
// shares to every item observed later. Weight left on censored items at
// the end (nothing observed after them) is of items that never settle
// within what was observed: they count as not caught.
type Items struct {
	t        []float64 // distinct settle times of settled items, seconds, ascending
	cumW     []float64 // cumW[j] = Σ weight of the items settled before t[j]
	cumWT    []float64 // cumWT[j] = Σ weight·time of the items settled before t[j]
	cumN     []float64 // cumN[j] = Σ given weight of those items, before redistribution (items; nil: cumW)
	pending  float64   // weight of items never observed to settle
	total    float64   // all weight
	n        int       // rows given, censored included
	censored int       // censored rows given
}

// NewItems prepares settle times (seconds since creation, ≥ 0) for scoring.
// censored[i] marks item i as still pending at age settle[i]; weight[i]
// is its weight (a count for binned data). Either slice may be nil (none
// censored; weight 1 each). It panics if the lengths differ or a value is
// negative or NaN: callers validate data on reading. The slices are not
// modified or kept.
func NewItems(settle []float64, censored []bool, weight []float64) *Items {
	return newItems(settle, censored, weight, false)
}

// NewItemsReorder is NewItems for a caller that does not read settle and
// censored again: without weights it sorts them in place (the settled
// items first, then the censored ones, each by time) instead of sorting
// copies, which are the memory of the times (8 bytes an item) at the peak
// of a plan on held-out rows (docs/performance.md, Memory). The Items are
// the same as NewItems's: the same floats, sorted and summed in the same
// order.
func NewItemsReorder(settle []float64, censored []bool, weight []float64) *Items {
	return newItems(settle, censored, weight, true)
}

func newItems(settle []float64, censored []bool, weight []float64, inPlace bool) *Items {
	n := len(settle)
	if (censored != nil && len(censored) != n) || (weight != nil && len(weight) != n) {
		panic("optimize: NewItems: settle, censored and weight lengths differ")
	}
	it := &Items{n: n}
	type row struct {
		t    float64
		w    float64
		base float64 // the weight given: items the row stands for
		cens bool
	}
	hasCens := false
	for _, c := range censored {
		if c {
			hasCens = true
			it.censored++
		}
	}
	if !hasCens && weight == nil {
		// Fast path: no censoring, unit weights.
		ev := settle
		if !inPlace {
			ev = slices.Clone(settle)
		}
		for _, v := range ev {
			if !(v >= 0) {
				panic(fmt.Sprintf("optimize: NewItems: settle time %v is negative or NaN", v))
			}
		}
		slices.Sort(ev)
		it.grow(ev, false)
		for _, v := range ev {
			it.add(v, 1, 1)
		}
		it.total = float64(n)
		return it.done()
	}
	if weight == nil {
		return it.censoredUnit(settle, censored, inPlace)
	}
	rows := make([]row, n)
	for i, v := range settle {
		if !(v >= 0) {
			panic(fmt.Sprintf("optimize: NewItems: settle time %v is negative or NaN", v))
		}
		rows[i] = row{t: v, w: 1}
		if weight != nil {
			rows[i].w = weight[i]
		}
		rows[i].base = rows[i].w
		if censored != nil {
			rows[i].cens = censored[i]
		}
	}
	// Events before censorings at equal times, as Kaplan–Meier does.
	sort.Slice(rows, func(i, j int) bool {
		if rows[i].t != rows[j].t {
			return rows[i].t < rows[j].t
		}
		return !rows[i].cens && rows[j].cens
	})
	// Redistribute to the right: a censored row's weight is shared equally
	// (per unit of weight) by all rows after it.
	suffix := make([]float64, n+1)
	for i := n - 1; i >= 0; i-- {
		suffix[i] = suffix[i+1] + rows[i].w
	}
	perUnit := 0.0 // extra weight per unit of base weight, accumulated
	for i := range rows {
		base := rows[i].w
		rows[i].w = base * (1 + perUnit)
		if rows[i].cens && suffix[i+1] > 0 {
			perUnit += rows[i].w / suffix[i+1]
			rows[i].w = 0
		}
	}
	it.t = make([]float64, 0, n-it.censored)
	it.cumW = make([]float64, 1, n-it.censored+1)
	it.cumWT = make([]float64, 1, n-it.censored+1)
	it.cumN = make([]float64, 1, n-it.censored+1)
	for _, r := range rows {
		it.total += r.w
		if r.cens {
			it.pending += r.w
			continue
		}
		it.add(r.t, r.w, r.base)
	}
	return it.done()
}

// grow sizes the tables for the distinct values of the sorted times ev,
// with the given-weight sums cumN when withN.
func (it *Items) grow(ev []float64, withN bool) {
	d := 0
	for i, v := range ev {
		if i == 0 || v != ev[i-1] {
			d++
		}
	}
	it.t = make([]float64, 0, d)
	it.cumW = make([]float64, 1, d+1)
	it.cumWT = make([]float64, 1, d+1)
	if withN {
		it.cumN = make([]float64, 1, d+1)
	}
}

// add appends a settled item at time v ≥ the last one added, of weight w
// (after redistribution) and given weight base. An item at the last time
// added joins its entry. The sums are taken item by item, in order, so
// that each entry's prefix sums are those the items would have one by one.
func (it *Items) add(v, w, base float64) {
	k := len(it.t)
	if k == 0 || it.t[k-1] != v {
		it.t = append(it.t, v)
		it.cumW = append(it.cumW, it.cumW[k])
		it.cumWT = append(it.cumWT, it.cumWT[k])
		if it.cumN != nil {
			it.cumN = append(it.cumN, it.cumN[k])
		}
		k++
	}
	it.cumW[k] += w
	it.cumWT[k] += w * v
	if it.cumN != nil {
		it.cumN[k] += base
	}
}

// done trims the tables to their length: the general path sizes them for
// one entry per item.
func (it *Items) done() *Items {
	if cap(it.t) > len(it.t) {
		it.t = slices.Clone(it.t)
		it.cumW = slices.Clone(it.cumW)
		it.cumWT = slices.Clone(it.cumWT)
		it.cumN = slices.Clone(it.cumN)
	}
	return it
}

// censoredUnit is NewItems for unit weights with some items censored: the
// settle and censoring times are sorted apart, as plain floats (sorting 10⁷
// rows of 24 bytes by a comparison took 3 s of evaluate's 5), and walked
// together, events before censorings at equal times, redistributing as
// NewItems does; with unit weights the weight after a row is the count of
// rows after it. inPlace puts the two in settle itself (and censored's
// flags with them), the settled first.
func (it *Items) censoredUnit(settle []float64, censored []bool, inPlace bool) *Items {
	n := len(settle)
	for _, v := range settle {
		if !(v >= 0) {
			panic(fmt.Sprintf("optimize: NewItems: settle time %v is negative or NaN", v))
		}
	}
	var ev, ce []float64
	if inPlace {
		m := 0
		for i, v := range settle {
			if !censored[i] {
				settle[i], settle[m] = settle[m], v
				m++
			}
		}
		for i := range censored {
			censored[i] = i >= m
		}
		ev, ce = settle[:m], settle[m:]
	} else {
		ev = make([]float64, 0, n-it.censored)
		ce = make([]float64, 0, it.censored)
		for i, v := range settle {
			if censored[i] {
				ce = append(ce, v)
			} else {
				ev = append(ev, v)
			}
		}
	}
	slices.Sort(ev)
	slices.Sort(ce)
	m := len(ev)
	it.grow(ev, true)
	perUnit := 0.0
	k := 0
	for pos, i := 0, 0; i < m || k < len(ce); pos++ {
		w := 1 + perUnit
		if i < m && (k == len(ce) || ev[i] <= ce[k]) {
			it.total += w
			it.add(ev[i], w, 1)
			i++
			continue
		}
		k++
		if after := n - pos - 1; after > 0 {
			perUnit += w / float64(after) // moved on: counted where it lands
		} else {
			it.total += w
			it.pending += w
		}
	}
	return it
}

// Len returns the number of rows given to NewItems, censored included.
func (it *Items) Len() int { return it.n }

// Censored returns the number of censored rows given to NewItems.
func (it *Items) Censored() int { return it.censored }

// weightIn returns the weight of items with settle time in [lo, hi)
// given as indexes into t (distinct times).
func (it *Items) weightIn(lo, hi int) float64 { return it.cumW[hi] - it.cumW[lo] }

// lagIn returns the weighted sum of lags Σ w_i·(p − t_i) of the items
// t[lo:hi] (weight w in all), all caught by a poll at p ≥ t[hi−1]. It is
// written as w·(p − t[hi−1]) + Σ w_i·(t[hi−1] − t_i), two sums of
// non-negative terms: the first exact to rounding, and 0 when the items
// settle at the poll; the second, from the prefix sums, is clamped at 0
// against their rounding, and is 0 when the items settle together. The
// plain w·p − Σ w_i·t_i cancels to a small negative number for items all
// settling at p, which the price of simplicity then divided ("K=1:
// −7e14").
func (it *Items) lagIn(lo, hi int, w, p float64) float64 {
	last := it.t[hi-1]
	lag := w * (p - last)
	if it.t[lo] != last {
		lag += max(0, w*last-(it.cumWT[hi]-it.cumWT[lo]))
	}
	return lag
}

// shareIn returns the share of all weight settling in (lo, hi], seconds.
func (it *Items) shareIn(lo, hi float64) float64 {
	if hi <= lo {
		return 0
	}
	return (it.cumW[it.firstAbove(hi)] - it.cumW[it.firstAbove(lo)]) / it.total
}

// firstAbove returns the index of the first settle time > x.
func (it *Items) firstAbove(x float64) int {
	return sort.Search(len(it.t), func(i int) bool { return it.t[i] > x })
}

// firstAtOrAbove returns the index of the first settle time ≥ x.
func (it *Items) firstAtOrAbove(x float64) int {
	return sort.Search(len(it.t), func(i int) bool { return it.t[i] >= x })
}

// lagCount returns the weight of items caught with lag ≤ L by the polls
// (seconds, ascending).
func (it *Items) lagCount(polls []float64, L float64) float64 {
	w := 0.0
	lo := 0
	for _, p := range polls {
		hi := it.firstAbove(p)
		from := it.firstAtOrAbove(p - L)
		if from < lo {
			from = lo
		}
		if from < hi {
			w += it.weightIn(from, hi)
		}
		lo = hi
	}
	return w
}

// lagQuantile returns the smallest L with lagCount(L) ≥ q·caught, pooled
// over several poll sequences (Monte Carlo draws), by bisection to 1µs.
func (it *Items) lagQuantile(draws [][]float64, caught, q float64) float64 {
	if caught <= 0 {
		return math.NaN()
	}
	target := q * caught * (1 - 1e-12)
	count := func(L float64) float64 {
		s := 0.0
		for _, d := range draws {
			s += it.lagCount(d, L)
		}
		return s
	}
	lo, hi := 0.0, 0.0
	for _, d := range draws {
		if len(d) > 1 {
			for i := 1; i < len(d); i++ {
				hi = math.Max(hi, d[i]-d[i-1])
			}
		}
		hi = math.Max(hi, d[0])
	}
	if count(lo) >= target {
		return 0
	}
	for hi-lo > 1e-6 {
		mid := (lo + hi) / 2
		if count(mid) >= target {
			hi = mid
		} else {
			lo = mid
		}
	}
	// The quantile is a lag some item has, in (lo, hi]: report the
	// largest such lag, exact, rather than hi (0.8, not 0.800001); the
	// count does not change between it and hi.
	best := 0.0
	for _, d := range draws {
		from := 0
		for _, p := range d {
			to := it.firstAbove(p)
			if k := max(it.firstAtOrAbove(p-hi), from); k < to {
				if l := p - it.t[k]; l > lo && l <= hi {
					best = max(best, l)
				}
			}
			from = to
		}
	}
	if best > 0 {
		return best
	}
	return hi
}
