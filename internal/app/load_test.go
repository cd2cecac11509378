package app

import (
	"errors"
	"math"
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
