package app

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/pollfit/pollfit/export"
	"github.com/pollfit/pollfit/fit"
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
	if err := checkOutputs(o.Out); err != nil {
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
	fo := o.Fit
	fo.Horizon = horizonOf(o.Solve.Options).Seconds()
	var doc export.Document
	switch {
	case o.Density != "":
		if err := o.Input.refuseSegment("a --density file"); err != nil {
			return err
		}
		d, err := readDensity(o.Density)
		if err != nil {
			return err
		}
		r, err := o.derive(d)
		if err != nil {
			return err
		}
		doc.Schedule, doc.Meta = r.Schedule, resultMeta(r)
	case o.Dist != "":
		if err := o.Input.refuseSegment("a --dist model"); err != nil {
			return err
		}
		d, err := distDensity(o.Dist, fo)
		if err != nil {
			return err
		}
		r, err := o.derive(d)
		if err != nil {
			return err
		}
		doc.Schedule, doc.Meta = r.Schedule, resultMeta(r)
	default:
		sample, _, err := o.Input.load(stderr)
		if err != nil {
			return err
		}
		parts, err := o.Input.parts(sample, stderr)
		if err != nil {
			return err
		}
		rs, err := eachPart(parts, func(pt part) (*optimize.Result, error) {
			d, err := fit.Estimate(pt.Sample, fo)
			if err != nil {
				return nil, fitError(err)
			}
			return o.derive(d)
		})
		if err != nil {
			return err
		}
		doc.Schedule, doc.Meta = rs[0].Schedule, resultMeta(rs[0])
		for i, pt := range parts[1:] {
			doc.Segments = append(doc.Segments, export.Segment{Name: pt.Name, Schedule: rs[i+1].Schedule, Meta: resultMeta(rs[i+1])})
		}
	}
	if !o.Input.Quiet {
		var m map[string]any
		json.Unmarshal(doc.Meta, &m)
		fmt.Fprintf(stderr, "schedule: %s\nexpected: mean lag %.3gs, %v stuck polls, %.3g mean polls\n",
			doc.Schedule, m["expected_lag_s"], m["stuck_polls"], m["expected_polls"])
	}
	return writeDocument(o.Out, stdout, doc)
}

func (o Optimize) derive(d optimize.Distribution) (*optimize.Result, error) {
	der, err := o.Solve.solve(d, false)
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

// resultMeta is what a schedule document carries about the solution.
func resultMeta(r *optimize.Result) json.RawMessage {
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
	b, _ := json.Marshal(m)
	return b
}
