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

func TestResolutionAndMinGapFollowHorizon(t *testing.T) {
	ms, s, m, h := time.Millisecond, time.Second, time.Minute, time.Hour
	for _, tt := range []struct {
		h, res, minGap time.Duration
	}{
		{15 * m, 100 * ms, s},                   // 109.9 ms ↓ 100 ms; 900 ms ~ 1 s
		{2 * h, 500 * ms, 10 * s},               // 879 ms ↓ 500 ms; 7.2 s ~ 10 s
		{10 * s, ms, 10 * ms},                   // 1.22 ms ↓ 1 ms
		{7 * s, 500 * time.Microsecond, 5 * ms}, // 854 µs: 750 µs does not divide 7 s… 500 µs does
		{30 * 24 * h, 5 * m, 45 * m},            // 316 s ↓ 5 m; 43.2 m ~ 45 m
		{time.Microsecond, 1, 1},                // the grid cannot be finer than 1 ns
	} {
		res := ResolutionFor(tt.h)
		if res != tt.res || tt.h%res != 0 {
			t.Errorf("ResolutionFor(%v) = %v, want %v", tt.h, res, tt.res)
		}
		if got := MinGapFor(tt.h, res); got != tt.minGap {
			t.Errorf("MinGapFor(%v, %v) = %v, want %v", tt.h, res, got, tt.minGap)
		}
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

// Issue 15: sub-second data gets sub-second gaps, hour-long jobs minutes.
func TestResolveFollowsScale(t *testing.T) {
	for _, tt := range []struct {
		name              string
		d                 Distribution
		h, res, minGap    time.Duration
		firstGap, lastGap time.Duration
	}{
		{"latency", distuv.LogNormal{Mu: math.Log(0.09), Sigma: 0.5}, 300 * time.Millisecond, 30 * time.Microsecond, 300 * time.Microsecond, 300 * time.Microsecond, 300 * time.Millisecond},
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
