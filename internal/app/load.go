package app

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/pollfit/pollfit/internal/app/plot"
	"github.com/pollfit/pollfit/optimize"
)

// Load turns polls per item into requests per second at the server.
//
// With items arriving at Arrivals per second, each making MeanPolls polls
// on average over its life, the server sees in the steady state
//
//	steady = Arrivals · MeanPolls   requests/s
//
// (the rate of a stationary stream is arrivals times work per arrival:
// Little's law, L = λ·W, with polls in place of time). A burst of Burst
// items created together (a batch import, a retry storm) polls in
// lockstep under an unjittered schedule, so its peak is
//
//	peak = Burst · max over t of #{polls in [t, t+1s)}   requests/s
//
// counting every poll of the schedule, as if no item of the burst settled
// (the worst case, and the right one for a burst of stuck items). The
// window is half-open, so polls exactly 1 s apart fall in different
// windows. Jittered schedules spread a burst by design; their peak is not
// computed.
//
// A wall-clock phase (optimize.WallClock) makes every item whose age lies
// in its window poll at the same instants of the clock, a burst of its
// own: an item polls at an instant T of the phase when its age there is
// past the phase's start a (its last poll at a fixed age) and its age at
// the phase's instant before T, up to the longest gap g between the
// phase's instants (the period, for one offset), was before the bound U,
// and no later than the horizon. With no item settling, the most requests
// at one instant are
//
//	herd = Arrivals · (min(U + g, horizon) − a)
//
// taking for U the last wall-clock bound when there are several (their
// instants may meet). The burst peak of such a schedule is not computed.
type Load struct {
	Arrivals float64 // items per second; 0 means no load figures
	Burst    int     // items created together; 0 means no peak figure
}

// ParseRate reads an arrival rate "N/s", "N/min" (or "N/m") or "N/h" as
// items per second, for the flag named flag.
func ParseRate(flag, s string) (float64, error) {
	num, unit, ok := strings.Cut(strings.TrimSpace(s), "/")
	per := map[string]float64{"s": 1, "sec": 1, "m": 60, "min": 60, "h": 3600, "hour": 3600}[strings.TrimSpace(unit)]
	v, err := strconv.ParseFloat(strings.TrimSpace(num), 64)
	if !ok || per == 0 || err != nil || !(v > 0) || v > 1e12 {
		return 0, Usagef("--%s %q: want a positive rate such as 50/s, 2000/min or 100/h", flag, s)
	}
	return v / per, nil
}

// PeakPolls returns the most polls in any half-open window [t, t+window)
// of the increasing poll times: the window that starts at some poll
// (moving the start up to the next poll loses nothing), found with two
// pointers in O(n).
func PeakPolls(polls []time.Duration, window time.Duration) int {
	best, j := 0, 0
	for i := range polls {
		for j < len(polls) && polls[j] < polls[i]+window {
			j++
		}
		best = max(best, j-i)
	}
	return best
}

// loadRow is one schedule's load.
type loadRow struct {
	Segment   string   `json:"segment,omitempty"` // see report.Row
	Name      string   `json:"name"`
	MeanPolls float64  `json:"mean_polls"`
	Steady    float64  `json:"steady_rps"`
	PeakPolls *int     `json:"peak_polls_1s,omitempty"`
	Peak      *float64 `json:"burst_peak_rps,omitempty"`
	// Herd is the most requests at one instant of the clock under a
	// schedule with a wall-clock phase (see Load), HerdText the phase.
	Herd     *float64 `json:"wall_clock_peak_requests,omitempty"`
	HerdText string   `json:"-"`
}

// rows computes the load of each scored schedule; scores must have data.
func (l Load) rows(scheds []optimize.Schedule, scores []optimize.Score) []loadRow {
	out := make([]loadRow, len(scheds))
	for i, s := range scheds {
		r := loadRow{Name: scores[i].Name, MeanPolls: scores[i].MeanPolls, Steady: l.Arrivals * scores[i].MeanPolls}
		if s.Clocked() {
			w, text := clockWindow(s)
			h := l.Arrivals * w.Seconds()
			r.Herd, r.HerdText = &h, text
		} else if s.Jitter.Kind == optimize.NoJitter {
			n := PeakPolls(s.Polls(), time.Second)
			r.PeakPolls = &n
			if l.Burst > 0 {
				p := float64(l.Burst * n)
				r.Peak = &p
			}
		}
		out[i] = r
	}
	return out
}

// clockWindow returns min(U + g, horizon) − a of a schedule with
// wall-clock phases (see Load): the span of creation instants whose items
// poll at one instant of the clock together, at most; and its wall-clock
// phases as a spec writes them. The horizon is the last Until when the
// last phase repeats; else no bound.
func clockWindow(s optimize.Schedule) (time.Duration, string) {
	_, from, text := plot.FixedPolls(s)
	var until, gap time.Duration
	for _, p := range s.Phases {
		if p.Growth != optimize.WallClock {
			continue
		}
		until = p.Until
		for j, o := range p.Offsets {
			next := p.Gap + p.Offsets[0] // the first instant of the next period
			if j+1 < len(p.Offsets) {
				next = p.Offsets[j+1]
			}
			gap = max(gap, next-o)
		}
	}
	end := until + gap
	if n := len(s.Phases); s.Phases[n-1].Growth != optimize.Once {
		end = min(end, s.Phases[n-1].Until)
	}
	return end - from, text
}

// writeLoad prints the load table.
func (l Load) write(w io.Writer, rows []loadRow) error {
	fmt.Fprintf(w, "\nserver load at %s items/s", strconv.FormatFloat(l.Arrivals, 'g', 4, 64))
	if l.Burst > 0 {
		fmt.Fprintf(w, "; peak of a burst of %d items created together (unjittered schedules, no item settling)", l.Burst)
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	head := "schedule\tmean polls\tsteady req/s\tmax polls in 1s\t"
	if l.Burst > 0 {
		head += "burst peak req/s\t"
	}
	fmt.Fprintln(tw, head)
	for _, r := range rows {
		peak, burst := "—", "—"
		if r.PeakPolls != nil {
			peak = strconv.Itoa(*r.PeakPolls)
		}
		if r.Peak != nil {
			burst = strconv.FormatFloat(*r.Peak, 'f', 0, 64)
		}
		line := fmt.Sprintf("%s\t%.2f\t%.4g\t%s\t", r.Name, r.MeanPolls, r.Steady, peak)
		if l.Burst > 0 {
			line += burst + "\t"
		}
		fmt.Fprintln(tw, line)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, r := range rows {
		if r.Herd != nil {
			fmt.Fprintf(w, "%s: its wall-clock phase, %s, polls every item of its window at the same instants: up to %.0f requests at once (no item settling)\n",
				r.Name, r.HerdText, *r.Herd)
		}
	}
	return nil
}
