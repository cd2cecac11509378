package fit

import (
	"encoding/json"
	"math"
	"slices"
	"testing"

	"github.com/pollfit/pollfit/sample"
)

// TestKaplanMeierPaths: the sort-free-of-indexes path for raw samples and
// the index path for weighted ones give the same estimate and the same
// masses per settle time on a censored sample with ties (all weights 1).
func TestKaplanMeierPaths(t *testing.T) {
	r := pcg(31)
	n := 3 << 19 // above sortFloats' two-core threshold
	s := &sample.Sample{Times: make([]float64, n), Censored: make([]bool, n)}
	for i := range s.Times {
		s.Times[i] = math.Round(r.ExpFloat64()*1000) / 100 // ties at 10 ms
		s.Censored[i] = r.Float64() < 0.2
	}
	w := &sample.Sample{Times: s.Times, Censored: s.Censored, Weights: make([]float64, n)}
	for i := range w.Weights {
		w.Weights[i] = 1
	}
	km1, t1, ms1 := kaplanMeier(s)
	km2, t2, ms2 := kaplanMeierWeighted(w)
	m1, m2 := ms1.perItem(t1), ms2.perItem(t2)
	if !slices.Equal(km1.T, km2.T) || len(km1.T) < 1000 {
		t.Fatalf("event times differ (%d vs %d)", len(km1.T), len(km2.T))
	}
	for j := range km1.T {
		if math.Abs(km1.Survival[j]-km2.Survival[j]) > 1e-12 || math.Abs(km1.StdErr[j]-km2.StdErr[j]) > 1e-12 ||
			km1.AtRisk[j] != km2.AtRisk[j] || km1.Events[j] != km2.Events[j] {
			t.Fatalf("step %d differs: %v/%v vs %v/%v", j, km1.Survival[j], km1.AtRisk[j], km2.Survival[j], km2.AtRisk[j])
		}
	}
	// Masses summed per settle time.
	sum := func(ts, ms []float64) map[float64]float64 {
		out := map[float64]float64{}
		for i, v := range ts {
			out[v] += ms[i]
		}
		return out
	}
	a, b := sum(t1, m1), sum(t2, m2)
	if len(a) != len(b) || !slices.IsSorted(t1) {
		t.Fatalf("%d vs %d settle times (sorted %v)", len(a), len(b), slices.IsSorted(t1))
	}
	for v, x := range a {
		if math.Abs(x-b[v]) > 1e-12 {
			t.Fatalf("mass at %v: %v vs %v", v, x, b[v])
		}
	}
}

// TestKaplanMeierJSONThinned: a table of 10,000 steps is written as about
// kmJSONSteps steps, first and last kept, values exact where kept.
func TestKaplanMeierJSONThinned(t *testing.T) {
	km := &KaplanMeier{}
	for j := range 10000 {
		km.T = append(km.T, float64(j))
		km.Survival = append(km.Survival, 1-float64(j+1)/10000)
		km.StdErr = append(km.StdErr, 0.01)
		km.AtRisk = append(km.AtRisk, float64(10000-j))
		km.Events = append(km.Events, 1)
	}
	b, err := json.Marshal(km)
	if err != nil {
		t.Fatal(err)
	}
	var back KaplanMeier
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	n := len(back.T)
	if n < kmJSONSteps*9/10 || n > kmJSONSteps+2 || back.T[0] != 0 || back.T[n-1] != 9999 {
		t.Fatalf("thinned to %d steps from %v to %v", n, back.T[0], back.T[n-1])
	}
	for j, v := range back.T {
		if back.Survival[j] != km.Survival[int(v)] {
			t.Fatalf("survival at %v = %v, want %v", v, back.Survival[j], km.Survival[int(v)])
		}
	}
}

// TestKaplanMeierThin: the thinned estimate writes the JSON the
// whole one does, byte for byte, and thinning it again keeps every step:
// on a table of 10,000 even steps (about kmJSONSteps kept), one of 4,000
// uneven drops, one of kmJSONSteps + 1 steps each falling by
// 1/kmJSONSteps, all of which are kept (MarshalJSON thins the thinned one
// again), and a table of kmJSONSteps steps, which is itself.
func TestKaplanMeierThin(t *testing.T) {
	table := func(n int, drop func(j int) float64) *KaplanMeier {
		km := &KaplanMeier{}
		s := 1.0
		for j := range n {
			s -= drop(j)
			km.T = append(km.T, float64(j)/8)
			km.Survival = append(km.Survival, s)
			km.StdErr = append(km.StdErr, 0.01*s)
			km.AtRisk = append(km.AtRisk, float64(n-j))
			km.Events = append(km.Events, float64(1+j%3))
		}
		return km
	}
	r := pcg(18)
	for _, c := range []struct {
		name string
		km   *KaplanMeier
		same bool // Thin returns km itself
	}{
		{"even", table(10000, func(int) float64 { return 1.0 / 10001 }), false},
		{"uneven", table(4000, func(int) float64 { return 0.9 / 4000 * 2 * r.Float64() }), false},
		{"all kept", table(kmJSONSteps+1, func(j int) float64 { return float64(min(j, 1)) * (1 - 1e-9) / kmJSONSteps }), false},
		{"small", table(kmJSONSteps, func(int) float64 { return 1.0 / 4000 }), true},
	} {
		thin := c.km.Thin()
		if (thin == c.km) != c.same {
			t.Errorf("%s: Thin is the estimate itself: %v, want %v", c.name, thin == c.km, c.same)
		}
		if all := c.name == "all kept"; !c.same && (len(thin.T) == len(c.km.T)) != all {
			t.Errorf("%s: thinned to %d steps of %d", c.name, len(thin.T), len(c.km.T))
		}
		whole, err := json.Marshal(c.km)
		if err != nil {
			t.Fatal(err)
		}
		got, err := json.Marshal(thin)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(whole) {
			t.Errorf("%s: the thinned estimate's JSON (%d bytes) differs from the whole one's (%d bytes)", c.name, len(got), len(whole))
		}
		if again := thin.Thin(); len(again.T) != len(thin.T) {
			t.Errorf("%s: thinning again kept %d of %d steps, want all", c.name, len(again.T), len(thin.T))
		}
	}
}

// TestSortFloats: the in-place sort of Kaplan–Meier's times (sortFloats)
// orders as slices.Sort, on both sides of its size thresholds (2¹², 2¹⁸
// for radixSortBits' digits, 2²⁰ for the MSD pass, and a bucket above 2²⁰
// split again), with ties, zeros, whole seconds, values spanning decades
// and a cluster holding most values.
func TestSortFloats(t *testing.T) {
	r := pcg(31)
	for _, n := range []int{0, 1, 5, 4095, 4096, 300_000, 1<<20 + 1, 3 << 20} {
		for _, shape := range []string{"lognormal", "whole seconds", "decades", "zeros", "cluster"} {
			x := make([]float64, n)
			for i := range x {
				switch shape {
				case "lognormal":
					x[i] = math.Exp(r.NormFloat64())
				case "whole seconds":
					x[i] = math.Round(10 * r.ExpFloat64())
				case "decades":
					x[i] = math.Exp(8 * r.NormFloat64())
				case "zeros":
					x[i] = max(0, r.NormFloat64())
				case "cluster":
					x[i] = 5 + 1e-3*r.Float64()
					if r.Float64() < 0.1 {
						x[i] = math.Exp(8 * r.NormFloat64())
					}
				}
			}
			want := slices.Clone(x)
			slices.Sort(want)
			sortFloats(x)
			if !slices.Equal(x, want) {
				t.Errorf("sortFloats(%d %s) is not sorted as slices.Sort", n, shape)
			}
		}
	}
}

// TestSettledMasses: each settled item's mass, worked by hand. Without
// censoring, weight over total weight in sample order; with it, the
// Kaplan–Meier jump shares S(t_j−)·w/n_j: on 3, 2+, 4+, 1, 2 (+ censored)
// the jumps are 1/5 at 1, 0.8/4 at 2 (the item censored at 2 still at
// risk) and 0.6/2 at 3, summing to 1 − S(3) = 0.7; weighted, 1+ (weight
// 1), 2 (weight 2), 3 leave 2·1/3 at 2 and (1/3)·1/1 at 3.
func TestSettledMasses(t *testing.T) {
	type tm struct{ t, mass float64 }
	for _, tc := range []struct {
		name string
		s    *sample.Sample
		want []tm
	}{
		{"weighted, no censoring", &sample.Sample{Times: []float64{5, 1}, Weights: []float64{1, 3}}, []tm{{5, 0.25}, {1, 0.75}}},
		{"censored", &sample.Sample{Times: []float64{3, 2, 4, 1, 2}, Censored: []bool{false, true, true, false, false}},
			[]tm{{1, 0.2}, {2, 0.2}, {3, 0.3}}},
		{"censored, weighted", &sample.Sample{Times: []float64{2, 1, 3}, Censored: []bool{false, true, false}, Weights: []float64{2, 1, 1}},
			[]tm{{2, 2.0 / 3}, {3, 1.0 / 3}}},
		{"empty", &sample.Sample{}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []tm
			for x, m := range SettledMasses(tc.s) {
				got = append(got, tm{x, m})
			}
			if len(got) != len(tc.want) {
				t.Fatalf("SettledMasses = %v, want %v", got, tc.want)
			}
			for i := range got {
				if got[i].t != tc.want[i].t || math.Abs(got[i].mass-tc.want[i].mass) > 1e-15 {
					t.Errorf("SettledMasses = %v, want %v", got, tc.want)
					break
				}
			}
		})
	}
}
