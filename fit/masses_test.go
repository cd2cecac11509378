package fit

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/pollfit/pollfit/sample"
)

// TestMassTable: the settled items' Kaplan–Meier masses as a table
// by event time (masses.T and at, which kaplanMeier returns without
// weights) give the fit that the same masses one an item give, bit for
// bit, item by item and pre-binned, on a censored sample with zeros, an
// exact atom (10 % at 5 s), a deadline's pile-up and ties at 1 ms.
func TestMassTable(t *testing.T) {
	n := 40_000
	s := lumpySample(pcg(18), n)
	_, times, ms := kaplanMeier(s)
	if ms.T == nil || ms.item != nil {
		t.Fatalf("kaplanMeier without weights: masses not a table (T %d, item %d)", len(ms.T), len(ms.item))
	}
	opt, err := Options{}.resolve()
	if err != nil {
		t.Fatal(err)
	}
	opt.Horizon = 100
	fitWith := func(m masses) []byte {
		t.Helper()
		d := &Density{Warnings: []string{}, Atoms: []Atom{}, Resolution: resolution(s.Times)}
		if err := d.smooth(times, m, nil, nil, opt); err != nil {
			t.Fatal(err)
		}
		if len(d.Atoms) < 2 {
			t.Fatalf("atoms %v: want the zeros and the one at 5 s at least", d.Atoms)
		}
		b, err := json.Marshal(d)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	defer func(v int) { preBinAbove = v }(preBinAbove)
	for _, above := range []int{n, n / 4} { // item by item, pre-binned
		preBinAbove = above
		table := fitWith(ms)
		items := fitWith(masses{item: ms.perItem(times)})
		if !bytes.Equal(table, items) {
			t.Errorf("preBinAbove %d: the fit with the table differs from the fit with one mass an item", above)
		}
	}
}

// lumpySample draws n censored settle times at 1 ms: 3 % zeros, an exact
// atom (10 % at 5 s), a deadline's pile-up (8 % in 30–30.3 s), the rest
// lognormal; a fifth of the nonzero ones censored.
func lumpySample(r *rand.Rand, n int) *sample.Sample {
	s := &sample.Sample{Times: make([]float64, n), Censored: make([]bool, n)}
	for i := range s.Times {
		var v float64
		switch u := r.Float64(); {
		case u < 0.03:
			v = 0
		case u < 0.13:
			v = 5
		case u < 0.21:
			v = 30 + 0.3*r.Float64()
		default:
			v = math.Exp(1 + r.NormFloat64())
		}
		s.Times[i] = math.Round(v*1000) / 1000
		s.Censored[i] = r.Float64() < 0.2 && v > 0
	}
	return s
}
