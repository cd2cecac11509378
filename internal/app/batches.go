package app

import (
	"fmt"
	"math"
	"time"

	"github.com/pollfit/pollfit/fit"
	"github.com/pollfit/pollfit/ingest"
	"github.com/pollfit/pollfit/optimize"
)

// Batches says how plan and fit treat wall-clock batches: Period is ""
// (look for them in the settle instants), "off" (don't), or a duration
// that states the batches' period; Offset states their boundary within it
// ("" finds it).
type Batches struct {
	Period, Offset string
}

// batchSettings are Batches parsed.
type batchSettings struct {
	off    bool
	period time.Duration // 0: detect
	offset time.Duration // < 0: find
}

func (b Batches) parse() (batchSettings, error) {
	s := batchSettings{offset: -1}
	switch b.Period {
	case "", "auto":
	case "off":
		s.off = true
		if b.Offset != "" {
			return s, Usagef("--batch-offset %q with --batch-period off: leave one out", b.Offset)
		}
		return s, nil
	default:
		p, err := ParseDuration("batch-period", b.Period)
		if err != nil {
			return s, Usagef("--batch-period %q: want auto, off, or a period such as 5m or 12s", b.Period)
		}
		if p < time.Second || p > 7*24*time.Hour {
			return s, Usagef("--batch-period %q: want a period from 1s to 7 days, such as 5m or 12s (or off)", b.Period)
		}
		s.period = p
	}
	if b.Offset != "" {
		if s.period == 0 {
			return s, Usagef("--batch-offset %q needs --batch-period: the offset places the boundary within a stated period", b.Offset)
		}
		o, err := ParseDuration("batch-offset", b.Offset)
		if err != nil {
			return s, err
		}
		if o < 0 || o >= s.period {
			return s, Usagef("--batch-offset %q: want a duration from 0s to below the period %s", b.Offset, optimize.FormatDuration(s.period))
		}
		s.offset = o
	}
	return s, nil
}

// batchFinding is what plan and fit found, or were told, about wall-clock
// batches in one sample.
type batchFinding struct {
	Clock  fit.Clock
	Found  bool   // a pattern to plan for: detected, or stated
	Stated bool   // --batch-period gave it
	Why    string // why there is none
}

// settledInstants returns the settle instants (Unix ns) of the sample's
// settled items and their creation instants, every k-th settled item when
// there are more than fit.ClockMaxItems: the items DetectClock and
// MeasureClock examine, without copies of the rest. Nil when the sample
// has no creation instants.
func settledInstants(s *ingest.Sample) (settled, created []int64) {
	if s.Created == nil {
		return nil, nil
	}
	n := s.Len() - s.CensoredCount()
	step := max(1, n/fit.ClockMaxItems)
	settled, created = make([]int64, 0, n/step+1), make([]int64, 0, n/step+1)
	j := 0
	for i, t := range s.Times {
		if s.IsCensored(i) {
			continue
		}
		if j%step == 0 {
			settled = append(settled, s.Created[i]+int64(math.Round(t*1e9)))
			created = append(created, s.Created[i])
		}
		j++
	}
	return settled, created
}

// find looks for, or measures, wall-clock batches in the sample; nil when
// switched off, or left at auto on an input without timestamps (durations
// alone carry no clock). A stated --batch-period without timestamps is a
// usage error.
func (b batchSettings) find(s *ingest.Sample) (*batchFinding, error) {
	if b.off {
		return nil, nil
	}
	if s.Created == nil {
		if b.period > 0 {
			return nil, Usagef("--batch-period %s needs the items' timestamps: give --start (creation) with --column or --end, or --end (settle) with --column; or --batch-period off", optimize.FormatDuration(b.period))
		}
		return nil, nil
	}
	settled, created := settledInstants(s)
	if b.period > 0 {
		c := fit.MeasureClock(settled, created, b.period, b.offset)
		return &batchFinding{Clock: c, Found: true, Stated: true}, nil
	}
	c, ok, why := fit.DetectClock(settled, created)
	return &batchFinding{Clock: c, Found: ok, Why: why}, nil
}

// String says what was found, in one line.
func (f *batchFinding) String() string {
	if !f.Found {
		return f.Why
	}
	return "wall-clock batches " + f.describe()
}

// describe says what was found, after "wall-clock batches".
func (f *batchFinding) describe() string {
	c := f.Clock
	how := "detected; --batch-period states another, off ignores them"
	if f.Stated {
		how = "as --batch-period states"
	}
	s := fmt.Sprintf("every %s, boundaries %s past each (UTC): %.0f%% of settles, %s after the boundary (median; p95 %s); %s",
		optimize.FormatDuration(c.Period), optimize.FormatDuration(c.Offset), 100*c.Share,
		optimize.FormatDuration(c.DelayMedian.Round(time.Millisecond)), optimize.FormatDuration(c.DelayP95.Round(time.Millisecond)), how)
	if c.Unsure != "" {
		s += "\n   note: " + c.Unsure
	}
	return s
}

// clockJSON is the JSON form of a batchFinding.
type clockJSON struct {
	Found         bool    `json:"found"`
	Stated        bool    `json:"stated,omitempty"`
	PeriodMS      float64 `json:"period_ms,omitempty"`
	OffsetMS      float64 `json:"offset_ms,omitempty"`
	Share         float64 `json:"share,omitempty"`
	DelayMedianMS float64 `json:"delay_median_ms,omitempty"`
	DelayP95MS    float64 `json:"delay_p95_ms,omitempty"`
	CreatedShare  float64 `json:"created_share,omitempty"`
	Z             float64 `json:"z,omitempty"`
	Unsure        string  `json:"unsure,omitempty"`
	Why           string  `json:"why,omitempty"`
}

func (f *batchFinding) json() *clockJSON {
	if f == nil {
		return nil
	}
	c := f.Clock
	ms := func(d time.Duration) float64 { return float64(d) / 1e6 }
	out := &clockJSON{Found: f.Found, Stated: f.Stated, Why: f.Why}
	if f.Found {
		out.PeriodMS, out.OffsetMS, out.Share = ms(c.Period), ms(c.Offset), c.Share
		out.DelayMedianMS, out.DelayP95MS, out.CreatedShare, out.Z, out.Unsure = ms(c.DelayMedian), ms(c.DelayP95), c.Created, c.Z, c.Unsure
	}
	return out
}

// timedOf returns the sample's items with their creation instants for
// scoring schedules with wall-clock phases; nil without creation instants.
func timedOf(s *ingest.Sample) *optimize.Timed {
	if s == nil || s.Created == nil {
		return nil
	}
	return optimize.NewTimed(s.Times, s.Censored, s.Created)
}
