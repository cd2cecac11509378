package optimize

import (
	"math"
	"testing"
	"time"
)

// Under a poll cost c the solvers minimise E[lag; T ≤ H] + c·E[polls], so
// schedules compare on that, not on lag. Uniform on [0, 30] s, polls
// every 10 s (0, 10, 20, 30) lag 5 s and make 1 + 1 + 2/3 + 1/3 = 3 polls
// (TestExpectByHand); polls 5, 10, …, 30 lag 2.5 s and make
// 1 + (25 + 20 + 15 + 10 + 5)/30 = 3.5. By hand:
//
//	c = 0.5: 5 + 1.5 = 6.5 against 2.5 + 1.75 = 4.25, ratio 1.5294
//	c = 6:   5 + 18 = 23 against 2.5 + 21 = 23.5, ratio 0.97872
//
// and under a budget the ratio of mean lags, 2, whatever the polls.
func TestBudgetCostByHand(t *testing.T) {
	o := Options{Horizon: 30 * time.Second, Resolution: 100 * time.Millisecond}
	sparse, err := Expect(MustParseSpec("every 10s until 30s"), uniform(30, 1), o)
	if err != nil {
		t.Fatal(err)
	}
	dense, err := Expect(MustParseSpec("at 5s, every 5s until 30s"), uniform(30, 1), o)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name                  string
		b                     Budget
		sparseCost, denseCost float64 // Cost of each
		ratio                 float64 // Ratio(sparse, dense)
	}{
		{"poll cost 0.5", Budget{PollCost: 0.5}, 6.5, 4.25, 6.5 / 4.25},
		{"poll cost 6", Budget{PollCost: 6}, 23, 23.5, 23 / 23.5},
		{"stuck budget", Budget{StuckPolls: 6}, 5, 2.5, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.b.Cost(sparse); math.Abs(got-tc.sparseCost) > 1e-9 {
				t.Errorf("Cost(every 10s) = %.6g, want %.6g", got, tc.sparseCost)
			}
			if got := tc.b.Cost(dense); math.Abs(got-tc.denseCost) > 1e-9 {
				t.Errorf("Cost(every 5s) = %.6g, want %.6g", got, tc.denseCost)
			}
			if got := tc.b.Ratio(sparse, dense); math.Abs(got-tc.ratio) > 1e-9 {
				t.Errorf("Ratio(every 10s, every 5s) = %.6g, want %.6g", got, tc.ratio)
			}
		})
	}
}

// Under a poll cost the price of simplicity compares costs: the exact
// optimum minimises the cost over the grid, so no K-phase schedule comes
// below it (a phased schedule's off-grid polls may gain a hair: 1e-3), and
// each K is seeded with the best of fewer, so the ratio never rises with
// K. Comparing lags alone gave ratios below 1 that rose with K (a schedule
// that polls more lags less).
func TestPriceOfSimplicityPollCostComparesCost(t *testing.T) {
	for _, c := range []float64{0.01, 0.05, 0.1, 0.5} {
		b := Budget{PollCost: c}
		o := Options{Horizon: 90 * time.Second}
		simple, err := PriceOfSimplicity(settleMs, b, o)
		if err != nil {
			t.Fatal(err)
		}
		ex, err := Exact(settleMs, b, o)
		if err != nil {
			t.Fatal(err)
		}
		prev := math.Inf(1)
		for _, s := range simple {
			if s.Err != nil {
				t.Fatalf("c=%g K=%d: %v", c, s.K, s.Err)
			}
			want := b.Cost(s.Result.Expected) / b.Cost(ex.Expected)
			if math.Abs(s.Ratio-want) > 1e-12 {
				t.Errorf("c=%g K=%d: ratio %.6g, want the cost ratio %.6g", c, s.K, s.Ratio, want)
			}
			if s.Ratio < 1-1e-3 || s.ConstantRatio < 1-1e-3 {
				t.Errorf("c=%g K=%d: ratio %.6g (constant %.6g) below 1: a phased schedule beats the exact optimum's cost", c, s.K, s.Ratio, s.ConstantRatio)
			}
			if s.Ratio > prev*(1+1e-12) {
				t.Errorf("c=%g K=%d: ratio %.6g above K=%d's %.6g", c, s.K, s.Ratio, s.K-1, prev)
			}
			prev = s.Ratio
		}
	}
}
