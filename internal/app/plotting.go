package app

import (
	"time"

	"github.com/pollfit/pollfit/fit"
	"github.com/pollfit/pollfit/ingest"
	"github.com/pollfit/pollfit/internal/app/plot"
	"github.com/pollfit/pollfit/optimize"
)

// plotTitle is the title of a plot of the part: def alone for all items,
// "def: segment NAME" for a segment.
func plotTitle(def string, p part) string {
	if !p.segmented() {
		return def
	}
	return def + ": " + p.title()
}

// plotTimeline draws the poll times of the schedules over the part's
// density (see plot.Timeline) up to the horizon.
func plotTimeline(path string, p part, d *fit.Density, scheds []optimize.Schedule, horizon time.Duration) error {
	return plot.Timeline(path, d.CDF, scheds, horizon, plot.TimelineOptions{Title: plotTitle(plot.DefaultTimelineTitle, p)})
}

// plotDensity draws the histogram, density, survival and hazard of the
// part (s may be nil: no histogram).
func plotDensity(path string, p part, d *fit.Density, s *ingest.Sample) error {
	var label string
	if p.segmented() {
		label = p.title()
	}
	return plot.Density(path, d, s, plot.DensityOptions{Label: label})
}

// plotSample draws the poll times of the schedules over the empirical
// distribution of the part's sample (settled items only), or alone
// without one.
func plotSample(path string, p part, scheds []optimize.Schedule) error {
	var horizon time.Duration
	for _, sc := range scheds {
		horizon = max(horizon, sc.Horizon())
	}
	var cdf func(float64) float64
	title := plot.DefaultTimelineTitle
	if s := p.Sample; s != nil {
		var settled []float64
		for i, t := range s.Times {
			if !s.IsCensored(i) {
				settled = append(settled, t)
			}
		}
		cdf = plot.EmpiricalCDF(settled)
	} else {
		title = "Poll times" // no data, no distribution
	}
	return plot.Timeline(path, cdf, scheds, horizon, plot.TimelineOptions{Title: plotTitle(title, p)})
}
