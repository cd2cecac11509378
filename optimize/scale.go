package optimize

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"
)

// Scale-free defaults.
//
// Settle times come in every unit and scale: API latencies of a few
// milliseconds, payments of seconds to minutes, batch jobs of hours. The
// solvers' defaults therefore follow the horizon H, itself taken from the
// distribution when not given, so that the same data in milliseconds or in
// hours get the same schedule up to the unit:
//
//	Horizon     the nice duration at or above the HorizonQuantile quantile
//	            of the settled mass (NiceCeil)
//	Resolution  the largest nice duration at most H/ResolutionCells that
//	            divides H and every gap the schedule may use (the nice
//	            gaps from MinGap on: 2 ms over 30 s, not 3 ms, which
//	            500ms, 1s and 5s are no multiples of)
//	MinGap      the nice duration nearest H/MinGapDivisor (and at least
//	            the resolution)
//	NiceGaps    the nice durations from MinGap to H
//
// Nice durations are the values people write in a config: 1, 1.5, 2, 3
// and 5 times a power of ten below 10 s (…, 100ms, 150ms, 200ms, 300ms,
// 500ms, 1s, 1.5s, …), then the clock's own steps: 10, 15, 20, 30 and 45
// seconds, 1, 1.5, 2, 3, 5, 10, 15, 20, 30 and 45 minutes, 1, 1.5, 2, 3,
// 4, 6, 8, 12 and 18 hours, and days.

// HorizonQuantile is the share of the settled mass by the default
// horizon, before rounding up to a nice duration.
const HorizonQuantile = 0.99

// ResolutionCells bounds the default grid: the resolution is at most
// H/ResolutionCells, so the grid has at least that many cells (a few
// times as many at most, from rounding down to a nice step that divides
// the gaps; see ResolutionFor).
const ResolutionCells = 8192

// MinGapDivisor sets the default minimum gap, the nice duration nearest
// H/MinGapDivisor: 1 s over a 15-minute horizon (the brief's finest gap),
// 10 s over 2 hours, 10 ms over 10 s.
const MinGapDivisor = 1000

// niceLadder holds every nice duration, ascending.
var niceLadder = func() []time.Duration {
	out := []time.Duration{1, 2, 3, 5} // ns
	for p := time.Duration(10); p <= time.Second; p *= 10 {
		out = append(out, p, p*3/2, 2*p, 3*p, 5*p)
	}
	const s, m, h, day = time.Second, time.Minute, time.Hour, 24 * time.Hour
	return append(out,
		10*s, 15*s, 20*s, 30*s, 45*s,
		m, 90*s, 2*m, 3*m, 5*m, 10*m, 15*m, 20*m, 30*m, 45*m,
		h, 90*m, 2*h, 3*h, 4*h, 6*h, 8*h, 12*h, 18*h,
		day, 36*h, 2*day, 3*day, 5*day, 7*day, 10*day, 14*day, 21*day, 30*day,
		45*day, 60*day, 90*day, 120*day, 180*day, 270*day, 365*day)
}()

// NiceDurations returns the nice durations d with lo ≤ d ≤ hi, ascending.
func NiceDurations(lo, hi time.Duration) []time.Duration {
	i, _ := slices.BinarySearch(niceLadder, lo)
	j, found := slices.BinarySearch(niceLadder, hi)
	if found {
		j++
	}
	if i >= j {
		return nil
	}
	return slices.Clone(niceLadder[i:j])
}

// NiceCeil returns the least nice duration at or above d (d itself when it
// exceeds every nice duration, about a year).
func NiceCeil(d time.Duration) time.Duration {
	i, _ := slices.BinarySearch(niceLadder, d)
	if i == len(niceLadder) {
		return d
	}
	return niceLadder[i]
}

// NiceFloor returns the greatest nice duration at or below d, at least
// 1 ns.
func NiceFloor(d time.Duration) time.Duration {
	i, found := slices.BinarySearch(niceLadder, d)
	if found {
		return niceLadder[i]
	}
	if i == 0 {
		return niceLadder[0]
	}
	return niceLadder[i-1]
}

// HorizonFor returns the default horizon for d: NiceCeil of the
// HorizonQuantile quantile of the settled mass, and that quantile, in
// seconds. The settled mass is F(∞), read as d.CDF at 10¹² s (a
// fit.Density stays at its last value beyond its grid). The quantile is
// found by bisection of ln t on [1 ns, 10¹² s]. It returns an error
// wrapping ErrOptions when d settles nothing.
func HorizonFor(d Distribution) (time.Duration, float64, error) {
	const tMin, tMax = 1e-9, 1e12
	top, err := cdfAt(d, tMax)
	if err != nil {
		return 0, 0, err
	}
	if !(top > 0) {
		return 0, 0, fmt.Errorf("%w: the distribution settles nothing, so no horizon follows from it: set one", ErrOptions)
	}
	p := HorizonQuantile * top
	lo, hi := math.Log(tMin), math.Log(tMax)
	if f, err := cdfAt(d, tMin); err != nil {
		return 0, 0, err
	} else if f >= p {
		hi = lo
	}
	for range 200 {
		if hi-lo < 1e-9 {
			break
		}
		mid := (lo + hi) / 2
		f, err := cdfAt(d, math.Exp(mid))
		if err != nil {
			return 0, 0, err
		}
		if f >= p {
			hi = mid
		} else {
			lo = mid
		}
	}
	q := math.Exp(hi)
	return HorizonAbove(q), q, nil
}

// HorizonAbove returns the nice duration at or above q seconds (at least
// 1 µs), the default horizon when q is the HorizonQuantile quantile of the
// settle times.
func HorizonAbove(q float64) time.Duration {
	d := time.Duration(math.Ceil(q * 1e9))
	return NiceCeil(max(d, time.Microsecond))
}

// ResolutionSpread bounds how much finer than h/ResolutionCells the
// default resolution may go so as to divide the gaps a schedule may use:
// the grid has at most about ResolutionSpread·ResolutionCells cells,
// unless no nice duration that fine divides the horizon.
const ResolutionSpread = 4

// ResolutionFor returns the default resolution for horizon h and the
// durations a phased schedule may use (its gaps and phase ends, every one
// of them at most h): the largest nice duration r ≤ h/ResolutionCells
// that divides h and every one of them. Gaps that are not multiples of
// the resolution drop out of the schedule's candidates, so a grid of
// h/ResolutionCells rounded down to any nice step (3 ms over 30 s) would
// lose 500ms, 1s, 5s …; r is the largest nice divisor of the greatest
// common divisor instead (2 ms there). When no such r is at least
// h/ResolutionCells/ResolutionSpread (gaps finer than the grid, or not
// nice), it is the r in that range, dividing h, that divides the most of
// them, the largest on a tie; when no nice duration in that range
// divides h, the largest below it that does (1 ns divides every
// horizon). With no gaps, it is the largest nice duration at most
// h/ResolutionCells that divides h.
func ResolutionFor(h time.Duration, gaps []time.Duration) time.Duration {
	target := max(h/ResolutionCells, 1)
	floor := (target + ResolutionSpread - 1) / ResolutionSpread
	best, bestN := time.Duration(0), -1
	for i := len(niceLadder) - 1; i >= 0; i-- {
		r := niceLadder[i]
		if r > target || h%r != 0 {
			continue
		}
		if best > 0 && r < floor {
			break
		}
		n := 0
		for _, g := range gaps {
			if g%r == 0 {
				n++
			}
		}
		if n > bestN {
			best, bestN = r, n
		}
		if n == len(gaps) {
			break
		}
	}
	return max(best, 1)
}

// DefaultResolution returns the resolution Resolve gives o when
// o.Resolution is zero; o.Horizon must be set. It divides every gap and
// phase end the schedule may use (see ResolutionFor): the nice gaps (by
// default the nice durations from the min gap to the horizon; the min
// gap by default NiceNearest(horizon/MinGapDivisor)) between the min gap
// and the horizon or the max gap, and the nice bounds below the horizon.
func (o Options) DefaultResolution() time.Duration {
	h := o.Horizon
	minGap := o.MinGap
	if minGap == 0 {
		minGap = NiceNearest(h / MinGapDivisor)
	}
	gaps := o.NiceGaps
	if gaps == nil {
		gaps = NiceDurations(minGap, h)
	}
	var use []time.Duration
	for _, g := range gaps {
		if g >= minGap && g <= h && (o.MaxGap == 0 || g <= o.MaxGap) {
			use = append(use, g)
		}
	}
	for _, u := range o.NiceBounds {
		if u > 0 && u < h {
			use = append(use, u)
		}
	}
	return ResolutionFor(h, use)
}

// DroppedGaps returns the nice gaps of resolved options o that the
// phased solver leaves out for not being multiples of o.Resolution: those
// it would use otherwise (between the min gap, or the resolution when
// larger, and the horizon or the max gap), ascending.
func (o Options) DroppedGaps() []time.Duration {
	var out []time.Duration
	if o.Resolution <= 0 {
		return nil
	}
	for _, g := range o.NiceGaps {
		if g >= max(o.MinGap, o.Resolution) && g <= o.Horizon && (o.MaxGap == 0 || g <= o.MaxGap) && g%o.Resolution != 0 {
			out = append(out, g)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// MinGapFor returns the default minimum gap for horizon h at resolution
// res: the nice duration nearest h/MinGapDivisor (on a log scale), and at
// least res.
func MinGapFor(h, res time.Duration) time.Duration {
	return max(NiceNearest(h/MinGapDivisor), res)
}

// NiceNearest returns the nice duration nearest d on a log scale (the
// lower one on a tie).
func NiceNearest(d time.Duration) time.Duration {
	lo, hi := NiceFloor(d), NiceCeil(d)
	if d <= 0 || float64(hi)/float64(d) < float64(d)/float64(lo) {
		return hi
	}
	return lo
}

// Resolve returns o with every zero field set to its default for d (see
// the scale-free defaults above), and checks the result: the errors wrap
// ErrOptions. The solvers call it; callers use it to show the settings a
// solve will use.
func (o Options) Resolve(d Distribution) (Options, error) {
	if o.Horizon == 0 {
		h, _, err := HorizonFor(d)
		if err != nil {
			return o, err
		}
		o.Horizon = h
	}
	if o.Horizon < 0 || o.Resolution < 0 || o.MinGap < 0 || o.MaxGap < 0 {
		return o, fmt.Errorf("%w: horizon, resolution, min gap and max gap must not be negative", ErrOptions)
	}
	if o.Resolution == 0 {
		o.Resolution = o.DefaultResolution()
	}
	if o.MinGap == 0 {
		o.MinGap = MinGapFor(o.Horizon, o.Resolution)
	}
	if o.NiceGaps == nil {
		o.NiceGaps = NiceDurations(o.MinGap, o.Horizon)
	}
	return o.check()
}

// formatDurations joins durations with ", ".
func formatDurations(ds []time.Duration) string {
	parts := make([]string, len(ds))
	for i, d := range ds {
		parts[i] = FormatDuration(d)
	}
	return strings.Join(parts, ", ")
}

// plural returns one for n = 1, else many.
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
