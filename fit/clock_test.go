package fit

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

// batchInstants draws n items created evenly over span from the Unix
// instant start: a share settles at the first boundary k·period + phase
// after a ready time of LogNormal(median 20 s, 0.6), plus minDelay +
// Exp(meanDelay); the rest LogNormal(median 3 s, 0.7) after creation.
// Instants are rounded to grain.
func batchInstants(seed uint64, n int, start time.Time, span time.Duration, share float64, period, phase, minDelay, meanDelay, grain time.Duration) (settled, created []int64) {
	rng := rand.New(rand.NewPCG(seed, 14))
	for i := range n {
		c := start.UnixNano() + int64(float64(span)*(float64(i)+rng.Float64())/float64(n))
		var e int64
		if rng.Float64() < share {
			ready := c + int64(20e9*math.Exp(0.6*rng.NormFloat64()))
			k := (ready - int64(phase)) / int64(period)
			e = (k+1)*int64(period) + int64(phase) + int64(minDelay) + int64(float64(meanDelay)*rng.ExpFloat64())
		} else {
			e = c + int64(3e9*math.Exp(0.7*rng.NormFloat64()))
		}
		g := int64(grain)
		settled = append(settled, e/g*g)
		created = append(created, c/g*g)
	}
	return settled, created
}

func TestDetectClock(t *testing.T) {
	day := time.Date(2025, 3, 1, 0, 0, 0, 0, time.UTC)
	ms, s := time.Millisecond, time.Second
	for _, c := range []struct {
		name                   string
		n                      int
		span                   time.Duration
		share                  float64
		period, phase          time.Duration
		minDelay, meanDelay    time.Duration
		grain                  time.Duration
		wantPeriod, wantOffset time.Duration
		// Quantiles of the delay after the offset: minDelay−offset +
		// meanDelay·ln 2 and ·ln 20 for the exponential part.
	}{
		{"bank files every 5m", 5000, 24 * time.Hour, 0.7, 5 * time.Minute, 0, 500 * ms, 500 * ms, ms, 5 * time.Minute, 0},
		{"blocks every 12s", 20000, 24 * time.Hour, 0.6, 12 * s, 0, 100 * ms, 300 * ms, ms, 12 * s, 0},
		{"cron at :07 and :37", 8000, 48 * time.Hour, 0.5, 30 * time.Minute, 7 * time.Minute, 2 * s, 3 * s, ms, 30 * time.Minute, 7*time.Minute + 2*s},
		{"hourly at :30, whole seconds", 4000, 72 * time.Hour, 0.4, time.Hour, 30 * time.Minute, 0, 10 * s, s, time.Hour, 30 * time.Minute},
		{"every minute, microseconds", 30000, 12 * time.Hour, 0.3, time.Minute, 0, 50 * ms, 200 * ms, time.Microsecond, time.Minute, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			set, cr := batchInstants(1, c.n, day, c.span, c.share, c.period, c.phase, c.minDelay, c.meanDelay, c.grain)
			got, ok, why := DetectClock(set, cr)
			if !ok {
				t.Fatalf("no clock found: %s", why)
			}
			if got.Period != c.wantPeriod {
				t.Errorf("period %v, want %v", got.Period, c.wantPeriod)
			}
			if d := got.Offset - c.wantOffset; d < -time.Second || d > time.Second {
				t.Errorf("offset %v, want %v within 1s", got.Offset, c.wantOffset)
			}
			// The share caught in the window: all batch items bar the
			// exponential tail past it, give or take sampling (4 sd).
			sd := math.Sqrt(c.share * (1 - c.share) / float64(c.n))
			if math.Abs(got.Share-c.share) > 0.03+4*sd {
				t.Errorf("share %.3f, want %.3f", got.Share, c.share)
			}
			wantMedian := c.phase + c.minDelay + time.Duration(float64(c.meanDelay)*math.Ln2) - got.Offset
			if d := got.DelayMedian - wantMedian; math.Abs(float64(d)) > 0.1*float64(c.meanDelay)+float64(c.grain) {
				t.Errorf("median delay %v, want %v", got.DelayMedian, wantMedian)
			}
		})
	}
}

// TestDetectClockUnsure: half an hour of batches every 5 minutes spans 6
// periods, too few to test 5m itself: the minute boundaries show them, and
// the result says it cannot tell 1m from 5m (2m it can: 2m splits the peak).
func TestDetectClockUnsure(t *testing.T) {
	day := time.Date(2025, 3, 1, 0, 0, 0, 0, time.UTC)
	set, _ := batchInstants(3, 5000, day, 30*time.Minute, 0.8, 5*time.Minute, 0, 0, time.Second, time.Millisecond)
	got, ok, _ := DetectClock(set, nil)
	if !ok || got.Period != time.Minute || !strings.Contains(got.Unsure, "too few periods of 5m to tell batches every 1m from batches every 5m") {
		t.Errorf("DetectClock = %+v, %v; want 1m, unsure of 5m", got, ok)
	}
}

func TestDetectClockNone(t *testing.T) {
	day := time.Date(2025, 3, 1, 0, 0, 0, 0, time.UTC)
	continuous, _ := batchInstants(2, 20000, day, 24*time.Hour, 0, time.Minute, 0, 0, time.Second, time.Millisecond)
	few, _ := batchInstants(4, 50, day, 24*time.Hour, 0.8, 5*time.Minute, 0, 0, time.Second, time.Millisecond)
	// A cron starts jobs at :00 of every hour and they run 10 s ± 1 s:
	// settles cluster after :00, but creations cluster just as much.
	var cronSet, cronCreated []int64
	rng := rand.New(rand.NewPCG(5, 14))
	for i := range 5000 {
		c := day.UnixNano() + int64(i%72)*int64(time.Hour) + rng.Int64N(int64(time.Second))
		if i%3 == 0 { // and a third created at any time
			c = day.UnixNano() + rng.Int64N(int64(72*time.Hour))
		}
		cronCreated = append(cronCreated, c)
		cronSet = append(cronSet, c+int64(10e9+1e9*rng.NormFloat64()))
	}
	for _, c := range []struct {
		name             string
		settled, created []int64
		want             string
	}{
		{"continuous", continuous, nil, "no wall-clock batches"},
		{"50 items", few, nil, "too few"},
		{"cron-created jobs", cronSet, cronCreated, "created in batches"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, ok, why := DetectClock(c.settled, c.created)
			if ok || !strings.Contains(why, c.want) {
				t.Errorf("DetectClock = %+v, %v, %q; want none, %q", got, ok, why, c.want)
			}
		})
	}
}

// TestMeasureClock: a stated period and boundary give the share and the
// delays after that boundary; a boundary stated a minute late puts the
// delays 4 minutes after it (5m − 1m + 0.5 s + 0.5 s·ln 2).
func TestMeasureClock(t *testing.T) {
	day := time.Date(2025, 3, 1, 0, 0, 0, 0, time.UTC)
	set, cr := batchInstants(1, 5000, day, 24*time.Hour, 0.7, 5*time.Minute, 0, 500*time.Millisecond, 500*time.Millisecond, time.Millisecond)
	wantMedian := 500*time.Millisecond + time.Duration(math.Round(0.5e9*math.Ln2))
	for _, c := range []struct {
		offset, want time.Duration
	}{
		{0, wantMedian},
		{time.Minute, 4*time.Minute + wantMedian},
		{-1, wantMedian}, // found: the boundary rounds down to 0s
	} {
		got := MeasureClock(set, cr, 5*time.Minute, c.offset)
		if math.Abs(got.Share-0.7) > 0.04 || got.Created > 0.02 {
			t.Errorf("offset %v: share %.3f created %.3f, want 0.7 and about 0", c.offset, got.Share, got.Created)
		}
		if d := got.DelayMedian - c.want; d < -50*time.Millisecond || d > 50*time.Millisecond {
			t.Errorf("offset %v: median delay %v, want %v", c.offset, got.DelayMedian, c.want)
		}
	}
	if got := MeasureClock(set, cr, 7*time.Second, 0); got.Share > 0.05 {
		t.Errorf("a period of 7s: share %.3f, want none", got.Share)
	}
}
