package optimize

import (
	"math"
	"slices"
	"testing"
	"time"

	"gonum.org/v1/gonum/stat/distuv"
)

func TestNiceDurations(t *testing.T) {
	ms, s, m, h := time.Millisecond, time.Second, time.Minute, time.Hour
	for _, tt := range []struct {
		d                    time.Duration
		floor, ceil, nearest time.Duration
	}{
		{900 * ms, 500 * ms, s, s},
		{7200 * ms, 5 * s, 10 * s, 10 * s}, // 7.2/5 = 1.44 > 10/7.2 = 1.39
		{6 * s, 5 * s, 10 * s, 5 * s},
		{40 * s, 30 * s, 45 * s, 45 * s},
		{100 * s, 90 * s, 2 * m, 90 * s},
		{25 * m, 20 * m, 30 * m, 30 * m},
		{5 * h, 4 * h, 6 * h, 6 * h},
		{3600 * time.Microsecond, 3 * ms, 5 * ms, 3 * ms},
		{37 * time.Microsecond, 30 * time.Microsecond, 50 * time.Microsecond, 30 * time.Microsecond},
		{2 * s, 2 * s, 2 * s, 2 * s},
	} {
		if got := NiceFloor(tt.d); got != tt.floor {
			t.Errorf("NiceFloor(%v) = %v, want %v", tt.d, got, tt.floor)
		}
		if got := NiceCeil(tt.d); got != tt.ceil {
			t.Errorf("NiceCeil(%v) = %v, want %v", tt.d, got, tt.ceil)
		}
		if got := NiceNearest(tt.d); got != tt.nearest {
			t.Errorf("NiceNearest(%v) = %v, want %v", tt.d, got, tt.nearest)
		}
	}
	got := NiceDurations(700*ms, 50*s)
	want := []time.Duration{s, 1500 * ms, 2 * s, 3 * s, 5 * s, 10 * s, 15 * s, 20 * s, 30 * s, 45 * s}
	if !slices.Equal(got, want) {
		t.Errorf("NiceDurations(700ms, 50s) = %v, want %v", got, want)
	}
	if !slices.IsSorted(niceLadder) || len(slices.Compact(slices.Clone(niceLadder))) != len(niceLadder) {
		t.Errorf("the ladder is not strictly increasing: %v", niceLadder)
	}
}

// The default resolution is the largest nice duration at most H/8192
// dividing H and every nice gap from the default min gap up, their
// greatest common divisor (by hand below); the min gap the nice duration
// nearest H/1000.
func TestResolutionAndMinGapFollowHorizon(t *testing.T) {
	ms, s, m, h := time.Millisecond, time.Second, time.Minute, time.Hour
	for _, tt := range []struct {
		h, res, minGap time.Duration
	}{
		{15 * m, 100 * ms, s},                   // 109.9 ms; 900 ms ~ 1 s; gaps 1s, 1.5s, 2s…: gcd 500 ms ↓ 100 ms
		{2 * h, 500 * ms, 10 * s},               // 879 ms; 7.2 s ~ 10 s; gaps 10s, 15s, 20s…: gcd 5 s ↓ 500 ms
		{10 * s, ms, 10 * ms},                   // 1.22 ms; gaps 10ms, 15ms…: gcd 5 ms ↓ 1 ms
		{7 * s, 500 * time.Microsecond, 5 * ms}, // 854 µs: 750 µs does not divide 7 s… 500 µs does
		{30 * 24 * h, 5 * m, 45 * m},            // 316 s; 43.2 m ~ 45 m; gaps 45m, 1h, 90m…: gcd 15 m ↓ 5 m
		{time.Microsecond, 1, 1},                // the grid cannot be finer than 1 ns
		// 3.66 ms; gaps 30ms, 50ms, 100ms, 150ms…: gcd 10 ms ↓ 2 ms, where
		// the nice step below 3.66 ms, 3 ms, would leave out 50ms, 100ms,
		// 500ms, 1s, 5s, 10s, 20s.
		{30 * s, 2 * ms, 30 * ms},
		{5 * m, 20 * ms, 300 * ms}, // 36.6 ms; gaps 300ms, 500ms, 1s…: gcd 100 ms ↓ 20 ms (not 30 ms)
	} {
		res := Options{Horizon: tt.h}.DefaultResolution()
		if res != tt.res || tt.h%res != 0 {
			t.Errorf("DefaultResolution(%v) = %v, want %v", tt.h, res, tt.res)
		}
		if got := MinGapFor(tt.h, res); got != tt.minGap {
			t.Errorf("MinGapFor(%v, %v) = %v, want %v", tt.h, res, got, tt.minGap)
		}
	}
}

// niceGCD returns the greatest common divisor of the nice durations in
// [lo, hi] and h.
func niceGCD(h, lo, hi time.Duration) time.Duration {
	g := h
	for _, d := range niceLadder {
		if d >= lo && d <= hi {
			for d != 0 {
				g, d = d, g%d
			}
		}
	}
	return g
}

// The default resolution against brute force over the ladder, for
// horizons from 1 µs to a year (nice ones and not) and min gaps from
// below the grid to the horizon: the largest nice r ≤ H/8192 that
// divides H and every nice gap from the min gap to H. Where that r is
// finer than H/8192/ResolutionSpread (min gaps below the grid), the
// resolution stays within the spread and divides the most gaps it can,
// and below the grid no gap is lost that a resolution in the spread
// could keep.
func TestResolutionDividesNiceGaps(t *testing.T) {
	var horizons []time.Duration
	for _, d := range niceLadder {
		if d >= time.Microsecond {
			horizons = append(horizons, d)
		}
	}
	horizons = append(horizons, 7*time.Second, 42*time.Second, 13*time.Minute, 25*time.Hour, 1234567*time.Microsecond)
	var worst, worstDefault float64
	for _, h := range horizons {
		target := max(h/ResolutionCells, 1)
		minGaps := []time.Duration{0, 1, target, max(target/3, 1), 4 * target}
		minGaps = append(minGaps, NiceDurations(target, h)...)
		for _, mg := range minGaps {
			o := Options{Horizon: h, MinGap: mg}
			res := o.DefaultResolution()
			lo := mg
			if mg == 0 {
				lo = NiceNearest(h / MinGapDivisor)
			}
			// Brute force: the largest nice r ≤ target dividing h and every
			// nice gap in [lo, h].
			var brute time.Duration = 1
			for _, r := range niceLadder {
				if r > target || h%r != 0 {
					continue
				}
				ok := true
				for _, g := range NiceDurations(lo, h) {
					ok = ok && g%r == 0
				}
				if ok {
					brute = r
				}
			}
			if g := niceGCD(h, lo, h); g%brute != 0 {
				t.Fatalf("brute force %v does not divide the gcd %v", brute, g)
			}
			if res > target || h%res != 0 {
				t.Errorf("H %v, min gap %v: resolution %v above H/8192 = %v or not dividing H", h, mg, res, target)
				continue
			}
			spread := (target + ResolutionSpread - 1) / ResolutionSpread
			if brute >= spread {
				worst = max(worst, float64(target)/float64(res))
				if mg == 0 {
					worstDefault = max(worstDefault, float64(target)/float64(res))
				}
				if res != brute {
					t.Errorf("H %v, min gap %v: resolution %v, want %v", h, mg, res, brute)
				}
				continue
			}
			// Below the spread: the resolution stays in it when a nice
			// duration there divides h, and no gap is lost that another
			// resolution there would keep.
			var in []time.Duration
			for _, r := range NiceDurations(spread, target) {
				if h%r == 0 {
					in = append(in, r)
				}
			}
			if len(in) == 0 {
				if want := ResolutionFor(h, nil); res != want {
					t.Errorf("H %v, min gap %v: resolution %v, want the largest nice divisor of H below H/8192, %v", h, mg, res, want)
				}
				continue
			}
			worst = max(worst, float64(target)/float64(res))
			if res < spread {
				t.Errorf("H %v, min gap %v: resolution %v finer than the spread allows (%v)", h, mg, res, spread)
			}
			count := func(r time.Duration) int {
				n := 0
				for _, g := range NiceDurations(lo, h) {
					if g%r == 0 {
						n++
					}
				}
				return n
			}
			for _, r := range in {
				if count(r) > count(res) || count(r) == count(res) && r > res {
					t.Errorf("H %v, min gap %v: resolution %v keeps %d gaps, %v keeps %d", h, mg, res, count(res), r, count(r))
				}
			}
		}
	}
	// The grid is at most the spread finer than H/8192 (where a nice
	// duration that fine divides H).
	t.Logf("worst grid growth over H/%d: ×%.2f (×%.2f at the default min gap)", ResolutionCells, worst, worstDefault)
	if worst > ResolutionSpread {
		t.Errorf("grid grows ×%.2f, more than the spread %d", worst, ResolutionSpread)
	}
}

// The default horizon is the nice duration above the 99th percentile of
// the settled mass: for LogNormal(μ, σ) it is e^(μ + z·σ), z = Φ⁻¹(0.99)
// = 2.3263; for Exponential(λ), −ln(0.01)/λ; for a distribution of which a
// share never settles, the percentile is of the settled part.
func TestHorizonFor(t *testing.T) {
	const z99 = 2.3263478740408408
	for _, tt := range []struct {
		name string
		d    Distribution
		q    float64 // seconds
		want time.Duration
	}{
		{"lognormal seconds", distuv.LogNormal{Mu: 2, Sigma: 1}, math.Exp(2 + z99), 90 * time.Second},
		{"lognormal ms", distuv.LogNormal{Mu: math.Log(0.9), Sigma: 0.25}, 0.9 * math.Exp(0.25*z99), 2 * time.Second},
		{"lognormal hours", distuv.LogNormal{Mu: math.Log(3 * 3600), Sigma: 0.5}, 3 * 3600 * math.Exp(0.5*z99), 12 * time.Hour},
		{"exponential", distuv.Exponential{Rate: 0.1}, math.Log(100) / 0.1, time.Minute},
		{"stuck 20%", cdfFunc(func(t float64) float64 { return 0.8 * (1 - math.Exp(-t)) }), math.Log(100), 5 * time.Second},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h, q, err := HorizonFor(tt.d)
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(q-tt.q) > 1e-6*tt.q || h != tt.want {
				t.Errorf("HorizonFor = %v (quantile %g s), want %v (%g s)", h, q, tt.want, tt.q)
			}
		})
	}
	if _, _, err := HorizonFor(cdfFunc(func(float64) float64 { return 0 })); err == nil {
		t.Error("HorizonFor of a distribution settling nothing: no error")
	}
}

// Sub-second data gets sub-second gaps, hour-long jobs minutes.
func TestResolveFollowsScale(t *testing.T) {
	for _, tt := range []struct {
		name              string
		d                 Distribution
		h, res, minGap    time.Duration
		firstGap, lastGap time.Duration
	}{
		// 36.6 µs; gaps 300µs, 500µs, 1ms…: gcd 100 µs ↓ 20 µs
		{"latency", distuv.LogNormal{Mu: math.Log(0.09), Sigma: 0.5}, 300 * time.Millisecond, 20 * time.Microsecond, 300 * time.Microsecond, 300 * time.Microsecond, 300 * time.Millisecond},
		{"jobs", distuv.LogNormal{Mu: math.Log(2 * 3600), Sigma: 0.5}, 8 * time.Hour, 3 * time.Second, 30 * time.Second, 30 * time.Second, 8 * time.Hour},
	} {
		t.Run(tt.name, func(t *testing.T) {
			o, err := Options{}.Resolve(tt.d)
			if err != nil {
				t.Fatal(err)
			}
			if o.Horizon != tt.h || o.Resolution != tt.res || o.MinGap != tt.minGap {
				t.Errorf("horizon %v, resolution %v, min gap %v; want %v, %v, %v", o.Horizon, o.Resolution, o.MinGap, tt.h, tt.res, tt.minGap)
			}
			if g := o.NiceGaps; g[0] != tt.firstGap || g[len(g)-1] != tt.lastGap {
				t.Errorf("nice gaps %v, want %v … %v", g, tt.firstGap, tt.lastGap)
			}
			if o.NiceBounds != nil {
				t.Errorf("nice bounds %v, want none (any phase end)", o.NiceBounds)
			}
		})
	}
}
