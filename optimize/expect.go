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
// It reads d on the grid of o.Resolution (o.DefaultResolution() for the
// horizon when zero), linear in between as the solvers do (see Exact), and uses the poll times
// of s.Polls() exactly, on the grid or not. Polls after o.Horizon are not
// made; o.Horizon zero means the schedule's own horizon. The other
// fields of o are ignored. It panics if s is invalid.
func Expect(s Schedule, d Distribution, o Options) (Expectation, error) {
	md, polls, err := expectModel(s, d, o)
	if err != nil {
		return Expectation{}, err
	}
	return md.expect(polls), nil
}

// ExpectByPoll returns what each poll of the unjittered schedule s does
// under d, as Expect computes it (see PollShare; polls after the horizon
// are left out). It panics if s is invalid.
func ExpectByPoll(s Schedule, d Distribution, o Options) ([]PollShare, error) {
	md, polls, err := expectModel(s, d, o)
	if err != nil {
		return nil, err
	}
	out := make([]PollShare, len(polls))
	var prevT, prevF, prevG float64
	for i, p := range polls {
		t := p.Seconds()
		f, g := md.at(t)
		out[i] = PollShare{At: p, Caught: f - prevF, Lag: g - prevG - (t-prevT)*prevF, LagSq: md.lagSq(prevT, t, i == 0)}
		prevT, prevF, prevG = t, f, g
	}
	return out, nil
}

// lagSq returns E[(p − T)²; a < T ≤ p] on the model, ∫ (p − t)² dF(t)
// over (a, p] ([0, p] when first): in each grid cell F rises linearly
// (slope s: s·((p − l)³ − (p − r)³)/3 over [l, r]) and jumps at grid
// points (jump·(p − t_k)²).
func (md *model) lagSq(a, p float64, first bool) float64 {
	if p < a {
		return 0
	}
	var s float64
	if first {
		s = p * p * md.F[0] // the items settled at 0
	}
	cube := func(x float64) float64 { return x * x * x }
	for k := max(0, int(math.Floor(a/md.res+1e-9))); k < md.n()-1; k++ {
		l, r := md.t[k], md.t[k+1]
		if lo, hi := math.Max(l, a), math.Min(r, p); hi > lo {
			s += (md.Fm[k+1] - md.F[k]) / md.res * (cube(p-lo) - cube(p-hi)) / 3
		}
		if r > p {
			break
		}
		if r > a {
			s += (p - r) * (p - r) * (md.F[k+1] - md.Fm[k+1])
		}
	}
	return s
}

// expectModel is the model and the poll times Expect evaluates.
func expectModel(s Schedule, d Distribution, o Options) (*model, []time.Duration, error) {
	polls := s.Polls()
	h := o.Horizon
	if h == 0 {
		h = s.Horizon()
	}
	res := o.Resolution
	if res == 0 {
		do := o
		do.Horizon = h
		res = do.DefaultResolution()
	}
	if h < 0 || res < 0 {
		return nil, nil, fmt.Errorf("%w: horizon and resolution must not be negative", ErrOptions)
	}
	for len(polls) > 0 && polls[len(polls)-1] > h {
		polls = polls[:len(polls)-1]
	}
	cells := (h + res - 1) / res // grid covering the horizon
	if cells > maxGridPoints {
		return nil, nil, fmt.Errorf("%w: horizon %s at resolution %s makes more than %d grid points", ErrOptions, FormatDuration(h), FormatDuration(res), maxGridPoints)
	}
	md, err := newModel(d, cells*res, res)
	if err != nil {
		return nil, nil, err
	}
	return md, polls, nil
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
