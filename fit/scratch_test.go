package fit

import (
	"fmt"
	"reflect"
	"sync"
	"testing"

	"github.com/pollfit/pollfit/sample"
	"gonum.org/v1/gonum/stat/distuv"
)

// TestScratchPool: get returns the length asked for, reusing the smallest
// idle buffer that holds it; put keeps at most scratchBytes idle and no
// buffer over scratchMaxBytes.
func TestScratchPool(t *testing.T) {
	p := scratchPool[float64]{size: 8}
	a := p.get(1000)
	if len(a) != 1000 {
		t.Fatalf("get(1000) has length %d", len(a))
	}
	b := p.get(5000)
	p.put(b)
	p.put(a)
	if c := p.get(800); cap(c) != cap(a) || &c[:1][0] != &a[:1][0] {
		t.Errorf("get(800) after put of 1000 and 5000: cap %d, want the 1000's (%d)", cap(c), cap(a))
	}
	p.put(make([]float64, scratchMaxBytes/8+1))
	for _, c := range p.idle {
		if cap(c)*8 > scratchMaxBytes {
			t.Errorf("idle buffer of %d bytes kept, want at most %d", cap(c)*8, scratchMaxBytes)
		}
	}
	for range 2 * scratchBytes / scratchMaxBytes {
		p.put(make([]float64, scratchMaxBytes/8))
	}
	if p.bytes > scratchBytes {
		t.Errorf("%d bytes idle, want at most %d", p.bytes, scratchBytes)
	}
}

// TestConcurrentFitsScratch: fits running at once, which take
// and give back the same pooled buffers (scratchPool) and FFT plans,
// give what each gives alone.
func TestConcurrentFitsScratch(t *testing.T) {
	var samples []*sample.Sample
	for i, n := range []int{300, 5000, 40_000, 70_000} {
		samples = append(samples, &sample.Sample{Times: sampleOf(distuv.LogNormal{Mu: float64(i), Sigma: 1, Src: pcg(uint64(n))}, n, 0.001*float64(i%2))})
	}
	opts := []Options{{}, {Domain: DomainLinear, Bandwidth: BandwidthSJ}, {Domain: DomainReflect, Bandwidth: BandwidthScott}}
	want := map[string]*Density{}
	for i, s := range samples {
		for j, o := range opts {
			d, err := Estimate(s, o)
			if err != nil {
				t.Fatal(err)
			}
			want[fmt.Sprint(i, j)] = d
		}
	}
	var wg sync.WaitGroup
	for range 3 {
		for i, s := range samples {
			for j, o := range opts {
				wg.Go(func() {
					d, err := Estimate(s, o)
					if err != nil {
						t.Error(err)
						return
					}
					if w := want[fmt.Sprint(i, j)]; !reflect.DeepEqual(d, w) {
						t.Errorf("sample %d, options %+v: concurrent fit differs from the fit alone", i, o)
					}
				})
			}
		}
	}
	wg.Wait()
}
