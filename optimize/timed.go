package optimize

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"sort"
	"time"
)

// Timed is a set of observed items with their creation instants, for
// scoring schedules whose polls depend on them: those with a wall-clock
// phase (Schedule.Clocked). Each item is scored on its own polls, so
// scoring costs O(n·polls) where Items costs O(polls·log n).
//
// Right-censored items are weighted as Items weights them: Efron's
// redistribute-to-the-right, which reproduces Kaplan–Meier (Efron 1967).
// Weight left on censored items at the end is of items that never settle:
// they cost their own stuck polls.
type Timed struct {
	settle  []float64 // seconds since creation
	created []int64   // Unix ns
	w       []float64 // redistributed weight; 0 for censored items
	pend    []float64 // weight left on a censored item that never settles
	total   float64
}

// NewTimed prepares items for scoring: settle[i] is item i's settle time
// (or, when censored[i], its age when last seen) in seconds ≥ 0 and
// created[i] its creation instant in Unix nanoseconds (UTC). censored may
// be nil (none censored). It panics if the lengths differ or a settle
// time is negative or NaN: callers validate data on reading.
func NewTimed(settle []float64, censored []bool, created []int64) *Timed {
	n := len(settle)
	if len(created) != n || (censored != nil && len(censored) != n) {
		panic("optimize: NewTimed: settle, censored and created lengths differ")
	}
	td := &Timed{settle: settle, created: created, w: make([]float64, n), pend: make([]float64, n), total: float64(n)}
	order := make([]int, n)
	for i := range order {
		if !(settle[i] >= 0) {
			panic(fmt.Sprintf("optimize: NewTimed: settle time %v is negative or NaN", settle[i]))
		}
		order[i] = i
		td.w[i] = 1
	}
	cens := func(i int) bool { return censored != nil && censored[i] }
	// Events before censorings at equal times, as Kaplan–Meier does.
	sort.SliceStable(order, func(a, b int) bool {
		i, j := order[a], order[b]
		if settle[i] != settle[j] {
			return settle[i] < settle[j]
		}
		return !cens(i) && cens(j)
	})
	perUnit := 0.0
	for pos, i := range order {
		w := 1 + perUnit
		td.w[i] = w
		if !cens(i) {
			continue
		}
		td.w[i] = 0
		if after := n - pos - 1; after > 0 {
			perUnit += w / float64(after)
		} else {
			td.pend[i] = w
		}
	}
	return td
}

// Len returns the number of items.
func (td *Timed) Len() int { return len(td.settle) }

// ScoreTimed scores s on items with creation instants: every figure of
// ScoreSchedule, each item polled by its own walk (Schedule.PollsAt).
// PollsBy and StuckPolls are means over the items' creation instants.
// s must be valid and unjittered (wall-clock phases take no jitter).
func ScoreTimed(s Schedule, td *Timed, opt ScoreOptions) Score {
	ages := opt.Ages
	if ages == nil {
		ages = DefaultAges
	}
	sc := Score{Name: s.Name, Spec: s.String(), Ages: ages, PollsBy: make([]float64, len(ages))}
	if td == nil || td.Len() == 0 {
		// No instants: those of an item created at the epoch.
		for a, age := range ages {
			sc.PollsBy[a] = float64(s.PollsBy(age))
		}
		sc.StuckPolls = float64(s.StuckPolls())
		return sc
	}
	sc.HasData = true
	type lagW struct{ lag, w float64 }
	lags := make([]lagW, 0, td.Len())
	var caught, lagSum, pollSum, nCaught float64
	var all []time.Duration
	for i, t := range td.settle {
		all = s.appendPollsAt(all[:0], td.created[i])
		for a, age := range ages {
			sc.PollsBy[a] += float64(sort.Search(len(all), func(k int) bool { return all[k] > age }))
		}
		sc.StuckPolls += float64(len(all))
		if td.pend[i] > 0 {
			pollSum += td.pend[i] * float64(len(all))
		}
		w := td.w[i]
		if w == 0 {
			continue
		}
		k := sort.Search(len(all), func(k int) bool { return all[k].Seconds() >= t })
		for k < len(all) && float64(all[k]) < t*1e9 { // Seconds() rounds: compare in ns
			k++
		}
		if k == len(all) {
			pollSum += w * float64(len(all))
			continue
		}
		lag := max(0, roundNanos(all[k].Seconds()-t))
		pollSum += w * float64(k+1)
		caught += w
		lagSum += w * lag
		nCaught++
		lags = append(lags, lagW{lag, w})
	}
	n := float64(td.Len())
	for a := range sc.PollsBy {
		sc.PollsBy[a] /= n
	}
	sc.StuckPolls /= n
	sc.MeanPolls = pollSum / td.total
	sc.Caught = caught / td.total
	sc.MeanLag, sc.MedianLag, sc.P95Lag, sc.P99Lag = math.NaN(), math.NaN(), math.NaN(), math.NaN()
	if caught > 0 {
		sc.MeanLag = roundNanos(lagSum / caught)
		slices.SortFunc(lags, func(a, b lagW) int { return cmp.Compare(a.lag, b.lag) })
		q := func(p float64) float64 {
			target, acc := p*caught*(1-1e-12), 0.0
			for _, l := range lags {
				if acc += l.w; acc >= target {
					return l.lag
				}
			}
			return lags[len(lags)-1].lag
		}
		sc.MedianLag, sc.P95Lag, sc.P99Lag = q(0.5), q(0.95), q(0.99)
	}
	if opt.LagSE && nCaught >= 2 {
		var ss float64
		for _, l := range lags {
			ss += l.w * (l.lag - sc.MeanLag) * (l.lag - sc.MeanLag)
		}
		sc.NCaught = nCaught
		sc.MeanLagSE = math.Sqrt(ss/caught*nCaught/(nCaught-1)) / math.Sqrt(nCaught)
	}
	return sc
}
