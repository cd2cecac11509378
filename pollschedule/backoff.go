package pollschedule

import (
	"context"
	"errors"
	"math/rand/v2"
	"time"
)

// Stop is what NextBackOff returns when the schedule is over: -1, the
// value of backoff.Stop in github.com/cenkalti/backoff v4 and v5.
const Stop time.Duration = -1

// ErrHorizon is returned by BackOff.Poll when the schedule ends with no
// answer.
var ErrHorizon = errors.New("pollschedule: no answer by the horizon of the schedule")

// BackOff runs a Schedule. Ages count from the item's creation: the moment
// Poll is called, or the moment a Reset takes effect. A wall-clock phase
// polls at instants of the UTC clock that Now reads (see clock.go): the
// creation instant is Now at Poll's call (or at a Signal's restart), and
// for NextBackOff, Now at its first call after creation or Reset less
// Start, since that call follows the first poll. The first poll is at
// the schedule's Start and counts; NextBackOff then returns the gaps
// between consecutive polls, its first call the gap between the first and
// the second poll, and Stop once the next poll would come after the
// horizon, until Reset.
//
// BackOff satisfies the BackOff interface of github.com/cenkalti/backoff
// v4 and v5 (NextBackOff, Reset) without importing it. Their Retry makes
// its first attempt at once and measures no horizon by the clock: wait
// Start first for a schedule that starts later, and give v5's Retry
// backoff.WithMaxElapsedTime(b.Horizon()), since its default of 15
// minutes cuts longer schedules (docs/export.md). Poll keeps the horizon
// by the clock itself.
//
// The zero value, without a Schedule, stops at once. A BackOff is not
// safe for concurrent use.
type BackOff struct {
	// Schedule is the schedule run; nil makes no poll after the first.
	Schedule *Schedule
	// Rand returns numbers uniform on [0, 1) for jitter; nil means
	// math/rand/v2's Float64.
	Rand func() float64
	// After waits as time.After does; nil means time.After. Now returns the
	// current time; nil means time.Now. Tests inject a fake clock. Now
	// also places the polls of a wall-clock phase, so it must read the
	// wall clock (time.Now's does).
	After func(time.Duration) <-chan time.Time
	Now   func() time.Time
	// Signal, when not nil, restarts Poll's schedule at age 0 on every
	// receive (a push, the app in the foreground): Poll waits Start and
	// follows the gaps from the first phase again.
	Signal <-chan struct{}

	state   state
	started bool
}

// Start returns the age of the first poll.
func (b *BackOff) Start() time.Duration {
	if b.Schedule == nil {
		return 0
	}
	return b.Schedule.Start
}

// Horizon returns the age after which no poll is made.
func (b *BackOff) Horizon() time.Duration {
	if b.Schedule == nil {
		return 0
	}
	return b.Schedule.Horizon()
}

// NextBackOff returns the wait from the poll just made to the next one:
// its first call after creation or Reset returns the gap between the first
// poll (at Start) and the second. It returns Stop when the next poll would
// come after the horizon, and keeps returning it until Reset.
func (b *BackOff) NextBackOff() time.Duration {
	if b.Schedule == nil {
		return Stop
	}
	if !b.started {
		var created time.Time
		if b.Schedule.Clocked() {
			created = b.now().Add(-b.Schedule.Start)
		}
		b.begin(created)
	}
	rnd := b.Rand
	if rnd == nil {
		rnd = rand.Float64
	}
	g, _ := b.state.next(b.Schedule, rnd)
	return g
}

// begin starts the schedule of an item created at the instant created
// (read only by wall-clock phases).
func (b *BackOff) begin(created time.Time) {
	b.state = state{age: b.Schedule.Start}
	if b.Schedule.Clocked() {
		b.state.created = created.UnixNano()
	}
	b.started = true
}

func (b *BackOff) now() time.Time {
	if b.Now != nil {
		return b.Now()
	}
	return time.Now()
}

// Reset restarts the schedule: the next NextBackOff returns the first gap
// again, so the poll made after Reset is the schedule's first.
func (b *BackOff) Reset() { b.started = false }

// GapAfter returns the wait from age to the first poll of the unjittered
// schedule later than age, or Stop when there is none (see
// Schedule.GapAfter), for an item that is age old now: the polls of a
// wall-clock phase are those of an item created at Now less age. It does
// not change b's state.
func (b *BackOff) GapAfter(age time.Duration) time.Duration {
	if b.Schedule == nil {
		return Stop
	}
	var created int64
	if b.Schedule.Clocked() {
		created = b.now().Add(-age).UnixNano()
	}
	return b.Schedule.gapAfter(created, age)
}

// Poll calls check at the poll times of the schedule, ages counted by the
// clock from the call, until check reports done or returns an error (Poll
// returns that error; return false and no error to keep polling through a
// transient failure), ctx is done (Poll returns ctx.Err()) or the schedule
// ends (Poll returns ErrHorizon). A receive on Signal restarts the
// schedule. Poll resets b first.
//
// Each poll waits for its age in the schedule, not for a gap after the
// previous check returned, so a slow check does not push the later polls
// back: when a check outlasts the gap to the next poll, that poll starts
// as soon as the check returns. Poll never makes more checks than the
// schedule's polls, and no check starts after the horizon (beyond the
// lateness of the timer that wakes it). Elapsed time is the larger of the
// clock's (Now) and the sum of the waits made (After).
//
// The check has the type of k8s.io/apimachinery's
// wait.ConditionWithContextFunc.
func (b *BackOff) Poll(ctx context.Context, check func(ctx context.Context) (done bool, err error)) error {
	after, now := b.After, b.Now
	if after == nil {
		after = time.After
	}
	if now == nil {
		now = time.Now
	}
	t0, target, horizon := now(), b.Start(), b.Horizon()
	b.start(t0)
	var slept time.Duration // the waits made: a fake After alone also works
	for {
		elapsed := max(now().Sub(t0), slept)
		if elapsed > horizon {
			return ErrHorizon // slow checks took us past the horizon
		}
		wait := max(target-elapsed, 0)
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-b.Signal:
			t0, target, slept = now(), b.Start(), 0
			b.start(t0)
			continue
		case <-after(wait):
			slept += wait
		}
		if err := ctx.Err(); err != nil {
			return err // done while the timer fired: no check
		}
		if done, err := check(ctx); err != nil || done {
			return err
		}
		g := b.NextBackOff()
		if g < 0 {
			return ErrHorizon
		}
		target += g
	}
}

// start starts Poll's schedule for an item created at t0.
func (b *BackOff) start(t0 time.Time) {
	if b.Schedule == nil {
		b.Reset()
		return
	}
	b.begin(t0)
}
