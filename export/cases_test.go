package export

import (
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/pollfit/pollfit/optimize"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// runCase is a schedule that the generated code of every target is run on
// and compared with optimize.Schedule.Polls.
type runCase struct {
	segment string
	spec    string
	subMs   bool // has sub-millisecond times: Go only
}

// runCases cover the brief's four reference schedules (optimize.References)
// and every growth kind, an "at D" start, explicit gaps ending the
// schedule, a horizon that cuts the last gap, an oversized gap, a single
// gap between repeating phases, and phases that poll once past their
// bound or not at all.
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
		// or that start at their bound (no poll), issue 15.
		runCase{segment: "gap-past-until", spec: "at 30s, every 1m until 45s, every 2m until 10m"},
		runCase{segment: "no-poll-phase", spec: "every 15s until 1m50s, every 30s until 2m, every 1m until 5m"},
		runCase{segment: "huge-overshoot", spec: "1s, exp 1s x1000 until 10s, every 1s until 20s"},
		runCase{segment: "mixed", spec: "at 500ms, 1s, exp 1s x2 cap 8s until 1m, poly 2s ^0.5 until 3m, fib 3s cap 30s until 10m, linear 10s+5s cap 1m until 30m"},
		runCase{segment: "sub-ms", spec: "at 1500us, every 2500us until 20ms, exp 1ms x1.1 until 100ms", subMs: true},
	)
}()

// jitterCases are run by the generated Go only, with a random source that
// always draws 0.5, and compared with optimize's AppendPolls on the same.
var jitterCases = []runCase{
	{segment: "jitter-full", spec: "every 2s until 30s, jitter full"},
	{segment: "jitter-equal", spec: "every 2s until 30s, jitter equal"},
	{segment: "jitter-decorrelated", spec: "exp 1s x2 cap 8s until 1m, jitter decorrelated"},
	{segment: "jitter-percent", spec: "3s, every 2s until 1m, jitter ±20%"},
	// Jittered schedules keep their phases as written (Normalize leaves
	// them): a phase whose gap passes its bound runs in generated code too.
	{segment: "jitter-gap-past-until", spec: "at 30s, every 1m until 45s, every 2m until 10m, jitter ±20%"},
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
