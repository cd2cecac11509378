package fit

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
)

// Atom is a concentrated share of the settle-time distribution, kept
// apart from the smooth part: with Width 0, a point mass — a share Mass of
// all items settles at exactly T seconds (instant settles at 0, a batch
// boundary); with Width > 0, a spike — the share Mass settles over
// [T − Width, T] (the items piling up just after a deadline), so by T
// it has all landed. Over that stretch the spike's density is
//
//	Mass · Rate·e^(−Rate·(t − T + Width)) / (1 − e^(−Rate·Width))
//
// a truncated exponential: with Rate > 0 (1/s) it is highest at the
// deadline and falls off, as items held up for a random delay after it
// settle; Rate 0 spreads the mass evenly.
type Atom struct {
	T     float64 `json:"t_s"`
	Mass  float64 `json:"mass"`
	Width float64 `json:"width_s"`
	Rate  float64 `json:"rate_per_s"`
}

// String describes the atom: "25.3% settle at 60s" for a point mass,
// "6.01% settle over 60.5s–61.9s" for a spike.
func (a Atom) String() string {
	if a.Width <= 0 {
		return fmt.Sprintf("%.3g%% settle at %ss", 100*a.Mass, strconv.FormatFloat(a.T, 'g', 6, 64))
	}
	return fmt.Sprintf("%.3g%% settle over %.3gs–%.3gs", 100*a.Mass, a.T-a.Width, a.T)
}

// Kind is "atom" for a point mass and "spike" for an atom of Width > 0.
func (a Atom) Kind() string {
	if a.Width > 0 {
		return "spike"
	}
	return "atom"
}

// CDF returns the atom's mass settled by time t (seconds): 0 before it,
// Mass from T on, and for a spike the integral of its density (see Atom)
// in between.
func (a Atom) CDF(t float64) float64 {
	switch {
	case t >= a.T:
		return a.Mass
	case a.Width <= 0 || t <= a.T-a.Width:
		return 0
	}
	x := t - (a.T - a.Width)
	if u := a.Rate * a.Width; math.Abs(u) > 1e-9 {
		return a.Mass * math.Expm1(-a.Rate*x) / math.Expm1(-u)
	}
	return a.Mass * x / a.Width
}

// PDF returns a spike's density at t, 1/s (see Atom); 0 outside
// [T − Width, T] and for a point mass, which has no density.
func (a Atom) PDF(t float64) float64 {
	if a.Width <= 0 || t < a.T-a.Width || t > a.T {
		return 0
	}
	u := a.Rate * a.Width
	if math.Abs(u) <= 1e-9 {
		return a.Mass / a.Width
	}
	return a.Mass * -a.Rate * math.Exp(-a.Rate*(t-(a.T-a.Width))) / math.Expm1(-u)
}

// Grid is a distribution's functions on a grid of times: one table, every
// column as long as T. In JSON it is an object of equal-length arrays
// ("grid" of pollfit fit), which loads as a data frame (pandas
// DataFrame(d["grid"]), R as.data.frame(d$grid)); the keys carry the units.
type Grid struct {
	T        []float64 `json:"t_s"`          // grid, seconds, ascending, T[0] = 0
	PDFs     []float64 `json:"pdf_per_s"`    // density, 1/s: the continuous part and the spikes (not the point masses)
	CDFs     []float64 `json:"cdf"`          // P(T ≤ t), every atom included
	Survival []float64 `json:"survival"`     // 1 − CDF
	Hazard   []float64 `json:"hazard_per_s"` // PDF / survival, 1/s
}

// Density is an estimated settle-time distribution on a grid of times.
//
// The distribution is a continuous part plus the Atoms: point masses
// (Width 0) and spikes (Width > 0, mass spread over [T − Width, T] as
// Atom.PDF says). CDF and Survival on the grid include all of them. PDF
// holds the continuous part and the spikes' density over their spans —
// what the CDF, and so the schedule solvers, see rising there — averaged
// over each grid point's cell (halfway to its neighbours), so that the
// trapezoid rule on the grid integrates a spike to its mass; a point mass
// has no density and appears only in Atoms (and as a jump of the CDF, a
// vertical line in the plot). Hazard is PDF/Survival, per second, spikes
// included. Mass that has not settled by the last grid point (items still
// pending, censored past the last settle, or settling later) is
// StuckShare = 1 − CDF(last grid point). All times are seconds.
//
// The grid is uniform for the linear and reflect domains and geometric
// after T[0] = 0 for the log domain and parametric fits, so that data
// spanning decades get points in every decade.
type Density struct {
	Method     string  `json:"method"`    // "kde", "histogram", "lognormal", …
	N          int     `json:"n"`         // items the estimate is based on (training rows with a holdout)
	Censored   int     `json:"censored"`  // right-censored items among them
	Bandwidth  float64 `json:"bandwidth"` // kernel bandwidth in the domain's units (ln s for log); 0 when none
	Domain     string  `json:"domain,omitempty"`
	StuckShare float64 `json:"stuck_share"` // mass not settled by the last grid point

	// BandwidthRule is the rule that chose Bandwidth ("sj", "isj", …, or
	// "fixed" for a given number).
	BandwidthRule string `json:"bandwidth_rule,omitempty"`
	// Resolution is the data resolution in seconds (times are multiples
	// of it, e.g. 1 for whole seconds); 0 for continuous data.
	Resolution float64 `json:"resolution"`
	// Params holds the parameters of a parametric fit (see Dist).
	Params map[string]float64 `json:"params,omitempty"`
	// Mixture is the fitted mixture of the lognormal-mixture method: its
	// components {"weight", "median_s", "mu", "sigma"} by median, the
	// share that never settles, and BIC per K tried (see Mixture).
	Mixture *Mixture `json:"mixture,omitempty"`

	// KS is the Kolmogorov–Smirnov distance of the estimate from the rows
	// it was fitted on, with the one-sample band that is conservative for
	// it (the fit was drawn towards them; see KS, ScoreInSample). Nil for
	// a model given without data.
	KS *KS `json:"ks,omitempty"`
	// HoldoutKS is the distance from held-out rows, with its two-sample
	// Band95;
	// nil without a holdout. See ScoreHoldout.
	HoldoutKS *KS `json:"ks_holdout,omitempty"`
	// HoldoutLogLik is the mean held-out log-likelihood per item, in
	// log(1/s), over HoldoutN held-out items; see Options.Holdout.
	HoldoutLogLik float64 `json:"holdout_loglik,omitempty"`
	HoldoutN      int     `json:"holdout_n,omitempty"`

	Warnings []string `json:"warnings"`
	Atoms    []Atom   `json:"atoms"`
	Grid     `json:"grid"`
	KM       *KaplanMeier `json:"km,omitempty"`

	// inSampleWarning is ScoreInSample's warning, which ScoreHoldout
	// removes from Warnings.
	inSampleWarning string

	// contCDF is the CDF of the continuous part on T, computed on demand.
	contCDF []float64
}

// Horizon returns the last grid time, seconds.
func (d *Density) Horizon() float64 { return d.T[len(d.T)-1] }

func (d *Density) continuous() []float64 {
	if d.contCDF == nil {
		d.contCDF = make([]float64, len(d.T))
		for i, t := range d.T {
			d.contCDF[i] = math.Max(0, d.CDFs[i]-d.atomMass(t))
		}
	}
	return d.contCDF
}

// atomMass returns the mass of the atoms settled by t.
func (d *Density) atomMass(t float64) float64 {
	m := 0.0
	for _, a := range d.Atoms {
		m += a.CDF(t)
	}
	return m
}

// CDF returns P(T ≤ t): the continuous part interpolated linearly between
// grid points, plus the atoms at or before t, so it is right-continuous
// with a jump of an atom's mass at its time. Beyond the grid it stays at
// its last value (the stuck share is not placed anywhere); below 0 it is 0.
func (d *Density) CDF(t float64) float64 {
	if t < 0 || math.IsNaN(t) {
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

// Quantile returns the smallest t with CDF(t) ≥ p, or +Inf when p exceeds
// the mass settled within the grid. An atom's time is the quantile for
// every p inside its jump.
func (d *Density) Quantile(p float64) float64 {
	if p > d.CDF(d.Horizon()) {
		return math.Inf(1)
	}
	if p <= d.CDF(0) {
		return 0
	}
	// CDF is monotone and right-continuous: bisect on it, then snap to an
	// atom whose jump holds p.
	lo, hi := 0.0, d.Horizon()
	for range 200 {
		mid := lo + (hi-lo)/2
		if mid == lo || mid == hi {
			break
		}
		if d.CDF(mid) >= p {
			hi = mid
		} else {
			lo = mid
		}
	}
	for _, a := range d.Atoms {
		if a.Width == 0 && a.T > lo && a.T <= hi && d.CDF(a.T) >= p {
			return a.T
		}
	}
	return hi
}

// PDF returns the density at t, 1/s, interpolated linearly between grid
// points (PDFs: the continuous part and the spikes); 0 outside the grid.
// Point masses have no density: see Atoms.
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

// ErrBadDensity is wrapped by Validate's errors.
var ErrBadDensity = errors.New("not a valid density")

// densityTol is the rounding Validate allows: JSON keeps 17 digits, and
// the sums that make a CDF are off by a few ulps.
const densityTol = 1e-9

// Validate checks that d is a distribution, as a density read from a file
// (pollfit optimize --density) must be before a schedule is derived from
// it: a grid of at least 2 times, finite, from T[0] ≥ 0 strictly
// increasing, with pdf_per_s and cdf as long; densities finite and ≥ 0; a
// CDF in [0, 1] that never falls; survival and hazard, when present, as
// long, with survival in [0, 1] and hazard ≥ 0; a stuck share in [0, 1]
// equal to 1 − the last CDF; atoms at finite times ≥ 0 with masses in
// [0, 1] that add up to at most 1, widths ≥ 0 within [0, T] and finite
// rates. Values may be off by densityTol (rounding). The error wraps
// ErrBadDensity and names the field and grid point.
func (d *Density) Validate() error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: %s", ErrBadDensity, fmt.Sprintf(format, args...))
	}
	n := len(d.T)
	if n < 2 {
		return bad("the grid has %d points; want at least 2 (t_s)", n)
	}
	for _, c := range []struct {
		name string
		v    []float64
		need bool
	}{{"pdf_per_s", d.PDFs, true}, {"cdf", d.CDFs, true}, {"survival", d.Survival, false}, {"hazard_per_s", d.Hazard, false}} {
		if len(c.v) != n && (c.need || c.v != nil) {
			return bad("%s has %d values, t_s %d; want one per grid point", c.name, len(c.v), n)
		}
	}
	finite := func(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
	for i, t := range d.T {
		switch {
		case !finite(t) || t < 0:
			return bad("t_s[%d] = %v: want a time ≥ 0 in seconds", i, t)
		case i > 0 && !(t > d.T[i-1]):
			return bad("t_s[%d] = %v after %v: the grid must increase", i, t, d.T[i-1])
		}
	}
	prob := func(v float64) bool { return v >= -densityTol && v <= 1+densityTol }
	for i := range n {
		if p := d.PDFs[i]; !finite(p) || p < 0 {
			return bad("pdf_per_s[%d] = %v: want a density ≥ 0", i, p)
		}
		c := d.CDFs[i]
		if !prob(c) {
			return bad("cdf[%d] = %v: want a probability in [0, 1]", i, c)
		}
		if i > 0 && c < d.CDFs[i-1]-densityTol {
			return bad("cdf[%d] = %v after %v: a CDF never falls", i, c, d.CDFs[i-1])
		}
		if d.Survival != nil && !prob(d.Survival[i]) {
			return bad("survival[%d] = %v: want a probability in [0, 1]", i, d.Survival[i])
		}
		if d.Hazard != nil && (!finite(d.Hazard[i]) || d.Hazard[i] < 0) {
			return bad("hazard_per_s[%d] = %v: want a rate ≥ 0", i, d.Hazard[i])
		}
	}
	if s := d.StuckShare; !prob(s) || math.Abs(s-math.Max(0, 1-d.CDFs[n-1])) > 1e-6 {
		return bad("stuck_share %v: want 1 − the last cdf, %v", s, math.Max(0, 1-d.CDFs[n-1]))
	}
	total := 0.0
	for i, a := range d.Atoms {
		switch {
		case !finite(a.T) || a.T < 0:
			return bad("atoms[%d]: t_s %v: want a time ≥ 0", i, a.T)
		case !prob(a.Mass):
			return bad("atoms[%d]: mass %v: want a share in [0, 1]", i, a.Mass)
		case !finite(a.Width) || a.Width < 0 || a.Width > a.T+densityTol:
			return bad("atoms[%d]: width_s %v: want 0 (a point mass) or a spike's width within [0, t_s = %v]", i, a.Width, a.T)
		case !finite(a.Rate):
			return bad("atoms[%d]: rate_per_s %v: want a finite rate", i, a.Rate)
		}
		total += a.Mass
	}
	if total > 1+densityTol {
		return bad("the atoms' masses add up to %v: want at most 1", total)
	}
	return nil
}

// fill sets the grid T and evaluates the continuous part there: cont(t)
// returns its density (1/s) and CDF (mass, not normalised); the atoms are
// d.Atoms, whose spikes it adds to PDFs (spikeDensity). It fills CDFs,
// Survival, Hazard and StuckShare.
func (d *Density) fill(T []float64, cont func(t float64) (pdf, cdf float64)) {
	n := len(T)
	d.T = T
	d.PDFs = make([]float64, n)
	d.contCDF = make([]float64, n)
	d.CDFs = make([]float64, n)
	d.Survival = make([]float64, n)
	d.Hazard = make([]float64, n)
	prev := 0.0
	for i, t := range T {
		p, c := cont(t)
		c = atLeast(prev, c) // numerical noise must not make the CDF fall
		prev = c
		d.PDFs[i] = p
		d.contCDF[i] = c
	}
	for i, p := range spikeDensity(T, d.Atoms) {
		d.PDFs[i] += p
	}
	for i, t := range T {
		d.CDFs[i] = min1(d.contCDF[i] + d.atomMass(t))
		d.Survival[i] = 1 - d.CDFs[i]
		if d.Survival[i] > 1e-12 {
			d.Hazard[i] = d.PDFs[i] / d.Survival[i]
		}
	}
	d.StuckShare = math.Max(0, 1-d.CDFs[n-1])
	if d.StuckShare < 1e-12 {
		d.StuckShare = 0
	}
}

// SpikePDFs returns the spikes' part of PDFs on the grid T, 1/s (see
// spikeDensity), or nil when no atom is a spike (Width > 0): a figure that
// scales its axis to the smooth part subtracts it from PDFs.
func (d *Density) SpikePDFs() []float64 { return spikeDensity(d.T, d.Atoms) }

// spikeDensity returns the density of the spikes (atoms of Width > 0) on
// the grid T, 1/s: at T[i], the spikes' mass over its cell, from halfway
// to T[i−1] to halfway to T[i+1] (from T[0], to the last point, at the
// ends), divided by the cell's length: the cell's mean of Atom.PDF. The
// trapezoid rule's weight of T[i] is that length, so the trapezoid
// integral of the result over the whole grid is the spikes' mass within
// it, and over [T[a], T[b]] it is off by at most the mass in the half
// cells at either end. A spike narrower than the grid step shows as its
// mass spread over the cell.
func spikeDensity(T []float64, atoms []Atom) []float64 {
	var out []float64
	n := len(T)
	for _, a := range atoms {
		if a.Width <= 0 {
			continue
		}
		if out == nil {
			out = make([]float64, n)
		}
		lo := sort.SearchFloat64s(T, a.T-a.Width)
		for i := max(0, lo-1); i < n && (i == 0 || T[i-1] <= a.T); i++ {
			left, right := T[i], T[i]
			if i > 0 {
				left = (T[i-1] + T[i]) / 2
			}
			if i < n-1 {
				right = (T[i] + T[i+1]) / 2
			}
			if right > left {
				out[i] += (a.CDF(right) - a.CDF(left)) / (right - left)
			}
		}
	}
	return out
}

// linGrid returns m points evenly spaced from 0 to h.
func linGrid(h float64, m int) []float64 {
	T := make([]float64, m)
	for i := range T {
		T[i] = h * float64(i) / float64(m-1)
	}
	T[m-1] = h
	return T
}

// logGrid returns 0 followed by m−1 points geometrically spaced from
// tmin to h.
func logGrid(tmin, h float64, m int) []float64 {
	T, _ := logGridLn(tmin, h, m, false)
	return T
}

// logGridLn is logGrid, with the logarithms of its points when ln (0 for
// the point 0; a buffer of floatScratch): the exponents
// ln(tmin) + r·(i−1)/(m−2) the points are made from, a logarithm a point
// fewer for the log-domain KDE, equal to math.Log(T[i]) within its
// rounding.
func logGridLn(tmin, h float64, m int, ln bool) (T, lnT []float64) {
	if !(tmin > 0) || tmin >= h {
		tmin = h / 1e3
	}
	T = make([]float64, m)
	if ln {
		lnT = floatScratch.get(m)
		lnT[0] = 0
	}
	r := math.Log(h / tmin)
	l0 := math.Log(tmin)
	for i := 1; i < m; i++ {
		a := r * float64(i-1) / float64(m-2)
		T[i] = tmin * math.Exp(a)
		if ln {
			lnT[i] = l0 + a
		}
	}
	T[m-1] = h
	if ln {
		lnT[m-1] = math.Log(h)
	}
	return T, lnT
}
