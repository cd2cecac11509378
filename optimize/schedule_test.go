package optimize

import (
	"testing"
	"time"
)

// The brief's table: polls by 30s, 2m and 15m of the four reference
// schedules, counted by hand from their definitions (../shared/brief.md).
func TestReferencesReproduceBriefTable(t *testing.T) {
	want := map[string][3]int{
		"before":  {5, 11, 37},
		"76cd188": {8, 26, 78},
		"a74b69e": {16, 61, 217},
		"now":     {31, 76, 152},
	}
	for _, s := range References {
		t.Run(s.Name, func(t *testing.T) {
			got := [3]int{s.PollsBy(30 * time.Second), s.PollsBy(2 * time.Minute), s.PollsBy(15 * time.Minute)}
			if got != want[s.Name] {
				t.Errorf("PollsBy(30s, 2m, 15m) = %v, want %v", got, want[s.Name])
			}
			if got, want := s.StuckPolls(), want[s.Name][2]; got != want {
				t.Errorf("StuckPolls() = %d, want %d", got, want)
			}
		})
	}
}

// Gaps of growing phases, by hand: Fib = 1, 1, 2, 3, 5, 8, …, products
// and powers worked out on paper, rounded half away from zero to the
// phase's grain.
func TestPhaseGapAt(t *testing.T) {
	const ms, us = time.Millisecond, time.Microsecond
	tests := []struct {
		spec string
		k    []int
		want []time.Duration
	}{
		// fib 1s cap 5s: 1, 1, 2, 3, 5 (Fib(5)), then the cap, also where
		// Fib(k)·1s overflows int64 (Fib(93) > 2^63).
		{"fib 1s cap 5s until 1h", []int{1, 2, 3, 4, 5, 6, 92, 93, 1000}, []time.Duration{
			time.Second, time.Second, 2 * time.Second, 3 * time.Second, 5 * time.Second, 5 * time.Second,
			5 * time.Second, 5 * time.Second, 5 * time.Second}},
		// linear 100ms+100h cap 1s: 100ms, then the cap; (k−1)·100h
		// overflows int64 from k = 25,623.
		{"linear 100ms+100h cap 1s until 200h", []int{1, 2, 25623, 1 << 40}, []time.Duration{
			100 * ms, time.Second, time.Second, time.Second}},
		// Uncapped growth saturates at MaxGapAt instead of wrapping.
		{"exp 1s x2 until 1h", []int{1, 2, 11, 200, 2000}, []time.Duration{
			time.Second, 2 * time.Second, 1024 * time.Second, MaxGapAt, MaxGapAt}},
		{"fib 1h until 2h", []int{1, 70, 93}, []time.Duration{time.Hour, MaxGapAt, MaxGapAt}},
		{"linear 1h+1000h until 2h", []int{1, 2, 176, 177, 1 << 50}, []time.Duration{
			time.Hour, 1001 * time.Hour, 175001 * time.Hour, MaxGapAt, MaxGapAt}},
		// 1s and more in whole ms: the millisecond. 1000·1.5^4 = 5062.5ms.
		{"exp 1s x1.5 until 1h", []int{1, 2, 3, 5}, []time.Duration{
			time.Second, 1500 * ms, 2250 * ms, 5063 * ms}},
		// 150µs: grain 100ns. 150·1.5^3 = 506.25µs → 506.3µs.
		{"exp 150us x1.5 until 10ms", []int{1, 2, 3, 4}, []time.Duration{
			150 * us, 225 * us, 337500, 506300}},
		// 500ms: grain 100µs. 500·2^1.5 = 1414.2136ms → 1414.2ms;
		// 500·3^1.5 = 2598.0762ms → 2598.1ms.
		{"poly 500ms ^1.5 until 1h", []int{1, 2, 3}, []time.Duration{
			500 * ms, 14142 * 100 * us, 25981 * 100 * us}},
		// 1234567ns: no power of ten above 1ns divides it.
		{"exp 1234567ns x1.1 until 1s", []int{1, 2}, []time.Duration{1234567, 1358024}},
	}
	for _, tc := range tests {
		p := MustParseSpec(tc.spec).Phases[0]
		for i, k := range tc.k {
			if got := p.GapAt(k); got != tc.want[i] {
				t.Errorf("%s: GapAt(%d) = %v, want %v", tc.spec, k, got, tc.want[i])
			}
		}
	}
}

// TestPhaseGrain: the grain is the largest power of ten nanoseconds that
// divides the gap and is at most gap/1000 and 1ms, by hand.
func TestPhaseGrain(t *testing.T) {
	tests := []struct {
		gap, want time.Duration
	}{
		{time.Hour, time.Millisecond},
		{time.Second, time.Millisecond},
		{1500 * time.Millisecond, time.Millisecond},
		{1000500 * time.Microsecond, 100 * time.Microsecond}, // 1ms does not divide it
		{100 * time.Millisecond, 100 * time.Microsecond},
		{150 * time.Microsecond, 100},
		{999, 1},
		{1, 1},
	}
	for _, tc := range tests {
		if got := (Phase{Growth: Exponential, Gap: tc.gap, Factor: 2}).Grain(); got != tc.want {
			t.Errorf("Phase{Gap: %v}.Grain() = %v, want %v", tc.gap, got, tc.want)
		}
	}
}

// Schedules of growing phases, capped, over long and sub-millisecond
// horizons: their polls counted by hand.
func TestPollsGrowingPhases(t *testing.T) {
	tests := []struct {
		spec  string
		count int
		last  time.Duration
	}{
		// 0, then gaps 1, 1, 2, 3, 5 (12s), then 5s while the next poll is
		// within 1h: 12 + 5n ≤ 3600, n = 717.
		{"fib 1s cap 5s until 1h", 1 + 5 + 717, 3597 * time.Second},
		// 0, 100ms, then 1s: 0.1 + n ≤ 720000, n = 719999.
		{"linear 100ms+100h cap 1s until 200h", 2 + 719999, 719999100 * time.Millisecond},
		// Gaps 0.1·2^(k−1) s for k = 1..16 (6553.5s in all), then the 1h
		// cap: 6553.5 + 3600n ≤ 3600000, n = 998. Refused before as "more
		// than 10000000 polls" by an estimate from the first gap.
		{"exp 100ms x2 cap 1h until 1000h", 1 + 16 + 998, 3599353500 * time.Millisecond},
		// Gaps 150, 225, 337.5, 506.3 (506.25), 759.4 (759.375), 1139.1
		// (1139.0625) µs: polls at 0, 150, 375, 712.5, 1218.8, 1978.2 µs;
		// the next, at 3117.3µs, is after the horizon.
		{"exp 150us x1.5 until 2ms", 6, 1978200},
	}
	for _, tc := range tests {
		s, err := ParseSpec(tc.spec)
		if err != nil {
			t.Errorf("ParseSpec(%q): %v", tc.spec, err)
			continue
		}
		polls := s.Polls()
		if len(polls) != tc.count || polls[len(polls)-1] != tc.last {
			t.Errorf("%s: %d polls, the last at %v; want %d, the last at %v", tc.spec, len(polls), polls[len(polls)-1], tc.count, tc.last)
		}
	}
}
