package optimize

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"gonum.org/v1/gonum/stat/distuv"
)

// rulePolls runs s by the brief's rule, written out again independently of
// Schedule.walk: a single gap adds one poll; a repeating phase adds its
// next gap while the last poll happened before its Until; polls after the
// horizon (the last Until, when the last phase repeats) are dropped.
func rulePolls(s Schedule) []time.Duration {
	polls := []time.Duration{s.Start}
	last := s.Start
	h, cut := time.Duration(0), false
	if n := len(s.Phases); n > 0 && s.Phases[n-1].Growth != Once {
		h, cut = s.Phases[n-1].Until, true
	}
	for _, p := range s.Phases {
		if cut && last > h {
			break // every later poll is after the horizon too
		}
		if p.Growth == Once {
			last += p.GapAt(1)
			polls = append(polls, last)
			continue
		}
		for k := 1; last < p.Until; k++ {
			last += p.GapAt(k)
			polls = append(polls, last)
		}
	}
	for cut && polls[len(polls)-1] > h {
		polls = polls[:len(polls)-1]
	}
	return polls
}

// unfaithful returns the repeating phases of s whose first gap does not
// fit between the poll they start from and their Until: phases that read
// differently from how they run.
func unfaithful(s Schedule) []int {
	var out []int
	last := s.Start
	for i, p := range s.Phases {
		if p.Growth == Once {
			last += p.GapAt(1)
			continue
		}
		if last >= p.Until || p.GapAt(1) > p.Until-last {
			out = append(out, i)
		}
		for k := 1; last < p.Until; k++ {
			last += p.GapAt(k)
		}
	}
	return out
}

// checkPrinted checks the printer on s: the spec parses back to the same
// polls (and the same horizon, unless s's last phase makes no poll), the
// printed phases read as they run, and printing is idempotent.
func checkPrinted(t *testing.T, s Schedule) {
	t.Helper()
	want := s.Polls()
	if got := rulePolls(s); !slices.Equal(got, want) {
		t.Fatalf("%s: Polls() = %v, the rule gives %v", s.AsWritten(), want, got)
	}
	text := s.String()
	back, err := ParseSpec(text)
	if err != nil {
		t.Fatalf("%s printed as %q, which does not parse: %v", s.AsWritten(), text, err)
	}
	if got := back.Polls(); !slices.Equal(got, want) {
		t.Fatalf("%s printed as %q polls at %v, want %v", s.AsWritten(), text, got, want)
	}
	if u := unfaithful(back); len(u) > 0 && s.Jitter.Kind == NoJitter {
		t.Fatalf("%s printed as %q: phase %d reads differently from how it runs", s.AsWritten(), text, u[0]+1)
	}
	if again := back.String(); again != text {
		t.Fatalf("%s printed as %q, then as %q", s.AsWritten(), text, again)
	}
	if h := back.Horizon(); h != s.Horizon() {
		// Only a last phase that makes no poll sets a horizon the
		// printed form cannot keep: it ends at the last poll then.
		last := want[len(want)-1]
		if h != last || !slices.Contains(unfaithful(s), len(s.Phases)-1) {
			t.Fatalf("%s printed as %q: horizon %v, want %v", s.AsWritten(), text, h, s.Horizon())
		}
	}
}

// randomSchedule draws a valid schedule of every growth kind, with "at"
// starts, single gaps, caps and bounds that often fall short of a phase's
// first gap (phases that poll once past their bound, or not at all).
func randomSchedule(rng *rand.Rand) Schedule {
	units := []time.Duration{time.Microsecond, time.Millisecond, 100 * time.Millisecond, time.Second, time.Minute}
	for {
		u := units[rng.IntN(len(units))]
		var s Schedule
		if rng.IntN(3) == 0 {
			s.Start = time.Duration(rng.IntN(20)) * u
		}
		until := s.Start
		for range 1 + rng.IntN(5) {
			gap := time.Duration(1+rng.IntN(20)) * u
			if rng.IntN(4) == 0 {
				s.Phases = append(s.Phases, Phase{Growth: Once, Gap: gap})
				continue
			}
			until += time.Duration(1+rng.IntN(40)) * u
			p := Phase{Growth: Growth(1 + rng.IntN(5)), Gap: gap, Until: until}
			switch p.Growth {
			case Linear:
				p.Step = time.Duration(rng.IntN(5)) * u
			case Exponential:
				p.Factor = []float64{1, 1.1, 1.5, 2, 3, 10}[rng.IntN(6)]
			case Polynomial:
				p.Exponent = []float64{0.5, 1, 1.5, 2, 3}[rng.IntN(5)]
			}
			if p.Growth != Fixed && rng.IntN(2) == 0 {
				p.Cap = time.Duration(1+rng.IntN(30)) * u
			}
			s.Phases = append(s.Phases, p)
		}
		if s.Validate() == nil {
			return s
		}
	}
}

// TestPrintedSpecPollsAlike: for random schedules
// of every kind, parsing the printed spec gives exactly the same polls,
// and the printed phases read as they run.
func TestPrintedSpecPollsAlike(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 1))
	rewritten := 0
	for range 5000 {
		s := randomSchedule(rng)
		checkPrinted(t, s)
		if len(unfaithful(s)) > 0 {
			rewritten++
		}
	}
	// The draw must exercise the rewriting, not only faithful schedules.
	if rewritten < 500 {
		t.Errorf("only %d of 5000 random schedules had a phase to rewrite", rewritten)
	}
}

// Every solver's schedule prints to a spec with the same polls, and polls
// exactly at the horizon.
func TestSolversPrintAsTheyPoll(t *testing.T) {
	dists := map[string]Distribution{
		"lognormal": distuv.LogNormal{Mu: 1.5, Sigma: 1.2},
		"weibull":   distuv.Weibull{K: 0.7, Lambda: 40},
	}
	horizons := []time.Duration{time.Minute, 15 * time.Minute}
	budgets := []Budget{{StuckPolls: 5}, {StuckPolls: 40}, {StuckPolls: 30, MeanPolls: 6}}
	rewritten := 0
	for dn, d := range dists {
		for _, h := range horizons {
			for _, b := range budgets {
				o := Options{Horizon: h}
				name := fmt.Sprintf("%s/%v/stuck%d-mean%g", dn, h, b.StuckPolls, b.MeanPolls)
				t.Run(name, func(t *testing.T) {
					var rs []*Result
					r, err := Exact(d, b, o)
					if err != nil {
						t.Fatal(err)
					}
					rs = append(rs, r)
					if r, err = SqrtRule(d, b, o); err != nil {
						t.Fatal(err)
					}
					rs = append(rs, r)
					for _, k := range []int{1, 3} {
						r, err := Phased(d, b, k, o)
						if err != nil {
							t.Fatal(err)
						}
						rs = append(rs, r)
					}
					for _, r := range rs {
						if len(unfaithful(r.Schedule)) > 0 {
							rewritten++
						}
						checkPrinted(t, r.Schedule)
						checkHorizonPoll(t, r.Method, r.Schedule, h)
						if !slices.Equal(r.Polls, r.Schedule.Polls()) {
							t.Errorf("%s: Result.Polls = %v, Schedule.Polls() = %v", r.Method, r.Polls, r.Schedule.Polls())
						}
					}
				})
			}
		}
	}
	// Phased schedules had phases whose first gap passed their bound
	// ("at 5s, every 10s until 20s, every 15s until 30s, …"), printed as
	// single gaps; Phased writes such phases as gaps itself now.
	t.Logf("%d solver schedules had a phase to rewrite", rewritten)
	for _, f := range Families {
		for _, h := range horizons {
			for _, n := range []int{3, 12, 40, 150} {
				f.MinGap = h / 1000 * time.Duration(n%2) // with and without
				tu, err := Tune(f, h, Budget{StuckPolls: n}, nil, ScoreOptions{Draws: 10, Seed: 1})
				if errors.Is(err, ErrBudget) && f.Jitter.Kind != NoJitter && n <= 3 {
					// Jittered "to horizon", even one scheduled gap of the
					// horizon makes e ≈ 2.7 jittered gaps before the poll at
					// it (full jitter: the renewal count of uniform gaps).
					continue
				}
				if err != nil {
					t.Fatalf("Tune(%s, %v, %d): %v", f.Name, h, n, err)
				}
				checkPrinted(t, tu.Schedule)
				checkHorizonPoll(t, f.Name, tu.Schedule, h)
				polls := tu.Schedule.Polls()
				for i := 1; i < len(polls); i++ {
					if g := polls[i] - polls[i-1]; g < f.MinGap {
						t.Errorf("%s %q: gap %v under the min gap %v", f.Name, tu.Schedule, g, f.MinGap)
					}
				}
			}
		}
	}
}

// checkHorizonPoll checks that a derived schedule polls exactly at the
// horizon h, and so is never short of it.
func checkHorizonPoll(t *testing.T, what string, s Schedule, h time.Duration) {
	t.Helper()
	polls := s.Polls()
	if last := polls[len(polls)-1]; last != h || s.Horizon() != h {
		t.Errorf("%s %q: last poll %v, horizon %v, want both %v", what, s, last, s.Horizon(), h)
	}
	if f := s.Shortfall(nil); f.Gap() != 0 || f.WellShort() {
		t.Errorf("%s %q: shortfall %v", what, s, f)
	}
}

// Regression: pollfit printed phases such as "every 1m until
// 45s" and "every 10m until 10m" that the code ran as a cut 45 s gap where
// the README's rule gives 60 s. The rule holds now, and the printer writes
// such a phase as the single gap it runs as.
func TestGapPastItsBound(t *testing.T) {
	tests := []struct {
		spec, printed string
		polls         []time.Duration
	}{
		// From 30 s, "every 1m until 45s" polls once, at 1m30s.
		{"at 30s, every 1m until 45s, every 2m until 10m", "at 30s, 1m, every 2m until 10m",
			secs(30, 90, 210, 330, 450, 570)},
		// From 5 m, "every 10m until 10m" polls once, at 15m.
		{"at 5m, every 10m until 10m, every 5m until 30m", "at 5m, 10m, every 5m until 30m",
			secs(300, 900, 1200, 1500, 1800)},
		// A phase that starts at its bound makes no poll.
		{"every 15s until 1m50s, every 30s until 2m, every 1m until 4m", "every 15s until 1m50s, every 1m until 4m",
			secs(0, 15, 30, 45, 60, 75, 90, 105, 120, 180, 240)},
		// A last phase whose gap passes the horizon only sets it: the
		// printed form ends at the last poll.
		{"every 1s until 3s, every 1m until 30s", "every 1s until 3s", secs(0, 1, 2, 3)},
		{"every 1m until 45s", "at 0s", secs(0)},
	}
	for _, tt := range tests {
		s := MustParseSpec(tt.spec)
		if got := s.Polls(); !slices.Equal(got, tt.polls) {
			t.Errorf("ParseSpec(%q).Polls() = %v, want %v", tt.spec, got, tt.polls)
		}
		if got := s.String(); got != tt.printed {
			t.Errorf("ParseSpec(%q).String() = %q, want %q", tt.spec, got, tt.printed)
		}
		if got := s.AsWritten(); got != tt.spec {
			t.Errorf("ParseSpec(%q).AsWritten() = %q", tt.spec, got)
		}
	}
}
