package app

import (
	"math"
	"strings"
	"testing"
	"time"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/pollfit/pollfit/ingest"
	"github.com/pollfit/pollfit/optimize"
)

// TestCheckPollsByHand: a schedule polling at 0, 1, 2 and 3 s (G = 4
// stuck polls) under an exponential fit of rate 1/s, F(t) = 1 − e^−t,
// scored on 40 rows: 10 settling at 0.5 s (caught by the poll at 1 s,
// 2 polls each) and 30 at 10 s, past the horizon (all 4 polls). By hand:
//
//	q = F(0), F(1) − F(0), F(2) − F(1), F(3) − F(2);  s = e^−3
//	E[N] = Σ (k+1)·q_k + 4·s,  E[N²] = Σ (k+1)²·q_k + 16·s
//	realised = (10·2 + 30·4) / 40 = 3.5,  ŝ = 30/40
//	SE = sqrt(E[N²] − E[N]²) · sqrt(1/40 + 1/160)  (160 rows fitted)
//
// and the gap, pending-driven, splits as (ŝ − s)·(4 − μ) + (1 − ŝ)·(2 − μ)
// with μ = (E[N] − 4s)/(1 − s), the mean polls of an item caught.
func TestCheckPollsByHand(t *testing.T) {
	d := distuv.Exponential{Rate: 1}
	s, err := optimize.ParseSpec("every 1s until 3s")
	if err != nil {
		t.Fatal(err)
	}
	o := optimize.Options{Horizon: 3 * time.Second, Resolution: 100 * time.Millisecond}
	exp, err := optimize.Expect(s, d, o)
	if err != nil {
		t.Fatal(err)
	}
	r := &optimize.Result{Schedule: s, Expected: exp, Options: o}
	times := make([]float64, 40)
	for i := range times {
		times[i] = 10
		if i < 10 {
			times[i] = 0.5
		}
	}
	sc := optimize.ScoreSchedule(s, optimize.NewItems(times, nil, nil), optimize.ScoreOptions{Ages: []time.Duration{}})

	F := func(t float64) float64 { return 1 - math.Exp(-t) }
	q := []float64{F(0), F(1) - F(0), F(2) - F(1), F(3) - F(2)}
	pend := math.Exp(-3)
	var e1, e2 float64
	for k, v := range q {
		n := float64(k + 1)
		e1 += n * v
		e2 += n * n * v
	}
	e1 += 4 * pend
	e2 += 16 * pend
	se := math.Sqrt(e2-e1*e1) * math.Sqrt(1.0/40+1.0/160)
	mu := (e1 - 4*pend) / (1 - pend)
	const realised, pendRows = 3.5, 0.75

	c := checkPolls(nil, d, r, sc, 40, 40, 160, true, false, optimize.Budget{MeanPolls: 2.5})
	for _, f := range []struct {
		name      string
		got, want float64
	}{
		{"expected", c.Expected, e1},
		{"realised", c.Realised, realised},
		{"SE", c.SE, se},
		{"z", c.Z, (realised - e1) / se},
		{"pending expected", c.PendingExpected, pend},
		{"pending realised", c.PendingRealised, pendRows},
		{"caught polls expected", c.CaughtExpected, mu},
		{"caught polls realised", c.CaughtRealised, 2},
		{"gap from pending", c.FromPending, (pendRows - pend) * (4 - mu)},
		{"gap from caught", c.FromCaught, (1 - pendRows) * (2 - mu)},
	} {
		// The fit is read on the solvers' grid model: 1e-9 of the
		// closed forms.
		if math.Abs(f.got-f.want) > 1e-8*math.Max(1, math.Abs(f.want)) {
			t.Errorf("%s = %.12g, want %.12g", f.name, f.got, f.want)
		}
	}
	if c.StuckPolls != 4 {
		t.Errorf("stuck polls = %d, want 4", c.StuckPolls)
	}
	// 0.997 polls from 0.128: 7.81 standard errors, from the pending
	// share (μ = 2.4248).
	for _, want := range []string{"7.81 standard errors (0.128) from the expected 2.5", "which the --mean-polls budget holds under the fit",
		"the fit leaves 5.0% of items pending at the horizon 3s, each making all 4 polls against 2.42 for an item caught, the held-out rows 75.0% (+1.1 polls per item)"} {
		if !strings.Contains(c.Warning, want) {
			t.Errorf("warning %q lacks %q", c.Warning, want)
		}
	}

	// On the rows fitted (not held out) the fit's term is left out.
	in := checkPolls(nil, d, r, sc, 40, 40, 160, false, false, optimize.Budget{})
	if want := math.Sqrt(e2-e1*e1) / math.Sqrt(40); math.Abs(in.SE-want) > 1e-8*want || in.KnownFit != 0 {
		t.Errorf("in-sample SE = %.12g (rows fitted %v), want %.12g without the fit's term", in.SE, in.KnownFit, want)
	}
	if strings.Contains(in.Warning, "--mean-polls") {
		t.Errorf("warning without a mean-polls budget names it: %q", in.Warning)
	}
}

// TestKnownPolls: a row's polls under a schedule polling to the horizon
// are known when it settled (before the horizon or after) or was pending
// at the horizon's age or older; one pending younger may yet settle
// before it. Of 1 s, 20 s (settled), 3 s, 10 s, 40 s (pending) at a 10 s
// horizon: 1 s, 20 s, 10 s and 40 s, with weights 1, 2, 4, 8, 16: 27.
func TestKnownPolls(t *testing.T) {
	s := &ingest.Sample{Times: []float64{1, 20, 3, 10, 40}, Censored: []bool{false, false, true, true, true}}
	if got := knownPolls(s, 10); got != 4 {
		t.Errorf("knownPolls = %v, want 4", got)
	}
	s.Weights = []float64{1, 2, 4, 8, 16}
	if got := knownPolls(s, 10); got != 27 {
		t.Errorf("knownPolls, weighted = %v, want 27", got)
	}
}
