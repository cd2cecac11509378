package optimize

import (
	"math"
	"sort"
	"time"
)

// SqrtRule returns the schedule of the square-root rule under budget b:
// polls at the rate
//
//	r(t) ∝ √f(t)                      stuck budget only
//	r(t) ∝ √(f(t)/S(t)) = √h(t)        mean budget only
//	r(t) = √(f(t) / (2(λ1 + λ2·S(t))))  both, or a poll cost (λ1 = 0, λ2 = c)
//
// which minimise W = ∫ f/(2r) dt under ∫ r dt = N or ∫ r·S dt = M when f
// is nearly constant within a gap (the brief; Keller 1974, "Optimum
// checking schedules for systems subject to random failure", Mgmt. Sci.
// 21(3)). With both budgets the ratio λ1:λ2 is that of the exact solution.
// The n polls are placed where the cumulative rate R(t) = ∫_0^t r reaches
// i·R(H)/n, i = 1 … n, snapped to the grid (the last at the horizon H),
// and n is the largest meeting the budget; MinGap drops polls that come
// too soon, MaxGap adds polls in longer gaps. Result.Optimum holds the
// exact optimum at the same budget, to show what the approximation costs.
// Errors are those of Exact.
func SqrtRule(d Distribution, b Budget, o Options) (*Result, error) {
	pr, err := prepare(d, b, o)
	if err != nil {
		return nil, err
	}
	return pr.sqrt()
}

func (pr *problem) sqrt() (*Result, error) {
	b := pr.b
	ex, err := pr.exact()
	if err != nil {
		return nil, err
	}
	md := pr.md
	l1, l2 := ex.Lambda1, ex.Lambda2
	switch {
	case b.PollCost > 0:
		l1, l2 = 0, b.PollCost
	case b.MeanPolls == 0 || l2 == 0 && b.StuckPolls > 0:
		l1, l2 = 1, 0
	case b.StuckPolls == 0 || l1 == 0:
		l1, l2 = 0, 1
	}
	// Cumulative rate on the grid; f and S of cell k are its mass over δ
	// and the survival at its start. An atom at age 0 is the mass of a
	// cell ending at 0 (without it, items all settling at once got a
	// single poll, at the horizon).
	n := md.n()
	R := make([]float64, n)
	if md.F[0] > 0 {
		R[0] = math.Sqrt(md.F[0] * md.res / (2 * (l1 + l2))) // r·δ, S = 1 before 0
	}
	for k := 1; k < n; k++ {
		mass := md.F[k] - md.F[k-1]
		var r float64
		if mass > 0 {
			r = math.Sqrt(mass / md.res / (2 * (l1 + l2*(1-md.F[k-1]))))
		}
		R[k] = R[k-1] + r*md.res
	}
	lo, hi, err := pr.gaps(pr.o.MinGap)
	if err != nil {
		return nil, err
	}
	// A cell whose mass is mostly an atom at its end is caught only by a
	// poll at that end: a poll there is never snapped back a cell.
	atEnd := func(k int) bool { return md.F[k]-md.Fm[k] >= (md.F[k]-md.F[k-1])/2 }
	place := func(np int) []int { return sqrtPolls(R, np, lo, hi, atEnd) }
	var idx []int
	if b.PollCost > 0 {
		idx = place(max(1, int(math.Round(R[n-1]))))
	} else {
		// The largest n meeting the budget: spending grows with n (more
		// polls at the same relative places), so bisect.
		fits := func(np int) bool {
			p := md.evalIdx(place(np))
			return (b.StuckPolls == 0 || p.polls <= b.StuckPolls) && (b.MeanPolls == 0 || p.mean <= b.MeanPolls)
		}
		a, z := 1, n
		if b.StuckPolls > 0 {
			z = min(z, b.StuckPolls)
		}
		for a < z {
			mid := (a + z + 1) / 2
			if fits(mid) {
				a = mid
			} else {
				z = mid - 1
			}
		}
		idx = place(a)
	}
	polls := make([]time.Duration, len(idx))
	for i, k := range idx {
		polls[i] = time.Duration(k) * pr.o.Resolution
	}
	r := &Result{
		Method:   "sqrt",
		Schedule: FromPolls(polls),
		Polls:    polls,
		Expected: md.expectIdx(idx),
		Optimum:  &ex.Expected,
		Options:  pr.o,
	}
	if b.PollCost > 0 {
		r.Lambda2 = b.PollCost
		r.MarginalPrice = b.PollCost / md.fh
	}
	return r, nil
}

// sqrtPolls places np polls at R⁻¹(i·R(H)/np), i = 1 … np, snapped to the
// nearest grid point (never back from cell k when atEnd(k): its mass is
// an atom at its end), then enforces the gaps (in cells): a poll closer
// than minGap to the one before is dropped, a gap longer than maxGap
// (when > 0) is split evenly.
func sqrtPolls(R []float64, np, minGap, maxGap int, atEnd func(k int) bool) []int {
	n := len(R)
	total := R[n-1]
	var raw []int
	if total <= 0 {
		raw = []int{n - 1}
	} else {
		for i := 1; i <= np; i++ {
			y := float64(i) * total / float64(np)
			k := sort.SearchFloat64s(R, y) // R[k−1] < y ≤ R[k]
			if k >= n || i == np {
				k = n - 1
			}
			if k > 0 && R[k] > R[k-1] && !atEnd(k) {
				// Snap the interpolated time to the nearer grid point.
				if (y-R[k-1])/(R[k]-R[k-1]) < 0.5 {
					k--
				}
			}
			raw = append(raw, k)
		}
	}
	out := make([]int, 0, len(raw))
	prev := math.MinInt / 2
	for i, k := range raw {
		if k-prev < minGap && i < len(raw)-1 {
			continue
		}
		if k-prev < minGap { // the horizon poll stays; drop the one before
			for len(out) > 0 && k-out[len(out)-1] < minGap {
				out = out[:len(out)-1]
			}
		}
		out = append(out, k)
		prev = k
	}
	if maxGap <= 0 {
		return out
	}
	filled := make([]int, 0, len(out))
	prev = 0
	for i, k := range out {
		from := prev
		if i == 0 {
			from = 0
		}
		if span := k - from; span > maxGap {
			parts := (span + maxGap - 1) / maxGap
			for j := 1; j < parts; j++ {
				filled = append(filled, from+j*span/parts)
			}
		}
		filled = append(filled, k)
		prev = k
	}
	return filled
}
