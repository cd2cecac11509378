package app

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/pollfit/pollfit/fit"
	"github.com/pollfit/pollfit/internal/report"
	"github.com/pollfit/pollfit/optimize"
)

// Compare settings: see the compare command's help.
type Compare struct {
	Input Input
	Fit   fit.Options
	// Solve holds the budget (StuckPolls and/or MeanPolls; a poll cost is
	// refused: families are tuned to a budget), the solver options
	// (Horizon is the horizon of every schedule) and the phases of the
	// derived schedule.
	Solve     Solve
	Families  string   // "all", "none" or a list for optimize.ParseFamilies
	Schedules []string // the user's schedules, scored as they are
	Holdout   float64  // share of items held out for scoring, [0, 1)
	Seed      uint64   // seed of the split and of the jitter draws
	InSample  bool     // also score on the items fitted on
	Draws     int      // Monte Carlo draws of jittered schedules; 0 means the default
	Ages      string   // "30s,2m,15m"
	Format    string   // table, json or csv
	Load      Load
}

// arena is the data a comparison is fitted on and scored on.
type arena struct {
	train, test *fit.Sample
	trainItems  *optimize.Items
	testItems   *optimize.Items
	density     *fit.Density
	horizon     time.Duration
	// solve is the caller's Solve with the horizon set (from the data
	// when not given; horizonNote then says so).
	solve       Solve
	horizonNote string
	heldOut     bool
	note        string // which items the rows were scored on
	short       string // the same, shorter, for plot titles
}

// newArena loads the input, splits it (holdout > 0) and fits the density
// on the training part up to the horizon of sv (from the training part's
// settle times when sv has none).
func newArena(in Input, fo fit.Options, sv Solve, holdout float64, seed uint64, stderr io.Writer) (*arena, error) {
	if !(holdout >= 0 && holdout < 1) {
		return nil, Usagef("--holdout %v: want a share in [0, 1)", holdout)
	}
	sample, _, err := in.load(stderr)
	if err != nil {
		return nil, err
	}
	if sample == nil {
		return nil, Usagef("--input is required: compare fits and scores on settle times")
	}
	a := &arena{train: sample, test: sample}
	a.note = fmt.Sprintf("scored in-sample on all %s items (no hold-out)", thousands(sample.Len()))
	a.short = fmt.Sprintf("in-sample, %s items", thousands(sample.Len()))
	if holdout > 0 {
		a.train, a.test = sample.Split(holdout, seed)
		a.heldOut = true
		a.note = fmt.Sprintf("scored on %s held-out items (%.0f%%, seed %d); fitted on %s",
			thousands(a.test.Len()), 100*holdout, seed, thousands(a.train.Len()))
		a.short = fmt.Sprintf("%s held-out items", thousands(a.test.Len()))
		if a.test.Len() == 0 || a.train.Len() == 0 {
			return nil, Usagef("--holdout %v leaves %d items to fit and %d to score: too few rows", holdout, a.train.Len(), a.test.Len())
		}
	}
	if a.solve, a.horizonNote, err = sv.withHorizon(a.train); err != nil {
		return nil, err
	}
	a.horizon = a.solve.Options.Horizon
	fo.Horizon = a.horizon.Seconds()
	if a.density, err = fit.Estimate(a.train, fo); err != nil {
		return nil, err
	}
	a.trainItems = itemsOf(a.train)
	a.testItems = a.trainItems
	if a.heldOut {
		a.testItems = itemsOf(a.test)
	}
	return a, nil
}

// entry is one schedule of a comparison and how it came about.
type entry struct {
	Kind     string // "phased", "exact", "family" or "user"
	Schedule optimize.Schedule
}

// Kinds of entry.
const (
	kindPhased = "phased"
	kindExact  = "exact"
	kindFamily = "family"
	kindUser   = "user"
)

// contenders derives the optimum under b (K-phase unless the solve asks
// for the exact schedule, plus the exact one) and tunes each family to b
// on the training items, with gaps no shorter than the optimum's min gap.
// A family that cannot spend b is left out with a warning.
func (a *arena) contenders(b optimize.Budget, fams []optimize.Family, opt optimize.ScoreOptions) ([]entry, []string, error) {
	var out []entry
	var warnings []string
	sv := a.solve
	sv.Budget = b
	der, err := sv.solve(a.density, false)
	if err != nil {
		return nil, nil, err
	}
	if der.Result.Method != "exact" {
		s := der.Result.Schedule
		s.Name = "pollfit"
		out = append(out, entry{kindPhased, s})
	}
	if der.Exact != nil {
		s := der.Exact.Schedule
		s.Name = "exact"
		out = append(out, entry{kindExact, s})
	}
	for _, f := range fams {
		f.MinGap = der.Result.Options.MinGap
		t, err := optimize.Tune(f, a.horizon, b, a.trainItems, opt)
		if errors.Is(err, optimize.ErrBudget) {
			warnings = append(warnings, fmt.Sprintf("%s: %v; left out", f.Name, err))
			continue
		}
		if err != nil {
			return nil, nil, err
		}
		out = append(out, entry{kindFamily, t.Schedule})
	}
	return out, warnings, nil
}

// loadUserSchedules resolves --schedule arguments, naming unnamed ones.
func loadUserSchedules(args []string) ([]optimize.Schedule, error) {
	var out []optimize.Schedule
	for _, arg := range args {
		s, err := LoadSchedules(arg)
		if err != nil {
			return nil, err
		}
		out = append(out, s...)
	}
	for i := range out {
		if out[i].Name == "" {
			out[i].Name = fmt.Sprintf("#%d", i+1)
		}
	}
	return out, nil
}

// parseFamilies reads --families; "none" or "" means no family.
func parseFamilies(list string) ([]optimize.Family, error) {
	if list == "none" || strings.TrimSpace(list) == "" {
		return nil, nil
	}
	fams, err := optimize.ParseFamilies(list)
	if err != nil {
		return nil, Usagef("--families: %w", err)
	}
	return fams, nil
}

// compareJSON is the compare command's JSON document.
type compareJSON struct {
	Note         string       `json:"note"`
	Budget       budgetJSON   `json:"budget"`
	HorizonS     float64      `json:"horizon_s"`
	Fitted       int          `json:"fitted"`
	Scored       int          `json:"scored"`
	Holdout      float64      `json:"holdout"`
	Seed         uint64       `json:"seed"`
	Rows         []report.Row `json:"rows"`
	InSampleRows []report.Row `json:"in_sample_rows,omitempty"`
	Load         []loadRow    `json:"load,omitempty"`
	Warnings     []string     `json:"warnings,omitempty"`
}

type budgetJSON struct {
	StuckPolls int     `json:"stuck_polls,omitempty"`
	MeanPolls  float64 `json:"mean_polls,omitempty"`
}

// Run derives the optimum, tunes the families to the same budget, scores
// everything on the held-out items and prints one row per schedule.
func (c Compare) Run(stdout, stderr io.Writer) error {
	if err := c.Fit.Check(); err != nil {
		return &UsageError{err}
	}
	b := c.Solve.Budget
	if b.PollCost > 0 {
		return Usagef("--poll-cost prices polls; compare needs a budget to tune the families to: give --budget N or --mean-polls M")
	}
	if err := c.Solve.check(); err != nil {
		return err
	}
	if err := checkFormat(c.Format, "table", "json", "csv"); err != nil {
		return err
	}
	ages, labels, err := ParseAges(c.Ages)
	if err != nil {
		return err
	}
	fams, err := parseFamilies(c.Families)
	if err != nil {
		return err
	}
	users, err := loadUserSchedules(c.Schedules)
	if err != nil {
		return err
	}
	a, err := newArena(c.Input, c.Fit, c.Solve, c.Holdout, c.Seed, stderr)
	if err != nil {
		return err
	}
	ages, labels = HorizonAges(ages, labels, a.horizon)
	opt := optimize.ScoreOptions{Ages: ages, Seed: c.Seed, Draws: c.Draws}
	entries, warnings, err := a.contenders(b, fams, opt)
	if err != nil {
		return err
	}
	for _, s := range users {
		entries = append(entries, entry{kindUser, s})
	}
	scheds := make([]optimize.Schedule, len(entries))
	scores := make([]optimize.Score, len(entries))
	rows := make([]report.Row, len(entries))
	for i, e := range entries {
		scheds[i] = e.Schedule
		scores[i] = optimize.ScoreSchedule(e.Schedule, a.testItems, opt)
		rows[i] = report.NewRow(scores[i], labels, nil)
	}
	var inRows []report.Row
	if c.InSample && a.heldOut {
		for _, e := range entries {
			inRows = append(inRows, report.NewRow(optimize.ScoreSchedule(e.Schedule, a.trainItems, opt), labels, nil))
		}
	}
	var load []loadRow
	if c.Load.Arrivals > 0 {
		load = c.Load.rows(scheds, scores)
	}
	note := fmt.Sprintf("%s; each family tuned on the fitted items to %s over %s", a.note, budgetText(b), optimize.FormatDuration(a.horizon))
	if a.horizonNote != "" {
		note += "\n(" + a.horizonNote + ")"
	}
	if len(users) > 0 {
		note += "; your schedules as given"
	}
	switch c.Format {
	case "json":
		err = report.JSON(stdout, compareJSON{
			Note: note, Budget: budgetJSON{b.StuckPolls, b.MeanPolls}, HorizonS: a.horizon.Seconds(),
			Fitted: a.train.Len(), Scored: a.test.Len(), Holdout: c.Holdout, Seed: c.Seed,
			Rows: rows, InSampleRows: inRows, Load: load, Warnings: warnings,
		})
	case "csv":
		err = report.CSV(stdout, rows)
	default:
		err = c.writeTable(stdout, note, a, rows, inRows, scores, entries, load)
	}
	if err != nil {
		return err
	}
	for _, w := range warnings {
		fmt.Fprintf(stderr, "warning: %s\n", w)
	}
	return nil
}

func (c Compare) writeTable(w io.Writer, note string, a *arena, rows, inRows []report.Row, scores []optimize.Score, entries []entry, load []loadRow) error {
	if err := report.Table(w, rows, note); err != nil {
		return err
	}
	if line := sameCost(scores, entries); line != "" {
		fmt.Fprintln(w, line)
	}
	if inRows != nil {
		fmt.Fprintln(w)
		if err := report.Table(w, inRows, fmt.Sprintf("in-sample: scored on the %s items fitted on (optimistic)", thousands(a.train.Len()))); err != nil {
			return err
		}
	}
	if load != nil {
		return c.Load.write(w, load)
	}
	return nil
}

// sameCost summarises the table: each derived schedule's mean lag against
// the best tuned family's, at the same budget.
func sameCost(scores []optimize.Score, entries []entry) string {
	fam := -1
	var opt []int
	for i, e := range entries {
		if !scores[i].HasData || scores[i].Caught == 0 {
			continue
		}
		switch e.Kind {
		case kindPhased, kindExact:
			opt = append(opt, i)
		case kindFamily:
			if fam < 0 || scores[i].MeanLag < scores[fam].MeanLag {
				fam = i
			}
		}
	}
	if len(opt) == 0 || fam < 0 {
		return ""
	}
	f := scores[fam]
	var parts []string
	for _, i := range opt {
		o := scores[i]
		rel := 100 * (1 - o.MeanLag/f.MeanLag)
		word := "less"
		if rel < 0 {
			rel, word = -rel, "more"
		}
		parts = append(parts, fmt.Sprintf("%s %.2fs (%.0f%% %s, p95 %.2fs)", o.Name, o.MeanLag, rel, word, o.P95Lag))
	}
	return fmt.Sprintf("at the same cost, mean lag against the best family, %s at %.2fs (p95 %.2fs): %s",
		f.Name, f.MeanLag, f.P95Lag, strings.Join(parts, "; "))
}

// thousands writes n with thousands separators: 14000 → "14,000".
func thousands(n int) string {
	s := fmt.Sprint(n)
	if n < 0 {
		return "-" + thousands(-n)
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
