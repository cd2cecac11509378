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
// attempt k = 1. Cap, when positive, bounds every gap of the phase and is
// applied before jitter.
type Phase struct {
	Growth   Growth
	Gap      time.Duration // base gap; > 0
	Step     time.Duration // Linear: added per attempt
	Factor   float64       // Exponential: ratio between gaps, ≥ 1
	Exponent float64       // Polynomial: power of the attempt number, > 0
	Cap      time.Duration // largest gap; 0 means none
	Until    time.Duration // repeating phases: keep polling while the last poll < Until
}

// GapAt returns the k-th gap of the phase (k ≥ 1), capped, and at most
// MaxGapAt. Gaps are computed from k directly, never accumulated, and
// rounded to the millisecond for the growing kinds so that schedules print
// exactly.
func (p Phase) GapAt(k int) time.Duration {
	var g time.Duration
	switch p.Growth {
	case Once, Fixed:
		g = p.Gap
	case Linear:
		// Gap + (k−1)·Step, saturating instead of overflowing.
		if p.Step > 0 && time.Duration(k-1) > (MaxGapAt-min(p.Gap, MaxGapAt))/p.Step {
			g = MaxGapAt
		} else {
			g = p.Gap + time.Duration(k-1)*p.Step
		}
	case Exponential:
		g = roundMillis(float64(p.Gap) * math.Pow(p.Factor, float64(k-1)))
	case Polynomial:
		g = roundMillis(float64(p.Gap) * math.Pow(float64(k), p.Exponent))
	case Fibonacci:
		f := fib(k)
		g = time.Duration(f) * p.Gap
		if f < 0 || f > math.MaxInt64/int64(p.Gap) { // overflow
			g = math.MaxInt64
		}
	default:
		panic(fmt.Sprintf("optimize: unknown growth %d", p.Growth))
	}
	if p.Cap > 0 && g > p.Cap {
		g = p.Cap
	}
	if g <= 0 || g > MaxGapAt { // overflow of the growing kinds without a cap
		g = MaxGapAt
	}
	return g
}

func roundMillis(ns float64) time.Duration {
	if ns >= float64(math.MaxInt64) || math.IsNaN(ns) {
		return math.MaxInt64
	}
	return time.Duration(math.Round(ns/1e6)) * time.Millisecond
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

// MaxPolls bounds the polls one schedule may make, so that a mistyped spec
// ("every 1ns until 24h") fails with an error instead of exhausting memory.
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
)

// Validate reports whether the schedule is well formed: positive gaps,
// repeating phases with increasing Until, growth parameters in range, at
// most MaxPolls polls, and no Until or poll later than MaxAge.
func (s Schedule) Validate() error {
	if err := s.validateShape(); err != nil {
		return err
	}
	return s.walk(nil, func(time.Duration) {})
}

// validateShape is Validate without the walk through the polls: every
// check that costs O(phases).
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
	n := 1
	from := s.Start // no phase starts before: polls only move later
	for i, p := range s.Phases {
		n += p.maxPolls(from)
		if n > MaxPolls {
			return fmt.Errorf("phase %d: %w", i+1, ErrTooManyPoll)
		}
		if p.Growth != Once {
			from = p.Until
		}
	}
	return nil
}

// maxPolls bounds the polls a phase started at or after age from can add
// (its smallest gap is the first or the cap), used to refuse runaway specs
// before generating them.
func (p Phase) maxPolls(from time.Duration) int {
	if p.Growth == Once {
		return 1
	}
	g := p.Gap
	if p.Cap > 0 && p.Cap < g {
		g = p.Cap
	}
	n := max(p.Until-from, 0)/g + 1
	if n > MaxPolls {
		return MaxPolls + 1
	}
	return int(n)
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

// Horizon returns the age after which the schedule makes no poll.
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
// schedule is invalid; call Validate first on user input.
func (s Schedule) Polls() []time.Duration {
	return s.AppendPolls(nil, nil)
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
	if err := s.walk(rng, func(t time.Duration) { dst = append(dst, t) }); err != nil {
		panic("optimize: " + err.Error())
	}
	return dst
}

// walk runs the schedule by its rule and calls emit with each poll time in
// increasing order. It is the one implementation of the rule: Polls,
// Validate, the printer (Schedule.Normalize) and the generated code follow
// it. When the last phase repeats, the first gap that would end after the
// horizon ends the schedule (every later poll would be after it too).
// Unjittered (rng nil), a poll after MaxAge is an error.
func (s Schedule) walk(rng Rand, emit func(time.Duration)) error {
	h, cut := s.cut()
	last := s.Start
	emit(last)
	j := s.Jitter.sequence(rng)
	var err error
	add := func(g time.Duration) bool {
		g = j.next(g)
		switch {
		case cut && g > h-last:
			return false
		case !cut && rng == nil && g > MaxAge-last:
			err = fmt.Errorf("the poll after the one at %s is %w", FormatDuration(last), ErrAge)
			return false
		}
		last += g
		emit(last)
		return true
	}
	for _, p := range s.Phases {
		if p.Growth == Once {
			if !add(p.GapAt(1)) {
				return err
			}
			continue
		}
		for k := 1; last < p.Until; k++ {
			if !add(p.GapAt(k)) {
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
