package optimize

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"time"
)

// A fixed gap b over horizon H polls at k·b for every k·b < H, and at H:
// ceil(H/b) + 1 polls. So the smallest whole-millisecond b with at most N
// polls is the first b ≥ H/(N−1), worked out by hand: N = 37 over 15m
// needs b ≥ 900/36 = 25 s (at 24.999 s, ceil(900/24.999) = 37 makes a
// 38th poll).
func TestTuneFixedByHand(t *testing.T) {
	tests := []struct {
		n       int
		horizon time.Duration
		want    time.Duration
	}{
		{37, 15 * time.Minute, 25 * time.Second},
		// 10 polls over 1m: b ≥ 60/9 = 6.6667 s → 6.667 s (8 gaps of it,
		// 53.336 s, then one of 6.664 s to the horizon)
		{10, time.Minute, 6667 * time.Millisecond},
		// 2 polls: only the gap of the whole horizon fits
		{2, time.Minute, time.Minute},
	}
	for _, tt := range tests {
		got, err := Tune(Family{Name: "fixed", Growth: Fixed}, tt.horizon, Budget{StuckPolls: tt.n}, nil, ScoreOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if got.Base != tt.want || got.StuckPolls != float64(tt.n) {
			t.Errorf("Tune(fixed, %v, %d polls) = base %v with %v polls, want %v with %d", tt.horizon, tt.n, got.Base, got.StuckPolls, tt.want, tt.n)
		}
	}
}

// Tuning to a stuck cost lands on the target or, where the family skips
// that count, below it, and one millisecond less base overspends.
func TestTuneStuckPolls(t *testing.T) {
	horizon := 15 * time.Minute
	for _, f := range Families {
		for _, n := range []int{5, 37, 152, 1000} {
			t.Run(fmt.Sprintf("%s/%d", f.Name, n), func(t *testing.T) {
				opt := ScoreOptions{Draws: 20, Seed: 1}
				got, err := Tune(f, horizon, Budget{StuckPolls: n}, nil, opt)
				if err != nil {
					t.Fatal(err)
				}
				if got.StuckPolls > float64(n) {
					t.Errorf("Tune(%s, %d) spends %v stuck polls, want ≤ %d", f.Name, n, got.StuckPolls, n)
				}
				// Within one poll: the jittered mean moves by fractions.
				if got.StuckPolls < float64(n)-1 {
					t.Errorf("Tune(%s, %d) spends %v stuck polls, want within one poll of %d", f.Name, n, got.StuckPolls, n)
				}
				if sc := ScoreSchedule(got.Schedule, nil, opt); sc.StuckPolls != got.StuckPolls {
					t.Errorf("ScoreSchedule stuck polls %v, Tune reports %v", sc.StuckPolls, got.StuckPolls)
				}
				if f.Jitter.Kind == NoJitter && got.Base > time.Millisecond {
					less := f.Schedule(got.Base-time.Millisecond, horizon).StuckPolls()
					if less <= n {
						t.Errorf("base %v − 1ms also spends %d ≤ %d polls: not the smallest base", got.Base, less, n)
					}
				}
			})
		}
	}
}

// Tuning to mean polls on items hits the target within 0.5% (the
// promised tolerance) and reports what ScoreSchedule measures.
func TestTuneMeanPolls(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 6))
	settle := make([]float64, 20000)
	for i := range settle {
		settle[i] = math.Exp(rng.NormFloat64()*1.2 + 2) // log-normal, median e² ≈ 7.4 s
	}
	items := NewItems(settle, nil, nil)
	horizon := 15 * time.Minute
	for _, f := range Families {
		for _, m := range []float64{3, 8, 20} {
			t.Run(fmt.Sprintf("%s/%g", f.Name, m), func(t *testing.T) {
				opt := ScoreOptions{Draws: 20, Seed: 3}
				got, err := Tune(f, horizon, Budget{MeanPolls: m}, items, opt)
				if err != nil {
					t.Fatal(err)
				}
				if got.MeanPolls > m || got.MeanPolls < m*(1-0.005) {
					t.Errorf("Tune(%s, mean %g) spends %v polls per item, want within 0.5%% below %g", f.Name, m, got.MeanPolls, m)
				}
				sc := ScoreSchedule(got.Schedule, items, opt)
				if math.Abs(sc.MeanPolls-got.MeanPolls) > 1e-9*m {
					t.Errorf("ScoreSchedule mean polls %v, Tune reports %v", sc.MeanPolls, got.MeanPolls)
				}
			})
		}
	}
}

// Both limits: the tighter one binds.
func TestTuneBothLimits(t *testing.T) {
	items := NewItems([]float64{1, 2, 3, 100, 200, 300, 400}, nil, nil)
	f := Family{Name: "fixed", Growth: Fixed}
	h := 10 * time.Minute
	a, err := Tune(f, h, Budget{StuckPolls: 20}, items, ScoreOptions{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := Tune(f, h, Budget{StuckPolls: 20, MeanPolls: a.MeanPolls / 2}, items, ScoreOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if b.Base <= a.Base || b.MeanPolls > a.MeanPolls/2 {
		t.Errorf("both limits: base %v mean %v; stuck only: base %v mean %v; want a larger base under half the mean", b.Base, b.MeanPolls, a.Base, a.MeanPolls)
	}
}

func TestTuneOutOfReach(t *testing.T) {
	// The sparsest member polls at 0 and at the horizon: 2 polls.
	_, err := Tune(Family{Name: "fixed", Growth: Fixed}, time.Minute, Budget{StuckPolls: 1}, nil, ScoreOptions{})
	if !errors.Is(err, ErrBudget) {
		t.Errorf("Tune(1 poll) error = %v, want ErrBudget", err)
	}
}

func ExampleTune() {
	f, _ := FamilyByName("fixed")
	r, _ := Tune(f, 15*time.Minute, Budget{StuckPolls: 37}, nil, ScoreOptions{})
	fmt.Println(r.Schedule, r.StuckPolls)
	// Output:
	// every 25s until 15m 37
}
