package pollschedule

import (
	"errors"
	"fmt"
	"slices"
	"time"
)

// Wall-clock phases poll at instants of the clock, the same for every
// item: an upstream that settles in batches (a bank file every 5 minutes,
// a block every 12 s, a cron job at :00 and :30) is best polled just after
// each boundary, whatever the item's age there. A WallClock phase with
// period P = Gap and offsets o₁ < … < oₘ in [0, P) polls at the instants
// k·P + oⱼ of Unix time (UTC; for periods that divide a day, the clock's
// own :00, :05, …), by the rule of every repeating phase: while the last
// poll happened before Until (an age), the next poll is at the first such
// instant strictly after it. Its polls therefore depend on the instant the
// item was created (Schedule.PollsAt; a BackOff reads it from its clock).
// This is optimize.WallClock in the pollfit module, computed alike.

// MaxClockOffsets bounds the polls a wall-clock phase makes per period.
const MaxClockOffsets = 64

// Clocked reports whether the schedule has a wall-clock phase, whose polls
// depend on when each item was created.
func (s *Schedule) Clocked() bool {
	return slices.ContainsFunc(s.Phases, func(p Phase) bool { return p.Growth == WallClock })
}

// validateClock checks a WallClock phase: 1 to MaxClockOffsets increasing
// offsets within its period, and no step, factor, exponent or cap.
func (p Phase) validateClock() error {
	if len(p.Offsets) == 0 || len(p.Offsets) > MaxClockOffsets {
		return fmt.Errorf("a wall-clock phase takes 1 to %d offsets (got %d)", MaxClockOffsets, len(p.Offsets))
	}
	for i, o := range p.Offsets {
		if o < 0 || o >= p.Gap || i > 0 && o <= p.Offsets[i-1] {
			return fmt.Errorf("%w: %v", ErrOffsets, p.Offsets)
		}
	}
	if p.Step != 0 || p.Factor != 0 || p.Exponent != 0 || p.Cap != 0 {
		return errors.New("a wall-clock phase takes no step, factor, exponent or cap")
	}
	return nil
}

// clockGap returns the time from the poll at age last of an item created
// at the instant created (Unix ns) to the next instant of the wall-clock
// phase p strictly after it: in (0, Gap]. The remainders are taken in
// int64 nanoseconds, with no float between the clock and the poll.
func (p Phase) clockGap(created int64, last time.Duration) time.Duration {
	at := created + int64(last)
	period := int64(p.Gap)
	best := period
	for _, o := range p.Offsets {
		r := (at - int64(o)) % period
		if r < 0 {
			r += period
		}
		best = min(best, period-r)
	}
	return time.Duration(best)
}

// clockBounds checks a schedule with wall-clock phases for every creation
// instant, where Validate's walk tries one (the Unix epoch): no instant
// may make more than MaxPolls polls or a poll after MaxAge, and the last
// phase must repeat (ErrClockEnd), no jitter (ErrClockJitter). A
// wall-clock phase started at age a < Until polls at most
// len(Offsets)·(⌊(Until−a)/P⌋+2) times and ends in [Until, Until+P); a
// later phase makes the most polls when it starts earliest and reaches
// the latest age when it starts latest, so one pass with the earliest end
// (counting) and the slack of the periods (ages) bounds them all. These
// are optimize's bounds, so that the two accept the same schedules.
func (s *Schedule) clockBounds() error {
	if s.Jitter.Kind != NoJitter {
		return ErrClockJitter
	}
	if s.Phases[len(s.Phases)-1].Growth == Once {
		return ErrClockEnd
	}
	n := int64(1)
	early, slack := s.Start, time.Duration(0)
	for i, p := range s.Phases {
		switch p.Growth {
		case Once:
			early += p.GapAt(1)
			n++
		case WallClock:
			if early < p.Until {
				n += int64(len(p.Offsets)) * (int64((p.Until-early)/p.Gap) + 2)
				early = p.Until
			}
			slack += p.Gap
		default:
			for k := 1; early < p.Until && n <= MaxPolls; k++ {
				early += p.GapAt(k)
				n++
			}
		}
		if n > MaxPolls {
			return fmt.Errorf("phase %d: %w for some creation instants", i+1, ErrPolls)
		}
		if early > MaxAge-slack {
			return fmt.Errorf("phase %d: a poll of an item created at some instant is %w", i+1, ErrAge)
		}
	}
	return nil
}
