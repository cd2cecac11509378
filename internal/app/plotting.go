package app

import (
	"errors"
	"time"

	"github.com/pollfit/pollfit/fit"
	"github.com/pollfit/pollfit/optimize"
)

// plotTimeline draws the poll times of the schedules over the density.
func plotTimeline(path string, d *fit.Density, scheds []optimize.Schedule, horizon time.Duration) error {
	return errors.New("--plot: not available yet")
}

// plotDensity draws the histogram, density, survival and hazard.
func plotDensity(path string, d *fit.Density, s *fit.Sample) error {
	return errors.New("--plot: not available yet")
}
