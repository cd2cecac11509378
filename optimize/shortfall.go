package optimize

import (
	"fmt"
	"math"
	"time"
)

// Shortfall is how far the last poll of a schedule falls short of its
// horizon. By the rule of a repeating phase (see Phase) the last phase
// adds gaps while its last poll is before the horizon, and a gap that
// would end after the horizon is not made: "exp 1m x2 until 10m" polls
// at 0, 1, 3 and 7 minutes, and an item settling between 7 and 10 minutes
// is never seen although the schedule runs until 10 minutes. The brief's
// reference schedules depend on that rule ("before" ends at 884 s of its
// 900 s), so it stays, and Shortfall says when it costs something.
type Shortfall struct {
	LastPoll time.Duration // the last poll of the unjittered schedule
	Horizon  time.Duration // Schedule.Horizon
	// Unseen is the share of all items (weights as in Score) settling
	// after the last poll and by the horizon: never seen, although within
	// the schedule's horizon. NaN without items.
	Unseen float64
}

// Thresholds of Shortfall.WellShort.
const (
	// ShortfallShare is the share of the horizon left unpolled beyond
	// which a schedule is well short: 5%. A fixed gap g leaves up to g, so
	// a schedule of 20 or more equal gaps never exceeds it; the brief's
	// "before" (16 s of 900 s, 1.8%) does not, and "exp 1m x2 until 10m"
	// (3 of 10 minutes) does.
	ShortfallShare = 0.05
	// UnseenShare is the share of items settling in the unpolled stretch
	// beyond which a schedule is well short whatever its length: 1%, when
	// a deadline or a batch lands just before the horizon.
	UnseenShare = 0.01
)

// Shortfall returns how far the last poll of the unjittered schedule falls
// short of its horizon, and with items (nil: none) the share of them that
// settle in between. It panics if the schedule is invalid.
func (s Schedule) Shortfall(items *Items) Shortfall {
	polls := s.Polls()
	f := Shortfall{LastPoll: polls[len(polls)-1], Horizon: s.Horizon(), Unseen: math.NaN()}
	if items != nil && items.total > 0 {
		f.Unseen = items.shareIn(f.LastPoll.Seconds(), f.Horizon.Seconds())
	}
	return f
}

// Gap returns Horizon − LastPoll, the stretch no poll covers.
func (f Shortfall) Gap() time.Duration { return f.Horizon - f.LastPoll }

// WellShort reports whether the shortfall deserves a warning: the gap is
// more than ShortfallShare of the horizon, or at least UnseenShare of the
// items settle in it. The schedules the solvers and Family derive poll at
// their horizon and are never short.
func (f Shortfall) WellShort() bool {
	if f.Gap() <= 0 {
		return false
	}
	return float64(f.Gap()) > ShortfallShare*float64(f.Horizon) || f.Unseen >= UnseenShare
}

// String describes the shortfall: "last poll at 7m, 3m before its 10m
// horizon; 4.2% of items settle in between and are never seen".
func (f Shortfall) String() string {
	s := fmt.Sprintf("last poll at %s, %s before its %s horizon", FormatDuration(f.LastPoll), FormatDuration(f.Gap()), FormatDuration(f.Horizon))
	switch {
	case math.IsNaN(f.Unseen):
		return s + "; items settling in between are never seen"
	case f.Unseen == 0:
		return s + "; no item settles in between"
	case f.Unseen < 0.0005:
		return s + "; under 0.1% of items settle in between and are never seen"
	}
	return s + fmt.Sprintf("; %.1f%% of items settle in between and are never seen", 100*f.Unseen)
}
