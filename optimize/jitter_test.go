package optimize

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// No jittered gap is above the phase's cap, in every mode, and none is
// below min(1ms, g/1000) (decorrelated jitter reached 3.6s and
// ±50% 1.8s over a 1.2s cap).
func TestJitterCap(t *testing.T) {
	const cap = 1200 * time.Millisecond
	rng := rand.New(rand.NewPCG(16, 1))
	for _, jit := range []string{"full", "equal", "decorrelated", "±50%", "±99%"} {
		t.Run(jit, func(t *testing.T) {
			s := MustParseSpec("exp 400ms x2 cap 1.2s until 10m, jitter " + jit)
			unjittered := s
			unjittered.Jitter = Jitter{}
			reached := false
			for range 300 {
				polls := s.AppendPolls(nil, rng)
				for i := 1; i < len(polls); i++ {
					g := polls[i] - polls[i-1]
					if g > cap {
						t.Fatalf("jittered gap %d = %v above the cap %v", i, g, cap)
					}
					if g < 400*time.Microsecond {
						t.Fatalf("jittered gap %d = %v below 400ms/1000", i, g)
					}
					reached = reached || g == cap
				}
				if polls[len(polls)-1] > 10*time.Minute {
					t.Fatalf("poll at %v after the horizon", polls[len(polls)-1])
				}
			}
			// Modes that may draw above the scheduled gap are cut at the
			// cap; full and equal jitter draw at most the gap itself.
			if wantReach := jit != "full" && jit != "equal"; reached != wantReach {
				t.Errorf("some gap at the cap: %v, want %v", reached, wantReach)
			}
		})
	}
}

// Full jitter on a 150µs gap keeps its scale: the floor is 150ns, not 1ms.
func TestJitterFloorScales(t *testing.T) {
	s := MustParseSpec("every 150us until 30ms, jitter full")
	rng := rand.New(rand.NewPCG(16, 2))
	polls := s.AppendPolls(nil, rng)
	gaps := make([]time.Duration, 0, len(polls))
	for i := 1; i < len(polls); i++ {
		gaps = append(gaps, polls[i]-polls[i-1])
	}
	if lo, hi := slices.Min(gaps), slices.Max(gaps); lo < 150 || hi > 150*time.Microsecond {
		t.Errorf("full jitter on 150µs: gaps in [%v, %v], want within [150ns, 150µs]", lo, hi)
	}
	// Uniform on [0, 150µs]: about 30ms/75µs = 400 gaps.
	if n := len(gaps); n < 300 || n > 500 {
		t.Errorf("full jitter on 150µs over 30ms made %d gaps, want about 400", n)
	}
}
