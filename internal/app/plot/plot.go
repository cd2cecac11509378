// Package plot draws pollfit's figures: the lag–budget sweep, the
// timeline of poll times over the settle-time distribution, and the
// fitted density with the survival and hazard (Density).
//
// Figures are PNG or SVG by the file's extension, drawn with
// gonum.org/v1/plot, and written whole or not at all (internal/outfile).
// Time axes are in seconds and switch to a log scale when the data span
// more than two decades, as settle times usually do.
package plot

import (
	"bytes"
	"errors"
	"fmt"
	"image/color"
	"io"
	"math"
	"path/filepath"
	"strconv"
	"strings"

	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/pollfit/pollfit/internal/outfile"
)

// ErrFormat is returned for a file name whose extension is not .png or
// .svg.
var ErrFormat = errors.New("plot file must end in .png or .svg")

// format returns the gonum format of path ("png" or "svg").
func format(path string) (string, error) {
	switch ext := strings.ToLower(filepath.Ext(path)); ext {
	case ".png", ".svg":
		return ext[1:], nil
	}
	return "", fmt.Errorf("%q: %w", path, ErrFormat)
}

// CheckPath reports whether path names a format the package writes, so
// that commands fail before their work rather than after it.
func CheckPath(path string) error {
	_, err := format(path)
	return err
}

// SVG is a figure drawn as SVG, to be put inline in a web page.
type SVG struct {
	// Data is the SVG document, <svg> … </svg>, with the XML prolog.
	Data []byte
	// Width and Height are the figure's size in points, the units of its
	// viewBox.
	Width, Height float64
	// At maps the data coordinates of a point of the plot to the SVG's
	// viewBox coordinates (y downwards), for marks drawn over the figure.
	At func(x, y float64) (float64, float64)
}

// svgOf draws p as SVG, w × h.
func svgOf(p *gplot.Plot, w, h vg.Length) (SVG, error) {
	c := vgsvg.New(w, h)
	dc := draw.New(c)
	p.Draw(dc)
	data := p.DataCanvas(dc)
	tx, ty := p.Transforms(&data)
	var b bytes.Buffer
	if _, err := c.WriteTo(&b); err != nil {
		return SVG{}, err
	}
	H := h.Points()
	return SVG{Data: b.Bytes(), Width: w.Points(), Height: H, At: func(x, y float64) (float64, float64) {
		return tx(x).Points(), H - ty(y).Points()
	}}, nil
}

// save writes p to path atomically, w × h.
func save(p *gplot.Plot, path string, w, h vg.Length) error {
	f, err := format(path)
	if err != nil {
		return err
	}
	wt, err := p.WriterTo(w, h, f)
	if err != nil {
		return fmt.Errorf("plot %s: %w", path, err)
	}
	return outfile.Write(path, io.Discard, func(out io.Writer) error {
		_, err := wt.WriteTo(out)
		return err
	})
}

// spansDecades reports whether positive values from lo to hi span more
// than two decades: then a log axis shows them better.
func spansDecades(lo, hi float64) bool { return lo > 0 && hi/lo > 100 }

// secondsTicks labels a log axis of seconds (0.1, 1, 10, 100): at 1, 2
// and 5 times each power of ten over up to two decades, at each power of
// ten beyond.
func secondsTicks(lo, hi float64) []gplot.Tick {
	ticks := logTicks{}.Ticks(lo, hi)
	wide := hi/lo > 100
	for i, t := range ticks {
		m := t.Value / math.Pow(10, math.Floor(math.Log10(t.Value)+1e-9))
		switch {
		case t.Label == "":
		case wide && math.Abs(m-1) > 1e-9:
			ticks[i].Label = ""
		default:
			ticks[i].Label = strconv.FormatFloat(t.Value, 'g', 4, 64)
		}
	}
	return ticks
}

// Curve is one series of the sweep plot: a schedule's mean lag (Y,
// seconds) at each budget (X), or, with Points, isolated schedules drawn
// as labelled points.
type Curve struct {
	Name   string
	X, Y   []float64
	Points bool // draw points with their name, not a line
	Bold   bool // draw a thicker line (the optimum)
}

// SweepOptions labels the sweep plot. Zero fields take defaults.
type SweepOptions struct {
	Title  string // none when empty
	XLabel string // default "budget (polls)"
	YLabel string // default "mean lag (s)"
}

// Sweep draws the lag–budget frontier: one line per curve, points for
// point curves, both axes log-scaled when their values span more than two
// decades. Non-positive or NaN values are left out (log axes cannot show
// them). The file is PNG or SVG by extension, 16 × 10 cm, written
// atomically.
func Sweep(path string, curves []Curve, opt SweepOptions) error {
	if _, err := format(path); err != nil {
		return err
	}
	p, err := sweepPlot(curves, opt)
	if err != nil {
		return err
	}
	return save(p, path, sweepWidth, sweepHeight)
}

// Size of the sweep plot.
const (
	sweepWidth  = 18 * vg.Centimeter
	sweepHeight = 12 * vg.Centimeter
)

// SweepSVG draws the sweep plot of Sweep as SVG, w × h (zero: Sweep's
// size, 18 × 12 cm).
func SweepSVG(curves []Curve, opt SweepOptions, w, h vg.Length) (SVG, error) {
	p, err := sweepPlot(curves, opt)
	if err != nil {
		return SVG{}, err
	}
	if w == 0 || h == 0 {
		w, h = sweepWidth, sweepHeight
	}
	return svgOf(p, w, h)
}

func sweepPlot(curves []Curve, opt SweepOptions) (*gplot.Plot, error) {
	p := gplot.New()
	p.Title.Text = opt.Title
	p.X.Label.Text = def(opt.XLabel, "budget (polls)")
	p.Y.Label.Text = def(opt.YLabel, "mean lag (s)")
	p.Legend.Top = true
	p.Legend.TextStyle.Font.Size = vg.Points(8)
	p.Title.TextStyle.Font.Size = vg.Points(10)
	p.Add(plotter.NewGrid())
	xlo, xhi, ylo, yhi := math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
	line := 0
	for _, c := range curves {
		var xy plotter.XYs
		for i := range c.X {
			if c.X[i] > 0 && c.Y[i] > 0 && !math.IsInf(c.Y[i], 0) {
				xy = append(xy, plotter.XY{X: c.X[i], Y: c.Y[i]})
				xlo, xhi = math.Min(xlo, c.X[i]), math.Max(xhi, c.X[i])
				ylo, yhi = math.Min(ylo, c.Y[i]), math.Max(yhi, c.Y[i])
			}
		}
		if len(xy) == 0 {
			continue
		}
		if c.Points {
			s, err := plotter.NewScatter(xy)
			if err != nil {
				return nil, err
			}
			s.GlyphStyle = draw.GlyphStyle{Color: color.Black, Radius: vg.Points(3.5), Shape: draw.RingGlyph{}}
			labels, err := plotter.NewLabels(plotter.XYLabels{XYs: xy, Labels: repeat(c.Name, len(xy))})
			if err != nil {
				return nil, err
			}
			labels.Offset = vg.Point{X: vg.Points(5), Y: vg.Points(2)}
			p.Add(s, labels)
			continue
		}
		l, pts, err := plotter.NewLinePoints(xy)
		if err != nil {
			return nil, err
		}
		l.Color = plotutil.Color(line)
		l.Dashes = plotutil.Dashes(line % 4)
		pts.Color = l.Color
		pts.Shape = plotutil.Shape(line)
		pts.Radius = vg.Points(2)
		if c.Bold {
			l.Width = vg.Points(2.5)
			l.Dashes = nil
		}
		line++
		p.Add(l, pts)
		p.Legend.Add(c.Name, l, pts)
	}
	if xlo > xhi {
		return nil, errors.New("sweep plot: no point to draw")
	}
	// A sweep's budgets are log-spaced: a log axis from one decade on
	// spreads its points evenly.
	if xlo > 0 && xhi/xlo >= 10 {
		p.X.Scale = gplot.LogScale{}
		p.X.Tick.Marker = logTicks{}
	}
	if ylo > 0 && yhi/ylo >= 10 {
		p.Y.Scale = gplot.LogScale{}
		p.Y.Tick.Marker = gplot.TickerFunc(secondsTicks)
	}
	return p, nil
}

// logTicks labels a log axis at 1, 2 and 5 times each power of ten, which
// reads better than decades alone over the one or two decades of a sweep.
type logTicks struct{}

func (logTicks) Ticks(lo, hi float64) []gplot.Tick {
	var ticks []gplot.Tick
	for e := math.Floor(math.Log10(lo)); e <= math.Ceil(math.Log10(hi)); e++ {
		for m := 1; m < 10; m++ {
			v := float64(m) * math.Pow(10, e)
			if v < lo || v > hi {
				continue
			}
			t := gplot.Tick{Value: v}
			if m == 1 || m == 2 || m == 5 {
				t.Label = strconv.FormatFloat(v, 'g', -1, 64)
			}
			ticks = append(ticks, t)
		}
	}
	return ticks
}

func def(s, d string) string {
	if s == "" {
		return d
	}
	return s
}

func repeat(s string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = s
	}
	return out
}
