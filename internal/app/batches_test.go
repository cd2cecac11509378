package app

import (
	"bytes"
	"encoding/csv"
	stdhtml "html"
	"io"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pollfit/pollfit/ingest"
	"github.com/pollfit/pollfit/optimize"
)

// clockSample reads fixtures/clock.csv apart from package ingest (with
// encoding/csv): settle_s, pending rows censored, created_at as each
// item's creation instant.
func clockSample(t *testing.T) *ingest.Sample {
	t.Helper()
	f, err := os.Open("../../fixtures/clock.csv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	s := &ingest.Sample{Censored: make([]bool, len(recs)-1)}
	for i, r := range recs[1:] {
		c, err := time.Parse(time.RFC3339, r[2])
		v, err2 := strconv.ParseFloat(r[5], 64)
		if err != nil || err2 != nil {
			t.Fatal(err, err2)
		}
		s.Times = append(s.Times, v)
		s.Created = append(s.Created, c.UnixNano())
		s.Censored[i] = r[4] == "pending"
	}
	return s
}

// TestPlanClockFixture is issue 14's must-show on the batch fixture: the
// plan finds the 5-minute period and its boundary at :00 (within 1 s) on
// the rows fitted, takes the wall-clock schedule, and on the held-out rows
// its mean lag is at least 30% below the best age-only schedule's, at no
// more mean polls.
func TestPlanClockFixture(t *testing.T) {
	p := Plan{Solve: Solve{Budget: optimize.Budget{MeanPolls: 6}}, Holdout: 0.3, Seed: 1}
	sec, err := p.plan("all", clockSample(t), nil, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	b := sec.Batches
	if b == nil || !b.Found || b.Clock.Period != 5*time.Minute || b.Clock.Offset > time.Second {
		t.Fatalf("batches %+v, want found every 5m within 1s of :00", b)
	}
	if sec.Clock == nil {
		t.Fatalf("no wall-clock schedule: %s", sec.ClockNote)
	}
	clock, age := sec.Rows[0], sec.Rows[1]
	if age.Name != "age-only" {
		t.Fatalf("second row %q, want age-only", age.Name)
	}
	t.Logf("wall-clock %s: %.3fs at %.2f polls; age-only %s: %.3fs at %.2f polls", sec.Clock.Schedule, *clock.MeanLag, *clock.MeanPolls, sec.Derived.Result.Schedule, *age.MeanLag, *age.MeanPolls)
	if *clock.MeanLag > 0.7**age.MeanLag {
		t.Errorf("held-out mean lag %.3fs, not 30%% below the age-only %.3fs", *clock.MeanLag, *age.MeanLag)
	}
	if *clock.MeanPolls > *age.MeanPolls {
		t.Errorf("held-out mean polls %.3f, above the age-only %.3f", *clock.MeanPolls, *age.MeanPolls)
	}
	var out bytes.Buffer
	if err := p.writeSection(&out, sec); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"wall-clock batches every 5m, boundaries 0s past each (UTC)", "after each 5m (+", "best age-only schedule", "stuck polls: "} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("plan output lacks %q:\n%s", want, out.String())
		}
	}
}

// TestReportClockFixture: on the batch fixture the report heads with the
// wall-clock schedule plan takes, compares it with the age-only one, and
// its schedule document is that schedule (with its wall-clock phase), so
// that what the page shows is what it exports.
func TestReportClockFixture(t *testing.T) {
	in := Input{Paths: []string{"../../fixtures/clock.csv"}, Quiet: true,
		Read: ingest.ReadOptions{Column: "settle_s", Start: "created_at", Status: "status", Pending: []string{"pending"}}}
	solve := Solve{Budget: optimize.Budget{MeanPolls: 6}}
	p := Plan{Input: in, Solve: solve, Holdout: 0.3, Seed: 1}
	sample, _, err := in.load(io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	sec, err := p.plan("all", sample, nil, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if sec.Clock == nil {
		t.Fatalf("plan took no wall-clock schedule: %s", sec.ClockNote)
	}
	want := sec.Clock.Schedule.String()
	var page bytes.Buffer
	err = Report{Input: in, Solve: solve, Holdout: 0.3, Seed: 1, Families: "fixed", Budgets: "3..12:3",
		Command: "pollfit report", Version: "test"}.Run(&page, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	h := stdhtml.UnescapeString(page.String())
	if !strings.Contains(h, `<p class="spec"><code>`+want+`</code>`) {
		t.Errorf("the page's schedule is not plan's %q", want)
	}
	for _, s := range []string{"1 age phase, then after each 5m boundary (UTC)", `"growth": "wall_clock"`, "age-only", "the budgets here are spent by age-indexed schedules"} {
		if !strings.Contains(h, s) {
			t.Errorf("the page lacks %q", s)
		}
	}
}
