package optimize

import (
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"gonum.org/v1/gonum/stat/distuv"
)

// cdfFunc adapts a function to Distribution.
type cdfFunc func(t float64) float64

func (f cdfFunc) CDF(t float64) float64 { return f(t) }

// uniform is uniform on [0, hi] seconds, with mass share w (the rest never
// settles).
func uniform(hi, w float64) Distribution {
	return cdfFunc(func(t float64) float64 { return w * math.Min(1, math.Max(0, t/hi)) })
}

// pointMass settles every item at exactly b seconds.
func pointMass(b float64) Distribution {
	return cdfFunc(func(t float64) float64 {
		if t >= b {
			return 1
		}
		return 0
	})
}

// bisect finds a root of f in [lo, hi] (f(lo) < 0 < f(hi)).
func bisect(f func(float64) float64, lo, hi float64) float64 {
	for range 200 {
		mid := (lo + hi) / 2
		if f(mid) < 0 {
			lo = mid
		} else {
			hi = mid
		}
	}
	return (lo + hi) / 2
}

// exact15m and phased15m are the settings the solvers' tests were written
// for: the brief's 15-minute horizon on a 100 ms grid, with gaps down to the
// grid for the exact optimum and down to 1 s for phased schedules.
var (
	exact15m  = Options{Horizon: 15 * time.Minute, Resolution: 100 * time.Millisecond, MinGap: 100 * time.Millisecond}
	phased15m = Options{Horizon: 15 * time.Minute, Resolution: 100 * time.Millisecond, MinGap: time.Second,
		NiceGaps: []time.Duration{500 * time.Millisecond, time.Second, 2 * time.Second, 3 * time.Second,
			5 * time.Second, 10 * time.Second, 15 * time.Second, 20 * time.Second,
			30 * time.Second, time.Minute, 2 * time.Minute, 5 * time.Minute,
			10 * time.Minute, 15 * time.Minute, 30 * time.Minute, time.Hour},
		NiceBounds: []time.Duration{10 * time.Second, 15 * time.Second, 20 * time.Second, 30 * time.Second,
			45 * time.Second, time.Minute, 90 * time.Second, 2 * time.Minute,
			3 * time.Minute, 5 * time.Minute, 10 * time.Minute}}
)

// Exponential settle times are memoryless, so the optimal checks under a
// poll cost c are evenly spaced at δ with e^{μδ} − 1 − μδ = μc (derived by
// setting dC/dδ = 0 in C(δ) = δ/(1 − e^{−μδ}) − 1/μ + c/(e^{μδ} − 1), the
// expected lag plus c times the expected checks Σ_k e^{−μkδ}).
func TestExactExponentialEvenSpacing(t *testing.T) {
	for _, tc := range []struct {
		name     string
		rate, c  float64
		gapsSeen int // gaps checked: those before the mass left is below 1e-6
	}{
		{"rate 0.1 cost 1", 0.1, 1, 20},
		{"rate 0.05 cost 2", 0.05, 2, 20},
		{"rate 0.5 cost 0.2", 0.5, 0.2, 15},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := 100 * time.Millisecond
			r, err := Exact(distuv.Exponential{Rate: tc.rate}, Budget{PollCost: tc.c}, Options{Horizon: 15 * time.Minute, Resolution: res, MinGap: res})
			if err != nil {
				t.Fatal(err)
			}
			x := bisect(func(x float64) float64 { return math.Expm1(x) - x - tc.rate*tc.c }, 1e-9, 50)
			want := x / tc.rate
			prev := 0.0
			for i, p := range r.Polls[:tc.gapsSeen] {
				gap := p.Seconds() - prev
				if math.Abs(gap-want) > res.Seconds()+1e-9 {
					t.Errorf("gap %d = %.4g s, want %.4g s ± %v (polls %v)", i, gap, want, res, r.Polls[:tc.gapsSeen])
				}
				prev = p.Seconds()
			}
		})
	}
}

// bhp returns the optimal check times of Barlow, Hunter & Proschan (1963)
// for a PF2 density, by their recursion
//
//	x_{k+1} − x_k = (F(x_k) − F(x_{k−1}))/f(x_k) − c,   x_0 = 0,
//
// shooting on x_1: too small a start makes a gap non-positive, too large
// one makes the gaps grow (optimal gaps shrink for a PF2 density,
// Barlow & Proschan 1965, Mathematical Theory of Reliability, ch. 4).
func bhp(F, f func(float64) float64, c, horizon float64) []float64 {
	run := func(x1 float64) (xs []float64, tooSmall bool, tooLarge bool) {
		xs = []float64{0, x1}
		for len(xs) < 400 && 1-F(xs[len(xs)-1]) > 1e-12 && xs[len(xs)-1] < horizon {
			k := len(xs) - 1
			d := (F(xs[k])-F(xs[k-1]))/f(xs[k]) - c
			if d <= 0 {
				return xs, true, false
			}
			if d > xs[k]-xs[k-1] {
				return xs, false, true
			}
			xs = append(xs, xs[k]+d)
		}
		return xs, false, false
	}
	lo, hi := 1e-6, horizon
	for range 200 {
		mid := (lo + hi) / 2
		_, small, _ := run(mid)
		switch {
		case small:
			lo = mid
		default:
			// Too large, or undecided: the mass ran out first, so the
			// start is within the tolerance that mass allows.
			hi = mid
		}
	}
	xs, _, _ := run((lo + hi) / 2)
	return xs[1:]
}

// bhpCost is E[lag] + c·E[checks] of checks xs, by Simpson integration of
// E[lag] = Σ_k ∫_{x_{k−1}}^{x_k} (x_k − t) f(t) dt.
func bhpCost(f func(float64) float64, F func(float64) float64, xs []float64, c float64) float64 {
	cost, prev := 0.0, 0.0
	for _, x := range xs {
		const n = 2000
		h := (x - prev) / n
		s := 0.0
		for i := 0; i <= n; i++ {
			tt := prev + float64(i)*h
			w := 2.0
			if i == 0 || i == n {
				w = 1
			} else if i%2 == 1 {
				w = 4
			}
			s += w * (x - tt) * f(tt)
		}
		cost += s*h/3 + c*(1-F(prev))
		prev = x
	}
	return cost
}

func TestExactWeibullMatchesBarlowHunterProschan(t *testing.T) {
	d := distuv.Weibull{K: 2, Lambda: 100}
	res := 10 * time.Millisecond
	for _, c := range []float64{1, 5, 10} {
		t.Run("cost "+time.Duration(c*float64(time.Second)).String(), func(t *testing.T) {
			xs := bhp(d.CDF, d.Prob, c, 900)
			r, err := Exact(d, Budget{PollCost: c}, Options{Horizon: 15 * time.Minute, Resolution: res, MinGap: res})
			if err != nil {
				t.Fatal(err)
			}
			for i := range 5 {
				got := r.Polls[i].Seconds()
				// Two cells: the grid optimum of a smooth objective may sit
				// one cell off the continuous one in each coordinate.
				if math.Abs(got-xs[i]) > 2*res.Seconds() {
					t.Errorf("poll %d = %.4f s, want %.4f s (BHP) ± %v", i, got, xs[i], 2*res)
				}
			}
			want := bhpCost(d.Prob, d.CDF, xs, c)
			got := r.Expected.TotalLag + c*r.Expected.MeanPolls
			// The grid costs at most O(δ²) more; 1e-4 relative covers it.
			if math.Abs(got-want) > 1e-4*want {
				t.Errorf("expected cost = %.6f, want %.6f (BHP)", got, want)
			}
		})
	}
}

func TestExactPointMassPolledAtOnce(t *testing.T) {
	for _, tc := range []struct {
		name string
		b    Budget
	}{
		{"stuck 2", Budget{StuckPolls: 2}},
		{"stuck 10", Budget{StuckPolls: 10}},
		{"cost 0.5", Budget{PollCost: 0.5}},
		{"mean 1", Budget{MeanPolls: 1}},
		{"mean 3", Budget{MeanPolls: 3}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := Exact(pointMass(30), tc.b, exact15m)
			if err != nil {
				t.Fatal(err)
			}
			found := false
			for _, p := range r.Polls {
				found = found || p == 30*time.Second
			}
			if !found || r.Expected.MeanLag > 1e-12 {
				t.Errorf("polls %v, mean lag %g; want a poll at 30s and mean lag 0", r.Polls, r.Expected.MeanLag)
			}
		})
	}
}

// Half the items settle at once: a poll at age 0 catches them with no lag
// and is worth its cost.
func TestExactPollsAtZeroForInstantSettles(t *testing.T) {
	d := cdfFunc(func(t float64) float64 {
		if t < 0 {
			return 0
		}
		return 0.5 + 0.5*math.Min(1, t/100)
	})
	r, err := Exact(d, Budget{StuckPolls: 20}, exact15m)
	if err != nil {
		t.Fatal(err)
	}
	if r.Polls[0] != 0 || r.Schedule.Start != 0 {
		t.Errorf("first poll = %v, want 0", r.Polls[0])
	}
	// Without the atom the first poll is later.
	r, err = Exact(uniform(100, 1), Budget{StuckPolls: 20}, exact15m)
	if err != nil {
		t.Fatal(err)
	}
	if r.Polls[0] == 0 {
		t.Errorf("first poll = 0 for a uniform density, want later")
	}
}

// A uniform density over the horizon: the lag of a gap g is g²/(2H), and
// N gaps summing to H minimise Σ g² when equal, so N polls at k·H/N.
func TestExactUniformEvenSpacing(t *testing.T) {
	for _, n := range []int{1, 9, 30, 100} {
		r, err := Exact(uniform(900, 1), Budget{StuckPolls: n}, exact15m)
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Polls) != n {
			t.Fatalf("N=%d: %d polls, want %d", n, len(r.Polls), n)
		}
		for i, p := range r.Polls {
			want := time.Duration(i+1) * 900 * time.Second / time.Duration(n)
			if p != want {
				t.Errorf("N=%d: poll %d = %v, want %v", n, i, p, want)
			}
		}
		// Mean lag of even gaps g = H/N: g/2.
		if got, want := r.Expected.MeanLag, 900/float64(n)/2; math.Abs(got-want) > 1e-9 {
			t.Errorf("N=%d: mean lag = %g, want %g", n, got, want)
		}
	}
}

func TestExactMoreBudgetNeverMoreLag(t *testing.T) {
	d := distuv.LogNormal{Mu: 2, Sigma: 1}
	for _, tc := range []struct {
		name    string
		budgets []Budget
	}{
		{"stuck", []Budget{{StuckPolls: 5}, {StuckPolls: 10}, {StuckPolls: 40}, {StuckPolls: 160}, {StuckPolls: 640}}},
		{"mean", []Budget{{MeanPolls: 1.5}, {MeanPolls: 3}, {MeanPolls: 6}, {MeanPolls: 12}, {MeanPolls: 24}}},
		{"both", []Budget{{StuckPolls: 20, MeanPolls: 3}, {StuckPolls: 40, MeanPolls: 6}, {StuckPolls: 80, MeanPolls: 6}, {StuckPolls: 80, MeanPolls: 12}}},
		{"cost", []Budget{{PollCost: 10}, {PollCost: 1}, {PollCost: 0.1}, {PollCost: 0.01}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			prev := math.Inf(1)
			for _, b := range tc.budgets {
				r, err := Exact(d, b, exact15m)
				if err != nil {
					t.Fatal(err)
				}
				if b.StuckPolls > 0 && r.Expected.StuckPolls > b.StuckPolls {
					t.Errorf("%+v: stuck polls %d over budget", b, r.Expected.StuckPolls)
				}
				if b.MeanPolls > 0 && (r.Expected.MeanPolls > b.MeanPolls || r.Expected.MeanPolls < b.MeanPolls*(1-meanTol) && r.Lambda2 > 0) {
					t.Errorf("%+v: mean polls %g not within 0.5%% under budget", b, r.Expected.MeanPolls)
				}
				if b.StuckPolls > 0 && b.MeanPolls == 0 && r.Expected.StuckPolls != b.StuckPolls {
					t.Errorf("%+v: stuck polls %d, want the budget exactly", b, r.Expected.StuckPolls)
				}
				if r.Expected.MeanLag > prev*(1+1e-12) {
					t.Errorf("%+v: mean lag %g, more than %g with less budget", b, r.Expected.MeanLag, prev)
				}
				prev = r.Expected.MeanLag
			}
		})
	}
}

// cellDist is a distribution on the grid 0, 1, …, m−1 seconds: atoms at
// grid points and uniform mass inside cells (k−1, k); what is left never
// settles. Its lag and polls for any poll set are computed by hand below,
// independently of the solver's model.
type cellDist struct {
	atom []float64 // atom[k] at t = k
	cell []float64 // cell[k], k ≥ 1: uniform on (k−1, k)
}

func (c cellDist) CDF(t float64) float64 {
	if t < 0 {
		return 0
	}
	s := 0.0
	for k := range c.atom {
		if float64(k) <= t {
			s += c.atom[k]
		}
		if k >= 1 {
			s += c.cell[k] * math.Min(1, math.Max(0, t-float64(k-1)))
		}
	}
	return s
}

// figures returns E[lag; caught] and the expected polls of polls (grid
// indices, increasing, the last at m−1): the first poll is always made,
// each later one iff the one before saw the item pending, T > t_{i−1}.
func (c cellDist) figures(polls []int) (lag, mean float64) {
	mean = 1
	for _, p := range polls[:len(polls)-1] {
		// P(T > p): one minus atoms at or before p and cells ending by p.
		settled := 0.0
		for k := range c.atom {
			if k <= p {
				settled += c.atom[k]
				if k >= 1 {
					settled += c.cell[k]
				}
			}
		}
		mean += 1 - settled
	}
	for k := range c.atom {
		// The first poll at or after k catches the atom at k and the
		// cell (k−1, k), whose mean is k − 1/2.
		for _, p := range polls {
			if p >= k {
				lag += c.atom[k] * float64(p-k)
				if k >= 1 {
					lag += c.cell[k] * (float64(p-k) + 0.5)
				}
				break
			}
		}
	}
	return lag, mean
}

func randomCellDist(rng *rand.Rand, m int) cellDist {
	c := cellDist{atom: make([]float64, m), cell: make([]float64, m)}
	total := 0.0
	for k := range m {
		if rng.Float64() < 0.4 {
			c.atom[k] = rng.ExpFloat64()
		}
		if k >= 1 && rng.Float64() < 0.7 {
			c.cell[k] = rng.ExpFloat64()
		}
		total += c.atom[k] + c.cell[k]
	}
	settled := 0.6 + 0.4*rng.Float64() // the rest is stuck
	for k := range m {
		c.atom[k] *= settled / total
		c.cell[k] *= settled / total
	}
	return c
}

// No subset of grid points beats the solver at the budget it spends
// (Everett 1963), and none beats it at a stuck budget (convexity in the
// number of polls for Monge weights).
func TestExactBeatsBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 2))
	const m = 13 // grid points 0 … 12 s; 2¹² subsets with the horizon poll
	for trial := range 40 {
		c := randomCellDist(rng, m)
		var b Budget
		switch trial % 3 {
		case 0:
			b.StuckPolls = 1 + rng.IntN(m)
		case 1:
			b.MeanPolls = 0.5 + 4*rng.Float64()
		case 2:
			b.StuckPolls = 1 + rng.IntN(m)
			b.MeanPolls = 0.5 + 4*rng.Float64()
		}
		r, err := Exact(c, b, Options{Horizon: (m - 1) * time.Second, Resolution: time.Second})
		if errors.Is(err, ErrInfeasible) {
			continue
		}
		if err != nil {
			t.Fatalf("trial %d %+v: %v", trial, b, err)
		}
		idx := make([]int, len(r.Polls))
		for i, p := range r.Polls {
			idx[i] = int(p / time.Second)
		}
		lag, mean := c.figures(idx)
		if math.Abs(lag-r.Expected.TotalLag) > 1e-9 || math.Abs(mean-r.Expected.MeanPolls) > 1e-9 {
			t.Errorf("trial %d: solver figures lag %g mean %g, by hand %g %g", trial, r.Expected.TotalLag, r.Expected.MeanPolls, lag, mean)
		}
		capStuck := b.StuckPolls
		if capStuck == 0 {
			capStuck = m
		}
		capMean := mean + 1e-12 // the budget the solver spends
		if b.MeanPolls == 0 {
			capMean = math.Inf(1)
		}
		for set := 0; set < 1<<(m-1); set++ {
			var polls []int
			for k := range m - 1 {
				if set>>k&1 == 1 {
					polls = append(polls, k)
				}
			}
			polls = append(polls, m-1)
			if len(polls) > capStuck {
				continue
			}
			bl, bm := c.figures(polls)
			if bm <= capMean && bl < lag-1e-9 {
				t.Errorf("trial %d %+v: polls %v give lag %g (mean %g), better than the solver's %v with %g (mean %g)",
					trial, b, polls, bl, bm, idx, lag, mean)
				break
			}
		}
	}
}

func TestExactGapLimits(t *testing.T) {
	d := distuv.LogNormal{Mu: 2, Sigma: 1}
	o := Options{MinGap: 2 * time.Second, MaxGap: time.Minute}
	for _, b := range []Budget{{StuckPolls: 40}, {MeanPolls: 5}, {PollCost: 0.5}} {
		r, err := Exact(d, b, o)
		if err != nil {
			t.Fatal(err)
		}
		prev := time.Duration(0)
		for i, p := range r.Polls {
			g := p - prev
			if g > o.MaxGap || i > 0 && g < o.MinGap {
				t.Errorf("%+v: gap %d = %v outside [%v, %v]", b, i, g, o.MinGap, o.MaxGap)
			}
			prev = p
		}
	}
}

func TestExactErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		d    Distribution
		b    Budget
		o    Options
		want error
		msg  string
	}{
		{"no budget", uniform(900, 1), Budget{}, exact15m, ErrInvalidBudget, "give a stuck-poll budget"},
		{"cost and budget", uniform(900, 1), Budget{StuckPolls: 3, PollCost: 1}, exact15m, ErrInvalidBudget, "one or the other"},
		{"negative", uniform(900, 1), Budget{MeanPolls: -1}, exact15m, ErrInvalidBudget, "not negative"},
		// 15 minutes with at most 1 minute between polls needs 15 polls.
		{"stuck below max gap", uniform(900, 1), Budget{StuckPolls: 10}, Options{Horizon: 15 * time.Minute, MaxGap: time.Minute}, ErrInfeasible, "fewest polls possible, 15"},
		// Every item makes the first poll.
		{"mean below one", uniform(1800, 1), Budget{MeanPolls: 0.3}, exact15m, ErrInfeasible, "least possible, 1"},
		{"resolution", uniform(900, 1), Budget{StuckPolls: 3}, Options{Horizon: 15 * time.Minute, Resolution: 7 * time.Second}, ErrOptions, "not a multiple"},
		{"gaps", uniform(900, 1), Budget{StuckPolls: 3}, Options{MinGap: time.Minute, MaxGap: time.Second}, ErrOptions, "exceeds max gap"},
		{"bad cdf", cdfFunc(func(float64) float64 { return math.NaN() }), Budget{StuckPolls: 3}, exact15m, nil, "want a probability"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Exact(tc.d, tc.b, tc.o)
			if err == nil || tc.want != nil && !errors.Is(err, tc.want) || !strings.Contains(err.Error(), tc.msg) {
				t.Errorf("Exact() error = %v, want %v containing %q", err, tc.want, tc.msg)
			}
		})
	}
}

// The marginal price is the slope of the lag against the expected polls:
// compare λ2/F(H) with a finite difference of two nearby budgets.
func TestExactMarginalPrice(t *testing.T) {
	d := distuv.LogNormal{Mu: 2, Sigma: 1}
	r1, err := Exact(d, Budget{MeanPolls: 10}, exact15m)
	if err != nil {
		t.Fatal(err)
	}
	r2, err := Exact(d, Budget{MeanPolls: 11}, exact15m)
	if err != nil {
		t.Fatal(err)
	}
	slope := (r1.Expected.MeanLag - r2.Expected.MeanLag) / (r2.Expected.MeanPolls - r1.Expected.MeanPolls)
	// The lag is convex in the budget, so the slope over [10, 11] lies
	// between the prices at its ends.
	if !(slope <= r1.MarginalPrice*1.001 && slope >= r2.MarginalPrice*0.999) {
		t.Errorf("slope %g s/poll, want between the prices %g and %g", slope, r2.MarginalPrice, r1.MarginalPrice)
	}
}
