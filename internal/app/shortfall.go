package app

import (
	"fmt"
	"strings"

	"github.com/pollfit/pollfit/optimize"
)

// shortfallWarnings returns a warning for each schedule whose last poll
// falls well short of its horizon (optimize.Shortfall.WellShort), with the
// share of the items that settle in between when items is not nil. A
// schedule is named as written, so that a user recognises it. A schedule
// with a wall-clock phase has none: where its last poll falls depends on
// each item's creation instant, and its score counts each item's own.
func shortfallWarnings(scheds []optimize.Schedule, items *optimize.Items) []string {
	var out []string
	for _, s := range scheds {
		if s.Clocked() {
			continue
		}
		if f := s.Shortfall(items); f.WellShort() {
			out = append(out, fmt.Sprintf("%s: %s", scheduleLabel(s), f))
		}
	}
	return out
}

// scheduleLabel names a schedule in a message: its spec as written,
// after its name when the user gave it one.
func scheduleLabel(s optimize.Schedule) string {
	spec := s.AsWritten()
	if s.Name == "" || strings.HasPrefix(s.Name, "#") || s.Name == spec {
		return spec
	}
	return s.Name + " (" + spec + ")"
}
