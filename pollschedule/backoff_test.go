package pollschedule_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	backoffv4 "github.com/cenkalti/backoff/v4"
	backoffv5 "github.com/cenkalti/backoff/v5"
	"github.com/pollfit/pollfit/export"
	"github.com/pollfit/pollfit/optimize"
	"github.com/pollfit/pollfit/pollschedule"
)

var (
	_ backoffv4.BackOff = (*pollschedule.BackOff)(nil)
	_ backoffv5.BackOff = (*pollschedule.BackOff)(nil)
)

// specs are the schedules the loader and the generated Go run side by
// side: every growth kind, caps over long horizons (products that would
// overflow), sub-millisecond grains, a late start, every jitter kind
// against a cap.
var specs = map[string]string{
	"now":         optimize.References[3].String(),
	"before":      optimize.References[0].String(),
	"mixed":       "at 500ms, 1s, exp 1s x2 cap 8s until 1m, poly 2s ^0.5 until 3m, fib 3s cap 30s until 10m, linear 10s+5s cap 1m until 30m",
	"fib-long":    "fib 1s cap 5s until 1h",
	"exp-long":    "exp 100ms x2 cap 1h until 1000h",
	"linear-huge": "linear 100ms+175200h cap 1s until 1m",
	"latency-us":  "exp 150us x1.5 cap 5ms until 50ms, poly 3ms ^0.5 until 200ms",
	"ns":          "at 1ns, every 7ns until 1us, exp 1234567ns x1.01 until 100ms",
	"explicit":    "1.5s, 2s, 3s, 5s",
	"full":        "exp 400ms x2 cap 1.2s until 1m, jitter full",
	"equal":       "exp 400ms x2 cap 1.2s until 1m, jitter equal",
	"decorr":      "exp 400ms x2 cap 1.2s until 1m, jitter decorrelated",
	"percent":     "at 1s, exp 400ms x2 cap 1.2s until 1m, every 5s until 2m, jitter ±50%",
	"us-jitter":   "every 150us until 30ms, jitter full",
	// Wall-clock phases, first, between age phases, two.
	"clock":         "every 1s until 10s, after each 5m (+1s +2.5s) until 15m",
	"clock-first":   "after each 1m until 5m",
	"clock-between": "at 2s, after each 12s (+500ms +6s) until 2m, every 30s until 5m",
	"clock-two":     "every 500ms until 5s, after each 1m (+0s +30s) until 10m, after each 5m (+2s) until 1h",
	"clock-ns":      "at 3ns, after each 1us (+1ns +999ns) until 20us, every 7ns until 30us",
}

// clockT0 is the instant the clocks of the agreement runs read: 2025-03-01
// 00:03:17 UTC. The retry loops read it at their first NextBackOff, so
// their items are created Start earlier; Poll's items are created then.
var clockT0 = time.Date(2025, 3, 1, 0, 3, 17, 0, time.UTC)

func specDoc(t *testing.T) export.Document {
	t.Helper()
	doc := export.Document{Schedule: optimize.References[3]}
	for _, name := range slices.Sorted(maps.Keys(specs)) {
		doc.Segments = append(doc.Segments, export.Segment{Name: name, Schedule: optimize.MustParseSpec(specs[name])})
	}
	return doc
}

// lcg is a random source both sides can run: Knuth's MMIX LCG, the top 53
// bits as a float in [0, 1).
type lcg uint64

func (l *lcg) Float64() float64 {
	*l = *l*6364136223846793005 + 1442695040888963407
	return float64(uint64(*l)>>11) / (1 << 53)
}

// runs is what both sides print for a segment: the polls of a Retry-style
// loop with random draws from lcg(1), then from lcg(2) after Reset, and
// the check starts of Poll on a fake clock with checks of 7ms.
type runs struct {
	Retry1, Retry2, Slow []time.Duration
}

// genDriver runs the generated package like loaderRuns runs the loader.
const genDriver = `package main

import (
	"context"
	"encoding/json"
	"os"
	"time"

	"example.com/gen/gen"
)

type lcg uint64

func (l *lcg) Float64() float64 {
	*l = *l*6364136223846793005 + 1442695040888963407
	return float64(uint64(*l)>>11) / (1 << 53)
}

type runs struct {
	Retry1, Retry2, Slow []time.Duration
}

func retry(b *gen.Backoff) []time.Duration {
	now := b.Start()
	polls := []time.Duration{now}
	for g := b.NextBackOff(); g >= 0; g = b.NextBackOff() {
		now += g
		polls = append(polls, now)
	}
	return polls
}

func main() {
	out := map[string]runs{}
	t0 := time.Date(2025, 3, 1, 0, 3, 17, 0, time.UTC)
	for _, seg := range os.Args[1:] {
		var r runs
		l := lcg(1)
		b := &gen.Backoff{Segment: seg, Rand: l.Float64, Now: func() time.Time { return t0 }}
		r.Retry1 = retry(b)
		l = lcg(2)
		b.Reset()
		r.Retry2 = retry(b)
		var now time.Duration
		l = lcg(3)
		p := &gen.Backoff{Segment: seg, Rand: l.Float64,
			Now: func() time.Time { return t0.Add(now) },
			After: func(d time.Duration) <-chan time.Time {
				now += d
				c := make(chan time.Time, 1)
				c <- time.Time{}
				return c
			}}
		_ = p.Poll(context.Background(), func(context.Context) (bool, error) {
			r.Slow = append(r.Slow, now)
			now += 7 * time.Millisecond
			return false, nil
		})
		out[seg] = r
	}
	json.NewEncoder(os.Stdout).Encode(out)
}
`

func retry(b *pollschedule.BackOff) []time.Duration {
	now := b.Start()
	polls := []time.Duration{now}
	for g := b.NextBackOff(); g >= 0; g = b.NextBackOff() {
		now += g
		polls = append(polls, now)
	}
	return polls
}

// loaderRuns runs the loader on a segment of doc as genDriver runs the
// generated code.
func loaderRuns(doc *pollschedule.Document, seg string) runs {
	var r runs
	l := lcg(1)
	b := doc.BackOff(seg)
	b.Rand = l.Float64
	b.Now = func() time.Time { return clockT0 }
	r.Retry1 = retry(b)
	l = lcg(2)
	b.Reset()
	r.Retry2 = retry(b)
	var now time.Duration
	l = lcg(3)
	p := doc.BackOff(seg)
	p.Rand = l.Float64
	p.Now = func() time.Time { return clockT0.Add(now) }
	p.After = func(d time.Duration) <-chan time.Time {
		now += d
		c := make(chan time.Time, 1)
		c <- time.Time{}
		return c
	}
	_ = p.Poll(context.Background(), func(context.Context) (bool, error) {
		r.Slow = append(r.Slow, now)
		now += 7 * time.Millisecond
		return false, nil
	})
	return r
}

// TestAgreesWithGeneratedGo writes a document with export.JSON, reads it
// with Read, and runs each schedule with the loader and with the Go code
// export.GoSource generates for the same document, with the same random
// draws: they must agree poll for poll, jittered or not, and the
// unjittered polls must be optimize's.
func TestAgreesWithGeneratedGo(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a Go program (seconds); skipped in -short mode")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH")
	}
	doc := specDoc(t)
	var js bytes.Buffer
	// No poll list: the wall-clock schedules have none (export's tests
	// read the lists of the others).
	if err := export.JSON(&js, doc, export.JSONOptions{}); err != nil {
		t.Fatal(err)
	}
	loaded, err := pollschedule.Read(&js)
	if err != nil {
		t.Fatal(err)
	}

	dir := t.TempDir()
	files := map[string]func(*bytes.Buffer) error{
		"gen/gen.go":     func(b *bytes.Buffer) error { return export.GoSource(b, doc, export.Options{Package: "gen"}) },
		"driver/main.go": func(b *bytes.Buffer) error { _, err := b.WriteString(genDriver); return err },
		"go.mod": func(b *bytes.Buffer) error {
			_, err := b.WriteString("module example.com/gen\n\ngo 1.24\n")
			return err
		},
	}
	for name, f := range files {
		var b bytes.Buffer
		if err := f(&b); err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	segs := append([]string{""}, slices.Sorted(maps.Keys(specs))...)
	cmd := exec.Command(goTool, append([]string{"run", "./driver"}, segs...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS=", "GOWORK=off", "GOTOOLCHAIN=local", "GOPROXY=off", "CGO_ENABLED=0")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go run: %v\n%s", err, out)
	}
	var gen map[string]runs
	if err := json.Unmarshal(out, &gen); err != nil {
		t.Fatalf("driver output: %v\n%.1000s", err, out)
	}
	for _, seg := range segs {
		t.Run(seg, func(t *testing.T) {
			want, ok := gen[seg]
			if !ok {
				t.Fatal("no output from the generated code")
			}
			got := loaderRuns(loaded, seg)
			for _, c := range []struct {
				what      string
				got, want []time.Duration
			}{{"retry", got.Retry1, want.Retry1}, {"retry after Reset", got.Retry2, want.Retry2}, {"Poll with slow checks", got.Slow, want.Slow}} {
				if !slices.Equal(c.got, c.want) {
					t.Errorf("%s: loader and generated code differ\nloader    %.30v\ngenerated %.30v", c.what, c.got, c.want)
				}
			}
			s := doc.Schedule
			if seg != "" {
				s = optimize.MustParseSpec(specs[seg])
			}
			if got, want := loaded.Lookup(seg).Polls(), s.Polls(); !slices.Equal(got, want) {
				t.Errorf("Polls() = %.30v, want optimize's %.30v", got, want)
			}
			// The retry loop's item was created Start before clockT0.
			created := clockT0.Add(-s.Start).UnixNano()
			if s.Jitter.Kind == optimize.NoJitter && !slices.Equal(got.Retry1, s.PollsAt(created)) {
				t.Errorf("unjittered retry %.30v, want optimize's %.30v", got.Retry1, s.PollsAt(created))
			}
			if got, want := loaded.Lookup(seg).PollsAt(clockT0), s.PollsAt(clockT0.UnixNano()); !slices.Equal(got, want) {
				t.Errorf("PollsAt(%v) = %.30v, want optimize's %.30v", clockT0, got, want)
			}
		})
	}
}

// fakeClock is a clock whose After fires at once, advancing it. It reads
// origin + now; the zero origin is the Unix epoch.
type fakeClock struct {
	origin time.Time
	now    time.Duration
}

func (c *fakeClock) Now() time.Time {
	if c.origin.IsZero() {
		return time.Unix(0, 0).Add(c.now)
	}
	return c.origin.Add(c.now)
}
func (c *fakeClock) After(d time.Duration) <-chan time.Time {
	c.now += d
	ch := make(chan time.Time, 1)
	ch <- time.Time{}
	return ch
}

// "every 100ms until 1s" with checks of 100ms once checked 11 times up
// to 2.0s; Poll waits for each poll's age by the clock, so the 11
// checks start at 0, 100ms, …, 1s, and checks of 250ms make 5 checks, at
// 0, 250ms, …, 1s, the next due when the clock has passed the horizon.
func TestPollSlowCheck(t *testing.T) {
	doc, err := pollschedule.Read(strings.NewReader(`{"version": 1, "start_ms": 0, "phases": [{"growth": "fixed", "gap_ms": 100, "until_ms": 1000}]}`))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		check time.Duration
		want  string
	}{
		{100 * time.Millisecond, "[0s 100ms 200ms 300ms 400ms 500ms 600ms 700ms 800ms 900ms 1s]"},
		{250 * time.Millisecond, "[0s 250ms 500ms 750ms 1s]"},
		{0, "[0s 100ms 200ms 300ms 400ms 500ms 600ms 700ms 800ms 900ms 1s]"},
	} {
		c := &fakeClock{}
		b := doc.BackOff("")
		b.Now, b.After = c.Now, c.After
		var starts []time.Duration
		err := b.Poll(context.Background(), func(context.Context) (bool, error) {
			starts = append(starts, c.now)
			c.now += tc.check
			return false, nil
		})
		if !errors.Is(err, pollschedule.ErrHorizon) {
			t.Errorf("Poll = %v, want ErrHorizon", err)
		}
		if got := fmt.Sprint(starts); got != tc.want {
			t.Errorf("checks of %v started at %s, want %s", tc.check, got, tc.want)
		}
	}
}

func TestPollStops(t *testing.T) {
	doc, err := pollschedule.Read(strings.NewReader(scheduleJSON))
	if err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	ctx, cancel := context.WithCancel(context.Background())
	tests := []struct {
		name  string
		ctx   context.Context
		check func(n int) (bool, error)
		want  error
		n     int
	}{
		{"done", context.Background(), func(n int) (bool, error) { return n == 3, nil }, nil, 3},
		{"error", context.Background(), func(n int) (bool, error) { return false, boom }, boom, 1},
		{"horizon", context.Background(), func(int) (bool, error) { return false, nil }, pollschedule.ErrHorizon, 11},
		{"cancel", ctx, func(n int) (bool, error) {
			if n == 2 {
				cancel()
			}
			return false, nil
		}, context.Canceled, 2},
	}
	for _, tc := range tests {
		c := &fakeClock{}
		b := doc.BackOff("")
		b.Now, b.After = c.Now, c.After
		n := 0
		err := b.Poll(tc.ctx, func(context.Context) (bool, error) { n++; return tc.check(n) })
		if !errors.Is(err, tc.want) || n != tc.n {
			t.Errorf("%s: Poll = %v after %d checks, want %v after %d", tc.name, err, n, tc.want, tc.n)
		}
	}
}

// A receive on Signal restarts the schedule at age 0.
func TestPollSignal(t *testing.T) {
	doc, err := pollschedule.Read(strings.NewReader(scheduleJSON))
	if err != nil {
		t.Fatal(err)
	}
	sig := make(chan struct{}, 1)
	c := &fakeClock{}
	b := doc.BackOff("wallet") // polls at 0, 20, 60, 100, 140, 180 ms
	b.Now, b.Signal = c.Now, sig
	b.After = func(d time.Duration) <-chan time.Time {
		if len(sig) > 0 {
			return nil // the signal wins
		}
		return c.After(d)
	}
	var starts []time.Duration
	_ = b.Poll(context.Background(), func(context.Context) (bool, error) {
		starts = append(starts, c.now)
		if len(starts) == 3 {
			sig <- struct{}{} // at 60ms: again from 0, 20, 60, …
		}
		return len(starts) == 6, nil
	})
	if got, want := fmt.Sprint(starts), "[0s 20ms 60ms 60ms 80ms 120ms]"; got != want {
		t.Errorf("polls %s, want %s", got, want)
	}
}

// cenkalti/backoff v4's Retry runs the schedule too (its first attempt at
// once, then the gaps).
func TestRetryV4(t *testing.T) {
	doc, err := pollschedule.Read(strings.NewReader(scheduleJSON))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	err = backoffv4.Retry(func() error {
		n++
		return errors.New("pending")
	}, doc.BackOff("wallet"))
	if err == nil || n != 6 {
		t.Errorf("Retry = %v after %d attempts, want the last error after the 6 polls", err, n)
	}
}

func TestNilSchedule(t *testing.T) {
	var b pollschedule.BackOff
	if g := b.NextBackOff(); g != pollschedule.Stop {
		t.Errorf("NextBackOff() of a zero BackOff = %v, want Stop", g)
	}
	c := &fakeClock{}
	b.Now, b.After = c.Now, c.After
	n := 0
	err := b.Poll(context.Background(), func(context.Context) (bool, error) { n++; return false, nil })
	if !errors.Is(err, pollschedule.ErrHorizon) || n != 1 {
		t.Errorf("Poll of a zero BackOff = %v after %d checks, want ErrHorizon after 1", err, n)
	}
}

// The wall-clock example, by hand: an item created at 00:03:17 polls each
// second until 00:03:27, then 1 s and 2.5 s after each 5 minutes of the
// UTC clock (00:05:01 at age 1m44s, …, 00:15:02.5 at 11m45.5s); one
// created at 00:04:51 ends its age phase exactly on 00:05:01 and polls
// next at 00:05:02.5, strictly after it. Poll (its clock starting at the
// creation instant), a retry loop (its clock read at the first poll) and
// GapAfter (the clock read at each age) make the same polls.
func TestPollWallClock(t *testing.T) {
	doc, err := pollschedule.Read(strings.NewReader(`{"version": 1, "start_ms": 0, "phases": [
		{"growth": "fixed", "gap_ms": 1000, "until_ms": 10000},
		{"growth": "wall_clock", "period_ms": 300000, "offsets_ms": [1000, 2500], "until_ms": 900000}]}`))
	if err != nil {
		t.Fatal(err)
	}
	day := time.Date(2025, 3, 1, 0, 0, 0, 0, time.UTC)
	at := func(clock string) time.Time {
		c, err := time.Parse("15:04:05.999", clock)
		if err != nil {
			t.Fatal(err)
		}
		return day.Add(c.Sub(time.Date(0, 1, 1, 0, 0, 0, 0, time.UTC)))
	}
	for _, tc := range []struct {
		created string
		want    string
	}{
		{"00:03:17", "00:03:17 00:03:18 00:03:19 00:03:20 00:03:21 00:03:22 00:03:23 00:03:24 00:03:25 00:03:26 00:03:27 " +
			"00:05:01 00:05:02.5 00:10:01 00:10:02.5 00:15:01 00:15:02.5"},
		{"00:04:51", "00:04:51 00:04:52 00:04:53 00:04:54 00:04:55 00:04:56 00:04:57 00:04:58 00:04:59 00:05:00 00:05:01 " +
			"00:05:02.5 00:10:01 00:10:02.5 00:15:01 00:15:02.5"},
	} {
		created := at(tc.created)
		var polls []time.Duration
		c := &fakeClock{origin: created}
		b := doc.BackOff("")
		b.Now, b.After = c.Now, c.After
		err := b.Poll(context.Background(), func(context.Context) (bool, error) {
			polls = append(polls, c.now)
			return false, nil
		})
		if !errors.Is(err, pollschedule.ErrHorizon) {
			t.Errorf("Poll = %v, want ErrHorizon", err)
		}
		var got []string
		for _, a := range polls {
			got = append(got, created.Add(a).Format("15:04:05.999"))
		}
		if strings.Join(got, " ") != tc.want {
			t.Errorf("created at %s: Poll polled at %s, want %s", tc.created, strings.Join(got, " "), tc.want)
		}

		b = doc.BackOff("")
		b.Now = func() time.Time { return created } // the first poll, at age 0
		if r := retry(b); !slices.Equal(r, polls) {
			t.Errorf("created at %s: retry polled at %v, want %v", tc.created, r, polls)
		}
		b = doc.BackOff("")
		for i := 1; i < len(polls); i++ {
			b.Now = func() time.Time { return created.Add(polls[i-1]) }
			if g := b.GapAfter(polls[i-1]); g != polls[i]-polls[i-1] {
				t.Errorf("created at %s: GapAfter(%v) = %v, want %v", tc.created, polls[i-1], g, polls[i]-polls[i-1])
			}
		}
		if got := doc.Schedule.PollsAt(created); !slices.Equal(got, polls) {
			t.Errorf("PollsAt(%s) = %v, want %v", tc.created, got, polls)
		}
	}
}

// A signal restarts a wall-clock schedule as for an item created then:
// "after each 1m (+30s) until 3m" started at 00:00:10 polls at once, then
// at 00:00:30, 00:01:30; a signal at 00:01:30 restarts it, polling at
// once and then at 00:02:30, 00:03:30, 00:04:30 (age 3m, the horizon).
func TestPollWallClockSignal(t *testing.T) {
	doc, err := pollschedule.Read(strings.NewReader(`{"version": 1, "start_ms": 0, "phases": [
		{"growth": "wall_clock", "period_ms": 60000, "offsets_ms": [30000], "until_ms": 180000}]}`))
	if err != nil {
		t.Fatal(err)
	}
	sig := make(chan struct{}, 1)
	c := &fakeClock{origin: time.Date(2025, 3, 1, 0, 0, 10, 0, time.UTC)}
	b := doc.BackOff("")
	b.Now, b.Signal = c.Now, sig
	b.After = func(d time.Duration) <-chan time.Time {
		if len(sig) > 0 {
			return nil // the signal wins
		}
		return c.After(d)
	}
	var got []string
	err = b.Poll(context.Background(), func(context.Context) (bool, error) {
		got = append(got, c.Now().Format("15:04:05"))
		if len(got) == 3 {
			sig <- struct{}{}
		}
		return false, nil
	})
	if !errors.Is(err, pollschedule.ErrHorizon) {
		t.Errorf("Poll = %v, want ErrHorizon", err)
	}
	if want := "00:00:10 00:00:30 00:01:30 00:01:30 00:02:30 00:03:30 00:04:30"; strings.Join(got, " ") != want {
		t.Errorf("polls at %s, want %s", strings.Join(got, " "), want)
	}
}

// randomClockSpec draws a schedule spec with a wall-clock phase after age
// phases, or between them, of periods from 1µs to a day.
func randomClockSpec(rng *rand.Rand) string {
	periods := []time.Duration{time.Microsecond, 7 * time.Millisecond, time.Second, 12 * time.Second, 5 * time.Minute, time.Hour, 24 * time.Hour}
	p := periods[rng.IntN(len(periods))]
	var offs []time.Duration
	seen := map[time.Duration]bool{}
	for range 1 + rng.IntN(4) {
		o := time.Duration(rng.Int64N(int64(p)))
		if !seen[o] {
			seen[o] = true
			offs = append(offs, o)
		}
	}
	slices.Sort(offs)
	var os []string
	for _, o := range offs {
		os = append(os, fmt.Sprintf("+%dns", o))
	}
	first := p / time.Duration(1+rng.IntN(5))
	until := first*time.Duration(2+rng.IntN(5)) + 1
	spec := fmt.Sprintf("every %dns until %dns, after each %dns (%s) until %dns", first, first*2, p, strings.Join(os, " "), until+p*time.Duration(1+rng.IntN(20)))
	if rng.IntN(2) == 0 {
		spec += fmt.Sprintf(", every %dns until %dns", p/3+1, until+p*30)
	}
	return spec
}

// The loader's PollsAt agrees with optimize's, poll for poll, for random
// wall-clock schedules written with export.JSON and read with Read, at
// random creation instants.
func TestPollsAtAgreesWithOptimize(t *testing.T) {
	rng := rand.New(rand.NewPCG(14, 1))
	n := 0
	for range 300 {
		spec := randomClockSpec(rng)
		s, err := optimize.ParseSpec(spec)
		if err != nil {
			continue // a bound before the first gap's end, say
		}
		var js bytes.Buffer
		if err := export.JSON(&js, export.Document{Schedule: s}, export.JSONOptions{}); err != nil {
			t.Fatalf("JSON(%q): %v", spec, err)
		}
		doc, err := pollschedule.Read(&js)
		if err != nil {
			t.Fatalf("Read(JSON(%q)): %v", spec, err)
		}
		n++
		for range 10 {
			c := time.Unix(0, rng.Int64N(1<<62))
			if got, want := doc.Schedule.PollsAt(c), s.PollsAt(c.UnixNano()); !slices.Equal(got, want) {
				t.Fatalf("%q created at %v: loader polls at %.20v, optimize at %.20v", spec, c, got, want)
			}
		}
	}
	if n < 200 {
		t.Errorf("only %d of 300 random specs parsed", n)
	}
	t.Logf("%d wall-clock schedules agree at 10 creation instants each", n)
}
