package app

import (
	"errors"
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
	return plot.Timeline(path, d.CDF, scheds, horizon)
}

// plotDensity draws the histogram, density, survival and hazard.
func plotDensity(path string, d *fit.Density, s *fit.Sample) error {
	return errors.New("--plot: not available yet")
}
