package fit

import (
	"math"
	"sort"
)

// Atom is a point mass of the settle-time distribution: a share Mass of
// all items settles at exactly T seconds (instant settles at 0, a batch
// boundary, a deadline).
type Atom struct {
	T    float64 `json:"t"`
	Mass float64 `json:"mass"`
}

// Density is an estimated settle-time distribution on a grid of times.
//
// The distribution is a continuous part, given by PDF on the grid, plus
// the Atoms; CDF and Survival on the grid include both. Mass that has not
// settled by the last grid point (items still pending, or settling later)
// is StuckShare = 1 − CDF(last grid point). Hazard is PDF/Survival of the
// continuous part, per second. All times are seconds.
type Density struct {
	T        []float64 `json:"t"`        // grid, seconds, ascending, T[0] = 0
	PDFs     []float64 `json:"pdf"`      // density of the continuous part, 1/s
	CDFs     []float64 `json:"cdf"`      // P(T ≤ t), atoms included
	Survival []float64 `json:"survival"` // 1 − CDF
	Hazard   []float64 `json:"hazard"`   // PDF / survival, 1/s

	Atoms      []Atom  `json:"atoms"`
	StuckShare float64 `json:"stuck_share"` // mass not settled by the last grid point
	N          int     `json:"n"`           // items the estimate is based on
	Censored   int     `json:"censored"`    // right-censored items among them
	Method     string  `json:"method"`      // "kde", "histogram", "lognormal", …
	Bandwidth  float64 `json:"bandwidth"`   // kernel bandwidth (in the domain's units); 0 when none
	Domain     string  `json:"domain,omitempty"`

	KM       *KaplanMeier `json:"km,omitempty"`
	Warnings []string     `json:"warnings"`

	// contCDF is the CDF of the continuous part on T, computed on demand.
	contCDF []float64
}

// KaplanMeier is the product-limit estimate of survival at each distinct
// event time, with Greenwood standard errors (Kaplan & Meier 1958;
// Greenwood 1926).
type KaplanMeier struct {
	T        []float64 `json:"t"`
	Survival []float64 `json:"survival"`
	StdErr   []float64 `json:"std_err"`
}

// Horizon returns the last grid time, seconds.
func (d *Density) Horizon() float64 { return d.T[len(d.T)-1] }

func (d *Density) continuous() []float64 {
	if d.contCDF == nil {
		d.contCDF = make([]float64, len(d.T))
		for i, t := range d.T {
			d.contCDF[i] = d.CDFs[i] - d.atomMass(t)
		}
	}
	return d.contCDF
}

// atomMass returns the mass of the atoms at times ≤ t.
func (d *Density) atomMass(t float64) float64 {
	m := 0.0
	for _, a := range d.Atoms {
		if a.T <= t {
			m += a.Mass
		}
	}
	return m
}

// CDF returns P(T ≤ t): the continuous part interpolated linearly between
// grid points, plus the atoms at or before t. Beyond the grid it stays at
// its last value (the stuck share is not placed anywhere).
func (d *Density) CDF(t float64) float64 {
	if t < 0 {
		return 0
	}
	c := d.continuous()
	i := sort.SearchFloat64s(d.T, t)
	var v float64
	switch {
	case i >= len(d.T):
		v = c[len(c)-1]
	case d.T[i] == t || i == 0:
		v = c[i]
	default:
		f := (t - d.T[i-1]) / (d.T[i] - d.T[i-1])
		v = c[i-1] + f*(c[i]-c[i-1])
	}
	return math.Min(1, v+d.atomMass(t))
}

// SurvivalAt returns P(T > t) = 1 − CDF(t).
func (d *Density) SurvivalAt(t float64) float64 { return 1 - d.CDF(t) }

// Quantile returns the smallest grid-interpolated t with CDF(t) ≥ p, or
// +Inf when p exceeds the mass settled within the grid.
func (d *Density) Quantile(p float64) float64 {
	if p > d.CDFs[len(d.CDFs)-1] {
		return math.Inf(1)
	}
	i := sort.SearchFloat64s(d.CDFs, p)
	if i == 0 {
		return d.T[0]
	}
	if i >= len(d.T) {
		return d.T[len(d.T)-1]
	}
	lo, hi := d.CDFs[i-1], d.CDFs[i]
	if hi == lo {
		return d.T[i]
	}
	// An atom at T[i] makes the jump; the quantile is then T[i] itself.
	if d.atomMass(d.T[i])-d.atomMass(d.T[i-1]) > 0 && p > lo+(hi-lo-(d.atomMass(d.T[i])-d.atomMass(d.T[i-1]))) {
		return d.T[i]
	}
	return d.T[i-1] + (p-lo)/(hi-lo)*(d.T[i]-d.T[i-1])
}

// PDF returns the density of the continuous part at t, interpolated.
func (d *Density) PDF(t float64) float64 {
	if t < 0 || t > d.Horizon() {
		return 0
	}
	i := sort.SearchFloat64s(d.T, t)
	if i == 0 || d.T[i] == t {
		return d.PDFs[i]
	}
	f := (t - d.T[i-1]) / (d.T[i] - d.T[i-1])
	return d.PDFs[i-1] + f*(d.PDFs[i]-d.PDFs[i-1])
}

// finish fills CDFs (from PDFs by the trapezoid rule, plus atoms, scaled
// so that the settled mass is 1 − stuck), Survival and Hazard.
func (d *Density) finish() {
	n := len(d.T)
	cont := make([]float64, n)
	for i := 1; i < n; i++ {
		cont[i] = cont[i-1] + (d.T[i]-d.T[i-1])*(d.PDFs[i]+d.PDFs[i-1])/2
	}
	atoms := 0.0
	for _, a := range d.Atoms {
		atoms += a.Mass
	}
	want := 1 - d.StuckShare - atoms
	if cont[n-1] > 0 && want > 0 {
		k := want / cont[n-1]
		for i := range cont {
			cont[i] *= k
			d.PDFs[i] *= k
		}
	}
	d.contCDF = cont
	d.CDFs = make([]float64, n)
	d.Survival = make([]float64, n)
	d.Hazard = make([]float64, n)
	for i, t := range d.T {
		d.CDFs[i] = math.Min(1, cont[i]+d.atomMass(t))
		d.Survival[i] = 1 - d.CDFs[i]
		if d.Survival[i] > 1e-12 {
			d.Hazard[i] = d.PDFs[i] / d.Survival[i]
		}
	}
}
