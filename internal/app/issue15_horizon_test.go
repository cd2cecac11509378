package app

import (
	"strings"
	"testing"
	"time"

	"github.com/pollfit/pollfit/ingest"
)

// TestIssue15CensoredHorizon: the reviewer's status.csv (pending rows
// censored uniformly on 0–60 s) has its default horizon from the
// Kaplan–Meier estimate among items that settle, 53.6 s by R's survfit
// masses (fit/testdata/km_horizon.R), so 1m; the settled rows alone put
// the 99th percentile at 41.4 s and the horizon at 45s, where survfit
// still has S(45 s) = 0.0658.
func TestIssue15CensoredHorizon(t *testing.T) {
	s, _, err := ingest.ReadCSVFile("../../fit/testdata/km_horizon.csv", ingest.ReadOptions{Column: "settle_s", Status: "status", Pending: []string{"pending"}})
	if err != nil {
		t.Fatal(err)
	}
	sv, note, err := Solve{}.withHorizon(s)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := sv.Options.Horizon, time.Minute; got != want {
		t.Errorf("horizon = %v, want %v", got, want)
	}
	if want := "the 99th percentile of the Kaplan–Meier estimate among items that settle, 53.6s"; !strings.Contains(note, want) {
		t.Errorf("note = %q, want it to contain %q", note, want)
	}
}
