package pollschedule_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/cenkalti/backoff/v5"
	"github.com/pollfit/pollfit/pollschedule"
)

// schedule.json as `pollfit export --lang json` writes it: every 10ms
// until 100ms, and a segment that starts slower.
const scheduleJSON = `{
  "version": 1,
  "spec": "every 10ms until 100ms",
  "start_ms": 0,
  "horizon_ms": 100,
  "phases": [{"growth": "fixed", "gap_ms": 10, "until_ms": 100}],
  "segments": {
    "wallet": {"start_ms": 0, "phases": [{"growth": "exponential", "gap_ms": 20, "factor": 2, "cap_ms": 40, "until_ms": 200}]}
  }
}`

func ExampleRead() {
	doc, err := pollschedule.Read(strings.NewReader(scheduleJSON)) // or pollschedule.ReadFile("schedule.json")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(doc.SegmentNames())
	fmt.Println(doc.Lookup("wallet").Polls())
	fmt.Println(doc.Lookup("card").Polls()) // no schedule of its own: the overall one
	// Output:
	// [wallet]
	// [0s 20ms 60ms 100ms 140ms 180ms]
	// [0s 10ms 20ms 30ms 40ms 50ms 60ms 70ms 80ms 90ms 100ms]
}

// A BackOff drives cenkalti/backoff v5's Retry. Retry's own limit of 15
// minutes on the elapsed time would cut a longer schedule silently: pass
// the schedule's horizon instead, which also keeps the horizon by the
// clock when the operation is slow.
func ExampleBackOff_retry() {
	doc, err := pollschedule.Read(strings.NewReader(scheduleJSON))
	if err != nil {
		fmt.Println(err)
		return
	}
	b := doc.BackOff("wallet")
	attempt := 0
	status, err := backoff.Retry(context.Background(), func() (string, error) {
		attempt++
		if attempt < 3 {
			return "", errors.New("pending")
		}
		return "settled", nil
	}, backoff.WithBackOff(b), backoff.WithMaxElapsedTime(b.Horizon()))
	fmt.Println(status, err, "after", attempt, "attempts")
	// Output:
	// settled <nil> after 3 attempts
}

// Poll calls the check at the schedule's poll times until it reports done;
// the check has the type of k8s.io/apimachinery's
// wait.ConditionWithContextFunc.
func ExampleBackOff_Poll() {
	doc, err := pollschedule.Read(strings.NewReader(scheduleJSON))
	if err != nil {
		fmt.Println(err)
		return
	}
	b := doc.BackOff("")
	start := time.Now()
	n := 0
	err = b.Poll(context.Background(), func(context.Context) (bool, error) {
		n++
		return n == 4, nil
	})
	fmt.Println(err, n, time.Since(start) >= 30*time.Millisecond)
	// Output:
	// <nil> 4 true
}

// A wall-clock phase polls at instants of the UTC clock: here 1 s and
// 2.5 s after each 5 minutes, once the first 10 s have passed. Its polls
// depend on when the item was created.
func ExampleSchedule_PollsAt() {
	doc, err := pollschedule.Read(strings.NewReader(`{
  "version": 1,
  "spec": "every 1s until 10s, after each 5m (+1s +2.5s) until 15m",
  "start_ms": 0,
  "phases": [
    {"growth": "fixed", "gap_ms": 1000, "until_ms": 10000},
    {"growth": "wall_clock", "period_ms": 300000, "offsets_ms": [1000, 2500], "until_ms": 900000}
  ]
}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	created := time.Date(2025, 3, 1, 0, 3, 17, 0, time.UTC)
	for _, age := range doc.Schedule.PollsAt(created)[10:] {
		fmt.Println(created.Add(age).Format(time.TimeOnly+".9"), age)
	}
	// Output:
	// 00:03:27 10s
	// 00:05:01 1m44s
	// 00:05:02.5 1m45.5s
	// 00:10:01 6m44s
	// 00:10:02.5 6m45.5s
	// 00:15:01 11m44s
	// 00:15:02.5 11m45.5s
}

// Observed reports, as Poll returns, the ages at which its checks saw the
// item pending and settled: the interval its settle time lies in. Logged
// per item, it is what the next `pollfit plan --settled-after
// last_pending_s --column first_settled_s` fits; a check whose request
// failed returns ErrUnanswered, which neither bounds it.
func ExampleBackOff_Poll_observed() {
	doc, err := pollschedule.Read(strings.NewReader(scheduleJSON))
	if err != nil {
		fmt.Println(err)
		return
	}
	b := doc.BackOff("")
	var now time.Duration // a fake clock: After advances it at once
	b.Now = func() time.Time { return time.Unix(0, int64(now)) }
	b.After = func(d time.Duration) <-chan time.Time {
		now += d
		c := make(chan time.Time, 1)
		c <- time.Time{}
		return c
	}
	b.Observed = func(o pollschedule.Observation) {
		settled := ""
		if o.Settled {
			settled = fmt.Sprintf("%.3f", o.FirstSettled.Seconds())
		}
		fmt.Printf("pay_1,%.3f,%s\n", o.LastPending.Seconds(), settled)
	}
	n := 0
	err = b.Poll(context.Background(), func(context.Context) (bool, error) {
		n++
		switch n {
		case 3:
			return false, pollschedule.ErrUnanswered // the request failed
		case 5:
			now += 2 * time.Millisecond // the request's own time
			return true, nil
		}
		return false, nil
	})
	fmt.Println(err)
	// Output:
	// pay_1,0.030,0.042
	// <nil>
}
