package plot

import (
	"slices"
	"strings"
	"time"

	"github.com/pollfit/pollfit/optimize"
)

// FixedPolls splits the polls of an unjittered schedule into those every
// item makes at the same ages and those that depend on when it was
// created: a wall-clock phase (optimize.WallClock) polls at instants of
// the clock, so its polls, and every later one, fall at ages that differ
// from item to item. It returns the fixed polls (all of them, and clock
// ""; without a wall-clock phase), and for a schedule with one the age of
// its last fixed poll, from which the polls follow the clock, and the text
// of its wall-clock phases as a spec writes them without their bound:
// "after each 5m (+1s +2.5s)". s must be valid.
func FixedPolls(s optimize.Schedule) (polls []time.Duration, from time.Duration, clock string) {
	first := slices.IndexFunc(s.Phases, func(p optimize.Phase) bool { return p.Growth == optimize.WallClock })
	if first < 0 {
		return s.Polls(), 0, ""
	}
	// The phases before the first wall-clock one, run as in s: a single
	// 1ns gap after them keeps their last phase from being cut at its
	// bound, as the wall-clock phase that follows it in s does.
	t := optimize.Schedule{Start: s.Start, Phases: append(slices.Clone(s.Phases[:first]), optimize.Phase{Growth: optimize.Once, Gap: 1})}
	if err := t.Validate(); err == nil {
		p := t.Polls()
		polls = p[:len(p)-1]
	} else {
		polls = []time.Duration{s.Start}
	}
	var texts []string
	for _, p := range s.Phases[first:] {
		if p.Growth != optimize.WallClock {
			continue
		}
		one := optimize.Schedule{Phases: []optimize.Phase{p}}
		text, _, _ := strings.Cut(one.String(), " until ")
		texts = append(texts, text)
	}
	return polls, polls[len(polls)-1], strings.Join(texts, ", then ")
}
