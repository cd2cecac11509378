package app

import (
	"time"

	"github.com/pollfit/pollfit/fit"
	"github.com/pollfit/pollfit/internal/plot"
	"github.com/pollfit/pollfit/optimize"
)

// plotTimeline draws the poll times of the schedules over the density
// (see plot.Timeline); horizon 0 means the solvers' default.
func plotTimeline(path string, d *fit.Density, scheds []optimize.Schedule, horizon time.Duration) error {
	if horizon == 0 {
		horizon = optimize.DefaultHorizon
	}
	return plot.Timeline(path, d.CDF, scheds, horizon, plot.TimelineOptions{})
}

// plotDensity draws the histogram, density, survival and hazard.
func plotDensity(path string, d *fit.Density, s *fit.Sample) error {
	return fit.Plot(d, s, path, fit.PlotOptions{})
}

// plotSample draws the poll times of the schedules over the empirical
// distribution of the sample (settled items only), or alone without one.
func plotSample(path string, s *fit.Sample, scheds []optimize.Schedule) error {
	var horizon time.Duration
	for _, sc := range scheds {
		horizon = max(horizon, sc.Horizon())
	}
	var cdf func(float64) float64
	if s != nil {
		var settled []float64
		for i, t := range s.Times {
			if !s.IsCensored(i) {
				settled = append(settled, t)
			}
		}
		cdf = plot.EmpiricalCDF(settled)
	}
	return plot.Timeline(path, cdf, scheds, horizon, plot.TimelineOptions{})
}
