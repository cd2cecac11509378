package plot

import (
	"cmp"
	"errors"
	"fmt"
	"image/color"
	"math"
	"slices"
	"time"

	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/pollfit/pollfit/optimize"
)

// timelineBins is the number of bins of the settle-time band.
const timelineBins = 120

// DefaultTimelineTitle is the title of a timeline plot.
const DefaultTimelineTitle = "Poll times over the settle-time distribution"

// TimelineOptions labels the timeline plot. Zero fields take defaults.
type TimelineOptions struct {
	Title string // default DefaultTimelineTitle
}

// Timeline draws when each schedule polls against when items settle: a
// band at the bottom shows the share of items settling in each time bin,
// from cdf (P(T ≤ t), t in seconds; *fit.Density's CDF method, or
// EmpiricalCDF of samples; nil draws no band), and above it one row of dots per schedule at
// its unjittered poll times up to horizon. Where items settle densely the
// dots should be dense too (the √f rule of the brief). The polls of a
// wall-clock phase (optimize.WallClock) fall at ages that differ from item
// to item: from the schedule's last poll at a fixed age to the horizon its
// row is a grey bar labelled with the phase ("after each 5m (+1s)"), and
// its count is the range over creation instants ("17–18").
//
// The time axis is logarithmic, in bins evenly spaced in log time, when
// horizon is more than 100 times the earliest positive poll; polls at age
// 0 are then drawn at the left edge. The band's heights are bin masses
// scaled to the tallest bin (mass in a bin, per unit of log time on a
// log axis), so atoms show as spikes. The file is PNG or SVG by
// extension, written atomically; the figure grows with the number of
// schedules.
func Timeline(path string, cdf func(t float64) float64, schedules []optimize.Schedule, horizon time.Duration, opt TimelineOptions) error {
	if _, err := format(path); err != nil {
		return err
	}
	p, h, err := timelinePlot(cdf, schedules, horizon, opt)
	if err != nil {
		return err
	}
	return save(p, path, timelineWidth, h)
}

// timelineWidth is the width of the timeline plot.
const timelineWidth = 18 * vg.Centimeter

// TimelineSVG draws the timeline plot of Timeline as SVG, 18 cm wide.
func TimelineSVG(cdf func(t float64) float64, schedules []optimize.Schedule, horizon time.Duration, opt TimelineOptions) (SVG, error) {
	p, h, err := timelinePlot(cdf, schedules, horizon, opt)
	if err != nil {
		return SVG{}, err
	}
	return svgOf(p, timelineWidth, h)
}

// timelinePlot builds the timeline plot and returns it with its height.
func timelinePlot(cdf func(t float64) float64, schedules []optimize.Schedule, horizon time.Duration, opt TimelineOptions) (*gplot.Plot, vg.Length, error) {
	if horizon <= 0 {
		return nil, 0, errors.New("timeline plot: horizon must be positive")
	}
	if len(schedules) == 0 {
		return nil, 0, errors.New("timeline plot: no schedule to draw")
	}
	h := horizon.Seconds()
	polls := make([][]float64, len(schedules))
	clocks := make([]struct {
		from float64
		text string
	}, len(schedules))
	first := h
	for i, s := range schedules {
		fixed, from, clock := FixedPolls(s)
		for _, p := range fixed {
			if p > horizon {
				break
			}
			v := p.Seconds()
			polls[i] = append(polls[i], v)
			if v > 0 {
				first = math.Min(first, v)
			}
		}
		if clock != "" && from < horizon {
			clocks[i].from, clocks[i].text = from.Seconds(), clock
			if from > 0 {
				first = math.Min(first, from.Seconds())
			}
		}
	}
	logAxis := spansDecades(first, h)
	lo := 0.0
	if logAxis {
		// Half a decade before the first positive poll leaves room for
		// the polls at 0, drawn at lo.
		lo = first / math.Sqrt(10)
	}

	p := gplot.New()
	p.Title.Text = def(opt.Title, DefaultTimelineTitle)
	p.X.Label.Text = "age since creation (s)"
	if logAxis {
		p.X.Label.Text = "age since creation (s, log scale)"
		p.X.Scale = gplot.LogScale{}
		p.X.Tick.Marker = gplot.TickerFunc(secondsTicks)
	}
	p.X.Min, p.X.Max = lo, h
	p.Add(plotter.NewGrid())

	// The band: bin masses from the CDF, in [0, 1) on the y axis; none
	// without a CDF (schedules scored without data).
	if cdf != nil {
		edges := make([]float64, timelineBins+1)
		for k := range edges {
			f := float64(k) / timelineBins
			if logAxis {
				edges[k] = lo * math.Pow(h/lo, f)
			} else {
				edges[k] = h * f
			}
		}
		mass := make([]float64, timelineBins)
		prev := cdf(edges[0])
		if logAxis {
			// Items settling at or before lo (instant settles at 0) join the
			// first bin: the band then shows them at the left edge.
			prev = 0
		}
		for k := range mass {
			c := cdf(edges[k+1])
			mass[k] = math.Max(0, c-prev)
			prev = c
		}
		top := slices.Max(mass)
		if top > 0 && !math.IsNaN(top) {
			var band plotter.XYs
			for k, m := range mass {
				y := 0.9 * m / top
				band = append(band, plotter.XY{X: edges[k], Y: y}, plotter.XY{X: edges[k+1], Y: y})
			}
			l, err := plotter.NewLine(band)
			if err != nil {
				return nil, 0, err
			}
			l.Color = color.RGBA{R: 70, G: 110, B: 170, A: 255}
			l.FillColor = color.RGBA{R: 150, G: 180, B: 220, A: 255}
			p.Add(l)
		}
	}

	// One row of dots per schedule, the first on top.
	n := len(schedules)
	var ticks []gplot.Tick
	if cdf != nil {
		ticks = append(ticks, gplot.Tick{Value: 0.45, Label: "settles"})
	}
	for i, s := range schedules {
		y := float64(n-i) + 0.5
		var xy plotter.XYs
		for _, v := range polls[i] {
			xy = append(xy, plotter.XY{X: math.Max(v, lo), Y: y})
		}
		sc, err := plotter.NewScatter(xy)
		if err != nil {
			return nil, 0, err
		}
		sc.GlyphStyle = draw.GlyphStyle{Color: color.Black, Radius: vg.Points(1.8), Shape: draw.CircleGlyph{}}
		if s.Jitter.Kind != optimize.NoJitter {
			sc.GlyphStyle.Shape = draw.RingGlyph{} // jittered: rings at the scheduled times
		}
		p.Add(sc)
		name := s.Name
		if name == "" {
			name = fmt.Sprintf("#%d", i+1)
		}
		count := fmt.Sprint(len(polls[i]))
		if c := clocks[i]; c.text != "" {
			if err := addClock(p, math.Max(c.from, lo), math.Min(h, s.Horizon().Seconds()), y, c.text); err != nil {
				return nil, 0, err
			}
			count = stuckRange(s)
		}
		ticks = append(ticks, gplot.Tick{Value: y, Label: fmt.Sprintf("%s (%s)", name, count)})
	}
	slices.SortFunc(ticks, func(a, b gplot.Tick) int { return cmp.Compare(a.Value, b.Value) })
	p.Y.Tick.Marker = gplot.ConstantTicks(ticks)
	p.Y.Min, p.Y.Max = 0, float64(n)+1
	p.Y.Label.Text = "schedule (polls)"
	return p, vg.Length(5+1.2*float64(n)) * vg.Centimeter, nil
}

// addClock draws the polls of a wall-clock phase on a timeline row: a
// grey bar at height y from age from to age to (seconds), labelled with
// the phase above it.
func addClock(p *gplot.Plot, from, to, y float64, text string) error {
	bar, err := plotter.NewLine(plotter.XYs{{X: from, Y: y}, {X: to, Y: y}})
	if err != nil {
		return err
	}
	bar.LineStyle = draw.LineStyle{Color: color.RGBA{R: 140, G: 140, B: 140, A: 255}, Width: vg.Points(5)}
	label, err := plotter.NewLabels(plotter.XYLabels{XYs: plotter.XYs{{X: from, Y: y + 0.22}}, Labels: []string{text}})
	if err != nil {
		return err
	}
	for i := range label.TextStyle {
		label.TextStyle[i].Font.Size = vg.Points(8)
		label.TextStyle[i].YAlign = draw.YBottom
	}
	p.Add(bar, label)
	return nil
}

// stuckRange writes the polls an item that never settles costs under s,
// which depend on its creation instant when s has a wall-clock phase, as
// "15" or a range "15–17" (optimize.Schedule.StuckPollsRange).
func stuckRange(s optimize.Schedule) string {
	lo, hi := s.StuckPollsRange()
	if lo == hi {
		return fmt.Sprint(lo)
	}
	return fmt.Sprintf("%d–%d", lo, hi)
}

// EmpiricalCDF returns the empirical CDF of settle times (seconds): the
// share of the times at or below t. It is what Timeline takes when no
// density has been fitted.
func EmpiricalCDF(times []float64) func(t float64) float64 {
	s := slices.Clone(times)
	slices.Sort(s)
	n := float64(len(s))
	return func(t float64) float64 {
		if n == 0 {
			return 0
		}
		i, found := slices.BinarySearch(s, t)
		for found && i < len(s) && s[i] == t {
			i++
		}
		return float64(i) / n
	}
}
