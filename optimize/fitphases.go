package optimize

import (
	"math"
	"slices"
	"time"
)

// Seeds of the growing-phase search that follow the exact optimum.
//
// The exact optimum's gaps change smoothly (they grow as the hazard falls,
// shrink before a deadline), which constant-gap phases can only follow in
// steps. fitPhases cuts the optimum's gap sequence into at most k runs,
// each fitted by a geometric progression, ln g_i ≈ a + b·i (least squares
// over the run, each gap weighted by the lag of the items it catches,
// O(1) a run from prefix sums), choosing the cuts by the
// classic segmentation dynamic programme (Bellman 1961, "On the
// approximation of curves by line segments using dynamic programming",
// Comm. ACM 4(6)) in O(k·n²) for n gaps. Each run becomes a phase — exp D
// xF when it grows by at least half a percent a poll, every G otherwise —
// with its gap and factor snapped to the nice gaps and growFactors and its
// Until at the run's last poll; the last phase runs to the horizon (closed
// there by the local search when it does not land on it). The seeds may
// spend more than the budget: improve repairs them first.

// maxFitGaps bounds the gaps fitPhases segments (the DP is quadratic in
// them): longer optima are thinned to every m-th poll.
const maxFitGaps = 600

// fitPhases returns, for k' = 1 … k, the schedule of k' phases that follows
// the polls of the exact optimum (see above), nil when there are too few;
// with weighted, each gap weighs the lag of the items it catches, else all
// weigh alike (each finds schedules the other misses: the weights keep a
// deadline's short run of small gaps, the plain fit the long runs).
func (sp *phaseSpace) fitPhases(polls []time.Duration, k int, weighted bool) []Schedule {
	if len(polls) < 3 {
		return nil
	}
	step := max(1, (len(polls)-1+maxFitGaps-1)/maxFitGaps)
	var pts []time.Duration
	for i := 0; i < len(polls); i += step {
		pts = append(pts, polls[i])
	}
	if pts[len(pts)-1] != polls[len(polls)-1] {
		pts = append(pts, polls[len(polls)-1])
	}
	n := len(pts) - 1 // gaps
	y := make([]float64, n)
	wt := make([]float64, n)
	for i := range y {
		g := (pts[i+1] - pts[i]).Seconds()
		y[i] = math.Log(g / float64(step)) // ln gap, seconds
		// A gap's weight is the lag of the items it catches, about half
		// the gap times the mass settling in it: a short run where much
		// settles (a deadline's spike) must not be fitted away.
		f0, _ := sp.md.at(pts[i].Seconds())
		f1, _ := sp.md.at(pts[i+1].Seconds())
		wt[i] = 1
		if weighted {
			wt[i] = max(f1-f0, 0)*g + 1e-12
		}
	}
	// Weighted prefix sums of 1, x, x², y, xy, y² for the runs' least
	// squares.
	var ps [6][]float64
	for c := range ps {
		ps[c] = make([]float64, n+1)
	}
	for i, v := range y {
		x, w := float64(i), wt[i]
		for c, t := range [6]float64{1, x, x * x, v, x * v, v * v} {
			ps[c][i+1] = ps[c][i] + w*t
		}
	}
	// fitRun returns the least-squares line of gaps i…j and its error.
	fitRun := func(i, j int) (a, b, sse float64) {
		var m [6]float64
		for c := range m {
			m[c] = ps[c][j+1] - ps[c][i]
		}
		cnt, sx, sxx, sy, sxy, syy := m[0], m[1], m[2], m[3], m[4], m[5]
		den := cnt*sxx - sx*sx
		if den > 0 {
			b = (cnt*sxy - sx*sy) / den
		}
		a = (sy - b*sx) / cnt
		sse = max(0, syy-a*sy-b*sxy)
		return a, b, sse
	}
	k = min(k, n)
	inf := math.Inf(1)
	cost := make([][]float64, k+1) // cost[l][j]: gaps 0…j−1 in l runs
	from := make([][]int, k+1)
	for l := range cost {
		cost[l] = make([]float64, n+1)
		from[l] = make([]int, n+1)
		for j := range cost[l] {
			cost[l][j] = inf
		}
	}
	cost[0][0] = 0
	for l := 1; l <= k; l++ {
		for j := 1; j <= n; j++ {
			for i := l - 1; i < j; i++ {
				if cost[l-1][i] == inf {
					continue
				}
				_, _, e := fitRun(i, j-1)
				if c := cost[l-1][i] + e; c < cost[l][j] {
					cost[l][j], from[l][j] = c, i
				}
			}
		}
	}
	h := time.Duration(sp.end) * sp.res
	var out []Schedule
	for l := 1; l <= k; l++ {
		if cost[l][n] == inf {
			continue
		}
		var cuts []int // run starts, in gaps
		for j, ll := n, l; ll > 0; ll-- {
			cuts = append(cuts, from[ll][j])
			j = from[ll][j]
		}
		slices.Reverse(cuts)
		s := Schedule{Start: sp.snapStart(pts[0])}
		for r, i := range cuts {
			j := n - 1
			if r+1 < len(cuts) {
				j = cuts[r+1] - 1
			}
			a, b, _ := fitRun(i, j)
			p := Phase{Growth: Fixed, Until: pts[j+1]}
			g0 := math.Exp(a + b*float64(i)) // the run's first gap, fitted
			if f := math.Exp(b); f >= 1.005 && g0*1e9 >= float64(minGrowGap) {
				p.Growth, p.Factor = Exponential, nearestFactor(f)
				p.Gap = sp.snapGap(time.Duration(g0 * 1e9))
				p.Cap = NiceCeil(time.Duration(math.Exp(a+b*float64(j)) * 1e9))
				if p.Cap <= p.Gap {
					p.Cap = 0
				}
			} else {
				// A constant gap: the run's (weighted) geometric mean gap.
				p.Gap = sp.snapGap(time.Duration(math.Exp(s2(ps[3], i, j)/s2(ps[0], i, j)) * 1e9))
			}
			if r == len(cuts)-1 {
				p.Until = h
			}
			s.Phases = append(s.Phases, p)
		}
		out = append(out, s)
	}
	return out
}

// s2 is the sum of a prefix-summed column over i…j.
func s2(c []float64, i, j int) float64 { return c[j+1] - c[i] }

// snapGap returns the nice gap of the space nearest g on a log scale.
func (sp *phaseSpace) snapGap(g time.Duration) time.Duration {
	best := sp.gaps[0]
	for _, c := range sp.gaps {
		if math.Abs(math.Log(float64(c)*float64(sp.res)/float64(g))) < math.Abs(math.Log(float64(best)*float64(sp.res)/float64(g))) {
			best = c
		}
	}
	return time.Duration(best) * sp.res
}

// snapStart returns the first poll the space allows nearest t.
func (sp *phaseSpace) snapStart(t time.Duration) time.Duration {
	x := int(math.Round(float64(t) / float64(time.Duration(sp.lat)*sp.res)))
	for d := 0; d < sp.nl; d++ {
		for _, c := range []int{x - d, x + d} {
			if c >= 0 && c < sp.nl && sp.starts[c] {
				return time.Duration(c*sp.lat) * sp.res
			}
		}
	}
	return 0
}
