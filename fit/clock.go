package fit

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"
)

// Clock is a wall-clock batch pattern found in settle instants: a share of
// the items settle just after the boundaries k·Period + Offset of Unix time
// (UTC), an upstream that works in batches (a bank file every 5 minutes, a
// block every 12 s, a cron job at :00 and :30).
type Clock struct {
	Period time.Duration // time between boundaries
	Offset time.Duration // the boundaries' place in the period, [0, Period)
	// Share is the share of settled items that settle in the batches: the
	// excess over the even spread of the rest, in the window after the
	// boundary.
	Share float64
	// DelayMedian and DelayP95 are quantiles of the time from the boundary
	// to the settle instant of the items in the window.
	DelayMedian, DelayP95 time.Duration
	// Window is how long after the boundary the batches' settles spread.
	Window time.Duration
	// Z is the excess's size in standard deviations of the count an even
	// spread would put in the window (Poisson), a measure of certainty.
	Z float64
	// Created is the share of items created in such a window of the same
	// period, when creation instants were given: near Share, the batches
	// are of creation, not of settling, and an age schedule follows them.
	Created float64
	// Items is the number of settle instants examined.
	Items int
	// Grain is the resolution of the instants (1 s when they are whole
	// seconds): periods below 20 grains cannot be told from it.
	Grain time.Duration
	// Unsure, when not empty, says why the period may be a divisor of the
	// true one: the instants span too few of its multiples to test them.
	Unsure string
}

// Thresholds of DetectClock: a pattern is reported when its excess holds
// at least ClockMinShare of the settled items, stands ClockMinZ standard
// deviations above an even spread, spreads over at most a quarter of the
// period, and the instants span at least ClockMinPeriods periods.
const (
	ClockMinShare   = 0.05
	ClockMinZ       = 8
	ClockMinPeriods = 8
	ClockMaxItems   = 200_000 // instants examined: every ⌊n/ClockMaxItems⌋-th, fewer than twice this
	clockBins       = 200
)

// ClockPeriods are the periods DetectClock tries: whole seconds from 2 s
// to 1 minute, whole minutes to an hour, and 2, 3, 4, 6, 8, 12 and 24
// hours, the periods of clocks, crons and block times.
var ClockPeriods = func() []time.Duration {
	var ps []time.Duration
	for s := 2; s <= 60; s++ {
		ps = append(ps, time.Duration(s)*time.Second)
	}
	for m := 2; m <= 60; m++ {
		ps = append(ps, time.Duration(m)*time.Minute)
	}
	for _, h := range []int{2, 3, 4, 6, 8, 12, 24} {
		ps = append(ps, time.Duration(h)*time.Hour)
	}
	return ps
}()

// DetectClock looks for wall-clock batches in settle instants (Unix ns,
// UTC); created, when not nil, holds the same items' creation instants.
// It returns the pattern and true, or why there is none and false. When
// the creation instants peak on the same period with at least half the
// settles' share, the batches are of creation (a cron that starts jobs):
// it returns the pattern, false and that reason.
//
// For each period P of ClockPeriods that the instants span ClockMinPeriods
// times and that is at least 20 times their grain, it bins the instants'
// phases t mod P (200 bins, or one per grain) and finds the peak: the run
// of bins around the fullest that stand 3 Poisson deviations above the
// median bin (the even spread of items that settle at any time). Its
// excess over the median is the batch share. A period's divisors show the
// same peak (boundaries every 5 minutes are also minute boundaries) and
// its multiples split it, so the largest period whose share is within 80%
// of the largest share is the batches' period. The boundary is the first
// percentile of the peak's phases, rounded down to a round instant (1 s
// for periods of a minute or more, 100 ms from 10 s, else 10 ms).
// Every k-th instant is examined, k = ⌊n/ClockMaxItems⌋ (fewer than 400,000).
func DetectClock(settled, created []int64) (Clock, bool, string) {
	if created != nil && len(created) != len(settled) {
		panic("fit: DetectClock: settled and created lengths differ")
	}
	n := len(settled)
	if n < 100 {
		return Clock{}, false, fmt.Sprintf("no wall-clock batches looked for: %d settle %s too few (want 100)", n, plural(n, "instant is", "instants are"))
	}
	xs, cs := clockSubsample(settled, created)
	grain := instantGrain(xs)
	lo, hi := slices.Min(xs), slices.Max(xs)
	span := time.Duration(hi - lo)
	type found struct {
		p  time.Duration
		pk peak
	}
	var all []found
	bestShare := 0.0
	var longest time.Duration // the longest period tested
	for _, p := range ClockPeriods {
		if p < 20*grain || span < ClockMinPeriods*p {
			continue
		}
		longest = p
		pk := findPeak(xs, p, grain)
		if pk.share < ClockMinShare || pk.z < ClockMinZ || pk.width > p/4 {
			continue
		}
		all = append(all, found{p: p, pk: pk})
		bestShare = max(bestShare, pk.share)
	}
	if len(all) == 0 {
		if longest == 0 {
			return Clock{Items: len(xs), Grain: grain}, false, fmt.Sprintf("no wall-clock batches looked for: the settle instants span %s in steps of %s, and a period from %s to %s is tested only over %d of them, each of at least 20 steps", fmtDur(span), fmtDur(grain), fmtDur(ClockPeriods[0]), fmtDur(ClockPeriods[len(ClockPeriods)-1]), ClockMinPeriods)
		}
		return Clock{Items: len(xs), Grain: grain}, false, fmt.Sprintf("no wall-clock batches: no period from %s to %s (the %s of settle instants span %d of them) holds %.0f%% of settles in a peak after its boundaries", fmtDur(ClockPeriods[0]), fmtDur(longest), fmtDur(span), ClockMinPeriods, ClockMinShare*100)
	}
	var pick found
	for _, f := range all {
		if f.pk.share >= 0.8*bestShare && f.p > pick.p {
			pick = f
		}
	}
	p := pick.p
	c := describe(xs, cs, p, pick.pk, grain, -1)
	for _, q := range ClockPeriods {
		if q > p && q <= 10*p && q%p == 0 && span < ClockMinPeriods*q {
			c.Unsure = fmt.Sprintf("the %s of settle instants span too few periods of %s to tell batches every %s from batches every %s", fmtDur(span), shortDur(q), shortDur(p), shortDur(q))
			break
		}
	}
	if cs != nil && c.Created >= 0.5*c.Share {
		return c, false, fmt.Sprintf("no wall-clock batches of settling: %.0f%% of settles fall in a window after every %s, but %.0f%% of creations do too: the items are created in batches, which an age schedule follows",
			c.Share*100, shortDur(p), c.Created*100)
	}
	return c, true, ""
}

// MeasureClock describes the batches of a stated period and boundary
// offset (offset < 0: found as DetectClock finds it) in settle instants
// (Unix ns) and, when not nil, the same items' creation instants: the
// share in the peak after the boundaries, the delays after them. The
// share is 0 when no bin stands out.
func MeasureClock(settled, created []int64, period, offset time.Duration) Clock {
	if created != nil && len(created) != len(settled) {
		panic("fit: MeasureClock: settled and created lengths differ")
	}
	if len(settled) == 0 || period <= 0 {
		return Clock{Period: period, Offset: max(offset, 0)}
	}
	xs, cs := clockSubsample(settled, created)
	grain := min(instantGrain(xs), period)
	pk := findPeak(xs, period, grain)
	if pk.share == 0 {
		return Clock{Period: period, Offset: max(offset, 0), Items: len(xs), Grain: grain}
	}
	return describe(xs, cs, period, pk, grain, offset)
}

// clockSubsample returns every k-th instant, k = ⌊n/ClockMaxItems⌋ (so
// fewer than 2·ClockMaxItems), or the input itself when k is 1.
func clockSubsample(settled, created []int64) (xs, cs []int64) {
	step := max(1, len(settled)/ClockMaxItems)
	if step == 1 {
		return settled, created
	}
	for i := 0; i < len(settled); i += step {
		xs = append(xs, settled[i])
		if created != nil {
			cs = append(cs, created[i])
		}
	}
	return xs, cs
}

// describe returns the Clock of period p whose peak is pk: the boundary
// (offset, or when negative the first percentile of the peak's phases
// rounded down to 1 s for periods of a minute or more, 100 ms from 10 s,
// else 10 ms), the delays after it, and the creation instants' share in a
// peak of the same period.
func describe(xs, cs []int64, p time.Duration, pk peak, grain, offset time.Duration) Clock {
	c := Clock{Period: p, Share: pk.share, Z: pk.z, Window: pk.width, Items: len(xs), Grain: grain}
	var ph []int64 // the peak's phases, from its first bin
	for _, x := range xs {
		if d := mod(x-pk.start, int64(p)); d < int64(pk.width) {
			ph = append(ph, d)
		}
	}
	slices.Sort(ph)
	if offset >= 0 {
		c.Offset = time.Duration(mod(int64(offset), int64(p)))
	} else {
		round := time.Second
		switch {
		case p < 10*time.Second:
			round = 10 * time.Millisecond
		case p < time.Minute:
			round = 100 * time.Millisecond
		}
		first := pk.start + ph[len(ph)/100]
		c.Offset = time.Duration(mod(first-mod(first, int64(round)), int64(p)))
	}
	delays := make([]int64, len(ph))
	for i, d := range ph {
		delays[i] = mod(pk.start+d-int64(c.Offset), int64(p))
	}
	slices.Sort(delays)
	c.DelayMedian = time.Duration(delays[len(delays)/2])
	c.DelayP95 = time.Duration(delays[len(delays)*95/100])
	if cs != nil {
		c.Created = findPeak(cs, p, min(instantGrain(cs), p)).share
	}
	return c
}

// peak is the fullest run of bins of the phases modulo a period.
type peak struct {
	start int64         // phase where the run starts, ns
	width time.Duration // the run's length
	share float64       // its excess over the median bin, share of all
	z     float64       // the excess in Poisson deviations of the median
}

// findPeak bins the instants' phases modulo p and returns the run of bins
// around the fullest that stand 3 deviations above the median bin.
func findPeak(xs []int64, p, grain time.Duration) peak {
	bins := clockBins
	if k := int(p / grain); k < bins {
		bins = k
	}
	// Bins of a whole number of grains, so that instants on the grain
	// spread evenly.
	width := int64(p) / int64(bins)
	if g := int64(grain); width%g != 0 {
		width = (width/g + 1) * g
		bins = int((int64(p) + width - 1) / width)
	}
	counts := make([]float64, bins)
	for _, x := range xs {
		counts[mod(x, int64(p))/width]++
	}
	sorted := slices.Clone(counts)
	slices.Sort(sorted)
	base := sorted[bins/2]
	top := 0
	for i, v := range counts {
		if v > counts[top] {
			top = i
		}
	}
	limit := base + 3*math.Sqrt(base+1)
	if counts[top] <= limit {
		return peak{}
	}
	first, last := top, top
	for k := 1; k < bins/2 && counts[(top-k+bins)%bins] > limit; k++ {
		first = (top - k + bins) % bins
	}
	for k := 1; k < bins/2 && counts[(top+k)%bins] > limit; k++ {
		last = (top + k) % bins
	}
	nb := (last - first + bins) % bins
	nb++
	var excess, expect float64
	for k := range nb {
		excess += counts[(first+k)%bins] - base
		expect += base
	}
	return peak{
		start: int64(first) * width,
		width: time.Duration(int64(nb) * width),
		share: excess / float64(len(xs)),
		z:     excess / math.Sqrt(expect+1),
	}
}

// instantGrain returns the largest of 1 m, 1 s, 100 ms, 10 ms, 1 ms, 1 µs
// and 1 ns that divides every instant.
func instantGrain(xs []int64) time.Duration {
	for _, g := range []time.Duration{time.Minute, time.Second, 100 * time.Millisecond, 10 * time.Millisecond, time.Millisecond, time.Microsecond} {
		if !slices.ContainsFunc(xs, func(x int64) bool { return x%int64(g) != 0 }) {
			return g
		}
	}
	return time.Nanosecond
}

// mod returns x mod p in [0, p).
func mod(x, p int64) int64 {
	r := x % p
	if r < 0 {
		r += p
	}
	return r
}

// shortDur prints d as Go does without zero tails: 5m, 24h, 1m30s.
func shortDur(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = s[:len(s)-2]
	}
	if strings.HasSuffix(s, "h0m") {
		s = s[:len(s)-2]
	}
	return s
}

// fmtDur prints a span in the largest whole unit that fits.
func fmtDur(d time.Duration) string {
	switch {
	case d >= 48*time.Hour:
		return fmt.Sprintf("%.1f days", d.Hours()/24)
	case d >= time.Hour && d%time.Hour == 0:
		return fmt.Sprintf("%dh", d/time.Hour)
	case d >= time.Hour:
		return fmt.Sprintf("%.1f hours", d.Hours())
	case d >= time.Second:
		// 10m, not time's 10m0s.
		s := d.Round(time.Second).String()
		if strings.HasSuffix(s, "m0s") {
			s = strings.TrimSuffix(s, "0s")
		}
		return s
	default:
		return d.String()
	}
}
