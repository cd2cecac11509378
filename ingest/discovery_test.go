package ingest

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// beforePolls are the poll ages of the brief's "before" schedule, in
// seconds: gaps 3, 5, 8, 13, then every 15 s while the last poll is
// before 2 m, then every 30 s while it is before 15 m, none after 15 m
// (37 polls, 0 to 884 s).
func beforePolls() []float64 {
	polls := []float64{0, 3, 8, 16, 29}
	for last := 29.0; last < 120; {
		last += 15
		polls = append(polls, last)
	}
	for last := polls[len(polls)-1]; last < 900 && last+30 <= 900; {
		last += 30
		polls = append(polls, last)
	}
	return polls
}

// discoveryWarned reports the discovery-time warning of rep, or "".
func discoveryWarned(rep *Report) string {
	for _, w := range rep.Warnings {
		if strings.Contains(w, "discovery times") {
			return w
		}
	}
	return ""
}

// TestDiscoveryWarning: the ages at which the "before" schedule finds
// synthetic items settled (their discovery times) are warned about, by
// name of --settled-after; their true settle times, rounded to the
// millisecond or to whole seconds, are not.
func TestDiscoveryWarning(t *testing.T) {
	polls := beforePolls()
	if len(polls) != 37 || polls[36] != 884 {
		t.Fatalf("before schedule: %d polls ending at %v, want 37 ending at 884 (the brief's table)", len(polls), polls[len(polls)-1])
	}
	rng := rand.New(rand.NewPCG(1, 2))
	var disc, exact, whole strings.Builder
	for _, b := range []*strings.Builder{&disc, &exact, &whole} {
		b.WriteString("seen_s,status\n")
	}
	distinct := map[float64]bool{}
	for range 5000 {
		// Payments: a wallet mode near 0.5 s, a prompt mode near 15 s, a
		// tail of minutes, and 1% that never settle.
		var s float64
		switch u := rng.Float64(); {
		case u < 0.3:
			s = 0.1 + 0.4*math.Exp(0.5*rng.NormFloat64())
		case u < 0.85:
			s = 1.5 + 13*math.Exp(0.5*rng.NormFloat64())
		case u < 0.99:
			s = 150 * math.Exp(0.8*rng.NormFloat64())
		default:
			s = math.Inf(1)
		}
		seen, status := polls[len(polls)-1], "pending"
		for _, p := range polls {
			if p >= s {
				seen, status = p, "settled"
				break
			}
		}
		fmt.Fprintf(&disc, "%g,%s\n", seen, status)
		if math.IsInf(s, 1) || s > 900 {
			s, status = 900, "pending"
		}
		fmt.Fprintf(&exact, "%.3f,%s\n", s, status)
		fmt.Fprintf(&whole, "%.0f,%s\n", math.Round(s), status)
		distinct[math.Round(s)] = true
	}
	if len(distinct) <= 100 {
		t.Fatalf("the whole seconds have %d distinct values: not the case of many", len(distinct))
	}
	opt := ReadOptions{Column: "seen_s", Status: "status", Pending: []string{"pending"}}
	for _, tc := range []struct {
		name, csv string
		warn      bool
	}{{"discovery ages", disc.String(), true}, {"settle times", exact.String(), false}, {"whole seconds", whole.String(), false}} {
		t.Run(tc.name, func(t *testing.T) {
			_, rep, err := ReadCSV(strings.NewReader(tc.csv), "seen.csv", opt)
			if err != nil {
				t.Fatal(err)
			}
			w := discoveryWarned(rep)
			switch {
			case tc.warn && w == "":
				t.Errorf("no discovery warning in %q", rep.Warnings)
			case tc.warn && !strings.Contains(w, "--settled-after COLUMN"):
				t.Errorf("the warning does not name --settled-after: %s", w)
			case tc.warn && !strings.Contains(w, "(3s, 8s, 16s, 29s"):
				t.Errorf("the warning does not list the poll ages: %s", w)
			case !tc.warn && w != "":
				t.Errorf("false alarm: %s", w)
			}
		})
	}
}

// TestDiscoveryWarningFixtures: no bundled fixture is taken for
// discovery times, nor is any made of few exact atoms (batches).
func TestDiscoveryWarningFixtures(t *testing.T) {
	for _, tc := range []struct {
		file string
		opt  ReadOptions
	}{
		{"payments.csv", ReadOptions{Column: "settle_s", Status: "status", Pending: []string{"pending"}}},
		{"batches.csv", ReadOptions{Column: "settle_s", Status: "status", Pending: []string{"pending"}}},
		{"latency.csv", ReadOptions{Column: "Latency(ms)"}},
		{"clock.csv", ReadOptions{Column: "settle_s", Status: "status", Pending: []string{"pending"}}},
		{"julia_ci_job_durations.csv", ReadOptions{Column: "duration_s"}},
		{"nasa_ipsc_1993_jobs.csv", ReadOptions{Column: "run_time_s", Negative: NegativeZero}},
	} {
		t.Run(tc.file, func(t *testing.T) {
			_, rep, err := Read([]string{filepath.Join("..", "fixtures", tc.file)}, tc.opt)
			if err != nil {
				t.Fatal(err)
			}
			if w := discoveryWarned(rep); w != "" {
				t.Errorf("false alarm: %s", w)
			}
		})
	}
	// Three exact atoms and nothing else: batches on a grid they fill.
	var b strings.Builder
	b.WriteString("settle_s\n")
	for i := range 300 {
		fmt.Fprintf(&b, "%d\n", []int{60, 120, 180}[i%3])
	}
	_, rep, err := ReadCSV(strings.NewReader(b.String()), "atoms.csv", ReadOptions{Column: "settle_s"})
	if err != nil {
		t.Fatal(err)
	}
	if w := discoveryWarned(rep); w != "" {
		t.Errorf("false alarm on three atoms: %s", w)
	}
	if _, err := os.Stat(filepath.Join("..", "fixtures", "polls.csv")); err == nil {
		// The poll log's first settled ages are discovery times.
		s, _, err := Read([]string{filepath.Join("..", "fixtures", "polls.csv")}, ReadOptions{PollID: "payment_id", Column: "age_s", Status: "status", Pending: []string{"pending"}})
		if err != nil {
			t.Fatal(err)
		}
		var disc strings.Builder
		disc.WriteString("seen_s,status\n")
		for i, v := range s.Times {
			st := "settled"
			if s.IsCensored(i) {
				st = "pending"
			}
			fmt.Fprintf(&disc, "%g,%s\n", v, st)
		}
		_, rep, err := ReadCSV(strings.NewReader(disc.String()), "seen.csv", ReadOptions{Column: "seen_s", Status: "status", Pending: []string{"pending"}})
		if err != nil {
			t.Fatal(err)
		}
		if discoveryWarned(rep) == "" {
			t.Errorf("fixtures/polls.csv's discovery ages: no warning in %q", rep.Warnings)
		}
	}
}
