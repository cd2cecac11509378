package app

import (
	"fmt"
	"math"

	"github.com/pollfit/pollfit/optimize"
)

// Under a poll cost the solvers minimise E[lag; T ≤ H] + c·E[polls]
// (optimize.Budget.Cost), so schedules compare on that: a schedule that
// lags less by polling more may cost more. Under a budget they compare on
// mean lag.

// costName names the cost under poll cost b: "cost (mean lag × caught +
// 0.05s/poll)". Its lag is E[lag; T ≤ H], the mean lag of the caught items
// times the share caught (optimize.Expectation.TotalLag), which the name
// says: the mean lag printed beside it is of the caught items alone.
func costName(b optimize.Budget) string {
	return fmt.Sprintf("cost (mean lag × caught + %.4gs/poll)", b.PollCost)
}

// objectiveName is what schedules compare on under b: "mean lag", or the
// cost under a poll cost.
func objectiveName(b optimize.Budget) string {
	if b.PollCost > 0 {
		return costName(b)
	}
	return "mean lag"
}

// costSuffix is ", cost (lag + 0.05s/poll) 735ms" under a poll cost, ""
// under a budget: what the lines giving a schedule's lag and polls add.
func costSuffix(b optimize.Budget, e optimize.Expectation) string {
	if b.PollCost == 0 {
		return ""
	}
	return fmt.Sprintf(", %s %s", costName(b), formatSeconds(b.Cost(e)))
}

// optimumText describes the exact optimum ex against the schedule of
// expectation e, for plan and report: "mean lag 349ms (this schedule
// ×1.042)", or under a poll cost "mean lag 417ms, 9.19 mean polls, cost
// (lag + 0.05s/poll) 877ms (this schedule's ×1.010)".
func optimumText(b optimize.Budget, e, ex optimize.Expectation) string {
	if b.PollCost == 0 {
		return fmt.Sprintf("mean lag %s (this schedule %s)", formatSeconds(ex.MeanLag), timesOptimum(e.MeanLag, ex.MeanLag))
	}
	// As printed: 0.9996 mean polls reads "1 mean poll".
	polls, word := fmt.Sprintf("%.3g", ex.MeanPolls), "mean polls"
	if polls == "1" {
		word = "mean poll"
	}
	return fmt.Sprintf("mean lag %s, %s %s%s (this schedule's %s)", formatSeconds(ex.MeanLag), polls, word,
		costSuffix(b, ex), timesOptimum(b.Cost(e), b.Cost(ex)))
}

// Ratios of lags where the reference lag may be 0 (every item settles at
// a poll of it: one atom on the grid, issue 15). Lags are never negative.

// timesOptimum writes lag a against the optimum's lag b: "×1.234", or
// the difference when the optimum has no lag.
func timesOptimum(a, b float64) string {
	switch {
	case b > 0:
		return fmt.Sprintf("×%.3f", a/b)
	case a == 0:
		return "×1: neither has any lag"
	}
	return formatSeconds(a) + " more: the optimum has no lag"
}

// ratio is a / b for lags a, b ≥ 0: 1 when both are 0, +Inf when only b
// is (as optimize.Simplicity.Ratio).
func ratio(a, b float64) float64 {
	switch {
	case b > 0:
		return a / b
	case a == 0:
		return 1
	}
	return math.Inf(1)
}

// ratioText writes a ratio of lags (optimize.Simplicity.Ratio), ∞ when
// only the denominator is 0.
func ratioText(r float64) string {
	if math.IsInf(r, 1) {
		return "∞"
	}
	return fmt.Sprintf("%.3g", r)
}

// relativeLag writes lag a against lag b: "12% less", "3% more", "the
// same", or the difference, written by lag, when b is 0.
func relativeLag(a, b float64, lag func(float64) string) string {
	switch {
	case a == b:
		return "the same"
	case b == 0:
		return lag(a) + " more"
	}
	rel := 100 * (1 - a/b)
	if rel < 0 {
		return fmt.Sprintf("%.0f%% more", -rel)
	}
	return fmt.Sprintf("%.0f%% less", rel)
}
