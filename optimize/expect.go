package optimize

import (
	"fmt"
	"math"
	"time"
)

// Expectation is how a schedule does on a settle-time distribution, in
// expectation (the distribution-side counterpart of Score).
type Expectation struct {
	// MeanLag is the mean lag of the items caught, seconds: items settling
	// at or before the last poll, each caught by the first poll at or
	// after its settle time.
	MeanLag float64
	// TotalLag is E[lag; caught] = MeanLag·Caught, seconds: the objective
	// the solvers minimise.
	TotalLag float64
	// MeanPolls is the expected number of polls per item, stuck items
	// included: 1 + Σ_{i≥1} P(T > t_{i−1}), since the poll at t_i is made
	// unless an earlier poll saw the item settled (one settling exactly at
	// a poll is seen by it). The poll that sees the item settled counts,
	// as in Score.
	MeanPolls float64
	// StuckPolls is the number of polls made by an item that never settles.
	StuckPolls int
	// Caught is the share of all items caught, P(T ≤ last poll).
	Caught float64
}

// Expect returns the expectation of the unjittered schedule s under d.
// It reads d on the grid of o.Resolution (ResolutionFor the horizon when
// zero),
// linear in between as the solvers do (see Exact), and uses the poll times
// of s.Polls() exactly, on the grid or not. Polls after o.Horizon are not
// made; o.Horizon zero means the schedule's own horizon. The other
// fields of o are ignored. It panics if s is invalid.
func Expect(s Schedule, d Distribution, o Options) (Expectation, error) {
	polls := s.Polls()
	h := o.Horizon
	if h == 0 {
		h = s.Horizon()
	}
	res := o.Resolution
	if res == 0 {
		res = ResolutionFor(h)
	}
	if h < 0 || res < 0 {
		return Expectation{}, fmt.Errorf("%w: horizon and resolution must not be negative", ErrOptions)
	}
	for len(polls) > 0 && polls[len(polls)-1] > h {
		polls = polls[:len(polls)-1]
	}
	cells := (h + res - 1) / res // grid covering the horizon
	if cells > maxGridPoints {
		return Expectation{}, fmt.Errorf("%w: horizon %s at resolution %s makes more than %d grid points", ErrOptions, FormatDuration(h), FormatDuration(res), maxGridPoints)
	}
	md, err := newModel(d, cells*res, res)
	if err != nil {
		return Expectation{}, err
	}
	return md.expect(polls), nil
}

// expect evaluates poll times (increasing, within the model) exactly on
// the model: the lag of the items caught at t_i is
// G(t_i) − G(t_{i−1}) − (t_i − t_{i−1})·F(t_{i−1}) (see model).
func (md *model) expect(polls []time.Duration) Expectation {
	var e Expectation
	e.StuckPolls = len(polls)
	var prevT, prevF, prevG float64 // creation: F(0⁻) = 0, G(0) = 0
	for _, p := range polls {
		t := p.Seconds()
		f, g := md.at(t)
		// The gap's lag is ∫ (F − F(prev)) ≥ 0: exactly 0 with no mass
		// inside, clamped at 0 against rounding otherwise (as model.w).
		if md.leftAt(t, f) != prevF {
			e.TotalLag += max(0, g-prevG-(t-prevT)*prevF)
		}
		e.MeanPolls += 1 - prevF
		prevT, prevF, prevG = t, f, g
	}
	e.Caught = prevF
	if e.Caught > 0 {
		e.MeanLag = e.TotalLag / e.Caught
	}
	return e
}

// leftAt returns F(t⁻) on the model given f = F(t) from at: the left
// limit at a grid point (below an atom there), f elsewhere.
func (md *model) leftAt(t, f float64) float64 {
	k := int(math.Floor(t/md.res + 1e-9))
	if k < 0 {
		return 0
	}
	if k < md.n() && math.Abs(t-md.t[k]) <= 1e-9*md.res {
		if k == 0 {
			return 0
		}
		return md.Fm[k]
	}
	return f
}

// expectIdx is expect for grid indices.
func (md *model) expectIdx(idx []int) Expectation {
	p := md.evalIdx(idx)
	e := Expectation{TotalLag: p.lag, MeanPolls: p.mean, StuckPolls: p.polls}
	if len(idx) > 0 {
		e.Caught = md.F[idx[len(idx)-1]]
	}
	if e.Caught > 0 {
		e.MeanLag = e.TotalLag / e.Caught
	}
	return e
}
