package optimize

import (
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"
	"time"
)

// clockItems draws n items created evenly over a day: a share settles at
// the first 5-minute boundary after LogNormal(20 s, 0.6) plus 0.5 s +
// Exp(0.5 s), the rest LogNormal(2.5 s, 0.7) after creation, 3% never
// (censored at an age of an hour). Times are whole milliseconds.
func clockItems(seed uint64, n int, share float64) (settle []float64, censored []bool, created []int64) {
	rng := rand.New(rand.NewPCG(seed, 14))
	start := time.Date(2025, 3, 1, 0, 0, 0, 0, time.UTC).UnixMilli()
	const period = 300_000
	for i := range n {
		c := start + int64(86_400_000*(float64(i)+rng.Float64())/float64(n))
		var s int64
		cens := false
		switch u := rng.Float64(); {
		case u < 0.03:
			s, cens = 3_600_000, true
		case u < 0.03+share:
			ready := c + int64(20_000*math.Exp(0.6*rng.NormFloat64()))
			s = (ready/period+1)*period + 500 + int64(500*rng.ExpFloat64()) - c
		default:
			s = int64(2_500 * math.Exp(0.7*rng.NormFloat64()))
		}
		settle = append(settle, float64(s)/1000)
		censored = append(censored, cens)
		created = append(created, c*int64(time.Millisecond))
	}
	return settle, censored, created
}

// ecdf is the empirical distribution of the settle times, the censored
// items (censored at an hour, past every horizon) never settling: enough
// for a test's age density.
type ecdf struct {
	t     []float64
	share float64 // the share that settles
}

func newECDF(settle []float64, censored []bool) ecdf {
	var t []float64
	for i, v := range settle {
		if !censored[i] {
			t = append(t, v)
		}
	}
	slices.Sort(t)
	return ecdf{t: t, share: float64(len(t)) / float64(len(settle))}
}

func (e ecdf) CDF(x float64) float64 {
	return float64(sort.SearchFloat64s(e.t, math.Nextafter(x, math.Inf(1)))) / float64(len(e.t)) * e.share
}

// TestClockOffsetsExact checks the circular programme against brute force:
// every set of m candidate instants, the lag of each item summed directly.
func TestClockOffsetsExact(t *testing.T) {
	settle, censored, created := clockItems(1, 400, 0.6)
	td := NewTimed(settle, censored, created)
	cs := newClockSearch(td, 5*time.Minute, 100*time.Millisecond, 10*time.Minute)
	a := 10 * time.Second
	// lagOf sums each item's lag to the next of the offsets directly.
	type it struct{ u, w float64 }
	var items []it
	for i, s := range cs.settle {
		if cs.w[i] > 0 && s > int64(a) && s <= cs.horizon {
			items = append(items, it{float64(cs.phase(cs.created[i] + s)), cs.w[i]})
		}
	}
	lagOf := func(offs []time.Duration) float64 {
		sum := 0.0
		for _, x := range items {
			best := math.Inf(1)
			for _, o := range offs {
				d := float64(o) - x.u
				if d < 0 {
					d += float64(cs.period)
				}
				best = min(best, d)
			}
			sum += x.w * best
		}
		return sum / 1e9 / cs.total
	}
	for m := 1; m <= 3; m++ {
		offs, lag := cs.offsets(a, m)
		if got := lagOf(offs); math.Abs(got-lag) > 1e-9*max(1, lag) {
			t.Errorf("m=%d: offsets %v report lag %v, direct sum %v", m, offs, lag, got)
		}
		// Brute force over the same candidate instants: the weighted
		// quantiles rounded up to the grain (rebuilt here from the items).
		us := make([]float64, len(items))
		ws := make([]float64, len(items))
		idx := make([]int, len(items))
		for i := range idx {
			idx[i] = i
		}
		sort.Slice(idx, func(i, j int) bool { return items[idx[i]].u < items[idx[j]].u })
		for k, i := range idx {
			us[k], ws[k] = items[i].u, items[i].w
		}
		var cum []float64
		acc := 0.0
		for _, w := range ws {
			acc += w
			cum = append(cum, acc)
		}
		var cand []time.Duration
		for q := range clockCandidates {
			i := sort.SearchFloat64s(cum, acc*(float64(q)+0.5)/clockCandidates)
			c := time.Duration(math.Ceil(us[min(i, len(us)-1)]/1e8) * 1e8)
			if c >= 5*time.Minute {
				c = 0
			}
			cand = append(cand, c)
		}
		for q := range clockEven {
			cand = append(cand, time.Duration(q)*5*time.Minute/clockEven/(100*time.Millisecond)*(100*time.Millisecond))
		}
		slices.Sort(cand)
		cand = slices.Compact(cand)
		best := math.Inf(1)
		var rec func(start int, set []time.Duration)
		rec = func(start int, set []time.Duration) {
			if len(set) == m {
				best = min(best, lagOf(set))
				return
			}
			for i := start; i < len(cand); i++ {
				rec(i+1, append(set, cand[i]))
			}
		}
		rec(0, nil)
		if len(cand) < 20 {
			t.Fatalf("only %d candidate instants", len(cand))
		}
		if math.Abs(best-lag) > 1e-9*max(1, best) {
			t.Errorf("m=%d: circular programme %v (offsets %v), brute force %v", m, lag, offs, best)
		}
	}
}

// TestPlanClockBeatsAgeOnly compares, on fresh draws of a
// clock upstream (70% in files every 5 minutes): fitted on 7,000 items,
// scored on 3,000 others, the wall-clock schedule's mean lag is at least
// 30% below the best age-only schedule's at the same budget, spends no
// more polls, and polls just after the boundaries.
func TestPlanClockBeatsAgeOnly(t *testing.T) {
	settle, censored, created := clockItems(2, 7000, 0.7)
	hs, hc, hcr := clockItems(3, 3000, 0.7)
	d := newECDF(settle, censored)
	b := Budget{MeanPolls: 6}
	o := Options{Horizon: 10 * time.Minute}
	pr, err := NewProblem(d, b, o)
	if err != nil {
		t.Fatal(err)
	}
	ageOnly, err := pr.Phased(0)
	if err != nil {
		t.Fatal(err)
	}
	held := NewTimed(hs, hc, hcr)
	base := ScoreTimed(ageOnly.Schedule, held, ScoreOptions{})
	cr, err := PlanClock(d, b, ClockOptions{Options: o}, NewTimed(settle, censored, created), 5*time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	got := ScoreTimed(cr.Schedule, held, ScoreOptions{})
	t.Logf("age-only %s: lag %.3f s, %.2f polls; clock %s: lag %.3f s, %.2f polls", ageOnly.Schedule, base.MeanLag, base.MeanPolls, cr.Schedule, got.MeanLag, got.MeanPolls)
	if got.MeanLag > 0.7*base.MeanLag {
		t.Errorf("held-out mean lag %.3f s, not 30%% below the age-only %.3f s", got.MeanLag, base.MeanLag)
	}
	if got.MeanPolls > b.MeanPolls*1.02 {
		t.Errorf("held-out mean polls %.2f, budget %v", got.MeanPolls, b.MeanPolls)
	}
	last := cr.Schedule.Phases[len(cr.Schedule.Phases)-1]
	if last.Growth != WallClock || last.Gap != 5*time.Minute || last.Until != 10*time.Minute {
		t.Fatalf("last phase %+v, want a wall-clock phase every 5m until 10m", last)
	}
	// The files come 0.5 s + Exp(0.5 s) after the boundary: 63% of them
	// by 1 s, 86% by 1.5 s; one poll belongs in [0.5 s, 1.5 s].
	if !slices.ContainsFunc(last.Offsets, func(o time.Duration) bool { return o >= 500*time.Millisecond && o <= 1500*time.Millisecond }) {
		t.Errorf("offsets %v, want one in [0.5s, 1.5s]", last.Offsets)
	}
}
