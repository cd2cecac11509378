package app

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/pollfit/pollfit/optimize"
)

// roundingShare is the share of the mean lag from which half the data
// resolution is worth a warning: a settle rounded onto a poll scores no
// lag where the item waited up to half a resolution more (or less).
const roundingShare = 0.05

// roundingPolls bounds the polls of a schedule read to tell whether it
// polls on the resolution's grid.
const roundingPolls = 10_000

// roundingWarning warns when the scored rows' times are rounded to res
// seconds (fit.Resolution; 0: none) and some schedules poll on multiples
// of it: a rounded settle time then often equals a poll, which scores it
// no lag, so those schedules' lags are understated by up to res/2 (every
// 1s on times rounded to 1 s: mean lag 0.000s). A schedule is named when
// at least half its polls are multiples of res and res/2 is at least
// roundingShare of its mean lag. "" when none is.
func roundingWarning(res float64, scheds []optimize.Schedule, scores []optimize.Score) string {
	step := time.Duration(math.Round(res * 1e9))
	if step <= 0 {
		return ""
	}
	var on []string
	for i, s := range scheds {
		// A mean lag of NaN: no row caught, no lag to understate.
		if s.Clocked() || !scores[i].HasData || math.IsNaN(scores[i].MeanLag) || res/2 < roundingShare*scores[i].MeanLag {
			continue
		}
		polls := s.Polls()
		polls = polls[:min(len(polls), roundingPolls)]
		k := 0
		for _, p := range polls {
			if p%step == 0 {
				k++
			}
		}
		if len(polls) > 0 && 2*k >= len(polls) {
			on = append(on, fmt.Sprintf("%s (mean lag %s)", shortLabel(s), formatSeconds(scores[i].MeanLag)))
		}
	}
	if len(on) == 0 {
		return ""
	}
	r := optimize.FormatDuration(step)
	return fmt.Sprintf("the times are rounded to %s: lags of these rows are understated by up to half of %s for schedules polling on that grid, whose polls meet rounded settles exactly: %s",
		r, r, strings.Join(on, ", "))
}

// shortLabel names a schedule in a list: its name when the user or plan
// gave it one, else its spec as written, cut after 60 characters.
func shortLabel(s optimize.Schedule) string {
	if s.Name != "" && !strings.HasPrefix(s.Name, "#") {
		return s.Name
	}
	spec := s.AsWritten()
	if r := []rune(spec); len(r) > 60 {
		spec = string(r[:60]) + "…"
	}
	return spec
}
