package export

import (
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/pollfit/pollfit/optimize"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// runCase is a schedule that the generated code of every target is run on
// and compared with optimize.Schedule.Polls.
type runCase struct {
	segment string
	spec    string
}

// runCases cover the brief's four reference schedules (optimize.References)
// and every growth kind, an "at D" start, explicit gaps ending the
// schedule, a horizon that cuts the last gap, an oversized gap, a single
// gap between repeating phases, phases that poll once past their bound or
// not at all, and the long ones: growth capped over long horizons past the
// point where a product would overflow int64, and sub-millisecond
// schedules whose growing gaps round to a grain below the millisecond.
var runCases = func() []runCase {
	var cs []runCase
	for _, s := range optimize.References {
		cs = append(cs, runCase{segment: s.Name, spec: s.String()})
	}
	return append(cs,
		runCase{segment: "exp", spec: "exp 1s x1.5 cap 10s until 2m"},
		runCase{segment: "poly", spec: "poly 500ms ^1.5 cap 20s until 5m"},
		runCase{segment: "fib", spec: "fib 1s cap 1m until 10m"},
		runCase{segment: "linear", spec: "linear 1s+500ms until 3m"},
		runCase{segment: "at", spec: "at 2s, 1s, every 3s until 1m"},
		runCase{segment: "explicit", spec: "1.5s, 2s, 3s, 5s"},
		runCase{segment: "cut", spec: "every 7s until 1m"},
		runCase{segment: "oversized", spec: "exp 1s x10 until 1m"},
		runCase{segment: "once-between", spec: "every 1s until 5s, 10s, every 2s until 30s"},
		// Phases whose first gap passes their bound (one poll, after it)
		// or that start at their bound (no poll).
		runCase{segment: "gap-past-until", spec: "at 30s, every 1m until 45s, every 2m until 10m"},
		runCase{segment: "no-poll-phase", spec: "every 15s until 1m50s, every 30s until 2m, every 1m until 5m"},
		runCase{segment: "huge-overshoot", spec: "1s, exp 1s x1000 until 10s, every 1s until 20s"},
		runCase{segment: "mixed", spec: "at 500ms, 1s, exp 1s x2 cap 8s until 1m, poly 2s ^0.5 until 3m, fib 3s cap 30s until 10m, linear 10s+5s cap 1m until 30m"},
		// Fib(k)·1s passes 2^63 ns at k = 50; (k−1)·100h at
		// k = 25,623 (7.1h); (k−1)·175200h at k = 16; 2^k·100ms at k = 37.
		runCase{segment: "fib-cap-long", spec: "fib 1s cap 5s until 1h"},
		runCase{segment: "linear-cap-long", spec: "linear 100ms+100h cap 1s until 8h"},
		runCase{segment: "linear-huge-step", spec: "linear 100ms+175200h cap 1s until 1m"},
		runCase{segment: "exp-cap-long", spec: "exp 100ms x2 cap 1h until 1000h"},
		runCase{segment: "exp-uncapped-long", spec: "exp 1s x3 until 10m, every 1m until 1h"},
		// Sub-millisecond: grains of 100ns (150µs), 1µs (1ms·1.1^k).
		runCase{segment: "sub-ms", spec: "at 1500us, every 2500us until 20ms, exp 1ms x1.1 until 100ms"},
		runCase{segment: "latency-us", spec: "exp 150us x1.5 cap 5ms until 50ms, poly 3ms ^0.5 until 200ms"},
		runCase{segment: "ns", spec: "at 1ns, every 7ns until 1us, exp 1234567ns x1.01 until 100ms"},
		// Checks of 100ms against "every 100ms until 1s": 11 checks, the
		// last at 1s (11 checks up to 2.0s).
		runCase{segment: "slow-100ms", spec: "every 100ms until 1s"},
		// 100 days: waits of 720h, beyond setTimeout's 2^31−1 ms.
		runCase{segment: "long-100d", spec: "every 720h until 2400h"},
	)
}()

// jitterCases are run with a random source that always draws 0.5, and
// compared with optimize's AppendPolls on the same; the cap- ones are also
// run with real random draws, which must never take a gap above the cap
// (1.2s).
var jitterCases = []runCase{
	{segment: "jitter-full", spec: "every 2s until 30s, jitter full"},
	{segment: "jitter-equal", spec: "every 2s until 30s, jitter equal"},
	{segment: "jitter-decorrelated", spec: "exp 1s x2 cap 8s until 1m, jitter decorrelated"},
	{segment: "jitter-percent", spec: "3s, every 2s until 1m, jitter ±20%"},
	// Jittered schedules keep their phases as written (Normalize leaves
	// them): a phase whose gap passes its bound runs in generated code too.
	{segment: "jitter-gap-past-until", spec: "at 30s, every 1m until 45s, every 2m until 10m, jitter ±20%"},
	{segment: "jitter-us", spec: "every 150us until 30ms, jitter full"},
	{segment: "cap-full", spec: "exp 400ms x2 cap 1.2s until 1m, jitter full"},
	{segment: "cap-equal", spec: "exp 400ms x2 cap 1.2s until 1m, jitter equal"},
	{segment: "cap-decorrelated", spec: "exp 400ms x2 cap 1.2s until 1m, jitter decorrelated"},
	{segment: "cap-percent", spec: "exp 400ms x2 cap 1.2s until 1m, jitter ±50%"},
}

// clockCases have wall-clock phases: the drivers' fake clocks
// start at the Unix epoch, where their polls are optimize's Polls; the
// clock tests (clockRuns) start them at other instants.
var clockCases = []runCase{
	{segment: "clock", spec: "every 1s until 10s, after each 5m (+1s +2.5s) until 15m"},
	{segment: "clock-first", spec: "after each 1m until 5m"},
	{segment: "clock-between", spec: "at 2s, after each 12s (+500ms +6s) until 2m, every 30s until 5m"},
	{segment: "clock-two", spec: "every 500ms until 5s, after each 1m (+0s +30s) until 10m, after each 5m (+2s) until 1h"},
	{segment: "clock-sub-ms", spec: "after each 1ms (+250us) until 10ms"},
	{segment: "clock-day", spec: "every 1h until 12h, after each 24h (+9h30m) until 720h"},
}

// capOfCases is the cap of the cap- jitter cases.
const capOfCases = 1200 * time.Millisecond

// slowCheck is how long each check of segment takes in the slow-check
// runs: 100ms for slow-100ms, else half again the first gap of the
// schedule (1ms for a single poll).
func slowCheck(segment string, polls []time.Duration) time.Duration {
	switch {
	case segment == "slow-100ms":
		return 100 * time.Millisecond
	case len(polls) < 2:
		return time.Millisecond
	}
	return (polls[1] - polls[0]) * 3 / 2
}

// checkSlow100 checks by hand that "every 100ms until 1s"
// with checks of 100ms makes its 11 checks at 0, 100ms, …, 1s.
func checkSlow100(t *testing.T, segment string, starts []time.Duration) {
	t.Helper()
	if segment != "slow-100ms" {
		return
	}
	if len(starts) != 11 || starts[10] != time.Second {
		t.Errorf("checks of 100ms on every 100ms until 1s started at %v, want 11, the last at 1s", starts)
	}
}

// pollStarts returns the ages at which Poll starts its checks, by the
// rule Poll documents, on a fake clock where each check takes c and waits
// are made in whole quanta q (rounded up): the i-th check starts at the
// i-th poll's age or, if the clock has passed it, at once; none starts
// once the clock has passed the horizon h.
func pollStarts(polls []time.Duration, h, c, q time.Duration) []time.Duration {
	var out []time.Duration
	var now time.Duration
	for _, at := range polls {
		if now > h {
			break
		}
		if at > now {
			now += (at - now + q - 1) / q * q
		}
		out = append(out, now)
		now += c
	}
	return out
}

// signalPolls returns the polls of a run whose signal comes right after
// the fifth poll (at age half[4], on a clock that started at the Unix
// epoch): the first five, then the schedule again from there, for an item
// created then; nil when the schedule ends at the fifth poll or before.
func signalPolls(s optimize.Schedule, half []time.Duration) []time.Duration {
	if len(half) <= 5 {
		return nil
	}
	again := half
	if s.Clocked() {
		again = s.PollsAt(int64(half[4]))
	}
	sig := append([]time.Duration{}, half[:5]...)
	for _, p := range again {
		if len(sig) == 15 {
			break
		}
		sig = append(sig, half[4]+p)
	}
	return sig
}

// caseDoc returns a document with "now" as the overall schedule and the
// cases as segments.
func caseDoc(t *testing.T, cases []runCase) Document {
	t.Helper()
	doc := Document{Schedule: optimize.References[3]}
	for _, c := range cases {
		s, err := optimize.ParseSpec(c.spec)
		if err != nil {
			t.Fatalf("ParseSpec(%q): %v", c.spec, err)
		}
		doc.Segments = append(doc.Segments, Segment{Name: c.segment, Schedule: s})
	}
	return doc
}

// checkGolden compares got with testdata/name, or rewrites the file under
// -update. On a mismatch it prints a line diff.
func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if d := cmp.Diff(strings.Split(string(want), "\n"), strings.Split(string(got), "\n")); d != "" {
		t.Errorf("%s differs from the golden file (-want +got; go test -update rewrites it):\n%s", path, d)
	}
}

// run runs a command in dir and fails the test with its output on error.
func run(t *testing.T, dir string, env []string, name string, args ...string) []byte {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s in %s: %v\n%s", name, strings.Join(args, " "), dir, err, out)
	}
	return out
}
