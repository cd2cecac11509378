package optimize

import (
	"errors"
	"fmt"
	"time"
)

// JitterKind names a way of randomising gaps, after the AWS Architecture
// Blog, "Exponential Backoff And Jitter" (Brooker, 2015).
type JitterKind int

const (
	// NoJitter keeps every gap as the schedule gives it.
	NoJitter JitterKind = iota
	// FullJitter draws each gap uniformly from [0, g].
	FullJitter
	// EqualJitter draws each gap uniformly from [g/2, g].
	EqualJitter
	// DecorrelatedJitter draws each gap uniformly from [g, 3·previous],
	// at most 3·g ("sleep = min(cap, random_between(base, sleep*3))" with
	// the scheduled gap as base and 3 times it as cap), where previous is
	// the last jittered gap.
	DecorrelatedJitter
	// PercentJitter draws each gap uniformly from [g·(1−p), g·(1+p)].
	PercentJitter
)

// Jitter randomises a schedule's gaps. It is applied to each gap g after
// the phase's cap, and the jittered gap is then bounded on both sides:
//
//	lo ≤ jittered ≤ limit
//	lo    = min(1ms, max(1ns, g/1000)), so that polls stay strictly increasing
//	limit = the phase's Cap when positive (Phase.GapAt), else unbounded
//
// No jittered gap is above the cap: decorrelated and percent jitter, whose
// draws may exceed g, are cut at the cap (as in Brooker's
// "min(cap, random_between(…))"), so a gap already at the cap keeps it
// under decorrelated jitter and gets [g·(1−p), cap] under percent jitter,
// the cap with probability one half. Full and equal jitter never exceed g.
// The floor lo is 1ms for gaps of a second or more, and scales down with
// the gap below that, so that full jitter on a 150µs gap is not lifted to
// a millisecond.
//
// A jittered walk stops at the horizon: the gap that would pass it is not
// made (the rule of Phase), so its last poll may come up to one jittered
// gap before the horizon even when the unjittered schedule polls at the
// horizon itself. ToHorizon keeps that last poll: the jittered gap that
// would pass the horizon of a schedule whose last phase repeats ends at
// the horizon instead, so every draw polls at the horizon and catches
// every item settling by it, as the unjittered schedule does. The baseline
// families jitter this way (see Family), so that a jittered family is
// compared at the coverage of the schedules it is compared with; a spec
// writes it "jitter full to horizon". No runtime (pollschedule, generated
// code) implements it, so export refuses it.
type Jitter struct {
	Kind      JitterKind
	Percent   float64 // PercentJitter: the spread p as a fraction, 0 < p < 1
	ToHorizon bool    // the jittered gap that would pass the horizon ends at it
}

// Rand is the source of randomness for jitter; *math/rand/v2.Rand satisfies it.
type Rand interface {
	Float64() float64 // uniform on [0, 1)
}

func (j Jitter) validate() error {
	if j.Kind == PercentJitter && !(j.Percent > 0 && j.Percent < 1) {
		return fmt.Errorf("jitter ±%v%% must be between 0%% and 100%%", j.Percent*100)
	}
	if j.Kind < NoJitter || j.Kind > PercentJitter {
		return fmt.Errorf("unknown jitter kind %d", j.Kind)
	}
	if j.ToHorizon && j.Kind == NoJitter {
		return errors.New(`"to horizon" needs a jitter: an unjittered schedule polls where its gaps fall`)
	}
	return nil
}

// jitterSeq carries the state decorrelated jitter needs between gaps.
type jitterSeq struct {
	j    Jitter
	rng  Rand
	prev time.Duration
}

func (j Jitter) sequence(rng Rand) *jitterSeq {
	if rng == nil {
		j = Jitter{}
	}
	return &jitterSeq{j: j, rng: rng}
}

// next returns the jittered form of scheduled gap g, at least
// min(1ms, max(1ns, g/1000)) and at most limit (see Jitter).
func (s *jitterSeq) next(g, limit time.Duration) time.Duration {
	var out time.Duration
	switch s.j.Kind {
	case NoJitter:
		return g
	case FullJitter:
		out = time.Duration(s.rng.Float64() * float64(g))
	case EqualJitter:
		out = g/2 + time.Duration(s.rng.Float64()*float64(g-g/2))
	case DecorrelatedJitter:
		prev := max(s.prev, g)
		out = min(g+time.Duration(s.rng.Float64()*float64(3*prev-g)), 3*g)
	case PercentJitter:
		out = time.Duration(float64(g) * (1 - s.j.Percent + 2*s.j.Percent*s.rng.Float64()))
	}
	out = min(max(out, jitterFloor(g)), limit)
	s.prev = out
	return out
}

// jitterFloor returns the shortest jittered form of a scheduled gap g:
// min(1ms, max(1ns, g/1000)).
func jitterFloor(g time.Duration) time.Duration {
	return min(time.Millisecond, max(1, g/1000))
}
