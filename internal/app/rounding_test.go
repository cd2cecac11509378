package app

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/pollfit/pollfit/fit"
	"github.com/pollfit/pollfit/ingest"
	"github.com/pollfit/pollfit/optimize"
)

// TestIssue15RoundedLags: settle times rounded to 1 s (the reviewer's
// dup.csv) scored against a schedule polling every 1s land on its polls:
// every item is caught at its rounded time, mean lag 0 (by construction:
// each time is a whole second from 1 s to 40 s and every whole second is a
// poll), which evaluate and plan must not print without a word. A
// schedule of 1.3 s gaps, on the grid at one poll in ten, and a mean lag
// far above half the resolution, are not named.
func TestIssue15RoundedLags(t *testing.T) {
	r := rand.New(rand.NewPCG(15, 0))
	s := &ingest.Sample{}
	for range 5000 {
		s.Times = append(s.Times, float64(1+r.IntN(40)))
	}
	if res := fit.Resolution(s.Times); res != 1 {
		t.Fatalf("fit.Resolution = %g, want 1", res)
	}
	var scheds []optimize.Schedule
	for _, spec := range []string{"every 1s until 5m", "every 1.3s until 5m", "every 30s until 5m"} {
		sc, err := LoadSchedules(spec)
		if err != nil {
			t.Fatal(err)
		}
		scheds = append(scheds, sc...)
	}
	items := itemsOf(s)
	scores := make([]optimize.Score, len(scheds))
	for i, sc := range scheds {
		scores[i] = scoringOf(s, items).score(sc, optimize.ScoreOptions{})
	}
	if scores[0].MeanLag != 0 {
		t.Fatalf("every 1s: mean lag %g, want 0", scores[0].MeanLag)
	}
	w := roundingWarning(1, scheds, scores)
	want := "the times are rounded to 1s: lags of these rows are understated by up to half of 1s for schedules polling on that grid, whose polls meet rounded settles exactly: every 1s until 5m (mean lag 0s)"
	if w != want {
		t.Errorf("roundingWarning = %q\nwant %q", w, want)
	}
	if w := roundingWarning(0, scheds, scores); w != "" {
		t.Errorf("no resolution: %q, want none", w)
	}
	if strings.Contains(w, "1.3s") || strings.Contains(w, "30s") {
		t.Errorf("names a schedule off the grid or with a long lag: %q", w)
	}
	// A schedule that catches no row has a mean lag of NaN: nothing to
	// understate, and no "mean lag NaNs" (a horizon just after the first
	// settle left every held-out row uncaught).
	none := scores[0]
	none.MeanLag = math.NaN()
	if w := roundingWarning(1, scheds[:1], []optimize.Score{none}); w != "" {
		t.Errorf("no row caught: %q, want none", w)
	}
}
