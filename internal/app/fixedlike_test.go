package app

import (
	"math"
	"testing"
	"time"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/pollfit/pollfit/optimize"
)

// plan's fixed baseline under a mean-poll budget (--mean-polls) spends
// that budget, not the derived schedule's stuck polls. A fixed gap g polls
// at 0, g, 2g, … up to the horizon: under Exp(1) over 10s it makes
// 1 + Σ_{j≥0} e^{−jg} = 1 + 1/(1 − e^{−g}) mean polls (the terms past the
// horizon are below e^{−10}), so 4 mean polls is a gap of ln(3/2) =
// 405.5ms, and 20 stuck polls one of 526ms (10s/19 = 526.3ms, in whole ms;
// the last gap, 532ms, takes the rest); with both budgets it keeps both.
func TestFixedLikeMeanPolls(t *testing.T) {
	d := distuv.Exponential{Rate: 1}
	o, err := optimize.Options{Horizon: 10 * time.Second}.Resolve(d)
	if err != nil {
		t.Fatal(err)
	}
	gapOf := func(s optimize.Schedule) time.Duration { return s.Phases[0].Gap }
	want := time.Duration(math.Log(1.5) * float64(time.Second))
	// By mean polls alone: stuck polls play no part (the derived
	// schedule's 60 would give a gap of 10s/59).
	s, err := fixedLike(optimize.Budget{MeanPolls: 4}, 60, d, o)
	if err != nil {
		t.Fatal(err)
	}
	if g := gapOf(s); (g - want).Abs() > 2*time.Millisecond {
		t.Errorf("fixedLike(mean polls 4) gap = %v, want %v ± 2ms (%s)", g, want, s)
	}
	e, err := optimize.Expect(s, d, o)
	if err != nil || e.MeanPolls > 4 || e.MeanPolls < 3.98 {
		t.Errorf("fixedLike(mean polls 4) = %s: %.4g mean polls under the fit (%v), want at most 4, within 0.5%%", s, e.MeanPolls, err)
	}
	// Both: 20 stuck polls want a gap of 526ms, which spends
	// 1 + 1/(1 − e^{−0.526}) = 3.45 mean polls, under 4: the stuck polls
	// bind; 40 stuck polls (a gap of 256ms) leave the mean polls to bind.
	for _, c := range []struct {
		b     optimize.Budget
		stuck int
		want  time.Duration
	}{
		{optimize.Budget{StuckPolls: 20, MeanPolls: 4}, 20, 526 * time.Millisecond},
		{optimize.Budget{StuckPolls: 40, MeanPolls: 4}, 40, 406 * time.Millisecond},
		// A stuck budget alone: the derived schedule's stuck polls.
		{optimize.Budget{StuckPolls: 40}, 20, 526 * time.Millisecond},
	} {
		s, err := fixedLike(c.b, c.stuck, d, o)
		if err != nil {
			t.Fatal(err)
		}
		if g := gapOf(s); g != c.want {
			t.Errorf("fixedLike(%+v, derived stuck %d) gap = %v, want %v (%s)", c.b, c.stuck, g, c.want, s)
		}
	}
}
