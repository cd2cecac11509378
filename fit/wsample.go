package fit

import (
	"cmp"
	"math"
	"slices"

	"github.com/pollfit/pollfit/internal/bulk"
	"github.com/pollfit/pollfit/sample"
)

// wsample is a set of values with optional weights (nil: all 1).
type wsample struct {
	x []float64
	w []float64
	// cw, when not nil (only with w), holds how many real items each
	// value stands for: a binned input's item stands for count/16 rows, a
	// pre-binned cell (preBin) for the items in it. The cw[i] items
	// behind value i each weigh w[i]/cw[i], so they add w[i]²/cw[i] to
	// the sum of squared weights of the real items, Σw²; nil: each value
	// is one item and adds w[i]². The effective sample size (total) and
	// the sheather–jones pairs within a bin (pairCounts) count those.
	cw []float64
	// width, when not nil, holds the width of the interval each value's
	// rows are spread evenly over, centred on it: binned input's items
	// stand for the rows of a sub-interval of their bin (ingest.BinColumns,
	// itemWidths). sj and isj spread them so (tabulateSpread,
	// spreadPoints), and no rule's bandwidth is taken below their median
	// width (smoothPart); nil: points, as are pre-binned cells (preBin),
	// binned input's too.
	width []float64
	// rec, when not nil, holds the values as recorded, before de-rounding
	// (deround), in the same units and with the same weights. The scale of
	// the rules (sd and quartiles: silverman, scott, sj) comes from them,
	// as R's bw.* compute it on the data as given: de-rounded ties are no
	// longer ties, so their quartiles differ by a fraction of the
	// resolution and bw.nrd0's fallback to the sd when the IQR is 0 never
	// applied (1000, 1000, 1000, 1000, 2001 ms gave 0.0003 s; R 0.292 s).
	rec *wsample
	// snapLog, when > 0 and rec is nil, is the resolution δ of the times
	// behind a pre-binned log-domain sample (x = ln of de-rounded times):
	// its quartiles are snapped to the recorded values ln(kδ) instead.
	snapLog float64
	// log says x is ln t: a sample of one repeated value then falls back
	// to a scale of 1 (a factor e), not R's |x₀|, which in ln t depends on
	// the unit of t.
	log bool
	// isjBins, when > 0, is the number of bins of the ISJ rule (0:
	// isjBins).
	isjBins int
	// bounds, when not nil, holds the smallest and largest of x: a pass
	// over 10⁸ values that the rules and the KDE would each repeat.
	bounds *[2]float64
}

// minMax returns the smallest and largest of s.x.
func (s wsample) minMax() (lo, hi float64) {
	if s.bounds != nil {
		return s.bounds[0], s.bounds[1]
	}
	return minMax(s.x)
}

// withBounds returns s with its bounds computed.
func (s wsample) withBounds() wsample {
	lo, hi := s.minMax()
	s.bounds = &[2]float64{lo, hi}
	return s
}

// total returns Σw and the effective sample size (Σw)²/Σw² of the real
// items (Kish 1965, Survey Sampling, §11.7; see wsample.cw), which is n
// when w is nil, and the number of rows behind frequency weights.
func (s wsample) total() (sum, neff float64) {
	if s.w == nil {
		return float64(len(s.x)), float64(len(s.x))
	}
	var s2 float64
	for i, w := range s.w {
		sum += w
		s2 += s.sqMass(i)
	}
	if s2 == 0 {
		return 0, 0
	}
	return sum, sum * sum / s2
}

// sqMass returns the sum of the squared weights of the real items behind
// value i, w[i]²/cw[i] (see wsample.cw).
func (s wsample) sqMass(i int) float64 {
	w := s.w[i]
	if s.cw == nil {
		return w * w
	}
	if !(s.cw[i] > 0) {
		return 0
	}
	return w * w / s.cw[i]
}

// sd returns the standard deviation with the n−1 divisor (R's sd); with
// weights, the reliability-weighted variance with divisor Σw − Σw²/Σw.
func (s wsample) sd() float64 {
	var sum, mean float64
	if s.w == nil {
		for _, v := range s.x {
			mean += v
		}
		mean /= float64(len(s.x))
		for _, v := range s.x {
			sum += sq(v - mean)
		}
		return math.Sqrt(sum / float64(len(s.x)-1))
	}
	var wsum, w2 float64
	for i, v := range s.x {
		mean += s.w[i] * v
		wsum += s.w[i]
		w2 += s.sqMass(i) // of the real items (wsample.cw)
	}
	mean /= wsum
	for i, v := range s.x {
		sum += s.w[i] * sq(v-mean)
	}
	return math.Sqrt(sum / (wsum - w2/wsum))
}

// quantilesInPlace returns the p-quantiles (p ascending) of x by R's type
// 7, as quantiles does, selecting in O(n) in x itself, which it reorders.
func quantilesInPlace(x []float64, ps ...float64) []float64 {
	out := make([]float64, len(ps))
	n := len(x)
	lo := 0
	for k, p := range ps {
		h := float64(n-1) * p
		j := int(math.Floor(h))
		a := selectK(x[lo:], j-lo) // x[lo:] holds order statistics ≥ lo
		v := a
		if f := h - float64(j); f > 0 && j+1 < n {
			b := minOf(x[j+1:])
			v = a + f*(b-a)
		}
		out[k] = v
		lo = j
	}
	return out
}

// quantiles returns the p-quantiles (p ascending) by R's default type 7
// (Hyndman & Fan 1996): the order statistics interpolated at (n−1)p.
// With weights, the positions are (Σ_{j≤i} w_j − w_i)/(Σw − w_last),
// which is i/(n−1) for equal weights. Without weights it selects in
// O(n) on a copy instead of sorting; above quantileSelectAbove values it
// selects by buckets (quantile.go), with or without weights.
func (s wsample) quantiles(ps ...float64) []float64 {
	if len(s.x) > quantileSelectAbove {
		return s.quantilesLarge(ps)
	}
	if s.w == nil {
		return quantilesInPlace(slices.Clone(s.x), ps...)
	}
	out := make([]float64, len(ps))
	idx := make([]int, len(s.x))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int { return cmp.Compare(s.x[a], s.x[b]) })
	var W float64
	for _, w := range s.w {
		W += w
	}
	den := W - s.w[idx[len(idx)-1]]
	pos := make([]float64, len(idx))
	cum := 0.0
	for k, i := range idx {
		cum += s.w[i]
		pos[k] = (cum - s.w[i]) / den
	}
	for k, p := range ps {
		j, _ := slices.BinarySearch(pos, p)
		switch {
		case j >= len(idx):
			out[k] = s.x[idx[len(idx)-1]]
		case j == 0 || pos[j] == p:
			out[k] = s.x[idx[j]]
		default:
			f := (p - pos[j-1]) / (pos[j] - pos[j-1])
			out[k] = s.x[idx[j-1]] + f*(s.x[idx[j]]-s.x[idx[j-1]])
		}
	}
	return out
}

func minOf(x []float64) float64 {
	m := math.Inf(1)
	for _, v := range x {
		m = math.Min(m, v)
	}
	return m
}

// selectK reorders x so that x[k] is its k-th smallest value, everything
// before it ≤ and everything after it ≥, and returns x[k] (Hoare's
// FIND, median-of-three pivots). Expected O(len(x)).
func selectK(x []float64, k int) float64 {
	lo, hi := 0, len(x)-1
	for hi > lo {
		if hi-lo < 16 {
			slices.Sort(x[lo : hi+1])
			break
		}
		mid := lo + (hi-lo)/2
		a, b, c := x[lo], x[mid], x[hi]
		p := max(min(a, b), min(max(a, b), c))
		i, j := lo, hi
		for i <= j {
			for x[i] < p {
				i++
			}
			for x[j] > p {
				j--
			}
			if i <= j {
				x[i], x[j] = x[j], x[i]
				i++
				j--
			}
		}
		switch {
		case k <= j:
			hi = j
		case k >= i:
			lo = i
		default:
			return x[k]
		}
	}
	return x[k]
}

// minMax returns the smallest and largest of x.
func minMax(x []float64) (lo, hi float64) {
	if len(x) >= 2*bulk.ChunkItems {
		// On all cores: the extremes of the chunks' extremes are exact.
		parts := make([][2]float64, bulk.NumChunks(len(x)))
		bulk.Chunks(len(x), func(k, a, b int) {
			l, h := minMax(x[a:b])
			parts[k] = [2]float64{l, h}
		})
		lo, hi = math.Inf(1), math.Inf(-1)
		for _, p := range parts {
			lo, hi = min(lo, p[0]), max(hi, p[1])
		}
		return lo, hi
	}
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, v := range x {
		// Plain comparisons: math.Min's NaN and ±0 handling costs 3× here,
		// and the samples hold neither NaN nor −0.
		if v < lo {
			lo = v
		}
		if v > hi {
			hi = v
		}
	}
	return lo, hi
}

// spreadPoints returns the values spread over their intervals
// (wsample.width) as points at most step apart, each value's mass shared
// evenly among its points at the midpoints of equal parts of its
// interval: binned linearly on a grid of that step, they fill the
// interval evenly, where the values alone would be a comb.
func (s wsample) spreadPoints(step float64) (x, w []float64) {
	x = make([]float64, 0, len(s.x))
	w = make([]float64, 0, len(s.x))
	for i, v := range s.x {
		m := 1.0
		if s.w != nil {
			m = s.w[i]
		}
		k := max(1, int(math.Ceil(s.width[i]/step)))
		for j := range k {
			x = append(x, v+s.width[i]*((float64(j)+0.5)/float64(k)-0.5))
			w = append(w, m/float64(k))
		}
	}
	return x, w
}

// itemWidth returns the mass-weighted median of the values' widths
// (wsample.width), 0 without them: below it a kernel shows binned input's
// items one by one, a comb where the bins say the rows are spread evenly.
func (s wsample) itemWidth() float64 {
	if s.width == nil {
		return 0
	}
	return wsample{x: s.width, w: s.w}.quantiles(0.5)[0]
}

// itemWidths returns the widths of the intervals binned input's items
// stand for (wsample.width), in ln t when logDom: each item's distance to
// the nearest other time among the items of its segment and censoring
// status. The reader spreads a bin's settled rows (and apart, its
// censored ones) over up to ingest.BinSpread items at the midpoints of
// equal sub-intervals, and a segment's bins do not overlap, so that
// neighbour is the next sub-interval's item, one sub-interval away, or
// the next bin's where the bin has one item. A point bin's items repeat
// one time: their width is 0, as is that of a time ≤ 0 in ln t.
func itemWidths(s *sample.Sample, logDom bool) []float64 {
	width := make([]float64, s.Len())
	groups := map[int64][]int{}
	for i := range s.Times {
		var g int64
		if s.HasSegments() {
			g = 2 * int64(s.SegmentOf(i))
		}
		if s.IsCensored(i) {
			g++
		}
		groups[g] = append(groups[g], i)
	}
	x := func(i int) float64 {
		if logDom {
			return math.Log(s.Times[i])
		}
		return s.Times[i]
	}
	for _, idx := range groups {
		vals := make([]float64, 0, len(idx))
		for _, i := range idx {
			if v := x(i); !math.IsInf(v, 0) {
				vals = append(vals, v)
			}
		}
		slices.Sort(vals)
		for _, i := range idx {
			v := x(i)
			p, ok := slices.BinarySearch(vals, v)
			if !ok || p+1 < len(vals) && vals[p+1] == v {
				continue // repeated: a point bin
			}
			g := math.Inf(1)
			if p > 0 {
				g = v - vals[p-1]
			}
			if p+1 < len(vals) {
				g = min(g, vals[p+1]-v)
			}
			if !math.IsInf(g, 0) {
				width[i] = g
			}
		}
	}
	return width
}
