package fit

import (
	"math"
	"testing"

	"github.com/pollfit/pollfit/sample"
)

// fuzzSample decodes fuzz bytes as settle times: each pair of bytes a
// time in 10 ms steps (0 to 655.35 s), every 7th censored when asked.
func fuzzSample(data []byte, censor bool) *sample.Sample {
	s := &sample.Sample{}
	for i := 0; i+1 < len(data); i += 2 {
		s.Times = append(s.Times, float64(int(data[i])<<8|int(data[i+1]))/100)
	}
	if censor {
		s.Censored = make([]bool, len(s.Times))
		for i := range s.Censored {
			s.Censored[i] = i%7 == 6
		}
	}
	return s
}

// FuzzEstimate: any small sample (times from the bytes, in 10 ms steps,
// every 7th censored when asked) is estimated without a panic, and the
// result is a distribution: CDF nondecreasing within [0, 1], atoms' and
// stuck masses in [0, 1].
func FuzzEstimate(f *testing.F) {
	f.Add([]byte{0, 10, 0, 20, 0, 30, 1, 0, 0, 10, 0, 10, 0, 10, 0, 10}, false, uint8(0))
	f.Add([]byte{0, 0, 0, 0, 0, 0, 0, 1}, true, uint8(1))
	f.Add([]byte("settle times of a deadline spike: zzzzzzzzzzzzzzzzzzzzzzzz"), true, uint8(2))
	f.Fuzz(func(t *testing.T, data []byte, censor bool, dom uint8) {
		if len(data) < 4 || len(data) > 4096 {
			return
		}
		s := fuzzSample(data, censor)
		d, err := Estimate(s, Options{Domain: []string{DomainLog, DomainLinear, DomainReflect}[dom%3]})
		if err != nil {
			return // too few settles, all equal, …: an error, not a panic
		}
		prev := 0.0
		for i, c := range d.CDFs {
			if !(c >= prev-1e-12 && c <= 1+1e-12) {
				t.Fatalf("CDF[%d] = %v after %v", i, c, prev)
			}
			prev = c
		}
		for _, a := range d.Atoms {
			if !(a.Mass >= 0 && a.Mass <= 1+1e-12) || a.Width < 0 || math.IsNaN(a.Rate) || math.IsInf(a.Rate, 0) {
				t.Fatalf("atom %+v", a)
			}
		}
		if !(d.StuckShare >= 0 && d.StuckShare <= 1) {
			t.Fatalf("stuck share %v", d.StuckShare)
		}
	})
}

// FuzzMixtureEM: on any sample (ties, zeros, censoring, few values) the
// mixture fit either errors or gives a distribution: shares summing to
// 1, σ at or above its floor, a finite log-likelihood, a monotone CDF.
func FuzzMixtureEM(f *testing.F) {
	f.Add([]byte{0, 10, 0, 20, 0, 30, 1, 0, 0, 10, 0, 10, 0, 10, 0, 10}, false, uint8(0))
	f.Add([]byte{0, 0, 0, 0, 0, 0, 0, 1}, true, uint8(2))
	f.Add([]byte("warm and cold starts: aaaaaaaaaaaaaaaaaaaazzzzzzzzzzz~~~~~"), true, uint8(3))
	f.Fuzz(func(t *testing.T, data []byte, censor bool, k uint8) {
		if len(data) < 4 || len(data) > 2048 {
			return
		}
		s := fuzzSample(data, censor)
		m, err := MixtureEM(s, MixtureOptions{K: int(k % 5), MaxIter: 200})
		if err != nil {
			return
		}
		sum := m.Zero + m.Stuck
		for _, c := range m.Components {
			if !(c.Sigma >= mixSigmaMin) || math.IsNaN(c.Mu) || !(c.Weight >= 0) {
				t.Fatalf("component %+v", c)
			}
			sum += c.Weight
		}
		if math.Abs(sum-1) > 1e-9 || math.IsNaN(m.LogLik) || math.IsInf(m.LogLik, 0) {
			t.Fatalf("shares sum to %v, loglik %v: %s", sum, m.LogLik, m)
		}
		prev := 0.0
		for _, x := range []float64{0, 0.01, 0.1, 1, 10, 100, 1000} {
			c := m.CDF(x)
			if !(c >= prev-1e-12 && c <= 1+1e-12) {
				t.Fatalf("CDF(%g) = %v after %v", x, c, prev)
			}
			prev = c
		}
	})
}
