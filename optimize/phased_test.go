package optimize

import (
	"encoding/csv"
	"math"
	"os"
	"slices"
	"strconv"
	"testing"
	"time"

	"gonum.org/v1/gonum/stat/distuv"
)

func TestExpectByHand(t *testing.T) {
	for _, tc := range []struct {
		name     string
		spec     string
		o        Options
		lag      float64 // TotalLag
		mean     float64
		caught   float64
		stuck    int
		horizon0 bool
	}{
		// Uniform on [0, 30]: polls 0, 10, 20, 30 catch thirds with mean
		// lag 5; polls made: 1 + P(T>0) + P(T>10) + P(T>20) = 1+1+2/3+1/3.
		{"every 10s", "every 10s until 30s", phased15m, 5, 3, 1, 4, true},
		// Polls 5, 15, 25 (off a 300 ms grid): (0,5] lag 2.5 on 5/30,
		// (5,15] and (15,25] lag 5 on 10/30 each: (12.5+50+50)/30 = 3.75;
		// polls 1 + 25/30 + 15/30; caught 25/30.
		{"off grid", "at 5s, every 10s until 25s", Options{Horizon: 30 * time.Second, Resolution: 300 * time.Millisecond},
			3.75, 1 + 25.0/30 + 15.0/30, 25.0 / 30, 3, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, err := Expect(MustParseSpec(tc.spec), uniform(30, 1), tc.o)
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(e.TotalLag-tc.lag) > 1e-9 || math.Abs(e.MeanPolls-tc.mean) > 1e-9 ||
				math.Abs(e.Caught-tc.caught) > 1e-9 || e.StuckPolls != tc.stuck ||
				math.Abs(e.MeanLag-tc.lag/tc.caught) > 1e-9 {
				t.Errorf("Expect(%s) = %+v, want lag %g mean %g caught %g stuck %d", tc.spec, e, tc.lag, tc.mean, tc.caught, tc.stuck)
			}
		})
	}
}

// A uniform density over 15 minutes with 30 stuck polls: the optimum is
// even spacing at 30 s (TestExactUniformEvenSpacing), which one phase
// starting at 30 s writes exactly.
func TestPhasedUniformOnePhase(t *testing.T) {
	r, err := Phased(uniform(900, 1), Budget{StuckPolls: 30}, 1, phased15m)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := r.Schedule.String(), "at 30s, every 30s until 15m"; got != want {
		t.Errorf("Phased(uniform, 30 polls, 1) = %q, want %q", got, want)
	}
	if math.Abs(r.Expected.MeanLag-15) > 1e-9 {
		t.Errorf("mean lag = %g, want 15", r.Expected.MeanLag)
	}
}

func TestPhasedRespectsBudgetsAndPolls(t *testing.T) {
	d := distuv.LogNormal{Mu: 2, Sigma: 1}
	for _, b := range []Budget{{StuckPolls: 60}, {MeanPolls: 8}, {StuckPolls: 100, MeanPolls: 8}, {PollCost: 0.2}} {
		for _, k := range []int{1, 3, 0} {
			o := Options{Horizon: 15 * time.Minute, MinGap: time.Second, MaxGap: 2 * time.Minute}
			r, err := Phased(d, b, k, o)
			if err != nil {
				t.Fatalf("%+v k=%d: %v", b, k, err)
			}
			if b.StuckPolls > 0 && r.Expected.StuckPolls > b.StuckPolls || b.MeanPolls > 0 && r.Expected.MeanPolls > b.MeanPolls {
				t.Errorf("%+v k=%d: spends %+v", b, k, r.Expected)
			}
			if !slices.Equal(r.Polls, r.Schedule.Polls()) || r.Polls[len(r.Polls)-1] != o.Horizon {
				t.Errorf("%+v k=%d: polls %v are not the schedule's, ending at the horizon", b, k, r.Polls)
			}
			if k > 0 && r.Phases > k {
				t.Errorf("%+v k=%d: %d phases", b, k, r.Phases)
			}
			for i, p := range r.Polls {
				if i > 0 && (p-r.Polls[i-1] < o.MinGap || p-r.Polls[i-1] > 2*time.Minute) {
					t.Errorf("%+v k=%d: gap %v outside [1s, 2m]", b, k, p-r.Polls[i-1])
				}
			}
			// The schedule is re-read from its spec to the same polls.
			back, err := ParseSpec(r.Schedule.String())
			if err != nil || !slices.Equal(back.Polls(), r.Polls) {
				t.Errorf("%+v k=%d: spec %q does not read back (%v)", b, k, r.Schedule, err)
			}
		}
	}
}

// A deadline: most items settle early, the rest fail when a prompt times
// out, uniformly in [55 s, 65 s]. The schedule must poll hard again around
// the deadline: a gap shrinks after growing.
func TestPhasedShrinksForDeadline(t *testing.T) {
	early := distuv.LogNormal{Mu: 1, Sigma: 0.5}
	d := cdfFunc(func(t float64) float64 {
		return 0.7*early.CDF(t) + 0.3*math.Min(1, math.Max(0, (t-55)/10))
	})
	r, err := Phased(d, Budget{StuckPolls: 80}, 4, phased15m)
	if err != nil {
		t.Fatal(err)
	}
	shrinks := false
	for i := 2; i < len(r.Polls); i++ {
		shrinks = shrinks || r.Polls[i]-r.Polls[i-1] < r.Polls[i-1]-r.Polls[i-2]
	}
	if !shrinks {
		t.Errorf("Phased(deadline) = %s: want a gap that shrinks", r.Schedule)
	}
}

func TestSqrtRule(t *testing.T) {
	t.Run("uniform even", func(t *testing.T) {
		r, err := SqrtRule(uniform(900, 1), Budget{StuckPolls: 30}, exact15m)
		if err != nil {
			t.Fatal(err)
		}
		for i, p := range r.Polls {
			if want := time.Duration(i+1) * 30 * time.Second; p != want {
				t.Errorf("poll %d = %v, want %v", i, p, want)
			}
		}
	})
	d := distuv.LogNormal{Mu: 2, Sigma: 1}
	for _, b := range []Budget{{StuckPolls: 100}, {MeanPolls: 10}, {StuckPolls: 100, MeanPolls: 10}, {PollCost: 0.1}} {
		r, err := SqrtRule(d, b, exact15m)
		if err != nil {
			t.Fatal(err)
		}
		if b.StuckPolls > 0 && r.Expected.StuckPolls > b.StuckPolls || b.MeanPolls > 0 && r.Expected.MeanPolls > b.MeanPolls {
			t.Errorf("%+v: spends %+v", b, r.Expected)
		}
		// The √ rule is near the optimum for a smooth density (the
		// brief): within 10%, and never better at the same budget.
		if ratio := r.Expected.MeanLag / r.Optimum.MeanLag; b.PollCost == 0 && (ratio < 1-1e-9 || ratio > 1.1) {
			t.Errorf("%+v: √-rule lag / exact = %g, want in [1, 1.1]", b, ratio)
		}
	}
}

// empirical is the step CDF of settle times; the rest never settles.
type empirical struct {
	t []float64 // sorted
	n float64   // all items, pending included
}

func (e empirical) CDF(t float64) float64 {
	i, _ := slices.BinarySearch(e.t, math.Nextafter(t, math.Inf(1)))
	return float64(i) / e.n
}

// The payments fixture: at the budgets of "now" (152 stuck polls,
// now's mean polls) the best phased schedule beats now on mean lag. Pending
// rows count as never settling.
func TestPhasedBeatsNowOnPayments(t *testing.T) {
	f, err := os.Open("../fixtures/payments.csv")
	if err != nil {
		t.Skip("fixtures/payments.csv:", err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	var e empirical
	for _, row := range rows[1:] {
		if row[4] == "pending" {
			continue
		}
		v, err := strconv.ParseFloat(row[5], 64)
		if err != nil {
			t.Fatal(err)
		}
		e.t = append(e.t, v)
	}
	e.n = float64(len(rows) - 1)
	slices.Sort(e.t)
	now := References[3]
	en, err := Expect(now, e, phased15m)
	if err != nil {
		t.Fatal(err)
	}
	b := Budget{StuckPolls: now.StuckPolls(), MeanPolls: en.MeanPolls}
	r, err := Phased(e, b, MaxPhases, phased15m)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("now: %+v\nphased: %s\n  %+v", en, r.Schedule, r.Expected)
	if r.Expected.MeanLag >= en.MeanLag || r.Expected.StuckPolls > 152 || r.Expected.MeanPolls > en.MeanPolls {
		t.Errorf("phased %s: %+v; want less lag than now's %+v at no more polls", r.Schedule, r.Expected, en)
	}
}

func TestPriceOfSimplicity(t *testing.T) {
	rows, err := PriceOfSimplicity(distuv.LogNormal{Mu: 2, Sigma: 1}, Budget{StuckPolls: 100}, phased15m)
	if err != nil {
		t.Fatal(err)
	}
	prev := math.Inf(1)
	for _, r := range rows {
		// More phases never hurt, and no phased schedule beats the exact
		// optimum at the same stuck budget (its polls are grid points).
		if r.Err != nil || r.Ratio < 1-1e-9 || r.MeanLag > prev*(1+1e-9) {
			t.Errorf("K=%d: %+v (previous mean lag %g)", r.K, r, prev)
		}
		prev = r.MeanLag
	}
}

// The Lagrangian search alone underspends the budget, as the set of phased
// schedules is not convex; the local search must spend it. A nice 4-phase
// schedule S in the search space (the brief's "now", and variants) meets
// the budget of its own stuck and expected polls, so Phased(4) under that
// budget has no more expected lag than S: S's lag is computed by Expect,
// independently of the search.
func TestPhasedAtLeastAsGoodAsNiceSchedule(t *testing.T) {
	for _, spec := range []string{
		"every 1s until 30s, every 2s until 2m, every 5s until 5m, every 15s until 15m", // now
		"at 2s, every 2s until 1m, every 5s until 3m, every 15s until 5m, every 30s until 15m",
	} {
		t.Run(spec, func(t *testing.T) {
			s := MustParseSpec(spec)
			es, err := Expect(s, paymentsLike, phased15m)
			if err != nil {
				t.Fatal(err)
			}
			b := Budget{StuckPolls: es.StuckPolls, MeanPolls: es.MeanPolls}
			r, err := Phased(paymentsLike, b, 4, phased15m)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("S: %+v\nphased: %s\n  %+v", es, r.Schedule, r.Expected)
			if r.Expected.MeanLag > es.MeanLag*(1+1e-9) || r.Expected.StuckPolls > b.StuckPolls || r.Expected.MeanPolls > b.MeanPolls*(1+1e-12) {
				t.Errorf("Phased(mixture, %+v, 4) = %s: %+v; want mean lag ≤ %g within the budget", b, r.Schedule, r.Expected, es.MeanLag)
			}
			if r.Phases > 4 {
				t.Errorf("Phased(mixture, %+v, 4) has %d phases, want ≤ 4", b, r.Phases)
			}
		})
	}
}

// The best schedule of at most K phases can never be worse than the best of
// at most K − 1, under both budgets at once too.
func TestPriceOfSimplicityMonotone(t *testing.T) {
	rows, err := PriceOfSimplicity(paymentsLike, Budget{StuckPolls: 152, MeanPolls: 19}, phased15m)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range rows {
		if r.Err != nil {
			t.Fatalf("K=%d: %v", r.K, r.Err)
		}
		if i > 0 && r.Ratio > rows[i-1].Ratio*(1+1e-12) {
			t.Errorf("PriceOfSimplicity K=%d ratio = %g, want ≤ K=%d's %g", r.K, r.Ratio, rows[i-1].K, rows[i-1].Ratio)
		}
	}
}

// On a small case the phased search finds the schedule an
// exhaustive search over the same space finds: a first poll on the
// lattice, at most k constant-gap phases of the nice gaps each ending at
// any of its polls, and a closing gap to the horizon when the last does
// not land there (not counted as a phase). With a poll cost the
// Lagrangian DP is exact, so the objectives must agree to rounding; with
// a stuck budget the local search must reach the same optimum here.
func TestPhasedMatchesExhaustive(t *testing.T) {
	d := distuv.LogNormal{Mu: math.Log(2), Sigma: 0.6}
	gaps := []time.Duration{500 * time.Millisecond, time.Second, 2 * time.Second}
	o := Options{Horizon: 10 * time.Second, Resolution: 100 * time.Millisecond, MinGap: 500 * time.Millisecond, NiceGaps: gaps, ConstantGaps: true}
	h := o.Horizon
	md, err := newModel(d, h, o.Resolution)
	if err != nil {
		t.Fatal(err)
	}
	// every schedule of the space with at most k phases, by its polls
	var all [][]time.Duration
	var walk func(polls []time.Duration, phases, k int)
	walk = func(polls []time.Duration, phases, k int) {
		last := polls[len(polls)-1]
		if last == h {
			all = append(all, slices.Clone(polls))
			return
		}
		if h-last >= o.MinGap { // closing gap
			all = append(all, append(slices.Clone(polls), h))
		}
		if phases == k {
			return
		}
		for _, g := range gaps {
			p := slices.Clone(polls)
			for t := last + g; t <= h; t += g {
				p = append(p, t)
				walk(p, phases+1, k)
			}
		}
	}
	for _, k := range []int{1, 2} {
		all = all[:0]
		for s := time.Duration(0); s <= h; s += 500 * time.Millisecond {
			walk([]time.Duration{s}, 0, k)
		}
		for _, b := range []Budget{{PollCost: 0.05}, {PollCost: 0.5}, {StuckPolls: 8}, {StuckPolls: 14}} {
			best := math.Inf(1)
			var bestPolls []time.Duration
			for _, p := range all {
				e := md.expect(p)
				if b.StuckPolls > 0 && e.StuckPolls > b.StuckPolls {
					continue
				}
				if obj := e.TotalLag + b.PollCost*e.MeanPolls; obj < best-1e-12 {
					best, bestPolls = obj, p
				}
			}
			r, err := Phased(d, b, k, o)
			if err != nil {
				t.Fatal(err)
			}
			got := r.Expected.TotalLag + b.PollCost*r.Expected.MeanPolls
			if got > best+1e-9 || r.Phases > k {
				t.Errorf("k=%d %+v: phased %s (objective %.6f, %d phases), exhaustive %v (%.6f) over %d schedules",
					k, b, r.Schedule, got, r.Phases, bestPolls, best, len(all))
			}
		}
	}
}

// PickPhases for auto: the fewest phases within AutoRatio of the exact
// optimum; when none is, the fewest within AutoRatio of the best of all.
func TestPickPhasesAuto(t *testing.T) {
	res := func(k int) *Result { return &Result{Phases: k} }
	for _, tt := range []struct {
		name   string
		ratios []float64
		want   int
	}{
		{"within 5% of the optimum", []float64{2, 1.3, 1.04, 1.02}, 3},
		{"none within 5%: within 5% of the best", []float64{3.4, 1.14, 1.105, 1.084, 1.06, 1.057, 1.052, 1.051}, 4},
		{"the best alone", []float64{1.5, 1.2}, 2},
	} {
		var simple []Simplicity
		for i, r := range tt.ratios {
			simple = append(simple, Simplicity{K: i + 1, Ratio: r, Result: res(i + 1)})
		}
		r, err := PickPhases(simple, 0)
		if err != nil || r.Phases != tt.want {
			t.Errorf("%s: PickPhases(%v, auto) = %v phases, want %d (%v)", tt.name, tt.ratios, r.Phases, tt.want, err)
		}
	}
}

// TestPickPhasesSlack: auto takes the fewest phases within AutoRatio, then
// steps back while every step stays within AutoSlack of that ratio (not
// of the last step's: the slack does not add up).
func TestPickPhasesSlack(t *testing.T) {
	mk := func(ratios ...float64) []Simplicity {
		var out []Simplicity
		for i, r := range ratios {
			out = append(out, Simplicity{K: i + 1, Ratio: r, Result: &Result{Phases: i + 1}})
		}
		return out
	}
	for _, tc := range []struct {
		ratios []float64
		want   int
	}{
		{[]float64{1.2, 1.14, 1.09, 1.059, 1.049, 1.045}, 4}, // payments at "now"'s budgets
		{[]float64{1.2, 1.06, 1.045}, 3},                     // 1.5% is worth a phase
		{[]float64{1.2, 1.055, 1.051, 1.048}, 2},             // within 0.01 of 1.048 down to K=2
		{[]float64{1.062, 1.054, 1.046}, 2},                  // 1.062 is within 0.01 of 1.054 but not of 1.046: the slack does not chain
		{[]float64{1.03}, 1},
	} {
		r, err := PickPhases(mk(tc.ratios...), 0)
		if err != nil || r.Phases != tc.want {
			t.Errorf("ratios %v: picked %v phases (%v), want %d", tc.ratios, r.Phases, err, tc.want)
		}
	}
}
