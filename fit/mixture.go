package fit

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// LogNormalMixture is the Options.Method of the finite mixture of
// lognormals fitted by EM (MixtureEM): "lognormal-mixture" chooses the
// number of components by BIC, "lognormal-mixture:K" fits K.
const LogNormalMixture = "lognormal-mixture"

// MaxMixtureComponents bounds the K of "lognormal-mixture:K".
const MaxMixtureComponents = 20

// Component is one lognormal component of a Mixture: a share Weight of
// all items settles with ln T ~ N(Mu, Sigma²), Mu in ln s. Its median is
// e^Mu seconds.
type Component struct {
	Weight float64
	Mu     float64
	Sigma  float64
}

// Median returns the component's median, seconds.
func (c Component) Median() float64 { return math.Exp(c.Mu) }

// PDF returns the component's weighted density at t, Weight·f_k(t), 1/s.
func (c Component) PDF(t float64) float64 {
	if !(t > 0) {
		return 0
	}
	z := (math.Log(t) - c.Mu) / c.Sigma
	return c.Weight * math.Exp(-z*z/2) / (c.Sigma * math.Sqrt2 * math.SqrtPi * t)
}

// componentJSON is Component's JSON form: its median added for readers.
type componentJSON struct {
	Weight  float64 `json:"weight"`
	MedianS float64 `json:"median_s"`
	Mu      float64 `json:"mu"`
	Sigma   float64 `json:"sigma"`
}

// MarshalJSON writes {"weight", "median_s", "mu", "sigma"}.
func (c Component) MarshalJSON() ([]byte, error) {
	return json.Marshal(componentJSON{c.Weight, c.Median(), c.Mu, c.Sigma})
}

// UnmarshalJSON reads what MarshalJSON writes (median_s is derived from
// mu and not read).
func (c *Component) UnmarshalJSON(b []byte) error {
	var j componentJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	*c = Component{Weight: j.Weight, Mu: j.Mu, Sigma: j.Sigma}
	return nil
}

// MixtureCandidate is one number of components tried by MixtureEM.
type MixtureCandidate struct {
	K          int     `json:"k"`
	LogLik     float64 `json:"loglik"`
	BIC        float64 `json:"bic"`
	Iterations int     `json:"iterations"`
	Converged  bool    `json:"converged"`
	// Abandoned: EM stopped before convergence because the Aitken limit
	// of the log-likelihood could not beat the best BIC by the margin
	// MixtureEM gives; LogLik and BIC are where it stopped.
	Abandoned bool `json:"abandoned,omitempty"`
}

// Mixture is a finite mixture of lognormals with, optionally, a point
// mass at 0 and a share that never settles:
//
//	F(t) = Zero + Σ_k π_k Φ((ln t − μ_k)/σ_k),   t > 0,
//	Zero + Σ_k π_k + Stuck = 1,
//
// π_k = Components[k].Weight (shares of all items). Stuck is the mass at
// +∞ of a mixture cure model (Farewell 1982, Biometrics 38:1041–1046):
// items that never settle, fitted only when the sample has right-censored
// items. The fields after Stuck describe the fit (MixtureEM); a Mixture
// built by hand may leave them zero.
type Mixture struct {
	// Components are ordered by median, ascending.
	Components []Component `json:"components"`
	// Zero is the share settled at exactly 0 s (an atom; a lognormal
	// cannot produce 0).
	Zero float64 `json:"zero,omitempty"`
	// Stuck is the share that never settles.
	Stuck float64 `json:"stuck"`
	// Apart is the share of all items kept apart from the mixture as
	// atoms and spikes (Estimate with Options.Atoms "auto"; they are the
	// Density's Atoms): Components' weights, Zero and Stuck are shares of
	// the other 1 − Apart.
	Apart float64 `json:"apart,omitempty"`

	// SelectedBy is "bic" when the number of components was chosen by
	// BIC among Candidates, "given" when it was asked for.
	SelectedBy string `json:"selected_by,omitempty"`
	// LogLik is the maximised log-likelihood (in ln(1/s) units for the
	// settled items that count as exact times; see MixtureEM), BIC
	// = −2·LogLik + p·ln n with p free parameters and n items.
	LogLik     float64 `json:"loglik"`
	BIC        float64 `json:"bic"`
	NParams    int     `json:"n_params"`
	Iterations int     `json:"iterations"`
	Converged  bool    `json:"converged"`
	// Candidates lists every number of components tried, in order.
	Candidates []MixtureCandidate `json:"candidates,omitempty"`
	// Cells is the number of ln t cells the settled times were binned
	// into (large samples); 0 when every distinct time was used.
	Cells int `json:"cells,omitempty"`

	// Warnings are the fit's doubts (non-convergence, a component at its
	// σ floor); Estimate moves them to the Density.
	Warnings []string `json:"-"`
}

// K returns the number of components.
func (m *Mixture) K() int { return len(m.Components) }

// CDF returns P(T ≤ t).
func (m *Mixture) CDF(t float64) float64 {
	switch {
	case t < 0 || math.IsNaN(t):
		return 0
	case t == 0:
		return m.Zero
	}
	y := math.Log(t)
	c := m.Zero
	for _, k := range m.Components {
		c += k.Weight * normCDF((y-k.Mu)/k.Sigma)
	}
	return min(c, 1)
}

// Survival returns P(T > t), the stuck share included.
func (m *Mixture) Survival(t float64) float64 {
	switch {
	case t < 0 || math.IsNaN(t):
		return 1
	case t == 0:
		return 1 - m.Zero
	}
	// Summed from the upper tails, so that it keeps its precision where
	// it is small.
	y := math.Log(t)
	s := m.Stuck
	for _, k := range m.Components {
		s += k.Weight * normCDF(-(y-k.Mu)/k.Sigma)
	}
	return min(s, 1)
}

// PDF returns the density of the continuous part at t, 1/s: the atom at
// 0 is not in it.
func (m *Mixture) PDF(t float64) float64 {
	p := 0.0
	for _, k := range m.Components {
		p += k.PDF(t)
	}
	return p
}

// Quantile returns the smallest t with CDF(t) ≥ p, seconds: 0 when p is
// within the atom at 0, +Inf when p exceeds the mass that ever settles
// (1 − Stuck).
func (m *Mixture) Quantile(p float64) float64 {
	if p <= m.Zero {
		return 0
	}
	if len(m.Components) == 0 || p >= m.CDF(math.MaxFloat64) {
		return math.Inf(1)
	}
	// Bisection on ln t between bounds no component reaches past.
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, k := range m.Components {
		lo = min(lo, k.Mu-40*k.Sigma)
		hi = max(hi, k.Mu+40*k.Sigma)
	}
	for range 200 {
		mid := lo + (hi-lo)/2
		if mid == lo || mid == hi {
			break
		}
		if m.CDF(math.Exp(mid)) >= p {
			hi = mid
		} else {
			lo = mid
		}
	}
	return math.Exp(hi)
}

// Density evaluates the mixture on grid points (0 means DefaultGrid) from
// 0 to horizon seconds (0 means the time by which DefaultDistHorizon of
// the settling mass has settled), spaced geometrically from the smallest
// component's 10⁻⁶ quantile as Dist.Density does. The atom at 0 is an
// Atom; the stuck share is 1 − F(horizon), the never-settling share
// included. The result's Mixture is m.
func (m *Mixture) Density(horizon float64, grid int) *Density {
	return m.densityWith(horizon, grid, nil)
}

// densityWith is Density with atoms and spikes kept apart from the
// mixture (see Density.mixture): the mixture holds 1 − m.Apart of the
// mass.
func (m *Mixture) densityWith(horizon float64, grid int, apart []Atom) *Density {
	if grid <= 0 {
		grid = DefaultGrid
	}
	if grid < 3 {
		panic("fit: grid needs at least 3 points")
	}
	if !(horizon > 0) {
		horizon = m.Quantile(m.Zero + DefaultDistHorizon*(1-m.Zero-m.Stuck))
		if math.IsInf(horizon, 0) || !(horizon > 0) {
			horizon = 1
		}
	}
	tmin := horizon / 1e3
	for _, k := range m.Components {
		tmin = min(tmin, math.Exp(k.Mu-4.753*k.Sigma)) // z of the 10⁻⁶ quantile
	}
	out := &Density{Method: LogNormalMixture, Domain: "parametric", Mixture: m, Atoms: []Atom{}, Warnings: []string{}}
	share := 1 - m.Apart
	if m.Zero > 0 {
		out.Atoms = append(out.Atoms, Atom{T: 0, Mass: share * m.Zero})
	}
	out.Atoms = append(out.Atoms, apart...)
	out.fill(logGrid(tmin, horizon, grid), func(t float64) (float64, float64) {
		if t <= 0 {
			return 0, 0
		}
		return share * m.PDF(t), share * (m.CDF(t) - m.Zero)
	})
	return out
}

// String describes the mixture, components by median, in shares of all
// items: "lognormal mixture of 3 (BIC): 40.1% at 1.49s (σ 0.52), 49.8% at
// 14.1s (σ 0.31), 7.06% at 148s (σ 0.9); 1.07% never settle", and the
// share kept apart as atoms and spikes.
func (m *Mixture) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "lognormal mixture of %d", len(m.Components))
	switch m.SelectedBy {
	case "bic":
		b.WriteString(" (BIC)")
	case "given":
		b.WriteString(" (given)")
	}
	b.WriteString(":")
	share := 100 * (1 - m.Apart) // shares of all items
	if m.Zero > 0 {
		fmt.Fprintf(&b, " %.3g%% at 0s,", share*m.Zero)
	}
	for i, k := range m.Components {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, " %.3g%% at %ss (σ %.2g)", share*k.Weight, strconv.FormatFloat(k.Median(), 'g', 3, 64), k.Sigma)
	}
	switch p := share * m.Stuck; {
	case p >= 0.01:
		fmt.Fprintf(&b, "; %.3g%% never settle", p)
	case p > 0: // an EM share run down to 5.49e-55% is none in words
		b.WriteString("; under 0.01% never settle")
	}
	if m.Apart > 0 {
		fmt.Fprintf(&b, "; %.3g%% in atoms and spikes apart", 100*m.Apart)
	}
	return b.String()
}

// normCDF is the standard normal CDF Φ.
func normCDF(z float64) float64 { return 0.5 * math.Erfc(-z/math.Sqrt2) }
