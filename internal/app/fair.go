package app

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/pollfit/pollfit/internal/app/report"
	"github.com/pollfit/pollfit/optimize"
)

// A comparison sets the lag of each schedule beside pollfit's at the same
// cost and coverage: each family is tuned to spend the budget pollfit's
// schedule spends (optimize.Tune, within optimize.SpendTolerance on the
// items fitted on) and polls to the same horizon, so that it catches the
// same items. A row that does not (a family that cannot spend the budget
// even with all its parameters free, a user's schedule as given, a
// schedule that catches other items, a derived schedule whose phases
// cannot spend the budget) is marked, shown after the others (the derived
// schedules stay first) and never named the best family nor used in a
// headline.

// catchTolerance is how far a row's share caught may differ from
// pollfit's and the row still count as catching the same items: 0.05
// points, under the 0.1% the tables print.
const catchTolerance = 0.0005

// target returns the spend the families are tuned to under budget b: b
// itself, unless pollfit's derived schedules cannot spend it (their
// expected spend under the fit, entry.Expected, is below
// 1 − SpendTolerance of it on a kind of polls: their min gap or grid
// binds, or they need no more), when on that kind it is the most they
// spend on the items fitted on, where the families are tuned: so that no
// family is held to more polls than pollfit makes.
func (a *arena) target(b optimize.Budget, derived []entry, opt optimize.ScoreOptions) optimize.Budget {
	t := optimize.Budget{StuckPolls: b.StuckPolls, MeanPolls: b.MeanPolls}
	stuckShort, meanShort := b.StuckPolls > 0, b.MeanPolls > 0
	n := 0
	for _, d := range derived {
		if e := d.Expected; e != nil {
			n++
			stuckShort = stuckShort && float64(e.StuckPolls) < (1-optimize.SpendTolerance)*float64(b.StuckPolls)
			meanShort = meanShort && e.MeanPolls < (1-optimize.SpendTolerance)*b.MeanPolls
		}
	}
	if n == 0 || !stuckShort && !meanShort {
		return t
	}
	var stuck, mean float64
	for _, e := range derived {
		sp := a.fittedSpend(e, opt)
		stuck, mean = max(stuck, sp.StuckPolls), max(mean, sp.MeanPolls)
	}
	if stuckShort {
		t.StuckPolls = max(int(math.Floor(stuck)), 1)
	}
	if meanShort {
		t.MeanPolls = min(mean, b.MeanPolls)
	}
	return t
}

// fittedSpend returns what e spends on the items fitted on: a family's
// figures from its tuning, any other schedule's scored there.
func (a *arena) fittedSpend(e entry, opt optimize.ScoreOptions) report.Spend {
	if e.Tuned != nil {
		return report.Spend{StuckPolls: e.Tuned.StuckPolls, MeanPolls: e.Tuned.MeanPolls}
	}
	opt.Ages = []time.Duration{}
	sc := scoringOf(a.train, a.trainItems).score(e.Schedule, opt)
	return report.Spend{StuckPolls: sc.StuckPolls, MeanPolls: sc.MeanPolls}
}

// targetText writes a target as the notes give it: "152 stuck polls",
// "10 mean polls per item", with b the budget when it differs.
func targetText(t, b optimize.Budget) string {
	s := budgetText(t)
	if t.StuckPolls != b.StuckPolls || t.MeanPolls != b.MeanPolls {
		s += fmt.Sprintf(", what pollfit's schedule spends (under the budget of %s)", budgetText(b))
	}
	return s
}

// judge returns how each entry stands against the reference, the first
// derived entry (pollfit's schedule), given the entries' scores on the
// items scored and the target the families were tuned to (see target).
func (a *arena) judge(entries []entry, scores []optimize.Score, t optimize.Budget, opt optimize.ScoreOptions) []*report.Comparison {
	ref := slices.IndexFunc(entries, func(e entry) bool { return e.Kind == kindPhased || e.Kind == kindExact })
	out := make([]*report.Comparison, len(entries))
	for i, e := range entries {
		c := &report.Comparison{Comparable: true, Target: report.Spend{StuckPolls: float64(t.StuckPolls), MeanPolls: t.MeanPolls}}
		c.Fitted = a.fittedSpend(e, opt)
		if t.MeanPolls == 0 {
			c.Fitted.MeanPolls = 0 // not held to it; the rows give it
		}
		if t.StuckPolls == 0 {
			c.Fitted.StuckPolls = 0
		}
		var why []string
		switch e.Kind {
		case kindPhased, kindExact:
			// Held to its budget in expectation under the fit: judged
			// there, not on the items.
			if x := e.Expected; x != nil && !optimize.Spent(t, float64(x.StuckPolls), x.MeanPolls) {
				why = append(why, fmt.Sprintf("spends %s under the fit, not the %s the families are held to: its phases cannot spend more (plan says which constraint binds)",
					spendText(report.Spend{StuckPolls: float64(x.StuckPolls), MeanPolls: x.MeanPolls}, t), budgetText(t)))
			}
		case kindFamily:
			c.Tuning = e.Tuned.Freed
			if !optimize.Spent(t, e.Tuned.StuckPolls, e.Tuned.MeanPolls) {
				short := e.Tuned.Short
				if short == "" {
					short = "spends " + spendText(c.Fitted, t) + " of " + budgetText(t)
				}
				why = append(why, short)
			}
		case kindUser:
			if !optimize.Spent(t, c.Fitted.StuckPolls, c.Fitted.MeanPolls) {
				why = append(why, "as given, it spends "+spendText(c.Fitted, t)+" on the items fitted on, not "+budgetText(t))
			}
		}
		if ref >= 0 && scores[i].HasData && scores[ref].HasData {
			c.CaughtVsReference = scores[i].Caught - scores[ref].Caught
			if math.Abs(c.CaughtVsReference) > catchTolerance {
				why = append(why, fmt.Sprintf("catches %.1f%% of the items against %s's %.1f%%: its lags count only the items it catches",
					100*scores[i].Caught, entries[ref].Schedule.Name, 100*scores[ref].Caught))
			}
		}
		if len(why) > 0 {
			c.Comparable, c.Why = false, strings.Join(why, "; ")
		}
		out[i] = c
	}
	return out
}

// spendText writes spend s in the kinds of target t: "50 stuck polls",
// "9.8 mean polls per item", both joined by "and".
func spendText(s report.Spend, t optimize.Budget) string {
	var parts []string
	if t.StuckPolls > 0 {
		parts = append(parts, fmt.Sprintf("%.4g stuck polls", s.StuckPolls))
	}
	if t.MeanPolls > 0 {
		parts = append(parts, fmt.Sprintf("%.4g mean polls per item", s.MeanPolls))
	}
	return strings.Join(parts, " and ")
}

// apartLast returns the order of the entries that keeps the derived
// schedules first and puts the other rows marked apart after the rest,
// each group in its order.
func apartLast(entries []entry, cs []*report.Comparison) []int {
	var derived, rest, apart []int
	for i, c := range cs {
		switch {
		case entries[i].Kind == kindPhased || entries[i].Kind == kindExact:
			derived = append(derived, i)
		case c != nil && !c.Comparable:
			apart = append(apart, i)
		default:
			rest = append(rest, i)
		}
	}
	return slices.Concat(derived, rest, apart)
}

// permute returns xs in the given order.
func permute[T any](xs []T, order []int) []T {
	if xs == nil {
		return nil
	}
	out := make([]T, len(order))
	for i, j := range order {
		out[i] = xs[j]
	}
	return out
}

// sameCost sums up a comparison: each derived schedule's mean lag against
// the best family's, among the families at the same cost and coverage,
// stating the spends and the share caught compared. Rows marked apart
// are left out; when every family is, it says so.
func sameCost(scores []optimize.Score, entries []entry, rows []report.Row) string {
	fam := -1
	var opt []int
	families := 0
	for i, e := range entries {
		if !scores[i].HasData || scores[i].Caught == 0 {
			continue
		}
		switch e.Kind {
		case kindPhased, kindExact:
			if !rows[i].Apart() {
				opt = append(opt, i)
			}
		case kindFamily:
			families++
			if rows[i].Apart() {
				continue
			}
			if fam < 0 || scores[i].MeanLag < scores[fam].MeanLag {
				fam = i
			}
		}
	}
	if len(opt) == 0 || families == 0 {
		return ""
	}
	if fam < 0 {
		return "no family spends the budget and catches the items pollfit's schedule catches (marked *): no comparison at the same cost"
	}
	compared := append(slices.Clone(opt), fam)
	for i, e := range entries {
		if e.Kind == kindFamily && i != fam && !rows[i].Apart() && scores[i].HasData {
			compared = append(compared, i)
		}
	}
	f := scores[fam]
	lag := report.LagFormat(rows)
	var parts []string
	for _, i := range opt {
		o := scores[i]
		parts = append(parts, fmt.Sprintf("%s %s (%s, p95 %s)", o.Name, lag(o.MeanLag), relativeLag(o.MeanLag, f.MeanLag, lag), lag(o.P95Lag)))
	}
	return fmt.Sprintf("at the same cost (%s) and coverage (%s), mean lag against the best family, %s at %s (p95 %s): %s",
		spendRange(scores, rows, compared), caughtRange(scores, compared), f.Name, lag(f.MeanLag), lag(f.P95Lag), strings.Join(parts, "; "))
}

// spendRange writes what the rows compared spend on the items scored, in
// the kinds of polls of their target: "152 stuck polls each",
// "9.82–10.02 mean polls per item".
func spendRange(scores []optimize.Score, rows []report.Row, compared []int) string {
	var t report.Spend
	for _, i := range compared {
		if c := rows[i].Comparison; c != nil {
			t = c.Target
			break
		}
	}
	var parts []string
	span := func(v func(optimize.Score) float64, format, unit string) string {
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, i := range compared {
			lo, hi = math.Min(lo, v(scores[i])), math.Max(hi, v(scores[i]))
		}
		a, b := fmt.Sprintf(format, lo), fmt.Sprintf(format, hi)
		if a == b {
			return a + " " + unit + " each"
		}
		return a + "–" + b + " " + unit
	}
	if t.StuckPolls > 0 || t.MeanPolls == 0 {
		parts = append(parts, span(func(s optimize.Score) float64 { return s.StuckPolls }, "%.4g", "stuck polls"))
	}
	if t.MeanPolls > 0 {
		parts = append(parts, span(func(s optimize.Score) float64 { return s.MeanPolls }, "%.2f", "mean polls per item"))
	}
	return strings.Join(parts, ", ")
}

// caughtRange writes the share the rows compared catch: "98.8% caught
// each".
func caughtRange(scores []optimize.Score, compared []int) string {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, i := range compared {
		lo, hi = math.Min(lo, scores[i].Caught), math.Max(hi, scores[i].Caught)
	}
	a, b := fmt.Sprintf("%.1f%%", 100*lo), fmt.Sprintf("%.1f%%", 100*hi)
	if a == b {
		return a + " caught each"
	}
	return a + "–" + b + " caught"
}

// comparisonNotes says, for the report, why each row marked apart is
// (see judge) and what each family's tuning changed beyond its base.
func comparisonNotes(rows []report.Row) []string {
	var out []string
	for _, r := range rows {
		if r.Apart() {
			out = append(out, r.Name+" (marked *) is not compared at the same cost: "+r.Comparison.Why)
		}
	}
	for _, r := range rows {
		if c := r.Comparison; c != nil && c.Tuning != "" {
			out = append(out, r.Name+", of least mean lag at the budget: "+c.Tuning)
		}
	}
	return out
}

// tuningNote says, under a comparison's table, how the families were
// tuned when some differ from their shape as written, or "".
func tuningNote(entries []entry) string {
	var names, below []string
	for _, e := range entries {
		if e.Tuned == nil {
			continue
		}
		if e.Tuned.Freed != "" {
			names = append(names, e.Schedule.Name)
		}
		if e.Tuned.BelowMinGap {
			below = append(below, e.Schedule.Name)
		}
	}
	if len(names) == 0 {
		return ""
	}
	s := "each family is its member of least mean lag on the items fitted on among those that spend the budget, tuned over base, growth and cap (" +
		andList(names) + " differ from the shape as written)"
	if len(below) > 0 {
		s += "; " + andList(below) + " " + map[bool]string{true: "polls", false: "poll"}[len(below) == 1] + " below the min gap, as no member spends the budget otherwise"
	}
	return s
}

// andList writes "a", "a and b", "a, b and c".
func andList(xs []string) string {
	if n := len(xs); n > 1 {
		return strings.Join(xs[:n-1], ", ") + " and " + xs[n-1]
	}
	return strings.Join(xs, "")
}
