package fit

import (
	"math"
	"math/cmplx"

	"sync"
)

// dct2 returns c_k = Σ_j x_j cos(πk(2j+1)/(2m)), the unnormalised DCT-II,
// from one real FFT of m points of the reordered sequence v_j = x_{2j},
// v_{m−1−j} = x_{2j+1}: c_k = Re(e^(−iπk/(2m))·V_k) (Makhoul 1980, "A
// fast cosine transform in one and two dimensions", IEEE Trans. ASSP
// 28(1)). m must be even. The result comes from floatScratch.
func dct2(x []float64) []float64 {
	m := len(x)
	v := floatScratch.get(m) // written whole
	for j := range m / 2 {
		v[j] = x[2*j]
		v[m-1-j] = x[2*j+1]
	}
	fft := getFFT(m)
	fv := fft.Coefficients(complexScratch.get(m/2+1), v)
	putFFT(fft)
	defer complexScratch.put(fv)
	tw := dctTwiddles(m)
	out := v // v is no longer needed
	for k := range m {
		var c complex128
		if k <= m/2 {
			c = fv[k]
		} else {
			c = cmplx.Conj(fv[m-k])
		}
		out[k] = real(c)*tw[k][0] + imag(c)*tw[k][1]
	}
	return out
}

// dctTwiddles returns cos and sin of πk/(2m), k < m, made once per m.
func dctTwiddles(m int) [][2]float64 {
	if t, ok := dctTwiddleCache.Load(m); ok {
		return t.([][2]float64)
	}
	tw := make([][2]float64, m)
	for k := range tw {
		s, c := math.Sincos(math.Pi * float64(k) / float64(2*m))
		tw[k] = [2]float64{c, s}
	}
	dctTwiddleCache.Store(m, tw)
	return tw
}

var dctTwiddleCache sync.Map // m → [][2]float64
