package optimize

import (
	"slices"
	"testing"
	"time"

	"gonum.org/v1/gonum/stat/distuv"
)

// lognormalMix is the mixture w·A + (1−w)·B of two lognormals.
type lognormalMix struct {
	a, b distuv.LogNormal
	w    float64
}

func (m lognormalMix) CDF(t float64) float64 { return m.w*m.a.CDF(t) + (1-m.w)*m.b.CDF(t) }

// settleMs is settle times like a new user's API calls: 80% around 1.5 s
// (median e^0.405), 20% around 20 s, a tail to past a minute.
var settleMs = lognormalMix{distuv.LogNormal{Mu: 0.405, Sigma: 0.7}, distuv.LogNormal{Mu: 3.0, Sigma: 0.8}, 0.8}

// checkInSpace fails unless s is a schedule Phased may return under o
// (resolved), budget b and k phases (0: MaxPhases): every repeating
// phase ends at one of o.NiceBounds or the horizon (a plain gap names no
// end), every gap but the closing one is one of o.NiceGaps, the last poll
// is at the horizon, and the stuck polls are within the budget.
func checkInSpace(t *testing.T, what string, s Schedule, o Options, b Budget, k int) {
	t.Helper()
	if k == 0 {
		k = MaxPhases
	}
	if s.PhaseCount() > k {
		t.Errorf("%s %q: %d phases, want at most %d", what, s, s.PhaseCount(), k)
	}
	for i, p := range s.Phases {
		closing := i == len(s.Phases)-1 && p.Growth == Once
		if !closing && !slices.Contains(o.NiceGaps, p.Gap) {
			t.Errorf("%s %q: phase %d gap %v is not a nice gap", what, s, i+1, p.Gap)
		}
		if p.Growth != Once && p.Until != o.Horizon && !slices.Contains(o.NiceBounds, p.Until) {
			t.Errorf("%s %q: phase %d ends at %v, not at a bound of %v or the horizon", what, s, i+1, p.Until, o.NiceBounds)
		}
	}
	polls := s.Polls()
	if last := polls[len(polls)-1]; last != o.Horizon {
		t.Errorf("%s %q: last poll at %v, want the horizon %v", what, s, last, o.Horizon)
	}
	if b.StuckPolls > 0 && len(polls) > b.StuckPolls {
		t.Errorf("%s %q: %d stuck polls, over the budget of %d", what, s, len(polls), b.StuckPolls)
	}
}

// With --nice-bounds, Phased must find the best schedule whose phases end
// at the bounds given (or the horizon). A single bound used to leave it
// one phase "at 3s, every 3s until 1m30s" (×3 the optimum, 1.63 s), far
// worse than schedules ending at the same bounds: its search wrote a
// one-poll phase ("3s") as "every 3s until" its poll, which no bound
// allows, so the local search dropped those seeds, and the DP let a phase
// of one poll end only where a bound lay within its gap. Each case's
// hand-built schedule is valid under the same settings; the derived one,
// scored independently by Expect, must lag no more.
func TestPhasedNiceBoundsAtLeastAsGoodAsValidSchedule(t *testing.T) {
	const s = time.Second
	b := Budget{StuckPolls: 30}
	for _, tc := range []struct {
		name   string
		bounds []time.Duration
		k      int
		valid  string
	}{
		// Plain gaps step from the bound onto a 5 s progression that
		// lands on 1m30s.
		{"1s", []time.Duration{s}, 0, "at 200ms, every 200ms until 1s, 1s, 1s, 2s, every 5s until 1m30s"},
		{"2s", []time.Duration{2 * s}, 0, "at 500ms, every 500ms until 2s, 1s, 2s, every 5s until 1m30s"},
		{"3s", []time.Duration{3 * s}, 0, "at 500ms, every 500ms until 3s, 2s, every 5s until 1m30s"},
		{"3s 2 phases", []time.Duration{3 * s}, 2, "at 2s, 3s, every 5s until 1m30s"},
		{"3s 3 phases", []time.Duration{3 * s}, 3, "at 500ms, every 500ms until 3s, 2s, every 5s until 1m30s"},
		{"5s", []time.Duration{5 * s}, 0, "at 500ms, every 500ms until 5s, every 5s until 1m30s"},
		{"5s 2 phases", []time.Duration{5 * s}, 2, "at 500ms, every 500ms until 5s, every 5s until 1m30s"},
		{"7s", []time.Duration{7 * s}, 0, "at 1s, every 1s until 7s, 3s, every 5s until 1m30s"},
		{"3s 10s 30s", []time.Duration{3 * s, 10 * s, 30 * s}, 0,
			"at 500ms, every 500ms until 3s, 1s, every 2s until 10s, every 5s until 30s, every 10s until 1m30s"},
		{"2s 20s", []time.Duration{2 * s, 20 * s}, 0, "at 500ms, every 500ms until 2s, 2s, every 2s until 20s, every 5s until 1m30s"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o, err := Options{Horizon: 90 * s, NiceBounds: tc.bounds}.Resolve(settleMs)
			if err != nil {
				t.Fatal(err)
			}
			valid := MustParseSpec(tc.valid)
			checkInSpace(t, "hand-built", valid, o, b, tc.k)
			want, err := Expect(valid, settleMs, o)
			if err != nil {
				t.Fatal(err)
			}
			r, err := Phased(settleMs, b, tc.k, o)
			if err != nil {
				t.Fatal(err)
			}
			checkInSpace(t, "derived", r.Schedule, o, b, tc.k)
			got, err := Expect(MustParseSpec(r.Schedule.String()), settleMs, o)
			if err != nil {
				t.Fatal(err)
			}
			if got.TotalLag > want.TotalLag*(1+1e-9) {
				t.Errorf("Phased(bounds %v, %d phases) = %q, mean lag %.4g s; %q, valid under the same bounds, lags %.4g s",
					tc.bounds, tc.k, r.Schedule, got.MeanLag, tc.valid, want.MeanLag)
			}
		})
	}
}
