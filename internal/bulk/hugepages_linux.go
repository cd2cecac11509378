package bulk

import (
	"syscall"
	"unsafe"
)

// hugePages advises the kernel to back the 2 MB-aligned part of the size
// bytes at p with transparent huge pages (madvise MADV_HUGEPAGE, which
// the Go runtime stopped doing itself in Go 1.21.1). It is only advice:
// errors are ignored, and with THP "never" nothing changes.
func hugePages(p unsafe.Pointer, size uintptr) {
	const huge = 2 << 20
	if size < 2*huge {
		return
	}
	start := (uintptr(p) + huge - 1) &^ (huge - 1)
	end := (uintptr(p) + size) &^ (huge - 1)
	if end <= start {
		return
	}
	_ = syscall.Madvise(unsafe.Slice((*byte)(unsafe.Add(p, start-uintptr(p))), end-start), syscall.MADV_HUGEPAGE)
}
