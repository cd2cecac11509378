package fit

import "sync"

// scratchPool keeps work buffers of one element type between fits, for
// the life of the process: the sorted copy of the KS distance's sample
// and its radix buffer, the spike screen's cell indexes, the KDE's bins,
// transforms and grid values until the result is filled in. A fit of 10⁵
// values made 2 MB of them anew, and collecting that garbage cost about
// a sixth of the fit's CPU time. Buffers come back with whatever they
// held: their users write every element before reading it. Idle buffers
// are kept up to scratchBytes in all, each of at most scratchMaxBytes
// (larger ones, of fits of millions of values, cost little against
// their fits and would hold that memory for good).
type scratchPool[T any] struct {
	mu    sync.Mutex
	idle  [][]T
	bytes int
	size  int // bytes of an element
}

const (
	scratchBytes    = 16 << 20
	scratchMaxBytes = 4 << 20
)

var (
	floatScratch   = scratchPool[float64]{size: 8}
	int32Scratch   = scratchPool[int32]{size: 4}
	complexScratch = scratchPool[complex128]{size: 16}
)

// get returns a buffer of length n, its contents arbitrary: the smallest
// idle one that holds n, else a new one.
func (p *scratchPool[T]) get(n int) []T {
	p.mu.Lock()
	best := -1
	for i, b := range p.idle {
		if cap(b) >= n && (best < 0 || cap(b) < cap(p.idle[best])) {
			best = i
		}
	}
	if best >= 0 {
		b := p.idle[best]
		last := len(p.idle) - 1
		p.idle[best], p.idle[last] = p.idle[last], nil
		p.idle = p.idle[:last]
		p.bytes -= cap(b) * p.size
		p.mu.Unlock()
		return b[:n]
	}
	p.mu.Unlock()
	return make([]T, n)
}

// put gives back a buffer from get; the caller must not use it after.
func (p *scratchPool[T]) put(b []T) {
	c := cap(b) * p.size
	if c == 0 || c > scratchMaxBytes {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.bytes+c > scratchBytes {
		return
	}
	p.idle = append(p.idle, b[:0])
	p.bytes += c
}

// zeroed returns a buffer of n zeros from floatScratch.
func zeroed(n int) []float64 {
	b := floatScratch.get(n)
	clear(b)
	return b
}
