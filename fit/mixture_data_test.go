package fit

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/pollfit/pollfit/sample"
	"gonum.org/v1/gonum/floats/scalar"
)

// TestMixtureWeightsAreCounts: an item of weight w is w items at its time.
func TestMixtureWeightsAreCounts(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 5))
	distinct := drawMixture(r, 400, []Component{{0.5, 0, 0.5}, {0.5, 2.5, 0.5}})
	weighted := &sample.Sample{}
	repeated := &sample.Sample{}
	for i, v := range distinct {
		c := 1 + i%5
		weighted.Times = append(weighted.Times, v)
		weighted.Weights = append(weighted.Weights, float64(c))
		for range c {
			repeated.Times = append(repeated.Times, v)
		}
	}
	a, err := MixtureEM(weighted, MixtureOptions{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := MixtureEM(repeated, MixtureOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if a.K() != b.K() || !scalar.EqualWithinAbsOrRel(a.LogLik, b.LogLik, 1e-9, 1e-12) {
		t.Fatalf("weighted: %s (loglik %g); repeated: %s (loglik %g)", a, a.LogLik, b, b.LogLik)
	}
	for k := range a.Components {
		if !scalar.EqualWithinAbs(a.Components[k].Mu, b.Components[k].Mu, 1e-9) {
			t.Errorf("component %d: weighted %+v, repeated %+v", k, a.Components[k], b.Components[k])
		}
	}
}

// TestMixtureBinning: the binned fit of a large sample agrees with the
// fit on every item, within what MixtureEM's docstring promises.
func TestMixtureBinning(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 9))
	comps := []Component{{0.35, math.Log(0.05), 0.6}, {0.45, math.Log(3), 0.3}, {0.2, math.Log(400), 1}}
	s := &sample.Sample{Times: drawMixture(r, 30000, comps)}
	binned, err := MixtureEM(s, MixtureOptions{K: 3})
	if err != nil {
		t.Fatal(err)
	}
	defer func(v int) { mixBinAbove = v }(mixBinAbove)
	mixBinAbove = math.MaxInt
	exact, err := MixtureEM(s, MixtureOptions{K: 3})
	if err != nil {
		t.Fatal(err)
	}
	if binned.Cells == 0 || exact.Cells != 0 {
		t.Fatalf("cells: binned %d, exact %d", binned.Cells, exact.Cells)
	}
	// The data span ln t over about 14: Δ = 14/8192. Evaluated at the
	// cells' means alone, the log-likelihood would be off by up to
	// n·Δ²/(8σ²) = 0.04 at σ = 0.3; the second-order term leaves O(nΔ³).
	if d := math.Abs(binned.LogLik - exact.LogLik); d > 1e-3 {
		t.Errorf("loglik: binned %.8g, exact %.8g", binned.LogLik, exact.LogLik)
	}
	t.Logf("loglik: binned %.10g, exact %.10g", binned.LogLik, exact.LogLik)
	for k := range comps {
		b, e := binned.Components[k], exact.Components[k]
		if math.Abs(b.Weight-e.Weight) > 1e-4 || math.Abs(b.Mu-e.Mu) > 1e-4 || math.Abs(b.Sigma-e.Sigma) > 1e-4 {
			t.Errorf("component %d: binned %+v, exact %+v", k, b, e)
		}
	}
}
