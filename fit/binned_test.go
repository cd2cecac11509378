package fit

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/pollfit/pollfit/ingest"
)

// TestBinnedFit: the payments fixture in 1 s bins (a GROUP BY floor(t)),
// plus a point bin of instant settles, fits like the raw rows: no atoms
// made of the bins' spread-out items, the point bin as an atom, the
// log-domain bandwidth within 25 % of the raw rows' (SJ on both), and the
// sample size the number of items, not of bins.
func TestBinnedFit(t *testing.T) {
	raw, _, err := ingest.Read([]string{"../fixtures/payments.csv"}, ingest.ReadOptions{Column: "settle_s", Status: "status", Pending: []string{"pending"}})
	if err != nil {
		t.Skip("fixtures/payments.csv:", err)
	}
	type bin struct{ count, cens float64 }
	bins := map[float64]*bin{}
	for i, v := range raw.Times {
		b := bins[math.Floor(v)]
		if b == nil {
			b = &bin{}
			bins[math.Floor(v)] = b
		}
		b.count++
		if raw.IsCensored(i) {
			b.cens++
		}
	}
	var csvText strings.Builder
	csvText.WriteString("lower,upper,count,censored\n")
	for _, lo := range slices.Sorted(maps.Keys(bins)) {
		fmt.Fprintf(&csvText, "%g,%g,%g,%g\n", lo, lo+1, bins[lo].count, bins[lo].cens)
	}
	// And 500 instant settles as a point bin.
	s, _, err := ingest.ReadCSV(strings.NewReader(csvText.String()+"0,0,500,0\n"), "binned.csv", ingest.ReadOptions{Binned: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, dom := range []string{DomainLog, DomainLinear} {
		d, err := Estimate(s, Options{Domain: dom})
		if err != nil {
			t.Fatal(err)
		}
		r, err := Estimate(raw, Options{Domain: dom, Bandwidth: BandwidthSJ})
		if err != nil {
			t.Fatal(err)
		}
		if len(d.Atoms) != 1 || d.Atoms[0].T != 0 || math.Abs(d.Atoms[0].Mass-500.0/20500) > 1e-3 {
			t.Errorf("%s: atoms %v, want only the point bin at 0 (mass %.4f)", dom, d.Atoms, 500.0/20500)
		}
		if d.N != 20500 || d.Censored != 216 || d.BandwidthRule != BandwidthSJ {
			t.Errorf("%s: n %d, censored %d, rule %s; want 20500, 216, sj", dom, d.N, d.Censored, d.BandwidthRule)
		}
		// 1 s bins are far narrower than the log-domain kernel (0.085 in
		// ln t is 5 s at the 60 s spike) but not than the linear one
		// (0.02 s): compare the log domain only.
		if ratio := d.Bandwidth / r.Bandwidth; dom == DomainLog && (ratio < 0.75 || ratio > 1.25) {
			t.Errorf("%s: bandwidth %.4g binned, %.4g raw", dom, d.Bandwidth, r.Bandwidth)
		}
	}
}

// TestIssue13BinnedCensoredShare: the share of censored items in the
// warning counts items, not the values a bin is spread over (a binned
// sample of 2% censored items was reported "113% censored"). 300 items,
// 200 of them censored, are 67%; 300 items with 100 censored warn not.
func TestIssue13BinnedCensoredShare(t *testing.T) {
	for _, tc := range []struct {
		bins string
		want string // the warning, or "" for none
	}{
		{"1,2,100,0\n2,3,100,100\n3,4,100,100\n", "67% of items are censored: the tail rests on few settles"},
		{"1,2,100,0\n2,3,100,50\n3,4,100,50\n", ""},
	} {
		s, _, err := ingest.ReadCSV(strings.NewReader("lower,upper,count,censored\n"+tc.bins), "binned.csv", ingest.ReadOptions{Binned: true})
		if err != nil {
			t.Fatal(err)
		}
		d, err := Estimate(s, Options{})
		if err != nil {
			t.Fatal(err)
		}
		var got string
		for _, w := range d.Warnings {
			if strings.Contains(w, "censored:") {
				got = w
			}
		}
		if got != tc.want || d.N != 300 {
			t.Errorf("%q: n %d, warning %q; want 300, %q", tc.bins, d.N, got, tc.want)
		}
	}
}
