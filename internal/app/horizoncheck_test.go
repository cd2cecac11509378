package app

import (
	"testing"
	"time"
)

// TestHorizonCheckWarns: a horizon from the data or a model is warned
// about when the fit has more than 1% of items pending at it, a given one
// never; the warning names --horizon and the data's shares.
func TestHorizonCheckWarns(t *testing.T) {
	for _, tc := range []struct {
		from           string
		pending, older float64
		want           string
	}{
		{"data", 0.01, 0, ""},
		{"given", 0.5, 0, ""},
		{"data", 0.045, 0.02, "the client stops polling at 5s, the horizon from the data, while the fit has 4.5% of items still pending then (0.8% of the settles come after it, and 2.0% of the rows were still pending at an older age): --horizon sets a later one"},
		{"model", 0.0101, 0, "the client stops polling at 5s, the horizon from the model, while the fit has 1.0% of items still pending then (0.8% of the model's settles come after it): --horizon sets a later one"},
	} {
		c := newHorizonCheck(5*time.Second, tc.from, tc.pending, 0.008, tc.older)
		if c.Warning != tc.want || c.Pending != tc.pending || c.From != tc.from || c.Horizon != 5 {
			t.Errorf("newHorizonCheck(5s, %s, %v) = %+v, want warning %q", tc.from, tc.pending, c, tc.want)
		}
	}
}
