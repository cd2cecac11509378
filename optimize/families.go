package optimize

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// Family is a baseline family of schedules: a shape with one free
// parameter, the base gap, as users write it. Every member polls at once
// (age 0), then adds gaps by one repeating phase up to the horizon, and
// polls at the horizon itself: the gap that would pass it is cut short to
// end there, as the solvers' schedules end, and a jittered member's
// jittered gap that would pass it ends there too (Jitter.ToHorizon). So a
// family is compared with the optimum at the same horizon, catching every
// item that settles by it, and, once tuned (see Tune), at the same budget.
//
// The shapes are those users reach for (see the brief, "Parametric
// families"): gap k (attempt k = 1 for the first gap, as in Phase.GapAt)
// is
//
//	fixed        base
//	linear       base + (k−1)·base          (step = base)
//	exp          base · Factor^(k−1)        capped at CapRatio·base
//	poly         base · k^Exponent          capped at CapRatio·base
//	fib          base · Fib(k), Fib = 1, 1, 2, 3, 5, …, capped at CapRatio·base
//
// The cap scales with the base so that the whole family is one shape
// stretched in time: stretching every gap by the same factor is the first
// change tuning makes, and the polls an item makes fall monotonically as
// the base grows. A cap fixed in seconds would make small budgets
// unreachable (a 30 s cap alone costs 30 polls over 15 minutes). When
// the least base gap (MinGap) keeps the shape from spending a budget,
// Tune frees the rest of its parameters: a cap apart from the base (Cap),
// a gentler growth (Factor, Exponent, StepRatio) and, down to LeastGap, a
// smaller base.
// Jitter, if any, is applied to the capped gaps (see Jitter).
type Family struct {
	Name     string
	Growth   Growth  // Fixed, Linear, Exponential, Polynomial or Fibonacci
	Factor   float64 // Exponential: ratio between gaps, > 1
	Exponent float64 // Polynomial: power of the attempt number, > 0
	CapRatio float64 // largest gap as a multiple of the base; 0 means none
	// StepRatio is Linear's step as a multiple of the base; 0 means 1
	// (gaps b, 2b, 3b, …).
	StepRatio float64
	// Cap, when positive, is the largest gap, apart from the base: it
	// replaces CapRatio·base, and caps Linear too.
	Cap    time.Duration
	Jitter Jitter
	// MinGap is the least base gap Tune may choose, so that a family is
	// held to the same minimum gap as the schedules it is compared with
	// (Options.MinGap); 0 means none. Jitter may still draw shorter gaps.
	MinGap time.Duration
	// LeastGap, when positive and below MinGap, is the least base gap Tune
	// may go down to when not even the family's densest member with gaps
	// of MinGap or more spends the budget (as when MinGap is a default
	// rather than the user's); 0 means MinGap.
	LeastGap time.Duration
}

// Default shapes of the families. DefaultFactor 1.5 is the multiplier of
// common client libraries' exponential backoff (cenkalti/backoff's
// DefaultMultiplier); a cap of 30 times the base is the classic "1 s
// growing to 30 s"; exponent 2 is the quadratic backoff the brief's
// polynomial family warns about when uncapped.
const (
	DefaultFactor   = 1.5
	DefaultExponent = 2.0
	DefaultCapRatio = 30.0
)

// Families are the baseline families compared by default, in order:
// fixed, linear, exp, poly, fib, then exp with full, equal and
// decorrelated jitter (AWS Architecture Blog, "Exponential Backoff And
// Jitter", Brooker 2015). Linear is uncapped, as it is usually written.
var Families = []Family{
	{Name: "fixed", Growth: Fixed},
	{Name: "linear", Growth: Linear},
	{Name: "exp", Growth: Exponential, Factor: DefaultFactor, CapRatio: DefaultCapRatio},
	{Name: "poly", Growth: Polynomial, Exponent: DefaultExponent, CapRatio: DefaultCapRatio},
	{Name: "fib", Growth: Fibonacci, CapRatio: DefaultCapRatio},
	{Name: "exp-full", Growth: Exponential, Factor: DefaultFactor, CapRatio: DefaultCapRatio, Jitter: Jitter{Kind: FullJitter}},
	{Name: "exp-equal", Growth: Exponential, Factor: DefaultFactor, CapRatio: DefaultCapRatio, Jitter: Jitter{Kind: EqualJitter}},
	{Name: "exp-decorrelated", Growth: Exponential, Factor: DefaultFactor, CapRatio: DefaultCapRatio, Jitter: Jitter{Kind: DecorrelatedJitter}},
}

// ParseFamilies parses a comma-separated list of family names: "all"
// (every one of Families), or names of the form SHAPE[-JITTER] with SHAPE
// one of fixed, linear, exp, poly, fib and JITTER one of full, equal,
// decorrelated or a percentage such as 20% (uniform ±20%), e.g.
// "exp,poly,fixed-20%". Shapes take their default parameters.
func ParseFamilies(list string) ([]Family, error) {
	var out []Family
	for _, name := range strings.Split(list, ",") {
		name = strings.TrimSpace(name)
		if name == "" {
			continue
		}
		if name == "all" {
			out = append(out, Families...)
			continue
		}
		f, err := FamilyByName(name)
		if err != nil {
			return nil, err
		}
		out = append(out, f)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no family named; want all or some of fixed, linear, exp, poly, fib (optionally -full, -equal, -decorrelated or -P%%)")
	}
	return out, nil
}

// FamilyByName returns the family SHAPE[-JITTER] (see ParseFamilies).
func FamilyByName(name string) (Family, error) {
	shape, jit, hasJit := strings.Cut(name, "-")
	var f Family
	switch shape {
	case "fixed":
		f = Family{Growth: Fixed}
	case "linear":
		f = Family{Growth: Linear}
	case "exp":
		f = Family{Growth: Exponential, Factor: DefaultFactor, CapRatio: DefaultCapRatio}
	case "poly":
		f = Family{Growth: Polynomial, Exponent: DefaultExponent, CapRatio: DefaultCapRatio}
	case "fib":
		f = Family{Growth: Fibonacci, CapRatio: DefaultCapRatio}
	default:
		return f, fmt.Errorf("unknown family %q: want fixed, linear, exp, poly or fib, optionally followed by -full, -equal, -decorrelated or -P%%", name)
	}
	f.Name = name
	if hasJit {
		j, err := ParseJitter(jit)
		if err != nil || j.Kind == NoJitter {
			return f, fmt.Errorf("family %q: jitter %q: want full, equal, decorrelated or P%% with 0 < P < 100", name, jit)
		}
		f.Jitter = j
	}
	return f, nil
}

// String describes the family's shape with b standing for the base gap,
// e.g. "exp b x1.5 cap 30b, jitter full".
func (f Family) String() string {
	var s string
	switch f.Growth {
	case Fixed:
		s = "every b"
	case Linear:
		s = "linear b+b"
		if f.StepRatio > 0 && f.StepRatio != 1 {
			s = "linear b+" + strconv.FormatFloat(f.StepRatio, 'g', -1, 64) + "b"
		}
	case Exponential:
		s = "exp b x" + strconv.FormatFloat(f.Factor, 'g', -1, 64)
	case Polynomial:
		s = "poly b ^" + strconv.FormatFloat(f.Exponent, 'g', -1, 64)
	case Fibonacci:
		s = "fib b"
	default:
		return fmt.Sprintf("growth(%d)", f.Growth)
	}
	switch {
	case f.Growth == Fixed:
	case f.Cap > 0:
		s += " cap " + FormatDuration(f.Cap)
	case f.CapRatio > 0:
		s += " cap " + strconv.FormatFloat(f.CapRatio, 'g', -1, 64) + "b"
	}
	if f.Jitter.Kind != NoJitter {
		s += ", " + Schedule{Jitter: f.Jitter}.String()
	}
	return s
}

// Schedule returns the family's member with the given base gap: a poll at
// age 0, one phase of the family's growth until its last poll before the
// horizon, then a single gap d to the horizon ("exp 1s x1.5 cap 30s until
// 1m44.888s, 15.112s"); when d would be shorter than f.MinGap, that last
// poll moves to the horizon instead. A jittered family writes the last gap
// as "every d until horizon", the same poll unjittered, and jitters "to
// horizon" (Jitter.ToHorizon): its jittered gaps never poll after the
// horizon, and every draw polls at it. The cap is Cap, or else
// CapRatio·base rounded to the phase's Grain, and never below the base;
// Linear's step is StepRatio·base, rounded so. It panics if base or
// horizon is not positive, or the family's parameters are out of range.
func (f Family) Schedule(base, horizon time.Duration) Schedule {
	if base <= 0 || horizon <= 0 {
		panic(fmt.Sprintf("optimize: Family.Schedule: base %v and horizon %v must be positive", base, horizon))
	}
	p := Phase{Growth: f.Growth, Gap: base, Until: horizon}
	switch f.Growth {
	case Fixed:
	case Linear:
		p.Step = base
		if f.StepRatio > 0 {
			p.Step = max(p.round(float64(base)*f.StepRatio, MaxGapAt), 1)
		}
	case Exponential:
		p.Factor = f.Factor
	case Polynomial:
		p.Exponent = f.Exponent
	case Fibonacci:
	default:
		panic(fmt.Sprintf("optimize: Family.Schedule: growth %d is not a family shape", f.Growth))
	}
	switch {
	case f.Growth == Fixed:
	case f.Cap > 0:
		p.Cap = max(f.Cap, base)
	case f.CapRatio > 0:
		p.Cap = max(p.round(float64(base)*f.CapRatio, MaxGapAt), base)
	}
	s := Schedule{Name: f.Name, Phases: []Phase{p}}
	if err := s.Validate(); err != nil {
		panic("optimize: Family.Schedule: " + err.Error())
	}
	polls := s.Polls()
	if last := polls[len(polls)-1]; last < horizon {
		if horizon-last < f.MinGap && len(polls) > 1 {
			// The cut gap would be shorter than the minimum gap: the last
			// poll moves to the horizon instead.
			last = polls[len(polls)-2]
		}
		rest := Phase{Growth: Once, Gap: horizon - last}
		if f.Jitter.Kind != NoJitter {
			// The same poll unjittered; jittered, the gaps of this phase
			// and the one that would pass the horizon ends at it
			// (ToHorizon), so that every draw polls at the horizon.
			rest = Phase{Growth: Fixed, Gap: horizon - last, Until: horizon}
		}
		if last == 0 { // the first gap passes the horizon
			s.Phases = []Phase{rest}
		} else {
			s.Phases[0].Until = last // the same polls, ending at last
			s.Phases = append(s.Phases, rest)
		}
	}
	s.Jitter = f.Jitter
	s.Jitter.ToHorizon = f.Jitter.Kind != NoJitter
	return s
}

// minBase returns the smallest base gap worth trying: one tuning step
// (tuneStep), f.MinGap, or more when the schedule would otherwise exceed
// MaxPolls over the horizon; a whole number of steps.
func (f Family) minBase(horizon time.Duration) time.Duration {
	step := tuneStep(horizon)
	b := max(step, f.MinGap, time.Duration(math.Ceil(float64(horizon)/(MaxPolls-2))))
	return (b + step - 1).Truncate(step)
}

// tuneStep is the grain of the base gaps Tune tries: 1 ms, or for short
// horizons the power of ten at most horizon/10⁴ (100 µs over a second), so
// that sub-second schedules are tuned as finely, relative to their horizon,
// as the brief's 15-minute ones; at least 1 ns.
func tuneStep(horizon time.Duration) time.Duration {
	step := time.Millisecond
	for step > 1 && step > horizon/10_000 {
		step /= 10
	}
	return step
}
