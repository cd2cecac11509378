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

// ErrUnanswered is what a check passed to BackOff.Poll returns when it
// could not learn the item's status (its request failed): Poll goes on
// polling as after false, but the check does not count as one that saw
// the item pending (Observation.LastPending). Wrapped errors count too.
var ErrUnanswered = errors.New("pollschedule: the check got no answer")

// Observation is what BackOff.Poll's checks saw of one item, ages counted
// from Poll's call (a Signal's restart does not reset them): the item
// settled after LastPending and by FirstSettled, an interval-censored
// settle time. Logged for each item, as
//
//	item_id,last_pending_s,first_settled_s
//	pay_1,3.004,8.121
//	pay_2,884.003,
//
// (first_settled_s empty while Settled is false), it is what pollfit reads
// to fit the settle times the schedule in use saw (pollfit plan
// --settled-after last_pending_s --column first_settled_s; docs/export.md):
// the ages at which it found items settled are discovery times, not settle
// times.
type Observation struct {
	// LastPending is the age at which the last check that found the item
	// pending (returned false and no error) was called, 0 when none did:
	// the item was still pending then. When no check found it settled, it
	// was pending at LastPending and is right-censored there.
	LastPending time.Duration
	// FirstSettled is the age at which the check that found the item
	// settled (returned true) returned: the item had settled by then. It
	// is 0 when Settled is false.
	FirstSettled time.Duration
	// Settled reports whether a check found the item settled; Poll then
	// returned nil.
	Settled bool
}

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
	// Observed, when not nil, is called once as Poll returns, with what
	// its checks saw of the item (Observation): log it so that the next
	// fit learns from the schedule in use.
	Observed func(Observation)

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
// wait.ConditionWithContextFunc. A check that returns ErrUnanswered (a
// failed request) keeps Poll polling without counting as having seen the
// item pending; Observed, when set, receives the ages at which the checks
// saw the item pending and settled (Observation).
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
	// The observation's ages count from the call, through restarts.
	origin, sleptAll := t0, time.Duration(0)
	var seen Observation
	if b.Observed != nil {
		defer func() { b.Observed(seen) }()
	}
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
			sleptAll += wait
		}
		if err := ctx.Err(); err != nil {
			return err // done while the timer fired: no check
		}
		asked := max(now().Sub(origin), sleptAll)
		done, err := check(ctx)
		switch {
		case errors.Is(err, ErrUnanswered):
		case err != nil:
			return err
		case done:
			seen.FirstSettled, seen.Settled = max(now().Sub(origin), sleptAll), true
			return nil
		default:
			seen.LastPending = asked
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
