package optimize

import (
	"fmt"
	"math"
	"slices"
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
//	            divides H
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
// H/ResolutionCells, so the grid has at least that many cells (about as
// many again at most, from rounding down to a nice step).
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

// ResolutionFor returns the default resolution for horizon h: the largest
// nice duration at most h/ResolutionCells that divides h (1 ns divides
// every horizon).
func ResolutionFor(h time.Duration) time.Duration {
	target := max(h/ResolutionCells, 1)
	for i := len(niceLadder) - 1; i >= 0; i-- {
		if r := niceLadder[i]; r <= target && h%r == 0 {
			return r
		}
	}
	return 1
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
		o.Resolution = ResolutionFor(o.Horizon)
	}
	if o.MinGap == 0 {
		o.MinGap = MinGapFor(o.Horizon, o.Resolution)
	}
	if o.NiceGaps == nil {
		o.NiceGaps = NiceDurations(o.MinGap, o.Horizon)
	}
	return o.check()
}
