package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// A schedule document from plan carries where each horizon came from and
// the share its fit had pending there; export warns, per segment, when a
// horizon from the data ends polling while more than 1% are pending: the
// generated client gives up on them (backoff.Stop in Go).
func TestExportWarnsPendingAtHorizon(t *testing.T) {
	doc := filepath.Join(t.TempDir(), "regions.json")
	if _, stderr, code := runCLI(t, "plan", "-i", "testdata/input/regions.csv", "-c", "wait_s", "--status", "status", "--pending", "pending",
		"--segment", "region", "--min-segment-rows", "100", "--budget", "10", "-q", "-o", doc); code != 0 {
		t.Fatalf("plan: exit %d: %s", code, stderr)
	}
	var stderrs []string
	for _, lang := range []string{"go", "ts"} {
		_, stderr, code := runCLI(t, "export", "-s", doc, "--lang", lang, "-o", filepath.Join(t.TempDir(), "out."+lang))
		if code != 0 {
			t.Fatalf("export --lang %s: exit %d: %s", lang, code, stderr)
		}
		stderrs = append(stderrs, stderr)
	}
	golden(t, "export_pending_at_horizon.stderr", stderrs[0])
	if stderrs[1] != stderrs[0] {
		t.Errorf("export --lang ts warns %q, --lang go %q: want the same", stderrs[1], stderrs[0])
	}
	if strings.Contains(stderrs[0], `"us"`) {
		t.Errorf("segment us, whose fit has nothing pending at its horizon, is warned about: %s", stderrs[0])
	}
	// A horizon given is the user's: nothing said.
	given := filepath.Join(t.TempDir(), "given.json")
	runCLI(t, "plan", "-i", "testdata/input/regions.csv", "-c", "wait_s", "--status", "status", "--pending", "pending", "--horizon", "10s", "--budget", "10", "-q", "-o", given)
	if _, stderr, _ := runCLI(t, "export", "-s", given, "--lang", "go"); stderr != "" {
		t.Errorf("export of a plan with --horizon warns: %s", stderr)
	}
}

// plan's JSON says per segment how many items the fit has pending at the
// horizon and where the horizon came from.
func TestPlanJSONHorizonCheck(t *testing.T) {
	stdout, stderr, code := runCLI(t, "plan", "-i", "testdata/input/regions.csv", "-c", "wait_s", "--status", "status", "--pending", "pending",
		"--segment", "region", "--min-segment-rows", "100", "--budget", "10", "-q", "-f", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	type check struct {
		Horizon struct {
			From    string  `json:"from"`
			Pending float64 `json:"pending_share"`
			Older   float64 `json:"pending_older_share"`
			Warning string  `json:"warning"`
		} `json:"horizon_check"`
	}
	var got struct {
		check
		Segments map[string]check `json:"segments"`
	}
	if err := json.Unmarshal([]byte(stdout), &got); err != nil {
		t.Fatal(err)
	}
	eu, us := got.Segments["eu"].Horizon, got.Segments["us"].Horizon
	// eu: 15 of its 280 rows fitted are pending at 60 s, past its 3 s
	// horizon (5.4%), and the fit has 6.8% pending there.
	if eu.From != "data" || !(eu.Pending > 0.05) || eu.Older != 15.0/280 || !strings.Contains(eu.Warning, "the client stops polling at 3s") || !strings.Contains(eu.Warning, "--horizon sets a later one") {
		t.Errorf("eu: %+v, want the warning for a 3s horizon from the data", eu)
	}
	if us.From != "data" || us.Pending > 0.01 || us.Warning != "" {
		t.Errorf("us: %+v, want no warning", us)
	}
}
