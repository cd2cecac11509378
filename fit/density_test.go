package fit

import (
	"math"
	"testing"

	"github.com/pollfit/pollfit/ingest"
)

// trapezoid returns the trapezoid-rule integral of the density's PDFs
// over the grid points a … b.
func trapezoid(d *Density, a, b int) float64 {
	s := 0.0
	for i := a; i < b; i++ {
		s += (d.PDFs[i] + d.PDFs[i+1]) / 2 * (d.T[i+1] - d.T[i])
	}
	return s
}

// pointMass returns the mass of the atoms of width 0 in (lo, hi].
func pointMass(d *Density, lo, hi float64) float64 {
	m := 0.0
	for _, a := range d.Atoms {
		if a.Width == 0 && a.T > lo && a.T <= hi {
			m += a.Mass
		}
	}
	return m
}

// TestPDFIncludesSpikes: the density on the grid includes the
// spikes' mass, so the trapezoid rule over it gives the CDF's rise less
// the point masses. A known case: 0.8 of Exp(mean 10 s) plus a spike of
// 0.2 over [30, 32] s on the log grid of 2048 points to 100 s: over the
// whole grid the integral is 0.8(1 − e^(−10)) + 0.2 = 0.999964 to 10⁻⁴
// (the exponential part's trapezoid error is below that), and across the
// spike it reads 0.1/s (Mass/Width) plus the exponential's density.
func TestPDFIncludesSpikes(t *testing.T) {
	d := &Density{Atoms: []Atom{{T: 32, Mass: 0.2, Width: 2}}}
	d.fill(logGrid(0.01, 100, 2048), func(x float64) (float64, float64) {
		return 0.08 * math.Exp(-0.1*x), 0.8 * (1 - math.Exp(-0.1*x))
	})
	n := len(d.T)
	if got, want := trapezoid(d, 0, n-1), 0.8*(1-math.Exp(-10))+0.2; math.Abs(got-want) > 1e-4 {
		t.Errorf("∫pdf over the grid = %.6f, want %.6f", got, want)
	}
	if got, want := d.PDF(31), 0.1+0.08*math.Exp(-3.1); math.Abs(got-want) > 1e-6 { // linear between grid points
		t.Errorf("PDF(31) = %.6f, want %.6f (spike 0.1/s + exponential)", got, want)
	}
	i := 0
	for d.T[i] < 31 {
		i++
	}
	if got, want := d.Hazard[i], d.PDFs[i]/d.Survival[i]; got != want || got < 0.1 {
		t.Errorf("hazard at %v = %v, want PDF/survival = %v, above the spike's 0.1/s", d.T[i], got, want)
	}
}

// TestSpikePDFs: the spikes' part of the density is the spike alone —
// 0.2 spread evenly over [30, 32] s reads Mass/Width = 0.1/s inside it and
// 0 away from it, and its trapezoid integral over the grid is the spike's
// mass — and nil when the only atom is a point mass.
func TestSpikePDFs(t *testing.T) {
	d := &Density{Grid: Grid{T: logGrid(0.01, 100, 2048)}, Atoms: []Atom{{T: 1, Mass: 0.1}, {T: 32, Mass: 0.2, Width: 2}}}
	p := d.SpikePDFs()
	sum := 0.0
	for i := range len(d.T) - 1 {
		sum += (p[i] + p[i+1]) / 2 * (d.T[i+1] - d.T[i])
	}
	if math.Abs(sum-0.2) > 1e-12 {
		t.Errorf("∫SpikePDFs = %v, want 0.2", sum)
	}
	for i, x := range d.T {
		want := 0.0
		switch {
		case x > 30.1 && x < 31.9:
			want = 0.1
		case x > 29.9 && x < 32.1:
			continue // a cell across the spike's end
		}
		if math.Abs(p[i]-want) > 1e-12 {
			t.Errorf("SpikePDFs at %v s = %v, want %v", x, p[i], want)
		}
	}
	d.Atoms = d.Atoms[:1]
	if p := d.SpikePDFs(); p != nil {
		t.Errorf("SpikePDFs with a point mass alone = %v, want nil", p)
	}
}

// TestPDFIntegratesPaymentsFixture: on the payments fixture,
// whose mobile-money timeouts make a spike near 60.5 s, the trapezoid
// integral of pdf between grid points equals the CDF's rise less point
// masses, within 10⁻⁴ on each stretch — the spike's own stretch and the
// whole grid included (measured: 1·10⁻⁵ at most; before spikes were in the
// pdf, the stretch across the spike was short by the spike's 6 %). The
// smooth part's error is the trapezoid rule's on the KDE's grid; the
// spike's is at most the mass in the half cells at its ends.
func TestPDFIntegratesPaymentsFixture(t *testing.T) {
	s, _, err := ingest.Read([]string{"../fixtures/payments.csv"}, ingest.ReadOptions{Column: "settle_s", Status: "status", Pending: []string{"pending"}})
	if err != nil {
		t.Skip("fixtures/payments.csv:", err)
	}
	d, err := Estimate(s, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var spike *Atom
	for i, a := range d.Atoms {
		if a.Width > 0 && a.T > 60 && a.T < 64 {
			spike = &d.Atoms[i]
		}
	}
	if spike == nil {
		t.Fatalf("no spike near 60.5 s: atoms %v", d.Atoms)
	}
	idx := func(x float64) int { // the last grid point ≤ x
		i := 0
		for i+1 < len(d.T) && d.T[i+1] <= x {
			i++
		}
		return i
	}
	n := len(d.T)
	for _, c := range []struct {
		name string
		a, b int
	}{
		{"whole grid", 0, n - 1},
		{"to 10 s", 0, idx(10)},
		{"10 s to the spike", idx(10), idx(spike.T - spike.Width - 0.5)},
		{"across the spike", idx(spike.T - spike.Width - 0.5), idx(spike.T + 0.5)},
		{"after the spike", idx(spike.T + 0.5), n - 1},
	} {
		got := trapezoid(d, c.a, c.b)
		want := d.CDFs[c.b] - d.CDFs[c.a] - pointMass(d, d.T[c.a], d.T[c.b])
		if math.Abs(got-want) > 1e-4 {
			t.Errorf("%s (%.4gs–%.4gs): ∫pdf = %.5f, CDF rise less point masses %.5f", c.name, d.T[c.a], d.T[c.b], got, want)
		}
	}
}
