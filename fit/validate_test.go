package fit

import (
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/pollfit/pollfit/sample"
)

// TestDensityValidate: every density Estimate and Dist.Density
// make, written as JSON and read back, is valid; each kind of damage a
// hand-edited file can hold (a CDF above 1, a stuck share of 1.5, an atom
// of mass 7: optimize --density accepted them) is refused, naming the
// field and grid point.
func TestDensityValidate(t *testing.T) {
	times := readColumn(t, "../fixtures/payments.csv", "settle_s")
	s := &sample.Sample{Times: times}
	cens := &sample.Sample{Times: times, Censored: make([]bool, len(times))}
	for i := range cens.Censored {
		cens.Censored[i] = i%9 == 0
	}
	var good []*Density
	for _, o := range []Options{{}, {Domain: DomainLinear}, {Domain: DomainReflect}, {Method: "histogram"}, {Method: "lognormal"}, {Method: "lognormal-mixture:2"}, {Atoms: "off"}} {
		for _, smp := range []*sample.Sample{s, cens} {
			d, err := Estimate(smp, o)
			if err != nil {
				t.Fatalf("%+v: %v", o, err)
			}
			good = append(good, d)
		}
	}
	dist, err := ParseDist("weibull:k=1.5,lambda=30")
	if err != nil {
		t.Fatal(err)
	}
	good = append(good, dist.Density(60, 64))
	for i, d := range good {
		b, err := json.Marshal(d)
		if err != nil {
			t.Fatal(err)
		}
		var back Density
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatal(err)
		}
		if err := back.Validate(); err != nil {
			t.Errorf("density %d (%s): %v", i, d.Method, err)
		}
	}

	base := good[0]
	for _, c := range []struct {
		name, want string
		edit       func(d *Density)
	}{
		{"cdf above 1", "cdf[5] = 1.5", func(d *Density) { d.CDFs[5] = 1.5 }},
		{"cdf falls", "a CDF never falls", func(d *Density) { d.CDFs[len(d.CDFs)-1] = d.CDFs[len(d.CDFs)-2] / 2 }},
		{"negative cdf", "want a probability", func(d *Density) { d.CDFs[0] = -0.1 }},
		{"stuck share 1.5", "stuck_share 1.5", func(d *Density) { d.StuckShare = 1.5 }},
		{"stuck share inconsistent", "want 1 − the last cdf", func(d *Density) { d.StuckShare = 0.5 }},
		{"atom of mass 7", "atoms[0]: mass 7", func(d *Density) { d.Atoms = []Atom{{T: 1, Mass: 7}} }},
		{"atoms over 1", "add up to 1.2", func(d *Density) { d.Atoms = []Atom{{T: 1, Mass: 0.6}, {T: 2, Mass: 0.6}} }},
		{"atom before 0", "t_s -1", func(d *Density) { d.Atoms = []Atom{{T: -1, Mass: 0.1}} }},
		{"spike wider than its time", "width_s 5", func(d *Density) { d.Atoms = []Atom{{T: 2, Mass: 0.1, Width: 5}} }},
		{"negative pdf", "pdf_per_s[3] = -1", func(d *Density) { d.PDFs[3] = -1 }},
		{"grid not increasing", "the grid must increase", func(d *Density) { d.T[4] = d.T[3] }},
		{"negative time", "t_s[0] = -1", func(d *Density) { d.T[0] = -1 }},
		{"short cdf", "cdf has 3 values", func(d *Density) { d.CDFs = d.CDFs[:3] }},
		{"one point", "at least 2", func(d *Density) {
			d.T, d.PDFs, d.CDFs, d.Survival, d.Hazard = d.T[:1], d.PDFs[:1], d.CDFs[:1], nil, nil
		}},
		{"survival above 1", "survival[2] = 2", func(d *Density) { d.Survival[2] = 2 }},
		{"negative hazard", "hazard_per_s[2] = -3", func(d *Density) { d.Hazard[2] = -3 }},
	} {
		t.Run(c.name, func(t *testing.T) {
			b, _ := json.Marshal(base)
			var d Density
			json.Unmarshal(b, &d)
			c.edit(&d)
			err := d.Validate()
			if err == nil || !errors.Is(err, ErrBadDensity) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("Validate = %v, want ErrBadDensity saying %q", err, c.want)
			}
		})
	}
}

// TestOptionBounds: a grid or bandwidth that would exhaust memory or
// overflow is refused before any data (--grid 1e8 asked for 4.9 GB,
// --bandwidth 1e308 gave a NaN CDF), and a bandwidth that leaves nothing
// of the data is refused by Estimate, as options, not data, errors.
func TestOptionBounds(t *testing.T) {
	for _, o := range []Options{{Grid: 100_000_000}, {Grid: MaxGrid + 1}, {Bandwidth: "1e308"}, {Bandwidth: "1e10"}, {Bandwidth: "NaN"}, {Bandwidth: "-1"}} {
		if err := o.Check(); !errors.Is(err, ErrOption) {
			t.Errorf("Check(%+v) = %v, want ErrOption", o, err)
		}
	}
	for _, o := range []Options{{Grid: MaxGrid}, {Bandwidth: "1e9"}, {Bandwidth: "0.05"}} {
		if err := o.Check(); err != nil {
			t.Errorf("Check(%+v) = %v, want nil", o, err)
		}
	}
	// ln t of the payments fixture spans −1.88 … 11.4 (0.152 s to
	// 24.8 h): about 10 × 13.3 = 133 is the widest bandwidth taken there.
	s := &sample.Sample{Times: readColumn(t, "../fixtures/payments.csv", "settle_s")}
	for _, c := range []struct {
		bw string
		ok bool
	}{{"100", true}, {"1000", false}, {"1e9", false}} {
		d, err := Estimate(s, Options{Bandwidth: c.bw})
		if c.ok && err != nil || !c.ok && !errors.Is(err, ErrOption) {
			t.Errorf("Estimate(bandwidth %s) = %v", c.bw, err)
		}
		if c.ok {
			for i, v := range d.CDFs {
				if math.IsNaN(v) {
					t.Fatalf("bandwidth %s: cdf[%d] is NaN", c.bw, i)
				}
			}
		}
	}
}
