package fit

import "math"

// The Kaplan–Meier quantile of a large censored sample, in place.
//
// The product-limit estimate needs the items in order of time, settled
// and censored together; a sorted copy of the times is 8 bytes a row,
// which the plan's horizon, chosen before the fit, must not add
// (docs/performance.md, Memory: 16 bytes a row). Instead the items are
// counted into buckets of equal width over [lo, hi] as quantile.go's
// selection does (a value's bucket is monotone in the value, so ties
// never straddle two), and the buckets are read in runs (windows) of at
// most kmWindow items: each window's settled and censored times are
// gathered by one pass over the sample, sorted, and walked as
// kaplanMeierSorted walks the whole, carrying the number at risk and S
// from window to window. A second walk of the one window that holds the
// quantile reads it off. Memory: the counts and one window (an eighth of
// the items); time: a pass over the sample a window, so about ten.

// kmWindow is the largest window of kmQuantile for n items: an eighth of
// them, and at least 2²⁰ (then one window holds samples of up to 2²⁰).
func kmWindow(n int) int { return max((n+7)/8, 1<<20) }

// kmState is the Kaplan–Meier walk between two event times.
type kmState struct {
	atRisk float64 // items not yet settled nor censored before
	surv   float64 // S just after the last event walked
	cum    float64 // the masses of the settled items walked
	lastT  float64 // the last event time walked (NaN: none)
	lastM  float64 // the mass of each item settled at lastT
}

// walk walks the sorted event times ev and censoring times ce of one
// window (every item of which is at or after every item walked before),
// calling visit for each distinct event time t with its count d, the mass
// of each item settled there, and the masses before it; visit returning
// true stops the walk. Censored items at t are still at risk at t (R's
// survival::survfit).
func (st *kmState) walk(ev, ce []float64, visit func(t, d, m, before float64) bool) bool {
	c := 0
	for i := 0; i < len(ev); {
		t := ev[i]
		for ; c < len(ce) && ce[c] < t; c++ {
			st.atRisk--
		}
		j := i
		for j < len(ev) && ev[j] == t {
			j++
		}
		d := float64(j - i)
		m := st.surv / st.atRisk
		if visit != nil && visit(t, d, m, st.cum) {
			return true
		}
		st.cum += d * m
		st.surv *= 1 - d/st.atRisk
		st.atRisk -= d
		st.lastT, st.lastM = t, m
		i = j
	}
	st.atRisk -= float64(len(ce) - c)
	return false
}

// kmQuantile is SettledQuantile's p-quantile of the times x of which
// censored marks the pending items, some settled, some censored among the
// settles, by windows of at most window items (a bucket of more is a
// window alone). It modifies neither slice.
func kmQuantile(x []float64, censored []bool, p float64, window int) float64 {
	lo, hi := minMax(x)
	nb := selectBuckets(len(x))
	inv := float64(nb) / (hi - lo)
	of := func(v float64) int { return min(int((v-lo)*inv), nb-1) }
	nev, nce := make([]int, nb), make([]int, nb)
	for i, v := range x {
		if censored[i] {
			nce[of(v)]++
		} else {
			nev[of(v)]++
		}
	}
	// The windows: runs of buckets [b0, b1] of at most window items.
	type win struct {
		b0, b1   int
		ev, ce   int
		start    kmState
		maxBelow float64 // the masses before the window's last settled item
	}
	var wins []win
	for b := 0; b < nb; {
		w := win{b0: b}
		for b < nb && (b == w.b0 || w.ev+w.ce+nev[b]+nce[b] <= window) {
			w.ev += nev[b]
			w.ce += nce[b]
			b++
		}
		w.b1 = b - 1
		wins = append(wins, w)
	}
	size := 0
	for _, w := range wins {
		size = max(size, w.ev+w.ce)
	}
	buf := make([]float64, 0, size)
	gather := func(w win) (ev, ce []float64) {
		buf = buf[:w.ev+w.ce]
		ev, ce = buf[:0:w.ev], buf[w.ev:w.ev]
		for i, v := range x {
			if b := of(v); b >= w.b0 && b <= w.b1 {
				v += 0 // −0 to +0: the sort orders the floats' bits
				if censored[i] {
					ce = append(ce, v)
				} else {
					ev = append(ev, v)
				}
			}
		}
		sortFloats(ev)
		sortFloats(ce)
		return ev, ce
	}
	st := kmState{atRisk: float64(len(x)), surv: 1, lastT: math.NaN()}
	for k := range wins {
		w := &wins[k]
		w.start = st
		if w.ev == 0 {
			st.atRisk -= float64(w.ce)
			continue
		}
		ev, ce := gather(*w)
		st.walk(ev, ce, nil)
		w.maxBelow = st.cum - st.lastM
	}
	// Type 7, weighted: item i of the settled items in order sits at
	// (Σ_{j<i} m_j)/(Σm − m_last); the quantile is the first item at or
	// past p, interpolated from the one before it.
	den := st.cum - st.lastM
	target := p * den
	var w *win
	for k := range wins {
		if wins[k].ev > 0 && wins[k].maxBelow >= target {
			w = &wins[k]
			break
		}
	}
	if w == nil || den <= 0 {
		return st.lastT
	}
	ev, ce := gather(*w)
	q := st.lastT
	at := w.start
	at.walk(ev, ce, func(t, d, m, before float64) bool {
		if before+(d-1)*m < target {
			return false
		}
		switch {
		case before < target:
			q = t // among ties at t
		case before == target || math.IsNaN(at.lastT):
			q = t
		default:
			prev := before - at.lastM
			f := (target - prev) / (before - prev)
			q = at.lastT + f*(t-at.lastT)
		}
		return true
	})
	return q
}
