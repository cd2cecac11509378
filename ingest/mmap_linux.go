package ingest

import (
	"os"
	"syscall"
)

// mapFile maps the size bytes of f read-only, for reading in place: the
// read(2) copies of a 846 MB CSV took 0.1 s of CPU (docs/performance.md,
// Ingest). It returns nil when the file cannot be mapped; unmap releases
// the mapping.
func mapFile(f *os.File, size int64) (data []byte, unmap func()) {
	if size <= 0 || int64(int(size)) != size {
		return nil, nil
	}
	data, err := syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return nil, nil
	}
	// The parsers walk the blocks in order: ask for read-ahead.
	_ = syscall.Madvise(data, syscall.MADV_SEQUENTIAL)
	return data, func() { syscall.Munmap(data) }
}

// pageSize is the size of the memory pages mappings are made of.
var pageSize = os.Getpagesize()

// releaseMapped drops the pages of b, a page-aligned part of a file's
// mapping, from the process's memory; reading them again reads the file.
func releaseMapped(b []byte) { _ = syscall.Madvise(b, syscall.MADV_DONTNEED) }
