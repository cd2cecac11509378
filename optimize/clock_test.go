package optimize

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"
)

// clockRulePolls runs s for an item created at the instant created by the
// rule of a repeating phase, written out independently of walkAt: a
// wall-clock phase's next poll is the least instant k·P + o (o one of its
// offsets) strictly after the last poll, found by trying every k around it.
func clockRulePolls(s Schedule, created int64) []time.Duration {
	polls := []time.Duration{s.Start}
	last := s.Start
	h, cut := time.Duration(0), false
	if n := len(s.Phases); n > 0 && s.Phases[n-1].Growth != Once {
		h, cut = s.Phases[n-1].Until, true
	}
	for _, p := range s.Phases {
		switch p.Growth {
		case Once:
			last += p.GapAt(1)
			polls = append(polls, last)
		case WallClock:
			for last < p.Until {
				at := created + int64(last)
				next := int64(math.MaxInt64)
				k0 := int64(math.Floor(float64(at) / float64(p.Gap)))
				for k := k0 - 1; k <= k0+1; k++ {
					for _, o := range p.Offsets {
						if t := k*int64(p.Gap) + int64(o); t > at && t < next {
							next = t
						}
					}
				}
				last = time.Duration(next - created)
				polls = append(polls, last)
			}
		default:
			for k := 1; last < p.Until; k++ {
				last += p.GapAt(k)
				polls = append(polls, last)
			}
		}
	}
	for cut && polls[len(polls)-1] > h {
		polls = polls[:len(polls)-1]
	}
	return polls
}

// randomClocked draws a valid schedule with one or two wall-clock phases
// among age phases, periods and offsets of several scales.
func randomClocked(rng *rand.Rand) Schedule {
	for {
		s := randomSchedule(rng)
		periods := []time.Duration{12 * time.Second, time.Minute, 5 * time.Minute, 7 * time.Minute, time.Hour}
		for range 1 + rng.IntN(2) {
			p := Phase{Growth: WallClock, Gap: periods[rng.IntN(len(periods))]}
			for range 1 + rng.IntN(3) {
				p.Offsets = append(p.Offsets, time.Duration(rng.Int64N(int64(p.Gap)))/time.Millisecond*time.Millisecond)
			}
			slices.Sort(p.Offsets)
			p.Offsets = slices.Compact(p.Offsets)
			i := rng.IntN(len(s.Phases) + 1)
			var prev time.Duration
			for _, q := range s.Phases[:i] {
				if q.Growth != Once {
					prev = q.Until
				}
			}
			p.Until = prev + time.Duration(1+rng.IntN(30))*time.Minute
			s.Phases = slices.Insert(s.Phases, i, p)
			for j := i + 1; j < len(s.Phases); j++ { // keep the bounds increasing
				if s.Phases[j].Growth != Once {
					s.Phases[j].Until += p.Until
				}
			}
		}
		s.Jitter = Jitter{}
		// Fine age phases after a wall-clock phase could make millions
		// of polls for some creation times: keep the test quick.
		fine := false
		clocked := false
		for _, p := range s.Phases {
			clocked = clocked || p.Growth == WallClock
			fine = fine || (clocked && p.Growth != WallClock && p.Gap < 100*time.Millisecond)
		}
		if !fine && s.Validate() == nil && len(s.Polls()) < 2000 {
			return s
		}
	}
}

// TestClockSpecProperty: for random schedules with wall-clock phases, the
// printed spec parses back to the same phases, the walk agrees with the
// rule written out apart for random creation instants (before 1970 too),
// and every poll of a wall-clock phase falls on one of its instants.
func TestClockSpecProperty(t *testing.T) {
	rng := rand.New(rand.NewPCG(14, 1))
	for range 400 {
		s := randomClocked(rng)
		lo, hi := s.StuckPollsRange()
		text := s.String()
		back, err := ParseSpec(text)
		if err != nil {
			t.Fatalf("%q does not parse back: %v", text, err)
		}
		if !slices.EqualFunc(back.Phases, s.Phases, Phase.Equal) || back.Start != s.Start {
			t.Fatalf("%q parses back to %q", text, back.AsWritten())
		}
		for range 20 {
			created := rng.Int64N(int64(100*365*24*time.Hour)) - int64(30*365*24*time.Hour)
			got, want := s.PollsAt(created), clockRulePolls(s, created)
			if !slices.Equal(got, want) {
				t.Fatalf("%q created at %d: PollsAt = %v, the rule gives %v", text, created, got, want)
			}
			if n := len(got); n < lo || n > hi {
				t.Fatalf("%q created at %d: %d polls, outside StuckPollsRange [%d, %d]", text, created, n, lo, hi)
			}
		}
	}
}

// TestClockPollsByHand checks one schedule against polls worked out by
// hand: created at 00:03:17 UTC, every 1s until 10s (polls at ages 0–10s,
// the last at 00:03:27), then 1 s and 2.5 s past every 5 minutes until an
// age of 15 minutes (00:18:17): 00:05:01 (age 1m44s), 00:05:02.5
// (1m45.5s), 00:10:01, 00:10:02.5, 00:15:01, 00:15:02.5.
func TestClockPollsByHand(t *testing.T) {
	s := MustParseSpec("every 1s until 10s, after each 5m (+1s +2.5s) until 15m")
	created := time.Date(2025, 3, 1, 0, 3, 17, 0, time.UTC).UnixNano()
	var want []time.Duration
	for k := range 11 {
		want = append(want, time.Duration(k)*time.Second)
	}
	for _, d := range []string{"1m44s", "1m45.5s", "6m44s", "6m45.5s", "11m44s", "11m45.5s"} {
		v, _ := time.ParseDuration(d)
		want = append(want, v)
	}
	if got := s.PollsAt(created); !slices.Equal(got, want) {
		t.Errorf("PollsAt = %v, want %v", got, want)
	}
	// A stuck item polls 11 times by age, then at the instants in (c+10s,
	// c+15m], 890 s: two whole periods (4 polls) and 290 s more, which hold
	// neither offset when they start 2.5–11 s past a boundary, one when
	// 11–12.5 s, both when later: 15 to 17 polls.
	if lo, hi := s.StuckPollsRange(); lo != 15 || hi != 17 {
		t.Errorf("StuckPollsRange = %d, %d; want 15, 17", lo, hi)
	}
}

// TestClockBoundsEveryInstant: Validate refuses a schedule that would
// make too many polls for some creation instant though not for the one
// its walk tries (an age phase after a wall-clock phase starts anywhere in
// a period after its bound).
func TestClockBoundsEveryInstant(t *testing.T) {
	s := Schedule{Phases: []Phase{
		{Growth: WallClock, Gap: time.Hour, Offsets: []time.Duration{0}, Until: time.Second},
		{Growth: Fixed, Gap: 100 * time.Microsecond, Until: time.Hour},
	}}
	// Created at the epoch, the clock polls at age 1h: the fixed phase
	// makes none. Created at 00:59:59, the clock polls at age 1s and the
	// fixed phase polls every 100µs until 1h: 36 million polls.
	if err := s.Validate(); err == nil || !strings.Contains(err.Error(), "for some creation times") {
		t.Errorf("Validate = %v, want too many polls for some creation times", err)
	}
}

func TestClockSpecErrors(t *testing.T) {
	for _, c := range []struct{ spec, want string }{
		{"after each 5m (+5m) until 1h", "not within the period"},
		{"after each 5m (+2s +1s) until 1h", "offsets must increase"},
		{"after each 5m (2s) until 1h", "write it as +D"},
		{"after each 5m (+2s until 1h", `closing ")"`},
		{"after 5m until 1h", `want "after each P`},
		{"after each 5m () until 1h", "holds no offset"},
		{"after each 0s until 1h", "period must be positive"},
		{"after each 5m (+1s) until 1h, jitter full", "takes no jitter"},
		{"after each 5m (+1s)", `want "after each P`},
	} {
		_, err := ParseSpec(c.spec)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ParseSpec(%q) = %v, want an error with %q", c.spec, err, c.want)
		}
	}
}

// TestScoreClockWithoutItems: with no items, a wall-clock schedule's polls
// by age are means over creation instants spread over the clock. By hand
// for "every 1s until 10s, after each 5m (+1s) until 10m": 11 age polls
// (0 s to 10 s), then polls at 300k+1 s on the clock, so at age 301−c or
// 601−c for an item created c seconds past a boundary: a poll between
// ages 10 s and A for a share (A−10)/300 of creation instants, and
// between 10 s and 10 m, 590/300 polls on average.
func TestScoreClockWithoutItems(t *testing.T) {
	s, err := ParseSpec("every 1s until 10s, after each 5m (+1s) until 10m")
	if err != nil {
		t.Fatal(err)
	}
	sc := ScoreSchedule(s, nil, ScoreOptions{Ages: []time.Duration{20 * time.Second, 90 * time.Second}})
	want := []float64{11 + 10.0/300, 11 + 80.0/300}
	for i, w := range want {
		if math.Abs(sc.PollsBy[i]-w) > 1e-9 {
			t.Errorf("polls by %v = %v, want %v", sc.Ages[i], sc.PollsBy[i], w)
		}
	}
	if w := 11 + 590.0/300; math.Abs(sc.StuckPolls-w) > 1e-9 {
		t.Errorf("stuck polls = %v, want %v", sc.StuckPolls, w)
	}
}
