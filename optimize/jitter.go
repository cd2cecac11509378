package optimize

import (
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
	// bounded by 3·g ("sleep = min(cap, random_between(base, sleep*3))"
	// with the scheduled gap as base and 3 times it as cap).
	DecorrelatedJitter
	// PercentJitter draws each gap uniformly from [g·(1−p), g·(1+p)].
	PercentJitter
)

// Jitter randomises a schedule's gaps. Jitter is applied after a phase's
// cap, so a jittered gap may exceed the cap by the jitter's spread.
type Jitter struct {
	Kind    JitterKind
	Percent float64 // PercentJitter: the spread p as a fraction, 0 < p < 1
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

// next returns the jittered form of scheduled gap g, never below 1ms so
// that polls stay strictly increasing.
func (s *jitterSeq) next(g time.Duration) time.Duration {
	var out time.Duration
	switch s.j.Kind {
	case NoJitter:
		return g
	case FullJitter:
		out = time.Duration(s.rng.Float64() * float64(g))
	case EqualJitter:
		out = g/2 + time.Duration(s.rng.Float64()*float64(g-g/2))
	case DecorrelatedJitter:
		prev := s.prev
		if prev < g {
			prev = g
		}
		hi := 3 * prev
		out = g + time.Duration(s.rng.Float64()*float64(hi-g))
		if out > 3*g {
			out = 3 * g
		}
		s.prev = out
	case PercentJitter:
		out = time.Duration(float64(g) * (1 - s.j.Percent + 2*s.j.Percent*s.rng.Float64()))
	}
	if out < time.Millisecond {
		out = time.Millisecond
	}
	return out
}
