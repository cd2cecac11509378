package app

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/pollfit/pollfit/fit"
	"github.com/pollfit/pollfit/optimize"
)

// Solve says how to derive a schedule from a distribution: the budget, the
// solver options, the number of phases and the method.
type Solve struct {
	Budget  optimize.Budget
	Options optimize.Options
	// Phases is the number of phases of the schedule (1 to
	// optimize.MaxPhases), PhasesAuto or PhasesExact.
	Phases int
	Method string // "exact" (default) or "sqrt"
}

// Phases values beyond a count.
const (
	PhasesAuto  = 0
	PhasesExact = -1
)

// ParsePhases reads --phases: a count, "auto" or "exact".
func ParsePhases(s string) (int, error) {
	switch s {
	case "auto":
		return PhasesAuto, nil
	case "exact":
		return PhasesExact, nil
	}
	k, err := strconv.Atoi(s)
	if err != nil || k < 1 || k > optimize.MaxPhases {
		return 0, Usagef("--phases %q: want 1 to %d, auto or exact", s, optimize.MaxPhases)
	}
	return k, nil
}

// ParseDurations reads a comma-separated list of durations for the flag.
func ParseDurations(flag, list string) ([]time.Duration, error) {
	if list == "" {
		return nil, nil
	}
	var out []time.Duration
	for _, f := range strings.Split(list, ",") {
		d, err := time.ParseDuration(strings.TrimSpace(f))
		if err != nil || d <= 0 {
			return nil, Usagef("--%s %q: want positive durations such as 1s,2s,5s", flag, f)
		}
		out = append(out, d)
	}
	return out, nil
}

// ParseDuration parses the value of --flag: a Go duration such as 15m or
// 1h30m, or a bare number of seconds such as 900.
func ParseDuration(flag, s string) (time.Duration, error) {
	v, err := fit.ParseSeconds(s, 1)
	if err != nil || v > math.MaxInt64/1e9 {
		return 0, Usagef("--%s %q: want a duration such as 15m, or seconds such as 900", flag, s)
	}
	return time.Duration(math.Round(v * 1e9)), nil
}

// check reports usage errors in the settings.
func (s Solve) check() error {
	b := s.Budget
	if b.StuckPolls == 0 && b.MeanPolls == 0 && b.PollCost == 0 {
		return Usagef("give a budget: --budget N (polls of an item that never settles), --mean-polls M (expected polls per item), both, or --poll-cost SECONDS")
	}
	if b.PollCost > 0 && (b.StuckPolls > 0 || b.MeanPolls > 0) {
		return Usagef("--poll-cost prices polls instead of a budget: give it alone, without --budget or --mean-polls")
	}
	if s.Method != "" && s.Method != "exact" && s.Method != "sqrt" {
		return Usagef("--method %q: want exact or sqrt", s.Method)
	}
	return nil
}

// derived is a solved schedule with what plan reports beside it.
type derived struct {
	Result *optimize.Result
	Exact  *optimize.Result // the exact optimum at the same budget
	Sqrt   *optimize.Result // the √ rule at the same budget; nil when it failed
}

// solve derives the schedule for d under s.
func (s Solve) solve(d optimize.Distribution, wantSqrt bool) (*derived, error) {
	var (
		res *optimize.Result
		err error
	)
	switch {
	case s.Method == "sqrt":
		res, err = optimize.SqrtRule(d, s.Budget, s.Options)
	case s.Phases == PhasesExact:
		res, err = optimize.Exact(d, s.Budget, s.Options)
	default:
		res, err = optimize.Phased(d, s.Budget, s.Phases, s.Options)
	}
	if err != nil {
		return nil, solveError(err)
	}
	out := &derived{Result: res}
	if res.Method == "exact" {
		out.Exact = res
	} else if ex, err := optimize.Exact(d, s.Budget, s.Options); err == nil {
		out.Exact = ex
	}
	if wantSqrt && res.Method != "sqrt" {
		if sq, err := optimize.SqrtRule(d, s.Budget, s.Options); err == nil {
			out.Sqrt = sq
		}
	}
	return out, nil
}

// solveError turns solver errors about the settings into usage errors.
func solveError(err error) error {
	if errors.Is(err, optimize.ErrOptions) || errors.Is(err, optimize.ErrInvalidBudget) {
		return &UsageError{err}
	}
	return err
}

// budgetText describes the budget for headings.
func budgetText(b optimize.Budget) string {
	var parts []string
	if b.StuckPolls > 0 {
		parts = append(parts, fmt.Sprintf("%d stuck polls", b.StuckPolls))
	}
	if b.MeanPolls > 0 {
		parts = append(parts, fmt.Sprintf("%.4g mean polls per item", b.MeanPolls))
	}
	if b.PollCost > 0 {
		parts = append(parts, fmt.Sprintf("poll cost %.4gs of lag", b.PollCost))
	}
	return strings.Join(parts, ", ")
}
