package app

import (
	"bytes"
	"encoding/json"
	"io"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/pollfit/pollfit/ingest"
	"github.com/pollfit/pollfit/internal/app/report"
	"github.com/pollfit/pollfit/optimize"
)

// compareRows runs c with JSON output and returns its rows by name.
func compareRows(t *testing.T, c Compare) map[string]report.Row {
	t.Helper()
	var out bytes.Buffer
	c.Format = "json"
	if err := c.Run(&out, io.Discard); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Rows []report.Row `json:"rows"`
	}
	if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	rows := map[string]report.Row{}
	for _, r := range doc.Rows {
		rows[r.Name] = r
	}
	return rows
}

var familyNames = []string{"fixed", "linear", "exp", "poly", "fib", "exp-full", "exp-equal", "exp-decorrelated"}

// On the payments fixture at 152 stuck polls with the default min gap
// (500 ms), which kept every growing family's base from spending more than
// 45-88 of them, every family spends at least 99% of the 152 (the mean
// over the draws when jittered) on the items fitted on and catches what
// pollfit's schedule catches, so every one is compared.
func TestCompareEqualSpendPayments(t *testing.T) {
	c := Compare{
		Input:    Input{Paths: []string{"../../fixtures/payments.csv"}, Read: ingest.ReadOptions{Column: "settle_s", Status: "status", Pending: []string{"pending"}}, Quiet: true},
		Solve:    Solve{Budget: optimize.Budget{StuckPolls: 152}, Phases: 4},
		Families: "all",
		Holdout:  0.3,
		Seed:     1,
		Ages:     "30s",
	}
	rows := compareRows(t, c)
	for _, name := range familyNames {
		r, ok := rows[name]
		if !ok || r.Comparison == nil {
			t.Fatalf("no row %s with its comparison: %v", name, rows)
		}
		cmp := r.Comparison
		if !cmp.Comparable {
			t.Errorf("%s (%s) is not comparable: %s", name, r.Spec, cmp.Why)
		}
		if cmp.Target.StuckPolls != 152 {
			t.Errorf("%s tuned to %v stuck polls, want 152", name, cmp.Target.StuckPolls)
		}
		if s := cmp.Fitted.StuckPolls; s < 0.99*152 || s > 152 {
			t.Errorf("%s (%s) spends %v stuck polls, want 150.48 to 152", name, r.Spec, s)
		}
		if r.StuckPolls < 0.99*152 {
			t.Errorf("%s row: %v stuck polls, want at least 150.48", name, r.StuckPolls)
		}
		if cmp.CaughtVsReference != 0 || *r.Caught != *rows["pollfit"].Caught {
			t.Errorf("%s catches %v, pollfit %v", name, *r.Caught, *rows["pollfit"].Caught)
		}
	}
}

// Builds of 30 to 60 minutes (lognormal, median 45 min) polled to a 1 h
// horizon at 10 mean polls: the jittered families stopped a whole jittered
// gap short of the horizon in many draws and caught 62-81% of the builds
// against pollfit's 94%. Every family now catches what pollfit's schedule
// catches, within a point (the bound; in fact exactly), and spends
// the 10 mean polls on the items fitted on within 1%.
func TestCompareFamiliesCatchAsPollfit(t *testing.T) {
	path := writeLogNormal(t, 3000, math.Log(2700), 0.2, 4)
	c := Compare{
		Input:    Input{Paths: []string{path}, Read: ingest.ReadOptions{Column: "settle_s"}, Quiet: true},
		Solve:    Solve{Budget: optimize.Budget{MeanPolls: 10}, Phases: 4, Options: optimize.Options{Horizon: time.Hour}},
		Families: "all",
		Holdout:  0.3,
		Seed:     1,
		Draws:    100,
		Ages:     "30m",
	}
	rows := compareRows(t, c)
	ref := *rows["pollfit"].Caught
	if ref < 0.85 || ref > 0.99 {
		t.Fatalf("pollfit catches %v of the builds, want the share by 1h (about 0.93)", ref)
	}
	for _, name := range familyNames {
		r := rows[name]
		if r.Comparison == nil || r.Caught == nil {
			t.Fatalf("no row %s with its comparison", name)
		}
		if math.Abs(*r.Caught-ref) > 0.01 {
			t.Errorf("%s (%s) catches %.4f of the builds, pollfit %.4f", name, r.Spec, *r.Caught, ref)
		}
		if !r.Comparison.Comparable {
			t.Errorf("%s is not comparable: %s", name, r.Comparison.Why)
		}
		if m := r.Comparison.Fitted.MeanPolls; m > 10 || m < 9.9 {
			t.Errorf("%s (%s) spends %v mean polls on the items fitted on, want 9.9 to 10", name, r.Spec, m)
		}
	}
}

// Rows not at the same cost or coverage are marked, come last, say why,
// and are never the best family: a family spending less than the budget,
// one catching fewer items, and a user's schedule as given.
func TestJudgeMarksApart(t *testing.T) {
	items := optimize.NewItems([]float64{1, 2, 3, 5, 8, 13, 21, 34, 55, 89}, nil, nil)
	sample := &ingest.Sample{Times: []float64{1, 2, 3, 5, 8, 13, 21, 34, 55, 89}}
	a := &arena{train: sample, test: sample, trainItems: items, testItems: items, horizon: 100 * time.Second}
	t10 := optimize.Budget{StuckPolls: 10}
	pollfit := optimize.MustParseSpec("every 11.111s until 88.888s, 11.112s") // 10 polls
	pollfit.Name = "pollfit"
	short := optimize.MustParseSpec("every 20s until 100s") // 6 polls of 10
	short.Name = "linear"
	early := optimize.MustParseSpec("every 6s until 54s") // 10 polls, last at 54 s: misses 55 and 89
	early.Name = "exp"
	good := optimize.MustParseSpec("every 12s until 96s, 4s")
	good.Name = "fib"
	user := optimize.MustParseSpec("every 5s until 100s")
	user.Name = "mine"
	tuned := func(s optimize.Schedule, shortWhy string) *optimize.Tuned {
		sc := optimize.ScoreSchedule(s, items, optimize.ScoreOptions{})
		return &optimize.Tuned{Schedule: s, StuckPolls: sc.StuckPolls, MeanPolls: sc.MeanPolls, Short: shortWhy}
	}
	few := optimize.MustParseSpec("every 25s until 100s") // 5 polls: its phases could not spend 10
	few.Name = "exact"
	entries := []entry{
		{Kind: kindPhased, Schedule: pollfit, Expected: &optimize.Expectation{StuckPolls: 10}},
		{Kind: kindExact, Schedule: few, Expected: &optimize.Expectation{StuckPolls: 5}},
		{Kind: kindFamily, Schedule: short, Tuned: tuned(short, "spends 6 of 10 stuck polls even at its densest, with gaps from 20s")},
		{Kind: kindFamily, Schedule: early, Tuned: tuned(early, "")},
		{Kind: kindFamily, Schedule: good, Tuned: tuned(good, "")},
		{Kind: kindUser, Schedule: user},
	}
	if n := good.StuckPolls(); n != 10 {
		t.Fatalf("%s makes %d polls, want 10", good, n)
	}
	opt := optimize.ScoreOptions{Ages: []time.Duration{}}
	scores := make([]optimize.Score, len(entries))
	for i, e := range entries {
		scores[i] = optimize.ScoreSchedule(e.Schedule, items, opt)
	}
	judged := a.judge(entries, scores, t10, opt)
	want := map[string]string{
		"pollfit": "",
		"exact":   "spends 5 stuck polls under the fit, not the 10 stuck polls the families are held to",
		"linear":  "spends 6 of 10 stuck polls even at its densest",
		"exp":     "catches 80.0% of the items against pollfit's 100.0%: its lags count only the items it catches",
		"fib":     "",
		"mine":    "as given, it spends 21 stuck polls on the items fitted on, not 10 stuck polls",
	}
	for i, e := range entries {
		w, c := want[e.Schedule.Name], judged[i]
		if c.Comparable != (w == "") || !strings.Contains(c.Why, w) || (w == "") != (c.Why == "") {
			t.Errorf("%s: comparable %v, why %q; want why %q", e.Schedule.Name, c.Comparable, c.Why, w)
		}
	}
	order := apartLast(entries, judged)
	var names []string
	for _, i := range order {
		names = append(names, entries[i].Schedule.Name)
	}
	if got := strings.Join(names, " "); got != "pollfit exact fib linear exp mine" {
		t.Errorf("order %q, want the derived schedules first, then the other rows apart last", got)
	}
	// exp lags least of the families on what it catches; fib is the best
	// family compared.
	rows := make([]report.Row, len(entries))
	for i := range entries {
		rows[i] = report.NewRow(scores[i], nil, nil)
		rows[i].Comparison = judged[i]
	}
	if scores[3].MeanLag >= scores[4].MeanLag {
		t.Fatalf("exp mean lag %v, fib %v: want exp lower, to test that it is not named", scores[3].MeanLag, scores[4].MeanLag)
	}
	line := sameCost(scores, entries, rows)
	if !strings.Contains(line, "against the best family, fib at") || !strings.Contains(line, "(10 stuck polls each)") ||
		!strings.Contains(line, ": pollfit ") || strings.Contains(line, "exact") {
		t.Errorf("sameCost = %q, want fib named, the spend stated and only pollfit compared", line)
	}
	// With every family apart, no comparison.
	for i := 2; i < 5; i++ {
		rows[i].Comparison = &report.Comparison{Why: "apart"}
	}
	if line := sameCost(scores, entries, rows); !strings.HasPrefix(line, "no family spends the budget") {
		t.Errorf("sameCost with every family apart = %q", line)
	}
}
