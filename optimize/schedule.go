package optimize

import (
	"errors"
	"fmt"
	"math"
	"time"
)

// Growth says how the gaps of one phase change from one poll to the next.
type Growth int

const (
	// Once is a single gap: one poll, Gap after the previous one.
	Once Growth = iota
	// Fixed repeats Gap.
	Fixed
	// Linear uses Gap + (k−1)·Step for the k-th gap of the phase.
	Linear
	// Exponential uses Gap·Factor^(k−1) for the k-th gap of the phase.
	Exponential
	// Polynomial uses Gap·k^Exponent for the k-th gap of the phase.
	Polynomial
	// Fibonacci uses Gap·Fib(k) with Fib = 1, 1, 2, 3, 5, … for the k-th gap.
	Fibonacci
	// WallClock polls at instants of the wall clock, not at ages: at
	// Offsets[j] past every multiple of Gap (the period) since the Unix
	// epoch, UTC. Its polls depend on when the item was created (see
	// Schedule.PollsAt and clock.go).
	WallClock
)

// Phase is one stretch of a schedule. A repeating phase (every Growth but
// Once) follows one rule, the brief's: while the last poll happened before
// Until, the next poll is the phase's next gap later. Its last poll may
// therefore land after Until (never by more than its last gap), and the
// next phase continues from that poll; a phase that starts at or after
// its Until makes no poll. No poll is made after the schedule's horizon
// (see Schedule).
//
// Attempts are numbered within a phase: the first gap of the phase is
// attempt k = 1. Cap, when positive, bounds every gap of the phase, the
// jittered ones included (see Jitter).
type Phase struct {
	Growth   Growth
	Gap      time.Duration // base gap; > 0
	Step     time.Duration // Linear: added per attempt
	Factor   float64       // Exponential: ratio between gaps, ≥ 1
	Exponent float64       // Polynomial: power of the attempt number, > 0
	Cap      time.Duration // largest gap; 0 means none
	Until    time.Duration // repeating phases: keep polling while the last poll < Until
	// WallClock: the instants within each period at which it polls,
	// increasing, each in [0, Gap); nil for the other kinds.
	Offsets []time.Duration
}

// GapAt returns the k-th gap of the phase (k ≥ 1):
//
//	Once, Fixed   Gap
//	Linear        Gap + (k−1)·Step
//	Exponential   Gap·Factor^(k−1), rounded to Grain
//	Polynomial    Gap·k^Exponent, rounded to Grain
//	Fibonacci     Gap·Fib(k)
//
// then at most the limit: Cap when positive, and MaxGapAt. Gaps are
// computed from k directly, never accumulated, and the limit is applied
// before any product can overflow: a growing gap that would pass it is the
// limit itself, however large k is. The powers are math.Pow's; generated
// code computes them in float64 the same way, rounding the same product.
func (p Phase) GapAt(k int) time.Duration {
	limit := p.limit()
	g := p.Gap
	switch p.Growth {
	case Once, Fixed:
	case Linear:
		// Gap + (k−1)·Step > limit, tested without forming the product.
		if p.Step > 0 && int64(k-1) > int64((limit-min(p.Gap, limit))/p.Step) {
			g = limit
		} else {
			g = p.Gap + time.Duration(k-1)*p.Step
		}
	case Exponential:
		g = p.round(float64(p.Gap)*math.Pow(p.Factor, float64(k-1)), limit)
	case Polynomial:
		g = p.round(float64(p.Gap)*math.Pow(float64(k), p.Exponent), limit)
	case WallClock:
		// Not a gap from the previous poll: see Phase.clockGap.
	case Fibonacci:
		// Fib(k)·Gap > limit exactly when Fib(k) > ⌊limit/Gap⌋.
		if f := fib(k); f < 0 || f > int64(limit/p.Gap) {
			g = limit
		} else {
			g = time.Duration(f) * p.Gap
		}
	default:
		panic(fmt.Sprintf("optimize: unknown growth %d", p.Growth))
	}
	return min(g, limit)
}

// limit returns the largest gap of the phase: Cap when positive, at most
// MaxGapAt.
func (p Phase) limit() time.Duration {
	if p.Cap > 0 && p.Cap < MaxGapAt {
		return p.Cap
	}
	return MaxGapAt
}

// Grain returns the step that the gaps of an Exponential or Polynomial
// phase are rounded to: the largest power of ten nanoseconds that divides
// Gap and is at most Gap/1000 and at most 1ms. Gaps of a second or more
// (in whole milliseconds) round to the millisecond, a 150µs gap to 100ns,
// so that every scale keeps three significant digits or more, the first
// gap is Gap exactly, and schedules print in round numbers.
func (p Phase) Grain() time.Duration {
	q := time.Millisecond
	for q > 1 && (q > p.Gap/1000 || p.Gap%q != 0) {
		q /= 10
	}
	return q
}

// round returns ns rounded to the phase's Grain (halves away from zero),
// or limit when ns is not below twice the limit (NaN and +Inf included),
// before the conversion could overflow.
func (p Phase) round(ns float64, limit time.Duration) time.Duration {
	if !(ns < 2*float64(limit)) {
		return limit
	}
	q := p.Grain()
	return time.Duration(math.Round(ns/float64(q))) * q
}

func fib(k int) int64 {
	a, b := int64(1), int64(1)
	for i := 1; i < k; i++ {
		a, b = b, a+b
		if a < 0 {
			return -1
		}
	}
	return a
}

// Schedule is a poll schedule as age-indexed phases: the first poll is at
// Start (0 means at once, and that poll counts), then each phase adds polls
// in turn (see Phase for the rule of a repeating phase). The schedule's
// horizon is the Until of its last phase when that phase repeats, else the
// time of its last poll; no poll is made after the horizon, so the last
// poll of a schedule whose last phase repeats may come up to one gap
// before the horizon (see Shortfall).
//
// All times are time.Duration (integer nanoseconds) from the item's
// creation, and poll times are sums of exact gaps: no accumulated floats.
type Schedule struct {
	Name   string
	Start  time.Duration
	Phases []Phase
	// Jitter randomises the gaps when scored by Monte Carlo; the zero value
	// means none.
	Jitter Jitter
}

// MaxPolls bounds the polls one unjittered schedule may make, so that a
// mistyped spec ("every 1ns until 24h") fails with an error instead of
// exhausting memory. Validate counts the schedule's real polls, so a long
// capped schedule ("exp 100ms x2 cap 1h until 1000h", 1,015 polls) is
// not refused for what its first gap alone would make.
const MaxPolls = 10_000_000

// MaxAge is the latest age a schedule may reach: no Until and no poll may
// be later. Ten years (of 365 days) is far beyond any polling horizon, and
// keeps every sum of gaps, jittered ones included (at most three times the
// gap), far from overflowing int64 nanoseconds (292 years).
const MaxAge = 10 * 365 * 24 * time.Hour

// MaxGapAt is the longest gap Phase.GapAt returns: a longer gap (an
// uncapped exponential one, say) counts as MaxGapAt. Such a gap ends after
// MaxAge from any poll, so no poll a schedule makes moves; the bound keeps
// jitter and sums of gaps within int64.
const MaxGapAt = 2 * MaxAge

// Errors returned by Validate and the spec parser.
var (
	ErrEmpty       = errors.New(`no poll: write at least one gap, or "at 0s" for a single poll at once`)
	ErrGap         = errors.New("gap must be positive")
	ErrUntil       = errors.New("until must be later than the previous phase's until")
	ErrTooManyPoll = fmt.Errorf("schedule makes more than %d polls", MaxPolls)
	ErrAge         = fmt.Errorf("later than %s (10 years), the latest age a schedule may reach", FormatDuration(MaxAge))
	ErrLong        = fmt.Errorf("longer than %s (20 years), the longest gap, step or cap a phase may have", FormatDuration(MaxGapAt))
)

// Validate reports whether the schedule is well formed: positive gaps,
// repeating phases with increasing Until, growth parameters in range, no
// gap, step or cap longer than MaxGapAt, at most MaxPolls polls, and no
// Until or poll later than MaxAge. It walks
// the schedule, in time linear in its polls (at most MaxPolls).
func (s Schedule) Validate() error {
	if err := s.validateShape(); err != nil {
		return err
	}
	if s.Clocked() {
		if err := s.clockBounds(); err != nil {
			return err
		}
	}
	return s.walk(nil, func(time.Duration) bool { return true })
}

// validateShape is Validate without the walk through the polls: every
// check that costs O(phases). The walk counts the polls.
func (s Schedule) validateShape() error {
	if s.Start < 0 {
		return fmt.Errorf("start %v is negative", s.Start)
	}
	if s.Start > MaxAge {
		return fmt.Errorf("start %s is %w", FormatDuration(s.Start), ErrAge)
	}
	var prevUntil time.Duration
	for i, p := range s.Phases {
		if p.Gap <= 0 {
			return fmt.Errorf("phase %d: %w (got %v)", i+1, ErrGap, p.Gap)
		}
		if p.Cap < 0 {
			return fmt.Errorf("phase %d: cap %v is negative", i+1, p.Cap)
		}
		if long := max(p.Gap, p.Step, p.Cap); long > MaxGapAt {
			return fmt.Errorf("phase %d: %s is %w", i+1, FormatDuration(long), ErrLong)
		}
		switch p.Growth {
		case Once:
			continue
		case Linear:
			if p.Step < 0 {
				return fmt.Errorf("phase %d: linear step %v is negative", i+1, p.Step)
			}
		case Exponential:
			if !(p.Factor >= 1) || math.IsInf(p.Factor, 0) {
				return fmt.Errorf("phase %d: exponential factor %v must be a finite number ≥ 1", i+1, p.Factor)
			}
		case Polynomial:
			if !(p.Exponent > 0) || math.IsInf(p.Exponent, 0) {
				return fmt.Errorf("phase %d: polynomial exponent %v must be a finite number > 0", i+1, p.Exponent)
			}
		case WallClock:
			if err := p.validateClock(); err != nil {
				return fmt.Errorf("phase %d: %w", i+1, err)
			}
			if s.Jitter.Kind != NoJitter {
				return fmt.Errorf("phase %d: %w", i+1, ErrClockJitter)
			}
		case Fixed, Fibonacci:
		default:
			return fmt.Errorf("phase %d: unknown growth %d", i+1, p.Growth)
		}
		if p.Until <= prevUntil || p.Until <= s.Start {
			return fmt.Errorf("phase %d: %w (until %v)", i+1, ErrUntil, p.Until)
		}
		if p.Until > MaxAge {
			return fmt.Errorf("phase %d: until %s is %w", i+1, FormatDuration(p.Until), ErrAge)
		}
		prevUntil = p.Until
	}
	if err := s.Jitter.validate(); err != nil {
		return err
	}
	return nil
}

// PhaseCount returns the number of phases of the schedule, the closing
// poll aside: a plain gap that ends the schedule ("…, every 20s until
// 14m47s, 13s") polls at its horizon once more and is not counted.
func (s Schedule) PhaseCount() int {
	n := len(s.Phases)
	if n > 0 && s.Phases[n-1].Growth == Once {
		n--
	}
	return n
}

// Horizon returns the age after which the schedule makes no poll. For a
// schedule with a wall-clock phase that ends in plain gaps it is the last
// poll of an item created at the Unix epoch.
func (s Schedule) Horizon() time.Duration {
	if h, cut := s.cut(); cut {
		return h
	}
	polls := s.Polls()
	return polls[len(polls)-1]
}

// cut returns the horizon when the last phase repeats (cut true): the
// horizon then cuts the schedule, and no gap may end after it.
func (s Schedule) cut() (h time.Duration, cut bool) {
	if n := len(s.Phases); n > 0 && s.Phases[n-1].Growth != Once {
		return s.Phases[n-1].Until, true
	}
	return 0, false
}

// Polls returns the poll times of the unjittered schedule in increasing
// order, the first at Start; none is after the horizon. It panics if the
// schedule is invalid; call Validate first on user input. The polls of a
// wall-clock phase depend on the creation time: Polls gives those of an
// item created at the Unix epoch, on every boundary; PollsAt gives any.
func (s Schedule) Polls() []time.Duration {
	return s.AppendPolls(nil, nil)
}

// PollsAt returns the poll ages of the unjittered schedule for an item
// created at the instant created, Unix nanoseconds (UTC). Only wall-clock
// phases depend on it. It panics if the schedule is invalid.
func (s Schedule) PollsAt(created int64) []time.Duration {
	if err := s.validateShape(); err != nil {
		panic("optimize: " + err.Error())
	}
	return s.appendPollsAt(nil, created)
}

// appendPollsAt is PollsAt appending to dst, for a schedule known valid.
func (s Schedule) appendPollsAt(dst []time.Duration, created int64) []time.Duration {
	if err := s.walkAt(created, nil, func(t time.Duration) bool { dst = append(dst, t); return true }); err != nil {
		panic("optimize: " + err.Error())
	}
	return dst
}

// AppendPolls appends the poll times to dst and returns the result. With a
// non-nil rng and a jittered schedule the gaps are jittered (see Jitter):
// a repeating phase then adds jittered gaps while the last jittered poll
// is before its Until. It panics if the schedule is invalid.
func (s Schedule) AppendPolls(dst []time.Duration, rng Rand) []time.Duration {
	var err error
	if rng != nil && s.Jitter.Kind != NoJitter {
		// The unjittered walk bounds the jittered one (see MaxAge).
		err = s.Validate()
	} else {
		rng = nil
		err = s.validateShape()
	}
	if err != nil {
		panic("optimize: " + err.Error())
	}
	if err := s.walk(rng, func(t time.Duration) bool { dst = append(dst, t); return true }); err != nil {
		panic("optimize: " + err.Error())
	}
	return dst
}

// walk runs the schedule by its rule and calls emit with each poll time in
// increasing order. It is the one implementation of the rule: Polls,
// Validate, the printer (Schedule.Normalize) and the generated code follow
// it. When the last phase repeats, the first gap that would end after the
// horizon ends the schedule (every later poll would be after it too).
// Unjittered (rng nil), a poll after MaxAge or more than MaxPolls polls
// is an error, found before the poll is emitted. The walk stops, with no
// error, when emit returns false.
func (s Schedule) walk(rng Rand, emit func(time.Duration) bool) error {
	return s.walkAt(0, rng, emit)
}

// walkAt is walk for an item created at the instant created (Unix ns),
// which places the polls of wall-clock phases.
func (s Schedule) walkAt(created int64, rng Rand, emit func(time.Duration) bool) error {
	h, cut := s.cut()
	last := s.Start
	if !emit(last) {
		return nil
	}
	n := 1
	j := s.Jitter.sequence(rng)
	var err error
	add := func(i int, p *Phase, g time.Duration) bool {
		if p.Growth != WallClock {
			g = j.next(g, p.limit())
		}
		switch {
		case cut && g > h-last && rng != nil && s.Jitter.ToHorizon && last < h:
			// Jitter.ToHorizon: the jittered gap ends at the horizon.
			g = h - last
		case cut && g > h-last:
			return false
		case !cut && rng == nil && g > MaxAge-last:
			err = fmt.Errorf("the poll after the one at %s is %w", FormatDuration(last), ErrAge)
			return false
		case rng == nil && n >= MaxPolls:
			err = fmt.Errorf("phase %d: %w", i+1, ErrTooManyPoll)
			return false
		}
		last += g
		n++
		return emit(last)
	}
	for i := range s.Phases {
		p := &s.Phases[i]
		if p.Growth == Once {
			if !add(i, p, p.GapAt(1)) {
				return err
			}
			continue
		}
		if p.Growth == WallClock {
			for last < p.Until {
				if !add(i, p, p.clockGap(created, last)) {
					return err
				}
			}
			continue
		}
		for k := 1; last < p.Until; k++ {
			if !add(i, p, p.GapAt(k)) {
				return err
			}
		}
	}
	return nil
}

// PollsBy returns how many polls the unjittered schedule makes at ages ≤ age.
func (s Schedule) PollsBy(age time.Duration) int {
	n := 0
	for _, p := range s.Polls() {
		if p <= age {
			n++
		}
	}
	return n
}

// StuckPolls returns the polls an item that never settles costs: every poll
// up to the horizon.
func (s Schedule) StuckPolls() int { return len(s.Polls()) }
