package optimize

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-6*math.Max(1, math.Abs(b)) }

// Each figure below is worked out by hand from the definitions in Score.
func TestScoreByHand(t *testing.T) {
	every2 := MustParseSpec("every 2s until 6s") // polls 0, 2, 4, 6
	tests := []struct {
		name     string
		settle   []float64
		censored []bool
		weight   []float64
		want     Score
	}{
		{
			// lags 0, 1.5, 1.5, 0 and one item after the horizon;
			// polls 1, 2, 3, 3 and 4 for the uncaught one.
			name:   "plain",
			settle: []float64{0, 0.5, 2.5, 4, 10},
			want:   Score{MeanPolls: 13.0 / 5, MeanLag: 0.75, MedianLag: 0, P95Lag: 1.5, P99Lag: 1.5, Caught: 0.8},
		},
		{
			// The censored item at 3 hands its weight to the one at 5
			// (redistribute-to-the-right): weights 1 and 2.
			name:     "censored",
			settle:   []float64{1, 3, 5},
			censored: []bool{false, true, false},
			want:     Score{MeanPolls: (2 + 2*4) / 3.0, MeanLag: 1, MedianLag: 1, P95Lag: 1, P99Lag: 1, Caught: 1},
		},
		{
			// Censored beyond everything: never settles, costs the stuck polls.
			name:     "pending",
			settle:   []float64{1, 3600},
			censored: []bool{false, true},
			want:     Score{MeanPolls: (2 + 4) / 2.0, MeanLag: 1, MedianLag: 1, P95Lag: 1, P99Lag: 1, Caught: 0.5},
		},
		{
			// Weights as counts: the item at 0.5 counts 3 times, lags 1.5 ×3 and 0.
			name:   "weighted",
			settle: []float64{0.5, 2},
			weight: []float64{3, 1},
			want:   Score{MeanPolls: (3*2 + 2) / 4.0, MeanLag: 4.5 / 4, MedianLag: 1.5, P95Lag: 1.5, P99Lag: 1.5, Caught: 1},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ScoreSchedule(every2, NewItems(tt.settle, tt.censored, tt.weight), ScoreOptions{})
			w := tt.want
			if !near(got.MeanPolls, w.MeanPolls) || !near(got.MeanLag, w.MeanLag) || !near(got.Caught, w.Caught) ||
				!near(got.MedianLag, w.MedianLag) || !near(got.P95Lag, w.P95Lag) || !near(got.P99Lag, w.P99Lag) {
				t.Errorf("Score = mean polls %v, mean lag %v, median %v, p95 %v, p99 %v, caught %v;\nwant mean polls %v, mean lag %v, median %v, p95 %v, p99 %v, caught %v",
					got.MeanPolls, got.MeanLag, got.MedianLag, got.P95Lag, got.P99Lag, got.Caught,
					w.MeanPolls, w.MeanLag, w.MedianLag, w.P95Lag, w.P99Lag, w.Caught)
			}
			if got.StuckPolls != 4 {
				t.Errorf("StuckPolls = %v, want 4", got.StuckPolls)
			}
		})
	}
}

// Redistribute-to-the-right reproduces the Kaplan–Meier estimate: for
// events at 1, 5, 7 and a censoring at 3, KM gives S(1) = 3/4,
// S(5) = 3/4·1/2 = 3/8, S(7) = 0, so the jumps are 1/4, 3/8, 3/8.
func TestItemsMatchKaplanMeier(t *testing.T) {
	it := NewItems([]float64{7, 3, 1, 5}, []bool{false, true, false, false}, nil)
	want := []float64{1.0 / 4, 3.0 / 8, 3.0 / 8}
	for i := range want {
		got := (it.cumW[i+1] - it.cumW[i]) / it.total
		if !near(got, want[i]) {
			t.Errorf("KM jump at %v = %v, want %v", it.t[i], got, want[i])
		}
	}
}

// Full jitter on a fixed gap g draws gaps uniform on [0, g]: the mean gap
// is g/2, so a fixed 2s schedule until 1m makes about 60 polls, and items
// uniform in time wait on average E[G²]/(2E[G]) = (g²/3)/(g) = g/3.
func TestJitterMonteCarlo(t *testing.T) {
	s := MustParseSpec("every 2s until 1m, jitter full")
	settle := make([]float64, 5000)
	for i := range settle {
		settle[i] = 10 + 40*float64(i)/float64(len(settle)) // uniform on [10, 50)
	}
	sc := ScoreSchedule(s, NewItems(settle, nil, nil), ScoreOptions{Draws: 400, Seed: 7})
	if math.Abs(sc.StuckPolls-61) > 2 {
		t.Errorf("StuckPolls = %v, want about 61 (60 gaps of mean 1s, plus the first poll, at ±2)", sc.StuckPolls)
	}
	if math.Abs(sc.MeanLag-2.0/3) > 3*sc.MeanLagCI+0.02 {
		t.Errorf("MeanLag = %v ± %v, want 2/3 s", sc.MeanLag, sc.MeanLagCI)
	}
	for d := 0; d < 50; d++ {
		polls := s.AppendPolls(nil, fixedRand(float64(d)/50))
		for i := 1; i < len(polls); i++ {
			if g := polls[i] - polls[i-1]; g > 2*time.Second {
				t.Fatalf("full jitter gap %v exceeds the scheduled 2s", g)
			}
		}
	}
}

type fixedRand float64

func (f fixedRand) Float64() float64 { return float64(f) }

// TestMeanLagSE works the standard error out by hand for the cases of
// TestScoreByHand (every 2s until 6s):
//   - plain: lags 0, 1.5, 1.5, 0 of 4 caught, mean 0.75; sample sd
//     sqrt(4·0.75²/3) = 0.8660, SE = 0.8660/2 = 0.4330;
//   - weighted: lags 1.5 (weight 3) and 0 (weight 1), 4 items, mean 1.125;
//     Σw(lag − mean)² = 3·0.375² + 1.125² = 1.6875, sd = sqrt(1.6875/3) =
//     0.75, SE = 0.75/2 = 0.375;
//   - censored: lags 1 and 1 (items at 1 and 5; the censored one at 3
//     hands its weight on but is not caught): SE 0 on 2 items.
func TestMeanLagSE(t *testing.T) {
	every2 := MustParseSpec("every 2s until 6s")
	for _, c := range []struct {
		name           string
		settle         []float64
		censored       []bool
		weight         []float64
		wantSE, wantNC float64
	}{
		{"plain", []float64{0, 0.5, 2.5, 4, 10}, nil, nil, math.Sqrt(0.75) / 2, 4},
		{"weighted", []float64{0.5, 2}, nil, []float64{3, 1}, 0.375, 4},
		{"censored", []float64{1, 3, 5}, []bool{false, true, false}, nil, 0, 2},
	} {
		got := ScoreSchedule(every2, NewItems(c.settle, c.censored, c.weight), ScoreOptions{LagSE: true})
		if !near(got.MeanLagSE, c.wantSE) || got.NCaught != c.wantNC {
			t.Errorf("%s: MeanLagSE, NCaught = %v, %v, want %v, %v", c.name, got.MeanLagSE, got.NCaught, c.wantSE, c.wantNC)
		}
	}
}

type uniformCDF struct{ max float64 }

func (u uniformCDF) CDF(t float64) float64 { return math.Max(0, math.Min(1, t/u.max)) }

// TestByPoll checks what each poll does, by hand: on the plain items of
// TestScoreByHand (every 2s until 6s: polls 0, 2, 4, 6; items 0, 0.5,
// 2.5, 4, 10), poll 0 catches the item at 0 (share 1/5, lag 0), poll 2 the
// one at 0.5 (1/5, lag 1.5/5, lag² 2.25/5), poll 4 those at 2.5 and 4
// (2/5, lag 1.5/5, lag² 2.25/5), poll 6 none; under the uniform
// distribution on [0, 8 s], each poll after the first catches 1/4 with lag
// ∫₀² (2 − t)/8 dt = 1/4 and lag² ∫₀² (2 − t)²/8 dt = 1/3, and the sums
// give Expect's mean lag, 1 s.
func TestByPoll(t *testing.T) {
	every2 := MustParseSpec("every 2s until 6s")
	got := NewItems([]float64{0, 0.5, 2.5, 4, 10}, nil, nil).ByPoll(every2)
	want := []PollShare{{0, 0.2, 0, 0}, {2 * time.Second, 0.2, 0.3, 0.45}, {4 * time.Second, 0.4, 0.3, 0.45}, {6 * time.Second, 0, 0, 0}}
	for i := range want {
		if got[i].At != want[i].At || !near(got[i].Caught, want[i].Caught) || !near(got[i].Lag, want[i].Lag) || !near(got[i].LagSq, want[i].LagSq) {
			t.Errorf("items: poll %d = %+v, want %+v", i, got[i], want[i])
		}
	}
	exp, err := ExpectByPoll(every2, uniformCDF{8}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	e, _ := Expect(every2, uniformCDF{8}, Options{})
	var caught, lag float64
	for i, p := range exp {
		wc, wl, wsq := 0.25, 0.25, 1.0/3
		if i == 0 {
			wc, wl, wsq = 0, 0, 0
		}
		if !near(p.Caught, wc) || !near(p.Lag, wl) || !near(p.LagSq, wsq) {
			t.Errorf("expected: poll %d = %+v, want caught %v, lag %v, lag² %v", i, p, wc, wl, wsq)
		}
		caught += p.Caught
		lag += p.Lag
	}
	if !near(lag/caught, 1) || !near(e.MeanLag, lag/caught) {
		t.Errorf("mean lag from ByPoll %v, Expect %v, want 1", lag/caught, e.MeanLag)
	}
}

type atomUniformCDF struct{}

// CDF is half a point mass at 1 s and half uniform on [0, 8 s].
func (atomUniformCDF) CDF(t float64) float64 {
	f := 0.5 * math.Max(0, math.Min(1, t/8))
	if t >= 1 {
		f += 0.5
	}
	return f
}

// TestExpectByPollAtom checks the lag moments of a poll interval holding
// an atom: under half a point mass at 1 s and half uniform on [0, 8 s],
// the poll at 2 s catches 0.5 + 2/16 = 0.625, with lag 0.5·1 + ∫₀² (2 −
// t)/16 dt = 0.625 and lag² 0.5·1 + ∫₀² (2 − t)²/16 dt = 0.5 + 1/6.
func TestExpectByPollAtom(t *testing.T) {
	got, err := ExpectByPoll(MustParseSpec("every 2s until 6s"), atomUniformCDF{}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if p := got[1]; !near(p.Caught, 0.625) || !near(p.Lag, 0.625) || !near(p.LagSq, 0.5+1.0/6) {
		t.Errorf("poll at 2s = %+v, want caught 0.625, lag 0.625, lag² %.6f", p, 0.5+1.0/6)
	}
}

// The unit-weight path of NewItems for censored items (sorting times
// apart) gives what the general path gives with every weight 1, ties
// between settles and censorings included.
func TestNewItemsCensoredUnitMatchesGeneral(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	n := 5000
	settle := make([]float64, n)
	cens := make([]bool, n)
	ones := make([]float64, n)
	for i := range settle {
		settle[i] = math.Round(r.ExpFloat64()*20) / 2 // ties on a 0.5 s grid
		cens[i] = r.Float64() < 0.3
		ones[i] = 1
	}
	a, b := NewItems(settle, cens, nil), NewItems(settle, cens, ones)
	if !slices.Equal(a.t, b.t) || a.censored != b.censored || a.n != b.n {
		t.Fatalf("settled times or counts differ")
	}
	for _, pair := range [][2][]float64{{a.cumW, b.cumW}, {a.cumWT, b.cumWT}, {a.cumN, b.cumN}, {{a.total, a.pending}, {b.total, b.pending}}} {
		for i := range pair[0] {
			if math.Abs(pair[0][i]-pair[1][i]) > 1e-9*max(1, math.Abs(pair[1][i])) {
				t.Fatalf("index %d: unit path %g, general path %g", i, pair[0][i], pair[1][i])
			}
		}
	}
}

// Items keeps one entry per distinct settle time (10⁷ items at
// millisecond resolution have about 10⁶), and scores tied items as the
// items one by one would be scored: each item's lag is the first poll at
// or after it minus its settle time, counted here item by item.
func TestItemsDistinctTimes(t *testing.T) {
	r := rand.New(rand.NewPCG(18, 1))
	settle := make([]float64, 20000)
	distinct := map[float64]bool{}
	for i := range settle {
		settle[i] = math.Round(r.ExpFloat64()*3000) / 1000 // 1 ms grid, mean 3 s
		distinct[settle[i]] = true
	}
	s := MustParseSpec("every 1s until 20s") // polls 0, 1, …, 20
	it := NewItems(settle, nil, nil)
	if len(it.t) != len(distinct) || it.Len() != len(settle) {
		t.Fatalf("entries = %d for %d rows, want %d distinct times", len(it.t), it.Len(), len(distinct))
	}
	var lag, polls, caught float64
	for _, v := range settle {
		k := math.Ceil(v) // the first poll at or after v
		if k > 20 {
			polls += 21
			continue
		}
		lag += k - v
		polls += k + 1
		caught++
	}
	got := ScoreSchedule(s, it, ScoreOptions{})
	if !near(got.MeanLag, lag/caught) || !near(got.MeanPolls, polls/float64(len(settle))) || !near(got.Caught, caught/float64(len(settle))) {
		t.Errorf("score = mean lag %v, mean polls %v, caught %v; want %v, %v, %v",
			got.MeanLag, got.MeanPolls, got.Caught, lag/caught, polls/float64(len(settle)), caught/float64(len(settle)))
	}
}
