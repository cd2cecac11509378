package pollschedule

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"
)

// TestPollObserved pins the observations of Poll on a fake clock, every
// 1s until 10s (polls at 0, 1, …, 10 s), worked out by hand: the age of
// the last check that saw the item pending and of the first that saw it
// settled (after its 250 ms); unanswered checks count for neither; a
// restart does not reset the ages.
func TestPollObserved(t *testing.T) {
	s := &Schedule{Phases: []Phase{{Growth: Fixed, Gap: time.Second, Until: 10 * time.Second}}}
	other := errors.New("boom")
	for _, tc := range []struct {
		name    string
		answers []any // per check: true, false, ErrUnanswered or an error
		restart int   // restart the schedule before this check (1-based), 0: never
		want    Observation
		err     error
	}{
		{"settles at the fifth", []any{false, ErrUnanswered, false, fmt.Errorf("timeout: %w", ErrUnanswered), true}, 0,
			Observation{LastPending: 2 * time.Second, FirstSettled: 4*time.Second + 250*time.Millisecond, Settled: true}, nil},
		{"first check settled", []any{true}, 0, Observation{FirstSettled: 250 * time.Millisecond, Settled: true}, nil},
		{"never settles", []any{false, false, false, false, false, false, false, false, false, false, false}, 0, Observation{LastPending: 10 * time.Second}, ErrHorizon},
		{"error", []any{false, false, other}, 0, Observation{LastPending: time.Second}, other},
		// Restarted after the second check (at 1 s): the third is made at
		// once, 1 s after the call (the restarted schedule's age 0), the
		// fourth 1 s later; without the restart they were at 2 s and 3 s.
		{"restart", []any{false, false, false, true}, 3, Observation{LastPending: time.Second, FirstSettled: 2*time.Second + 250*time.Millisecond, Settled: true}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var now time.Duration
			signal := make(chan struct{}, 1)
			var got []Observation
			b := &BackOff{Schedule: s, Signal: signal,
				Now: func() time.Time { return time.Unix(0, int64(now)) },
				After: func(d time.Duration) <-chan time.Time {
					c := make(chan time.Time, 1)
					if len(signal) == 0 { // a pending restart comes first
						now += d
						c <- time.Time{}
					}
					return c
				},
				Observed: func(o Observation) { got = append(got, o) },
			}
			n := 0
			err := b.Poll(context.Background(), func(context.Context) (bool, error) {
				a := tc.answers[n]
				n++
				if n+1 == tc.restart {
					signal <- struct{}{}
				}
				if a == true {
					now += 250 * time.Millisecond // the request that saw it settled
				}
				switch a := a.(type) {
				case bool:
					return a, nil
				case error:
					return false, a
				}
				return false, nil
			})
			if !errors.Is(err, tc.err) {
				t.Errorf("Poll = %v, want %v", err, tc.err)
			}
			if len(got) != 1 || got[0] != tc.want {
				t.Errorf("observed %+v, want [%+v]", got, tc.want)
			}
		})
	}
}
