package optimize

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"
)

func secs(vs ...float64) []time.Duration {
	out := make([]time.Duration, len(vs))
	for i, v := range vs {
		out[i] = time.Duration(v * float64(time.Second))
	}
	return out
}

// Poll times of each kind of phase, listed by hand from the definitions in
// the package comment (attempt k = 1 is the first gap of a phase).
func TestPollsByHand(t *testing.T) {
	tests := []struct {
		spec string
		want []time.Duration
	}{
		{"3s, 5s, 8s", secs(0, 3, 8, 16)},
		{"at 2s, 1s", secs(2, 3)},
		{"every 2s until 7s", secs(0, 2, 4, 6)},                              // 8 > 7 is after the horizon
		{"every 2s until 6s", secs(0, 2, 4, 6)},                              // stops once the last poll reaches 6
		{"1s, every 3s until 5s, every 1s until 9s", secs(0, 1, 4, 7, 8, 9)}, // 7 overshoots 5; next phase continues from 7
		{"fixed 5s until 15s", secs(0, 5, 10, 15)},
		{"linear 1s+1s until 15s", secs(0, 1, 3, 6, 10, 15)},
		{"linear 1s+2s cap 4s until 20s", secs(0, 1, 4, 8, 12, 16, 20)},
		{"exp 1s x2 until 20s", secs(0, 1, 3, 7, 15)}, // next gap 16 → 31 > 20
		{"exp 1s x2 cap 5s until 20s", secs(0, 1, 3, 7, 12, 17)},
		{"exp 1s x1.5 until 10s", secs(0, 1, 2.5, 4.75, 8.125)}, // 1, 1.5, 2.25, 3.375; next 5.0625 → 13.19 > 10
		{"poly 500ms ^2 until 20s", secs(0, 0.5, 2.5, 7, 15)},   // 0.5·k²: 0.5, 2, 4.5, 8; next 12.5 → 27.5 > 20
		{"poly 500ms ^2 cap 3s until 12s", secs(0, 0.5, 2.5, 5.5, 8.5, 11.5)},
		{"fib 1s until 20s", secs(0, 1, 2, 4, 7, 12, 20)}, // gaps 1, 1, 2, 3, 5, 8
		{"fib 1s cap 3s until 12s", secs(0, 1, 2, 4, 7, 10, 13)[:6]},
		{"at 500ms, every 1s until 3s", secs(0.5, 1.5, 2.5)}, // 3.5 > 3
	}
	for _, tt := range tests {
		t.Run(tt.spec, func(t *testing.T) {
			s, err := ParseSpec(tt.spec)
			if err != nil {
				t.Fatal(err)
			}
			if got := s.Polls(); !slices.Equal(got, tt.want) {
				t.Errorf("Polls(%q) = %v, want %v", tt.spec, got, tt.want)
			}
		})
	}
}

func TestSpecRoundTrip(t *testing.T) {
	specs := []string{
		"3s, 5s, 8s, 13s, every 15s until 2m, every 30s until 15m",
		"at 1.5s, 500ms, every 1m30s until 1h",
		"linear 1s+500ms cap 10s until 15m",
		"exp 1s x1.5 cap 30s until 15m, jitter full",
		"poly 500ms ^2 cap 30s until 15m, jitter ±20%",
		"fib 1s cap 1m until 15m, jitter decorrelated",
		"every 1s until 30s, jitter equal",
		"exp 1s x1.5 cap 30s until 9m50s, every 10s until 10m, jitter full to horizon",
	}
	for _, spec := range specs {
		s, err := ParseSpec(spec)
		if err != nil {
			t.Fatalf("ParseSpec(%q): %v", spec, err)
		}
		if got := s.String(); got != spec {
			t.Errorf("ParseSpec(%q).String() = %q", spec, got)
		}
	}
}

func TestParseSpecErrors(t *testing.T) {
	tests := []struct {
		spec, want string
	}{
		{"", "empty spec"},
		{"1s,,2s", `schedule spec item 2 "": empty item (two commas in a row?)`},
		{"every 1s", `schedule spec item 1 "every 1s": "every" needs "until U"`},
		{"1s, at 2s", `schedule spec item 2 "at 2s": "at D" may only be the first item`},
		{"3 seconds", `schedule spec item 1 "3 seconds": unknown item`},
		{"-1s", `schedule spec item 1 "-1s": gap must be positive (got -1s)`},
		{"every 1s until 1m, every 2s until 30s", "until must be later than the previous phase's until"},
		{"exp 1s until 1m", "exp needs a factor"},
		{"exp 1s x0.5 until 1m", "exponential factor 0.5 must be a finite number ≥ 1"},
		{"every 1ns until 24h", "more than 10000000 polls"},
		{"2s, jitter ±150%", "want full, equal, decorrelated or ±P%"},
		{"every 1x until 2m", `"1x" is not a duration`},
		{"every 2s until 1m, jitter none to horizon", `"to horizon" needs a jitter`},
		{"every 2s until 1m, jitter full to 1m", `may end "to horizon"`},
	}
	for _, tt := range tests {
		_, err := ParseSpec(tt.spec)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("ParseSpec(%q) error = %v, want it to contain %q", tt.spec, err, tt.want)
		}
		if err != nil && !errors.Is(err, ErrSpec) {
			t.Errorf("ParseSpec(%q) error does not wrap ErrSpec: %v", tt.spec, err)
		}
	}
}

func TestFromPolls(t *testing.T) {
	polls := secs(0.5, 1, 2, 3, 4, 6, 8.5)
	s := FromPolls(polls)
	if got, want := s.String(), "at 500ms, 500ms, every 1s until 4s, 2s, 2.5s"; got != want {
		t.Errorf("FromPolls(%v) = %q, want %q", polls, got, want)
	}
	if got := s.Polls(); !slices.Equal(got, polls) {
		t.Errorf("FromPolls(%v).Polls() = %v", polls, got)
	}
}

func FuzzParseSpec(f *testing.F) {
	for _, r := range References {
		f.Add(r.String())
	}
	for _, s := range []string{"at 2s, 1s", "exp 1s x1.5 cap 30s until 15m, jitter full", "poly 500ms ^2 cap 30s until 15m", "fib 1s until 1m", "linear 1s+1s until 1m, jitter ±20%",
		"at 30s, every 1m until 45s, every 2m until 10m", "at 5m, every 10m until 10m", "every 1s until 10s, every 1m until 30s", "exp 1m x2 until 10m", "at 0s",
		"1s, exp 1s x1000 until 10s, every 1s until 20s"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, spec string) {
		s, err := ParseSpec(spec)
		if err != nil {
			return
		}
		if s.StuckPolls() > 100_000 {
			return // valid but slow to compare
		}
		// Same polls (by the rule, written out again), phases that read
		// as they run, idempotent printing.
		checkPrinted(t, s)
		if back := MustParseSpec(s.String()); back.Jitter != s.Jitter {
			t.Fatalf("round trip of %q changed the jitter: %q", spec, back.String())
		}
	})
}

// TestParseSpecMaxPolls: a spec of more than MaxPolls polls (10⁷),
// counted by hand, is ErrTooManyPoll; one of fewer, capped ones
// included, parses.
func TestParseSpecMaxPolls(t *testing.T) {
	tests := []struct {
		spec string
		ok   bool
	}{
		{"every 1ns until 24h", false},
		{"every 1s until 2760h", true},                   // 9,936,001 polls
		{"every 1s until 2784h", false},                  // 10,022,401 polls
		{"every 1s until 1m, every 1ms until 3h", false}, // 10,800,000 in the second phase
		{"exp 1ms x2 cap 1h until 8760h", true},          // 8,760 + 23 polls
	}
	for _, tc := range tests {
		_, err := ParseSpec(tc.spec)
		if tc.ok && err != nil {
			t.Errorf("ParseSpec(%q): %v", tc.spec, err)
		}
		if !tc.ok && !errors.Is(err, ErrTooManyPoll) {
			t.Errorf("ParseSpec(%q) = %v, want ErrTooManyPoll", tc.spec, err)
		}
	}
}
