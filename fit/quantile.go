package fit

import (
	"cmp"
	"math"
	"slices"

	"github.com/pollfit/pollfit/internal/bulk"
)

// Quantiles of large samples by selection.
//
// The bandwidth rules' scale (the quartiles of silverman, scott and sj)
// needs a few order statistics of up to 10⁸ values. Sorting them, or a
// copy to select in, costs more than the rest of the fit; instead one
// pass counts the values into buckets of equal width (selectBuckets)
// between the smallest and the largest (with their weights, for weighted
// samples), a second gathers the few buckets that hold the order
// statistics wanted, and those alone are sorted. Bucket b holds the
// values v with ⌊(v − lo)·B/(hi − lo)⌋ = b, which is monotone in v, so
// every value in a bucket is ≤ every value in a later one: the order
// statistics are exact, the same as from a sort.

// quantileBuckets is the largest number of buckets of a selection pass,
// and the number for weighted samples, whose weights are summed bucket by
// bucket (another number would add them in another order).
const quantileBuckets = 1 << 16

// selectBuckets is the number of buckets of an unweighted selection pass
// over n values: about one per 16 values, 2¹⁰ to quantileBuckets. The
// order statistics are the same with any number (the counts are exact);
// fewer buckets gather a few more values to sort, and keep the counts in
// cache: a count of 2¹⁶ ints (512 KB) for 10⁵ values missed the cache at
// almost every value.
func selectBuckets(n int) int {
	b := 1 << 10
	for b < quantileBuckets && 16*b < n {
		b *= 2
	}
	return b
}

// quantileSelectAbove is the sample size from which quantiles select
// by buckets; smaller samples are sorted (weighted) or selected in a copy.
const quantileSelectAbove = 1 << 15

// valueBuckets counts values x (weights w, nil: none) into buckets of
// equal width over [lo, hi], leaving out the values that skip marks (nil:
// none) — the censored items, whose settled times SettledQuantile selects
// among without copying them out.
type valueBuckets struct {
	lo, inv float64
	nb      int // number of buckets
	cnt     []int
	wsum    []float64 // nil without weights
	skip    []bool
}

func (vb *valueBuckets) of(v float64) int {
	return min(int((v-vb.lo)*vb.inv), vb.nb-1)
}

// newValueBuckets counts x into nb buckets over [lo, hi] (lo < hi), on
// all cores, leaving out those skip marks (nil: none); the chunks' weight
// sums are added in chunk order.
func newValueBuckets(x, w []float64, skip []bool, lo, hi float64, nb int) *valueBuckets {
	vb := &valueBuckets{lo: lo, inv: float64(nb) / (hi - lo), nb: nb, skip: skip}
	chunks := (len(x) + bulk.ChunkItems - 1) / bulk.ChunkItems
	cnts := make([][]int, chunks)
	wsums := make([][]float64, chunks)
	bulk.Chunks(len(x), func(k, a, b int) {
		c := make([]int, nb)
		var ws []float64
		if w != nil {
			ws = make([]float64, nb)
		}
		for i := a; i < b; i++ {
			if skip != nil && skip[i] {
				continue
			}
			j := vb.of(x[i])
			c[j]++
			if ws != nil {
				ws[j] += w[i]
			}
		}
		cnts[k], wsums[k] = c, ws
	})
	vb.cnt, vb.wsum = cnts[0], wsums[0]
	for k := 1; k < chunks; k++ {
		for j, c := range cnts[k] {
			vb.cnt[j] += c
		}
		if w != nil {
			for j, v := range wsums[k] {
				vb.wsum[j] += v
			}
		}
	}
	return vb
}

// gather returns the values (and weights) of x in each window of
// buckets [from, to], in sample order, in one pass on all cores, leaving
// out those vb.skip marks. The windows are ascending and do not overlap.
func (vb *valueBuckets) gather(x, w []float64, wins [][2]int) (gx, gw [][]float64) {
	chunks := (len(x) + bulk.ChunkItems - 1) / bulk.ChunkItems
	px := make([][][]float64, chunks)
	pw := make([][][]float64, chunks)
	// The window of each bucket (−1: none): one well-predicted branch
	// per value, where a test against the windows' bounds is taken for
	// every value between them.
	winOf := make([]int8, vb.nb)
	for i := range winOf {
		winOf[i] = -1
	}
	for q, wn := range wins {
		for j := wn[0]; j <= wn[1]; j++ {
			winOf[j] = int8(q)
		}
	}
	bulk.Chunks(len(x), func(k, a, b int) {
		ox := make([][]float64, len(wins))
		ow := make([][]float64, len(wins))
		for i := a; i < b; i++ {
			if vb.skip != nil && vb.skip[i] {
				continue
			}
			if q := winOf[vb.of(x[i])]; q >= 0 {
				ox[q] = append(ox[q], x[i])
				if w != nil {
					ow[q] = append(ow[q], w[i])
				}
			}
		}
		px[k], pw[k] = ox, ow
	})
	gx, gw = make([][]float64, len(wins)), make([][]float64, len(wins))
	for k := range px {
		for q := range wins {
			gx[q] = append(gx[q], px[k][q]...)
			gw[q] = append(gw[q], pw[k][q]...)
		}
	}
	return gx, gw
}

// orderStats returns the order statistics of ranks (0-based, ascending)
// of the values of x that skip does not mark (nil: all of them); it
// modifies neither. depth bounds the recursion into a window that holds
// most of the values (a far outlier squeezes the rest into one bucket);
// bounds, when not nil, are the smallest and the largest value.
func orderStats(x []float64, skip []bool, ranks []int, depth int, bounds *[2]float64) []float64 {
	out := make([]float64, len(ranks))
	if len(x) <= quantileSelectAbove || depth > 3 {
		c := kept(x, skip)
		lo := 0
		for k, r := range ranks {
			out[k] = selectK(c[lo:], r-lo) // c[lo:] holds order statistics ≥ lo
			lo = r
		}
		return out
	}
	var lo, hi float64
	switch {
	case bounds != nil:
		lo, hi = bounds[0], bounds[1]
	case skip != nil:
		lo, hi = minMaxKept(x, skip)
	default:
		lo, hi = minMax(x)
	}
	if !(hi > lo) {
		for k := range out {
			out[k] = lo
		}
		return out
	}
	vb := newValueBuckets(x, nil, skip, lo, hi, selectBuckets(len(x)))
	// The bucket of each rank and the count before it.
	bucket := make([]int, len(ranks))
	before := make([]int, len(ranks))
	b, cum := 0, 0
	for k, r := range ranks {
		for cum+vb.cnt[b] <= r {
			cum += vb.cnt[b]
			b++
		}
		bucket[k], before[k] = b, cum
	}
	// Ranks in the same run of buckets share a window.
	var wins [][2]int
	var starts []int
	for k := 0; k < len(ranks); {
		e := k + 1
		for e < len(ranks) && bucket[e]-bucket[e-1] <= 1 {
			e++
		}
		wins = append(wins, [2]int{bucket[k], bucket[e-1]})
		starts = append(starts, k)
		k = e
	}
	gx, _ := vb.gather(x, nil, wins)
	for q, k := range starts {
		e := len(ranks)
		if q+1 < len(starts) {
			e = starts[q+1]
		}
		local := make([]int, e-k)
		for i := range local {
			local[i] = ranks[k+i] - before[k]
		}
		copy(out[k:e], orderStats(gx[q], nil, local, depth+1, nil))
	}
	return out
}

// quantilesLarge is wsample.quantiles for more than quantileSelectAbove
// values, by the buckets above.
func (s wsample) quantilesLarge(ps []float64) []float64 {
	n := len(s.x)
	if s.w == nil {
		var ranks []int
		for _, p := range ps {
			j := int(math.Floor(float64(n-1) * p))
			ranks = append(ranks, j, min(j+1, n-1))
		}
		st := orderStats(s.x, nil, ranks, 0, s.bounds)
		out := make([]float64, len(ps))
		for k, p := range ps {
			h := float64(n-1) * p
			a, b := st[2*k], st[2*k+1]
			out[k] = a
			if f := h - math.Floor(h); f > 0 {
				out[k] = a + f*(b-a)
			}
		}
		return out
	}
	lo, hi := s.minMax()
	if !(hi > lo) {
		return slices.Repeat([]float64{lo}, len(ps))
	}
	vb := newValueBuckets(s.x, s.w, nil, lo, hi, quantileBuckets)
	var W float64
	for _, v := range vb.wsum {
		W += v
	}
	// The weight of the largest value (of one of them, when tied).
	last := len(vb.cnt) - 1
	for vb.cnt[last] == 0 {
		last--
	}
	// For each p, the window of buckets b0…b2 (below) and the weight
	// before it; the top bucket is gathered too, for the weight of the
	// largest value (of one of them, when tied), which the positions
	// need first: the first window is found with a provisional
	// denominator and checked below.
	top, topw := vb.gather(s.x, s.w, [][2]int{{last, last}})
	wLast := topw[0][slices.Index(top[0], slices.Max(top[0]))]
	den := W - wLast
	wins := make([][2]int, len(ps))
	befores := make([]float64, len(ps))
	for k, p := range ps {
		// b1: the first non-empty bucket through which the weight reaches
		// p·den. The first item whose weight before it is ≥ p·den is in b1
		// or first in the next non-empty bucket b2; the one before it, the
		// last of b1 or of the non-empty bucket b0 before b1.
		t := p * den
		b1, C := 0, 0.0
		for b1 < last && (vb.cnt[b1] == 0 || C+vb.wsum[b1] < t) {
			C += vb.wsum[b1]
			b1++
		}
		b0, C0 := b1, C
		for j := b1 - 1; j >= 0; j-- {
			if vb.cnt[j] > 0 {
				b0, C0 = j, C-vb.wsum[j]
				break
			}
		}
		b2 := b1
		for j := b1 + 1; j <= last; j++ {
			if vb.cnt[j] > 0 {
				b2 = j
				break
			}
		}
		wins[k], befores[k] = [2]int{b0, b2}, C0
	}
	// Windows of neighbouring p may overlap: gather the union of each run
	// of overlapping ones once, and read each p from its run.
	var runs [][2]int
	runOf := make([]int, len(ps))
	for k, wn := range wins {
		if len(runs) > 0 && wn[0] <= runs[len(runs)-1][1] {
			runs[len(runs)-1][1] = max(runs[len(runs)-1][1], wn[1])
		} else {
			runs = append(runs, wn)
		}
		runOf[k] = len(runs) - 1
	}
	gx, gw := vb.gather(s.x, s.w, runs)
	out := make([]float64, len(ps))
	for k, p := range ps {
		r := runOf[k]
		// The weight before the run: before p's own window, less the
		// buckets of the run below it.
		before := befores[k]
		for b := runs[r][0]; b < wins[k][0]; b++ {
			before -= vb.wsum[b]
		}
		out[k] = windowQuantile(gx[r], gw[r], p, den, before)
	}
	return out
}

// windowQuantile is the weighted type-7 quantile of wsample.quantiles
// read from a window of the sorted sample: the values x with weights w,
// which it sorts, preceded in the whole sample by weight before; den is
// the whole sample's Σw − w_last.
func windowQuantile(x, w []float64, p, den, before float64) float64 {
	type item struct{ x, w float64 }
	it := make([]item, len(x))
	for i := range x {
		it[i] = item{x[i], w[i]}
	}
	slices.SortFunc(it, func(a, b item) int { return cmp.Compare(a.x, b.x) })
	pos := make([]float64, len(it))
	cum := before
	for k, v := range it {
		cum += v.w
		pos[k] = (cum - v.w) / den
	}
	j, _ := slices.BinarySearch(pos, p)
	switch {
	case j >= len(it):
		return it[len(it)-1].x
	case j == 0 || pos[j] == p:
		return it[j].x
	}
	f := (p - pos[j-1]) / (pos[j] - pos[j-1])
	return it[j-1].x + f*(it[j].x-it[j-1].x)
}

// kept returns a copy of the values of x that skip does not mark (nil:
// all of them).
func kept(x []float64, skip []bool) []float64 {
	if skip == nil {
		return slices.Clone(x)
	}
	var out []float64
	for i, v := range x {
		if !skip[i] {
			out = append(out, v)
		}
	}
	return out
}

// minMaxKept is minMax of the values of x that skip does not mark, +Inf
// and −Inf when it marks them all.
func minMaxKept(x []float64, skip []bool) (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for i, v := range x {
		if skip[i] {
			continue
		}
		if v < lo {
			lo = v
		}
		if v > hi {
			hi = v
		}
	}
	return lo, hi
}
