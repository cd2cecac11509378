// Package report prints schedule scores as a table, JSON or CSV for the
// pollfit command.
package report

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/pollfit/pollfit/optimize"
)

// Row is one scored schedule as the commands print it. JSON keys are part
// of pollfit's interface: scripts read them.
type Row struct {
	// Segment names the rows scored: "all" (export.AllSegment) for all
	// items, else a value of the --segment column. With it, the rows of
	// every segment make one table.
	Segment    string    `json:"segment,omitempty"`
	Name       string    `json:"name"`
	Spec       string    `json:"spec"`
	PollsBy    PollsBy   `json:"polls_by"`
	StuckPolls float64   `json:"stuck_polls"`
	MeanPolls  *float64  `json:"mean_polls,omitempty"`
	MeanLag    *float64  `json:"mean_lag_s,omitempty"`
	MedianLag  *float64  `json:"median_lag_s,omitempty"`
	P95Lag     *float64  `json:"p95_lag_s,omitempty"`
	P99Lag     *float64  `json:"p99_lag_s,omitempty"`
	Caught     *float64  `json:"caught,omitempty"`
	Draws      int       `json:"draws,omitempty"`
	MeanLagCI  *float64  `json:"mean_lag_ci95_s,omitempty"`
	MeanPollCI *float64  `json:"mean_polls_ci95,omitempty"`
	Polls      []float64 `json:"polls,omitempty"` // poll times, seconds from age 0
	// Comparison says, in compare, sweep, plan and report, how the row
	// stands against pollfit's schedule; nil elsewhere.
	Comparison *Comparison `json:"comparison,omitempty"`
}

// Comparison is how a row stands against the schedule pollfit derives:
// whether it spends the same budget (within optimize.SpendTolerance, on
// the items it was tuned on) and catches as many of the items scored, so
// that its lag may be set beside that schedule's. Rows that are not
// comparable are never named the best family nor used in a headline.
type Comparison struct {
	Comparable bool `json:"comparable"`
	// Why says why the row is not comparable; "" when it is.
	Why string `json:"why,omitempty"`
	// Tuning says what a family's tuning changed beyond its base gap
	// to spend the budget; "" for the shape as written.
	Tuning string `json:"tuning,omitempty"`
	// Target is the spend the row is held to: the budget's stuck or mean
	// polls (or pollfit's own spend when it spends less).
	Target Spend `json:"target"`
	// Fitted is what the row spends where it is held to the target: on
	// the items fitted on, where the families are tuned (compare, sweep,
	// report), or for plan's fixed baseline under the fitted
	// distribution, as the derived schedule's mean polls are.
	Fitted Spend `json:"fitted"`
	// CaughtVsReference is the row's share caught minus pollfit's, on
	// the items scored: 0 when both catch the same items.
	CaughtVsReference float64 `json:"caught_vs_reference"`
}

// Spend is a number of polls: stuck polls, mean polls per item, or both.
type Spend struct {
	StuckPolls float64 `json:"stuck_polls,omitempty"`
	MeanPolls  float64 `json:"mean_polls,omitempty"`
}

// Apart reports whether the row is marked as not comparable.
func (r Row) Apart() bool { return r.Comparison != nil && !r.Comparison.Comparable }

// PollsBy is the polls made by each age, keyed by the age as the user wrote
// it, in the order given.
type PollsBy struct {
	Labels []string
	Values []float64
}

// MarshalJSON writes an object whose keys keep the order of the ages.
func (p PollsBy) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, l := range p.Labels {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(l)
		b.Write(k)
		b.WriteByte(':')
		b.WriteString(strconv.FormatFloat(p.Values[i], 'f', -1, 64))
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// UnmarshalJSON reads the object back (order as in the input).
func (p *PollsBy) UnmarshalJSON(data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	if _, err := dec.Token(); err != nil {
		return err
	}
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			return err
		}
		var v float64
		if err := dec.Decode(&v); err != nil {
			return err
		}
		p.Labels = append(p.Labels, k.(string))
		p.Values = append(p.Values, v)
	}
	return nil
}

// NewRow converts a score; labels name the score's ages as written.
// With withPolls the poll times are listed too.
func NewRow(sc optimize.Score, labels []string, polls []time.Duration) Row {
	r := Row{Name: sc.Name, Spec: sc.Spec, StuckPolls: sc.StuckPolls, Draws: sc.Draws}
	r.PollsBy = PollsBy{Labels: labels, Values: sc.PollsBy}
	if sc.HasData {
		// Lags are undefined (NaN) when no item is caught: left out.
		r.MeanPolls, r.MeanLag, r.Caught = ptr(sc.MeanPolls), ptr(sc.MeanLag), ptr(sc.Caught)
		r.MedianLag, r.P95Lag, r.P99Lag = ptr(sc.MedianLag), ptr(sc.P95Lag), ptr(sc.P99Lag)
		if sc.Draws > 1 {
			r.MeanLagCI, r.MeanPollCI = ptr(sc.MeanLagCI), ptr(sc.MeanPollCI)
		}
	}
	if polls != nil {
		r.Polls = make([]float64, len(polls))
		for i, p := range polls {
			// One division, correctly rounded: Duration.Seconds adds the
			// whole and the fractional seconds, which printed 10.851 s
			// as 10.850999999999999.
			r.Polls[i] = float64(p) / 1e9
		}
	}
	return r
}

// ptr returns a pointer to v, or nil for NaN (a figure with no value).
func ptr(v float64) *float64 {
	if math.IsNaN(v) {
		return nil
	}
	return &v
}

// Table writes rows as an aligned text table. Columns that need data are
// left out when no row has data. A note (e.g. "scored on 6,000 held-out
// items") heads the table when not empty.
func Table(w io.Writer, rows []Row, note string) error {
	if note != "" {
		fmt.Fprintln(w, note)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	head, cells := Cells(rows)
	fmt.Fprintln(tw, strings.Join(head, "\t")+"\t")
	for _, c := range cells {
		fmt.Fprintln(tw, strings.Join(c, "\t")+"\t")
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	// Specs below the table keep it narrow enough to read; the JSON and
	// CSV forms carry them whole.
	for _, r := range rows {
		spec := r.Spec
		if len(spec) > maxSpec {
			cut := strings.LastIndex(spec[:maxSpec], ",")
			spec = spec[:cut] + ", … (" + strconv.Itoa(strings.Count(r.Spec, ",")+1) + " items in all)"
		}
		if _, err := fmt.Fprintf(w, "  %-12s %s\n", r.Name+":", spec); err != nil {
			return err
		}
		if r.Polls != nil {
			fmt.Fprintf(w, "  %-12s %s\n", "", pollList(r.Polls))
		}
	}
	for _, r := range rows {
		if r.Apart() {
			if _, err := fmt.Fprintf(w, "  * %s: %s\n", r.Name, r.Comparison.Why); err != nil {
				return err
			}
		}
	}
	return nil
}

// Cells returns the head and the cells of the table Table writes: the
// schedule's name, the polls by each age, the stuck polls and, when the
// rows have data, mean polls and lags (in one unit, LagFormat) and the
// share caught.
func Cells(rows []Row) (head []string, cells [][]string) {
	data := len(rows) > 0 && rows[0].MeanPolls != nil
	head = append(head, "schedule")
	if len(rows) > 0 {
		for _, l := range rows[0].PollsBy.Labels {
			head = append(head, "by "+l)
		}
	}
	head = append(head, "stuck")
	if data {
		head = append(head, "mean polls", "mean lag", "median", "p95", "p99", "caught")
	}
	format := LagFormat(rows)
	secs := func(v *float64) string { // "-" for a lag with no value (nothing caught)
		if v == nil {
			return "-"
		}
		return format(*v)
	}
	for _, r := range rows {
		name := r.Name
		if r.Apart() {
			name += " *"
		}
		c := []string{name}
		for _, v := range r.PollsBy.Values {
			c = append(c, count(v))
		}
		c = append(c, count(r.StuckPolls))
		if data {
			mp := fmt.Sprintf("%.2f", *r.MeanPolls)
			ml := secs(r.MeanLag)
			if r.MeanPollCI != nil {
				mp += fmt.Sprintf("±%.2f", *r.MeanPollCI)
			}
			if r.MeanLagCI != nil {
				ml += "±" + secs(r.MeanLagCI)
			}
			c = append(c, mp, ml, secs(r.MedianLag), secs(r.P95Lag), secs(r.P99Lag),
				fmt.Sprintf("%.1f%%", 100**r.Caught))
		}
		cells = append(cells, c)
	}
	return head, cells
}

// maxSpec is the longest spec the table prints whole.
const maxSpec = 160

func pollList(p []float64) string {
	var b strings.Builder
	b.WriteString("polls at")
	for _, v := range p {
		b.WriteString(" " + strconv.FormatFloat(v, 'f', -1, 64))
	}
	b.WriteString(" s")
	return b.String()
}

func count(v float64) string {
	if v == float64(int64(v)) {
		return strconv.FormatInt(int64(v), 10)
	}
	return fmt.Sprintf("%.1f", v)
}

// LagFormat returns how a table writes lags: in one unit for the whole
// table, chosen from its rows' median mean lag — seconds from 0.1 s,
// milliseconds from 0.1 ms, then µs and ns — with 2 decimals, 3 when the
// median is below 1 in that unit, so that sub-second latencies do not
// print as 0.00s.
func LagFormat(rows []Row) func(float64) string {
	var lags []float64
	for _, r := range rows {
		if r.MeanLag != nil && *r.MeanLag > 0 && !math.IsInf(*r.MeanLag, 0) {
			lags = append(lags, *r.MeanLag)
		}
	}
	unit, scale, prec := "s", 1.0, 2
	if len(lags) > 0 {
		slices.Sort(lags)
		med := lags[len(lags)/2]
		switch {
		case med < 1e-7:
			unit, scale = "ns", 1e9
		case med < 1e-4:
			unit, scale = "µs", 1e6
		case med < 0.1:
			unit, scale = "ms", 1e3
		}
		if med*scale < 1 {
			prec = 3
		}
	}
	return func(v float64) string { return strconv.FormatFloat(v*scale, 'f', prec, 64) + unit }
}

// CSV writes rows as CSV with the JSON keys as header, segment first;
// polls_by becomes one column per age ("polls_by_30s"), and polls a
// space-separated list. When some row has a Comparison, two columns
// follow: comparable (true or false, empty for a row without one) and
// why.
func CSV(w io.Writer, rows []Row) error {
	cw := csv.NewWriter(w)
	head := []string{"segment", "name", "spec"}
	if len(rows) > 0 {
		for _, l := range rows[0].PollsBy.Labels {
			head = append(head, "polls_by_"+l)
		}
	}
	head = append(head, "stuck_polls", "mean_polls", "mean_lag_s", "median_lag_s", "p95_lag_s", "p99_lag_s", "caught", "polls")
	compared := slices.ContainsFunc(rows, func(r Row) bool { return r.Comparison != nil })
	if compared {
		head = append(head, "comparable", "why")
	}
	cw.Write(head)
	opt := func(p *float64) string {
		if p == nil {
			return ""
		}
		return strconv.FormatFloat(*p, 'g', 6, 64)
	}
	for _, r := range rows {
		rec := []string{r.Segment, r.Name, r.Spec}
		for _, v := range r.PollsBy.Values {
			rec = append(rec, strconv.FormatFloat(v, 'g', -1, 64))
		}
		var polls []string
		for _, p := range r.Polls {
			polls = append(polls, strconv.FormatFloat(p, 'f', -1, 64))
		}
		rec = append(rec, strconv.FormatFloat(r.StuckPolls, 'g', -1, 64), opt(r.MeanPolls), opt(r.MeanLag),
			opt(r.MedianLag), opt(r.P95Lag), opt(r.P99Lag), opt(r.Caught), strings.Join(polls, " "))
		if compared {
			comparable, why := "", ""
			if c := r.Comparison; c != nil {
				comparable, why = strconv.FormatBool(c.Comparable), c.Why
			}
			rec = append(rec, comparable, why)
		}
		cw.Write(rec)
	}
	cw.Flush()
	return cw.Error()
}

// JSON writes v indented, with a final newline.
func JSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
