// Package optimize holds poll schedules, their scoring on observed items,
// and the solvers that derive schedules from a settle-time distribution.
//
// A Schedule polls at Start and then phase by phase (see Schedule.Polls);
// ParseSpec and Schedule.String read and write it as a spec such as
// "every 1s until 30s, every 5s until 15m". ScoreSchedule scores it on
// items; Expect gives its expected lag and polls under a Distribution.
//
// The solvers take a Distribution (anything with CDF(t float64) float64,
// t in seconds: gonum's distuv types, *fit.Density), a Budget and Options:
//
//   - Exact: the least mean lag over all schedules polling on a grid of
//     Options.Resolution, by a Monge dynamic program in O(m log m) with
//     Lagrange multipliers searched to meet the budget.
//   - SqrtRule: the square-root rule r(t) ∝ √f(t) (stuck budget) or √h(t)
//     (mean budget), snapped to the grid, beside the exact optimum.
//   - Phased: the best schedule of a few "every G until U" phases with
//     gaps and bounds from nice sets, by a dynamic program over the last
//     poll; PriceOfSimplicity compares 1 … MaxPhases phases with Exact.
//
// Model and conventions shared by all three: an item settling at T is
// caught by the first poll at or after T, with lag poll − T; every
// schedule polls at the horizon H, so every item settling by H is caught
// and mean lag is over those; an item that never settles makes every
// poll (the stuck polls); expected polls per item count every poll made
// up to and including the one that sees the item settled, as
// ScoreSchedule does: 1 + Σ_{i≥1} P(T > t_{i−1}).
package optimize
