package app

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/pollfit/pollfit/export"
	"github.com/pollfit/pollfit/fit"
	"github.com/pollfit/pollfit/ingest"
	"github.com/pollfit/pollfit/internal/app/report"
	"github.com/pollfit/pollfit/optimize"
)

// Plan settings: see the plan command's help.
type Plan struct {
	Input    Input
	Dist     string // a parametric model instead of data (fit.ParseDist)
	Fit      fit.Options
	Solve    Solve
	Ages     string // "30s,2m,15m"
	Format   string // table or json
	Holdout  float64
	Seed     uint64
	InSample bool   // score on the rows fitted on (and all of them)
	Plot     string // timeline plot file, or "" (one per segment: see plotPaths)
	Out      string // also write the schedule JSON document here
	Batches  Batches

	batches batchSettings // Batches parsed by Run
	// ownsRows is set by Run, which needs a part's rows only while it is
	// planned: the holdout then reorders them in place (SplitInPlace)
	// instead of copying them. The report plans on rows it uses again.
	ownsRows bool
	// keepOrder, with ownsRows, has the part's rows given back in their
	// order once planned: the holdout is undone (section.restore) and
	// the fit does not reorder them. Run sets it for all items when
	// segments are copied out of them after.
	keepOrder bool
	// segmentRows is set by Run while it plans the segments: the rows
	// one drops are not the last (the others' are views of the same
	// sample, or copies), so the collector stays as tight as the input
	// needs (collectTighter) instead of going back to 25 % growth, which
	// at 10⁷ rows let the largest segment's plan run 20 MB higher.
	segmentRows bool
}

// section is the plan of one segment (or of all the data).
type section struct {
	Segment string
	Density *fit.Density
	Derived *derived
	Rows    []report.Row
	Note    string
	// HorizonNote says where the horizon came from when it was not given.
	HorizonNote string
	// Ages and Labels are the ages polls are counted by.
	Ages      []time.Duration
	Labels    []string
	Schedules []optimize.Schedule // scored, the derived first
	// FixedNote says what the fixed baseline was tuned to (fixedNote),
	// "" without one.
	FixedNote string
	// Omitted names the reference schedules that stop before the
	// horizon: scored, their lag would be over the items they catch
	// only, which flatters them.
	Omitted []string
	// Lag is the derived schedule's expected and realised mean lag, Polls
	// its mean polls per item.
	Lag   *lagCheck
	Polls *pollsCheck
	// Horizon says how many items the fit has pending at the horizon,
	// where a client of the schedule stops polling.
	Horizon *horizonCheck
	// Train and Test are the rows fitted and scored on (the same sample
	// when scored in-sample); nil once released. HeldOut says whether they
	// differ.
	Train, Test *ingest.Sample
	HeldOut     bool
	// restore, when not nil, puts the planned sample's rows back in
	// their order (Plan.keepOrder); Train and Test are not read after.
	restore func()
	// Batches is what was found about wall-clock batches; nil when not
	// looked for (--batch-period off, or a model).
	Batches *batchFinding
	// Clock is the wall-clock schedule when it beats the age-only one on
	// the rows fitted; it is then the derived schedule, and Derived the
	// age-only one. ClockNote says how the two compared.
	Clock     *optimize.ClockResult
	ClockNote string
	// ClockLag is the wall-clock schedule's figures on the rows fitted and
	// on the rows scored on.
	ClockFit, ClockTest *optimize.Score
}

// schedule returns the section's derived schedule: the wall-clock one
// when taken, else the age-only one.
func (s *section) schedule() optimize.Schedule {
	if s.Clock != nil {
		return s.Clock.Schedule
	}
	return s.Derived.Result.Schedule
}

// Run fits, derives and scores, and prints the plan.
func (p Plan) Run(stdout, stderr io.Writer) error {
	if err := (outputs{Out: p.Out, Plots: []string{p.Plot}, Inputs: p.Input.Paths}).check(); err != nil {
		return err
	}
	if err := p.Fit.Check(); err != nil {
		return &UsageError{err}
	}
	if err := p.Solve.check(); err != nil {
		return err
	}
	if err := checkFormat(p.Format, "table", "json"); err != nil {
		return err
	}
	ages, labels, err := ParseAges(p.Ages)
	if err != nil {
		return err
	}
	if !(p.Holdout >= 0 && p.Holdout < 1) {
		return Usagef("--holdout %v: want a share in [0, 1)", p.Holdout)
	}
	if p.batches, err = p.Batches.parse(); err != nil {
		return err
	}
	if p.Dist != "" {
		if p.batches.period > 0 {
			return Usagef("--batch-period needs data: wall-clock batches are found in settle instants, which a --dist model has not")
		}
		if len(p.Input.Paths) > 0 {
			return Usagef("--dist gives the distribution instead of data: give --dist or --input, not both")
		}
		if err := p.Input.refuseSegment("a --dist model"); err != nil {
			return err
		}
		return p.runModel(stdout, ages, labels)
	}
	stdout = p.Input.headed(p.Format, stdout)
	sample, rep, err := p.Input.loadSource(stderr)
	if err != nil {
		return err
	}
	// With segments, a file's rows are read again for them once all items
	// are planned (below), when the segmentation would keep them in place:
	// all items may then reorder their rows as without segments, instead
	// of giving them back in their order.
	reread := p.Input.Read.Segment != "" && rereadable(p.Input.Paths)
	digest := uint64(0)
	if reread {
		digest = sample.Digest()
	}
	seg, err := p.Input.segmentation(sample, stderr)
	if err != nil {
		return err
	}
	reread = reread && seg != nil && len(seg.Names) <= lazyParts
	if reread {
		seg = nil // its index, a byte a row, is made again with the rows
	}
	p.ownsRows = true
	// All items are planned first (their ages are every part's). With
	// segments they give their rows back in their order (keepOrder), and
	// the segments are then views of them, partitioned in place: a copy
	// of every segment held under the all-items plan cost 9 bytes a row,
	// a copy of the largest under its own plan 4.5 at 10⁷ rows. Read again
	// instead, the rows need not be given back: sorting a copy of the
	// training rows' settled times to keep them in order cost 5.6 bytes a
	// row (issue 18).
	p.keepOrder = seg != nil
	all, err := p.plan(export.AllSegment, sample, nil, ages, labels)
	if err != nil {
		return err
	}
	sample = nil
	p.keepOrder = false
	if ages == nil {
		ages, labels = all.Ages, all.Labels
	}
	// The report needs only whether the rows were held out.
	all.release()
	if all.restore != nil {
		all.restore()
		all.restore = nil
	}
	secs := []*section{all}
	if reread {
		if seg, err = p.Input.reread(digest); err != nil {
			return err
		}
	}
	if seg != nil {
		// The partition passes over the rows once per segment, which
		// would cost more than the plans of many small ones: those are
		// copied out in one pass, and each copy goes once planned.
		var rows []*ingest.Sample
		if len(seg.Names) > lazyParts {
			rows = seg.Parts(0, len(seg.Names))
		} else {
			rows = seg.PartitionInPlace()
		}
		names := seg.Names
		seg = nil  // its index, a byte a row
		giveBack() // with the partition's buffer
		p.segmentRows = true
		for i, name := range names {
			sec, err := p.plan(name, rows[i], nil, ages, labels)
			if err != nil {
				return fmt.Errorf("segment %q: %w", name, err)
			}
			rows[i] = nil
			sec.release()
			secs = append(secs, sec)
		}
	}
	return p.write(stdout, stderr, secs, rep)
}

// modelDraws is how many items plan scores a model's schedules on.
const modelDraws = 20000

// runModel plans for a parametric model (--dist): the schedule derived
// from the model's density, scored on modelDraws of its quantiles
// (Q((i+½)/n): an even sample of the model, with no random draws).
func (p Plan) runModel(stdout io.Writer, ages []time.Duration, labels []string) error {
	dist, err := fit.ParseDist(p.Dist)
	if err != nil {
		return Usagef("--dist: %w", err)
	}
	sample := &ingest.Sample{Times: make([]float64, modelDraws)}
	for i := range sample.Times {
		sample.Times[i] = dist.Quantile((float64(i) + 0.5) / modelDraws)
	}
	sec, err := p.plan(export.AllSegment, sample, dist, ages, labels)
	if err != nil {
		return err
	}
	sec.Note = fmt.Sprintf("scored on %d quantiles of %s", modelDraws, dist.String())
	return p.write(stdout, io.Discard, []*section{sec}, nil)
}

// write writes the plan's sections: the schedule document (with -o), the
// plot (with --plot), and the report.
func (p Plan) write(stdout, stderr io.Writer, secs []*section, rep *source) error {
	all := secs[0]
	doc := export.Document{Schedule: all.schedule(), Meta: planMeta(all, p.Solve.Budget)}
	for _, s := range secs[1:] {
		doc.Segments = append(doc.Segments, export.Segment{Name: s.Segment, Schedule: s.schedule(), Meta: planMeta(s, p.Solve.Budget)})
	}
	if p.Out != "" {
		if err := writeDocument(p.Out, stdout, doc); err != nil {
			return err
		}
	}
	if p.Plot != "" {
		parts := make([]part, len(secs))
		for i, s := range secs {
			parts[i] = part{Name: s.Segment}
		}
		err := plotParts(p.Plot, parts, stderr, p.Input.Quiet, func(i int, file string) error {
			return plotTimeline(file, parts[i], secs[i].Density, secs[i].Schedules, secs[i].Derived.Result.Options.Horizon)
		})
		if err != nil {
			return err
		}
	}
	if p.Format == "json" {
		return p.writeJSON(stdout, doc, secs, rep)
	}
	for _, s := range secs {
		if err := p.writeSection(stdout, s); err != nil {
			return err
		}
	}
	return nil
}

// plan derives and scores the schedule of one segment; with a model
// (--dist), from the model itself, scored on all of sample.
func (p Plan) plan(segment string, sample *ingest.Sample, model *fit.Dist, ages []time.Duration, labels []string) (*section, error) {
	train, test := sample, sample
	var restore func() // puts sample's rows back in their order (keepOrder)
	note := fmt.Sprintf("scored in-sample on all %d %s", sample.Len(), plural(sample.Len(), "row"))
	switch {
	case model != nil:
	case sample.Weights != nil:
		// Binned input: its items are bins spread out, and holding some
		// out would score the bins' own spread.
		note = fmt.Sprintf("scored in-sample on all %s binned items (binned input has no rows to hold out)", strconv.FormatFloat(sample.TotalWeight(), 'f', -1, 64))
	case p.Holdout > 0 && !p.InSample:
		if p.ownsRows {
			// The split's shuffle takes 4 bytes a row, the plan's
			// peak: collected before it, the reader's garbage is not
			// under it; collected after it, its indexes are not under
			// the fit's tables (the collector waits for 25 % growth
			// over the live heap, which they count in: 18.3 bytes a row
			// at 10⁸ rows without these two collections, docs/performance.md).
			collect()
			if p.keepOrder {
				train, test, restore = sample.SplitInPlaceUndo(p.Holdout, p.Seed)
			} else {
				train, test = sample.SplitInPlace(p.Holdout, p.Seed)
			}
			collect()
		} else {
			train, test = sample.Split(p.Holdout, p.Seed)
		}
		note = fmt.Sprintf("scored on %d held-out %s (%.0f%%, seed %d); fitted on %d", test.Len(), plural(test.Len(), "row"), 100*p.Holdout, p.Seed, train.Len())
	}
	var (
		sv    Solve
		hnote string
		err   error
		d     *fit.Density
		dist  optimize.Distribution
	)
	fo := p.Fit
	if model != nil {
		// The solvers read the model's own CDF; the density on a grid
		// is for the plot and the report.
		if sv, hnote, err = p.Solve.withModelHorizon(model); err != nil {
			return nil, err
		}
		d, dist = model.Density(sv.Options.Horizon.Seconds(), fo.Grid), model
	} else {
		if sv, hnote, err = p.Solve.withHorizon(train); err != nil {
			return nil, err
		}
		fo.Horizon = sv.Options.Horizon.Seconds()
		// Rows fitted on and not scored on are read after the fit by
		// their creation instants alone (the wall-clock plan), which a
		// sample the fit reorders has not: the fit may reorder them.
		// With keepOrder they are given back in their order: the fit's
		// estimate is the same either way (fit.Options.Reorder).
		fo.Reorder = p.ownsRows && !p.keepOrder && test != train
		if d, err = fit.Estimate(train, fo); err != nil {
			return nil, heldOutError(err, sample, train, test, p.Solve, fo)
		}
		if test != train {
			d.ScoreHoldout(test)
		}
		dist = d
	}
	h := sv.Options.Horizon
	beyond, last := 0.0, 0.0
	// The rows scored, and those scored and fitted whose polls are known
	// (pollsCheck).
	var rows, known, knownFit, olderPending float64
	if model != nil {
		beyond = modelBeyond(model, h.Seconds())
	} else {
		beyond, last = settledBeyond(train, h.Seconds())
		rows, known, knownFit = test.TotalWeight(), knownPolls(test, h.Seconds()), knownPolls(train, h.Seconds())
		olderPending = pendingOlder(train, h.Seconds())
	}
	sec := &section{Segment: segment, Density: d, Note: note, HorizonNote: hnote, Train: train, Test: test, HeldOut: test != train, restore: restore}
	if model == nil {
		if sec.Batches, err = p.batches.find(train); err != nil {
			return nil, err
		}
	}
	// What is scored is the test rows' items; the rows themselves are read
	// after this only for their creation instants (the wall-clock plan and
	// its scoring). Without those, rows this plan owns and nothing reads
	// again go before the schedule search: collected here, the sample (9
	// bytes a row) is not under the search's and the scoring's peaks.
	weighted := test.Weights != nil
	var items *optimize.Items
	if p.ownsRows && !p.keepOrder && sample.Created == nil {
		items = optimize.NewItemsReorder(test.Times, test.Censored, test.Weights)
		sample, train, test = nil, nil, nil
		sec.Train, sec.Test = nil, nil
		collect()
		if !p.segmentRows {
			collectAsBefore()
		}
	} else {
		items = itemsOf(test)
	}
	der, err := sv.solve(dist, true)
	if err != nil {
		return nil, err
	}
	sec.Derived = der
	if w := horizonCut(beyond, h); w != "" {
		der.Result.Warnings = append(der.Result.Warnings, w)
	}
	if hnote == "" { // the horizon was given
		if w := horizonFar(h, last); w != "" {
			der.Result.Warnings = append(der.Result.Warnings, w)
		}
	}
	from, older := "data", 0.0
	switch {
	case hnote == "":
		from = "given"
	case model != nil:
		from = "model"
	default:
		older = olderPending
	}
	sec.Horizon = newHorizonCheck(h, from, max(0, 1-der.Result.Expected.Caught), beyond, older)
	if w := sec.Horizon.Warning; w != "" {
		der.Result.Warnings = append(der.Result.Warnings, w)
	}
	if sec.Batches != nil && sec.Batches.Found {
		planClock(sec, dist, sv)
	}
	derivedSched := sec.schedule()
	derivedSched.Name = "pollfit"
	scheds := []optimize.Schedule{derivedSched}
	if sec.Clock != nil {
		age := der.Result.Schedule
		age.Name = "age-only"
		scheds = append(scheds, age)
	}
	if der.Exact != nil && der.Exact != der.Result {
		ex := der.Exact.Schedule
		ex.Name = "exact"
		scheds = append(scheds, ex)
	}
	o := der.Result.Options
	for _, ref := range optimize.References {
		if ref.Horizon() != o.Horizon {
			sec.Omitted = append(sec.Omitted, ref.Name)
			continue
		}
		scheds = append(scheds, ref)
	}
	// The fixed baseline spends the age-only schedule's stuck polls (a
	// wall-clock schedule spends few on stuck items, which would starve
	// it), and no more mean polls under the fit than the budget allows.
	// When the derived schedule spends less than the mean-poll budget
	// (its min gap binds), the fixed baseline is held to what it spends.
	_, stuck := der.Result.Schedule.StuckPollsRange()
	fb := sv.Budget
	if m := der.Result.Expected.MeanPolls; fb.MeanPolls > 0 && m < (1-optimize.SpendTolerance)*fb.MeanPolls {
		fb.MeanPolls = m
	}
	fixed, err := fixedLike(fb, stuck, dist, o)
	if err == nil {
		scheds = append(scheds, fixed)
		sec.FixedNote = fixedNote(fb, stuck, fb.MeanPolls != sv.Budget.MeanPolls)
	}
	scored := scoringOf(test, items)
	ages, labels = HorizonAges(ages, labels, o.Horizon)
	sec.Ages, sec.Labels = ages, labels
	opt := optimize.ScoreOptions{Ages: ages, Seed: p.Seed}
	scores := make([]optimize.Score, len(scheds))
	for i, s := range scheds {
		scores[i] = scored.score(s, opt)
		sec.Rows = append(sec.Rows, report.NewRow(scores[i], labels, nil))
	}
	if err == nil {
		last := len(scheds) - 1
		sec.Rows[last].Comparison = fixedComparison(fb, stuck, fixed, dist, o, scores[0], scores[last])
	}
	sec.Schedules = scheds
	if d != nil {
		if w := roundingWarning(d.Resolution, scheds, scores); w != "" {
			der.Result.Warnings = append(der.Result.Warnings, w)
		}
	}
	switch {
	case sec.Clock != nil:
		held := scored.score(sec.Clock.Schedule, optimize.ScoreOptions{Ages: []time.Duration{}, LagSE: true})
		sec.ClockTest = &held
	case model == nil:
		sec.Lag, sec.Polls = scoreChecks(d, der.Result, items, sec.HeldOut, weighted, o, p.Seed, rows, known, knownFit, sv.Budget)
	}
	return sec, nil
}

// release drops what writing the section does not read: its rows, and
// the fit's Kaplan–Meier table (a step per distinct event time: 12 MB at
// 10⁷ rows of millisecond resolution, which came on top of the segments'
// rows read again: issue 18).
func (s *section) release() {
	s.Train, s.Test = nil, nil
	if s.Density != nil {
		s.Density.KM = nil
	}
}

// clockGain is how much lower, as a share, the wall-clock schedule's mean
// lag on the rows fitted must be for plan to take it over the age-only one.
const clockGain = 0.05

// planClock derives the wall-clock schedule of the section's batches
// (optimize.PlanClock, on the rows fitted with their creation instants)
// and takes it when its mean lag on those rows is clockGain below the
// age-only schedule's within the budget.
func planClock(sec *section, dist optimize.Distribution, sv Solve) {
	r := sec.Derived.Result
	phases := max(sv.Phases, 0)
	td := timedOf(sec.Train)
	cr, err := optimize.PlanClock(dist, sv.Budget, optimize.ClockOptions{Options: r.Options, Phases: phases}, td, sec.Batches.Clock.Period)
	if err != nil {
		sec.ClockNote = "no wall-clock schedule: " + solveError(err).Error()
		return
	}
	age := optimize.ScoreTimed(r.Schedule, td, optimize.ScoreOptions{Ages: []time.Duration{}})
	in := cr.InSample
	spend := max(age.MeanPolls, sv.Budget.MeanPolls) * 1.01
	if in.MeanLag < (1-clockGain)*age.MeanLag && in.MeanPolls <= spend {
		sec.Clock = cr
		fitted := optimize.ScoreTimed(cr.Schedule, td, optimize.ScoreOptions{Ages: []time.Duration{}, LagSE: true})
		sec.ClockFit = &fitted
		sec.ClockNote = fmt.Sprintf("on the rows fitted: mean lag %s at %.3g mean polls, the age-only schedule's %s at %.3g",
			formatSeconds(in.MeanLag), in.MeanPolls, formatSeconds(age.MeanLag), age.MeanPolls)
		return
	}
	sec.ClockNote = fmt.Sprintf("the age-only schedule is kept: on the rows fitted the wall-clock schedule %s has mean lag %s at %.3g mean polls, the age-only one %s at %.3g",
		cr.Schedule, formatSeconds(in.MeanLag), in.MeanPolls, formatSeconds(age.MeanLag), age.MeanPolls)
}

// fixedLike returns the fixed-interval schedule over the horizon of o,
// with a gap no smaller than o's min gap, that spends what the derived
// schedule may: with a stuck-poll budget (b.StuckPolls), stuck polls,
// the derived schedule's, as closely as it can without exceeding them (the
// smallest such gap in whole milliseconds, optimize.Tune); with a
// mean-poll budget (b.MeanPolls), no more mean polls per item under d
// (optimize.Expect, as the derived schedule is held to it) than the
// budget; with both, both. It fails when even one gap of the whole
// horizon spends more.
func fixedLike(b optimize.Budget, stuck int, d optimize.Distribution, o optimize.Options) (optimize.Schedule, error) {
	f := optimize.Family{Name: "fixed", Growth: optimize.Fixed, MinGap: o.MinGap}
	if b.MeanPolls == 0 {
		t, err := optimize.Tune(f, o.Horizon, optimize.Budget{StuckPolls: max(2, stuck)}, nil, optimize.ScoreOptions{})
		return t.Schedule, err
	}
	// The gap's grain, as Tune's: 1 ms, finer for horizons under 10 s.
	step := time.Millisecond
	for step > 1 && step > o.Horizon/10_000 {
		step /= 10
	}
	lo := max(step, o.MinGap, time.Duration(math.Ceil(float64(o.Horizon)/(optimize.MaxPolls-2))))
	lo = (lo + step - 1).Truncate(step)
	if b.StuckPolls > 0 {
		t, err := optimize.Tune(f, o.Horizon, optimize.Budget{StuckPolls: max(2, stuck)}, nil, optimize.ScoreOptions{})
		if err != nil {
			return t.Schedule, err
		}
		lo = max(lo, t.Base)
	}
	// Mean polls fall as the gap grows (every poll comes later, and
	// there are no more of them): the smallest gap in whole steps that
	// spends no more than the budget, by bisection.
	fits := func(g time.Duration) bool {
		e, err := optimize.Expect(f.Schedule(g, o.Horizon), d, o)
		return err == nil && e.MeanPolls <= b.MeanPolls*(1+1e-9)
	}
	if fits(lo) {
		return f.Schedule(lo, o.Horizon), nil
	}
	hi := o.Horizon.Truncate(step)
	if hi <= lo || !fits(hi) {
		return optimize.Schedule{}, fmt.Errorf("%w: family fixed spends more than %.4g mean polls at its sparsest", optimize.ErrBudget, b.MeanPolls)
	}
	for hi-lo > step { // lo does not fit, hi does
		mid := lo + ((hi - lo) / 2).Truncate(step)
		if fits(mid) {
			hi = mid
		} else {
			lo = mid
		}
	}
	return f.Schedule(hi, o.Horizon), nil
}

// fixedComparison says how plan's fixed baseline f, tuned by fixedLike to
// b and the derived schedule's stuck polls, stands against the derived
// schedule (see judge): whether it spends that within
// optimize.SpendTolerance (stuck polls as they are, mean polls under the
// fit d, as the derived schedule is held to them) and catches the same
// items on the rows scored (ref its score, own the baseline's).
func fixedComparison(b optimize.Budget, stuck int, f optimize.Schedule, d optimize.Distribution, o optimize.Options, ref, own optimize.Score) *report.Comparison {
	t := optimize.Budget{MeanPolls: b.MeanPolls}
	if b.StuckPolls > 0 || b.MeanPolls == 0 {
		t.StuckPolls = stuck
	}
	c := &report.Comparison{Comparable: true, Target: report.Spend{StuckPolls: float64(t.StuckPolls), MeanPolls: t.MeanPolls}}
	if t.StuckPolls > 0 {
		c.Fitted.StuckPolls = float64(f.StuckPolls())
	}
	mean := math.NaN()
	if e, err := optimize.Expect(f, d, o); err == nil {
		mean = e.MeanPolls
	}
	if t.MeanPolls > 0 && !math.IsNaN(mean) {
		c.Fitted.MeanPolls = mean
	}
	var why []string
	switch {
	case t.StuckPolls > 0 && c.Fitted.StuckPolls > float64(t.StuckPolls):
		why = append(why, fmt.Sprintf("spends %s, more than pollfit's %s: the sparsest fixed schedule polls at the start and at the horizon", spendText(c.Fitted, t), budgetText(t)))
	case !optimize.Spent(t, c.Fitted.StuckPolls, mean):
		why = append(why, fmt.Sprintf("spends %s (mean polls under the fit) of %s at its least gap, the min gap %s", spendText(c.Fitted, t), budgetText(t), optimize.FormatDuration(o.MinGap)))
	}
	if ref.HasData && own.HasData {
		c.CaughtVsReference = own.Caught - ref.Caught
		if math.Abs(c.CaughtVsReference) > catchTolerance {
			why = append(why, fmt.Sprintf("catches %.1f%% of the rows against %s's %.1f%%", 100*own.Caught, ref.Name, 100*ref.Caught))
		}
	}
	if len(why) > 0 {
		c.Comparable, c.Why = false, strings.Join(why, "; ")
	}
	return c
}

// fixedNote says what the fixed baseline of plan's table was tuned to
// (see fixedLike).
//
// With ownMean, b's mean polls are what the derived schedule expects to
// spend, less than the budget's.
func fixedNote(b optimize.Budget, stuck int, ownMean bool) string {
	var to []string
	short := ""
	if b.StuckPolls > 0 || b.MeanPolls == 0 {
		if stuck < 2 {
			// Its sparsest polls at the start and at the horizon
			// (issue 15: --budget 1 printed "at most pollfit's 2 stuck
			// polls" where pollfit spent 1).
			to = append(to, "2 stuck polls")
			short = fmt.Sprintf("; it cannot fit pollfit's %d stuck %s: the sparsest fixed schedule polls at the start and at the horizon", stuck, plural(stuck, "poll"))
		} else {
			to = append(to, fmt.Sprintf("pollfit's %d stuck polls", stuck))
		}
	}
	switch {
	case b.MeanPolls > 0 && ownMean:
		to = append(to, fmt.Sprintf("pollfit's %.4g mean polls per item under the fit (less than --mean-polls)", b.MeanPolls))
	case b.MeanPolls > 0:
		to = append(to, fmt.Sprintf("the budget's %.4g mean polls per item under the fit (--mean-polls)", b.MeanPolls))
	}
	return "fixed: one gap, the smallest that spends at most " + strings.Join(to, " and ") + short
}

// polls writes a count of polls, or a range of them.
func polls(lo, hi int) string {
	if lo == hi {
		return strconv.Itoa(lo)
	}
	return fmt.Sprintf("%d–%d", lo, hi)
}

// planMeta is what the schedule document carries about how it was made.
func planMeta(s *section, b optimize.Budget) json.RawMessage {
	if c := s.Clock; c != nil {
		lo, hi := c.Schedule.StuckPollsRange()
		m := map[string]any{
			"method":            "wall-clock",
			"period_ms":         float64(c.Period) / 1e6,
			"switch_ms":         float64(c.Switch) / 1e6,
			"fitted_lag_s":      c.InSample.MeanLag,
			"fitted_polls":      c.InSample.MeanPolls,
			"stuck_polls_least": lo,
			"stuck_polls_most":  hi,
			"age_phases":        c.Age.Phases,
		}
		b, _ := json.Marshal(m)
		return withHorizonMeta(b, s.Horizon)
	}
	r := *s.Derived.Result
	if s.Derived.Exact != nil {
		r.Optimum = &s.Derived.Exact.Expected
	}
	return withHorizonMeta(resultMeta(&r, b), s.Horizon)
}

// withHorizonMeta adds to a schedule document's meta where its horizon
// came from and the share the fit has pending there (horizonCheck), for
// export to warn that the client stops polling while they are.
func withHorizonMeta(meta json.RawMessage, c *horizonCheck) json.RawMessage {
	if c == nil {
		return meta
	}
	m := map[string]any{}
	if err := json.Unmarshal(meta, &m); err != nil {
		return meta
	}
	m["horizon_from"] = c.From
	m["pending_at_horizon"] = c.Pending
	out, err := json.Marshal(m)
	if err != nil {
		return meta
	}
	return out
}

func (p Plan) writeSection(w io.Writer, s *section) error {
	r := s.Derived.Result
	d := s.Density
	title := "all items"
	if s.Segment != export.AllSegment {
		title = "segment " + s.Segment
	}
	if p.Dist != "" {
		fmt.Fprintf(w, "== model %s (given, not fitted)", p.Dist)
	} else {
		fmt.Fprintf(w, "== %s: %d %s", title, d.N, plural(d.N, "row"))
		if d.Censored > 0 {
			fmt.Fprintf(w, " (%d censored)", d.Censored)
		}
		fmt.Fprintf(w, "; fit %s", d.Method)
		if d.Bandwidth > 0 {
			fmt.Fprintf(w, " (%s domain, bandwidth %.3g)", d.Domain, d.Bandwidth)
		}
	}
	fmt.Fprintf(w, "; mass beyond the horizon %.1f%%\n", 100*d.StuckShare) // Density.StuckShare: fitSummary
	writeKSLine(w, s)
	if d.Mixture != nil {
		fmt.Fprintf(w, "   %s\n", d.Mixture)
	}
	for _, a := range d.Atoms {
		fmt.Fprintf(w, "   %s: %s\n", a.Kind(), a)
	}
	if s.Batches != nil {
		fmt.Fprintf(w, "   %s\n", s.Batches)
	}
	phases := phasesText(r)
	o := r.Options
	settings := fmt.Sprintf("budget %s; horizon %s; min gap %s; grid %s", budgetText(p.Solve.Budget),
		optimize.FormatDuration(o.Horizon), optimize.FormatDuration(o.MinGap), optimize.FormatDuration(o.Resolution))
	if c := s.Clock; c != nil {
		lo, hi := c.Schedule.StuckPollsRange()
		fmt.Fprintf(w, "\nschedule (%d %s, then after each %s boundary; %s):\n  %s\n", c.Age.Phases, plural(c.Age.Phases, "age phase"),
			optimize.FormatDuration(c.Period), settings, c.Schedule)
		if s.HorizonNote != "" {
			fmt.Fprintf(w, "  %s\n", s.HorizonNote)
		}
		fmt.Fprintf(w, "  %s\n", s.ClockNote)
		if t := s.ClockTest; t.HasData && s.HeldOut {
			fmt.Fprintf(w, "held-out: mean lag %s on %s %s caught (±%s); %s on the rows fitted\n",
				formatSeconds(t.MeanLag), formatCount(t.NCaught), pluralOf(t.NCaught, "row"), formatSeconds(t.MeanLagSE), formatSeconds(s.ClockFit.MeanLag))
		}
		fmt.Fprintf(w, "stuck polls: %s, by when the item was created\n", polls(lo, hi))
		for _, warn := range c.Warnings {
			fmt.Fprintf(w, "warning: %s\n", warn)
		}
		fmt.Fprintf(w, "\nbest age-only schedule (%s):\n  %s\n", phases, r.Schedule)
	} else {
		fmt.Fprintf(w, "\nschedule (%s; %s):\n  %s\n", phases, settings, r.Schedule)
		if s.HorizonNote != "" {
			fmt.Fprintf(w, "  %s\n", s.HorizonNote)
		}
		if s.ClockNote != "" {
			fmt.Fprintf(w, "  %s\n", s.ClockNote)
		}
	}
	b := p.Solve.Budget
	fmt.Fprintf(w, "expected: mean lag %s, %d stuck %s, %s, caught %.1f%%%s\n",
		formatSeconds(r.Expected.MeanLag), r.Expected.StuckPolls, plural(r.Expected.StuckPolls, "poll"), meanPollsText(r.Expected.MeanPolls), 100*r.Expected.Caught, costSuffix(b, r.Expected))
	writeLagCheck(w, s)
	writePollsCheck(w, s)
	if ex := s.Derived.Exact; ex != nil && ex != r {
		fmt.Fprintf(w, "exact optimum (same min gap): %s", optimumText(b, r.Expected, ex.Expected))
		if sq := s.Derived.Sqrt; sq != nil {
			fmt.Fprintf(w, "; √ rule: %s%s", formatSeconds(sq.Expected.MeanLag), costSuffix(b, sq.Expected))
		}
		fmt.Fprintln(w)
	}
	if f := s.Derived.Free; f != nil {
		fmt.Fprintf(w, "exact optimum with gaps down to the grid's %s: mean lag %s%s\n", optimize.FormatDuration(o.Resolution), formatSeconds(f.Expected.MeanLag), costSuffix(b, f.Expected))
	}
	if r.MarginalPrice > 0 {
		fmt.Fprintf(w, "marginal price: one more poll per item buys %s of mean lag\n", formatSeconds(r.MarginalPrice))
	}
	if simple := s.Derived.Simple; len(simple) > 0 {
		fmt.Fprintf(w, "price of simplicity (%s of the best schedule of K phases / exact optimum at the same min gap):\n", objectiveName(b))
		row := func(label string, ratio func(optimize.Simplicity) float64) {
			fmt.Fprintf(w, "  %-16s", label)
			for _, x := range simple {
				if x.Err != nil {
					fmt.Fprintf(w, "  K=%d: -", x.K)
					continue
				}
				fmt.Fprintf(w, "  K=%d: %s", x.K, ratioText(ratio(x)))
			}
			fmt.Fprintln(w)
		}
		row("constant gaps", func(x optimize.Simplicity) float64 { return x.ConstantRatio })
		if !r.Options.ConstantGaps {
			row("growing phases", func(x optimize.Simplicity) float64 { return x.Ratio })
		}
	}
	for _, warn := range append(d.Warnings, r.Warnings...) {
		fmt.Fprintf(w, "warning: %s\n", warn)
	}
	fmt.Fprintln(w)
	if err := report.Table(w, s.Rows, s.Note+":"); err != nil {
		return err
	}
	if s.FixedNote != "" {
		fmt.Fprintln(w, s.FixedNote)
	}
	if len(s.Omitted) > 0 {
		fmt.Fprintf(w, "not scored: %s poll over %s, not this %s horizon (pollfit evaluate scores them as they are)\n",
			strings.Join(s.Omitted, ", "), optimize.FormatDuration(optimize.References[0].Horizon()), optimize.FormatDuration(o.Horizon))
	}
	_, err := fmt.Fprintln(w)
	return err
}

// planJSON is the JSON form of plan's output.
type planJSON struct {
	Schedule json.RawMessage        `json:"schedule"` // the schedule document, as export --lang json writes it
	Rows     []report.Row           `json:"rows"`     // the derived schedule first
	Note     string                 `json:"scored_on"`
	Omitted  []string               `json:"not_scored,omitempty"` // reference schedules that stop before the horizon
	Segments map[string]segmentJSON `json:"segments,omitempty"`
	Clock                           // wall-clock batches and schedule
	Input    *source                `json:"input"` // what was read, and in which unit
	Check                           // the fit's distances from the data, the mean lag check
}

type segmentJSON struct {
	Rows    []report.Row `json:"rows"`
	Note    string       `json:"scored_on"`
	Omitted []string     `json:"not_scored,omitempty"`
	Check
	Clock
}

// Clock is what plan's JSON says about wall-clock batches: what was found
// and how the wall-clock schedule compared with the age-only one.
type Clock struct {
	WallClock *clockJSON `json:"wall_clock,omitempty"`
	Note      string     `json:"wall_clock_note,omitempty"`
	AgeOnly   string     `json:"age_only,omitempty"` // the age-only schedule, when the wall-clock one is taken
}

func clockOf(s *section) Clock {
	c := Clock{WallClock: s.Batches.json(), Note: s.ClockNote}
	if s.Clock != nil {
		c.AgeOnly = s.Derived.Result.Schedule.String()
	}
	return c
}

func (p Plan) writeJSON(w io.Writer, doc export.Document, secs []*section, rep *source) error {
	var buf bytes.Buffer
	if err := export.JSON(&buf, doc, export.JSONOptions{}); err != nil {
		return err
	}
	out := planJSON{Schedule: buf.Bytes(), Rows: secs[0].Rows, Note: secs[0].Note, Omitted: secs[0].Omitted, Check: checkOf(secs[0]), Clock: clockOf(secs[0]), Input: rep}
	for _, s := range secs[1:] {
		if out.Segments == nil {
			out.Segments = map[string]segmentJSON{}
		}
		out.Segments[s.Segment] = segmentJSON{Rows: s.Rows, Note: s.Note, Omitted: s.Omitted, Check: checkOf(s), Clock: clockOf(s)}
	}
	return report.JSON(w, out)
}
