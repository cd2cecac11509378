package fit

import (
	"fmt"
	"math"
	"testing"
)

// TestKDEPathsAgree: the KDE's two evaluations of the binned convolution,
// by FFT (convolveGauss) and summed directly at the cells read
// (kdeDirect), agree with the defining sums over all cells,
//
//	pdf_j = Σ_k y_k φ((j − k)·dx/h)/h,  cdf_j = Σ_k y_k Φ((j − k)·dx/h),
//
// to 10⁻¹³ of the peak density and 10⁻¹³ in the CDF, on grids fine
// (dx = h/50: the transform in closed form), at the default step (h/4)
// and coarse (dx = h/1.5: the sampled kernel, rescaled to keep mass).
func TestKDEPathsAgree(t *testing.T) {
	r := pcg(41)
	const m = 600
	for _, steps := range []float64{50, 4, 1.5} {
		t.Run(fmt.Sprintf("dx=h/%g", steps), func(t *testing.T) {
			y := make([]float64, m)
			for i := 150; i < 450; i++ { // masses inside the grid, zeros at both ends
				y[i] = r.Float64()
			}
			tot := 0.0
			for _, v := range y {
				tot += v
			}
			for i := range y {
				y[i] /= tot
			}
			dx := 1.0
			h := steps * dx
			K := min(int(math.Ceil(kernelReach*h/dx)), m-1)
			// The sampled kernel's scale, as both paths apply it.
			ksum := 0.0
			for l := -m + 1; l < m; l++ {
				ksum += math.Exp(-0.5*sq(float64(l)*dx/h)) / (h * math.Sqrt(2*math.Pi))
			}
			scale := 1 / (ksum * dx)
			dens, cdf := convolveGauss(y, dx, h, K, kdeFFTLen(y, K), true)
			direct := newKDEDirect(y, dx, h, K, true)
			peak := 0.0
			for _, v := range dens {
				peak = math.Max(peak, v)
			}
			for j := 0; j < m; j += 7 {
				var wantP, wantC float64
				for k, v := range y {
					z := float64(j-k) * dx / h
					wantP += v * math.Exp(-z*z/2) / (h * math.Sqrt(2*math.Pi)) * scale
					wantC += v * stdNormalCDF(z)
				}
				dp, dc := direct.cell(j)
				for _, c := range []struct {
					name     string
					pdf, cdf float64
				}{{"fft", dens[j], cdf[j]}, {"direct", dp, dc}} {
					if math.Abs(c.pdf-wantP) > 1e-13*peak || math.Abs(c.cdf-wantC) > 1e-13 {
						t.Errorf("%s cell %d: pdf %.15g, cdf %.15g; want %.15g, %.15g (the sums)", c.name, j, c.pdf, c.cdf, wantP, wantC)
					}
				}
			}
		})
	}
}

// TestStepDFT: the closed form of the CDF kernel's transform
// (stepDFT) equals 2·Σ_{l≤K} Φ(−l·dx/h)·sin(θl), the sampled kernel's DFT
// summed directly to its reach K = ⌈9h/dx⌉, to 10⁻¹⁴ of its largest
// value, from the narrowest kernel it takes (dx = h/2) to wide ones, on
// FFT lengths of convolveGauss (fftLen) and others.
func TestStepDFT(t *testing.T) {
	for _, c := range []struct {
		n     int
		dx, h float64
	}{{2592, 1, 60}, {2592, 1, 4}, {2592, 0.5, 1}, {5000, 1, 300}, {64, 1, 2.5}, {81, 0.01, 0.035}} {
		eq := make([]float64, c.n/2+1)
		stepDFT(eq, c.n, c.dx, c.h)
		K := int(math.Ceil(9 * c.h / c.dx))
		want := make([]float64, len(eq))
		top := 0.0
		for q := range want {
			th := 2 * math.Pi * float64(q) / float64(c.n)
			for l := K; l >= 1; l-- {
				want[q] += 2 * stdNormalCDF(-float64(l)*c.dx/c.h) * math.Sin(th*float64(l))
			}
			top = max(top, math.Abs(want[q]))
		}
		for q := range eq {
			if math.Abs(eq[q]-want[q]) > 1e-14*top {
				t.Errorf("stepDFT(n=%d, dx=%g, h=%g)[%d] = %.17g, want %.17g (direct sum)", c.n, c.dx, c.h, q, eq[q], want[q])
			}
		}
	}
}

// TestKDEDirectBits: kdeDirect.cell, which reads the kernels
// forwards in one pass, gives bit for bit the sums
// Σ_i y_i·D_{j−i} and Σ_i y_i·G_{j−i} taken in index order, as they were
// written, at every cell of grids with empty stretches and masses up to
// both ends.
func TestKDEDirectBits(t *testing.T) {
	r := pcg(43)
	for _, K := range []int{1, 7, 40} {
		y := make([]float64, 300)
		for i := range y {
			if r.Float64() < 0.6 {
				y[i] = r.Float64() / 100
			}
		}
		for _, pdf := range []bool{true, false} {
			k := newKDEDirect(y, 0.1, 0.1*float64(K)/9, K, pdf)
			below := 0.0
			for j := range y {
				var conv, p float64
				for i := max(0, j-K); i <= min(len(y)-1, j+K); i++ {
					conv += y[i] * k.d[K+j-i]
					if pdf {
						p += y[i] * k.g[K+j-i]
					}
				}
				c := math.Max(0, below+y[j]/2-conv)
				below += y[j]
				gp, gc := k.cell(j)
				if math.Float64bits(gp) != math.Float64bits(p) || math.Float64bits(gc) != math.Float64bits(c) {
					t.Errorf("K=%d pdf=%v: cell(%d) = %.17g, %.17g, want %.17g, %.17g", K, pdf, j, gp, gc, p, c)
				}
			}
		}
	}
}
