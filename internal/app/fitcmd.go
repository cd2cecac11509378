package app

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/pollfit/pollfit/export"
	"github.com/pollfit/pollfit/fit"
	"github.com/pollfit/pollfit/internal/outfile"
	"github.com/pollfit/pollfit/internal/report"
)

// Fit settings: see the fit command's help.
type Fit struct {
	Input   Input
	Options fit.Options
	Dist    string // a parametric model given directly instead of data
	Plot    string // plot file, or "" (one per segment: see plotPaths)
	Out     string
}

// fitJSON is the fit command's output: the overall density's keys at the
// top level, the input's row counts, and one density per segment.
type fitJSON struct {
	*fit.Density
	Input    *fit.Report             `json:"input,omitempty"`
	Segments map[string]*fit.Density `json:"segments,omitempty"`
}

// Run estimates the distribution and writes it as JSON.
func (f Fit) Run(stdout, stderr io.Writer) error {
	if err := checkOutputs(f.Out, f.Plot); err != nil {
		return err
	}
	if err := f.Options.Check(); err != nil {
		return &UsageError{err}
	}
	if f.Dist != "" && len(f.Input.Paths) > 0 {
		return Usagef("--dist gives the distribution instead of data: give --dist or --input, not both")
	}
	if f.Dist != "" {
		if err := f.Input.refuseSegment("a --dist model"); err != nil {
			return err
		}
	}
	var out fitJSON
	if f.Dist != "" {
		d, err := distDensity(f.Dist, f.Options)
		if err != nil {
			return err
		}
		out.Density = d
		if f.Plot != "" {
			if err := plotDensity(f.Plot, part{Name: export.AllSegment}, d, nil); err != nil {
				return err
			}
		}
	} else {
		if len(f.Input.Paths) == 0 {
			return Usagef("--input is required (or --dist MODEL for a parametric model)")
		}
		sample, rep, err := f.Input.load(stderr)
		if err != nil {
			return err
		}
		out.Input = rep
		parts, err := f.Input.parts(sample, stderr)
		if err != nil {
			return err
		}
		ds, err := eachPart(parts, func(pt part) (*fit.Density, error) {
			d, err := fit.Estimate(pt.Sample, f.Options)
			return d, fitError(err)
		})
		if err != nil {
			return err
		}
		out.Density = ds[0]
		for i, pt := range parts[1:] {
			if out.Segments == nil {
				out.Segments = map[string]*fit.Density{}
			}
			out.Segments[pt.Name] = ds[i+1]
		}
		if f.Plot != "" {
			err := plotParts(f.Plot, parts, stderr, f.Input.Quiet, func(i int, file string) error {
				return plotDensity(file, parts[i], ds[i], parts[i].Sample)
			})
			if err != nil {
				return err
			}
		}
	}
	if !f.Input.Quiet {
		d := out.Density
		if f.Dist != "" {
			fmt.Fprintf(stderr, "model %s (given, not fitted): ", d.Method)
		} else {
			unit := "rows"
			if out.Input != nil && out.Input.Items > 0 {
				unit = "items" // binned input: rows are bins
			}
			fmt.Fprintf(stderr, "fit %s on %d %s: ", d.Method, d.N, unit)
		}
		if d.Bandwidth > 0 {
			fmt.Fprintf(stderr, "bandwidth %.4g, %s, ", d.Bandwidth, countAtoms(d.Atoms))
		}
		if d.Mixture != nil {
			fmt.Fprintf(stderr, "%s; ", d.Mixture)
		}
		fmt.Fprintf(stderr, "stuck share %.3g", d.StuckShare)
		if d.HoldoutN > 0 {
			fmt.Fprintf(stderr, ", held-out log-likelihood %.4f per row (%d rows)", d.HoldoutLogLik, d.HoldoutN)
		}
		fmt.Fprintln(stderr)
	}
	return outfile.Write(f.Out, stdout, func(w io.Writer) error { return report.JSON(w, out) })
}

// fitError turns estimation errors about the options into usage errors.
func fitError(err error) error {
	if isOptionError(err) {
		return &UsageError{err}
	}
	return err
}

// readDensity reads a density JSON file written by the fit command.
func readDensity(path string) (*fit.Density, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var d fit.Density
	if err := json.Unmarshal(b, &d); err != nil {
		return nil, fmt.Errorf("%s: not a density written by pollfit fit: %w", path, err)
	}
	n := len(d.T)
	if n < 2 || len(d.PDFs) != n || len(d.CDFs) != n {
		return nil, fmt.Errorf("%s: not a density written by pollfit fit: want arrays t, pdf and cdf of equal length ≥ 2", path)
	}
	for i := 1; i < n; i++ {
		if !(d.T[i] > d.T[i-1]) || d.CDFs[i] < d.CDFs[i-1] {
			return nil, fmt.Errorf("%s: grid point %d: t must increase and cdf must not decrease", path, i)
		}
	}
	return &d, nil
}

// distDensity evaluates a parametric model given by --dist on the grid of
// the options.
func distDensity(spec string, o fit.Options) (*fit.Density, error) {
	dist, err := fit.ParseDist(spec)
	if err != nil {
		return nil, Usagef("--dist: %w", err)
	}
	return dist.Density(o.Horizon, o.Grid), nil
}

func isOptionError(err error) bool { return errors.Is(err, fit.ErrOption) }

// countAtoms says how many point masses and spikes there are: "no atoms",
// "1 atom", "3 atoms, 1 spike".
func countAtoms(atoms []fit.Atom) string {
	var point, spike int
	for _, a := range atoms {
		if a.Width > 0 {
			spike++
		} else {
			point++
		}
	}
	plural := func(n int, what string) string {
		if n == 1 {
			return "1 " + what
		}
		return fmt.Sprintf("%d %ss", n, what)
	}
	switch {
	case spike == 0 && point == 0:
		return "no atoms"
	case spike == 0:
		return plural(point, "atom")
	case point == 0:
		return plural(spike, "spike")
	}
	return plural(point, "atom") + ", " + plural(spike, "spike")
}
