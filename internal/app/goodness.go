package app

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/pollfit/pollfit/fit"
	"github.com/pollfit/pollfit/ingest"
	"github.com/pollfit/pollfit/optimize"
)

// lagCheck sets the derived schedule's expected mean lag (from the fitted
// model) beside the one realised on the rows it is scored on, and says
// why when the two are further apart than sampling error explains. JSON
// keys are part of plan's output.
//
// The yardstick is the standard error the fit itself implies for the
// gap between the two means. The realised mean over m caught held-out
// rows has sampling error sd/√m (the central limit theorem); the expected
// one, read from a fit to n_fit rows of which about n caught would be
// caught, has its own, which for a fit as good as the empirical
// distribution of those rows (a KDE; a parametric fit of the true family
// does better) is at most about sd/√n caught, so that
//
//	SE = sd(lag) · sqrt(1/m caught + 1/n caught),  sd from the model (optimize.ExpectByPoll)
//
// with n caught = the model's caught share × the rows fitted (the
// two-sample form, as for the held-out KS band, fit.KSBand). Without the
// second term a fit on 50 rows scored on 4950 called sampling noise 4.32
// standard errors. On the rows fitted (not held out), or for a model
// given without data, the second term is left out. The rows' own spread, RealisedSE, is
// shown too, but a misfit inflates it: one held-out row settling in a
// long gap the fit did not expect made it 0.23 s against the model's
// 0.0011 s and hid a mean lag 41 times the expected (an overfit 70-row
// segment).
// On a fit that matches the data the two agree (payments fixture: 0.0136
// and 0.0147 s).
type lagCheck struct {
	Expected float64 `json:"expected_mean_lag_s"`
	Realised float64 `json:"realised_mean_lag_s"`
	SE       float64 `json:"se_under_fit_s"` // the yardstick above
	// SEFit is the expected mean lag's own part of SE, sd/√(n caught) of
	// the rows fitted; 0 when left out.
	SEFit      float64 `json:"se_fit_s,omitempty"`
	RealisedSE float64 `json:"realised_se_s"` // sd of the rows' lags / sqrt(n caught)
	Z          float64 `json:"z"`             // (realised − expected) / SE
	Caught     float64 `json:"caught_rows"`
	// HeldOut is false when the rows scored on are the rows fitted
	// (--in-sample, binned input): then Realised flatters the fit.
	HeldOut bool `json:"held_out"`
	// Binned is true for binned input, scored on its bins' items spread
	// evenly over each bin: not raw times, so a gap beyond sampling error
	// is not warned about (the spread is the binning's, not the fit's).
	Binned bool `json:"binned,omitempty"`
	// From and To bound the stretch of polls whose lags differ most from
	// the expected ones in the gap's direction, seconds (the poll before
	// the stretch, and its last poll); GapThere is what they add to the
	// gap, seconds.
	// In JSON all three are there when there is a stretch (To > 0) and
	// none is otherwise: a stretch from age 0 has From 0 (MarshalJSON).
	From     float64 `json:"-"`
	To       float64 `json:"-"`
	GapThere float64 `json:"-"`
	Warning  string  `json:"warning,omitempty"`
}

// MarshalJSON writes c with gap_from_s, gap_to_s and gap_there_s when
// there is a stretch, all three, and none of them otherwise (omitempty
// alone dropped a stretch's start at age 0).
func (c lagCheck) MarshalJSON() ([]byte, error) {
	type plain lagCheck // without the method
	type stretch struct {
		From     float64 `json:"gap_from_s"`
		To       float64 `json:"gap_to_s"`
		GapThere float64 `json:"gap_there_s"`
	}
	v := struct {
		plain
		*stretch
	}{plain: plain(c)}
	if c.To > 0 {
		v.stretch = &stretch{c.From, c.To, c.GapThere}
	}
	return json.Marshal(v)
}

// lagSigmas is how many standard errors apart the expected and the
// realised mean lag may be before plan warns: 3, so that sampling error
// alone warns about once in 370 plans.
const lagSigmas = 3

// smallFit is the number of rows fitted below which a gap is put down to
// the fit following its rows' noise.
const smallFit = 1000

// heavyCensoring is the censored share above which a gap is put down to
// the tail resting on few settles.
const heavyCensoring = 0.2

// checkLag compares the derived schedule's expectation under d with its
// score sc on items (scored with ScoreOptions.LagSE), and places and
// explains a gap beyond lagSigmas standard errors; o are the settings the
// schedule was solved with (optimize.Result.Options).
func checkLag(d *fit.Density, r *optimize.Result, sc optimize.Score, items *optimize.Items, heldOut, binned bool, o optimize.Options) lagCheck {
	c := lagCheck{Expected: r.Expected.MeanLag, Realised: sc.MeanLag, RealisedSE: sc.MeanLagSE, Caught: sc.NCaught, HeldOut: heldOut, Binned: binned}
	if !sc.HasData || r.Schedule.Jitter.Kind != optimize.NoJitter || c.Caught < 2 {
		return c
	}
	exp, err := optimize.ExpectByPoll(r.Schedule, d, o)
	if err != nil {
		return c
	}
	var ce, cl, cq float64
	for _, p := range exp {
		ce += p.Caught
		cl += p.Lag
		cq += p.LagSq
	}
	if ce <= 0 {
		return c
	}
	m := cl / ce
	sd := math.Sqrt(math.Max(0, cq/ce-m*m))
	c.SE = sd / math.Sqrt(c.Caught)
	if fitCaught := ce * float64(d.N); heldOut && d.KS != nil && fitCaught > 0 {
		c.SEFit = sd / math.Sqrt(fitCaught)
		c.SE = math.Hypot(c.SE, c.SEFit)
	}
	gap := c.Realised - c.Expected
	if c.SE > 0 {
		c.Z = gap / c.SE
	}
	c.From, c.To, c.GapThere = gapStretch(exp, items.ByPoll(r.Schedule), gap)
	if !(math.Abs(gap) > lagSigmas*c.SE) || binned {
		return c
	}
	rows := "held-out rows"
	if !heldOut {
		rows = "rows fitted"
	}
	var why []string
	if k := d.HoldoutKS; k != nil && k.D > k.Band95 && k.D > fit.KSWarnFloor {
		why = append(why, fmt.Sprintf("the fit is far from the held-out data (KS %.3g, beyond its 95%% band %.3g; fitted CDF %s the data's over %s–%s)",
			k.D, k.Band95, side(k.Diff), formatSeconds(k.From), formatSeconds(k.To)))
	} else if k := d.KS; d.HoldoutKS == nil && k != nil && k.Band95 > 0 && k.D > k.Band95 && k.D > fit.KSWarnFloor {
		why = append(why, fmt.Sprintf("the fit is far from the data it was fitted on (KS %.3g, beyond its 95%% band %.3g; fitted CDF %s the data's over %s–%s)",
			k.D, k.Band95, side(k.Diff), formatSeconds(k.From), formatSeconds(k.To)))
	}
	for _, a := range d.Atoms {
		lo, hi := a.T-a.Width, a.T
		inGap := c.To > 0 && hi >= c.From && lo <= c.To
		inKS := d.HoldoutKS != nil && hi >= d.HoldoutKS.From && lo <= d.HoldoutKS.To
		if inGap || (inKS && len(why) > 0) {
			why = append(why, fmt.Sprintf("the %s %s sits where the gap comes from: try --atoms off", a.Kind(), a))
			break
		}
	}
	if d.N < smallFit {
		why = append(why, fmt.Sprintf("the fit rests on only %d rows and may follow their noise: fold small segments with --min-segment-rows, or use fewer --phases", d.N))
	}
	if d.N > 0 && float64(d.Censored) > heavyCensoring*float64(d.N) {
		why = append(why, fmt.Sprintf("%.0f%% of the rows fitted are censored: the tail rests on few settles", 100*float64(d.Censored)/float64(d.N)))
	}
	if len(why) == 0 {
		why = append(why, "no one cause stands out: compare other --fit-method or --bandwidth choices")
	}
	where := ""
	if c.To > 0 {
		sign := "+"
		if c.GapThere < 0 {
			sign = "−"
		}
		where = fmt.Sprintf(", %s%s of it from the polls after %s up to %s", sign, formatSeconds(math.Abs(c.GapThere)),
			formatSeconds(c.From), formatSeconds(c.To))
	}
	c.Warning = fmt.Sprintf("the mean lag on the %s, %s, is %.3g standard errors (%s) from the expected %s%s: more than sampling error explains; %s",
		rows, formatSeconds(c.Realised), math.Abs(c.Z), formatSeconds(c.SE), formatSeconds(c.Expected), where, strings.Join(why, "; "))
	return c
}

// gapStretch returns the stretch of consecutive poll intervals, (the poll
// before from, to], whose realised minus expected lag adds up to the most
// in the gap's direction (Kadane's maximum subarray), and what it adds to
// the gap, seconds. exp and got are per poll (optimize.PollShare), each
// normalised by its caught share so that they sum to the mean lags.
func gapStretch(exp, got []optimize.PollShare, gap float64) (from, to, there float64) {
	var ce, cg float64
	for _, p := range exp {
		ce += p.Caught
	}
	for _, p := range got {
		cg += p.Caught
	}
	if ce <= 0 || cg <= 0 || gap == 0 || len(exp) != len(got) {
		return 0, 0, 0
	}
	sign := math.Copysign(1, gap)
	best, cur := 0.0, 0.0
	start, bestA, bestB := 0, -1, -1
	for i := range got {
		v := sign * (got[i].Lag/cg - exp[i].Lag/ce)
		if cur <= 0 {
			cur, start = v, i
		} else {
			cur += v
		}
		if cur > best {
			best, bestA, bestB = cur, start, i
		}
	}
	if bestA < 0 {
		return 0, 0, 0
	}
	if bestA > 0 {
		from = got[bestA-1].At.Seconds()
	}
	return from, got[bestB].At.Seconds(), sign * best
}

func side(diff float64) string {
	if diff < 0 {
		return "below"
	}
	return "above"
}

// writeKSLine writes the section's distances between fit and data:
// in-sample on the rows fitted, and on the rows scored on when they are
// held out.
func writeKSLine(w io.Writer, s *section) {
	d := s.Density
	if d.KS == nil {
		return
	}
	fmt.Fprintf(w, "   fit vs data: KS distance %.3g on %s%d %s fitted", d.KS.D, ofSubsample(*d.KS), d.N, plural(d.N, "row"))
	if k := d.KS; k.Subsample > 0 && d.HoldoutKS == nil {
		fmt.Fprintf(w, " (the subsample's own 95%% band %.3g)", fit.DKWBand(float64(k.Subsample), 0.05))
	}
	if k := d.HoldoutKS; k != nil {
		fmt.Fprintf(w, ", %.3g on %s%d held out (95%% two-sample band %.3g)", k.D, ofSubsample(*k), k.Rows, k.Band95)
	}
	fmt.Fprintln(w)
}

// ofSubsample names the KS subsample a distance was computed on, to go
// before "N rows": "a subsample of 65536 of the ", or "the " when every
// row was compared. A large sample's distance is mostly the subsample's
// own sampling error once the fit is close (fit.KS.Subsample).
func ofSubsample(k fit.KS) string {
	if k.Subsample > 0 {
		return fmt.Sprintf("a subsample of %d of the ", k.Subsample)
	}
	return "the "
}

// writeLagCheck writes the realised mean lag beside the expected one, and
// the warning when they are too far apart.
func writeLagCheck(w io.Writer, s *section) {
	c := s.Lag
	if c == nil || c.Caught == 0 {
		return
	}
	rows := "held-out"
	if !c.HeldOut {
		rows = "in-sample"
	}
	fmt.Fprintf(w, "%s: mean lag %s on %s %s caught (±%s)", rows, formatSeconds(c.Realised),
		formatCount(c.Caught), pluralOf(c.Caught, "row"), formatSeconds(c.RealisedSE))
	if c.Expected > 0 {
		fmt.Fprintf(w, ", ×%.3f the expected", c.Realised/c.Expected)
	}
	if c.SE > 0 {
		fmt.Fprintf(w, ": %.1f standard errors (%s under the fit)", c.Z, formatSeconds(c.SE))
	}
	if c.Binned {
		fmt.Fprint(w, "; on binned items spread over their bins, not raw times")
	}
	fmt.Fprintln(w)
	if c.Warning != "" {
		fmt.Fprintf(w, "warning: %s\n", c.Warning)
	}
}

// pluralOf is plural for a count that may be a weight: singular for 1
// exactly.
func pluralOf(n float64, what string) string {
	if n == 1 {
		return what
	}
	return what + "s"
}

// formatCount writes a count of rows: whole, or, when weighted, to 3
// significant digits without an exponent below 10⁶ (19500, not 1.95e+04).
func formatCount(n float64) string {
	if n == math.Trunc(n) {
		return fmt.Sprintf("%.0f", n)
	}
	if a := math.Abs(n); a >= 100 && a < 1e6 {
		return strconv.FormatFloat(n, 'f', 0, 64)
	}
	return fmt.Sprintf("%.3g", n)
}

// scoreChecks scores the derived schedule on the test rows' items (the
// held-out rows, or the rows fitted when they are the same) with its lag's
// standard error, and checks its mean lag and mean polls against their
// expectation (see checkLag, checkPolls).
func scoreChecks(d *fit.Density, r *optimize.Result, items *optimize.Items, heldOut, weighted bool, o optimize.Options, seed uint64, rows, known, knownFit float64, b optimize.Budget) (*lagCheck, *pollsCheck) {
	if items == nil {
		return nil, nil
	}
	sc := optimize.ScoreSchedule(r.Schedule, items, optimize.ScoreOptions{Ages: []time.Duration{}, Seed: seed, LagSE: true})
	c := checkLag(d, r, sc, items, heldOut, weighted, o)
	return &c, checkPolls(d, d, r, sc, rows, known, knownFit, heldOut, weighted, b)
}

// Check is what plan's JSON says about a section's fit: its distances from
// the data and its warnings, and the derived schedule's expected and
// realised mean lag.
type Check struct {
	KS        *fit.KS   `json:"ks,omitempty"`         // on the rows fitted
	HoldoutKS *fit.KS   `json:"ks_holdout,omitempty"` // on the held-out rows scored on
	Warnings  []string  `json:"fit_warnings,omitempty"`
	Lag       *lagCheck `json:"mean_lag_check,omitempty"`
	// Polls is the derived schedule's expected and realised mean polls.
	Polls *pollsCheck `json:"mean_polls_check,omitempty"`
	// Horizon is the share the fit has pending at the horizon, where the
	// client stops polling.
	Horizon *horizonCheck `json:"horizon_check,omitempty"`
}

func checkOf(s *section) Check {
	d := s.Density
	return Check{KS: d.KS, HoldoutKS: d.HoldoutKS, Warnings: d.Warnings, Lag: s.Lag, Polls: s.Polls, Horizon: s.Horizon}
}

// pollsCheck sets the derived schedule's expected mean polls per item
// (under the fit: what a --mean-polls budget holds) beside those realised
// on the rows it is scored on, and says what drives a gap beyond
// pollSigmas standard errors: on a real log, --mean-polls 30 expected
// 25.9 polls and spent 18.9 per held-out item, because the fit's 1% of
// items pending at the horizon cost 1,080 stuck polls each. JSON keys are
// part of plan's output.
//
// An item caught by poll k (from 0) makes k+1 polls, and one still
// pending at the horizon all G, the stuck polls. With q_k the share the
// fit has caught by poll k (optimize.ExpectByPoll) and s = 1 − Σ q_k the
// share it leaves pending at the horizon, the polls per item N have
//
//	E[N] = Σ (k+1)·q_k + G·s,   Var N = Σ (k+1)²·q_k + G²·s − E[N]²
//
// and the yardstick is, as for the mean lag (lagCheck), the standard
// error of the gap between the realised and the expected mean:
//
//	SE = sd(N) · sqrt(1/m + 1/n)
//
// m and n counting the rows scored and fitted whose polls are known:
// settled, or pending at an age at or past the horizon (a row pending at
// a younger age might settle before it, or not). The second term is left
// out on the rows fitted (not held out). Stuck polls need no check of
// their own: every item the horizon leaves pending makes exactly G of
// them, on the rows as under the fit.
//
// With μ the mean polls of the items caught (E[N] = (1 − s)·μ + s·G) the
// gap splits in two:
//
//	realised − expected = (ŝ − s)·(G − μ) + (1 − ŝ)·(μ̂ − μ)
//
// the first from the share pending at the horizon, each such item
// costing G − μ polls more than one caught, the second from when the
// caught items settle; the warning names the larger.
type pollsCheck struct {
	Expected float64 `json:"expected_mean_polls"`
	Realised float64 `json:"realised_mean_polls"`
	SE       float64 `json:"se_under_fit"` // the yardstick above, polls
	Z        float64 `json:"z"`            // (realised − expected) / SE
	Rows     float64 `json:"rows"`         // rows scored
	Known    float64 `json:"rows_known"`   // m: those whose polls are known
	// KnownFit is n, the rows fitted whose polls are known; 0 when the
	// fit's term is left out.
	KnownFit   float64 `json:"rows_fitted_known,omitempty"`
	StuckPolls int     `json:"stuck_polls"` // G
	// PendingExpected and PendingRealised are s and ŝ, the shares
	// pending at the horizon under the fit and on the rows.
	PendingExpected float64 `json:"pending_at_horizon_expected"`
	PendingRealised float64 `json:"pending_at_horizon_realised"`
	// CaughtExpected and CaughtRealised are μ and μ̂, the mean polls of
	// an item caught.
	CaughtExpected float64 `json:"caught_polls_expected"`
	CaughtRealised float64 `json:"caught_polls_realised"`
	FromPending    float64 `json:"gap_from_pending"` // (ŝ − s)·(G − μ)
	FromCaught     float64 `json:"gap_from_caught"`  // (1 − ŝ)·(μ̂ − μ)
	HeldOut        bool    `json:"held_out"`
	// Binned is true for binned input, whose items are spread over their
	// bins: a gap is not warned about (see lagCheck.Binned).
	Binned  bool   `json:"binned,omitempty"`
	Warning string `json:"warning,omitempty"`
}

// pollSigmas is how many standard errors apart the expected and the
// realised mean polls may be before plan warns (as lagSigmas).
const pollSigmas = 3

// checkPolls compares the derived schedule r's expected mean polls under
// dist with its score sc on the rows scored (see pollsCheck): known and
// knownFit count the rows scored and fitted whose polls are known, b is
// the budget (the warning names a --mean-polls one), h the horizon, and d,
// when not nil, the fit whose rows may explain a gap (as in checkLag). It
// returns nil when the rows were not scored or r is jittered.
func checkPolls(d *fit.Density, dist optimize.Distribution, r *optimize.Result, sc optimize.Score, rows, known, knownFit float64, heldOut, binned bool, b optimize.Budget) *pollsCheck {
	if !sc.HasData || r.Schedule.Jitter.Kind != optimize.NoJitter {
		return nil
	}
	exp, err := optimize.ExpectByPoll(r.Schedule, dist, r.Options)
	if err != nil {
		return nil
	}
	g := float64(len(exp))
	var caught, e1, e2 float64
	for k, p := range exp {
		n := float64(k + 1)
		caught += p.Caught
		e1 += n * p.Caught
		e2 += n * n * p.Caught
	}
	s := max(0, 1-caught)
	e1 += g * s
	e2 += g * g * s
	v := e2 - e1*e1
	if v <= 1e-9*e2 {
		v = 0 // every item makes the same polls (one atom): rounding, not spread
	}
	sd := math.Sqrt(v)
	c := &pollsCheck{Expected: r.Expected.MeanPolls, Realised: sc.MeanPolls, Rows: rows, Known: known, StuckPolls: len(exp),
		PendingExpected: s, PendingRealised: max(0, 1-sc.Caught), HeldOut: heldOut, Binned: binned}
	if known > 0 {
		c.SE = sd / math.Sqrt(known)
		if heldOut && knownFit > 0 {
			c.KnownFit = knownFit
			c.SE = sd * math.Sqrt(1/known+1/knownFit)
		}
	}
	caughtPolls := func(mean, pending float64) float64 {
		if pending >= 1 {
			return 0
		}
		return (mean - pending*g) / (1 - pending)
	}
	c.CaughtExpected = caughtPolls(c.Expected, c.PendingExpected)
	c.CaughtRealised = caughtPolls(c.Realised, c.PendingRealised)
	gap := c.Realised - c.Expected
	c.FromPending = (c.PendingRealised - c.PendingExpected) * (g - c.CaughtExpected)
	c.FromCaught = gap - c.FromPending
	if c.SE > 0 {
		c.Z = gap / c.SE
	}
	if !(math.Abs(gap) > pollSigmas*c.SE) || c.SE == 0 || binned {
		return c
	}
	rowsName := "held-out rows"
	if !heldOut {
		rowsName = "rows fitted"
	}
	held := ""
	if b.MeanPolls > 0 {
		held = ", which the --mean-polls budget holds under the fit"
	}
	var why string
	if math.Abs(c.FromPending) >= math.Abs(c.FromCaught) {
		why = fmt.Sprintf("the fit leaves %s of items pending at the horizon %s, each making all %d polls against %.3g for an item caught, the %s %s (%s polls per item); what is beyond the horizon decides the spend: compare --fit-method choices, or give --horizon",
			pct(c.PendingExpected), optimize.FormatDuration(r.Options.Horizon), len(exp), c.CaughtExpected, rowsName, pct(c.PendingRealised), signed(c.FromPending))
	} else {
		when := "earlier"
		if c.CaughtRealised > c.CaughtExpected {
			when = "later"
		}
		why = fmt.Sprintf("the items caught settle %s than the fit says, after %.3g polls on the %s against %.3g under it (%s polls per item): compare other --fit-method or --bandwidth choices",
			when, c.CaughtRealised, rowsName, c.CaughtExpected, signed(c.FromCaught))
	}
	if d != nil && d.N < smallFit {
		why += fmt.Sprintf("; the fit rests on only %d rows", d.N)
	}
	if d != nil && d.N > 0 && float64(d.Censored) > heavyCensoring*float64(d.N) {
		why += fmt.Sprintf("; %.0f%% of the rows fitted are censored: the tail rests on few settles", 100*float64(d.Censored)/float64(d.N))
	}
	c.Warning = fmt.Sprintf("the mean polls per item on the %s, %.3g, are %.3g standard errors (%.3g) from the expected %.3g%s: %s",
		rowsName, c.Realised, math.Abs(c.Z), c.SE, c.Expected, held, why)
	return c
}

// pct writes a share as a percentage: 1.0%, 0.35%, 0.012%.
func pct(v float64) string {
	if v >= 0.01 || v == 0 {
		return fmt.Sprintf("%.1f%%", 100*v)
	}
	return fmt.Sprintf("%.2g%%", 100*v)
}

// signed writes v with its sign: +1.2, −7.4.
func signed(v float64) string {
	if v < 0 {
		return fmt.Sprintf("−%.3g", -v)
	}
	return fmt.Sprintf("+%.3g", v)
}

// knownPolls returns the weight of the rows of s whose polls under a
// schedule polling to the horizon h seconds are known (see pollsCheck):
// settled ones, and pending ones at an age of h or more.
func knownPolls(s *ingest.Sample, h float64) float64 {
	var n float64
	for i, t := range s.Times {
		if !s.IsCensored(i) || t >= h {
			n += s.Weight(i)
		}
	}
	return n
}

// writePollsCheck writes the realised mean polls per item beside the
// expected ones, and the warning when they are too far apart.
func writePollsCheck(w io.Writer, s *section) {
	c := s.Polls
	if c == nil {
		return
	}
	rows := "held-out"
	if !c.HeldOut {
		rows = "in-sample"
	}
	fmt.Fprintf(w, "%s: %s on %s %s", rows, meanPollsText(c.Realised), formatCount(c.Rows), pluralOf(c.Rows, "row"))
	if c.Expected > 0 {
		fmt.Fprintf(w, ", ×%.3f the expected", c.Realised/c.Expected)
	}
	if c.SE > 0 {
		fmt.Fprintf(w, ": %.1f standard errors (%.3g under the fit)", c.Z, c.SE)
	}
	fmt.Fprintln(w)
	if c.Warning != "" {
		fmt.Fprintf(w, "warning: %s\n", c.Warning)
	}
}
