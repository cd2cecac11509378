package app

import (
	"math/rand/v2"
	"os"
	"slices"
	"testing"

	"github.com/pollfit/pollfit/ingest"
)

// TestWholeMedian: the radix selection gives the lower median, the
// ⌈n/2⌉-th smallest value, as sorting a copy does, on whole numbers of
// every width up to 2⁵³ (one to four 16-bit passes), with ties, and
// leaves its input in its order.
func TestWholeMedian(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, tc := range []struct {
		name string
		n    int
		max  uint64
	}{
		{"one", 1, 10},
		{"two", 2, 10},
		{"all equal", 1000, 0},
		{"ties", 1001, 3},
		{"16 bits", 5000, 1 << 16},
		{"17 bits", 5001, 1 << 17},
		{"40 bits", 4000, 1 << 40},
		{"53 bits", 4001, 1<<53 - 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			xs := make([]float64, tc.n)
			for i := range xs {
				xs[i] = float64(rng.Uint64N(tc.max + 1))
			}
			before := slices.Clone(xs)
			sorted := slices.Clone(xs)
			slices.Sort(sorted)
			want := sorted[(tc.n+1)/2-1]
			if got := wholeMedian(xs); got != want {
				t.Errorf("wholeMedian = %v, want %v", got, want)
			}
			if !slices.Equal(xs, before) {
				t.Error("wholeMedian reordered its input")
			}
		})
	}
}

// TestUnitHint: only bare whole numbers read in seconds by default get the
// hint, with their median read in milliseconds: 1, 2, 1801, 1801, 9000
// has the lower median 1801, which --unit ms reads as 1.801s.
func TestUnitHint(t *testing.T) {
	whole := &ingest.Sample{Times: []float64{9000, 1801, 2, 1801, 1}}
	const want = "the values are whole numbers: --unit ms would read the median 1801 as 1.801s"
	def := &ingest.Report{Unit: ingest.Second, UnitFrom: ingest.UnitFromDefault}
	if got := unitHint(def, whole); got != want {
		t.Errorf("unitHint(default, whole) = %q, want %q", got, want)
	}
	// Nanoseconds: ms would read 1066000000 as 12 days, us as 1066 s.
	ns := &ingest.Sample{Times: []float64{1066000000, 5, 2e9}}
	const wantNS = "the values are whole numbers: --unit us would read the median 1066000000 as 17m46s"
	if got := unitHint(def, ns); got != wantNS {
		t.Errorf("unitHint(default, ns) = %q, want %q", got, wantNS)
	}
	for _, tc := range []struct {
		name string
		rep  *ingest.Report
		s    *ingest.Sample
	}{
		{"fractions", def, &ingest.Sample{Times: []float64{1.5, 2}}},
		{"from the name", &ingest.Report{Unit: ingest.Second, UnitFrom: ingest.UnitFromName}, whole},
		{"given", &ingest.Report{Unit: ingest.Second, UnitFrom: ingest.UnitFromOption}, whole},
		{"binned", def, &ingest.Sample{Times: []float64{1, 2}, Weights: []float64{3, 4}}},
		{"timestamps", &ingest.Report{}, whole},
	} {
		if got := unitHint(tc.rep, tc.s); got != "" {
			t.Errorf("%s: unitHint = %q, want none", tc.name, got)
		}
	}
}

// TestStdinData: pipes and regular files hold data to read, /dev/null
// (a device, as a terminal is) does not.
func TestStdinData(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	null, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	file, err := os.Open("input.go")
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	for _, tc := range []struct {
		name string
		f    *os.File
		want bool
	}{{"pipe", r, true}, {"file", file, true}, {"dev null", null, false}, {"nil", nil, false}} {
		if got := StdinData(tc.f); got != tc.want {
			t.Errorf("StdinData(%s) = %v, want %v", tc.name, got, tc.want)
		}
	}
}
