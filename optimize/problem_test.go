package optimize

import (
	"testing"
	"time"
)

// A problem derived with WithBudget shares the grid model and the phase
// space (its DP layers, the local search's sums) with the one it comes
// from, which solved another budget first: its schedules are those of a
// problem prepared for the budget alone.
func TestWithBudgetMatchesNewProblem(t *testing.T) {
	o := Options{Horizon: 15 * time.Minute}
	base, err := NewProblem(paymentsLike, Budget{StuckPolls: 152}, o)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := base.Phased(0); err != nil {
		t.Fatal(err)
	}
	for _, b := range []Budget{{StuckPolls: 40}, {StuckPolls: 400}, {MeanPolls: 12}} {
		shared, err := base.WithBudget(b)
		if err != nil {
			t.Fatal(err)
		}
		alone, err := NewProblem(paymentsLike, b, o)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range []struct {
			name  string
			solve func(*Problem) (*Result, error)
		}{
			{"exact", (*Problem).Exact},
			{"phased", func(p *Problem) (*Result, error) { return p.Phased(0) }},
		} {
			got, err1 := p.solve(shared)
			want, err2 := p.solve(alone)
			if err1 != nil || err2 != nil {
				t.Fatalf("%+v %s: %v, %v", b, p.name, err1, err2)
			}
			if got.Schedule.String() != want.Schedule.String() || got.Expected != want.Expected {
				t.Errorf("%+v %s: WithBudget gives %s (%+v), NewProblem %s (%+v)", b, p.name, got.Schedule, got.Expected, want.Schedule, want.Expected)
			}
		}
	}
	if _, err := base.WithBudget(Budget{}); err == nil {
		t.Error("WithBudget(no budget): no error")
	}
}
