package main

import (
	"bytes"
	"strings"
	"testing"
)

// runContest runs pollfit in-process with the compare and sweep commands
// (added here until main.go lists them).
func runContest(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errb bytes.Buffer
	a := newApp(&out, &errb)
	for _, cmd := range []string{"compare", "sweep"} {
		if a.Command(cmd) == nil {
			switch cmd {
			case "compare":
				a.Commands = append(a.Commands, compareCommand(&out, &errb))
			case "sweep":
				a.Commands = append(a.Commands, sweepCommand(&out, &errb))
			}
		}
	}
	err := a.Run(append([]string{"pollfit"}, args...))
	if err != nil {
		errb.WriteString("pollfit: " + err.Error() + "\n")
		code = exitCode(err)
	}
	return out.String(), errb.String(), code
}

// contestCases run compare and sweep in-process; their output is compared
// with testdata/NAME.stdout and NAME.stderr (go test -update rewrites).
var contestCases = []struct {
	name string
	args string // split on "|"
	code int
}{
	{"compare_payments", "compare|-i|fixtures/payments.csv|-c|settle_s|--status|status|--pending|pending|--budget|37|-q", 0},
	{"compare_julia", "compare|-i|fixtures/julia_ci_job_durations.csv|-c|duration_s|--budget|30|--horizon|2h|--resolution|1s|-q", 0},
	{"compare_load", "compare|-i|fixtures/payments.csv|-c|settle_s|--budget|37|--families|exp,fixed|-s|now|--arrivals|2000/min|--burst|500|--phases|exact|-q", 0},
	{"compare_bad_arrivals", "compare|-i|fixtures/payments.csv|-c|settle_s|--budget|37|--arrivals|50", 2},
	{"compare_poll_cost", "compare|-i|fixtures/payments.csv|-c|settle_s|--poll-cost|0.5", 2},
	{"sweep_payments", "sweep|-i|fixtures/payments.csv|-c|settle_s|--budgets|20..80:3|--families|exp,fixed|--phases|exact|-s|before|-q", 0},
	{"sweep_bad_budgets", "sweep|-i|fixtures/payments.csv|-c|settle_s|--budgets|80..20", 2},
}

func TestContestGolden(t *testing.T) {
	for _, tc := range contestCases {
		t.Run(tc.name, func(t *testing.T) {
			stdout, stderr, code := runContest(t, strings.Split(tc.args, "|")...)
			if code != tc.code {
				t.Errorf("exit code = %d, want %d (stderr: %s)", code, tc.code, stderr)
			}
			golden(t, tc.name+".stdout", stdout)
			golden(t, tc.name+".stderr", stderr)
		})
	}
}
