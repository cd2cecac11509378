// Package bulk allocates and loops over sample-sized slices (10⁷ items
// and more) for the sample, reading (ingest) and estimating (fit)
// packages.
//
// Make backs large slices with transparent huge pages, and Chunks runs an
// element-wise loop over fixed-size chunks on every core, so that sums
// reduced chunk by chunk come out the same on every machine.
package bulk

import (
	"runtime"
	"sync"
	"sync/atomic"
	"unsafe"
)

// Make returns make([]E, n, c) for the sample-sized slices, asking the OS
// to back them with transparent huge pages where it can (hugePages). On
// the virtual machines these tools run on, the first touch of each 4 KB
// page is a fault that costs more than parsing the values written into
// it: 80 MB (10⁷ float64) took 250 ms to fault in and 20 ms with 2 MB
// pages (docs/performance.md, Ingest). Slices under 4 MB are made as
// usual.
func Make[E any](n, c int) []E {
	s := make([]E, n, c)
	if c > 0 {
		var zero E
		hugePages(unsafe.Pointer(unsafe.SliceData(s)), uintptr(c)*unsafe.Sizeof(zero))
	}
	return s
}

// ChunkItems is the number of items per Chunks chunk. It is fixed, not
// derived from the core count, so that sums reduced chunk by chunk come
// out the same on every machine.
const ChunkItems = 1 << 20

// NumChunks returns the number of chunks Chunks cuts n items into.
func NumChunks(n int) int { return (n + ChunkItems - 1) / ChunkItems }

// Chunks calls f(k, lo, hi) for the chunks k = 0, 1, … of [0, n) of
// ChunkItems items (NumChunks of them), on GOMAXPROCS goroutines.
// Element-wise loops over the whole sample (10⁷ logs take 0.1 s
// on one core) use it; a sum is kept per chunk and the chunks' sums added
// in order, so results do not depend on the schedule.
func Chunks(n int, f func(k, lo, hi int)) {
	chunks := NumChunks(n)
	workers := min(runtime.GOMAXPROCS(0), chunks)
	if workers < 2 {
		for k := range chunks {
			f(k, k*ChunkItems, min(n, (k+1)*ChunkItems))
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for {
				k := int(next.Add(1)) - 1
				if k >= chunks {
					return
				}
				f(k, k*ChunkItems, min(n, (k+1)*ChunkItems))
			}
		})
	}
	wg.Wait()
}
