package fit

import (
	"cmp"
	"encoding/json"
	"iter"
	"math"
	"math/bits"
	"runtime"
	"slices"
	"sync"

	"github.com/pollfit/pollfit/internal/bulk"
	"github.com/pollfit/pollfit/sample"
)

// KaplanMeier is the product-limit estimate of the survival function from
// right-censored data (Kaplan & Meier 1958), one entry per distinct settle
// (event) time:
//
//	S(t) = Π_{t_j ≤ t} (1 − d_j/n_j)
//	Var S(t) = S(t)² Σ_{t_j ≤ t} d_j / (n_j (n_j − d_j))     (Greenwood 1926)
//
// where d_j is the (weighted) number settling at t_j and n_j the number
// still at risk just before it; an item censored at t_j counts as at risk
// at t_j, as in R's survival::survfit. StdErr is the standard error of
// S(t) itself (survfit's summary()$std.err).
type KaplanMeier struct {
	T        []float64 `json:"t_s"`      // distinct event times, seconds
	Survival []float64 `json:"survival"` // S(t) just after T[j]
	StdErr   []float64 `json:"std_err"`  // Greenwood standard error of Survival
	AtRisk   []float64 `json:"n_risk"`   // n_j
	Events   []float64 `json:"n_event"`  // d_j
}

// kmJSONSteps bounds the steps a KaplanMeier writes as JSON.
const kmJSONSteps = 2000

// MarshalJSON writes the estimate, thinned to about kmJSONSteps steps when
// it has more (10⁷ items at millisecond resolution have 10⁶ distinct
// times: a 36 MB table; see Thin).
func (km *KaplanMeier) MarshalJSON() ([]byte, error) {
	type plain KaplanMeier // without this method
	return json.Marshal((*plain)(km.Thin()))
}

// Thin returns the estimate at about kmJSONSteps of its steps, as its
// JSON has it, or km itself when it has no more: a step is kept when the
// survival has fallen by 1/kmJSONSteps since the last kept one, and the
// first and last steps always are. The values at the times kept are
// exact; n_event counts the events at those times only. Thinning a thinned
// estimate keeps every step (each kept step fell that far from the one
// before it), so both write the same JSON: a caller that keeps estimates
// for their JSON alone (fit --segment, until every segment is fitted)
// may hold the thinned one, at most kmJSONSteps steps.
func (km *KaplanMeier) Thin() *KaplanMeier {
	if len(km.T) <= kmJSONSteps {
		return km
	}
	out := &KaplanMeier{}
	last := math.Inf(1)
	for j := range km.T {
		if j == 0 || j == len(km.T)-1 || last-km.Survival[j] >= 1.0/kmJSONSteps-1e-12 {
			out.T = append(out.T, km.T[j])
			out.Survival = append(out.Survival, km.Survival[j])
			out.StdErr = append(out.StdErr, km.StdErr[j])
			out.AtRisk = append(out.AtRisk, km.AtRisk[j])
			out.Events = append(out.Events, km.Events[j])
			last = km.Survival[j]
		}
	}
	return out
}

// NewKaplanMeier computes the Kaplan–Meier estimate of the sample. It
// returns an empty estimate when no item settled.
func NewKaplanMeier(s *sample.Sample) *KaplanMeier {
	km, _, _ := kaplanMeier(s)
	return km
}

// SettledMasses yields each settled item's time (seconds) and its
// probability mass in the sample's empirical distribution, the masses a
// histogram of the settles adds up. Without censoring an item's mass is
// its weight over the total weight (1/n unweighted), and the items come
// in the sample's order; the masses sum to 1. With censoring it is the
// item's share of the Kaplan–Meier jump at its time, w·S(t_j−)/n_j
// (Efron's redistribution to the right), and the items come sorted by
// time (in the sample's order when weighted); the masses then sum to
// 1 − S at the last settle.
func SettledMasses(s *sample.Sample) iter.Seq2[float64, float64] {
	return func(yield func(t, mass float64) bool) {
		if s.CensoredCount() == 0 {
			W := s.TotalWeight()
			for i, t := range s.Times {
				if !yield(t, s.Weight(i)/W) {
					return
				}
			}
			return
		}
		_, times, mass := kaplanMeier(s)
		mc := mass.cursor(times, 0)
		for i, t := range times {
			if !yield(t, mc.of(i)) {
				return
			}
		}
	}
}

// kaplanMeier also returns the settled items' times and their shares of
// the KM jumps: an item settled at t_j carries w·S(t_j−)/n_j (Efron's
// redistribution to the right). The shares sum to 1 − S(last event).
// Without weights the items come sorted by time and the shares as a table
// by event time (km.T: see masses); with them, in sample order, one share
// an item.
func kaplanMeier(s *sample.Sample) (km *KaplanMeier, times []float64, mass masses) {
	if s.Weights != nil {
		return kaplanMeierWeighted(s)
	}
	// Unweighted (every raw sample): sort the event times and the
	// censoring times apart, as plain floats, and walk them together;
	// sorting item indexes by a comparison took 4 s for 10⁷ items.
	n := s.Len()
	nc := s.CensoredCount()
	ev := bulk.Make[float64](0, n-nc)
	ce := make([]float64, 0, nc)
	for i, t := range s.Times {
		t += 0 // −0 to +0: the sorts order the floats' bits
		if s.IsCensored(i) {
			ce = append(ce, t)
		} else {
			ev = append(ev, t)
		}
	}
	sortFloats(ev)
	sortFloats(ce)
	return kaplanMeierSorted(n, ev, ce)
}

// kaplanMeierSorted is kaplanMeier of n unweighted items from their
// event times ev and censoring times ce, each sorted; it returns ev as
// the settled items' times.
func kaplanMeierSorted(n int, ev, ce []float64) (km *KaplanMeier, times []float64, mass masses) {
	// One entry per distinct event time: 10⁶ of them for 10⁷ items at
	// millisecond resolution, so size the table once.
	distinct := 0
	for i, t := range ev {
		if i == 0 || t != ev[i-1] {
			distinct++
		}
	}
	km = &KaplanMeier{
		T: make([]float64, 0, distinct), Survival: make([]float64, 0, distinct), StdErr: make([]float64, 0, distinct),
		AtRisk: make([]float64, 0, distinct), Events: make([]float64, 0, distinct),
	}
	share := make([]float64, 0, distinct)
	atRisk := float64(n)
	var st kmStep
	for i, c := 0, 0; i < len(ev); {
		t := ev[i]
		// Censored before t leave the risk set first; censored at t are
		// still at risk at t (R's survival::survfit).
		for ; c < len(ce) && ce[c] < t; c++ {
			atRisk--
		}
		j := i
		for j < len(ev) && ev[j] == t {
			j++
		}
		d := float64(j - i)
		share = append(share, st.surv()/atRisk)
		st.add(km, t, d, atRisk)
		atRisk -= d
		i = j
	}
	return km, ev, masses{T: km.T, at: share}
}

// kmStep carries the product-limit estimate and Greenwood's sum from one
// event time to the next.
type kmStep struct {
	started bool
	s, gw   float64
}

func (st *kmStep) surv() float64 {
	if !st.started {
		return 1
	}
	return st.s
}

// add records the event time t with d events among atRisk.
func (st *kmStep) add(km *KaplanMeier, t, d, atRisk float64) {
	surv := st.surv() * (1 - d/atRisk)
	if atRisk > d {
		st.gw += d / (atRisk * (atRisk - d))
	} else {
		st.gw = math.Inf(1) // S = 0: Greenwood's term is 0/0; survfit reports NaN·0
	}
	st.started, st.s = true, surv
	se := surv * math.Sqrt(st.gw)
	if surv == 0 {
		se = 0
	}
	km.T = append(km.T, t)
	km.Survival = append(km.Survival, surv)
	km.StdErr = append(km.StdErr, se)
	km.AtRisk = append(km.AtRisk, atRisk)
	km.Events = append(km.Events, d)
}

// kaplanMeierWeighted is kaplanMeier for weighted (binned) samples, which
// are small: item indexes sorted by time, events before censorings. The
// settled items come back in sample order.
func kaplanMeierWeighted(s *sample.Sample) (*KaplanMeier, []float64, masses) {
	n := s.Len()
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int {
		if c := cmp.Compare(s.Times[a], s.Times[b]); c != 0 {
			return c
		}
		ca, cb := s.IsCensored(a), s.IsCensored(b)
		switch {
		case ca == cb:
			return 0
		case cb:
			return -1
		}
		return 1
	})
	atRisk := s.TotalWeight()
	km := &KaplanMeier{}
	share := make([]float64, n)
	var st kmStep
	for k := 0; k < n; {
		t := s.Times[idx[k]]
		var d, gone float64
		j := k
		for ; j < n && s.Times[idx[j]] == t; j++ {
			w := s.Weight(idx[j])
			gone += w
			if !s.IsCensored(idx[j]) {
				d += w
			}
		}
		if d > 0 && atRisk > 0 {
			for _, i := range idx[k:j] {
				if !s.IsCensored(i) {
					share[i] = s.Weight(i) * st.surv() / atRisk
				}
			}
			st.add(km, t, d, atRisk)
		}
		atRisk -= gone
		k = j
	}
	var times, mass []float64
	for i, t := range s.Times {
		if !s.IsCensored(i) {
			times = append(times, t)
			mass = append(mass, share[i])
		}
	}
	return km, times, masses{item: mass}
}

// sortSettledFirst reorders the items of s in place, the settled ones
// first and the censored ones after, each by time, and returns the number
// settled: kaplanMeierSorted then reads the two parts of s.Times where
// they are, instead of a sorted copy of the settled times (8 bytes an
// item, the censored fit's peak: docs/performance.md, Memory). s must
// have no columns but Times and Censored, which move together. The sort orders the floats'
// bits, in which −0 is last; ok is false, and s unchanged, when a time is
// −0 (kaplanMeier's copies turn it into +0, which is not for here to do).
func sortSettledFirst(s *sample.Sample) (k int, ok bool) {
	if s.Weights != nil || s.HasSegments() || s.Created != nil {
		panic("fit: sortSettledFirst: a sample with columns beyond Times and Censored")
	}
	for _, t := range s.Times {
		if t == 0 && math.Signbit(t) {
			return 0, false
		}
	}
	// A two-way partition by swaps (the order is the sort's to set).
	t, c := s.Times, s.Censored
	i, j := 0, len(t)-1
	for {
		for i <= j && !c[i] {
			i++
		}
		for i <= j && c[j] {
			j--
		}
		if i >= j {
			break
		}
		t[i], t[j] = t[j], t[i]
		c[i], c[j] = false, true
	}
	sortFloats(t[:i])
	sortFloats(t[i:])
	return i, true
}

// sortFloats sorts x, whose values are ≥ 0 and not −0 — for such floats
// the 64 bits order as the values — in place, without a buffer the size
// of x (the LSD sort it replaces took one: 8 bytes a settled item at the
// Kaplan–Meier step's peak). Up to sortChunk values go to
// radixSortBits with a buffer of their size; larger x are split in place
// by an MSD radix pass on the 16 highest bits that vary, which permutes
// each value into its bucket by cycles (McIlroy, Bostic & McIlroy 1993,
// "Engineering radix sort", the American flag sort), and the buckets are
// sorted the same way, on two cores.
func sortFloats(x []float64) {
	if len(x) <= sortChunk {
		sortChunkInPlace(x, make([]float64, len(x)), nil)
		return
	}
	msdSort(x, runtime.GOMAXPROCS(0) >= 2, &sortScratch{})
}

// sortScratch is one goroutine's memory for msdSort, reused from bucket
// to bucket and level to level (fresh tables at each of the hundreds of
// buckets above sortChunk that 10⁸ payments have were garbage of 100 MB
// and more before the collector ran).
type sortScratch struct {
	buf                []float64 // radixSortBits' buffer, up to sortChunk long
	counts             []int     // radixSortBits' digit counts
	count, start, next []int     // by digit
}

// radixCounts is the longest digit-count table of radixSortBits: 4
// passes of 16-bit digits.
const radixCounts = 4 << 16

// sortChunk bounds the values sorted by radixSortBits: its buffer
// (8 MB) is the sort's memory beyond x.
const sortChunk = 1 << 20

// sortChunkInPlace sorts x by radixSortBits with buf (at least as long)
// and counts (nil: its own) and leaves the result in x.
func sortChunkInPlace(x, buf []float64, counts []int) {
	if s, _ := radixSortBits(x, buf[:len(x)], counts); len(x) > 0 && &s[0] != &x[0] {
		copy(x, s)
	}
}

// msdSort sorts x (longer than sortChunk) as sortFloats describes; with
// parallel, two goroutines take the buckets by turns, largest first.
func msdSort(x []float64, parallel bool, sc *sortScratch) {
	lo, hi := math.Float64bits(x[0]), math.Float64bits(x[0])
	for _, v := range x {
		b := math.Float64bits(v)
		lo, hi = min(lo, b), max(hi, b)
	}
	if lo == hi {
		return // all equal
	}
	// The digit: the 16 bits from the highest one that differs between
	// the least and the greatest value (the bits above are every value's).
	shift := max(0, 63-bits.LeadingZeros64(lo^hi)-15)
	const size = 1 << 16
	digit := func(v float64) int { return int((math.Float64bits(v) >> uint(shift)) & (size - 1)) }
	if sc.count == nil {
		sc.count, sc.start, sc.next = make([]int, size), make([]int, size), make([]int, size)
	}
	count, start, next := sc.count, sc.start, sc.next
	clear(count)
	for _, v := range x {
		count[digit(v)]++
	}
	sum := 0
	for d, c := range count {
		start[d], next[d] = sum, sum
		sum += c
	}
	for d := range size {
		end := start[d] + count[d]
		for next[d] < end {
			v := x[next[d]]
			for {
				dg := digit(v)
				if dg == d {
					break
				}
				v, x[next[dg]] = x[next[dg]], v
				next[dg]++
			}
			x[next[d]] = v
			next[d]++
		}
	}
	type bucket struct{ lo, hi int }
	var bs []bucket
	for d, c := range count {
		if c > 1 {
			bs = append(bs, bucket{start[d], start[d] + c})
		}
	}
	slices.SortFunc(bs, func(a, b bucket) int { return cmp.Compare(b.hi-b.lo, a.hi-a.lo) })
	var mu sync.Mutex
	k := 0
	work := func(sc *sortScratch) {
		for {
			mu.Lock()
			if k == len(bs) {
				mu.Unlock()
				return
			}
			b := bs[k]
			k++
			mu.Unlock()
			y := x[b.lo:b.hi]
			if len(y) > sortChunk {
				msdSort(y, false, sc) // the tables above are done with
				continue
			}
			if len(sc.buf) < len(y) { // the largest bucket comes first
				sc.buf = make([]float64, len(y))
			}
			if sc.counts == nil {
				sc.counts = make([]int, radixCounts)
			}
			sortChunkInPlace(y, sc.buf, sc.counts)
		}
	}
	if !parallel {
		work(sc)
		return
	}
	var wg sync.WaitGroup
	wg.Go(func() { work(&sortScratch{}) })
	work(sc)
	wg.Wait()
}

// radixSortBits sorts x, whose values are ≥ 0 and not −0, by their 64
// float bits — for such floats the bits order as the values — in an LSD
// radix sort (Knuth, TAOCP vol. 3, §5.2.5) of 16-bit digits (11-bit
// below 2¹⁸ values), skipping digits that are the same for every value.
// buf is scratch space as long as x; it returns the sorted values
// (in x or in buf) and the other slice. Below 2¹² values it calls
// slices.Sort. counts is scratch for the digit counts (shorter than
// radixCounts: its own).
func radixSortBits(x, buf []float64, counts []int) (sorted, free []float64) {
	if len(x) < 1<<12 {
		slices.Sort(x)
		return x, buf
	}
	bits := uint(16)
	if len(x) < 1<<18 {
		bits = 11
	}
	size := 1 << bits
	mask := uint64(size - 1)
	passes := int((64 + bits - 1) / bits)
	if len(counts) < passes*size {
		counts = make([]int, passes*size)
	}
	counts = counts[:passes*size]
	clear(counts)
	for _, v := range x {
		k := math.Float64bits(v)
		for p := range passes {
			counts[p*size+int((k>>(uint(p)*bits))&mask)]++
		}
	}
	src, dst := x, buf
	first := math.Float64bits(x[0])
	for p := range passes {
		c := counts[p*size : (p+1)*size]
		shift := uint(p) * bits
		if c[(first>>shift)&mask] == len(x) {
			continue // one digit for all: the pass would not move anything
		}
		sum := 0
		for i, n := range c {
			c[i] = sum
			sum += n
		}
		for _, v := range src {
			dg := (math.Float64bits(v) >> shift) & mask
			dst[c[dg]] = v
			c[dg]++
		}
		src, dst = dst, src
	}
	return src, dst
}
