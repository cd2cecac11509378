package optimize

import "time"

// Problem is a distribution, a budget and options prepared once for
// several solvers: the distribution is read on the grid once, and the
// exact optimum, which every solver compares with (and the √ rule and the
// phased search take their multipliers from), is solved once. The
// package-level Exact, Phased, PriceOfSimplicity and SqrtRule each prepare
// their own.
type Problem struct{ pr *problem }

// NewProblem prepares d, b and o (see Options.Resolve for the defaults).
// Errors wrap ErrOptions or ErrInvalidBudget.
func NewProblem(d Distribution, b Budget, o Options) (*Problem, error) {
	pr, err := prepare(d, b, o)
	if err != nil {
		return nil, err
	}
	return &Problem{pr}, nil
}

// Options returns the options, every default resolved.
func (p *Problem) Options() Options { return p.pr.o }

// Exact is Exact on the prepared problem, solved once.
func (p *Problem) Exact() (*Result, error) { return p.pr.exact() }

// Phased is Phased on the prepared problem.
func (p *Problem) Phased(k int) (*Result, error) {
	if err := checkPhases(k); err != nil {
		return nil, err
	}
	return p.pr.phased(k)
}

// PriceOfSimplicity is PriceOfSimplicity on the prepared problem.
func (p *Problem) PriceOfSimplicity() ([]Simplicity, error) { return p.pr.priceOfSimplicity() }

// SqrtRule is SqrtRule on the prepared problem.
func (p *Problem) SqrtRule() (*Result, error) { return p.pr.sqrt() }

// WithMinGap returns the problem with the least gap g instead, on the
// same grid (its exact optimum is solved anew). Errors wrap ErrOptions.
func (p *Problem) WithMinGap(g time.Duration) (*Problem, error) {
	o := p.pr.o
	o.MinGap = g
	o, err := o.check()
	if err != nil {
		return nil, err
	}
	return &Problem{&problem{md: p.pr.md, b: p.pr.b, o: o}}, nil
}

// WithBudget returns the problem under budget b instead, sharing the
// grid model and what the phased search keeps, which no budget enters
// (its DP at given multipliers, the sums of its local search): a sweep
// over budgets builds them once. The exact optimum is solved anew. It
// is not safe for concurrent use with p. Errors wrap ErrInvalidBudget.
func (p *Problem) WithBudget(b Budget) (*Problem, error) {
	if err := b.validate(); err != nil {
		return nil, err
	}
	if p.pr.shared == nil {
		p.pr.shared = &spaceOnce{}
	}
	return &Problem{&problem{md: p.pr.md, b: b, o: p.pr.o, shared: p.pr.shared}}, nil
}

// WithNiceBounds returns the problem with the phase ends bounds instead
// (nil: any), sharing the grid model and the exact optimum, which no bound
// constrains.
func (p *Problem) WithNiceBounds(bounds []time.Duration) *Problem {
	o := p.pr.o
	o.NiceBounds = bounds
	return &Problem{&problem{md: p.pr.md, b: p.pr.b, o: o, exactRes: p.pr.exactRes}}
}
