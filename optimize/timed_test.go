package optimize

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"
)

// TestScoreTimedMatchesItems: on a schedule without a wall-clock phase the
// creation instants change nothing, so ScoreTimed must give ScoreSchedule's
// figures on the same rows, censored ones included.
func TestScoreTimedMatchesItems(t *testing.T) {
	rng := rand.New(rand.NewPCG(14, 2))
	n := 3000
	settle, censored, created := make([]float64, n), make([]bool, n), make([]int64, n)
	for i := range n {
		settle[i] = math.Round(math.Exp(2+rng.NormFloat64())*1000) / 1000
		censored[i] = rng.IntN(20) == 0
		created[i] = rng.Int64N(1 << 60)
	}
	items, timed := NewItems(settle, censored, nil), NewTimed(settle, censored, created)
	for _, spec := range []string{"every 1s until 30s, exp 2s x1.5 cap 1m until 15m", "at 3s, 7s, every 10s until 2m", "every 5s until 20s"} {
		s := MustParseSpec(spec)
		want := ScoreSchedule(s, items, ScoreOptions{LagSE: true})
		got := ScoreTimed(s, timed, ScoreOptions{LagSE: true})
		for _, c := range []struct {
			what      string
			got, want float64
			tol       float64
		}{
			{"mean polls", got.MeanPolls, want.MeanPolls, 1e-9},
			{"mean lag", got.MeanLag, want.MeanLag, 1e-9},
			{"caught", got.Caught, want.Caught, 1e-12},
			{"median lag", got.MedianLag, want.MedianLag, 1e-6},
			{"p95 lag", got.P95Lag, want.P95Lag, 1e-6},
			{"p99 lag", got.P99Lag, want.P99Lag, 1e-6},
			{"stuck polls", got.StuckPolls, want.StuckPolls, 0},
			{"lag SE", got.MeanLagSE, want.MeanLagSE, 1e-9},
		} {
			if math.Abs(c.got-c.want) > c.tol*max(1, math.Abs(c.want)) {
				t.Errorf("%s: ScoreTimed %s = %v, ScoreSchedule %v", spec, c.what, c.got, c.want)
			}
		}
	}
}

// TestScoreTimedByHand scores a wall-clock schedule on three items worked
// out by hand. "every 1s until 3s, after each 1m (+2s) until 10m":
//
//	A created 00:00:30, settles at age 2.5 s: polls 0,1,2,3 s → lag 0.5 s, 4 polls
//	B created 00:00:30, settles at 00:01:01 (age 31 s): polls 0–3 s, then
//	  00:01:02 (age 32 s) → lag 1 s, 5 polls
//	C created 00:00:59, settles at 00:02:05 (age 66 s): polls 0–3 s
//	  (to 00:01:02), then 00:01:02 is not after 00:01:02… the clock polls
//	  at 00:02:02 (age 63 s), 00:03:02 (age 123 s) → lag 57 s, 6 polls
func TestScoreTimedByHand(t *testing.T) {
	s := MustParseSpec("every 1s until 3s, after each 1m (+2s) until 10m")
	at := func(sec int) int64 { return time.Date(2025, 3, 1, 0, 0, sec, 0, time.UTC).UnixNano() }
	td := NewTimed([]float64{2.5, 31, 66}, nil, []int64{at(30), at(30), at(59)})
	sc := ScoreTimed(s, td, ScoreOptions{Ages: []time.Duration{3 * time.Second}})
	if want := (0.5 + 1 + 57) / 3; math.Abs(sc.MeanLag-want) > 1e-9 {
		t.Errorf("mean lag = %v, want %v", sc.MeanLag, want)
	}
	if want := (4.0 + 5 + 6) / 3; math.Abs(sc.MeanPolls-want) > 1e-12 {
		t.Errorf("mean polls = %v, want %v", sc.MeanPolls, want)
	}
	if sc.MedianLag != 1 || sc.Caught != 1 || sc.PollsBy[0] != 4 {
		t.Errorf("median %v caught %v polls by 3s %v; want 1, 1, 4", sc.MedianLag, sc.Caught, sc.PollsBy[0])
	}
}
