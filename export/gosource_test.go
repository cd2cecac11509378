package export

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/pollfit/pollfit/optimize"
)

// goDriver is the main package of the temporary module: it runs every
// table of the generated package in several ways and prints the poll
// times (nanoseconds) as JSON, for TestGoSourceRuns to compare with
// optimize.
const goDriver = `package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"time"

	"example.com/gen/poll"
)

// BackOff is github.com/cenkalti/backoff's interface, copied.
type BackOff interface {
	NextBackOff() time.Duration
	Reset()
}

const Stop time.Duration = -1

var (
	_ BackOff = (*poll.Backoff)(nil)
	_ BackOff = (*poll.FuncSchedule)(nil)
)

func half() float64 { return 0.5 }

// wall is the reading of the fake wall clock wallNow, Unix ns: retry and
// the GapAfter walk set it to the instant of each poll of an item created
// at origin.
var wall int64

func wallNow() time.Time { return time.Unix(0, wall) }

// retry is backoff.Retry's loop on a fake clock: the first attempt at
// once, then NextBackOff until Stop, for an item created at origin.
func retry(b BackOff, start time.Duration, origin int64) []time.Duration {
	now := start
	var polls []time.Duration
	for {
		polls = append(polls, now)
		wall = origin + int64(now)
		next := b.NextBackOff()
		if next == Stop {
			return polls
		}
		now += next
	}
}

// gapAfter walks GapAfter from the start: the first 1000 polls of an item
// created at origin.
func gapAfter(b *poll.Backoff, origin int64) []time.Duration {
	a := b.Start()
	polls := []time.Duration{a}
	for len(polls) < 1000 {
		wall = origin + int64(a)
		g := b.GapAfter(a)
		if g < 0 {
			break
		}
		a += g
		polls = append(polls, a)
	}
	return polls
}

// clock is a fake clock that reads origin (Unix ns) + now.
type clock struct {
	origin int64
	now    time.Duration
	signal chan struct{}
}

func (c *clock) after(d time.Duration) <-chan time.Time {
	if len(c.signal) > 0 {
		return nil // the signal wins the select
	}
	c.now += d
	ch := make(chan time.Time, 1)
	ch <- time.Time{}
	return ch
}

func (c *clock) time() time.Time { return time.Unix(0, c.origin).Add(c.now) }

type result struct {
	Retry, Reset, GapAfter, Poll, Signal, Slow []time.Duration
	PollErr, SlowErr                           string
	MinGap, MaxGap                             time.Duration // of 200 runs with random draws
}

// clockRun is an item of a wall-clock schedule created at Created (Unix
// ns): its polls by Poll, a retry loop and GapAfter.
type clockRun struct {
	Segment          string
	Created          int64
	Poll, Retry, Gap []time.Duration
}

func main() {
	var slow map[string]time.Duration
	if err := json.Unmarshal([]byte(os.Args[1]), &slow); err != nil {
		panic(err)
	}
	var names []string
	data, err := os.ReadFile(os.Args[2])
	if err != nil {
		panic(err)
	}
	if err := json.Unmarshal(data, &names); err != nil {
		panic(err)
	}
	var runs []clockRun
	if err := json.Unmarshal([]byte(os.Args[3]), &runs); err != nil {
		panic(err)
	}
	out := map[string]result{}
	for _, seg := range append([]string{""}, names...) {
		var r result
		b := &poll.Backoff{Segment: seg, Rand: half, Now: wallNow}
		r.Retry = retry(b, b.Start(), 0)
		if b.NextBackOff() != Stop {
			panic("no Stop after the horizon")
		}
		b.Reset()
		r.Reset = retry(b, b.Start(), 0)
		r.GapAfter = gapAfter(b, 0)

		c := &clock{}
		p := &poll.Backoff{Segment: seg, Rand: half, After: c.after, Now: c.time}
		err := p.Poll(context.Background(), func(context.Context) (bool, error) {
			r.Poll = append(r.Poll, c.now)
			return false, nil
		})
		if !errors.Is(err, poll.ErrBackoffHorizon) {
			r.PollErr = "Poll: " + err.Error()
		}

		// Checks that take longer than the first gap.
		c = &clock{}
		p = &poll.Backoff{Segment: seg, Rand: half, After: c.after, Now: c.time}
		err = p.Poll(context.Background(), func(context.Context) (bool, error) {
			r.Slow = append(r.Slow, c.now)
			c.now += slow[seg]
			return false, nil
		})
		if !errors.Is(err, poll.ErrBackoffHorizon) {
			r.SlowErr = "Poll with slow checks: " + err.Error()
		}

		// A signal right after the fifth poll restarts the schedule.
		c = &clock{signal: make(chan struct{}, 1)}
		p = &poll.Backoff{Segment: seg, Rand: half, After: c.after, Now: c.time, Signal: c.signal}
		_ = p.Poll(context.Background(), func(context.Context) (bool, error) {
			r.Signal = append(r.Signal, c.now)
			if len(r.Signal) == 5 {
				c.signal <- struct{}{}
			}
			return len(r.Signal) == 15, nil
		})

		// Random draws.
		rng := rand.New(rand.NewPCG(16, 1))
		b = &poll.Backoff{Segment: seg, Rand: rng.Float64}
		r.MinGap = -1
		for range 200 {
			b.Reset()
			for g := b.NextBackOff(); g >= 0; g = b.NextBackOff() {
				if r.MinGap < 0 || g < r.MinGap {
					r.MinGap = g
				}
				r.MaxGap = max(r.MaxGap, g)
			}
		}
		out[seg] = r
	}
	var f poll.FuncSchedule
	out["__second"] = result{Retry: retry(&f, f.Start(), 0)}

	// Items created at other instants, on fake clocks that start there.
	for i, run := range runs {
		c := &clock{origin: run.Created}
		p := &poll.Backoff{Segment: run.Segment, After: c.after, Now: c.time}
		_ = p.Poll(context.Background(), func(context.Context) (bool, error) {
			runs[i].Poll = append(runs[i].Poll, c.now)
			return false, nil
		})
		b := &poll.Backoff{Segment: run.Segment, Now: wallNow}
		runs[i].Retry = retry(b, b.Start(), run.Created)
		runs[i].Gap = gapAfter(b, run.Created)
	}
	// What Poll's checks saw: pending, unanswered, pending, then settled
	// by a request of 7ms; and never settled.
	var observed []poll.BackoffObservation
	for _, settles := range []bool{true, false} {
		c := &clock{}
		n := 0
		p := &poll.Backoff{After: c.after, Now: c.time, Observed: func(o poll.BackoffObservation) { observed = append(observed, o) }}
		_ = p.Poll(context.Background(), func(context.Context) (bool, error) {
			n++
			switch {
			case n == 2:
				return false, fmt.Errorf("timeout: %w", poll.ErrBackoffUnanswered)
			case n == 4 && settles:
				c.now += 7 * time.Millisecond
				return true, nil
			}
			return false, nil
		})
	}
	if err := json.NewEncoder(os.Stdout).Encode(struct {
		Segments map[string]result
		Clock    []clockRun
		Observed []poll.BackoffObservation
	}{out, runs, observed}); err != nil {
		panic(err)
	}
}
`

// TestGoSourceRuns builds the generated Go in a temporary module, vets it,
// runs its generated tests and a driver, and checks that it polls exactly
// at optimize's poll times (first gap included) for the brief's reference
// schedules and the other run cases: as a BackOff in a Retry-style loop,
// after Reset, through GapAfter, through Poll on a fake clock, and with a
// signal that restarts the schedule. One program covers every schedule.
func TestGoSourceRuns(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a Go program (several seconds); skipped in -short mode")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH: cannot build the generated code")
	}
	// The run and jitter cases, and hostile names (collisions after
	// sanitising, keywords, quotes, comment breakers, line and format
	// characters), each with a schedule of its own.
	doc := langDoc(t)

	dir := t.TempDir()
	pkg := filepath.Join(dir, "poll")
	for _, d := range []string{pkg, filepath.Join(dir, "driver")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write := func(path string, f func(*bytes.Buffer) error) {
		t.Helper()
		var b bytes.Buffer
		if err := f(&b); err != nil {
			t.Fatalf("generating %s: %v", path, err)
		}
		if err := os.WriteFile(filepath.Join(dir, path), b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	opt := Options{Package: "poll"}
	write("poll/backoff.go", func(b *bytes.Buffer) error { return GoSource(b, doc, opt) })
	write("poll/backoff_test.go", func(b *bytes.Buffer) error { return GoTest(b, doc, opt) })
	// A second schedule in the same package, under a keyword as its name.
	second := Document{Schedule: optimize.MustParseSpec("at 1s, exp 1s x2 cap 4s until 20s")}
	fopt := Options{Package: "poll", Name: "func schedule"}
	write("poll/func.go", func(b *bytes.Buffer) error { return GoSource(b, second, fopt) })
	write("poll/func_test.go", func(b *bytes.Buffer) error { return GoTest(b, second, fopt) })
	write("driver/main.go", func(b *bytes.Buffer) error { _, err := b.WriteString(goDriver); return err })
	write("go.mod", func(b *bytes.Buffer) error {
		_, err := b.WriteString("module example.com/gen\n\ngo 1.24\n")
		return err
	})

	env := []string{"GOFLAGS=", "GOWORK=off", "GOTOOLCHAIN=local", "GOPROXY=off", "CGO_ENABLED=0"}
	run(t, dir, env, goTool, "vet", "./...")
	run(t, dir, env, goTool, "test", "-count=1", "./...")
	slow := map[string]time.Duration{}
	for _, seg := range append([]Segment{{Name: "", Schedule: doc.Schedule}}, doc.Segments...) {
		slow[seg.Name] = slowCheck(seg.Name, seg.Schedule.AppendPolls(nil, halfRand{}))
	}
	slowArg, _ := json.Marshal(slow)
	var names []string
	for _, s := range doc.Segments {
		names = append(names, s.Name)
	}
	namesJSON, _ := json.Marshal(names)
	write("names.json", func(b *bytes.Buffer) error { _, err := b.Write(namesJSON); return err })
	out := run(t, dir, env, goTool, "run", "./driver", string(slowArg), filepath.Join(dir, "names.json"), clockRunsArg(t, time.Nanosecond))

	type result struct {
		Retry, Reset, GapAfter, Poll, Signal, Slow []time.Duration
		PollErr, SlowErr                           string
		MinGap, MaxGap                             time.Duration
	}
	var res struct {
		Segments map[string]result
		Clock    []clockRunResult
		Observed []observation
	}
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("driver output: %v\n%.2000s", err, out)
	}
	got := res.Segments
	checkClockRuns(t, res.Clock)
	checkObserved(t, res.Observed, got[""].Poll, time.Millisecond)
	check := func(t *testing.T, what string, got, want []time.Duration) {
		t.Helper()
		if len(got) != len(want) {
			t.Errorf("%s: %d polls, want %d\ngot  %.50v\nwant %.50v", what, len(got), len(want), got, want)
			return
		}
		for i := range want {
			if got[i] != want[i] {
				t.Errorf("%s: poll %d at %v, want %v (gap %d)", what, i, got[i], want[i], i)
				return
			}
		}
	}
	for _, seg := range append([]Segment{{Name: "", Schedule: doc.Schedule}}, doc.Segments...) {
		t.Run(seg.Name, func(t *testing.T) {
			r, ok := got[seg.Name]
			if !ok {
				t.Fatalf("no driver output for segment %q", seg.Name)
			}
			s := seg.Schedule
			polls := s.Polls()
			half := s.AppendPolls(nil, halfRand{})
			check(t, "Retry loop", r.Retry, half)
			check(t, "after Reset", r.Reset, half)
			check(t, "GapAfter", r.GapAfter, polls[:min(len(polls), 1000)])
			check(t, "Poll", r.Poll, half)
			if r.PollErr != "" || r.SlowErr != "" {
				t.Error(r.PollErr, r.SlowErr)
			}
			// Slow checks: each at its poll's age or as soon as the one
			// before returns, none after the horizon.
			check(t, "Poll with slow checks", r.Slow, pollStarts(half, s.Normalize().Horizon(), slowCheck(seg.Name, half), 1))
			checkSlow100(t, seg.Name, r.Slow)
			// The signal came right after the fifth poll, at age half[4]:
			// the schedule restarts from there.
			if sig := signalPolls(s, half); sig != nil { // else the schedule ends at the fifth poll, before the signal
				check(t, "Signal", r.Signal, sig)
			}
			checkCap(t, seg.Name, r.MinGap, r.MaxGap)
		})
	}
	check(t, "second schedule", got["__second"].Retry, second.Schedule.Polls())
}

// clockRunResult is what the drivers print for a clockRun: the ages of the
// polls made by Poll on a fake clock that starts at the creation instant,
// by a retry loop whose clock reads the instant of each poll, and by the
// GapAfter walk.
type clockRunResult struct {
	Segment          string
	Created          int64 // Unix ns
	Poll, Retry, Gap []time.Duration
}

// clockRunsArg returns clockRuns as the drivers read them, JSON: segment
// and creation instant in units of unit since the Unix epoch.
func clockRunsArg(t *testing.T, unit time.Duration) string {
	t.Helper()
	var runs []clockRunResult
	for _, r := range clockRuns {
		c, _ := r.ages(t)
		runs = append(runs, clockRunResult{Segment: r.segment, Created: c.UnixNano() / int64(unit)})
	}
	b, err := json.Marshal(runs)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// checkClockRuns compares the drivers' polls for clockRuns with the polls
// worked out by hand, the wall-clock example's instants: the generated
// code under a fake clock polls at the boundary plus the offset.
func checkClockRuns(t *testing.T, got []clockRunResult) {
	t.Helper()
	if len(got) != len(clockRuns) {
		t.Fatalf("driver printed %d clock runs, want %d", len(got), len(clockRuns))
	}
	for i, r := range clockRuns {
		c, want := r.ages(t)
		for _, run := range []struct {
			what string
			got  []time.Duration
		}{{"Poll", got[i].Poll}, {"retry", got[i].Retry}, {"GapAfter", got[i].Gap}} {
			if !slices.Equal(run.got, want) {
				var at []string
				for _, a := range run.got {
					at = append(at, c.Add(a).Format("15:04:05.999"))
				}
				t.Errorf("%s (%s, created %s): %s polls at %v, want %v", r.name, r.segment, r.created, run.what, at, r.want)
			}
		}
	}
}

// checkCap checks the largest and smallest jittered gaps that a target
// drew in 200 runs of a cap- jitter case: never above the cap, and at the
// cap for the kinds that may draw above the scheduled gap (decorrelated,
// percent), at most the scheduled gap for the others.
func checkCap(t *testing.T, segment string, lo, hi time.Duration) {
	t.Helper()
	if !strings.HasPrefix(segment, "cap-") {
		return
	}
	if hi > capOfCases {
		t.Errorf("largest jittered gap %v is above the cap %v", hi, capOfCases)
	}
	reaches := segment == "cap-decorrelated" || segment == "cap-percent"
	if reaches && hi != capOfCases {
		t.Errorf("largest jittered gap %v, want the cap %v (draws above it are cut to it)", hi, capOfCases)
	}
	if lo < 400*time.Microsecond { // 400ms/1000
		t.Errorf("smallest jittered gap %v, below the floor of 400µs", lo)
	}
}
