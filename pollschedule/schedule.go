package pollschedule

import (
	"errors"
	"fmt"
	"math"
	"time"
)

// Growth says how the gaps of a phase change from one poll to the next.
type Growth int

// The growth kinds; their names are those of the JSON document.
const (
	Once        Growth = iota // one gap: one poll
	Fixed                     // Gap, repeated
	Linear                    // Gap + (k−1)·Step
	Exponential               // Gap·Factor^(k−1), rounded to Grain
	Polynomial                // Gap·k^Exponent, rounded to Grain
	Fibonacci                 // Gap·Fib(k), Fib = 1, 1, 2, 3, 5, …
	// WallClock polls at instants of the wall clock, not at ages: at each
	// of Offsets past every multiple of Gap (the period) since the Unix
	// epoch, UTC. See clock.go.
	WallClock
)

var growthNames = [...]string{"once", "fixed", "linear", "exponential", "polynomial", "fibonacci", "wall_clock"}

// String returns the growth's name in the JSON document: "once", "fixed", …
func (g Growth) String() string {
	if g < 0 || int(g) >= len(growthNames) {
		return fmt.Sprintf("Growth(%d)", int(g))
	}
	return growthNames[g]
}

// Phase is one stretch of a schedule (see the package comment for the
// rule). Gaps within a phase are numbered k = 1, 2, … from its first.
type Phase struct {
	Growth   Growth
	Gap      time.Duration // the first gap; > 0
	Step     time.Duration // Linear: added per gap; ≥ 0
	Factor   float64       // Exponential: ratio between gaps; ≥ 1
	Exponent float64       // Polynomial: power of k; > 0
	Cap      time.Duration // the largest gap, jittered ones included; 0: none
	Until    time.Duration // repeating phases: poll while the last poll < Until
	// WallClock: the instants within each period Gap at which it polls,
	// increasing, each in [0, Gap); nil for the other kinds.
	Offsets []time.Duration
}

// Limits of a schedule, those of pollfit's optimize package.
const (
	// MaxAge is the latest age a schedule may reach: no Until and no poll
	// is later (ten years of 365 days).
	MaxAge = 10 * 365 * 24 * time.Hour
	// MaxGap is the longest gap GapAt returns; a longer one (an uncapped
	// growing gap) counts as MaxGap, which ends after every poll a
	// schedule makes. No Gap, Step or Cap may be longer.
	MaxGap = 2 * MaxAge
	// MaxPolls bounds the polls of an unjittered schedule.
	MaxPolls = 10_000_000
)

// Errors of Schedule.Validate (and so of Read), beside ErrDocument.
var (
	ErrUntil = errors.New("until must be later than the start and the previous phase's until")
	ErrPolls = fmt.Errorf("more than %d polls", MaxPolls)
	ErrAge   = errors.New("later than 87600h (10 years), the latest age a schedule may reach")
	// ErrOffsets is returned for the offsets of a wall-clock phase that
	// do not increase or do not lie within its period.
	ErrOffsets = errors.New("offsets must increase and lie within the period")
	// ErrClockJitter is returned for a jittered schedule with a wall-clock
	// phase: jitter would move the polls off the boundaries they follow.
	ErrClockJitter = errors.New("a wall-clock phase polls at set instants and takes no jitter")
	// ErrClockEnd is returned for a schedule with a wall-clock phase whose
	// last phase is a single gap: its horizon would depend on when the
	// item was created.
	ErrClockEnd = errors.New("a schedule with a wall-clock phase must end with a repeating phase, so that its horizon is the same for every item")
)

// GapAt returns the k-th gap of the phase (k ≥ 1), at most its limit
// (Cap when positive, and MaxGap). The limit is applied before any product
// can overflow: a growing gap that would pass it is the limit itself.
// Exponential and Polynomial gaps are computed in float64 nanoseconds with
// math.Pow and rounded, halves away from zero, to Grain.
func (p Phase) GapAt(k int) time.Duration {
	limit := p.limit()
	g := p.Gap
	switch p.Growth {
	case Linear:
		if p.Step > 0 && int64(k-1) > int64((limit-min(p.Gap, limit))/p.Step) {
			g = limit
		} else {
			g = p.Gap + time.Duration(k-1)*p.Step
		}
	case Exponential:
		g = p.round(float64(p.Gap)*math.Pow(p.Factor, float64(k-1)), limit)
	case Polynomial:
		g = p.round(float64(p.Gap)*math.Pow(float64(k), p.Exponent), limit)
	case Fibonacci:
		if f := fib(k); f < 0 || f > int64(limit/p.Gap) {
			g = limit
		} else {
			g = time.Duration(f) * p.Gap
		}
	}
	return min(g, limit)
}

func (p Phase) limit() time.Duration {
	if p.Cap > 0 && p.Cap < MaxGap {
		return p.Cap
	}
	return MaxGap
}

// Grain returns the step that Exponential and Polynomial gaps are rounded
// to: the largest power of ten nanoseconds that divides Gap and is at most
// Gap/1000 and at most 1ms (1ms for gaps of a second or more in whole
// milliseconds, 100ns for a 150µs gap).
func (p Phase) Grain() time.Duration {
	q := time.Millisecond
	for q > 1 && (q > p.Gap/1000 || p.Gap%q != 0) {
		q /= 10
	}
	return q
}

func (p Phase) round(ns float64, limit time.Duration) time.Duration {
	if !(ns < 2*float64(limit)) { // NaN, +Inf and too large for int64
		return limit
	}
	q := p.Grain()
	return time.Duration(math.Round(ns/float64(q))) * q
}

// fib returns Fib(k) = 1, 1, 2, 3, 5, … for k = 1, 2, …, or -1 when it
// overflows int64.
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

// JitterKind names a way of randomising gaps, after Brooker, "Exponential
// Backoff And Jitter" (AWS Architecture Blog, 2015).
type JitterKind int

// The jitter kinds, for a scheduled gap g.
const (
	NoJitter           JitterKind = iota
	FullJitter                    // uniform on [0, g]
	EqualJitter                   // uniform on [g/2, g]
	DecorrelatedJitter            // uniform on [g, 3·previous jittered gap], at most 3g
	PercentJitter                 // uniform on [g·(1−Spread), g·(1+Spread)]
)

var jitterNames = [...]string{"none", "full", "equal", "decorrelated", "percent"}

// String returns the kind's name in the JSON document: "none", "full", …
func (k JitterKind) String() string {
	if k < 0 || int(k) >= len(jitterNames) {
		return fmt.Sprintf("JitterKind(%d)", int(k))
	}
	return jitterNames[k]
}

// Jitter randomises a schedule's gaps. Each scheduled gap g (capped) is
// drawn by its Kind and then bounded:
//
//	min(1ms, max(1ns, g/1000)) ≤ jittered ≤ the phase's Cap (when positive)
//
// so that polls keep increasing and no gap is above the cap: decorrelated
// and percent jitter, which may draw above g, are cut at the cap.
type Jitter struct {
	Kind   JitterKind
	Spread float64 // PercentJitter: 0.1 for ±10%; 0 < Spread < 1
}

// jitter returns the jittered form of the scheduled gap g of a phase with
// the given limit; prev is the last jittered gap (decorrelated jitter).
func (j Jitter) jitter(g, limit, prev time.Duration, rnd func() float64) time.Duration {
	var out time.Duration
	switch j.Kind {
	case FullJitter:
		out = time.Duration(rnd() * float64(g))
	case EqualJitter:
		out = g/2 + time.Duration(rnd()*float64(g-g/2))
	case DecorrelatedJitter:
		prev = max(prev, g)
		out = min(g+time.Duration(rnd()*float64(3*prev-g)), 3*g)
	case PercentJitter:
		out = time.Duration(float64(g) * (1 - j.Spread + 2*j.Spread*rnd()))
	default:
		return g
	}
	return min(max(out, min(time.Millisecond, max(1, g/1000))), limit)
}

// Schedule is one poll schedule of a document, ages in time.Duration from
// the item's creation.
type Schedule struct {
	Name   string // free text
	Spec   string // the schedule in pollfit's spec syntax, as written; not checked by Read
	Start  time.Duration
	Phases []Phase
	Jitter Jitter
	Meta   []byte // a compact JSON object, or nil
}

// Horizon returns the age after which the schedule makes no poll: the
// last phase's Until when it repeats, else the age of the last poll.
func (s *Schedule) Horizon() time.Duration {
	if h, cut := s.cut(); cut {
		return h
	}
	var last time.Duration
	s.walk(0, nil, func(t time.Duration) bool { last = t; return true })
	return last
}

func (s *Schedule) cut() (time.Duration, bool) {
	if n := len(s.Phases); n > 0 && s.Phases[n-1].Growth != Once {
		return s.Phases[n-1].Until, true
	}
	return 0, false
}

// Polls returns the poll times of the unjittered schedule, the first at
// Start. The schedule must be valid (see Validate). The polls of a
// wall-clock phase depend on when the item was created: Polls gives those
// of an item created at the Unix epoch, on every boundary; PollsAt gives
// any.
func (s *Schedule) Polls() []time.Duration {
	return s.pollsAt(0)
}

// PollsAt returns the poll ages of the unjittered schedule for an item
// created at the instant created, which places the polls of its wall-clock
// phases (UTC). The schedule must be valid (see Validate), and created
// within the years 1678 to 2262 (time.Time.UnixNano).
func (s *Schedule) PollsAt(created time.Time) []time.Duration {
	return s.pollsAt(created.UnixNano())
}

func (s *Schedule) pollsAt(created int64) []time.Duration {
	var out []time.Duration
	s.walk(created, nil, func(t time.Duration) bool { out = append(out, t); return true })
	return out
}

// Validate reports whether the schedule is one Read would accept: gaps
// positive, no Gap, Step or Cap above MaxGap, growth parameters in range,
// repeating phases with increasing Until after Start, at most MaxPolls
// polls and none after MaxAge (for every creation instant when a phase is
// WallClock), and a percent jitter's spread in (0, 1). A wall-clock phase
// takes 1 to MaxClockOffsets increasing offsets within its period, no
// step, factor, exponent or cap, and no jitter; a schedule with one must
// end with a repeating phase. It walks the schedule, in time linear in its
// polls.
func (s *Schedule) Validate() error {
	if s.Start < 0 || s.Start > MaxAge {
		return fmt.Errorf("start %v is not between 0 and MaxAge", s.Start)
	}
	prev := time.Duration(0)
	for i, p := range s.Phases {
		switch {
		case p.Growth < Once || p.Growth > WallClock:
			return fmt.Errorf("phase %d: unknown growth %d", i+1, p.Growth)
		case p.Gap <= 0 || p.Step < 0 || p.Cap < 0:
			return fmt.Errorf("phase %d: gap must be positive, step and cap not negative", i+1)
		case max(p.Gap, p.Step, p.Cap) > MaxGap:
			return fmt.Errorf("phase %d: gap, step or cap longer than MaxGap", i+1)
		case p.Growth == Exponential && !(p.Factor >= 1 && p.Factor <= math.MaxFloat64):
			return fmt.Errorf("phase %d: factor %v must be a finite number ≥ 1", i+1, p.Factor)
		case p.Growth == Polynomial && !(p.Exponent > 0 && p.Exponent <= math.MaxFloat64):
			return fmt.Errorf("phase %d: exponent %v must be a finite number > 0", i+1, p.Exponent)
		case p.Growth != WallClock && p.Offsets != nil:
			return fmt.Errorf("phase %d: only a wall-clock phase has offsets", i+1)
		case p.Growth == Once:
			continue
		case p.Until <= prev || p.Until <= s.Start:
			return fmt.Errorf("phase %d: %w (until %v)", i+1, ErrUntil, p.Until)
		case p.Until > MaxAge:
			return fmt.Errorf("phase %d: until %v is %w", i+1, p.Until, ErrAge)
		}
		if p.Growth == WallClock {
			if err := p.validateClock(); err != nil {
				return fmt.Errorf("phase %d: %w", i+1, err)
			}
		}
		prev = p.Until
	}
	switch k := s.Jitter.Kind; {
	case k < NoJitter || k > PercentJitter:
		return fmt.Errorf("unknown jitter kind %d", k)
	case k == PercentJitter && !(s.Jitter.Spread > 0 && s.Jitter.Spread < 1):
		return fmt.Errorf("jitter spread %v must be between 0 and 1", s.Jitter.Spread)
	}
	if s.Clocked() {
		if err := s.clockBounds(); err != nil {
			return err
		}
	}
	return s.walk(0, nil, func(time.Duration) bool { return true })
}

// walk runs the schedule for an item created at the instant created (Unix
// ns, which places the polls of wall-clock phases) and calls emit with
// each poll time in increasing order until emit returns false. With rnd
// nil it is unjittered and reports more than MaxPolls polls or a poll
// after MaxAge as an error.
func (s *Schedule) walk(created int64, rnd func() float64, emit func(time.Duration) bool) error {
	st := state{age: s.Start, created: created}
	if !emit(st.age) {
		return nil
	}
	for n := 1; ; n++ {
		g, err := st.next(s, rnd)
		if err != nil || g < 0 {
			return err
		}
		if rnd == nil && n >= MaxPolls {
			return fmt.Errorf("phase %d: %w", st.phase+1, ErrPolls)
		}
		if !emit(st.age) {
			return nil
		}
	}
}

// state is a position in a schedule: the phase, the number k of the
// phase's last gap (0 before its first), the age of the last poll, the
// last jittered gap, and the instant the item was created (Unix ns), which
// places the polls of wall-clock phases.
type state struct {
	phase   int
	k       int
	age     time.Duration
	prev    time.Duration
	created int64
}

// next moves st to the next poll of s and returns the gap to it, or -1
// when the schedule is over. rnd nil means no jitter. Unjittered, a poll
// after MaxAge is an error.
func (st *state) next(s *Schedule, rnd func() float64) (time.Duration, error) {
	h, cut := s.cut()
	for st.phase < len(s.Phases) {
		p := &s.Phases[st.phase]
		var g time.Duration
		if p.Growth == Once {
			st.phase++
			g = p.GapAt(1)
		} else {
			if st.age >= p.Until {
				st.phase++
				st.k = 0
				continue
			}
			st.k++
			if p.Growth == WallClock {
				g = p.clockGap(st.created, st.age)
			} else {
				g = p.GapAt(st.k)
			}
		}
		if rnd != nil && s.Jitter.Kind != NoJitter {
			g = s.Jitter.jitter(g, p.limit(), st.prev, rnd)
			st.prev = g
		}
		if cut && g > h-st.age {
			break
		}
		if !cut && rnd == nil && g > MaxAge-st.age {
			st.phase = len(s.Phases)
			return -1, fmt.Errorf("the poll after the one at %v is %w", st.age, ErrAge)
		}
		st.age += g
		return g, nil
	}
	st.phase = len(s.Phases)
	return -1, nil
}

// GapAfter returns the wait from age to the first poll of the unjittered
// schedule later than age, or -1 when there is none: for the age of a
// poll, the gap to the next; before Start, the wait until Start. It walks
// the schedule from Start, in time linear in the polls before age. The
// polls of a wall-clock phase are those of an item created at the Unix
// epoch (see Polls); BackOff.GapAfter places them by its clock.
func (s *Schedule) GapAfter(age time.Duration) time.Duration {
	return s.gapAfter(0, age)
}

// gapAfter is GapAfter for an item created at the instant created (Unix ns).
func (s *Schedule) gapAfter(created int64, age time.Duration) time.Duration {
	if age < s.Start {
		return s.Start - age
	}
	st := state{age: s.Start, created: created}
	for {
		if g, _ := st.next(s, nil); g < 0 {
			return -1
		}
		if st.age > age {
			return st.age - age
		}
	}
}
