package fit

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Options configures Estimate. The zero value means: Gaussian KDE of ln t
// (DefaultDomain) with the DefaultBandwidth rule, atoms detected, on
// DefaultGrid points up to the largest observed time, no holdout.
type Options struct {
	// Horizon is the last grid time, seconds; 0 means the largest time in
	// the sample (censored ones included). Mass beyond it is the stuck
	// share.
	Horizon float64
	// Grid is the number of grid points of the result, from 16 to
	// MaxGrid; 0 means DefaultGrid.
	Grid int
	// Method is "kde" (the default when empty), "histogram", a
	// parametric family fitted by maximum likelihood: "lognormal",
	// "weibull", "gamma", "exponential", or a mixture of lognormals fitted
	// by EM (MixtureEM): "lognormal-mixture" with the number of
	// components chosen by BIC, "lognormal-mixture:K" with K of them.
	Method string
	// Bandwidth is the KDE bandwidth rule: "silverman", "scott", "sj",
	// "isj" (empty means DefaultBandwidth), or a positive number up to
	// MaxBandwidth used as the bandwidth in the domain's units (ln s in
	// the log domain, seconds otherwise); Estimate refuses a number more
	// than maxBandwidthSpans times the spread of the data, which would
	// leave nothing of the data in the density.
	Bandwidth string
	// Domain is where the kernel smooths: "log" (KDE of ln t mapped back
	// by f(t) = g(ln t)/t; times equal to 0 become an atom at 0),
	// "linear" (KDE of t, cut at 0 and renormalised) or "reflect" (KDE of
	// t reflected at 0). Empty means DefaultDomain.
	Domain string
	// Atoms is "auto" (the default when empty: detect point masses by the
	// rule in atoms.go and keep them apart) or "off".
	Atoms string
	// Holdout, in [0, 1), is the share of rows held out: the estimate is
	// fitted on the rest, and Density.HoldoutLogLik and HoldoutKS report
	// the held-out log-likelihood and Kolmogorov–Smirnov distance (see
	// Density.ScoreHoldout). 0 means no holdout.
	Holdout float64
	// Seed seeds the random holdout split (PCG); equal seeds give equal
	// splits.
	Seed uint64
	// Reorder lets Estimate reorder the sample's items in place where
	// that saves memory; the estimate is the same either way, and the
	// caller must not rely on the items' order afterwards. Estimate then
	// sorts a right-censored sample of times and censoring flags alone
	// (no weights, segments or creation instants) fitted by "kde" or
	// "histogram", the settled items first, each kind by time, so that
	// the Kaplan–Meier step reads the times there instead of in a sorted
	// copy (8 bytes an item). False (the default) leaves the sample as it
	// is.
	Reorder bool
	// Resolution, when not 0, is the data resolution of the rows fitted
	// in seconds (Density.Resolution) to use instead of finding it in
	// them, which reads an evenly strided subsample of the items in their
	// order: a caller that reorders the sample before the fit (pollfit
	// fit's segments, taken out of it in place) finds it first, with
	// Resolution. A negative value means the times have none (0). The
	// parametric and mixture fits, which read the sample in its order,
	// find their grouping cells themselves.
	Resolution float64
}

// Bounds of Options.
const (
	// MaxGrid bounds Options.Grid: each grid point holds five float64
	// values (t, pdf, CDF, survival, hazard), 40 MB at MaxGrid.
	MaxGrid = 1 << 20
	// MaxBandwidth bounds a numeric Options.Bandwidth: wider kernels
	// overflow the KDE's arithmetic (1e308 gave a NaN CDF), and no settle
	// times span 10⁹ s (31 years) or 10⁹ in ln s.
	MaxBandwidth = 1e9
	// maxBandwidthSpans bounds a numeric bandwidth by the data: a kernel
	// ten times wider than the range of the values is a flat density
	// whose mass lies mostly outside the data (half the payments
	// fixture's mass went below its least value at 10¹²).
	maxBandwidthSpans = 10
)

// Defaults used for the zero Options.
const (
	DefaultGrid   = 2048
	DefaultMethod = "kde"
	// DefaultDomain is the log domain: settle times are skewed and span
	// decades, and it had the best held-out log-likelihood on all real
	// datasets (docs/fit.md, "Choosing the defaults").
	DefaultDomain = "log"
)

// Domains accepted by Options.Domain.
const (
	DomainLog     = "log"
	DomainLinear  = "linear"
	DomainReflect = "reflect"
)

// Sentinel errors of Estimate; check them with errors.Is.
var (
	// ErrOption is returned (wrapped) for an invalid Options value: a
	// mistake in how the estimate was asked for, not in the data.
	ErrOption = errors.New("invalid option")
	// ErrNoRows is returned for a sample with no items, or with no
	// settled item (all are censored).
	ErrNoRows = errors.New("no data rows")
)

// Check returns the ErrOption error Estimate would return for these
// options, so that callers can report a typo before reading any data.
func (o Options) Check() error {
	_, err := o.resolve()
	return err
}

func (o Options) resolve() (Options, error) {
	if o.Grid == 0 {
		o.Grid = DefaultGrid
	}
	if o.Grid < 16 || o.Grid > MaxGrid {
		return o, fmt.Errorf("%w: grid %d: want 16 to %d points", ErrOption, o.Grid, MaxGrid)
	}
	o.Method = strings.ToLower(o.Method)
	if o.Method == "" {
		o.Method = DefaultMethod
	}
	_, mixture, err := parseMixtureMethod(o.Method)
	if err != nil {
		return o, err
	}
	if _, ok := familyParams[o.Method]; !ok && !mixture && o.Method != "kde" && o.Method != "histogram" {
		return o, fmt.Errorf("%w: method %q (want kde, histogram, lognormal, weibull, gamma, exponential or %s[:K])", ErrOption, o.Method, LogNormalMixture)
	}
	if o.Bandwidth == "" {
		o.Bandwidth = DefaultBandwidth
	}
	o.Domain = strings.ToLower(o.Domain)
	if o.Domain == "" {
		o.Domain = DefaultDomain
	}
	if o.Domain != DomainLog && o.Domain != DomainLinear && o.Domain != DomainReflect {
		return o, fmt.Errorf("%w: domain %q (want log, linear or reflect)", ErrOption, o.Domain)
	}
	o.Atoms = strings.ToLower(o.Atoms)
	if o.Atoms == "" {
		o.Atoms = "auto"
	}
	if o.Atoms != "auto" && o.Atoms != "off" {
		return o, fmt.Errorf("%w: atoms %q (want auto or off)", ErrOption, o.Atoms)
	}
	switch strings.ToLower(o.Bandwidth) {
	case BandwidthSilverman, "nrd0", BandwidthScott, "nrd", BandwidthSJ, "sj-ste", BandwidthISJ:
	default:
		if v, err := strconv.ParseFloat(o.Bandwidth, 64); err != nil || !(v > 0) || v > MaxBandwidth {
			return o, fmt.Errorf("%w: bandwidth %q (want silverman, scott, sj, isj or a positive number up to %g)", ErrOption, o.Bandwidth, float64(MaxBandwidth))
		}
	}
	if !(o.Holdout >= 0 && o.Holdout < 1) {
		return o, fmt.Errorf("%w: holdout %v: want a share in [0, 1)", ErrOption, o.Holdout)
	}
	if !(o.Horizon >= 0) || math.IsInf(o.Horizon, 0) {
		return o, fmt.Errorf("%w: horizon %v: want seconds ≥ 0", ErrOption, o.Horizon)
	}
	if math.IsNaN(o.Resolution) || math.IsInf(o.Resolution, 0) {
		return o, fmt.Errorf("%w: resolution %v: want seconds, or 0 to find it in the data", ErrOption, o.Resolution)
	}
	return o, nil
}
