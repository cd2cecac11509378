package fit

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Bandwidth rules accepted by Options.Bandwidth (besides a positive
// number, which is used as the bandwidth itself).
const (
	// BandwidthSilverman is Silverman's rule of thumb
	// 0.9·min(sd, IQR/1.34)·n^(−1/5), as R's bw.nrd0 (Silverman 1986,
	// eq. 3.31).
	BandwidthSilverman = "silverman"
	// BandwidthScott is Scott's variant 1.06·min(sd, IQR/1.34)·n^(−1/5),
	// as R's bw.nrd (Scott 1992).
	BandwidthScott = "scott"
	// BandwidthSJ is the Sheather–Jones solve-the-equation plug-in
	// bandwidth (Sheather & Jones 1991), computed as R's bw.SJ(method =
	// "ste") with nb = 1000 bins.
	BandwidthSJ = "sj"
	// BandwidthISJ is Botev's improved Sheather–Jones plug-in bandwidth
	// (Botev, Grotowski & Kroese 2010, "Kernel density estimation via
	// diffusion", Ann. Statist. 38(5)), which needs no normal reference.
	BandwidthISJ = "isj"
)

// DefaultBandwidth is the bandwidth rule used when Options.Bandwidth is
// empty. It had the best held-out log-likelihood on the real datasets
// (docs/fit.md, "Choosing the defaults").
const DefaultBandwidth = BandwidthISJ

// ErrBandwidth is returned (wrapped) for an unknown bandwidth rule or a
// sample on which a rule is not defined.
var ErrBandwidth = errors.New("bandwidth")

// spread returns the standard deviation and the interquartile range
// (type 7) of the values as recorded (see wsample.rec).
func (s wsample) spread() (sd, iqr float64) {
	r := s
	if s.rec != nil {
		r = *s.rec
	}
	q := r.quantiles(0.25, 0.75)
	if s.rec == nil && s.snapLog > 0 {
		// A pre-binned sample's items are not at hand: its quartiles, of
		// 2²⁰ items and more, lie within a resolution cell of the
		// recorded ones, which are multiples of δ.
		for i, v := range q {
			q[i] = math.Log(s.snapLog * max(1, math.Round(math.Exp(v)/s.snapLog)))
		}
	}
	return r.sd(), q[1] - q[0]
}

// iqrScale returns min(sd, IQR/div) of the values as recorded, falling
// back as R's bw.nrd0 does when it is 0: to the sd, then (all values
// equal) to the spread of the de-rounded values over their resolution
// cell, then to |x₀| (linear domain only; see wsample.log), then to 1.
func (s wsample) iqrScale(div float64) float64 {
	sd, iqr := s.spread()
	lo := math.Min(sd, iqr/div)
	if !(lo > 0) {
		lo = sd
	}
	if !(lo > 0) && s.rec != nil {
		lo = s.sd()
	}
	if !(lo > 0) && !s.log {
		lo = math.Abs(s.x[0])
	}
	if !(lo > 0) {
		lo = 1
	}
	return lo
}

// silverman is R's bw.nrd0.
func (s wsample) silverman() float64 {
	_, n := s.total()
	return 0.9 * s.iqrScale(1.34) * math.Pow(n, -0.2)
}

// scott is R's bw.nrd.
func (s wsample) scott() float64 {
	_, n := s.total()
	return 1.06 * s.iqrScale(1.34) * math.Pow(n, -0.2)
}

// selectBandwidth returns the bandwidth for rule (a rule name or a
// positive number) on the sample.
func selectBandwidth(rule string, s wsample) (float64, error) {
	if len(s.x) < 2 {
		if v, err := strconv.ParseFloat(rule, 64); err == nil && v > 0 && !math.IsInf(v, 0) {
			return v, nil
		}
		return 0, fmt.Errorf("%w: need at least 2 values to select a bandwidth", ErrBandwidth)
	}
	switch strings.ToLower(rule) {
	case BandwidthSilverman, "nrd0":
		return s.silverman(), nil
	case BandwidthScott, "nrd":
		return s.scott(), nil
	case BandwidthSJ, "sj-ste":
		return s.sheatherJones(1000)
	case BandwidthISJ:
		m := s.isjBins
		if m == 0 {
			m = isjBins
		}
		if isjFixedBins {
			return s.botev(m)
		}
		return s.isj(m)
	}
	v, err := strconv.ParseFloat(rule, 64)
	if err != nil || !(v > 0) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("%w: unknown rule %q (want silverman, scott, sj, isj or a positive number)", ErrBandwidth, rule)
	}
	return v, nil
}
