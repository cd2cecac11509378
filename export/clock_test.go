package export

import (
	"bytes"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/pollfit/pollfit/optimize"
)

// clockRun is a creation instant at which the clock tests start the fake
// clocks of the generated code, for a segment of clockCases, and the wall
// clock times of its polls worked out by hand from the rule of a
// wall-clock phase: while the last poll happened before U, the
// next is at the first instant strictly after it that is an offset past a
// multiple of the period. Times are of 2025-03-01, UTC.
type clockRun struct {
	name, segment, created string
	want                   []string
}

var clockRuns = []clockRun{
	// The wall-clock example: the age phase from 00:03:17 to 00:03:27, then
	// 1 s and 2.5 s after each 5 minutes of the clock, ages 1m44s,
	// 1m45.5s, 6m44s, 6m45.5s, 11m44s and 11m45.5s; 00:20:01 would be at
	// 16m44s, after the horizon.
	{"example", "clock", "00:03:17", []string{
		"00:03:17", "00:03:18", "00:03:19", "00:03:20", "00:03:21", "00:03:22", "00:03:23", "00:03:24", "00:03:25", "00:03:26", "00:03:27",
		"00:05:01", "00:05:02.5", "00:10:01", "00:10:02.5", "00:15:01", "00:15:02.5"}},
	// The age phase ends at 00:04:59.5, before the boundary 00:05:00 by
	// less than the 1 s offset: the next poll is 00:05:01 of the same
	// boundary (age 11.5s).
	{"before a boundary", "clock", "00:04:49.5", []string{
		"00:04:49.5", "00:04:50.5", "00:04:51.5", "00:04:52.5", "00:04:53.5", "00:04:54.5", "00:04:55.5", "00:04:56.5", "00:04:57.5", "00:04:58.5", "00:04:59.5",
		"00:05:01", "00:05:02.5", "00:10:01", "00:10:02.5", "00:15:01", "00:15:02.5"}},
	// The age phase ends exactly on an instant, 00:05:01: the next poll
	// is the next instant, strictly after it; 00:20:01 would be at 15m10s.
	{"on an instant", "clock", "00:04:51", []string{
		"00:04:51", "00:04:52", "00:04:53", "00:04:54", "00:04:55", "00:04:56", "00:04:57", "00:04:58", "00:04:59", "00:05:00", "00:05:01",
		"00:05:02.5", "00:10:01", "00:10:02.5", "00:15:01", "00:15:02.5"}},
	// Created on a boundary: the first poll at once counts, then each
	// minute until age 5m, which 00:06:00 reaches exactly.
	{"created on a boundary", "clock-first", "00:01:00", []string{
		"00:01:00", "00:02:00", "00:03:00", "00:04:00", "00:05:00", "00:06:00"}},
	// 1 ms later, 00:06:00 is at age 4m59.999s, before the bound, and
	// 00:07:00 after the horizon.
	{"just after a boundary", "clock-first", "00:01:00.001", []string{
		"00:01:00.001", "00:02:00", "00:03:00", "00:04:00", "00:05:00", "00:06:00"}},
	// A wall-clock phase between age phases: 0.5 s and 6 s past each
	// 12 s from 00:00:07 (age 2s) until age 2m, which 00:02:06 passes,
	// then every 30 s until age 5m.
	{"between age phases", "clock-between", "00:00:05", []string{
		"00:00:07", "00:00:12.5", "00:00:18", "00:00:24.5", "00:00:30", "00:00:36.5", "00:00:42", "00:00:48.5", "00:00:54",
		"00:01:00.5", "00:01:06", "00:01:12.5", "00:01:18", "00:01:24.5", "00:01:30", "00:01:36.5", "00:01:42", "00:01:48.5", "00:01:54",
		"00:02:00.5", "00:02:06", "00:02:36", "00:03:06", "00:03:36", "00:04:06", "00:04:36"}},
}

// clockDay is the day of clockRuns.
var clockDay = time.Date(2025, 3, 1, 0, 0, 0, 0, time.UTC)

// instant reads a time of clockDay, "15:04:05.999".
func instant(t testing.TB, clock string) time.Time {
	t.Helper()
	c, err := time.Parse("15:04:05.999", clock)
	if err != nil {
		t.Fatal(err)
	}
	return clockDay.Add(c.Sub(time.Date(0, 1, 1, 0, 0, 0, 0, time.UTC)))
}

// created returns the run's creation instant and its polls by hand as
// ages.
func (r clockRun) ages(t testing.TB) (time.Time, []time.Duration) {
	t.Helper()
	c := instant(t, r.created)
	var ages []time.Duration
	for _, w := range r.want {
		ages = append(ages, instant(t, w).Sub(c))
	}
	return c, ages
}

// clockSpec returns the spec of a segment of clockCases.
func clockSpec(t testing.TB, segment string) optimize.Schedule {
	t.Helper()
	for _, c := range clockCases {
		if c.segment == segment {
			return optimize.MustParseSpec(c.spec)
		}
	}
	t.Fatalf("no clock case %q", segment)
	return optimize.Schedule{}
}

// The hand-worked polls of clockRuns are optimize's, for the same creation
// instants: the generated code is compared with both.
func TestClockRunsByHand(t *testing.T) {
	for _, r := range clockRuns {
		c, want := r.ages(t)
		if got := clockSpec(t, r.segment).PollsAt(c.UnixNano()); !slices.Equal(got, want) {
			t.Errorf("%s: PollsAt(%s) = %v, want by hand %v", r.name, r.created, got, want)
		}
	}
	// The example's ages after the age phase, worked by hand above.
	_, ages := clockRuns[0].ages(t)
	want := []time.Duration{104 * time.Second, 105500 * time.Millisecond, 404 * time.Second, 405500 * time.Millisecond, 704 * time.Second, 705500 * time.Millisecond}
	if !slices.Equal(ages[11:], want) {
		t.Errorf("example ages %v, want %v", ages[11:], want)
	}
}

// docClocked reports whether a schedule of doc has a wall-clock phase.
func docClocked(doc Document) bool {
	return slices.ContainsFunc(doc.Schedules(), optimize.Schedule.Clocked)
}

// TestJSONClock writes the wall-clock example, checks the document by hand,
// reads it back to the same phases, and checks the refusals: a poll list,
// a single gap after the wall-clock phase, jitter.
func TestJSONClock(t *testing.T) {
	s := optimize.MustParseSpec("every 1s until 10s, after each 5m (+1s +2.5s) until 15m")
	var b bytes.Buffer
	if err := JSON(&b, Document{Schedule: s}, JSONOptions{}); err != nil {
		t.Fatal(err)
	}
	want := `{
  "version": 1,
  "spec": "every 1s until 10s, after each 5m (+1s +2.5s) until 15m",
  "start_ms": 0,
  "horizon_ms": 900000,
  "phases": [
    {
      "growth": "fixed",
      "gap_ms": 1000,
      "until_ms": 10000
    },
    {
      "growth": "wall_clock",
      "period_ms": 300000,
      "offsets_ms": [
        1000,
        2500
      ],
      "until_ms": 900000
    }
  ]
}
`
	if b.String() != want {
		t.Errorf("JSON = %s, want %s", b.String(), want)
	}
	doc, err := ReadJSON(&b)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.EqualFunc(doc.Schedule.Phases, s.Phases, optimize.Phase.Equal) {
		t.Errorf("ReadJSON(JSON(s)) phases %+v, want %+v", doc.Schedule.Phases, s.Phases)
	}

	// Sub-millisecond offsets are read back exactly.
	s = optimize.MustParseSpec("after each 1ms (+1ns +999999ns) until 10ms")
	b.Reset()
	if err := JSON(&b, Document{Schedule: s}, JSONOptions{}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "0.000001,\n        0.999999\n") {
		t.Errorf("offsets of 1ns and 999999ns not written as 0.000001 and 0.999999 ms:\n%s", b.String())
	}
	if doc, err = ReadJSON(&b); err != nil || !slices.EqualFunc(doc.Schedule.Phases, s.Phases, optimize.Phase.Equal) {
		t.Errorf("ReadJSON(JSON(%s)) = %+v, %v", s, doc.Schedule.Phases, err)
	}

	refusals := []struct {
		spec string
		opt  JSONOptions
		want error
	}{
		{"every 1s until 10s, after each 5m (+1s) until 15m", JSONOptions{Polls: true}, ErrClockPolls},
		{"after each 5m (+1s) until 15m, 30s", JSONOptions{}, ErrClockEnd},
	}
	for _, r := range refusals {
		doc := Document{Schedule: optimize.MustParseSpec("every 1s until 5s"), Segments: []Segment{{Name: "wallet", Schedule: optimize.MustParseSpec(r.spec)}}}
		if err := JSON(&bytes.Buffer{}, doc, r.opt); !errors.Is(err, r.want) || !strings.Contains(err.Error(), `segment "wallet"`) {
			t.Errorf("JSON(%q, %+v) = %v, want %v naming the segment", r.spec, r.opt, err, r.want)
		}
	}
	s = optimize.MustParseSpec("after each 5m (+1s) until 15m")
	s.Jitter = optimize.Jitter{Kind: optimize.FullJitter}
	if err := JSON(&bytes.Buffer{}, Document{Schedule: s}, JSONOptions{}); !errors.Is(err, optimize.ErrClockJitter) {
		t.Errorf("JSON(wall-clock schedule with jitter) = %v, want optimize.ErrClockJitter", err)
	}
}
