package app

import (
	"bytes"
	"fmt"
	"html/template"
	"io"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/pollfit/pollfit/export"
	"github.com/pollfit/pollfit/fit"
	"github.com/pollfit/pollfit/ingest"
	"github.com/pollfit/pollfit/internal/app/html"
	"github.com/pollfit/pollfit/internal/app/plot"
	"github.com/pollfit/pollfit/internal/app/report"
	"github.com/pollfit/pollfit/internal/outfile"
	"github.com/pollfit/pollfit/optimize"
	"gonum.org/v1/plot/vg"
)

// Report settings: see the report command's help.
//
// The report is built from the results the other commands print: for
// each part (all items, then each segment), plan's section (the fit, the
// derived schedule and its checks, Plan.plan), compare's table of the
// derived schedule, the exact optimum, the families tuned to the same
// budget and the user's schedules on the held-out rows (Compare.score),
// and sweep's frontier over budgets around the plan's (Sweep.sweep), all
// on plan's fit and split.
type Report struct {
	Input     Input
	Fit       fit.Options
	Solve     Solve
	Families  string   // baseline families, as compare's --families
	Schedules []string // the user's schedules, scored as they are
	Holdout   float64
	Seed      uint64
	Draws     int
	Ages      string
	Batches   Batches // wall-clock batches, as plan's
	// Budgets and MeanPolls are the sweep's budgets, as sweep's --budgets
	// and --mean-polls-range; both empty means DefaultReportSteps budgets
	// from a quarter of the plan's budget to four times it.
	Budgets   string
	MeanPolls string
	Title     string // the page's title; empty means one naming the input
	Command   string // the command line that made the report, shown on it
	Version   string // pollfit's version, shown on it
	Out       string // the HTML file; "" or "-" means stdout
}

// DefaultReportSteps is the number of budgets the report's slider has
// without --budgets: from a quarter of the plan's budget to four times it,
// log-spaced, so that the plan's budget is the middle one.
const DefaultReportSteps = 9

// DefaultReportFamilies are the report's baseline families: the unjittered
// ones and full jitter, the AWS recommendation, to keep the figures
// readable and the sweep quick (jittered schedules are scored by Monte
// Carlo draws).
const DefaultReportFamilies = "fixed,linear,exp,poly,fib,exp-full"

// maxReportSteps bounds the slider's budgets.
const maxReportSteps = 40

// Run fits, derives, compares and sweeps each part, and writes the page.
func (r Report) Run(stdout, stderr io.Writer) error {
	if err := (outputs{Out: r.Out, Inputs: r.Input.Paths}).check(); err != nil {
		return err
	}
	if err := r.Fit.Check(); err != nil {
		return &UsageError{err}
	}
	if err := checkDraws(r.Draws); err != nil {
		return err
	}
	if err := r.Solve.check(); err != nil {
		return err
	}
	if err := checkHoldout(r.Holdout); err != nil {
		return err
	}
	ages, labels, err := ParseAges(r.Ages)
	if err != nil {
		return err
	}
	famList := r.Families
	if famList == "" {
		famList = DefaultReportFamilies
	}
	fams, err := parseFamilies(famList)
	if err != nil {
		return err
	}
	users, err := loadUserSchedules(r.Schedules)
	if err != nil {
		return err
	}
	if r.Budgets != "" && r.MeanPolls != "" {
		return Usagef("give one of --budgets A..B[:N] (stuck polls) or --mean-polls-range A..B[:N], not both")
	}
	var values []float64
	switch {
	case r.Budgets != "":
		values, err = ParseRange("budgets", r.Budgets, true)
	case r.MeanPolls != "":
		values, err = ParseRange("mean-polls-range", r.MeanPolls, false)
	}
	if err != nil {
		return err
	}
	if len(values) > maxReportSteps {
		return Usagef("--budgets: %d budgets: want at most %d for the slider", len(values), maxReportSteps)
	}
	sample, rep, err := r.Input.loadSource(stderr)
	if err != nil {
		return err
	}
	if sample == nil {
		return Usagef("--input is required: report fits and scores on settle times")
	}
	parts, err := r.Input.parts(sample, stderr)
	if err != nil {
		return err
	}
	plan := Plan{Input: r.Input, Fit: r.Fit, Solve: r.Solve, Holdout: r.Holdout, Seed: r.Seed, Batches: r.Batches}
	if plan.batches, err = r.Batches.parse(); err != nil {
		return err
	}
	cmp := Compare{Input: r.Input, Fit: r.Fit, Solve: r.Solve, Holdout: r.Holdout, Seed: r.Seed, Draws: r.Draws}
	sw := Sweep{Solve: r.Solve, Holdout: r.Holdout, Seed: r.Seed, Draws: r.Draws, Quiet: r.Input.Quiet}
	built, err := eachPart(parts, func(pt part) (*reportPart, error) {
		sec, err := plan.plan(pt.Name, pt.Sample, nil, ages, labels)
		if err != nil {
			return nil, err
		}
		if ages == nil { // the first part's, for every part, as plan
			ages, labels = sec.Ages, sec.Labels
		}
		a := arenaOf(sec, r.Solve)
		opt := optimize.ScoreOptions{Ages: sec.Ages, Seed: r.Seed, Draws: r.Draws}
		entries, t, err := r.entries(sec, a, fams, users, opt)
		if err != nil {
			return nil, err
		}
		cmpn := cmp.score(pt, a, entries, t, opt, sec.Labels)
		budgets, byMean := r.budgets(values, sec)
		rows, sweepWarnings, err := sw.sweep(a, pt, len(parts) > 1, budgets, byMean, fams, users, stderr)
		if err != nil {
			return nil, err
		}
		return &reportPart{part: pt, sec: sec, cmp: cmpn, sweep: rows, byMean: byMean, budgets: budgets, sweepWarnings: sweepWarnings}, nil
	})
	if err != nil {
		return err
	}
	pg, err := r.page(built, rep)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	if err := html.Write(&buf, pg); err != nil {
		return err
	}
	if err := outfile.Write(r.Out, stdout, func(w io.Writer) error {
		_, err := w.Write(buf.Bytes())
		return err
	}); err != nil {
		return err
	}
	if !r.Input.Quiet && r.Out != "" && r.Out != "-" {
		fmt.Fprintf(stderr, "wrote %s (%s KB): %d %s\n", r.Out, thousands((buf.Len()+1023)/1024), len(built), plural(len(built), "section"))
	}
	return nil
}

// reportPart is what the report shows of one part.
type reportPart struct {
	part          part
	sec           *section
	cmp           *comparison
	sweep         []SweepRow
	byMean        bool
	budgets       []optimize.Budget
	sweepWarnings []string
}

// arenaOf is the arena plan's section was fitted and scored on, for
// compare's and sweep's functions: the same split, density and horizon.
func arenaOf(s *section, sv Solve) *arena {
	a := &arena{train: s.Train, test: s.Test, density: s.Density, solve: sv, horizonNote: s.HorizonNote, note: s.Note}
	a.horizon = s.Derived.Result.Options.Horizon
	a.solve.Options.Horizon = a.horizon
	a.heldOut = s.HeldOut
	a.trainItems = itemsOf(s.Train)
	a.testItems = a.trainItems
	if a.heldOut {
		a.testItems = itemsOf(s.Test)
	}
	a.short = s.Note
	return a
}

// entries are the schedules the report compares: plan's derived schedule
// and exact optimum, the families tuned to the plan's budget (to the
// derived schedule's stuck polls under a poll cost; see arena.target),
// which it returns, and the user's.
func (r Report) entries(s *section, a *arena, fams []optimize.Family, users []optimize.Schedule, opt optimize.ScoreOptions) ([]entry, optimize.Budget, error) {
	der := s.Derived
	var out []entry
	res := der.Result
	if c := s.Clock; c != nil {
		sc := c.Schedule
		sc.Name = "pollfit"
		out = append(out, entry{Kind: kindPhased, Schedule: sc})
	}
	if res.Method != "exact" {
		sc := res.Schedule
		sc.Name = "pollfit"
		if s.Clock != nil {
			sc.Name = "age-only"
		}
		out = append(out, entry{Kind: kindPhased, Schedule: sc, Expected: &res.Expected})
	}
	if der.Exact != nil {
		sc := der.Exact.Schedule
		sc.Name = "exact"
		out = append(out, entry{Kind: kindExact, Schedule: sc, Expected: &der.Exact.Expected})
	}
	b := r.Solve.Budget
	if b.PollCost > 0 {
		b = optimize.Budget{StuckPolls: res.Expected.StuckPolls}
	}
	t := a.target(b, out, opt)
	out = append(out, a.tune(t, fams, res.Options, opt)...)
	for _, u := range users {
		out = append(out, entry{Kind: kindUser, Schedule: u})
	}
	return out, t, nil
}

// budgets returns the budgets of the part's sweep: those given, or
// DefaultReportSteps from a quarter of the plan's budget to four times
// it. With both a stuck-poll and a mean-poll budget, both scale
// together; under a poll cost, the derived schedule's stuck polls scale.
func (r Report) budgets(values []float64, s *section) ([]optimize.Budget, bool) {
	if values != nil {
		return sweepBudgets(values, r.MeanPolls != ""), r.MeanPolls != ""
	}
	b := r.Solve.Budget
	if b.PollCost > 0 {
		b = optimize.Budget{StuckPolls: s.Derived.Result.Expected.StuckPolls}
	}
	byMean := b.StuckPolls == 0
	var out []optimize.Budget
	for _, f := range logSpaced(0.25, 4, DefaultReportSteps, false) {
		nb := optimize.Budget{MeanPolls: b.MeanPolls * f}
		if b.StuckPolls > 0 {
			nb.StuckPolls = max(2, int(math.Round(float64(b.StuckPolls)*f)))
		}
		if len(out) > 0 && out[len(out)-1] == nb {
			continue
		}
		out = append(out, nb)
	}
	return out, byMean
}

// page builds the report's page from the parts.
func (r Report) page(parts []*reportPart, rep *source) (*html.Page, error) {
	pg := &html.Page{Title: r.Title, Version: r.Version, Command: r.Command}
	if pg.Title == "" {
		pg.Title = "pollfit report: " + r.inputName()
	}
	if rep != nil {
		pg.Notes = rep.Warnings
	}
	ids := partIDs(parts)
	pg.Summary = html.Table{Head: []string{"", "rows", "schedule", "mean lag", "p95 lag", "mean polls", "stuck polls", "caught"}, Mark: -1, Wrap: 2,
		Caption: "The derived schedule of each part, scored on its held-out rows"}
	for i, p := range parts {
		hp, err := r.partPage(p, ids[i], parts, rep)
		if err != nil {
			return nil, err
		}
		pg.Parts = append(pg.Parts, hp)
		row := p.cmp.rows[0]
		lag := formatSeconds
		opt := func(v *float64, f func(float64) string) string {
			if v == nil {
				return "-"
			}
			return f(*v)
		}
		pct := func(v float64) string { return fmt.Sprintf("%.1f%%", 100*v) }
		mp := func(v float64) string { return fmt.Sprintf("%.2f", v) }
		size := thousands(p.part.Sample.Len())
		if c := p.part.Sample.CensoredCount(); c > 0 {
			size += fmt.Sprintf(" (%s censored)", thousands(c))
		}
		pg.Summary.Rows = append(pg.Summary.Rows, []string{hp.Title, size, row.Spec, opt(row.MeanLag, lag), opt(row.P95Lag, lag),
			opt(row.MeanPolls, mp), strconv.FormatFloat(row.StuckPolls, 'g', 3, 64), opt(row.Caught, pct)})
		pg.Summary.Links = append(pg.Summary.Links, ids[i])
	}
	all := parts[0].sec
	doc := export.Document{Schedule: all.schedule(), Meta: planMeta(all, r.Solve.Budget)}
	for _, p := range parts[1:] {
		doc.Segments = append(doc.Segments, export.Segment{Name: p.sec.Segment, Schedule: p.sec.schedule(), Meta: planMeta(p.sec, r.Solve.Budget)})
	}
	var js, gs bytes.Buffer
	if err := export.JSON(&js, doc, export.JSONOptions{}); err != nil {
		return nil, err
	}
	if err := export.GoSource(&gs, doc, export.Options{Package: "poll"}); err != nil {
		return nil, err
	}
	pg.Export = html.Export{JSON: js.String(), Go: gs.String(),
		Hint: "The derived schedules as a schedule document and as Go code that satisfies backoff.BackOff. " +
			"Save the document as schedule.json: pollfit export --schedule schedule.json --lang ts (or kotlin, swift) writes the same schedule for other clients, and pollfit evaluate --schedule schedule.json scores it."}
	return pg, nil
}

// inputName names the input in the title: the files, stdin, or the
// bundled data.
func (r Report) inputName() string { return r.Input.name() }

// partIDs gives each part an HTML id: "all", and "seg-NAME" with NAME
// made safe as in plot file names (safeName, which keeps letters and
// digits of any script, '-', '_' and '.'), numbered where two clash.
func partIDs(parts []*reportPart) []string {
	ps := make([]part, len(parts))
	for i, p := range parts {
		ps[i] = p.part
	}
	out := plotPaths("x", ps)
	for i := range out {
		if i == 0 {
			out[i] = "all"
			continue
		}
		out[i] = "seg" + strings.TrimPrefix(out[i], "x")
		out[i] = strings.ReplaceAll(out[i], ".", "_")
	}
	return out
}

// partPage builds the page of one part.
func (r Report) partPage(p *reportPart, id string, parts []*reportPart, rep *source) (html.Part, error) {
	s := p.sec
	hp := html.Part{ID: id, Title: "All items"}
	if p.part.segmented() {
		hp.Title = "Segment " + p.part.Name
	}
	hp.Data = r.dataFacts(p, rep)
	q := html.Table{Head: []string{"", "rows", "censored", "p50", "p90", "p95", "p99", "last settle"}, Mark: -1,
		Caption: "Settle-time quantiles of all rows (Kaplan–Meier when some are censored)"}
	quantRow := func(name string, smp *ingest.Sample) {
		qs, last := kmQuantiles(smp, []float64{0.5, 0.9, 0.95, 0.99})
		row := []string{name, thousands(smp.Len()), thousands(smp.CensoredCount())}
		for _, v := range qs {
			if math.IsNaN(v) {
				row = append(row, "not reached")
			} else {
				row = append(row, formatSeconds(v))
			}
		}
		q.Rows = append(q.Rows, append(row, formatSeconds(last)))
	}
	if p.part.segmented() {
		quantRow(p.part.Name, p.part.Sample)
	} else {
		quantRow("all items", p.part.Sample)
		for _, o := range parts[1:] {
			quantRow(o.part.Name, o.part.Sample)
		}
	}
	hp.Quantiles = q

	d := s.Density
	hp.Fit, hp.Goodness = fitFacts(s)
	hp.FitWarnings = d.Warnings
	svg, err := plot.DensitySVG(d, s.Train, plot.DensityOptions{})
	if err != nil {
		return hp, err
	}
	hp.FitFigure = html.Figure{SVG: template.HTML(html.CompactSVG(svg)),
		Caption: "Top: histogram of the rows fitted and the fitted density (atoms as vertical lines, spikes by themselves); middle: survival, 1 − CDF, of the fit over the data's (Kaplan–Meier with censoring); bottom: the fitted hazard."}

	res := s.Derived.Result
	hp.Spec = s.schedule().String()
	hp.Schedule = scheduleFacts(s, r.Solve.Budget)
	hp.ScheduleWarnings = res.Warnings
	if simple := s.Derived.Simple; len(simple) > 0 {
		t := html.Table{Head: []string{"phases K"}, Mark: -1,
			Caption: "Price of simplicity: " + objectiveName(r.Solve.Budget) + " of the best schedule of K phases over the exact optimum's at the same min gap"}
		cg, gp := []string{"constant gaps"}, []string{"growing phases"}
		for _, x := range simple {
			t.Head = append(t.Head, fmt.Sprint(x.K))
			if x.Err != nil {
				cg, gp = append(cg, "-"), append(gp, "-")
				continue
			}
			cg, gp = append(cg, ratioText(x.ConstantRatio)), append(gp, ratioText(x.Ratio))
		}
		t.Rows = [][]string{cg}
		if !res.Options.ConstantGaps {
			t.Rows = append(t.Rows, gp)
		}
		hp.Simplicity = t
	}
	scheds := make([]optimize.Schedule, len(p.cmp.entries))
	for i, e := range p.cmp.entries {
		scheds[i] = e.Schedule
	}
	tl, err := plot.TimelineSVG(d.CDF, scheds, res.Options.Horizon, plot.TimelineOptions{})
	if err != nil {
		return hp, err
	}
	hp.Timeline = html.Figure{SVG: template.HTML(html.CompactSVG(tl.Data)),
		Caption: "When each schedule polls (dots, up to the horizon) against when items settle under the fit (band: share settling per bin)."}
	head, cells := report.Cells(p.cmp.rows)
	hp.Comparison = html.Table{Head: head, Rows: cells, Mark: 0}
	hp.ComparisonNote = p.cmp.note
	for _, row := range p.cmp.rows {
		hp.Specs = append(hp.Specs, html.Fact{Label: row.Name, Value: row.Spec})
	}
	hp.SameCost = sameCost(p.cmp.scores, p.cmp.entries, p.cmp.rows)
	hp.Budget, err = budgetPage(p, id, r.Solve.Budget)
	if err != nil {
		return hp, err
	}
	hp.FamilyNotes = append(comparisonNotes(p.cmp.rows), p.cmp.warnings...)
	return hp, nil
}

// dataFacts says what was read: for all items the input's counts, for
// every part its rows, censored share, split, and the unit of the times.
func (r Report) dataFacts(p *reportPart, rep *source) []html.Fact {
	var out []html.Fact
	s := p.sec
	if !p.part.segmented() && rep != nil {
		src := r.inputName()
		if rep.Files > 1 {
			src += fmt.Sprintf(" (%d files)", rep.Files)
		}
		out = append(out, html.Fact{Label: "input", Value: src})
		out = append(out, html.Fact{Label: "rows read", Value: thousands(rep.Read)})
		used := thousands(rep.Used)
		if rep.Items > 0 {
			used += fmt.Sprintf(" bins holding %s items", formatCount(rep.Items))
		}
		out = append(out, html.Fact{Label: "rows used", Value: used})
		out = append(out, html.Fact{Label: "excluded", Value: thousands(rep.Excluded), Note: "on purpose (--exclude-status)"})
		dropped := html.Fact{Label: "dropped", Value: thousands(rep.DroppedTotal())}
		if len(rep.Dropped) > 0 {
			var reasons []string
			for _, k := range slices.Sorted(maps.Keys(rep.Dropped)) {
				reasons = append(reasons, fmt.Sprintf("%s %s", k, thousands(rep.Dropped[k])))
			}
			dropped.Note = strings.Join(reasons, ", ")
			dropped.Warn = true
		}
		out = append(out, dropped)
		out = append(out, duplicatesFact(r.Input, rep.Report))
		if rep.Zeroed > 0 {
			out = append(out, html.Fact{Label: "negative set to 0", Value: thousands(rep.Zeroed), Note: "lowest " + formatSeconds(rep.Lowest) + " (--negative zero)", Warn: true})
		}
		out = append(out, unitFact(r.Input, rep))
	}
	smp := p.part.Sample
	rows := html.Fact{Label: "rows", Value: p.part.size()}
	if n, c := smp.Len(), smp.CensoredCount(); n > 0 && c > 0 {
		rows.Note = fmt.Sprintf("%.1f%% censored: still pending when the log was taken (right-censored, fitted by Kaplan–Meier)", 100*float64(c)/float64(n))
	}
	out = append(out, rows)
	out = append(out, html.Fact{Label: "split", Value: s.Note})
	return out
}

// duplicatesFact counts the rows that repeat an earlier one (ingest.Report:
// dropped by --dedupe, or counted when it is not given).
func duplicatesFact(in Input, rep *ingest.Report) html.Fact {
	if in.Read.Dedupe != "" {
		n := rep.Dropped["duplicate id"]
		return html.Fact{Label: "duplicates", Value: thousands(n), Note: "rows repeating an earlier value of " + in.Read.Dedupe + ", dropped (--dedupe)"}
	}
	f := html.Fact{Label: "duplicates", Value: thousands(rep.Repeated), Note: "rows that repeat an earlier row exactly, kept (--dedupe ID drops them)"}
	if rep.Repeated > 0 {
		f.Warn = true
		if !rep.RepeatedExact {
			f.Value = "about " + f.Value
			f.Note += "; estimated from a sample of the rows"
		}
	}
	return f
}

// unitFact says in what unit the settle times were read, and why
// (ingest.Report.Unit and UnitFrom).
func unitFact(in Input, rep *source) html.Fact {
	o := in.Read
	if o.Start != "" && o.End != "" {
		v := "timestamps: " + o.End + " − " + o.Start
		note := "RFC 3339 text or Parquet timestamps"
		if o.Epoch != 0 {
			note = "epoch numbers in " + unitName(o.Epoch) + " (--epoch)"
		}
		return html.Fact{Label: "unit", Value: v, Note: note}
	}
	col := rep.UnitColumn
	if col == "" {
		col = columnName(in)
	}
	var why string
	switch rep.UnitFrom {
	case ingest.UnitFromOption:
		why = "given by --unit"
	case ingest.UnitFromName:
		why = "the column's name says so"
	case ingest.UnitFromType:
		why = "the column's type says so"
	default:
		why = "the default: nothing said otherwise (--unit sets it)"
		if rep.UnitHint != "" {
			why = "the default: nothing said otherwise; " + rep.UnitHint
		}
	}
	what := "bare numbers of column " + col
	if o.Binned {
		what = "the bins' bounds"
	}
	return html.Fact{Label: "unit", Value: unitName(rep.Unit), Note: what + " read in this unit: " + why + "; Go durations such as 1.5s carry their own", Warn: rep.UnitHint != ""}
}

func columnName(in Input) string {
	if in.Read.Column == "" && in.Bundled != nil {
		return in.Bundled.Column
	}
	return in.Read.Column
}

// unitName names a unit: "seconds", "milliseconds", ….
func unitName(u ingest.Unit) string {
	if u == 0 {
		return "seconds"
	}
	switch time.Duration(u) {
	case time.Nanosecond:
		return "nanoseconds"
	case time.Microsecond:
		return "microseconds"
	case time.Millisecond:
		return "milliseconds"
	case time.Second:
		return "seconds"
	case time.Minute:
		return "minutes"
	case time.Hour:
		return "hours"
	case 24 * time.Hour:
		return "days"
	}
	return time.Duration(u).String()
}

// kmQuantiles returns the p-quantiles of the sample's settle times by the
// Kaplan–Meier estimate (for uncensored rows, the empirical distribution),
// as R's quantile.survfit: the smallest time t with S(t) ≤ 1 − p, or the
// midpoint to the next event time where S(t) equals 1 − p over an
// interval; NaN where S stays above 1 − p (too many censored). last is
// the last settle time.
func kmQuantiles(s *ingest.Sample, ps []float64) (qs []float64, last float64) {
	qs = make([]float64, len(ps))
	for i := range qs {
		qs[i] = math.NaN()
	}
	if s.Len() == 0 {
		return qs, math.NaN()
	}
	km := fit.NewKaplanMeier(s)
	n := len(km.T)
	if n == 0 {
		return qs, math.NaN()
	}
	const eps = 1e-9 // S is a product of ratios: equal up to rounding
	for i, p := range ps {
		target := 1 - p
		for j, sv := range km.Survival {
			if sv <= target+eps {
				qs[i] = km.T[j]
				if math.Abs(sv-target) <= eps && j+1 < n {
					qs[i] = (km.T[j] + km.T[j+1]) / 2
				}
				break
			}
		}
	}
	return qs, km.T[n-1]
}

// fitFacts describes the fit and its distance from the data.
func fitFacts(s *section) (facts, goodness []html.Fact) {
	d := s.Density
	method := d.Method
	if d.Bandwidth > 0 {
		bw := fmt.Sprintf("bandwidth %.3g", d.Bandwidth)
		if d.BandwidthRule != "" {
			bw += " (" + d.BandwidthRule + ")"
		}
		method += fmt.Sprintf(" in the %s domain, %s", d.Domain, bw)
	}
	facts = append(facts, html.Fact{Label: "method", Value: method, Note: fmt.Sprintf("on %s rows", thousands(d.N))})
	if d.Mixture != nil {
		facts = append(facts, html.Fact{Label: "mixture", Value: d.Mixture.String()})
	}
	if d.Resolution > 0 {
		facts = append(facts, html.Fact{Label: "data resolution", Value: formatSeconds(d.Resolution), Note: "times are multiples of it"})
	}
	facts = append(facts, html.Fact{Label: "mass beyond the horizon", Value: fmt.Sprintf("%.2f%%", 100*d.StuckShare), Note: "the fit's mass not settled by the horizon " + formatSeconds(d.Horizon()) + ": its tail past it, and with pending rows those that may never settle"})
	for _, a := range d.Atoms {
		facts = append(facts, html.Fact{Label: a.Kind(), Value: a.String()})
	}
	if k := d.KS; k != nil {
		f := html.Fact{Label: "KS distance, rows fitted", Value: fmt.Sprintf("%.3g", k.D)}
		of := ""
		if k.Subsample > 0 {
			of = "a subsample of " + thousands(k.Subsample) + " of "
		}
		f.Note = fmt.Sprintf("on %s%s rows; at %s (fit %s the data over %s–%s)",
			of, thousands(k.Rows), formatSeconds(k.At), side(k.Diff), formatSeconds(k.From), formatSeconds(k.To))
		switch {
		case k.Band95 > 0 && k.D > k.Band95 && k.D > fit.KSWarnFloor:
			f.Note += fmt.Sprintf("; beyond the one-sample 95%% band %.3g, which is conservative on the rows fitted: the fit misses the data", k.Band95)
			f.Warn = d.HoldoutKS == nil
		case k.Subsample > 0:
			f.Note += fmt.Sprintf("; mostly the subsample's own sampling error (its 95%% band %.3g)", fit.DKWBand(float64(k.Subsample), 0.05))
		default:
			f.Note += "; biased low: the fit was drawn towards these rows"
		}
		goodness = append(goodness, f)
	}
	if k := d.HoldoutKS; k != nil {
		f := html.Fact{Label: "KS distance, held-out rows", Value: fmt.Sprintf("%.3g", k.D)}
		if k.D > k.Band95 {
			f.Note = fmt.Sprintf("beyond its 95%% two-sample band %.3g (Smirnov, %s rows fitted, %s held out%s): the fit misses the data at %s (fit %s it over %s–%s)",
				k.Band95, thousands(int(math.Round(k.FittedN))), thousands(k.Rows), subsampleNote(*k), formatSeconds(k.At), side(k.Diff), formatSeconds(k.From), formatSeconds(k.To))
			f.Warn = true
		} else {
			f.Note = fmt.Sprintf("within its 95%% two-sample band %.3g (Smirnov, %s rows fitted, %s held out%s): as close as sampling error allows",
				k.Band95, thousands(int(math.Round(k.FittedN))), thousands(k.Rows), subsampleNote(*k))
		}
		goodness = append(goodness, f)
	}
	if c := s.Lag; c != nil && c.Caught > 0 {
		var b strings.Builder
		writeLagCheck(&b, s)
		line, _, _ := strings.Cut(b.String(), "\n")
		_, line, _ = strings.Cut(line, ": ")
		goodness = append(goodness, html.Fact{Label: "expected vs realised mean lag", Value: formatSeconds(c.Expected) + " vs " + formatSeconds(c.Realised),
			Note: line, Warn: c.Warning != ""})
		if c.Warning != "" {
			goodness = append(goodness, html.Fact{Label: "mean lag check", Value: c.Warning, Warn: true})
		}
	}
	if c := s.Polls; c != nil {
		var b strings.Builder
		writePollsCheck(&b, s)
		line, _, _ := strings.Cut(b.String(), "\n")
		_, line, _ = strings.Cut(line, ": ")
		goodness = append(goodness, html.Fact{Label: "expected vs realised mean polls", Value: fmt.Sprintf("%.3g vs %.3g", c.Expected, c.Realised),
			Note: line, Warn: c.Warning != ""})
		if c.Warning != "" {
			goodness = append(goodness, html.Fact{Label: "mean polls check", Value: c.Warning, Warn: true})
		}
	}
	return facts, goodness
}

// scheduleFacts describes the derived schedule as plan does.
func scheduleFacts(s *section, b optimize.Budget) []html.Fact {
	r := s.Derived.Result
	o := r.Options
	phases := phasesText(r)
	if c := s.Clock; c != nil {
		phases = fmt.Sprintf("%d %s, then after each %s boundary (UTC)", c.Age.Phases, plural(c.Age.Phases, "age phase"), optimize.FormatDuration(c.Period))
	}
	out := []html.Fact{
		{Label: "form", Value: phases},
		{Label: "budget", Value: budgetText(b)},
		{Label: "horizon", Value: optimize.FormatDuration(o.Horizon), Note: s.HorizonNote},
		{Label: "min gap", Value: optimize.FormatDuration(o.MinGap), Note: "grid " + optimize.FormatDuration(o.Resolution)},
	}
	if c := s.Clock; c != nil {
		lo, hi := c.Schedule.StuckPollsRange()
		out = append(out, html.Fact{Label: "wall-clock batches", Value: s.Batches.describe()},
			html.Fact{Label: "on the rows fitted", Value: strings.TrimPrefix(s.ClockNote, "on the rows fitted: ")})
		if t := s.ClockTest; t != nil && t.HasData && s.HeldOut {
			out = append(out, html.Fact{Label: "held-out", Value: fmt.Sprintf("mean lag %s at %s", formatSeconds(t.MeanLag), meanPollsText(t.MeanPolls))})
		}
		out = append(out, html.Fact{Label: "stuck polls", Value: polls(lo, hi), Note: "by when the item was created"},
			html.Fact{Label: "best age-only schedule", Value: r.Schedule.String(), Note: phasesText(r)})
	}
	out = append(out, html.Fact{Label: "expected under the fit", Value: fmt.Sprintf("mean lag %s, %d stuck %s, %s, caught %.1f%%%s",
		formatSeconds(r.Expected.MeanLag), r.Expected.StuckPolls, plural(r.Expected.StuckPolls, "poll"), meanPollsText(r.Expected.MeanPolls), 100*r.Expected.Caught, costSuffix(b, r.Expected))})
	if s.Clock != nil {
		out[len(out)-1].Label = "age-only, expected under the fit"
	}
	if c := s.Lag; c != nil && c.Caught > 0 {
		var w strings.Builder
		writeLagCheck(&w, s)
		line, _, _ := strings.Cut(w.String(), "\n")
		label, rest, _ := strings.Cut(line, ": ")
		out = append(out, html.Fact{Label: label + " (realised)", Value: rest})
	}
	if s.Polls != nil {
		var w strings.Builder
		writePollsCheck(&w, s)
		line, _, _ := strings.Cut(w.String(), "\n")
		label, rest, _ := strings.Cut(line, ": ")
		out = append(out, html.Fact{Label: label + " polls (realised)", Value: rest})
	}
	if ex := s.Derived.Exact; ex != nil && ex != r {
		v := optimumText(b, r.Expected, ex.Expected)
		if sq := s.Derived.Sqrt; sq != nil {
			v += "; √ rule: " + formatSeconds(sq.Expected.MeanLag) + costSuffix(b, sq.Expected)
		}
		label := "exact optimum"
		if s.Clock != nil {
			label = "exact age-indexed optimum"
			v = strings.Replace(v, "this schedule", "the age-only schedule", 1)
		}
		out = append(out, html.Fact{Label: label, Value: v, Note: "same min gap"})
	}
	if f := s.Derived.Free; f != nil {
		out = append(out, html.Fact{Label: "exact optimum, gaps down to the grid", Value: "mean lag " + formatSeconds(f.Expected.MeanLag) + costSuffix(b, f.Expected)})
	}
	if r.MarginalPrice > 0 {
		out = append(out, html.Fact{Label: "marginal price", Value: formatSeconds(r.MarginalPrice) + " of mean lag", Note: "what one more poll per item buys"})
	}
	return out
}

// budgetPage builds the part's frontier and slider from its sweep.
func budgetPage(p *reportPart, id string, plan optimize.Budget) (html.Budget, error) {
	b := html.Budget{Warnings: p.sweepWarnings, Start: -1}
	if p.sec.Clock != nil {
		b.Warnings = append(slices.Clip(b.Warnings), "the budgets here are spent by age-indexed schedules; the wall-clock schedule above is planned at "+budgetText(plan)+" only (pollfit plan --mean-polls M for another budget)")
	}
	what := "stuck polls (polls of an item that never settles)"
	if p.byMean {
		what = "mean polls per item"
	}
	b.Intro = fmt.Sprintf("The derived schedule, the exact optimum and each family re-derived and re-tuned at %d budgets of %s, scored on the same held-out rows: the frontier of mean and p95 lag against what the polls cost. Move the slider to see the schedule at each budget.",
		len(p.budgets), what)
	stuckX := func(r SweepRow) float64 { return r.StuckPolls }
	meanX := func(r SweepRow) float64 { return r.MeanPolls }
	meanY := func(r SweepRow) float64 { return r.MeanLag }
	p95Y := func(r SweepRow) float64 { return r.P95Lag }
	charts := []struct {
		x, y         func(SweepRow) float64
		xLabel, name string
		yLabel       string
	}{
		{stuckX, meanY, "stuck polls", "Mean lag against stuck polls", "mean lag (s)"},
		{stuckX, p95Y, "stuck polls", "p95 lag against stuck polls", "p95 lag (s)"},
		{meanX, meanY, "mean polls per item", "Mean lag against mean polls", "mean lag (s)"},
		{meanX, p95Y, "mean polls per item", "p95 lag against mean polls", "p95 lag (s)"},
	}
	derived := "pollfit"
	if p.sec.Derived.Result.Method == "exact" {
		derived = "exact"
	}
	// The derived schedule's row at each budget.
	var steps []SweepRow
	for _, r := range p.sweep {
		if r.Schedule == derived && r.Kind != kindUser {
			steps = append(steps, r)
		}
	}
	var ats []func(x, y float64) (float64, float64)
	for i, c := range charts {
		svg, err := plot.SweepSVG(curvesOf(p.sweep, c.x, c.y), plot.SweepOptions{Title: c.name, XLabel: c.xLabel, YLabel: c.yLabel}, 14*vg.Centimeter, 10*vg.Centimeter)
		if err != nil {
			return b, err
		}
		b.Charts = append(b.Charts, html.Figure{ID: fmt.Sprintf("%s-chart-%d", id, i), SVG: template.HTML(html.CompactSVG(svg.Data))})
		ats = append(ats, svg.At)
	}
	var lagRows []report.Row
	for _, r := range steps {
		v := r.MeanLag
		lagRows = append(lagRows, report.Row{MeanLag: &v})
	}
	lag := report.LagFormat(lagRows)
	// The slider's time axis: log when the polls span more than two
	// decades, as the timeline's.
	horizon := p.sec.Derived.Result.Options.Horizon.Seconds()
	first := horizon
	for _, r := range steps {
		fixed, from, clock := plot.FixedPolls(r.schedule)
		if clock != "" {
			fixed = append(fixed, from)
		}
		for _, t := range fixed {
			if t > 0 {
				first = math.Min(first, t.Seconds())
				break
			}
		}
	}
	logAxis := first > 0 && horizon/first > 100
	lo := first / math.Sqrt(10)
	pos := func(t float64) float64 {
		if !logAxis {
			return t / horizon
		}
		if t <= lo {
			return 0
		}
		return math.Log(t/lo) / math.Log(horizon/lo)
	}
	b.Axis = axisTicks(lo, horizon, logAxis, pos)
	b.Table = html.Table{Head: []string{"budget", "mean polls", "mean lag", "p95 lag", "exact mean lag", "best family", "schedule"}, Mark: -1, Wrap: 6,
		Caption: "The derived schedule at each budget, scored on the held-out rows"}
	for i, r := range steps {
		bud := p.budgets[i]
		label := budgetText(bud)
		exact, fam := sweepPeers(p.sweep, r.Budget)
		figs := []html.Fact{
			{Label: "mean lag", Value: lag(r.MeanLag), Note: "p95 " + lag(r.P95Lag) + ", median " + lag(r.MedianLag)},
			{Label: "polls", Value: fmt.Sprintf("%.3g stuck, %.3g mean per item", r.StuckPolls, r.MeanPolls)},
			{Label: "caught", Value: fmt.Sprintf("%.1f%%", 100*r.Caught)},
		}
		exactText, famText := "-", "-"
		if exact != nil && derived != "exact" {
			exactText = lag(exact.MeanLag)
			figs = append(figs, html.Fact{Label: "exact optimum", Value: "mean lag " + exactText})
		}
		if fam != nil {
			famText = fmt.Sprintf("%s %s", fam.Schedule, lag(fam.MeanLag))
			figs = append(figs, html.Fact{Label: "best family", Value: fmt.Sprintf("%s: mean lag %s", fam.Schedule, lag(fam.MeanLag)),
				Note: fmt.Sprintf("(the derived schedule's is %s of it)", timesRatio(r.MeanLag, fam.MeanLag))})
		}
		st := html.Step{Label: label, Spec: r.Spec, Figures: figs}
		last := -1.0
		// A wall-clock phase polls at ages that differ from item to item:
		// a span of the axis, not lines (issue 14).
		fixed, from, clock := plot.FixedPolls(r.schedule)
		for _, t := range fixed {
			x := math.Round(pos(t.Seconds())*1000) / 1000
			if x != last {
				st.Polls = append(st.Polls, x)
				last = x
			}
		}
		if clock != "" {
			st.Clock = &html.ClockSpan{From: math.Round(pos(from.Seconds())*1000) / 1000, To: 1, Text: clock}
		}
		for k, c := range charts {
			x, y := c.x(r), c.y(r)
			if !(x > 0 && y > 0) || math.IsNaN(y) {
				st.Marks = append(st.Marks, nil)
				continue
			}
			px, py := ats[k](x, y)
			st.Marks = append(st.Marks, []float64{math.Round(px*10) / 10, math.Round(py*10) / 10})
		}
		b.Steps = append(b.Steps, st)
		if bud == plan && b.Start < 0 {
			b.Start = i
		}
		b.Table.Rows = append(b.Table.Rows, []string{label, fmt.Sprintf("%.3g", r.MeanPolls),
			lag(r.MeanLag), lag(r.P95Lag), exactText, famText, r.Spec})
	}
	if b.Start < 0 {
		b.Start = len(b.Steps) / 2
	}
	b.Table.Mark = b.Start
	return b, nil
}

// sweepPeers returns, at the sweep's budget value v, the exact optimum's
// row and the tuned family with the least mean lag among those at the
// same cost and coverage as the derived schedule (SweepRow.Comparable).
func sweepPeers(rows []SweepRow, v float64) (exact, fam *SweepRow) {
	for i := range rows {
		r := &rows[i]
		if r.Budget != v || r.Caught == 0 || math.IsNaN(r.MeanLag) {
			continue
		}
		switch r.Kind {
		case kindExact:
			exact = r
		case kindFamily:
			if !r.Comparable() {
				continue
			}
			if fam == nil || r.MeanLag < fam.MeanLag {
				fam = r
			}
		}
	}
	return exact, fam
}

// timesRatio writes a/b as "×0.42".
func timesRatio(a, b float64) string {
	if b == 0 {
		return "-"
	}
	return "×" + ratioText(a/b)
}

// axisTicks labels the slider's time axis: on a log axis at 1, 10, 100 …
// of the clock's units that fall in [lo, h], on a linear one at fifths of
// the horizon.
func axisTicks(lo, h float64, logAxis bool, pos func(float64) float64) []html.Tick {
	var out []html.Tick
	if !logAxis {
		for k := 0; k <= 4; k++ {
			t := h * float64(k) / 4
			out = append(out, html.Tick{At: math.Round(pos(t)*1000) / 1000, Label: formatSeconds(t)})
		}
		return out
	}
	for _, t := range []float64{1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 0.1, 1, 10, 60, 600, 3600, 36000, 86400, 864000} {
		if t >= lo && t <= h {
			out = append(out, html.Tick{At: math.Round(pos(t)*1000) / 1000, Label: formatSeconds(t)})
		}
	}
	return out
}

// phasesText names a derived schedule's form: its number of phases, or
// the method when it is not phased ("exact").
func phasesText(r *optimize.Result) string {
	if r.Method != "phased" {
		return r.Method
	}
	if r.Phases == 0 { // the start and explicit gaps: "at 10s", "at 3.2s, 6.8s"
		n := r.Schedule.StuckPolls()
		return countOf(n, "poll") + ", no phases"
	}
	return fmt.Sprintf("%d %s", r.Phases, plural(r.Phases, "phase"))
}

// countOf writes n with thousands separators and the noun, plural unless
// n is 1: "1 item", "12,000 items".
func countOf(n int, noun string) string { return thousands(n) + " " + plural(n, noun) }

// meanPollsText writes a mean number of polls per item to 3 significant
// digits: "8.37 mean polls", "1 mean poll".
func meanPollsText(v float64) string {
	s := fmt.Sprintf("%.3g", v)
	if s == "1" {
		return s + " mean poll"
	}
	return s + " mean polls"
}

func plural(n int, what string) string {
	if n == 1 {
		return what
	}
	return what + "s"
}

// subsampleNote is ", compared on a subsample of N" for a distance
// computed on a KS subsample (fit.KS.Subsample), else "".
func subsampleNote(k fit.KS) string {
	if k.Subsample == 0 {
		return ""
	}
	return ", compared on a subsample of " + thousands(k.Subsample)
}
