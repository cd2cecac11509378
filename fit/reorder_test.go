package fit

import (
	"encoding/json"
	"errors"
	"math"
	"slices"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"

	"github.com/pollfit/pollfit/sample"
)

// TestSortSettledFirst: sortSettledFirst leaves the sample's
// settled times sorted and then its censored times sorted, each time with
// its own flag, as sorting the two kinds apart in copies does; a −0 leaves
// the sample as it was.
func TestSortSettledFirst(t *testing.T) {
	r := pcg(181)
	gen := func(n int, cens float64) *sample.Sample {
		s := &sample.Sample{Times: make([]float64, n), Censored: make([]bool, n)}
		for i := range s.Times {
			s.Times[i] = math.Round(r.ExpFloat64()*1000) / 1000 // ties at 1 ms
			s.Censored[i] = r.Float64() < cens
		}
		return s
	}
	cases := []struct {
		name string
		s    *sample.Sample
	}{
		{"empty", &sample.Sample{Censored: []bool{}}},
		{"one censored", &sample.Sample{Times: []float64{3}, Censored: []bool{true}}},
		{"one settled", &sample.Sample{Times: []float64{3}, Censored: []bool{false}}},
		{"small", &sample.Sample{Times: []float64{5, 0, 2, 9, 2, 1}, Censored: []bool{true, false, false, true, true, false}}},
		{"all censored", gen(1000, 1)},
		{"none censored", gen(1000, 0)},
		{"mixed", gen(5000, 0.3)},
		{"above sortChunk", gen(sortChunk+12345, 0.1)},
	}
	for _, c := range cases {
		var ev, ce []float64
		for i, v := range c.s.Times {
			if c.s.Censored[i] {
				ce = append(ce, v)
			} else {
				ev = append(ev, v)
			}
		}
		slices.Sort(ev)
		slices.Sort(ce)
		k, ok := sortSettledFirst(c.s)
		if !ok || k != len(ev) {
			t.Errorf("%s: sortSettledFirst = %d, %v; want %d, true", c.name, k, ok, len(ev))
			continue
		}
		want := append(slices.Clone(ev), ce...)
		if !slices.Equal(c.s.Times, want) {
			t.Errorf("%s: times %v…, want %v…", c.name, c.s.Times[:min(8, k)], want[:min(8, k)])
		}
		for i, cen := range c.s.Censored {
			if cen != (i >= k) {
				t.Errorf("%s: item %d censored %v, want %v", c.name, i, cen, i >= k)
				break
			}
		}
	}
	negZero := &sample.Sample{Times: []float64{4, math.Copysign(0, -1), 1}, Censored: []bool{true, false, false}}
	before := slices.Clone(negZero.Times)
	if _, ok := sortSettledFirst(negZero); ok || !slices.Equal(negZero.Times, before) || !math.Signbit(negZero.Times[1]) {
		t.Errorf("sortSettledFirst with −0: ok %v, times %v; want false, %v unchanged", ok, negZero.Times, before)
	}
}

// TestReorderSameEstimate: Estimate with Options.Reorder gives the estimate
// Estimate gives without it, byte for byte as JSON, on censored samples
// with zeros, an atom, a deadline's pile-up and ms ties, by kde and
// histogram, with and without holdout; and it reorders only what it may
// (a parametric fit, a sample with creation instants, a −0 are left in
// their order).
func TestReorderSameEstimate(t *testing.T) {
	r := pcg(182)
	gen := func(n int) *sample.Sample { return lumpySample(r, n) }
	clone := func(s *sample.Sample) *sample.Sample {
		c := &sample.Sample{Times: slices.Clone(s.Times), Censored: slices.Clone(s.Censored)}
		if s.Created != nil {
			c.Created = slices.Clone(s.Created)
		}
		return c
	}
	base := gen(40_000)
	withCreated := clone(base)
	withCreated.Created = make([]int64, base.Len())
	for i := range withCreated.Created {
		withCreated.Created[i] = int64(i) * 1e9
	}
	negZero := clone(base)
	negZero.Times[7], negZero.Censored[7] = math.Copysign(0, -1), false
	cases := []struct {
		name     string
		s        *sample.Sample
		opt      Options
		reorders bool
	}{
		{"kde", base, Options{}, true},
		{"kde linear", base, Options{Domain: DomainLinear}, true},
		{"histogram", base, Options{Method: "histogram"}, true},
		// The training part is Estimate's own copy, which it reorders
		// with Reorder or without; the sample stays as it was.
		{"kde holdout", base, Options{Holdout: 0.3, Seed: 4}, false},
		{"small", gen(200), Options{}, true},
		{"weibull", base, Options{Method: "weibull"}, false},
		{"mixture", gen(3000), Options{Method: LogNormalMixture + ":2"}, false},
		{"created", withCreated, Options{}, false},
		{"negative zero", negZero, Options{}, false},
	}
	for _, c := range cases {
		plain, sorted := clone(c.s), clone(c.s)
		d1, err1 := Estimate(plain, c.opt)
		opt := c.opt
		opt.Reorder = true
		d2, err2 := Estimate(sorted, opt)
		if err1 != nil || err2 != nil {
			t.Fatalf("%s: Estimate: %v, %v", c.name, err1, err2)
		}
		b1, _ := json.Marshal(d1)
		b2, _ := json.Marshal(d2)
		if string(b1) != string(b2) {
			t.Errorf("%s: Estimate with Reorder differs from without it", c.name)
		}
		if !slices.Equal(plain.Times, c.s.Times) {
			t.Errorf("%s: Estimate without Reorder changed the sample", c.name)
		}
		if moved := !slices.Equal(sorted.Times, c.s.Times); moved != c.reorders {
			t.Errorf("%s: Estimate with Reorder reordered the sample: %v, want %v", c.name, moved, c.reorders)
		}
		if c.reorders && !slices.IsSorted(sorted.Times[:sorted.Len()-sorted.CensoredCount()]) {
			t.Errorf("%s: settled times not sorted first", c.name)
		}
	}
}

// TestResolutionGiven: Estimate with Options.Resolution found first
// (Resolution) gives, on the sample reordered, the estimate of the sample
// in its order, byte for byte as JSON, where the resolution found in the
// reordered items differs: 3·10⁵ items (a stride of 3) with ms times and
// a few continuous ones all at places 0 mod 3, which the strided
// subsample of the sample in its order sees three times as often as one
// of the sorted items: 2 % against 0.7 % of it, around the 1 % that may
// fail the lattice (the lattice found only when sorted: Resolution −1
// for none); and the other way, 1 in 10 of the places 1 mod 3, which
// the subsample in order skips (found only in order). Options refuses a
// resolution that is not a finite number.
func TestResolutionGiven(t *testing.T) {
	r := pcg(183)
	gen := func(offLattice func(i int) bool) *sample.Sample {
		const n = 300_000
		s := &sample.Sample{Times: make([]float64, n), Censored: make([]bool, n)}
		for i := range s.Times {
			v := math.Exp(r.NormFloat64() + 1)
			if !offLattice(i) {
				v = math.Round(v*1000) / 1000
			}
			s.Times[i] = max(v, 0.001)
			s.Censored[i] = r.Float64() < 0.05
		}
		return s
	}
	for _, c := range []struct {
		name               string
		s                  *sample.Sample
		inOrder, afterSort float64
	}{
		// Every 150th item continuous, all at places 0 mod 3: 2 % of
		// the subsample in order, 0.7 % of the sorted one.
		{"found when sorted", gen(func(i int) bool { return i%150 == 0 }), 0, 0.001},
		// Every item at a place 1 mod 3 continuous with chance 1/10:
		// none in the subsample in order, 3.3 % of the sorted one.
		{"found in order", gen(func(i int) bool { return i%3 == 1 && r.IntN(10) == 0 }), 0.001, 0},
	} {
		res := Resolution(c.s.Times)
		sorted := &sample.Sample{Times: slices.Clone(c.s.Times), Censored: slices.Clone(c.s.Censored)}
		sortSettledFirst(sorted)
		if !scalar.EqualWithinAbsOrRel(res, c.inOrder, 0, 1e-12) || !scalar.EqualWithinAbsOrRel(Resolution(sorted.Times), c.afterSort, 0, 1e-12) {
			t.Fatalf("%s: Resolution = %g in order, %g sorted; want %g, %g (the case tests nothing)", c.name, res, Resolution(sorted.Times), c.inOrder, c.afterSort)
		}
		d1, err1 := Estimate(c.s, Options{Reorder: true})
		opt := Options{Reorder: true, Resolution: res}
		if res == 0 {
			opt.Resolution = -1
		}
		d2, err2 := Estimate(sorted, opt)
		if err1 != nil || err2 != nil {
			t.Fatalf("%s: Estimate: %v, %v", c.name, err1, err2)
		}
		if d2.Resolution != d1.Resolution {
			t.Errorf("%s: Resolution %g given, density's %g; want %g", c.name, opt.Resolution, d2.Resolution, d1.Resolution)
		}
		b1, _ := json.Marshal(d1)
		b2, _ := json.Marshal(d2)
		if string(b1) != string(b2) {
			t.Errorf("%s: Estimate of the sorted sample with the resolution given differs from the sample's in its order", c.name)
		}
		d3, err := Estimate(&sample.Sample{Times: slices.Clone(sorted.Times), Censored: slices.Clone(sorted.Censored)}, Options{Reorder: true})
		if err != nil {
			t.Fatal(err)
		}
		if d3.Resolution == d1.Resolution {
			t.Errorf("%s: the sorted sample's own resolution is the same, %g: the case tests nothing", c.name, d3.Resolution)
		}
	}
	for _, v := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		if err := (Options{Resolution: v}).Check(); !errors.Is(err, ErrOption) {
			t.Errorf("Options{Resolution: %v}.Check() = %v, want ErrOption", v, err)
		}
	}
}
