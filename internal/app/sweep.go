package app

import (
	"cmp"
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/pollfit/pollfit/fit"
	"github.com/pollfit/pollfit/ingest"
	"github.com/pollfit/pollfit/internal/app/plot"
	"github.com/pollfit/pollfit/internal/app/report"
	"github.com/pollfit/pollfit/internal/outfile"
	"github.com/pollfit/pollfit/optimize"
)

// Sweep settings: see the sweep command's help and docs/sweep.md.
type Sweep struct {
	Input Input
	Fit   fit.Options
	// Solve holds the solver options (Horizon is every schedule's horizon)
	// and the phases of the K-phase curve; its Budget is ignored.
	Solve     Solve
	Budgets   string // stuck-poll budgets, "10..300" or "10..300:20"
	MeanPolls string // mean-poll budgets, "2..20:10"; exclusive with Budgets
	Families  string
	Schedules []string
	Holdout   float64
	Seed      uint64
	Draws     int
	Out       string // CSV file; "" or "-" means stdout
	Plot      string // lag–budget plot, .svg or .png; "" means none
	Quiet     bool   // no progress on stderr
}

// DefaultSweepPoints is the number of budgets of a range without ":N".
const DefaultSweepPoints = 12

// ParseRange reads a budget range "A..B" or "A..B:N" for the flag named
// flag: N budgets from A to B, spaced evenly on a log scale (lag falls
// roughly as a power of the budget, so log spacing puts the points evenly
// along the curve). With integer set, budgets are rounded to whole polls
// and repeats dropped. N defaults to DefaultSweepPoints; N = 1 gives A.
func ParseRange(flag, s string, integer bool) ([]float64, error) {
	bad := func() error {
		return Usagef("--%s %q: want a range such as 10..300 or 10..300:20 (from, to, number of points)", flag, s)
	}
	span, count, hasN := strings.Cut(strings.TrimSpace(s), ":")
	from, to, ok := strings.Cut(span, "..")
	if !ok {
		return nil, bad()
	}
	a, err1 := strconv.ParseFloat(strings.TrimSpace(from), 64)
	b, err2 := strconv.ParseFloat(strings.TrimSpace(to), 64)
	n := DefaultSweepPoints
	var err3 error
	if hasN {
		n, err3 = strconv.Atoi(strings.TrimSpace(count))
	}
	if err1 != nil || err2 != nil || err3 != nil || !(a > 0) || !(b >= a) || math.IsInf(b, 0) || n < 1 || n > 1000 {
		return nil, bad()
	}
	if integer && (a != math.Trunc(a) || b != math.Trunc(b)) {
		return nil, Usagef("--%s %q: budgets are whole polls", flag, s)
	}
	return logSpaced(a, b, n, integer), nil
}

// logSpaced returns n values from a to b (0 < a ≤ b), evenly spaced on a
// log scale, with a and b exact; with integer, rounded and with repeats
// dropped.
func logSpaced(a, b float64, n int, integer bool) []float64 {
	var out []float64
	for i := range n {
		v := a
		if n > 1 {
			v = math.Exp(math.Log(a) + float64(i)/float64(n-1)*(math.Log(b)-math.Log(a)))
		}
		if i == n-1 && n > 1 {
			v = b // exactly, not exp(log(b))
		}
		if integer {
			v = math.Round(v)
		}
		if len(out) == 0 || v != out[len(out)-1] {
			out = append(out, v)
		}
	}
	return out
}

// SweepRow is one schedule at one budget: a row of the sweep CSV.
type SweepRow struct {
	Segment    string  // "all" (export.AllSegment) for all items, else a --segment value
	Schedule   string  // "exact", "pollfit" (K-phase), a family or a user schedule
	Kind       string  // exact, phased, family or user
	Budget     float64 // the budget swept (stuck or mean polls); a user schedule's own spend
	StuckPolls float64
	MeanPolls  float64
	MeanLag    float64 // seconds
	MedianLag  float64
	P95Lag     float64
	P99Lag     float64
	Caught     float64
	Spec       string
	// Comparison says how the row stands against pollfit's schedule at
	// its budget (see judge); nil for a user's schedule, scored once at
	// its own cost.
	Comparison *report.Comparison
	schedule   optimize.Schedule // the schedule itself, for the report
}

// Comparable reports whether the row is at the same cost and coverage as
// pollfit's schedule at its budget: the derived ones and the families
// not marked apart.
func (r SweepRow) Comparable() bool { return r.Comparison != nil && r.Comparison.Comparable }

// SweepHeader is the header of the sweep CSV (see docs/sweep.md).
var SweepHeader = []string{"segment", "schedule", "kind", "budget", "stuck_polls", "mean_polls", "mean_lag_s", "median_lag_s", "p95_lag_s", "p99_lag_s", "caught", "spec", "comparable", "why"}

// Run sweeps the budgets and writes the CSV (and the plot).
func (sw Sweep) Run(stdout, stderr io.Writer) error {
	if err := (outputs{Out: sw.Out, Plots: []string{sw.Plot}, Inputs: sw.Input.Paths}).check(); err != nil {
		return err
	}
	if err := sw.Fit.Check(); err != nil {
		return &UsageError{err}
	}
	if err := checkDraws(sw.Draws); err != nil {
		return err
	}
	byMean := sw.MeanPolls != ""
	if byMean == (sw.Budgets != "") {
		return Usagef("give one of --budgets A..B[:N] (stuck polls) or --mean-polls-range A..B[:N]")
	}
	var budgets []float64
	var err error
	if byMean {
		budgets, err = ParseRange("mean-polls-range", sw.MeanPolls, false)
	} else {
		budgets, err = ParseRange("budgets", sw.Budgets, true)
	}
	if err != nil {
		return err
	}
	if sw.Plot != "" {
		if err := plot.CheckPath(sw.Plot); err != nil {
			return Usagef("--plot: %w", err)
		}
	}
	fams, err := parseFamilies(sw.Families)
	if err != nil {
		return err
	}
	users, err := loadUserSchedules(sw.Schedules)
	if err != nil {
		return err
	}
	if err := checkHoldout(sw.Holdout); err != nil {
		return err
	}
	parts, err := sw.Input.loadParts(stderr, "sweep fits and scores on settle times")
	if err != nil {
		return err
	}
	if err := checkClocked(users, parts[0].Sample); err != nil {
		return err
	}
	// Each part gets its own fit and its own sweep: the frontier of its
	// rows alone.
	type swept struct {
		arena    *arena
		rows     []SweepRow
		warnings []string
	}
	res, err := eachPart(parts, func(pt part) (swept, error) {
		a, err := newArena(pt.Sample, sw.Fit, sw.Solve, sw.Holdout, sw.Seed)
		if err != nil {
			return swept{}, err
		}
		if a.horizonNote != "" && !sw.Quiet {
			note := a.horizonNote
			if pt.segmented() {
				note = pt.title() + ": " + note
			}
			fmt.Fprintln(stderr, note)
		}
		rows, warnings, err := sw.sweep(a, pt, len(parts) > 1, sweepBudgets(budgets, byMean), byMean, fams, users, stderr)
		return swept{a, rows, warnings}, err
	})
	if err != nil {
		return err
	}
	var rows []SweepRow
	for _, r := range res {
		rows = append(rows, r.rows...)
	}
	if err := outfile.Write(sw.Out, stdout, func(w io.Writer) error { return WriteSweepCSV(w, rows) }); err != nil {
		return err
	}
	if sw.Plot != "" {
		xLabel := "budget: polls of an item that never settles"
		if byMean {
			xLabel = "budget: mean polls per item"
		}
		err := plotParts(sw.Plot, parts, stderr, sw.Quiet, func(i int, file string) error {
			title := "Mean lag against budget (" + res[i].arena.short + ")"
			if parts[i].segmented() {
				title = "Mean lag against budget (" + parts[i].title() + ", " + res[i].arena.short + ")"
			}
			return plot.Sweep(file, sweepCurves(res[i].rows, byMean), plot.SweepOptions{Title: title, XLabel: xLabel})
		})
		if err != nil {
			return err
		}
	}
	for _, r := range res {
		for _, w := range r.warnings {
			fmt.Fprintf(stderr, "warning: %s\n", w)
		}
	}
	return nil
}

// sweepBudgets turns the budgets swept into stuck-poll budgets, or with
// byMean mean-poll ones.
func sweepBudgets(values []float64, byMean bool) []optimize.Budget {
	out := make([]optimize.Budget, len(values))
	for i, v := range values {
		out[i] = optimize.Budget{StuckPolls: int(v)}
		if byMean {
			out[i] = optimize.Budget{MeanPolls: v}
		}
	}
	return out
}

// sweepValue is the budget b as the sweep's rows give it: its mean polls
// with byMean, else its stuck polls.
func sweepValue(b optimize.Budget, byMean bool) float64 {
	if byMean {
		return b.MeanPolls
	}
	return float64(b.StuckPolls)
}

// sweep scores every contender at every budget on the arena's test items,
// the rows of part pt; with many, progress and warnings name the part.
// Rows give each budget as sweepValue does.
func (sw Sweep) sweep(a *arena, pt part, many bool, budgets []optimize.Budget, byMean bool, fams []optimize.Family, users []optimize.Schedule, stderr io.Writer) ([]SweepRow, []string, error) {
	prefix := ""
	if pt.segmented() {
		prefix = pt.title() + ": "
	}
	progress := "sweep: "
	if many {
		progress = "sweep: " + pt.title() + ", "
	}
	opt := optimize.ScoreOptions{Seed: sw.Seed, Draws: sw.Draws}
	// The budget counter rewrites its line (\r): for a person at a
	// terminal, not for logs.
	f, _ := stderr.(*os.File)
	show := !sw.Quiet && ingest.TerminalProgress(f) != nil
	var rows []SweepRow
	var warnings []string
	for i, b := range budgets {
		v := sweepValue(b, byMean)
		if show {
			fmt.Fprintf(stderr, "\r%sbudget %d of %d (%s)", progress, i+1, len(budgets), budgetText(b))
		}
		entries, t, err := a.contenders(b, fams, opt)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", budgetText(b), err)
		}
		scores := make([]optimize.Score, len(entries))
		for i, e := range entries {
			scores[i] = optimize.ScoreSchedule(e.Schedule, a.testItems, opt)
		}
		judged := a.judge(entries, scores, t, opt)
		for i, e := range entries {
			row := sweepRow(pt, e, v, scores[i])
			row.Comparison = judged[i]
			rows = append(rows, row)
		}
	}
	if show && len(budgets) > 0 {
		fmt.Fprintln(stderr)
	}
	for _, w := range shortfallWarnings(users, a.testItems) {
		warnings = append(warnings, prefix+w)
	}
	for _, s := range users {
		sc := scoringOf(a.test, a.testItems).score(s, opt)
		own := sc.StuckPolls
		if byMean {
			own = sc.MeanPolls
		}
		rows = append(rows, sweepRow(pt, entry{Kind: kindUser, Schedule: s}, own, sc))
	}
	return rows, warnings, nil
}

func sweepRow(pt part, e entry, budget float64, sc optimize.Score) SweepRow {
	return SweepRow{
		Segment: pt.Name, Schedule: e.Schedule.Name, Kind: e.Kind, Budget: budget,
		StuckPolls: sc.StuckPolls, MeanPolls: sc.MeanPolls, MeanLag: sc.MeanLag,
		MedianLag: sc.MedianLag, P95Lag: sc.P95Lag, P99Lag: sc.P99Lag, Caught: sc.Caught,
		Spec: sc.Spec, schedule: e.Schedule,
	}
}

// WriteSweepCSV writes the rows with SweepHeader.
func WriteSweepCSV(w io.Writer, rows []SweepRow) error {
	cw := csv.NewWriter(w)
	cw.Write(SweepHeader)
	f := func(v float64) string { return strconv.FormatFloat(v, 'g', 6, 64) }
	for _, r := range rows {
		comparable, why := "", ""
		if c := r.Comparison; c != nil {
			comparable, why = strconv.FormatBool(c.Comparable), c.Why
		}
		cw.Write([]string{r.Segment, r.Schedule, r.Kind, f(r.Budget), f(r.StuckPolls), f(r.MeanPolls), f(r.MeanLag),
			f(r.MedianLag), f(r.P95Lag), f(r.P99Lag), f(r.Caught), r.Spec, comparable, why})
	}
	cw.Flush()
	return cw.Error()
}

// sweepCurves turns the rows into one curve per swept schedule, plotted
// against the spend measured on the scored items (stuck or mean polls),
// and one point per user schedule.
func sweepCurves(rows []SweepRow, byMean bool) []plot.Curve {
	x := func(r SweepRow) float64 { return r.StuckPolls }
	if byMean {
		x = func(r SweepRow) float64 { return r.MeanPolls }
	}
	return curvesOf(rows, x, func(r SweepRow) float64 { return r.MeanLag })
}

// curvesOf turns the rows into one curve per swept schedule of y against
// x, and one point per user schedule, as sweepCurves.
func curvesOf(rows []SweepRow, xOf, yOf func(SweepRow) float64) []plot.Curve {
	var curves []plot.Curve
	index := map[string]int{}
	for _, r := range rows {
		y := yOf(r)
		if r.Caught == 0 || math.IsNaN(y) {
			continue
		}
		x := xOf(r)
		i, ok := index[r.Schedule]
		if !ok || r.Kind == kindUser {
			i = len(curves)
			index[r.Schedule] = i
			curves = append(curves, plot.Curve{Name: r.Schedule, Points: r.Kind == kindUser, Bold: r.Kind == kindExact || r.Kind == kindPhased})
		}
		curves[i].X = append(curves[i].X, x)
		curves[i].Y = append(curves[i].Y, y)
	}
	for i := range curves {
		c := &curves[i]
		idx := make([]int, len(c.X))
		for k := range idx {
			idx[k] = k
		}
		slices.SortStableFunc(idx, func(p, q int) int { return cmp.Compare(c.X[p], c.X[q]) })
		x, y := make([]float64, len(idx)), make([]float64, len(idx))
		for k, j := range idx {
			x[k], y[k] = c.X[j], c.Y[j]
		}
		c.X, c.Y = x, y
	}
	return curves
}
