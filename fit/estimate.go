package fit

import (
	"fmt"
	"math"
)

// Options configures Estimate. The zero value estimates a histogram
// density on DefaultGrid points up to the largest observed time.
type Options struct {
	// Horizon is the last grid time, seconds; 0 means the largest time in
	// the sample. Mass beyond it is the stuck share.
	Horizon float64
	// Grid is the number of grid points; 0 means DefaultGrid.
	Grid int
}

// DefaultGrid is the default number of grid points.
const DefaultGrid = 2048

// Estimate estimates the settle-time distribution of the sample.
func Estimate(s *Sample, opt Options) (*Density, error) {
	if s.Len() == 0 {
		return nil, fmt.Errorf("fit: %w", ErrNoRows)
	}
	if err := s.Validate(); err != nil {
		return nil, fmt.Errorf("fit: %w", err)
	}
	m := opt.Grid
	if m <= 0 {
		m = DefaultGrid
	}
	upper := opt.Horizon
	if upper <= 0 {
		for _, t := range s.Times {
			upper = math.Max(upper, t)
		}
		if upper == 0 {
			upper = 1
		}
	}
	d := &Density{N: s.Len(), Censored: s.CensoredCount(), Method: "histogram"}
	d.T = make([]float64, m)
	step := upper / float64(m-1)
	for i := range d.T {
		d.T[i] = float64(i) * step
	}
	d.T[m-1] = upper
	d.PDFs = make([]float64, m)
	var total, beyond float64
	for i, t := range s.Times {
		w := s.Weight(i)
		total += w
		if t > upper || s.IsCensored(i) {
			beyond += w
			continue
		}
		j := int(t/step + 0.5)
		if j >= m {
			j = m - 1
		}
		d.PDFs[j] += w
	}
	for j := range d.PDFs {
		width := step
		if j == 0 || j == m-1 {
			width = step / 2
		}
		d.PDFs[j] /= total * width
	}
	d.StuckShare = beyond / total
	d.finish()
	return d, nil
}
