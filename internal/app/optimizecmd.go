package app

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/pollfit/pollfit/export"
	"github.com/pollfit/pollfit/fit"
	"github.com/pollfit/pollfit/ingest"
	"github.com/pollfit/pollfit/optimize"
)

// Optimize settings: see the optimize command's help.
type Optimize struct {
	Input   Input
	Density string // a density JSON file written by fit
	Dist    string // a parametric model
	Fit     fit.Options
	Solve   Solve
	Out     string
}

// Run derives the schedule and writes it as the JSON document that export
// --lang json writes.
func (o Optimize) Run(stdout, stderr io.Writer) error {
	if err := (outputs{Out: o.Out, Inputs: o.Input.Paths, Files: []string{o.Density}}).check(); err != nil {
		return err
	}
	if err := o.Fit.Check(); err != nil {
		return &UsageError{err}
	}
	if err := o.Solve.check(); err != nil {
		return err
	}
	sources := 0
	if len(o.Input.Paths) > 0 {
		sources++
	}
	for _, s := range []string{o.Density, o.Dist} {
		if s != "" {
			sources++
		}
	}
	if sources != 1 {
		return Usagef("give exactly one of --input FILE (with --column), --density FILE or --dist MODEL")
	}
	var doc export.Document
	var notes []string
	switch {
	case o.Density != "":
		if err := o.Input.refuseSegment("a --density file"); err != nil {
			return err
		}
		// A density file's own grid ends at its horizon: the default
		// horizon is the model's 99th percentile, as for --dist.
		d, err := readDensity(o.Density)
		if err != nil {
			return err
		}
		sv, note, err := o.Solve.withModelHorizon(d)
		if err != nil {
			return err
		}
		r, err := sv.derive(d)
		if err != nil {
			return err
		}
		doc.Schedule, doc.Meta, notes = r.Schedule, resultMeta(r, o.Solve.Budget), append(notes, note)
	case o.Dist != "":
		if err := o.Input.refuseSegment("a --dist model"); err != nil {
			return err
		}
		dist, err := fit.ParseDist(o.Dist)
		if err != nil {
			return Usagef("--dist: %w", err)
		}
		sv, note, err := o.Solve.withModelHorizon(dist)
		if err != nil {
			return err
		}
		r, err := sv.derive(dist)
		if err != nil {
			return err
		}
		doc.Schedule, doc.Meta, notes = r.Schedule, resultMeta(r, o.Solve.Budget), append(notes, note)
	default:
		sample, _, err := o.Input.load(stderr)
		if err != nil {
			return err
		}
		type solved struct {
			r    *optimize.Result
			note string
		}
		// A part's rows are read by its fit alone (fromSample).
		parts, rs, err := eachPartOnce(o.Input, sample, stderr, false, func(pt part) (solved, error) {
			r, note, err := o.fromSample(pt.Sample)
			return solved{r, note}, err
		})
		if err != nil {
			return err
		}
		doc.Schedule, doc.Meta, notes = rs[0].r.Schedule, resultMeta(rs[0].r, o.Solve.Budget), append(notes, rs[0].note)
		for i, pt := range parts[1:] {
			doc.Segments = append(doc.Segments, export.Segment{Name: pt.Name, Schedule: rs[i+1].r.Schedule, Meta: resultMeta(rs[i+1].r, o.Solve.Budget)})
		}
	}
	if !o.Input.Quiet {
		for _, n := range notes {
			if n != "" {
				fmt.Fprintln(stderr, n)
			}
		}
		var m map[string]any
		json.Unmarshal(doc.Meta, &m)
		stuck, _ := m["stuck_polls"].(float64)
		mean, _ := m["expected_polls"].(float64)
		fmt.Fprintf(stderr, "schedule: %s\nexpected: mean lag %.3gs, %v stuck %s, %s\n",
			doc.Schedule, m["expected_lag_s"], m["stuck_polls"], pluralOf(stuck, "poll"), meanPollsText(mean))
	}
	return writeDocument(o.Out, stdout, doc)
}

// fromSample fits the sample up to the horizon (from its settle times when
// not given) and derives the schedule; note says where the horizon came
// from.
func (o Optimize) fromSample(sample *ingest.Sample) (*optimize.Result, string, error) {
	sv, note, err := o.Solve.withHorizon(sample)
	if err != nil {
		return nil, "", err
	}
	fo := o.Fit
	fo.Horizon = sv.Options.Horizon.Seconds()
	fo.Reorder = true // the rows are not read again
	d, err := fit.Estimate(sample, fo)
	if err != nil {
		return nil, "", fitError(err)
	}
	r, err := sv.derive(d)
	return r, note, err
}

// derive solves for d and returns the result with the exact optimum's
// figures beside it.
func (s Solve) derive(d optimize.Distribution) (*optimize.Result, error) {
	der, err := s.solve(d, false)
	if err != nil {
		return nil, err
	}
	r := *der.Result
	r.Schedule.Name = "pollfit"
	if der.Exact != nil {
		r.Optimum = &der.Exact.Expected
	}
	return &r, nil
}

// resultMeta is what a schedule document carries about the solution
// under budget b: under a poll cost also the cost it minimises
// (optimize.Budget.Cost), the schedule's and the exact optimum's, and the
// optimum's polls, since the lags alone do not compare (the one that
// lags less may poll more).
func resultMeta(r *optimize.Result, b optimize.Budget) json.RawMessage {
	m := map[string]any{
		"method":           r.Method,
		"expected_lag_s":   r.Expected.MeanLag,
		"expected_polls":   r.Expected.MeanPolls,
		"stuck_polls":      r.Expected.StuckPolls,
		"caught":           r.Expected.Caught,
		"marginal_price_s": r.MarginalPrice,
	}
	if r.Phases > 0 {
		m["phases"] = r.Phases
	}
	if r.Optimum != nil {
		m["exact_lag_s"] = r.Optimum.MeanLag
	}
	if b.PollCost > 0 {
		m["poll_cost_s"] = b.PollCost
		m["cost_s"] = b.Cost(r.Expected)
		if r.Optimum != nil {
			m["exact_polls"] = r.Optimum.MeanPolls
			m["exact_cost_s"] = b.Cost(*r.Optimum)
		}
	}
	doc, _ := json.Marshal(m)
	return doc
}
