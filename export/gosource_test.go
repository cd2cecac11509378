package export

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/pollfit/pollfit/optimize"
)

// goDriver is the main package of the temporary module: it runs every
// table of the generated package in five ways and prints the poll times
// (nanoseconds) as JSON, for TestGoSourceRuns to compare with optimize.
const goDriver = `package main

import (
	"context"
	"encoding/json"
	"errors"
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

// retry is backoff.Retry's loop on a fake clock: the first attempt at
// once, then NextBackOff until Stop.
func retry(b BackOff, start time.Duration) []time.Duration {
	now := start
	var polls []time.Duration
	for {
		polls = append(polls, now)
		next := b.NextBackOff()
		if next == Stop {
			return polls
		}
		now += next
	}
}

type clock struct {
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

type result struct {
	Retry, Reset, GapAfter, Poll, Signal []time.Duration
	PollErr                              string
}

func main() {
	out := map[string]result{}
	for _, seg := range append([]string{""}, os.Args[1:]...) {
		var r result
		b := &poll.Backoff{Segment: seg, Rand: half}
		r.Retry = retry(b, b.Start())
		if b.NextBackOff() != Stop {
			panic("no Stop after the horizon")
		}
		b.Reset()
		r.Reset = retry(b, b.Start())

		a := b.Start()
		r.GapAfter = []time.Duration{a}
		for {
			g := b.GapAfter(a)
			if g < 0 {
				break
			}
			a += g
			r.GapAfter = append(r.GapAfter, a)
		}

		c := &clock{}
		p := &poll.Backoff{Segment: seg, Rand: half, After: c.after}
		err := p.Poll(context.Background(), func(context.Context) (bool, error) {
			r.Poll = append(r.Poll, c.now)
			return false, nil
		})
		if !errors.Is(err, poll.ErrBackoffHorizon) {
			r.PollErr = "Poll: " + err.Error()
		}

		// A signal right after the fifth poll restarts the schedule.
		c = &clock{signal: make(chan struct{}, 1)}
		p = &poll.Backoff{Segment: seg, Rand: half, After: c.after, Signal: c.signal}
		_ = p.Poll(context.Background(), func(context.Context) (bool, error) {
			r.Signal = append(r.Signal, c.now)
			if len(r.Signal) == 5 {
				c.signal <- struct{}{}
			}
			return len(r.Signal) == 15, nil
		})
		out[seg] = r
	}
	var f poll.FuncSchedule
	out["__second"] = result{Retry: retry(&f, f.Start())}
	if err := json.NewEncoder(os.Stdout).Encode(out); err != nil {
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
	cases := append(append([]runCase{}, runCases...), jitterCases...)
	doc := caseDoc(t, cases)
	// Names that must be sanitised: a collision after sanitising, a Go
	// keyword, a leading digit, non-ASCII, quotes and a line break.
	nasty := []string{"a-b", "a_b", "func", "1st", "日本", "quote \" $x \\ \n */ end"}
	for _, name := range nasty {
		doc.Segments = append(doc.Segments, Segment{Name: name, Schedule: optimize.References[0]})
	}

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
	args := []string{"run", "./driver"}
	for _, s := range doc.Segments {
		args = append(args, s.Name)
	}
	out := run(t, dir, env, goTool, args...)

	type result struct {
		Retry, Reset, GapAfter, Poll, Signal []time.Duration
		PollErr                              string
	}
	var got map[string]result
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("driver output: %v\n%s", err, out)
	}
	check := func(t *testing.T, what string, got, want []time.Duration) {
		t.Helper()
		if len(got) != len(want) {
			t.Errorf("%s: %d polls, want %d\ngot  %v\nwant %v", what, len(got), len(want), got, want)
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
			check(t, "GapAfter", r.GapAfter, polls)
			check(t, "Poll", r.Poll, half)
			if r.PollErr != "" {
				t.Error(r.PollErr)
			}
			// The signal came right after the fifth poll, at age half[4]:
			// the schedule restarts from there.
			var sig []time.Duration
			if len(half) > 5 { // else the schedule ends at the fifth poll, before the signal
				sig = append(sig, half[:5]...)
				for _, p := range half {
					if len(sig) == 15 {
						break
					}
					sig = append(sig, half[4]+p)
				}
				check(t, "Signal", r.Signal, sig)
			}
		})
	}
	check(t, "second schedule", got["__second"].Retry, second.Schedule.Polls())
}
