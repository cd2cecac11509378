package app

import (
	"fmt"
	"math"
)

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
