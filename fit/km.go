package fit

import (
	"cmp"
	"math"
	"slices"
)

// KaplanMeier is the product-limit estimate of the survival function from
// right-censored data (Kaplan & Meier 1958), one entry per distinct settle
// (event) time:
//
//	S(t) = Π_{t_j ≤ t} (1 − d_j/n_j)
//	Var S(t) = S(t)² Σ_{t_j ≤ t} d_j / (n_j (n_j − d_j))     (Greenwood 1926)
//
// where d_j is the (weighted) number settling at t_j and n_j the number
// still at risk just before it; an item censored at t_j counts as at risk
// at t_j, as in R's survival::survfit. StdErr is the standard error of
// S(t) itself (survfit's summary()$std.err).
type KaplanMeier struct {
	T        []float64 `json:"t"`        // distinct event times, seconds
	Survival []float64 `json:"survival"` // S(t) just after T[j]
	StdErr   []float64 `json:"std_err"`  // Greenwood standard error of Survival
	AtRisk   []float64 `json:"n_risk"`   // n_j
	Events   []float64 `json:"n_event"`  // d_j
}

// NewKaplanMeier computes the Kaplan–Meier estimate of the sample. It
// returns an empty estimate when no item settled.
func NewKaplanMeier(s *Sample) *KaplanMeier {
	km, _ := kaplanMeier(s)
	return km
}

// kaplanMeier also returns each item's share of the KM jumps: a settled
// item at t_j carries w_i·S(t_j−)/n_j (Efron's redistribution to the
// right), censored items carry 0. The shares sum to 1 − S(last event).
func kaplanMeier(s *Sample) (*KaplanMeier, []float64) {
	n := s.Len()
	idx := makeBig[int](n, n)
	for i := range idx {
		idx[i] = i
	}
	// Events before censorings at equal times: the censored item was
	// still at risk at that time.
	slices.SortFunc(idx, func(a, b int) int {
		if c := cmp.Compare(s.Times[a], s.Times[b]); c != 0 {
			return c
		}
		ca, cb := s.IsCensored(a), s.IsCensored(b)
		switch {
		case ca == cb:
			return 0
		case cb:
			return -1
		}
		return 1
	})
	atRisk := s.TotalWeight()
	km := &KaplanMeier{}
	share := makeBig[float64](n, n)
	surv, gw := 1.0, 0.0
	for k := 0; k < n; {
		t := s.Times[idx[k]]
		var d, gone float64
		j := k
		for ; j < n && s.Times[idx[j]] == t; j++ {
			w := s.Weight(idx[j])
			gone += w
			if !s.IsCensored(idx[j]) {
				d += w
			}
		}
		if d > 0 && atRisk > 0 {
			for _, i := range idx[k:j] {
				if !s.IsCensored(i) {
					share[i] = s.Weight(i) * surv / atRisk
				}
			}
			surv *= 1 - d/atRisk
			if atRisk > d {
				gw += d / (atRisk * (atRisk - d))
			} else {
				gw = math.Inf(1) // S = 0: Greenwood's term is 0/0; survfit reports NaN·0
			}
			se := surv * math.Sqrt(gw)
			if surv == 0 {
				se = 0
			}
			km.T = append(km.T, t)
			km.Survival = append(km.Survival, surv)
			km.StdErr = append(km.StdErr, se)
			km.AtRisk = append(km.AtRisk, atRisk)
			km.Events = append(km.Events, d)
		}
		atRisk -= gone
		k = j
	}
	return km, share
}

// At returns S(t), the estimated survival just after t (1 before the
// first event time).
func (km *KaplanMeier) At(t float64) float64 {
	i, found := slices.BinarySearch(km.T, t)
	if found {
		return km.Survival[i]
	}
	if i == 0 {
		return 1
	}
	return km.Survival[i-1]
}
