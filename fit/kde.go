package fit

import (
	"math"

	"github.com/pollfit/pollfit/internal/bulk"
	"gonum.org/v1/gonum/dsp/fourier"
)

// binLinear adds the weights of x (w nil: mass each) to the m cells of the
// regular grid lo + j·(hi−lo)/(m−1) by linear binning: a point between
// cells j and j+1 gives each a share proportional to its closeness
// (Wand & Jones 1995, Kernel Smoothing, appendix D; the same rule as R's
// C_BinDist). Points outside [lo, hi] are dropped. With mirror the points
// are binned at −x (reflection at 0).
func binLinear(dst, x, w []float64, mass, lo, hi float64, mirror bool) {
	if len(x) >= 2*bulk.ChunkItems {
		// On all cores: each chunk into its own bins, added in chunk
		// order so the sums do not depend on the schedule.
		parts := make([][]float64, bulk.NumChunks(len(x)))
		bulk.Chunks(len(x), func(k, a, b int) {
			var wk []float64
			if w != nil {
				wk = w[a:b]
			}
			parts[k] = make([]float64, len(dst))
			binLinear(parts[k], x[a:b], wk, mass, lo, hi, mirror)
		})
		for _, p := range parts {
			for j, v := range p {
				dst[j] += v
			}
		}
		return
	}
	m := len(dst)
	dx := (hi - lo) / float64(m-1)
	for i, v := range x {
		if mirror {
			v = -v
		}
		wi := mass
		if w != nil {
			wi = w[i]
		}
		if wi == 0 {
			continue
		}
		pos := (v - lo) / dx
		if !(pos >= 0) || pos > float64(m-1) {
			continue
		}
		j := int(pos)
		if j >= m-1 {
			dst[m-1] += wi
			continue
		}
		f := pos - float64(j)
		dst[j] += wi * (1 - f)
		dst[j+1] += wi * f
	}
}

// convolveGauss convolves the binned masses y (cells dx apart) with a
// Gaussian kernel of standard deviation h by FFT, zero-padded to 2m so
// that nothing wraps around (Silverman 1982, "Algorithm AS 176"). It
// returns the density at each cell (nil without pdf) and, when cdf is
// not nil, fills cdf with Σ_k y_k Φ((x_j − x_k)/h), the exact CDF of the
// binned estimate. Cost O(m log m).
//
// The sampled kernel is rescaled to sum to 1/dx so that mass is kept even
// when dx is not small against h; for dx ≤ h/2 the correction is below
// 1e-30 (Poisson summation: error ~ 2·exp(−2π²h²/dx²)).
func convolveGauss(y []float64, dx, h float64, cdf []float64, pdf bool) []float64 {
	m := len(y)
	n := 2 * m
	fft := fourier.NewFFT(n)
	pad := make([]float64, n)
	copy(pad, y)
	fy := fft.Coefficients(nil, pad)

	kern := make([]float64, n)
	var dens []float64
	if pdf {
		dens = convolvePDF(fft, fy, kern, dx, h)
	}
	if cdf != nil {
		for l := 0; l < m; l++ {
			kern[l] = stdNormalCDF(float64(l) * dx / h)
			if l > 0 {
				kern[n-l] = stdNormalCDF(-float64(l) * dx / h)
			}
		}
		kern[m] = 0 // lag ±m never meets a nonzero cell
		c := convolve(fft, fy, kern)
		copy(cdf, c[:m])
		// Round-off can break monotonicity by ~1e-16; the CDF must not.
		prev := 0.0
		for i, v := range cdf {
			v = math.Max(prev, v)
			cdf[i] = v
			prev = v
		}
	}
	return dens
}

// convolvePDF returns the density part of convolveGauss, with kern (2m
// long) as scratch.
func convolvePDF(fft *fourier.FFT, fy []complex128, kern []float64, dx, h float64) []float64 {
	n := len(kern)
	m := n / 2
	sum := 0.0
	for l := 0; l < m; l++ {
		v := math.Exp(-0.5*sq(float64(l)*dx/h)) / (h * math.Sqrt(2*math.Pi))
		kern[l] = v
		sum += v
		if l > 0 {
			kern[n-l] = v
			sum += v
		}
	}
	if k := 1 / (sum * dx); math.Abs(k-1) > 1e-12 {
		for i := range kern {
			kern[i] *= k
		}
	}
	pdf := convolve(fft, fy, kern)[:m]
	for i, v := range pdf {
		pdf[i] = math.Max(0, v)
	}
	return pdf
}

// convolve returns the circular convolution of the sequence with
// coefficients fy and kern.
func convolve(fft *fourier.FFT, fy []complex128, kern []float64) []float64 {
	fk := fft.Coefficients(nil, kern)
	for i := range fk {
		fk[i] *= fy[i]
	}
	out := fft.Sequence(nil, fk)
	inv := 1 / float64(len(out))
	for i := range out {
		out[i] *= inv
	}
	return out
}

// kdeGrid is a kernel density estimate evaluated on the regular grid
// Lo + j·DX, j < len(PDF), with the CDF of the estimate at the same points.
type kdeGrid struct {
	Lo, DX   float64
	PDF, CDF []float64
}

// gaussKDE estimates the density of x (weights w, nil meaning mass each)
// with a Gaussian kernel of bandwidth h on m cells spanning [lo, hi], by
// linear binning and FFT. With reflect, each point is also placed at −x,
// which is the reflection estimator for data ≥ 0 (Silverman 1986 §2.10).
// Without pdf only the CDF is computed (the PDF reads 0): two FFTs of
// the five saved.
func gaussKDE(x, w []float64, mass, h, lo, hi float64, m int, reflect, pdf bool) kdeGrid {
	y := make([]float64, m)
	binLinear(y, x, w, mass, lo, hi, false)
	if reflect {
		binLinear(y, x, w, mass, lo, hi, true)
	}
	dx := (hi - lo) / float64(m-1)
	cdf := make([]float64, m)
	dens := convolveGauss(y, dx, h, cdf, pdf)
	if dens == nil {
		dens = make([]float64, m)
	}
	return kdeGrid{Lo: lo, DX: dx, PDF: dens, CDF: cdf}
}

// at returns the estimate's PDF and CDF at y, interpolated linearly;
// outside the grid the PDF is 0 and the CDF is its end value.
func (g kdeGrid) at(y float64) (pdf, cdf float64) {
	pos := (y - g.Lo) / g.DX
	last := len(g.PDF) - 1
	switch {
	case !(pos > 0):
		if pos == 0 {
			return g.PDF[0], g.CDF[0]
		}
		return 0, g.CDF[0]
	case pos >= float64(last):
		if pos == float64(last) {
			return g.PDF[last], g.CDF[last]
		}
		return 0, g.CDF[last]
	}
	j := int(pos)
	f := pos - float64(j)
	return g.PDF[j] + f*(g.PDF[j+1]-g.PDF[j]), g.CDF[j] + f*(g.CDF[j+1]-g.CDF[j])
}

func sq(x float64) float64 { return x * x }

// stdNormalCDF is Φ, the standard normal CDF.
func stdNormalCDF(z float64) float64 { return 0.5 * math.Erfc(-z/math.Sqrt2) }
