package app

import (
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/pollfit/pollfit/export"
	"github.com/pollfit/pollfit/fit"
	"github.com/pollfit/pollfit/ingest"
	"github.com/pollfit/pollfit/internal/app/report"
	"github.com/pollfit/pollfit/internal/outfile"
)

// Fit settings: see the fit command's help.
type Fit struct {
	Input   Input
	Options fit.Options
	Dist    string // a parametric model given directly instead of data
	Plot    string // plot file, or "" (one per segment: see plotPaths)
	Format  string // json (the default when empty) or csv
	Out     string
	Batches Batches
}

// fitJSON is the fit command's output: the overall density's keys at the
// top level, the input's row counts, and one density per segment.
type fitJSON struct {
	*fit.Density
	Input    *source                 `json:"input,omitempty"` // what was read, and in which unit
	Segments map[string]*fit.Density `json:"segments,omitempty"`
	// WallClock is what was found about wall-clock batches in all items.
	WallClock *clockJSON `json:"wall_clock,omitempty"`
}

// Run estimates the distribution and writes it as JSON or CSV.
func (f Fit) Run(stdout, stderr io.Writer) error {
	if err := (outputs{Out: f.Out, Plots: []string{f.Plot}, Inputs: f.Input.Paths}).check(); err != nil {
		return err
	}
	if f.Format == "" {
		f.Format = "json"
	}
	if err := checkFormat(f.Format, "json", "csv"); err != nil {
		return err
	}
	if err := f.Options.Check(); err != nil {
		return &UsageError{err}
	}
	batches, err := f.Batches.parse()
	if err != nil {
		return err
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
	var clockLine string // what was found about wall-clock batches
	if f.Dist != "" {
		if f.Batches.Period != "" && f.Batches.Period != "off" {
			return Usagef("--batch-period needs data: wall-clock batches are found in settle instants, which a --dist model has not")
		}
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
		sample, rep, err := f.Input.loadSource(stderr)
		if err != nil {
			return err
		}
		out.Input = rep
		// Without a plot, which reads every part's rows after the fits
		// (its survival panel takes an evenly strided subsample of large
		// ones), each part's rows are read by its fit alone: the fit may
		// reorder them, and the segments are copied out one at a time
		// (eachPartOnce). The wall-clock batches read creation instants,
		// which a sample the fit reorders has not.
		opt := f.Options
		opt.Reorder = f.Plot == ""
		// Where all items' fit reads their order only for their data
		// resolution (fitCanPartition), that is found here first, and the
		// segments are views of the sample partitioned in place instead of
		// copies (eachPartOnce): the largest segment's copy was the
		// segmented fit's peak (4.5 bytes a row on the payments fixture,
		// issue 18).
		inPlace := opt.Reorder && f.Input.Read.Segment != "" && fitCanPartition(sample, opt)
		allOpt := opt
		if inPlace {
			allOpt.Resolution = fit.Resolution(sample.Times)
			if allOpt.Resolution == 0 {
				allOpt.Resolution = -1 // none
			}
		}
		estimate := func(pt part) (*fit.Density, error) {
			o := opt
			if !pt.segmented() {
				o = allOpt
			}
			d, err := fit.Estimate(pt.Sample, o)
			if err == nil && pt.segmented() && f.Plot == "" && d.KM != nil {
				// Held for its JSON alone while the other parts are
				// fitted: a segment's table of 10⁶ steps at 10⁷ rows,
				// 23 MB for the payments fixture's four, was what all
				// items' fit held beyond the censored fit's (issue 18).
				d.KM = d.KM.Thin()
			}
			return d, fitError(err)
		}
		var parts []part
		var ds []*fit.Density
		if opt.Reorder {
			parts, ds, err = eachPartOnce(f.Input, sample, stderr, inPlace, estimate)
		} else if parts, err = f.Input.parts(sample, stderr); err == nil {
			ds, err = eachPart(parts, estimate)
		}
		if err != nil {
			return err
		}
		out.Density = ds[0]
		bf, err := batches.find(sample)
		if err != nil {
			return err
		}
		if bf != nil {
			out.WallClock = bf.json()
			clockLine = bf.String()
		}
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
	unit := "rows"
	if out.Input != nil && out.Input.Items > 0 {
		unit = "items" // binned input: rows are bins
	}
	if !f.Input.Quiet {
		if f.Dist != "" {
			fmt.Fprintf(stderr, "model %s (given, not fitted): %s\n", out.Density.Method, fitSummary(out.Density))
		} else {
			fmt.Fprintf(stderr, "fit %s on %d %s: %s\n", out.Density.Method, out.Density.N, unit, fitSummary(out.Density))
		}
	}
	// Warnings print with -q too: it drops progress and counts only.
	for _, w := range out.Density.Warnings {
		fmt.Fprintf(stderr, "warning: %s\n", w)
	}
	// Each segment's fit says how good it is too, by name.
	for _, name := range slices.Sorted(maps.Keys(out.Segments)) {
		d := out.Segments[name]
		if !f.Input.Quiet {
			fmt.Fprintf(stderr, "segment %q: fit %s on %d %s: %s\n", name, d.Method, d.N, unit, fitSummary(d))
		}
		for _, w := range d.Warnings {
			fmt.Fprintf(stderr, "warning: segment %q: %s\n", name, w)
		}
	}
	if !f.Input.Quiet && clockLine != "" {
		fmt.Fprintln(stderr, clockLine)
	}
	if f.Format == "csv" {
		return outfile.Write(f.Out, stdout, func(w io.Writer) error { return writeGridCSV(w, out) })
	}
	return outfile.Write(f.Out, stdout, func(w io.Writer) error { return report.JSON(w, out) })
}

// fitCanPartition reports whether fit.Estimate with opt (Reorder set)
// gives the same estimate of s whatever the order of its items once their
// resolution is given (fit.Options.Resolution): it sorts the settled and
// the censored times in place before reading them (a censored sample of
// times and flags alone, fitted by kde or histogram, with no holdout,
// which draws the rows it holds out by their place). The parametric and
// mixture fits and an uncensored sample's kde read the items in their
// order (sums, and the de-rounding's offsets by index); wall-clock batches
// read the creation instants after the fits.
func fitCanPartition(s *ingest.Sample, opt fit.Options) bool {
	method := strings.ToLower(opt.Method)
	return (method == "" || method == "kde" || method == "histogram") && opt.Holdout == 0 &&
		s.Weights == nil && s.Created == nil && s.CensoredCount() > 0
}

// gridColumns are the columns of fit --format csv, as the JSON's grid
// names them: time, density, CDF, survival, hazard, units in the names.
var gridColumns = []string{"t_s", "pdf_per_s", "cdf", "survival", "hazard_per_s"}

// writeGridCSV writes the density's grid as one tidy table (one row per
// grid point); with segments, a first column segment names the overall fit
// "all" (export.AllSegment) and each segment's rows follow, by name.
func writeGridCSV(w io.Writer, out fitJSON) error {
	cw := csv.NewWriter(w)
	head := gridColumns
	names := slices.Sorted(maps.Keys(out.Segments))
	if len(names) > 0 {
		head = append([]string{"segment"}, gridColumns...)
	}
	if err := cw.Write(head); err != nil {
		return err
	}
	table := func(seg string, d *fit.Density) error {
		row := make([]string, 0, len(head))
		for i := range d.T {
			row = row[:0]
			if len(names) > 0 {
				row = append(row, seg)
			}
			for _, v := range []float64{d.T[i], d.PDFs[i], d.CDFs[i], d.Survival[i], d.Hazard[i]} {
				row = append(row, strconv.FormatFloat(v, 'g', -1, 64))
			}
			if err := cw.Write(row); err != nil {
				return err
			}
		}
		return nil
	}
	if err := table(export.AllSegment, out.Density); err != nil {
		return err
	}
	for _, n := range names {
		if err := table(n, out.Segments[n]); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
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
		var old struct {
			T []float64 `json:"t"`
		}
		if json.Unmarshal(b, &old) == nil && len(old.T) > 0 {
			return nil, fmt.Errorf("%s: a density in the layout of an older pollfit (arrays t, pdf, cdf at the top level): run pollfit fit again", path)
		}
		return nil, fmt.Errorf("%s: not a density written by pollfit fit: want a grid with t_s, pdf_per_s and cdf of equal length ≥ 2", path)
	}
	if err := d.Validate(); err != nil {
		return nil, fmt.Errorf("%s: %w (pollfit fit writes valid densities)", path, err)
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

// fitSummary sums a fit up in one line for stderr: its bandwidth and
// atoms, mixture, mass beyond the horizon, and its distances from the data with the
// bands they are judged against.
func fitSummary(d *fit.Density) string {
	var b strings.Builder
	if d.Bandwidth > 0 {
		fmt.Fprintf(&b, "bandwidth %.4g, %s, ", d.Bandwidth, countAtoms(d.Atoms))
	}
	if d.Mixture != nil {
		fmt.Fprintf(&b, "%s; ", d.Mixture)
	}
	// Density.StuckShare is the fit's mass beyond its horizon: the
	// kernel's tail past it and, with pending rows, the Kaplan–Meier mass
	// past the last settle; "stuck share" read as items that never settle
	// (uniform(0, 60 s), all settled, printed 0.5 %: issue 15).
	fmt.Fprintf(&b, "mass beyond the horizon %.3g", d.StuckShare)
	if k := d.KS; k != nil {
		fmt.Fprintf(&b, ", KS %.3g at %s", k.D, formatSeconds(k.At))
		inSample := d.HoldoutKS == nil && k.Band95 > 0
		var notes []string
		if inSample {
			notes = append(notes, "in-sample")
		}
		if k.Subsample > 0 {
			notes = append(notes, fmt.Sprintf("on %s%d rows", ofSubsample(*k), k.Rows))
		}
		if len(notes) > 0 {
			band := ""
			if inSample {
				band = fmt.Sprintf("; conservative 95%% band %.3g", k.Band95)
			}
			fmt.Fprintf(&b, " (%s%s)", strings.Join(notes, ", "), band)
		}
	}
	if d.HoldoutN > 0 {
		fmt.Fprintf(&b, ", held-out log-likelihood %.4f per row (%d rows)", d.HoldoutLogLik, d.HoldoutN)
	}
	if k := d.HoldoutKS; k != nil {
		fmt.Fprintf(&b, ", held-out KS %.3g", k.D)
		if k.Subsample > 0 {
			fmt.Fprintf(&b, " on %s%d rows", ofSubsample(*k), k.Rows)
		}
		fmt.Fprintf(&b, " (95%% two-sample band %.3g)", k.Band95)
	}
	return b.String()
}
