package optimize

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"gonum.org/v1/gonum/stat/distuv"
)

// withDeadline is a payments-like mixture: lognormal settles (median 8 s)
// and an atom of 10% at a 60 s deadline, 2% never settling.
func withDeadline() Distribution {
	ln := distuv.LogNormal{Mu: math.Log(8), Sigma: 1}
	return cdfFunc(func(t float64) float64 {
		f := 0.88 * ln.CDF(t)
		if t >= 60 {
			f += 0.1
		}
		return f
	})
}

// randomPhased returns a schedule near the space of sp: a first poll on
// the lattice (or off it), then phases of every kind improve makes, nice
// gaps or not, ends anywhere or on the bounds, landing on the horizon or
// closed by a plain gap (or neither).
func randomPhased(rng *rand.Rand, sp *phaseSpace) Schedule {
	h := time.Duration(sp.end) * sp.res
	nice := func() time.Duration {
		g := time.Duration(sp.gaps[rng.IntN(len(sp.gaps))]) * sp.res
		if rng.IntN(20) == 0 {
			g += time.Millisecond // not nice
		}
		return g
	}
	var s Schedule
	if rng.IntN(10) > 0 {
		var starts []int
		for x, ok := range sp.starts {
			if ok {
				starts = append(starts, x)
			}
		}
		s.Start = time.Duration(starts[rng.IntN(min(len(starts), 40))]*sp.lat) * sp.res
	} else {
		s.Start = time.Duration(rng.IntN(5000)-500) * time.Millisecond // off the lattice, or before 0
	}
	at := s.Start
	n := 1 + rng.IntN(7)
	for i := range n {
		last := i == n-1
		u := at + time.Duration(rng.Float64()*float64(h-at)/2)
		switch rng.IntN(8) {
		case 0: // a bound, as with NiceBounds
			if sp.bounds != nil {
				u = time.Duration(sp.bounds[rng.IntN(len(sp.bounds))]) * sp.res
			}
		case 1:
			u = u.Round(sp.res)
		case 2:
			u = u.Round(time.Second)
		}
		if last && rng.IntN(3) > 0 {
			u = h
		}
		var p Phase
		switch rng.IntN(6) {
		case 0:
			p = Phase{Growth: Once, Gap: nice()}
		case 1, 2:
			p = Phase{Growth: Fixed, Gap: nice(), Until: u}
		case 3, 4:
			p = Phase{Growth: Exponential, Gap: nice(), Factor: growFactors[rng.IntN(len(growFactors))], Until: u}
			if rng.IntN(2) == 0 {
				p.Cap = nice()
			}
		case 5:
			p = Phase{Growth: Linear, Gap: nice(), Step: stepOf(time.Second, growSteps[rng.IntN(len(growSteps))]), Until: u}
			if rng.IntN(2) == 0 {
				p.Cap = nice()
			}
		}
		s.Phases = append(s.Phases, p)
		if p.Growth != Once {
			at = max(at, u)
		}
	}
	if rng.IntN(3) == 0 {
		s.Phases = append(s.Phases, Phase{Growth: Once, Gap: time.Second}) // closing: the rest of the horizon
	}
	return s
}

// screen's walk and sums (as record keeps them) against eval's, on
// schedules in the space and
// out of it, on three spaces: nice gaps and any end on a 100 ms grid,
// the bounds and 500 ms gaps of phased15m, and a max gap. The walk must
// agree exactly (ends, stuck polls, membership); the figures to within
// the bound screen rules neighbours out by.
func TestScreenAgreesWithEval(t *testing.T) {
	free := Options{Horizon: 15 * time.Minute, Resolution: 100 * time.Millisecond, MinGap: time.Second}
	capped := free
	capped.MaxGap = 30 * time.Second
	for _, tc := range []struct {
		name string
		d    Distribution
		o    Options
	}{
		{"any end", withDeadline(), free},
		{"bounds", withDeadline(), phased15m},
		{"max gap", withDeadline(), capped},
		{"uniform bounds", uniform(900, 0.9), phased15m},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pr, err := prepare(tc.d, Budget{StuckPolls: 100}, tc.o)
			if err != nil {
				t.Fatal(err)
			}
			sp, err := pr.space()
			if err != nil {
				t.Fatal(err)
			}
			rng := rand.New(rand.NewPCG(1, 2))
			var valid, fast int
			worst := 0.0
			for range 12000 {
				s := randomPhased(rng, sp)
				k, grow := 1+rng.IntN(MaxPhases), rng.IntN(4) > 0
				checkPrefix(t, rng, sp, s, grow)
				var rec qrec
				sp.record(s, grow, nil, &rec)
				wends, polls, wok := sp.walk(s, k, grow, nil)
				if !rec.fast {
					continue
				}
				fast++
				last := len(s.Phases) - 1
				ends, stuck := rec.ends, rec.stuck[last]
				ok := rec.ok[last] && sp.startOK(&s, k) && ends[last] == time.Duration(sp.end)*sp.res
				mine, _ := sp.pollsOf(s, grow, nil)
				if ok != wok || stuck != len(polls) || !slices.Equal(ends, wends) || !slices.Equal(mine, polls) {
					t.Fatalf("record(%s, k %d, grow %v) = ends %v, %d polls, in space %v; walk: %v, %d, %v",
						s, k, grow, ends, stuck, ok, wends, len(polls), wok)
				}
				if !ok {
					continue
				}
				valid++
				s1, s2 := rec.s1[last], rec.s2[last]
				md := sp.md
				lag, mean := md.G[md.n()-1]-s2, float64(stuck)-s1
				e := md.expect(polls)
				tolMean := screenTol * float64(stuck+64)
				tolLag := tolMean * max(1, md.t[md.n()-1])
				if math.Abs(lag-e.TotalLag) > tolLag || math.Abs(mean-e.MeanPolls) > tolMean {
					t.Fatalf("screen of %s: lag %.17g, mean polls %.17g; eval: %.17g, %.17g", s, lag, mean, e.TotalLag, e.MeanPolls)
				}
				worst = max(worst, math.Abs(lag-e.TotalLag)/tolLag, math.Abs(mean-e.MeanPolls)/tolMean)
				for i, p := range s.Phases {
					if p.Growth == Once {
						continue
					}
					from := s.Start
					if i > 0 {
						from = ends[i-1]
					}
					if got, want := sp.gapsIn(p, from, ends[i]), gapsIn(p, from, ends[i]); got != want {
						t.Fatalf("gapsIn(%+v, %v, %v) = %d, want %d", p, from, ends[i], got, want)
					}
				}
			}
			t.Logf("%d of 12000 screened, %d in the space; largest error %.2g of the bound", fast, valid, worst)
			if valid < 100 {
				t.Errorf("only %d schedules in the space: the test draws too few", valid)
			}
		})
	}
}

// checkPrefix checks that a neighbour of s, one phase's end or gap moved,
// walks and sums the same from s's record as from its first poll.
func checkPrefix(t *testing.T, rng *rand.Rand, sp *phaseSpace, s Schedule, grow bool) {
	t.Helper()
	var par, from, alone qrec
	sp.record(s, grow, nil, &par)
	y := s
	y.Phases = slices.Clone(s.Phases)
	i := rng.IntN(len(y.Phases))
	if rng.IntN(2) == 0 {
		y.Phases[i].Until += time.Duration(rng.IntN(3)-1) * time.Second
	} else {
		y.Phases[i].Gap += time.Duration(rng.IntN(3)-1) * 500 * time.Millisecond
	}
	sp.record(y, grow, &par, &from)
	sp.record(y, grow, nil, &alone)
	if from.fast != alone.fast || alone.fast && (!slices.Equal(from.ends, alone.ends) || !slices.Equal(from.stuck, alone.stuck) ||
		!slices.Equal(from.ok, alone.ok) || !slices.Equal(from.s1, alone.s1) || !slices.Equal(from.s2, alone.s2)) {
		t.Fatalf("%s from the record of %s: %+v; alone: %+v", y, s, from, alone)
	}
	for _, thr := range []float64{0, 0.5, 1, math.Inf(1)} {
		b := Budget{StuckPolls: 100}
		v1, e1 := sp.screen(y, MaxPhases, grow, b, thr, &par)
		v2, e2 := sp.screen(y, MaxPhases, grow, b, thr, nil)
		if v1 != v2 || e1 != e2 {
			t.Fatalf("screen(%s, thr %g) from the record of %s = %v, %v; alone %v, %v", y, thr, s, v1, e1, v2, e2)
		}
	}
}
