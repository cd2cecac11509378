package fit

import (
	"cmp"
	"math"
	"slices"

	"github.com/pollfit/pollfit/internal/bulk"
	"github.com/pollfit/pollfit/sample"
)

// mixtureData builds the EM's view of the sample (see MixtureEM); with
// stuck, censored items may never settle.
func mixtureData(s *sample.Sample, stuck bool) *emData {
	delta := resolution(s.Times)
	d := &emData{delta: delta}
	// Settled v < vWide is a resolution cell wider than mixSigmaMin in ln t.
	vWide := 0.0
	if delta > 0 {
		vWide = delta / 2 * (math.Exp(mixSigmaMin) + 1) / math.Expm1(mixSigmaMin)
	}
	var cellW []float64 // by round(v/δ)
	if delta > 0 {
		cellW = make([]float64, int(vWide/delta)+2)
	}
	// First pass: counts and ranges of points and censored times.
	var nPts, nCens int
	ptLo, ptHi := math.Inf(1), 0.0
	cLo, cHi := math.Inf(1), 0.0
	for i, t := range s.Times {
		w := s.Weight(i)
		if w == 0 {
			continue
		}
		d.wAll += w
		switch {
		case s.IsCensored(i):
			if t > 0 {
				nCens++
				cLo, cHi = min(cLo, t), max(cHi, t)
			}
		case t == 0:
			d.zero += w
		case t < vWide && math.Round(t/delta) >= 1:
			cellW[int(math.Round(t/delta))] += w
		default:
			nPts++
			ptLo, ptHi = min(ptLo, t), max(ptHi, t)
		}
	}
	settled := func(i int) (float64, bool) {
		t := s.Times[i]
		if s.IsCensored(i) || t == 0 || (t < vWide && math.Round(t/delta) >= 1) || s.Weight(i) == 0 {
			return 0, false
		}
		return t, true
	}
	censored := func(i int) (float64, bool) {
		t := s.Times[i]
		return t, s.IsCensored(i) && t > 0 && s.Weight(i) != 0
	}
	d.py, d.pw, d.pv, d.cells = collect(s, nPts, ptLo, ptHi, mixCells, settled)
	// A censored cell is taken at its mean ln c; ln S(c) is smooth in ln c,
	// so the error is second order in the cells' width (about 10⁻⁶ per
	// item for ages spanning 300 s to 1 h).
	cy, cw, _, _ := collect(s, nCens, cLo, cHi, mixCensoredCells, censored)
	for i, y := range d.py {
		d.llConst -= d.pw[i] * y
		d.w += d.pw[i]
	}
	d.distinct = len(d.py)
	for k, w := range cellW {
		if w == 0 {
			continue
		}
		v := float64(k) * delta
		a, b := math.Log(v-delta/2), math.Log(v+delta/2)
		d.ia, d.ib, d.lw = append(d.ia, a), append(d.ib, b), append(d.lw, math.Log(b-a))
		d.iw = append(d.iw, w)
		d.w += w
		d.distinct++
	}
	for i, y := range cy {
		d.ia = append(d.ia, y)
		d.ib = append(d.ib, math.Inf(1))
		d.lw = append(d.lw, math.Inf(1))
		d.iw = append(d.iw, cw[i])
		d.w += cw[i]
		d.cured = stuck
	}
	if d.zero > 0 {
		// The atom at 0: zero·ln(z) + (wAll − zero)·ln(1 − z) at z = zero/wAll.
		z := d.zero / d.wAll
		d.llConst += d.zero * math.Log(z)
		if z < 1 {
			d.llConst += (d.wAll - d.zero) * math.Log1p(-z)
		}
	}
	// Starting points: the points and the finite intervals' midpoints.
	d.sx, d.sw = slices.Clone(d.py), slices.Clone(d.pw)
	for i, b := range d.ib {
		if !math.IsInf(b, 1) {
			d.sx = append(d.sx, (d.ia[i]+b)/2)
			d.sw = append(d.sw, d.iw[i])
		}
	}
	if len(d.sx) > len(d.py) {
		idx := make([]int, len(d.sx))
		for i := range idx {
			idx[i] = i
		}
		slices.SortFunc(idx, func(a, b int) int { return cmp.Compare(d.sx[a], d.sx[b]) })
		x, w := make([]float64, len(idx)), make([]float64, len(idx))
		for j, i := range idx {
			x[j], w[j] = d.sx[i], d.sw[i]
		}
		d.sx, d.sw = x, w
	}
	return d
}

// mixBinAbove is the number of items above which collect bins; a
// variable only so that tests can compare both paths.
var mixBinAbove = mixCells

// collect returns, for the n items where get gives a time (their times
// between lo and hi), ln t ascending with weights and within-variance:
// every distinct time once (ties merged) when n ≤ mixBinAbove, else the
// non-empty ones of the given number of cells of equal width in ln t.
func collect(s *sample.Sample, n int, lo, hi float64, cells int, get func(i int) (float64, bool)) (y, w, v []float64, used int) {
	if n == 0 {
		return nil, nil, nil, 0
	}
	if n <= mixBinAbove {
		type item struct{ y, w float64 }
		items := make([]item, 0, n)
		for i := range s.Times {
			if t, ok := get(i); ok {
				items = append(items, item{math.Log(t), s.Weight(i)})
			}
		}
		slices.SortFunc(items, func(a, b item) int { return cmp.Compare(a.y, b.y) })
		for _, it := range items {
			if k := len(y) - 1; k >= 0 && y[k] == it.y {
				w[k] += it.w
				continue
			}
			y, w = append(y, it.y), append(w, it.w)
		}
		return y, w, make([]float64, len(y)), 0
	}
	// Cells: weight, and Σw·d, Σw·d² of the offsets d from the cell's
	// centre (offsets keep the variance's precision), per chunk of items
	// on all cores, added in chunk order.
	ylo, yhi := math.Log(lo), math.Log(hi)
	dy := (yhi - ylo) / float64(cells)
	if !(dy > 0) {
		dy = 1
	}
	inv := 1 / dy
	chunks := bulk.NumChunks(len(s.Times))
	parts := make([][3][]float64, chunks)
	bulk.Chunks(len(s.Times), func(ch, a, b int) {
		var acc [3][]float64
		for j := range acc {
			acc[j] = make([]float64, cells)
		}
		for i := a; i < b; i++ {
			t, ok := get(i)
			if !ok {
				continue
			}
			yy := math.Log(t)
			j := min(int((yy-ylo)*inv), cells-1)
			off := yy - (ylo + (float64(j)+0.5)*dy)
			wi := s.Weight(i)
			acc[0][j] += wi
			acc[1][j] += wi * off
			acc[2][j] += wi * off * off
		}
		parts[ch] = acc
	})
	for j := range cells {
		var sw, s1, s2 float64
		for _, p := range parts {
			sw += p[0][j]
			s1 += p[1][j]
			s2 += p[2][j]
		}
		if sw == 0 {
			continue
		}
		m := s1 / sw
		y = append(y, ylo+(float64(j)+0.5)*dy+m)
		w = append(w, sw)
		v = append(v, max(0, s2/sw-m*m))
	}
	return y, w, v, cells
}
