package app

import (
	"testing"

	"github.com/pollfit/pollfit/optimize"
)

// When --nice-bounds restricts the phase ends, the binding warning names
// them, not the nice gaps: the best ending at the bounds lags 0.64 s, the
// best ending anywhere 0.505 s and the exact optimum 0.5 s, so the bounds
// cost 1.28/1.01 = ×1.27 and the gaps ×1.01 (under bindRatio: not named).
func TestBindingNamesNiceBounds(t *testing.T) {
	e := func(lag float64) optimize.Expectation {
		return optimize.Expectation{MeanLag: lag, TotalLag: lag, MeanPolls: 5, StuckPolls: 30, Caught: 1}
	}
	r := &optimize.Result{Method: "phased", Expected: e(0.64)}
	d := &derived{
		Result:    r,
		Exact:     &optimize.Result{Method: "exact", Expected: e(0.5)},
		Simple:    []optimize.Simplicity{{K: 1, MeanLag: 0.64, Ratio: 1.28, Result: r, Constant: r, ConstantRatio: 1.28}},
		Unbounded: &optimize.Result{Method: "phased", Expected: e(0.505)},
	}
	want := "this schedule's mean lag is ×1.28 the exact optimum's (500ms): the nice bounds bind (×1.27: the best of up to 8 phases ending at them against the best ending anywhere, 505ms): --nice-bounds takes other bounds; without it phases end at any poll"
	w := d.binding(Solve{Budget: optimize.Budget{StuckPolls: 30}})
	if len(w) != 1 || w[0] != want {
		t.Errorf("binding = %q, want [%q]", w, want)
	}
	d.Unbounded = nil // no bounds given: the gaps bind
	want = "this schedule's mean lag is ×1.28 the exact optimum's (500ms): the nice gaps bind (×1.28: the best of up to 8 phases of them against the exact optimum at the same min gap): --nice-gaps takes other gaps, --phases exact gives the optimum itself"
	if w := d.binding(Solve{Budget: optimize.Budget{StuckPolls: 30}}); len(w) != 1 || w[0] != want {
		t.Errorf("binding without bounds = %q, want [%q]", w, want)
	}
}
