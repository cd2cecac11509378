package fit

import (
	"math"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/pollfit/pollfit/internal/bulk"
	"gonum.org/v1/gonum/dsp/fourier"
)

// binLinear adds the weights of x (w nil: mass each) to the m cells of the
// regular grid lo + j·(hi−lo)/(m−1) by linear binning: a point between
// cells j and j+1 gives each a share proportional to its closeness
// (Wand & Jones 1995, Kernel Smoothing, appendix D; the same rule as R's
// C_BinDist). Points outside [lo, hi] are dropped. With mirror each point
// is also binned at −x (reflection at 0), in the same pass: a second
// pass over the values cost more than binning them (most mirrored points
// fall below the grid, but each is read, negated and tested).
func binLinear(dst, x, w []float64, mass, lo, hi float64, mirror bool) {
	// On all cores: each chunk into bins of its own, added in chunk order
	// so that the sums do not depend on the schedule. A chunk holds at
	// least 4 items per cell, so that clearing and adding its bins stays
	// small against binning its items (2²⁰ cells for the linear domain's
	// narrow kernels).
	if chunk := max(bulk.ChunkItems, 4*len(dst)); len(x) >= 2*chunk {
		addChunks(dst, len(x), chunk, func(a, b int, bins []float64) {
			var wk []float64
			if w != nil {
				wk = w[a:b]
			}
			binLinear(bins, x[a:b], wk, mass, lo, hi, mirror)
		})
		return
	}
	dx := (hi - lo) / float64(len(dst)-1)
	for i, v := range x {
		wi := mass
		if w != nil {
			wi = w[i]
		}
		if wi == 0 {
			continue
		}
		binAt(dst, v, wi, lo, dx)
		// Mirrored below lo by a cell or more, pos would be −1 or less:
		// skipped without the division (most mirrored points).
		if mirror && -v-lo > -dx {
			binAt(dst, -v, wi, lo, dx)
		}
	}
}

// binAt adds weight wi at v to the cells dx apart from lo (binLinear).
func binAt(dst []float64, v, wi, lo, dx float64) {
	pos := (v - lo) / dx
	last := len(dst) - 1
	if !(pos >= 0) || pos > float64(last) {
		return
	}
	j := int(pos)
	if j >= last {
		dst[last] += wi
		return
	}
	f := pos - float64(j)
	dst[j] += wi * (1 - f)
	dst[j+1] += wi * f
}

// addChunks calls bin(a, b, bins) for the chunks [a, b) of size items of
// [0, n) on GOMAXPROCS goroutines, each with zeroed bins as long as acc,
// and adds each chunk's bins into acc in chunk order as they finish (the
// sums then do not depend on the schedule). Bins are reused from chunk to
// chunk: fresh memory for each cost more in page faults than the binning.
func addChunks(acc []float64, n, size int, bin func(a, b int, bins []float64)) {
	chunks := (n + size - 1) / size
	workers := min(runtime.GOMAXPROCS(0), chunks)
	var mu sync.Mutex
	turn := sync.NewCond(&mu)
	next := 0
	free := make(chan []float64, workers)
	var job atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for {
				k := int(job.Add(1)) - 1
				if k >= chunks {
					return
				}
				var bins []float64
				select {
				case bins = <-free:
				default:
					bins = bulk.Make[float64](len(acc), len(acc))
				}
				bin(k*size, min(n, (k+1)*size), bins)
				mu.Lock()
				for next != k {
					turn.Wait()
				}
				for j, v := range bins {
					acc[j] += v
				}
				next++
				turn.Broadcast()
				mu.Unlock()
				clear(bins)
				select {
				case free <- bins:
				default:
				}
			}
		})
	}
	wg.Wait()
}

// kernelReach is how far, in bandwidths, the Gaussian kernel is summed:
// beyond 9h its density is below e^(−40.5) = 2.6·10⁻¹⁸ of its peak and
// its CDF within Φ(−9) = 1.1·10⁻¹⁹ of 0 or 1, under the rounding of the
// sums themselves.
const kernelReach = 9

// kdeGrid is a kernel density estimate on the regular grid Lo + j·DX,
// j < M, with the CDF of the estimate at the same points, read by at.
// The FFT evaluation fills PDF and CDF at every cell; the direct one
// (kdeDirect) computes a cell when at first reads it.
type kdeGrid struct {
	Lo, DX   float64
	M        int
	PDF, CDF []float64 // every cell (FFT); nil for the direct evaluation
	direct   *kdeDirect
	bins     []float64 // the binned masses
}

// release gives the grid's buffers back to floatScratch; g must not be
// read after.
func (g *kdeGrid) release() {
	for _, b := range [][]float64{g.bins, g.PDF, g.CDF} {
		if b != nil {
			floatScratch.put(b)
		}
	}
	*g = kdeGrid{}
}

// gaussKDE estimates the density of x (weights w, nil meaning mass each)
// with a Gaussian kernel of bandwidth h on m cells spanning [lo, hi], by
// linear binning and a discrete convolution with the kernel sampled at
// the cells (Wand & Jones 1995, App. D). With reflect, each point is also
// placed at −x, which is the reflection estimator for data ≥ 0
// (Silverman 1986 §2.10). Without pdf only the CDF is computed (the PDF
// reads 0). queries is about how many times at will be called; with the
// kernel's reach K = ⌈9h/dx⌉ cells, the convolution is summed directly
// at the cells read (2·queries cells of 2K + 1 terms each) when that is
// cheaper than by FFT over all m cells (four FFTs of about m + K points):
// a kernel narrow against a long grid (the linear domain's hour-long
// tails at small bandwidths, 2²⁰ cells) costs a few thousand short sums
// instead of FFTs of 2²¹ points. Both give the same values to rounding.
func gaussKDE(x, w []float64, mass, h, lo, hi float64, m int, reflect, pdf bool, queries int) *kdeGrid {
	var y []float64
	if m > 1<<19 {
		y = bulk.Make[float64](m, m)
	} else {
		y = floatScratch.get(m)
		clear(y) // binLinear adds to the cells
	}
	binLinear(y, x, w, mass, lo, hi, reflect)
	dx := (hi - lo) / float64(m-1)
	K := min(int(math.Ceil(kernelReach*h/dx)), m-1)
	n := kdeFFTLen(y, K)
	g := &kdeGrid{Lo: lo, DX: dx, M: m, bins: y}
	terms := 2 * float64(queries) * float64(2*K+1)
	if pdf {
		terms *= 2
	}
	// An FFT of n points costs about 2.5·n·log₂(n) terms of a direct sum
	// (measured: gonum's real FFT against the loops of kdeDirect.cell).
	fft := 2.5 * 4 * float64(n) * math.Log2(float64(n))
	if terms < fft {
		g.direct = newKDEDirect(y, dx, h, K, pdf)
		return g
	}
	g.PDF, g.CDF = convolveGauss(y, dx, h, K, n, pdf)
	return g
}

// kdeFFTLen returns the FFT length for convolving the m cells y with a
// kernel of reach K cells: the least fftLen such that the circular
// convolution wraps no mass within reach of a cell of the grid. With the
// masses in cells a…b (the first and last not 0), cell j takes cell k's
// at offset j − k ∈ [−b, m − 1 − a], and the wrapped offsets j − k ± n
// stay beyond ±K when n ≥ max(b, m − 1 − a) + K + 1 (and n ≥ m, to hold
// the cells). The grid reaches 4h
// past the data on either side and the kernel 9h, so this is about
// m + 5h/dx where m + K + 1 = m + 9h/dx would do at any masses (the
// reflect domain's mirrored masses, or data past the horizon, reach the
// grid's ends: then it is that).
func kdeFFTLen(y []float64, K int) int {
	m := len(y)
	a, b := 0, m-1
	for a < b && y[a] == 0 {
		a++
	}
	for b > a && y[b] == 0 {
		b--
	}
	return fftLen(max(m, max(b, m-1-a)+K+1)) // and the m cells themselves
}

// fftLen returns the least n ≥ k of the form 2^a·3^b·5^c (the factors
// gonum's FFT handles fastest).
func fftLen(k int) int {
	best := math.MaxInt
	for p5 := 1; p5 < 2*k; p5 *= 5 {
		for p35 := p5; p35 < 2*k; p35 *= 3 {
			v := p35
			for v < k {
				v *= 2
			}
			best = min(best, v)
		}
	}
	return best
}

// fftPlans keeps FFT plans for the life of the process, by length: a
// plan's twiddle factors cost as much as a transform to compute (ISJ's
// 2¹⁴ points: 0.24 ms, a tenth of a fit of 1,000 values), and a plan is
// not safe for concurrent use, so each caller takes one of its own and
// gives it back. A sync.Pool would not do: every garbage collection
// empties it, and a small fit allocates enough to collect every few fits.
// Idle plans are kept up to fftPlanBytes in all; beyond that a plan given
// back is dropped (a fit of 10⁷ values on 2²⁰ cells computes its plans
// again, at a thousandth of its cost).
var fftPlans struct {
	sync.Mutex
	idle  map[int][]*fourier.FFT
	bytes int
}

// fftPlanBytes bounds the memory of idle FFT plans: a plan of n points
// holds 3n float64 values (gonum: twiddles, scratch, input copy), so
// 8 MiB keeps some twenty of the default fits' sizes (2¹⁴ for ISJ, about
// 2,600 and 5,000 for the KDE).
const fftPlanBytes = 8 << 20

func getFFT(n int) *fourier.FFT {
	fftPlans.Lock()
	if free := fftPlans.idle[n]; len(free) > 0 {
		f := free[len(free)-1]
		fftPlans.idle[n] = free[:len(free)-1]
		fftPlans.bytes -= 24 * n
		fftPlans.Unlock()
		return f
	}
	fftPlans.Unlock()
	return fourier.NewFFT(n)
}

func putFFT(f *fourier.FFT) {
	n := f.Len()
	fftPlans.Lock()
	defer fftPlans.Unlock()
	if fftPlans.bytes+24*n > fftPlanBytes {
		return
	}
	if fftPlans.idle == nil {
		fftPlans.idle = map[int][]*fourier.FFT{}
	}
	fftPlans.idle[n] = append(fftPlans.idle[n], f)
	fftPlans.bytes += 24 * n
}

// convolveGauss convolves the binned masses y (cells dx apart) with a
// Gaussian kernel of standard deviation h by FFT of n ≥ m + K + 1 points,
// K = ⌈9h/dx⌉ the kernel's reach in cells, so that nothing within reach
// wraps around (Silverman 1982, "Algorithm AS 176"). It returns the
// density at each cell (nil without pdf) and the CDF
//
//	C_j = Σ_k y_k Φ((j − k)·dx/h) = Σ_{k<j} y_k + y_j/2 − Σ_k y_k D_{j−k},
//	D_l = sign(l)·Φ(−|l|·dx/h),
//
// the exact CDF of the binned estimate: D, the step function minus Φ, is
// the part that needs a convolution, and it vanishes beyond the reach.
// Cost O(n log n).
//
// The sampled kernel is scaled to sum to 1/dx so that mass is kept even
// when dx is not small against h. For dx ≤ h/2 its transform is taken in
// closed form: by Poisson summation the DFT of the Gaussian sampled at
// step dx (and repeated every n cells) is
//
//	Ĝ_q = Σ_r exp(−½h²(2π(q/n + r)/dx)²)
//
// whose terms |q/n + r| > 1 are below e^(−2π²h²/dx²) ≤ 10⁻³⁴ of Ĝ_0.
func convolveGauss(y []float64, dx, h float64, K, n int, pdf bool) (dens, cdf []float64) {
	m := len(y)
	fft := getFFT(n)
	defer putFFT(fft)
	// Work buffers from floatScratch and complexScratch, written whole
	// before they are read; dens and cdf come from floatScratch too
	// (kdeGrid.release).
	pad := floatScratch.get(n)
	copy(pad, y)
	clear(pad[m:])
	fy := fft.Coefficients(complexScratch.get(n/2+1), pad)
	prod := complexScratch.get(len(fy))
	defer complexScratch.put(fy)
	defer complexScratch.put(prod)
	if pdf {
		gq := floatScratch.get(len(fy))
		defer floatScratch.put(gq)
		if dx <= h/2 {
			gaussDFT(gq, n, dx, h)
		} else {
			clear(pad)
			sum := 0.0
			for l := 0; l <= K; l++ {
				v := math.Exp(-0.5 * sq(float64(l)*dx/h))
				pad[l] = v
				sum += v
				if l > 0 {
					pad[n-l] = v
					sum += v
				}
			}
			for q, c := range fft.Coefficients(prod, pad) {
				gq[q] = real(c) / sum // the sampled kernel is even: its DFT is real
			}
		}
		for q, c := range fy {
			prod[q] = c * complex(gq[q], 0)
		}
		dens = fft.Sequence(pad, prod)[:m] // pad's capacity, for release
		inv := 1 / (float64(n) * dx)
		for i, v := range dens {
			// math.Max(0, v) for every v (NaN, ±0), as a comparison:
			// math.Max is a call.
			if v *= inv; v <= 0 {
				v = 0
			}
			dens[i] = v
		}
		pad = floatScratch.get(n)
	}
	defer floatScratch.put(pad)
	if dx <= h/2 {
		// D's transform in closed form (stepDFT): one FFT fewer.
		eq := floatScratch.get(len(fy))
		stepDFT(eq, n, dx, h)
		for q, c := range fy {
			// c·(−i·E_q)
			prod[q] = complex(imag(c)*eq[q], -real(c)*eq[q])
		}
		floatScratch.put(eq)
	} else {
		clear(pad)
		for l := 1; l <= K; l++ {
			v := stdNormalCDF(-float64(l) * dx / h)
			pad[l] = v
			pad[n-l] = -v
		}
		for q, c := range fft.Coefficients(prod, pad) {
			prod[q] = c * fy[q]
		}
	}
	conv := fft.Sequence(pad, prod)
	inv := 1 / float64(n)
	cdf = floatScratch.get(m)
	// Round-off can break monotonicity by ~1e-16; the CDF must not.
	below, prev := 0.0, 0.0
	for j := range m {
		v := atLeast(prev, below+y[j]/2-conv[j]*inv)
		cdf[j] = v
		prev = v
		below += y[j]
	}
	return dens, cdf
}

// gaussDFT sets gq[q], q ≤ n/2, to the DFT of the unit-sum Gaussian of
// standard deviation h sampled at step dx, repeated every n steps (see
// convolveGauss): exp(−a·q²) + exp(−a·(n−q)²), a = 2π²h²/(n·dx)², each
// term 0 once below 10⁻²⁰.
func gaussDFT(gq []float64, n int, dx, h float64) {
	a := 2 * sq(math.Pi*h/(float64(n)*dx))
	cut := int(math.Sqrt(46/a)) + 1 // exp(−46) = 10⁻²⁰
	for q := range gq {
		v := 0.0
		if q <= cut {
			v = math.Exp(-a * float64(q) * float64(q))
		}
		if r := n - q; r <= cut {
			v += math.Exp(-a * float64(r) * float64(r))
		}
		gq[q] = v
	}
	// Unit sum in space is gq[0] = 1 in frequency (the alias terms of
	// q = 0 are below 10⁻³⁴ for dx ≤ h/2).
	g0 := gq[0]
	for q := range gq {
		gq[q] /= g0
	}
}

// stepDFT sets eq[q], q ≤ n/2, to E_q with −i·E_q the DFT over n points
// of convolveGauss' D_l = sign(l)·Φ(−|l|/σ), σ = h/dx, the step minus
// the Gaussian CDF sampled at the cells: D is odd, so its DFT is
// −2i·Σ_{l≥1} Φ(−l/σ)·sin(θl) at θ = 2πq/n. By Poisson summation of
// d(x) = H(x) − Φ(x/σ) (H the unit step, ½ at 0, as D_0 = 0), whose
// Fourier transform is (1 − e^(−σ²ω²/2))/(iω),
//
//	E_q = Σ_r (1 − e^(−σ²(θ+2πr)²/2))/(θ + 2πr)
//	    = ½·cot(θ/2) − 1/θ − 1/(θ − 2π)
//	      + (1 − e^(−σ²θ²/2))/θ + (1 − e^(−σ²(θ−2π)²/2))/(θ − 2π),
//
// using Σ_r 1/(θ + 2πr) = ½·cot(θ/2); the Gaussian terms of r ∉ {0, −1}
// are below e^(−2π²σ²) ≤ 10⁻³⁴ for σ ≥ 2 (dx ≤ h/2). The first line's
// cancellation near θ = 0 is avoided by its series,
// ½·cot(θ/2) − 1/θ = −θ/12 − θ³/720 − θ⁵/30240 − θ⁷/1209600 − θ⁹/47900160
// − …, used below θ = 1/4 (the next term is below 10⁻¹⁸ there). The
// sampled D is summed to infinity here and to the kernel's reach by FFT:
// they differ by Φ(−9) = 10⁻¹⁹ a term.
func stepDFT(eq []float64, n int, dx, h float64) {
	s2 := sq(h/dx) / 2
	tab := stepTable(n)
	for q := range eq {
		if q == 0 || 2*q == n {
			eq[q] = 0 // sin(θl) = 0 for every l
			continue
		}
		th := 2 * math.Pi * float64(q) / float64(n)
		w := th - 2*math.Pi
		// Past x = 40, math.Expm1(−x) is −1 exactly (e^(−40) is below
		// half an ulp of 1): the terms are 1/θ and 1/w without it.
		v := tab[q]
		if x := s2 * th * th; x < 40 {
			v -= math.Expm1(-x) / th
		} else {
			v += 1 / th
		}
		if x := s2 * w * w; x < 40 {
			v -= math.Expm1(-x) / w
		} else {
			v += 1 / w
		}
		eq[q] = v
	}
}

// stepTable returns ½·cot(θ/2) − 1/θ − 1/(θ − 2π) at θ = 2πq/n, q ≤ n/2
// (stepDFT): it depends on the FFT length alone, so it is kept by n for
// the life of the process, up to stepTableBytes in all (then made anew
// each time: a tangent a point, 5 % of a fit of 10³ values).
func stepTable(n int) []float64 {
	stepTables.Lock()
	tab, ok := stepTables.byLen[n]
	stepTables.Unlock()
	if ok {
		return tab
	}
	tab = make([]float64, n/2+1)
	for q := 1; q < len(tab); q++ {
		th := 2 * math.Pi * float64(q) / float64(n)
		var c float64
		if th < 0.25 {
			t2 := th * th
			c = -th * (1.0/12 + t2*(1.0/720+t2*(1.0/30240+t2*(1.0/1209600+t2/47900160))))
		} else {
			c = 0.5/math.Tan(th/2) - 1/th
		}
		tab[q] = c - 1/(th-2*math.Pi)
	}
	stepTables.Lock()
	defer stepTables.Unlock()
	if stepTables.bytes+8*len(tab) <= stepTableBytes {
		if stepTables.byLen == nil {
			stepTables.byLen = map[int][]float64{}
		}
		stepTables.byLen[n] = tab
		stepTables.bytes += 8 * len(tab)
	}
	return tab
}

// stepTables holds stepTable's tables by FFT length; stepTableBytes
// bounds them (some fifty of the 2,000–5,000-point lengths of fits of up
// to 10⁶ values in ln t).
var stepTables struct {
	sync.Mutex
	byLen map[int][]float64
	bytes int
}

const stepTableBytes = 2 << 20

// kdeDirect sums the convolution of convolveGauss directly at the cells
// read: the density Σ_{|l|≤K} y_{j−l} G_l and the CDF Σ_{k<j} y_k + y_j/2
// − Σ_{|l|≤K} y_{j−l} D_l, with Σ_{k<j} y_k carried from the last cell
// read (the cells are read in ascending order; a step back starts over).
type kdeDirect struct {
	y      []float64
	g, d   []float64 // G_l and D_l at l + K, l = −K…K; g nil without pdf
	K      int
	next   int     // Σ_{k<next} y_k is below
	below  float64 //
	cached [2]directCell
}

type directCell struct {
	j        int
	pdf, cdf float64
}

func newKDEDirect(y []float64, dx, h float64, K int, pdf bool) *kdeDirect {
	k := &kdeDirect{y: y, K: K, d: make([]float64, 2*K+1), cached: [2]directCell{{j: -1}, {j: -1}}}
	for l := 1; l <= K; l++ {
		v := stdNormalCDF(-float64(l) * dx / h)
		k.d[K+l], k.d[K-l] = v, -v
	}
	if pdf {
		k.g = make([]float64, 2*K+1)
		sum := 0.0
		for l := -K; l <= K; l++ {
			v := math.Exp(-0.5*sq(float64(l)*dx/h)) / (h * math.Sqrt(2*math.Pi))
			k.g[K+l] = v
			sum += v
		}
		if s := 1 / (sum * dx); math.Abs(s-1) > 1e-12 {
			for i := range k.g {
				k.g[i] *= s
			}
		}
	}
	return k
}

// cell returns the density and CDF at cell j.
func (k *kdeDirect) cell(j int) (pdf, cdf float64) {
	for _, c := range k.cached {
		if c.j == j {
			return c.pdf, c.cdf
		}
	}
	if j < k.next {
		k.next, k.below = 0, 0
	}
	for ; k.next < j; k.next++ {
		k.below += k.y[k.next]
	}
	y := k.y
	a, b := max(0, j-k.K), min(len(y)-1, j+k.K)
	// Σ y_i·D_{j−i} = −Σ y_i·D_{i−j} and Σ y_i·G_{j−i} = Σ y_i·G_{i−j}
	// to the bit (D is odd and G even, value for value, and negation
	// rounds alike), read forwards in one pass: no bounds checks, and the
	// two sums' chains side by side.
	ys := y[a : b+1]
	ds := k.d[k.K+a-j : k.K+b-j+1]
	ds = ds[:len(ys)]
	var conv float64
	if k.g != nil {
		gs := k.g[k.K+a-j : k.K+b-j+1]
		gs = gs[:len(ys)]
		for i, v := range ys {
			conv += v * ds[i]
			pdf += v * gs[i]
		}
	} else {
		for i, v := range ys {
			conv += v * ds[i]
		}
	}
	// math.Max(0, v) for every v, as a comparison (math.Max is a call).
	if cdf = k.below + y[j]/2 + conv; cdf <= 0 {
		cdf = 0
	}
	k.cached[0], k.cached[1] = k.cached[1], directCell{j, pdf, cdf}
	return pdf, cdf
}

// at returns the estimate's PDF and CDF at y, interpolated linearly;
// outside the grid the PDF is 0 and the CDF is its end value.
func (g *kdeGrid) at(y float64) (pdf, cdf float64) {
	pos := (y - g.Lo) / g.DX
	last := g.M - 1
	switch {
	case !(pos > 0):
		p, c := g.cell(0)
		if pos == 0 {
			return p, c
		}
		return 0, c
	case pos >= float64(last):
		p, c := g.cell(last)
		if pos == float64(last) {
			return p, c
		}
		return 0, c
	}
	j := int(pos)
	f := pos - float64(j)
	p0, c0 := g.cell(j)
	p1, c1 := g.cell(j + 1)
	c1 = atLeast(c0, c1) // the direct sums round each cell apart
	return p0 + f*(p1-p0), c0 + f*(c1-c0)
}

func (g *kdeGrid) cell(j int) (pdf, cdf float64) {
	if g.direct != nil {
		return g.direct.cell(j)
	}
	if g.PDF == nil {
		return 0, g.CDF[j]
	}
	return g.PDF[j], g.CDF[j]
}

func sq(x float64) float64 { return x * x }

// atLeast is math.Max(lo, x) for every lo and x (NaN, ±0 and ±Inf
// included), a comparison where x > lo: math.Max is a call, and the
// KDE's CDF and the output grid take one a point (7 % of a fit of 10³
// values).
func atLeast(lo, x float64) float64 {
	if x > lo {
		return x
	}
	return math.Max(lo, x)
}

// stdNormalCDF is Φ, the standard normal CDF.
func stdNormalCDF(z float64) float64 { return 0.5 * math.Erfc(-z/math.Sqrt2) }
