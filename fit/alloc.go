package fit

import (
	"runtime"
	"sync"
	"sync/atomic"
	"unsafe"
)

// makeBig returns make([]E, n, c) for the sample-sized slices (10⁷ items
// and more), asking the OS to back them with transparent huge pages where
// it can (hugePages). On the virtual machines these tools run on, the
// first touch of each 4 KB page is a fault that costs more than parsing
// the values written into it: 80 MB (10⁷ float64) took 250 ms to fault in
// and 20 ms with 2 MB pages (docs/performance.md, Ingest). Slices under
// 4 MB are made as usual.
func makeBig[E any](n, c int) []E {
	s := make([]E, n, c)
	if c > 0 {
		var zero E
		hugePages(unsafe.Pointer(unsafe.SliceData(s)), uintptr(c)*unsafe.Sizeof(zero))
	}
	return s
}

// itemChunk is the number of items per parallelChunks chunk. It is
// fixed, not derived from the core count, so that sums reduced chunk by
// chunk come out the same on every machine.
const itemChunk = 1 << 20

// parallelChunks calls f(k, lo, hi) for the chunks k = 0, 1, … of
// [0, n) of itemChunk items, on GOMAXPROCS goroutines, and returns the
// number of chunks. Element-wise loops over the whole sample (10⁷ logs
// take 0.1 s on one core) use it; a sum is kept per chunk and the chunks'
// sums added in order, so results do not depend on the schedule.
func parallelChunks(n int, f func(k, lo, hi int)) int {
	chunks := (n + itemChunk - 1) / itemChunk
	workers := min(runtime.GOMAXPROCS(0), chunks)
	if workers < 2 {
		for k := range chunks {
			f(k, k*itemChunk, min(n, (k+1)*itemChunk))
		}
		return chunks
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
				f(k, k*itemChunk, min(n, (k+1)*itemChunk))
			}
		})
	}
	wg.Wait()
	return chunks
}
