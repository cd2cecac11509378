package optimize

import (
	"testing"
	"time"
)

// The brief's table: polls by 30s, 2m and 15m of the four reference
// schedules, counted by hand from their definitions (../shared/brief.md).
func TestReferencesReproduceBriefTable(t *testing.T) {
	want := map[string][3]int{
		"before":  {5, 11, 37},
		"76cd188": {8, 26, 78},
		"a74b69e": {16, 61, 217},
		"now":     {31, 76, 152},
	}
	for _, s := range References {
		t.Run(s.Name, func(t *testing.T) {
			got := [3]int{s.PollsBy(30 * time.Second), s.PollsBy(2 * time.Minute), s.PollsBy(15 * time.Minute)}
			if got != want[s.Name] {
				t.Errorf("PollsBy(30s, 2m, 15m) = %v, want %v", got, want[s.Name])
			}
			if got, want := s.StuckPolls(), want[s.Name][2]; got != want {
				t.Errorf("StuckPolls() = %d, want %d", got, want)
			}
		})
	}
}
