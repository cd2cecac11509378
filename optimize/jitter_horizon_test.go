package optimize

import (
	"math/rand/v2"
	"testing"
	"time"
)

// A schedule jittered "to horizon" polls at its horizon in every draw:
// the jittered gap that would pass it ends there. Jittered as usual, a
// draw stops short of it when that gap is drawn, and misses the items
// settling in between. Unjittered, both poll alike.
func TestJitterToHorizon(t *testing.T) {
	h := 10 * time.Minute
	for _, spec := range []string{
		"exp 1s x1.5 cap 1m until 9m50s, every 10s until 10m, jitter full",
		"exp 1s x1.5 cap 1m until 9m50s, every 10s until 10m, jitter equal",
		"exp 1s x1.5 cap 1m until 9m50s, every 10s until 10m, jitter decorrelated",
		"every 40s until 10m, jitter ±20%",
	} {
		plain := MustParseSpec(spec)
		to := MustParseSpec(spec + " to horizon")
		if !to.Jitter.ToHorizon || plain.Jitter.ToHorizon {
			t.Fatalf("%q: ToHorizon %v, and %v without \"to horizon\"", spec, to.Jitter.ToHorizon, plain.Jitter.ToHorizon)
		}
		short := 0
		rng := rand.New(rand.NewPCG(5, 5))
		for range 300 {
			// The same random numbers for both: up to the gap that would
			// pass the horizon, they poll alike.
			seed := rng.Uint64()
			a := plain.AppendPolls(nil, rand.New(rand.NewPCG(seed, 1)))
			b := to.AppendPolls(nil, rand.New(rand.NewPCG(seed, 1)))
			if got := b[len(b)-1]; got != h {
				t.Fatalf("%q to horizon: last poll %v, want %v", spec, got, h)
			}
			if a[len(a)-1] < h {
				short++
				if len(b) != len(a)+1 || !equalDurations(a, b[:len(a)]) {
					t.Fatalf("%q: to horizon %v, want %v then the horizon", spec, b, a)
				}
			} else if !equalDurations(a, b) {
				t.Fatalf("%q: to horizon %v, want %v", spec, b, a)
			}
		}
		if short == 0 {
			t.Errorf("%q: no draw stopped short of the horizon without \"to horizon\"", spec)
		}
		if !equalDurations(plain.Polls(), to.Polls()) {
			t.Errorf("%q: unjittered polls differ with \"to horizon\"", spec)
		}
	}
}

func equalDurations(a, b []time.Duration) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
