package optimize

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// famSecs converts seconds to durations rounded to the millisecond, so
// that 13.188 is exactly 13188ms whatever the float rounding.
func famSecs(v ...float64) []time.Duration {
	out := make([]time.Duration, len(v))
	for i, s := range v {
		out[i] = time.Duration(math.Round(s*1000)) * time.Millisecond
	}
	return out
}

// The poll times below are worked out by hand from the gap formulas in
// the Family comment: gap k (k = 1 first) then running sums, the gap that
// would pass the horizon cut to end there. Exponential and polynomial gaps are rounded to the
// millisecond (Phase.GapAt): 1.5^4 s = 5.0625 s → 5.063 s.
func TestFamilyPolls(t *testing.T) {
	tests := []struct {
		name    string
		f       Family
		base    time.Duration
		horizon time.Duration
		want    []time.Duration
	}{
		// gaps 2 2 2 2 2
		{"fixed", Family{Growth: Fixed}, 2 * time.Second, 10 * time.Second, famSecs(0, 2, 4, 6, 8, 10)},
		// 0 3 6 9, then 12 > 10 is cut to 10
		{"fixed/past horizon", Family{Growth: Fixed}, 3 * time.Second, 10 * time.Second, famSecs(0, 3, 6, 9, 10)},
		// the cut gap of 1 s is under the 2 s minimum gap: 9 moves to 10
		{"fixed/min gap", Family{Growth: Fixed, MinGap: 2 * time.Second}, 3 * time.Second, 10 * time.Second, famSecs(0, 3, 6, 10)},
		// gaps 1 2 3 4 5 (step = base)
		{"linear", Family{Growth: Linear}, time.Second, 15 * time.Second, famSecs(0, 1, 3, 6, 10, 15)},
		// gaps 1 1.5 2.25 3.375 5.063 7.594 11.391 17.086 25.629, then
		// 38.443 (> cap 30) cut to 10.741
		{"exp", Family{Growth: Exponential, Factor: 1.5, CapRatio: 30}, time.Second, time.Minute,
			famSecs(0, 1, 2.5, 4.75, 8.125, 13.188, 20.782, 32.173, 49.259, 60)},
		// gaps 1 1.5 2.25 3.375, then 5.063 capped at 4 s, the last cut to 3.875
		{"exp/capped", Family{Growth: Exponential, Factor: 1.5, CapRatio: 4}, time.Second, 20 * time.Second,
			famSecs(0, 1, 2.5, 4.75, 8.125, 12.125, 16.125, 20)},
		// gaps 0.5·k²: 0.5 2 4.5 8 12.5, then 18 capped at 15 s, the last cut to 2.5
		{"poly", Family{Growth: Polynomial, Exponent: 2, CapRatio: 30}, 500 * time.Millisecond, time.Minute,
			famSecs(0, 0.5, 2.5, 7, 15, 27.5, 42.5, 57.5, 60)},
		// Regression: Fib(k)·base overflowed int64 past k ≈ 60
		// and ended the phase early. Gaps 0.2 0.2 0.4 0.6 1 1.6 2.6 4.2
		// (sum 10.8), then 148 gaps of the 6 s cap to 898.8 s and one cut
		// to 1.2 s: 1 + 8 + 148 + 1 = 158 polls.
		{"fib/long", Family{Growth: Fibonacci, CapRatio: 30}, 200 * time.Millisecond, 15 * time.Minute,
			fibLong()},
		// gaps 1 1 2 3 5 8 13 21, then 34 capped at 30 s, cut to 6
		{"fib", Family{Growth: Fibonacci, CapRatio: 30}, time.Second, time.Minute,
			famSecs(0, 1, 2, 4, 7, 12, 20, 33, 54, 60)},
		// the first gap passes the horizon: cut to it
		{"exp/sparsest", Family{Growth: Exponential, Factor: 1.5, CapRatio: 30}, 2 * time.Minute, time.Minute,
			famSecs(0, 60)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.f.Schedule(tt.base, tt.horizon).Polls()
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("%v.Schedule(%v, %v).Polls() (-want +got):\n%s", tt.f, tt.base, tt.horizon, diff)
			}
		})
	}
}

func fibLong() []time.Duration {
	out := famSecs(0, 0.2, 0.4, 0.8, 1.4, 2.4, 4, 6.6, 10.8)
	for k := 1; k <= 148; k++ {
		out = append(out, 10800*time.Millisecond+time.Duration(k)*6*time.Second)
	}
	return append(out, 15*time.Minute)
}

// The first gap of every family is the base itself (attempt 1: Factor^0,
// 1^Exponent, Fib(1) = 1), so no first entry is skipped as in the brief's
// "before" schedule.
func TestFamilyFirstGapIsBase(t *testing.T) {
	const base = 1234 * time.Millisecond
	for _, f := range Families {
		t.Run(f.Name, func(t *testing.T) {
			p := f.Schedule(base, time.Minute).Polls()
			if p[0] != 0 || p[1] != base {
				t.Errorf("%s polls start %v, want [0 %v …]", f.Name, p[:2], base)
			}
		})
	}
}

// Jitter is applied to the capped gap (optimize/jitter.go), so each
// jittered gap k of a phase stays within the bounds of its kind around its
// GapAt(k) (the growth phase while the jittered polls are before its
// Until, then the phase of the cut gap to the horizon):
// full [0, g], equal [g/2, g], decorrelated [g, 3g], ±20% [0.8g, 1.2g],
// never below min(1ms, g/1000) and never above the cap.
func TestFamilyJitterBounds(t *testing.T) {
	const base = 500 * time.Millisecond
	horizon := 10 * time.Minute
	rng := rand.New(rand.NewPCG(1, 2))
	tests := []struct {
		name   string
		lo, hi float64 // bounds as multiples of the scheduled gap
	}{
		{"exp-full", 0, 1},
		{"exp-equal", 0.5, 1},
		{"exp-decorrelated", 1, 3},
		{"exp-20%", 0.8, 1.2},
		{"fixed-full", 0, 1},
		{"poly-equal", 0.5, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := FamilyByName(tt.name)
			if err != nil {
				t.Fatal(err)
			}
			s := f.Schedule(base, horizon)
			for range 200 {
				polls := s.AppendPolls(nil, rng)
				i, k := 0, 0 // phase, gap within it
				for n := 1; n < len(polls); n++ {
					if s.Phases[i].Growth == Once || polls[n-1] >= s.Phases[i].Until {
						i, k = i+1, 0
					}
					k++
					ph := s.Phases[i]
					g := ph.GapAt(k)
					if ph.Cap > 0 && g > ph.Cap {
						t.Fatalf("GapAt(%d) = %v above cap %v", k, g, ph.Cap)
					}
					got := polls[n] - polls[n-1]
					if n == len(polls)-1 && polls[n] == horizon && got < g {
						// Jitter.ToHorizon: the gap that would pass the
						// horizon ends at it.
						continue
					}
					lo := max(time.Duration(tt.lo*float64(g)), min(time.Millisecond, g/1000))
					hi := time.Duration(tt.hi*float64(g)) + 1 // +1ns: float rounding of the draw
					if ph.Cap > 0 {
						hi = min(hi, ph.Cap)
					}
					if got < lo || got > hi {
						t.Fatalf("jittered gap %d = %v, want within [%v, %v] of scheduled %v", n, got, lo, hi, g)
					}
				}
				if last := polls[len(polls)-1]; last != horizon {
					t.Fatalf("last poll %v, want the horizon %v (Jitter.ToHorizon)", last, horizon)
				}
			}
		})
	}
}

func TestParseFamilies(t *testing.T) {
	tests := []struct {
		in      string
		want    []string
		wantErr bool
	}{
		{"all", []string{"fixed", "linear", "exp", "poly", "fib", "exp-full", "exp-equal", "exp-decorrelated"}, false},
		{"exp, poly,fixed-20%", []string{"exp", "poly", "fixed-20%"}, false},
		{"exp-sometimes", nil, true},
		{"cubic", nil, true},
		{"", nil, true},
		{"exp-none", nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			fs, err := ParseFamilies(tt.in)
			if (err != nil) != tt.wantErr {
				t.Fatalf("ParseFamilies(%q) error = %v, want error %v", tt.in, err, tt.wantErr)
			}
			var got []string
			for _, f := range fs {
				got = append(got, f.Name)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ParseFamilies(%q) names (-want +got):\n%s", tt.in, diff)
			}
		})
	}
}

func TestFamilyString(t *testing.T) {
	tests := map[string]string{
		"fixed":            "every b",
		"linear":           "linear b+b",
		"exp":              "exp b x1.5 cap 30b",
		"poly":             "poly b ^2 cap 30b",
		"fib":              "fib b cap 30b",
		"exp-decorrelated": "exp b x1.5 cap 30b, jitter decorrelated",
		"fixed-20%":        "every b, jitter ±20%",
	}
	for name, want := range tests {
		f, err := FamilyByName(name)
		if err != nil {
			t.Fatal(err)
		}
		if got := f.String(); got != want {
			t.Errorf("FamilyByName(%q).String() = %q, want %q", name, got, want)
		}
	}
}

func ExampleFamily_Schedule() {
	f, _ := FamilyByName("exp")
	s := f.Schedule(time.Second, 2*time.Minute)
	fmt.Println(s)
	fmt.Println(s.Polls())
	// Output:
	// exp 1s x1.5 cap 30s until 1m44.888s, 15.112s
	// [0s 1s 2.5s 4.75s 8.125s 13.188s 20.782s 32.173s 49.259s 1m14.888s 1m44.888s 2m0s]
}
