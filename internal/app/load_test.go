package app

import (
	"errors"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/pollfit/pollfit/optimize"
)

func TestParseRate(t *testing.T) {
	tests := []struct {
		in   string
		want float64 // items per second
	}{
		{"50/s", 50},
		{"2000/min", 2000.0 / 60},
		{"3/m", 0.05},
		{"120/h", 1.0 / 30},
		{" 0.5 / s ", 0.5},
	}
	for _, tt := range tests {
		got, err := ParseRate("arrivals", tt.in)
		if err != nil || math.Abs(got-tt.want) > 1e-12*tt.want {
			t.Errorf("ParseRate(%q) = %v, %v, want %v", tt.in, got, err, tt.want)
		}
	}
	for _, in := range []string{"", "50", "0/s", "-1/s", "5/day", "abc/s", "NaN/s", "1e400/s"} {
		_, err := ParseRate("arrivals", in)
		var ue *UsageError
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), "--arrivals") {
			t.Errorf("ParseRate(%q) error = %v, want a usage error naming --arrivals", in, err)
		}
	}
}

func FuzzParseRate(f *testing.F) {
	for _, s := range []string{"50/s", "2000/min", "1/h", "x", "1/", "/s"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := ParseRate("arrivals", s)
		if err == nil && !(v > 0 && !math.IsInf(v, 0)) {
			t.Errorf("ParseRate(%q) = %v without error, want a positive finite rate", s, v)
		}
	})
}

// Worked by hand: in [0.5, 1.5) fall 0.5, 0.9, 1.0 and 1.4: 4 polls; no
// other window holds more. The window is half-open: 1 s-spaced polls
// count one each.
func TestPeakPolls(t *testing.T) {
	tests := []struct {
		name  string
		polls []time.Duration
		want  int
	}{
		{"by hand", famSecs(0, 0.5, 0.9, 1.0, 1.4, 3), 4},
		{"every 1s", optimize.References[3].Polls(), 1},
		{"half-open", famSecs(0, 1, 2), 1},
		{"one", famSecs(5), 1},
		{"none", nil, 0},
	}
	for _, tt := range tests {
		if got := PeakPolls(tt.polls, time.Second); got != tt.want {
			t.Errorf("PeakPolls(%s) = %d, want %d", tt.name, got, tt.want)
		}
	}
}

func famSecs(v ...float64) []time.Duration {
	out := make([]time.Duration, len(v))
	for i, s := range v {
		out[i] = time.Duration(math.Round(s*1000)) * time.Millisecond
	}
	return out
}

// Steady rate = arrivals × mean polls (Little's law); burst peak = burst ×
// max polls in 1 s; none for a jittered schedule.
func TestLoadRows(t *testing.T) {
	l := Load{Arrivals: 50, Burst: 1000}
	scheds := []optimize.Schedule{
		optimize.MustParseSpec("500ms, 500ms, every 5s until 1m"), // 0, 0.5, 1, …: 2 in [0, 1)
		optimize.MustParseSpec("every 2s until 1m, jitter full"),
	}
	scores := []optimize.Score{{Name: "a", MeanPolls: 4}, {Name: "b", MeanPolls: 10}}
	rows := l.rows(scheds, scores)
	if rows[0].Steady != 200 || rows[0].PeakPolls == nil || *rows[0].PeakPolls != 2 || *rows[0].Peak != 2000 {
		t.Errorf("rows[0] = %+v, want steady 200, 2 polls in 1s, peak 2000", rows[0])
	}
	if rows[1].Steady != 500 || rows[1].Peak != nil {
		t.Errorf("rows[1] = %+v, want steady 500 and no peak (jittered)", rows[1])
	}
}

// Issue 14: under "every 1s until 10s, after each 5m (+1s +2.5s) until
// 15m" every item aged between 10s and the horizon 15m polls at the same
// instants of the clock. At 100 items/s the most at once is
// 100·(15m − 10s) = 89,000, which counting the items created every 10 ms
// whose wall-clock phase polls at the instant 00:05:01 confirms; without
// the horizon's cut (a phase after it), 298.5 s more of items (from +2.5s
// to the next +1s) poll then.
func TestLoadClockHerd(t *testing.T) {
	s := optimize.MustParseSpec("every 1s until 10s, after each 5m (+1s +2.5s) until 15m")
	l := Load{Arrivals: 100, Burst: 1000}
	rows := l.rows([]optimize.Schedule{s}, []optimize.Score{{Name: "clock", MeanPolls: 16}})
	if r := rows[0]; r.Herd == nil || *r.Herd != 89000 || r.PeakPolls != nil || r.Peak != nil || r.Steady != 1600 {
		t.Fatalf("rows[0] = %+v, want herd 89000, steady 1600 and no burst peak", r)
	}
	T := time.Date(2025, 3, 1, 0, 5, 1, 0, time.UTC).UnixNano()
	count := func(s optimize.Schedule) int {
		n := 0
		for c := T - int64(10*time.Second) - 1; c > T-int64(2000*time.Second); c -= int64(10 * time.Millisecond) {
			if slices.Contains(s.PollsAt(c), time.Duration(T-c)) {
				n++
			}
		}
		return n
	}
	if n := count(s); n < 88999 || n > 89001 {
		t.Errorf("%d items created every 10 ms poll at 00:05:01 in the wall-clock phase, want 89000 ± 1", n)
	}
	longer := optimize.MustParseSpec("every 1s until 10s, after each 5m (+1s +2.5s) until 15m, every 1h until 2h")
	if w, _ := clockWindow(longer); w != 15*time.Minute-10*time.Second+298500*time.Millisecond {
		t.Errorf("clockWindow(%s) = %v, want 15m − 10s + 298.5s", longer, w)
	}
	if n := count(longer); n < 118849 || n > 118851 {
		t.Errorf("%d items created every 10 ms poll at 00:05:01 in the wall-clock phase of %s, want 118850 ± 1", n, longer)
	}
	var b strings.Builder
	if err := l.write(&b, rows); err != nil {
		t.Fatal(err)
	}
	if want := "clock: its wall-clock phase, after each 5m (+1s +2.5s), polls every item of its window at the same instants: up to 89000 requests at once (no item settling)"; !strings.Contains(b.String(), want) {
		t.Errorf("load table:\n%s\nwant the line %q", b.String(), want)
	}
}
