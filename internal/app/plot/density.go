package plot

import (
	"bytes"
	"fmt"
	"image/color"
	"io"
	"math"
	"path/filepath"
	"strconv"
	"strings"

	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/pollfit/pollfit/fit"
	"github.com/pollfit/pollfit/ingest"
	"github.com/pollfit/pollfit/internal/outfile"
)

// DensityOptions labels the figure Density draws.
type DensityOptions struct {
	// Label, when not empty, heads the title, which otherwise gives the
	// method, n and the bandwidth: e.g. "segment card".
	Label string
}

// Density draws the estimate in three stacked panels — histogram of the
// sample's settled times with the density, survival with the data's
// (1 − the empirical CDF, Kaplan–Meier with censoring, as steps under the
// fitted curve, and the Kolmogorov–Smirnov distance between them in the
// panel's title) and hazard — and writes them to path as PNG or SVG,
// chosen by its extension (.png, .svg). The density and hazard include the
// spikes (fit.Density.PDFs), each also drawn by itself; point masses are
// vertical lines the panel's height. The time axis is
// logarithmic when the grid spans more than two decades; the density
// panel then shows t·f(t), the density of ln t, so that areas still read
// as probabilities. s may be nil (no histogram; the survival panel then
// shows d.KM when there is one). The file is written to a temporary file
// and renamed, so readers never see a partial plot. opt labels the figure
// (its zero value: no label).
func Density(path string, d *fit.Density, s *ingest.Sample, opt DensityOptions) error {
	ext := strings.ToLower(filepath.Ext(path))
	if ext != ".png" && ext != ".svg" {
		return fmt.Errorf("plot %s: unknown format %q (want .png or .svg)", path, ext)
	}
	return writePlots(panels(d, s, opt), path, ext)
}

// DensitySVG draws the figure of Density as an SVG document, 8 × 10
// inches, for a web page.
func DensitySVG(d *fit.Density, s *ingest.Sample, opt DensityOptions) ([]byte, error) {
	var b bytes.Buffer
	sc := vgsvg.New(plotWidth, plotHeight)
	drawPlots(panels(d, s, opt), draw.New(sc))
	if _, err := sc.WriteTo(&b); err != nil {
		return nil, fmt.Errorf("plot: %w", err)
	}
	return b.Bytes(), nil
}

// Size of the figure of Density.
const (
	plotWidth  = 8 * vg.Inch
	plotHeight = 10 * vg.Inch
)

// panels builds the three panels of Density.
func panels(d *fit.Density, s *ingest.Sample, opt DensityOptions) []*gplot.Plot {
	// Log axis: from the first grid point with visible mass.
	lo := 0.0
	for i, t := range d.T {
		if t > 0 && d.CDFs[i] > 1e-4 {
			lo = d.T[max(1, i-1)]
			break
		}
	}
	if lo == 0 && len(d.T) > 1 {
		lo = d.T[1]
	}
	logX := lo > 0 && d.Horizon()/lo > 100
	xOf := func(t float64) bool { return !logX || t >= lo }

	dens := gplot.New()
	dens.X.Label.Text = "settle time (s)"
	dens.Y.Label.Text = "density (1/s)"
	if logX {
		dens.Y.Label.Text = "t·f(t): density of ln t"
	}
	dens.Title.Text = title(d)
	if opt.Label != "" {
		dens.Title.Text = opt.Label + ": " + dens.Title.Text
	}
	histMax := 0.0
	if s != nil {
		if h := histogram(d, s, lo, logX); h != nil {
			dens.Add(h)
			for _, b := range h.Bins {
				histMax = max(histMax, b.Weight)
			}
		}
	}
	var pdf, surv, haz plotter.XYs
	for i, t := range d.T {
		if !xOf(t) {
			continue
		}
		y := d.PDFs[i]
		if logX {
			y *= t
		}
		pdf = append(pdf, plotter.XY{X: t, Y: y})
		surv = append(surv, plotter.XY{X: t, Y: d.Survival[i]})
		if d.Survival[i] > 1e-3 {
			haz = append(haz, plotter.XY{X: t, Y: d.Hazard[i]})
		}
	}
	addLine(dens, pdf, color.RGBA{R: 200, A: 255}, "estimate")
	if d.Mixture != nil {
		addComponents(dens, d, xOf, logX)
	}
	// Point masses as vertical lines the height of the plot. Spikes are in
	// the estimate's density, and drawn by themselves too (see fit.Atom), as
	// mixture components are. The height is set without the spikes and
	// narrow mixture components: a spike may be far taller, and is cut
	// rather than squash the rest.
	peak := 0.0
	spikes := d.SpikePDFs()
	for i, t := range d.T {
		if !xOf(t) || (d.Mixture != nil && narrowAt(d.Mixture, t)) {
			continue
		}
		y := d.PDFs[i]
		if spikes != nil {
			y -= spikes[i]
		}
		if logX {
			y *= t
		}
		peak = max(peak, y)
	}
	top := max(peak, histMax)
	for _, a := range d.Atoms {
		if !xOf(a.T) {
			continue
		}
		xy := plotter.XYs{{X: a.T, Y: 0}, {X: a.T, Y: top}}
		if a.Width > 0 {
			// The spike's own density, closed at its ends.
			from := a.T - a.Width
			xy = plotter.XYs{{X: from, Y: 0}}
			for j := range 17 {
				t := from + a.Width*float64(j)/16
				h := a.PDF(t)
				if logX {
					h *= t
				}
				xy = append(xy, plotter.XY{X: t, Y: h})
			}
			xy = append(xy, plotter.XY{X: a.T, Y: 0})
		}
		addLine(dens, xy, color.RGBA{R: 120, B: 160, A: 255}, a.Kind()+" "+a.String())
	}
	if top > 0 {
		dens.Y.Max = 1.05 * top // cut a spike, not squash the curve
	}

	sp := gplot.New()
	sp.X.Label.Text = "settle time (s)"
	sp.Y.Label.Text = "survival P(T > t)"
	sp.Y.Min, sp.Y.Max = 0, 1
	// The data's survival first, so the estimate is drawn over it.
	var x, F []float64
	name := "data"
	switch {
	case s != nil && s.Len() > 0:
		x, F = fit.EmpiricalSteps(s)
		if s.CensoredCount() > 0 {
			name = "data (Kaplan–Meier)"
		}
		k := fit.KSDistance(d, s)
		sp.Title.Text = "survival; Kolmogorov–Smirnov distance " + k.String()
	case d.KM != nil:
		x = d.KM.T
		F = make([]float64, len(x))
		for i, sv := range d.KM.Survival {
			F[i] = 1 - sv
		}
		name = "Kaplan–Meier"
	}
	if l := addLine(sp, surviveSteps(x, F, xOf, d.Horizon()), color.Gray{Y: 150}, name); l != nil {
		l.Width = vg.Points(3.5) // wider than the estimate, so it shows where they coincide
	}
	addLine(sp, surv, color.RGBA{B: 200, A: 255}, "estimate")

	hp := gplot.New()
	hp.X.Label.Text = "settle time (s)"
	hp.Y.Label.Text = "hazard (1/s)"
	addLine(hp, haz, color.RGBA{G: 140, A: 255}, "estimate")

	for _, p := range []*gplot.Plot{dens, sp, hp} {
		if logX {
			p.X.Scale = gplot.LogScale{}
			p.X.Tick.Marker = gplot.LogTicks{Prec: -1}
			p.X.Min = lo
		} else {
			p.X.Min = 0
		}
		p.X.Max = xMax(d)
		p.Add(plotter.NewGrid())
	}
	return []*gplot.Plot{dens, sp, hp}
}

// xMax is where the plots end: the horizon, or, when the last 0.01 % of
// the settled mass lands well before it (the default horizon reaches the
// oldest pending item), twice that time, so the settles fill the plot.
func xMax(d *fit.Density) float64 {
	H := d.Horizon()
	last := d.CDFs[len(d.CDFs)-1]
	for i, c := range d.CDFs {
		if c >= last-1e-4 {
			return min(H, max(2*d.T[i], d.T[1]))
		}
	}
	return H
}

func title(d *fit.Density) string {
	t := fmt.Sprintf("%s, n=%d", d.Method, d.N)
	if m := d.Mixture; m != nil {
		t += fmt.Sprintf(", K=%d", m.K())
		if m.SelectedBy == "bic" {
			t += " by BIC"
		}
	}
	if d.Domain != "" && d.Domain != "parametric" {
		t += fmt.Sprintf(", %s domain, bandwidth %.3g", d.Domain, d.Bandwidth)
	}
	if d.StuckShare > 0 {
		t += fmt.Sprintf(", beyond the horizon %.2g%%", 100*d.StuckShare)
	}
	return t
}

// narrowAt reports whether components narrower than σ = 0.05 (a
// timeout spike) make most of the mixture's density at t: the plot's
// height is set without them, as for spikes, so they are cut rather
// than squash the rest.
func narrowAt(m *fit.Mixture, t float64) bool {
	var narrow, all float64
	for _, c := range m.Components {
		p := c.PDF(t)
		all += p
		if c.Sigma < 0.05 {
			narrow += p
		}
	}
	return narrow > all/2
}

// addComponents draws each mixture component's weighted density
// π_k·f_k(t) (on a log axis t·π_k·f_k(t), as the estimate) as a thin
// line under the total, named by its share and median.
func addComponents(p *gplot.Plot, d *fit.Density, xOf func(float64) bool, logX bool) {
	for _, c := range d.Mixture.Components {
		var xy plotter.XYs
		for _, t := range d.T {
			if !xOf(t) || t <= 0 {
				continue
			}
			y := c.PDF(t)
			if logX {
				y *= t
			}
			xy = append(xy, plotter.XY{X: t, Y: y})
		}
		if len(xy) == 0 {
			continue
		}
		l, err := plotter.NewLine(xy)
		if err != nil {
			continue
		}
		l.Color = color.RGBA{R: 210, G: 110, B: 20, A: 255}
		l.Width = vg.Points(0.8)
		l.Dashes = []vg.Length{vg.Points(3), vg.Points(2)}
		p.Add(l)
		p.Legend.Add(fmt.Sprintf("component: %.3g%% at %ss (σ %.2g)", 100*c.Weight, strconv.FormatFloat(c.Median(), 'g', 3, 64), c.Sigma), l)
	}
}

// addLine adds a line named in the legend (unless name is ""); it returns
// nil when there is nothing to draw.
func addLine(p *gplot.Plot, xy plotter.XYs, c color.Color, name string) *plotter.Line {
	if len(xy) == 0 {
		return nil
	}
	l, err := plotter.NewLine(xy)
	if err != nil {
		return nil // only NaN or Inf, which the grid does not hold
	}
	l.Color = c
	l.Width = vg.Points(1.2)
	p.Add(l)
	if name != "" {
		p.Legend.Add(name, l)
	}
	p.Legend.Top = true
	return l
}

// plotSteps is the most steps surviveSteps draws.
const plotSteps = 2000

// surviveSteps returns the staircase of the survival 1 − F, F the
// empirical CDF with jumps at x to F[j], from 0 to the horizon, thinned
// to about plotSteps steps: a jump is drawn when F has risen by
// 1/plotSteps since the last one drawn (a drawn step then covers the
// skipped ones, which a plot could not show apart).
func surviveSteps(x, F []float64, show func(float64) bool, horizon float64) plotter.XYs {
	var xy plotter.XYs
	prev := 0.0
	for j, t := range x {
		if t > horizon {
			break
		}
		if F[j]-prev < 1.0/plotSteps && j < len(x)-1 && x[j+1] <= horizon {
			continue
		}
		if show(t) {
			xy = append(xy, plotter.XY{X: t, Y: 1 - prev}, plotter.XY{X: t, Y: 1 - F[j]})
		}
		prev = F[j]
	}
	if len(xy) > 0 {
		xy = append(xy, plotter.XY{X: horizon, Y: 1 - prev})
	}
	return xy
}

// histogram bins the settled times within the grid (log-spaced bins on a
// log axis) with heights on the density panel's scale, each settled item
// weighing its share of the estimate's mass (KM jumps when censored).
func histogram(d *fit.Density, s *ingest.Sample, lo float64, logX bool) *plotter.Histogram {
	const nb = 60
	H := d.Horizon()
	edges := make([]float64, nb+1)
	for i := range edges {
		f := float64(i) / nb
		if logX {
			edges[i] = lo * math.Pow(H/lo, f)
		} else {
			edges[i] = H * f
		}
	}
	bins := make([]plotter.HistogramBin, nb)
	for i := range bins {
		bins[i] = plotter.HistogramBin{Min: edges[i], Max: edges[i+1]}
	}
	// Settled items and their masses: their KM shares with censoring.
	found := false
	for t, w := range fit.SettledMasses(s) {
		if t > H || (logX && t < lo) {
			continue
		}
		var k int
		if logX {
			k = int(nb * math.Log(t/lo) / math.Log(H/lo))
		} else {
			k = int(nb * t / H)
		}
		bins[min(k, nb-1)].Weight += w
		found = true
	}
	if !found {
		return nil
	}
	for i := range bins {
		width := bins[i].Max - bins[i].Min
		if logX {
			width = math.Log(bins[i].Max / bins[i].Min)
		}
		bins[i].Weight /= width
	}
	return &plotter.Histogram{
		Bins:      bins,
		FillColor: color.Gray{Y: 215},
		LineStyle: draw.LineStyle{Color: color.Gray{Y: 160}, Width: vg.Points(0.5)},
	}
}

// drawPlots stacks the plots vertically on c.
func drawPlots(ps []*gplot.Plot, c draw.Canvas) {
	rows := make([][]*gplot.Plot, len(ps))
	for i, p := range ps {
		rows[i] = []*gplot.Plot{p}
	}
	tiles := draw.Tiles{Rows: len(ps), Cols: 1, PadTop: vg.Points(6), PadBottom: vg.Points(6), PadX: vg.Points(6), PadY: vg.Points(12)}
	canvases := gplot.Align(rows, tiles, c)
	for i, p := range ps {
		p.Draw(canvases[i][0])
	}
}

// writePlots stacks the plots vertically and writes them atomically.
func writePlots(ps []*gplot.Plot, path, ext string) error {
	w, h := plotWidth, plotHeight
	var c draw.Canvas
	var save func(w io.Writer) error
	if ext == ".svg" {
		sc := vgsvg.New(w, h)
		c = draw.New(sc)
		save = func(w io.Writer) error { _, err := sc.WriteTo(w); return err }
	} else {
		ic := vgimg.PngCanvas{Canvas: vgimg.New(w, h)}
		c = draw.New(ic)
		save = func(w io.Writer) error { _, err := ic.WriteTo(w); return err }
	}
	drawPlots(ps, c)
	// outfile: whole or not at all, temporary files removed on SIGINT.
	if err := outfile.Write(path, nil, save); err != nil {
		return fmt.Errorf("plot %s: %w", path, err)
	}
	return nil
}
