package app

import (
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/pollfit/pollfit/fit"
	"github.com/pollfit/pollfit/ingest"
	"github.com/pollfit/pollfit/optimize"
)

// A given horizon that comes before more than 5% of the settles is
// warned about: the mean lag is over the items caught by it (a new user's
// --horizon 1s on settle times whose 99th percentile was 90 s reported a
// 35.6 ms mean lag, caught 42.3%, and no warning).
func TestHorizonCut(t *testing.T) {
	// Settled 1, 2, 3, 10, 20 (weights 1, 1, 1, 2, 1); censored 50, 60.
	s := &ingest.Sample{
		Times:    []float64{1, 2, 3, 10, 20, 50, 60},
		Censored: []bool{false, false, false, false, false, true, true},
		Weights:  []float64{1, 1, 1, 2, 1, 1, 1},
	}
	for _, c := range []struct {
		h    float64
		want float64
	}{
		{0.5, 1}, {1, 5.0 / 6}, {3, 3.0 / 6}, {10, 1.0 / 6}, {20, 0}, {100, 0},
	} {
		got, last := settledBeyond(s, c.h)
		if math.Abs(got-c.want) > 1e-15 || last != 20 {
			t.Errorf("settledBeyond(%g) = %g, %g; want %g, 20 (the last settle)", c.h, got, last, c.want)
		}
	}
	// weibull k = 1.5, λ = 30: S(30) = e⁻¹ of the settles come after 30 s.
	w, err := fit.ParseDist("weibull:k=1.5,lambda=30")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := modelBeyond(w, 30), math.Exp(-1); math.Abs(got-want) > 1e-9 {
		t.Errorf("modelBeyond(weibull, 30s) = %g, want e⁻¹ = %g", got, want)
	}
	if got := horizonCut(math.Exp(-1), 30*time.Second); !strings.Contains(got, "the horizon 30s comes before 36.8% of the settles") {
		t.Errorf("horizonCut = %q", got)
	}
	if got := horizonCut(0.05, time.Minute); got != "" {
		t.Errorf("horizonCut at exactly 5%% = %q, want no warning", got)
	}
}

// TestIssue15PollCostOverflow: --poll-cost 1e10 printed its cost through
// time.Duration, which overflowed (-2346317h47m53.709551616s), and 1e12 as
// 0s; seconds beyond maxDurationSeconds are written in exponent form.
// The cost's lag is the mean lag times the share caught, as its name says:
// 5.38 s × 0.995 + 2 s × 3.14 polls.
func TestIssue15PollCostOverflow(t *testing.T) {
	for _, c := range []struct {
		v    float64
		want string
	}{
		{1e10 + 29.86, "1e+10s"},
		{1e12, "1e+12s"},
		{maxDurationSeconds, "277777h46m40s"},
		{11.6, "11.6s"},
	} {
		if got := formatSeconds(c.v); got != c.want {
			t.Errorf("formatSeconds(%g) = %q, want %q", c.v, got, c.want)
		}
	}
	b := optimize.Budget{PollCost: 2}
	e := optimize.Expectation{MeanLag: 5.38, TotalLag: 5.38 * 0.995, MeanPolls: 3.14}
	if got, want := costSuffix(b, e), ", cost (mean lag × caught + 2s/poll) 11.6s"; got != want {
		t.Errorf("costSuffix = %q, want %q", got, want)
	}
}

// TestIssue15FixedNote: the fixed baseline polls at the start and at the
// horizon at its sparsest, 2 stuck polls, so it cannot meet pollfit's 1
// (--budget 1): the note says so instead of "at most pollfit's 2 stuck
// polls".
func TestIssue15FixedNote(t *testing.T) {
	for _, c := range []struct {
		b     optimize.Budget
		stuck int
		want  string
	}{
		{optimize.Budget{StuckPolls: 1}, 1, "fixed: one gap, the smallest that spends at most 2 stuck polls; it cannot fit pollfit's 1 stuck poll: the sparsest fixed schedule polls at the start and at the horizon"},
		{optimize.Budget{StuckPolls: 30}, 30, "fixed: one gap, the smallest that spends at most pollfit's 30 stuck polls"},
		{optimize.Budget{MeanPolls: 3}, 9, "fixed: one gap, the smallest that spends at most the budget's 3 mean polls per item under the fit (--mean-polls)"},
	} {
		if got := fixedNote(c.b, c.stuck, false); got != c.want {
			t.Errorf("fixedNote(%+v, %d) = %q\nwant %q", c.b, c.stuck, got, c.want)
		}
	}
}

// TestIssue15MassBeyondHorizon: with every item settled, what was printed
// as "stuck share" is the fit's mass beyond its horizon, the kernel's
// tail (0.185 for the reviewer's 5 rows, none of which is stuck): it is
// printed under that name, and equals 1 − CDF(horizon).
func TestIssue15MassBeyondHorizon(t *testing.T) {
	s := &ingest.Sample{Times: []float64{1.2, 3.4, 2.2, 8.0, 5.5}}
	d, err := fit.Estimate(s, fit.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := d.StuckShare, 1-d.CDF(d.Horizon()); math.Abs(got-want) > 1e-12 {
		t.Errorf("StuckShare = %g, want 1 − CDF(%g) = %g", got, d.Horizon(), want)
	}
	sum := fitSummary(d)
	if want := fmt.Sprintf("mass beyond the horizon %.3g", d.StuckShare); !strings.Contains(sum, want) || strings.Contains(sum, "stuck") {
		t.Errorf("fitSummary = %q, want it to say %q and not \"stuck\"", sum, want)
	}
}

// TestIssue15HorizonFar: a given horizon far past the last settle is
// questioned (a second fresh user's --horizon 300 on latencies in ms:
// 5 minutes against a last settle of 1.45 s); one within 100× is not.
func TestIssue15HorizonFar(t *testing.T) {
	if got := horizonFar(5*time.Minute, 1.45); !strings.Contains(got, "the horizon 5m is 207× the last settle time (1.45s): a bare --horizon number is seconds") || !strings.Contains(got, "--horizon 300ms") {
		t.Errorf("horizonFar(5m, 1.45s) = %q", got)
	}
	for _, c := range []struct {
		h    time.Duration
		last float64
	}{{15 * time.Minute, 142}, {2 * time.Minute, 1.2}, {time.Minute, 0}} {
		if got := horizonFar(c.h, c.last); got != "" {
			t.Errorf("horizonFar(%v, %g) = %q, want none", c.h, c.last, got)
		}
	}
}
