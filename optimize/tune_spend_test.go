package optimize

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"time"
)

// specPolls is an interpreter of the specs Family.Schedule prints, written
// apart from the package's walker from the formulas of the spec syntax
// (README, Phase.GapAt): it reads the printed text and returns the poll
// times, jittered with rng when the spec is jittered. So the tests below
// count a tuned family's polls from what a user reads, not from Tune's
// own figures.
func specPolls(t *testing.T, spec string, rng *rand.Rand) []time.Duration {
	t.Helper()
	type phase struct {
		kind          string
		gap, step, cp time.Duration
		x             float64
		until         time.Duration
	}
	dur := func(s string) time.Duration {
		d, err := time.ParseDuration(s)
		if err != nil {
			t.Fatalf("spec %q: %v", spec, err)
		}
		return d
	}
	var phases []phase
	jitter, toHorizon := "", false
	for _, item := range strings.Split(spec, ", ") {
		f := strings.Fields(item)
		switch f[0] {
		case "jitter":
			jitter, toHorizon = f[1], len(f) == 4 && f[2] == "to" && f[3] == "horizon"
			continue
		case "every", "linear", "exp", "poly", "fib":
		default:
			phases = append(phases, phase{kind: "once", gap: dur(f[0])})
			continue
		}
		p := phase{kind: f[0]}
		base := f[1]
		if p.kind == "linear" {
			b, s, _ := strings.Cut(base, "+")
			base, p.step = b, dur(s)
		}
		p.gap = dur(base)
		for i := 2; i < len(f); i++ {
			switch {
			case f[i] == "cap":
				p.cp = dur(f[i+1])
				i++
			case f[i] == "until":
				p.until = dur(f[i+1])
				i++
			default: // x1.5 or ^2
				v, err := strconv.ParseFloat(f[i][1:], 64)
				if err != nil {
					t.Fatalf("spec %q: %v", spec, err)
				}
				p.x = v
			}
		}
		phases = append(phases, p)
	}
	// grain: the largest power of ten nanoseconds dividing the gap, at
	// most gap/1000 and 1ms (Phase.Grain).
	grain := func(g time.Duration) time.Duration {
		q := time.Millisecond
		for q > 1 && (q > g/1000 || g%q != 0) {
			q /= 10
		}
		return q
	}
	gapAt := func(p phase, k int) time.Duration {
		limit := time.Duration(math.MaxInt64)
		if p.cp > 0 {
			limit = p.cp
		}
		var g time.Duration
		switch p.kind {
		case "once", "every":
			g = p.gap
		case "linear":
			g = p.gap + time.Duration(k-1)*p.step
		case "exp", "poly":
			ns := float64(p.gap) * math.Pow(p.x, float64(k-1))
			if p.kind == "poly" {
				ns = float64(p.gap) * math.Pow(float64(k), p.x)
			}
			if ns >= float64(limit) {
				return limit
			}
			q := grain(p.gap)
			g = time.Duration(math.Round(ns/float64(q))) * q
		case "fib":
			a, b := int64(1), int64(1)
			for range k - 1 {
				if a > int64(limit/p.gap) {
					return limit // past the cap: no need to go on (nor overflow)
				}
				a, b = b, a+b
			}
			if a > int64(limit/p.gap) {
				return limit
			}
			g = time.Duration(a) * p.gap
		}
		return min(g, limit)
	}
	last := phases[len(phases)-1]
	cut, h := last.kind != "once", last.until
	polls := []time.Duration{0}
	at := time.Duration(0)
	var prev time.Duration
	add := func(p phase, g time.Duration) bool {
		if jitter != "" {
			u := rng.Float64()
			var j time.Duration
			switch jitter {
			case "full":
				j = time.Duration(u * float64(g))
			case "equal":
				j = g/2 + time.Duration(u*float64(g-g/2))
			case "decorrelated":
				j = min(g+time.Duration(u*float64(3*max(prev, g)-g)), 3*g)
			default:
				t.Fatalf("spec %q: jitter %q", spec, jitter)
			}
			j = max(j, min(time.Millisecond, max(1, g/1000)))
			if p.cp > 0 {
				j = min(j, p.cp)
			}
			g, prev = j, j
		}
		if cut && at+g > h {
			if !toHorizon || jitter == "" || at >= h {
				return false
			}
			g = h - at
		}
		at += g
		polls = append(polls, at)
		return true
	}
	for _, p := range phases {
		if p.kind == "once" {
			if !add(p, p.gap) {
				break
			}
			continue
		}
		done := false
		for k := 1; at < p.until; k++ {
			if !add(p, gapAt(p, k)) {
				done = true
				break
			}
		}
		if done {
			break
		}
	}
	return polls
}

// naiveMeanPolls returns the polls per item of the poll times on settle
// times (none censored), item by item: an item settling at s makes every
// poll before s and the first at or after it, or all of them when none is.
func naiveMeanPolls(polls []time.Duration, settle []float64) float64 {
	var sum float64
	for _, s := range settle {
		n := len(polls)
		for i, p := range polls {
			if p.Seconds() >= s {
				n = i + 1
				break
			}
		}
		sum += float64(n)
	}
	return sum / float64(len(settle))
}

// paymentsDraw draws settle times like the brief's payments: 45% near-
// instant (median 0.7 s), 45% within the minute (median 12 s), 8% that
// drag for minutes (median 3 min), 2% past 15 minutes.
func paymentsDraw(n int, seed uint64) []float64 {
	rng := rand.New(rand.NewPCG(seed, seed))
	out := make([]float64, n)
	for i := range out {
		switch u := rng.Float64(); {
		case u < 0.45:
			out[i] = math.Exp(math.Log(0.7) + 0.5*rng.NormFloat64())
		case u < 0.90:
			out[i] = math.Exp(math.Log(12) + 0.6*rng.NormFloat64())
		case u < 0.98:
			out[i] = math.Exp(math.Log(180) + 0.7*rng.NormFloat64())
		default:
			out[i] = 1000 + 100*rng.Float64()
		}
	}
	return out
}

// Every family tuned to a budget spends it within SpendTolerance and no
// more, counted from its printed spec by specPolls (the mean over draws
// of other random numbers than Tune's for a jittered one: within the
// tolerance and three standard errors), on a min gap that binds the
// shapes as written (500 ms: exp ×1.5 cap 30 bases spends 48 of 152
// stuck polls over 10 minutes), and catches what a schedule polling at
// the horizon catches: every item settling by it.
func TestTuneSpendsBudget(t *testing.T) {
	settle := paymentsDraw(4000, 7)
	items := NewItems(settle, nil, nil)
	horizon := 10 * time.Minute
	byHorizon := 0.0
	for _, s := range settle {
		if s <= horizon.Seconds() {
			byHorizon++
		}
	}
	byHorizon /= float64(len(settle))
	budgets := []Budget{{StuckPolls: 37}, {StuckPolls: 152}, {MeanPolls: 5}, {MeanPolls: 20}, {StuckPolls: 152, MeanPolls: 12}}
	for _, f := range Families {
		f.MinGap = 500 * time.Millisecond
		f.LeastGap = 50 * time.Millisecond
		for _, b := range budgets {
			t.Run(fmt.Sprintf("%s/stuck%d-mean%g", f.Name, b.StuckPolls, b.MeanPolls), func(t *testing.T) {
				opt := ScoreOptions{Seed: 3, Draws: 100}
				tu, err := Tune(f, horizon, b, items, opt)
				if err != nil {
					t.Fatal(err)
				}
				if tu.Short != "" {
					t.Fatalf("Tune(%s, %+v) falls short: %s", f.Name, b, tu.Short)
				}
				spec := tu.Schedule.String()
				draws := 1
				if f.Jitter.Kind != NoJitter {
					draws = 400
				}
				rng := rand.New(rand.NewPCG(99, 99))
				stuck := make([]float64, draws)
				mean := make([]float64, draws)
				for d := range draws {
					polls := specPolls(t, spec, rng)
					if polls[len(polls)-1] != horizon {
						t.Fatalf("%s: a draw's last poll is %v, want the horizon %v", spec, polls[len(polls)-1], horizon)
					}
					stuck[d] = float64(len(polls))
					mean[d] = naiveMeanPolls(polls, settle)
				}
				// Each kind of polls given is spent at most (within three
				// standard errors for jittered draws) and, with one
				// budget, within SpendTolerance below it; with both, one
				// of them is (the other holds).
				ms, ses := meanSE(stuck)
				mm, sem := meanSE(mean)
				within := func(m, se, target float64) (under, near bool) {
					slack := 1e-9 * target
					if draws > 1 {
						// Three standard errors of the difference between
						// these draws' mean and Tune's, of opt.Draws.
						slack = 3 * se * math.Sqrt(1+float64(draws)/float64(opt.Draws))
					}
					return m <= target+slack, m >= (1-SpendTolerance)*target-slack
				}
				var nearAny bool
				if b.StuckPolls > 0 {
					under, near := within(ms, ses, float64(b.StuckPolls))
					if !under {
						t.Errorf("%s spends %.4g stuck polls (±%.2g), more than %d", spec, ms, ses, b.StuckPolls)
					}
					nearAny = nearAny || near
				}
				if b.MeanPolls > 0 {
					under, near := within(mm, sem, b.MeanPolls)
					if !under {
						t.Errorf("%s spends %.4g mean polls (±%.2g), more than %g", spec, mm, sem, b.MeanPolls)
					}
					nearAny = nearAny || near
				}
				if !nearAny {
					t.Errorf("%s spends %.4g stuck and %.4g mean polls, not within %g%% of %+v", spec, ms, mm, 100*SpendTolerance, b)
				}
				if got := ScoreSchedule(tu.Schedule, items, opt).Caught; math.Abs(got-byHorizon) > 1e-12 {
					t.Errorf("%s catches %v of the items, want %v: every one settling by the horizon", spec, got, byHorizon)
				}
			})
		}
	}
}

// meanSE returns the mean of xs and its standard error.
func meanSE(xs []float64) (mean, se float64) {
	for _, x := range xs {
		mean += x
	}
	mean /= float64(len(xs))
	if len(xs) < 2 {
		return mean, 0
	}
	var ss float64
	for _, x := range xs {
		ss += (x - mean) * (x - mean)
	}
	return mean, math.Sqrt(ss / float64(len(xs)-1) / float64(len(xs)))
}

// The shape as written is kept when it spends the budget and there are
// no items to rank members by (plan's fixed baseline); with items, Tune
// keeps the member of least mean lag among those that spend it, and no
// member it tried that spends the budget lags less: checked against the
// shape as written and against each gentler growth with its base at the
// min gap, found here by scanning caps in 50 ms steps up to 30 s.
func TestTuneKeepsLeastLag(t *testing.T) {
	settle := paymentsDraw(3000, 11)
	items := NewItems(settle, nil, nil)
	horizon := 10 * time.Minute
	b := Budget{StuckPolls: 152}
	f, _ := FamilyByName("exp")
	f.MinGap = 500 * time.Millisecond
	tu, err := Tune(f, horizon, b, items, ScoreOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range f.gentler() {
		for c := f.MinGap; c <= 30*time.Second; c += 50 * time.Millisecond {
			h := g
			h.Cap = c
			s := h.Schedule(f.MinGap, horizon)
			sc := ScoreSchedule(s, items, ScoreOptions{Ages: []time.Duration{}})
			if Spent(b, sc.StuckPolls, sc.MeanPolls) && sc.MeanLag < tu.MeanLag-1e-9 {
				t.Errorf("%s spends the budget with mean lag %.4g s, less than Tune's %s at %.4g s", s, sc.MeanLag, tu.Schedule, tu.MeanLag)
				return
			}
		}
	}
	// Without items, the shape as written when it spends the budget.
	w, err := Tune(f, horizon, Budget{StuckPolls: 37}, nil, ScoreOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if w.Freed != "" || w.Schedule.Phases[0].Factor != DefaultFactor {
		t.Errorf("Tune(exp, 37 polls, no items) = %s (%s), want the shape as written", w.Schedule, w.Freed)
	}
}

// A family that cannot spend the budget says so: with every gap of at
// least 6 s (min gap and least gap alike, as when the user sets
// --min-gap) no member makes more than the 101 polls of every 6 s over
// 10 minutes, so none spends 150.
func TestTuneShortSaysWhy(t *testing.T) {
	for _, name := range []string{"fixed", "exp", "poly"} {
		f, _ := FamilyByName(name)
		f.MinGap = 6 * time.Second
		b := Budget{StuckPolls: 150}
		tu, err := Tune(f, 10*time.Minute, b, nil, ScoreOptions{Seed: 1, Draws: 50})
		if err != nil {
			t.Fatal(err)
		}
		if tu.Short == "" || Spent(b, tu.StuckPolls, math.NaN()) {
			t.Errorf("Tune(%s) = %s spending %v stuck polls, Short %q: want it short of 150 and saying why", name, tu.Schedule, tu.StuckPolls, tu.Short)
			continue
		}
		if !strings.Contains(tu.Short, "of 150 stuck polls even at its densest, with gaps from 6s") {
			t.Errorf("Tune(%s).Short = %q, want the spend against the budget and the least gap", name, tu.Short)
		}
		if name == "fixed" && tu.StuckPolls != 101 {
			t.Errorf("Tune(fixed) spends %v stuck polls at its densest, want 101 (every 6s over 10m)", tu.StuckPolls)
		}
	}
}

func TestSpent(t *testing.T) {
	tests := []struct {
		b           Budget
		stuck, mean float64
		want        bool
	}{
		{Budget{StuckPolls: 152}, 152, math.NaN(), true},
		{Budget{StuckPolls: 152}, 150.48, math.NaN(), true}, // 99% of 152
		{Budget{StuckPolls: 152}, 150.4, math.NaN(), false},
		{Budget{StuckPolls: 152}, 153, math.NaN(), false},
		{Budget{MeanPolls: 10}, 40, 9.9, true},
		{Budget{MeanPolls: 10}, 40, 9.89, false},
		{Budget{MeanPolls: 10}, 40, 10.01, false},
		// Both: one binds, the other holds.
		{Budget{StuckPolls: 152, MeanPolls: 20}, 152, 9, true},
		{Budget{StuckPolls: 152, MeanPolls: 20}, 100, 19.9, true},
		{Budget{StuckPolls: 152, MeanPolls: 20}, 100, 15, false},
		{Budget{StuckPolls: 152, MeanPolls: 20}, 152, 21, false},
	}
	for _, tt := range tests {
		if got := Spent(tt.b, tt.stuck, tt.mean); got != tt.want {
			t.Errorf("Spent(%+v, %v, %v) = %v, want %v", tt.b, tt.stuck, tt.mean, got, tt.want)
		}
	}
}
