package optimize

import (
	"errors"
	"fmt"
	"math"
	"time"
)

// Distribution is a settle-time distribution as the solvers need it: the
// cumulative distribution function CDF(t) = P(T ≤ t), t in seconds since
// creation. It must be non-decreasing and right-continuous; it may jump
// (atoms: batches, deadlines, instant settles at 0) and may stay below 1
// (items that never settle, "stuck" mass). gonum's distuv.Weibull,
// distuv.LogNormal and distuv.Exponential satisfy it, and so does
// *fit.Density.
type Distribution interface {
	CDF(t float64) float64
}

// Options configures the solvers. The zero value means every default;
// zero fields take defaults that follow the horizon, and the horizon
// follows the distribution (see Resolve and the scale-free defaults in
// scale.go).
type Options struct {
	// Horizon is the age of the last poll: every schedule the solvers
	// return polls at exactly Horizon, so every item settling by then is
	// caught, and an item that never settles makes all the polls (the
	// stuck cost). 0 means HorizonFor(d): a nice duration above the 99th
	// percentile of the settled mass.
	Horizon time.Duration
	// Resolution is the grid step: poll times are multiples of it, and the
	// distribution is read at every multiple (CDF linear in between, jumps
	// at grid points kept). It must divide Horizon. 0 means
	// DefaultResolution: about Horizon/8192, a nice duration that divides
	// the horizon and the gaps (ResolutionFor). Nice gaps and bounds that
	// are not multiples of it are left out (DroppedGaps).
	Resolution time.Duration
	// MinGap is the smallest gap between polls, of every solver (so that
	// the exact optimum a phased schedule is compared with obeys it too).
	// 0 means MinGapFor(Horizon, Resolution), about Horizon/1000.
	MinGap time.Duration
	// MaxGap is the largest gap between polls, and the latest first poll.
	// 0 means no limit.
	MaxGap time.Duration
	// NiceGaps are the gaps Phased may use; nil means the nice durations
	// from MinGap to Horizon (NiceDurations). Gaps that are not multiples
	// of Resolution are left out.
	NiceGaps []time.Duration
	// NiceBounds are the phase ends Phased may use, the horizon always
	// one; a phase of one poll is written as a plain gap ("2s"), which
	// names no end, so it needs none. nil means any: a phase may end at
	// any of its polls, and its Until is printed as the roundest duration
	// that says so.
	NiceBounds []time.Duration
	// ConstantGaps keeps Phased to phases of constant gap ("every G");
	// false lets it also try phases whose gap grows ("linear D+S", "exp D
	// xF cap C"), found by local search from the best constant-gap ones.
	ConstantGaps bool
}

// ErrOptions is wrapped by the errors about bad Options.
var ErrOptions = errors.New("invalid solver options")

// check reports resolved options that no solver can use.
func (o Options) check() (Options, error) {
	switch {
	case o.Horizon <= 0 || o.Resolution <= 0 || o.MinGap < 0 || o.MaxGap < 0:
		return o, fmt.Errorf("%w: horizon and resolution must be positive, min gap and max gap not negative", ErrOptions)
	case o.Horizon%o.Resolution != 0:
		return o, fmt.Errorf("%w: horizon %s is not a multiple of resolution %s", ErrOptions, FormatDuration(o.Horizon), FormatDuration(o.Resolution))
	case o.Horizon/o.Resolution > maxGridPoints:
		return o, fmt.Errorf("%w: horizon %s at resolution %s makes %d grid points, more than %d", ErrOptions,
			FormatDuration(o.Horizon), FormatDuration(o.Resolution), o.Horizon/o.Resolution, maxGridPoints)
	case o.MaxGap > 0 && o.MaxGap < o.Resolution:
		return o, fmt.Errorf("%w: max gap %s is below the resolution %s", ErrOptions, FormatDuration(o.MaxGap), FormatDuration(o.Resolution))
	case o.MaxGap > 0 && o.MinGap > o.MaxGap:
		return o, fmt.Errorf("%w: min gap %s exceeds max gap %s", ErrOptions, FormatDuration(o.MinGap), FormatDuration(o.MaxGap))
	case o.MinGap > o.Horizon:
		return o, fmt.Errorf("%w: min gap %s exceeds the horizon %s", ErrOptions, FormatDuration(o.MinGap), FormatDuration(o.Horizon))
	}
	return o, nil
}

// maxGridPoints bounds the grid so that a mistyped resolution fails with
// an error instead of exhausting memory (16 bytes × 4 arrays per point).
const maxGridPoints = 20_000_000

// model is the distribution read on the grid t_k = k·δ, k = 0 … n−1,
// t_{n−1} = horizon. Inside a cell (t_{k−1}, t_k) the CDF is linear from
// F[k−1] to Fm[k]; at t_k it jumps by the atom F[k] − Fm[k]. On this model
// the expected lag of the items settling in a gap (a, b], each caught at b,
// is exactly
//
//	w(a, b) = E[(b − T); a < T ≤ b] = ∫_a^b (F(t) − F(a)) dt = G(b) − G(a) − (b − a)·F(a)
//
// with G(t) = ∫_0^t F, kept as prefix sums so that w costs O(1).
type model struct {
	res float64   // δ, seconds
	t   []float64 // t_k, seconds
	F   []float64 // F(t_k)
	Fm  []float64 // F(t_k⁻), left limit; Fm[0] = 0
	G   []float64 // ∫_0^{t_k} F(t) dt
	fh  float64   // F(horizon)
}

func newModel(d Distribution, horizon, res time.Duration) (*model, error) {
	n := int(horizon/res) + 1
	md := &model{
		res: res.Seconds(),
		t:   make([]float64, n),
		F:   make([]float64, n),
		Fm:  make([]float64, n),
		G:   make([]float64, n),
	}
	// The left limit is read a millionth of a cell early: small enough
	// that a continuous CDF moves by a negligible amount, large enough to
	// stay above float64 rounding of t at a day's horizon (≈ 1e-11 s).
	eta := md.res * 1e-6
	var sum, comp float64
	for k := range n {
		tk := (time.Duration(k) * res).Seconds()
		md.t[k] = tk
		f, err := cdfAt(d, tk)
		if err != nil {
			return nil, err
		}
		if k == 0 {
			md.F[0] = f
			continue
		}
		fm, err := cdfAt(d, tk-eta)
		if err != nil {
			return nil, err
		}
		// Extend the cell's slope over the last η, so that a CDF linear in
		// the cell gets its exact left limit; an atom at t_k is unaffected.
		// Clamp to keep the model monotone under rounding noise of the CDF.
		fm = math.Max(fm, md.F[k-1])
		fm += (fm - md.F[k-1]) * eta / (md.res - eta)
		f = math.Max(f, fm)
		md.Fm[k], md.F[k] = fm, f
		// Neumaier's compensated sum keeps G exact to a few ulps over
		// millions of cells, so that a gap's lag, a difference of two G
		// values, is not swamped by rounding.
		x := md.res * (md.F[k-1] + (fm-md.F[k-1])/2)
		t := sum + x
		if math.Abs(sum) >= math.Abs(x) {
			comp += (sum - t) + x
		} else {
			comp += (x - t) + sum
		}
		sum = t
		md.G[k] = sum + comp
	}
	md.fh = md.F[n-1]
	return md, nil
}

func cdfAt(d Distribution, t float64) (float64, error) {
	f := d.CDF(t)
	if math.IsNaN(f) || f < -1e-9 || f > 1+1e-9 {
		return 0, fmt.Errorf("distribution CDF(%g) = %g, want a probability", t, f)
	}
	return math.Min(1, math.Max(0, f)), nil
}

func (md *model) n() int { return len(md.t) }

// w is the expected lag of items settling in (t_i, t_j], caught at t_j:
// the integral of F(t) − F(t_i) ≥ 0 over the gap, so exactly 0 when no
// mass lies inside it (F(t_j⁻) = F(t_i)), and clamped at 0 against the
// rounding of the prefix sums (one atom gave lags of −1e-16).
func (md *model) w(i, j int) float64 {
	if md.Fm[j] == md.F[i] {
		return 0
	}
	return max(0, md.G[j]-md.G[i]-(md.t[j]-md.t[i])*md.F[i])
}

// madeAfter is P(T > t_k) = 1 − F(t_k): the probability that the poll
// after one at t_k is made, that is that the poll at t_k saw the item
// still pending (an item settling exactly at t_k is seen by it). The first
// poll is always made.
func (md *model) madeAfter(k int) float64 { return 1 - md.F[k] }

// at returns F(t) and G(t) on the model at any t in [0, horizon].
func (md *model) at(t float64) (f, g float64) {
	k := int(math.Floor(t/md.res + 1e-9))
	if k >= md.n()-1 {
		k = md.n() - 1
	}
	if k < 0 {
		return 0, 0
	}
	x := t - md.t[k]
	if math.Abs(x) <= 1e-9*md.res {
		return md.F[k], md.G[k]
	}
	if k+1 >= md.n() { // beyond the grid: F stays at its last value
		return md.F[k], md.G[k] + x*md.F[k]
	}
	slope := (md.Fm[k+1] - md.F[k]) / md.res
	f = md.F[k] + slope*x
	return f, md.G[k] + x*md.F[k] + slope*x*x/2
}

// path is a schedule on the grid (indices into the model) with its figures.
type path struct {
	idx   []int
	lag   float64 // E[lag; T ≤ last poll], seconds
	polls int     // stuck polls
	mean  float64 // expected polls per item, Σ_i P(T > t_{i−1})
}

// evalIdx fills the figures of a schedule given by grid indices.
func (md *model) evalIdx(idx []int) path {
	p := path{idx: idx, polls: len(idx)}
	for n, k := range idx {
		if n == 0 {
			p.lag += md.G[k] // gap from creation: F(0⁻) = 0
			p.mean++
		} else {
			p.lag += md.w(idx[n-1], k)
			p.mean += md.madeAfter(idx[n-1])
		}
	}
	return p
}
