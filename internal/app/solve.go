package app

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/pollfit/pollfit/fit"
	"github.com/pollfit/pollfit/ingest"
	"github.com/pollfit/pollfit/optimize"
)

// Solve says how to derive a schedule from a distribution: the budget, the
// solver options, the number of phases and the method.
type Solve struct {
	Budget  optimize.Budget
	Options optimize.Options
	// Phases is the number of phases of the schedule (1 to
	// optimize.MaxPhases), PhasesAuto or PhasesExact.
	Phases int
	Method string // "exact" (default) or "sqrt"
}

// Phases values beyond a count.
const (
	PhasesAuto  = 0
	PhasesExact = -1
)

// ParsePhases reads --phases: a count, "auto" or "exact".
func ParsePhases(s string) (int, error) {
	switch s {
	case "auto":
		return PhasesAuto, nil
	case "exact":
		return PhasesExact, nil
	}
	k, err := strconv.Atoi(s)
	if err != nil || k < 1 || k > optimize.MaxPhases {
		return 0, Usagef("--phases %q: want 1 to %d, auto or exact", s, optimize.MaxPhases)
	}
	return k, nil
}

// ParseDurations reads a comma-separated list of durations for the flag.
func ParseDurations(flag, list string) ([]time.Duration, error) {
	if list == "" {
		return nil, nil
	}
	var out []time.Duration
	for _, f := range strings.Split(list, ",") {
		d, err := time.ParseDuration(strings.TrimSpace(f))
		if err != nil || d <= 0 {
			return nil, Usagef("--%s %q: want positive durations such as 1s,2s,5s", flag, f)
		}
		out = append(out, d)
	}
	return out, nil
}

// ParseDuration parses the value of --flag: a Go duration such as 15m or
// 1h30m, or a bare number of seconds such as 900.
func ParseDuration(flag, s string) (time.Duration, error) {
	v, err := ingest.ParseSeconds(s, 1)
	if err != nil || v > math.MaxInt64/1e9 {
		if strings.HasPrefix(strings.TrimSpace(s), "-") {
			return 0, Usagef("--%s %q: want a duration of 0 or more, such as 15m, or seconds such as 900", flag, s)
		}
		return 0, Usagef("--%s %q: want a duration such as 15m, or seconds such as 900", flag, s)
	}
	return time.Duration(math.Round(v * 1e9)), nil
}

// check reports usage errors in the settings.
func (s Solve) check() error {
	b := s.Budget
	// Checked here, before the input is read (a new user's -n -5 read
	// every row first, then said "invalid budget" without the flag).
	if b.StuckPolls < 0 {
		return Usagef("--budget %d: want a positive number of stuck polls", b.StuckPolls)
	}
	if b.MeanPolls < 0 || math.IsNaN(b.MeanPolls) || math.IsInf(b.MeanPolls, 0) {
		return Usagef("--mean-polls %g: want a positive number of polls per item", b.MeanPolls)
	}
	if b.PollCost < 0 || math.IsNaN(b.PollCost) || math.IsInf(b.PollCost, 0) {
		return Usagef("--poll-cost %g: want positive seconds of lag a poll is worth", b.PollCost)
	}
	if b.StuckPolls == 0 && b.MeanPolls == 0 && b.PollCost == 0 {
		return Usagef("give a budget: --budget N (polls of an item that never settles), --mean-polls M (expected polls per item), both, or --poll-cost SECONDS")
	}
	if b.PollCost > 0 && (b.StuckPolls > 0 || b.MeanPolls > 0) {
		return Usagef("--poll-cost prices polls instead of a budget: give it alone, without --budget or --mean-polls")
	}
	if s.Method != "" && s.Method != "exact" && s.Method != "sqrt" {
		return Usagef("--method %q: want exact or sqrt", s.Method)
	}
	return nil
}

// withHorizon returns s with its horizon set for the settle times of
// sample: the one given, or one from the data, the nice duration above the
// 99th percentile of the settle times among items that settle
// (optimize.HorizonAbove; with pending items, of the Kaplan–Meier
// estimate: fit.SettledQuantile), with a note that says so ("" for a given
// horizon).
func (s Solve) withHorizon(sample *ingest.Sample) (Solve, string, error) {
	if s.Options.Horizon > 0 {
		return s, "", nil
	}
	q, n := fit.SettledQuantile(sample, optimize.HorizonQuantile)
	if n == 0 {
		return s, "", errors.New("no settled item to choose a horizon from: give --horizon")
	}
	s.Options.Horizon = optimize.HorizonAbove(q)
	of := "settle times"
	if sample.CensoredCount() > 0 {
		of = "the Kaplan–Meier estimate among items that settle"
	}
	return s, horizonNote(s.Options.Horizon, q, of), nil
}

// withModelHorizon is withHorizon for a model: its 99th percentile.
func (s Solve) withModelHorizon(d optimize.Distribution) (Solve, string, error) {
	if s.Options.Horizon > 0 {
		return s, "", nil
	}
	h, q, err := optimize.HorizonFor(d)
	if err != nil {
		return s, "", solveError(err)
	}
	s.Options.Horizon = h
	return s, horizonNote(h, q, "the model"), nil
}

func horizonNote(h time.Duration, q float64, of string) string {
	return fmt.Sprintf("horizon %s from the data: the 99th percentile of %s, %s, rounded up to a nice duration; --horizon sets it",
		optimize.FormatDuration(h), of, formatSeconds(q))
}

// maxDurationSeconds bounds the seconds formatSeconds writes as a
// duration: 10⁹ s (31.7 years), well inside time.Duration's 292 years
// (--poll-cost 1e10 overflowed it: a cost of -2346317h47m53.7s).
const maxDurationSeconds = 1e9

// formatSeconds writes seconds as a duration with 3 significant digits:
// 5.31s, 742ms, 12m30s; 0 as 0s; above maxDurationSeconds, or not a
// positive number, as seconds in exponent form: 1e+10s.
func formatSeconds(v float64) string {
	if v == 0 {
		return "0s"
	}
	if !(v > 0) || v > maxDurationSeconds {
		return strconv.FormatFloat(v, 'g', 3, 64) + "s"
	}
	// 3 significant digits: a step of a power of ten nanoseconds, at
	// least 1 ns, so that the result is an exact duration.
	step := time.Duration(max(1, math.Round(math.Pow(10, math.Floor(math.Log10(v*1e9))-2))))
	return optimize.FormatDuration(time.Duration(math.Round(v*1e9/float64(step))) * step)
}

// derived is a solved schedule with what plan reports beside it.
type derived struct {
	Result *optimize.Result
	Exact  *optimize.Result // the exact optimum at the same budget and min gap
	// Free is the exact optimum with gaps down to the resolution, when the
	// min gap is coarser; nil otherwise or when it failed.
	Free *optimize.Result
	Sqrt *optimize.Result // the √ rule at the same budget; nil when it failed
	// Simple is the price of simplicity, K = 1 … optimize.MaxPhases
	// (full solves of phased schedules only).
	Simple []optimize.Simplicity
	// Unbounded is the best schedule of up to optimize.MaxPhases phases
	// ending anywhere, when --nice-bounds restricts the phase ends (full
	// solves of phased schedules only): what the bounds cost.
	Unbounded *optimize.Result
}

// solve derives the schedule for d under s; full adds what plan reports
// beside it (the √ rule, the price of simplicity, the exact optimum
// without the min gap) and the warnings that name a binding constraint.
func (s Solve) solve(d optimize.Distribution, full bool) (*derived, error) {
	// One problem: the grid model is built and the exact optimum solved
	// once for every solver below.
	pb, err := optimize.NewProblem(d, s.Budget, s.Options)
	if err != nil {
		return nil, solveError(err)
	}
	out := &derived{}
	switch {
	case s.Method == "sqrt":
		out.Result, err = pb.SqrtRule()
	case s.Phases == PhasesExact:
		out.Result, err = pb.Exact()
	case full: // the price of simplicity holds the schedule of every K
		if out.Simple, err = pb.PriceOfSimplicity(); err == nil {
			out.Result, err = optimize.PickPhases(out.Simple, s.Phases)
		}
	default:
		out.Result, err = pb.Phased(s.Phases)
	}
	if err != nil {
		return nil, solveError(err)
	}
	res := out.Result
	if res.Method == "phased" {
		if w := droppedGaps(res.Options); w != "" {
			res.Warnings = append(res.Warnings, w)
		}
	}
	if out.Exact, err = pb.Exact(); err != nil {
		out.Exact = nil
	}
	if !full {
		return out, nil
	}
	if res.Method != "sqrt" {
		if sq, err := pb.SqrtRule(); err == nil {
			out.Sqrt = sq
		}
	}
	if o := res.Options; o.MinGap > o.Resolution {
		if free, err := pb.WithMinGap(o.Resolution); err == nil {
			if ex, err := free.Exact(); err == nil {
				out.Free = ex
			}
		}
	}
	if res.Method == "phased" && res.Options.NiceBounds != nil {
		if ub, err := pb.WithNiceBounds(nil).Phased(optimize.MaxPhases); err == nil {
			out.Unbounded = ub
		}
	}
	res.Warnings = append(res.Warnings, out.binding(s)...)
	return out, nil
}

// horizonCutShare is the share of the settling items a horizon may leave
// after it before plan warns: the default horizon leaves 1%.
const horizonCutShare = 0.05

// horizonCut warns when horizon h comes before more than horizonCutShare
// of the items that settle (beyond: their share settling after h): they
// are caught only by the stuck polls after it, and the mean lag, taken
// over the items caught by h, leaves them out. "" otherwise.
func horizonCut(beyond float64, h time.Duration) string {
	if !(beyond > horizonCutShare) {
		return ""
	}
	return fmt.Sprintf("the horizon %s comes before %.3g%% of the settles: the mean lag leaves those items out, and only the stuck polls after it find them; without --horizon it follows the data",
		optimize.FormatDuration(h), 100*beyond)
}

// pendingShare is the share of items the fit may have still pending at
// a horizon taken from the data before plan, report and export say that
// the client stops polling while they are: the default horizon, above
// the 99th percentile of the settles, leaves about 1% of them.
const pendingShare = 0.01

// horizonCheck says, for a horizon taken from the data (or a model), how
// many items the fit has still pending at it: the client the schedule
// is shipped in stops polling there (backoff.Stop in the exported Go).
// JSON keys are part of plan's output (horizon_check).
type horizonCheck struct {
	Horizon float64 `json:"horizon_s"`
	From    string  `json:"from"` // "data", "model", or "given"
	// Pending is the share of items the fit has not settled by the
	// horizon: its tail past it, and those it has never settling.
	Pending float64 `json:"pending_share"`
	// SettleLater is the share of the settles of the rows fitted (or of
	// the model) that come after the horizon, PendingOlder the share of
	// the rows fitted still pending at an older age.
	SettleLater  float64 `json:"settle_later_share"`
	PendingOlder float64 `json:"pending_older_share,omitempty"`
	Warning      string  `json:"warning,omitempty"`
}

// newHorizonCheck returns the check of horizon h, from the data (or a
// model, from says which; "given" for --horizon), where the fit has the
// share pending still pending, with the warning when from is not "given"
// and pending is above pendingShare: a segment's 5 s horizon from the
// data became backoff.Stop after 5 s in the exported code while its fit
// had 4.5% of its items pending then, and only "horizon 5s from the
// data" was said. later and older are the data's shares (see
// horizonCheck).
func newHorizonCheck(h time.Duration, from string, pending, later, older float64) *horizonCheck {
	c := &horizonCheck{Horizon: h.Seconds(), From: from, Pending: pending, SettleLater: later, PendingOlder: older}
	if from == "given" || !(pending > pendingShare) {
		return c
	}
	of := "settles"
	if from == "model" {
		of = "model's settles"
	}
	data := fmt.Sprintf("%s of the %s come after it", pct(later), of)
	if later == 0 {
		data = fmt.Sprintf("none of the %s come after it", of)
	}
	if older > 0 {
		data += fmt.Sprintf(", and %s of the rows were still pending at an older age", pct(older))
	}
	c.Warning = fmt.Sprintf("the client stops polling at %s, the horizon from the %s, while the fit has %s of items still pending then (%s): --horizon sets a later one",
		optimize.FormatDuration(h), from, pct(pending), data)
	return c
}

// pendingOlder returns the share of the rows of s still pending at an age
// of h seconds or more.
func pendingOlder(s *ingest.Sample, h float64) float64 {
	var all, old float64
	for i, t := range s.Times {
		w := s.Weight(i)
		all += w
		if s.IsCensored(i) && t >= h {
			old += w
		}
	}
	if all == 0 {
		return 0
	}
	return old / all
}

// horizonFarFactor is how many times the last settle a given horizon
// may be before plan asks whether it was meant in another unit.
const horizonFarFactor = 100

// horizonFar warns when a given horizon h is more than horizonFarFactor
// times the last settle time last (seconds): a bare number is seconds,
// and --horizon 300 for latencies in ms is 5 minutes, which leaves most
// of the budget unspent past the data. "" otherwise.
func horizonFar(h time.Duration, last float64) string {
	if !(last > 0) || h.Seconds() <= horizonFarFactor*last {
		return ""
	}
	return fmt.Sprintf("the horizon %s is %.0f× the last settle time (%s): a bare --horizon number is seconds; if it was meant in the data's unit, give the unit (such as --horizon %s)",
		optimize.FormatDuration(h), h.Seconds()/last, formatSeconds(last), optimize.FormatDuration(time.Duration(math.Round(h.Seconds()*1e6))))
}

// settledBeyond returns the share of the sample's settled weight with
// settle times after h seconds (0 when nothing settled), and the last
// settle time.
func settledBeyond(s *ingest.Sample, h float64) (share, last float64) {
	var all, after float64
	for i, t := range s.Times {
		if s.IsCensored(i) {
			continue
		}
		w := s.Weight(i)
		all += w
		last = max(last, t)
		if t > h {
			after += w
		}
	}
	if all == 0 {
		return 0, last
	}
	return after / all, last
}

// modelBeyond is settledBeyond for a model: 1 − F(h)/F(∞), F(∞) read at
// 10¹² s as optimize.HorizonFor does.
func modelBeyond(d optimize.Distribution, h float64) float64 {
	top := d.CDF(1e12)
	if !(top > 0) {
		return 0
	}
	return max(0, 1-d.CDF(h)/top)
}

// Thresholds of the binding-constraint warnings: a schedule is far from
// the optimum beyond optimize.AutoRatio, a constraint binds when it costs
// more than bindRatio, and a budget is left unspent below unspentShare of
// it.
const (
	bindRatio    = 1.02
	unspentShare = 0.9
)

// binding explains, when the derived schedule is far from the exact
// optimum with gaps down to the resolution or leaves budget unspent, which
// constraint binds and the flag that loosens it: the min gap (the exact
// optimum at the min gap against the free one), the nice bounds (the best
// schedule of any number of phases ending at them against the best ending
// anywhere), the nice gaps (the best schedule of any number of phases of
// them against the exact optimum at the same min gap) and the phases
// (this schedule against the best of more phases). Schedules compare on
// what the solvers minimise: the mean lag under a budget, the cost under
// a poll cost (optimize.Budget.Ratio).
func (d *derived) binding(s Solve) []string {
	r, ex := d.Result, d.Exact
	if ex == nil || r.Method == "sqrt" {
		return nil
	}
	free := ex
	if d.Free != nil {
		free = d.Free
	}
	b := s.Budget
	if b.PollCost == 0 && r.Expected.MeanLag == 0 {
		return nil // every item settles at a poll: nothing left to gain (issue 15)
	}
	far := b.Ratio(r.Expected, free.Expected) > optimize.AutoRatio
	var unspent []string
	if b.StuckPolls > 0 && float64(r.Expected.StuckPolls) < unspentShare*float64(b.StuckPolls) {
		unspent = append(unspent, fmt.Sprintf("%d of %d stuck %s", b.StuckPolls-r.Expected.StuckPolls, b.StuckPolls, plural(b.StuckPolls, "poll")))
	}
	if b.MeanPolls > 0 && r.Expected.MeanPolls < unspentShare*b.MeanPolls {
		unspent = append(unspent, fmt.Sprintf("%.3g of %.4g mean polls", b.MeanPolls-r.Expected.MeanPolls, b.MeanPolls))
	}
	if !far && len(unspent) == 0 {
		return nil
	}
	head := fmt.Sprintf("this schedule's %s is ×%s the exact optimum's (%s)", objectiveName(b),
		ratioText(b.Ratio(r.Expected, free.Expected)), formatSeconds(b.Objective(free.Expected)))
	if len(unspent) > 0 {
		head += " and it leaves " + strings.Join(unspent, " and ") + " unspent"
	}
	o := r.Options
	type cause struct {
		ratio float64
		text  string
	}
	var causes []cause
	if d.Free != nil {
		if f := b.Ratio(ex.Expected, free.Expected); f > bindRatio {
			smallest := free.Polls[0]
			for i := 1; i < len(free.Polls); i++ {
				smallest = min(smallest, free.Polls[i]-free.Polls[i-1])
			}
			causes = append(causes, cause{f, fmt.Sprintf("the min gap %s binds (×%s: the optimum uses gaps down to %s): --min-gap %s",
				optimize.FormatDuration(o.MinGap), ratioText(f), optimize.FormatDuration(smallest), optimize.FormatDuration(max(o.Resolution, optimize.NiceFloor(smallest))))})
		}
	}
	if r.Method == "phased" && len(d.Simple) > 0 {
		best := -1
		for i, x := range d.Simple {
			if x.Err == nil && (best < 0 || x.Ratio < d.Simple[best].Ratio) {
				best = i
			}
		}
		if best >= 0 {
			bestRatio := d.Simple[best].Ratio // of the best ending at the bounds, when given
			gridRatio := bestRatio            // of the best ending anywhere
			if ub := d.Unbounded; ub != nil {
				gridRatio = min(gridRatio, b.Ratio(ub.Expected, ex.Expected))
				if f := ratio(bestRatio, gridRatio); f > bindRatio {
					causes = append(causes, cause{f, fmt.Sprintf("the nice bounds bind (×%s: the best of up to %d phases ending at them against the best ending anywhere, %s): --nice-bounds takes other bounds; without it phases end at any poll",
						ratioText(f), optimize.MaxPhases, formatSeconds(b.Objective(ub.Expected)))})
				}
			}
			if dropped := o.DroppedGaps(); gridRatio > bindRatio && len(dropped) > 0 {
				causes = append(causes, cause{gridRatio, fmt.Sprintf("the resolution %s binds (×%s: the best of up to %d phases of the nice gaps it keeps against the exact optimum at the same min gap; %s %s not multiples of it): %s, --phases exact gives the optimum itself",
					optimize.FormatDuration(o.Resolution), ratioText(gridRatio), optimize.MaxPhases, durationList(dropped), isAre(len(dropped)), resolutionFix(o))})
			} else if gridRatio > bindRatio {
				causes = append(causes, cause{gridRatio, fmt.Sprintf("the nice gaps bind (×%s: the best of up to %d phases of them against the exact optimum at the same min gap): --nice-gaps takes other gaps, --phases exact gives the optimum itself",
					ratioText(gridRatio), optimize.MaxPhases)})
			}
			if f := b.Ratio(r.Expected, d.Simple[best].Result.Expected); f > bindRatio {
				// The fewest phases within AutoSlack of the best of them.
				k := d.Simple[best].K
				for _, x := range d.Simple {
					if x.Err == nil && x.Ratio <= (1+optimize.AutoSlack)*bestRatio {
						k = x.K
						break
					}
				}
				causes = append(causes, cause{f, fmt.Sprintf("the number of phases binds (×%s against %d phases): --phases %d", ratioText(b.Ratio(r.Expected, d.Simple[k-1].Result.Expected)), k, k)})
			}
		}
	}
	slices.SortStableFunc(causes, func(a, b cause) int { return cmp.Compare(b.ratio, a.ratio) })
	if len(causes) == 0 {
		return []string{head + ": no single constraint explains it"}
	}
	var texts []string
	for _, c := range causes {
		texts = append(texts, c.text)
	}
	return []string{head + ": " + strings.Join(texts, "; ")}
}

// droppedGaps warns when nice gaps of resolved options o drop out of a
// phased schedule's candidates for not being multiples of the
// resolution (a --resolution given, gaps finer than the default grid or
// --nice-gaps the default grid cannot divide), naming them and the
// --resolution that takes them; "" when none drop.
func droppedGaps(o optimize.Options) string {
	dropped := o.DroppedGaps()
	if len(dropped) == 0 {
		return ""
	}
	return fmt.Sprintf("the resolution %s leaves out the nice gaps %s (not multiples of it): %s",
		optimize.FormatDuration(o.Resolution), durationList(dropped), resolutionFix(o))
}

// resolutionFix names the --resolution that takes every nice gap of
// resolved options o (between the min gap, or the resolution when
// larger, and the horizon or max gap):
// the default one when it does (a --resolution was given), else the
// largest nice duration at most horizon/optimize.ResolutionCells
// dividing the horizon and the gaps, when its grid is not too fine.
func resolutionFix(o optimize.Options) string {
	var gaps []time.Duration
	for _, g := range o.NiceGaps {
		if g >= max(o.MinGap, o.Resolution) && g <= o.Horizon && (o.MaxGap == 0 || g <= o.MaxGap) {
			gaps = append(gaps, g)
		}
	}
	divides := func(r time.Duration) bool {
		if o.Horizon%r != 0 {
			return false
		}
		for _, g := range gaps {
			if g%r != 0 {
				return false
			}
		}
		return true
	}
	d := o
	d.Resolution = 0
	if r := d.DefaultResolution(); r != o.Resolution && divides(r) {
		return fmt.Sprintf("--resolution %s takes them (or leave it out: that is the default here)", optimize.FormatDuration(r))
	}
	nice := optimize.NiceDurations(1, max(o.Horizon/optimize.ResolutionCells, 1))
	for i := len(nice) - 1; i >= 0; i-- {
		r := nice[i]
		if divides(r) && o.Horizon/r <= maxFixCells {
			return fmt.Sprintf("--resolution %s takes them", optimize.FormatDuration(r))
		}
	}
	return "a --resolution dividing them takes them"
}

// maxFixCells bounds the grid of the --resolution a warning suggests.
const maxFixCells = 1 << 20

// durationList joins durations with ", ".
func durationList(ds []time.Duration) string {
	parts := make([]string, len(ds))
	for i, d := range ds {
		parts[i] = optimize.FormatDuration(d)
	}
	return strings.Join(parts, ", ")
}

// isAre is the verb for n things.
func isAre(n int) string {
	if n == 1 {
		return "is"
	}
	return "are"
}

// solveError turns solver errors about the settings into usage errors.
func solveError(err error) error {
	if errors.Is(err, optimize.ErrOptions) || errors.Is(err, optimize.ErrInvalidBudget) {
		return &UsageError{err}
	}
	return err
}

// budgetText describes the budget for headings.
func budgetText(b optimize.Budget) string {
	var parts []string
	if b.StuckPolls > 0 {
		parts = append(parts, fmt.Sprintf("%d stuck %s", b.StuckPolls, plural(b.StuckPolls, "poll")))
	}
	if b.MeanPolls > 0 {
		parts = append(parts, fmt.Sprintf("%.4g mean polls per item", b.MeanPolls))
	}
	if b.PollCost > 0 {
		parts = append(parts, fmt.Sprintf("poll cost %.4gs of lag", b.PollCost))
	}
	return strings.Join(parts, ", ")
}
