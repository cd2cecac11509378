package fit

import (
	"runtime"
	"sync"
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

// parallelChunks calls f(lo, hi) on GOMAXPROCS contiguous chunks of
// [0, n) at once, for element-wise loops over the whole sample (10⁷ logs
// take 0.3 s on one core). Small n runs in the caller's goroutine.
func parallelChunks(n int, f func(lo, hi int)) {
	workers := runtime.GOMAXPROCS(0)
	if n < 1<<16 || workers < 2 {
		f(0, n)
		return
	}
	var wg sync.WaitGroup
	size := (n + workers - 1) / workers
	for lo := 0; lo < n; lo += size {
		wg.Go(func() { f(lo, min(lo+size, n)) })
	}
	wg.Wait()
}
