package optimize

import (
	"math"
	"testing"
	"time"
)

// Shortfalls worked out by hand from the rule (see Phase): "exp 1m x2
// until 10m" has gaps 1, 2, 4 minutes and a next one of 8 that would end
// at 15m, after the horizon.
func TestShortfall(t *testing.T) {
	// 2 of these 8 settle in (7m, 10m]: 8m and 10m (7m itself is seen by
	// the poll at 7m; 11m is after the horizon).
	items := NewItems([]float64{30, 120, 360, 420, 480, 600, 660, 1000}, nil, nil)
	// 1 of 60 (1.7%) settles in "before"'s last 16 s, (884 s, 900 s].
	late := make([]float64, 60)
	for i := range late {
		late[i] = float64(i)
	}
	late[59] = 890
	const before = "3s, 5s, 8s, 13s, every 15s until 2m, every 30s until 15m" // the brief's
	tests := []struct {
		spec       string
		items      *Items
		last, h    time.Duration
		unseen     float64 // NaN: no items
		wellShort  bool
		wantString string
	}{
		{"exp 1m x2 until 10m", nil, 7 * time.Minute, 10 * time.Minute, math.NaN(), true,
			"last poll at 7m, 3m before its 10m horizon; items settling in between are never seen"},
		{"exp 1m x2 until 10m", items, 7 * time.Minute, 10 * time.Minute, 2.0 / 8, true,
			"last poll at 7m, 3m before its 10m horizon; 25.0% of items settle in between and are never seen"},
		// 16 s of 900 s is 1.8% of the horizon: not well short …
		{before, nil, 884 * time.Second, 15 * time.Minute, math.NaN(), false, ""},
		// … unless 1% or more of the items settle in it.
		{before, NewItems(late, nil, nil), 884 * time.Second, 15 * time.Minute, 1.0 / 60, true,
			"last poll at 14m44s, 16s before its 15m horizon; 1.7% of items settle in between and are never seen"},
		{"every 2s until 7s", items, 6 * time.Second, 7 * time.Second, 0, true,
			"last poll at 6s, 1s before its 7s horizon; no item settles in between"},
		{"every 2s until 6s", nil, 6 * time.Second, 6 * time.Second, math.NaN(), false, ""},
		{"3s, 5s", nil, 8 * time.Second, 8 * time.Second, math.NaN(), false, ""},
	}
	for _, tt := range tests {
		s := MustParseSpec(tt.spec)
		f := s.Shortfall(tt.items)
		if f.LastPoll != tt.last || f.Horizon != tt.h || !sameFloat(f.Unseen, tt.unseen) {
			t.Errorf("Shortfall(%q) = %+v, want last poll %v, horizon %v, unseen %v", tt.spec, f, tt.last, tt.h, tt.unseen)
		}
		if f.WellShort() != tt.wellShort {
			t.Errorf("Shortfall(%q).WellShort() = %v, want %v", tt.spec, f.WellShort(), tt.wellShort)
		}
		if tt.wantString != "" && f.String() != tt.wantString {
			t.Errorf("Shortfall(%q).String() = %q, want %q", tt.spec, f, tt.wantString)
		}
	}
}

func sameFloat(a, b float64) bool {
	return math.IsNaN(a) && math.IsNaN(b) || math.Abs(a-b) <= 1e-12
}

// Regression: with every settle equal (one atom) the lag sums
// cancelled to small negative numbers, and the price of simplicity divided
// two of them ("K=1: −7e14"). Lags are now non-negative by construction
// and exactly 0 for items settling at a poll.
func TestLagsOneAtom(t *testing.T) {
	for _, at := range []float64{3.2, 0} {
		settle := make([]float64, 500)
		for i := range settle {
			settle[i] = at
		}
		items := NewItems(settle, nil, nil)
		// "every 800ms" polls at exactly 3.2 s (4·800ms) and at 0.
		sc := ScoreSchedule(MustParseSpec("every 800ms until 10s"), items, ScoreOptions{})
		if sc.MeanLag != 0 || sc.MedianLag != 0 || sc.P99Lag != 0 || sc.Caught != 1 {
			t.Errorf("atom at %v, every 800ms: mean lag %v, median %v, p99 %v, caught %v; want 0, 0, 0, 1", at, sc.MeanLag, sc.MedianLag, sc.P99Lag, sc.Caught)
		}
		// "every 3s" catches the atom at 3.2 at 6 s: lag 2.8 s for every
		// item, to the nanosecond (not 6 − 3.2 in float64).
		sc = ScoreSchedule(MustParseSpec("every 3s until 10s"), items, ScoreOptions{})
		want := 0.0
		if at > 0 {
			want = 2.8
		}
		if sc.MeanLag != want || sc.MedianLag != want || sc.P95Lag != want {
			t.Errorf("atom at %v, every 3s: mean lag %v, median %v, p95 %v; want %v", at, sc.MeanLag, sc.MedianLag, sc.P95Lag, want)
		}
		// A schedule that ends before the atom catches nothing: no lag.
		if at > 0 {
			sc = ScoreSchedule(MustParseSpec("every 1s until 3s"), items, ScoreOptions{})
			if sc.Caught != 0 || !math.IsNaN(sc.MeanLag) || !math.IsNaN(sc.MedianLag) {
				t.Errorf("nothing caught: caught %v, mean lag %v, median %v; want 0, NaN, NaN", sc.Caught, sc.MeanLag, sc.MedianLag)
			}
		}

		d := pointMass(at)
		b, o := Budget{StuckPolls: 10}, Options{Horizon: 10 * time.Second}
		ex, err := Exact(d, b, o)
		if err != nil {
			t.Fatal(err)
		}
		if ex.Expected.MeanLag != 0 || ex.Expected.TotalLag != 0 {
			t.Errorf("atom at %v: exact optimum's mean lag %v, total %v; want exactly 0 (a poll at the atom)", at, ex.Expected.MeanLag, ex.Expected.TotalLag)
		}
		// The √ rule polls at the atom too, on a fine grid or a coarse one:
		// it snapped back a cell from it, and ignored an atom at 0.
		for _, res := range []time.Duration{time.Millisecond, 100 * time.Millisecond} {
			sq, err := SqrtRule(d, b, Options{Horizon: o.Horizon, Resolution: res})
			if err != nil {
				t.Fatal(err)
			}
			if sq.Expected.MeanLag != 0 {
				t.Errorf("atom at %v, grid %v: √ rule polls at %v, mean lag %v; want a poll at the atom", at, res, sq.Polls, sq.Expected.MeanLag)
			}
		}
		ps, err := PriceOfSimplicity(d, b, o)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range ps {
			if p.Err != nil {
				continue
			}
			// Both 0: ratio 1; the K-phase one positive: +Inf.
			if p.MeanLag < 0 || p.MeanLag == 0 && p.Ratio != 1 || p.MeanLag > 0 && !math.IsInf(p.Ratio, 1) {
				t.Errorf("atom at %v, K=%d: mean lag %v, ratio %v", at, p.K, p.MeanLag, p.Ratio)
			}
		}
		// Expect on schedules that miss the atom by a hair and hit it.
		for _, spec := range []string{"every 1s until 10s", "at 3.2s, 6.8s", "every 100ms until 10s", "at 3.1s, 100ms, 6.8s"} {
			e, err := Expect(MustParseSpec(spec), d, o)
			if err != nil {
				t.Fatal(err)
			}
			if e.TotalLag < 0 || e.MeanLag < 0 || math.IsNaN(e.MeanLag) {
				t.Errorf("atom at %v: Expect(%q) = total lag %v, mean lag %v", at, spec, e.TotalLag, e.MeanLag)
			}
		}
	}
}
