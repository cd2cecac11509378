package fit

import (
	"errors"
	"testing"

	"github.com/pollfit/pollfit/sample"
)

// TestOptionsErrors: Estimate returns ErrOption for every invalid option,
// and an error for an empty sample.
func TestOptionsErrors(t *testing.T) {
	s := &sample.Sample{Times: []float64{1, 2, 3}}
	for _, opt := range []Options{
		{Method: "spline"}, {Domain: "sqrt"}, {Atoms: "yes"}, {Holdout: 1}, {Grid: 2}, {Grid: 15}, {Bandwidth: "wide"}, {Bandwidth: "-1"}, {Bandwidth: "Inf"},
	} {
		if _, err := Estimate(s, opt); !errors.Is(err, ErrOption) {
			t.Errorf("Estimate(%+v) error = %v, want ErrOption", opt, err)
		}
	}
	if _, err := Estimate(&sample.Sample{}, Options{}); err == nil {
		t.Error("Estimate(empty) = nil error, want ErrNoRows")
	}
}
