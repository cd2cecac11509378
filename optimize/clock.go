package optimize

import (
	"errors"
	"fmt"
	"slices"
	"time"
)

// Wall-clock phases poll at instants of the clock, the same for every
// item: an upstream that settles in batches at k·P + φ (a bank file every
// 5 minutes, a block every 12 s, a cron job at :00 and :30) is best polled
// just after each boundary, whatever the item's age there. A WallClock
// phase with period P = Gap and offsets o₁ < … < oₘ in [0, P) polls at
// the instants k·P + oⱼ of Unix time (UTC; for periods that divide a day,
// the clock's own :00, :05, …), following the rule of every repeating
// phase: while the last poll happened before Until (an age), the next poll
// is at the next such instant after it.

// ErrClockJitter is returned for a schedule with both a wall-clock phase
// and jitter: jitter would move the polls off the boundaries they exist
// to follow.
var ErrClockJitter = errors.New("a wall-clock phase polls at set instants and takes no jitter; leave the jitter out")

// MaxClockOffsets bounds the polls a wall-clock phase makes per period.
const MaxClockOffsets = 64

// Equal reports whether two phases are the same, offsets included.
func (p Phase) Equal(q Phase) bool {
	return p.Growth == q.Growth && p.Gap == q.Gap && p.Step == q.Step && p.Factor == q.Factor &&
		p.Exponent == q.Exponent && p.Cap == q.Cap && p.Until == q.Until && slices.Equal(p.Offsets, q.Offsets)
}

// validateClock checks a WallClock phase: a positive period, 1 to
// MaxClockOffsets increasing offsets within it, no cap.
func (p Phase) validateClock() error {
	if len(p.Offsets) == 0 {
		return errors.New("a wall-clock phase needs at least one offset within its period")
	}
	if len(p.Offsets) > MaxClockOffsets {
		return fmt.Errorf("a wall-clock phase polls at most %d times per period (got %d)", MaxClockOffsets, len(p.Offsets))
	}
	for i, o := range p.Offsets {
		if o < 0 || o >= p.Gap {
			return fmt.Errorf("offset +%s is not within the period %s: write it modulo the period", FormatDuration(o), FormatDuration(p.Gap))
		}
		if i > 0 && o <= p.Offsets[i-1] {
			return fmt.Errorf("offsets must increase (+%s after +%s)", FormatDuration(o), FormatDuration(p.Offsets[i-1]))
		}
	}
	if p.Cap != 0 || p.Step != 0 || p.Factor != 0 || p.Exponent != 0 {
		return errors.New("a wall-clock phase takes no cap, step, factor or exponent")
	}
	return nil
}

// clockBounds checks a schedule with wall-clock phases for every creation
// instant, where Validate's walk tries one: an item's polls depend on when
// it was created, and no instant may make more than MaxPolls polls or a
// poll after MaxAge. A wall-clock phase started at age a < Until polls at
// most len(Offsets)·(⌈(Until−a)/P⌉+1) times and ends in [Until, Until+P);
// a later phase makes the most polls when it starts earliest, and reaches
// the latest age when it starts latest, so one pass with the earliest end
// (counting) and the slack of the periods (ages) bounds them all.
func (s Schedule) clockBounds() error {
	n := int64(1)
	early, slack := s.Start, time.Duration(0)
	for i, p := range s.Phases {
		switch p.Growth {
		case Once:
			early = addAge(early, p.GapAt(1))
			n++
		case WallClock:
			if early < p.Until {
				n += int64(len(p.Offsets)) * (int64((p.Until-early)/p.Gap) + 2)
				early = p.Until
			}
			slack += p.Gap
		default:
			for k := 1; early < p.Until && n <= MaxPolls; k++ {
				early = addAge(early, p.GapAt(k))
				n++
			}
		}
		if n > MaxPolls {
			return fmt.Errorf("phase %d: %w for some creation times", i+1, ErrTooManyPoll)
		}
		if early > MaxAge-slack {
			return fmt.Errorf("phase %d: a poll of an item created at some instant is %w", i+1, ErrAge)
		}
	}
	return nil
}

// clockGap returns the time from the poll at age last of an item created
// at the instant created (Unix ns) to the next instant of the wall-clock
// phase p strictly after it: in (0, Gap].
func (p Phase) clockGap(created int64, last time.Duration) time.Duration {
	at := created + int64(last)
	period := int64(p.Gap)
	best := period
	for _, o := range p.Offsets {
		best = min(best, period-mod(at-int64(o), period))
	}
	return time.Duration(best)
}

// Clocked reports whether the schedule has a wall-clock phase, whose polls
// depend on when each item was created.
func (s Schedule) Clocked() bool {
	return slices.ContainsFunc(s.Phases, func(p Phase) bool { return p.Growth == WallClock })
}

// StuckPollsRange returns the fewest and the most polls an item that never
// settles costs, over every creation instant. Without a wall-clock phase
// both are StuckPolls. With one it tries creation instants a step apart
// across the least common period of the wall-clock phases (up to a day,
// in at most 4096 steps), and, for the first wall-clock phase, every
// instant at which one of its offsets meets the start or the end of its
// window, and 1 ns after: the bounds are exact for a schedule whose only
// wall-clock phase comes after its age phases, as pollfit makes them.
func (s Schedule) StuckPollsRange() (lo, hi int) {
	if !s.Clocked() {
		n := s.StuckPolls()
		return n, n
	}
	if err := s.validateShape(); err != nil {
		panic("optimize: " + err.Error())
	}
	span, step := s.clockSpan()
	lo = -1
	var buf []time.Duration
	try := func(c int64) {
		buf = s.appendPollsAt(buf[:0], c)
		n := len(buf)
		if lo < 0 || n < lo {
			lo = n
		}
		hi = max(hi, n)
	}
	for c := int64(0); c < span; c += step {
		try(c)
	}
	from, h := s.Start, s.Horizon()
	for _, p := range s.Phases {
		switch p.Growth {
		case Once:
			from = addAge(from, p.GapAt(1))
			continue
		case WallClock:
		default:
			from = p.end(from)
			continue
		}
		for _, o := range p.Offsets {
			for _, edge := range []time.Duration{from, p.Until, h} {
				c := mod(int64(o)-int64(edge), int64(p.Gap))
				try(c)
				try(c + 1)
			}
		}
		break
	}
	return lo, hi
}

// clockSpan returns the span after which the wall-clock phases repeat (the
// least common multiple of their periods, at most a day) and a step that
// divides it into at most 4096 creation instants and keeps every offset
// and period on the step when they are whole milliseconds.
func (s Schedule) clockSpan() (span, step int64) {
	span = 1
	g := int64(0)
	for _, p := range s.Phases {
		if p.Growth != WallClock {
			continue
		}
		span = min(lcm(span, int64(p.Gap)), int64(24*time.Hour))
		g = gcd(g, int64(p.Gap))
		for _, o := range p.Offsets {
			if o > 0 {
				g = gcd(g, int64(o))
			}
		}
	}
	step = max(g, span/4096, 1)
	return span, step
}

// gcd returns the greatest common divisor of a, b ≥ 0 (gcd(0, b) = b).
func gcd[T int | int64](a, b T) T {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

func lcm(a, b int64) int64 {
	g := gcd(a, b)
	if a/g > (1<<62)/b {
		return 1 << 62
	}
	return a / g * b
}

// scoreClockAges fills sc's polls by age and stuck polls for a schedule
// with a wall-clock phase as their means over creation instants spread
// evenly over the span after which its phases repeat: the middles of the
// steps of clockSpan, as for items created at all times.
func scoreClockAges(s Schedule, sc Score) Score {
	span, step := s.clockSpan()
	var buf []time.Duration
	n := 0
	for c := step / 2; c < span; c += step {
		buf = s.appendPollsAt(buf[:0], c)
		for a, age := range sc.Ages {
			for _, p := range buf {
				if p <= age {
					sc.PollsBy[a]++
				}
			}
		}
		sc.StuckPolls += float64(len(buf))
		n++
	}
	for a := range sc.PollsBy {
		sc.PollsBy[a] /= float64(n)
	}
	sc.StuckPolls /= float64(n)
	return sc
}

// mod returns x mod p in [0, p), for p > 0.
func mod(x, p int64) int64 {
	r := x % p
	if r < 0 {
		r += p
	}
	return r
}
