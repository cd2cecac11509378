package app

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/pollfit/pollfit/fit"
	"github.com/pollfit/pollfit/ingest"
	"github.com/pollfit/pollfit/internal/app/report"
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
	train, test *ingest.Sample
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

// checkHoldout checks --holdout before any reading.
func checkHoldout(holdout float64) error {
	if !(holdout >= 0 && holdout < 1) {
		return Usagef("--holdout %v: want a share in [0, 1)", holdout)
	}
	return nil
}

// loadParts loads the input, which the command needs (need says why), and
// splits it into parts: all items, then each segment.
func (in Input) loadParts(stderr io.Writer, need string) ([]part, error) {
	sample, _, err := in.load(stderr)
	if err != nil {
		return nil, err
	}
	if sample == nil {
		return nil, Usagef("--input is required: %s", need)
	}
	return in.parts(sample, stderr)
}

// newArena splits the sample (holdout > 0, checked by checkHoldout) and
// fits the density on the training part up to the horizon of sv (from the
// training part's settle times when sv has none).
func newArena(sample *ingest.Sample, fo fit.Options, sv Solve, holdout float64, seed uint64) (*arena, error) {
	a := &arena{train: sample, test: sample}
	a.note = fmt.Sprintf("scored in-sample on all %s (no hold-out)", countOf(sample.Len(), "item"))
	a.short = fmt.Sprintf("in-sample, %s", countOf(sample.Len(), "item"))
	if holdout > 0 {
		a.train, a.test = sample.Split(holdout, seed)
		a.heldOut = true
		a.note = fmt.Sprintf("scored on %s held-out %s (%.0f%%, seed %d); fitted on %s",
			thousands(a.test.Len()), plural(a.test.Len(), "item"), 100*holdout, seed, thousands(a.train.Len()))
		a.short = fmt.Sprintf("%s held-out %s", thousands(a.test.Len()), plural(a.test.Len(), "item"))
		if a.test.Len() == 0 || a.train.Len() == 0 {
			return nil, Usagef("--holdout %v leaves %s to fit and %d to score: too few rows", holdout, countOf(a.train.Len(), "item"), a.test.Len())
		}
	}
	var err error
	if a.solve, a.horizonNote, err = sv.withHorizon(a.train); err != nil {
		return nil, err
	}
	a.horizon = a.solve.Options.Horizon
	fo.Horizon = a.horizon.Seconds()
	if a.density, err = fit.Estimate(a.train, fo); err != nil {
		return nil, heldOutError(err, sample, a.train, a.test, sv, fo)
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
	Tuned    *optimize.Tuned // a family's tuning; nil for the other kinds
	// Expected is a derived schedule's expectation under the fit, what
	// its budget holds; nil for the other kinds.
	Expected *optimize.Expectation
}

// Kinds of entry.
const (
	kindPhased = "phased"
	kindExact  = "exact"
	kindFamily = "family"
	kindUser   = "user"
)

// contenders derives the optimum under b (K-phase unless the solve asks
// for the exact schedule, plus the exact one) and tunes each family on
// the training items to the spend of the derived schedules (target),
// which it returns.
func (a *arena) contenders(b optimize.Budget, fams []optimize.Family, opt optimize.ScoreOptions) ([]entry, optimize.Budget, error) {
	var out []entry
	sv := a.solve
	sv.Budget = b
	der, err := sv.solve(a.density, false)
	if err != nil {
		return nil, b, err
	}
	if der.Result.Method != "exact" {
		s := der.Result.Schedule
		s.Name = "pollfit"
		out = append(out, entry{Kind: kindPhased, Schedule: s, Expected: &der.Result.Expected})
	}
	if der.Exact != nil {
		s := der.Exact.Schedule
		s.Name = "exact"
		out = append(out, entry{Kind: kindExact, Schedule: s, Expected: &der.Exact.Expected})
	}
	t := a.target(b, out, opt)
	return append(out, a.tune(t, fams, der.Result.Options, opt)...), t, nil
}

// tune tunes each family to t on the training items (optimize.Tune), with
// base gaps no shorter than the min gap of o (the optimum's) or, when that
// min gap is the default rather than the user's and binds, down to the
// grid step of o. A family whose sparsest member spends more than t is
// that member, which says so (Tuned.Short).
func (a *arena) tune(t optimize.Budget, fams []optimize.Family, o optimize.Options, opt optimize.ScoreOptions) []entry {
	var out []entry
	for _, f := range fams {
		f.MinGap = o.MinGap
		if a.solve.Options.MinGap == 0 {
			f.LeastGap = o.Resolution
		}
		tu, err := optimize.Tune(f, a.horizon, t, a.trainItems, opt)
		if err != nil { // ErrBudget: Tune's only error
			tu.Short = "spends more than the budget even at its sparsest: " + spendText(report.Spend{StuckPolls: tu.StuckPolls, MeanPolls: tu.MeanPolls}, t) +
				" with one scheduled gap of the whole horizon"
		}
		out = append(out, entry{Kind: kindFamily, Schedule: tu.Schedule, Tuned: &tu})
	}
	return out
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

// compareJSON is the compare command's JSON document: the note and
// counts of all items at the top, every part's rows in one table (each
// row names its segment), and the notes and counts of the segments.
type compareJSON struct {
	Note         string        `json:"note"`
	Budget       budgetJSON    `json:"budget"`
	HorizonS     float64       `json:"horizon_s"`
	Fitted       int           `json:"fitted"`
	Scored       int           `json:"scored"`
	Holdout      float64       `json:"holdout"`
	Seed         uint64        `json:"seed"`
	Rows         []report.Row  `json:"rows"`
	InSampleRows []report.Row  `json:"in_sample_rows,omitempty"`
	Load         []loadRow     `json:"load,omitempty"`
	Warnings     []string      `json:"warnings,omitempty"`
	Segments     []segmentNote `json:"segments,omitempty"`
}

// segmentNote is what compareJSON says of each segment besides its rows.
type segmentNote struct {
	Segment string `json:"segment"`
	Note    string `json:"note"`
	Fitted  int    `json:"fitted"`
	Scored  int    `json:"scored"`
}

type budgetJSON struct {
	StuckPolls int     `json:"stuck_polls,omitempty"`
	MeanPolls  float64 `json:"mean_polls,omitempty"`
}

// comparison is the comparison on one part of the input.
type comparison struct {
	part     part
	arena    *arena
	entries  []entry
	scores   []optimize.Score
	rows     []report.Row // scored on the test items
	inRows   []report.Row // on the training items, with --in-sample
	load     []loadRow
	note     string
	warnings []string // prefixed by the segment
}

// Run derives the optimum, tunes the families to the same budget, scores
// everything on the held-out items and prints one row per schedule: for
// all items, then for each segment.
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
	if err := checkHoldout(c.Holdout); err != nil {
		return err
	}
	if err := checkDraws(c.Draws); err != nil {
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
	stdout = c.Input.headed(c.Format, stdout)
	parts, err := c.Input.loadParts(stderr, "compare fits and scores on settle times")
	if err != nil {
		return err
	}
	if err := checkClocked(users, parts[0].Sample); err != nil {
		return err
	}
	opt := optimize.ScoreOptions{Ages: ages, Seed: c.Seed, Draws: c.Draws}
	// Each part gets its own fit, its own optimum and its own tuned
	// families: what the comparison would be on its rows alone.
	res, err := eachPart(parts, func(pt part) (*comparison, error) {
		return c.compare(pt, fams, users, &opt, &labels)
	})
	if err != nil {
		return err
	}
	switch c.Format {
	case "json":
		err = c.writeJSON(stdout, res)
	case "csv":
		var rows []report.Row
		for _, r := range res {
			rows = append(rows, r.rows...)
		}
		err = report.CSV(stdout, rows)
	default:
		for i, r := range res {
			if len(res) > 1 {
				if i > 0 {
					fmt.Fprintln(stdout)
				}
				fmt.Fprintf(stdout, "== %s: %s\n", r.part.title(), r.part.size())
			}
			if err = c.writeTable(stdout, r); err != nil {
				break
			}
		}
	}
	if err != nil {
		return err
	}
	for _, r := range res {
		for _, w := range r.warnings {
			fmt.Fprintf(stderr, "warning: %s\n", w)
		}
	}
	return nil
}

// compare fits, derives, tunes and scores on one part.
//
// Ages not given follow the horizon of the first part (all items) and are
// kept for the rest, so that every part's rows have the same columns.
func (c Compare) compare(pt part, fams []optimize.Family, users []optimize.Schedule, shared *optimize.ScoreOptions, sharedLabels *[]string) (*comparison, error) {
	a, err := newArena(pt.Sample, c.Fit, c.Solve, c.Holdout, c.Seed)
	if err != nil {
		return nil, err
	}
	shared.Ages, *sharedLabels = HorizonAges(shared.Ages, *sharedLabels, a.horizon)
	opt, labels := *shared, *sharedLabels
	b := c.Solve.Budget
	entries, t, err := a.contenders(b, fams, opt)
	if err != nil {
		return nil, err
	}
	for _, s := range users {
		entries = append(entries, entry{Kind: kindUser, Schedule: s})
	}
	return c.score(pt, a, entries, t, opt, labels), nil
}

// score scores the entries on the arena's test items (and, with
// InSample, on its training items too) into the comparison of part pt;
// t is the spend the families were tuned to. Rows not at the same cost
// and coverage as pollfit's schedule are marked and come last (see
// judge).
func (c Compare) score(pt part, a *arena, entries []entry, t optimize.Budget, opt optimize.ScoreOptions, labels []string) *comparison {
	r := &comparison{part: pt, arena: a}
	scores := make([]optimize.Score, len(entries))
	for i, e := range entries {
		scores[i] = scoringOf(a.test, a.testItems).score(e.Schedule, opt)
	}
	judged := a.judge(entries, scores, t, opt)
	order := apartLast(entries, judged)
	entries, scores, judged = permute(entries, order), permute(scores, order), permute(judged, order)
	r.entries, r.scores = entries, scores
	scheds := make([]optimize.Schedule, len(entries))
	r.rows = make([]report.Row, len(entries))
	for i, e := range entries {
		scheds[i] = e.Schedule
		r.rows[i] = report.NewRow(r.scores[i], labels, nil)
		r.rows[i].Segment = pt.Name
		r.rows[i].Comparison = judged[i]
	}
	for _, w := range shortfallWarnings(scheds, a.testItems) {
		if pt.segmented() {
			w = pt.title() + ": " + w
		}
		r.warnings = append(r.warnings, w)
	}
	if c.InSample && a.heldOut {
		for i, e := range entries {
			row := report.NewRow(scoringOf(a.train, a.trainItems).score(e.Schedule, opt), labels, nil)
			row.Segment = pt.Name
			row.Comparison = judged[i]
			r.inRows = append(r.inRows, row)
		}
	}
	if c.Load.Arrivals > 0 {
		r.load = c.Load.rows(scheds, r.scores)
		for i := range r.load {
			r.load[i].Segment = pt.Name
		}
	}
	r.note = fmt.Sprintf("%s; each family tuned on the fitted items to %s over %s, polling at the horizon", a.note, targetText(t, c.Solve.Budget), optimize.FormatDuration(a.horizon))
	if slices.ContainsFunc(entries, func(e entry) bool { return e.Kind == kindUser }) {
		r.note += "; your schedules as given"
	}
	if a.horizonNote != "" {
		r.note += "\n" + a.horizonNote
	}
	return r
}

func (c Compare) writeJSON(w io.Writer, res []*comparison) error {
	all := res[0]
	b := c.Solve.Budget
	out := compareJSON{
		Note: all.note, Budget: budgetJSON{b.StuckPolls, b.MeanPolls}, HorizonS: all.arena.horizon.Seconds(),
		Fitted: all.arena.train.Len(), Scored: all.arena.test.Len(), Holdout: c.Holdout, Seed: c.Seed,
	}
	for _, r := range res {
		out.Rows = append(out.Rows, r.rows...)
		out.InSampleRows = append(out.InSampleRows, r.inRows...)
		out.Load = append(out.Load, r.load...)
		out.Warnings = append(out.Warnings, r.warnings...)
		if r.part.segmented() {
			out.Segments = append(out.Segments, segmentNote{r.part.Name, r.note, r.arena.train.Len(), r.arena.test.Len()})
		}
	}
	return report.JSON(w, out)
}

func (c Compare) writeTable(w io.Writer, r *comparison) error {
	if err := report.Table(w, r.rows, r.note); err != nil {
		return err
	}
	if line := tuningNote(r.entries); line != "" {
		fmt.Fprintln(w, line)
	}
	if line := sameCost(r.scores, r.entries, r.rows); line != "" {
		fmt.Fprintln(w, line)
	}
	if r.inRows != nil {
		fmt.Fprintln(w)
		if err := report.Table(w, r.inRows, fmt.Sprintf("in-sample: scored on the %s fitted on (optimistic)", countOf(r.arena.train.Len(), "item"))); err != nil {
			return err
		}
	}
	if r.load != nil {
		return c.Load.write(w, r.load)
	}
	return nil
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

// heldOutError adds to a fit's failure on the rows fitted, when some were
// held out, how many: a small input may have too few left to fit. It
// suggests --holdout 0 only when fitting all rows as --holdout 0 would
// (all, with the horizon sv finds on them) succeeds, which it tries:
// otherwise they are too few either way.
func heldOutError(err error, all, train, test *ingest.Sample, sv Solve, fo fit.Options) error {
	if test == nil || test == train || errors.As(err, new(*UsageError)) {
		return err
	}
	if isOptionError(err) {
		// The settings are at fault (a horizon before every settle),
		// not the rows held out.
		return &UsageError{err}
	}
	hint := "--holdout 0 fits and scores on all"
	all0, _, herr := sv.withHorizon(all)
	if herr == nil {
		fo.Horizon, fo.Reorder = all0.Options.Horizon.Seconds(), false
		_, herr = fit.Estimate(all, fo)
	}
	if herr != nil {
		rows := fmt.Sprintf("all %d rows", all.Len())
		if all.Len() == 1 {
			rows = "the only row"
		}
		hint = fmt.Sprintf("the fit on %s fails too, so --holdout 0 does not help: give more rows", rows)
	}
	return fmt.Errorf("%w (fitted on %d %s, %d held out to score on; %s)", err, train.Len(), plural(train.Len(), "row"), test.Len(), hint)
}
